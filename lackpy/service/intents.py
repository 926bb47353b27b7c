"""From an intent to a program, and its run: the inference tiers, the kit planned, the skill it uses.

``LackpyService`` hands ``generate`` and ``delegate`` here (and ``tiers``,
``tier_list``, ``plan_kit``). With no kit named, tools are chosen from the
intent under the ceiling; an intent a skill's ``intents`` match runs that
skill's program first (``SkillTier``). A delegated program is validated,
repaired and run with the settings of ``lackpy.service.runs``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from lackpy.approvals.gatekeeper import Answering
from lackpy.errors import ParamError
from lackpy.infer.base import Request, Tier
from lackpy.infer.dispatch import Dispatcher
from lackpy.infer.result import DelegateResult, GenerationResult, described
from lackpy.infer.select import tools_for
from lackpy.infer.tiers import build_tiers, tier_rows
from lackpy.kit.resolve import KitSpec, ResolvedKit
from lackpy.run.cancel import Cancel
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import check_params, run_with
from lackpy.run.settings import OnEvent
from lackpy.service.kits import CeilingSpec, Kits
from lackpy.service.runs import Asked, Runs
from lackpy.service.skills import Skills, one_kit
from lackpy.skills import remote as served
from lackpy.skills.catalog import SKILL_FILE_TOOL
from lackpy.skills.remote import split_name
from lackpy.skills.skill import Skill
from lackpy.skills.tier import SkillTier
from lackpy.workspace import Workspace


class Wanted(NamedTuple):
    """What a call asks a program for: the intent, the kit it names (and extra tools), the params, the ceiling and the skill."""

    intent: Any
    kit: KitSpec = None
    params: Mapping[str, Any] | None = None
    extra_tools: Iterable[str] | None = None
    ceiling: CeilingSpec = None
    skill: str | None = None


class Intents:
    """The tiers of ``workspace`` (built once, until ``forget``), the programs they write and the runs of those."""

    def __init__(self, workspace: Workspace, kits: Kits, skills: Skills, runs: Runs) -> None:
        self.workspace, self.kits, self.skills, self.runs = workspace, kits, skills, runs
        self._tiers: list[Tier] | None = None

    def forget(self) -> None:
        """Build the tiers again on next use (trust or the config changed)."""
        self._tiers = None

    def tiers(self) -> list[Tier]:
        """The configured inference tiers, in order (built once)."""
        if self._tiers is None:
            self._tiers = build_tiers(self.workspace.load().config.inference, self.workspace.root)
        return self._tiers

    def rows(self) -> list[dict]:
        """Each configured tier: whether it can serve now, and why not."""
        self.workspace.follow()
        return tier_rows(self.tiers())

    def plan(self, intent: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None, ceiling: CeilingSpec = None) -> tuple[ResolvedKit, dict]:
        """The kit for an intent: the one named, or tools chosen from the intent under ``ceiling``."""
        self.workspace.follow()
        if kit is not None:
            resolved = self.kits.resolve(kit, extra_tools)
            return resolved, {"name": resolved.name, "tools": sorted(resolved.tools), "chosen": False}
        limit = self.kits.ceiling(ceiling)
        needs = [list(self.kits.resolve(need).aliases().values()) for need in (tier.needs(intent) for tier in self.tiers()) if need]
        offered = [spec for spec in self.workspace.load().toolbox.list_tools() if spec.name != SKILL_FILE_TOOL]  # it serves a skill's runs only
        tools = tools_for(intent, offered, limit, needs, lambda: self.kits.resolve(None).tools)
        resolved = self.kits.resolve(tools, extra_tools)
        return resolved, {"name": None, "tools": sorted(resolved.tools), "chosen": True, "ceiling": limit.to_dict()}

    def dispatcher(self, on_event: OnEvent | None, first: Sequence[Tier] = ()) -> Dispatcher:
        """The tiers in order, after ``first`` (a skill's program its intents route to)."""
        inference = self.workspace.load().config.inference
        return Dispatcher([*first, *self.tiers()], inference, checks=self.runs.checks(), read_doc=self.kits.resolve_doc, on_event=on_event)

    def generated(self, wanted: Wanted, events: OnEvent | None) -> GenerationResult:
        """A validated program for the intent, not run. Raises GenerationError when no tier can write one."""
        request, kit_info, _, first = self.request(wanted)
        outcome = self.dispatcher(events, first).dispatch(request)
        return GenerationResult(**described(request, kit_info, outcome, self.runs.notices))

    def delegated(self, wanted: Wanted, events: OnEvent | None, answering: Answering, asked: Asked, cancel: Cancel) -> DelegateResult:
        """A program written for the intent, validated, repaired and run as ``asked``, until ``cancel`` ends the delegation."""
        request, kit_info, chosen, first = self.request(wanted)
        settings = self.runs.settings(request.kit, request.params, events, answering, asked, chosen)
        session = asked.session

        def run(program: str) -> ExecutionResult:  # a cancelled run ends the delegation with what it had done (no repair, no next tier)
            result = run_with(program, settings, cancel)
            return session.answered(result, False) if session is not None else result

        outcome = self.dispatcher(events, first).dispatch(request, run)
        execution = outcome.execution
        return DelegateResult(
            **described(request, kit_info, outcome, self.runs.notices),
            success=execution is not None and execution.success,
            execution=execution,
            execution_ms=outcome.execution_ms,
        )

    def request(self, wanted: Wanted) -> tuple[Request, dict, Skill | None, list[Tier]]:
        """The request for an intent, the kit as planned, the skill it uses, and the tiers that go first (a skill's program)."""
        intent, kit, params, extra_tools, ceiling, skill = wanted
        if not isinstance(intent, str) or not intent.strip():
            raise ParamError("give an intent, e.g. lackpy delegate \"count TODOs in python files\"")
        one_kit(kit, extra_tools, skill)
        if split_name(skill) is not None:
            raise ParamError(served.not_here(skill, "delegate"))
        fits = lambda found: self.skills.kit(found).grade.within(self.kits.ceiling(ceiling))  # noqa: E731 (asked only of a routed skill)
        chosen, program, values = self.skills.catalog().choose(intent, skill, kit is not None, fits)
        if chosen is not None:
            resolved = self.skills.kit(chosen)
            kit_info = {"name": resolved.name, "tools": sorted(resolved.tools), "chosen": skill is None, "skill": chosen.name}
        else:
            resolved, kit_info = self.plan(intent, kit, extra_tools, ceiling)
        params = {**values, **dict(params or {})}
        params = chosen.inputs(params) if chosen is not None else params
        check_params(params, resolved.names)
        loaded = self.workspace.load()
        program_ceiling = None if loaded.trusted else loaded.read_only
        guide = chosen.guide() if chosen is not None else None
        request = Request(intent.strip(), resolved, params, self.workspace.root, program_ceiling=program_ceiling, guide=guide)
        return request, kit_info, chosen, [SkillTier(chosen, program)] if program is not None else []


__all__ = ["Intents", "Wanted"]
