"""A skill's program as a deterministic tier: ``delegate`` serves an intent its ``intents`` match with no model.

The service puts this tier first for one request when the intent matches a
pattern of a skill it offers: the program named there runs with the skill's
kit, and the values the pattern captured (``count TODOs in {path}``) are its
parameters, never spliced into its text. A program that does not validate
hands over to the configured tiers, as any deterministic tier's does.
"""

from __future__ import annotations

from lackpy.infer.base import Proposal, Request, Tier
from lackpy.skills.skill import Skill


class SkillTier(Tier):
    """Proposes ``program`` of ``skill``; its parameters are in the request."""

    name = "skill"
    model = False

    def __init__(self, skill: Skill, program: str) -> None:
        super().__init__()
        self.skill, self.program = skill, program

    def propose(self, request: Request) -> Proposal | None:
        return Proposal(program=self.skill.program_text(self.program), detail=f"skill {self.skill.name} ({self.program}.py)")

    def describe(self) -> str:
        return f"skill {self.skill.name}"


__all__ = ["SkillTier"]
