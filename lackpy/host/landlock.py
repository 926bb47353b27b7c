"""The system calls that confine a process: Landlock rulesets, and loading a seccomp filter.

Raw syscalls through ctypes, because the standard library has no binding and
lackpy takes no dependency for a few calls. Two confinements use them:

* ``lackpy.run.sandbox`` takes every path away from a program's worker;
* ``lackpy.host.confine`` builds, in lackpy, a ruleset for a shell command
  (read the system, write the workspace, not the ``[tools] deny`` paths), and
  the command's child applies it with :func:`enter` before it runs the shell.

The child is ``supervise.py``, run as ``python -I -S`` without lackpy on its
path, which imports this file as a top-level module: so it uses the standard
library only and imports nothing of lackpy, nor ``platform`` or
``functools`` (with ``re`` and ``enum`` behind them they would triple the
few milliseconds the supervisor spends importing this). Everything here is
one-way for the calling thread and inherited by every process it starts.
"""

from __future__ import annotations

import ctypes
import os
import sys

# (landlock_create_ruleset, landlock_add_rule, landlock_restrict_self) per machine.
LANDLOCK_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
# landlock_create_ruleset flag: return the ABI version instead of a ruleset.
LANDLOCK_CREATE_RULESET_VERSION = 1 << 0
# landlock_add_rule rule type: a file, or a directory and everything beneath it.
LANDLOCK_RULE_PATH_BENEATH = 1
# prctl option that Landlock (and unprivileged seccomp) requires first.
PR_SET_NO_NEW_PRIVS = 38
# prctl option and mode that install a seccomp BPF filter.
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2

# The filesystem rights (LANDLOCK_ACCESS_FS_*), by the ABI that introduced them.
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
# ABI 1: the 13 base rights above (bits 0..12).
ACCESS_FS_ABI1 = (1 << 13) - 1
# ABI 2: LANDLOCK_ACCESS_FS_REFER (link/rename across directories).
ACCESS_FS_REFER = 1 << 13
# ABI 3: LANDLOCK_ACCESS_FS_TRUNCATE.
ACCESS_FS_TRUNCATE = 1 << 14
# ABI 5: LANDLOCK_ACCESS_FS_IOCTL_DEV (ioctl on device files).
ACCESS_FS_IOCTL_DEV = 1 << 15
# The rights a rule on a file (not a directory) may carry; others make it EINVAL.
ACCESS_FS_FILE = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV
# ABI 4: LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP.
ACCESS_NET_TCP = (1 << 0) | (1 << 1)
# ABI 6: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET and LANDLOCK_SCOPE_SIGNAL.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1
SCOPE_ALL = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL


class RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr (the kernel reads only the size we pass)."""

    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    """struct landlock_path_beneath_attr, which the kernel declares packed (12 bytes)."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _SockFprog(ctypes.Structure):
    """struct sock_fprog: the number of 8-byte BPF instructions and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_LIBC: list[ctypes.CDLL] = []


def libc() -> ctypes.CDLL:
    """The C library of this process (loaded once), with errno captured and a long ``syscall``."""
    if not _LIBC:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        _LIBC.append(lib)
    return _LIBC[0]


def machine() -> str:
    """This machine's architecture, as ``platform.machine()`` names it."""
    return os.uname().machine


def warm() -> None:
    """Resolve every libc function :func:`enter` calls, in a parent about to fork.

    A child forked from a threaded process must not run the dynamic loader (a
    lock another thread held at the fork stays locked), so nothing is looked up
    there for the first time.
    """
    lib = libc()
    lib.prctl, lib.syscall  # noqa: B018 - the lookup is the point


def oserror(what: str) -> OSError:
    """An OSError for the errno the last ctypes call left behind."""
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


def landlock_abi() -> int:
    """Return the kernel's Landlock ABI version, or 0 when Landlock is unavailable."""
    numbers = LANDLOCK_SYSCALLS.get(machine())
    if not sys.platform.startswith("linux") or numbers is None:
        return 0
    version = libc().syscall(
        ctypes.c_long(numbers[0]), None, ctypes.c_size_t(0),
        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
    )
    # ENOSYS: kernel too old; EOPNOTSUPP: built but disabled at boot; any other
    # error (e.g. EPERM from a seccomp filter) also means we cannot use it.
    return max(int(version), 0)


def handled_access(abi: int) -> tuple[int, int, int]:
    """Every right ``abi`` knows: (filesystem, network, scopes)."""
    fs = ACCESS_FS_ABI1
    fs |= ACCESS_FS_REFER if abi >= 2 else 0
    fs |= ACCESS_FS_TRUNCATE if abi >= 3 else 0
    fs |= ACCESS_FS_IOCTL_DEV if abi >= 5 else 0
    net = ACCESS_NET_TCP if abi >= 4 else 0
    scoped = SCOPE_ALL if abi >= 6 else 0
    return fs, net, scoped


def attr_size(abi: int) -> int:
    """How much of struct landlock_ruleset_attr a kernel of ``abi`` reads."""
    return 24 if abi >= 6 else 16 if abi >= 4 else 8


def _syscall(index: int) -> int:
    return LANDLOCK_SYSCALLS[machine()][index]


def create_ruleset(fs: int, net: int, scoped: int, abi: int) -> int:
    """A new ruleset (an fd, close-on-exec) handling these rights; handled and not granted is denied."""
    attr = RulesetAttr(fs, net, scoped)
    fd = libc().syscall(ctypes.c_long(_syscall(0)), ctypes.byref(attr), ctypes.c_size_t(attr_size(abi)), ctypes.c_uint32(0))
    if fd < 0:
        raise oserror("landlock_create_ruleset")
    return int(fd)


def add_path_rule(ruleset_fd: int, path_fd: int, access: int) -> None:
    """Grant ``access`` on the file or directory tree ``path_fd`` (an O_PATH fd) names."""
    attr = _PathBeneathAttr(access, path_fd)
    result = libc().syscall(
        ctypes.c_long(_syscall(1)), ctypes.c_int(ruleset_fd), ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
        ctypes.byref(attr), ctypes.c_uint32(0),
    )
    if result != 0:
        raise oserror("landlock_add_rule")


def no_new_privs() -> None:
    """prctl(PR_SET_NO_NEW_PRIVS): exec can no longer gain privileges (setuid); Landlock and seccomp need it."""
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    if libc().prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0:
        raise oserror("prctl(PR_SET_NO_NEW_PRIVS)")


def restrict_self(ruleset_fd: int) -> None:
    """Confine the calling thread (and all it starts from now on) to the ruleset."""
    if libc().syscall(ctypes.c_long(_syscall(2)), ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)) != 0:
        raise oserror("landlock_restrict_self")


def load_seccomp(program: bytes) -> None:
    """Install a compiled seccomp BPF program (8-byte instructions) on the calling thread."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    zero = ctypes.c_ulong(0)
    if libc().prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), zero, zero) != 0:
        raise oserror("prctl(PR_SET_SECCOMP)")


def enter(ruleset_fd: int, program: bytes = b"") -> None:
    """In a command's child, before it runs anything: apply the ruleset, close it, then the filter.

    Raises OSError when any step fails; the caller must then not run the command.
    """
    no_new_privs()
    restrict_self(ruleset_fd)
    os.close(ruleset_fd)  # inherited by the child (pass_fds): the command must not get it
    if program:
        load_seccomp(program)
