"""A checklist per service session: todo_set replaces it, todo_read returns it.

Each service instance (each MCP session) has its own list, kept in the
ToolContext's tool state (``ctx.state``), so every run of that service sees it.
"""

from __future__ import annotations

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools import shipped

STATUSES = ("pending", "active", "done")
MAX_ITEMS = 200
MAX_TEXT = 500


def _item(index: int, value: object) -> dict:
    if isinstance(value, str):
        text, status = value, "pending"
    elif isinstance(value, dict):
        text, status = value.get("text"), value.get("status", "pending")
    else:
        raise ToolError(f"todo_set: item {index} must be a string or a dict with 'text' and 'status'")
    if not isinstance(text, str) or not text.strip():
        raise ToolError(f"todo_set: item {index} needs a non-empty 'text'")
    if status not in STATUSES:
        raise ToolError(f"todo_set: item {index} has status {status!r}; use one of: {', '.join(STATUSES)}")
    return {"id": index, "text": text.strip()[:MAX_TEXT], "status": status}


@shipped(
    grade=(0, 1),
    docs="docs/tools/todo_set.md",
    examples=['todo_set(["read the config", {"text": "fix the test", "status": "active"}])'],
    tags=["todo", "checklist", "plan", "tasks", "track", "progress", "update", "mark", "done"],
    category="productivity",
)
def todo_set(ctx: ToolContext, items: list[str | dict]) -> list[dict]:
    """Replace the session's checklist with items (strings, or {'text', 'status'} with pending/active/done).

    Args:
        items: The whole checklist, in order.
    """
    if len(items) > MAX_ITEMS:
        raise ToolError(f"todo_set: at most {MAX_ITEMS} items")
    checklist = [_item(i, value) for i, value in enumerate(items, start=1)]
    ctx.state["todo"] = checklist
    return [dict(item) for item in checklist]


@shipped(
    grade=(0, 0),
    docs="docs/tools/todo_read.md",
    examples=['[t["text"] for t in todo_read() if t["status"] != "done"]'],
    tags=["todo", "checklist", "plan", "tasks", "track", "progress", "status", "remaining"],
    category="productivity",
)
def todo_read(ctx: ToolContext) -> list[dict]:
    """The session's checklist: [{'id', 'text', 'status'}]."""
    return [dict(item) for item in ctx.state.get("todo", [])]


TOOLS = [todo_set, todo_read]
