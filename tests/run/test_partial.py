"""A run that stops before its end says so (``complete`` false) and returns what it had done: the calls that
finished, what it printed, the values it had assigned; it never writes anything."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from pathlib import Path

import pytest

from lackpy import ArgSpec, LackpyService, ToolSpec, Toolbox, resolve_kit
from lackpy.plugins import populate
from lackpy.run.cancel import Cancel
from lackpy.run.runner import run_with
from lackpy.run.settings import RunSettings

MODES = ["isolated", "inprocess"]

#: Calls a tool in a loop, each turn also spending some CPU, after a staged write and a print.
LOOP = """write_file("never.txt", "written")
print("begin")
seen = []
for i in range(100000):
    seen.append(echo(i))
    spent = 0
    for j in range(20000):
        spent += 1
len(seen)
"""


@pytest.fixture
def kit(workspace: Path, tmp_path: Path, monkeypatch):
    module = tmp_path / "mods" / "partial_tools.py"
    module.parent.mkdir()
    module.write_text(
        "import time\n"
        "def echo(value):\n    return value\n"
        "def nap(value):\n    for _ in range(100):\n        time.sleep(0.01)\n    return value\n"
    )
    monkeypatch.syspath_prepend(str(module.parent))
    monkeypatch.delitem(sys.modules, "partial_tools", raising=False)
    box = Toolbox(str(workspace))
    populate(box)
    for name in ("echo", "nap"):
        box.register_tool(ToolSpec(name, "python", {"module": "partial_tools"}, args=[ArgSpec("value")]))
    return resolve_kit(["read_file", "write_file", "echo", "nap"], box)


def _finished(result) -> list:
    return [entry for entry in result.trace if entry.success]


@pytest.mark.parametrize("mode", MODES)
def test_a_time_limited_loop_of_tool_calls_returns_its_finished_calls_and_is_not_complete(kit, workspace: Path, mode: str):
    result = run_with(LOOP, RunSettings(kit, mode=mode, limits={"timeout_s": 1}))
    assert (result.success, result.complete, result.error_kind, result.limit) == (False, False, "limit", "timeout")
    echoes = [entry for entry in _finished(result) if entry.tool == "echo"]
    assert len(echoes) >= 5  # it got somewhere before the limit
    assert result.trace[0].tool == "write_file" and result.trace[0].success
    assert [entry.result for entry in echoes] == [repr(i) for i in range(len(echoes))]
    seen = result.assigned["seen"]  # the values agree with the calls that finished; the limit may cut in as the last one returns
    assert seen == list(range(len(seen))) and len(echoes) - 1 <= len(seen) <= len(echoes)
    assert result.printed == "begin\n" and result.output is None
    assert result.files_created == [] and not (workspace / "never.txt").exists()  # the staged write is never committed
    document = result.to_dict()
    assert document["complete"] is False and document["assigned"]["seen"] == result.assigned["seen"]
    ExecutionResult_schema_check(document)


def ExecutionResult_schema_check(document: dict) -> None:
    import jsonschema

    from lackpy import ExecutionResult

    jsonschema.validate(document, ExecutionResult.json_schema())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", ["program", "tool"])
def test_a_cancelled_run_stops_where_it_is_and_returns_what_it_did(kit, workspace: Path, mode: str, where: str):
    """Cancelled while the program computes, or while a tool it called is working: it ends within a second, as ``cancelled``."""
    program = LOOP.replace("echo(i)", "nap(i)") if where == "tool" else LOOP
    cancel, cancelled_at = Cancel(), []

    def on_call(tool: str, calls: int, moved: tuple[int, int]) -> None:  # once a call of the loop has returned, cancel half a second later
        if tool != "write_file" and not cancelled_at:
            cancelled_at.append(time.monotonic() + 0.5)
            threading.Timer(0.5, cancel.cancel).start()

    result = run_with(program, RunSettings(kit, mode=mode, limits={"timeout_s": 60}, on_call=on_call), cancel)
    assert time.monotonic() - cancelled_at[0] < 2.5  # a stopped worker reports within a second, or is killed
    assert (result.success, result.complete, result.error_kind) == (False, False, "cancelled")
    assert "cancelled: the run was stopped before it finished" in result.error and result.error_line is not None
    calls = [entry for entry in _finished(result) if entry.tool != "write_file"]
    seen = result.assigned["seen"]
    assert len(calls) >= 1 and seen == list(range(len(seen))) and len(calls) - 1 <= len(seen) <= len(calls)
    assert result.printed == "begin\n"
    assert result.files_created == [] and not (workspace / "never.txt").exists()


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_still_working_at_the_time_limit_is_stopped_and_what_came_before_it_is_returned(kit, mode: str):
    """In an isolated run the tool works in the host: the worker, waiting for it, is told time is up and reports."""
    result = run_with("print('hi')\nx = echo(5)\ny = nap(1)\ny", RunSettings(kit, mode=mode, limits={"timeout_s": 0.5}))
    assert (result.complete, result.error_kind, result.limit, result.error_line) == (False, "limit", "timeout", 3)
    assert result.printed == "hi\n" and result.assigned == {"x": 5}
    assert [(entry.tool, entry.success) for entry in result.trace] == [("echo", True), ("nap", False)]


def test_a_failing_tool_returns_the_calls_before_it_and_what_they_gave(kit, workspace: Path):
    (workspace / "a.txt").write_text("alpha")
    program = 'texts = [read_file("a.txt"), read_file("README.md")]\nmissing = read_file("missing.txt")\nlen(texts)'
    for mode in MODES:
        result = run_with(program, RunSettings(kit, mode=mode))
        assert (result.complete, result.error_kind, result.error_line) == (False, "tool", 2)
        assert [entry.success for entry in result.trace] == [True, True, False]
        assert result.assigned == {"texts": ["alpha", (workspace / "README.md").read_text()]}


def test_a_run_that_finished_is_complete_and_returns_no_assigned_values(kit):
    for mode in MODES:
        result = run_with("x = echo(2)\nx * 21", RunSettings(kit, mode=mode))
        assert (result.success, result.complete, result.output, result.assigned, result.assigned_cut) == (True, True, 42, {}, {})


def test_a_program_that_never_ran_is_not_complete_and_has_nothing_to_show(kit):
    result = run_with("import os", RunSettings(kit))
    assert (result.complete, result.error_kind, result.trace, result.assigned) == (False, "validation", [], {})


def test_assigned_values_are_bounded_and_a_large_one_is_described_not_returned(kit):
    program = 'small = echo("s")\nbig = [echo(1)] * 50000\nparam_value = limit\nboom = 1 / 0'
    for mode in MODES:
        result = run_with(program, RunSettings(kit, {"limit": [9] * 10}, mode=mode))
        assert result.error_kind == "runtime" and not result.complete
        assert result.assigned == {"small": "s", "param_value": [9] * 10}  # a parameter as given is not something it assigned
        assert set(result.assigned_cut) == {"big"} and "(len 50000)" in result.assigned_cut["big"]
        assert len(json.dumps(result.to_dict()["assigned_cut"])) < 1024


@pytest.mark.parametrize("mode", MODES)
def test_run_program_stop_returns_the_partial_result_through_the_service(workspace: Path, mode: str):
    """``stop`` (an asyncio.Event) ends a run as cancelled, and run_program returns it; a session's next run is whole."""
    for i in range(20):
        (workspace / f"f{i}.txt").write_text("x" * i)
    program = "sizes = []\nfor i in range(100000):\n    sizes.append(len(find_files('*.txt')))\n    n = 0\n    for j in range(20000):\n        n += 1\nsizes"

    async def go() -> tuple:
        async with LackpyService(workspace, trust=False) as service:
            session = service.open_session()
            stop, loop = asyncio.Event(), asyncio.get_running_loop()

            def heard(event: dict) -> None:  # the first tool call returned: stop the run half a second later
                if event.get("event") == "tool" and event.get("calls") == 1:
                    loop.call_later(0.5, stop.set)

            stopped = await service.run_program(program, kit="readonly", mode=mode, stop=stop, session=session, on_event=heard)
            after = await service.run_program("len(find_files('*.txt'))", kit="readonly", mode=mode, session=session)
            return stopped, after

    stopped, after = asyncio.run(go())
    assert (stopped.success, stopped.complete, stopped.error_kind) == (False, False, "cancelled")
    finished = [entry for entry in stopped.trace if entry.success]
    sizes = stopped.assigned["sizes"]
    assert finished and sizes == [20] * len(sizes) and len(finished) - 1 <= len(sizes) <= len(finished)
    assert (after.success, after.output) == (True, 20)


