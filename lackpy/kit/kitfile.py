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
kits shipped inside the package; the workspace wins.
"""

from __future__ import annotations

import copy
import functools

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lackpy.errors import KitFileError, UnknownKitError, closest
from lackpy.kit.frontmatter import split_frontmatter

PACKAGE_KITS = Path(__file__).resolve().parent.parent / "kits"
KNOWN_KEYS = ("name", "description", "docs", "limits")
KIT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: Kit names longer than this are refused before any file is looked up.
MAX_KIT_NAME = 100


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
    """Parse the kit file at ``path``; a file unchanged since the last read is not parsed again."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise KitFileError(f"{path}: cannot read kit file: {exc.strerror}") from None
    return copy.deepcopy(_read_kit(path, stat.st_mtime_ns, stat.st_size, stat.st_ino))


@functools.lru_cache(maxsize=64)
def _read_kit(path: Path, mtime_ns: int, size: int, inode: int) -> KitFile:
    # YAML parsing is most of the cost of resolving a kit; the stat triple keys out stale entries.
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise KitFileError(f"{path}: not UTF-8 text; save the kit file as UTF-8") from None
    except OSError as exc:
        raise KitFileError(f"{path}: cannot read kit file: {exc.strerror}") from None
    return parse_kit(text, path, default_name=path.stem)


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
        return shipped if shipped.is_file() and shipped.read_bytes() == path.read_bytes() else None
    except OSError:
        return None


def _where(source: str, path: Path) -> tuple[str, Path]:
    """A workspace file that only repeats the package's kit counts as the package's."""
    copy = _package_copy(path) if source == "workspace" else None
    return ("package", copy) if copy is not None else (source, path)


def list_kit_files(kits_dir: Path | None) -> dict[str, tuple[str, Path]]:
    """``{name: (source, path)}`` with workspace kits winning over package kits."""
    found: dict[str, tuple[str, Path]] = {}
    for source, directory in kit_dirs(kits_dir):
        if directory.is_dir():
            for path in sorted(directory.glob("*.kit")):
                if KIT_NAME.match(path.stem) and path.stem not in found:  # the same rule find_kit applies
                    found[path.stem] = _where(source, path)
    return found


def find_kit(name: str, kits_dir: Path | None) -> tuple[str, Path]:
    if len(name) > MAX_KIT_NAME:
        raise UnknownKitError(f"a kit name has at most {MAX_KIT_NAME} characters; {name[:40]!r}... has {len(name)}")
    if KIT_NAME.match(name):
        for source, directory in kit_dirs(kits_dir):
            path = directory / f"{name}.kit"
            if path.is_file():
                return _where(source, path)
    known = list_kit_files(kits_dir)
    names = ", ".join(sorted(known)) or "none"
    raise UnknownKitError(
        f"unknown kit '{name}'{closest(name, known)}; available kits: {names} "
        "(or give tool names separated by commas)"
    )
