"""What trust covers of a workspace's skills: every entry beneath ``.lackpy/skills`` and the ``[skills] paths`` folders.

A skill is code from a repository, as a kit is: a person who trusts a
workspace trusts the skills it has then, and a skill added or changed later
(a ``git pull``) asks again, as a changed kit does. ``lackpy.trust`` hashes
what ``walk`` finds with the config, the kits and the templates.

The walk goes through descriptors beneath the workspace and follows no
symlink (a link is covered by where it points, as text); a FIFO or a device
is covered by its kind, never opened. It reads every regular file, at most
``MAX_FILE_BYTES`` each and ``MOST_FILES`` in all: past either, a
ConfigError says what to remove, since lackpy cannot say what it would trust.
"""

from __future__ import annotations

import errno
import os
import stat
import tomllib
from dataclasses import dataclass
from typing import Iterator

from lackpy.errors import ConfigError, LackpyError, PathError
from lackpy.host.beneath import open_beneath, open_dir, read_opened
from lackpy.host.ownfiles import MAX_FILE_BYTES, open_state, read_own
from lackpy.skills.sources import WORKSPACE_SKILLS, skill_paths

#: The most entries trust walks beneath a workspace's skill folders.
MOST_FILES = 4096
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


@dataclass(frozen=True)
class Entry:
    """One entry beneath a skill folder: its workspace-relative path, and what trust hashes of it."""

    rel: str
    content: bytes
    directory: bool = False


def folders(workspace: str | os.PathLike) -> list[str]:
    """The skill folders of a workspace: ``.lackpy/skills``, then the ``[skills] paths`` its config names.

    The paths as the config names them, trusted or not: they are what trust
    would make lackpy load. A config that cannot be read or does not parse
    names none (loading it says what is wrong).
    """
    found = [WORKSPACE_SKILLS]
    try:
        state = open_state(workspace, error=ConfigError)
    except (FileNotFoundError, LackpyError):
        return found
    try:
        text = read_own(state, "config.toml", "config.toml", ConfigError).decode("utf-8")
        found += skill_paths(tomllib.loads(text).get("skills"), "config")
    except (FileNotFoundError, UnicodeDecodeError, tomllib.TOMLDecodeError, LackpyError):
        pass
    finally:
        os.close(state)
    return list(dict.fromkeys(found))


def walk(workspace: str | os.PathLike, tops: list[str]) -> list[Entry]:
    """Every entry beneath the skill folders ``tops`` (``folders()``), in a stable order (directories too, so a new one shows)."""
    root = open_dir(os.fspath(workspace))
    try:
        entries: list[Entry] = []
        for folder in tops:
            entries += _walk(root, folder, len(entries))
        return entries
    finally:
        os.close(root)


def _walk(root: int, top: str, counted: int) -> Iterator[Entry]:
    try:
        fd = open_beneath(root, top, _DIRECTORY, follow=False)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EXDEV):
            return  # absent, not a folder, or reached through a link: lackpy loads no skill from it
        raise ConfigError(f"{top}: {exc.strerror}; lackpy cannot read it to trust its skills") from None
    pending = [(top, fd)]
    try:
        while pending:
            rel, folder = pending.pop()
            yield Entry(rel, b"", directory=True)
            try:
                names = sorted(os.listdir(folder))
                for name in names:
                    counted += 1
                    if counted > MOST_FILES:
                        raise ConfigError(f"{top} holds more than {MOST_FILES} entries; lackpy cannot trust what it cannot read whole: remove what is not a skill's")
                    path = f"{rel}/{name}"
                    info = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append((path, open_beneath(folder, name, _DIRECTORY, follow=False)))
                    elif stat.S_ISLNK(info.st_mode):
                        yield Entry(path, b"link:" + os.fsencode(os.readlink(name, dir_fd=folder)))
                    elif stat.S_ISREG(info.st_mode):
                        yield Entry(path, b"file:" + _read(folder, name, path))
                    else:
                        yield Entry(path, f"other:{stat.S_IFMT(info.st_mode)}".encode())
            except OSError as exc:
                raise ConfigError(f"{rel}: {exc.strerror}; lackpy cannot read it to trust its skills") from None
            finally:
                os.close(folder)
    finally:
        for _, left in pending:
            os.close(left)


def _read(folder: int, name: str, shown: str) -> bytes:
    fd = open_beneath(folder, name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, follow=False)
    try:
        return read_opened(fd, MAX_FILE_BYTES, shown)
    except PathError as exc:
        raise ConfigError(f"{exc}; lackpy cannot trust a skill it cannot read whole: make it a file of at most 1 MiB, or remove it") from None
    finally:
        os.close(fd)


__all__ = ["MOST_FILES", "Entry", "folders", "walk"]
