"""A single-threaded fork server that starts isolated workers in about a millisecond.

The server is a fresh interpreter (started with ``sys.executable``, so it is
single-threaded whatever the host does) that imports the worker code once and
then forks one child per run. The host hands it one end of a socket pair per
run; the forked child keeps that end as its only way out. The server also
kills children on request (it alone knows a pid is not yet reaped, so a kill
never hits a recycled pid) and reports how they exited.

Control messages are single datagrams on a SOCK_SEQPACKET pair:
host -> server ``b"S"`` with one fd (spawn), ``b"K <pid>"`` (kill);
server -> host ``b"P <pid>"`` (spawned), ``b"X <pid> <status>"`` (exited).
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

from lackpy.errors import WorkerError

_servers: dict[bool, "ForkServer"] = {}
_server_lock = threading.Lock()


def get_fork_server(sandbox: bool = True) -> "ForkServer":
    """The process-wide fork server for sandboxed (or plain) workers, started on first use."""
    with _server_lock:
        server = _servers.get(sandbox)
        if server is None or not server.alive():
            server = _servers[sandbox] = ForkServer(sandbox)
            atexit.register(server.close)
        return server


class ForkServer:
    """The host's handle on the fork server process."""

    def __init__(self, sandbox: bool = True) -> None:
        host_end, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        boot = (
            f"import sys; sys.path[:0] = {sys.path!r}; from lackpy.run.forkserver import serve; "
            f"serve({server_end.fileno()}, {sandbox!r})"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", boot],
            pass_fds=[server_end.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("LACKPY_DEBUG_WORKER") else subprocess.DEVNULL,
            start_new_session=True,
        )
        server_end.close()
        self.control = host_end
        self.lock = threading.Lock()
        self.exits: dict[int, int] = {}
        self.control.settimeout(30)
        try:
            ready = self.control.recv(64)
        except OSError:
            ready = b""
        if ready != b"R":
            self.close()
            raise WorkerError("the isolated worker's fork server did not start; use mode='inprocess' to run without it")
        self.control.settimeout(None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def spawn(self) -> tuple[int, socket.socket]:
        """Fork a worker; returns its pid and the host's end of its channel."""
        host_end, child_end = socket.socketpair()
        try:
            with self.lock:
                socket.send_fds(self.control, [b"S"], [child_end.fileno()])
                while True:
                    message = self.control.recv(64)
                    if not message:
                        raise WorkerError("the fork server exited")
                    if message.startswith(b"P "):
                        return int(message[2:]), host_end
                    self._note(message)
        except OSError as exc:
            host_end.close()
            raise WorkerError(f"cannot start an isolated worker: {exc}") from None
        finally:
            child_end.close()

    def kill(self, pid: int) -> None:
        with self.lock:
            try:
                self.control.send(b"K %d" % pid)
            except OSError:
                pass

    def exit_status(self, pid: int, wait_s: float = 1.0) -> int | None:
        """How ``pid`` exited (an ``os.waitpid`` status), waiting up to ``wait_s``."""
        deadline = time.monotonic() + wait_s
        with self.lock:
            while pid not in self.exits:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                ready, _, _ = select.select([self.control], [], [], remaining)
                if ready:
                    message = self.control.recv(64)
                    if not message:
                        return None
                    self._note(message)
            return self.exits.pop(pid)

    def _note(self, message: bytes) -> None:
        if message.startswith(b"X "):
            _, pid, status = message.split()
            self.exits[int(pid)] = int(status)
            if len(self.exits) > 1024:  # statuses nobody asked for
                self.exits.pop(next(iter(self.exits)))

    def close(self) -> None:
        try:
            self.control.close()
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


# -- the server process ----------------------------------------------------------


def serve(fd: int, sandbox: bool = True) -> None:
    """Main loop of the fork server process (never returns).

    One warmed-up spare worker always waits, forked ahead of time (and, with
    ``sandbox``, already confined): a spawn hands it the run's channel and the
    next spare is forked once the server is idle, off the host's critical path.
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

    spare: tuple[int, socket.socket] | None = fork_spare()
    running: int | None = None  # the last worker handed out
    spare_due = 0.0
    control.send(b"R")
    while True:
        wait = 0.2 if spare is not None else 0.002  # without a spare, look for the worker's exit often
        ready, _, _ = select.select([control], [], [], wait)
        _reap(control, children)
        # The next spare is forked once the server is idle (the last worker is
        # done, or 50 ms passed), so a fresh run does not share the CPU with it.
        if spare is None and (running not in children or time.monotonic() >= spare_due):
            spare = fork_spare()
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
        if message == b"S" and fds:
            pid, handoff = spare if spare is not None else fork_spare()
            try:
                socket.send_fds(handoff, [b"J"], fds)
            except OSError:  # the spare died: serve this run from a new one
                handoff.close()
                pid, handoff = fork_spare()
                socket.send_fds(handoff, [b"J"], fds)
            handoff.close()
            os.close(fds[0])
            control.send(b"P %d" % pid)
            spare, running, spare_due = None, pid, time.monotonic() + 0.05
        elif message.startswith(b"K "):
            pid = int(message[2:])
            if pid in children:  # only our own, not yet reaped child
                _kill(pid)
        else:
            for extra in fds:
                os.close(extra)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(control: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        try:
            control.send(b"X %d %d" % (pid, status))
        except OSError:
            return
