"""The skills a service offers: those found, judged by the grade they declare and by trust; and the intents that route to them.

A skill runs with its kit and ``skill_file``, and never beyond the grade it
declares (``grade: [w, d]`` in its front matter; read-only when it declares
none): every run with it has that grade as its ceiling, and a skill one of
whose own programs reaches further is listed with the reason and does not
run, so what a person reads in ``lackpy skill list`` is what the skill can
do. One whose kit does not resolve is listed with the reason and does not
run either.

The trust rules of kits hold: an untrusted workspace's skill (from
``.lackpy/skills`` or ``[skills] paths``) that declares a grade above
read-only is listed as ignored, with the reason and how to trust, and does
not run; and a workspace's skills route ``delegate`` by their intents only in
a trusted workspace (named with ``--skill`` they still run, as a person
chose). The person's own skills and the packages' are theirs, as their
config is, and come first: a workspace skill never takes their names
(``lackpy.skills.sources``) nor their intents (they are matched first).
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
class Needs:
    """What a skill's programs need: its kit's grade, and each of its programs' own grade (the tools it calls)."""

    kit: Grade
    programs: Mapping[str, Grade]


@dataclass(frozen=True)
class Catalog:
    """The skills that run, by name, and every skill and left-out folder as ``lackpy skill list`` shows them."""

    skills: Mapping[str, Skill]
    rows: tuple[dict, ...]
    ignored: Mapping[str, str]
    trusted: bool = False
    """Whether the workspace is trusted: only then do its skills' intents route ``delegate``."""

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
        if skill is not None:  # the person chose it: its own intents route, whoever wrote it
            chosen = self.get(skill)
            routed = _matched(chosen, intent)
            return (chosen, routed[0], routed[1]) if routed is not None else (chosen, None, {})
        routed = self.route(intent)
        if routed is not None:
            return routed if fits(routed[0]) else (None, None, {})
        named = self.named_in(intent)
        return (named, None, {}) if named is not None and fits(named) else (None, None, {})

    def named_in(self, intent: str) -> Skill | None:
        """The skill an intent asks for by name (``use todo-report to ...``, ``... with the todo report skill``): a model is
        then guided by it. Only by name and as a skill, so a skill named with a common word takes no other intent."""
        words = f" {' '.join(normalize_intent(intent).lower().replace('-', ' ').split())} "
        for skill in self.skills.values():
            if skill.from_workspace and not self.trusted:
                continue
            name = skill.name.replace("-", " ")
            if any(form in words for form in (f" {name} skill ", f" skill {name} ", f" use {name} ", f" using {name} ")):
                return skill
        return None

    def route(self, intent: str) -> tuple[Skill, str, dict[str, str]] | None:
        """The first skill whose intents match ``intent``: (skill, program, the values its pattern captured).

        The person's and the packages' skills are matched first; a workspace's only when it is trusted.
        """
        for skill in self.skills.values():
            if skill.from_workspace and not self.trusted:
                continue
            routed = _matched(skill, intent)
            if routed is not None:
                return skill, *routed
        return None


def _matched(skill: Skill, intent: str) -> tuple[str, dict[str, str]] | None:
    """The program of ``skill``'s first intent that matches ``intent``, and the values it captured; None when none does."""
    for entry in skill.intents:
        values = captured(entry.pattern, intent)
        if values is not None:
            return entry.program, values
    return None


def skill_grade(skill: Skill, read_only: Grade) -> Grade:
    """How far ``skill``'s programs may reach: the grade it declares, else read-only."""
    return skill.grade if skill.grade is not None else read_only


def judge(found: Found, needs_of: Callable[[Skill], Needs], read_only: Grade, trusted: bool, workspace: str) -> Catalog:
    """The catalog of ``found``: ``needs_of(skill)`` resolves a skill's kit and grades its programs (LackpyError when it cannot)."""
    skills: dict[str, Skill] = {}
    ignored: dict[str, str] = {}
    rows = []
    claimed: dict[str, str] = {}  # an intent's words -> the skill of the person's or a package's that has it
    for skill in found.skills:
        row = skill.row()
        grade = skill_grade(skill, read_only)
        row["grade"] = grade.to_dict()
        row["routes"] = trusted or not skill.from_workspace
        patterns = {" ".join(entry.pattern.lower().split()) for entry in skill.intents}
        if skill.from_workspace:
            row["intents_shadowed"] = sorted(f"{pattern!r} is {claimed[pattern]}'s" for pattern in patterns if pattern in claimed)
        else:
            claimed.update((pattern, skill.name) for pattern in patterns if pattern not in claimed)
        try:
            needs = needs_of(skill)
        except LackpyError as exc:
            why = f"its kit does not resolve: {exc}"
        else:
            row["kit_grade"] = needs.kit.to_dict()
            why = _refused(skill, grade, needs, read_only, trusted, workspace)
        row["ignored"] = why
        rows.append(row)
        if why is None:
            skills[skill.name] = skill
        else:
            ignored[skill.name] = why
    for left in found.left_out:  # a name asked for that is only a left-out folder is told why
        if left.name and left.name not in skills and left.name not in ignored:
            ignored[left.name] = f"its folder {left.where} is left out: {left.reason}"
    rows += [left.row() for left in found.left_out]
    return Catalog(skills, tuple(rows), ignored, trusted)


def _refused(skill: Skill, grade: Grade, needs: Needs, read_only: Grade, trusted: bool, workspace: str) -> str | None:
    """Why ``skill`` does not run, or None: a program of it reaching past its grade, or a grade above read-only untrusted."""
    for program, reach in sorted(needs.programs.items()):
        if not reach.within(grade):
            declared = f"the grade it declares ({grade})" if skill.grade is not None else f"read-only ({grade}), as it declares no grade"
            return (
                f"its program {program} reaches {reach}, above {declared}; if it should, say so in its SKILL.md "
                f"front matter: grade: [{max(reach.w, grade.w)}, {max(reach.d, grade.d)}]"
            )
    if skill.from_workspace and not trusted and not grade.within(read_only):
        return f"it declares grade {grade}, above read-only, and this workspace is not trusted; if you trust it, run: lackpy trust {workspace}"
    return None


__all__ = ["SKILL_FILE_TOOL", "Catalog", "Needs", "judge", "skill_grade"]
