"""Tool and kit docs are referenced, never loaded until someone asks for one."""

from __future__ import annotations

import os
from pathlib import Path

from lackpy.errors import DocsError

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DOCS = PACKAGE_ROOT / "docs"
MAX_DOC_BYTES = 1_000_000


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve_doc(path: str, workspace: str | os.PathLike) -> str:
    """Read a doc file that lies under the workspace or the package's own docs.

    A relative path is looked up in the workspace first, then in the package.
    Anything else is refused with a clear error and never read.
    """
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise DocsError("give a doc path such as docs/tools/read_file.md")
    workspace = os.path.realpath(workspace)
    package_docs = os.path.realpath(PACKAGE_DOCS)
    if os.path.isabs(path):
        candidates = [os.path.realpath(path)]
    else:
        candidates = [os.path.realpath(os.path.join(workspace, path)), os.path.realpath(PACKAGE_ROOT / path)]
    allowed = [c for c in candidates if _inside(c, workspace) or _inside(c, package_docs)]
    if not allowed:
        raise DocsError(f"doc '{path}' is outside the workspace and the package docs; it is not read")
    for candidate in allowed:
        if os.path.isfile(candidate):
            if os.path.getsize(candidate) > MAX_DOC_BYTES:
                raise DocsError(f"doc '{path}' is larger than {MAX_DOC_BYTES} bytes; it is not read")
            try:
                with open(candidate, encoding="utf-8") as handle:
                    return handle.read()
            except UnicodeDecodeError:
                raise DocsError(f"doc '{path}' is not UTF-8 text") from None
    raise DocsError(f"doc '{path}' does not exist; see 'lackpy docs index' for the known docs")


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
