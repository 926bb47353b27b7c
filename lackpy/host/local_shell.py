"""The local shell backend: the only code in lackpy's tools that starts or signals processes.

Every command runs as ``/bin/sh -c command`` in a new session, with stdin from
/dev/null, in a directory the workspace path policy allowed. Output is read
incrementally and kept within a fixed size per stream, so a command that
prints gigabytes costs no memory.

On Linux the shell runs under a small supervisor process of its own
(``lackpy.host.supervise``, a child subreaper), so every process the command
starts is tracked, including ones that leave its process group (``setsid``, a
double fork): when the shell exits, when the command times out or is stopped,
and when lackpy exits (even if killed), the supervisor kills them all. lackpy
itself never becomes a subreaper. Where that cannot work (not Linux, the
kernel refuses the prctl, no Python interpreter to run the supervisor) lackpy
warns once and only kills the command's process group, when it times out and
when its shell exits; the shell is not reaped until its group has been killed,
so the group id cannot have been reused by an unrelated process.

The supervisor is out of its command's reach: a confined command cannot
signal it (Landlock's signal scope, ABI >= 6), and where pid namespaces work
(asked once per lackpy process, ``supervise.py --probe``) the command runs in
one whose pid 1 is the supervisor, so it can name nothing outside and, if the
supervisor dies anyway, the kernel kills all of it. Where neither holds,
lackpy warns once; ``status()`` (``lackpy tools``) says which holds.

Every command gets ``confine.command_env``, never lackpy's whole environment.

Given a ``Confinement`` (the tools always give one), a command runs confined
to the workspace where the kernel allows it (``lackpy.host.confine``): lackpy
builds the Landlock ruleset and the command's private TMPDIR, and the child
applies the ruleset before the shell runs. The supervisor applies it in the
shell's child, staying outside it; without a supervisor, a ``preexec_fn``
does, which only makes system calls through functions resolved before the
fork (``landlock.warm``), the safe subset of what may run in a child forked
from a threaded process. A command
that cannot be confined as it must be does not run (``confine.ConfinementError``);
where the kernel has no Landlock it runs and its result says
``"unconfined": why`` (and ``"hard_links": what`` where lackpy could not
check every other name of a denied file: ``Prepared.notes``).
"""

from __future__ import annotations

import codecs
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from typing import Any, Callable

from lackpy.errors import LackpyWarning
from lackpy.host import confine
from lackpy.host.confine import Confinement, Prepared, command_env, failed, prepare

# After a kill, how long output still in the pipes is drained before giving up
# on processes that keep the pipes open (only untracked ones can outlive a kill).
DRAIN_GRACE_S = 1.0
# How long a supervisor may take to start its shell, and to kill and reap a stopped command.
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervise.py")
_CHUNK = 64 * 1024
_TICK_S = 0.05
#: A running command's new output is passed on (``on_output``) at most this often, or once this much has come.
STREAM_S = 0.05
STREAM_BYTES = 16 * 1024


def _notice(dropped: int) -> str:
    return f"\n[... {dropped} bytes dropped ...]\n"


# --------------------------------------------------------------------------- the seam


