"""search_tools: find the run's own tools by words, so a kit of many remote tools need not list every signature up front.

A kit with more tools than a prompt should hold (``[mcp] list_tools_up_to`` in the
prompt) lists its servers instead, and a program asks ``search_tools`` for the
signatures it needs. The search covers only the tools the run's kit holds,
under the names the program calls them by.
"""

from __future__ import annotations

import re

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools import shipped

MAX_RESULTS = 50
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


@shipped(
    grade=(0, 0),
    docs="docs/tools/search_tools.md",
    examples=['[t["signature"] for t in search_tools("issues")]'],
    tags=["tools", "search", "find", "signature", "help"],
)
def search_tools(ctx: ToolContext, query: str, limit: int = 8) -> list[dict]:
    """Find this kit's tools by words of their name, description or tags: [{name, signature, description}], best first.

    Args:
        query: Words to look for, e.g. "list issues" or a server's name.
        limit: How many tools at most (1-50).
    """
    if not 1 <= limit <= MAX_RESULTS:
        raise ToolError(f"search_tools: limit must be from 1 to {MAX_RESULTS}, got {limit}")
    wanted = _words(query)
    if not wanted:
        raise ToolError('search_tools: give words to look for, e.g. search_tools("issues")')
    scored = []
    for alias, spec in ctx.kit.items():
        if alias == "search_tools":
            continue
        name, tags, text = _words(alias), _words(" ".join(spec.tags)), _words(spec.description)
        score = 3 * len(wanted & name) + 2 * len(wanted & tags) + len(wanted & text)
        if score:
            scored.append((-score, alias, spec))
    scored.sort(key=lambda item: item[:2])
    return [{"name": alias, "signature": spec.signature(alias), "description": spec.description} for _, alias, spec in scored[:limit]]


TOOLS = [search_tools]
