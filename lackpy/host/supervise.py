"""The supervisor every shell command of lackpy runs under, so nothing the command starts outlives it.

lackpy runs it with ``python -I -S`` as ``main([path, FD, HOLD, COMMAND])`` (or
as ``supervise.py FD HOLD COMMAND``; ``supervise.py --probe`` says whether
HOLD ``pidns`` works here), in a session of its own, with the
command's stdin, stdout and stderr, FD being one end of a socket pair whose
other end lackpy keeps. It starts ``/bin/sh -c COMMAND`` in a process group of
its own and answers on FD with one message: ``1`` (the shell runs, tracked),
``E<errno>`` (``/bin/sh`` could not start), ``C<errno> <what>`` (confining
the shell failed: nothing ran), or ``0 <reason>`` (it cannot track here: the
kernel refused the prctl, or /proc is missing or another pid namespace's; the
supervisor then becomes the shell itself, confined as the shell would have
been, so the command runs as it would without it).

**Tracking.** It makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``),
so every process the command leaves behind (``setsid``, a double fork) is
re-parented to it instead of to init. It ends the command when the shell
exits, when lackpy sends SIGTERM (or SIGHUP, SIGINT), or when lackpy's end of
FD closes (lackpy exited, even if it was killed): it SIGKILLs its children,
reaps them, and repeats with the orphans re-parented to it until it has no
child left. Only its own unreaped children are signalled, so no pid can have
been reused by an unrelated process. It then exits as the shell did: the same
code, or the same signal.

**Out of the command's reach.** Where the kernel has Landlock ABI >= 6, a
confined shell runs in a domain that scopes signals (``LANDLOCK_SCOPE_SIGNAL``)
and the supervisor stays outside it, so nothing the command starts can signal
(nor ptrace) the supervisor, lackpy, or any process but its own. And where
lackpy found that it works (HOLD is ``pidns``; ``-`` otherwise), the supervisor
makes new pid and mount namespaces (in a new user namespace when it is not
privileged; the user and group ids map to themselves, one each, so files the
user owns keep their owner, others show as nobody, and the shell, not root
there, keeps no capability across exec), forks, and the child, pid 1 of the
new namespace, supervises: the command cannot name a process outside the
namespace, and the kernel drops the SIGKILL and SIGSTOP it sends to pid 1.
Orphans come to pid 1 without a subreaper, ``kill(-1, SIGKILL)`` ends them
all, and a fresh /proc is mounted where the kernel lets it, so the command
sees its own processes only. Every mount of the namespace is made a slave
first, so nothing mounted there is seen outside. The parent waits, passes lackpy's stop signals
on, and exits as the shell did. Where neither holds (lackpy warned once), a
command that kills its supervisor frees what it started.

**If the supervisor dies anyway** (the OOM killer, another process of the
user, lackpy killing a wedged one): in a pid namespace the kernel kills every
process of it with pid 1 (pid 1 dies with its parent, ``PR_SET_PDEATHSIG``);
without one, the shell dies with the supervisor (``PR_SET_PDEATHSIG``), but
what the shell started (which does not inherit that) runs on, re-parented to
init. A confined command cannot lower the supervisor's resource limits
(``prlimit``): the seccomp filter refuses it; an unconfined one outside a pid
namespace can. Processes a command asks a service to start (``systemd-run``,
``at``) belong to that service.

**Confinement.** When lackpy confines the command (``lackpy.host.confine``),
the environment holds ``LACKPY_CONFINE="FD HEX SCOPED STATE"``: a Landlock
ruleset lackpy built, passed as fd FD, a seccomp program in hex (``-``: none),
whether the ruleset scopes signals, and the workspace's ``.lackpy`` directory
that pid 1 must bind-mount read-only over itself before the shell starts
(``-``: none; the ruleset then holds it, and with it, HOLD is ``pidns``). The
supervisor removes the variable and applies the ruleset and filter in the
shell's child between fork and exec (``landlock.enter``; what the shell
starts inherits them), never to itself; if that or the mount fails it answers
``C...`` and runs nothing. That imports ``ctypes`` (some 4 ms), as the
namespaces do.

It writes nothing to the command's output. Otherwise it starts in about the
time of a bare ``python -I -S``: it uses the C modules behind ``signal`` and
``ctypes`` (the packages cost some 10 ms to import, ``enum`` mostly), and the
packages only where those are missing.
"""

import os
import select
import sys

try:
    import _signal as signal
except ImportError:  # pragma: no cover - not CPython
    import signal

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_SLAVE = 0x1, 0x2, 0x4, 0x8, 0x20, 0x1000, 0x4000, 0x80000
CONFINE_ENV = "LACKPY_CONFINE"
SHELL = "/bin/sh"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# Python ignores these at startup; the shell must get them at their defaults.
RESTORED = (signal.SIGPIPE, signal.SIGXFSZ)


# --------------------------------------------------------------------------- system calls


