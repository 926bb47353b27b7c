"""The service at its async edge: off the caller's loop, cancellable, closed with its processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import lackpy.config
import lackpy.infer.tiers
import lackpy.service.intents
import lackpy.service.kits
import lackpy.workspace
from lackpy import LackpyService


def running_commands(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z" and int(entry) != os.getpid():
            found.append(int(entry))
    return found


def wait_gone(marker: str, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while running_commands(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running_commands(marker)


SLOW = "write_file('out.txt', 'written')\nx = 0\nfor i in range(9000000):\n    for j in range(9000000):\n        x = x + 1\nx"


def cancel_after(start, delay: float) -> float:
    """Start ``start(svc)`` as a task, cancel it after ``delay`` seconds; how long the cancellation took."""

    async def main() -> float:
        task = asyncio.create_task(start())
        await asyncio.sleep(delay)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    return asyncio.run(main())


def test_cancelling_an_isolated_run_kills_it_and_writes_nothing(tmp_path: Path):
    svc = LackpyService(tmp_path)
    assert cancel_after(lambda: svc.run_program(SLOW, "filesystem", limits={"timeout_s": 60}), 0.8) < 2.5
    time.sleep(0.3)
    assert not (tmp_path / "out.txt").exists()


def test_cancelling_a_delegate_stops_its_program(tmp_path: Path):
    svc = LackpyService(tmp_path, trust=True)  # the user's own template, which writes
    svc.template_save("spin", "spin the wheel", SLOW, "filesystem")
    assert cancel_after(lambda: svc.delegate("spin the wheel", "filesystem", limits={"timeout_s": 60}), 1.0) < 2.5
    time.sleep(0.3)
    assert not (tmp_path / "out.txt").exists()


SPIN = "x = 0\nfor i in range(9000000):\n    for j in range(9000000):\n        x = x + 1\nx"


def test_a_run_without_tool_calls_is_awaited_on_the_loop_which_stays_free(tmp_path: Path, monkeypatch):
    """A run that calls no tool is waited for on the caller's loop (no run thread): the loop goes on meanwhile, and
    cancelling the run kills its worker and gives its slot back; its time limit still holds."""
    import lackpy.run.isolated as isolated

    heard, waited = isolated.heard, []

    async def watched(begun):
        waited.append((threading.get_ident(), begun.pid))
        return await heard(begun)

    monkeypatch.setattr(isolated, "heard", watched)

    async def main() -> tuple[int, float, dict]:
        svc = LackpyService(tmp_path)
        session = svc.open_session()
        assert (await svc.run_program("1 + 1", "readonly", session=session)).output == 2  # the run threads and a held worker exist now
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.create_task(tick())
        task = asyncio.create_task(svc.run_program(SPIN, "readonly", session=session, limits={"timeout_s": 60}))
        await asyncio.sleep(0.5)
        task.cancel()
        started = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancelled_in = time.monotonic() - started
        timed = await svc.run_program(SPIN, "readonly", limits={"timeout_s": 1})
        ticking.cancel()
        after = await svc.run_program("2 + 2", "readonly", session=session)
        state = {"in_use": svc.run_slots.in_use, "after": after.output, "timed": (timed.error_kind, timed.limit), "loop": threading.get_ident()}
        svc.close()
        return ticks, cancelled_in, state

    ticks, cancelled_in, state = asyncio.run(main())
    assert len(waited) >= 2 and {thread for thread, _ in waited} == {state["loop"]}  # the spinning run and the timed one, at least
    spun = waited[0][1]
    assert not Path(f"/proc/{spun}").exists() or Path(f"/proc/{spun}/stat").read_text().rpartition(")")[2].split()[0] == "Z", "the cancelled run's worker lives"
    assert ticks >= 40, f"the loop ticked {ticks} times in 0.5 s of the run and 1 s of another"
    assert cancelled_in < 1.0
    assert state["in_use"] == 0 and state["after"] == 4
    assert state["timed"] == ("limit", "timeout")


def test_a_run_that_was_not_cancelled_still_writes(tmp_path: Path):
    result = asyncio.run(LackpyService(tmp_path, approve=True).run_program("write_file('out.txt', 'ok')", "filesystem"))
    assert result.success and (tmp_path / "out.txt").read_text() == "ok"


def test_blocking_work_happens_off_the_loop(tmp_path: Path, monkeypatch):
    """Config and kit reads, tier construction and availability probes run on other threads than the loop's."""
    seen: dict[str, set[int]] = {}

    def spy(module, name):
        original = getattr(module, name)

        def recorded(*args, **kwargs):
            seen.setdefault(name, set()).add(threading.get_ident())
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, recorded)

    spy(lackpy.workspace, "load_config")
    spy(lackpy.workspace, "resolve_kit")
    spy(lackpy.service.kits, "resolve_kit")
    spy(lackpy.service.intents, "build_tiers")

    async def main() -> int:
        svc = LackpyService(tmp_path)
        await svc.run_program("1 + 1", "readonly")
        await svc.delegate("list the . directory", "readonly")
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert set(seen) == {"load_config", "resolve_kit", "build_tiers"}
    for name, threads in seen.items():
        assert loop_thread not in threads, name


