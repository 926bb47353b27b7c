"""The fork server: a stopped, killed or failing server never blocks a run, and is replaced once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from lackpy import LackpyService, Toolbox, resolve_kit, run_program
from lackpy.plugins import populate
from lackpy.run import forkserver
from lackpy.run.forkserver import get_fork_server


@pytest.fixture
def kit(workspace: Path):
    box = Toolbox(str(workspace))
    populate(box)
    return resolve_kit("readonly", box)


@pytest.fixture
def stopped():
    """SIGSTOPs processes on request; whatever is still stopped gets SIGCONT at the end."""
    pids: list[int] = []

    def stop(pid: int) -> None:
        pids.append(pid)
        os.kill(pid, signal.SIGSTOP)
        _wait_for(lambda: _state(pid) in ("T", "Z", None))  # a stopped worker may be killed by its server at once

    yield stop
    for pid in pids:
        if _state(pid) == "T":
            os.kill(pid, signal.SIGCONT)


@pytest.fixture
def started(kit, monkeypatch) -> list:
    """The fork servers started from now on (one is running already)."""
    _ready_server(kit)
    servers: list = []

    class Recorded(forkserver.ForkServer):
        def __init__(self, sandbox=True):
            super().__init__(sandbox)
            servers.append(self)

    monkeypatch.setattr(forkserver, "ForkServer", Recorded)
    return servers


def _state(pid: int) -> str | None:
    """The process's state letter (``T`` when stopped), or None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return None


