"""Choosing tools for an intent when the caller names no kit.

The smallest set of toolbox tools whose names, descriptions and tags cover the
intent's words, chosen greedily, and never above a grade ceiling (read-only
unless the caller raises it): a tool that could write, run commands or reach
the network is offered only when the caller allowed that power.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from lackpy.infer.terms import terms
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade


def within(spec: ToolSpec, ceiling: Grade) -> bool:
    return spec.grade_w <= ceiling.w and spec.effects_ceiling <= ceiling.d


def _vocabulary(spec: ToolSpec) -> frozenset[str]:
    return terms(" ".join([spec.name, spec.description, *spec.tags]))


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
    tool that covers most of the intent's uncovered words (words of its name
    count twice; ties go to the less powerful tool, then by name), until no
    tool adds a word. Returns [] when nothing matches.
    """
    allowed = {spec.name: spec for spec in specs if within(spec, ceiling)}
    for tools in needs:
        if tools and all(name in allowed for name in tools):
            return list(dict.fromkeys(tools))
    wanted = set(terms(intent))
    chosen: list[str] = []
    while wanted:
        scored = [
            (-(len(wanted & _vocabulary(spec)) + len(wanted & terms(name))), spec.grade_w + spec.effects_ceiling, name)
            for name, spec in allowed.items()
            if name not in chosen
        ]
        if not scored or min(scored)[0] == 0:
            break
        best = min(scored)[2]
        chosen.append(best)
        wanted -= _vocabulary(allowed[best])
    return chosen


__all__ = ["choose_tools", "within"]
