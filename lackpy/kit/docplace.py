"""Where a doc lives: lackpy's own docs, a host tool's doc, and a kit file's ``docs:``.

A doc is named by a path (what ``docs_index`` lists and ``resolve_doc``
takes) and read from the one place decided when a tool or a kit lists it,
never from wherever a client's path points:

* lackpy's own docs (``docs/tools/read_file.md``, ``docs/guide/answers.md``)
  are the package's files beneath ``lackpy/docs``. A workspace file at the
  same path never stands in for one: its text would reach a model as
  lackpy's.
* A tool's doc path the package does not ship is a host tool's doc, read
  beneath the workspace (the host's code named it).
* A kit file's ``docs:`` names a file that belongs to the kit. Relative to
  the kit file's own folder, beside it (``docs: team.md`` next to
  ``.lackpy/kits/team.kit``, listed as ``.lackpy/kits/team.md``) or beneath
  it (``team/usage.md``); or, when it starts with a docs folder, that
  workspace path: ``docs/kits`` (``docs: docs/kits/team.md``, the form
  kit files have always used), or the folders a trusted workspace's config
  names instead (``[kits] docs = ["docs/kits", "handbook/kits"]``). A
  package kit's docs are lackpy's own (``docs/kits/NAME.md``). An absolute
  path, or one with ``..``, is a KitFileError when the kit is resolved,
  naming the file.

Why. A kit file is data a repository ships: until ``lackpy trust`` it
counts up to the read-only grade, and ``lackpy serve`` offers its docs to
clients. Were ``docs:`` any workspace path, a repository could list ``.env``
as a doc, and a client of a server that offers no file tool at all could
read it. The files beside a kit and in ``docs/kits`` are what the
repository ships as docs, like the kit file itself. Any other docs folder is
the person's word that its files are docs, so only a trusted config names
one (``lackpy.trust`` withholds ``[kits]`` otherwise), and never the
workspace itself, ``.lackpy`` or a path with ``..``: naming ``"."`` would
bring back the hole.

Reading (``lackpy.kit.docs.read_doc``): the folder (``.lackpy/kits`` or a
docs folder) is opened beneath the workspace with no symlink anywhere on
the way, so a link (or a ``git pull`` that makes one) cannot turn it into
the workspace; the file is opened beneath that folder in one
kernel-enforced lookup (a link out of the folder, a FIFO or a device is
refused) and judged by ``[tools] deny`` on the file actually opened.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from lackpy.errors import DocsError, KitFileError
from lackpy.host.ownfiles import STATE_DIR

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DOCS = PACKAGE_ROOT / "docs"
#: The workspace's kits folder, where the docs beside a workspace kit file live.
KITS_FOLDER = f"{STATE_DIR}/kits"
#: The docs folders of a workspace whose config names none (or is not trusted).
DEFAULT_FOLDERS = ("docs/kits",)
#: Where a kit's docs may live, as errors say it.
WHERE = (
    "a kit's docs live beside its file (docs: NAME.md, relative to the kit file's folder) "
    'or beneath docs/kits (docs: docs/kits/NAME.md), or a docs folder a trusted config names ([kits] docs = [...])'
)


@dataclass(frozen=True)
class Doc:
    """One doc: ``shown`` is the path lists show, read as ``rel`` beneath ``folder``.

    ``root`` None: ``folder`` is beneath the workspace (``"."``: the
    workspace itself; any other is opened with no symlink on the way) and
    the file is judged by ``[tools] deny``. Otherwise ``root`` is a real
    directory that is lackpy's own (its docs) or a host's (a kits folder it
    named), opened as it is.
    """

    shown: str
    rel: str
    folder: str = "."
    root: str | None = None
    #: What to add when the file does not exist.
    hint: str = field(default="", compare=False)


def relative(path: object) -> str | None:
    """``path`` normalized, when it is a relative path that stays where it starts (no ``..``, no control character); else None."""
    if not isinstance(path, str) or not path or path.startswith("/") or any(ord(c) < 32 or c == "\x7f" for c in path):
        return None
    if ".." in path.split("/"):
        return None
    normal = os.path.normpath(path)
    return None if normal == "." else normal


def docs_folder(path: object) -> str | None:
    """A ``[kits] docs`` entry, normalized: a folder beneath the workspace, not the workspace itself nor in ``.lackpy``; else None."""
    normal = relative(path)
    if normal is None or normal.split("/")[0] == STATE_DIR:
        return None
    return normal


def package_doc(path: str) -> Doc | None:
    """The doc ``path`` as lackpy's own (``docs/...``, or absolute beneath the package docs), shipped or not; None otherwise."""
    if not isinstance(path, str) or "\x00" in path:
        return None
    docs = os.path.realpath(PACKAGE_DOCS)
    full = os.path.realpath(path) if os.path.isabs(path) else os.path.normpath(os.path.join(PACKAGE_ROOT, path))
    if not full.startswith(docs + os.sep):
        return None
    return Doc(path, os.path.relpath(full, docs), root=docs)


