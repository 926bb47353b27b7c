"""The skills a service offers: those found, judged by their kits and by trust; and the intents that route to them.

A skill runs with its kit and ``skill_file``. One whose kit does not resolve
is listed with the reason and does not run. The trust rules of kits hold:
an untrusted workspace's skill (from ``.lackpy/skills`` or ``[skills]
paths``) whose kit reaches above the read-only grade is listed as ignored,
with the reason and how to trust, and does not run. The person's own skills
and the packages' are theirs, as their config is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from lackpy.errors import LackpyError, ParamError, closest
from lackpy.infer.fill import captured
from lackpy.infer.understand.words import normalize_intent
from lackpy.lang.grade import Grade
from lackpy.skills.skill import Skill
from lackpy.skills.sources import Found

#: The tool a skill's programs read the skill's own files with; every skill's kit has it.
SKILL_FILE_TOOL = "skill_file"


@dataclass(frozen=True)
class Catalog:
    """The skills that run, by name, and every skill and left-out folder as ``lackpy skill list`` shows them."""

    skills: Mapping[str, Skill]
    rows: tuple[dict, ...]
    ignored: Mapping[str, str]

    def get(self, name: str) -> Skill:
        """The skill ``name``; ParamError saying why when it does not run, or naming the closest when there is none."""
        if not isinstance(name, str) or not name:
            raise ParamError("give a skill's name; lackpy skill list shows them")
        if name in self.skills:
            return self.skills[name]
        if name in self.ignored:
            raise ParamError(f"skill '{name}' does not run: {self.ignored[name]}")
        raise ParamError(f"unknown skill '{name}'{closest(name, self.skills)}; lackpy skill list shows the skills")

    def choose(self, intent: str, skill: str | None, kit_named: bool, fits: Callable[[Skill], bool]) -> tuple[Skill | None, str | None, dict]:
        """The skill a delegation uses, the program its intents route to and the values they captured (else None, None, {}):
        the skill named, else, when no kit is named, one whose intents match and whose kit ``fits`` (the ceiling)."""
        if skill is None and kit_named:
            return None, None, {}
        routed = self.route(intent)
        if skill is not None:
            chosen = self.get(skill)
            return (chosen, routed[1], routed[2]) if routed is not None and routed[0] is chosen else (chosen, None, {})
        if routed is not None:
            return routed if fits(routed[0]) else (None, None, {})
        named = self.named_in(intent)
        return (named, None, {}) if named is not None and fits(named) else (None, None, {})

    def named_in(self, intent: str) -> Skill | None:
        """The skill an intent asks for by name (``use todo-report to ...``, ``... with the todo report skill``): a model is
        then guided by it. Only by name and as a skill, so a skill named with a common word takes no other intent."""
        words = f" {' '.join(normalize_intent(intent).lower().replace('-', ' ').split())} "
        for skill in self.skills.values():
            name = skill.name.replace("-", " ")
            if any(form in words for form in (f" {name} skill ", f" skill {name} ", f" use {name} ", f" using {name} ")):
                return skill
        return None

    def route(self, intent: str) -> tuple[Skill, str, dict[str, str]] | None:
        """The first skill whose intents match ``intent``: (skill, program, the values its pattern captured)."""
        for skill in self.skills.values():
            for entry in skill.intents:
                values = captured(entry.pattern, intent)
                if values is not None:
                    return skill, entry.program, values
        return None


def judge(found: Found, grade_of: Callable[[Skill], Grade], read_only: Grade, trusted: bool, workspace: str) -> Catalog:
    """The catalog of ``found``: ``grade_of(skill)`` resolves a skill's kit (raising LackpyError when it cannot)."""
    skills: dict[str, Skill] = {}
    ignored: dict[str, str] = {}
    rows = []
    for skill in found.skills:
        row = skill.row()
        try:
            grade = grade_of(skill)
        except LackpyError as exc:
            why = f"its kit does not resolve: {exc}"
        else:
            row["grade"] = grade.to_dict()
            above = skill.from_workspace and not trusted and not grade.within(read_only)
            why = f"its kit is above read-only ({grade}) and this workspace is not trusted; if you trust it, run: lackpy trust {workspace}" if above else None
        row["ignored"] = why
        rows.append(row)
        if why is None:
            skills[skill.name] = skill
        else:
            ignored[skill.name] = why
    rows += [left.row() for left in found.left_out]
    return Catalog(skills, tuple(rows), ignored)


__all__ = ["SKILL_FILE_TOOL", "Catalog", "judge"]
