"""search_tools: the run's own tools, found by words of their names, descriptions and tags."""

from __future__ import annotations

import pytest

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools.builtin import SUITE_SPECS
from lackpy.tools.catalog import search_tools

SPECS = {spec.name: spec for spec in SUITE_SPECS}


@pytest.fixture
def ctx(tmp_path) -> ToolContext:
    context = ToolContext(tmp_path)
    context.tools = {"read": SPECS["read_file"], "grep": SPECS["grep"], "write_file": SPECS["write_file"], "search_tools": SPECS["search_tools"]}
    return context


def test_names_weigh_most_and_aliases_are_what_programs_call(ctx):
    found = search_tools(ctx, "write file")
    assert found[0] == {"name": "write_file", "signature": SPECS["write_file"].signature(), "description": SPECS["write_file"].description}
    assert [t["name"] for t in search_tools(ctx, "read")][0] == "read"
    assert search_tools(ctx, "read")[0]["signature"].startswith("read(path: str")


def test_only_the_kits_tools_and_never_itself(ctx):
    names = {t["name"] for t in search_tools(ctx, "search file files text pattern regex tools", limit=50)}
    assert names <= {"read", "grep", "write_file"} and "grep" in names


@pytest.mark.parametrize("query, limit, message", [("", 8, "give words"), ("  ", 8, "give words"), ("x", 0, "limit must be"), ("x", 51, "limit must be")])
def test_bad_queries_say_what_to_do(ctx, query, limit, message):
    with pytest.raises(ToolError, match=message):
        search_tools(ctx, query, limit)


def test_outside_a_run_there_is_nothing_to_find(tmp_path):
    assert search_tools(ToolContext(tmp_path), "read") == []


def test_it_ranks_with_the_toolbox_scorer_over_tags_and_categories(ctx):
    """search_tools and Toolbox.search rank alike: 'notification' finds a 'notify' tag, a category word its tools."""
    from lackpy.kit.search import rank
    from lackpy.kit.spec import ToolSpec

    ctx.tools["chat__post"] = ToolSpec("chat__post", "mcp", description="Post a message.", tags=["mcp", "chat", "notify"], category="communication")
    assert [t["name"] for t in search_tools(ctx, "send a notification")] == ["chat__post"]
    assert [t["name"] for t in search_tools(ctx, "communication")] == ["chat__post"]
    assert [t["name"] for t in search_tools(ctx, "chat")] == ["chat__post"]  # a server's name is a tag of its tools
    query = "save text to a file"
    others = {alias: spec for alias, spec in ctx.tools.items() if alias != "search_tools"}
    assert [t["name"] for t in search_tools(ctx, query)] == [m.name for m in rank(query, others, 8)]
    assert [t["name"] for t in search_tools(ctx, query)][0] == "write_file"
