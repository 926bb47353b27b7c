"""Optional OS sandbox for a worker child: Landlock for files, seccomp for syscalls.

A worker talks to its host only over an already-open socket, and the host does
every real I/O. So once the child is set up it needs no paths, no new sockets,
no exec and no new processes or threads. :func:`confine` takes those away with
what the kernel offers:

* **Landlock** (Linux >= 5.13, raw syscalls through ctypes): a ruleset that
  handles every filesystem right the kernel knows and grants none, so every
  path-based access is denied; on ABI >= 4 all TCP bind/connect too, and on
  ABI >= 6 abstract UNIX sockets and signals outside the sandbox. File
  descriptors opened before confinement keep working.
* **seccomp** (optional ``pyseccomp``, ``pip install 'lackpy[sandbox]'``): a
  filter that allows everything but fails the dangerous syscalls with EPERM.

Both are one-way and apply to the calling thread (seccomp: to every thread), so
call :func:`confine` in the child, single-threaded, after every import it needs.
Import ``pyseccomp`` (e.g. call :func:`seccomp_available`) before forking:
loading it runs ``ldconfig``, which a confined child cannot.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import sys

from lackpy.errors import SandboxUnavailable

# (landlock_create_ruleset, landlock_add_rule, landlock_restrict_self) per machine.
LANDLOCK_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
# landlock_create_ruleset flag: return the ABI version instead of a ruleset.
LANDLOCK_CREATE_RULESET_VERSION = 1 << 0
# prctl option that Landlock (and unprivileged seccomp) requires first.
PR_SET_NO_NEW_PRIVS = 38
# prctl option and mode that install a seccomp BPF filter.
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2

# ABI 1: the 13 base rights (EXECUTE ... MAKE_SYM, bits 0..12).
ACCESS_FS_ABI1 = (1 << 13) - 1
# ABI 2: LANDLOCK_ACCESS_FS_REFER (link/rename across directories).
ACCESS_FS_REFER = 1 << 13
# ABI 3: LANDLOCK_ACCESS_FS_TRUNCATE.
ACCESS_FS_TRUNCATE = 1 << 14
# ABI 5: LANDLOCK_ACCESS_FS_IOCTL_DEV (ioctl on device files).
ACCESS_FS_IOCTL_DEV = 1 << 15
# ABI 4: LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP.
ACCESS_NET_TCP = (1 << 0) | (1 << 1)
# ABI 6: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL.
SCOPE_ALL = (1 << 0) | (1 << 1)

# Syscalls the filter fails with EPERM; names this libseccomp lacks are skipped.
DENIED_SYSCALLS = (
    # new sockets (sendmsg/recvmsg/read/write on existing fds stay allowed)
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    # exec, new processes and threads
    "execve", "execveat", "fork", "vfork", "clone", "clone3",
    # touching other processes: tracing, memory, signals, pidfds
    "ptrace", "process_vm_readv", "process_vm_writev", "kill", "tkill", "tgkill",
    "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal",
    # mounts, namespaces, kernel modules and other kernel attack surface
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "init_module", "finit_module", "delete_module", "kexec_load", "bpf",
    "perf_event_open", "keyctl", "add_key", "request_key", "personality",
    "userfaultfd", "io_uring_setup", "open_by_handle_at", "name_to_handle_at",
)
# ioctl commands that push input into, or drive, a terminal the child inherited.
TIOCSTI, TIOCLINUX = 0x5412, 0x541C

INSTALL_HINT = "pip install 'lackpy[sandbox]'"



class _RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr (the kernel reads only the size we pass)."""

    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    """The C library of this process, with errno captured and a long ``syscall``."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _oserror(what: str) -> OSError:
    """An OSError for the errno the last ctypes call left behind."""
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


def landlock_abi() -> int:
    """Return the kernel's Landlock ABI version, or 0 when Landlock is unavailable."""
    numbers = LANDLOCK_SYSCALLS.get(platform.machine())
    if not sys.platform.startswith("linux") or numbers is None:
        return 0
    version = _libc().syscall(
        ctypes.c_long(numbers[0]), None, ctypes.c_size_t(0),
        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
    )
    # ENOSYS: kernel too old; EOPNOTSUPP: built but disabled at boot; any other
    # error (e.g. EPERM from a seccomp filter) also means we cannot use it.
    return max(int(version), 0)


def _ruleset_attr(abi: int) -> tuple[_RulesetAttr, int]:
    """The ruleset that handles every right ``abi`` knows, and its size for that ABI."""
    fs = ACCESS_FS_ABI1
    fs |= ACCESS_FS_REFER if abi >= 2 else 0
    fs |= ACCESS_FS_TRUNCATE if abi >= 3 else 0
    fs |= ACCESS_FS_IOCTL_DEV if abi >= 5 else 0
    net = ACCESS_NET_TCP if abi >= 4 else 0
    scoped = SCOPE_ALL if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    return _RulesetAttr(fs, net, scoped), size


