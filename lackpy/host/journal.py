"""The commit journal: a run's writes reach the disk all or none, even if lackpy dies midway.

Each file used to be replaced atomically (temp file beside it, fsync,
rename), but a program's set of files was not: a process killed while
replacing 200 files left a mix of old and new, and a temp file among the
user's. The commit is now done as databases and package managers do it,
with a write-ahead record in the workspace's ``.lackpy/commit/``:

1. **prepare**, under the workspace's commit lock: every new content goes to
   a file in ``.lackpy/commit/`` (never beside the user's files), all of them
   fsynced; then the record (``record.json``: each path, its baseline, the
   hash of its new content, an HMAC), fsynced with its directory. Once
   ``record.json`` exists the commit is durable: whatever happens next,
   recovery can complete it.
2. **apply**: each file is checked against its baseline immediately before
   it is replaced (a change since the run first touched it is a conflict,
   and what was already replaced is put back), its original kept as a hard
   link in ``.lackpy/commit/`` for that undo, then the new content is
   renamed into place (the same filesystem, so the rename is atomic). A
   create links the new file in (refused if someone created the path
   meanwhile); a delete renames the file into ``.lackpy/commit/``.
3. **finish**: the directories touched are fsynced, the record removed, the
   leftovers deleted.

A commit of one file writes no record: its one rename is the commit, so a
crash can leave only leftovers in ``.lackpy/commit/`` (cleaned later), and it
costs one fsync, as a plain atomic write does.

A commit that fails while applying (permission denied, a full disk, a late
conflict) first renames ``record.json`` to ``undo.json`` (a rename needs no
space: the record's name is its direction), then puts back what it replaced,
then removes the record: a crash in the middle of that undo is finished by
recovery as an undo, never completed.

**Recovery** (``recover``) runs, under the same lock, on the next use of the
workspace by any entry point (the service's load, so the CLI and the MCP
server; every commit, before its own). A record is acted on only if it
verifies: its HMAC is keyed by a secret in the user's config directory
(``$XDG_CONFIG_HOME/lackpy/commit.key``, made on the first commit, mode 0600)
and covers the workspace's real path, so a cloned repository cannot ship a
journal that makes lackpy write files, nor can a journal be moved to another
workspace. A record that does not verify is reported and never applied;
``lackpy doctor --discard`` removes it. A verified record to apply is
completed (roll forward: every new content is durable) when every file it
names is still either its baseline or its new content; where one was changed
by someone else, nothing at all is done and the conflict is reported, naming
the files, until ``lackpy doctor --rollback`` (put back what the commit had
replaced, leaving the changed files as they are) or ``--discard``. A record
to undo is undone, leaving files someone else changed as they are.
Only the direction is not signed (the record's name): renaming it turns a
completion into an undo, which writes only what lackpy itself recorded. If
the key cannot be made (a read-only config directory), records go unsigned:
commits work, and a crash leaves a record recovery reports and never applies.

What "changed" means: a path's content identity (``Baseline``: size and
SHA-256; absent counts) from when the run first touched it, compared just
before the file is replaced; the replaced file is kept (hard link) until the
commit ends, so an in-place write landing between that check and the rename
is seen after it and undoes the commit, the write intact. A create is linked
in, which fails if the path exists. Left open: a rename over the file in the
microseconds between the check and lackpy's rename, and a writer that holds
the file open and writes after it was replaced (as with any atomic save).

Serialization: the lock is ``flock`` on the workspace's ``.lackpy``
directory itself, so there is no lock file to go stale: the kernel releases
the lock when its holder dies, and the next process takes it.

**Where it acts.** Nothing here joins the root and a path and acts by name:
a process that swaps a directory for a symlink between a check and the act
would send the write wherever the link points. The root is opened once, the
journal as ``.lackpy/commit`` beneath it with no symlink, and each
directory a change names is opened beneath the root with no symlink
anywhere on its path (``beneath.open_beneath(..., follow=False)``: the
paths lackpy commits are canonical, so a link found there appeared since,
and is a conflict with nothing written). Every rename, link, unlink, stat,
open, mkdir and fsync then acts on a name in one of those descriptors
(``dir_fd=``), so what was checked is what is used. Missing directories are
made one at a time, each opened the same way before the next. Prepare and
apply each open the directories afresh (a link that appeared in between is
seen); the undo acts in the very directories the apply used.

**Special files.** A cloned repository can ship anything in
``.lackpy/commit/``: a record that is a FIFO, a symlink to ``/dev/stdin``,
a directory, a huge file. The record is read with ``beneath.read_regular``
(a regular file only, ``O_NONBLOCK``, bounded, no link followed), the
journal's directory is listed and emptied through its descriptor (links
removed, never followed), so such a journal is reported (``stopped``, and by
``lackpy doctor``) and never applied, and no lackpy command hangs at start.
No file of a commit is opened for writing without ``O_EXCL``.
"""


from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import posixpath
import re
import secrets
import shutil
import socket
import stat as _stat
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from lackpy.errors import CommitError, ConflictError, PathError
from lackpy.host import beneath
from lackpy.host.places import LACKPY_DIR, user_dir  # LACKPY_DIR: lackpy's own files in a workspace; no program may write anywhere in it

#: Where a rollback keeps the originals of files it could not put back (``.lackpy/recovered/<commit id>/``).
_RECOVERED = "recovered"
#: Where the journal lives, relative to the workspace.
STATE_DIR = ".lackpy/commit"
_STATE_NAME = "commit"
#: How long a commit (or ``lackpy doctor``) waits for another process's commit to the same workspace.
LOCK_WAIT_S = 30.0
VERSION = 1
#: The record, named for its direction: complete it (``record.json``) or undo it (``undo.json``).
_RECORD, _UNDO, _RECORD_TMP, _IGNORE = "record.json", "undo.json", "record.tmp", ".gitignore"
#: The largest record lackpy reads (200 files take about 60 KB).
_MAX_RECORD = 16 << 20
_NAME = re.compile(r"(new|old)\.[0-9]{6}")
_MAC_CONTEXT = b"lackpy commit record v1\0"
#: link(2) errors that mean "this filesystem (or policy) gives no hard link here": the original is copied instead.
_NO_LINK = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EACCES}
#: What ``open_beneath(..., follow=False)`` says when a symlink is on the path (or the path leads out).
_LINKED = {errno.ELOOP, errno.EXDEV}
_CHUNK = 1 << 20
#: A directory, opened to act in it (never blocking: a FIFO is refused with ENOTDIR before it is opened).
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


