"""The workspace path policy, in one place.

Every path a tool receives is anchored at the workspace root: an absolute path,
a ``..`` that climbs out, or a symlink whose target lies outside is refused
before anything is opened. Errors name the path as the program wrote it.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from fnmatch import fnmatchcase
from typing import Iterator

from lackpy.errors import LimitExceeded, PathError, ToolError
from lackpy.kit.context import ToolContext

_MAGIC = re.compile(r"[*?\[]")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep) or (root == os.sep and path.startswith(os.sep))


def resolve(ctx: ToolContext, path: object) -> str:
    """The real, absolute path for ``path``, or a PathError naming the rule it breaks."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise PathError(f"a path must be a non-empty string, not {path!r}")
    if os.path.isabs(path):
        raise PathError(f"absolute paths are not allowed: {path} (use a path relative to the workspace)")
    root = ctx.root
    joined = os.path.normpath(os.path.join(root, path))
    if not _inside(joined, root):
        raise PathError(f"outside the workspace: {path}")
    real = os.path.realpath(joined)
    if not _inside(real, root):
        raise PathError(f"symlink leads outside the workspace: {path}")
    deny = ctx.settings.get("deny")
    if deny and denied(relative_to(root, real), deny):
        raise PathError(f"denied by the workspace policy: {path}")
    return real


def denied(rel: str, patterns) -> bool:
    """Whether a workspace-relative path matches one of the deny globs (``.git/**``)."""
    segments = rel.split("/")
    for pattern in patterns:
        parts = [p for p in pattern.split("/") if p not in ("", ".")]
        if parts and parts[-1] == "**":
            parts = parts[:-1]  # ".git/**" denies the directory itself too
        if parts and (_matches(parts, segments) or _matches(parts + ["**"], segments)):
            return True
    return False


def relative(ctx: ToolContext, real: str) -> str:
    """The workspace-relative, '/'-separated form of a resolved path."""
    return relative_to(ctx.root, real)


def relative_to(root: str, real: str) -> str:
    if real.startswith(root + os.sep):  # resolved paths are inside the root: slice, no relpath
        rel = real[len(root) + 1 :]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")
    return os.path.relpath(real, root).replace(os.sep, "/")


def _os_error(path: str, exc: OSError) -> PathError:
    if isinstance(exc, FileNotFoundError):
        return PathError(f"no such file: {path}")
    if isinstance(exc, IsADirectoryError):
        return PathError(f"is a directory, not a file: {path}")
    if isinstance(exc, NotADirectoryError):
        return PathError(f"a parent of {path} is not a directory")
    if isinstance(exc, PermissionError):
        return PathError(f"permission denied: {path}")
    return PathError(f"cannot access {path}: {exc.strerror or exc}")


def read_text(ctx: ToolContext, path: str) -> str:
    """The file's text; bytes that are not UTF-8 become U+FFFD."""
    return read_bytes(ctx, path).decode("utf-8", errors="replace")


def fingerprint(real: str) -> tuple | None:
    """How a file looks on disk now (None: it does not exist), to detect changes."""
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)


def read_bytes(ctx: ToolContext, path: str, max_bytes: int | None = None) -> bytes:
    """The file's bytes (staged content first); larger than ``max_bytes`` is a PathError."""
    real = resolve(ctx, path)
    if ctx.staging and real in ctx.staged:  # read-your-writes
        data = ctx.staged[real]
        if data is None:
            raise PathError(f"no such file: {path}")
        ctx.note_read(relative(ctx, real))
        return data
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(path)
            raise PathError(f"not a regular file: {path}")
        if max_bytes is not None and info.st_size > max_bytes:
            raise PathError(f"larger than {max_bytes} bytes: {path}")
        with open(real, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise _os_error(path, exc) from None
    if ctx.staging and real not in ctx.baseline:
        ctx.baseline[real] = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode)
    ctx.note_read(relative(ctx, real))
    return data


def write_text(ctx: ToolContext, path: str, content: str) -> int:
    """Write a file: staged in the context during a run, else replaced atomically on disk."""
    real = resolve(ctx, path)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"content for {path} cannot be encoded as UTF-8: {exc.reason} at position {exc.start}") from None
    if os.path.isdir(real):
        raise PathError(f"is a directory, not a file: {path}")
    if ctx.staging:
        if real not in ctx.baseline:
            ctx.baseline[real] = fingerprint(real)
        previous = ctx.staged.get(real)
        ctx.staged_bytes += len(data) - (len(previous) if previous else 0)
        if ctx.staged_bytes > ctx.max_write_bytes:
            raise LimitExceeded("max_write_bytes", ctx.max_write_bytes, f"the program wrote more than {ctx.max_write_bytes} bytes")
        ctx.staged[real] = data
    else:
        try:
            atomic_write(ctx.root, real, data)
        except OSError as exc:
            raise _os_error(path, exc) from None
    ctx.note_modified(relative(ctx, real))
    return len(data)


