"""A person's private files under their own lackpy folder: secrets only they may read (OAuth tokens).

Each file lives in a directory of ``user_dir()`` (never a workspace) that
lackpy makes with mode 0700, and is written with mode 0600: to a new file
beside it first, then renamed over the old one, so a reader sees the old
contents or the new, never half. Every step goes through descriptors: the
folders are opened without following a final symlink, the file with
``O_NOFOLLOW``, and what was opened is judged by ``fstat``: a directory or a
file that another user owns, or that others may read or write, is refused
with one line saying how to repair it, and nothing is read from it or
written to it.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from lackpy.errors import ConfigError
from lackpy.host.places import user_dir

#: The most lackpy reads of one private file.
MAX_BYTES = 1 << 20
#: The folders of ``user_dir()`` that hold secrets (commands may not read them: ``lackpy.host.confine``).
FOLDERS = ("oauth",)
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def read_private(folder: str, name: str, base: Path | None = None) -> bytes | None:
    """The bytes of ``user_dir()/FOLDER/NAME`` (or ``base/FOLDER/NAME``); None when it does not exist. ConfigError when it is not private."""
    try:
        dir_fd = _folder(folder, create=False, base=base)
    except FileNotFoundError:
        return None
    try:
        try:
            fd = os.open(name, _READ, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _refusal(folder, name, "is a symlink" if exc.errno == errno.ELOOP else f"cannot be opened ({exc.strerror})", base) from None
        try:
            _judge(os.fstat(fd), folder, name, want_dir=False, base=base)
            data = os.read(fd, MAX_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_BYTES:
            raise _refusal(folder, name, f"is larger than {MAX_BYTES} bytes", base)
        return data
    finally:
        os.close(dir_fd)


def write_private(folder: str, name: str, data: bytes, base: Path | None = None) -> None:
    """Replace ``user_dir()/FOLDER/NAME`` (or ``base/FOLDER/NAME``) with ``data``, mode 0600 (the folders made 0700 as needed)."""
    dir_fd = _folder(folder, create=True, base=base)
    try:
        temporary = f".{name}.{secrets.token_hex(6)}.new"
        fd = os.open(temporary, _NEW, 0o600, dir_fd=dir_fd)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(temporary, dir_fd=dir_fd)
            raise
        os.close(fd)
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def remove_private(folder: str, name: str, base: Path | None = None) -> bool:
    """Remove ``user_dir()/FOLDER/NAME`` (or ``base/FOLDER/NAME``); whether there was one."""
    try:
        dir_fd = _folder(folder, create=False, base=base)
    except FileNotFoundError:
        return False
    try:
        os.unlink(name, dir_fd=dir_fd)
        return True
    except FileNotFoundError:
        return False
    finally:
        os.close(dir_fd)


def private_path(folder: str, name: str = "", base: Path | None = None) -> str:
    """Where a private file is, to show a person."""
    root = base if base is not None else user_dir()
    return os.path.join(root, folder, name) if name else os.path.join(root, folder)


def private_folders() -> list[str]:
    """The real paths of the secret folders that exist now (for the read rules of a command's confinement)."""
    found = []
    for folder in FOLDERS:
        path = os.path.realpath(os.path.join(user_dir(), folder))
        if os.path.isdir(path):
            found.append(path)
    return found


def _folder(folder: str, create: bool, base: Path | None = None) -> int:
    """A descriptor of ``user_dir()/FOLDER`` (or ``base/FOLDER``), judged private; FileNotFoundError when absent and not ``create``."""
    given, base = base, base if base is not None else user_dir()
    if create:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
    parent = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the person's own folder may be a link (dotfiles); its secret folders may not
    try:
        if create:
            try:
                os.mkdir(folder, 0o700, dir_fd=parent)
            except FileExistsError:
                pass
        try:
            fd = os.open(folder, _DIRECTORY, dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise
            raise _refusal(folder, "", "is a symlink or not a directory", given) from None
    finally:
        os.close(parent)
    try:
        _judge(os.fstat(fd), folder, "", want_dir=True, base=given)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _judge(st: os.stat_result, folder: str, name: str, want_dir: bool, base: Path | None = None) -> None:
    if want_dir != stat.S_ISDIR(st.st_mode) or (not want_dir and not stat.S_ISREG(st.st_mode)):
        raise _refusal(folder, name, "is not a " + ("directory" if want_dir else "regular file"), base)
    if st.st_uid != os.getuid():
        raise _refusal(folder, name, "belongs to another user", base)
    if st.st_mode & 0o077:
        fix = "chmod 700" if want_dir else "chmod 600"
        raise _refusal(folder, name, f"may be read or written by others (mode {stat.S_IMODE(st.st_mode):o}); run {fix} {private_path(folder, name, base)}", base)


def _refusal(folder: str, name: str, what: str, base: Path | None = None) -> ConfigError:
    return ConfigError(f"{private_path(folder, name, base)} {what}; lackpy keeps private data there only in files of your own that no one else can read")


__all__ = ["FOLDERS", "MAX_BYTES", "private_folders", "private_path", "read_private", "remove_private", "write_private"]