# -- content identity -----------------------------------------------------------------


class Baseline(NamedTuple):
    """A file's content identity: its size and the SHA-256 of its bytes.

    Content, not size and mtime: a same-size rewrite with the mtime put back
    is still a change, and a file rewritten with the same bytes is not. (A
    tuple: every file a run reads gets one, and a tuple is made fastest.)
    """

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> "Baseline":
        return cls(len(data), hashlib.sha256(data).hexdigest())

    def to_dict(self) -> dict:
        return {"size": self.size, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: Any) -> "Baseline | None":
        if data is None:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("size"), int) or not isinstance(data.get("sha256"), str):
            raise ValueError("a malformed baseline")
        return cls(data["size"], data["sha256"])


#: What a path that is not a regular file (a directory, a link, a fifo) looks like: equal to no content.
OTHER = Baseline(-1, "not a regular file")
#: The baseline of a direct (unstaged) write: whatever is there when the commit takes the lock (last writer wins).
ANY = Baseline(-2, "whatever is there")
#: The baseline of a file someone changed or created after the run began, before the program first touched it: never matches.
CHANGED = Baseline(-3, "changed after the run began")


@dataclass(frozen=True)
class Change:
    """One path of a commit: ``data`` to write (None deletes) and its ``baseline`` (None: it was absent; ``ANY``: no check)."""

    path: str
    data: bytes | None
    baseline: Baseline | None


def identify(root: str | os.PathLike | int, rel: str) -> Baseline | None:
    """The content identity of the workspace file ``rel`` now; None when nothing is there.

    ``root``: the workspace (its path, or a descriptor of its directory).
    ``rel`` is resolved beneath it with no symlink anywhere on the path: a
    symlink (final or not) is ``OTHER``, as is any file that is not regular.
    """
    with _Tree(root if isinstance(root, int) else os.path.realpath(root)) as tree:
        return _identify(tree, rel)


def _identify(tree: "_Tree", rel: str) -> Baseline | None:
    parent, name = posixpath.split(rel)
    try:
        parent_fd = tree.dir(parent)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in _LINKED:
            return OTHER
        raise
    return _read(parent_fd, name)[0]


def _read(dir_fd: int, name: str, copy_to: tuple[int, str] | None = None) -> tuple[Baseline | None, os.stat_result | None]:
    """Identity and fstat of the file ``name`` in ``dir_fd`` (read in chunks, never following a link, never blocking).

    ``copy_to`` (a directory descriptor and a new name in it) gets a durable copy of its bytes.
    """
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=dir_fd)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            return OTHER, None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not _stat.S_ISREG(info.st_mode):
            return OTHER, info
        digest, size = hashlib.sha256(), 0
        out = _create(copy_to[0], copy_to[1], _stat.S_IMODE(info.st_mode)) if copy_to is not None else None
        try:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
                if out is not None:
                    _write_all(out, chunk)
            if out is not None:
                os.fchmod(out, _stat.S_IMODE(info.st_mode))
                os.fsync(out)
        finally:
            if out is not None:
                os.close(out)
    return Baseline(size, digest.hexdigest()), info


# -- reports --------------------------------------------------------------------------


@dataclass
class Report:
    """What recovery found in a workspace's journal and what it did.

    ``action``: ``none`` (nothing there), ``cleaned`` (leftovers of a commit
    that never reached its record, removed), ``completed`` (rolled forward),
    ``rolled_back``, ``discarded`` (the record dropped, nothing written),
    ``stopped`` (nothing done: a conflict, a record that does not verify or
    is not a regular file, an error; see ``error_kind`` and ``message``) or
    ``busy`` (another process holds the lock: its commit is alive).
    """

    workspace: str
    action: str = "none"
    found: bool = False
    verified: bool | None = None
    state: str | None = None
    files: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    error_kind: str | None = None
    message: str = ""

    @property
    def stopped(self) -> bool:
        return self.action == "stopped"

    def to_dict(self) -> dict:
        return asdict(self)


# -- the workspace's descriptors ------------------------------------------------------


