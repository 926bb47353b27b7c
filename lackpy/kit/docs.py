"""Tool and kit docs are referenced, never loaded until someone asks for one."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterable

from lackpy.errors import DocsError, PathError
from lackpy.host.beneath import canonical, open_dir, read_regular
from lackpy.host.deny import denied
from lackpy.host.hardlinks import Guard

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DOCS = PACKAGE_ROOT / "docs"
MAX_DOC_BYTES = 1_000_000


def docs_index(toolbox: Any, kit: Any = None, extra_tools: Iterable[str] | None = None) -> dict:
    """``{"tool_docs": {name: path}, "kit_docs": [path]}`` for a kit of ``toolbox`` (with ``extra_tools``), or for every tool."""
    from lackpy.kit.resolve import resolve_kit

    if kit is None and not extra_tools:
        specs = {spec.name: spec for spec in toolbox.list_tools()}
        kit_docs: list[str] = []
    else:
        resolved = resolve_kit(kit if kit is not None else "none", toolbox, toolbox.kits_dir, extra_tools)
        specs = resolved.tools
        tool_docs = {spec.docs for spec in specs.values()}
        kit_docs = [d for d in resolved.docs if d not in tool_docs]
    return {"tool_docs": {n: s.docs for n, s in specs.items() if s.docs}, "kit_docs": kit_docs}


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve_doc(path: str, workspace: str | os.PathLike, deny: Iterable[str] = ()) -> str:
    """Read a doc file that lies under the workspace or the package's own docs.

    ``deny``: the workspace's ``[tools] deny`` patterns; a workspace doc is
    a file read like any other, judged on the file the lookup opened.

    A relative path is looked up in the workspace first, then in the package.
    Each is read beneath its root in one kernel-enforced lookup
    (``lackpy.host.beneath.read_regular``): a symlink that leads out of the
    root, a FIFO, a device or a file over ``MAX_DOC_BYTES`` is refused
    there and then, never opened by name after a check (the next root is
    tried). Anything else is refused with a clear error and never read.
    """
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise DocsError("give a doc path such as docs/tools/read_file.md")
    workspace = os.path.realpath(workspace)
    places = _places(path, workspace, os.path.realpath(PACKAGE_DOCS))
    if not places:
        raise DocsError(f"doc '{path}' is outside the workspace and the package docs; it is not read")
    refusal: PathError | None = None
    for root, rel in places:
        try:
            raw = _read_beneath(root, rel, path, tuple(deny) if root == workspace else ())
        except FileNotFoundError:
            continue
        except PathError as exc:
            refusal = refusal or exc
            continue
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DocsError(f"doc '{path}' is not UTF-8 text") from None
    if refusal is not None:
        raise DocsError(f"{refusal}; it is not read")
    raise DocsError(f"doc '{path}' does not exist; see 'lackpy docs index' for the known docs")


def _places(path: str, workspace: str, package_docs: str) -> list[tuple[str, str]]:
    """Where ``path`` may be read: (root, path beneath it), the workspace first; none when it names neither."""
    if os.path.isabs(path):
        real = os.path.realpath(path)  # the caller's absolute path; the read below is still beneath the root
        return [(root, os.path.relpath(real, root)) for root in (workspace, package_docs) if _inside(real, root)]
    places = [] if _climbs(path) else [(workspace, path)]
    shipped = os.path.normpath(os.path.join(PACKAGE_ROOT, path))
    if _inside(shipped, package_docs) and shipped != package_docs:
        places.append((package_docs, os.path.relpath(shipped, package_docs)))
    return places


def _climbs(path: str) -> bool:
    first = os.path.normpath(path).split(os.sep, 1)[0]
    return first == ".."


def _read_beneath(root: str, rel: str, shown: str, deny: tuple[str, ...] = ()) -> bytes:
    """The doc ``rel`` beneath ``root``; a directory counts as missing (FileNotFoundError), anything else refused is a PathError."""

    fd = open_dir(root)

    def judge(opened: int) -> None:
        if deny and denied(canonical(opened, root), deny):
            raise DocsError(f"doc '{shown}' is denied by the workspace policy ([tools] deny); it is not read")
        if deny:
            Guard(fd, deny).check(os.fstat(opened), f"doc '{shown}'")  # a denied file under another name (a hard link)

    try:
        try:
            return read_regular(fd, rel, MAX_DOC_BYTES, what=f"doc '{shown}'", judge=judge)
        except PathError:
            try:
                is_dir = stat.S_ISDIR(os.stat(rel, dir_fd=fd, follow_symlinks=False).st_mode)
            except OSError:
                is_dir = False
            if is_dir:
                raise FileNotFoundError(rel) from None
            raise
    finally:
        os.close(fd)


def doc_sections(text: str) -> dict[str, str]:
    """Split a markdown tool doc into its ``## `` sections: ``{"Signature": "...", ...}``.

    Feedback to a model quotes only the sections that answer its mistake, so
    the doc is cut at its second-level headings; text before the first one
    (the ``# name`` title) is dropped. A ``## `` line inside a code fence is
    content, not a heading. A repeated heading's texts are joined.
    """
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {title: "\n".join(lines).strip() for title, lines in sections.items()}
