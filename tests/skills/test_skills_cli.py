"""Skills from the command line: lackpy skill list|info|new|run, run --skill, delegate --skill and generate --skill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli
from tests.skills.test_skills import write_skill

TAG = 'skill_file("assets/tag.txt").strip()\n'


@pytest.fixture
def invoke(workspace: Path):
    """Run the CLI in-process against the test workspace (its src/ holds three TODOs)."""

    def call(*args: str, input: str | None = None):
        return CliRunner().invoke(cli, list(args), input=input, env={"LACKPY_WORKSPACE": str(workspace)})

    return call


@pytest.fixture
def skills(workspace: Path) -> Path:
    """The workspace's .lackpy/skills, with the skill ``notes`` (kit [grep], an optional ``folder``)."""
    parent = workspace / ".lackpy" / "skills"
    write_skill(parent)
    (workspace / "docs").mkdir()
    (workspace / "docs" / "a.md").write_text("NOTE: check this\n")
    return parent


def one_line_error(result, says: str) -> None:
    """Bad input: exit 2, nothing on stdout, one line on stderr that says ``says``, no traceback."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("lackpy: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr


def test_skill_list_shows_the_workspace_skill_and_the_shipped_one(invoke, skills):
    result = invoke("skill", "list")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[:5] for line in lines if line.startswith(("notes ", "todo-report "))] == [
        ["todo-report", "plugin", "grep", "w=1", "d=0"],
        ["notes", "workspace", "grep", "w=1", "d=0"],
    ]
    assert any(line.startswith("notes ") and "Lists the notes of a folder" in line for line in lines)
    rows = {row["name"]: row for row in json.loads(invoke("skill", "list", "--json").stdout)}
    assert rows["notes"]["source"] == "workspace" and rows["notes"]["kit"] == ["grep"] and rows["notes"]["ignored"] is None
    assert rows["todo-report"]["programs"] == ["count", "report"] and rows["todo-report"]["program"] == "report"


def test_skill_list_cuts_a_long_description_to_one_line(invoke, skills, workspace):
    folder = workspace / ".lackpy" / "skills" / "long"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: long\ndescription: " + "word " * 150 + "end\n---\nBody.\n")
    line = next(line for line in invoke("skill", "list").stdout.splitlines() if line.startswith("long "))
    assert line.endswith("…") and "end" not in line and len(line) <= 120


def test_an_untrusted_skill_above_read_only_is_listed_as_ignored_with_why_and_does_not_run(invoke, workspace):
    write_skill(workspace / ".lackpy" / "skills", tools="coding", grade="[3, 3]")
    lines = invoke("skill", "list").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("notes "))
    assert lines[at].split()[:5] == ["notes", "workspace", "coding", "w=3", "d=3"]
    assert lines[at + 1].strip().startswith("ignored: it declares grade w=3 d=3, above read-only")
    assert f"lackpy trust {workspace}" in lines[at + 1]
    row = next(row for row in json.loads(invoke("skill", "list", "--json").stdout) if row["name"] == "notes")
    assert "above read-only" in row["ignored"]
    one_line_error(invoke("skill", "run", "notes", "-p", "folder=docs"), "skill 'notes' does not run: it declares grade w=3 d=3, above read-only")


def test_an_untrusted_workspaces_skill_says_its_intents_wait_for_trust(invoke, skills, workspace, trusted):
    lines = invoke("skill", "list").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("notes "))
    assert "its intents route delegate once you trust this workspace" in lines[at + 1]
    assert invoke("delegate", "notes of docs", "--json").exit_code != 0  # not routed: the rules tier has no such intent
    trusted(workspace)
    routed = json.loads(invoke("delegate", "notes of docs", "--json").stdout)
    assert routed["provider"] == "skill" and routed["execution"]["output"] == ["docs/a.md", "tagged"]


def test_a_folder_that_is_not_a_skill_is_listed_with_what_to_fix(invoke, skills):
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nNo description.\n")
    line = next(line for line in invoke("skill", "list").stdout.splitlines() if line.startswith("broken "))
    assert "left out:" in line and "'description' must say what the skill is for" in line


def test_skill_info_shows_kit_signatures_programs_intents_arguments_references_and_body(invoke):
    result = invoke("skill", "info", "todo-report")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("skill todo-report: Reports the TODO, FIXME, XXX and HACK notes")
    assert "\ngrade: w=1 d=0 (read-only: it declares none; no program run with it reaches further)\nkit: grep  (its grade: w=1 d=0)\n" in out
    assert "\n  skill_file(path: str) -> str " in out and "\n  grep(pattern: str" in out
    assert "\nprograms: count, report (default)\n" in out
    assert "\n  'todo report for {folder}' -> report\n" in out and "\n  'how many todos per folder' -> count\n" in out
    assert "\n  folder (optional): The folder to report on" in out
    assert "\nreferences: conventions.md\n" in out
    assert "\n# TODO report\n" in out and out.endswith("note that this report reads well.\n")
    info = json.loads(invoke("skill", "info", "todo-report", "--json").stdout)
    assert [tool["name"] for tool in info["tools"]] == ["grep", "skill_file"] and info["grade"] == {"w": 1, "d": 0}
    assert info["kit"] == ["grep"] and info["program"] == "report" and info["references"] == ["conventions.md"]
    assert info["arguments"] == [{"name": "folder", "description": "The folder to report on (default the whole workspace).", "required": False}]
    assert info["body"].startswith("# TODO report\n") and info["source"] == "plugin" and info["path"].endswith("todo-report")


def test_skill_info_never_writes_a_skills_control_characters_to_the_terminal(invoke, workspace):
    folder = workspace / ".lackpy" / "skills" / "loud"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text('---\nname: loud\ndescription: "Red \\e[31m words"\n---\n# Loud\n\n\x1b]0;pwned\x07Body\ttext.\n')
    result = invoke("skill", "info", "loud")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "skill loud: Red [31m words" in result.stdout and "]0;pwnedBody\ttext.\n" in result.stdout
    assert "\x1b" not in invoke("skill", "list").stdout


def test_skill_new_then_run_it(invoke, workspace):
    result = invoke("skill", "new", "release-notes", "--description", "Collects what changed. Use it before a release.")
    assert result.exit_code == 0, result.output
    folder = workspace / ".lackpy" / "skills" / "release-notes"
    assert result.stdout.splitlines() == [
        f"created {folder}",
        f"next: write its steps in {folder}/SKILL.md and {folder}/programs/main.py, then: lackpy skill run release-notes",
    ]
    assert (folder / "programs" / "main.py").is_file()
    ran = invoke("skill", "run", "release-notes")
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout) == ["README.md"]
    one_line_error(invoke("skill", "new", "release-notes", "-d", "Again."), "already exists")
    assert invoke("skill", "new", "release-notes", "-d", "Again.", "--force").exit_code == 0


def test_skill_new_takes_a_kit_or_tools_and_says_when_trust_keeps_it_from_running(invoke, workspace):
    result = invoke("skill", "new", "finder", "-d", "Finds files.", "--tools", "find_files,read_file", "--json")
    assert json.loads(result.stdout) == {"created": str(workspace / ".lackpy" / "skills" / "finder"), "name": "finder", "ignored": None}
    assert "tools:\n- find_files\n- read_file\n" in (workspace / ".lackpy" / "skills" / "finder" / "SKILL.md").read_text()
    coding = invoke("skill", "new", "fixer", "-d", "Fixes things.", "--tools", "coding")
    assert coding.exit_code == 0 and coding.stdout.startswith("created ")
    assert "lackpy: skill 'fixer' does not run yet: it declares grade w=3 d=3, above read-only" in coding.stderr
    assert "grade:\n- 3\n- 3\n" in (workspace / ".lackpy" / "skills" / "fixer" / "SKILL.md").read_text()
    one_line_error(invoke("skill", "new", "bad", "-d", "Bad.", "--tools", "no_such_tool"), "no_such_tool")
    one_line_error(invoke("skill", "new", "Bad", "-d", "Bad."), "skill name 'Bad' is not valid")


def test_skill_run_runs_a_named_program_with_params(invoke, skills):
    result = invoke("skill", "run", "notes", "--param", "folder=docs", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["output"] == ["docs/a.md", "tagged"]
    assert [entry["tool"] for entry in data["trace"]] == ["grep", "skill_file"]
    counted = invoke("skill", "run", "todo-report", "count", "--trace")
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.stdout) == {"src": 3}
    assert counted.stderr.startswith("[1] skill_file(path='assets/markers.txt') -> ")
    report = json.loads(invoke("skill", "run", "todo-report", "-p", "folder=src/pkg").stdout)
    assert report == {"notes": 1, "files": 1, "by_file": {"src/pkg/util.py": ["2: return 1  # TODO: three"]}}


def test_skill_run_bad_input_is_one_line(invoke, skills, workspace):
    one_line_error(invoke("skill", "run", "nope"), "unknown skill 'nope'")
    one_line_error(invoke("skill", "run", "todo-report", "nope"), "skill 'todo-report' has no program 'nope' (it has: count, report)")
    write_skill(workspace / ".lackpy" / "skills", "needs", required="true")
    one_line_error(invoke("skill", "run", "needs"), "skill 'needs' needs folder; give it as --param folder=VALUE")
    one_line_error(invoke("skill", "info", "nope"), "unknown skill 'nope'")
    (workspace / ".lackpy" / "skills" / "plain").mkdir()
    (workspace / ".lackpy" / "skills" / "plain" / "SKILL.md").write_text("---\nname: plain\ndescription: Words only.\n---\nDo it.\n")
    one_line_error(invoke("skill", "run", "plain"), "skill 'plain' has no programs; write one in")
    error = json.loads(invoke("skill", "run", "nope", "--json").stdout)["error"]
    assert error["kind"] == "param" and "unknown skill 'nope'" in error["message"]


def test_run_with_a_skill_from_a_file_and_from_stdin(invoke, skills, workspace):
    path = workspace.parent / "tag.py"
    path.write_text(TAG)
    result = invoke("run", "--skill", "notes", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout == "tagged\n"
    piped = invoke("run", "--skill", "notes", "-p", "folder=docs", "--json", "-", input=TAG)
    assert json.loads(piped.stdout)["output"] == "tagged"


def test_run_with_a_skill_has_the_skills_kit_and_nothing_more(invoke, skills):
    result = invoke("run", "--skill", "notes", "--json", "-", input='read_file("README.md")\n')
    assert result.exit_code == 2
    assert "read_file" in json.loads(result.stdout)["error"]
    without = invoke("run", "--kit", "readonly", "--json", "-", input=TAG)
    assert without.exit_code != 0 and "skill_file" in json.loads(without.stdout)["error"]


def test_a_skill_and_a_kit_together_are_refused_in_one_line(invoke, skills):
    one_line_error(invoke("run", "--skill", "notes", "--kit", "readonly", "-", input=TAG), "skill 'notes' runs with its own kit")
    one_line_error(invoke("run", "--skill", "notes", "--tools", "read_file", "-", input=TAG), "runs with its own kit")
    one_line_error(invoke("delegate", "--skill", "notes", "--kit", "readonly", "notes of docs"), "runs with its own kit")
    one_line_error(invoke("run", "--skill", "nope", "-", input=TAG), "unknown skill 'nope'")


def test_delegate_routes_an_intent_to_the_shipped_skill_offline(invoke):
    result = invoke("delegate", "todo report for src", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["provider"] == "skill" and data["kit"]["skill"] == "todo-report"
    output = data["execution"]["output"]
    assert output["notes"] == 3 and sorted(output["by_file"]) == ["src/app.py", "src/pkg/util.py"]
    text = invoke("delegate", "how many todos per folder")
    assert text.exit_code == 0 and json.loads(text.stdout) == {"src": 3}


def test_delegate_and_generate_with_a_named_skill(invoke, skills):
    result = invoke("delegate", "--skill", "notes", "notes of docs", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["kit"]["skill"] == "notes" and data["execution"]["output"] == ["docs/a.md", "tagged"]
    generated = invoke("generate", "--skill", "todo-report", "how many todos per folder")
    assert generated.exit_code == 0, generated.output
    assert generated.stdout.startswith("# How many notes each top-level folder holds")
    assert "lackpy: by skill" in generated.stderr and "for tools grep, skill_file" in generated.stderr
    one_line_error(invoke("delegate", "--skill", "notes", "--save-as", "x", "notes of docs"), "save it in the skill's programs/ folder")


def test_skill_run_takes_runs_options_dry_run_and_yes(invoke, workspace, trusted):
    write_skill(workspace / ".lackpy" / "skills", "writer", tools="[write_file]", program='write_file("out.txt", "x")\n"done"\n', grade="[3, 3]")
    trusted(workspace)
    dry = invoke("skill", "run", "writer", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.startswith("done\n") and "lackpy: dry run: would create out.txt" in dry.stderr
    assert not (workspace / "out.txt").exists()
    assert invoke("skill", "run", "writer", "--yes").exit_code == 0
    assert (workspace / "out.txt").read_text() == "x"
