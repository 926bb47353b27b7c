"""The workspace path policy, in one place, in front of the filesystem seam.

Every path a tool receives is anchored at the workspace root: an absolute
path, a ``..`` that climbs out, a symlink whose target lies outside, or a
path matching the ``[tools] deny`` patterns (gitignore rules, see ``denied``)
is refused; so is every change under ``.lackpy/`` (``writable``). The deny
patterns judge the path the kernel resolved (``LocalFilesystem.resolve``),
and every later operation on it refuses a symlink anywhere on the way, so a
directory swapped for a link in between makes the operation fail rather
than reach what the policy never judged. Errors name the path as
the program wrote it. The tools then reach files only through the context's
backend (``lackpy.host.fs``).
"""

from __future__ import annotations

import posixpath
import re
from contextlib import contextmanager
from fnmatch import fnmatchcase
from typing import Iterator, NamedTuple

from lackpy.errors import PathError, ToolError
from lackpy.host.deny import denied
from lackpy.kit.context import ToolContext
from lackpy.host.fs import Filesystem, LocalFilesystem, StagedFilesystem, join_rel, reserved_path

_MAGIC = re.compile(r"[*?\[]")

#: git's directory, which no file tool may change (``writable``).
_GIT = ".git"
#: How much of a file ``is_binary`` looks at, as git and grep do.
BINARY_SNIFF_BYTES = 8192


def filesystem(ctx: ToolContext) -> Filesystem:
    """The context's backend; by default the local disk, staged when the context stages."""
    fs = ctx.fs
    if fs is None:
        fs = LocalFilesystem(ctx.root, tuple(ctx.settings.get("deny") or ()))
        if ctx.staging:
            fs = StagedFilesystem(fs, ctx.max_write_bytes, getattr(ctx, "started_ns", None))
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
    """The context's staged backend (its writes wait for a commit), or None when nothing was staged."""
    fs = ctx.fs
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
    if _refused(ctx, rel, normal):
        raise PathError(f"denied by the workspace policy: {path}")
    return rel


def _refused(ctx: ToolContext, rel: str, written: str) -> bool:
    """Whether the deny patterns cover the path as resolved or as written (a symlink's own name).

    The backend is asked whether the path is a directory only when a
    directory-only pattern (``secrets/``) could decide it.
    """
    patterns = ctx.settings.get("deny")
    if not patterns:
        return False
    names = {rel, written}
    if any(denied(name, patterns) for name in names):
        return True
    if not any(denied(name, patterns, is_dir=True) for name in names):
        return False
    info = filesystem(ctx).stat(rel)
    return info is not None and info.kind == "dir"


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


def is_binary(data: bytes) -> bool:
    """Whether file content is binary for lackpy's tools: a NUL byte in its first 8 KiB.

    Text in encodings other than UTF-8 is not binary by this rule; read_file
    decodes it with U+FFFD in place of the bytes that are not UTF-8.
    """
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def _read(ctx: ToolContext, path: str, max_bytes: int | None = None) -> tuple[str, bytes]:
    """The canonical path and the bytes of a file, not yet recorded as read.

    A plain path (no ``.``, ``..`` or empty part) is judged as written and
    read at once from a backend with ``strict_reads``: that read follows no
    symlink anywhere, so its success proves the path is its own canonical
    form, and the lookup ``resolve`` would make first is saved. A link on
    the way sends the path the long way: resolved, judged again, read.
    """
    fs = filesystem(ctx)
    if getattr(fs, "strict_reads", False) and _plain(path) and not _refused(ctx, path, path):
        try:
            data = fs.read_bytes(path, max_bytes)
            ctx.bytes_read += len(data)
            return path, data
        except PathError as exc:
            if not getattr(exc, "link_on_path", False):
                raise
    rel = resolve(ctx, path)
    with _as_written(rel, path):
        data = fs.read_bytes(rel, max_bytes)
    ctx.bytes_read += len(data)
    return rel, data


def _plain(path: object) -> bool:
    """A non-empty relative path of plain names: no '.', '..', empty part or NUL (so it is its own normal form)."""
    if type(path) is not str or not path or "\x00" in path:
        return False
    framed = f"/{path}/"
    return "//" not in framed and "/./" not in framed and "/../" not in framed


def read_bytes(ctx: ToolContext, path: str, max_bytes: int | None = None) -> bytes:
    """The file's bytes (a run's own writes first); larger than ``max_bytes`` is a PathError."""
    rel, data = _read(ctx, path, max_bytes)
    ctx.note_read(rel)
    return data


def read_text(ctx: ToolContext, path: str) -> str:
    """The file's text; bytes that are not UTF-8 become U+FFFD, and a binary file (``is_binary``) is a ToolError."""
    rel, data = _read(ctx, path)
    if is_binary(data):
        raise ToolError(f"not a text file: {path} is binary ({len(data)} bytes); read_file reads text files only, so skip it")
    ctx.note_read(rel)
    return data.decode("utf-8", errors="replace")


