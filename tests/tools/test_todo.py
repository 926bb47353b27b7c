"""The session checklist: todo_set replaces it, todo_read returns it, per service session."""

from __future__ import annotations

import asyncio

import pytest

from lackpy import LackpyService
from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools.todo import MAX_ITEMS, todo_read, todo_set


def test_set_and_read(tmp_path):
    """Strings become pending items; dicts keep their status; ids count from 1."""
    ctx = ToolContext(tmp_path)
    assert todo_read(ctx) == []
    stored = todo_set(ctx, ["read", {"text": "fix", "status": "active"}, {"text": " ship ", "status": "done"}])
    assert stored == [
        {"id": 1, "text": "read", "status": "pending"},
        {"id": 2, "text": "fix", "status": "active"},
        {"id": 3, "text": "ship", "status": "done"},
    ]
    assert todo_read(ctx) == stored
    todo_read(ctx)[0]["status"] = "done"  # a copy: the stored list does not change
    assert todo_read(ctx)[0]["status"] == "pending"
    assert todo_set(ctx, []) == [] and todo_read(ctx) == []


@pytest.mark.parametrize(
    "items, message",
    [
        ("read", "items must be a list"),
        ([3], "item 1 must be a string or a dict"),
        (["ok", {"text": ""}], "item 2 needs a non-empty 'text'"),
        ([{"text": "x", "status": "later"}], "status 'later'; use one of: pending, active, done"),
        (["x"] * (MAX_ITEMS + 1), f"at most {MAX_ITEMS} items"),
    ],
    ids=["not-a-list", "bad-item", "empty-text", "bad-status", "too-many"],
)
def test_bad_items_are_refused(tmp_path, items, message):
    """Every malformed checklist is refused with a clear message and the old list kept."""
    ctx = ToolContext(tmp_path)
    todo_set(ctx, ["keep"])
    with pytest.raises(ToolError, match=message):
        todo_set(ctx, items)
    assert [t["text"] for t in todo_read(ctx)] == ["keep"]


def test_each_service_has_its_own_checklist(workspace):
    """Runs of one service share the checklist; another service (session) does not see it."""
    first, second = LackpyService(workspace), LackpyService(workspace)
    asyncio.run(first.run_program('todo_set(["a", "b"])', kit="coding"))
    again = asyncio.run(first.run_program('[t["text"] for t in todo_read()]', kit="coding"))
    other = asyncio.run(second.run_program("todo_read()", kit="coding"))
    assert again.output == ["a", "b"] and other.output == []