class _Tree:
    """The descriptors one commit (or one recovery) acts through: the root, ``.lackpy``, the journal, and directories.

    The root is opened once; ``journal()`` opens ``.lackpy`` and
    ``.lackpy/commit`` beneath it, each a real directory (no symlink); ``dir()``
    opens a workspace directory beneath the root with no symlink anywhere on
    its path, once, and keeps it until ``forget()``. Every operation on a
    workspace file then names one component in one of these descriptors.
    """

    def __init__(self, root: str | os.PathLike | int) -> None:
        """``root``: the workspace's real path (opened here, no final link followed), or a descriptor of it (not closed here)."""
        self.owned = not isinstance(root, int)
        self.root_path = os.fspath(root) if self.owned else ""  # type: ignore[arg-type]
        self.root_fd = beneath.open_dir(self.root_path) if self.owned else root  # type: ignore[assignment]
        self.lackpy_fd = self.state_fd = -1
        self._dirs: dict[str, int] = {}

    def journal(self, create: bool) -> None:
        """Open ``.lackpy`` and ``.lackpy/commit`` (made when ``create``, with the journal's .gitignore).

        FileNotFoundError when one is missing and not ``create``; ``_NotOurs``
        when one is a symlink or not a directory.
        """
        self.lackpy_fd, _ = _own_dir(self.root_fd, LACKPY_DIR, LACKPY_DIR, 0o755, create)
        self.state_fd, made = _own_dir(self.lackpy_fd, _STATE_NAME, STATE_DIR, 0o700, create)
        if made:
            try:
                _write_new(self.state_fd, _IGNORE, b"# lackpy's commit journal: never commit it\n*\n")
            except FileExistsError:
                pass  # another process made the directory at the same moment, and wrote it

    def dir(self, rel_dir: str) -> int:
        """The workspace directory ``rel_dir`` (``""``: the root), resolved with no symlink on its path; OSError as ``open_beneath``."""
        if not rel_dir:
            return self.root_fd
        fd = self._dirs.get(rel_dir)
        if fd is None:
            fd = self._dirs[rel_dir] = beneath.open_beneath(self.root_fd, rel_dir, _DIR, follow=False)
        return fd

    def make(self, rel_dir: str) -> int:
        """``dir(rel_dir)``, making what is missing one component at a time, each opened with no link before the next."""
        try:
            return self.dir(rel_dir)
        except FileNotFoundError:
            pass
        up, name = posixpath.split(rel_dir)
        up_fd = self.make(up)
        try:
            os.mkdir(name, 0o777, dir_fd=up_fd)
        except FileExistsError:
            pass  # made meanwhile: the open below says whether it is a directory or a link
        fd = self._dirs[rel_dir] = beneath.open_beneath(up_fd, name, _DIR, follow=False)
        return fd

    def forget(self) -> None:
        """Close the workspace directories opened so far: the next ``dir()`` resolves each again."""
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()

    def close(self) -> None:
        self.forget()
        for fd in (self.state_fd, self.lackpy_fd):
            if fd >= 0:
                os.close(fd)
        self.lackpy_fd = self.state_fd = -1
        if self.owned:
            os.close(self.root_fd)

    def __enter__(self) -> "_Tree":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _NotOurs(Exception):
    """``.lackpy`` or ``.lackpy/commit`` is a symlink or not a directory: no journal of lackpy's is there.

    An internal signal, as ``_Late`` is: a commit turns it into the CommitError ``message()`` says.
    """

    def __init__(self, shown: str) -> None:
        super().__init__(shown)
        self.shown = shown

    def message(self) -> str:
        return (
            f"could not write the changes: {self.shown} is not a directory of this workspace (lackpy keeps its commit journal "
            f"only in a real directory there; remove it{', or run lackpy doctor --discard' if self.shown == STATE_DIR else ''}); nothing was written"
        )


def _own_dir(parent_fd: int, name: str, shown: str, mode: int, create: bool) -> tuple[int, bool]:
    """The real directory ``name`` in ``parent_fd`` (made when ``create``) and whether it was made now."""
    made = False
    while True:
        try:
            return beneath.open_beneath(parent_fd, name, _DIR, follow=False), made
        except FileNotFoundError:
            if not create or made:
                raise
        except OSError as exc:
            if exc.errno in _LINKED or exc.errno == errno.ENOTDIR:
                raise _NotOurs(shown) from None
            raise
        try:
            os.mkdir(name, mode, dir_fd=parent_fd)
            made = True
        except FileExistsError:
            made = True  # someone else's, made at the same moment: opened (and checked) like any
            continue
        except OSError as exc:
            raise CommitError(f"could not write the changes: cannot create {shown} for the commit journal ({_reason(exc)}); nothing was written") from None
        _fsync_fd(parent_fd)


# -- the journal's directory and the lock ---------------------------------------------


def reserved(rel: str) -> bool:
    """Whether a workspace-relative path is ``.lackpy`` or inside it: lackpy's own, which no program may write or delete.

    Compared without case: on a case-insensitive filesystem ``.LACKPY`` is the same directory.
    """
    return posixpath.normpath(rel).lstrip("/").split("/", 1)[0].casefold() == LACKPY_DIR


def pending(root: str | os.PathLike) -> bool:
    """Whether the workspace's journal holds anything (a record, leftovers, or something that is not lackpy's).

    A few syscalls, none that follows a link or blocks: a ``.lackpy/commit``
    that is a link or a FIFO counts (recovery says what it is); a ``.lackpy``
    that is a link holds no journal of lackpy's (commits refuse it).
    """
    try:
        tree = _Tree(os.path.realpath(root))
    except OSError:
        return False
    with tree:
        try:
            tree.journal(create=False)
        except FileNotFoundError:
            return False
        except _NotOurs as exc:
            return exc.shown == STATE_DIR
        except OSError:
            return True  # unreadable: let recovery say why
        return _holds_anything(tree.state_fd)


def _holds_anything(state_fd: int) -> bool:
    try:
        return any(name != _IGNORE for name in os.listdir(state_fd))
    except OSError:
        return True


