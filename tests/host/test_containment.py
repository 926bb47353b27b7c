"""Nothing a shell command starts outlives it: setsid'd and double-forked processes included.

Real subprocesses: each test's processes run ``sleep`` with a duration unique
to this test run (like ``312.4242001``), so they can be found in
/proc/*/cmdline; a test asserts that none of them is left alive. Whatever a
failing test leaves behind is killed, by pid, at its teardown.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from waiting import eventually

from lackpy.kit.context import ToolContext
from lackpy.kit.toolbox import LackpyWarning
from lackpy.service import LackpyService
from lackpy.host import confine, landlock, local_shell
from lackpy.tools.shell import poll_process, run_command, start_process, stop_all, stop_process

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tracking needs Linux")

_numbers = itertools.count(1)
_made: list[str] = []


def marker(seconds: int) -> str:
    """A sleep duration no other process on the machine uses: ``seconds`` plus this run's pid and a counter."""
    made = f"{seconds}.{os.getpid()}{next(_numbers):03d}"
    _made.append(made)
    return made


def processes() -> dict[int, list[str]]:
    """The arguments of every live (not zombie) process but this one."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                args = handle.read().decode(errors="replace").split("\0")[:-1]
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            found[int(name)] = args
    return found


def holders(text: str) -> list[int]:
    """Live processes with ``text`` in their arguments."""
    return [pid for pid, args in processes().items() if any(text in arg for arg in args)]


def sleeping(mark: str) -> bool:
    """Whether a ``sleep <mark>`` runs."""
    return ["sleep", mark] in processes().values()


def gone(*marks: str, timeout: float = 2.0) -> bool:
    """Whether, within ``timeout``, no process mentions any of ``marks`` any more."""
    return eventually(lambda: not any(holders(mark) for mark in marks), timeout)


@pytest.fixture(autouse=True)
def no_leftovers():
    """Kill, by pid, whatever a failing test left running."""
    yield
    for mark in _made:
        for pid in holders(mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _made.clear()


@pytest.fixture
def ctx(workspace: Path):
    context = ToolContext(workspace)
    yield context
    stop_all(context.state)


def run_program(svc: LackpyService, program: str):
    result = asyncio.run(svc.run_program(program, "coding"))
    assert result.success, result.error
    return result.output


# --------------------------------------------------------------------------- the reported escapes, through the service


def test_a_setsid_process_does_not_outlive_run_command(tmp_path: Path) -> None:
    mark = marker(312)
    with LackpyService(tmp_path, approve=True) as svc:
        output = run_program(svc, f'run_command("setsid sleep {mark} >/dev/null 2>&1 & sleep 0.2")')
        assert output == {"code": 0, "stdout": "", "stderr": "", "timed_out": False}
        assert gone(mark)


def test_a_setsid_background_process_does_not_outlive_close(tmp_path: Path) -> None:
    mark = marker(303)
    svc = LackpyService(tmp_path, approve=True)
    try:
        assert run_program(svc, f'start_process("setsid sleep {mark}")') == "p1"
        assert eventually(lambda: sleeping(mark)), "the process never started"
    finally:
        svc.close()
    assert gone(mark)


def test_the_cli_stops_everything_when_it_exits(tmp_path: Path) -> None:
    mark = marker(317)
    program = f'start_process("setsid sleep {mark}")\nrun_command("sleep 0.3")["code"]'
    done = subprocess.run(
        [sys.executable, "-m", "lackpy", "run", "--yes", "-", "--kit", "coding", "--workspace", str(tmp_path)],
        input=program,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert gone(mark)


# --------------------------------------------------------------------------- run_command


def test_a_double_fork_does_not_outlive_run_command(ctx: ToolContext) -> None:
    plain, daemon = marker(313), marker(313)
    result = run_command(ctx, f"(sleep {plain} &) & (setsid sleep {daemon} &) & sleep 0.2; echo done")
    assert result == {"code": 0, "stdout": "done\n", "stderr": "", "timed_out": False}
    assert gone(plain, daemon)


def test_a_timeout_kills_everything_the_command_started(ctx: ToolContext) -> None:
    setsid, double, own = marker(315), marker(315), marker(315)
    started = time.monotonic()
    result = run_command(
        ctx, f"setsid sleep {setsid} & (sleep {double} &) & echo started; sleep {own}", timeout=0.5
    )
    assert time.monotonic() - started < 5
    assert result == {"code": None, "stdout": "started\n", "stderr": "", "timed_out": True}
    assert gone(setsid, double, own)


def test_processes_that_ignore_sigterm_are_killed(ctx: ToolContext) -> None:
    mark = marker(314)
    result = run_command(ctx, f"trap '' TERM HUP INT; setsid sleep {mark} & sleep 0.2; echo done")
    assert result["code"] == 0 and result["stdout"] == "done\n"
    assert gone(mark)
    mark = marker(314)
    result = run_command(ctx, f"trap '' TERM HUP INT; setsid sleep {mark} & sleep {marker(314)}", timeout=0.5)
    assert result["timed_out"] is True
    assert gone(mark)


def test_a_process_that_keeps_the_pipes_open_does_not_hold_run_command(ctx: ToolContext) -> None:
    mark = marker(318)
    started = time.monotonic()
    result = run_command(ctx, f"setsid sleep {mark} & echo done")
    assert time.monotonic() - started < 1.0  # not the untracked mode's drain grace
    assert result == {"code": 0, "stdout": "done\n", "stderr": "", "timed_out": False}
    assert gone(mark)


@pytest.mark.parametrize(("signal_group", "code"), [("kill -KILL 0", -9), ("kill -TERM 0", -15)])
def test_a_command_that_signals_its_own_group_still_leaves_nothing(ctx: ToolContext, signal_group: str, code: int) -> None:
    """The shell leads a group of its own, as without tracking; the supervisor is outside it."""
    mark = marker(323)
    result = run_command(ctx, f"setsid sleep {mark} & sleep 0.2; {signal_group}")
    assert result == {"code": code, "stdout": "", "stderr": "", "timed_out": False}
    assert gone(mark)


@pytest.mark.parametrize(
    "command", ["exit 3", "echo out; echo err >&2", "kill -TERM $$", "kill -KILL $$", "kill -SEGV $$", "yes | head -n 2"]
)
def test_exit_codes_and_output_are_those_of_the_shell(ctx: ToolContext, workspace: Path, command: str) -> None:
    plain = subprocess.run(["/bin/sh", "-c", command], cwd=workspace, capture_output=True, stdin=subprocess.DEVNULL)
    result = run_command(ctx, command)
    assert result == {
        "code": plain.returncode,
        "stdout": plain.stdout.decode(),
        "stderr": plain.stderr.decode(),
        "timed_out": False,
    }


def test_commands_get_the_variables_command_env_names(make_ctx, monkeypatch) -> None:
    monkeypatch.setenv("LACKPY_CONTAINMENT_PROBE", "é and $x")
    assert run_command(make_ctx(), 'printf %s "$LACKPY_CONTAINMENT_PROBE"')["stdout"] == ""
    result = run_command(make_ctx(command_env=["LACKPY_CONTAINMENT_PROBE"]), 'printf %s "$LACKPY_CONTAINMENT_PROBE"')
    assert result["stdout"] == "é and $x"


# --------------------------------------------------------------------------- background processes


def test_stop_process_kills_the_whole_tree(ctx: ToolContext) -> None:
    setsid, double = marker(316), marker(316)
    id = start_process(ctx, f"trap '' TERM; setsid sleep {setsid} & (sleep {double} &) & echo up; wait")
    seen = []
    assert eventually(lambda: seen.append(poll_process(ctx, id)["stdout"]) or "up\n" in "".join(seen))
    assert eventually(lambda: sleeping(setsid) and sleeping(double)), "the processes never started"
    final = stop_process(ctx, id)
    assert final["running"] is False and final["code"] == -9
    assert gone(setsid, double)


def test_a_finished_background_shell_leaves_nothing(ctx: ToolContext) -> None:
    mark = marker(319)
    id = start_process(ctx, f"setsid sleep {mark} & sleep 0.2; echo up")
    assert eventually(lambda: not poll_process(ctx, id)["running"])
    assert ctx.state["processes"][id].poll() == 0
    assert gone(mark)


def test_stop_all_kills_every_tree(ctx: ToolContext) -> None:
    first, second, shell = marker(320), marker(320), marker(320)
    start_process(ctx, f"setsid sleep {first}")
    start_process(ctx, f"(sleep {second} &) & sleep {shell}")
    assert eventually(lambda: sleeping(first) and sleeping(second)), "the processes never started"
    assert stop_all(ctx.state) == 2
    assert gone(first, second, shell)


def test_nothing_outlives_a_killed_lackpy(tmp_path: Path) -> None:
    """Even without close(): a supervisor ends its command when lackpy's end of their socket closes."""
    mark = marker(321)
    host = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time\n"
            "from lackpy.host.local_shell import LocalShell\n"
            f"process = LocalShell().spawn('setsid sleep {mark} & echo up; wait', {str(tmp_path)!r}, 1000)\n"
            "while 'up' not in process.read_new()[0]:\n"
            "    time.sleep(0.01)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n"
        )],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout.readline() == "ready\n"
        assert eventually(lambda: sleeping(mark)), "the process never started"
    finally:
        host.kill()
        host.wait()
    assert gone(mark)


