"""lackpy serve for a team: two replicas behind haproxy (round robin, no affinity) with one Redis, many clients.

usage: python bench/cluster.py [--clients N] [--steps N] [--kill]

Starts a redis-server, two ``lackpy serve --http --store redis://...`` replicas
and haproxy on loopback ports (haproxy sends each request to the next replica;
handshake-era streams stick to theirs by ``Mcp-Session-Id``, as they must).
Half the clients speak the handshake era, half 2026-07-28. Each keeps a value
and a checklist in its session, then makes ``--steps`` calls naming the
session, each adding one to the value and reading the checklist: every answer
is checked against what that client alone must see. The floor is the same
clients against one replica with the in-memory store, measured in the same
run; the ratio is calls per second through the team over the floor's.

With ``--kill``, replica A is killed (SIGKILL) halfway through: the table
counts the calls that failed and says each failure's error kind; a failure
must be a ``lost`` error or a broken connection of a call that was on A.
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from cluster import free_port, needs, redis_server, stop, wait_port  # noqa: E402  tests/cluster.py: real redis-server and haproxy
from serve import http_client, make_fixture, server_env  # noqa: E402  bench/serve.py

KEY = "bench-cluster-key-" + "k" * 32
HAPROXY = """global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 300s
    timeout server 300s
backend replicas
    balance roundrobin
    stick-table type string len 64 size 100k expire 30m
    stick on req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
{servers}
frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas
"""


def replica(workspace: Path, env: dict, port: int, *options: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "lackpy", "serve", "-w", str(workspace), "--allow-kits", "readonly,coding", "--http", f"127.0.0.1:{port}", *options],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    wait_port(port, process, 60)
    return process


async def one_client(url: str, number: int, steps: int, stats: Counter, kinds: Counter) -> None:
    mode = "legacy" if number % 2 else "auto"
    made, http = http_client(url, mode)
    try:
        async with http, made as client:
            first = await client.call_tool("run_program", {"program": f'x = {number * 1000}\ntodo_set(["c{number}"])\nx', "kit": "todo_set,todo_read", "keep": True})
            session = (first.structured_content or {}).get("session")
            for step in range(1, steps + 1):
                result = await client.call_tool("run_program", {
                    "program": 'x = x + 1\n[x, todo_read()[0]["text"]]', "kit": "todo_set,todo_read", "session": session, "keep": True,
                })
                document = result.structured_content or {}
                if result.is_error:
                    stats["failed"] += 1
                    kinds[document.get("error_kind") or (document.get("error") or {}).get("kind") or "?"] += 1
                    return
                stats["calls"] += 1
                if document.get("output") != [number * 1000 + step, f"c{number}"]:
                    stats["wrong"] += 1
    except Exception as exc:  # a call that was in flight on a killed replica: its connection broke
        stats["broken"] += 1
        kinds[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1


async def drive(url: str, clients: int, steps: int, kill: subprocess.Popen | None = None) -> tuple[Counter, Counter, float]:
    stats, kinds = Counter(), Counter()
    began = time.perf_counter()
    tasks = [asyncio.create_task(one_client(url, n, steps, stats, kinds)) for n in range(clients)]
    if kill is not None:
        while stats["calls"] < clients * steps // 2:
            await asyncio.sleep(0.05)
        os.kill(kill.pid, signal.SIGKILL)
    await asyncio.gather(*tasks)
    return stats, kinds, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--kill", action="store_true")
    options = parser.parse_args()
    haproxy = needs("haproxy")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        workspace = make_fixture(tmp / "ws", 20)
        env = dict(server_env(tmp), LACKPY_CLUSTER_KEY=KEY)
        started: list[subprocess.Popen] = []
        try:
            port = free_port()
            started.append(replica(workspace, env, port))
            floor = asyncio.run(drive(f"http://127.0.0.1:{port}/mcp", options.clients, options.steps))
            stop(started.pop())
            with redis_server(tmp / "redis") as url:
                ports = [free_port(), free_port()]
                for p in ports:
                    started.append(replica(workspace, env, p, "--store", url, "--cluster-key-env", "LACKPY_CLUSTER_KEY"))
                front = free_port()
                servers = "\n".join(f"    server r{i} 127.0.0.1:{p}" for i, p in enumerate(ports))
                (tmp / "haproxy.cfg").write_text(HAPROXY.format(servers=servers, port=front))
                started.append(subprocess.Popen([haproxy, "-f", str(tmp / "haproxy.cfg"), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                wait_port(front, started[-1])
                team = asyncio.run(drive(f"http://127.0.0.1:{front}/mcp", options.clients, options.steps, started[0] if options.kill else None))
        finally:
            for process in started:
                stop(process)
    rate = lambda row: row[0]["calls"] / row[2] or float("nan")  # noqa: E731
    print(f"{options.clients} clients (half handshake era, half 2026-07-28), {options.steps} session calls each\n")
    print("| setup | calls | wrong | failed | broken | calls/s | vs floor | failures by kind |")
    print("|---|---|---|---|---|---|---|---|")
    for name, row in (("one replica, memory store (floor)", floor), ("two replicas + haproxy + redis" + (", A killed halfway" if options.kill else ""), team)):
        stats, kinds, _ = row
        print(f"| {name} | {stats['calls']} | {stats['wrong']} | {stats['failed']} | {stats['broken']} | {rate(row):.1f} | "
              f"{rate(row) / rate(floor):.2f} | {dict(kinds) or '-'} |")


if __name__ == "__main__":
    main()