def shipped(doc: Doc | None) -> bool:
    """Whether ``doc`` is one of lackpy's own docs that the package ships."""
    return doc is not None and doc.root == os.path.realpath(PACKAGE_DOCS) and _ships(doc.rel)


@lru_cache(maxsize=256)
def _ships(rel: str) -> bool:
    return os.path.isfile(os.path.join(PACKAGE_DOCS, rel))  # the package's own files: they do not change while lackpy runs


def tool_doc(path: str, workspace: str | os.PathLike) -> Doc:
    """Where the doc a tool's code names is read: lackpy's, when the package ships it; else beneath the workspace.

    DocsError when ``path`` is neither: absolute outside both, or climbing out of the workspace.
    """
    own = package_doc(path)
    if shipped(own):
        return own  # type: ignore[return-value]
    root = os.path.realpath(workspace)
    if isinstance(path, str) and os.path.isabs(path) and "\x00" not in path:
        real = os.path.realpath(path)  # the caller's absolute path; the read is still beneath the workspace
        if real.startswith(root + os.sep):
            return Doc(path, os.path.relpath(real, root))
    elif isinstance(path, str) and path.strip() and "\x00" not in path and not _climbs(path):
        return Doc(path, path)  # resolved beneath the workspace by the kernel, ".." and links included
    if own is not None:
        return own  # lackpy's own doc path, not shipped: reading it says it does not exist
    raise DocsError(f"doc {path!r} is outside the workspace and the package docs; it is not read")


def _climbs(path: str) -> bool:
    normal = os.path.normpath(path)
    return normal == ".." or normal.startswith("../")


def kit_doc(written: str, kit_path: Path, source: str, workspace: str | os.PathLike, folders: Iterable[str] = DEFAULT_FOLDERS) -> Doc:
    """Where the ``docs:`` of the kit file at ``kit_path`` is read (rules in the module docstring).

    ``source``: ``"package"`` for lackpy's own kits; ``folders``: the docs
    folders, normalized (``DEFAULT_FOLDERS``, or a trusted config's). KitFileError naming the file
    when ``written`` leads out of where a kit's docs may live.
    """
    normal = relative(written)
    if normal is None:
        raise KitFileError(f"{kit_path}: docs {written!r} is not a path beneath the kit's folder (no '..', not absolute); {WHERE}")
    if source == "package":
        own = package_doc(normal)
        if own is None:
            raise KitFileError(f"{kit_path}: docs {written!r}: a kit lackpy ships documents itself in lackpy's docs (docs/kits/NAME.md)")
        return own
    for folder in folders:
        if normal.startswith(folder + "/"):
            return Doc(normal, normal[len(folder) + 1:], folder)
    hint = f"the kit file {kit_path.name} names it relative to its own folder; {WHERE}"
    folder = kit_path.parent
    if folder == Path(workspace) / KITS_FOLDER:
        return Doc(f"{KITS_FOLDER}/{normal}", normal, KITS_FOLDER, hint=hint)
    real = os.path.realpath(folder)  # a kits folder a host named: its own choice, as its kit files are
    return Doc(os.path.join(real, normal), normal, root=real, hint=hint)


__all__ = ["DEFAULT_FOLDERS", "KITS_FOLDER", "PACKAGE_DOCS", "PACKAGE_ROOT", "WHERE", "Doc", "docs_folder", "kit_doc", "package_doc", "relative", "shipped", "tool_doc"]
