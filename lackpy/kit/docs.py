"""Tool and kit docs are referenced, never loaded until someone asks for one.

``docs_index`` lists the docs of a kit the caller resolved (as trust and a
server's policy allow: listing a doc is offering it); ``find_doc`` finds
where a doc that some tool or kit lists is read (``lackpy.kit.docplace``
has the rules), and ``read_doc`` reads it there. A path nothing lists is
never read: a doc read is a file read.
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING, Any, Iterable

from lackpy.errors import DocsError, PathError
from lackpy.host.beneath import canonical, open_beneath, open_dir, read_regular
from lackpy.host.deny import denied
from lackpy.host.hardlinks import Guard
from lackpy.kit.docplace import PACKAGE_DOCS, Doc, package_doc, shipped, tool_doc
from lackpy.kit.spec import ToolSpec

if TYPE_CHECKING:
    from lackpy.kit.resolve import ResolvedKit

MAX_DOC_BYTES = 1_000_000
#: What a refusal of a doc nothing lists says to do.
ASK = "give a tool name, or a path that 'lackpy docs index' lists"


def docs_index(toolbox: Any, kit: "ResolvedKit | None" = None) -> dict:
    """``{"tool_docs": {name: path}, "kit_docs": [path]}`` for ``kit`` (its tools by the names programs call), or every tool;
    ``"result_shapes": {name: returns}`` too when some tool's results have a declared or learned shape.

    ``kit`` is resolved by the caller as trust allows (``LackpyService.resolve_kit``,
    a server's ``KitPolicy.resolve``), so the docs of a kit that is ignored
    or not allowed are never listed.
    """
    if kit is None:
        specs = {spec.name: spec for spec in toolbox.list_tools()}
        kit_docs: list[str] = []
    else:
        specs = kit.tools
        tool_docs = {spec.docs for spec in specs.values()}
        kit_docs = [d for d in kit.docs if d not in tool_docs]
    index = {"tool_docs": {n: s.docs for n, s in specs.items() if s.docs}, "kit_docs": kit_docs}
    # A remote tool has no doc; what its results look like (declared, or learned: lackpy.remote.shapes) is what there is to say.
    shapes = {n: s.returns for n, s in specs.items() if isinstance(s.provider_config.get("shape"), dict) and s.provider_config["shape"].get("node")}
    if shapes:
        index["result_shapes"] = shapes
    return index


def find_doc(
    target: object, workspace: str | os.PathLike, kits: Iterable["ResolvedKit"], tools: Iterable[ToolSpec] = (), lackpy_docs: bool = False
) -> Doc:
    """Where the doc ``target`` is read: the doc of one of ``tools`` (by the tool's name or its doc path), one
    of lackpy's own docs (``lackpy_docs``), or a doc one of ``kits`` lists, in that order (``kits`` is iterated
    only when needed). DocsError when none of them lists ``target``.
    """
    if not isinstance(target, str) or not target.strip() or "\x00" in target:
        raise DocsError("give a tool name, or a doc path such as docs/tools/read_file.md")
    for spec in tools:
        if spec.docs and target in (spec.name, spec.docs):
            return tool_doc(spec.docs, workspace)
    own = package_doc(target) if lackpy_docs else None
    if shipped(own):
        return own  # type: ignore[return-value]
    for kit in kits:
        for doc in kit.own_docs:
            if doc.shown == target:
                return doc
        for spec in kit.tools.values():
            if spec.docs and target in (spec.name, spec.docs):
                return tool_doc(spec.docs, workspace)
    raise DocsError(f"doc {target!r} is not one lackpy lists here; {ASK}")


def read_doc(doc: Doc, workspace: str | os.PathLike, deny: Iterable[str] = ()) -> str:
    """The text of ``doc``, read where it lives; DocsError when it is refused, missing or not UTF-8.

    ``deny``: the workspace's ``[tools] deny`` patterns, judged on the file
    the lookup opened when it lies in the workspace. The read is one
    kernel-enforced lookup beneath the doc's folder
    (``lackpy.host.beneath.read_regular``): a symlink that leads out of it,
    a FIFO, a device or a file over ``MAX_DOC_BYTES`` is refused there and
    then, never opened by name after a check.
    """
    root = doc.root or os.path.realpath(workspace)
    try:
        raw = _read_beneath(root, doc, tuple(deny) if doc.root is None else ())
    except FileNotFoundError:
        hint = f"; {doc.hint}" if doc.hint else "; see 'lackpy docs index' for the known docs"
        raise DocsError(f"doc '{doc.shown}' does not exist{hint}") from None
    except PathError as exc:
        raise DocsError(f"{exc}; it is not read") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DocsError(f"doc '{doc.shown}' is not UTF-8 text") from None


def resolve_doc(path: str, workspace: str | os.PathLike, deny: Iterable[str] = ()) -> str:
    """Read the doc a tool's code names: lackpy's own when the package ships ``path``, else the file beneath ``workspace``.

    For a host that calls it with paths its own code chose; ``LackpyService.resolve_doc``
    is what reads a doc a client names (only one a tool or kit lists).
    ``deny``: the workspace's ``[tools] deny`` patterns (``read_doc``).
    """
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise DocsError("give a doc path such as docs/tools/read_file.md")
    return read_doc(tool_doc(path, workspace), workspace, deny)


def _read_beneath(root: str, doc: Doc, deny: tuple[str, ...]) -> bytes:
    """The bytes of ``doc`` beneath ``root``; FileNotFoundError when it is missing, PathError when it is refused."""
    shown = f"doc '{doc.shown}'"

    def judge(opened: int) -> None:
        if not deny:
            return
        if denied(canonical(opened, root), deny):
            raise DocsError(f"{shown} is denied by the workspace policy ([tools] deny); it is not read")
        top = open_dir(root)
        try:
            Guard(top, deny).check(os.fstat(opened), shown)  # a denied file under another name (a hard link)
        finally:
            os.close(top)

    fd = _open_folder(root, doc.folder, shown)
    try:
        return read_regular(fd, doc.rel, MAX_DOC_BYTES, what=shown, judge=judge)
    finally:
        os.close(fd)


def _open_folder(root: str, folder: str, shown: str) -> int:
    """``root`` itself (``folder`` ``"."``), or its folder ``folder`` opened with no symlink anywhere on the way."""
    fd = open_dir(root)
    if folder == ".":
        return fd
    try:
        return open_beneath(fd, folder, os.O_RDONLY | os.O_DIRECTORY, follow=False)
    except FileNotFoundError:
        raise
    except OSError as exc:
        why = "it is a symlink or lies behind one" if exc.errno in (errno.ELOOP, errno.EXDEV) else (exc.strerror or str(exc)).lower()
        raise PathError(f"{shown}: its folder {folder} is not a real folder beneath the workspace ({why}); docs are read only from one") from None
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


__all__ = ["ASK", "MAX_DOC_BYTES", "PACKAGE_DOCS", "doc_sections", "docs_index", "find_doc", "read_doc", "resolve_doc"]