def _wait_for(condition, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _ready_server(kit) -> forkserver.ForkServer:
    """The sandboxed fork server, after a run it served, its held worker let go: the next run asks the server."""
    assert run_program("1 + 1", kit).output == 2
    server = get_fork_server()
    _, channel = _held(server)
    channel.close()  # the worker finds its channel closed and exits
    return server


def _held(server: forkserver.ForkServer) -> tuple[int, object]:
    """The worker the server holds for the next run, taken (its pid and the host's end of its channel)."""
    _wait_for(lambda: server._held is not None)
    return server.spawn(time.monotonic() + 1)


def _spares(server: forkserver.ForkServer, count: int = 1) -> set[int]:
    """The pids of the server's ``count`` spare workers (its children still in its process group), once there are that many."""
    def find() -> set[int]:
        found = set()
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == server.process.pid and int(fields[2]) == server.process.pid and fields[0] != "Z":
                found.add(int(entry.name))
        return found

    seen: list[set[int]] = []
    _wait_for(lambda: seen.append(find()) or len(seen[-1]) == count)
    return seen[-1]


def _timed(kit, timeout_s: float):
    start = time.monotonic()
    result = run_program("1 + 1", kit, limits={"timeout_s": timeout_s})
    return result, time.monotonic() - start


def test_a_stopped_fork_server_is_replaced_within_the_run(kit, stopped, started):
    """A run finds the server hung, kills and reaps it, and gets its worker from a new one."""
    old = _ready_server(kit)
    stopped(old.process.pid)
    result, elapsed = _timed(kit, 2)
    assert result.output == 2, result.error
    assert elapsed < 3
    assert old.process.returncode == -signal.SIGKILL
    assert started == [get_fork_server()]


def test_time_running_out_before_a_worker_starts_is_a_timeout(kit, stopped):
    """A run shorter than the server takes to count as hung fails with the timeout limit; the next one works."""
    stopped(_ready_server(kit).process.pid)
    result, elapsed = _timed(kit, 0.3)
    assert (result.error_kind, result.limit, result.limit_value) == ("limit", "timeout", 0.3)
    assert result.error == "limit exceeded: timeout: no isolated worker started within 0.3 s"
    assert elapsed < 1
    result, elapsed = _timed(kit, 2)
    assert result.output == 2, result.error
    assert elapsed < 2


def test_concurrent_runs_share_one_replacement(kit, stopped, started):
    """Four runs on threads blocked on a stopped server are all let go, and only one new server starts."""
    old = _ready_server(kit)
    stopped(old.process.pid)
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(_timed(kit, 2))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert [result.output for result, _ in results] == [2] * 4, [result.error for result, _ in results]
    assert max(elapsed for _, elapsed in results) < 3
    assert started == [get_fork_server()] and old.process.returncode == -signal.SIGKILL


def test_the_service_is_not_held_up_by_a_stopped_server(workspace, kit, stopped):
    """Through the service too, a stopped server costs a run about a second, not forever."""
    stopped(_ready_server(kit).process.pid)
    service = LackpyService(workspace)
    start = time.monotonic()
    result = asyncio.run(service.run_program("1 + 1", "readonly", mode="isolated", limits={"timeout_s": 2}))
    assert result.output == 2, result.error
    assert time.monotonic() - start < 3


def test_a_server_killed_between_runs_is_replaced(kit):
    """SIGKILL without reaping: the next run still gets a worker, from a new server."""
    old = _ready_server(kit)
    os.kill(old.process.pid, signal.SIGKILL)
    assert run_program("1 + 1", kit, limits={"timeout_s": 2}).output == 2
    assert get_fork_server() is not old and old.process.returncode == -signal.SIGKILL


@pytest.mark.parametrize("sig", [signal.SIGSTOP, signal.SIGKILL], ids=["stopped", "killed"])
def test_a_stopped_or_killed_spare_worker_is_replaced(kit, stopped, sig):
    """The server notices its spare worker stopped or died and hands the run a new one."""
    server = _ready_server(kit)
    (spare,) = _spares(server)
    if sig == signal.SIGSTOP:
        stopped(spare)
    else:
        os.kill(spare, sig)
        _wait_for(lambda: _state(spare) in (None, "Z"))  # dead before the run, not during its hand-off
    result, elapsed = _timed(kit, 2)
    assert result.output == 2, result.error
    assert elapsed < 1 and get_fork_server() is server


def test_a_server_that_keeps_dying_is_a_crash_that_says_so(kit, monkeypatch):
    """When the replacement dies too, the run is a crash saying the server was restarted."""

    class Dying(forkserver.ForkServer):
        def __init__(self, sandbox=True):
            super().__init__(sandbox)
            _wait_for(lambda: self.ready)
            os.kill(self.process.pid, signal.SIGKILL)

    os.kill(_ready_server(kit).process.pid, signal.SIGKILL)
    monkeypatch.setattr(forkserver, "ForkServer", Dying)
    result, _ = _timed(kit, 2)
    assert result.error_kind == "crash"
    assert result.error == "cannot start the isolated worker: the fork server exited; lackpy restarted it"
    monkeypatch.undo()
    assert run_program("1 + 1", kit).output == 2


def test_a_server_that_cannot_start_is_a_crash(kit, monkeypatch):
    """An interpreter that exits at once never hangs a run."""
    os.kill(_ready_server(kit).process.pid, signal.SIGKILL)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    result, elapsed = _timed(kit, 2)
    assert result.error_kind == "crash" and elapsed < 2
    assert result.error.endswith("fork server did not start; use mode='inprocess' to run without it")
    monkeypatch.undo()
    assert run_program("1 + 1", kit).output == 2


def test_the_next_runs_worker_is_forked_and_waiting_before_the_run(kit):
    """After a run the server holds a fresh worker; the next run is handed that one, and one more is held after it."""
    server = _ready_server(kit)
    assert run_program("1 + 1", kit).output == 2
    _wait_for(lambda: server._held is not None)
    waiting = server._held[0]
    _wait_for(lambda: _state(waiting) == "S")  # then asleep on its channel
    assert run_program("1 + 1", kit).output == 2
    _wait_for(lambda: _state(waiting) in (None, "Z"))  # it ran the job and exited: a worker serves one run
    _wait_for(lambda: server._held is not None)
    assert server._held[0] != waiting


@pytest.mark.parametrize("sig", [signal.SIGSTOP, signal.SIGKILL], ids=["stopped", "killed"])
def test_a_held_worker_that_is_stopped_or_killed_is_not_handed_a_run(kit, stopped, sig):
    """A held worker that died waiting (a stopped one is killed by the server) is dropped: the run gets a new worker at once."""
    server = _ready_server(kit)
    assert run_program("1 + 1", kit).output == 2
    _wait_for(lambda: server._held is not None)
    waiting = server._held[0]
    if sig == signal.SIGSTOP:
        stopped(waiting)
    else:
        os.kill(waiting, sig)
    _wait_for(lambda: _state(waiting) in (None, "Z"))
    result, elapsed = _timed(kit, 2)
    assert result.output == 2, result.error
    assert elapsed < 1 and get_fork_server() is server


def test_the_pool_of_spares_is_sized_to_the_machine(monkeypatch):
    """One spare per allowed CPU but the host's, at least one and at most POOL_MAX."""
    for cpus, size in ((1, 1), (2, 1), (4, 3), (64, forkserver.POOL_MAX)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, cpus=cpus: set(range(cpus)))
        assert forkserver.pool_size() == size


def test_a_burst_of_runs_is_served_from_the_pool_which_then_refills():
    """Three spares wait; three workers asked for at once are those three, not forked on request; then three new ones wait."""
    server = forkserver.ForkServer(sandbox=True, pool=3)
    channels = []
    try:
        waiting = _spares(server, 3)
        deadline = time.monotonic() + 5
        taken = [server.spawn(deadline) for _ in range(3)]
        channels = [channel for _, channel in taken]
        assert {pid for pid, _ in taken} == waiting
        refilled = _spares(server, 6) - waiting  # the three handed out wait on their channels, beside three new spares
        assert len(refilled) == 3 and not refilled & waiting
    finally:
        for channel in channels:
            channel.close()
        server.close()
