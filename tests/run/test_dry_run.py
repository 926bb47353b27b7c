"""A dry run changes nothing, whatever the tool: what lackpy cannot stage is held back, refused or answered with a placeholder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from lackpy import ExecutionResult, ToolSpec, Toolbox, resolve_kit, run_program, tool
from lackpy.errors import SpecError
from lackpy.kit.context import ToolContext
from lackpy.plugins import populate
from lackpy.run.trace import HeldCall

MODES = ["inprocess", "isolated"]
CANARY = "made_by_command"


@pytest.fixture
def toolbox(workspace: Path, tmp_path: Path, monkeypatch) -> Toolbox:
    """The shipped tools plus python-provider tools that leave a canary file (outside the workspace) whenever they are called."""
    canaries = tmp_path / "canaries"
    canaries.mkdir()
    monkeypatch.setenv("LACKPY_T_CANARIES", str(canaries))  # read at each call: the module is imported once for all tests
    module = tmp_path / "mods" / "dry_tools.py"
    module.parent.mkdir()
    module.write_text(
        textwrap.dedent(
            """
            import os

            def _called(name):
                with open(os.path.join(os.environ["LACKPY_T_CANARIES"], name), "a") as handle:
                    handle.write("called\\n")

            def notify(text):
                _called("notify")
                return ["sent", text]

            def launch():
                _called("launch")
                return "launched"

            def stamp():
                _called("stamp")
                return "stamped"

            def peek():
                return "peeked"
            """
        )
    )
    monkeypatch.syspath_prepend(str(module.parent))
    box = Toolbox(str(workspace))
    populate(box)
    specs = {
        "notify": dict(effects_ceiling=3, dry_run={"placeholder": ["not sent", {"dry": True}]}, args=[{"name": "text", "type": "str"}]),
        "launch": dict(effects_ceiling=1),  # no word on dry runs: its grade decides
        "stamp": dict(effects_ceiling=3, dry_run="run"),
        "peek": dict(effects_ceiling=0),
    }
    for name, fields in specs.items():
        box.register_tool(ToolSpec(name, "python", {"module": "dry_tools", "function": name}, grade_w=0, **fields))
    box.canaries = canaries  # type: ignore[attr-defined]
    return box


def called(box: Toolbox) -> list[str]:
    return sorted(os.listdir(box.canaries))  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_a_dry_run_never_runs_a_command(toolbox: Toolbox, workspace: Path, mode: str):
    """The file tools' writes are staged and shown; the command is refused as denied, and its canary never appears."""
    kit = resolve_kit("coding", toolbox)
    program = f'write_file("b.txt", "new")\nrun_command("touch {CANARY}")\n"unreached"'
    result = run_program(program, kit, mode=mode, dry_run=True)
    assert not (workspace / CANARY).exists() and not (workspace / "b.txt").exists()
    assert not result.success and result.error_kind == "denied" and result.error_line == 2
    assert result.error == (
        "line 2: DeniedError in run_command: not called: the dry run held it back, "
        "as lackpy cannot stage what it does (its spec says so); run without the dry run to call it"
    )
    assert result.dry_run and result.files_created == ["b.txt"]
    assert result.held_back == [HeldCall(2, "run_command", {"command": f"'touch {CANARY}'"}, "refused")]
    assert [(entry.tool, entry.success) for entry in result.trace] == [("write_file", True), ("run_command", False)]


@pytest.mark.parametrize(
    "call",
    ['start_process("touch made_by_command")', 'poll_process("p1")', 'stop_process("p1")', 'todo_set(["x"])'],
)
def test_every_shipped_tool_that_acts_is_held_back(toolbox: Toolbox, workspace: Path, call: str):
    """Processes and the session's checklist are not the run's staged files: a dry run calls none of them."""
    kit = resolve_kit("all", toolbox)
    result = run_program(f"{call}\n", kit, mode="inprocess", dry_run=True)
    assert result.error_kind == "denied" and [held.tool for held in result.held_back] == [call.split("(")[0]]
    assert not (workspace / CANARY).exists() and kit.context.state.get("todo") is None


