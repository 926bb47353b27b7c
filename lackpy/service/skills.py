"""The skills of one workspace: found, judged by their grades and by trust, listed, loaded, written, and their kits.

``LackpyService`` hands its skill calls here (``skills``, ``skill``,
``remote_skill``, ``skill_info``, ``load_skill``, ``skill_kit``,
``skill_create``, ``skill_catalog``, ``workspace_skills``). A skill another
MCP server serves (``SERVER__name``, ``lackpy.skills.remote``) is loaded
only for a person who names one, verified, and its kit never reaches
another server.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable

from lackpy.errors import LackpyError, ParamError
from lackpy.kit.resolve import KitSpec, ResolvedKit
from lackpy.lang.grade import Grade
from lackpy.plugins import skill_dirs
from lackpy.run.compiler import prepare
from lackpy.service.kits import Kits
from lackpy.skills import remote as served
from lackpy.skills.catalog import SKILL_FILE_TOOL, Catalog, Needs, judge, skill_grade
from lackpy.skills.remote import RemoteSkill, split_name
from lackpy.skills.skill import Skill
from lackpy.skills.sources import find_skills
from lackpy.workspace import Workspace


class Skills:
    """The skills of ``workspace``, their kits resolved by ``kits``."""

    def __init__(self, workspace: Workspace, kits: Kits) -> None:
        self.workspace, self.kits = workspace, kits

    @property
    def _read_only(self) -> Grade:
        """The read-only grade: what a skill another MCP server serves is held to, and what a skill's grade is judged by."""
        return self.workspace.load().read_only

    @property
    def _deny(self) -> tuple:
        """The ``[tools] deny`` patterns: no skill is read from a folder they deny."""
        return self.workspace.load().toolbox.context.settings.get("deny") or ()

    def rows(self, remote: bool = True) -> list[dict]:
        """Every skill and every skill folder left out; with ``remote``, the skills the configured MCP servers serve."""
        rows = list(self.catalog().rows)
        return rows + self._served_rows(rows) if remote else rows

    def get(self, name: str) -> Skill:
        """The skill ``name``, if it runs here (never a served one); ParamError saying why not."""
        if split_name(name) is not None:
            raise ParamError(served.not_here(name, "lackpy serve, delegate or the skill catalog"))
        return self.catalog().get(name)

    def remote(self, name: str) -> RemoteSkill:
        """The skill ``SERVER__name`` another MCP server serves, listed, read and verified now; ParamError saying why not."""
        self.workspace.follow()
        return served.find(self.workspace.load().remotes, name, served.taken_names(list(self.catalog().rows)))

    def info(self, name: str) -> dict:
        """A skill as ``lackpy skill info`` shows it (``LackpyService.skill_info`` says what it holds)."""
        if split_name(name) is not None:
            found = self.remote(name)
            kit = self.kits.info(self.kit(found))
            declared = skill_grade(found, self._read_only)
            origin = f"MCP server {found.server}, {found.uri}; verified against its digests, untrusted: it asks, it grants nothing"
            return {**found.row(), "grade": declared.meet(self._read_only).to_dict(), "origin": origin, "files": found.files(),
                    "kit_grade": kit["grade"], "tools": kit["tools"], "body": found.body()}
        catalog = self.catalog()
        found = catalog.get(name)
        row = next(row for row in catalog.rows if row["name"] == name and row.get("ignored") is None)
        kit = self.kits.info(self.kit(found))
        return {**row, "kit_grade": kit["grade"], "tools": kit["tools"], "body": found.body()}

    def load(self, name: str) -> Skill:
        """The skill a person names: ``get(name)``, or for ``SERVER__name`` the served one, fetched and verified."""
        return self.remote(name) if split_name(name) is not None else self.get(name)

    def chosen(self, skill: str | Skill | None) -> Skill | None:
        """The skill a run uses: one given (a served one listed only is loaded), or the one named (``load``)."""
        if isinstance(skill, RemoteSkill) and skill.text is None:
            return self.remote(skill.name)
        return skill if skill is None or isinstance(skill, Skill) else self.load(skill)

    def _served_rows(self, rows: list[dict]) -> list[dict]:
        """The rows of the skills the configured MCP servers serve (every server connected, its skills listed, no file read)."""
        from lackpy.remote.fetch import list_skills

        loaded = self.workspace.load()
        remotes = loaded.remotes
        if remotes is None:
            return []
        loaded.toolbox.list_tools()  # every server started, as lackpy mcp status does
        names = [name for name in remotes.servers if name not in remotes.failures]
        if not names:
            return []
        with ThreadPoolExecutor(min(len(names), 8), thread_name_prefix="lackpy-skills") as pool:
            listings = list(pool.map(lambda server: list_skills(remotes, server), names))
        return served.rows(listings, served.taken_names(rows), self._read_only, self.kit)

    def create(self, name: str, description: str, tools: str | list[str] | None = None, force: bool = False) -> Path:
        """Write a skill to start from in ``.lackpy/skills/NAME`` (SKILL.md and programs/main.py); its folder."""
        from lackpy.skills.new import write_skill

        grade = self.kits.resolve(tools).grade if tools is not None else None  # an unknown kit or tool is said now, not when it runs
        with self.workspace.keeping():
            return write_skill(self.workspace.root, name, description, tools, force, grade if grade != self._read_only else None)

    def catalog(self) -> Catalog:
        """The skills found here now (never another MCP server's; every call reads their folders), judged by grade and trust."""
        self.workspace.follow()
        loaded = self.workspace.load()
        found = find_skills(self.workspace.root, loaded.config.skill_paths, skill_dirs(), self._deny)
        return judge(found, self._needs, self._read_only, loaded.trusted, str(self.workspace.root))

    def workspace_rows(self) -> list[dict]:
        """The workspace's own skills as trusting it would load them: what ``lackpy trust`` shows."""
        from lackpy.skills.covered import folders
        from lackpy.skills.sources import WORKSPACE_SOURCES

        found = find_skills(self.workspace.root, folders(self.workspace.root)[1:], skill_dirs(), self._deny)
        rows = [{**skill.row(), "grade": skill_grade(skill, self._read_only).to_dict()} for skill in found.skills if skill.from_workspace]
        return rows + [left.row() for left in found.left_out if left.source in WORKSPACE_SOURCES]

    def _needs(self, skill: Skill) -> Needs:
        """What ``skill``'s programs need: its kit's grade and each valid program's own grade (a program that does not
        validate, or cannot be read, needs nothing: it cannot run)."""
        kit = self.kit(skill)
        params = tuple(sorted(a.name for a in skill.arguments))
        reach = {}
        for program in skill.programs:
            try:
                checked = prepare(skill.program_text(program), kit.names, params, ()).validation
            except LackpyError:
                continue
            if checked.valid:
                reach[program] = kit.grade_of(checked.calls)
        return Needs(kit.grade, reach)

    def kit(self, skill: Skill) -> ResolvedKit:
        """The kit ``skill`` runs with: its own, and ``skill_file``. Trust was followed when the skill was found
        (``catalog``), so it is not followed again for each skill."""
        kit = skill.kit
        extra = [] if isinstance(kit, list) and SKILL_FILE_TOOL in kit else [SKILL_FILE_TOOL]
        if not isinstance(skill, RemoteSkill):
            return self.workspace.resolve(kit, extra)
        mcp = self.workspace.load().config.mcp
        served.own_server_only(skill, served.named_servers(kit, [server.name for server in mcp]))  # before anything starts
        resolved = self.kits.resolve(kit, extra)  # a served skill's kit never reaches another server, as named nor as resolved
        served.own_server_only(skill, {spec.provider_config.get("server") for spec in resolved.tools.values() if spec.provider == "mcp"})
        return resolved



def one_kit(kit: KitSpec, extra_tools: Iterable[str] | None, skill: str | Skill | None) -> bool:
    """A skill runs with its own kit: ParamError when a call names both (its kit already resolved, as a server that
    checked it passes it, is the skill's own; never for a skill another MCP server serves). Whether it is such a skill."""
    remote = isinstance(skill, RemoteSkill) or split_name(skill) is not None
    name = getattr(skill, "name", skill)
    if remote and (kit is not None or extra_tools):
        raise ParamError(f"skill '{name}' runs with its own kit, held to what you allow; give the skill, not a kit")
    if skill is not None and ((kit is not None and not isinstance(kit, ResolvedKit)) or extra_tools):
        raise ParamError(f"skill '{name}' runs with its own kit; give the skill or a kit, not both")
    return remote


__all__ = ["Skills", "one_kit"]
