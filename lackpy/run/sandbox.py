"""Optional OS sandbox for a worker child: Landlock for files, seccomp for syscalls.

A worker talks to its host only over an already-open socket, and the host does
every real I/O. So once the child is set up it needs no paths, no new sockets,
no exec and no new processes or threads. :func:`confine` takes those away with
what the kernel offers:

* **Landlock** (Linux >= 5.13, raw syscalls through ctypes, in
  ``lackpy.host.landlock``): a ruleset that
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

# The Landlock primitives live in the tools layer, which confines shell commands
# with them too; these names stay importable from here.
from lackpy.host.landlock import (  # noqa: F401 - re-exported
    ACCESS_FS_ABI1,
    ACCESS_FS_IOCTL_DEV,
    ACCESS_FS_REFER,
    ACCESS_FS_TRUNCATE,
    ACCESS_NET_TCP,
    LANDLOCK_CREATE_RULESET_VERSION,
    LANDLOCK_SYSCALLS,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_SECCOMP,
    SCOPE_ALL,
    SECCOMP_MODE_FILTER,
    attr_size,
    handled_access,
)
from lackpy.host import sockfilter
from lackpy.host.landlock import load_seccomp, no_new_privs
from lackpy.host.landlock import landlock_abi as _landlock_abi
from lackpy.host.landlock import RulesetAttr as _RulesetAttr
from lackpy.host.landlock import libc as _libc
from lackpy.host.landlock import oserror as _oserror

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


def landlock_abi() -> int:
    """Return the kernel's Landlock ABI version, or 0 when Landlock is unavailable (or this machine unknown)."""
    if platform.machine() not in LANDLOCK_SYSCALLS:
        return 0
    return _landlock_abi()


def _ruleset_attr(abi: int) -> tuple[_RulesetAttr, int]:
    """The ruleset that handles every right ``abi`` knows, and its size for that ABI."""
    fs, net, scoped = handled_access(abi)
    return _RulesetAttr(fs, net, scoped), attr_size(abi)


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


def deny_syscalls() -> None:
    """Load the seccomp filter of :func:`seccomp_program` into this (single-threaded) process.

    Raises :class:`SandboxUnavailable` without pyseccomp or libseccomp, and
    OSError when the kernel refuses the filter.
    """
    program = seccomp_program()
    no_new_privs()
    load_seccomp(program)


def confine(filesystem: bool = True, syscalls: bool = True) -> list[str]:
    """Apply the requested layers that are available; return the names applied.

    An unavailable layer is skipped; one that is available but fails to apply
    raises (OSError), because the caller must not run untrusted code then.
    """
    applied: list[str] = []
    # Probe both first: importing pyseccomp needs the filesystem Landlock removes.
    use_landlock = filesystem and landlock_abi() > 0
    use_seccomp = syscalls and seccomp_available()[0]
    # Without pyseccomp, the small filter shell commands use still refuses every socket but UNIX and netlink
    # ones (Landlock alone leaves UDP, raw sockets and TCP Fast Open open); it needs no library.
    sockets = sockfilter.program(allow_tcp=False) if syscalls and not use_seccomp and sockfilter.supported() else b""
    if use_seccomp:
        seccomp_program()  # compile while the filesystem is still there
    if use_landlock:
        deny_filesystem()
        applied.append("landlock")
    if use_seccomp:
        deny_syscalls()
        applied.append("seccomp")
    elif sockets:
        no_new_privs()
        load_seccomp(sockets)
        applied.append("sockets")
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
