"""``.kit`` files: YAML frontmatter between ``---`` lines, then one tool per line.

::

    ---
    name: filesystem
    description: Read, write, and search files
    docs: docs/kits/filesystem.md
    ---
    read_file     # comments and blank lines are ignored
    find_files

Kits are looked up in the workspace's ``.lackpy/kits/`` first, then in the
kits shipped inside the package; the workspace wins. ``docs`` names a file
that belongs to the kit: beside the kit file (relative to its folder) or
beneath ``docs/kits`` (``lackpy.kit.docplace`` has the rule, checked when the
kit is resolved).
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from lackpy.errors import KitError, KitFileError, LackpyError, UnknownKitError, closest
from lackpy.host.ownfiles import MAX_FILE_BYTES, STATE_DIR, exists, listed, open_state, read_own, write_own
from lackpy.kit.frontmatter import split_frontmatter

PACKAGE_KITS = Path(__file__).resolve().parent.parent / "kits"
KNOWN_KEYS = ("name", "description", "docs", "limits")
KIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: Kit names longer than this are refused before any file is looked up.
MAX_KIT_NAME = 100
SUFFIX = ".kit"
#: The most bytes of a kit file lackpy reads (1 MiB); a larger one is refused.
MAX_KIT_BYTES = MAX_FILE_BYTES


@dataclass
class KitFile:
    """A parsed ``.kit`` file; ``extra`` keeps frontmatter keys lackpy does not use."""

    name: str
    tools: list[str]
    description: str = ""
    docs: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] | None = None
    path: Path | None = None
    lines: dict[str, int] = field(default_factory=dict)


def parse_kit(text: str, path: Path | None = None, default_name: str = "") -> KitFile:
    where = str(path) if path else "kit"
    meta, body, first = split_frontmatter(text, where, KitFileError)
    meta = meta or {}
    for key in ("name", "description", "docs"):
        if key in meta and meta[key] is not None and not isinstance(meta[key], str):
            raise KitFileError(f"{where}: frontmatter '{key}' must be a string")
    if meta.get("limits") is not None and not isinstance(meta["limits"], dict):
        raise KitFileError(f"{where}: frontmatter 'limits' must be 'name: value' lines, e.g. timeout_s: 5")
    tools: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(body.splitlines(), start=first):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not line.isidentifier():
            raise KitFileError(f"{where}, line {number}: '{line}' is not a tool name; write one tool name per line")
        if line in seen:
            raise KitFileError(f"{where}, line {number}: tool '{line}' is listed twice (first on line {seen[line]})")
        seen[line] = number
        tools.append(line)
    return KitFile(
        name=meta.get("name") or default_name,
        tools=tools,
        description=meta.get("description") or "",
        docs=meta.get("docs"),
        extra={k: v for k, v in meta.items() if k not in KNOWN_KEYS},
        limits=meta.get("limits"),
        path=path,
        lines=seen,
    )


def read_kit(path: Path) -> KitFile:
    """Parse the kit file at ``path``; a file unchanged since the last read is not parsed again.

    The file is read as lackpy reads its own files (``lackpy.host.ownfiles``):
    beneath its kits directory (a workspace's ``.lackpy/kits`` resolved
    beneath the workspace), a regular file only, never blocking, at most
    ``MAX_KIT_BYTES``. Anything else is a KitFileError naming the file.
    """
    try:
        directory = _open_kits(path.parent)
    except FileNotFoundError:
        raise KitFileError(f"{path}: cannot read kit file: its directory does not exist") from None
    try:
        stat = os.stat(path.name, dir_fd=directory)  # a FIFO or a device is stat-ed, never opened here
        key = (path, stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_ctime_ns)
        parsed = _parsed.get(key)
        if parsed is None:
            parsed = _parse_file(path, read_own(directory, path.name, str(path), KitFileError, MAX_KIT_BYTES))
            if len(_parsed) >= MAX_PARSED:
                _parsed.clear()
            _parsed[key] = parsed
    except OSError as exc:
        raise KitFileError(f"{path}: cannot read kit file: {exc.strerror}") from None
    finally:
        os.close(directory)
    return copy.deepcopy(parsed)


#: Kit files parsed, keyed by path and stat (YAML parsing is most of the cost of resolving a kit).
_parsed: dict[tuple, KitFile] = {}
MAX_PARSED = 64


def _parse_file(path: Path, raw: bytes) -> KitFile:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise KitFileError(f"{path}: not UTF-8 text; save the kit file as UTF-8") from None
    return parse_kit(text, path, default_name=path.stem)


def _open_kits(directory: Path) -> int:
    """A descriptor for a kits directory; FileNotFoundError when there is none.

    A workspace's ``.lackpy/kits`` is resolved beneath the workspace, so a
    symlink there never leads out of it; any other directory (the package's,
    one a host names) is the host's choice and is opened as it is.
    """
    if directory.name == "kits" and directory.parent.name == STATE_DIR:
        return open_state(directory.parent.parent, "kits", KitFileError)
    try:
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except NotADirectoryError:
        raise KitFileError(f"{directory}: not a directory of kit files") from None


def kit_dirs(kits_dir: Path | None) -> list[tuple[str, Path]]:
    """Where named kits are looked up, in order; a workspace directory that is the package's own is the package."""
    dirs = []
    if kits_dir is not None and Path(kits_dir).resolve() != PACKAGE_KITS.resolve():
        dirs.append(("workspace", Path(kits_dir)))
    dirs.append(("package", PACKAGE_KITS))
    return dirs