def test_what_each_shipped_tool_does_in_a_dry_run(toolbox: Toolbox):
    """Commands and processes are refused; reads, listing, the web's GETs and the staged file tools run."""
    actions = {spec.name: spec.dry_run_action for spec in toolbox.list_tools()}
    refused = {name for name, action in actions.items() if action != "run"}
    assert refused >= {"run_command", "start_process", "poll_process", "stop_process", "todo_set"}
    assert {"read_file", "write_file", "edit_file", "grep", "list_processes", "fetch_url", "web_search"}.isdisjoint(refused)


@pytest.mark.parametrize("mode", MODES)
def test_the_held_back_list_is_exact_and_the_same_in_both_modes(toolbox: Toolbox, mode: str):
    """Each held call in order with its step; a placeholder is a fresh copy each call; what may run runs."""
    kit = resolve_kit(["notify", "launch", "stamp", "peek"], toolbox)
    program = 'a = peek()\nb = notify("x")\nb.append("changed")\nc = stamp()\nd = notify(text="y")\ne = [a, b, c, d]\nlaunch()'
    result = run_program(program, kit, mode=mode, dry_run=True)
    assert result.held_back == [
        HeldCall(2, "notify", {"text": "'x'"}, "placeholder"),
        HeldCall(4, "notify", {"text": "'y'"}, "placeholder"),
        HeldCall(5, "launch", {}, "refused"),
    ]
    assert result.variables["e"] == ["peeked", ["not sent", {"dry": True}, "changed"], "stamped", ["not sent", {"dry": True}]]
    assert result.error_kind == "denied" and "its effects grade is 1" in result.error
    assert called(toolbox) == ["stamp"]
    document = result.to_dict()
    assert document["held_back"][2] == {"step": 5, "tool": "launch", "arguments": {}, "answer": "refused"}
    jsonschema.validate(document, ExecutionResult.json_schema())


def test_a_real_run_holds_nothing_back(toolbox: Toolbox):
    """Without a dry run every tool is called (the canaries the dry run never leaves)."""
    kit = resolve_kit(["notify", "launch"], toolbox)
    result = run_program('n = notify("x")\nlaunch()', kit, mode="inprocess")
    assert result.success and result.held_back == [] and result.variables["n"] == ["sent", "x"]
    assert called(toolbox) == ["launch", "notify"]


@pytest.mark.parametrize("mode", MODES)
def test_a_malformed_held_call_fails_as_it_would_in_a_real_run(toolbox: Toolbox, mode: str):
    """Held calls are checked first: a wrong argument is an argument error, and nothing is listed as held back."""
    kit = resolve_kit(["notify"], toolbox)
    result = run_program("notify(3)", kit, mode=mode, dry_run=True)
    assert result.error_kind == "argument" and "argument 'text' expects a str" in result.error
    assert result.held_back == [] and called(toolbox) == []


def test_a_dry_run_stages_even_through_a_context_that_does_not(toolbox: Toolbox, workspace: Path):
    """A caller's own context that writes straight to disk is staged anyway for a dry run."""
    kit = resolve_kit("filesystem", toolbox)
    result = run_program('write_file("direct.txt", "x")', kit, mode="inprocess", dry_run=True, context=ToolContext(workspace))
    assert result.success and result.files_created == ["direct.txt"] and "+x" in result.diff
    assert not (workspace / "direct.txt").exists()


