"""The filesystem seam: tools reach files only through one of these backends.

Paths given to a backend are workspace-relative, '/'-separated and already
checked by the path policy (``lackpy.tools.workspace``); ``"."`` is the
workspace itself. ``LocalFilesystem`` is the only code here that touches the
operating system. ``MemoryFilesystem`` keeps files in a dict (tests, hosts
without a disk). ``StagedFilesystem`` wraps another backend: writes wait in
memory, reads see them, and ``commit`` applies them all or none; on the local
disk through the commit journal (``lackpy.host.journal``), so that holds
even if lackpy dies in the middle.
"""

from __future__ import annotations

import difflib
import errno
import os
import stat as _stat
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from lackpy.errors import CommitError, ConflictError, LimitExceeded, PathError, resource_error
from lackpy.host import beneath, hardlinks, journal
from lackpy.host.journal import Baseline, Change


class Entry(NamedTuple):
    """One directory entry: ``kind`` is "file", "dir" or "other"; ``link`` marks a symlink."""

    name: str
    kind: str
    size: int
    link: bool = False


class Stat(NamedTuple):
    """What a backend knows of a path; ``fingerprint`` changes whenever the content may have."""

    kind: str
    size: int
    fingerprint: Any


class Filesystem(Protocol):
    """The operations tools may use. Every method raises PathError for a missing path."""

    def resolve(self, rel: str) -> str:
        """The canonical relative path (links followed); PathError if it leads outside."""

    def read_bytes(self, rel: str, max_bytes: int | None = None) -> bytes: ...
    def read_text(self, rel: str) -> str:
        """The file decoded as UTF-8, undecodable bytes as U+FFFD."""
    def write(self, rel: str, data: bytes) -> None: ...
    def stat(self, rel: str) -> Stat | None: ...
    def list(self, rel: str, sizes: bool = True) -> list[Entry]:
        """The directory's entries, sorted; with ``sizes`` False a backend may give files size 0 (a glob needs none)."""
    def mkdir(self, rel: str) -> None: ...
    def remove(self, rel: str) -> None: ...
    def exists(self, rel: str) -> bool: ...


def join_rel(rel: str, name: str) -> str:
    """``name`` inside the relative directory ``rel`` ("." is the workspace)."""
    return name if rel in ("", ".") else f"{rel}/{name}"


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0] or "."


class _Text:
    """``read_text`` for every backend, on top of its ``read_bytes``."""

    def read_text(self, rel: str) -> str:
        return self.read_bytes(rel).decode("utf-8", errors="replace")


# -- the local disk ---------------------------------------------------------------

#: Whether a path is ``.lackpy`` or inside it (any case), which no program may create, change or delete.
reserved_path = journal.reserved
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY
_PATH = getattr(os, "O_PATH", os.O_RDONLY)


def _refuse_reserved(rel: str) -> None:
    if reserved_path(rel):
        raise PathError(f"{rel} is lackpy's own (.lackpy/ holds its config, kits, templates and commit journal); programs cannot change it")


def _kind(mode: int) -> str:
    return "dir" if _stat.S_ISDIR(mode) else "file" if _stat.S_ISREG(mode) else "other"


def _fingerprint(info: os.stat_result) -> tuple:
    return (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)


