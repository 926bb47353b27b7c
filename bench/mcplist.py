"""How long ``lackpy mcp list`` and ``lackpy mcp status`` take for one stdio server, beside the SDK's own client doing the least.

usage: python bench/mcplist.py [--rounds N]

One workspace configures one MCP server, ``tests/remote/servers.py notes``
(a Python process on the official SDK). Each row is a whole command in a
process of its own, as a person runs it, and the rows alternate in rounds;
a figure is the median, and in brackets the fastest.

floor    a plain Python process that imports the SDK, starts the server
         over stdio, lists its tools and closes: the least any client pays
status   ``lackpy mcp status``: connect to the server now and list it
list     ``lackpy mcp list``: the config and what lackpy last listed of the
         server, from the person's cache; no server starts
help     ``lackpy --help``: the CLI's own start, the floor of any command
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVERS = HERE.parent / "tests" / "remote" / "servers.py"

FLOOR = f"""
import asyncio, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    async with stdio_client(StdioServerParameters(command=sys.executable, args=[{str(SERVERS)!r}, "notes"])) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()

asyncio.run(main())
"""


def _timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed: {done.stderr[-500:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / ".lackpy").mkdir(parents=True)
        (root / ".lackpy" / "config.toml").write_text(f'[mcp.servers.notes]\ncommand = "{sys.executable}"\nargs = ["{SERVERS}", "notes"]\n')
        env = dict(os.environ, XDG_CONFIG_HOME=f"{tmp}/config", XDG_CACHE_HOME=f"{tmp}/cache", LACKPY_LOAD_PLUGINS="")
        env.pop("LACKPY_WORKSPACE", None)
        lackpy = [sys.executable, "-m", "lackpy"]
        subprocess.run([*lackpy, "trust", str(root)], check=True, capture_output=True, env=env)
        rows = {
            "floor": [sys.executable, "-c", FLOOR],
            "status": [*lackpy, "mcp", "status", "-w", str(root)],
            "list": [*lackpy, "mcp", "list", "-w", str(root)],
            "help": [*lackpy, "--help"],
        }
        times: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(args.rounds):
            for name, command in rows.items():
                times[name].append(_timed(command, env))
    floor = statistics.median(times["floor"])
    print(f"# lackpy mcp list and status, one stdio server — Python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.rounds}\n")
    print("| command | wall | fastest | / floor |\n|---|---|---|---|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"| {name} | {median * 1000:.0f} ms | {min(samples) * 1000:.0f} ms | {median / floor:.2f}x |")


if __name__ == "__main__":
    main()