def test_dry_run_in_a_spec_is_checked_and_kept_as_plain_data():
    """run, refuse or a JSON placeholder (tuples become lists); left out, the grade decides."""
    assert ToolSpec("t", "python").dry_run_action == "run"
    assert ToolSpec("t", "python", effects_ceiling=1).dry_run_action == "refuse"
    assert ToolSpec("t", "python", effects_ceiling=3, dry_run="run").dry_run_action == "run"
    assert ToolSpec("t", "python", dry_run="refuse").dry_run_action == "refuse"
    spec = ToolSpec("t", "python", dry_run={"placeholder": (1, "a")})
    assert spec.dry_run_action == "placeholder" and spec.dry_run == {"placeholder": [1, "a"]}
    for bad in ("maybe", {"placeholder": object()}, {"placeholder": 1, "also": 2}, {"placeholder": float("nan")}, {"placeholder": "x" * 70_000}):
        with pytest.raises(SpecError, match="dry_run"):
            ToolSpec("t", "python", dry_run=bad)

    @tool(grade=(0, 2), dry_run={"placeholder": "queued"})
    def send(text: str) -> str:
        return text

    assert send.lackpy_tool.dry_run == {"placeholder": "queued"} and send.lackpy_tool.dry_run_action == "placeholder"


def _lackpy() -> list[str]:
    exe = Path(sys.executable).parent / "lackpy"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "lackpy.cli"]


def test_the_cli_dry_run_of_a_command_creates_nothing(tmp_path: Path):
    """`lackpy run --kit coding --dry-run --yes` with a command: the canary is not created; stderr and --json list the held call."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    program = f'run_command("touch {CANARY}")\n'
    command = [*_lackpy(), "run", "--kit", "coding", "--dry-run", "--yes", "-"]
    text = subprocess.run(command, input=program, cwd=workspace, capture_output=True, text=True, env=env, timeout=60)
    assert text.returncode == 1, text.stderr
    assert f"lackpy: dry run: held back [1] run_command(command='touch {CANARY}'): not called, refused" in text.stderr
    as_json = subprocess.run([*command, "--json"], input=program, cwd=workspace, capture_output=True, text=True, env=env, timeout=60)
    document = json.loads(as_json.stdout)
    assert document["dry_run"] is True and document["error_kind"] == "denied"
    assert document["held_back"] == [{"step": 1, "tool": "run_command", "arguments": {"command": f"'touch {CANARY}'"}, "answer": "refused"}]
    assert not (workspace / CANARY).exists()


@pytest.mark.parametrize("mode", MODES)
def test_a_dry_runs_write_answers_say_what_would_happen(toolbox: Toolbox, workspace: Path, mode: str):
    """write_file and edit_file answer with 'would', and the trace says the same; the canary file keeps its content."""
    (workspace / "dry.txt").write_text("canary\n")
    kit = resolve_kit("filesystem", toolbox)
    program = 'a = write_file("dry.txt", "x\\n")\nb = edit_file("dry.txt", "x", "y")\nc = write_file("two.txt", "y")\n[a, b, c]'
    result = run_program(program, kit, mode=mode, dry_run=True)
    assert result.success and result.dry_run, result.error
    a, b, c = result.output
    assert a == "would write 2 bytes to dry.txt (dry run: nothing written)"
    assert b == "would edit dry.txt (dry run: nothing written)\n--- a/dry.txt\n+++ b/dry.txt\n@@ -1 +1 @@\n-x\n+y\n"
    assert c == "would write 1 byte to two.txt (dry run: nothing written)"
    assert [entry.result for entry in result.trace] == [repr(a), repr(b), repr(c)]
    assert "wrote" not in json.dumps(result.to_dict()["trace"])
    assert (workspace / "dry.txt").read_text() == "canary\n" and not (workspace / "two.txt").exists()


def test_the_cli_dry_run_traces_a_write_as_would(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "dry.txt").write_text("canary\n")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [*_lackpy(), "run", "--kit", "filesystem", "--dry-run", "--trace", "-"]
    done = subprocess.run(command, input='write_file("dry.txt", "x")\n', cwd=workspace, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("would write 1 byte to dry.txt (dry run: nothing written)\n")
    assert "[1] write_file(path='dry.txt', content='x') -> 'would write 1 byte to dry.txt (dry run: nothing written)'" in done.stderr
    assert "wrote" not in done.stdout + done.stderr and (workspace / "dry.txt").read_text() == "canary\n"
