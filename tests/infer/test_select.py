"""Choosing tools from the intent when no kit is named."""

from __future__ import annotations

import pytest

from lackpy.infer.select import choose_tools
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import Grade
from lackpy.plugins import populate

READ_ONLY = Grade(1, 0)
EVERYTHING = Grade(3, 3)


@pytest.fixture
def specs(tmp_path):
    box = Toolbox(str(tmp_path))
    populate(box)
    return box.list_tools()


@pytest.mark.parametrize(
    "intent, tools",
    [
        ("list the src directory", ["list_dir"]),
        ("read the README file", ["read_file"]),
        ("grep for imports", ["grep"]),
        ("find files matching a glob", ["find_files"]),
    ],
)
def test_the_smallest_matching_set_under_the_read_only_ceiling(specs, intent, tools):
    assert choose_tools(intent, specs, READ_ONLY) == tools


def test_powerful_tools_need_a_raised_ceiling(specs):
    assert choose_tools("run the tests", specs, READ_ONLY) == []
    assert choose_tools("run the tests", specs, EVERYTHING) == ["run_command"]
    assert choose_tools("fetch the web page", specs, READ_ONLY) == []
    assert "fetch_url" in choose_tools("fetch the web page", specs, EVERYTHING)


def test_every_chosen_tool_fits_under_the_ceiling(specs):
    by_name = {s.name: s for s in specs}
    for intent in ["write and edit files then run a command", "search the web and fetch pages", "todo list plan"]:
        for name in choose_tools(intent, specs, READ_ONLY):
            assert by_name[name].grade_w <= 1 and by_name[name].effects_ceiling == 0


def test_a_deterministic_tiers_needs_win_when_they_fit(specs):
    assert choose_tools("count TODOs", specs, READ_ONLY, needs=[("find_files", "read_file")]) == ["find_files", "read_file"]
    # a need above the ceiling is passed over for the word match
    assert choose_tools("list the src directory", specs, READ_ONLY, needs=[("run_command",)]) == ["list_dir"]


def test_nothing_matches_gives_no_tools(specs):
    assert choose_tools("compose a haiku about autumn", specs, EVERYTHING) == []


def test_the_choice_ranks_with_the_tool_search_scorer(tmp_path):
    """delegate's choice and `lackpy tools search` share lackpy.kit.search: a 'notify' tag covers 'notification'."""
    from lackpy.kit.decorator import tool

    @tool(grade=(2, 2), tags=["email", "notify"], category="communication")
    def send_email(to: str, body: str) -> str:
        """Send an email to a recipient."""
        return to

    box = Toolbox(str(tmp_path))
    populate(box)
    box.register(send_email)
    assert box.search("send a notification")[0].name == "send_email"
    assert choose_tools("send a notification", box.list_tools(), EVERYTHING) == ["send_email"]
    assert choose_tools("send a notification", box.list_tools(), READ_ONLY) == []
    assert choose_tools("save the notes to a file", box.list_tools(), EVERYTHING) == ["write_file"]
