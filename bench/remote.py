"""Remote tools: what lackpy adds to a call of an MCP server's tool, against the SDK's client calling it directly.

usage: python bench/remote.py [--calls N] [--repeat R]

The server is ``tests/remote/servers.py notes`` over stdio. The floor is one
SDK ``Client`` session calling ``list_notes`` N times in a row; lackpy is one
program calling ``notes__list_notes`` N times (argument check, trace, the hop
to the remotes' loop thread and back), in-process and isolated, through
``LackpyService.run_program`` as a host calls it. Medians of R repetitions,
each side timed in alternation.

Then one task over two servers, as an agent attached to ``lackpy serve``
does it: a note (notes server) for every file with TODO markers (lackpy's
grep over the 200-module fixture), by tool calling (``--expose-tools``, one
call per step) and by one ``run_program``: calls, bytes into the model's
context, wall time.
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
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))  # serve.py's fixture and environment helpers
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


KIT = "grep,read_file,notes__add_note,notes__list_notes"
COMPOSE_PROGRAM = """counts = {}
for hit in grep(r"\\bTODO\\b", glob="**/*.py"):
    counts[hit["path"]] = counts.get(hit["path"], 0) + 1
for path in sorted(counts):
    notes__add_note(path + ": " + str(counts[path]) + " TODO")
notes__list_notes(prefix="")
"""


async def compose(tmp: Path) -> dict:
    """One task over two servers (lackpy's file tools and the notes server): tool calling against one run_program."""
    from mcp import Client, StdioServerParameters
    from serve import make_fixture, server_env

    env = server_env(tmp)
    sides = {}
    for side in ("tools", "code"):
        root = make_fixture(tmp / f"compose-{side}")
        (root / ".lackpy").mkdir(exist_ok=True)
        (root / ".lackpy" / "config.toml").write_text(
            f'[mcp.servers.notes]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(SERVERS), "notes"])}\ngrade = [0, 1]\n'
        )
        args = ["-m", "lackpy", "serve", "-w", str(root), "--trust", "--kit", KIT, "--allow-kits", KIT]
        if side == "tools":
            args.append("--expose-tools")
        sides[side] = Client(StdioServerParameters(command=sys.executable, args=args, env=env))
    figures = {}
    async with sides["tools"] as tools, sides["code"] as code:
        for side, client in (("tools", tools), ("code", code)):
            await client.call_tool("run_program", {"program": "1"})  # the fork server and the notes server start, untimed
        calls = {"tools": 0, "code": 0}
        size = {"tools": 0, "code": 0}

        async def call(side: str, client, name: str, args: dict) -> Any:
            result = await client.call_tool(name, args)
            calls[side] += 1
            size[side] += sum(len(c.text.encode()) for c in result.content if getattr(c, "text", None) is not None)
            if result.is_error:
                raise RuntimeError(f"{name}({args}) failed: {result.content[0].text}")
            return result.structured_content

        start = time.perf_counter()
        counts: dict[str, int] = {}
        for hit in (await call("tools", tools, "grep", {"pattern": r"\bTODO\b", "glob": "**/*.py"}))["result"]:
            counts[hit["path"]] = counts.get(hit["path"], 0) + 1
        for path in sorted(counts):
            await call("tools", tools, "notes__add_note", {"text": f"{path}: {counts[path]} TODO"})
        by_tools = (await call("tools", tools, "notes__list_notes", {"prefix": ""}))["result"]
        figures["tools_wall"] = time.perf_counter() - start
        start = time.perf_counter()
        by_code = (await call("code", code, "run_program", {"program": COMPOSE_PROGRAM}))["output"]
        figures["code_wall"] = time.perf_counter() - start
    if by_tools != by_code or not by_code:
        raise RuntimeError(f"the two ways differ: {by_tools[:3]} against {by_code[:3]}")
    figures.update(calls=calls, bytes=size, notes=len(by_code))
    return figures


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
    c = asyncio.run(compose(root))
    print(f"\n### Two servers in one task: a note per file with TODO markers ({c['notes']} notes; grep from lackpy's tools, add_note from the notes server)\n")
    print("| way | calls | bytes into the model's context | wall |")
    print("|---|---|---|---|")
    print(f"| tool calling (`--expose-tools`) | {c['calls']['tools']} | {c['bytes']['tools'] / 1024:.1f} KB | {c['tools_wall'] * 1000:.0f} ms |")
    print(f"| code mode (one `run_program`) | {c['calls']['code']} | {c['bytes']['code'] / 1024:.1f} KB | {c['code_wall'] * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
