"""A session's own worker (``session_worker = true``): kept between that session's runs only, ended by reset, a limit or close."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from lackpy import LackpyService


def _state(pid: int) -> str | None:
    """The process's state letter, or None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return None


def _gone(pid: int, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while _state(pid) not in (None, "Z"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


async def _run(svc: LackpyService, session, program: str = "1 + 1", **options):
    return await svc.run_program(program, kit="readonly", session=session, **options)


def test_a_session_keeps_its_own_worker_and_never_another_sessions(workspace: Path):
    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            first, second = svc.open_session(), svc.open_session()
            pids = []
            for _ in range(3):
                assert (await _run(svc, first)).output == 2
                pids.append(first.worker().pid)
            assert (await _run(svc, second, "len(read_file('README.md'))")).output == 22
            assert (await _run(svc, None)).output == 2  # a run without a session keeps nothing
            return pids, second.worker().pid

    pids, other = asyncio.run(main())
    assert pids[0] is not None and pids == [pids[0]] * 3
    assert other is not None and other != pids[0]


def test_by_default_no_worker_is_kept(workspace: Path):
    async def main():
        async with LackpyService(workspace) as svc:
            session = svc.open_session()
            assert (await _run(svc, session)).output == 2
            return session._worker

    assert asyncio.run(main()) is None


def test_reset_close_and_limits_end_the_kept_worker(workspace: Path):
    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            session = svc.open_session()
            assert (await _run(svc, session)).output == 2
            kept = session.worker().pid
            session.reset()
            assert _gone(kept), "reset left the kept worker running"
            assert (await _run(svc, session)).output == 2
            after_reset = session.worker().pid
            failed = await _run(svc, session, "1 // (1 - 1)")
            assert failed.error_kind == "runtime" and session.worker().pid == after_reset  # a program's own error keeps it
            timed_out = await _run(svc, session, "n = 0\nfor i in range(10 ** 6):\n    for j in range(10 ** 6):\n        n += j", limits={"timeout_s": 0.3})
            assert (timed_out.error_kind, timed_out.limit) == ("limit", "timeout")
            assert session.worker().pid is None and _gone(after_reset)
            assert (await _run(svc, session)).output == 2
            last = session.worker().pid
            svc.sessions.close(session.id)
            assert _gone(last), "closing the session left its worker running"

    asyncio.run(main())


def test_a_kept_worker_still_keeps_the_time_limit_after_many_runs(workspace: Path):
    """CPU time adds up across a kept worker's runs: each run's limit counts from what it used before."""

    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            session = svc.open_session()
            for _ in range(12):
                assert (await _run(svc, session, "sum(range(300000))")).output == 44999850000
            start = time.monotonic()
            spun = await _run(svc, session, "n = 0\nfor i in range(10 ** 6):\n    for j in range(10 ** 6):\n        n += j", limits={"timeout_s": 0.5})
            return spun, time.monotonic() - start

    spun, took = asyncio.run(main())
    assert (spun.error_kind, spun.limit) == ("limit", "timeout") and took < 3


def test_two_runs_of_one_session_at_once_each_get_a_worker(workspace: Path):
    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            session = svc.open_session()
            assert (await _run(svc, session)).output == 2
            results = await asyncio.gather(*(_run(svc, session, "sum(range(2000000))") for _ in range(2)))
            return results, session.worker().pid

    results, kept = asyncio.run(main())
    assert [r.output for r in results] == [1999999000000] * 2 and kept is not None


@pytest.mark.parametrize("value", ["yes", 1])
def test_session_worker_must_be_true_or_false(workspace: Path, value):
    from lackpy.errors import ConfigError

    with pytest.raises(ConfigError, match="session_worker must be true or false"):
        LackpyService(workspace, config={"session_worker": value}).load()


def test_an_untrusted_workspace_cannot_turn_it_on(workspace: Path):
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text("session_worker = true\n")
    svc = LackpyService(workspace).load()
    assert svc.config.session_worker is False
    assert any("config 'session_worker'" in notice for notice in svc.notices)


@pytest.mark.slow
def test_a_kept_worker_is_not_stopped_by_the_cpu_time_of_its_earlier_runs(workspace: Path):
    """Twelve runs of about 0.25 s of CPU under a 0.8 s timeout: together past any one run's CPU limit (2 s), each within its own."""
    busy = "n = 0\nfor i in range(3000):\n    for j in range(1000):\n        n += j\nn"

    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            session = svc.open_session()
            results = [await _run(svc, session, busy, limits={"timeout_s": 0.8}) for _ in range(12)]
            return results, session.worker().pid

    results, kept = asyncio.run(main())
    assert [r.output for r in results] == [1498500000] * 12, [r.error for r in results]
    assert kept is not None


def test_at_most_so_many_workers_are_kept_and_the_rest_run_fresh(workspace: Path, monkeypatch):
    from lackpy.run.sessionworker import SessionWorker

    monkeypatch.setattr(SessionWorker, "MOST", SessionWorker._count + 1)

    async def main():
        async with LackpyService(workspace, config={"session_worker": True}) as svc:
            first, second = svc.open_session(), svc.open_session()
            assert (await _run(svc, first)).output == 2
            assert (await _run(svc, second)).output == 2
            kept = (first.worker().pid, second.worker().pid)
            first.reset()  # lets one go: the next session run may keep its worker again
            assert (await _run(svc, second)).output == 2
            return kept, second.worker().pid

    (first, second), again = asyncio.run(main())
    assert first is not None and second is None and again is not None
