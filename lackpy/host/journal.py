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
from typing import Any, Callable, Iterator, Sequence

from lackpy.errors import CommitError, ConflictError

#: Where the journal lives, relative to the workspace; programs cannot write there.
STATE_DIR = ".lackpy/commit"
#: How long a commit (or ``lackpy doctor``) waits for another process's commit to the same workspace.
LOCK_WAIT_S = 30.0
VERSION = 1
#: The record, named for its direction: complete it (``record.json``) or undo it (``undo.json``).
_RECORD, _UNDO, _RECORD_TMP, _IGNORE = "record.json", "undo.json", "record.tmp", ".gitignore"
_NAME = re.compile(r"(new|old)\.[0-9]{6}")
_MAC_CONTEXT = b"lackpy commit record v1\0"
#: link(2) errors that mean "this filesystem (or policy) gives no hard link here": the original is copied instead.
_NO_LINK = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EACCES}
_CHUNK = 1 << 20


# -- content identity -----------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """A file's content identity: its size and the SHA-256 of its bytes.

    Content, not size and mtime: a same-size rewrite with the mtime put back
    is still a change, and a file rewritten with the same bytes is not.
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


def identify(path: str) -> Baseline | None:
    """The content identity of the file at ``path`` now; None when nothing is there.

    The last component is not followed: a symlink is ``OTHER``, as is any
    file that is not regular.
    """
    return _read(path)[0]


def _read(path: str, copy_to: str | None = None) -> tuple[Baseline | None, os.stat_result | None]:
    """Identity and fstat of the file at ``path`` (read in chunks); ``copy_to`` gets a durable copy of its bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return OTHER, None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not _stat.S_ISREG(info.st_mode):
            return OTHER, info
        digest, size = hashlib.sha256(), 0
        out = _create(copy_to, _stat.S_IMODE(info.st_mode)) if copy_to is not None else None
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
    ``stopped`` (nothing done: a conflict, a record that does not verify, an
    error; see ``error_kind`` and ``message``) or ``busy`` (another process
    holds the lock: its commit is alive).
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


# -- the state directory and the lock -------------------------------------------------


def reserved(rel: str) -> bool:
    """Whether a workspace-relative path is the journal's (programs may not write or delete there)."""
    return rel == STATE_DIR or rel.startswith(STATE_DIR + "/")


def pending(root: str | os.PathLike) -> bool:
    """Whether the workspace's journal holds anything (a record, or leftovers): one directory read."""
    try:
        return any(name != _IGNORE for name in os.listdir(os.path.join(root, STATE_DIR)))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # unreadable: let recovery say why


def _state_dir(root: str, create: bool) -> str:
    """The journal's directory, checked to be real directories of this workspace (made when ``create``)."""
    lackpy_dir = os.path.join(root, ".lackpy")
    state = os.path.join(root, STATE_DIR)
    for path, made_in in ((lackpy_dir, root), (state, lackpy_dir)):
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(path, 0o755 if path == lackpy_dir else 0o700)
            except FileExistsError:
                pass
            except OSError as exc:
                raise CommitError(f"could not write the changes: cannot create {_shown(root, path)} for the commit journal ({_reason(exc)}); nothing was written") from None
            if path == state:
                _write_small(os.path.join(state, _IGNORE), b"# lackpy's commit journal: never commit it\n*\n")
            _fsync_dir(made_in)
            info = os.lstat(path)
        if _stat.S_ISLNK(info.st_mode) or not _stat.S_ISDIR(info.st_mode):
            raise CommitError(
                f"could not write the changes: {_shown(root, path)} is not a directory of this workspace "
                f"(lackpy keeps its commit journal only in a real directory there; remove it, or run lackpy doctor --discard); nothing was written"
            )
    return state


