"""`lackpy tools`: the listing with categories, and `lackpy tools search` ranking tools by words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli


@pytest.fixture
def invoke(workspace: Path):
    def call(*args: str):
        return CliRunner().invoke(cli, list(args), env={"LACKPY_WORKSPACE": str(workspace)})

    return call


def test_the_listing_is_unchanged_but_for_each_tools_category(invoke):
    listing = invoke("tools", "--json")
    assert listing.exit_code == 0, listing.output
    tools = {t["name"]: t for t in json.loads(listing.stdout)}
    assert len(tools) == 17 and tools["run_command"]["category"] == "development/execution"
    assert {"signature", "description", "provider", "grade", "docs", "category", "approval"} <= set(tools["grep"])
    assert tools["run_command"]["approval"] == "block" and tools["grep"]["approval"] == "none"
    text = invoke("tools").stdout
    assert "w=2 d=0 asks research" in text.splitlines()[1]  # fetch_url, second by name: approved before each call
    critical = json.loads(invoke("tools", "--risk", "critical", "--json").stdout)
    assert [t["name"] for t in critical] == ["edit_file", "list_processes", "poll_process", "run_command", "start_process", "stop_process", "write_file"]
    kit = json.loads(invoke("tools", "--kit", "read_file", "--json").stdout)
    assert [(t["name"], t["category"]) for t in kit] == [("read_file", "system")]


def test_search_ranks_tools_and_says_why(invoke):
    result = invoke("tools", "search", "save", "text", "to", "a", "file")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["write_file", "system", "6", "tag", "save;", "description", "text;", "name", "file"]
    assert lines[1].strip().startswith("write_file(path: str, content: str) -> str: Create or overwrite")
    assert len(lines) == 10  # five tools, two lines each


def test_search_json_limit_and_kit(invoke):
    found = json.loads(invoke("tools", "search", "download a web page", "--limit", "1", "--json").stdout)
    assert [(t["name"], t["category"], t["score"]) for t in found] == [("fetch_url", "research", 6)]
    assert {"term": "download", "signal": "tag", "word": "download"} in found[0]["matched"]
    in_kit = json.loads(invoke("tools", "search", "file", "--kit", "readonly", "--limit", "10", "--json").stdout)
    assert {t["name"] for t in in_kit} <= {"read_file", "find_files", "list_dir", "grep"} and in_kit
    assert invoke("tools", "search", "x", "--limit", "0").exit_code == 2


def test_search_finds_nothing_for_unknown_words(invoke):
    result = invoke("tools", "search", "compose a haiku")
    assert result.exit_code == 0 and result.stdout == ""
    assert "no tool matches 'compose a haiku'" in result.stderr
    assert json.loads(invoke("tools", "search", "zzz", "--json").stdout) == []


def test_options_before_search_are_refused_not_lost(invoke):
    result = invoke("tools", "--kit", "readonly", "search", "file")
    assert result.exit_code == 2 and "write --kit after 'search'" in result.output
    bare = invoke("tools", "search")
    assert bare.exit_code == 2 and "Missing argument" in bare.output


def test_lackpy_run_streams_a_commands_output_on_a_terminal_without_its_escapes(tmp_path):
    """The spinner shows a running command's latest line; escape sequences in it are dropped, never drawn."""
    import sys

    from terminal import on_terminal

    root = tmp_path / "ws"
    root.mkdir()
    (root / "cmd.py").write_text("run_command(\"printf 'building step one\\\\n\\\\033]0;owned\\\\007\\\\033[2Jcleared\\\\n'; sleep 0.6\")['code']\n")
    code, out, text = on_terminal([sys.executable, "-m", "lackpy", "run", "--kit", "coding", "--yes", "cmd.py"], root)
    assert code == 0 and out.strip() == "0"
    assert "run_command: ]0;owned[2Jcleared" in text  # the latest line, printable characters only
    assert "\x1b]0;owned" not in text and "\x1b[2J" not in text  # no escape of the command's reaches the terminal