class LocalFilesystem(_Text):
    """Files under a real directory, every lookup resolved beneath it by the kernel (``lackpy.host.beneath``).

    ``resolve`` is the one method that follows symlinks, and only those that
    stay beneath the root; the path it returns has no symlink left in it.
    Every other method takes such a path and refuses any symlink on it
    (``RESOLVE_NO_SYMLINKS``), so a directory swapped for a link after the
    path policy judged the path makes the operation fail instead of going
    where the policy never looked. Reads, stats and listings act on the
    descriptor that lookup returned.

    ``deny``: the ``[tools] deny`` patterns, for what names cannot tell: a
    file with more than one name is refused, as the path policy refuses a
    denied path, when it is a denied file under another name (a hard link),
    judged on its descriptor (``hardlinks.Guard``). Reads and stats refuse it,
    so writes and deletes do too; listings leave it out.
    """

    #: Reads of a path follow no symlink on it (a link is a PathError with ``link_on_path``), so a read that
    #: succeeds proves the path is its own canonical form: the path policy then needs no lookup of its own.
    strict_reads = True

    def __init__(self, root: str | os.PathLike, deny: tuple[str, ...] = ()) -> None:
        self.root = os.path.realpath(root)
        self._fd: int | None = None
        self.deny = tuple(deny)
        self._guard: hardlinks.Guard | None = None

    def __del__(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass

    @property
    def root_fd(self) -> int:
        """A descriptor of the root directory, opened on first use and kept for this backend's life."""
        if self._fd is None:
            try:
                self._fd = beneath.open_dir(self.root)
            except OSError as exc:
                raise resource_error(exc, f"cannot open the workspace {self.root}") or PathError(f"cannot open the workspace {self.root}: {exc.strerror or exc}") from None
        return self._fd

    def _judge(self, info: os.stat_result, rel: str) -> None:
        """Refuse (PathError) the file ``info`` describes if it is a denied file under the name ``rel``; free for a file with one name."""
        if self.deny and hardlinks.multiple(info):
            if self._guard is None:
                self._guard = hardlinks.Guard(self.root_fd, self.deny)
            self._guard.check(info, rel)

    def os_path(self, rel: str) -> str:
        """The real path of a relative path (for the shell seam's working directory)."""
        return self.root if rel in ("", ".") else os.path.join(self.root, rel)

    def _open(self, rel: str, flags: int, *, follow: bool = False) -> int:
        """A descriptor for ``rel`` beneath the root; OSError as ``open(2)`` raises it (EXDEV: leads out)."""
        return beneath.open_beneath(self.root_fd, rel or ".", flags, follow=follow, at=self.root)

    def resolve(self, rel: str, again: int = 2) -> str:
        """The path with its symlinks resolved, by the kernel, beneath the root; PathError if one leads out.

        A path that does not exist yet (a file about to be written) is its
        parent's canonical path and its own name; a dangling symlink is
        refused, since what it names cannot be judged. A file another writer
        makes between the two looks is looked at again (``again`` times).
        """
        if rel in ("", "."):
            return "."
        plain = all(part not in ("", ".", "..") for part in rel.split("/"))
        code = errno.ELOOP
        if plain:  # no '.', '..' or empty part: with no symlink on the way, the path is its own canonical form
            try:
                os.close(self._open(rel, _PATH))
                return rel
            except OSError as exc:
                code = exc.errno
        if code == errno.ELOOP:
            try:
                fd = self._open(rel, _PATH, follow=True)
            except OSError as exc:
                code = exc.errno
            else:
                try:
                    return beneath.canonical(fd, self.root)
                finally:
                    os.close(fd)
        if code == errno.EXDEV:
            raise PathError(f"symlink leads outside the workspace: {rel}")
        if code in (errno.ENOENT, errno.ENOTDIR):
            parent, _, name = rel.rpartition("/")
            real_parent = self.resolve(parent) if parent else "."
            found = self._lstat(join_rel(real_parent, name))
            if found is not None and (_stat.S_ISLNK(found.st_mode) or again == 0):
                raise PathError(f"a symlink to nothing: {rel} (lackpy follows no dangling link)")
            if found is not None:  # it was made between the two looks (another writer): look again
                return self.resolve(rel, again - 1)
            return join_rel(real_parent, name)
        raise _os_error(rel, OSError(code, os.strerror(code)))

    def _lstat(self, rel: str) -> os.stat_result | None:
        """The entry itself (a symlink is not followed), looked up in its parent's descriptor; None when absent."""
        parent, _, name = rel.rpartition("/")
        try:
            fd = self._open(parent or ".", _PATH | os.O_DIRECTORY)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise _os_error(rel, exc) from None
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise _os_error(rel, exc) from None
        finally:
            os.close(fd)

    def read_bytes(self, rel: str, max_bytes: int | None = None) -> bytes:
        return self.read_with_fingerprint(rel, max_bytes)[0]

    def read_with_fingerprint(self, rel: str, max_bytes: int | None = None) -> tuple[bytes, Any]:
        """The content and the fingerprint of the file as it was read (one lookup, one fstat)."""
        try:
            fd = self._open(rel, _READ)
        except OSError as exc:
            raise _os_error(rel, exc) from None
        try:
            info = os.fstat(fd)
            if _stat.S_ISDIR(info.st_mode):
                raise PathError(f"is a directory, not a file: {rel}")
            if not _stat.S_ISREG(info.st_mode):
                raise PathError(f"not a regular file: {rel}")
            self._judge(info, rel)
            if max_bytes is not None and info.st_size > max_bytes:
                raise PathError(f"larger than {max_bytes} bytes: {rel}")
            data = beneath.read_fd(fd, info.st_size, max_bytes, rel)
        except OSError as exc:
            raise _os_error(rel, exc) from None
        finally:
            os.close(fd)
        return data, _fingerprint(info)

    def identity(self, rel: str) -> Baseline | None:
        """The file's content identity now (size and SHA-256), None when absent; a link or a special file is ``journal.OTHER``."""
        try:
            return journal.identify(self.root_fd, rel)
        except OSError as exc:
            raise _os_error(rel, exc) from None

    def changed_since(self, rel: str, ns: int) -> bool:
        """Whether the path's inode changed (content, mode, a rename over it) after ``ns`` (``time.time_ns()``)."""
        try:
            info = self._lstat(rel)
        except PathError:
            return False
        return info is not None and info.st_ctime_ns > ns

    def write(self, rel: str, data: bytes) -> None:
        """Replace the file atomically, as a one-file commit through the journal.

        The new content waits in ``.lackpy/commit/``, never beside the file, so
        no temp file of lackpy's is left among the user's whatever moment the
        process dies at; the file keeps its permission bits.
        """
        _refuse_reserved(rel)
        info = self.stat(rel)
        if info is not None and info.kind == "dir":
            raise PathError(f"is a directory, not a file: {rel}")
        try:
            journal.commit(self.root, [Change(rel, bytes(data), journal.ANY)])
        except (ConflictError, CommitError) as exc:
            raise PathError(f"cannot write {rel}: {exc}") from None

    def stat(self, rel: str) -> Stat | None:
        try:
            fd = self._open(rel, _PATH)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise _os_error(rel, exc) from None
        try:
            info = os.fstat(fd)
        finally:
            os.close(fd)
        self._judge(info, rel)
        kind = _kind(info.st_mode)
        return Stat(kind, info.st_size if kind == "file" else 0, _fingerprint(info))

    def list(self, rel: str, sizes: bool = True) -> list[Entry]:
        """The directory's entries; a symlink is shown as what it leads to, and not at all if that is outside.

        Without ``sizes`` the kind comes from the directory itself (its
        ``d_type``), with no stat of each entry; a file's size is then 0.
        """
        try:
            fd = self._open(rel, _DIRECTORY)
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                raise PathError(f"not a directory: {rel}") from None
            if exc.errno == errno.ENOENT:
                raise PathError(f"no such directory: {rel}") from None
            raise _os_error(rel, exc) from None
        entries = []
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    try:
                        link = entry.is_symlink()
                        if not (sizes or link):
                            kind = "dir" if entry.is_dir(follow_symlinks=False) else "file" if entry.is_file(follow_symlinks=False) else "other"
                            entries.append(Entry(entry.name, kind, 0))
                            continue
                        info = self._followed(join_rel(rel, entry.name)) if link else entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if info is None:
                        continue  # a link that leads outside the workspace, or to nothing: not shown
                    try:
                        self._judge(info, join_rel(rel, entry.name))
                    except PathError:
                        continue  # a denied file under another name (or maybe one): not shown, as a denied name is not
                    kind = _kind(info.st_mode)
                    entries.append(Entry(entry.name, kind, info.st_size if kind == "file" else 0, link))
        except OSError as exc:
            raise _os_error(rel, exc) from None
        finally:
            os.close(fd)
        return sorted(entries)

    def _followed(self, rel: str) -> os.stat_result | None:
        """What the symlink at ``rel`` leads to, if that is beneath the root; None otherwise."""
        try:
            fd = self._open(rel, _PATH, follow=True)
        except OSError:
            return None
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

    def mkdir(self, rel: str) -> None:
        """Make the directory and its missing parents, one component at a time beneath the root."""
        _refuse_reserved(rel)
        fd = os.dup(self.root_fd)
        try:
            for name in rel.split("/"):
                if name in ("", "."):
                    continue
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                child = beneath.open_beneath(fd, name, _DIRECTORY, follow=False)
                os.close(fd)
                fd = child
        except OSError as exc:
            raise _os_error(rel, exc) from None
        finally:
            os.close(fd)

    def remove(self, rel: str) -> None:
        """Unlink the entry in its parent's descriptor (a symlink itself, never what it leads to)."""
        _refuse_reserved(rel)
        parent, _, name = rel.rpartition("/")
        try:
            fd = self._open(parent or ".", _PATH | os.O_DIRECTORY)
        except OSError as exc:
            raise _os_error(rel, exc) from None
        try:
            os.unlink(name, dir_fd=fd)
        except OSError as exc:
            raise _os_error(rel, exc) from None
        finally:
            os.close(fd)

    def exists(self, rel: str) -> bool:
        return rel in ("", ".") or self._lstat(rel) is not None


def _os_error(path: str, exc: OSError) -> PathError:
    if isinstance(exc, PathError):
        return exc
    if isinstance(exc, FileNotFoundError):
        return PathError(f"no such file: {path}")
    if isinstance(exc, IsADirectoryError):
        return PathError(f"is a directory, not a file: {path}")
    if isinstance(exc, NotADirectoryError):
        return PathError(f"a parent of {path} is not a directory")
    if isinstance(exc, PermissionError):
        return PathError(f"permission denied: {path}")
    if exc.errno == errno.EXDEV:
        return PathError(f"symlink leads outside the workspace: {path}")
    if exc.errno == errno.ELOOP:
        error = PathError(f"{path} changed while lackpy used it (a symlink appeared on its path); nothing was done, try again")
        error.link_on_path = True  # type: ignore[attr-defined]  # the path policy may resolve it again (tools.workspace._read)
        return error
    return PathError(f"cannot access {path}: {exc.strerror or exc}")


# -- memory -------------------------------------------------------------------------


class MemoryFilesystem(_Text):
    """Files in a dict: ``MemoryFilesystem({"src/app.py": "print(1)\\n"})``. No links, no disk."""

    strict_reads = True  # no links: every path is its own canonical form

    def __init__(self, files: dict[str, str | bytes] | None = None) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {"."}
        self.versions: dict[str, int] = {}
        for rel, data in (files or {}).items():
            self.write(rel, data.encode("utf-8") if isinstance(data, str) else data)

    def resolve(self, rel: str) -> str:
        return rel or "."

    def read_with_fingerprint(self, rel: str, max_bytes: int | None = None) -> tuple[bytes, Any]:
        data = self.read_bytes(rel, max_bytes)
        return data, self.stat(rel).fingerprint

    def identity(self, rel: str) -> Baseline | None:
        """The file's content identity (None when absent; a directory is ``journal.OTHER``)."""
        if rel in self.files:
            return Baseline.of(self.files[rel])
        return journal.OTHER if rel in self.dirs else None

    def read_bytes(self, rel: str, max_bytes: int | None = None) -> bytes:
        if rel in self.dirs:
            raise PathError(f"is a directory, not a file: {rel}")
        if rel not in self.files:
            raise PathError(f"no such file: {rel}")
        data = self.files[rel]
        if max_bytes is not None and len(data) > max_bytes:
            raise PathError(f"larger than {max_bytes} bytes: {rel}")
        return data

    def write(self, rel: str, data: bytes) -> None:
        if rel in self.dirs:
            raise PathError(f"is a directory, not a file: {rel}")
        parent = _parent(rel)
        while parent not in self.dirs:
            if parent in self.files:
                raise PathError(f"a parent of {rel} is not a directory")
            self.dirs.add(parent)
            parent = _parent(parent)
        self.files[rel] = bytes(data)
        self.versions[rel] = self.versions.get(rel, 0) + 1

    def stat(self, rel: str) -> Stat | None:
        if rel in self.dirs:
            return Stat("dir", 0, ("dir",))
        if rel in self.files:
            return Stat("file", len(self.files[rel]), (self.versions[rel], len(self.files[rel])))
        return None

    def list(self, rel: str, sizes: bool = True) -> list[Entry]:
        if rel in self.files:
            raise PathError(f"not a directory: {rel}")
        if rel not in self.dirs:
            raise PathError(f"no such directory: {rel}")
        prefix = "" if rel == "." else rel + "/"
        entries = [Entry(p[len(prefix):], "file", len(d)) for p, d in self.files.items() if p.startswith(prefix) and "/" not in p[len(prefix):]]
        entries += [Entry(d[len(prefix):], "dir", 0) for d in self.dirs if d != "." and d.startswith(prefix) and "/" not in d[len(prefix):]]
        return sorted(entries)

    def mkdir(self, rel: str) -> None:
        while rel not in self.dirs:
            self.dirs.add(rel)
            rel = _parent(rel)

    def remove(self, rel: str) -> None:
        if self.files.pop(rel, None) is None:
            raise PathError(f"no such file: {rel}")

    def exists(self, rel: str) -> bool:
        return rel in self.files or rel in self.dirs


# -- staging ------------------------------------------------------------------------


@dataclass
class Changes:
    """Workspace-relative paths a run creates, modifies and deletes."""

    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


class StagedFilesystem(_Text):
    """Another backend with writes held back until ``commit`` (all or nothing).

    Reads see the staged writes. ``baseline`` remembers the content identity
    (``journal.Baseline``: size and SHA-256, or None for absent) of each path
    when the run first touched it: the bytes a read returned, or, for a blind
    write or a delete, the file as it was when that was staged (a baseline
    that never matches when the file changed after the run began). ``commit``
    refuses, writing nothing, if any path it would change is no longer its
    baseline, checking each again just before it is replaced.
    """

    def __init__(self, base: Filesystem, max_write_bytes: int = 64 * 1024 * 1024, since_ns: int | None = None) -> None:
        self.base = base
        self.max_write_bytes = max_write_bytes
        #: When the run began (``time.time_ns()``): a file a blind write or a delete finds changed since is a conflict.
        self.since_ns = since_ns if since_ns is not None else time.time_ns()
        self.staged: dict[str, bytes | None] = {}
        self.baseline: dict[str, Baseline | None] = {}
        self.staged_bytes = 0
        #: ``unchanged``'s answer per path, with the staged bytes and the baseline it was judged on (each write stages new bytes).
        self._judged: dict[str, tuple[bytes | None, Baseline | None, bool]] = {}

    def __getattr__(self, name: str) -> Any:  # os_path and other backend extras
        return getattr(self.base, name)

    def _identity(self, rel: str) -> Baseline | None:
        identity = getattr(self.base, "identity", None)
        if identity is not None:
            return identity(rel)
        info = self.base.stat(rel)
        if info is None:
            return None
        return Baseline.of(self.base.read_bytes(rel)) if info.kind == "file" else journal.OTHER

    def _remember(self, rel: str) -> None:
        """The baseline of a path a blind write or a delete is about to change.

        A program that never read the file did not see it: if its inode
        changed (``st_ctime_ns``, which no one can set back) after the run
        began, someone changed or created it meanwhile, and committing over
        it would lose their work; the baseline then never matches. (A read
        takes what the program saw as the baseline instead.)
        """
        if rel not in self.baseline:
            identity = self._identity(rel)
            changed = getattr(self.base, "changed_since", None)
            if identity is not None and changed is not None and changed(rel, self.since_ns):
                identity = journal.CHANGED
            self.baseline[rel] = identity

    def resolve(self, rel: str) -> str:
        return self.base.resolve(rel)

    def read_bytes(self, rel: str, max_bytes: int | None = None) -> bytes:
        if rel in self.staged:
            data = self.staged[rel]
            if data is None:
                raise PathError(f"no such file: {rel}")
            return data
        data = self.base.read_bytes(rel, max_bytes)
        if rel not in self.baseline:
            self.baseline[rel] = Baseline.of(data)  # what the program saw, exactly
        return data

    def write(self, rel: str, data: bytes) -> None:
        _refuse_reserved(rel)
        info = self.stat(rel)
        if info is not None and info.kind == "dir":
            raise PathError(f"is a directory, not a file: {rel}")
        parent = _parent(rel)
        while parent != ".":  # said now, at the program's line, not at the commit
            above = self.stat(parent)
            if above is not None:
                if above.kind != "dir":
                    raise PathError(f"a parent of {rel} is not a directory")
                break
            parent = _parent(parent)
        self._remember(rel)
        previous = self.staged.get(rel)
        self.staged_bytes += len(data) - (len(previous) if previous else 0)
        if self.staged_bytes > self.max_write_bytes:
            raise LimitExceeded("max_write_bytes", self.max_write_bytes, f"the program wrote more than {self.max_write_bytes} bytes")
        self.staged[rel] = bytes(data)

    def stat(self, rel: str) -> Stat | None:
        if rel in self.staged:
            data = self.staged[rel]
            return None if data is None else Stat("file", len(data), None)
        return self.base.stat(rel)

    def list(self, rel: str, sizes: bool = True) -> list[Entry]:
        children = {e.name: e for e in self._staged_children(rel)}
        try:
            entries = {e.name: e for e in self.base.list(rel, sizes)}
        except PathError:
            if not children:
                raise
            entries = {}
        for path, data in self.staged.items():
            if _parent(path) == rel and data is None:
                entries.pop(path.rpartition("/")[2], None)
        entries.update(children)
        return sorted(entries.values())

    def _staged_children(self, rel: str) -> list[Entry]:
        out, prefix = [], "" if rel == "." else rel + "/"
        for path, data in self.staged.items():
            if data is None or not path.startswith(prefix):
                continue
            name, _, rest = path[len(prefix):].partition("/")
            out.append(Entry(name, "dir" if rest else "file", 0 if rest else len(data)))
        return out

    def mkdir(self, rel: str) -> None:
        self.base.mkdir(rel)

    def remove(self, rel: str) -> None:
        _refuse_reserved(rel)
        if not self.exists(rel):
            raise PathError(f"no such file: {rel}")
        info = self.stat(rel)
        if info is not None and info.kind != "file":
            raise PathError(f"not a file: {rel} (only files can be deleted)")
        self._remember(rel)
        self.staged[rel] = None

    def exists(self, rel: str) -> bool:
        if rel in self.staged:
            return self.staged[rel] is not None
        return self.base.exists(rel) or any(p.startswith(rel + "/") and d is not None for p, d in self.staged.items())

    def unchanged(self, rel: str) -> bool:
        """Whether the staged change of ``rel`` changes nothing: its bytes are its baseline's (or it was made and deleted again).

        The baseline is the content identity the commit checks again just
        before it replaces the file (``journal.identify``, on the file it
        opens), so "no change" is judged by the same computation that makes
        the commit and its diff, never by reading the path a second time.
        A baseline that never matches (``journal.CHANGED``, ``OTHER``) is a change.
        """
        data, baseline = self.staged.get(rel), self.baseline.get(rel)
        if data is None:
            return rel in self.staged and baseline is None
        judged = self._judged.get(rel)
        if judged is not None and judged[0] is data and judged[1] is baseline:  # the write, the diff and the commit ask alike
            return judged[2]
        same = baseline is not None and baseline.size == len(data) and baseline == Baseline.of(data)
        self._judged[rel] = (data, baseline, same)
        return same

    def pending(self) -> list[str]:
        """The staged paths a commit would change, in order: every staged path but those ``unchanged``."""
        return [rel for rel in sorted(self.staged) if not self.unchanged(rel)]

    def changes(self) -> Changes:
        result = Changes()
        for rel in self.pending():
            if self.staged[rel] is None:
                result.deleted.append(rel)
            elif self.baseline.get(rel) is None:
                result.created.append(rel)
            else:
                result.modified.append(rel)
        return result

    def diff(self) -> str:
        """The unified diff of every staged change against the base."""
        chunks = []
        for rel in self.pending():
            new = self.staged[rel]
            old = None
            if self.baseline.get(rel) is not None:
                try:
                    old = self.base.read_bytes(rel)
                except PathError:
                    old = None
            before = [] if old is None else old.decode("utf-8", "replace").splitlines(True)
            after = [] if new is None else new.decode("utf-8", "replace").splitlines(True)
            for line in difflib.unified_diff(
                before, after, "/dev/null" if old is None else f"a/{rel}", "/dev/null" if new is None else f"b/{rel}"
            ):
                # as git does: a last line without a newline is marked, so the diff stays a diff
                chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(chunks)

    def commit(self) -> Changes:
        """Apply every staged change, or none if any path changed in the base since the run first touched it.

        On the local disk the commit goes through the journal
        (``lackpy.host.journal``): crash-consistent, serialized with other
        processes, undone on a failure partway (ConflictError, CommitError).
        Other backends are checked, then written, and put back on a failure.
        """
        done = self.changes()
        changes = [Change(rel, self.staged[rel], self.baseline.get(rel)) for rel in self.pending()]  # what changes nothing is not written
        if isinstance(self.base, LocalFilesystem):
            journal.commit(self.base.root, changes)
        else:
            self._commit_over(self.base, changes)
        self.staged.clear()
        return done

    def _commit_over(self, base: Filesystem, changes: list[Change]) -> None:
        """Check every baseline, then apply; a failure puts back what was applied."""
        for change in changes:
            if self._identity(change.path) != change.baseline:
                raise ConflictError(f"{change.path} changed on disk while the program ran; nothing was written (run the program again)")
        applied: list[tuple[str, bytes | None]] = []
        try:
            for change in changes:
                if change.data is None and change.baseline is None:
                    continue  # made and deleted in one run: nothing to do
                before = base.read_bytes(change.path) if change.baseline is not None else None
                if change.data is None:
                    base.remove(change.path)
                else:
                    base.write(change.path, change.data)
                applied.append((change.path, before))
        except (PathError, OSError) as exc:
            for rel, before in reversed(applied):
                try:
                    base.write(rel, before) if before is not None else base.remove(rel)
                except (PathError, OSError):
                    pass
            raise CommitError(f"could not write the changes: {exc}; nothing was written") from None