# --------------------------------------------------------------------------- the supervisor is out of the command's reach

NO_PIDNS = "no pid namespace: none in this test"
# How the supervisor is held: the first is what this kernel gives (when it gives it); each other takes one layer away.
HOLDS = ["landlock+pidns", "landlock", "pidns", "pidns+abi5"]


@pytest.fixture(params=HOLDS)
def hold(request, monkeypatch) -> str:
    """Each test runs with Landlock's signal scope and a pid namespace, with each alone, and with Landlock ABI 5 and a pid namespace."""
    if "landlock" in request.param and not confine.scopes_signals():
        pytest.skip("the kernel has no Landlock signal scoping (ABI >= 6)")
    if "pidns" in request.param and local_shell._namespaces():
        pytest.skip(f"pid namespaces do not work here ({local_shell._namespaces()})")
    if "pidns" not in request.param:
        monkeypatch.setattr(local_shell, "_probed", [NO_PIDNS])
    if request.param == "pidns":
        monkeypatch.setattr(confine, "unavailable", lambda: "no Landlock in this test")
    if request.param == "pidns+abi5":
        abi = min(5, landlock.landlock_abi())
        monkeypatch.setattr(landlock, "landlock_abi", lambda: abi)
    return request.param


def _report(result: dict) -> dict:
    """The parts of a result that matter here (``unconfined`` aside)."""
    return {key: value for key, value in result.items() if key != "unconfined"}


