"""The seccomp filter that keeps a confined command off the network where Landlock cannot, and off other processes' limits.

Every confined command gets this filter. ``prlimit64`` on any process but
the caller (a pid other than 0) fails with EPERM: Landlock does not guard it,
and a command that lowers its supervisor's limits (no file descriptors, one
second of CPU) can make it fail or die and so free what the command started.

Landlock's network rights (ABI >= 4) cover TCP bind and connect only. A
command without network access gets more of the filter, so that it cannot
reach out another way: ``socket()`` fails with EPERM for every family but
local ones (AF_UNIX, AF_NETLINK) and, where Landlock guards it, TCP over IPv4
and IPv6; so no UDP (DNS included), raw, packet, SCTP, MPTCP, vsock or other
socket. ``sendto``/``sendmsg``/``sendmmsg`` with MSG_FASTOPEN fail too (a
TCP Fast Open connect does not pass the connect hook), and so does
``io_uring_setup`` (io_uring creates sockets without the socket syscall).
Syscalls of another ABI (x86 32-bit, x32, arm32) all fail, since their
numbers differ: a 32-bit program cannot run confined.

It is a hand-written BPF program (a few dozen instructions), so it needs no
libseccomp, and is built here, in lackpy, as bytes; the command's child loads
it (``lackpy.host.landlock.load_seccomp``). Standard library only.
"""

from __future__ import annotations

import errno
import platform
import struct

#: AUDIT_ARCH_* and the syscall numbers the filter looks at, per machine.
MACHINES = {
    "x86_64": (0xC000003E, {"socket": 41, "sendto": 44, "sendmsg": 46, "sendmmsg": 307, "io_uring_setup": 425, "prlimit64": 302}),
    "aarch64": (0xC00000B7, {"socket": 198, "sendto": 206, "sendmsg": 211, "sendmmsg": 269, "io_uring_setup": 425, "prlimit64": 261}),
}
X32_SYSCALL_BIT = 0x40000000
AF_UNIX, AF_INET, AF_NETLINK, AF_INET6 = 1, 2, 16, 10
SOCK_STREAM, SOCK_TYPE_MASK = 1, 0xF
IPPROTO_TCP = 6
MSG_FASTOPEN = 0x20000000

# Classic BPF opcodes, and the seccomp return values.
_LD_ABS, _JEQ, _JGE, _JSET, _JA, _AND, _RET = 0x20, 0x15, 0x35, 0x45, 0x05, 0x54, 0x06
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
# struct seccomp_data: nr, arch, instruction pointer, then six 64-bit args (their low halves first).
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    return 16 + 8 * index


def _assemble(lines: list[tuple]) -> bytes:
    """Classic BPF from (label,) and (code, k, jump-if-true, jump-if-false) with labels as jump targets."""
    where: dict[str, int] = {}
    code: list[tuple] = []
    for line in lines:
        if len(line) == 1:
            where[line[0]] = len(code)
        else:
            code.append(line)
    out = bytearray()
    for at, (op, k, jt, jf) in enumerate(code):
        def offset(target: object) -> int:
            if target is None:
                return 0
            skip = where[target] - at - 1
            if not 0 <= skip <= 255:
                raise ValueError(f"BPF jump out of range: {target}")
            return skip

        if op == _JA:
            k, jt, jf = offset(k), None, None
        out += struct.pack("=HBBI", op, offset(jt), offset(jf), k)
    return bytes(out)


def program(allow_tcp: bool, machine: str | None = None, network: bool = False) -> bytes:
    """The filter for this machine; ``allow_tcp`` leaves TCP sockets to Landlock (ABI >= 4), ``network`` all sockets.

    Raises KeyError for a machine it does not know.
    """
    arch, nr = MACHINES[machine or platform.machine()]
    lines: list[tuple] = [
        (_LD_ABS, _ARCH, None, None),
        (_JEQ, arch, None, "deny"),
        (_LD_ABS, _NR, None, None),
    ]
    if arch == MACHINES["x86_64"][0]:
        lines.append((_JGE, X32_SYSCALL_BIT, "deny", None))
    lines += [(_JEQ, nr["prlimit64"], "prlimit", None)]
    if network:
        lines.append((_JA, "allow", None, None))
    lines += [
        (_JEQ, nr["io_uring_setup"], "deny", None),
        (_JEQ, nr["sendto"], "flags3", None),
        (_JEQ, nr["sendmmsg"], "flags3", None),
        (_JEQ, nr["sendmsg"], "flags2", None),
        (_JEQ, nr["socket"], "socket", "allow"),
        ("flags3",),
        (_LD_ABS, _arg(3), None, None),
        (_JSET, MSG_FASTOPEN, "deny", "allow"),
        ("flags2",),
        (_LD_ABS, _arg(2), None, None),
        (_JSET, MSG_FASTOPEN, "deny", "allow"),
        ("socket",),
        (_LD_ABS, _arg(0), None, None),
        (_JEQ, AF_UNIX, "allow", None),
        (_JEQ, AF_NETLINK, "allow", None),
    ]
    if allow_tcp:
        lines += [
            (_JEQ, AF_INET, "inet", None),
            (_JEQ, AF_INET6, "inet", "deny"),
            ("inet",),
            (_LD_ABS, _arg(1), None, None),
            (_AND, SOCK_TYPE_MASK, None, None),
            (_JEQ, SOCK_STREAM, None, "deny"),
            (_LD_ABS, _arg(2), None, None),
            (_JEQ, 0, "allow", None),
            (_JEQ, IPPROTO_TCP, "allow", "deny"),
        ]
    else:
        lines.append((_JA, "deny", None, None))
    lines += [
        ("prlimit",),
        (_LD_ABS, _arg(0), None, None),  # the pid: 0 is the caller (a pid_t, so its low half is all of it)
        (_JEQ, 0, "allow", "deny"),
        ("allow",),
        (_RET, SECCOMP_RET_ALLOW, None, None),
        ("deny",),
        (_RET, SECCOMP_RET_ERRNO | errno.EPERM, None, None),
    ]
    return _assemble(lines)


def supported(machine: str | None = None) -> bool:
    """Whether :func:`program` knows this machine's syscall numbers."""
    return (machine or platform.machine()) in MACHINES