def deny_filesystem() -> None:
    """Deny this thread every path-based file access (and TCP, and outside signals).

    Raises :class:`SandboxUnavailable` when the kernel has no Landlock, and
    OSError when applying it fails for another reason.
    """
    abi = landlock_abi()
    if abi == 0:
        raise SandboxUnavailable(
            "Landlock is unavailable: it needs Linux >= 5.13 with Landlock enabled "
            f"(lsm=...,landlock) on {'/'.join(LANDLOCK_SYSCALLS)}; "
            f"this is {sys.platform}/{platform.machine()}."
        )
    create, _add_rule, restrict = LANDLOCK_SYSCALLS[platform.machine()]
    libc = _libc()
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0:
        raise _oserror("prctl(PR_SET_NO_NEW_PRIVS)")
    attr, size = _ruleset_attr(abi)
    ruleset_fd = libc.syscall(
        ctypes.c_long(create), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if ruleset_fd < 0:
        raise _oserror("landlock_create_ruleset")
    try:
        # No rules are added: every handled right is denied everywhere.
        if libc.syscall(ctypes.c_long(restrict), ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)) != 0:
            raise _oserror("landlock_restrict_self")
    finally:
        os.close(ruleset_fd)


def seccomp_available() -> tuple[bool, str]:
    """Return (True, "") if pyseccomp imports and libseccomp loads, else (False, why)."""
    try:
        import pyseccomp  # noqa: F401
    except ImportError:
        return False, INSTALL_HINT
    except (OSError, RuntimeError):  # pyseccomp raises RuntimeError without libseccomp
        return False, "libseccomp not found"
    return True, ""


@functools.lru_cache(maxsize=1)
def seccomp_program() -> bytes:
    """The filter as compiled BPF, built once (in the fork server) so children only load it.

    It fails :data:`DENIED_SYSCALLS` with EPERM, and refuses the
    TIOCSTI/TIOCLINUX terminal ioctls and ``prlimit64`` on another process.
    Raises :class:`SandboxUnavailable` without pyseccomp or libseccomp.
    """
    available, reason = seccomp_available()
    if not available:
        raise SandboxUnavailable(f"seccomp is unavailable: {reason}")
    import pyseccomp as seccomp

    deny = seccomp.ERRNO(errno.EPERM)
    flt = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        number = seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
        if number != -1:  # -1 is __NR_SCMP_ERROR: a name libseccomp does not know
            flt.add_rule(deny, number)
    for command in (TIOCSTI, TIOCLINUX):
        flt.add_rule(deny, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
    flt.add_rule(deny, "prlimit64", seccomp.Arg(0, seccomp.NE, 0))
    read_end, write_end = os.pipe()  # a pipe, not a file: works even once paths are denied
    with os.fdopen(read_end, "rb") as reader, os.fdopen(write_end, "wb") as writer:
        flt.export_bpf(writer)
        writer.close()
        return reader.read()


class _SockFprog(ctypes.Structure):
    """struct sock_fprog: the number of 8-byte BPF instructions and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def deny_syscalls() -> None:
    """Load the seccomp filter of :func:`seccomp_program` into this (single-threaded) process.

    Raises :class:`SandboxUnavailable` without pyseccomp or libseccomp, and
    OSError when the kernel refuses the filter.
    """
    program = seccomp_program()
    libc = _libc()
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0:
        raise _oserror("prctl(PR_SET_NO_NEW_PRIVS)")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), zero, zero) != 0:
        raise _oserror("prctl(PR_SET_SECCOMP)")


def confine(filesystem: bool = True, syscalls: bool = True) -> list[str]:
    """Apply the requested layers that are available; return the names applied.

    An unavailable layer is skipped; one that is available but fails to apply
    raises (OSError), because the caller must not run untrusted code then.
    """
    applied: list[str] = []
    # Probe both first: importing pyseccomp needs the filesystem Landlock removes.
    use_landlock = filesystem and landlock_abi() > 0
    use_seccomp = syscalls and seccomp_available()[0]
    if use_seccomp:
        seccomp_program()  # compile while the filesystem is still there
    if use_landlock:
        deny_filesystem()
        applied.append("landlock")
    if use_seccomp:
        deny_syscalls()
        applied.append("seccomp")
    return applied


def status() -> dict:
    """Report what this system offers: Landlock ABI (0 if none) and seccomp.

    Also compiles the seccomp filter, so a fork server that calls this hands
    its children a ready program.
    """
    available, reason = seccomp_available()
    if available:
        seccomp_program()
    return {"landlock": landlock_abi(), "seccomp": available, "seccomp_reason": reason}


__all__ = [
    "SandboxUnavailable",
    "confine",
    "deny_filesystem",
    "deny_syscalls",
    "landlock_abi",
    "seccomp_available",
    "seccomp_program",
    "status",
]