@contextmanager
def _locked(root: str, wait: float) -> Iterator[bool]:
    """Hold the workspace's commit lock (``flock`` on ``.lackpy``); yields False if it was busy for ``wait`` seconds.

    flock belongs to the open file, opened close-on-exec: it is released when
    the holder closes it or dies, however it dies, so a lock never goes stale.
    Threads of one process exclude each other too (each opens its own).
    """
    import fcntl

    fd = os.open(os.path.join(root, ".lackpy"), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        deadline, pause = time.monotonic() + wait, 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        yield True
    finally:
        os.close(fd)


# -- the key --------------------------------------------------------------------------


def key_path() -> Path:
    """Where the user's commit key lives: beside the trust record, outside every workspace."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lackpy" / "commit.key"


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
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
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

    Raises ConflictError (a file is no longer its baseline: nothing is
    changed) or CommitError (the disk refused: nothing is changed, or, if
    even the undo failed, the journal keeps the undo for recovery and the
    message says so).
    """
    root = os.path.realpath(root)
    changes = [c for c in changes if c.data is not None or c.baseline is not None]  # made and deleted in one run: nothing to do
    if any(c.data is None and c.baseline is ANY for c in changes):
        raise ValueError("a delete needs a baseline")
    if not changes:
        return
    state = _state_dir(root, create=True)
    pause = _test_pause()
    pause("lock")
    with _locked(root, LOCK_WAIT_S) as got:
        if not got:
            raise CommitError(f"could not write the changes: another lackpy process kept committing to this workspace for {LOCK_WAIT_S:.0f} s; nothing was written")
        _settle(root, state)
        journaled = len(changes) > 1  # one file: its rename is the commit, and a crash leaves only leftovers
        record = _prepare(root, state, changes, _key(create=True) if journaled else None, pause, journaled)
        _apply(root, state, record, pause, journaled)


def _settle(root: str, state: str) -> None:
    """Before a new commit: finish or clear what a dead process left; a journal that cannot be finished stops this commit."""
    if not pending(root):
        return
    report = _recover_locked(root, state, "auto", Report(root))
    if report.stopped:
        error = ConflictError if report.error_kind == "conflict" else CommitError
        raise error(f"{report.message}; this commit wrote nothing")


def _prepare(root: str, state: str, changes: Sequence[Change], key: bytes | None, pause: Callable[[str], None], journaled: bool = True) -> dict:
    """Write every new content and (when ``journaled``) the record into the journal, durably; change nothing of the user's yet."""
    device = os.stat(state).st_dev
    entries: list[dict] = []
    made: list[str] = []
    missing_dirs: set[str] = set()
    parents: set[str] = set()  # checked once each
    try:
        for index, change in enumerate(sorted(changes, key=lambda c: c.path)):
            rel = change.path
            if change.baseline is ANY:
                change = Change(rel, change.data, identify(os.path.join(root, rel)))
            if not _safe_rel(rel):
                raise CommitError(f"could not write the changes: {rel} is not a path lackpy can commit; nothing was written")
            if change.data is None and change.baseline is OTHER:
                raise CommitError(f"could not write the changes: {rel} is not a file, and only files are deleted; nothing was written")
            target = os.path.join(root, rel)
            if posixpath.dirname(rel) not in parents:
                parents.add(posixpath.dirname(rel))
                missing_dirs.update(_parents_to_make(root, rel, device))
            try:
                now: os.stat_result | None = os.lstat(target)
            except (FileNotFoundError, NotADirectoryError):
                now = None
            if (now is None) != (change.baseline is None) or (now is not None and change.baseline is not OTHER and _stat.S_ISREG(now.st_mode) and now.st_size != change.baseline.size):
                raise ConflictError(_changed(rel))  # the cheap early look; the full check is just before the replace
            entry = {"path": rel, "op": "delete" if change.data is None else "write", "old": f"old.{index:06d}",
                     "baseline": change.baseline.to_dict() if change.baseline is not None else None, "new": None}
            if change.data is not None:
                name = f"new.{index:06d}"
                keep = now is not None and _stat.S_ISREG(now.st_mode)
                fd = _create(os.path.join(state, name), 0o600 if keep else 0o666)  # a new file: 0o666 less the umask
                made.append(name)
                try:
                    _write_all(fd, change.data)
                    if keep:
                        os.fchmod(fd, _stat.S_IMODE(now.st_mode))  # a replaced file keeps its permission bits
                finally:
                    os.close(fd)
                entry.update(new=name, **Baseline.of(change.data).to_dict())
            entries.append(entry)
        for name in made:  # written first, synced after: the filesystem can flush them together
            _fsync_path(os.path.join(state, name))
        record = {"version": VERSION, "id": secrets.token_hex(8), "workspace": root, "pid": os.getpid(), "host": socket.gethostname(),
                  "created": time.time(), "dirs": sorted(missing_dirs), "entries": entries}
        pause("prepared")
        if journaled:
            _write_small(os.path.join(state, _RECORD_TMP), _signed(record, key), sync=True)
            os.replace(os.path.join(state, _RECORD_TMP), os.path.join(state, _RECORD))
            _fsync_dir(state)
    except (ConflictError, CommitError):
        _clean(state)
        raise
    except OSError as exc:
        _clean(state)
        raise CommitError(f"could not write the changes: {_reason(exc)} (writing the journal in {STATE_DIR}); nothing was written") from None
    return record


def _apply(root: str, state: str, record: dict, pause: Callable[[str], None], journaled: bool = True) -> None:
    """Replace the files one by one, checking each just before; undo everything on the first failure."""
    done: list[tuple[dict, int | None]] = []
    pause("0")
    try:
        for count, entry in enumerate(record["entries"], 1):
            try:
                done.append((entry, _apply_one(root, state, entry, record["dirs"])))
            except _Late as late:
                done.append((entry, late.placed))  # replaced, then found changed: undone with the others
                raise ConflictError(_changed(entry["path"])) from None
            pause(str(count))
    except (ConflictError, CommitError, OSError) as exc:
        if isinstance(exc, OSError):
            failure: Exception = CommitError(f"could not write the changes: {_reason(exc)}: {getattr(exc, 'lackpy_path', '?')}")
        else:
            failure = exc
        left, broken = _undo(root, state, record, done)
        raise _after_undo(failure, left, broken) from None
    _finish(root, state, record, pause, journaled)


def _apply_one(root: str, state: str, entry: dict, dirs: Sequence[str]) -> int | None:
    """Put one entry in place after checking its baseline; the inode placed (for an undo), or None for a delete."""
    rel = entry["path"]
    target = os.path.join(root, rel)
    old = os.path.join(state, entry["old"])
    baseline = Baseline.from_dict(entry["baseline"])
    try:
        if entry["op"] == "delete":
            now, info = _read(target)
            if now != baseline:
                raise ConflictError(_changed(rel))
            os.rename(target, old)
            moved = os.lstat(old)
            if (moved.st_ino, moved.st_size, moved.st_mtime_ns) != (info.st_ino, info.st_size, info.st_mtime_ns):
                _put_back(old, target)  # replaced or written between the check and the rename: theirs goes back
                raise ConflictError(_changed(rel))
            return None
        new = os.path.join(state, entry["new"])
        placed = os.lstat(new).st_ino
        if baseline is None:
            _make_dirs(root, rel, dirs)
            try:
                os.link(new, target, follow_symlinks=False)  # fails if someone created the path meanwhile: never overwritten
            except FileExistsError:
                raise ConflictError(_changed(rel)) from None
            except OSError as exc:
                if exc.errno not in _NO_LINK:
                    raise
                if os.path.lexists(target):
                    raise ConflictError(_changed(rel)) from None
                os.replace(new, target)
            else:
                os.unlink(new)
            return placed
        linked = _pin(target, old)
        now, info = _read(old if linked else target, copy_to=None if linked else old)
        if now != baseline or os.lstat(target).st_ino != info.st_ino:
            raise ConflictError(_changed(rel))
        os.replace(new, target)
        if linked:
            after = os.lstat(old)
            if (after.st_size, after.st_mtime_ns) != (info.st_size, info.st_mtime_ns):
                # written in place between the check and the rename: the undo puts their file back, write included
                raise _Late(placed)
        return placed
    except OSError as exc:
        exc.lackpy_path = rel  # type: ignore[attr-defined]
        raise


class _Late(Exception):
    """A conflict found after the entry was replaced (an internal signal, never seen outside: it becomes a ConflictError once the entry is undone)."""

    def __init__(self, placed: int) -> None:
        super().__init__("late")
        self.placed = placed


def _pin(target: str, old: str) -> bool:
    """Keep the file about to be replaced as ``old`` (a hard link); False when links are refused (it is copied then)."""
    try:
        os.unlink(old)  # a pin left by a commit that died between pinning and replacing (recovery)
    except FileNotFoundError:
        pass
    try:
        os.link(target, old, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False  # gone: the check that follows says conflict
    except OSError as exc:
        if exc.errno in _NO_LINK:
            return False
        raise


def _undo(root: str, state: str, record: dict, done: list[tuple[dict, int | None]]) -> tuple[list[str], list[str]]:
    """Put back what an apply replaced, newest first. Returns (paths left as someone else made them, paths that failed)."""
    left, broken = [], []
    try:
        os.rename(os.path.join(state, _RECORD), os.path.join(state, _UNDO))  # from now on, recovery undoes
        _fsync_dir(state)
    except OSError:
        pass
    for entry, placed in reversed(done):
        rel = entry["path"]
        target = os.path.join(root, rel)
        old = os.path.join(state, entry["old"])
        try:
            if entry["op"] == "delete":
                if not _put_back(old, target):
                    left.append(rel)
                continue
            now = os.lstat(target) if os.path.lexists(target) else None
            if now is None or now.st_ino != placed:
                left.append(rel)  # no longer what lackpy put there
            elif entry["baseline"] is None:
                os.unlink(target)
            else:
                os.replace(old, target)
        except OSError:
            broken.append(rel)
    _remove_dirs(root, record["dirs"])
    if not broken:
        _fsync_dirs(root, record)
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


def _finish(root: str, state: str, record: dict, pause: Callable[[str], None], journaled: bool = True) -> None:
    """Make the replacements durable, then drop the record and the leftovers.

    Every file is in place by now: if this fails, the record stays, and the
    next use of the workspace finds every file done and removes it. A
    commit without a record (one file) leaves the durability of its rename
    to the filesystem, as a plain atomic write does.
    """
    if journaled:
        try:
            _fsync_dirs(root, record)
            os.unlink(os.path.join(state, _RECORD))
        except OSError:
            return
    pause("finished")
    _clean(state)


# -- recovery -------------------------------------------------------------------------


def recover(root: str | os.PathLike, action: str = "auto", wait: float = 0.0) -> Report:
    """Finish what a commit left in the workspace's journal, as ``action`` says.

    ``auto`` completes a verified record (or undoes one that was undoing)
    unless a file it names was changed by someone else; ``rollback`` puts
    back what a verified record had applied; ``discard`` drops the journal
    and writes nothing (the only action for a record that does not verify).
    ``wait``: how long to wait for the lock (0 at start-up: a busy lock is a
    live commit, not ours to finish).
    """
    if action not in ("auto", "rollback", "discard"):
        raise ValueError(f"unknown recovery action {action!r}")
    root = os.path.realpath(root)
    report = Report(root)
    state = os.path.join(root, STATE_DIR)
    if not os.path.lexists(state):
        report.message = "no unfinished commit"
        return report
    try:
        state = _state_dir(root, create=False)
    except (CommitError, OSError) as exc:
        report.found = True
        if action == "discard":
            _remove_tree(state)
            report.action, report.message = "discarded", f"removed {STATE_DIR}, which was not lackpy's; nothing was written"
            return report
        return _stop(report, "commit", str(exc).replace("could not write the changes: ", "").replace("; nothing was written", ""))
    try:
        with _locked(root, wait) as got:
            if not got:
                report.found, report.action = True, "busy"
                report.message = "another lackpy process is committing to this workspace; its journal is its own"
                return report
            return _recover_locked(root, state, action, report)
    except OSError as exc:
        report.found = True
        return _stop(report, "commit", f"cannot recover the commit journal in {STATE_DIR}: {_reason(exc)}")


def _recover_locked(root: str, state: str, action: str, report: Report) -> Report:
    record_path = os.path.join(state, _RECORD)
    direction = "apply"
    if not os.path.lexists(record_path):
        record_path, direction = os.path.join(state, _UNDO), "rollback"
    if not os.path.lexists(record_path):
        if pending(root):
            report.found = True
            _clean(state)
            report.action, report.message = "cleaned", "removed the leftovers of a commit that had not started writing; no file was changed"
        else:
            report.message = "no unfinished commit"
        return report
    report.found = True
    record, why = _load(root, record_path)
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
        return _roll_back(root, state, record, report)
    return _roll_forward(root, state, record, report)


def _load(root: str, path: str) -> tuple[dict | None, str]:
    """The record, if it verifies and is well formed; else None and why not."""
    try:
        with open(path, "rb") as handle:
            record = json.loads(handle.read(16 << 20))
    except (OSError, ValueError) as exc:
        return None, f"it cannot be read ({exc})"
    if not isinstance(record, dict) or not isinstance(record.get("mac"), str):
        return None, "it is not signed"
    key = _key(create=False)
    if key is None:
        return None, f"this user has no commit key ({key_path()}), so it was not written by this user's lackpy"
    if not hmac.compare_digest(record["mac"], _mac(record, key)):
        return None, "its signature does not match this user's commit key (it was not written by this user's lackpy on this machine)"
    if record.get("workspace") != root:
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


def _roll_forward(root: str, state: str, record: dict, report: Report) -> Report:
    """Complete a durable commit, or do nothing at all if a file it names was changed by someone else."""
    todo = []
    for entry in record["entries"]:
        now = identify(os.path.join(root, entry["path"]))
        if now == _wanted(entry):
            report.already.append(entry["path"])
        elif now == Baseline.from_dict(entry["baseline"]) and (entry["op"] == "delete" or os.path.lexists(os.path.join(state, entry["new"]))):
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
        if entry["op"] == "write" and identify(os.path.join(state, entry["new"])) != _wanted(entry):
            return _stop(report, "commit", f"the journal's copy of {entry['path']} is damaged; nothing was written (lackpy doctor --rollback puts back what it had written)")
    entry = None
    try:
        for entry in todo:
            _apply_one(root, state, entry, record["dirs"])
            report.written.append(entry["path"])
        _finish(root, state, record, lambda point: None)
    except (ConflictError, _Late) as exc:
        if isinstance(exc, _Late):  # theirs goes back; the next look sees the conflict
            os.replace(os.path.join(state, entry["old"]), os.path.join(root, entry["path"]))
        report.conflicts.append(entry["path"])
        return _stop(report, "conflict", f"{entry['path']} changed while lackpy completed an interrupted commit; nothing more was written (run lackpy doctor again)")
    except OSError as exc:
        return _stop(report, "commit", f"could not complete an interrupted commit: {_reason(exc)}: {getattr(exc, 'lackpy_path', '?')} (run lackpy doctor once the cause is fixed)")
    report.action = "completed"
    report.message = f"completed an interrupted commit of {len(report.files)} files ({len(report.written)} written now, {len(report.already)} already done)"
    return report


def _roll_back(root: str, state: str, record: dict, report: Report) -> Report:
    """Put back the baseline of every file that is still what the commit wrote; leave files others changed."""
    broken = []
    for entry in reversed(record["entries"]):
        rel = entry["path"]
        target = os.path.join(root, rel)
        old = os.path.join(state, entry["old"])
        baseline = Baseline.from_dict(entry["baseline"])
        now = identify(target)
        if now == baseline:
            report.already.append(rel)
            continue
        if now != _wanted(entry):
            report.conflicts.append(rel)
            continue
        try:
            if baseline is None:
                os.unlink(target)
            elif identify(old) != baseline:
                report.conflicts.append(rel)  # the original was not kept (or is damaged): nothing to put back
                continue
            elif entry["op"] == "delete":
                if not _put_back(old, target):
                    report.conflicts.append(rel)
                    continue
            else:
                os.replace(old, target)
            report.written.append(rel)
        except OSError as exc:
            broken.append(f"{rel} ({_reason(exc)})")
    _remove_dirs(root, record["dirs"])
    if broken:
        return _stop(report, "commit", f"could not put back {', '.join(broken)}; the undo stays in {STATE_DIR} (run lackpy doctor once the cause is fixed)")
    _fsync_dirs(root, record)
    _drop(state)
    report.action = "rolled_back"
    kept = f"; left as someone else changed them: {', '.join(report.conflicts)}" if report.conflicts else ""
    report.message = f"undid an unfinished commit: put back {len(report.written)} files{kept}"
    if report.conflicts:
        report.error_kind = "conflict"
    return report


def _stop(report: Report, kind: str, message: str) -> Report:
    report.action, report.error_kind, report.message = "stopped", kind, message
    return report


# -- small helpers --------------------------------------------------------------------


def _changed(rel: str) -> str:
    return f"{rel} changed on disk while the program ran; nothing was written (run the program again)"


def _safe_rel(rel: Any) -> bool:
    return (
        isinstance(rel, str) and bool(rel) and "\x00" not in rel and not rel.startswith("/") and rel not in (".", "..")
        and posixpath.normpath(rel) == rel and not rel.startswith("../") and not reserved(rel) and rel != ".lackpy"
    )


def _parents_to_make(root: str, rel: str, device: int) -> list[str]:
    """Directories a write must create, after checking the nearest existing one is a real directory on the journal's filesystem."""
    missing, parent = [], posixpath.dirname(rel)
    while parent:
        path = os.path.join(root, parent)
        if os.path.lexists(path):
            break
        missing.append(parent)
        parent = posixpath.dirname(parent)
    existing = os.path.join(root, parent) if parent else root
    info = os.lstat(existing)
    if _stat.S_ISLNK(info.st_mode) or os.path.realpath(existing) != existing:
        raise ConflictError(f"{rel}: a parent directory changed into a link while the program ran; nothing was written (run the program again)")
    if not _stat.S_ISDIR(info.st_mode):
        raise CommitError(f"could not write the changes: {parent} is not a directory, so {rel} cannot be written; nothing was written")
    if info.st_dev != device:
        raise CommitError(
            f"could not write the changes: {parent or '.'} is on another filesystem than {STATE_DIR}, so {rel} cannot be "
            f"replaced atomically with the rest; nothing was written"
        )
    return missing


def _make_dirs(root: str, rel: str, dirs: Sequence[str]) -> None:
    parent = posixpath.dirname(rel)
    if parent and not os.path.isdir(os.path.join(root, parent)):
        os.makedirs(os.path.join(root, parent), exist_ok=True)


def _remove_dirs(root: str, dirs: Sequence[str]) -> None:
    """Remove the directories a commit created, deepest first, where they are empty."""
    for rel in sorted(dirs, key=lambda d: d.count("/"), reverse=True):
        try:
            os.rmdir(os.path.join(root, rel))
        except OSError:
            pass


def _put_back(old: str, target: str) -> bool:
    """Move ``old`` back to ``target`` unless something is there now (never overwritten); False then."""
    try:
        os.link(old, target, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        if os.path.lexists(target):
            return False
        os.rename(old, target)
        return True
    os.unlink(old)
    return True


def _fsync_dirs(root: str, record: dict) -> None:
    """fsync every directory a commit renamed into or out of, and the parents of those it made."""
    dirs = {os.path.dirname(os.path.join(root, e["path"])) for e in record["entries"]}
    dirs.update(os.path.dirname(os.path.join(root, d)) for d in record["dirs"])
    for path in sorted(dirs):
        _fsync_dir(path)


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _create(path: str, mode: int = 0o600) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_small(path: str, data: bytes, sync: bool = False) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        _write_all(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _clean(state: str) -> None:
    """Remove everything in the journal's directory but its .gitignore (links are removed, never followed)."""
    try:
        names = os.listdir(state)
    except OSError:
        return
    for name in names:
        if name != _IGNORE:
            _remove_tree(os.path.join(state, name))


def _drop(state: str) -> None:
    """Remove the record first (the commit is over), then the rest."""
    for name in (_RECORD, _UNDO):
        try:
            os.unlink(os.path.join(state, name))
        except FileNotFoundError:
            pass
    _clean(state)


def _remove_tree(path: str) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "the filesystem is read-only"
    return (exc.strerror or str(exc)).lower()


def _shown(root: str, path: str) -> str:
    return os.path.relpath(path, root)


def _test_pause() -> Callable[[str], None]:
    """Test-only: ``LACKPY_TEST_COMMIT_PAUSE=POINT[:SECONDS]`` stops a commit at POINT (``lock``: about to
    take the lock, ``prepared``, ``0``..N files replaced, ``finished``) after creating the file ``LACKPY_TEST_COMMIT_MARKER``, so
    tests/tools/test_commit_crash.py can kill lackpy at a known moment. Unset, it does nothing."""
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
