"""A single-threaded fork server that starts isolated workers in about a millisecond.

The server is a fresh interpreter (started with ``sys.executable``, so it is
single-threaded whatever the host does) that imports the worker code once and
then forks one child per run. The host hands it one end of a socket pair per
run; the forked child keeps that end as its only way out. The server also
kills children on request (it alone knows a pid is not yet reaped, so a kill
never hits a recycled pid) and reports how they exited.

Control messages are single datagrams on a SOCK_SEQPACKET pair:
host -> server ``b"S <id>"`` with one fd (spawn), ``b"H <id>"`` with one fd
(spawn a worker to hold for the next run), ``b"K <pid>"`` (kill), ``b"I <pid>"`` (interrupt: stop the run, SIGUSR1);
server -> host ``b"R"`` (ready), ``b"P <id> <pid>"`` (spawned),
``b"X <pid> <status>"`` (exited).

The host never waits on the server unboundedly: it only sends without
blocking, a reader thread takes in every answer, and a spawn waits for its
own answer at most until the run's deadline. A server that exits, or leaves a
request unanswered for ``HUNG_S`` once ready, is broken: the next
``get_fork_server`` kills it (with its spare workers) and starts a new one.

After each run the host asks for the next run's worker ahead (``hold``): the
server hands a spare that worker's channel between runs (``serve`` says
when), and the worker waits on it for a job. The next run then sends its job
straight to that worker and wakes no fork server: one process wake-up
instead of three. The held worker is as fresh as any: forked from the
server, confined, never given anything before its one job.
"""

from __future__ import annotations

import atexit
import itertools
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import NamedTuple

from lackpy.errors import WorkerError, resource_error

HUNG_S = 1.0  # a ready fork server answers in milliseconds
SETTLE_S = 0.002  # after a run's worker exits, the server waits this long before forking: the host is passing on the result
START_S = 30.0  # ... and gets ready in well under a second
POOL_MAX = 7  # spares at most, whatever the machine: each keeps about 3 MB of its own