class _HeadTail:
    """The first half and the last half of a stream, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.head_limit = self.limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        keep = self.limit - self.head_limit
        if len(chunk) >= keep:
            self.dropped += len(self.tail) + len(chunk) - keep
            self.tail = bytearray(chunk[len(chunk) - keep:]) if keep else bytearray()
            return
        self.tail += chunk
        excess = len(self.tail) - keep
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        if not self.dropped:
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        return (
            bytes(self.head).decode("utf-8", errors="replace")
            + _notice(self.dropped)
            + bytes(self.tail).decode("utf-8", errors="replace")
        )


class _Stream:
    """A running command's new output, passed on in pieces: at most every ``STREAM_S`` or ``STREAM_BYTES``, each byte once.

    Decoded as UTF-8 incrementally, so a character split between two reads
    is passed on whole, in the later piece. What is passed on is also kept
    for the result (``_HeadTail``), which it never changes.
    """

    def __init__(self, report: Callable[[str, str], None]) -> None:
        self.report = report
        self.decoders = {name: codecs.getincrementaldecoder("utf-8")(errors="replace") for name in ("stdout", "stderr")}
        self.pending: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.size = 0
        self.last = time.monotonic()

    def add(self, name: str, chunk: bytes) -> None:
        text = self.decoders[name].decode(chunk)
        if text:
            self.pending[name].append(text)
            self.size += len(chunk)
        if self.size >= STREAM_BYTES:
            self.flush()

    def tick(self, now: float) -> None:
        if self.size and now - self.last >= STREAM_S:
            self.flush()

    def flush(self, final: bool = False) -> None:
        for name, parts in self.pending.items():
            if final:
                parts.append(self.decoders[name].decode(b"", final=True))
            text = "".join(parts)
            parts.clear()
            if text:
                self.report(name, text)
        self.size, self.last = 0, time.monotonic()


class _Watch:
    """A background command's new output while someone watches it: a ``_Stream`` fed by both reader threads.

    What waits is passed on within ``STREAM_S`` by a timer, since a reader
    blocked on a quiet pipe cannot; ``close`` passes on the rest at once.
    """

    def __init__(self, report: Callable[[str, str], None]) -> None:
        self.stream = _Stream(report)
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None

    def add(self, name: str, chunk: bytes) -> None:
        with self.lock:
            self.stream.add(name, chunk)
            if self.stream.size and self.timer is None:
                self.timer = threading.Timer(STREAM_S, self._due)
                self.timer.daemon = True
                self.timer.start()

    def _due(self) -> None:
        with self.lock:
            self.timer = None
            if self.stream.size:
                self.stream.flush()

    def close(self) -> None:
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.stream.flush(final=True)


class _Unread:
    """Output not yet read, at most ``limit`` bytes: the oldest is dropped first, and counted."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.data = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, chunk: bytes) -> None:
        with self.lock:
            self.data += chunk
            excess = len(self.data) - self.limit
            if excess > 0:
                del self.data[:excess]
                self.dropped += excess

    def take(self, final: bool = False) -> str:
        with self.lock:
            data, dropped = bytes(self.data), self.dropped
            self.data.clear()
            self.dropped = 0
            if dropped:
                self.decoder.reset()  # a character split before the gap cannot be completed
            text = self.decoder.decode(data, final=final)
        return _notice(dropped) + text if dropped else text


# --------------------------------------------------------------------------- starting and stopping

_LINUX = sys.platform.startswith("linux")
_tracking = True  # False once lackpy has warned that it cannot track a command's processes


def _untracked(reason: str) -> None:
    """From now on run commands without a supervisor; warn once."""
    global _tracking
    if not _tracking:
        return
    _tracking = False
    warnings.warn(
        f"lackpy cannot track the processes shell commands start ({reason}); it only kills a command's "
        "process group, so processes that leave it (setsid, double fork) can outlive the command and lackpy",
        LackpyWarning,
    )


_reach_warned = False  # True once lackpy has warned that commands can kill their supervisor
_probed: list[str] = []  # why pid namespaces do not work here ("" when they do), once asked


def _reachable(reason: str) -> None:
    """Warn once that commands can kill their supervisor, and so leave processes behind."""
    global _reach_warned
    if _reach_warned:
        return
    _reach_warned = True
    warnings.warn(
        f"lackpy cannot keep a shell command from killing its supervisor ({reason}); a command that does frees "
        "the processes it started, which can then outlive it and lackpy",
        LackpyWarning,
    )


