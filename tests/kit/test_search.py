"""Toolbox.search and lackpy.kit.search: ranking tools by name, tags, category and description, and the categories tools carry."""

from __future__ import annotations

import pytest

from lackpy.errors import ParamError, SpecError
from lackpy.kit.decorator import tool
from lackpy.kit.search import Hit, query_terms, rank, related, stem
from lackpy.kit.spec import CATEGORIES, ToolSpec
from lackpy.kit.toolbox import Toolbox


@tool(grade=(2, 2), tags=["email", "notify", "mail"], category="communication")
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email to a recipient."""
    return to


@tool(grade=(2, 2), tags=["upload", "transfer"], category="system")
def send_file(path: str, host: str) -> str:
    """Upload a workspace file to a remote host."""
    return host


@tool(grade=(0, 0), tags=["rows"], category="data/exploration")
def summarize_table(name: str) -> str:
    """Summarize a table."""
    return name


@tool(grade=(0, 0), tags=["rows"], category="productivity")
def summarize_notes(name: str) -> str:
    """Summarize a table."""
    return name


@pytest.fixture
def box(toolbox: Toolbox) -> Toolbox:
    """The built-in tools plus four user tools, two of them communication tools."""
    for fn in (send_email, send_file, summarize_table, summarize_notes):
        toolbox.register(fn)
    return toolbox


def names(found) -> list[str]:
    return [match.name for match in found]


def test_a_notification_finds_the_tool_tagged_notify_first(box):
    """'notification' matches the 'notify' tag, which lifts send_email above the other 'send' tool."""
    found = box.search("send a notification")
    assert names(found) == ["send_email", "send_file"]
    assert found[0].hits == (Hit("send", "name", "send"), Hit("notification", "tag", "notify"))
    assert found[0].score == 5 and found[0].category == "communication"
    assert found[0].why() == "name send; tag notify"


@pytest.mark.parametrize(
    "query, first",
    [
        ("save text to a file", "write_file"),
        ("download a web page", "fetch_url"),
        ("list the files in the folder", "list_dir"),
        ("open a terminal and execute a script", "run_command"),
        ("kill a background process", "stop_process"),
        ("update the checklist", "todo_set"),
        ("lines that mention TODO", "grep"),
    ],
)
def test_the_builtin_tools_are_found_by_what_a_user_would_type(box, query, first):
    assert names(box.search(query))[0] == first


def test_a_matching_category_ranks_a_tool_first(box):
    """Two tools alike but for their category: the one filed under the query's word wins, and says why."""
    found = box.search("summarize data")
    assert names(found) == ["summarize_table", "summarize_notes"]
    assert Hit("data", "category", "data") in found[0].hits
    assert found[0].score == found[1].score + 2


def test_a_category_alone_browses_it(box):
    assert set(names(box.search("research"))) == {"fetch_url", "web_search"}
    assert names(box.search("communication")) == ["send_email"]


def test_the_exact_name_comes_first_however_it_is_written(box):
    for query in ("write_file", "write file", "WriteFile"):
        found = box.search(query)
        assert found[0].name == "write_file" and found[0].hits[0].signal == "exact"
    assert box.search("grep")[0].why() == "exact name; name grep"


def test_a_typo_of_a_name_is_still_found(box):
    found = box.search("wrte a file")
    assert found[0].name == "write_file" and Hit("wrte", "close", "write") in found[0].hits


def test_ties_are_deterministic(box):
    """Equal scores go to the better supported tool, then by name, every time."""
    first = box.search("file", limit=None)
    assert [m.score for m in first] == sorted((m.score for m in first), reverse=True)
    tied = [m for m in first if m.score == first[0].score]
    assert len(tied) > 1 and tied == sorted(tied, key=lambda m: (-m.support, m.name))
    assert all(names(box.search("file", limit=None)) == names(first) for _ in range(3))
    shell = box.search("shell", limit=None)
    assert names(shell)[:2] == ["run_command", "start_process"]  # a tag of every process tool, but in these two descriptions too
    assert {m.score for m in shell} == {2} and shell[1].support > shell[2].support