def pool_size() -> int:
    """Spares for this machine: one per allowed CPU but the host's, at least one, at most ``POOL_MAX``.

    With the worker held for the next run, a burst of runs finds as many
    workers ready as there are CPUs to run them.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(POOL_MAX, cpus - 1))

_servers: dict[bool, "ForkServer"] = {}
_server_lock = threading.Lock()
#: Workers handed to runs (each a fresh fork) and fork servers replaced after they broke, in this process: what metrics read.
_counted = {"forks": 0, "restarts": 0}
_count_lock = threading.Lock()  # its own: the readers count under a server's lock, which must never wait for _server_lock


class Workers(NamedTuple):
    """The isolated workers of this process, read at once (``workers()``): for metrics."""

    ready: int
    """Workers held ready for the next run (one per live fork server at most; its spares wait inside it)."""
    forks: int
    """Workers handed to runs since the process started, each a fresh fork."""
    restarts: int
    """Fork servers replaced because they exited or stopped answering."""
    servers: int
    """Fork servers alive now."""


def workers() -> Workers:
    """How many workers wait ready, how many were handed out, how often a fork server was replaced; never waits for a run."""
    live = [server for server in list(_servers.values()) if server.alive()]
    ready = sum(1 for server in live if server._held is not None)  # a read of one field: a glance, not a take
    with _count_lock:
        return Workers(ready, _counted["forks"], _counted["restarts"], len(live))


def _count(name: str) -> None:
    with _count_lock:
        _counted[name] += 1


class ForkServerBroken(WorkerError):
    """The fork server exited or stopped answering; it is replaced on next use."""


def get_fork_server(sandbox: bool = True) -> "ForkServer":
    """The process-wide fork server for sandboxed (or plain) workers, started on first use.

    A server that is broken or has exited is killed, reaped and replaced here,
    once: every thread that saw it fail gets the same new one.
    """
    with _server_lock:
        server = _servers.get(sandbox)
        if server is None or not server.alive():
            if server is not None:
                server.close()
                _count("restarts")
            server = _servers[sandbox] = ForkServer(sandbox)
        return server


def start_worker(sandbox: bool, deadline: float) -> tuple["ForkServer", int, socket.socket]:
    """A fresh worker: its fork server, its pid and the host's end of its channel.

    Waits until ``deadline`` (``time.monotonic()``) at most, then raises
    ``TimeoutError``. A fork server that turns out broken is replaced and the
    worker asked of the new one; if that fails too, raises ``WorkerError``.
    """
    retried = False
    while True:
        server = get_fork_server(sandbox)
        try:
            pid, channel = server.spawn(deadline)
            return server, pid, channel
        except ForkServerBroken as exc:
            get_fork_server(sandbox)  # replace it now, which lets its other waiters go at once
            if retried or time.monotonic() >= deadline:
                raise ForkServerBroken(f"{exc}; lackpy restarted it" if server.ready else str(exc)) from None
            retried = True


def held_worker(sandbox: bool) -> tuple["ForkServer", int, socket.socket] | None:
    """The worker held ready for the next run, taken without waiting for anything; None if there is none."""
    server = _servers.get(sandbox)
    if server is None or not server.alive():
        return None
    found = server.take_held()
    return None if found is None else (server, *found)


@atexit.register
def _close_all() -> None:
    for server in list(_servers.values()):
        server.close(grace_s=1.0)


class ForkServer:
    """The host's handle on the fork server process."""

    def __init__(self, sandbox: bool = True, pool: int | None = None) -> None:
        try:
            host_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError as exc:
            raise resource_error(exc, "cannot start the isolated worker's fork server") or exc from None
        self.pool = pool_size() if pool is None else pool
        boot = (
            f"import sys; sys.path[:0] = {sys.path!r}; from lackpy.run.forkserver import serve; "
            f"serve({server_end.fileno()}, {sandbox!r}, {self.pool!r})"
        )
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", boot],
                pass_fds=[server_end.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=None if os.environ.get("LACKPY_DEBUG_WORKER") else subprocess.DEVNULL,
                start_new_session=True,  # its own process group: the server and its spare workers
            )
        except OSError as exc:
            host_end.close()
            out_of = resource_error(exc, "cannot start the isolated worker's fork server", processes=True)
            raise out_of or ForkServerBroken(f"the isolated worker's fork server did not start: {exc}") from None
        finally:
            server_end.close()
        self.control = host_end
        self.started = time.monotonic()
        self.ready_at: float | None = None
        self.broken: str | None = None  # why it is no longer used
        self.exits: dict[int, int] = {}
        self._send_lock = threading.Lock()  # sends never block; guards closing the socket
        # Guards everything below and the fields above. Entered as the C lock itself, never through the
        # Condition's Python ``__enter__``: an exception raised into a run thread (its deadline, a cancel)
        # between that frame's acquire and its return would leave the lock held for good.
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._unanswered: dict[int, float] = {}  # spawn request -> when it was sent
        self._answers: dict[int, int] = {}  # spawn request -> the worker's pid
        self._abandoned: set[int] = set()  # requests whose run stopped waiting
        self._holds: dict[int, socket.socket] = {}  # hold request -> the host's end of that worker's channel
        self._held: tuple[int, socket.socket] | None = None  # a worker waiting for the next run's job
        threading.Thread(target=self._read, name="lackpy-forkserver", daemon=True).start()

    @property
    def ready(self) -> bool:
        return self.ready_at is not None

    def alive(self) -> bool:
        return self.broken is None and self.process.poll() is None

    def spawn(self, deadline: float) -> tuple[int, socket.socket]:
        """A worker for one run: the one held for it if there is one, else one forked now.

        Returns its pid and the host's end of its channel. Waits until
        ``deadline`` at most (then ``TimeoutError``); raises
        ``ForkServerBroken`` if the server exits or stops answering.
        """
        held = self.take_held()
        if held is not None:
            return held
        try:
            host_end, child_end = socket.socketpair()
        except OSError as exc:
            raise resource_error(exc, "cannot start the isolated worker") or exc from None
        with self._lock:
            request = next(self._ids)
            self._unanswered[request] = time.monotonic()
        try:
            try:
                self._send(b"S %d" % request, child_end)
            finally:
                child_end.close()
            with self._lock:
                self._wait(lambda: request in self._answers, deadline)
                return self._answers.pop(request), host_end
        except BaseException:
            host_end.close()  # a worker forked later finds its channel closed and exits
            with self._lock:
                if self._answers.pop(request, None) is None:
                    self._abandoned.add(request)
            raise

    def take_held(self) -> tuple[int, socket.socket] | None:
        """The worker held for the next run (its pid and channel), if one waits alive; never waits."""
        with self._lock:
            held, self._held = self._held, None
        if held is not None and hung_up(held[1]):  # it died waiting (killed, or stopped and then killed by the server)
            held[1].close()
            return None
        return held

    def hold(self) -> None:
        """Ask, without waiting, for a worker to hold for the next run (none if one is held or on its way).

        Called after a run has ended: when no channel can be made (descriptors
        ran out) none is held, and the run's result stands; the next run
        meets the shortage itself, as a ``resources`` error.
        """
        with self._lock:
            if self._held is not None or self._holds or not self.ready or self.broken:
                return
            try:
                host_end, child_end = socket.socketpair()
            except OSError:
                return
            request = next(self._ids)
            self._holds[request] = host_end
            self._unanswered[request] = time.monotonic()
        try:
            self._send(b"H %d" % request, child_end)
        except ForkServerBroken:
            return  # the next run finds the server broken and replaces it (closing the held channel)
        finally:
            child_end.close()

    def _wait(self, done, deadline: float) -> None:
        """Wait (under ``_changed``) until ``done()``, the deadline (``TimeoutError``) or a broken server."""
        while not done():
            if self.broken:
                raise ForkServerBroken(self.broken)
            now = time.monotonic()
            hung_at = self._hung_at()
            if now >= hung_at:
                self._break("the fork server stopped answering")
            elif now >= deadline:
                raise TimeoutError("no isolated worker started in time")
            else:
                self._changed.wait(min(hung_at, deadline) - now)

    def kill(self, pid: int) -> None:
        try:
            self._send(b"K %d" % pid)
        except ForkServerBroken:
            pass  # the worker finds its channel closed, or its own timer ends it

    def interrupt(self, pid: int) -> None:
        """Ask worker ``pid`` to stop its run where it is (SIGUSR1): it reports what it had done, as ``cancelled``."""
        try:
            self._send(b"I %d" % pid)
        except ForkServerBroken:
            pass

    def exit_status(self, pid: int, wait_s: float = 1.0) -> int | None:
        """How ``pid`` exited (an ``os.waitpid`` status), waiting up to ``wait_s``."""
        with self._lock:
            self._changed.wait_for(lambda: pid in self.exits or self.broken, wait_s)
            return self.exits.pop(pid, None)

    def close(self, grace_s: float = 0.0) -> None:
        """Stop the server and reap it. With ``grace_s`` it may first kill its workers and exit by itself."""
        self._break("the fork server was closed")
        with self._lock:
            waiting = list(self._holds.values()) + ([self._held[1]] if self._held is not None else [])
            self._held, self._holds = None, {}
        for channel in waiting:
            channel.close()
        with self._send_lock:
            try:
                self.control.shutdown(socket.SHUT_RDWR)  # the server kills its children at end of stream
            except OSError:
                pass  # already closed
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
        if self.process.returncode is None:  # not reaped, so its pid (and group) are still its own
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # with its spares, even if stopped
            except ProcessLookupError:
                pass
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                pass

    def _send(self, message: bytes, fd: socket.socket | None = None) -> None:
        """Send without waiting: a server that leaves its requests unread is broken."""
        with self._send_lock:
            reason = self.broken  # set before the reader closes the socket
            if reason is None:
                try:
                    if fd is None:
                        self.control.send(message, socket.MSG_DONTWAIT)
                    else:
                        socket.send_fds(self.control, [message], [fd.fileno()], socket.MSG_DONTWAIT)
                    return
                except BlockingIOError:
                    reason = "the fork server stopped reading its requests"
                except OSError:
                    reason = self._exited()
        self._break(reason)
        raise ForkServerBroken(reason)

    def _break(self, reason: str) -> None:
        with self._lock:
            if self.broken is None:
                self.broken = reason
            self._changed.notify_all()

    def _hung_at(self) -> float:
        """When the server counts as hung if it still has not answered (under ``_changed``)."""
        if self.ready_at is None:
            return self.started + START_S
        return max(min(self._unanswered.values()), self.ready_at) + HUNG_S

    def _exited(self) -> str:
        if self.ready:
            return "the fork server exited"
        return "the isolated worker's fork server did not start; use mode='inprocess' to run without it"

    def _read(self) -> None:
        """The reader thread: takes in every message until the server's end closes."""
        while True:
            try:
                message = self.control.recv(64)
            except OSError:
                message = b""
            with self._lock:
                if not message:
                    break
                self._note(message)
                self._changed.notify_all()
        self._break(self._exited())
        with self._send_lock:
            self.control.close()

    def _note(self, message: bytes) -> None:
        kind, _, rest = message.partition(b" ")
        if kind == b"R":
            self.ready_at = time.monotonic()
        elif kind == b"P":
            request, pid = map(int, rest.split())
            self._unanswered.pop(request, None)
            _count("forks")
            if request in self._holds:
                channel = self._holds.pop(request)
                if self.broken:
                    channel.close()
                else:
                    self._held = (pid, channel)
            elif request in self._abandoned:
                self._abandoned.discard(request)
            else:
                self._answers[request] = pid
        elif kind == b"X":
            pid, status = map(int, rest.split())
            if self._held is not None and self._held[0] == pid:  # the held worker died waiting
                self._held[1].close()
                self._held = None
            self.exits[pid] = status
            if len(self.exits) > 1024:  # statuses nobody asked for
                self.exits.pop(next(iter(self.exits)))