def _package_copy(path: Path) -> Path | None:
    """The package's kit file that ``path`` is a byte-for-byte copy of (lackpy's own repository ships them), or None."""
    shipped = PACKAGE_KITS / path.name
    try:
        if not shipped.is_file():
            return None
        directory = _open_kits(path.parent)
        try:
            own = read_own(directory, path.name, str(path), KitFileError, MAX_KIT_BYTES)
        finally:
            os.close(directory)
        return shipped if shipped.read_bytes() == own else None
    except (OSError, KitFileError):
        return None  # not readable as a kit: read_kit says why when the kit is used


def _where(source: str, path: Path) -> tuple[str, Path]:
    """A workspace file that only repeats the package's kit counts as the package's."""
    copy = _package_copy(path) if source == "workspace" else None
    return ("package", copy) if copy is not None else (source, path)


def list_kit_files(kits_dir: Path | None) -> dict[str, tuple[str, Path]]:
    """``{name: (source, path)}`` with workspace kits winning over package kits."""
    found: dict[str, tuple[str, Path]] = {}
    for source, directory in kit_dirs(kits_dir):
        for name in _kit_names(directory):
            stem = name[: -len(SUFFIX)]
            if KIT_NAME.match(stem) and stem not in found:  # the same rule find_kit applies
                found[stem] = _where(source, directory / name)
    return found


def _kit_names(directory: Path) -> list[str]:
    """The ``.kit`` names in a kits directory, sorted; none when it does not exist."""
    try:
        fd = _open_kits(directory)
    except FileNotFoundError:
        return []
    try:
        return listed(fd, SUFFIX, str(directory), KitFileError)
    finally:
        os.close(fd)


def _has_kit(directory: Path, name: str) -> bool:
    """Whether a kits directory has an entry ``NAME.kit`` of any kind (read_kit judges what it is)."""
    try:
        fd = _open_kits(directory)
    except FileNotFoundError:
        return False
    try:
        return exists(fd, f"{name}{SUFFIX}")
    finally:
        os.close(fd)


def find_kit(name: str, kits_dir: Path | None) -> tuple[str, Path]:
    if len(name) > MAX_KIT_NAME:
        raise UnknownKitError(f"a kit name has at most {MAX_KIT_NAME} characters; {name[:40]!r}... has {len(name)}")
    if KIT_NAME.match(name):
        for source, directory in kit_dirs(kits_dir):
            if _has_kit(directory, name):
                return _where(source, directory / f"{name}{SUFFIX}")
    known = list_kit_files(kits_dir)
    names = ", ".join(sorted(known)) or "none"
    raise UnknownKitError(
        f"unknown kit '{name}'{closest(name, known)}; available kits: {names} "
        "(or give tool names separated by commas)"
    )


def kit_rows(kits_dir: Path | None, ignored: Callable[[str, str], str | None]) -> list[dict]:
    """Every kit as ``lackpy kit list`` shows it: where it comes from, whether it shadows the package's, and
    ``ignored(name, source)``: why it is ignored (an untrusted workspace's kit above read-only), or None."""
    package = list_kit_files(None)
    rows = []
    for name, (source, path) in sorted(list_kit_files(kits_dir).items()):
        row = {"name": name, "description": "", "tools": [], "source": source, "path": str(path), "ignored": None}
        row["shadows"] = str(package[name][1]) if source == "workspace" and name in package else None
        try:
            kit_file = read_kit(path)
            row.update(description=kit_file.description, tools=kit_file.tools, ignored=ignored(name, source))
        except LackpyError as exc:
            row["error"] = str(exc)
        rows.append(row)
    return rows


def write_kit(workspace: Path, name: str, tools: list[str], description: str = "", force: bool = False) -> Path:
    """Write ``.lackpy/kits/NAME.kit`` in ``workspace`` (the tools checked already); refuses to overwrite unless ``force``.

    The kits directory is opened beneath the workspace, never through a link
    out of it, and the file is written whole and renamed into place, so
    whatever was there (a FIFO, a link) is replaced, never opened.
    """
    if not isinstance(name, str) or not KIT_NAME.match(name) or name == "none":
        raise KitError(f"kit name {name!r} is not valid; use letters, digits, '-', '_' and '.'")
    meta = {"name": name, **({"description": description} if description else {})}
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + "\n".join(tools) + "\n"
    path = Path(workspace) / STATE_DIR / "kits" / f"{name}{SUFFIX}"
    kits = open_state(workspace, "kits", KitError, create=True)
    try:
        if not force and exists(kits, path.name):
            raise KitError(f"kit '{name}' already exists at {path}; pass --force to overwrite it")
        write_own(kits, path.name, text.encode("utf-8"))
    finally:
        os.close(kits)
    return path
