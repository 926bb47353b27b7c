"""Choosing tools for an intent when the caller names no kit.

The smallest set of toolbox tools whose names, tags, categories and
descriptions cover the intent's words, chosen greedily, and never above a
grade ceiling (read-only unless the caller raises it): a tool that could
write, run commands or reach the network is offered only when the caller
allowed that power. Words are matched and weighed by ``lackpy.kit.search``,
the scorer ``lackpy tools search`` uses, so delegate picks the tools a user
searching for the same words would see first.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from lackpy.errors import KitError
from lackpy.kit.search import match, query_terms
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade


def within(spec: ToolSpec, ceiling: Grade) -> bool:
    return spec.grade_w <= ceiling.w and spec.effects_ceiling <= ceiling.d


def choose_tools(
    intent: str,
    specs: Iterable[ToolSpec],
    ceiling: Grade,
    needs: Sequence[Sequence[str]] = (),
) -> list[str]:
    """Tool names for ``intent``, smallest set first.

    ``needs`` are tool sets a deterministic tier already knows would serve the
    intent (a rule's or a template's tools); the first one that exists and
    fits under the ceiling wins. Otherwise words decide: repeatedly take the
    tool that scores best on the intent's uncovered words (``lackpy.kit.search``:
    a word of its name weighs most, then its tags and category, then its
    description; ties go to the less powerful tool, then by name), until no
    tool adds a word. Returns [] when nothing matches.
    """
    allowed = {spec.name: spec for spec in specs if within(spec, ceiling)}
    for tools in needs:
        if tools and all(name in allowed for name in tools):
            return list(dict.fromkeys(tools))
    wanted = list(query_terms(intent))
    chosen: list[str] = []
    while wanted:
        scored = []
        for name, spec in allowed.items():
            found = match(wanted, name, spec) if name not in chosen else None
            if found is not None:
                scored.append((-found.score, spec.grade_w + spec.effects_ceiling, name, found.terms))
        if not scored:
            break
        _, _, best, covered = min(scored)
        chosen.append(best)
        wanted = [term for term in wanted if term not in covered]
    return chosen


def tools_for(intent: str, specs: Sequence[ToolSpec], ceiling: Grade, needs: Sequence[Sequence[str]], fallback: Callable[[], dict[str, ToolSpec]]) -> list[str]:
    """The tools delegate gives ``intent`` when no kit is named: ``choose_tools``'s, else ``fallback()``'s (the default
    kit's) under ``ceiling``. Raises KitError when only tools above the ceiling would do, saying how to raise it."""
    tools = choose_tools(intent, specs, ceiling, needs)
    if tools:
        return tools
    stronger = choose_tools(intent, specs, Grade(3, 3))
    if stronger:
        raise KitError(
            f"{intent!r} needs {', '.join(stronger)}, above the ceiling ({ceiling}); name a kit with --kit, or raise the ceiling with --ceiling KIT"
        )
    return [alias for alias, spec in fallback().items() if within(spec, ceiling)]


__all__ = ["choose_tools", "tools_for", "within"]