@pytest.mark.parametrize("query", ["compose a haiku about autumn", "zzz", "", "   ", "the of and", "a"])
def test_words_no_tool_has_find_nothing(box, query):
    assert box.search(query) == []


def test_limit_and_a_subset_under_aliases(box):
    assert len(box.search("file", limit=2)) == 2
    assert len(box.search("file", limit=None)) > 5
    found = box.search("read a file", tools={"cat": "read_file", "save": "write_file"})
    assert names(found) == ["cat", "save"]
    assert found[0].to_dict()["signature"].startswith("cat(path: str") and found[0].to_dict()["tool"] == "read_file"
    assert names(box.search("file", tools=["grep", "read_file"])) == ["read_file", "grep"]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ParamError, match="limit"):
            box.search("file", limit=bad)


def test_a_match_as_plain_data(box):
    data = box.search("send a notification", limit=1)[0].to_dict()
    assert data == {
        "name": "send_email",
        "tool": "send_email",
        "score": 5,
        "category": "communication",
        "signature": "send_email(to: str, subject: str, body: str) -> str",
        "description": "Send an email to a recipient.",
        "matched": [{"term": "send", "signal": "name", "word": "send"}, {"term": "notification", "signal": "tag", "word": "notify"}],
    }


def test_normalisation_is_small_and_deterministic():
    assert query_terms("Send a notification to the files_dir and GitHubIssues") == ("send", "notification", "file", "dir", "git", "hub", "issue")
    assert [stem(w) for w in ("files", "directories", "running", "saving", "string", "speed", "processes")] == [
        "file", "directory", "run", "sav", "string", "speed", "processe",
    ]
    assert related("notification", "notify") and related("sav", "save") and related("processe", "process")
    assert related("create", "creation") and related("edit", "editor")
    assert not related("read", "readme") and not related("time", "timeout") and not related("test", "text")


def test_rank_takes_any_mapping_of_specs():
    specs = {"ping": ToolSpec("ping", "p", description="Check that a host answers.", tags=["network"], category="system")}
    assert names(rank("network check", specs)) == ["ping"]


# -- categories ---------------------------------------------------------------


def test_every_builtin_tool_has_a_known_category_and_tags(box):
    shipped = [spec for spec in box.list_tools() if spec.provider == "builtin"]
    assert len(shipped) >= 16
    for spec in shipped:
        assert spec.category in CATEGORIES, spec.name
        assert len(spec.tags) >= 5, spec.name
    assert box.get("run_command").category == "development/execution"
    assert {"shell", "exec", "terminal"} <= set(box.get("run_command").tags)
    assert {"save", "create"} <= set(box.get("write_file").tags)
    assert {"http", "download", "web", "page"} <= set(box.get("fetch_url").tags)


def test_a_tool_declares_its_category_and_defaults_to_none():
    assert send_email.lackpy_tool.category == "communication"

    @tool
    def plain(x: int) -> int:
        return x

    assert plain.lackpy_tool.category == "" and plain.lackpy_tool.to_dict()["category"] == ""
    custom = ToolSpec("bill", "p", category="finance/billing")
    assert ToolSpec(**custom.to_dict()) == custom


@pytest.mark.parametrize("category", ["Data", "data/", "/data", "data visualization", "données", 3])
def test_a_malformed_category_is_refused(category):
    with pytest.raises(SpecError, match="category"):
        ToolSpec("t", "p", category=category)


def test_tags_are_a_list_of_words():
    with pytest.raises(SpecError, match="tags must be a list"):
        tool(tags="notify")(lambda: None)
    for bad in ("notify", ["ok", ""], ["ok", 3], None):
        with pytest.raises(SpecError, match="tags must be a list"):
            ToolSpec("t", "p", tags=bad)
    assert ToolSpec("t", "p", tags=("a", "b")).tags == ["a", "b"]


def test_a_service_searches_its_toolbox(service):
    """svc.toolbox.search is the Python face of `lackpy tools search`, user tools included."""
    service.toolbox.register(send_email)
    found = service.toolbox.search("send a notification")
    assert found[0].name == "send_email" and found[0].to_dict()["category"] == "communication"
    assert service.toolbox.search("download a web page", limit=1)[0].name == "fetch_url"
