"""Skills over MCP: which skills a server's clients may see and use, as prompts, resources and ``run_program(skill=)``.

A skill is a workflow a person hands an agent (``lackpy.skills``). Over MCP
each skill the server allows is a prompt (``prompts/list`` shows its
description and arguments; ``prompts/get`` gives its SKILL.md body, the
signatures of its kit's tools, its arguments as the values its programs
get, and its default program), the resources ``lackpy://skills``,
``lackpy://skills/{name}``, ``lackpy://skills/{name}/references/{file}`` and
``lackpy://skills/{name}/programs/{file}``, and a ``skill`` argument of
``run_program``; the same skills are published as SEP-2640
(``lackpy.mcp.skill_extension``). Each prompt and row shows the grade the
skill may reach.

Which skills: ``lackpy serve --allow-skills a,b`` names them (the seed's
per-session allow-list; ``--allow-skills ""`` allows none); without it, every
skill whose kit the server allows. Either way a skill is used only while its
kit passes the server's KitPolicy: its kit is one of the allowed kits, not
wider than at start, or every tool of it (``skill_file`` aside: it reads only
the skill's own files) is a tool of the allowed kits at no more than its
grade at start (the "what it started with" rule of ``lackpy.mcp.policy``:
a skill whose kit file widened, or whose SKILL.md now names a tool outside
the allowed kits, is refused; one whose list of tools changed within them
is not, as a client could run those tools with ``run_program(kit=)``
anyway). Allowing a skill hands a client its kit for any program it
writes (``run_program(skill=)`` runs the client's program, not only the
skill's), so ``--allow-skills`` never reaches past ``--allow-kits``: a named
skill whose kit the server does not allow stops the server at start, saying
which option allows it.

The list is computed on each request, not at start: skills are read from
disk on every ``LackpyService.skills()`` call, so an edited SKILL.md shows at
once and, without ``--allow-skills``, a skill added while the server runs
appears when its kit passes the same check (it can do no more than a
program of the allowed kits could; the kits are still held as they were at
start). A name in ``--allow-skills`` is fixed at start. Whether the server
declares the ``prompts`` capability is decided at start, as initialize
declares capabilities once: a server with no allowed skill then serves no
prompt methods (``lackpy.mcp.server``), and a skill added later is used
through the resources and ``run_program`` only, until a restart.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Iterable

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, GetPromptResult, Prompt, PromptArgument, PromptMessage, TextContent

from lackpy.errors import DeniedError, KitError, LackpyError, ParamError, UsageError, closest
from lackpy.infer.prompt import tool_lines
from lackpy.kit.resolve import ResolvedKit
from lackpy.mcp.policy import KitPolicy
from lackpy.remote.skills import GRADE_META
from lackpy.service import LackpyService
from lackpy.skills.catalog import SKILL_FILE_TOOL, skill_grade
from lackpy.skills.skill import PROGRAMS, REFERENCES, Skill

SKILLS_URI = "lackpy://skills"


@dataclass(frozen=True)
class SkillPolicy:
    """Which skills the clients of one server may use: ``named`` (``--allow-skills``), or None for every skill whose kit is allowed."""

    kits: KitPolicy
    named: tuple[str, ...] | None = None

    @classmethod
    def build(cls, service: LackpyService, kits: KitPolicy, allow_skills: Iterable[str] | None = None) -> "SkillPolicy":
        """The policy of a server; UsageError, at start, for a name in ``allow_skills`` that is unknown, does not run here,
        or whose kit the server does not allow."""
        if allow_skills is None:
            return cls(kits)
        named = tuple(dict.fromkeys(name.strip() for name in allow_skills if name.strip()))
        policy = cls(kits, named)
        for name in named:
            try:
                policy._kit_passes(service, service.skill(name))
            except LackpyError as exc:
                raise UsageError(f"lackpy serve cannot offer skill '{name}' (--allow-skills): {exc}") from None
        return policy

    def rows(self, service: LackpyService) -> list[dict]:
        """The rows (as ``lackpy skill list --json``) of the skills a client may use now."""
        return [row for row, _ in self.allowed(service)]

    def allowed(self, service: LackpyService) -> list[tuple[dict, Skill]]:
        """The skills a client may use now, each with its row, found and judged once (``skill`` checks one the same way)."""
        catalog = service.skill_catalog()
        found = []
        for row in catalog.rows:  # this machine's skills only: other servers' are never offered over MCP (lackpy.skills.remote)
            skill = catalog.skills.get(row["name"]) if row.get("ignored") is None else None
            if skill is None or not self._named(skill.name):
                continue
            try:
                self._kit_passes(service, skill)
            except LackpyError:
                continue
            found.append((row, skill))
        return found

    def skill(self, service: LackpyService, name: str) -> Skill:
        """The skill ``name`` when a client may use it now; a one-line LackpyError naming what allows it otherwise."""
        if not isinstance(name, str) or not name.strip():
            raise ParamError(f"give a skill's name; {SKILLS_URI} lists the skills this server offers")
        if not self._named(name):
            allowed = ",".join((*self.named, name)) if self.named else name
            raise KitError(
                f"skill '{name}' is not allowed by this server (allowed: {', '.join(self.named) or 'none'}); "
                f"whoever starts it can allow it: lackpy serve --allow-skills {allowed}"
            )
        try:
            found = service.skill(name)  # unknown, or why it does not run here: ParamError
        except ParamError as exc:
            if not str(exc).startswith(f"unknown skill '{name}'"):
                raise
            offered = [skill.name for _, skill in self.allowed(service)]  # near misses only among these: no other skill is named
            raise ParamError(f"unknown skill '{name}'{closest(name, offered)}; {SKILLS_URI} lists the skills this server offers") from None
        try:
            self._kit_passes(service, found)
        except LackpyError as exc:
            refused = DeniedError if isinstance(exc, DeniedError) else KitError  # widened since start, or never allowed
            raise refused(f"skill '{name}' is not allowed by this server: {exc}") from None
        return found

    def kit(self, service: LackpyService, name: str) -> ResolvedKit:
        """The kit skill ``name`` runs with, resolved once and checked as the server allows it: the one the run then uses."""
        self.skill(service, name)
        resolved = service.skill_kit(name)
        try:
            self.kits.check_tools([spec for spec in resolved.tools.values() if spec.name != SKILL_FILE_TOOL])
        except LackpyError as exc:
            refused = DeniedError if isinstance(exc, DeniedError) else KitError
            raise refused(f"skill '{name}' is not allowed by this server: {exc}") from None
        return resolved

    def _named(self, name: str) -> bool:
        return self.named is None or name in self.named

    def _kit_passes(self, service: LackpyService, skill: Skill) -> None:
        """Nothing when the server allows the skill's kit as it was at start; the KitPolicy's error (naming --allow-kits) otherwise."""
        kit = skill.kit
        if isinstance(kit, str) and kit in self.kits.allowed:
            self.kits.resolve(service, kit)  # refused when it widened since start
            return
        resolved = service.resolve_kit(kit)
        tools = [spec.name for spec in resolved.tools.values() if spec.name != SKILL_FILE_TOOL]
        if tools:
            self.kits.resolve_tools(service, tools)


# -- prompts ------------------------------------------------------------------------------


class SkillPrompts:
    """The prompts of a server: one per skill its SkillPolicy allows, computed on each request."""

    def __init__(self, service: LackpyService, skills: SkillPolicy) -> None:
        self.service, self.skills = service, skills

    async def names(self) -> list[str]:
        """The names of the skills a client may use now (what completions offer)."""
        return [row["name"] for row in await asyncio.to_thread(self.skills.rows, self.service)]

    async def list(self) -> list[Prompt]:
        rows = await asyncio.to_thread(self.skills.rows, self.service)
        return [
            Prompt(
                name=row["name"],
                description=row["description"],
                arguments=[PromptArgument(name=a["name"], description=a["description"] or None, required=a["required"]) for a in row["arguments"]],
                _meta={GRADE_META: row["grade"]},
            )
            for row in rows
        ]

    async def get(self, name: str, arguments: dict[str, Any] | None) -> GetPromptResult:
        """The skill's prompt; a protocol error (invalid params) with lackpy's one line when it cannot be given."""
        try:
            return await asyncio.to_thread(self._get, name, arguments)
        except LackpyError as exc:
            raise invalid_params(exc) from None

    def _get(self, name: str, arguments: dict[str, Any] | None) -> GetPromptResult:
        skill = self.skills.skill(self.service, name)
        text = prompt_text(skill, self.service, arguments)
        return GetPromptResult(description=skill.description, messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))])


def prompt_text(skill: Skill, service: LackpyService, arguments: dict[str, Any] | None) -> str:
    """What a host hands its model for ``skill``: the SKILL.md body, how to run it, the values, the tools, its program."""
    given = dict(arguments or {})
    takes = {a.name for a in skill.arguments}
    unknown = sorted(set(given) - takes)
    if unknown:
        raise ParamError(f"skill '{skill.name}' takes no argument {', '.join(unknown)} (it takes: {', '.join(sorted(takes)) or 'none'})")
    values = skill.inputs(given)  # ParamError naming a required argument that is missing
    kit = service.skill_kit(skill.name)
    parts = [
        skill.body().rstrip("\n"),
        "",
        "## Running this skill",
        "",
        f'Run a program with this skill\'s kit through the run_program tool, with skill="{skill.name}" and no kit, '
        "and these values as params; the program reads them as variables:",
        *([f"  {key} = {value!r}" for key, value in values.items()] or ["  (none)"]),
        "",
        f"The tools its programs may call (kit {_kit_shown(skill.kit)}, with {SKILL_FILE_TOOL}, which reads the skill's own files):",
        *tool_lines(kit),
        "",
        f"Its programs may reach grade {skill_grade(skill, service.read_only_grade)} "
        f"({'as it declares' if skill.grade is not None else 'read-only, as it declares no grade'}); a run with it that reaches further is refused.",
    ]
    if skill.program is not None:
        parts += ["", f"Its program {PROGRAMS}/{skill.program}.py, which does the job:", "```python", skill.program_text().rstrip("\n"), "```"]
    others = [p for p in skill.programs if p != skill.program]
    if others:
        parts += ["", "Its other programs: " + ", ".join(f"{SKILLS_URI}/{skill.name}/{PROGRAMS}/{p}.py" for p in others)]
    if skill.references:
        parts += ["", "References to read when needed: " + ", ".join(f"{SKILLS_URI}/{skill.name}/{REFERENCES}/{r}" for r in skill.references)]
    return "\n".join(parts) + "\n"


def _kit_shown(kit: str | list[str]) -> str:
    return kit if isinstance(kit, str) else ", ".join(kit)


# -- resources ----------------------------------------------------------------------------


def add_skill_resources(server: MCPServer, service: LackpyService, skills: SkillPolicy) -> None:
    """``lackpy://skills`` (JSON rows), ``lackpy://skills/{name}`` (the SKILL.md body, markdown) and its files.

    The body is served as markdown, as ``lackpy://docs/{tool}`` serves a doc:
    it is what a model reads; the row in ``lackpy://skills`` carries the
    rest (kit, arguments, programs, references). A skill the server does not
    allow, or a file that is not one of the skill's references or programs,
    is a resource error (invalid params) saying so; nothing else is read.
    """

    @server.resource(SKILLS_URI, name="skills", description="The skills this server offers: name, description, kit, arguments, programs, references.",
                     mime_type="application/json")
    async def listed() -> str:
        rows = await asyncio.to_thread(skills.rows, service)
        return json.dumps({"skills": rows}, indent=2, ensure_ascii=False)

    @server.resource(SKILLS_URI + "/{name}", name="skill", description="A skill's SKILL.md body: what it is for and how to do it.", mime_type="text/markdown")
    async def body(name: str) -> str:
        return await _read(lambda: skills.skill(service, name).body())

    @server.resource(SKILLS_URI + "/{name}/references/{file}", name="skill-reference", description="One of a skill's references (its references/ files).",
                     mime_type="text/markdown")
    async def reference(name: str, file: str) -> str:
        return await _read(lambda: _reference(skills.skill(service, name), file))

    @server.resource(SKILLS_URI + "/{name}/programs/{file}", name="skill-program", description="One of a skill's programs (programs/NAME.py).",
                     mime_type="text/x-python")
    async def program(name: str, file: str) -> str:
        return await _read(lambda: _program(skills.skill(service, name), file))


def _reference(skill: Skill, file: str) -> str:
    return _file(skill, REFERENCES, file, set(skill.references))


def _program(skill: Skill, file: str) -> str:
    return _file(skill, PROGRAMS, file, {f"{p}.py" for p in skill.programs})


def _file(skill: Skill, folder: str, file: str, offered: set[str]) -> str:
    """``folder/file`` of ``skill`` when ``file`` is one it lists there; ParamError naming them otherwise."""
    if file not in offered:
        raise ParamError(f"skill '{skill.name}' has no {folder} file {file!r} (it has: {', '.join(sorted(offered)) or 'none'})")
    return skill.read_text(f"{folder}/{file}")


async def _read(read: Any) -> str:
    """``read()`` off the loop; a LackpyError as a JSON-RPC invalid-params error with its one line (nothing logged: the
    client asked for what is not there), a disk's error as one without its path."""
    try:
        return await asyncio.to_thread(read)
    except LackpyError as exc:
        raise invalid_params(exc) from None
    except OSError as exc:
        raise MCPError(code=INVALID_PARAMS, message=f"the skill cannot be read now ({exc.strerror or 'disk error'}); try again") from None


def invalid_params(exc: LackpyError) -> MCPError:
    """A JSON-RPC invalid-params error carrying lackpy's one line of ``exc``."""
    return MCPError(code=INVALID_PARAMS, message=_one_line(str(exc)))


def _one_line(message: str) -> str:
    return " ".join(message.split())


__all__ = ["SKILLS_URI", "SkillPolicy", "SkillPrompts", "add_skill_resources", "invalid_params", "prompt_text"]