def test_a_command_that_kills_its_supervisor_leaves_nothing(ctx: ToolContext, hold: str) -> None:
    setsid, nohup = marker(313), marker(314)
    started = time.monotonic()
    result = run_command(
        ctx, f"(setsid sleep {setsid} &) ; (nohup sleep {nohup} >/dev/null 2>&1 &) ; sleep 0.2; kill -9 $PPID; echo after"
    )
    assert time.monotonic() - started < 5
    assert _report(result)["stdout"] == "after\n" and result["code"] == 0 and result["timed_out"] is False, result
    assert gone(setsid, nohup)


def test_a_background_command_that_kills_its_supervisor_leaves_nothing(ctx: ToolContext, hold: str) -> None:
    setsid, own = marker(324), marker(324)
    id = start_process(ctx, f"(setsid sleep {setsid} &) ; kill -9 $PPID; echo up; sleep {own}")
    seen: list[str] = []
    assert eventually(lambda: seen.append(poll_process(ctx, id)["stdout"]) or "up\n" in "".join(seen))
    assert eventually(lambda: sleeping(setsid) and sleeping(own)), "the processes never started"
    assert poll_process(ctx, id)["running"] is True  # its supervisor lives on
    assert stop_process(ctx, id)["code"] == -9
    assert gone(setsid, own)