def atomic_write(root: str, real: str, data: bytes) -> None:
    """Replace ``real`` atomically: a new temp file in the same directory, fsync, rename.

    The temp file is created exclusively under a random name (``mkstemp``), so
    a planted file or symlink of a guessable name is never written through.
    The directory is checked again, so a symlink swapped in meanwhile is refused.
    """
    directory = os.path.dirname(real)
    os.makedirs(directory, exist_ok=True)
    if not _inside(os.path.realpath(directory), root):
        raise PathError(f"symlink leads outside the workspace: {relative_to(root, real)}")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".lackpy-tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        mode = stat.S_IMODE(os.stat(real).st_mode) if os.path.exists(real) else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def glob(ctx: ToolContext, pattern: object, kinds: frozenset[str] = frozenset({"file"})) -> list[str]:
    """Workspace-relative files matching a glob; ``**`` spans directories.

    As in the shell, wildcards do not match names starting with '.', so hidden
    directories such as .git are skipped unless the pattern names them.
    Symlinks are listed only when their target is inside the workspace, and
    symlinked directories are not descended into.
    """
    if not isinstance(pattern, str) or not pattern or "\x00" in pattern:
        raise PathError(f"a pattern must be a non-empty string, not {pattern!r}")
    if os.path.isabs(pattern):
        raise PathError(f"absolute paths are not allowed: {pattern} (use a pattern relative to the workspace)")
    parts = []
    for part in pattern.replace(os.sep, "/").split("/"):
        if part not in ("", ".") and not (part == "**" and parts and parts[-1] == "**"):
            parts.append(part)  # "**/**" matches what "**" matches, at a far higher cost
    if ".." in parts:
        raise PathError(f"outside the workspace: {pattern}")
    if not parts:  # "." names the workspace itself, which is not a file
        return []
    found: set[str] = set()
    for rel in _match(ctx.root, "", parts, kinds):
        full = os.path.join(ctx.root, rel)
        if os.path.islink(full) and not _inside(os.path.realpath(full), ctx.root):
            continue
        found.add(rel)
    for real, data in ctx.staged.items():  # the run sees its own writes
        rel = relative(ctx, real)
        if data is None:
            found.discard(rel)
        elif "file" in kinds and _matches(parts, rel.split("/")):
            found.add(rel)
    deny = ctx.settings.get("deny")
    if deny:
        found = {rel for rel in found if not denied(rel, deny)}
    return sorted(found)


def list_dir(ctx: ToolContext, path: str = ".") -> list[dict]:
    """Entries of a workspace directory: name, kind ("file", "dir", "link", "other") and size."""
    real = resolve(ctx, path)
    entries: dict[str, dict] = {}
    try:
        with os.scandir(real) as it:
            for entry in it:
                try:
                    if entry.is_symlink():
                        target = os.path.realpath(entry.path)
                        if not _inside(target, ctx.root):
                            continue  # nothing outside the workspace is listed
                    info = entry.stat()
                except OSError:
                    continue
                kind = "dir" if stat.S_ISDIR(info.st_mode) else "file" if stat.S_ISREG(info.st_mode) else "other"
                entries[entry.name] = {"name": entry.name, "kind": kind, "size": info.st_size if kind == "file" else 0}
    except NotADirectoryError:
        raise PathError(f"not a directory: {path}") from None
    except FileNotFoundError:
        if not any(os.path.dirname(staged) == real for staged in ctx.staged):
            raise PathError(f"no such directory: {path}") from None
    except OSError as exc:
        raise _os_error(path, exc) from None
    for staged, data in ctx.staged.items():  # the run sees its own writes
        if os.path.dirname(staged) == real:
            name = os.path.basename(staged)
            if data is None:
                entries.pop(name, None)
            else:
                entries[name] = {"name": name, "kind": "file", "size": len(data)}
    deny = ctx.settings.get("deny")
    base = relative(ctx, real)
    return [
        entries[name]
        for name in sorted(entries)
        if not (deny and denied(name if base == "." else f"{base}/{name}", deny))
    ]


def _matches(parts: list[str], segments: list[str]) -> bool:
    """Whether a relative path matches the glob segments, with glob's rules."""
    if not parts:
        return not segments
    head = parts[0]
    if head == "**":
        if len(parts) == 1:
            return bool(segments) and all(s[0] != "." for s in segments)
        return _matches(parts[1:], segments) or (
            len(segments) > 1 and segments[0][0] != "." and _matches(parts, segments[1:])
        )
    if not segments:
        return False
    name = segments[0]
    if _MAGIC.search(head):
        ok = name[0] != "." and fnmatchcase(name, head)
    else:
        ok = name == head
    return ok and _matches(parts[1:], segments[1:])


def _entries(root: str, rel: str) -> list[os.DirEntry]:
    try:
        with os.scandir(os.path.join(root, rel) if rel else root) as it:
            return list(it)
    except OSError:
        return []


def _match(root: str, rel: str, parts: list[str], kinds: frozenset[str]) -> Iterator[str]:
    head, rest = parts[0], parts[1:]
    if head == "**":
        if rest:
            yield from _match(root, rel, rest, kinds)
        else:
            yield from _all_below(root, rel, kinds)
            return
        for entry in _entries(root, rel):
            if entry.name[0] != "." and entry.is_dir(follow_symlinks=False):
                yield from _match(root, _join(rel, entry.name), parts, kinds)
        return
    if _MAGIC.search(head):
        candidates = [e for e in _entries(root, rel) if e.name[0] != "." and fnmatchcase(e.name, head)]
    else:
        full = os.path.join(root, rel, head)
        if not os.path.lexists(full):
            return
        candidates = [e for e in _entries(root, rel) if e.name == head]
    for entry in candidates:
        child = _join(rel, entry.name)
        if rest:
            if entry.is_dir(follow_symlinks=False):
                yield from _match(root, child, rest, kinds)
        elif _kind(entry) in kinds:
            yield child


def _all_below(root: str, rel: str, kinds: frozenset[str]) -> Iterator[str]:
    for entry in _entries(root, rel):
        if entry.name[0] == ".":
            continue
        child = _join(rel, entry.name)
        if entry.is_dir(follow_symlinks=False):
            if "dir" in kinds:
                yield child
            yield from _all_below(root, child, kinds)
        elif entry.is_file() and "file" in kinds:
            yield child


def _kind(entry: os.DirEntry) -> str:
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    return "file" if entry.is_file() else "other"


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name
