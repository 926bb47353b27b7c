"""A session's own worker (``session_worker``, on by default): kept between that session's runs only, ended by reset, a limit,
a change (``lackpy.run.reuse``) or close."""

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
        async with LackpyService(workspace) as svc:
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


def test_session_worker_false_gives_every_run_a_fresh_worker(workspace: Path):
    async def main():
        async with LackpyService(workspace, config={"session_worker": False}) as svc:
            session = svc.open_session()
            assert (await _run(svc, session)).output == 2
            return session._worker

    assert asyncio.run(main()) is None


def test_what_a_run_binds_is_not_there_for_the_next_unless_kept(workspace: Path):
    async def main():
        async with LackpyService(workspace) as svc:
            session = svc.open_session()
            assert (await _run(svc, session, "secret = 41\nsecret")).output == 41
            pid = session.worker().pid
            unseen = await _run(svc, session, "secret")
            builtin = await _run(svc, session, "len([1, 2])")
            assert (await _run(svc, session, "kept = 5", keep=True)).success
            seen = await _run(svc, session, "kept + 1")
            return pid, session.worker().pid, unseen, builtin, seen

    pid, after, unseen, builtin, seen = asyncio.run(main())
    assert pid is not None and after == pid  # the same worker ran them all
    assert unseen.error_kind == "validation" and "secret" in unseen.error  # only a kept variable is a name the next run has
    assert builtin.output == 2
    assert seen.output == 6


def test_memory_an_earlier_run_used_is_never_taken_from_a_later_run(workspace: Path):
    """Each run may use most of its memory limit: the runs before it, kept worker or not, never use it up."""
    limits = {"memory_bytes": 160 * 1024 * 1024}

    async def main():
        async with LackpyService(workspace) as svc:
            session = svc.open_session()
            assert (await _run(svc, session)).output == 2
            freed = [await _run(svc, session, "len([0] * 9000000)", limits=limits) for _ in range(4)]
            held = [await _run(svc, session, "big = [0] * 9000000\nlen(big)", limits=limits) for _ in range(4)]
            return freed, held

    freed, held = asyncio.run(main())
    assert [r.output for r in freed + held] == [9000000] * 8, [r.error for r in freed + held]


def test_a_run_that_asks_for_more_memory_than_the_kept_worker_has_gets_a_fresh_one(workspace: Path):
    async def main():
        async with LackpyService(workspace) as svc:
            session = svc.open_session()
            assert (await _run(svc, session, limits={"memory_bytes": 64 * 1024 * 1024})).output == 2
            small = session.worker().pid
            big = await _run(svc, session, "len([0] * 9000000)", limits={"memory_bytes": 256 * 1024 * 1024})
            return small, big, session.worker().pid

    small, big, after = asyncio.run(main())
    assert big.output == 9000000, big.error
    assert small is not None and after not in (None, small) and _gone(small)


def test_a_dry_run_and_a_real_run_share_the_worker_but_only_the_real_run_writes(workspace: Path):
    """The worker knows nothing of dry runs (staging is the host's): reusing it across the two changes nothing."""

    async def main():
        async with LackpyService(workspace) as svc:
            session = svc.open_session()
            dry = await svc.run_program("write_file('dry.txt', 'x')", kit="filesystem", session=session, dry_run=True)
            pid = session.worker().pid
            real = await svc.run_program("write_file('real.txt', 'y')", kit="filesystem", session=session, approve=True)
            return dry, real, pid, session.worker().pid

    dry, real, pid, after = asyncio.run(main())
    assert dry.success and real.success and pid is not None and after == pid
    assert not (workspace / "dry.txt").exists() and (workspace / "real.txt").read_text() == "y"


