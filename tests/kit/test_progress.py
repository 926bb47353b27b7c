"""lackpy.progress: a custom tool tells whoever watches the run what it is doing, apart from the result."""

from __future__ import annotations

import asyncio

import pytest

import lackpy
from lackpy import LackpyService, tool


@tool
def crunch(n: int) -> int:
    """Count to n, saying how far along it is."""
    for step in range(1, n + 1):
        lackpy.progress(f"step {step} of {n}", step, n)
    return n


@tool
async def crunch_later(n: int) -> int:
    """The same, as an async tool (run on a thread of its own while the program's loop is busy)."""
    for step in range(1, n + 1):
        lackpy.progress(f"later {step}", step, n)
        await asyncio.sleep(0)
    return n


def test_progress_outside_a_run_does_nothing():
    assert lackpy.progress("nobody listens", 1, 2) is None


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_custom_tools_progress_reaches_on_event_and_never_the_result(workspace, mode):
    events: list[dict] = []

    async def run():
        async with LackpyService(workspace) as svc:
            svc.toolbox.register(crunch)
            svc.toolbox.register(crunch_later)
            return await svc.run_program("[crunch(3), crunch_later(2)]", kit="crunch,crunch_later", mode=mode, on_event=events.append)

    result = asyncio.run(run())
    assert result.success, result.error
    assert result.output == [3, 2]
    progress = [(e["tool"], e["message"], e["progress"], e["total"]) for e in events if e["event"] == "progress"]
    assert progress == [
        ("crunch", "step 1 of 3", 1, 3), ("crunch", "step 2 of 3", 2, 3), ("crunch", "step 3 of 3", 3, 3),
        ("crunch_later", "later 1", 1, 2), ("crunch_later", "later 2", 2, 2),
    ]
    assert "step 1" not in repr(result.to_dict())


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_commands_output_streams_as_progress_each_byte_once(workspace, mode):
    """run_command passes its new output on while it runs (coalesced), every byte once, a split character whole."""
    events: list[dict] = []
    command = (
        "printf 'first\\n'; sleep 0.3; "
        "python3 -c \"import sys; sys.stdout.buffer.write('é'.encode() * 20000)\"; "
        "printf 'oops\\n' >&2; sleep 0.2; printf 'last\\n'"
    )

    async def run():
        async with LackpyService(workspace, approve=True) as svc:
            return await svc.run_program(f"run_command({command!r})", kit="run_command", mode=mode, on_event=events.append)

    result = asyncio.run(run())
    assert result.success, result.error
    streamed = [e["message"] for e in events if e["event"] == "progress" and e["tool"] == "run_command"]
    out = "".join(m for m in streamed if not m.startswith("[stderr] "))
    err = "".join(m[len("[stderr] "):] for m in streamed if m.startswith("[stderr] "))
    assert out == "first\n" + "é" * 20000 + "last\n"
    assert err == "oops\n"
    assert streamed[0] == "first\n"  # passed on before the command went on, not at its end
    assert all(len(m.encode()) <= 16 * 1024 + 64 * 1024 for m in streamed)
    assert "[stderr]" not in result.output["stdout"] and result.output["stderr"] == "oops\n"



@pytest.mark.slow
@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_background_processs_output_streams_as_progress_of_the_runs_that_watch_it(workspace, mode):
    """start_process's new output is progress of the run that started it, marked with its id, each byte once; a later run
    that polls it watches it again; poll_process still returns all of it."""
    events: list[dict] = []
    command = "printf 'one\\n'; printf 'warn\\n' >&2; sleep 0.4; printf 'two\\n'; sleep 1.2; printf 'three\\n'"

    async def run():
        async with LackpyService(workspace, approve=True) as svc:
            session = svc.open_session()
            started = await svc.run_program(
                f"p = start_process({command!r})\nrun_command('sleep 1')\np", kit="start_process,run_command", mode=mode,
                on_event=events.append, session=session,
            )
            await asyncio.sleep(0.05)
            seen = len(events)
            later = await svc.run_program(
                "first = poll_process('p1')\nrun_command('sleep 1.5')\n[first, poll_process('p1')]", kit="poll_process,run_command",
                mode=mode, on_event=events.append, session=session,
            )
            await asyncio.sleep(0.05)  # events reach on_event on the loop
            return started, later, events[:seen], events[seen:]

    started, later, during_first, during_later = asyncio.run(run())
    assert started.success and later.success, (started.error, later.error)

    def watched(events: list[dict]) -> list[str]:
        return [e["message"] for e in events if e["event"] == "progress" and e["tool"] == "start_process"]

    first = watched(during_first)
    assert "".join(m.removeprefix("[p1] ") for m in first if m.startswith("[p1] ")) == "one\ntwo\n"
    assert [m for m in first if not m.startswith("[p1] ")] == ["[p1 stderr] warn\n"]
    assert watched(during_later) == ["[p1] three\n"]
    polled_first, polled_last = later.output
    assert polled_first["stdout"] == "one\ntwo\n" and polled_first["stderr"] == "warn\n"
    assert polled_last["stdout"] == "three\n" and not polled_last["running"]
