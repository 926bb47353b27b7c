"""Isolated runs and tool calls beside their floors, and an A/B of two source trees.

usage: python bench/isolation.py [--rounds N] [--ab TREE] [--only NAMES] [--mcp]

Every measure runs in a probe process (``--probe``) that imports lackpy
from a source tree and answers one measure at a time; the driver asks for
the measures in rounds, alternating them (and, with ``--ab TREE``, the
probes of this tree and of ``TREE``), so a noisy stretch of the machine
falls on every measure and both trees alike. A figure is the median of the
round medians; an A/B line also says in how many rounds this tree was faster.

Rows (``--only`` takes their names):

ready      ``await svc.run_program("1 + 1", kit="readonly")``, 20 ms apart (a
           worker ready, as an agent calls); floor: a child forked (from a
           process like the fork server) and warmed up 20 ms before is sent
           ``1 + 1`` compiled, runs it and answers (a fresh process per run,
           with nothing else)
ready3     a run of three ``list_dir`` calls, 20 ms apart (an agent's usual
           run); floor: four wake-ups of a process that sleeps on a socket
           (the job and three calls)
b2b        ``1 + 1``, ten runs back to back (per run); floor: a child that
           the helper of ready forks when asked for runs ``1 + 1`` and
           answers (the floor's own forks are the helper's, so the probe
           never pays for them)
sready     ``1 + 1`` in a session of a service with ``session_worker = true``
sb2b       (its worker kept between the session's runs), 20 ms apart and ten
           back to back; floors as for ready and b2b
call       one isolated tool call (1,000 calls of a no-op tool in one run,
           less a run without them); floor: a socketpair round trip with a
           forked echo process
iso02      program 02 (TODO count) through the service, isolated, 10 ms apart;
           floor: the same question in plain pathlib
in02 in03  programs 02 and 03 through the service, in-process; floor: plain
           pathlib
trace      tracing per tool call (10,000 no-op calls in-process, less the
           plain loop)

``--mcp`` adds ``run_program("1 + 1")`` over MCP stdio against the default
server, with the SDK's own client, one server per tree, alternated in rounds
(``bench/serve.py roundtrip`` has every transport and era).
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probe import Probe  # bench/probe.py: this script beside it is sys.path[0]

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads"
ROWS = ("ready", "ready3", "b2b", "sready", "sb2b", "call", "iso02", "in02", "in03", "trace")

# -- the probe: one process, one source tree -----------------------------------------


def probe(workspace: Path) -> None:
    """Answer ``{"m": row, "n": samples}`` lines with ``[lackpy seconds..., floor seconds...]`` (alternated)."""
    import asyncio

    from lackpy import LackpyService, ToolSpec, Toolbox, resolve_kit, run_program
    from lackpy.plugins import populate

    svc = LackpyService(workspace)
    try:  # a tree from before session workers measures its plain runs in a session instead
        kept = LackpyService(workspace, config={"session_worker": True}).load()
    except Exception:
        kept = LackpyService(workspace)
    session = kept.open_session()
    loop = asyncio.new_event_loop()
    toolbox = Toolbox(str(workspace))
    populate(toolbox)
    toolbox.register_tool(ToolSpec("noop", "python", {"module": "bench_isolation_noop", "function": "noop"}, args=[]))
    sys.modules["bench_isolation_noop"] = sys.modules[__name__]
    noop_kit = resolve_kit(["noop"], toolbox)
    programs = WORKLOADS / "programs"
    p02 = (programs / "02_count_todos.py").read_text()
    p03 = (programs / "03_largest_files.py").read_text()
    calls = "for i in range(1000):\n    noop()\n"
    traced = "for i in range(10000):\n    noop()\n"
    traced_code = compile(traced, "<floor>", "exec")

    def service(program: str, mode: str | None = None, expect=None, on=svc, **options):
        def once() -> None:
            result = loop.run_until_complete(on.run_program(program, kit="readonly", mode=mode, **options))
            if not result.success or (expect is not None and result.output != expect):
                raise SystemExit(f"bench: the run failed: {result.error or result.output!r}")

        return once

    def pause(seconds: float, fn):
        def paused() -> float:
            time.sleep(seconds)
            start = time.perf_counter()
            fn()
            return time.perf_counter() - start

        return paused

    def timed(fn, number: int = 1):
        def run() -> float:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            return (time.perf_counter() - start) / number

        return run

    def per_call(with_calls, without, count: int):
        return lambda: (with_calls() - without()) / count

    sleeper, forked = _Sleeper(), _Forked()
    three_calls = 'len(list_dir(".")) + len(list_dir("src")) + len(list_dir("."))'
    measures = {
        "ready": (pause(0.02, service("1 + 1", expect=2)), forked.paused),
        "ready3": (pause(0.02, service(three_calls)), pause(0.02, lambda: [sleeper.wake() for _ in range(4)])),
        "sready": (pause(0.02, service("1 + 1", expect=2, on=kept, session=session)), forked.paused),
        "sb2b": (timed(service("1 + 1", expect=2, on=kept, session=session), 10), forked.at_once),
        "b2b": (timed(service("1 + 1", expect=2), 10), forked.at_once),
        "call": (
            per_call(timed(lambda: run_program(calls, noop_kit, mode="isolated")), timed(lambda: run_program("1 + 1", noop_kit, mode="isolated")), 1000),
            timed(_Echo().round_trip, 1000),
        ),
        "iso02": (pause(0.01, service(p02)), timed(lambda: _todos(workspace))),
        "in02": (timed(service(p02, "inprocess")), timed(lambda: _todos(workspace))),
        "in03": (timed(service(p03, "inprocess")), timed(lambda: _largest(workspace))),
        "trace": (
            per_call(timed(lambda: run_program(traced, noop_kit, mode="inprocess")), timed(lambda: exec(traced_code, {"noop": noop})), 10000),
            lambda: 0.0,
        ),
    }
    for lackpy_fn, _ in measures.values():  # warm every path once (caches, the fork server, a spare)
        lackpy_fn()
    print("ready", flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        lackpy_fn, floor_fn = measures[ask["m"]]
        samples: list[float] = []
        floors: list[float] = []
        for _ in range(ask["n"]):
            samples.append(lackpy_fn())
            floors.append(floor_fn())
        print(json.dumps([samples, floors]), flush=True)
    svc.close()


def noop() -> None:
    return None


def _todos(root: Path) -> int:
    return sum(path.read_text().count("TODO") for path in root.glob("**/*.py"))


def _largest(root: Path) -> list[str]:
    sizes = [(len(path.read_text().splitlines()), str(path.relative_to(root))) for path in (root / "src").glob("**/*.py")]
    return [name for _, name in sorted(sizes, key=lambda s: s[0], reverse=True)[:5]]


class _Sleeper:
    """A forked process asleep on a socket: the floor of handing a waiting worker a job and hearing back."""

    def __init__(self) -> None:
        self.host, child = socket.socketpair()
        if os.fork() == 0:
            self.host.close()
            while child.recv(64):
                child.send(b"d")
            os._exit(0)
        child.close()

    def wake(self) -> None:
        self.host.send(b"j")
        self.host.recv(64)


class _Forked:
    """The floor of a fresh process per run, done by hand and at its best.

    A helper like lackpy's fork server (a fresh interpreter that imports the
    worker's code and warms it up) forks a child per sample and hands the
    probe its end of the child's socket. The child runs the program once (its
    warm-up), waits, and when sent the program again 20 ms later, runs it and
    answers: nothing but a wake-up, an unmarshal, ``1 + 1`` and a reply.
    """

    CODE = marshal.dumps(compile("1 + 1", "<floor>", "eval"))
    HELPER = (
        "import marshal, os, socket, sys\n"
        "from lackpy.run import worker\n"
        "worker.preload()\n"
        "control = socket.socket(fileno=int(sys.argv[1]))\n"
        "code = marshal.loads(bytes.fromhex(sys.argv[2]))\n"
        "while control.recv(1):\n"
        "    host, child = socket.socketpair()\n"
        "    if os.fork() == 0:\n"
        "        control.close(); host.close()\n"
        "        eval(code, {'__builtins__': {}})\n"
        "        job = marshal.loads(child.recv(4096))\n"
        "        child.send(repr(eval(job, {'__builtins__': {}})).encode())\n"
        "        os._exit(0)\n"
        "    child.close()\n"
        "    socket.send_fds(control, [b'c'], [host.fileno()])\n"
        "    host.close()\n"
        "    try:\n"
        "        while os.waitpid(-1, os.WNOHANG)[0]:\n"
        "            pass\n"
        "    except ChildProcessError:\n"
        "        pass\n"
    )

    def __init__(self) -> None:
        self.control, helper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.helper = subprocess.Popen(
            [sys.executable, "-c", self.HELPER, str(helper_end.fileno()), self.CODE.hex()], pass_fds=[helper_end.fileno()]
        )
        helper_end.close()

    def paused(self) -> float:
        """A child made 20 ms ahead: from sending it the program to its answer."""
        return self._child(0.02)

    def at_once(self) -> float:
        """A child made when asked for: from asking for it to its answer (the fork on the critical path)."""
        return self._child(0.0)

    def _child(self, ahead: float) -> float:
        start = time.perf_counter()
        self.control.send(b"f")
        _, fds, _, _ = socket.recv_fds(self.control, 1, 1)
        with socket.socket(fileno=fds[0]) as host:
            if ahead:
                time.sleep(ahead)
                start = time.perf_counter()
            host.send(self.CODE)
            host.recv(64)
            return time.perf_counter() - start


class _Echo:
    """A forked echo process answering 40-byte messages over a blocking socketpair."""

    def __init__(self) -> None:
        self.host, child = socket.socketpair()
        if os.fork() == 0:
            self.host.close()
            while data := child.recv(64):
                child.sendall(data)
            os._exit(0)
        child.close()

    def round_trip(self) -> None:
        self.host.sendall(b"x" * 40)
        self.host.recv(64)


# -- the driver ----------------------------------------------------------------------


SAMPLES = {"ready": 15, "ready3": 15, "sready": 15, "sb2b": 15, "b2b": 15, "call": 3, "iso02": 5, "in02": 5, "in03": 5, "trace": 2}


def fmt(seconds: float) -> str:
    if abs(seconds) < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def drive(probes: list[Probe], rows: list[str], rounds: int) -> dict[str, list[list[tuple[float, float]]]]:
    """Per row, per probe: one (lackpy, floor) pair of medians per round."""
    found: dict[str, list[list[tuple[float, float]]]] = {row: [[] for _ in probes] for row in rows}
    for round_ in range(rounds):
        order = probes if round_ % 2 == 0 else probes[::-1]  # neither tree always goes first
        for row in rows:
            for probe_ in order:
                samples, floors = probe_.ask(row, SAMPLES[row])
                found[row][probes.index(probe_)].append((statistics.median(samples), statistics.median(floors)))
    return found


FLOORS = {
    "ready": "a child forked and warmed up 20 ms before runs `1 + 1` and answers",
    "ready3": "wake a sleeping forked process and hear back, four times",
    "sready": "a fresh process per run, as for ready",
    "sb2b": "as for b2b",
    "b2b": "a child forked when asked for runs `1 + 1` and answers",
    "call": "socketpair round trip, forked echo",
    "iso02": "plain pathlib",
    "in02": "plain pathlib",
    "in03": "plain pathlib",
    "trace": "—",
}
WHAT = {
    "ready": "trivial run, a worker ready (20 ms apart)",
    "ready3": "a run of three tool calls, 20 ms apart",
    "sready": "trivial run in a session that keeps its worker, 20 ms apart",
    "sb2b": "trivial runs in a session that keeps its worker, back to back",
    "b2b": "trivial runs back to back",
    "call": "a tool call's round trip, worker to host",
    "iso02": "program 02 isolated",
    "in02": "program 02 in-process",
    "in03": "program 03 in-process",
    "trace": "tracing per tool call",
}


def report(found, rows: list[str], trees: list[Path], rounds: int) -> None:
    if len(trees) == 1:
        print(f"| measure (median of {rounds} round medians) | lackpy | floor | ratio |")
        print("|---|---|---|---|")
        for row in rows:
            pairs = found[row][0]
            value = statistics.median(p[0] for p in pairs)
            floor = statistics.median(p[1] for p in pairs)
            ratio = f"{value / floor:.2f}x" if floor > 0 else "—"
            print(f"| {WHAT[row]} | {fmt(value)} | {fmt(floor)} ({FLOORS[row]}) | {ratio} |")
        return
    print(f"| measure (median of {rounds} round medians) | {trees[0].name} (this tree) | {trees[1]} | this tree faster in | floor |")
    print("|---|---|---|---|---|")
    for row in rows:
        a, b = found[row]
        wins = sum(x[0] < y[0] for x, y in zip(a, b))
        floor = statistics.median(p[1] for p in a + b)
        print(f"| {WHAT[row]} | {fmt(statistics.median(p[0] for p in a))} | {fmt(statistics.median(p[0] for p in b))} | {wins} of {rounds} rounds | {fmt(floor)} |")


def mcp_row(trees: list[Path], rounds: int, number: int = 30) -> None:
    """run_program("1 + 1") over stdio against the default (isolated) server, beside validate("1").

    One SDK client per source tree, each with its own server; the driver
    times ``number`` calls of one server, then the next, in ``rounds`` rounds,
    so both servers see the same stretches of the machine and each sees its
    calls come as one client sends them, one after the other. One more server
    of this tree serves a copy of the workspace whose config it trusts,
    ``session_worker = true``: the connection's session keeps its worker.
    """
    import asyncio
    import contextlib

    sys.path.insert(0, str(HERE))
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from serve import FLOOR, TRIVIAL, make_fixture, server_env, serve_args

    async def session_rounds(clients) -> list[list[tuple[float, float]]]:
        found: list[list[tuple[float, float]]] = [[] for _ in clients]
        for round_ in range(rounds + 1):
            for index, client in enumerate(clients):
                run, floor = [], []
                for _ in range(number):
                    for tool, args, into in ((TRIVIAL[0], TRIVIAL[1], run), (FLOOR[0], FLOOR[1], floor)):
                        start = time.perf_counter()
                        result = await client.call_tool(tool, args)
                        into.append(time.perf_counter() - start)
                        if result.is_error:
                            raise SystemExit(f"bench: {tool} failed over MCP")
                if round_:  # the first round warms up
                    found[index].append((statistics.median(run), statistics.median(floor)))
        return found

    async def measure(workspace: Path, env: dict[str, str], errlog) -> list[list[tuple[float, float]]]:
        async with contextlib.AsyncExitStack() as stack:
            clients = []
            for tree, extra in servers:
                where = kept if extra else workspace
                params = StdioServerParameters(command=sys.executable, args=serve_args(where, *extra), env=dict(env, PYTHONPATH=str(tree)), cwd=str(tree))
                clients.append(await stack.enter_async_context(Client(stdio_client(params, errlog=errlog))))
            return await session_rounds(clients)

    servers = [(tree, ()) for tree in trees] + [(trees[0], ("--trust",))]
    names = [tree.name for tree in trees] + [f"{trees[0].name}, session_worker = true"]
    with tempfile.TemporaryDirectory(prefix="lackpy-bench-") as tmp:
        workspace, kept = make_fixture(Path(tmp) / "ws", 20), make_fixture(Path(tmp) / "kept", 20)
        (kept / ".lackpy").mkdir(exist_ok=True)
        (kept / ".lackpy" / "config.toml").write_text("session_worker = true\n")
        with open(Path(tmp) / "stderr.log", "ab") as errlog:
            found = asyncio.run(measure(workspace, server_env(Path(tmp)), errlog))
    print(f"\n| MCP stdio, default server, SDK client ({rounds} rounds of {number}) | `run_program(\"1 + 1\")` | floor `validate(\"1\")` | run minus floor |")
    print("|---|---|---|---|")
    for index, (name, rows) in enumerate(zip(names, found)):
        run, floor = statistics.median(r for r, _ in rows), statistics.median(f for _, f in rows)
        wins = f", faster in {sum(a[0] < b[0] for a, b in zip(rows, found[1]))} of {rounds} rounds" if len(trees) == 2 and index == 0 else ""
        print(f"| {name}{wins} | {fmt(run)} | {fmt(floor)} | +{fmt(run - floor)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--ab", type=Path, help="a second source tree (a checkout of another commit) to compare with")
    parser.add_argument("--only", default=",".join(ROWS), help=f"rows, comma-separated: {','.join(ROWS)}")
    parser.add_argument("--mcp", action="store_true", help="add the MCP stdio row")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        sys.path.insert(0, os.environ.get("PYTHONPATH", str(HERE.parent)).split(os.pathsep)[0])
        return probe(args.probe)
    rows = [row for row in args.only.split(",") if row]
    if unknown := [row for row in rows if row not in ROWS]:
        sys.exit(f"bench: unknown rows {unknown}; choose from {', '.join(ROWS)}")
    trees = [HERE.parent] + ([args.ab.resolve()] if args.ab else [])
    with tempfile.TemporaryDirectory(prefix="lackpy-bench-") as tmp:
        workspace = Path(tmp) / "ws"
        subprocess.run([sys.executable, str(WORKLOADS / "make_workspace.py"), str(workspace), "200"], check=True, capture_output=True)
        probes = [Probe(HERE / "isolation.py", tree, workspace) for tree in trees]
        try:
            found = drive(probes, rows, args.rounds)
        finally:
            for probe_ in probes:
                probe_.close()
    print(f"# isolation — Python {sys.version.split()[0]}, {os.cpu_count()} cores\n")
    report(found, rows, trees, args.rounds)
    if args.mcp:
        mcp_row(trees, args.rounds)


if __name__ == "__main__":
    main()