def test_a_session_that_holds_nothing_finds_its_worker_again_by_its_id(workspace: Path):
    """What a client of the 2026-07-28 revision does: each call names the session id it was given, and holds nothing."""

    async def call(svc, session):
        svc.sessions.begin(session)
        try:
            assert (await _run(svc, session)).output == 2
        finally:
            svc.sessions.end(session)

    async def main():
        async with LackpyService(workspace) as svc:
            sessions = svc.sessions
            first = sessions.fresh()
            await call(svc, first)
            unnamed, id = first.worker().pid, first.id
            not_parked = id in sessions._parked
            del first  # a call's own session no call named: gone with its worker
            await call(svc, sessions.get(id))
            parked = sessions._parked[id][0].pid
            await call(svc, sessions.get(id))
            reused = sessions._parked[id][0].pid
            other = sessions.fresh()
            await call(svc, other)
            stranger = other.worker().pid
            sessions.close(id)
            return unnamed, not_parked, parked, reused, stranger, id in sessions._parked

    unnamed, not_parked, parked, reused, stranger, still = asyncio.run(main())
    assert unnamed is not None and not not_parked and _gone(unnamed), "the worker of a session nobody named outlived it"
    assert parked not in (None, unnamed) and reused == parked  # named by its id: parked, and the id's next call took it
    assert stranger not in (None, parked)
    assert not still and _gone(parked), "closing the id left its parked worker running"


def test_reset_close_and_limits_end_the_kept_worker(workspace: Path):
    async def main():
        async with LackpyService(workspace) as svc:
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
        async with LackpyService(workspace) as svc:
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
        async with LackpyService(workspace) as svc:
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


def test_a_parked_worker_nobody_comes_back_for_ends(workspace: Path):
    from lackpy.session import PARK_S

    async def main():
        async with LackpyService(workspace) as svc:
            sessions = svc.sessions
            session = sessions.fresh()
            session.named = True  # as Sessions.get marks it
            sessions.begin(session)
            assert (await _run(svc, session)).output == 2
            sessions.end(session)
            parked = sessions._parked[session.id][0].pid
            sessions.expire(now=time.monotonic() + PARK_S / 2)
            kept = session.id in sessions._parked
            sessions.expire(now=time.monotonic() + PARK_S + 1)
            return parked, kept, session.id in sessions._parked

    parked, kept_a_while, still = asyncio.run(main())
    assert parked is not None and kept_a_while and not still
    assert _gone(parked), "an expired parked worker is still running"


def test_a_quiet_session_keeps_its_values_not_its_worker(workspace: Path):
    """A session the table holds (kept values) whose client went quiet lets its worker go after PARK_S; the values stay."""
    from lackpy.session import PARK_S

    async def main():
        async with LackpyService(workspace) as svc:
            sessions = svc.sessions
            session = sessions.open()
            first = await svc.run_program("n = 41\nn", session=session, keep=True)
            pid = session.worker().pid
            sessions.expire(now=time.monotonic() + PARK_S / 2)
            kept_a_while = session.worker().pid == pid
            sessions.expire(now=time.monotonic() + PARK_S + 1)
            after = await svc.run_program("n + 1", session=session)
            return first.output, pid, kept_a_while, after.output, session.worker().pid

    first, pid, kept_a_while, after, again = asyncio.run(main())
    assert (first, after) == (41, 42) and kept_a_while
    assert pid is not None and again != pid and _gone(pid), "a quiet session's worker still runs"


def test_an_untrusted_workspace_may_turn_it_off_and_nothing_wider(workspace: Path):
    """Off is narrower than the default, so any workspace may say it; on is the default, the widest there is."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text("session_worker = false\n")
    off = LackpyService(workspace).load()
    assert off.config.session_worker is False and not any("session_worker" in notice for notice in off.notices)
    (workspace / ".lackpy" / "config.toml").write_text("session_worker = true\n")
    on = LackpyService(workspace).load()
    assert on.config.session_worker is True and not any("session_worker" in notice for notice in on.notices)


@pytest.mark.slow
def test_a_kept_worker_is_not_stopped_by_the_cpu_time_of_its_earlier_runs(workspace: Path):
    """Twelve runs of about 0.25 s of CPU under a 0.8 s timeout: together past any one run's CPU limit (2 s), each within its own."""
    busy = "n = 0\nfor i in range(3000):\n    for j in range(1000):\n        n += j\nn"

    async def main():
        async with LackpyService(workspace) as svc:
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
        async with LackpyService(workspace) as svc:
            first, second = svc.open_session(), svc.open_session()
            assert (await _run(svc, first)).output == 2
            assert (await _run(svc, second)).output == 2
            kept = (first.worker().pid, second.worker().pid)
            first.reset()  # lets one go: the next session run may keep its worker again
            assert (await _run(svc, second)).output == 2
            return kept, second.worker().pid

    (first, second), again = asyncio.run(main())
    assert first is not None and second is None and again is not None
