"""run_command and the background-process tools, with real subprocesses in temporary workspaces."""

from __future__ import annotations

import inspect
import itertools
import os
import re
import time
from pathlib import Path

import pytest
from waiting import eventually

from lackpy.errors import ArgumentError, PathError, ToolError
from lackpy.kit.context import ToolContext, takes_context
from lackpy.tools import shell
from lackpy.tools.shell import (
    TOOLS,
    LocalShell,
    list_processes,
    poll_process,
    run_command,
    start_process,
    stop_all,
    stop_process,
)


@pytest.fixture
def ctx(make_ctx) -> ToolContext:
    return make_ctx()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie (killed, not yet reaped by its new parent) counts as dead."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


_marks = itertools.count(1)


def mark() -> str:
    """A sleep duration no other process uses (a command's own pids are its pid namespace's, so it is found by this)."""
    return f"30.{os.getpid()}{next(_marks):03d}"


def live(duration: str) -> list[int]:
    """The pids (lackpy's view) of the live ``sleep duration`` processes."""
    pids = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if handle.read() == b"sleep\0" + duration.encode() + b"\0" and alive(int(name)):
                    pids.append(int(name))
        except OSError:
            continue
    return pids


def pid_of(duration: str) -> int:
    """The pid of the one ``sleep duration``, once it runs."""
    assert eventually(lambda: len(live(duration)) == 1), f"sleep {duration} never ran"
    return live(duration)[0]


def collect(ctx: ToolContext, id: str, until: str, timeout: float = 5.0) -> str:
    """Poll until the accumulated stdout contains ``until``; return what was collected."""
    seen = []

    def done():
        seen.append(poll_process(ctx, id)["stdout"])
        return until in "".join(seen)

    assert eventually(done, timeout), f"never saw {until!r}; got {''.join(seen)!r}"
    return "".join(seen)