@pytest.mark.parametrize("hold", [h for h in HOLDS if h != "pidns"], indirect=True)  # confined: the seccomp filter
def test_a_command_cannot_lower_its_supervisors_limits(ctx: ToolContext, hold: str) -> None:
    """prlimit is no signal: a supervisor left without file descriptors or CPU time would fail or die."""
    mark = marker(325)
    result = run_command(ctx, f"prlimit --pid $PPID --nofile=4:4 --cpu=0:0; echo $?; setsid sleep {mark} & sleep 0.2")
    assert result["stdout"] == "1\n" and "Operation not permitted" in result["stderr"], result
    assert result["code"] == 0
    assert gone(mark)


def test_an_unconfined_command_that_lowers_pid_1s_limits_leaves_nothing(ctx: ToolContext, monkeypatch) -> None:
    if local_shell._namespaces():
        pytest.skip(f"pid namespaces do not work here ({local_shell._namespaces()})")
    monkeypatch.setattr(confine, "unavailable", lambda: "no Landlock in this test")
    mark = marker(326)
    result = run_command(ctx, f"prlimit --pid 1 --nofile=4:4; setsid sleep {mark} & sleep 0.2; echo done")
    assert _report(result) == {"code": 0, "stdout": "done\n", "stderr": "", "timed_out": False}
    assert gone(mark)


def test_a_command_cannot_signal_lackpy(tmp_path: Path) -> None:
    """Without a supervisor (the shell is lackpy's child), Landlock's signal scope still keeps lackpy out of reach."""
    if not confine.scopes_signals():
        pytest.skip("the kernel has no Landlock signal scoping (ABI >= 6)")
    host = subprocess.run(
        [sys.executable, "-c", (
            "from lackpy.host import local_shell\n"
            "from lackpy.kit.context import ToolContext\n"
            "from lackpy.tools.shell import run_command\n"
            "local_shell._tracking = False\n"
            f"print(run_command(ToolContext({str(tmp_path)!r}), 'kill -9 $PPID; echo $?')['stdout'], end='')\n"
            "print('lackpy lives')\n"
        )],
        capture_output=True, text=True, timeout=60,
    )
    assert (host.returncode, host.stdout) == (0, "1\nlackpy lives\n"), host.stderr


def test_when_the_supervisor_dies_anyway_its_namespace_dies_with_it(ctx: ToolContext) -> None:
    if local_shell._namespaces():
        pytest.skip(f"pid namespaces do not work here ({local_shell._namespaces()})")
    setsid, own = marker(327), marker(327)
    id = start_process(ctx, f"setsid sleep {setsid} & sleep {own}")
    assert eventually(lambda: sleeping(setsid) and sleeping(own)), "the processes never started"
    os.kill(ctx.state["processes"][id].pid, signal.SIGKILL)  # from outside: the command itself cannot
    assert gone(setsid, own)
    assert stop_process(ctx, id)["running"] is False


def test_when_the_supervisor_dies_anyway_its_shell_dies_with_it(ctx: ToolContext, monkeypatch) -> None:
    """Without a pid namespace only the shell has PR_SET_PDEATHSIG: what it started runs on (the documented limit)."""
    monkeypatch.setattr(local_shell, "_probed", [NO_PIDNS])
    own = marker(328)
    id = start_process(ctx, f"sleep {own}; echo never")
    shells = lambda: [pid for pid in holders(own) if "-c" in processes().get(pid, [])]  # noqa: E731
    assert eventually(lambda: shells() and sleeping(own)), "the processes never started"
    os.kill(ctx.state["processes"][id].pid, signal.SIGKILL)
    assert eventually(lambda: not shells(), 2.0), "the shell outlived its supervisor"
    assert stop_process(ctx, id)["running"] is False


