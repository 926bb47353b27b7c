"""lackpy's own files in a workspace's ``.lackpy/``, read so that the workspace cannot hang lackpy or lead it out.

A cloned repository chooses what its ``.lackpy/`` holds, and git keeps
symlinks: ``config.toml`` can be a FIFO, a link to ``/dev/stdin`` or to a
file outside the workspace, or a sparse file of many gigabytes. Everything
lackpy reads there itself (the config, kit files, templates, what the trust
hash covers) is read here, by these rules:

* ``.lackpy`` is a real directory of the workspace, not a symlink (the commit
  journal asks the same); its directories (``kits``, ``templates``) are
  resolved beneath the workspace root in one kernel-enforced lookup
  (``beneath.open_beneath``), so a symlinked ``.lackpy/kits`` may lead
  elsewhere in the workspace (lackpy's own repository links its kits) and
  never out of it.
* A file is read with ``beneath.read_regular`` beneath its own directory: a
  final symlink never leads out of that directory, a FIFO, socket or device
  is an error at once (``O_NONBLOCK``, then ``fstat``), and no more than
  ``MAX_FILE_BYTES`` is read.
* A directory is listed up to ``MAX_ENTRIES`` entries, never more.

Every refusal is one line naming the file and what to do, raised as the
caller's error class (``ConfigError``, ``KitFileError``). A missing file or
directory is ``FileNotFoundError``: callers treat it as absent.
"""

from __future__ import annotations

import errno
import os
import secrets
from typing import Callable

from lackpy.errors import LackpyError, PathError, resource_error
from lackpy.host.beneath import open_beneath, read_opened, read_regular
from lackpy.host.places import LACKPY_DIR

#: The directory of lackpy's own files in a workspace.
STATE_DIR = LACKPY_DIR
#: The most lackpy reads of one of its own files (a config, a kit, a template): 1 MiB.
MAX_FILE_BYTES = 1 << 20
#: The most entries lackpy lists in one of its directories (kits, templates).
MAX_ENTRIES = 4096
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK

ErrorClass = Callable[[str], LackpyError]


def open_state(workspace: str | os.PathLike, sub: str = "", error: ErrorClass = PathError, *, create: bool = False) -> int:
    """A descriptor for the workspace's ``.lackpy`` (or ``.lackpy/SUB``) directory; the caller closes it.

    FileNotFoundError when it does not exist (``create`` makes it, for the
    person's own commands that write there); ``error`` when ``.lackpy`` is a
    symlink, when SUB leads out of the workspace, or when either is not a
    directory.
    """
    root = os.open(os.fspath(workspace), _DIRECTORY | os.O_CLOEXEC)
    try:
        if create:
            _make(root, STATE_DIR)
        state = _open_dir(root, STATE_DIR, os.path.join(workspace, STATE_DIR), error, follow=False)
        if not sub:
            return state
        try:
            if create:
                _make(state, sub)
        finally:
            os.close(state)
        return _open_dir(root, f"{STATE_DIR}/{sub}", os.path.join(workspace, STATE_DIR, sub), error, follow=True)
    finally:
        os.close(root)


def _make(dir_fd: int, name: str) -> None:
    """``mkdir name`` in ``dir_fd``; whatever is there already is judged when it is opened."""
    try:
        os.mkdir(name, 0o777, dir_fd=dir_fd)
    except FileExistsError:
        pass


def _open_dir(root: int, rel: str, shown: str, error: ErrorClass, *, follow: bool) -> int:
    try:
        return open_beneath(root, rel, _DIRECTORY, follow=follow)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise error(f"{shown}: not a directory; lackpy keeps its own files in a directory there: remove it or make it one") from None
        if exc.errno in (errno.ELOOP, errno.EXDEV) and not follow:
            raise error(f"{shown}: a symlink; lackpy reads its own files only from a real directory there: replace the link with the directory") from None
        if exc.errno == errno.EXDEV:
            raise error(f"{shown}: a symlink leads out of the workspace; lackpy reads its own files only inside it: replace the link with the directory") from None
        raise resource_error(exc, f"{shown}: cannot open") or error(f"{shown}: cannot open: {(exc.strerror or str(exc)).lower()}") from None


def read_own(dir_fd: int, name: str, shown: str, error: ErrorClass, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of lackpy's own file ``name`` in ``dir_fd`` (``shown`` in errors); FileNotFoundError when absent."""
    try:
        return read_regular(dir_fd, name, max_bytes, what=shown)
    except PathError as exc:
        raise _refused(exc, error, max_bytes) from None


def _refused(exc: PathError, error: ErrorClass, max_bytes: int) -> LackpyError:
    """``exc`` as the caller's error class, with what to do about it."""
    fix = "replace the link with the file itself" if "symlink" in str(exc) else f"make it a regular file of at most {_size(max_bytes)}"
    return error(f"{exc}: {fix}, or remove it")


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count % (1 << 20) == 0 else f"{count} bytes"


def listed(dir_fd: int, suffix: str, shown: str, error: ErrorClass, kind: str | None = None, most: int = MAX_ENTRIES) -> list[str]:
    """The names in ``dir_fd`` that end with ``suffix``, sorted; ``error`` past ``most`` entries.

    ``kind`` ``"file"`` or ``"dir"`` keeps only regular files or only
    directories, judged without following links.
    """
    found = []
    with os.scandir(dir_fd) as entries:
        for count, entry in enumerate(entries, start=1):
            if count > most:
                raise error(f"{shown}: more than {most} entries; lackpy lists at most that many there: remove what is not yours")
            if not entry.name.endswith(suffix):
                continue
            if kind == "file" and not entry.is_file(follow_symlinks=False) or kind == "dir" and not entry.is_dir(follow_symlinks=False):
                continue
            found.append(entry.name)
    return sorted(found)


def own_dir(dir_fd: int, name: str, shown: str, error: ErrorClass) -> int:
    """A descriptor for the directory ``name`` in ``dir_fd``, made when missing, never opened through a link (the caller closes it)."""
    _make(dir_fd, name)
    return _open_dir(dir_fd, name, shown, error, follow=False)


def write_own(dir_fd: int, name: str, data: bytes) -> None:
    """Replace lackpy's own file ``name`` in ``dir_fd`` with ``data`` (the person's commands: kit create, template save, mcp add).

    Written to a new file beside it and renamed over, so whatever was there
    (a FIFO, a device, a symlink to a file elsewhere) is replaced, never
    opened, and no reader ever sees half a file.
    """
    temporary = f".{name}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        raise


def exists(dir_fd: int, name: str) -> bool:
    """Whether ``name`` is in ``dir_fd`` in any form (a link that leads nowhere too), without opening it."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def read_path(path: str | os.PathLike, shown: str, error: ErrorClass, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """A file of the person's own (their config, the trust record), links followed, read with the same care.

    The path is the person's, outside every workspace, so its links are
    theirs and are followed; the file itself must still be a regular file
    no larger than ``max_bytes``, opened without blocking (``O_NONBLOCK``,
    then ``fstat``). FileNotFoundError when it does not exist.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise error(f"{shown}: cannot read: {(exc.strerror or str(exc)).lower()}") from None
    try:
        return read_opened(fd, max_bytes, shown)
    except PathError as exc:
        raise _refused(exc, error, max_bytes) from None
    finally:
        os.close(fd)


__all__ = ["MAX_ENTRIES", "MAX_FILE_BYTES", "STATE_DIR", "exists", "listed", "open_state", "own_dir", "read_own", "read_path", "write_own"]
