"""The lackpy CLI: every command, JSON output, exit codes and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli

REPO = Path(__file__).resolve().parent.parent
COUNT = 'files = find_files("**/*.py")\nsum(read_file(f).count("TODO") for f in files)\n'


@pytest.fixture
def invoke(workspace: Path):
    """Run the CLI in-process against the test workspace."""

    def call(*args: str, input: str | bytes | None = None):
        runner = CliRunner()
        return runner.invoke(cli, ["--help"] if not args else list(args), input=input, env={"LACKPY_WORKSPACE": str(workspace)})

    return call


@pytest.fixture
def program(workspace: Path):
    def write(text: str | bytes, name: str = "prog.py") -> str:
        path = workspace.parent / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return str(path)

    return write


def test_run_prints_the_result(invoke, program):
    """run prints the output value and exits 0."""
    result = invoke("run", "--kit", "readonly", program(COUNT))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "3"


def test_run_json(invoke, program):
    """run --json prints one document with result, trace, grade, printed and timing."""
    result = invoke("run", "--kit", "readonly", "--json", program('print("hi")\n' + COUNT))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["success"] is True and data["output"] == 3 and data["printed"] == "hi\n"
    assert data["grade"] == {"w": 1, "d": 0} and data["error"] is None
    assert [e["tool"] for e in data["trace"]] == ["find_files", "read_file", "read_file"]
    assert {"step", "tool", "args", "result", "duration_ms", "success", "error"} <= set(data["trace"][0])
    assert data["duration_ms"] > 0


def test_run_reads_stdin_and_params(invoke):
    """run - reads the program from stdin; --param values are JSON when they parse."""
    result = invoke("run", "-k", "none", "-p", "n=41", "-p", "who=world", "--json", "-", input="f'{who} {n + 1}'")
    assert json.loads(result.stdout)["output"] == "world 42"


def test_run_with_extra_tools(invoke, program, workspace):
    """--tools adds tools to the kit and raises the grade."""
    result = invoke("run", "--yes", "-k", "readonly", "--tools", "write_file", "--json", program('write_file("out.txt", "x")'))
    assert result.exit_code == 0 and json.loads(result.stdout)["grade"] == {"w": 3, "d": 3}
    assert (workspace / "out.txt").read_text() == "x"


def test_run_trace_goes_to_stderr(invoke, program):
    """--trace prints one line per tool call on stderr, leaving stdout for the result."""
    result = invoke("run", "-k", "readonly", "--trace", program('read_file("README.md")[:6]'))
    assert result.stdout.strip() == "# Demo"
    assert result.stderr.startswith("[1] read_file(path='README.md') -> ")


def test_runtime_failure_exits_1(invoke, program):
    """A program that fails while running exits 1 with the line and error."""
    result = invoke("run", "-k", "readonly", program('x = read_file("missing.txt")'))
    assert result.exit_code == 1
    assert result.stderr.strip() == "lackpy: error: line 1: PathError in read_file: no such file: missing.txt"


def test_invalid_program_exits_2(invoke, program):
    """An invalid program exits 2 with every diagnostic on its own line."""
    result = invoke("run", "-k", "readonly", program("import os\nx = open('f')"))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and "forbidden-node" in lines[0] and "forbidden-name" in lines[1]
    assert "use read_file(path) instead of open()" in lines[1]


def test_validate(invoke, program):
    """validate prints valid or the diagnostics; --json has code/message/line/col/hint."""
    ok = invoke("validate", "-k", "readonly", program(COUNT))
    assert ok.exit_code == 0 and ok.stdout.strip() == "valid"
    bad = invoke("validate", "-k", "readonly", "--json", program("while x:\n    pass"))
    assert bad.exit_code == 2
    data = json.loads(bad.stdout)
    assert data["valid"] is False and set(data) == {"valid", "errors", "calls", "variables", "notices", "grade", "risk"}
    assert data["grade"] is None and data["risk"] is None  # an invalid program has no grade of its own
    assert set(data["errors"][0]) == {"code", "message", "line", "col", "hint"}
    assert data["errors"][0]["code"] == "forbidden-node" and data["errors"][0]["line"] == 1


def test_validate_knows_params(invoke, program):
    """validate --param declares parameter names."""
    assert invoke("validate", "-k", "readonly", "-p", "path", program("read_file(path)")).exit_code == 0
    assert invoke("validate", "-k", "readonly", program("read_file(path)")).exit_code == 2


def test_kit_list_info_create(invoke, workspace):
    """kit list/info/create work and create refuses to overwrite or use unknown tools."""
    listing = json.loads(invoke("kit", "list", "--json").stdout)
    assert {k["name"] for k in listing} >= {"filesystem", "readonly"}
    info = json.loads(invoke("kit", "info", "filesystem", "--json").stdout)
    assert info["grade"] == {"w": 3, "d": 3} and len(info["tools"]) == 6
    text = invoke("kit", "info", "read_file,find_files").stdout
    assert "grade: w=1 d=0" in text and "read_file(path: str, offset: int | None = None, limit: int | None = None) -> str" in text
    created = invoke("kit", "create", "mine", "--tools", "read_file,find_files", "--description", "Mine")
    assert created.exit_code == 0 and (workspace / ".lackpy" / "kits" / "mine.kit").is_file()
    again = invoke("kit", "create", "mine", "--tools", "read_file")
    assert again.exit_code == 2 and "--force" in again.stderr
    assert invoke("kit", "create", "mine", "--tools", "read_file", "--force").exit_code == 0
    unknown = invoke("kit", "create", "other", "--tools", "read_fiel")
    assert unknown.exit_code == 2 and "did you mean: read_file" in unknown.stderr


def test_kit_info_reports_unknown_frontmatter(invoke, workspace):
    """Unknown frontmatter keys are kept and shown by kit info."""
    kits = workspace / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "odd.kit").write_text("---\nname: odd\nowner: team-a\n---\nread_file\n")
    result = invoke("kit", "info", "odd")
    assert "unknown frontmatter key (kept): owner = 'team-a'" in result.stdout


def test_docs_and_tools_and_spec(invoke):
    """docs index/show, tools and spec print what they promise."""
    index = json.loads(invoke("docs", "index", "--kit", "readonly", "--json").stdout)
    assert index == {"tool_docs": {n: f"docs/tools/{n}.md" for n in ["read_file", "list_dir", "find_files", "grep"]}, "kit_docs": []}
    assert invoke("docs", "show", "read_file").stdout.startswith("# read_file")
    tools = json.loads(invoke("tools", "--json").stdout)
    assert [t["name"] for t in tools] == ["edit_file", "fetch_url", "find_files", "grep", "list_dir", "list_processes", "poll_process", "read_file", "run_command", "search_tools", "skill_file", "start_process", "stop_process", "todo_read", "todo_set", "web_search", "write_file"]
    spec = json.loads(invoke("spec").stdout)
    assert set(spec) >= {"allowed_nodes", "forbidden_nodes", "forbidden_names", "allowed_builtins"}


@pytest.mark.parametrize(
    "setup, args, message",
    [
        (None, ["run", "--kit", "nokit", "PROG"], "unknown kit 'nokit'"),
        ("bad.kit:---\nname: [unclosed\n---\nread_file\n", ["run", "--kit", "bad", "PROG"], "frontmatter is not valid YAML"),
        ("typo.kit:read_file\nfind_flies\n", ["run", "--kit", "typo", "PROG"], "line 2: unknown tool 'find_flies' (did you mean: find_files?)"),
        (None, ["run", "--kit", "read_file,read_file", "PROG"], "duplicate tool 'read_file'"),
        (None, ["run", "--kit", "readonly", "--tools", "nope_tool", "PROG"], "unknown tool 'nope_tool'"),
        (None, ["run", "-k", "readonly", "NONUTF8"], "not UTF-8"),
        (None, ["run", "-k", "readonly", "EMPTY"], "is empty"),
        (None, ["run", "-k", "readonly", "-p", "novalue", "PROG"], "--param expects key=value"),
        (None, ["run", "-w", "/definitely/not/here", "PROG"], "workspace does not exist"),
        (None, ["run", "-k", "readonly", "/definitely/not/here.py"], "cannot read program file"),
        (None, ["docs", "show", "../../etc/passwd"], "is not one lackpy lists here"),
    ],
    ids=["missing-kit", "bad-frontmatter", "unknown-tool-in-kit", "duplicate", "unknown-extra-tool", "non-utf8", "empty", "param", "workspace", "no-file", "doc-escape"],
)
def test_bad_input_is_one_clear_line(invoke, program, workspace, setup, args, message):
    """Each bad input gets a one-line error, exit 2 and no traceback."""
    if setup:
        name, _, text = setup.partition(":")
        kits = workspace / ".lackpy" / "kits"
        kits.mkdir(parents=True, exist_ok=True)
        (kits / name).write_text(text)
    replace = {"PROG": program("1 + 1"), "NONUTF8": program(b"x = '\xff'\n", "bin.py"), "EMPTY": program("  \n# nothing\n", "empty.py")}
    result = invoke(*[replace.get(a, a) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr or message in result.output
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if "rror" in line]
    assert len(error_lines) == 1


def test_errors_as_json(invoke, program):
    """With --json an error is a JSON document with its kind."""
    result = invoke("run", "--json", "--kit", "nokit", program("1"))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["kind"] == "kit"


def test_console_script_runs_the_readme_example():
    """The installed lackpy command runs the README's example on the repository."""
    exe = Path(sys.executable).parent / "lackpy"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "lackpy.cli"]
    env = {**os.environ, "LACKPY_LOAD_PLUGINS": ""}
    done = subprocess.run([*command, "run", "--kit", "readonly", "examples/todos.py"], cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["files"] >= 5 and data["markers"] >= data["files"] and len(data["most"]) == 5
    summary = subprocess.run([*command, "run", "--kit", "filesystem", "examples/summary.py"], cwd=REPO, capture_output=True, text=True, env=env)
    largest = json.loads(summary.stdout)["largest"]
    assert summary.returncode == 0 and len(largest) == 5 and all(entry.startswith("lackpy/") and entry.endswith(" lines)") for entry in largest)
    help_text = subprocess.run([*command, "--help"], capture_output=True, text=True, env=env)
    assert help_text.returncode == 0 and "validate" in help_text.stdout


def test_dry_run_prints_the_diff_and_writes_nothing(invoke, program, workspace):
    """--dry-run shows the diff on stdout, a summary on stderr, and changes no file."""
    result = invoke("run", "-k", "filesystem", "--dry-run", program('edit_file("README.md", "draft", "final")\n"done"'))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("done\n--- a/README.md\n+++ b/README.md\n")
    assert "-Status: draft\n+Status: final\n" in result.stdout
    assert "lackpy: dry run: would modify README.md" in result.stderr
    assert (workspace / "README.md").read_text() == "# Demo\n\nStatus: draft\n"


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_timeout_and_limits_from_the_command_line(invoke, program, mode):
    """--timeout and --limit stop programs with the named limit and exit 1."""
    slow = invoke("run", "-k", "none", "--mode", mode, "--timeout", "0.3", "--json", program("for i in range(10**5):\n    for j in range(10**5):\n        pass"))
    data = json.loads(slow.stdout)
    assert slow.exit_code == 1 and data["error_kind"] == "limit" and data["limit"] == "timeout" and data["mode"] == mode
    calls = invoke("run", "-k", "readonly", "--limit", "max_tool_calls=1", program('read_file("README.md")\nread_file("README.md")'))
    assert calls.exit_code == 1 and "limit exceeded: max_tool_calls" in calls.stderr
    bad = invoke("run", "-k", "readonly", "--limit", "nope=1", program("1"))
    assert bad.exit_code == 2 and "unknown limit 'nope'" in bad.stderr


def test_mode_from_config(invoke, program, workspace, trusted):
    """mode in .lackpy/config.toml chooses where programs run (in a trusted workspace; else it stays isolated)."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('mode = "inprocess"\n')
    untrusted = invoke("run", "-k", "none", "--json", program("1"))
    assert json.loads(untrusted.stdout)["mode"] == "isolated" and "mode = " in untrusted.stderr
    trusted(workspace)
    result = invoke("run", "-k", "none", "--json", program("1"))
    assert json.loads(result.stdout)["mode"] == "inprocess"


# -- delegate, generate, template, tiers ------------------------------------------


def test_delegate_counts_todos_offline(invoke):
    result = invoke("delegate", "--kit", "filesystem", "count TODOs")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "3"


def test_delegate_json_reports_the_program_the_tier_and_the_attempts(invoke):
    result = invoke("delegate", "--kit", "readonly", "--json", "count TODOs")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["success"], data["execution"]["output"], data["provider"], data["detail"]) == (True, 3, "rules", "rule count-markers: the number of TODO markers (lines with the word TODO) in files")
    assert data["kit"] == {"name": "readonly", "tools": ["find_files", "grep", "list_dir", "read_file"], "chosen": False}
    assert [a["tier"] for a in data["attempts"]] == ["templates", "rules", "rules"]
    assert data["execution"]["trace"] and data["grade"] == {"w": 1, "d": 0}
    assert data["generation_ms"] >= 0 and data["execution_ms"] > 0


def test_delegate_show_program_prints_it_to_stderr(invoke):
    result = invoke("delegate", "--kit", "readonly", "--show-program", "list the src directory")
    assert result.exit_code == 0, result.output
    assert "lackpy: program by rules (rule list-dir: the entries of directory src):" in result.stderr
    assert 'list_dir(\'src\')' in result.stderr
    assert json.loads(result.stdout) == ["app.py", "pkg"]


def test_delegate_with_nothing_to_serve_explains_and_exits_2(invoke):
    result = invoke("delegate", "--kit", "readonly", "compose a haiku about autumn")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == "lackpy: error: no tier could write a valid program for 'compose a haiku about autumn'; what each tier tried:"
    assert "  - rules: no match for this intent" in lines
    assert any("[inference.ollama]" in line for line in lines)
    assert "Traceback" not in result.output


def test_delegate_json_failure_carries_the_attempt_log(invoke):
    result = invoke("delegate", "--kit", "readonly", "--json", "compose a haiku about autumn")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "generation"
    assert [(a["tier"], a["error"]) for a in error["attempts"]] == [
        ("templates", "no match for this intent"),
        ("rules", "no match for this intent"),
    ]


def test_delegate_save_as_then_the_template_serves(invoke, workspace):
    saved = invoke("delegate", "--kit", "readonly", "count TODO in python files", "--save-as", "count-word", "--pattern", "count {word} in python files")
    assert saved.exit_code == 0, saved.output
    assert "lackpy: saved template 'count-word'" in saved.stderr
    (workspace / "src" / "app.py").write_text("# FIXME\n# FIXME\n")
    served = invoke("delegate", "--kit", "readonly", "--json", "count FIXME in python files")
    data = json.loads(served.stdout)
    assert (data["provider"], data["execution"]["output"]) == ("templates", 2)
    listed = invoke("template", "list", "--json")
    [template] = json.loads(listed.stdout)
    assert (template["name"], template["pattern"], template["success_count"]) == ("count-word", "count {word} in python files", 1)


def test_pattern_without_save_as_is_a_usage_error(invoke):
    result = invoke("delegate", "--kit", "readonly", "count TODOs", "--pattern", "count {word}")
    assert result.exit_code == 2 and "--pattern goes with --save-as NAME" in result.output


def test_template_save_validates_the_program(invoke, program):
    bad = invoke("template", "save", program("import os\n"), "--name", "bad", "--pattern", "do {x}", "--kit", "readonly")
    assert bad.exit_code == 2
    assert bad.stderr.startswith("lackpy: error: the program is not valid for kit readonly")
    good = invoke("template", "save", program('read_file("README.md")\n'), "--name", "readme", "--pattern", "show the readme", "--kit", "readonly")
    assert good.exit_code == 0, good.output
    assert invoke("delegate", "--kit", "readonly", "show the readme").stdout == "# Demo\n\nStatus: draft\n\n"


def test_generate_prints_a_valid_program(invoke, program):
    result = invoke("generate", "--kit", "readonly", "count TODOs")
    assert result.exit_code == 0, result.output
    assert "lackpy: by rules (rule count-markers: the number of TODO markers (lines with the word TODO) in files)" in result.stderr
    ran = invoke("run", "--kit", "readonly", program(result.stdout))
    assert ran.stdout.strip() == "3"


def test_tiers_lists_readiness(invoke, workspace, trusted):
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('[inference.openai]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    trusted(workspace)
    result = invoke("tiers", "--json")
    assert result.exit_code == 0, result.output
    listing = {t["name"]: t for t in json.loads(result.stdout)}
    assert list(listing) == ["templates", "rules", "openai"]
    assert listing["rules"]["available"] is True
    assert listing["openai"]["available"] is False and "127.0.0.1:9" in listing["openai"]["reason"]


def test_delegate_through_a_configured_model(invoke, workspace, trusted):
    from tests.infer.llm_server import FakeLLM

    with FakeLLM(['```python\nsorted(e["name"] for e in list_dir("src"))\n```']) as server:
        (workspace / ".lackpy").mkdir()
        (workspace / ".lackpy" / "config.toml").write_text(
            f'[inference]\norder = ["openai"]\n[inference.openai]\nbase_url = "{server.url}/v1"\nmodel = "{server.model}"\n'
        )
        trusted(workspace)
        result = invoke("delegate", "--kit", "readonly", "--json", "names under src")
    data = json.loads(result.stdout)
    assert (data["provider"], data["execution"]["output"]) == ("openai", ["app.py", "pkg"])


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text.append(text)

    def flush(self) -> None:
        pass


def test_the_status_line_says_what_a_model_or_a_tool_says_at_once_and_wipes_itself():
    import time

    from lackpy.cli_progress import StatusLine, wanted

    terminal = _Terminal(tty=True)
    with StatusLine(terminal) as status:
        status({"event": "tier", "tier": "rules", "model": False})
        time.sleep(0.35)
        assert terminal.text == []  # no model writing, under a second: nothing
        status({"event": "tier", "tier": "ollama", "model": True})
        time.sleep(0.35)
        status({"event": "done", "tier": "ollama"})
    frames = "".join(terminal.text)
    assert "ollama: writing a program" in frames
    assert terminal.text[-1] == "\r\x1b[K"  # the line is wiped

    remote = _Terminal(tty=True)
    with StatusLine(remote) as status:
        status({"event": "progress", "tool": "notes__slow", "progress": 1, "total": 4, "message": "step 1\x1b[2J"})
        time.sleep(0.35)
        status({"event": "progress", "tool": "notes__slow", "progress": 2, "total": 4, "message": None})
        time.sleep(0.35)
    drawn = "".join(remote.text)
    assert "notes__slow: step 1[2J" in drawn and "notes__slow: 2/4" in drawn and "\x1b[2J" not in drawn
    assert remote.text[-1] == "\r\x1b[K"

    pipe = _Terminal(tty=False)
    assert not wanted(pipe, False, False) and not wanted(terminal, True, False) and not wanted(terminal, False, True)
    with StatusLine(pipe, wanted(pipe, False, False)) as quiet:
        assert quiet.on_event is None
        quiet({"event": "tier", "tier": "ollama", "model": True})
        time.sleep(0.35)
    assert pipe.text == []


def test_the_readme_command_delegates_in_a_real_process(tmp_path):
    """`lackpy delegate --kit filesystem "count TODOs"` on a workspace, as a user runs it."""
    (tmp_path / "a.py").write_text("# TODO one\n# TODO two\n")
    env = {**os.environ, "LACKPY_LOAD_PLUGINS": ""}
    done = subprocess.run(
        [sys.executable, "-m", "lackpy", "delegate", "--kit", "filesystem", "count TODOs"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2\n"  # the number alone on stdout, for a pipe; what it counts beside it, for a person
    assert done.stderr == "lackpy: 2 = the number of TODO markers (lines with the word TODO) in files\n"


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_deeply_nested_result_is_still_one_json_document(workspace: Path, mode: str):
    """A result nested 200,000 deep used to print a RecursionError traceback in-process."""
    deep = "x = []\nfor i in range(200000):\n    x = [x]\nx\n"
    done = subprocess.run(
        [sys.executable, "-m", "lackpy", "run", "-", "--json", "--mode", mode, "-w", str(workspace)],
        input=deep, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    document = json.loads(done.stdout)
    assert (document["error_kind"], document["limit"]) == ("limit", "recursion")


def test_serve_refuses_an_empty_workspace_like_every_command():
    """One --workspace option for every command: serve used to take "" as the current directory."""
    result = CliRunner().invoke(cli, ["serve", "--workspace", ""])
    assert result.exit_code == 2 and "--workspace (or LACKPY_WORKSPACE) is empty" in result.output
