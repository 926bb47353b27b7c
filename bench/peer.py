"""lackpy beside its nearest peer, pydantic-monty, and beside a bare MCP SDK server, measured in one run.

usage: python bench/peer.py [--rounds N] [--only api,mcp] [--tree DIR]

api  through each one's Python API, alternating in every round so both see
     the same stretches of the machine:
       ready   a trivial run (``1 + 1``) with a worker ready, 20 ms apart:
               lackpy ``run_program`` with no session, Monty a checkout of
               its pool and one ``feed_run``
       sready  the same in one client's session (lackpy ``open_session()``;
               Monty: one checkout), 20 ms apart
       b2b     ten trivial runs back to back in one client's session
       p02     program 02 (201 tool calls) with its tools, 10 ms apart:
               lackpy's readonly kit; Monty the same bound tools as its
               external functions (``external_lookup``), in a checkout
     and the floor of any design that runs a program in another CPython
     process: a bare forked child that evaluates the same code object sent
     over a socketpair and sends back the value, back to back (no checks, no
     limits, no trace, no result), beside Monty's back-to-back figure
mcp  over MCP stdio, the SDK's own client: a trivial ``run_program`` back to
     back in ``lackpy serve``'s one session, beside a bare MCP SDK server
     whose one tool echoes its argument

``--tree`` measures another source tree of lackpy (a checkout of another
commit); every ratio is taken within one run. pydantic-monty is the bench's
own dependency (``pip install pydantic-monty``), never lackpy's.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "workloads" / "programs"

ECHO_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")

@server.tool()
def echo(text: str) -> str:
    return text

server.run("stdio")
"""


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


class Floor:
    """A forked child that evaluates each code object it is sent and sends back the value: the least an isolated CPython run costs."""

    def __init__(self) -> None:
        import os
        import socket

        self.host, child = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:
            self.host.close()
            self._serve(child)
        child.close()
        self.code = compile("1 + 1", "<floor>", "eval")

    @staticmethod
    def _serve(channel) -> None:
        import marshal
        import os

        try:
            while size := channel.recv(4):
                data = channel.recv(int.from_bytes(size, "big"), __import__("socket").MSG_WAITALL)
                answer = marshal.dumps(eval(marshal.loads(data), {}))
                channel.sendall(len(answer).to_bytes(4, "big") + answer)
        finally:
            os._exit(0)

    def run(self) -> None:
        import marshal
        import socket

        data = marshal.dumps(self.code)
        self.host.sendall(len(data).to_bytes(4, "big") + data)
        size = int.from_bytes(self.host.recv(4, socket.MSG_WAITALL), "big")
        if marshal.loads(self.host.recv(size, socket.MSG_WAITALL)) != 2:
            raise SystemExit("bench: the floor's child answered wrong")

    def close(self) -> None:
        import os

        self.host.close()
        os.waitpid(self.pid, 0)


def api_rows(workspace: Path, rounds: int, number: int) -> dict[str, tuple[list[float], list[float]]]:
    """Per row, lackpy's and Monty's median seconds per run in each round."""
    from pydantic_monty import Monty

    from lackpy import LackpyService, Toolbox, resolve_kit
    from lackpy.plugins import populate

    service = LackpyService(workspace)
    loop = asyncio.new_event_loop()
    toolbox = Toolbox(str(workspace))
    populate(toolbox)
    tools = dict(resolve_kit("readonly", toolbox).callables)
    p02 = (PROGRAMS / "02_count_todos.py").read_text()

    def lackpy_run(program: str, expect, session=None) -> None:
        result = loop.run_until_complete(service.run_program(program, kit="readonly", session=session))
        if not result.success or result.output != expect:
            raise SystemExit(f"bench: lackpy's run failed: {result.error or result.output!r}")

    with Monty(min_processes=2) as pool:

        def monty_run(program: str, expect, session=None, lookup=None) -> None:
            if session is None:
                with pool.checkout() as fresh:
                    output = fresh.feed_run(program, external_lookup=lookup)
            else:
                output = session.feed_run(program, external_lookup=lookup)
            if output != expect:
                raise SystemExit(f"bench: Monty answered {output!r}, not {expect!r}")

        todos = loop.run_until_complete(service.run_program(p02, kit="readonly")).output
        session = service.open_session()
        floor = Floor()
        with pool.checkout() as kept:

            def apart(seconds: float, fn):
                def one() -> float:
                    time.sleep(seconds)
                    start = time.perf_counter()
                    fn()
                    return time.perf_counter() - start

                return one

            def ten(fn):
                def one() -> float:
                    start = time.perf_counter()
                    for _ in range(10):
                        fn()
                    return (time.perf_counter() - start) / 10

                return one

            rows = {
                "ready": (apart(0.02, lambda: lackpy_run("1 + 1", 2)), apart(0.02, lambda: monty_run("1 + 1", 2))),
                "sready": (apart(0.02, lambda: lackpy_run("1 + 1", 2, session)), apart(0.02, lambda: monty_run("1 + 1", 2, kept))),
                "b2b": (ten(lambda: lackpy_run("1 + 1", 2, session)), ten(lambda: monty_run("1 + 1", 2, kept))),
                "p02": (apart(0.01, lambda: lackpy_run(p02, todos)), apart(0.01, lambda: monty_run(p02, todos, lookup=tools))),
                "floor": (ten(floor.run), ten(lambda: monty_run("1 + 1", 2, kept))),
            }
            found: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in rows}
            for round_ in range(rounds + 1):
                for name, pair in rows.items():
                    for index, fn in enumerate(pair):
                        samples = [fn() for _ in range(number)]
                        if round_:  # the first round warms up
                            found[name][index].append(statistics.median(samples))
        session.close()
        floor.close()
    service.close()
    loop.close()
    return found


