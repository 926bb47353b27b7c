"""Paths resolved beneath a directory in one step the kernel enforces, then used through the descriptor.

Checking a path and then opening it again by name is a race: between the
two, another process (or a program's own background command) can swap a
directory for a symlink, and the second lookup goes where the first never
looked. Everything lackpy does to a workspace file goes through here instead:

* ``open_beneath(dir_fd, rel, flags)`` resolves ``rel`` beneath ``dir_fd``
  with ``openat2(2)`` and ``RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS``: the
  kernel refuses a ``..``, an absolute symlink or a symlink that climbs out
  (``EXDEV``) and ``/proc`` magic links, in the same lookup that opens the
  file. ``follow=False`` adds ``RESOLVE_NO_SYMLINKS``: no symlink at all,
  anywhere on the path (``ELOOP``). The caller then reads, writes or
  ``fstat``s the descriptor, or passes it as ``dir_fd=`` to renames,
  unlinks and links of the entry's own name, so what was checked is what
  is used.
* ``canonical(fd, root)`` is the path, relative to the root, of
  what a descriptor refers to (``/proc/self/fd``), for the deny rules to
  judge the file actually opened rather than the name the program wrote.
* ``read_regular(dir_fd, rel, max_bytes)`` is how lackpy reads its own files
  (config, kits, templates, the journal): a regular file only, opened with
  ``O_NONBLOCK`` (a FIFO or a device never blocks), never ``/dev/stdin``
  through a link, and no larger than a bound.

Where ``openat2`` is missing (Linux before 5.6, a seccomp profile that hides
it, other systems) the same guarantees come from a walk of directory
descriptors, one ``O_NOFOLLOW`` component at a time: a symlink met on the
way is read with ``readlink`` and resolved by the walk itself, never by the
kernel, so it cannot lead out either. It costs one syscall per component
instead of one per path.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat as _stat
import sys
from typing import Callable

from lackpy.errors import PathError

#: ``openat2`` resolve flags (linux/openat2.h).
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
#: The syscall number of ``openat2``: one number on every architecture (the generic table, x86_64 included).
_SYS_OPENAT2 = 437
#: How many symlinks one lookup may cross, as the kernel allows.
_MAX_LINKS = 40
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_PATH = getattr(os, "O_PATH", os.O_RDONLY)


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _load_openat2():
    """The raw ``syscall`` entry when this kernel has ``openat2``; None otherwise (the walk is used)."""
    if not sys.platform.startswith("linux") or os.environ.get("LACKPY_NO_OPENAT2") == "1":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    probe = _OpenHow(_DIRECTORY, 0, RESOLVE_BENEATH)
    fd = syscall(ctypes.c_long(_SYS_OPENAT2), ctypes.c_int(-100), b".", ctypes.byref(probe), ctypes.c_size_t(24))
    if fd < 0:
        return None  # ENOSYS, or a filter that refuses it
    os.close(fd)
    return syscall


_syscall = _load_openat2()
#: The resolve flags by ``follow``, and one reusable ``open_how`` per (flags, resolve) pair.
_RESOLVE = {True: RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, False: RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS}
_HOWS: dict[tuple[int, int, int], tuple[_OpenHow, object]] = {}


def kernel_enforced() -> bool:
    """Whether lookups use ``openat2`` (True) or the descriptor walk (False); both refuse the same paths."""
    return _syscall is not None


def open_beneath(dir_fd: int, rel: str, flags: int, mode: int = 0o666, *, follow: bool = True, at: str | None = None) -> int:
    """A descriptor for ``rel`` resolved beneath ``dir_fd``; ``OSError`` as ``open(2)`` raises it.

    ``EXDEV``: the path leads out of ``dir_fd`` (``..``, an absolute or
    climbing symlink); ``ELOOP``: a symlink where ``follow`` is False, or
    a final symlink with ``O_NOFOLLOW``. ``O_CLOEXEC`` is always added.

    ``at``: the real path of ``dir_fd``. The kernel refuses every absolute
    symlink; given ``at``, one whose target lies beneath ``at`` (a link a
    tool wrote with the workspace's full path) is followed by the walk, from
    ``dir_fd`` itself, never from the real ``/``.
    """
    flags |= os.O_CLOEXEC
    if _syscall is not None:
        key = (flags, mode if flags & os.O_CREAT else 0, _RESOLVE[follow])
        entry = _HOWS.get(key)
        if entry is None:
            how = _OpenHow(*key)
            entry = _HOWS[key] = (how, ctypes.byref(how))
        fd = _syscall(_SYS_OPENAT2, dir_fd, rel.encode("utf-8", "surrogateescape"), entry[1], 24)
        if fd < 0:
            code = ctypes.get_errno()
            if code == errno.EAGAIN or (code == errno.EXDEV and follow and at is not None):
                return _walk(dir_fd, rel, flags, mode, follow, at)  # a rename raced the lookup, or an absolute link
            raise OSError(code, os.strerror(code), rel)
        return fd
    return _walk(dir_fd, rel, flags, mode, follow, at)


def _walk(dir_fd: int, rel: str, flags: int, mode: int, follow: bool, at: str | None = None) -> int:
    """``open_beneath`` by hand: one ``O_NOFOLLOW`` component at a time, symlinks resolved here, never by the kernel.

    Used where ``openat2`` is missing, and (given ``at``) for what the kernel
    refuses but lies beneath the top all the same: an absolute link to a path
    under ``at``, or a ``..`` that climbs out and names its way straight back
    in (``up -> ..`` then ``up/<top's name>/file``). The part outside the top
    is followed by name only, never opened: nothing outside is ever touched.
    """
    if rel.startswith("/"):
        raise OSError(errno.EXDEV, "an absolute path leads out", rel)
    top = at.rstrip("/").split("/") if at is not None else None
    outside: list[str] | None = None  # where a '..' above the top has led, as names; None while beneath it
    todo = [part for part in reversed(rel.split("/")) if part not in ("", ".")]
    stack = [os.dup(dir_fd)]  # the directories walked through; stack[0] is the top, never left
    links = 0
    try:
        while todo:
            name = todo.pop()
            if outside is not None or (name == ".." and len(stack) == 1):
                outside = _climb(outside, name, top, rel)
                if outside == top:
                    outside = None  # back at the top, by its own name
                continue
            if name == "..":
                os.close(stack.pop())
                continue
            try:
                info = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
            except OSError as exc:
                if exc.errno == errno.ENOENT and not todo and flags & os.O_CREAT:
                    return _open_last(name, flags, mode, stack[-1], rel)
                raise OSError(exc.errno, exc.strerror, rel) from None
            if _stat.S_ISLNK(info.st_mode):
                if not follow:
                    raise OSError(errno.ELOOP, "a symlink on the path", rel)
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, "too many symlinks", rel)
                target = os.readlink(name, dir_fd=stack[-1])
                if target.startswith("/"):
                    if top is None:
                        raise OSError(errno.EXDEV, "an absolute symlink leads out", rel)
                    while len(stack) > 1:
                        os.close(stack.pop())
                    outside = [""]  # from the real "/", by name, until it names the top
                todo.extend(part for part in reversed(target.split("/")) if part not in ("", "."))
                continue
            if not todo:
                return _open_last(name, flags, mode, stack[-1], rel)
            try:
                stack.append(os.open(name, _PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=stack[-1]))
            except OSError as exc:
                if exc.errno not in (errno.ENOTDIR, errno.ELOOP) or not _stat.S_ISLNK(os.stat(name, dir_fd=stack[-1], follow_symlinks=False).st_mode):
                    raise OSError(exc.errno, exc.strerror, rel) from None
                todo.append(name)  # swapped for a link since the stat above: looked at again, as a link
                links += 1
        if outside is not None:
            raise OSError(errno.EXDEV, "the path leads out", rel)
        return os.open(".", flags, mode, dir_fd=stack[-1])
    finally:
        for fd in stack:
            os.close(fd)


def _climb(outside: list[str] | None, name: str, top: list[str] | None, rel: str) -> list[str]:
    """One step of a path above the top, by name: allowed only while it stays on the way back to the top."""
    if top is None:
        raise OSError(errno.EXDEV, "the path leads out", rel)
    where = list(top) if outside is None else outside
    if name == "..":
        where = where[:-1] or [""]
    else:
        where = where + [name]
    if where != top[: len(where)]:
        raise OSError(errno.EXDEV, "the path leads out", rel)
    return where


def _open_last(name: str, flags: int, mode: int, dir_fd: int, rel: str) -> int:
    """The walk's last component, never followed: a link swapped in since the walk looked is ELOOP (or, with O_PATH, caught by fstat)."""
    fd = os.open(name, flags | os.O_NOFOLLOW, mode, dir_fd=dir_fd)
    if flags & _PATH and _PATH != os.O_RDONLY and not flags & os.O_NOFOLLOW and _stat.S_ISLNK(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.ELOOP, "a symlink on the path", rel)
    return fd


def canonical(fd: int, root: str) -> str:
    """The path of what ``fd`` refers to, relative to ``root`` (a real path): ``"."`` for the root itself.

    PathError when it is not beneath the root (the root was moved away, or
    the descriptor was never beneath it).
    """
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = _fd_path_without_proc(fd)
    if real == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    if real.startswith(prefix):
        return real[len(prefix):]
    raise PathError("the file is no longer inside the workspace (was the workspace moved?)")


def _fd_path_without_proc(fd: int) -> str:
    import fcntl

    get_path = getattr(fcntl, "F_GETPATH", None)  # macOS and the BSDs
    if get_path is None:
        raise PathError("lackpy needs /proc to tell where a file lies; mount /proc")
    return os.fsdecode(fcntl.fcntl(fd, get_path, b"\0" * 1024).rstrip(b"\0"))


def open_dir(path: str) -> int:
    """A descriptor for the directory ``path`` itself (a workspace root), following no final symlink."""
    return os.open(path, _DIRECTORY | os.O_NOFOLLOW)


def read_regular(
    dir_fd: int, rel: str, max_bytes: int, *, follow: bool = True, what: str | None = None, judge: Callable[[int], None] | None = None
) -> bytes:
    """The bytes of the regular file ``rel`` beneath ``dir_fd``, at most ``max_bytes``; PathError otherwise.

    Opened with ``O_NONBLOCK | O_NOCTTY`` and checked with ``fstat`` before
    a byte is read, so a FIFO, a socket, a device or ``/dev/stdin`` through
    a link is an error at once, never a hang; a symlink that leads out of
    ``dir_fd`` is refused by the lookup itself. ``what`` names the file in
    errors (default: ``rel``). FileNotFoundError passes through, so callers
    can treat a missing file as absent. ``judge`` is handed the descriptor
    before a byte is read, to refuse (by raising) what it opened: a policy
    that judges the file itself, not a name that could change meanwhile.
    """
    shown = what or rel
    try:
        fd = open_beneath(dir_fd, rel, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, follow=follow)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise PathError(f"{shown}: {_refusal(exc)}") from None
    try:
        if judge is not None:
            judge(fd)
        return read_opened(fd, max_bytes, shown)
    finally:
        os.close(fd)


def read_opened(fd: int, max_bytes: int, shown: str) -> bytes:
    """Every byte of the open file ``fd`` if ``fstat`` says it is a regular file of at most ``max_bytes``; PathError otherwise."""
    info = os.fstat(fd)
    if not _stat.S_ISREG(info.st_mode):
        raise PathError(f"{shown}: not a regular file ({_kind(info.st_mode)}); lackpy reads only regular files there")
    if info.st_size > max_bytes:
        raise PathError(f"{shown}: larger than {max_bytes} bytes; lackpy does not read it")
    return read_fd(fd, info.st_size, max_bytes, shown)


def read_fd(fd: int, size: int, max_bytes: int | None, shown: str) -> bytes:
    """Every byte of an open regular file whose ``fstat`` said ``size``; one that grew past ``max_bytes`` is a PathError."""
    chunks, total, want = [], 0, size + 1  # one more than fstat said: the empty read that follows is the end
    while chunk := os.read(fd, want):
        chunks.append(chunk)
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            raise PathError(f"{shown}: larger than {max_bytes} bytes")
        want = 1 << 16
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _refusal(exc: OSError) -> str:
    if exc.errno == errno.EXDEV:
        return "a symlink leads outside where lackpy reads it"
    if exc.errno == errno.ELOOP:
        return "a symlink where lackpy follows none"
    if exc.errno in (errno.ENXIO, errno.EWOULDBLOCK):
        return "not a regular file"
    return (exc.strerror or str(exc)).lower()


def _kind(mode: int) -> str:
    if _stat.S_ISDIR(mode):
        return "a directory"
    if _stat.S_ISFIFO(mode):
        return "a FIFO"
    if _stat.S_ISSOCK(mode):
        return "a socket"
    if _stat.S_ISCHR(mode) or _stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


__all__ = ["RESOLVE_BENEATH", "RESOLVE_NO_MAGICLINKS", "RESOLVE_NO_SYMLINKS", "canonical", "kernel_enforced", "open_beneath", "open_dir", "read_fd", "read_opened", "read_regular"]
