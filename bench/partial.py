"""Partial results: what a run stopped part way returns, and how soon, against a plain CPython loop stopped the same way.

usage: python bench/partial.py [--repeat R] [--limit S]

The program calls a tool in a loop, spending some CPU each turn, until its
time limit (``--limit`` seconds) stops it, in-process and isolated through
``LackpyService.run_program``, and over MCP (``lackpy serve`` on stdio, the
SDK's client calling ``run_program``). For each: the calls that finished,
whether the values it had assigned agree with them, ``complete``, and how
long after the limit the result came back. Then ``run_program(stop=...)``:
how long from setting the event to the result. The floor is the same loop
in plain CPython (``exec`` of the same text with a plain function as the
tool), stopped by its own clock check: the calls it makes in the same time.
Medians of R repetitions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lackpy import LackpyService  # noqa: E402

LOOP = """sizes = []
for i in range(10000000):
    sizes.append(len(read_file("a.txt")))
    spent = 0
    for j in range(2000):
        spent += 1
sizes
"""


def floor(seconds: float) -> int:
    """The calls plain CPython makes in ``seconds`` running the same loop, stopped by a clock check each turn."""
    text = "x" * 312
    program = LOOP.replace("sizes = []\n", "sizes = []\nend = clock() + seconds\n").replace("    spent = 0\n", "    if clock() > end:\n        break\n    spent = 0\n")
    namespace = {"read_file": lambda path: text, "clock": time.monotonic, "seconds": seconds}
    exec(compile(program, "<floor>", "exec"), namespace)
    return len(namespace["sizes"])


async def local(workspace: Path, mode: str, limit: float) -> dict:
    async with LackpyService(workspace, trust=False) as service:
        await service.run_program("1", kit="readonly", mode=mode)  # the fork server is up: its start is not the run's
        began = time.monotonic()
        result = await service.run_program(LOOP, kit="readonly", mode=mode, limits={"timeout_s": limit, "max_tool_calls": 10_000_000})
        late = time.monotonic() - began - limit
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(limit, stop.set)
        stopped = await service.run_program(LOOP, kit="readonly", mode=mode, stop=stop, limits={"timeout_s": 60, "max_tool_calls": 10_000_000})
        after_stop = time.monotonic() - began - late - 2 * limit
    return _row(result.to_dict(), late) | {"stop_ms": after_stop * 1000, "stopped": stopped.error_kind}


async def served(workspace: Path, limit: float) -> dict:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(workspace)])
    async with Client(params) as client:
        await client.list_tools()
        await client.call_tool("run_program", {"program": "1"})
        began = time.monotonic()
        answer = await client.call_tool("run_program", {"program": LOOP, "limits": {"timeout_s": limit}})
        late = time.monotonic() - began - limit
    document = answer.structured_content
    row = _row(document, late)
    row["said_partial"] = answer.content[0].text.startswith("PARTIAL RESULT")
    return row


def _row(document: dict, late: float) -> dict:
    finished = sum(1 for entry in document.get("trace") or () if entry["success"])
    sizes = (document.get("assigned") or {}).get("sizes") or []
    return {"finished": finished, "agree": finished - 1 <= len(sizes) <= finished, "complete": document["complete"],
            "kind": document.get("limit") or document.get("error_kind"), "late_ms": late * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=1.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        (workspace / "a.txt").write_text("x" * 312)
        rows: dict[str, list[dict]] = {"isolated": [], "inprocess": [], "MCP (stdio, isolated)": []}
        floors = []
        for _ in range(options.repeat):
            floors.append(floor(options.limit))
            for mode in ("isolated", "inprocess"):
                rows[mode].append(asyncio.run(local(workspace, mode, options.limit)))
            rows["MCP (stdio, isolated)"].append(asyncio.run(served(workspace, options.limit)))
    base = statistics.median(floors)
    print(f"plain CPython: {base:.0f} calls in {options.limit:g} s (the floor)\n")
    print("| run | calls finished | of the floor | assigned agrees | complete | stopped by | result after the limit | result after stop |")
    print("|---|---|---|---|---|---|---|---|")
    for name, found in rows.items():
        calls = statistics.median(r["finished"] for r in found)
        agree = all(r["agree"] for r in found)
        complete = {r["complete"] for r in found}
        late = statistics.median(r["late_ms"] for r in found)
        stop = f"{statistics.median(r['stop_ms'] for r in found):.0f} ms ({found[0]['stopped']})" if "stop_ms" in found[0] else "—"
        said = " (text says PARTIAL RESULT)" if all(r.get("said_partial") for r in found) and "said_partial" in found[0] else ""
        print(f"| {name} | {calls:.0f} | {calls / base:.2f} | {'yes' if agree else 'NO'} | {' / '.join(map(str, complete))}{said} | "
              f"{found[0]['kind']} | {late:.0f} ms | {stop} |")


if __name__ == "__main__":
    main()
