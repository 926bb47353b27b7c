"""The checks and settings one service gives each run of a call: its kit, checks, ceiling, gatekeeper, guardrails and session.

``LackpyService.validate``, ``run_program`` and ``delegate`` take them from
here. The configured checks are imported once (until ``forget``). A run
with a skill never reaches past the grade the skill declares (a skill
another MCP server serves: read-only unless the person raises the ceiling).
An invalid program is answered at once, never queued (``settle``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from lackpy.approvals.gatekeeper import Answering, Gatekeeper, Gatekeepers
from lackpy.kit.resolve import KitSpec, ResolvedKit
from lackpy.kit.resultkeys import WithWarnings, declared_checks, learned_warnings
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.validator import Check
from lackpy.run.compiler import prepare
from lackpy.run.guardrails import Guardrails
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import check_params, prepared_for, run_with
from lackpy.run.scheduler import tool_events
from lackpy.run.settings import OnEvent, RunSettings
from lackpy.service.kits import CeilingSpec, Kits
from lackpy.service.skills import Skills
from lackpy.session import Session
from lackpy.skills.catalog import skill_grade
from lackpy.skills.remote import RemoteSkill, split_name
from lackpy.skills.skill import Skill
from lackpy.workspace import Workspace


@dataclass(frozen=True)
class Asked:
    """How a call asks its runs to go, as ``run_program`` takes it: ``mode``, ``limits``, ``dry_run``, ``ceiling``,
    the call's own ``checks`` and its ``session``."""

    mode: str | None = None
    limits: Any = None
    dry_run: bool = False
    ceiling: CeilingSpec = None
    checks: Sequence[Check] | None = None
    session: Session | None = None


class Runs:
    """The checks and run settings of ``workspace``'s calls; ``notices`` are the service's."""

    def __init__(self, workspace: Workspace, kits: Kits, skills: Skills, gatekeepers: Gatekeepers, guardrails: Guardrails, notices: list[str]) -> None:
        self.workspace, self.kits, self.skills = workspace, kits, skills
        self.gatekeepers, self.guardrails, self.notices = gatekeepers, guardrails, notices
        self._config_checks: list[Check] | None = None

    def forget(self) -> None:
        """Import the configured checks again on next use (trust or the config changed)."""
        self._config_checks = None

    @property
    def checks_loaded(self) -> bool:
        """Whether the configured checks are imported already (a call then needs nothing slow of them)."""
        return self._config_checks is not None

    def checks(self, extra: Sequence[Check] | None = None) -> tuple[Check, ...]:
        """The configured custom checks (imported once), then ``extra``."""
        if self._config_checks is None:
            self._config_checks = self.workspace.load().config.load_checks()
        return tuple(self._config_checks) + tuple(extra or ())

    def validate(
        self, program: str, resolved: ResolvedKit, params: Mapping[str, Any] | Iterable[str] | None, checks: Sequence[Check] | None
    ) -> ValidationResult:
        """``program`` checked against ``resolved`` without running it, with its grade and the notices a caller should see."""
        names = tuple(sorted(params or ()))
        check_params(dict.fromkeys(names), resolved.names)
        result = prepare(program, resolved.names, names, self.checks(checks) + declared_checks(resolved)).validation
        own = resolved.grade_of(result.calls) if result.valid else None
        notices = list(self.notices) + (learned_warnings(program, resolved) if result.valid else [])
        return dataclasses.replace(result, notices=notices, grade=own, risk=own.risk if own is not None else None)

    def settings(
        self, kit: ResolvedKit, params: Mapping[str, Any] | None, events: OnEvent | None, answering: Answering, asked: Asked, skill: Skill | None = None
    ) -> RunSettings:
        """The settings of a call's runs (``run_with(program, settings, cancel)``); ``answering`` is who answers its approvals."""
        config, session = self.workspace.load().config, asked.session
        limit = self.kits.ceiling_grade(asked.ceiling)
        if skill is not None:  # a run with a skill never reaches past the grade the skill declares
            declared = skill_grade(skill, self.workspace.load().read_only)
            if isinstance(skill, RemoteSkill):  # what it declares is a request: read-only unless the person raises the ceiling
                declared = declared.meet(self.kits.ceiling(asked.ceiling))
            limit = declared if limit is None else limit.meet(declared)
        return RunSettings(
            kit=kit, params=params, checks=self.checks(asked.checks) + declared_checks(kit), limits=asked.limits, mode=asked.mode or config.mode,
            dry_run=asked.dry_run, sandbox=config.sandbox, notices=self.notices, state=session.state if session is not None else None,
            on_call=tool_events(events), on_progress=events, ceiling=limit, guardrails=self.guardrails.hooks(),
            gatekeeper=self.gatekeeper(kit, answering), skill=skill, origin=skill.origin if isinstance(skill, RemoteSkill) else None,
            session_worker=session.worker() if session is not None and config.session_worker else None,
        )

    def gatekeeper(self, kit: ResolvedKit, answering: Answering) -> Gatekeeper:
        """The gates of a call's runs with ``kit``, answered as ``answering`` says."""
        loaded = self.workspace.load()
        return self.gatekeepers.get(kit, loaded.config.approvals, answering, trusted=loaded.trusted, audit=loaded.config.audit)

    def settle(
        self, program: str, kit: KitSpec, extra_tools: Iterable[str] | None, skill: str | Skill | None, params: Mapping[str, Any] | None,
        events: OnEvent | None, answering: Answering, asked: Asked,
    ) -> tuple[RunSettings, ExecutionResult | None]:
        """The settings of a run of ``program``, and its result already when the program is invalid (answered at once, never queued).

        With ``skill``, the run uses that skill's kit (one a server already resolved for it is used as it is).
        """
        chosen = self.skills.chosen(skill)
        remote = isinstance(skill, RemoteSkill) or split_name(skill) is not None
        if chosen is None:
            resolved = self.kits.resolve(kit, extra_tools)
        else:
            resolved = kit if isinstance(kit, ResolvedKit) and not remote else self.skills.kit(chosen)
        inputs = asked.session.inputs(params, resolved.names) if asked.session is not None else params
        inputs = chosen.inputs(inputs) if chosen is not None else inputs
        settings = warned(self.settings(resolved, inputs, events, answering, asked, chosen), learned_warnings(program, resolved))
        if settings.mode == "inprocess":
            return settings, None
        # The run's own check of the program is then a lookup in prepare's cache (by text, names, params and checks).
        valid = prepared_for(program, resolved, inputs, settings.checks).code is not None
        return settings, None if valid else run_with(program, settings)


def warned(settings: RunSettings, warnings: list[str]) -> RunSettings:
    """``settings`` whose result's notices end with ``warnings`` (keys a learned result shape lacks: said, and the program runs)."""
    return dataclasses.replace(settings, notices=WithWarnings(settings.notices, warnings)) if warnings else settings


__all__ = ["Asked", "Runs", "warned"]