def _prctl(option: int, value: int) -> bool:
    """prctl(option, value) through _ctypes (an int result by default), else through ctypes."""
    try:
        import _ctypes

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL

        class Libc:
            _handle = _ctypes.dlopen(None)

        if Function(("prctl", Libc))(option, value, 0, 0, 0) == 0:
            return True
    except Exception:
        pass
    try:
        import ctypes

        return ctypes.CDLL(None).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _libc():
    """The C library through ctypes, with errno kept (for unshare and mount)."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _oserror(what: str) -> OSError:
    import ctypes

    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter_namespaces() -> None:
    """Move into new pid and mount namespaces (the pid one takes effect for the next child); raises OSError.

    Without the privilege for that, in a new user namespace too, where this
    process's user and group ids map to themselves (one each).
    """
    libc = _libc()
    flags = CLONE_NEWPID | CLONE_NEWNS
    if libc.unshare(flags) == 0:
        return
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(flags | CLONE_NEWUSER) != 0:
        raise _oserror("unshare(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _slave() -> bool:
    """Make every mount of this (new) mount namespace receive the host's mount events and send none back."""
    return _libc().mount(None, b"/", None, MS_REC | MS_SLAVE, None) == 0


def read_only(path: str) -> None:
    """Bind-mount ``path`` (a directory) onto itself read-only, in this process's mount namespace; raises OSError.

    Nothing beneath it can then be created, changed, deleted or renamed, and
    the mount point itself cannot be renamed or removed (EBUSY).
    """
    libc = _libc()
    target = os.fsencode(path)
    if libc.mount(target, target, None, MS_BIND | MS_REC, None) != 0:
        raise _oserror(f"bind-mounting {path}")
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
    if libc.mount(None, target, None, flags, None) != 0:
        raise _oserror(f"making {path} read-only")


def _fresh_proc() -> None:
    """As pid 1 of a new namespace, its mounts made slaves: a /proc of its own, unseen outside.

    Where the kernel refuses (a container that masks parts of /proc), the
    command sees the outer /proc, where pids are not its own: tracking does
    not need it.
    """
    _libc().mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def probe() -> str:
    """Whether ``pidns`` works here, read-only mounts included: '' if it does, else why not (in a process of its own)."""
    try:
        enter_namespaces()
        pid = os.fork()
        if pid == 0:
            try:
                if os.getpid() != 1:
                    os.write(1, b"the child was not pid 1 of the new pid namespace")
                elif not _slave():
                    os.write(1, str(_oserror("making the mounts slaves").strerror).encode())
                else:
                    read_only(os.path.dirname(os.path.abspath(__file__)))
            except OSError as exc:
                os.write(1, str(exc.strerror or exc).encode())
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    except OSError as exc:
        return str(exc.strerror or exc)
    return ""


# --------------------------------------------------------------------------- confinement


class _Confinement:
    """What LACKPY_CONFINE says: the ruleset fd, the seccomp program, whether signals are scoped."""

    def __init__(self, spec: str) -> None:
        ruleset, program, scoped, state = spec.split(" ", 3)
        self.ruleset = int(ruleset)
        self.program = b"" if program == "-" else bytes.fromhex(program)
        self.scoped = scoped == "1"
        self.state = None if state == "-" else state

    def enter(self) -> None:
        """Apply it to this process (the shell's child, before exec); raises OSError."""
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:  # run as a file (runpy, a script) rather than imported from here
            sys.path.append(here)
        import landlock

        landlock.enter(self.ruleset, self.program)

    def close(self) -> None:
        try:
            os.close(self.ruleset)
        except OSError:
            pass


def _confinement() -> "_Confinement | None":
    """The confinement lackpy asked for in CONFINE_ENV, if any (removed: the shell must not see it)."""
    spec = os.environ.pop(CONFINE_ENV, None)
    return None if spec is None else _Confinement(spec)


def _failure(exc: BaseException) -> bytes:
    """The answer for lackpy when confining failed."""
    if isinstance(exc, OSError):
        return b"C%d %s" % (exc.errno or 0, str(exc.strerror or exc).encode(errors="replace")[:200])
    return b"C0 %s" % f"{type(exc).__name__}: {exc}".encode(errors="replace")[:200]


# --------------------------------------------------------------------------- the shell


def _shell_child(command: str, confinement: "_Confinement | None", report: int) -> None:
    """In the forked child: a group of its own, death with the supervisor, confinement, then /bin/sh."""
    try:
        os.setpgid(0, 0)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        signal.set_wakeup_fd(-1)
        for signum in (*RESTORED, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, signal.SIG_DFL)
        if confinement is not None:
            try:
                confinement.enter()
            except BaseException as exc:
                os.write(report, _failure(exc))
                os._exit(126)
        try:
            os.execv(SHELL, [SHELL, "-c", command])
        except OSError as exc:
            os.write(report, b"E%d" % (exc.errno or 0))
    finally:
        os._exit(127)


