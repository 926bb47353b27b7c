"""The workspace path policy, in one place, in front of the filesystem seam.

Every path a tool receives is anchored at the workspace root: an absolute
path, a ``..`` that climbs out, a symlink whose target lies outside, or a
path matching the configured deny globs is refused before the backend is
asked for anything. Errors name the path as the program wrote it. The tools
then reach files only through the context's backend (``lackpy.tools.fs``).
"""

from __future__ import annotations

import posixpath
import re
from contextlib import contextmanager
from fnmatch import fnmatchcase
from typing import Iterator

from lackpy.errors import PathError, ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools.fs import Filesystem, LocalFilesystem, StagedFilesystem, join_rel

_MAGIC = re.compile(r"[*?\[]")


def filesystem(ctx: ToolContext) -> Filesystem:
    """The context's backend; by default the local disk, staged when the context stages."""
    fs = ctx.fs
    if fs is None:
        fs = LocalFilesystem(ctx.root)
        if ctx.staging:
            fs = StagedFilesystem(fs, ctx.max_write_bytes)
        ctx.fs = fs
    return fs


@contextmanager
def _as_written(rel: str, path: str) -> Iterator[None]:
    """Backend errors name the canonical path; programs see the path they wrote."""
    try:
        yield
    except PathError as exc:
        raise PathError(str(exc).replace(rel, path)) from None


def staged(ctx: ToolContext) -> StagedFilesystem | None:
    """The context's staged backend (its writes wait for a commit), or None."""
    fs = filesystem(ctx)
    return fs if isinstance(fs, StagedFilesystem) else None


def resolve(ctx: ToolContext, path: object) -> str:
    """The canonical workspace-relative path for ``path``, or a PathError naming the rule it breaks."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise PathError(f"a path must be a non-empty string, not {path!r}")
    if path.startswith("/"):
        raise PathError(f"absolute paths are not allowed: {path} (use a path relative to the workspace)")
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        raise PathError(f"outside the workspace: {path}")
    with _as_written(normal, path):
        rel = filesystem(ctx).resolve(normal)
    deny = ctx.settings.get("deny")
    if deny and denied(rel, deny):
        raise PathError(f"denied by the workspace policy: {path}")
    return rel


def os_directory(ctx: ToolContext, path: object) -> str:
    """The real directory for a command's working directory (the local backend only)."""
    rel = resolve(ctx, path)
    fs = filesystem(ctx)
    info = fs.stat(rel)
    if info is None:
        raise PathError(f"no such directory: {path}")
    if info.kind != "dir":
        raise PathError(f"not a directory: {path}")
    os_path = getattr(fs, "os_path", None)
    if os_path is None:
        raise ToolError("commands need a workspace on disk; this one is not")
    return os_path(rel)


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


def read_bytes(ctx: ToolContext, path: str, max_bytes: int | None = None) -> bytes:
    """The file's bytes (a run's own writes first); larger than ``max_bytes`` is a PathError."""
    rel = resolve(ctx, path)
    with _as_written(rel, path):
        data = filesystem(ctx).read_bytes(rel, max_bytes)
    ctx.note_read(rel)
    return data


def read_text(ctx: ToolContext, path: str) -> str:
    """The file's text; bytes that are not UTF-8 become U+FFFD."""
    rel = resolve(ctx, path)
    with _as_written(rel, path):
        text = filesystem(ctx).read_text(rel)
    ctx.note_read(rel)
    return text


def write_text(ctx: ToolContext, path: str, content: str) -> int:
    """Write a file through the backend (staged during a run); returns the bytes written."""
    rel = resolve(ctx, path)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"content for {path} cannot be encoded as UTF-8: {exc.reason} at position {exc.start}") from None
    with _as_written(rel, path):
        filesystem(ctx).write(rel, data)
    ctx.note_modified(rel)
    return len(data)


def list_dir(ctx: ToolContext, path: str = ".") -> list[dict]:
    """Entries of a workspace directory: name, kind ("file", "dir", "other") and size."""
    rel = resolve(ctx, path)
    with _as_written(rel, path):
        entries = filesystem(ctx).list(rel)
    deny = ctx.settings.get("deny")
    return [
        {"name": e.name, "kind": e.kind, "size": e.size}
        for e in entries
        if not (deny and denied(e.name if rel == "." else f"{rel}/{e.name}", deny))
    ]


def glob(ctx: ToolContext, pattern: object, kinds: frozenset[str] = frozenset({"file"})) -> list[str]:
    """Workspace-relative paths matching a glob; ``**`` spans directories.

    As in the shell, wildcards do not match names starting with '.', so hidden
    directories such as .git are skipped unless the pattern names them.
    Symlinked directories are not descended into.
    """
    if not isinstance(pattern, str) or not pattern or "\x00" in pattern:
        raise PathError(f"a pattern must be a non-empty string, not {pattern!r}")
    if pattern.startswith("/"):
        raise PathError(f"absolute paths are not allowed: {pattern} (use a pattern relative to the workspace)")
    parts: list[str] = []
    for part in pattern.split("/"):
        if part not in ("", ".") and not (part == "**" and parts and parts[-1] == "**"):
            parts.append(part)  # "**/**" matches what "**" matches, at a far higher cost
    if ".." in parts:
        raise PathError(f"outside the workspace: {pattern}")
    if not parts:  # "." names the workspace itself, which is not a file
        return []
    fs = filesystem(ctx)
    found = set(_match(fs, ".", parts, kinds))
    deny = ctx.settings.get("deny")
    if deny:
        found = {rel for rel in found if not denied(rel, deny)}
    return sorted(found)


def _entries(fs: Filesystem, rel: str) -> list:
    try:
        return fs.list(rel)
    except PathError:
        return []


def _match(fs: Filesystem, rel: str, parts: list[str], kinds: frozenset[str]) -> Iterator[str]:
    head, rest = parts[0], parts[1:]
    if head == "**":
        if rest:
            yield from _match(fs, rel, rest, kinds)
        else:
            yield from _all_below(fs, rel, kinds)
            return
        for entry in _entries(fs, rel):
            if entry.name[0] != "." and entry.kind == "dir" and not entry.link:
                yield from _match(fs, join_rel(rel, entry.name), parts, kinds)
        return
    if _MAGIC.search(head):
        candidates = [e for e in _entries(fs, rel) if e.name[0] != "." and fnmatchcase(e.name, head)]
    else:
        candidates = [e for e in _entries(fs, rel) if e.name == head]
    for entry in candidates:
        child = join_rel(rel, entry.name)
        if rest:
            if entry.kind == "dir" and not entry.link:
                yield from _match(fs, child, rest, kinds)
        elif entry.kind in kinds:
            yield child


def _all_below(fs: Filesystem, rel: str, kinds: frozenset[str]) -> Iterator[str]:
    for entry in _entries(fs, rel):
        if entry.name[0] == ".":
            continue
        child = join_rel(rel, entry.name)
        if entry.kind == "dir" and not entry.link:
            if "dir" in kinds:
                yield child
            yield from _all_below(fs, child, kinds)
        elif entry.kind in kinds:
            yield child


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