def _namespaces() -> str:
    """Why the supervisor cannot hold a command in a pid namespace here ('' when it can): asked once, in a child."""
    if not _probed:
        try:
            probe = subprocess.run(
                [sys.executable, "-I", "-S", SUPERVISOR, "--probe"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=START_TIMEOUT_S, env=command_env(),
            )
            why = probe.stdout.decode(errors="replace").strip() if probe.returncode == 0 else (
                f"its probe failed (exit status {probe.returncode})"
            )
        except (OSError, subprocess.SubprocessError) as exc:
            why = f"its probe did not run ({exc})"
        _probed.append(f"no pid namespace: {why}" if why else "")
    return _probed[0]


def _hold(confined: Prepared | None) -> str:
    """How the supervisor holds its command: in a pid namespace where it can ("pidns"), else as it is ("-").

    Its Landlock ruleset (ABI >= 6) also keeps a confined command from
    signalling the supervisor; where neither holds, lackpy warns once.
    """
    why = _namespaces()
    if not why:
        return "pidns"
    if confined is None or not confined.scoped:
        _reachable(f"no Landlock signal scoping (ABI >= 6) and {why}")
    return "-"


def _mounts() -> bool:
    """Whether the next command's supervisor will have a mount namespace to hold ``.lackpy`` read-only in."""
    return _tracking and not _why_untracked() and not _namespaces()


def reach() -> str:
    """How (or why not) the supervisor is out of its commands' reach here, for ``lackpy tools``."""
    untracked = _why_untracked()
    if untracked:
        return f"their processes NOT tracked ({untracked})"
    scoped = not confine.unavailable() and confine.scopes_signals()
    pidns = _namespaces()
    if not pidns:
        return f"their supervisor out of their reach ({'Landlock signal scoping and ' if scoped else ''}a pid namespace)"
    if scoped:
        return f"their supervisor out of their reach (Landlock signal scoping; if it dies anyway, what they started runs on: {pidns})"
    return f"a command CAN kill its supervisor and leave processes behind (no Landlock signal scoping, {pidns})"


def status(settings: dict | None = None) -> str:
    """One line on how commands run here, for ``lackpy tools``: confinement, then supervision."""
    return f"{confine.status(settings, state_mounted=_mounts())}; {reach()}"


def _why_untracked() -> str | None:
    if not _LINUX:
        return "that needs Linux"
    if getattr(sys, "frozen", False) or not sys.executable or not os.access(sys.executable, os.X_OK):
        return f"no Python interpreter to run its supervisor; sys.executable is {sys.executable!r}"
    if not os.path.isfile(SUPERVISOR):
        return f"its supervisor {SUPERVISOR} is missing; reinstall lackpy"
    return None


def _popen(
    argv: list[str],
    cwd: str,
    pass_fds: tuple[int, ...] = (),
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen:
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        preexec_fn=preexec_fn,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        start_new_session=True,
        close_fds=True,
        pass_fds=pass_fds,
    )


def _kill_group(popen: subprocess.Popen) -> None:
    """SIGKILL the process group ``popen`` leads (itself included), then reap it."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    popen.wait()


class _Started:
    """A running command: its supervisor and lackpy's end of their socket pair, or (untracked) its shell alone."""

    def __init__(self, popen: subprocess.Popen, lifeline: socket.socket | None = None) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.lifeline = lifeline

    def exited(self) -> bool:
        """Whether the supervisor (or shell) has exited, without reaping it (its pid keeps the group id reserved)."""
        popen = self.popen
        if popen.returncode is not None:
            return True
        if hasattr(os, "waitid"):
            try:
                return os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:  # already reaped elsewhere
                pass
        return popen.poll() is not None

    def stop(self) -> None:
        """Kill the command and everything it started, and reap it; its exit status is kept if it had exited."""
        if self.lifeline is None:
            _kill_group(self.popen)
            return
        try:
            self.popen.send_signal(signal.SIGTERM)  # nothing is sent once it has exited
            self.lifeline.settimeout(STOP_TIMEOUT_S)
            try:
                self.lifeline.recv(1)  # end of file: the supervisor has killed everything and exits
            except TimeoutError:  # a wedged supervisor (a child stuck in the kernel): kill it alone
                _kill_group(self.popen)
            except OSError:
                pass
            self.popen.wait()
        finally:
            self.lifeline.close()


# Imported rather than run as a script, so its cached bytecode is used (about 2 ms less per command).
_BOOT = "import os, sys; sys.path.append(os.path.dirname(sys.argv[1])); import supervise; supervise.main(sys.argv[1:])"


def _supervisor_argv(fd: int, hold: str, command: str) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", _BOOT, SUPERVISOR, str(fd), hold, command]


def _supervised(command: str, cwd: str, confined: Prepared | None = None) -> _Started | None:
    """The command started under a supervisor (which confines the shell); None when the supervisor cannot run here."""
    hold = _hold(confined)
    ours, theirs = socket.socketpair()
    env = confined.supervisor_env() if confined else command_env()
    extra = confined.pass_fds() if confined else ()
    try:
        popen = _popen(_supervisor_argv(theirs.fileno(), hold, command), cwd, pass_fds=(theirs.fileno(), *extra), env=env)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    answer = b""
    try:
        ours.settimeout(START_TIMEOUT_S)
        answer = ours.recv(512)
    except OSError:  # the timeout included
        pass
    except BaseException:
        _abandon(popen, ours)
        raise
    if answer == b"1":
        ours.settimeout(None)
        return _Started(popen, ours)
    if answer.startswith(b"0"):  # it cannot track here, and has become the shell itself
        ours.close()
        _untracked(answer[2:].decode(errors="replace") or "its supervisor cannot track them here")
        return _Started(popen)
    _abandon(popen, ours)
    popen.stdout.close()
    popen.stderr.close()
    if answer.startswith(b"C"):  # it could not confine itself, and ran nothing
        raise failed(_why(answer[1:]))
    if answer.startswith(b"E") and answer[1:].isdigit():
        code = int(answer[1:])
        raise OSError(code, os.strerror(code))
    _untracked(f"its supervisor ({sys.executable} -I -S, {SUPERVISOR}) did not start (exit status {popen.returncode})")
    return None


def _why(answer: bytes) -> str:
    code, _, text = answer.decode(errors="replace").partition(" ")
    return text or (os.strerror(int(code)) if code.isdigit() else "no reason given")


def _abandon(popen: subprocess.Popen, lifeline: socket.socket) -> None:
    """Close lackpy's end (a supervisor then kills what it started and exits); kill it if it does not; reap it."""
    lifeline.close()
    try:
        popen.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _kill_group(popen)


def _start(command: str, cwd: str, confined: Prepared | None = None) -> _Started:
    try:
        if _tracking:
            reason = _why_untracked()
            if reason:
                _untracked(reason)
            else:
                started = _supervised(command, cwd, confined)
                if started is not None:
                    return started
        if confined is None:
            return _Started(_popen(["/bin/sh", "-c", command], cwd, env=command_env()))
        confined.unmounted()  # no supervisor, no mount namespace: the ruleset alone keeps .lackpy read-only
        try:
            popen = _popen(["/bin/sh", "-c", command], cwd, env=confined.env(), preexec_fn=confined.preexec())
        except subprocess.SubprocessError:  # what preexec_fn raised: Popen keeps only that it raised
            raise failed("applying it in the child failed") from None
        return _Started(popen)
    finally:
        if confined is not None:
            confined.started()


class Process:
    """A background command: bounded output buffers filled by reader threads."""

    def __init__(
        self,
        started: _Started,
        command: str,
        cwd: str,
        max_buffer_bytes: int,
        confined: Prepared | None = None,
        on_output: Callable[[str, str], None] | None = None,
        watcher: Any = None,
    ) -> None:
        """``on_output`` watches from the first byte on (``watch``), for ``watcher``."""
        self.started = started
        self.confined = confined
        #: Why the command runs unconfined (the kernel cannot), or None.
        self.unconfined = confined.unconfined if confined else None
        #: What its state says of its confinement (``Prepared.notes``).
        self.notes = confined.notes() if confined else {}
        self.pid = started.pid
        popen = started.popen
        self.command = command
        self.cwd = cwd
        self.stdout = _Unread(max_buffer_bytes)
        self.stderr = _Unread(max_buffer_bytes)
        self.code: int | None = None
        self.finished = False
        self._lock = threading.Lock()
        self._watch: _Watch | None = _Watch(on_output) if on_output is not None else None
        self.watcher: Any = watcher if on_output is not None else None
        self._readers = [
            threading.Thread(target=self._read, args=(popen.stdout, self.stdout, "stdout"), name=f"lackpy-out-{self.pid}", daemon=True),
            threading.Thread(target=self._read, args=(popen.stderr, self.stderr, "stderr"), name=f"lackpy-err-{self.pid}", daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def watch(self, report: Callable[[str, str], None], by: Any = None) -> bool:
        """From now on ``report(stream, text)`` hears the command's new output (coalesced as ``run_command``'s), until ``unwatch``.

        It is a copy: the output stays in the buffers for ``read_new``.
        ``by`` names the watcher: a second ``watch`` by the one already
        watching changes nothing and returns False.
        """
        if self._watch is not None and by is not None and self.watcher is by:
            return False
        self.unwatch()
        self._watch, self.watcher = _Watch(report), by
        return True

    def unwatch(self, by: Any = None) -> None:
        """Pass on what the watcher (``by``'s, when given) has not heard yet, and stop telling it."""
        if by is not None and self.watcher is not by:
            return
        watch, self._watch, self.watcher = self._watch, None, None
        if watch is not None:
            watch.close()

    def _read(self, pipe: Any, buffer: _Unread, name: str) -> None:
        try:
            while True:
                chunk = pipe.read(_CHUNK)
                if not chunk:
                    break
                buffer.add(chunk)
                watch = self._watch
                if watch is not None:
                    watch.add(name, chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    def _finish(self) -> None:
        self.started.stop()  # leftovers of an exited shell too
        self.code = self.started.popen.returncode
        self.finished = True
        if self.confined is not None:
            self.confined.cleanup()  # its TMPDIR: nothing of the command is left to use it
        deadline = time.monotonic() + DRAIN_GRACE_S
        for reader in self._readers:
            reader.join(max(0.0, deadline - time.monotonic()))

    def poll(self) -> int | None:
        """The exit code once the command has finished (what it started is then killed), else None."""
        with self._lock:
            if not self.finished and self.started.exited():
                self._finish()
            return self.code

    @property
    def running(self) -> bool:
        return self.poll() is None

    def read_new(self) -> tuple[str, str]:
        """(stdout, stderr) produced since the previous read."""
        final = self.finished and not any(reader.is_alive() for reader in self._readers)
        return self.stdout.take(final), self.stderr.take(final)

    def kill(self) -> int | None:
        """Kill the command and everything it started, and reap it; nothing happens if it already finished."""
        with self._lock:
            if not self.finished:
                self._finish()
            return self.code


class LocalShell:
    """Runs commands with /bin/sh on this machine, confined when given a ``Confinement``."""

    def run(
        self, command: str, cwd: str, timeout_s: float, max_output_bytes: int, confinement: Confinement | None = None,
        on_output: Callable[[str, str], None] | None = None,
    ) -> dict:
        """Run ``command`` to its end; ``on_output(stream, text)`` hears its new output while it runs (``_Stream``)."""
        confined = prepare(confinement, _mounts()) if confinement is not None else None
        try:
            result = self._run(_start(command, cwd, confined), timeout_s, max_output_bytes, on_output)
        finally:
            if confined is not None:
                confined.cleanup()
        if confined is not None:
            result.update(confined.notes())
        return result

    @staticmethod
    def _run(started: _Started, timeout_s: float, max_output_bytes: int, on_output: Callable[[str, str], None] | None = None) -> dict:
        popen = started.popen
        out, err = _HeadTail(max_output_bytes), _HeadTail(max_output_bytes)
        sinks = {popen.stdout: out, popen.stderr: err}
        names = {popen.stdout: "stdout", popen.stderr: "stderr"}
        stream = _Stream(on_output) if on_output is not None else None
        selector = selectors.DefaultSelector()
        for pipe in sinks:
            selector.register(pipe, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        timed_out = killed = False
        nap = 0.001
        try:
            while True:
                now = time.monotonic()
                if stream is not None:
                    stream.tick(now)
                if not killed:
                    timed_out = now >= deadline
                    if timed_out or started.exited():
                        started.stop()  # on timeout, and leftovers of an exited shell
                        killed = True
                        deadline = time.monotonic() + DRAIN_GRACE_S
                        continue
                elif now >= deadline or not selector.get_map():
                    break  # drained, or an untracked process that left the group still holds the pipes
                wait = max(0.0, min(_TICK_S, deadline - now))
                if not selector.get_map():  # both pipes closed; the shell is about to exit
                    time.sleep(min(nap, wait))
                    nap = min(nap * 2, _TICK_S)
                    continue
                for key, _ in selector.select(wait):
                    chunk = os.read(key.fd, _CHUNK)
                    if chunk:
                        sinks[key.fileobj].add(chunk)
                        if stream is not None:
                            stream.add(names[key.fileobj], chunk)
                    else:
                        selector.unregister(key.fileobj)
            if stream is not None:
                stream.flush(final=True)
        finally:
            selector.close()
            for pipe in sinks:
                pipe.close()
            if not killed:  # an exception escaped the loop: leave nothing running
                started.stop()
        return {
            "code": None if timed_out else popen.returncode,
            "stdout": out.text(),
            "stderr": err.text(),
            "timed_out": timed_out,
        }

    def spawn(
        self, command: str, cwd: str, max_buffer_bytes: int, confinement: Confinement | None = None,
        on_output: Callable[[str, str], None] | None = None, watcher: Any = None,
    ) -> Process:
        """Start ``command`` in the background; ``on_output(stream, text)`` hears its output from the first byte (``Process.watch``)."""
        confined = prepare(confinement, _mounts()) if confinement is not None else None
        try:
            started = _start(command, cwd, confined)
        except BaseException:
            if confined is not None:
                confined.cleanup()
            raise
        return Process(started, command, cwd, max_buffer_bytes, confined, on_output, watcher)


DEFAULT_SHELL = LocalShell()