class RecordingShell:
    """A fake shell: records what run_command asked for and runs nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def run(self, command, cwd, timeout_s, max_output_bytes):
        self.calls.append((command, cwd, timeout_s, max_output_bytes))
        return {"code": 0, "stdout": "", "stderr": "", "timed_out": False}

    def spawn(self, command, cwd, max_buffer_bytes):  # pragma: no cover - unused
        raise AssertionError("not expected")


# --------------------------------------------------------------------------- run_command


def test_run_command_output_and_exit_code(ctx: ToolContext) -> None:
    result = run_command(ctx, "echo hello; echo oops >&2; exit 3")
    assert result == {"code": 3, "stdout": "hello\n", "stderr": "oops\n", "timed_out": False}


def test_run_command_runs_in_the_workspace_by_default(ctx: ToolContext, workspace: Path) -> None:
    result = run_command(ctx, "pwd; ls")
    lines = result["stdout"].splitlines()
    assert os.path.realpath(lines[0]) == os.path.realpath(workspace)
    assert "README.md" in lines and "src" in lines


def test_run_command_in_a_subdirectory(ctx: ToolContext, workspace: Path) -> None:
    result = run_command(ctx, "pwd; ls", cwd="src/pkg")
    lines = result["stdout"].splitlines()
    assert os.path.realpath(lines[0]) == os.path.realpath(workspace / "src" / "pkg")
    assert lines[1:] == ["util.py"]
    assert result["code"] == 0


def test_run_command_gets_no_stdin(ctx: ToolContext) -> None:
    result = run_command(ctx, "cat; echo after", timeout=5)
    assert result == {"code": 0, "stdout": "after\n", "stderr": "", "timed_out": False}


def test_run_command_decodes_invalid_utf8_with_replacement(ctx: ToolContext) -> None:
    result = run_command(ctx, r"printf 'caf\303\251 \377\n'")
    assert result["stdout"] == "café \ufffd\n"


def test_timeout_kills_the_whole_process_group(ctx: ToolContext, workspace: Path) -> None:
    started = time.monotonic()
    child = mark()
    result = run_command(ctx, f"sleep {child} & echo started; sleep 30", timeout=0.5)
    assert time.monotonic() - started < 5
    assert result["timed_out"] is True
    assert result["code"] is None
    assert result["stdout"] == "started\n"  # what was captured before the kill
    assert eventually(lambda: not live(child), 2.0), f"background child {child} survived the timeout"


def test_leftover_children_are_killed_when_the_shell_exits(ctx: ToolContext, workspace: Path) -> None:
    started = time.monotonic()
    child = mark()
    result = run_command(ctx, f"sleep {child} & echo done", timeout=20)
    assert time.monotonic() - started < 5  # not held open by the child's copy of the pipes
    assert result == {"code": 0, "stdout": "done\n", "stderr": "", "timed_out": False}
    assert eventually(lambda: not live(child), 2.0)


def test_timeout_is_capped_at_ten_minutes(ctx: ToolContext) -> None:
    fake = RecordingShell()
    ctx.state["shell"] = fake
    run_command(ctx, "true", timeout=10_000)
    run_command(ctx, "true", timeout=float("inf"))
    run_command(ctx, "true", timeout=600)
    run_command(ctx, "true", timeout=2.5)
    run_command(ctx, "true")
    assert [call[2] for call in fake.calls] == [600.0, 600.0, 600.0, 2.5, 120.0]


@pytest.mark.parametrize("timeout", [0, -1, -0.5, float("nan")])
def test_timeout_must_be_a_positive_number(ctx: ToolContext, timeout) -> None:
    ctx.state["shell"] = RecordingShell()
    with pytest.raises(ToolError) as info:
        run_command(ctx, "true", timeout=timeout)
    assert str(info.value) == f"run_command: timeout must be positive, not {timeout!r}"
    assert ctx.state["shell"].calls == []


@pytest.mark.parametrize("timeout", ["5", None, True, [5]])
def test_timeout_must_be_a_number(toolbox, timeout) -> None:
    """A timeout that is not a number is refused by the argument check; the shell is never asked."""
    toolbox.context.state["shell"] = fake = RecordingShell()
    with pytest.raises(ArgumentError) as info:
        toolbox.bound("run_command")("true", timeout=timeout)
    assert str(info.value) == f"run_command: argument 'timeout' expects a number, got {timeout!r} ({type(timeout).__name__})"
    assert fake.calls == []
    toolbox.bound("run_command")("true", timeout=5)
    assert fake.calls == [("true", toolbox.context.root, 5.0, 64 * 1024)]


def test_output_cap_comes_from_settings(make_ctx) -> None:
    fake = RecordingShell()
    context = make_ctx(command_output_bytes=1234)
    context.state["shell"] = fake
    run_command(context, "true")
    default = make_ctx()
    default.state["shell"] = fake
    run_command(default, "true")
    assert [call[3] for call in fake.calls] == [1234, 64 * 1024]


def test_huge_output_is_bounded_head_and_tail(make_ctx) -> None:
    context = make_ctx(command_output_bytes=1000)
    started = time.monotonic()
    result = run_command(context, "yes | head -c 10000000; echo END", timeout=60)
    assert time.monotonic() - started < 20
    assert result["code"] == 0 and result["timed_out"] is False
    out = result["stdout"]
    assert out.startswith("y\ny\n")
    assert out.endswith("y\nEND\n")
    dropped = int(re.search(r"\[\.\.\. (\d+) bytes dropped \.\.\.\]", out).group(1))
    assert dropped == 10_000_004 - 1000
    assert len(out) < 1100


def test_default_output_cap(ctx: ToolContext) -> None:
    result = run_command(ctx, "yes | head -c 5000000", timeout=60)
    assert 64 * 1024 <= len(result["stdout"]) < 64 * 1024 + 100
    assert "bytes dropped" in result["stdout"]


def test_endless_output_times_out_with_bounded_capture(make_ctx) -> None:
    context = make_ctx(command_output_bytes=4096)
    result = run_command(context, "yes; echo never", timeout=0.5)
    assert result["timed_out"] is True
    assert len(result["stdout"]) < 4200
    assert "bytes dropped" in result["stdout"]


def test_stderr_is_bounded_separately(make_ctx) -> None:
    context = make_ctx(command_output_bytes=100)
    result = run_command(context, "echo out; yes err | head -c 100000 >&2")
    assert result["stdout"] == "out\n"
    assert "bytes dropped" in result["stderr"] and len(result["stderr"]) < 200


@pytest.mark.parametrize("command", ["", "   ", "\n"])
def test_empty_command_is_refused(ctx: ToolContext, command: str) -> None:
    with pytest.raises(ToolError, match="command is empty"):
        run_command(ctx, command)
    with pytest.raises(ToolError, match="command is empty"):
        start_process(ctx, command)


@pytest.mark.parametrize("tool", ["run_command", "start_process"])
def test_non_string_command_is_refused(toolbox, tool: str) -> None:
    """A command that is not a str is refused by the argument check; nothing runs or starts."""
    toolbox.context.state["shell"] = fake = RecordingShell()
    with pytest.raises(ArgumentError) as info:
        toolbox.bound(tool)(["ls"])
    assert str(info.value) == f"{tool}: argument 'command' expects a str, got ['ls'] (list)"
    assert fake.calls == []
    assert toolbox.context.state.get("processes", {}) == {}


@pytest.mark.parametrize("cwd", ["/tmp", "..", "../outside", "src/../..", ""])
def test_cwd_outside_the_workspace_is_refused(ctx: ToolContext, cwd: str) -> None:
    with pytest.raises(PathError):
        run_command(ctx, "touch escaped", cwd=cwd)
    with pytest.raises(PathError):
        start_process(ctx, "touch escaped", cwd=cwd)
    assert ctx.state.get("processes", {}) == {}


def test_cwd_symlink_out_of_the_workspace_is_refused(ctx: ToolContext, workspace: Path, outside: Path, canary) -> None:
    (workspace / "link").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(PathError, match="symlink"):
        run_command(ctx, "echo pwned > canary.txt", cwd="link")
    canary.assert_untouched()


def test_cwd_must_be_an_existing_directory(ctx: ToolContext) -> None:
    with pytest.raises(PathError, match="not a directory: README.md"):
        run_command(ctx, "true", cwd="README.md")
    with pytest.raises(PathError, match="no such directory: missing"):
        run_command(ctx, "true", cwd="missing")
    with pytest.raises(PathError, match="not a directory: src/app.py"):
        start_process(ctx, "true", cwd="src/app.py")


# --------------------------------------------------------------------------- background processes


def test_poll_returns_only_new_output(ctx: ToolContext, workspace: Path) -> None:
    id = start_process(ctx, "echo first; echo warn >&2; while [ ! -f go ]; do sleep 0.02; done; echo second; exit 7")
    assert id == "p1"
    assert collect(ctx, id, "first") == "first\n"
    quiet = poll_process(ctx, id)
    assert quiet["running"] is True and quiet["code"] is None
    assert quiet["stdout"] == ""  # nothing new since the last poll
    (workspace / "go").touch()
    assert collect(ctx, id, "second") == "second\n"
    final = eventually(lambda: (lambda state: None if state["running"] else state)(poll_process(ctx, id)))
    assert final["running"] is False and final["code"] == 7
    assert poll_process(ctx, id) == {"running": False, "code": 7, "stdout": "", "stderr": ""}


def test_stderr_is_read_separately(ctx: ToolContext) -> None:
    id = start_process(ctx, "echo to-out; echo to-err >&2")
    assert eventually(lambda: not poll_process(ctx, id)["running"]) is True
    # the polls above consumed the output; start again and read it only at the end
    id = start_process(ctx, "echo to-out; echo to-err >&2")
    assert eventually(lambda: ctx.state["processes"][id].poll() is not None)
    assert poll_process(ctx, id) == {"running": False, "code": 0, "stdout": "to-out\n", "stderr": "to-err\n"}


def test_ids_count_up_per_session(ctx: ToolContext) -> None:
    assert [start_process(ctx, "true") for _ in range(3)] == ["p1", "p2", "p3"]


def test_stop_kills_the_process_group_and_is_idempotent(ctx: ToolContext, workspace: Path) -> None:
    duration = mark()
    id = start_process(ctx, f"sleep {duration} & echo up; wait")
    child = pid_of(duration)
    leader = ctx.state["processes"][id].pid
    assert alive(child) and alive(leader)
    final = stop_process(ctx, id)
    assert final["running"] is False
    assert final["code"] == -9
    assert final["stdout"] == "up\n"  # what had not been polled yet
    assert eventually(lambda: not alive(child), 2.0)
    assert not alive(leader)
    assert stop_process(ctx, id) == {"running": False, "code": -9, "stdout": "", "stderr": ""}
    assert poll_process(ctx, id)["running"] is False


def test_stop_after_a_normal_exit_keeps_the_exit_code(ctx: ToolContext) -> None:
    id = start_process(ctx, "exit 4")
    assert eventually(lambda: ctx.state["processes"][id].poll() is not None)
    assert stop_process(ctx, id) == {"running": False, "code": 4, "stdout": "", "stderr": ""}


def test_a_finished_shell_leaves_no_children(ctx: ToolContext, workspace: Path) -> None:
    duration = mark()
    id = start_process(ctx, f"sleep {duration} & sleep 0.2")
    child = pid_of(duration)
    assert eventually(lambda: not poll_process(ctx, id)["running"])
    assert poll_process(ctx, id)["code"] == 0
    assert eventually(lambda: not alive(child), 2.0)


def test_list_processes(ctx: ToolContext) -> None:
    assert list_processes(ctx) == []
    quick = start_process(ctx, "exit 2")
    slow = start_process(ctx, "echo up; sleep 30")
    assert eventually(lambda: ctx.state["processes"][quick].poll() is not None)
    assert eventually(lambda: "up" in ctx.state["processes"][slow].stdout.data.decode())  # the command runs, not only its supervisor
    assert list_processes(ctx) == [
        {"id": "p1", "command": "exit 2", "running": False, "code": 2},
        {"id": "p2", "command": "echo up; sleep 30", "running": True, "code": None},
    ]
    stop_process(ctx, slow)
    assert list_processes(ctx)[1] == {"id": "p2", "command": "echo up; sleep 30", "running": False, "code": -9}


def test_unknown_id_names_the_known_ids(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="no process 'p1'.*none; start one with start_process"):
        poll_process(ctx, "p1")
    start_process(ctx, "sleep 30")
    start_process(ctx, "sleep 30")
    for tool in (poll_process, stop_process):
        with pytest.raises(ToolError, match=r"no process 'p9' \(known ids: p1, p2\)"):
            tool(ctx, "p9")
    with pytest.raises(ToolError, match="no process 1"):
        poll_process(ctx, 1)


def test_sessions_are_isolated(make_ctx) -> None:
    first, second = make_ctx(), make_ctx()
    id = start_process(first, "sleep 30")
    assert list_processes(second) == []
    with pytest.raises(ToolError, match="known ids: none"):
        poll_process(second, id)
    with pytest.raises(ToolError):
        stop_process(second, id)
    assert start_process(second, "sleep 30") == "p1"  # its own counter
    assert poll_process(first, id)["running"] is True
    # a fresh context of the same service shares the session
    assert [p["id"] for p in list_processes(first.fresh())] == ["p1"]


def test_buffer_drops_old_output_with_a_notice(make_ctx, workspace: Path) -> None:
    context = make_ctx(process_buffer_bytes=1000)
    id = start_process(context, "head -c 100000 /dev/zero | tr '\\0' x; echo END; touch src/done")
    assert eventually(lambda: (workspace / "src" / "done").exists())
    # the pipe holds at most 64 KiB, so the reader has taken far more than 1000 bytes by now
    text = collect(context, id, "END")
    notices = [int(n) for n in re.findall(r"\n\[\.\.\. (\d+) bytes dropped \.\.\.\]\n", text)]
    assert notices and sum(notices) > 30_000
    kept = re.sub(r"\n\[\.\.\. \d+ bytes dropped \.\.\.\]\n", "", text)
    assert sum(notices) + len(kept) == 100_004
    assert kept.endswith("xxEND\n")


def test_too_many_running_processes(make_ctx) -> None:
    context = make_ctx(max_processes=1)
    first = start_process(context, "sleep 30")
    with pytest.raises(ToolError, match=r"already running \(p1\)"):
        start_process(context, "sleep 30")
    stop_process(context, first)
    assert start_process(context, "sleep 30") == "p2"


def test_stop_all_cleans_up(make_ctx, workspace: Path) -> None:
    context = make_ctx()
    first, second = mark(), mark()
    start_process(context, f"sleep {first} & wait")
    start_process(context, f"sleep {second} & wait")
    start_process(context, "exit 0")
    children = [pid_of(first), pid_of(second)]
    leaders = [process.pid for process in context.state["processes"].values()]
    eventually(lambda: context.state["processes"]["p3"].poll() is not None)
    assert stop_all(context.state) == 2
    assert all(not p["running"] for p in list_processes(context))
    assert eventually(lambda: not any(alive(pid) for pid in children + leaders), 2.0)
    assert stop_all(context.state) == 0
    assert stop_all({}) == 0


# --------------------------------------------------------------------------- the seam and the specs


def test_local_shell_directly(tmp_path: Path) -> None:
    result = LocalShell().run("echo $((6 * 7))", str(tmp_path), 5, 100)
    assert result == {"code": 0, "stdout": "42\n", "stderr": "", "timed_out": False}
    process = LocalShell().spawn("echo a; sleep 30", str(tmp_path), 100)
    try:
        assert eventually(lambda: process.stdout.data == b"a\n")
        assert process.read_new() == ("a\n", "")
        assert process.read_new() == ("", "")
        assert process.poll() is None and process.running
    finally:
        assert process.kill() == -9
    assert not process.running


def test_specs_match_the_implementations() -> None:
    SPECS = [fn.lackpy_tool for fn in TOOLS]
    IMPLEMENTATIONS = {fn.__name__: fn for fn in TOOLS}
    assert [spec.name for spec in SPECS] == list(IMPLEMENTATIONS)
    for spec in SPECS:
        fn = IMPLEMENTATIONS[spec.name]
        assert takes_context(fn)
        assert spec.provider == "builtin"
        assert spec.docs == f"docs/tools/{spec.name}.md"
        assert spec.grade_w == 3
        params = list(inspect.signature(fn).parameters.values())[1:]
        assert [a.name for a in spec.args] == [p.name for p in params]
        for arg, param in zip(spec.args, params):
            assert arg.required == (param.default is inspect.Parameter.empty)
            if not arg.required:
                assert arg.default == param.default
    grades = {spec.name: spec.effects_ceiling for spec in SPECS}
    assert grades == {"run_command": 3, "start_process": 3, "poll_process": 1, "stop_process": 2, "list_processes": 0}
    assert shell.MAX_TIMEOUT_S == 600


def test_a_closed_session_starts_no_process(ctx: ToolContext) -> None:
    from lackpy.tools.shell import stop_all

    stop_all(ctx.state)  # the service closed before the start
    with pytest.raises(ToolError, match="the session is closed; nothing was started"):
        start_process(ctx, "sleep 60.5151")
    assert ctx.state.get("processes", {}) == {}


def test_a_process_that_starts_as_its_session_closes_is_stopped_by_its_own_start(ctx: ToolContext, monkeypatch) -> None:
    """stop_all marks the session closed; a start_process that spawned meanwhile (another thread) sees it and stops its process."""
    from lackpy.tools.shell import stop_all

    spawn = LocalShell.spawn

    def spawn_then_close(self, *args, **kwargs):
        process = spawn(self, *args, **kwargs)
        stop_all(ctx.state)  # the service closes between the spawn and the registration
        return process

    monkeypatch.setattr(LocalShell, "spawn", spawn_then_close)
    with pytest.raises(ToolError, match="the session closed while the process started"):
        start_process(ctx, "sleep 60.5152")
    (process,) = ctx.state["processes"].values()
    assert process.poll() is not None