# -- the server process ----------------------------------------------------------


def serve(fd: int, sandbox: bool = True, pool: int = 1) -> None:
    """Main loop of the fork server process (never returns).

    ``pool`` warmed-up spare workers wait, forked ahead of time (and, with
    ``sandbox``, already confined): a spawn or a hold hands one of them the
    run's channel. The server works between runs, not beside them: it forks
    spares (one at a time) once the worker it last handed out for a run has
    exited (and SETTLE_S more, for the host to pass on its result), or 50 ms
    after handing it out, and answers a hold SETTLE_S after it came, forking
    the held worker's successor in the same pause (an MCP client's next call
    comes a few milliseconds later). A spawn (no worker was held: runs come
    faster than that) has the next spare forked at once.
    """
    import gc

    from lackpy.run import worker

    worker.preload()
    gc.collect()
    gc.freeze()  # children never scan (so never copy) the server's objects
    control = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    children: set[int] = set()

    def fork_spare() -> tuple[int, socket.socket]:
        server_end, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            control.close()
            server_end.close()
            worker.spare_main(spare_end, sandbox)  # never returns
        spare_end.close()
        children.add(pid)
        return pid, server_end

    spares = [fork_spare()]  # the rest of the pool is forked while nothing runs
    handed: int | None = None  # the last worker handed out
    quiet_at = 0.0
    hold: tuple[bytes, int] | None = None  # a worker asked for ahead: its request and channel
    control.send(b"R")
    while True:
        wait = 0.2 if len(spares) >= pool and hold is None else 0.002  # meanwhile, look for the worker's exit often
        ready, _, _ = select.select([control], [], [], wait)
        stopped = _reap(control, children)
        spares = _alive(spares, children, stopped)
        now = time.monotonic()
        if handed is not None and handed not in children:
            handed, quiet_at = None, min(quiet_at, now + SETTLE_S)
        if now >= quiet_at and hold is not None:  # nothing runs; with a spare (no burst took them all), fork its successor now
            refill = bool(spares)
            _answer(control, hold, spares, fork_spare)
            hold = None
            if refill:
                spares.append(fork_spare())
        elif now >= quiet_at and len(spares) < pool:
            spares.append(fork_spare())
        if not ready:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 1)
        except OSError:
            message, fds = b"", []
        if not message:
            for pid in children:
                _kill(pid)
            os._exit(0)
        if message[:2] == b"S " and fds:  # the host had no worker held: runs come in a burst, so the next is forked now
            handed, quiet_at = _answer(control, (message[2:], fds[0]), spares, fork_spare), 0.0
        elif message[:2] == b"H " and fds:
            if hold is not None:  # one at a time: an earlier one is answered now
                handed = _answer(control, hold, spares, fork_spare)
            hold, quiet_at = (message[2:], fds[0]), max(quiet_at, time.monotonic() + SETTLE_S)
        elif message.startswith(b"K ") or message.startswith(b"I "):
            pid = int(message[2:])
            if pid in children:  # only our own, not yet reaped child
                _kill(pid, signal.SIGKILL if message[:1] == b"K" else signal.SIGUSR1)
        else:
            for extra in fds:
                os.close(extra)