async def mcp_rounds(workspace: Path, tree: Path, rounds: int, number: int) -> tuple[list[float], list[float]]:
    """Per round, the median seconds of a trivial run_program over stdio and of the bare server's echo."""
    import contextlib
    import os

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = dict(os.environ, PYTHONPATH=str(tree), LACKPY_LOAD_PLUGINS="", XDG_CONFIG_HOME=str(workspace.parent / "config-home"))
    lackpy = StdioServerParameters(command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(workspace)], env=env, cwd=str(tree))
    echo = StdioServerParameters(command=sys.executable, args=["-c", ECHO_SERVER], env=env, cwd=str(tree))
    found: tuple[list[float], list[float]] = ([], [])
    async with contextlib.AsyncExitStack() as stack:
        errlog = stack.enter_context(open(workspace.parent / "stderr.log", "ab"))
        clients = [await stack.enter_async_context(Client(stdio_client(params, errlog=errlog))) for params in (lackpy, echo)]
        calls = [("run_program", {"program": "1 + 1"}), ("echo", {"text": "2"})]
        for round_ in range(rounds + 1):
            for index, (client, (tool, args)) in enumerate(zip(clients, calls)):
                samples = []
                for _ in range(number):
                    start = time.perf_counter()
                    result = await client.call_tool(tool, args)
                    samples.append(time.perf_counter() - start)
                    if result.is_error:
                        raise SystemExit(f"bench: {tool} failed over MCP")
                if round_:
                    found[index].append(statistics.median(samples))
    return found


ROWS = {
    "ready": ("a trivial run, a worker ready (20 ms apart)", 1.0),
    "sready": ("the same in one client's session", 1.0),
    "b2b": ("ten trivial runs back to back in one client's session, per run", 1.0),
    "p02": ("program 02 (201 tool calls), 10 ms apart", 0.5),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--number", type=int, default=15, help="samples per row in each round")
    parser.add_argument("--only", default="api,mcp")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the lackpy source tree to measure")
    args = parser.parse_args()
    tree = args.tree.resolve()
    sys.path.insert(0, str(tree))
    sys.path.insert(1, str(HERE))
    from serve import make_fixture

    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="lackpy-peer-") as tmp:
        workspace = make_fixture(Path(tmp) / "ws")
        print(f"lackpy tree: {tree}; {args.rounds} rounds of {args.number} samples per row, medians")
        if "api" in only:
            import pydantic_monty

            found = api_rows(workspace, args.rounds, args.number)
            print(f"\n| through the Python API | lackpy | pydantic-monty {pydantic_monty.__version__} | lackpy / Monty | target | met |")
            print("|---|---|---|---|---|---|")
            floor, monty_b2b = (statistics.median(side) for side in found.pop("floor"))
            for name, (ours, theirs) in found.items():
                label, target = ROWS[name]
                a, b = statistics.median(ours), statistics.median(theirs)
                print(f"| {label} | {fmt(a)} | {fmt(b)} | {a / b:.2f}x | {target:g}x | {'yes' if a / b <= target else 'no'} |")
            print(f"\nThe floor, a bare forked CPython child evaluating the same code object over a socketpair, back to back: "
                  f"{fmt(floor)} a run, {floor / monty_b2b:.2f}x Monty's {fmt(monty_b2b)} in the same rounds.")
        if "mcp" in only:
            run, echo = asyncio.run(mcp_rounds(workspace, tree, args.rounds, args.number * 2))
            a, b = statistics.median(run), statistics.median(echo)
            print("\n| over MCP stdio, back to back | lackpy `run_program(\"1 + 1\")` | bare MCP SDK server, echo tool | ratio | target | met |")
            print("|---|---|---|---|---|---|")
            print(f"| one client's calls | {fmt(a)} | {fmt(b)} | {a / b:.2f}x | 2x | {'yes' if a / b <= 2 else 'no'} |")


if __name__ == "__main__":
    main()
