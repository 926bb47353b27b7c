"""search_tools: find the run's own tools by words, so a kit of many remote tools need not list every signature up front.

A kit with more tools than a prompt should hold (``[mcp] list_tools_up_to`` in the
prompt) lists its servers instead, and a program asks ``search_tools`` for the
signatures it needs. The search covers only the tools the run's kit holds,
under the names the program calls them by. It ranks with
``lackpy.kit.search``, the scorer ``lackpy tools search`` and
``Toolbox.search`` use, so a program finds what a user would.
"""

from __future__ import annotations

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.kit.search import query_terms, rank
from lackpy.tools import shipped

MAX_RESULTS = 50


@shipped(
    grade=(0, 0),
    docs="docs/tools/search_tools.md",
    examples=['[t["signature"] for t in search_tools("issues")]'],
    tags=["tools", "search", "find", "signature", "help", "discover", "lookup", "catalog", "capability"],
    category="system",
)
def search_tools(ctx: ToolContext, query: str, limit: int = 8) -> list[dict]:
    """Find this kit's tools by words of their name, tags, category or description: [{name, signature, description}], best first.

    Args:
        query: Words to look for, e.g. "list issues" or a server's name.
        limit: How many tools at most (1-50).
    """
    if not 1 <= limit <= MAX_RESULTS:
        raise ToolError(f"search_tools: limit must be from 1 to {MAX_RESULTS}, got {limit}")
    if not query_terms(query):
        raise ToolError('search_tools: give words to look for, e.g. search_tools("issues")')
    others = {alias: spec for alias, spec in ctx.tools.items() if alias != "search_tools"}
    return [
        {"name": found.name, "signature": found.spec.signature(found.name), "description": found.spec.description}
        for found in rank(query, others, limit)
    ]


TOOLS = [search_tools]