def test_a_stop_set_before_the_run_starts_runs_nothing(workspace: Path):
    async def go():
        async with LackpyService(workspace, trust=False) as service:
            stop = asyncio.Event()
            stop.set()
            return await service.run_program("write_file('x.txt', 'y')\n1", kit="filesystem", stop=stop, approve=True)

    result = asyncio.run(go())
    assert (result.complete, result.error_kind, result.trace) == (False, "cancelled", [])
    assert not (workspace / "x.txt").exists()


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.parametrize("json_out", [False, True])
def test_ctrl_c_stops_lackpy_run_and_prints_what_it_had_done(workspace: Path, tmp_path: Path, json_out: bool):
    """A real SIGINT to ``lackpy run``: the first stops the run, whose partial result is printed; exit status 130."""
    import signal
    import subprocess

    program = tmp_path / "loop.py"
    # the list keeps its last 100 sizes, so however fast the loop, what it had stays within the result's budget (never cut)
    program.write_text("print('begin')\nsizes = []\nfor i in range(10000000):\n    sizes = sizes[-99:] + [len(find_files('*.md'))]\nsizes")
    argv = [sys.executable, "-m", "lackpy", "run", "--kit", "readonly", "--timeout", "60", "--limit", "max_tool_calls=10000000",
            "-w", str(workspace), str(program)] + (["--json"] if json_out else [])
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while process.poll() is None and not _children(process.pid) and time.monotonic() < deadline:  # the fork server: the run began
        time.sleep(0.05)
    time.sleep(2.0)  # the run's worker starts and its loop goes on
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "stopping the run (Ctrl-C again to quit at once)" in err and "Traceback" not in err
    if json_out:
        document = json.loads(out)
        assert (document["complete"], document["error_kind"], document["printed"]) == (False, "cancelled", "begin\n")
        assert len(document["assigned"]["sizes"]) >= 1
        return
    assert out == "begin\n"
    assert "lackpy: error: line 4: cancelled: the run was stopped before it finished" in err
    assert "lackpy: partial result: the program did not finish;" in err and "nothing was written" in err
    assert "lackpy:   sizes = [" in err or "lackpy:   sizes = " in err