def test_where_nothing_holds_the_supervisor_lackpy_says_so_once(ctx: ToolContext, monkeypatch) -> None:
    monkeypatch.setattr(local_shell, "_probed", [NO_PIDNS])
    monkeypatch.setattr(confine, "unavailable", lambda: "no Landlock in this test")
    monkeypatch.setattr(local_shell, "_reach_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert run_command(ctx, "echo one")["stdout"] == "one\n"
        assert run_command(ctx, "echo two")["stdout"] == "two\n"
    [warning] = [w for w in caught if issubclass(w.category, LackpyWarning)]
    assert str(warning.message).startswith(
        f"lackpy cannot keep a shell command from killing its supervisor (no Landlock signal scoping (ABI >= 6) and {NO_PIDNS})"
    )
    assert local_shell.status().endswith(
        f"; a command CAN kill its supervisor and leave processes behind (no Landlock signal scoping, {NO_PIDNS})"
    )


def test_the_status_line_says_what_holds_the_supervisor(monkeypatch) -> None:
    if not confine.scopes_signals() or local_shell._namespaces():
        pytest.skip("this kernel lacks Landlock signal scoping or pid namespaces")
    assert local_shell.status().endswith("; their supervisor out of their reach (Landlock signal scoping and a pid namespace)")
    monkeypatch.setattr(local_shell, "_probed", [NO_PIDNS])
    assert local_shell.status().endswith(
        f"; their supervisor out of their reach (Landlock signal scoping; if it dies anyway, what they started runs on: {NO_PIDNS})"
    )
    monkeypatch.undo()
    monkeypatch.setattr(confine, "unavailable", lambda: "no Landlock in this test")
    assert local_shell.status().endswith("; their supervisor out of their reach (a pid namespace)")


# --------------------------------------------------------------------------- where lackpy cannot track


def _fake_supervisor(monkeypatch, **overrides: str) -> None:
    """Run the real supervisor with some of its globals replaced (``_subreaper``, ``SHELL``)."""
    replace = "; ".join(f"main.__globals__[{name!r}] = {value}" for name, value in overrides.items())
    boot = f"import runpy, sys; main = runpy.run_path(sys.argv[1])['main']; {replace}; main(sys.argv[1:])"
    monkeypatch.setattr(
        local_shell,
        "_supervisor_argv",
        lambda fd, hold, command: [sys.executable, "-I", "-S", "-c", boot, local_shell.SUPERVISOR, str(fd), hold, command],
    )


def _untracked_run(ctx: ToolContext, monkeypatch) -> list[warnings.WarningMessage]:
    """Two commands run untracked: the group is still killed; the warning comes once."""
    monkeypatch.setattr(local_shell, "_tracking", True)
    child = marker(322)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_command(ctx, f"sleep {child} & echo done")
        assert result == {"code": 0, "stdout": "done\n", "stderr": "", "timed_out": False}
        assert run_command(ctx, "exit 5")["code"] == 5
    assert gone(child)  # today's process-group kill still applies
    assert local_shell._tracking is False
    return [w for w in caught if issubclass(w.category, LackpyWarning)]


def test_without_linux_commands_run_in_a_process_group_with_one_warning(ctx: ToolContext, monkeypatch) -> None:
    monkeypatch.setattr(local_shell, "_LINUX", False)
    [warning] = _untracked_run(ctx, monkeypatch)
    assert "cannot track the processes shell commands start (that needs Linux)" in str(warning.message)


def test_a_refused_prctl_falls_back_to_the_process_group(ctx: ToolContext, monkeypatch) -> None:
    """Without a pid namespace the supervisor needs the subreaper prctl."""
    monkeypatch.setattr(local_shell, "_probed", ["no pid namespace: none in this test"])
    _fake_supervisor(monkeypatch, _subreaper="lambda: False")
    [warning] = _untracked_run(ctx, monkeypatch)
    assert "the kernel refused prctl(PR_SET_CHILD_SUBREAPER)" in str(warning.message)


def test_a_supervisor_that_cannot_start_falls_back_to_the_process_group(ctx: ToolContext, monkeypatch) -> None:
    monkeypatch.setattr(local_shell, "_supervisor_argv", lambda fd, hold, command: [sys.executable, "-c", "raise SystemExit(3)"])
    [warning] = _untracked_run(ctx, monkeypatch)
    assert "did not start (exit status 3)" in str(warning.message)


def test_a_shell_that_cannot_start_is_a_tool_error(ctx: ToolContext, monkeypatch) -> None:
    from lackpy.errors import ToolError

    _fake_supervisor(monkeypatch, SHELL="'/nonexistent/sh'")
    with pytest.raises(ToolError, match="run_command: could not start /bin/sh: No such file or directory"):
        run_command(ctx, "true")
    with pytest.raises(ToolError, match="start_process: could not start /bin/sh: No such file or directory"):
        start_process(ctx, "true")
    assert local_shell._tracking is True
