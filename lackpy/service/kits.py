"""The kits of one workspace as trust allows: resolved, listed, written, exported, their docs read, and ceilings.

``LackpyService`` hands its kit calls here (``resolve_kit``, ``kit_list``,
``kit_info``, ``toolbox_list``, ``kit_create``, ``tool_schemas``,
``docs_index``, ``resolve_doc``, ``ceiling_grade``). Every kit is resolved
through the workspace's loading (``lackpy.workspace.Workspace``): an
untrusted workspace's own kit file counts only up to the read-only grade.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from lackpy.errors import KitError, LackpyError, ParamError
from lackpy.kit.docs import docs_index, find_doc, read_doc
from lackpy.kit.kitfile import write_kit
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade
from lackpy.workspace import Workspace

#: Formats ``tool_schemas`` exports.
SCHEMA_FORMATS = ("openai", "anthropic", "mcp")
#: A ceiling: a kit name (its grade), a Grade, or (w, d).
CeilingSpec = str | Grade | tuple[int, int] | None


class Kits:
    """The kits, tools and docs of ``workspace``, resolved as its trust allows."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def resolve(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> ResolvedKit:
        """``kit`` (default: the configured default kit) resolved here; a ``ResolvedKit`` is used as it is."""
        if isinstance(kit, ResolvedKit) and not extra_tools:
            return kit
        self.workspace.follow()
        return self.workspace.resolve(kit if kit is not None else self.workspace.load().config.default_kit, extra_tools)

    def rows(self) -> list[dict]:
        """Every kit: where it comes from, whether it shadows the package's, and whether it is ignored."""
        self.workspace.follow()
        return self.workspace.kit_rows()

    def info(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        """A kit as ``lackpy kit info`` shows it; an untrusted workspace's own kit too, read as data and marked not in force."""
        try:
            resolved = self.resolve(kit, extra_tools)
        except LackpyError:
            # A kit an untrusted workspace wrote is not in force: shown (as data only, nothing of it loaded) so a
            # person can read it before trusting the workspace.
            ignored = self.workspace.ignored_kit(kit, self.approval) if not extra_tools else None
            if ignored is None:
                raise
            return ignored
        info = resolved.info(self.approval)
        shadowed = self.workspace.untrusted_kit_file(kit) if resolved.source != "workspace" and not extra_tools else None
        if shadowed is not None:  # the package's kit of that name is in force; the workspace's file of that name is not
            info["ignored"] = (f"{shadowed}, this workspace's kit '{kit}', is not in force until you trust this workspace: "
                               f"lackpy trust {self.workspace.root}")
        return info

    def tool_rows(self) -> list[dict]:
        """Every tool of the toolbox, as ``lackpy tools`` shows it."""
        self.workspace.follow()
        return [spec.row(self.approval(spec)) for spec in self.workspace.load().toolbox.list_tools()]

    def approval(self, spec: ToolSpec) -> str:
        """How a call of ``spec`` is asked about (the config's policy)."""
        return str(self.workspace.load().config.approvals.for_call(spec))

    def create(self, name: str, tools: Sequence[str], description: str = "", force: bool = False) -> Path:
        """Write ``.lackpy/kits/NAME.kit`` in the workspace; refuses to overwrite unless ``force``."""
        tools = list(tools)
        if not tools:
            raise KitError("a kit needs at least one tool; pass --tools a,b")
        toolbox = self.workspace.load().toolbox
        for tool in tools:
            if tool not in toolbox:
                toolbox.get(tool)  # raises UnknownToolError naming the closest tools
        resolve_kit(tools, toolbox)  # duplicates and bad names
        with self.workspace.keeping():
            return write_kit(self.workspace.root, name, tools, description, force)

    def schemas(self, format: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> list[dict]:
        """A kit's tools (default: every tool) in the ``openai``, ``anthropic`` or ``mcp`` shape, named as programs call them."""
        if format not in SCHEMA_FORMATS:
            raise ParamError(f"unknown schema format {format!r}; use one of: {', '.join(SCHEMA_FORMATS)}")
        if kit is None and not extra_tools:
            pairs = [(spec.name, spec) for spec in self.workspace.load().toolbox.list_tools()]
        else:
            pairs = list(self.resolve(kit if kit is not None else "none", extra_tools).tools.items())
        return [getattr(spec if alias == spec.name else dataclasses.replace(spec, name=alias), f"to_{format}")() for alias, spec in pairs]

    def docs_index(self, kit: KitSpec | ResolvedKit = None, extra_tools: Iterable[str] | None = None) -> dict:
        """The doc paths of ``kit`` (with ``extra_tools``) resolved as trust allows, or of every tool when neither is given."""
        self.workspace.follow()
        resolved = None if kit is None and not extra_tools else self.resolve(kit if kit is not None else "none", extra_tools)
        return docs_index(self.workspace.load().toolbox, resolved)

    def resolve_doc(self, path: str, kits: Iterable[KitSpec] | None = None) -> str:
        """Read a doc that lackpy lists (``LackpyService.resolve_doc`` says which)."""
        self.workspace.follow()
        toolbox, root = self.workspace.load().toolbox, self.workspace.root
        if kits is None:
            # the tools registered now: a remote tool has no doc, and list_tools would start every MCP server
            doc = find_doc(path, root, self._here(None), toolbox.registered(), lackpy_docs=True)
        else:
            doc = find_doc(path, root, self._here(kits))
        return read_doc(doc, root, toolbox.context.settings.get("deny") or ())

    def _here(self, kits: Iterable[KitSpec] | None) -> Iterator[ResolvedKit]:
        """Each of ``kits`` (None: every kit not ignored here) resolved as trust allows, one at a time, only when
        asked for; a kit that does not resolve is left out."""
        for kit in (row["name"] for row in self.rows() if not row["ignored"]) if kits is None else kits:
            try:
                yield self.resolve(kit)
            except LackpyError:
                continue

    def ceiling_grade(self, ceiling: CeilingSpec = None) -> Grade | None:
        """The grade a program may reach: ``ceiling``, else the config's ``ceiling``, resolved now; None when there is none."""
        given = ceiling if ceiling is not None else self.workspace.load().config.ceiling
        return None if given is None else self.ceiling(given)

    def ceiling(self, ceiling: CeilingSpec) -> Grade:
        """The grade of ``ceiling`` (None: read-only)."""
        if ceiling is None:
            return self.workspace.load().read_only
        grade = Grade.parse(ceiling)
        return grade if grade is not None else self.resolve(ceiling).grade


__all__ = ["CeilingSpec", "Kits", "SCHEMA_FORMATS"]