def _start_shell(command: str, confinement: "_Confinement | None") -> "tuple[int, bytes]":
    """Fork and exec the shell: (its pid, b'' once it runs, or the answer that says why it does not)."""
    report_r, report_w = os.pipe()  # close-on-exec: end of file once the shell runs
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        _shell_child(command, confinement, report_w)
    os.close(report_w)
    try:
        os.setpgid(pid, pid)  # as the child does: the group exists whichever runs first
    except OSError:  # it has exec'd already (EACCES), or exited
        pass
    if confinement is not None:
        confinement.close()
    chunks = []
    while True:
        chunk = os.read(report_r, 512)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(report_r)
    return pid, b"".join(chunks)


# --------------------------------------------------------------------------- tracking


def _why_untracked() -> "str | None":
    try:
        if os.readlink("/proc/self") != str(os.getpid()):
            return "/proc shows another pid namespace"
    except OSError:
        return "/proc is not mounted"
    if not _subreaper():
        return "the kernel refused prctl(PR_SET_CHILD_SUBREAPER)"
    return None


def _subreaper() -> bool:
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


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


def _children() -> "list[int]":
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


def _reap(shell: int, status: "int | None") -> "tuple[int | None, bool]":
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


def _kill_children(init: bool) -> None:
    """SIGKILL every child: as pid 1 of a namespace, every process in it; else the children /proc names."""
    if init:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
    for pid in _children():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill_all(shell: int, status: "int | None", wake_fd: int, init: bool) -> "int | None":
    """SIGKILL every child and reap it, round after round, until no child (no orphan either) is left."""
    wake = select.poll()
    wake.register(wake_fd, select.POLLIN)
    status, left = _reap(shell, status)
    while left:
        _kill_children(init)
        wake.poll(100)  # a SIGCHLD; the timeout only rescans for a child the scan could not see yet
        _drain(wake_fd)
        status, left = _reap(shell, status)
    return status


def _exit_as(status: "int | None") -> None:
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


def _outside(inner: int, status_fd: int) -> None:
    """The parent of pid 1 of the namespace: pass lackpy's stop signals on, then exit as the shell did."""
    for signum in STOP_SIGNALS:
        if signum == signal.SIGTERM or signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, lambda signum, frame: os.kill(inner, signum))
    _, waited = os.waitpid(inner, 0)
    told = os.read(status_fd, 32)
    _exit_as(int(told) if told.isdigit() else waited)


def _namespace(fd: int, confinement: "_Confinement | None") -> "int | None":
    """Enter the namespaces and fork: in pid 1 of the new one, the fd to tell the shell's status on; else exits."""
    try:
        enter_namespaces()
    except OSError as exc:
        _answer(fd, b"C%d could not make a pid namespace: %s" % (exc.errno or 0, str(exc.strerror).encode()[:200]))
        os._exit(126)
    status_r, status_w = os.pipe()
    inner = os.fork()
    if inner == 0:
        os.close(status_r)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # its parent gone, the kernel ends the whole namespace
        slave = _slave()  # else a mount here could reach the host's mounts
        if slave:
            _fresh_proc()
        try:
            if confinement is not None and confinement.state is not None:
                if not slave:
                    raise _oserror("making the mounts of the namespace slaves")
                read_only(confinement.state)
        except OSError as exc:
            _answer(fd, _failure(exc))
            os._exit(126)
        return status_w
    os.close(status_w)
    os.close(fd)
    if confinement is not None:
        confinement.close()
    _outside(inner, status_r)
    return None


def main(argv: "list[str]") -> None:
    fd, hold, command = int(argv[1]), argv[2], argv[3]
    os.set_inheritable(fd, False)
    try:
        confinement = _confinement()
    except Exception as exc:  # a malformed variable: never run unconfined
        _answer(fd, _failure(exc))
        os._exit(126)
    init = hold == "pidns"
    if confinement is not None and confinement.state is not None and not init:
        _answer(fd, b"C0 only a pid namespace's mount namespace can hold %s read-only" % confinement.state.encode())
        os._exit(126)
    status_fd = _namespace(fd, confinement) if init else None
    reason = None if init else _why_untracked()
    if reason:
        if confinement is not None:
            try:
                confinement.enter()
            except BaseException as exc:
                _answer(fd, _failure(exc))
                os._exit(126)
        _answer(fd, b"0 " + reason.encode())
        for signum in RESTORED:
            signal.signal(signum, signal.SIG_DFL)
        os.execv(SHELL, [SHELL, "-c", command])

    stop: "list[int]" = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    for signum in STOP_SIGNALS:
        if signum == signal.SIGTERM or signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, lambda signum, frame: stop.append(signum))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGCHLD, *STOP_SIGNALS))

    shell, failed = _start_shell(command, confinement)
    if failed:
        _answer(fd, failed)
        _kill_all(shell, None, wake_r, init)
        os._exit(126 if failed.startswith(b"C") else 127)
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
    status = _kill_all(shell, status, wake_r, init)
    if status_fd is not None:  # pid 1 cannot die of a signal it sends itself: its parent exits as the shell did
        os.write(status_fd, b"%d" % (status if status is not None else 256))
        os._exit(0)
    _exit_as(status)


if __name__ == "__main__":
    if sys.argv[1:] == ["--probe"]:
        sys.stdout.write(probe())
    else:
        main(sys.argv)