@contextmanager
def _locked(tree: _Tree, wait: float) -> Iterator[bool]:
    """Hold the workspace's commit lock (``flock`` on ``.lackpy``); yields False if it was busy for ``wait`` seconds.

    flock belongs to the open file, which this commit opened close-on-exec:
    it is released when the holder closes it or dies, however it dies, so a
    lock never goes stale. Threads of one process exclude each other too
    (each opens its own).
    """
    import fcntl

    deadline, pause = time.monotonic() + wait, 0.002
    while True:
        try:
            fcntl.flock(tree.lackpy_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                yield False
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    try:
        yield True
    finally:
        fcntl.flock(tree.lackpy_fd, fcntl.LOCK_UN)


# -- the key --------------------------------------------------------------------------


def key_path() -> Path:
    """Where the user's commit key lives: beside the trust record, outside every workspace."""
    return user_dir() / "commit.key"


def _key(create: bool) -> bytes | None:
    """The user's secret for signing commit records; made on first use when ``create``. None if there is none."""
    path = key_path()
    for _ in range(2):
        try:
            text = path.read_text(encoding="ascii").strip()
            key = bytes.fromhex(text)
            return key if len(key) >= 32 else None
        except FileNotFoundError:
            if not create:
                return None
        except (OSError, ValueError):
            return None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, _NEW, 0o600)
        except FileExistsError:
            continue  # another process made it first: read theirs
        except OSError:
            return None
        try:
            _write_all(fd, secrets.token_hex(32).encode("ascii") + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
    return None


def _mac(record: dict, key: bytes) -> str:
    payload = json.dumps({k: v for k, v in record.items() if k != "mac"}, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, _MAC_CONTEXT + payload.encode("ascii"), hashlib.sha256).hexdigest()


def _signed(record: dict, key: bytes | None) -> bytes:
    record = dict(record, mac=_mac(record, key) if key is not None else None)
    return json.dumps(record, sort_keys=True, indent=1).encode("utf-8") + b"\n"


# -- commit ---------------------------------------------------------------------------


def commit(root: str | os.PathLike, changes: Sequence[Change]) -> None:
    """Apply ``changes`` to the workspace at ``root``, all or none, crash-consistently.

    ``changes`` name canonical workspace-relative paths (no symlink on
    them: a link found there now is a conflict). Raises ConflictError (a
    file is no longer its baseline, or a directory became a link: nothing
    is changed) or CommitError (the disk refused: nothing is changed, or, if
    even the undo failed, the journal keeps the undo for recovery and the
    message says so).
    """
    root = os.path.realpath(root)
    changes = [c for c in changes if c.data is not None or c.baseline is not None]  # made and deleted in one run: nothing to do
    if any(c.data is None and c.baseline is ANY for c in changes):
        raise ValueError("a delete needs a baseline")
    if not changes:
        return
    pause = _test_pause()
    try:
        tree = _Tree(root)
    except OSError as exc:
        raise CommitError(f"could not write the changes: cannot open the workspace {root} ({_reason(exc)}); nothing was written") from None
    with tree:
        try:
            tree.journal(create=True)
        except _NotOurs as exc:
            raise CommitError(exc.message()) from None
        pause("lock")
        with _locked(tree, LOCK_WAIT_S) as got:
            if not got:
                raise CommitError(f"could not write the changes: another lackpy process kept committing to this workspace for {LOCK_WAIT_S:.0f} s; nothing was written")
            _settle(tree)
            journaled = len(changes) > 1  # one file: its rename is the commit, and a crash leaves only leftovers
            record = _prepare(tree, changes, _key(create=True) if journaled else None, pause, journaled)
            tree.forget()  # the apply resolves every directory again: a link that appeared since prepare is seen
            _apply(tree, record, pause, journaled)


def _settle(tree: _Tree) -> None:
    """Before a new commit: finish or clear what a dead process left; a journal that cannot be finished stops this commit."""
    if not _holds_anything(tree.state_fd):
        return
    report = _recover_locked(tree, "auto", Report(tree.root_path))
    tree.forget()
    if report.stopped:
        error = ConflictError if report.error_kind == "conflict" else CommitError
        raise error(f"{report.message}; this commit wrote nothing")


def _prepare(tree: _Tree, changes: Sequence[Change], key: bytes | None, pause: Callable[[str], None], journaled: bool = True) -> dict:
    """Write every new content and (when ``journaled``) the record into the journal, durably; change nothing of the user's yet."""
    state = tree.state_fd
    device = os.fstat(state).st_dev
    entries: list[dict] = []
    made: list[str] = []
    missing_dirs: set[str] = set()
    checked: set[str] = set()
    try:
        for index, change in enumerate(sorted(changes, key=lambda c: c.path)):
            rel = change.path
            if not _safe_rel(rel):
                raise CommitError(f"could not write the changes: {rel} is not a path lackpy can commit; nothing was written")
            parent, name = posixpath.split(rel)
            if parent not in checked:  # each directory checked once
                checked.add(parent)
                missing_dirs.update(_parents_to_make(tree, rel, device))
            if change.baseline is ANY:
                change = Change(rel, change.data, _identify(tree, rel))
            if change.data is None and change.baseline is OTHER:
                raise CommitError(f"could not write the changes: {rel} is not a file, and only files are deleted; nothing was written")
            now = None if parent in missing_dirs else _lstat(tree.dir(parent), name)
            if (now is None) != (change.baseline is None) or (now is not None and change.baseline is not OTHER and _stat.S_ISREG(now.st_mode) and now.st_size != change.baseline.size):
                raise ConflictError(_changed(rel))  # the cheap early look; the full check is just before the replace
            entry = {"path": rel, "op": "delete" if change.data is None else "write", "old": f"old.{index:06d}",
                     "baseline": change.baseline.to_dict() if change.baseline is not None else None, "new": None}
            if change.data is not None:
                new = f"new.{index:06d}"
                keep = now is not None and _stat.S_ISREG(now.st_mode)
                fd = _create(state, new, 0o600 if keep else 0o666)  # a new file: 0o666 less the umask
                made.append(new)
                try:
                    _write_all(fd, change.data)
                    if keep:
                        os.fchmod(fd, _stat.S_IMODE(now.st_mode))  # a replaced file keeps its permission bits
                finally:
                    os.close(fd)
                entry.update(new=new, **Baseline.of(change.data).to_dict())
            entries.append(entry)
        for new in made:  # written first, synced after: the filesystem can flush them together
            _fsync_at(state, new)
        record = {"version": VERSION, "id": secrets.token_hex(8), "workspace": tree.root_path, "pid": os.getpid(), "host": socket.gethostname(),
                  "created": time.time(), "dirs": sorted(missing_dirs), "entries": entries}
        pause("prepared")
        if journaled:
            _remove_entry(state, _RECORD_TMP)
            _write_new(state, _RECORD_TMP, _signed(record, key), sync=True)
            os.replace(_RECORD_TMP, _RECORD, src_dir_fd=state, dst_dir_fd=state)
            _fsync_fd(state)
    except (ConflictError, CommitError):
        _clean(state)
        raise
    except OSError as exc:
        _clean(state)
        raise CommitError(f"could not write the changes: {_reason(exc)} (writing the journal in {STATE_DIR}); nothing was written") from None
    return record


def _parents_to_make(tree: _Tree, rel: str, device: int) -> list[str]:
    """Directories a write to ``rel`` must create; the nearest existing one checked to be a directory on the journal's filesystem.

    A symlink anywhere on the way is a conflict: the path was canonical
    when the program named it, so someone made the link since.
    """
    missing, parent = [], posixpath.dirname(rel)
    while True:
        try:
            fd = tree.dir(parent)
            break
        except FileNotFoundError:
            missing.append(parent)
            parent = posixpath.dirname(parent)
        except NotADirectoryError:
            raise CommitError(f"could not write the changes: {parent} is not a directory, so {rel} cannot be written; nothing was written") from None
        except OSError as exc:
            if exc.errno in _LINKED:
                raise ConflictError(_linked(rel)) from None
            raise
    if os.fstat(fd).st_dev != device:
        raise CommitError(
            f"could not write the changes: {parent or '.'} is on another filesystem than {STATE_DIR}, so {rel} cannot be "
            f"replaced atomically with the rest; nothing was written"
        )
    return missing


def _apply(tree: _Tree, record: dict, pause: Callable[[str], None], journaled: bool = True) -> None:
    """Replace the files one by one, checking each just before; undo everything on the first failure."""
    done: list[tuple[dict, int | None]] = []
    pause("0")
    try:
        for count, entry in enumerate(record["entries"], 1):
            try:
                done.append((entry, _apply_one(tree, entry)))
            except _Late as late:
                done.append((entry, late.placed))  # replaced, then found changed: undone with the others
                raise ConflictError(_changed(entry["path"])) from None
            pause(str(count))
    except (ConflictError, CommitError, OSError) as exc:
        if isinstance(exc, OSError):
            failure: Exception = CommitError(f"could not write the changes: {_reason(exc)}: {getattr(exc, 'lackpy_path', '?')}")
        else:
            failure = exc
        left, broken = _undo(tree, record, done)
        raise _after_undo(failure, left, broken) from None
    _finish(tree, record, pause, journaled)


def _apply_one(tree: _Tree, entry: dict) -> int | None:
    """Put one entry in place after checking its baseline; the inode placed (for an undo), or None for a delete."""
    rel, state, old = entry["path"], tree.state_fd, entry["old"]
    baseline = Baseline.from_dict(entry["baseline"])
    try:
        if entry["op"] == "delete":
            where, name = _where(tree, rel)
            now, info = _read(where, name)
            if now != baseline or info is None:
                raise ConflictError(_changed(rel))
            os.rename(name, old, src_dir_fd=where, dst_dir_fd=state)
            moved = os.stat(old, dir_fd=state, follow_symlinks=False)
            if (moved.st_ino, moved.st_size, moved.st_mtime_ns) != (info.st_ino, info.st_size, info.st_mtime_ns):
                _put_back(state, old, where, name)  # replaced or written between the check and the rename: theirs goes back
                raise ConflictError(_changed(rel))
            return None
        new = entry["new"]
        placed = os.stat(new, dir_fd=state, follow_symlinks=False).st_ino
        if baseline is None:
            where, name = _where(tree, rel, make=True)
            try:
                os.link(new, name, src_dir_fd=state, dst_dir_fd=where, follow_symlinks=False)  # fails if someone created the path meanwhile
            except FileExistsError:
                raise ConflictError(_changed(rel)) from None
            except OSError as exc:
                if exc.errno not in _NO_LINK:
                    raise
                if _lstat(where, name) is not None:
                    raise ConflictError(_changed(rel)) from None
                os.replace(new, name, src_dir_fd=state, dst_dir_fd=where)
            else:
                os.unlink(new, dir_fd=state)
            return placed
        where, name = _where(tree, rel)
        linked = _pin(state, old, where, name)
        now, info = _read(state, old) if linked else _read(where, name, copy_to=(state, old))
        if now != baseline or info is None or getattr(_lstat(where, name), "st_ino", None) != info.st_ino:
            raise ConflictError(_changed(rel))
        os.replace(new, name, src_dir_fd=state, dst_dir_fd=where)
        if linked:
            after = os.stat(old, dir_fd=state, follow_symlinks=False)
            if (after.st_size, after.st_mtime_ns) != (info.st_size, info.st_mtime_ns):
                # written in place between the check and the rename: the undo puts their file back, write included
                raise _Late(placed)
        return placed
    except OSError as exc:
        exc.lackpy_path = rel  # type: ignore[attr-defined]
        raise


def _where(tree: _Tree, rel: str, make: bool = False) -> tuple[int, str]:
    """The descriptor of ``rel``'s directory and its name there; a directory gone, or become a link or a file, is a conflict."""
    parent, name = posixpath.split(rel)
    try:
        return (tree.make(parent) if make else tree.dir(parent)), name
    except OSError as exc:
        if exc.errno in _LINKED:
            raise ConflictError(_linked(rel)) from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise ConflictError(_changed(rel)) from None
        raise


class _Late(Exception):
    """A conflict found after the entry was replaced (an internal signal, never seen outside: it becomes a ConflictError once the entry is undone)."""

    def __init__(self, placed: int) -> None:
        super().__init__("late")
        self.placed = placed


def _pin(state: int, old: str, where: int, name: str) -> bool:
    """Keep the file about to be replaced as ``old`` in the journal (a hard link); False when links are refused (it is copied then)."""
    try:
        os.unlink(old, dir_fd=state)  # a pin left by a commit that died between pinning and replacing (recovery)
    except FileNotFoundError:
        pass
    try:
        os.link(name, old, src_dir_fd=where, dst_dir_fd=state, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False  # gone: the check that follows says conflict
    except OSError as exc:
        if exc.errno in _NO_LINK:
            return False
        raise


def _undo(tree: _Tree, record: dict, done: list[tuple[dict, int | None]]) -> tuple[list[str], list[str]]:
    """Put back what an apply replaced, newest first, in the directories it used. Returns (paths left as someone else made them, paths that failed)."""
    state = tree.state_fd
    left, broken = [], []
    try:
        os.rename(_RECORD, _UNDO, src_dir_fd=state, dst_dir_fd=state)  # from now on, recovery undoes
        _fsync_fd(state)
    except OSError:
        pass
    for entry, placed in reversed(done):
        rel, old = entry["path"], entry["old"]
        try:
            where, name = _where(tree, rel)  # the descriptor the apply used, kept
            if entry["op"] == "delete":
                if not _put_back(state, old, where, name):
                    left.append(rel)
                continue
            now = _lstat(where, name)
            if now is None or now.st_ino != placed:
                left.append(rel)  # no longer what lackpy put there
            elif entry["baseline"] is None:
                os.unlink(name, dir_fd=where)
            else:
                os.replace(old, name, src_dir_fd=state, dst_dir_fd=where)
        except (OSError, ConflictError):
            broken.append(rel)
    _remove_dirs(tree, record["dirs"])
    if not broken:
        _fsync_dirs(tree, record)
        _drop(state)
    return left, broken


def _after_undo(failure: Exception, left: list[str], broken: list[str]) -> Exception:
    """The error a failed commit reports, once its undo is done (or not)."""
    message = str(failure)
    if broken:
        return CommitError(
            f"{message}; lackpy could not put back {', '.join(broken)} (the rest was), and keeps the undo in {STATE_DIR}: "
            f"run lackpy doctor once the cause is fixed"
        )
    if left:
        message += f" ({', '.join(left)} changed again meanwhile and were left as they are)"
    if "nothing was written" not in message:
        message += "; nothing was written"
    return type(failure)(message)


def _finish(tree: _Tree, record: dict, pause: Callable[[str], None], journaled: bool = True) -> None:
    """Make the replacements durable, then drop the record and the leftovers.

    Every file is in place by now: if this fails, the record stays, and the
    next use of the workspace finds every file done and removes it. A
    commit without a record (one file) leaves the durability of its rename
    to the filesystem, as a plain atomic write does.
    """
    if journaled:
        try:
            _fsync_dirs(tree, record)
            os.unlink(_RECORD, dir_fd=tree.state_fd)
        except OSError:
            return
    pause("finished")
    _clean(tree.state_fd)


# -- recovery -------------------------------------------------------------------------


def recover_at_start(root: str | os.PathLike) -> tuple[Report | None, str | None]:
    """Finish a commit an earlier lackpy process left unfinished in ``root``, before anything reads the workspace.

    Returns the report when recovery did something (or stopped), and the
    notice that says so. No trust is needed: recovery acts only on a record
    this user's lackpy signed for this workspace. A stopped journal also
    stops the next commit here, until ``lackpy doctor`` resolves it. One
    directory read when there is nothing; a recovery that breaks must not
    take every command down with it, so its failure is said, not raised.
    """
    if not pending(root):
        return None, None
    try:
        report = recover(root)
    except Exception as exc:
        return None, f"commit: lackpy could not check the unfinished commit in {STATE_DIR}: {type(exc).__name__}: {exc}; run lackpy doctor"
    if report.action in ("none", "busy", "cleaned"):
        return None, None
    return report, f"{report.error_kind}: {report.message}" if report.stopped else f"lackpy {report.message}"


def recover(root: str | os.PathLike, action: str = "auto", wait: float = 0.0) -> Report:
    """Finish what a commit left in the workspace's journal, as ``action`` says.

    ``auto`` completes a verified record (or undoes one that was undoing)
    unless a file it names was changed by someone else; ``rollback`` puts
    back what a verified record had applied; ``discard`` drops the journal
    and writes nothing (the only action for a record that does not verify,
    or is not a regular file). ``wait``: how long to wait for the lock (0 at
    start-up: a busy lock is a live commit, not ours to finish).
    """
    if action not in ("auto", "rollback", "discard"):
        raise ValueError(f"unknown recovery action {action!r}")
    root = os.path.realpath(root)
    report = Report(root)
    report.message = "no unfinished commit"
    try:
        tree = _Tree(root)
    except OSError:
        return report  # no workspace there: no journal either
    with tree:
        try:
            tree.journal(create=False)
        except FileNotFoundError:
            return report
        except _NotOurs as exc:
            if exc.shown == LACKPY_DIR:
                report.message = f"no unfinished commit ({LACKPY_DIR} is not a directory of this workspace, so it holds no journal of lackpy's)"
                return report
            return _not_a_journal(tree, action, report)
        except OSError as exc:
            report.found = True
            return _stop(report, "commit", f"cannot recover the commit journal in {STATE_DIR}: {_reason(exc)}")
        try:
            with _locked(tree, wait) as got:
                if not got:
                    report.found, report.action = True, "busy"
                    report.message = "another lackpy process is committing to this workspace; its journal is its own"
                    return report
                return _recover_locked(tree, action, report)
        except OSError as exc:
            report.found = True
            return _stop(report, "commit", f"cannot recover the commit journal in {STATE_DIR}: {_reason(exc)}")


def _not_a_journal(tree: _Tree, action: str, report: Report) -> Report:
    """``.lackpy/commit`` is a link, a file or a FIFO: reported; ``discard`` removes that one entry (a link, never what it points to)."""
    report.found = True
    if action == "discard":
        _remove_entry(tree.lackpy_fd, _STATE_NAME)
        report.action, report.message = "discarded", f"removed {STATE_DIR}, which was not lackpy's; nothing was written"
        return report
    message = _NotOurs(STATE_DIR).message().replace("could not write the changes: ", "").replace("; nothing was written", "")
    return _stop(report, "commit", f"{message}; nothing was written")


def _recover_locked(tree: _Tree, action: str, report: Report) -> Report:
    state = tree.state_fd
    name, direction = _RECORD, "apply"
    if _lstat(state, name) is None:
        name, direction = _UNDO, "rollback"
    if _lstat(state, name) is None:
        if _holds_anything(state):
            report.found = True
            _clean(state)
            report.action, report.message = "cleaned", "removed the leftovers of a commit that had not started writing; no file was changed"
        return report
    report.found = True
    record, why = _load(tree, name)
    report.verified = record is not None
    if record is None:
        if action == "discard":
            _drop(state)
            report.action, report.message = "discarded", "dropped a commit record lackpy could not verify; nothing was written"
            return report
        return _stop(
            report, "commit",
            f"found a commit record in {STATE_DIR} that lackpy will not apply: {why}; nothing was written "
            f"(if it is yours, the files it names may be half-committed: check them, then run lackpy doctor --discard)",
        )
    record["state"] = report.state = direction
    report.files = [e["path"] for e in record["entries"]]
    if action == "discard":
        _drop(state)
        report.action, report.message = "discarded", "dropped the unfinished commit; nothing more was written (the files it had already replaced stay as they are)"
        return report
    if record["state"] == "rollback" or action == "rollback":
        return _roll_back(tree, record, report)
    return _roll_forward(tree, record, report)


def _load(tree: _Tree, name: str) -> tuple[dict | None, str]:
    """The record, if it is a regular file that verifies and is well formed; else None and why not (one line)."""
    try:
        data = beneath.read_regular(tree.state_fd, name, _MAX_RECORD, follow=False, what=f"{STATE_DIR}/{name}")
        record = json.loads(data)
    except PathError as exc:
        return None, str(exc)
    except (OSError, ValueError, RecursionError) as exc:
        return None, f"it cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
    if not isinstance(record, dict) or not isinstance(record.get("mac"), str):
        return None, "it is not signed"
    key = _key(create=False)
    if key is None:
        return None, f"this user has no commit key ({key_path()}), so it was not written by this user's lackpy"
    if not hmac.compare_digest(record["mac"], _mac(record, key)):
        return None, "its signature does not match this user's commit key (it was not written by this user's lackpy on this machine)"
    if record.get("workspace") != tree.root_path:
        return None, f"it was written for another workspace ({record.get('workspace')})"
    try:
        if record.get("version") != VERSION:
            raise ValueError("an unknown version")
        for entry in record["entries"]:
            if not _safe_rel(entry["path"]) or entry["op"] not in ("write", "delete") or not _NAME.fullmatch(entry["old"]):
                raise ValueError(f"a bad entry {entry!r:.80}")
            Baseline.from_dict(entry["baseline"])
            if entry["op"] == "write" and (not _NAME.fullmatch(entry["new"] or "") or not isinstance(entry["sha256"], str) or not isinstance(entry["size"], int)):
                raise ValueError(f"a bad entry {entry!r:.80}")
        if not all(isinstance(d, str) and _safe_rel(d) for d in record["dirs"]):
            raise ValueError("a bad directory")
    except (KeyError, TypeError, ValueError) as exc:
        return None, f"it is malformed ({exc})"
    return record, ""


def _wanted(entry: dict) -> Baseline | None:
    return Baseline(entry["size"], entry["sha256"]) if entry["op"] == "write" else None


def _roll_forward(tree: _Tree, record: dict, report: Report) -> Report:
    """Complete a durable commit, or do nothing at all if a file it names was changed by someone else."""
    state = tree.state_fd
    todo = []
    for entry in record["entries"]:
        now = _identify(tree, entry["path"])
        if now == _wanted(entry):
            report.already.append(entry["path"])
        elif now == Baseline.from_dict(entry["baseline"]) and (entry["op"] == "delete" or _lstat(state, entry["new"]) is not None):
            todo.append(entry)
        else:
            report.conflicts.append(entry["path"])
    if report.conflicts:
        return _stop(
            report, "conflict",
            f"an interrupted commit was not completed: {', '.join(report.conflicts)} changed on disk since it began, and lackpy does not "
            f"overwrite them; nothing was written (run lackpy doctor to see it, lackpy doctor --rollback to put back the "
            f"{len(report.already)} files it had already written, or lackpy doctor --discard to leave everything as it is)",
        )
    for entry in todo:
        if entry["op"] == "write" and _read(state, entry["new"])[0] != _wanted(entry):
            return _stop(report, "commit", f"the journal's copy of {entry['path']} is damaged; nothing was written (lackpy doctor --rollback puts back what it had written)")
    entry = None
    try:
        for entry in todo:
            _apply_one(tree, entry)
            report.written.append(entry["path"])
        _finish(tree, record, lambda point: None)
    except (ConflictError, _Late) as exc:
        if isinstance(exc, _Late):  # theirs goes back; the next look sees the conflict
            where, name = _where(tree, entry["path"])
            os.replace(entry["old"], name, src_dir_fd=state, dst_dir_fd=where)
        report.conflicts.append(entry["path"])
        return _stop(report, "conflict", f"{entry['path']} changed while lackpy completed an interrupted commit; nothing more was written (run lackpy doctor again)")
    except OSError as exc:
        return _stop(report, "commit", f"could not complete an interrupted commit: {_reason(exc)}: {getattr(exc, 'lackpy_path', '?')} (run lackpy doctor once the cause is fixed)")
    report.action = "completed"
    report.message = f"completed an interrupted commit of {len(report.files)} files ({len(report.written)} written now, {len(report.already)} already done)"
    return report


def _roll_back(tree: _Tree, record: dict, report: Report) -> Report:
    """Put back the baseline of every file that is still what the commit wrote; leave files others changed."""
    state = tree.state_fd
    broken = []
    for entry in reversed(record["entries"]):
        rel, old = entry["path"], entry["old"]
        baseline = Baseline.from_dict(entry["baseline"])
        now = _identify(tree, rel)
        if now == baseline:
            report.already.append(rel)
            continue
        if now != _wanted(entry):
            report.conflicts.append(rel)
            continue
        try:
            where, name = _where(tree, rel)
            if baseline is None:
                os.unlink(name, dir_fd=where)
            elif _read(state, old)[0] != baseline:
                report.conflicts.append(rel)  # the original was not kept (or is damaged): nothing to put back
                continue
            elif entry["op"] == "delete":
                if not _put_back(state, old, where, name):
                    report.conflicts.append(rel)
                    continue
            else:
                os.replace(old, name, src_dir_fd=state, dst_dir_fd=where)
            report.written.append(rel)
        except ConflictError:
            report.conflicts.append(rel)
        except OSError as exc:
            broken.append(f"{rel} ({_reason(exc)})")
    _remove_dirs(tree, record["dirs"])
    if broken:
        return _stop(report, "commit", f"could not put back {', '.join(broken)}; the undo stays in {STATE_DIR} (run lackpy doctor once the cause is fixed)")
    _fsync_dirs(tree, record)
    saved = _save_originals(tree, record, report.conflicts)
    _drop(state)
    report.action = "rolled_back"
    kept = f"; left as someone else changed them: {', '.join(report.conflicts)}" if report.conflicts else ""
    if saved:
        kept += f" (their contents from before the commit are in {saved})"
    report.message = f"undid an unfinished commit: put back {len(report.written)} files{kept}"
    if report.conflicts:
        report.error_kind = "conflict"
    return report


def _save_originals(tree: _Tree, record: dict, conflicts: Sequence[str]) -> str | None:
    """Move the journal's copies of files that could not be put back to ``.lackpy/recovered/<id>/``; where, or None.

    A file someone changed after the commit replaced (or deleted) it is left
    as they made it, but its content from before the commit is still in the
    journal: dropping the journal would lose it for good. Each copy is named
    by its path with ``/`` as ``%2F``.
    """
    wanted = {rel for rel in conflicts}
    copies = [
        e for e in record["entries"]
        if e["path"] in wanted and e["baseline"] is not None and _read(tree.state_fd, e["old"])[0] == Baseline.from_dict(e["baseline"])
    ]
    if not copies:
        return None
    where = f"{LACKPY_DIR}/{_RECOVERED}/{record['id']}"
    try:
        keep_fd, _ = _own_dir(tree.lackpy_fd, _RECOVERED, f"{LACKPY_DIR}/{_RECOVERED}", 0o700, True)
        try:
            own_fd, _ = _own_dir(keep_fd, record["id"], where, 0o700, True)
        finally:
            os.close(keep_fd)
        try:
            for entry in copies:
                os.rename(entry["old"], entry["path"].replace("%", "%25").replace("/", "%2F"), src_dir_fd=tree.state_fd, dst_dir_fd=own_fd)
            _fsync_fd(own_fd)
        finally:
            os.close(own_fd)
    except (OSError, _NotOurs, CommitError):
        return None
    return where


def _stop(report: Report, kind: str, message: str) -> Report:
    report.action, report.error_kind, report.message = "stopped", kind, message
    return report


# -- small helpers --------------------------------------------------------------------


def _changed(rel: str) -> str:
    return f"{rel} changed on disk while the program ran; nothing was written (run the program again)"


def _linked(rel: str) -> str:
    return f"{rel}: a parent directory changed into a link while the program ran; nothing was written (run the program again)"


def _safe_rel(rel: Any) -> bool:
    """Whether ``rel`` is a path a record may name: canonical, relative, and not lackpy's own (``.lackpy`` and below)."""
    return (
        isinstance(rel, str) and bool(rel) and "\x00" not in rel and not rel.startswith("/") and rel not in (".", "..")
        and posixpath.normpath(rel) == rel and not rel.startswith("../") and not reserved(rel)
    )


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    """``lstat`` of ``name`` in ``dir_fd``; None when nothing is there."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _remove_dirs(tree: _Tree, dirs: Sequence[str]) -> None:
    """Remove the directories a commit created, deepest first, where they are empty."""
    for rel in sorted(dirs, key=lambda d: d.count("/"), reverse=True):
        parent, name = posixpath.split(rel)
        try:
            os.rmdir(name, dir_fd=tree.dir(parent))
        except OSError:
            pass


def _put_back(state: int, old: str, where: int, name: str) -> bool:
    """Move ``old`` from the journal back to ``name`` in ``where`` unless something is there now (never overwritten); False then."""
    try:
        os.link(old, name, src_dir_fd=state, dst_dir_fd=where, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        if _lstat(where, name) is not None:
            return False
        os.rename(old, name, src_dir_fd=state, dst_dir_fd=where)
        return True
    os.unlink(old, dir_fd=state)
    return True


def _fsync_dirs(tree: _Tree, record: dict) -> None:
    """fsync every directory a commit renamed into or out of, and the parents of those it made."""
    dirs = {posixpath.dirname(e["path"]) for e in record["entries"]}
    dirs.update(posixpath.dirname(d) for d in record["dirs"])
    for rel in sorted(dirs):
        try:
            fd = tree.dir(rel)
        except OSError:
            continue
        _fsync_fd(fd)


def _fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise


def _fsync_at(dir_fd: int, name: str) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _create(dir_fd: int, name: str, mode: int = 0o600) -> int:
    """A new file ``name`` in ``dir_fd``, open for writing: never one that was there (``O_EXCL``), so never a FIFO or a link."""
    return os.open(name, _NEW, mode, dir_fd=dir_fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_new(dir_fd: int, name: str, data: bytes, sync: bool = False) -> None:
    fd = _create(dir_fd, name)
    try:
        _write_all(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _clean(state: int) -> None:
    """Remove everything in the journal's directory but its .gitignore (links are removed, never followed)."""
    try:
        names = os.listdir(state)
    except OSError:
        return
    for name in names:
        if name != _IGNORE:
            try:
                _remove_entry(state, name)
            except OSError:
                pass


def _drop(state: int) -> None:
    """Remove the record first (the commit is over), then the rest."""
    for name in (_RECORD, _UNDO):
        _remove_entry(state, name)
    _clean(state)


def _remove_entry(dir_fd: int, name: str) -> None:
    """Remove ``name`` from ``dir_fd``, whatever it is: a link or a FIFO is unlinked, never followed; a directory goes whole."""
    info = _lstat(dir_fd, name)
    if info is None:
        return
    if _stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)  # descriptor-relative, never following a link inside
    else:
        os.unlink(name, dir_fd=dir_fd)


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "the filesystem is read-only"
    return (exc.strerror or str(exc)).lower()


def _test_pause() -> Callable[[str], None]:
    """Test-only: ``LACKPY_TEST_COMMIT_PAUSE=POINT[:SECONDS]`` stops a commit at POINT (``lock``: about to
    take the lock, ``prepared``, ``0``..N files replaced, ``finished``) after creating the file ``LACKPY_TEST_COMMIT_MARKER``, so
    tests/host/test_commit_crash.py can kill lackpy at a known moment. Unset, it does nothing."""
    wanted = os.environ.get("LACKPY_TEST_COMMIT_PAUSE")
    if not wanted:
        return lambda point: None
    name, _, seconds = wanted.partition(":")
    marker = os.environ.get("LACKPY_TEST_COMMIT_MARKER")

    def pause(point: str) -> None:
        if point == name:
            if marker:
                open(marker, "w").close()
            time.sleep(float(seconds or 60))

    return pause
