"""Over MCP, one client's calls reuse that client's worker, never another client's; the worker ends with its session.

The workers are seen from outside, as processes: a worker that a session
keeps between its runs leads a process session of its own under lackpy's
fork server (a spare does not), so the kept workers of a ``lackpy serve``
are its descendants that lead their own process session, fork servers aside.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import PYTHON, run, start_http, stop


@pytest.fixture
def workspace(tmp_path) -> Path:
    return make_workspace(tmp_path / "ws")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """A process's state, parent and process session, or None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[3])


def kept_workers(server: int) -> set[int]:
    """The workers kept for sessions under ``server``: its descendants (not its children) that lead their own process session."""
    parents: dict[int, int] = {}
    leaders: set[int] = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))) is not None and found[0] != "Z":
            parents[int(entry)] = found[1]
            if found[2] == int(entry):
                leaders.add(int(entry))
    children = {pid for pid, parent in parents.items() if parent == server}
    return {pid for pid in leaders if parents.get(pid) in children}


def settled(server: int, expected: int, timeout_s: float = 5.0) -> set[int]:
    """The kept workers once there are ``expected`` of them (a worker let go exits a moment after), or as they are at the deadline."""
    deadline = time.monotonic() + timeout_s
    while len(found := kept_workers(server)) != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def _serve_pid(workspace: Path) -> int:
    """The ``lackpy serve`` this test process started for ``workspace`` (over stdio, the SDK starts it)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))) is not None and found[1] == os.getpid():
            try:
                command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"serve" in command and str(workspace).encode() in command:
                return int(entry)
    raise AssertionError("no lackpy serve child found")


def test_stdio_one_client_reuses_its_worker_and_it_ends_with_the_server(workspace: Path, server_env):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace)], env=server_env)

    async def main():
        async with Client(stdio_client(params)) as client:
            server = _serve_pid(workspace)
            seen = []
            for program in ("1 + 1", "len(read_file('README.md'))", "1 + 1"):
                result = await client.call_tool("run_program", {"program": program})
                assert not result.is_error
                seen.append(settled(server, 1))
            failed = await client.call_tool("run_program", {"program": "n = 0\nfor i in range(10 ** 6):\n    for j in range(10 ** 6):\n        n += j", "limits": {"timeout_s": 0.3}})
            after_limit = settled(server, 0)
            await client.call_tool("run_program", {"program": "1 + 1"})
            return seen, failed, after_limit, settled(server, 1)

    seen, failed, after_limit, fresh = run(main())
    assert len(seen[0]) == 1 and seen == [seen[0]] * 3, f"one client's runs did not share one worker: {seen}"
    assert failed.structured_content["limit"] == "timeout" and after_limit == set()  # a limit lets the worker go
    assert len(fresh) == 1 and fresh != seen[0]
    (old,) = seen[0]
    (last,) = fresh
    deadline = time.monotonic() + 5
    while _stat(last) not in (None,) and _stat(last)[0] != "Z" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _stat(old) is None or _stat(old)[0] == "Z"
    assert _stat(last) is None or _stat(last)[0] == "Z", "the worker outlived its server"


def test_http_two_clients_at_once_never_share_a_worker_and_a_closed_one_ends_its_own(workspace: Path, server_env):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    process, port = start_http(workspace, server_env)
    url = f"http://127.0.0.1:{port}/mcp"

    def client(mode: str):
        return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=120.0))), mode=mode)

    async def calls(c, count: int, **args) -> list:
        results = []
        for _ in range(count):
            result = await c.call_tool("run_program", {"program": "sum(range(200000))", **args})
            assert not result.is_error and result.structured_content["output"] == 19999900000
            results.append(result.structured_content)
        return results

    async def main():
        async with client("legacy") as first:
            await calls(first, 1)
            one = settled(process.pid, 1)
            async with client("legacy") as second:
                await calls(second, 1)
                two = settled(process.pid, 2)
                await asyncio.gather(calls(first, 4), calls(second, 4))
                together = settled(process.pid, 2)
            second_closed = settled(process.pid, 1)
        none_left = settled(process.pid, 0)
        async with client("auto") as carrier:  # the 2026-07-28 revision: a session lives by the id the client carries
            (answer,) = await calls(carrier, 1)
            unnamed = settled(process.pid, 0)  # a call that names no session leaves no worker behind
            await calls(carrier, 1, session=answer["session"])
            parked = settled(process.pid, 1)
            await calls(carrier, 2, session=answer["session"])
            carried = settled(process.pid, 1)
            await calls(carrier, 1)  # no id: a session of its own, whose worker ends with the call
            another = settled(process.pid, 1)
        return one, two, together, second_closed, none_left | unnamed, parked, carried, another

    try:
        one, two, together, second_closed, none_left, parked, carried, another = run(main())
    finally:
        stop(process)
    assert len(one) == 1 and len(two) == 2 and one < two, "the second client did not get a worker of its own"
    assert together == two, f"runs at once of the two clients did not stay on their own workers: {two} then {together}"
    assert second_closed == one, "closing the second client did not end its worker, or ended the first's"
    assert none_left == set(), "closing the first client did not end its worker"
    assert len(parked) == 1 and carried == parked, "the session id's next calls did not find its worker"
    assert another == parked
