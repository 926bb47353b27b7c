"""Remote tools: what lackpy adds to a call of an MCP server's tool, against the SDK's client calling it directly.

usage: python bench/remote.py [--calls N] [--repeat R]

The server is ``tests/remote/servers.py notes`` over stdio. The floor is one
SDK ``Client`` session calling ``list_notes`` N times in a row; lackpy is one
program calling ``notes__list_notes`` N times (argument check, trace, the hop
to the remotes' loop thread and back), in-process and isolated, through
``LackpyService.run_program`` as a host calls it. Medians of R repetitions,
each side timed in alternation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVERS = REPO / "tests" / "remote" / "servers.py"


async def direct(calls: int) -> float:
    """Seconds per call of the SDK client calling the server itself."""
    from mcp import Client, StdioServerParameters

    async with Client(StdioServerParameters(command=sys.executable, args=[str(SERVERS), "notes"])) as client:
        for _ in range(20):
            await client.call_tool("list_notes", {"prefix": "zz"})
        start = time.perf_counter()
        for _ in range(calls):
            await client.call_tool("list_notes", {"prefix": "zz"})
        return (time.perf_counter() - start) / calls


async def through_lackpy(svc, calls: int, mode: str) -> float:
    """Seconds per call of one program making ``calls`` calls of the remote tool."""
    program = f'for i in range({calls}):\n    notes__list_notes(prefix="zz")\n"done"'
    result = await svc.run_program(program, kit="notes__list_notes", mode=mode, limits={"timeout_s": 300})
    assert result.success, result.error
    return result.duration_ms / 1000 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from lackpy import LackpyService

    root = Path(tempfile.mkdtemp(prefix="lackpy-remote-bench-"))
    (root / ".lackpy").mkdir()
    (root / ".lackpy" / "config.toml").write_text(
        f'[mcp.servers.notes]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(SERVERS), "notes"])}\ngrade = [0, 0]\n'
    )
    floors, runs = [], {"inprocess": [], "isolated": []}

    async def bench() -> None:
        async with LackpyService(root, trust=True) as svc:
            await through_lackpy(svc, 20, "inprocess")
            for _ in range(args.repeat):
                floors.append(await direct(args.calls))
                for mode in runs:
                    runs[mode].append(await through_lackpy(svc, args.calls, mode))

    asyncio.run(bench())
    floor = statistics.median(floors)
    print(f"\n### Remote tool call, {args.calls} calls per sample, median of {args.repeat}\n")
    print("| path | per call | floor: SDK client direct | lackpy adds |")
    print("|---|---|---|---|")
    print(f"| SDK `Client.call_tool` over stdio | {floor * 1000:.3f} ms | — | — |")
    for mode, samples in runs.items():
        per_call = statistics.median(samples)
        print(f"| lackpy program, {mode} (whole run / calls) | {per_call * 1000:.3f} ms | {floor * 1000:.3f} ms | {(per_call - floor) * 1000:+.3f} ms |")
    met = statistics.median(runs["inprocess"]) - floor < 0.0003
    print(f"\nTarget, lackpy adds under 0.3 ms per remote call over stdio (in-process run): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
