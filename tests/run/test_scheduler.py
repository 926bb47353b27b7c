"""Where runs go: an isolated run's job sent from the loop to a worker held ready, and work dropped before it starts."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.run import scheduler as scheduler_module
from lackpy.run.isolated import Begun
from lackpy.run.scheduler import Scheduler


@pytest.fixture
def early(monkeypatch):
    """Every ``begin_early`` call: what it returned and on which thread."""
    calls: list[tuple[object, int]] = []
    real = scheduler_module.begin_early

    def spy(program, settings):
        begun = real(program, settings)
        calls.append((begun, threading.get_ident()))
        return begun

    monkeypatch.setattr(scheduler_module, "begin_early", spy)
    return calls


async def _runs(svc: LackpyService, program: str, count: int, **options) -> list:
    results = []
    for _ in range(count):
        results.append(await svc.run_program(program, kit="readonly", **options))
        await asyncio.sleep(0.05)  # the next run's worker is held ready meanwhile
    return results


def test_an_isolated_run_sends_its_job_from_the_loop_to_a_worker_held_ready(workspace: Path, early):
    async def main():
        async with LackpyService(workspace) as svc:
            return await _runs(svc, "len(read_file('README.md'))", 4), threading.get_ident()

    results, loop_thread = asyncio.run(main())
    assert [r.output for r in results] == [22] * 4 and all(r.mode == "isolated" for r in results)
    begun = [b for b, thread in early if isinstance(b, Begun)]
    assert len(begun) >= 2 and all(thread == loop_thread for _, thread in early)  # the first run finds no worker held
    assert all(b._ended for b in begun)  # each worker killed and let go once its run was over


def test_no_program_reaches_a_worker_before_its_gate_or_its_checks(workspace: Path, early):
    """A program gate that asks, an invalid program or one above the ceiling: nothing is sent early."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('approve = "program"\n')
    asked: list[str] = []

    async def approve(request):
        asked.append(request.gate)
        return False

    async def main():
        async with LackpyService(workspace) as svc:
            refused = await _runs(svc, "len(read_file('README.md'))", 3, approve=approve)
            invalid = await _runs(svc, "import os", 2, approve=True)
            above = await _runs(svc, "len(read_file('README.md'))", 2, approve=True, ceiling=(0, 0))
            return refused, invalid, above

    refused, invalid, above = asyncio.run(main())
    assert [r.error_kind for r in refused] == ["denied"] * 3 and asked == ["program"] * 3
    assert [r.error_kind for r in invalid] == ["validation"] * 2
    assert [r.error_kind for r in above] == ["denied"] * 2
    assert early == [(None, early[0][1])] * len(early)  # asked each time, and each time it sent nothing


def test_work_dropped_before_it_starts_gives_back_its_slot_and_calls_dropped():
    scheduler = Scheduler(lambda: 1)
    threads = scheduler.threads()
    release = threading.Event()
    blockers = [threads.submit(release.wait) for _ in range(scheduler._slots.threads)]  # every run thread busy
    ran, dropped = [], []

    async def main():
        assert scheduler._slots.take()
        task = asyncio.create_task(scheduler.cancellable(lambda cancel: ran.append(1), taken=True, dropped=lambda: dropped.append(1)))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(main())
        assert ran == [] and dropped == [1]
        assert scheduler._slots.take()  # the slot came back
        scheduler._slots.give_back()
    finally:
        release.set()
        for blocker in blockers:
            blocker.result(timeout=5)
        scheduler.close()


def test_slots_say_how_many_runs_hold_one_and_how_many_wait_for_a_person():
    """What the metrics read: a slot taken is in use; a run waiting for a person gives its slot back and counts as asking."""
    from lackpy.run.slots import Slots, set_aside

    slots = Slots(2, waiting=1)
    assert (slots.in_use, slots.asking) == (0, 0)
    assert slots.take()
    seen = []

    def run():
        seen.append((slots.in_use, slots.asking))
        with set_aside() as refused:
            assert refused is None
            seen.append((slots.in_use, slots.asking))
            with set_aside() as second:  # the one waiting place is taken: refused at once
                seen.append(second is not None)
        seen.append((slots.in_use, slots.asking))

    slots.run(run, taken=True)
    assert seen == [(1, 0), (0, 1), True, (1, 0)]
    assert (slots.in_use, slots.asking) == (0, 0)