def writable(ctx: ToolContext, path: object) -> str:
    """The canonical path of a file a tool may create, change or delete: never in ``.lackpy/`` nor in any ``.git/``.

    ``.lackpy/`` is lackpy's own: a program that rewrote a kit or the
    config would widen its own powers on the next run; so are the folders
    skills load from (``ctx.protected``, the ``[skills] paths``). ``.git/`` is git's:
    its hooks and config (``core.fsmonitor``, ``core.pager``) run commands,
    outside any sandbox, the next time the person uses git, in the
    workspace or in a repository nested in it (``vendor/x/.git``). Both are judged
    as written and as resolved (any case: on a case-insensitive disk
    ``.GIT`` is ``.git``), so no spelling and no link gets there. The
    backends refuse ``.lackpy/`` again where they act
    (``lackpy.host.fs.reserved_path``). Commands, which need git, are
    confined by Landlock instead and asked about one by one.
    """
    rel = resolve(ctx, path)
    written = posixpath.normpath(path)  # type: ignore[arg-type]
    if reserved_path(rel) or reserved_path(written):
        raise PathError(f"{path} is lackpy's own (.lackpy/ holds its config, kits, templates and commit journal); programs cannot change it")
    if any(part.casefold() == _GIT for part in (*rel.split("/"), *written.split("/"))):
        raise PathError(f"{path} is git's own (.git/ hooks and config run commands when you next use git); programs cannot change it")
    if any(protects(folder, rel) or protects(folder, written) for folder in ctx.protected):
        raise PathError(f"{path} is in a folder lackpy loads skills from ([skills] paths); programs cannot change it")
    return rel


def protects(folder: str, rel: str) -> bool:
    """Whether workspace path ``rel`` is ``folder`` or inside it, compared without case (as ``.lackpy`` is)."""
    folder, rel = folder.casefold(), rel.casefold()
    return rel == folder or rel.startswith(folder + "/")


class Written(NamedTuple):
    """What a write did: the bytes it wrote, and whether they change the file (False: the file already held them)."""

    size: int
    changed: bool


def write_text(ctx: ToolContext, path: str, content: str) -> int:
    """Write a file through the backend (staged during a run); returns the bytes written."""
    return write(ctx, path, content).size


def write(ctx: ToolContext, path: str, content: str) -> Written:
    """Write a file through the backend (staged during a run): its size, and whether it changes the file.

    A staged write that leaves the file as it was (``StagedFilesystem.unchanged``:
    the same computation as the commit's, on the file's baseline) is no change:
    the commit neither asks about it nor writes it.
    """
    rel = writable(ctx, path)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"content for {path} cannot be encoded as UTF-8: {exc.reason} at position {exc.start}") from None
    fs = filesystem(ctx)
    with _as_written(rel, path):
        fs.write(rel, data)
    ctx.bytes_written += len(data)
    changed = not fs.unchanged(rel) if isinstance(fs, StagedFilesystem) else True
    if changed:
        ctx.note_modified(rel)
    return Written(len(data), changed)


def list_dir(ctx: ToolContext, path: str = ".") -> list[dict]:
    """Entries of a workspace directory: name, kind ("file", "dir", "other") and size."""
    rel = resolve(ctx, path)
    with _as_written(rel, path):
        entries = filesystem(ctx).list(rel)
    deny = ctx.settings.get("deny")
    return [
        {"name": e.name, "kind": e.kind, "size": e.size}
        for e in entries
        if not (deny and denied(join_rel(rel, e.name), deny, e.kind == "dir"))
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
    deny = ctx.settings.get("deny")
    found = {
        rel for rel, kind in _match(filesystem(ctx), ".", parts, kinds)
        if not (deny and denied(rel, deny, kind == "dir"))
    }
    return sorted(found)


def _entries(fs: Filesystem, rel: str) -> list:
    try:
        return fs.list(rel, sizes=False)
    except PathError:
        return []


def _match(fs: Filesystem, rel: str, parts: list[str], kinds: frozenset[str]) -> Iterator[tuple[str, str]]:
    """(path, kind) of each entry below ``rel`` matching the pattern segments."""
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
            yield child, entry.kind


def _all_below(fs: Filesystem, rel: str, kinds: frozenset[str]) -> Iterator[tuple[str, str]]:
    for entry in _entries(fs, rel):
        if entry.name[0] == ".":
            continue
        child = join_rel(rel, entry.name)
        if entry.kind == "dir" and not entry.link:
            if "dir" in kinds:
                yield child, entry.kind
            yield from _all_below(fs, child, kinds)
        elif entry.kind in kinds:
            yield child, entry.kind