def _alive(spares: list[tuple[int, socket.socket]], children: set[int], stopped: set[int]) -> list[tuple[int, socket.socket]]:
    """The spares still waiting; the channels of those that exited or were stopped are closed."""
    alive = []
    for pid, handoff in spares:
        if pid in stopped or pid not in children:
            handoff.close()
        else:
            alive.append((pid, handoff))
    return alive


def _answer(control: socket.socket, request: tuple[bytes, int], spares: list[tuple[int, socket.socket]], fork_spare) -> int:
    """Hand the requested channel to the oldest of ``spares`` (taken off it; or a worker forked now) and tell the host its pid; returns the pid."""
    pid = _hand_off(spares.pop(0) if spares else fork_spare(), request[1], fork_spare)
    control.send(b"P %s %d" % (request[0], pid))
    return pid


def _hand_off(spare: tuple[int, socket.socket], channel: int, fork_spare) -> int:
    """Give ``spare`` the run's ``channel`` (closed here after); returns the pid of the worker that took it."""
    pid, handoff = spare
    try:
        socket.send_fds(handoff, [b"J"], [channel])
    except OSError:  # the spare died: serve this run from a new one
        handoff.close()
        pid, handoff = fork_spare()
        socket.send_fds(handoff, [b"J"], [channel])
    handoff.close()
    os.close(channel)
    return pid


def hung_up(channel: socket.socket) -> bool:
    """Whether a waiting worker's channel has hung up: a waiting worker sends nothing, so anything readable is its end."""
    readable, _, _ = select.select([channel], [], [], 0)
    return bool(readable)


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _reap(control: socket.socket, children: set[int]) -> set[int]:
    """Reap the children that exited, telling the host; kills those found stopped and returns them."""
    stopped: set[int] = set()
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            break
        if pid == 0:
            break
        if os.WIFSTOPPED(status):
            _kill(pid)  # a stopped worker would hold up its run (or the run handed to it) until its deadline
            stopped.add(pid)
            continue
        children.discard(pid)
        try:
            control.send(b"X %d %d" % (pid, status))
        except OSError:
            break
    return stopped
