"""The supervisor every shell command of lackpy runs under, so nothing the command starts outlives it.

lackpy runs it with ``python -I -S`` as ``main([path, FD, COMMAND])`` (or as
``supervise.py FD COMMAND``), in a session of its own, with the command's stdin, stdout and stderr, FD being one end of a socket
pair whose other end lackpy keeps. It makes itself a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so every process the command leaves
behind (``setsid``, a double fork) is re-parented to it instead of to init,
starts ``/bin/sh -c COMMAND`` in a process group of its own, and answers on FD
with one message: ``1`` (the shell runs, tracked), ``E<errno>`` (``/bin/sh``
could not start), or ``0 <reason>`` (it cannot track here: the kernel refused
the prctl, or /proc is missing or another pid namespace's; the supervisor then
becomes the shell itself, so the command runs as it would without it).

It ends the command when the shell exits, when lackpy sends SIGTERM (or
SIGHUP, SIGINT), or when lackpy's end of FD closes (lackpy exited, even if it
was killed): it SIGKILLs its children, reaps them, and repeats with the
orphans re-parented to it until it has no child left. Only its own unreaped
children are signalled, so no pid can have been reused by an unrelated
process; and the command, in another process group, cannot signal it by
signalling its own group. It then exits as the shell did: the same code, or
the same signal.

When lackpy confines the command (``lackpy.host.confine``), the environment
holds ``LACKPY_CONFINE="FD HEX"``: a Landlock ruleset lackpy built, passed as
fd FD, and a seccomp program in hex (empty when the command may use the
network). Before anything else the supervisor removes the variable, applies
both to itself (``landlock.enter``; what it then starts inherits them) and
answers ``C<errno> <what failed>`` and exits, running nothing, if that fails.
That imports ``ctypes`` (some 4 ms).

It writes nothing to the command's output. It starts in about the time of a
bare ``python -I -S``: it uses the C modules behind ``signal`` and ``ctypes``
(the packages cost some 10 ms to import, ``enum`` mostly), and the packages
only where those are missing.
"""

import os
import select
import sys

try:
    import _signal as signal
except ImportError:  # pragma: no cover - not CPython
    import signal

PR_SET_CHILD_SUBREAPER = 36
CONFINE_ENV = "LACKPY_CONFINE"
SHELL = "/bin/sh"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# Python ignores these at startup; the shell must get them at their defaults.
RESTORED = (signal.SIGPIPE, signal.SIGXFSZ)


def _why_untracked() -> str | None:
    try:
        if os.readlink("/proc/self") != str(os.getpid()):
            return "/proc shows another pid namespace"
    except OSError:
        return "/proc is not mounted"
    if not _subreaper():
        return "the kernel refused prctl(PR_SET_CHILD_SUBREAPER)"
    return None


def _subreaper() -> bool:
    """prctl(PR_SET_CHILD_SUBREAPER, 1) through _ctypes (an int result by default), else through ctypes."""
    try:
        import _ctypes

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL

        class Libc:
            _handle = _ctypes.dlopen(None)

        if Function(("prctl", Libc))(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
            return True
    except Exception:
        pass
    try:
        import ctypes

        return ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _confine() -> bytes | None:
    """Apply the confinement lackpy asked for in CONFINE_ENV, if any; the answer for lackpy when that fails."""
    spec = os.environ.pop(CONFINE_ENV, None)  # unsetenv too: the shell must not see it
    if spec is None:
        return None
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:  # run as a file (runpy, a script) rather than imported from here
            sys.path.append(here)
        import resource  # noqa: F401 - _exit_as needs it later, when the interpreter's files may be unreadable

        import landlock

        ruleset, _, program = spec.partition(" ")
        landlock.enter(int(ruleset), bytes.fromhex(program))
    except OSError as exc:
        return b"C%d %s" % (exc.errno or 0, str(exc.strerror or exc).encode(errors="replace")[:200])
    except Exception as exc:  # a malformed variable, a missing module: never run unconfined
        return b"C0 %s" % f"{type(exc).__name__}: {exc}".encode(errors="replace")[:200]
    return None


def _answer(fd: int, message: bytes) -> None:
    try:
        os.write(fd, message)
    except OSError:  # lackpy is gone; the loop below notices
        pass


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _children() -> list[int]:
    """This process's children, from the parent pid field of /proc/*/stat."""
    me = str(os.getpid()).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == me:
            found.append(int(name))
    return found


def _reap(shell: int, status: int | None) -> tuple[int | None, bool]:
    """Reap the children that have exited: (the shell's status once known, whether any child is left)."""
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status, False
        if pid == 0:
            return status, True
        if pid == shell:
            status = code


def _kill_all(shell: int, status: int | None, wake_fd: int) -> int | None:
    """SIGKILL every child and reap it, round after round, until no child (no orphan either) is left."""
    wake = select.poll()
    wake.register(wake_fd, select.POLLIN)
    status, left = _reap(shell, status)
    while left:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wake.poll(100)  # a SIGCHLD; the timeout only rescans for a child the scan could not see yet
        _drain(wake_fd)
        status, left = _reap(shell, status)
    return status


def _exit_as(status: int | None) -> None:
    """Exit with the shell's code, or die of the signal that killed it (without a core dump)."""
    if status is None or not os.WIFSIGNALED(status):
        os._exit(os.WEXITSTATUS(status) if status is not None else 1)
    signum = os.WTERMSIG(status)
    signal.set_wakeup_fd(-1)
    try:
        signal.signal(signum, signal.SIG_DFL)
    except (OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
        pass
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def main(argv: list[str]) -> None:
    fd, command = int(argv[1]), argv[2]
    os.set_inheritable(fd, False)
    failed = _confine()
    if failed:
        _answer(fd, failed)
        os._exit(126)
    reason = _why_untracked()
    if reason:
        _answer(fd, b"0 " + reason.encode())
        for signum in RESTORED:
            signal.signal(signum, signal.SIG_DFL)
        os.execv(SHELL, [SHELL, "-c", command])

    stop: list[int] = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    for signum in STOP_SIGNALS:
        if signum == signal.SIGTERM or signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, lambda signum, frame: stop.append(signum))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGCHLD, *STOP_SIGNALS))

    try:
        shell = os.posix_spawn(SHELL, [SHELL, "-c", command], os.environ, setpgroup=0, setsigdef=RESTORED)
    except OSError as exc:
        _answer(fd, b"E%d" % (exc.errno or 0))
        os._exit(127)
    _answer(fd, b"1")

    events = select.poll()
    events.register(wake_r, select.POLLIN)
    events.register(fd, select.POLLIN)
    status = None
    while status is None and not stop:
        for ready, _ in events.poll():
            if ready == fd:  # lackpy closed its end, or exited
                stop.append(0)
        _drain(wake_r)
        status, _ = _reap(shell, status)  # orphans that exit while the shell runs too
    if status is None:  # stopped: the shell's group first, in one go (unreaped, its pid still names it)
        try:
            os.killpg(shell, signal.SIGKILL)
        except OSError:
            pass
    _exit_as(_kill_all(shell, status, wake_r))


if __name__ == "__main__":
    main(sys.argv)
