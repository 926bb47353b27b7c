"""The session checklist: todo_set replaces it, todo_read returns it, per service session."""

from __future__ import annotations

import asyncio

import pytest

from lackpy import LackpyService
from lackpy.errors import ArgumentError, ToolError
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate
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
    "items, error, message",
    [
        ("read", ArgumentError, "todo_set: argument 'items' expects a list of a str or a dict, got 'read' (str)"),
        ([3], ArgumentError, "todo_set: argument 'items' expects a list of a str or a dict, got [3] (list)"),
        (["ok", {"text": ""}], ToolError, "todo_set: item 2 needs a non-empty 'text'"),
        ([{"text": "x", "status": "later"}], ToolError, "todo_set: item 1 has status 'later'; use one of: pending, active, done"),
        (["x"] * (MAX_ITEMS + 1), ToolError, f"todo_set: at most {MAX_ITEMS} items"),
    ],
    ids=["not-a-list", "bad-item", "empty-text", "bad-status", "too-many"],
)
def test_bad_items_are_refused(tmp_path, items, error, message):
    """Every malformed checklist is refused, as a program calls todo_set, with a clear message and the old list kept."""
    toolbox = Toolbox(str(tmp_path))
    populate(toolbox)
    todo_set_tool, todo_read_tool = toolbox.bound("todo_set"), toolbox.bound("todo_read")
    todo_set_tool(["keep"])
    with pytest.raises(error) as info:
        todo_set_tool(items)
    assert type(info.value) is error
    assert str(info.value) == message
    assert [t["text"] for t in todo_read_tool()] == ["keep"]


def test_the_function_itself_still_refuses_a_bad_item(tmp_path):
    """Called directly (no argument check), todo_set still refuses an item that is neither str nor dict."""
    ctx = ToolContext(tmp_path)
    with pytest.raises(ToolError, match="^todo_set: item 1 must be a string or a dict with 'text' and 'status'$"):
        todo_set(ctx, [3])
    assert todo_read(ctx) == []


def test_each_service_has_its_own_checklist(workspace):
    """Runs of one service share the checklist; another service (session) does not see it."""
    first, second = LackpyService(workspace), LackpyService(workspace)
    asyncio.run(first.run_program('todo_set(["a", "b"])', kit="coding"))
    again = asyncio.run(first.run_program('[t["text"] for t in todo_read()]', kit="coding"))
    other = asyncio.run(second.run_program("todo_read()", kit="coding"))
    assert again.output == ["a", "b"] and other.output == []