def test_events_arrive_on_the_callers_loop(tmp_path: Path):
    async def main() -> tuple[int, list]:
        svc = LackpyService(tmp_path)
        events: list = []
        await svc.generate("list the . directory", "readonly", on_event=lambda e: events.append((threading.get_ident(), e)))
        await asyncio.sleep(0)  # events scheduled last are delivered
        return threading.get_ident(), events

    loop_thread, events = asyncio.run(main())
    assert events and {thread for thread, _ in events} == {loop_thread}
    assert events[0][1]["event"] == "tier"


def test_async_with_stops_background_processes(tmp_path: Path):
    marker = "61.4142"

    async def main() -> None:
        async with LackpyService(tmp_path, approve=True) as svc:
            result = await svc.run_program(f'start_process("sleep {marker}")', "coding")
            assert result.success
            assert running_commands(marker)

    asyncio.run(main())
    assert wait_gone(marker) == []


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_the_cli_stops_the_processes_its_program_started(tmp_path: Path, mode: str):
    """`lackpy run --kit coding` with start_process used to leave the process running after it exited."""
    marker = "62.3456" if mode == "isolated" else "62.6543"
    program = tmp_path / "start.py"
    program.write_text(f'start_process("sleep {marker}")\n')
    done = subprocess.run(
        [sys.executable, "-m", "lackpy", "run", "--yes", "--kit", "coding", "--mode", mode, "-w", str(tmp_path), str(program)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert wait_gone(marker) == []


@pytest.mark.slow
def test_the_cli_stops_processes_when_it_is_terminated(tmp_path: Path):
    """SIGTERM to lackpy (a closed terminal, a supervisor) still closes the service."""
    marker = "63.1415"
    program = tmp_path / "start.py"
    program.write_text(f'start_process("sleep {marker}")\nrun_command("sleep 30")\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "lackpy", "run", "--yes", "--kit", "coding", "--timeout", "60", "-w", str(tmp_path), str(program)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while not running_commands(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_commands(marker)
    proc.terminate()
    proc.wait(timeout=20)
    assert wait_gone(marker) == []
    assert wait_gone("sleep 30", 5.0) == []


def test_runs_beyond_max_concurrent_runs_wait_without_losing_time(tmp_path: Path):
    """Concurrency is a setting; a run that waited for its turn still has its whole timeout."""
    from lackpy import tool

    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    @tool(grade=(0, 0))
    def busy(seconds: float) -> int:
        """Be one of the runs going on for a while."""
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(seconds)
        with lock:
            state["now"] -= 1
        return 1

    async def main() -> list:
        svc = LackpyService(tmp_path, config={"max_concurrent_runs": 2})
        svc.toolbox.register(busy)
        runs = [svc.run_program("busy(0.4)", ["busy"], limits={"timeout_s": 1}) for _ in range(6)]
        return await asyncio.gather(*runs)

    started = time.monotonic()
    results = asyncio.run(main())
    assert all(r.success for r in results), [r.error for r in results if not r.success]
    assert state["most"] == 2
    assert time.monotonic() - started >= 1.1  # three rounds of two: they waited, and none timed out


def test_max_concurrent_runs_is_checked(tmp_path: Path):
    from lackpy.errors import ConfigError

    for bad in [0, -1, 10**6, "8", 2.5, True]:
        with pytest.raises(ConfigError, match="max_concurrent_runs must be a whole number from 1 to 256"):
            LackpyService(tmp_path, config={"max_concurrent_runs": bad}).load()


def test_in_process_runs_under_load_do_not_time_out_waiting(tmp_path: Path):
    """Fifty trivial in-process runs at once, each with a short timeout: none is charged for the others' time."""

    async def main() -> list:
        svc = LackpyService(tmp_path)
        busy = "total = 0\nfor i in range(200000):\n    total = total + i\ntotal"
        runs = [svc.run_program(busy if i % 2 else "1 + 1", "none", mode="inprocess", limits={"timeout_s": 0.5}) for i in range(50)]
        return await asyncio.gather(*runs)

    results = asyncio.run(main())
    assert all(r.success for r in results), {r.error for r in results if not r.success}


@pytest.mark.slow
def test_in_process_results_do_not_hold_the_programs_objects(tmp_path: Path):
    """Results keep plain data within the output limit, else summaries: a host keeping them does not grow."""
    import tracemalloc

    async def main() -> list:
        svc = LackpyService(tmp_path)
        return [await svc.run_program("x = list(range(200000))\ny = [1, 2]\nlen(x)", "none", mode="inprocess") for _ in range(10)]

    tracemalloc.start()
    try:
        results = asyncio.run(main())
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert results[0].output == 200_000 and results[0].variables["y"] == [1, 2]
    assert isinstance(results[0].variables["x"], str) and "(len 200000)" in results[0].variables["x"]
    assert held < 8_000_000  # ten lists of 200,000 ints would be over 70 MB


def test_an_invalid_program_is_answered_without_waiting_for_a_run_thread(tmp_path: Path):
    """Validation happens before a run queues: with every run thread busy, an invalid program still answers at once."""

    async def main() -> tuple[float, object]:
        async with LackpyService(tmp_path, {"max_concurrent_runs": 1}) as svc:
            busy = asyncio.create_task(svc.run_program(SLOW, "filesystem", limits={"timeout_s": 30}))
            await asyncio.sleep(0.5)
            start = time.monotonic()
            result = await svc.run_program("import os", "readonly")
            took = time.monotonic() - start
            busy.cancel()
            with pytest.raises(asyncio.CancelledError):
                await busy
            return took, result

    took, result = asyncio.run(main())
    assert result.error_kind == "validation" and not result.success
    assert took < 1.0
