"""lackpy serve benchmark: ``lackpy serve`` in a subprocess, driven by the MCP SDK's own client.

usage: python bench/serve.py {roundtrip,load,codemode,all,slowloris} [options]

roundtrip  the round trip of a trivial run_program, and of validate("1") as the
           floor, over stdio and streamable HTTP, in both protocol eras
load       one HTTP server, many concurrent client sessions for a fixed time,
           every answer checked; the server's memory, descriptors and workers
           before and after
codemode   everyday tasks over the 200-file fixture done two ways: one exposed
           tool per call, composed in the client (tool calling), or one
           run_program (code mode); calls, bytes into the context, wall time
slowloris  a server with a token under ulimit -n 1024, 1,100 connections that
           send half a head and no token (reopened when closed), and a client
           with the token calling run_program each second: its latencies,
           how many were answered, the server's stderr

Every table is printed as markdown; every server runs on 127.0.0.1 only and is
stopped (terminate, then kill) on the way out, errors included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKLOADS = HERE / "workloads"
PYTHON = sys.executable

# -- shared pieces ---------------------------------------------------------------


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def quantile(samples: list[float], q: float) -> float:
    """The nearest-rank quantile ``q`` (0..1) of ``samples``."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def make_fixture(root: Path, files: int = 200) -> Path:
    """The 200-module benchmark workspace, written by bench/workloads/make_workspace.py."""
    subprocess.run([PYTHON, str(WORKLOADS / "make_workspace.py"), str(root), str(files)], check=True, capture_output=True)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the .lackpy folder aside), by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".lackpy" not in p.relative_to(root).parts
    }


def server_env(tmp: Path) -> dict[str, str]:
    """A server's environment: its own config home (trust record), no entry-point plugins."""
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp / "config-home")
    env["LACKPY_LOAD_PLUGINS"] = ""
    env.pop("LACKPY_WORKSPACE", None)
    return env


def serve_args(workspace: Path, *extra: str) -> list[str]:
    return ["-m", "lackpy", "serve", "-w", str(workspace), *extra]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """Terminate, then kill after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def http_server(workspace: Path, env: dict[str, str], log: Path, *extra: str, repo: Path = REPO, preexec_fn: Callable[[], None] | None = None):
    """``lackpy serve --http 127.0.0.1:PORT`` in a subprocess: yields (url, process).

    ``repo``: the checkout whose lackpy serves (its directory is the server's
    first import path); ``preexec_fn`` runs in the server's process before it starts.
    """
    port = free_port()
    with open(log, "ab") as errlog:
        process = subprocess.Popen(
            [PYTHON, *serve_args(workspace, "--http", f"127.0.0.1:{port}", *extra)],
            env=env, cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog, preexec_fn=preexec_fn,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"lackpy serve exited with {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"lackpy serve did not listen on 127.0.0.1:{port} within 30 s") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        stop(process)


def stdio_client(workspace: Path, env: dict[str, str], errlog, *extra: str, mode: str = "auto"):
    """An SDK client that starts ``lackpy serve`` over stdio (the SDK stops it when the session ends)."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client as transport

    params = StdioServerParameters(command=PYTHON, args=serve_args(workspace, *extra), env=env, cwd=str(REPO))
    return Client(transport(params, errlog=errlog), mode=mode)


def http_client(url: str, mode: str = "auto"):
    """An SDK client over streamable HTTP with its own connection pool."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=300.0))
    return Client(streamable_http_client(url, http_client=http), mode=mode), http


# -- processes: what the server holds ---------------------------------------------


def _ppid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _ppid(entry)
            if parent is not None:
                parents.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all cores, from /proc/stat."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


@dataclass
class Footprint:
    rss_kb: int
    fds: int
    workers: int
    workers_rss_kb: int

    @classmethod
    def of(cls, pid: int) -> "Footprint":
        kids = descendants(pid)
        kids_rss = 0
        for kid in kids:
            try:
                kids_rss += rss_kb(kid)
            except OSError:
                pass
        return cls(rss_kb(pid), len(os.listdir(f"/proc/{pid}/fd")), len(kids), kids_rss)


def reap_strays() -> None:
    """Stop any process this benchmark started that is still alive (a stdio server the SDK left behind)."""
    mine = descendants(os.getpid())
    for pid in mine:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    while mine and time.monotonic() < deadline:
        mine = [pid for pid in mine if os.path.exists(f"/proc/{pid}") and _ppid(str(pid)) is not None]
        time.sleep(0.1)
    for pid in mine:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _text(result) -> str:
    return result.content[0].text if result.content else ""


# -- roundtrip ---------------------------------------------------------------------

TRIVIAL = ("run_program", {"program": "1 + 1"})
FLOOR = ("validate", {"program": "1"})


async def time_session(client, calls: list[tuple[str, dict]], number: int, warm: int) -> list[list[float]]:
    """Seconds per call of each of ``calls``, in one session, timed in alternation after ``warm`` rounds."""
    samples: list[list[float]] = [[] for _ in calls]
    async with client:
        for round_ in range(warm + number):
            for index, (tool, args) in enumerate(calls):
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                elapsed = time.perf_counter() - start
                if result.is_error:
                    raise RuntimeError(f"{tool} failed: {_text(result)}")
                if tool == "run_program" and result.structured_content.get("output") != 2:
                    raise RuntimeError(f"run_program answered {result.structured_content.get('output')!r}, not 2")
                if round_ >= warm:
                    samples[index].append(elapsed)
    return samples


async def inprocess_session(workspace: Path, trust: bool, number: int, warm: int) -> list[list[float]]:
    """The same session with the server object in this process (``Client(server)``): no transport, no second process."""
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    service = LackpyService(workspace, trust=trust)
    try:
        return await time_session(Client(build_server(service, KitPolicy.build(service))), [TRIVIAL, FLOOR], number, warm)
    finally:
        service.close()


def roundtrip(tmp: Path, number: int, warm: int) -> None:
    """The round trip of run_program("1 + 1") beside validate("1"), per transport, protocol era and run mode."""
    env = server_env(tmp)
    os.environ.update(XDG_CONFIG_HOME=env["XDG_CONFIG_HOME"], LACKPY_LOAD_PLUGINS="")  # for the in-process rows
    isolated = make_fixture(tmp / "rt-isolated", 20)
    inprocess = make_fixture(tmp / "rt-inprocess", 20)
    (inprocess / ".lackpy").mkdir()
    (inprocess / ".lackpy" / "config.toml").write_text('mode = "inprocess"\n')
    servers = [("isolated (default)", isolated, ()), ("inprocess (config + --trust)", inprocess, ("--trust",))]
    eras = [("2026-07-28", "auto"), ("legacy", "legacy")]
    rows = []
    with open(tmp / "roundtrip-stderr.log", "ab") as errlog:
        for run_mode, workspace, extra in servers:
            for era, mode in eras:
                samples = asyncio.run(time_session(stdio_client(workspace, env, errlog, *extra, mode=mode), [TRIVIAL, FLOOR], number, warm))
                rows.append(("stdio", era, run_mode, samples))
            with http_server(workspace, env, tmp / "roundtrip-http.log", *extra) as (url, _):
                for era, mode in eras:

                    async def over_http(mode=mode):
                        client, http = http_client(url, mode)
                        try:
                            return await time_session(client, [TRIVIAL, FLOOR], number, warm)
                        finally:
                            await http.aclose()

                    rows.append(("http", era, run_mode, asyncio.run(over_http())))
            samples = asyncio.run(inprocess_session(workspace, bool(extra), number, warm))
            rows.append(("none: `Client(server)` in the bench process", "2026-07-28", run_mode, samples))

    def cells(data: list[float]) -> str:
        return f"{fmt_ms(statistics.median(data))} | {fmt_ms(quantile(data, 0.1))}–{fmt_ms(quantile(data, 0.9))} | {fmt_ms(quantile(data, 0.99))}"

    print(f"\n### Round trip: {number} sequential calls of each in one session, after {warm} warm-up rounds, the two calls alternating\n")
    print("| transport | protocol | server mode | `run_program(\"1 + 1\")` median | p10–p90 | p99 | floor `validate(\"1\")` median | p10–p90 | p99 | run minus floor |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    medians = {}
    for transport, era, run_mode, (run, floor) in rows:
        medians[transport, era, run_mode] = statistics.median(run)
        print(f"| {transport} | {era} | {run_mode} | {cells(run)} | {cells(floor)} | +{fmt_ms(statistics.median(run) - statistics.median(floor))} |")
    default = medians["stdio", "2026-07-28", "isolated (default)"]
    fast = medians["stdio", "2026-07-28", "inprocess (config + --trust)"]
    verdict = lambda t: "met" if t < 1.5e-3 else "NOT met"  # noqa: E731
    print(
        f"\nTarget, a trivial run_program over stdio under 1.5 ms (median): default server {fmt_ms(default)}, {verdict(default)}; "
        f"in-process server {fmt_ms(fast)}, {verdict(fast)}."
    )


# -- load ---------------------------------------------------------------------------

COUNT_TODOS = 'sum(read_file(f).count("TODO") for f in find_files("**/*.py"))'
PARAMS = 'a * b + len(find_files("src/pkg3/*.py"))'
INVALID = "import os\nos.getcwd()"
RAISES = "n // (n - n)"
BUSY = "t = 0\nfor i in range(100000):\n    for j in range(100000):\n        t += 1\nt"
# category: weight in the mix
MIX = {"good: count TODOs": 3, "good: params": 3, "invalid": 2, "raises": 1, "time limit": 1}


@dataclass
class LoadStats:
    latency: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in MIX})
    wrong: dict[str, int] = field(default_factory=lambda: {name: 0 for name in MIX})
    transport_errors: int = 0
    sessions: int = 0
    examples: list[str] = field(default_factory=list)
    last_answer: float = 0.0


def load_call(category: str, client_id: int, step: int, todos: int, pkg3: int) -> tuple[dict, Callable[[Any], bool]]:
    """The arguments of one run_program call of ``category`` and the check of its answer."""

    def failed(kind: str, limit: str | None = None) -> Callable[[Any], bool]:
        def check(result) -> bool:
            doc = result.structured_content or {}
            return result.is_error and doc.get("error_kind") == kind and (limit is None or doc.get("limit") == limit) and "\n" not in _text(result)

        return check

    def output(value: Any) -> Callable[[Any], bool]:
        return lambda result: not result.is_error and (result.structured_content or {}).get("output") == value

    if category == "good: count TODOs":
        return {"program": COUNT_TODOS}, output(todos)
    if category == "good: params":
        return {"program": PARAMS, "params": {"a": client_id, "b": step}}, output(client_id * step + pkg3)
    if category == "invalid":
        return {"program": INVALID}, failed("validation")
    if category == "raises":
        return {"program": RAISES, "params": {"n": client_id + 1}}, failed("runtime")
    return {"program": BUSY, "limits": {"timeout_s": 0.3}}, failed("limit", "timeout")


async def load_client(url: str, client_id: int, stop_at: float, stats: LoadStats, todos: int, pkg3: int, categories: list[str] | None = None) -> None:
    """One agent: its own SDK session (and connection pool); calls the mix until ``stop_at``; reconnects after a transport error.

    With ``categories`` it makes exactly those calls, once each, and returns.
    """
    rng = random.Random(client_id)
    names, weights = list(MIX), list(MIX.values())
    step = failures = 0
    queue = list(categories) if categories is not None else None
    while (queue if queue is not None else time.monotonic() < stop_at) and failures < 10:
        client, http = http_client(url)
        phase = "opening the session"
        try:
            async with client:
                stats.sessions += 1
                while queue if queue is not None else time.monotonic() < stop_at:
                    category = queue.pop(0) if queue is not None else rng.choices(names, weights)[0]
                    step += 1
                    args, check = load_call(category, client_id, step, todos, pkg3)
                    phase = f"a call ({category})"
                    start = time.perf_counter()
                    async with asyncio.timeout(120):
                        result = await client.call_tool("run_program", args)
                    stats.latency[category].append(time.perf_counter() - start)
                    stats.last_answer = time.monotonic()
                    if not check(result):
                        stats.wrong[category] += 1
                        if len(stats.examples) < 5:
                            stats.examples.append(f"{category}: is_error={result.is_error} {_text(result)[:200]}")
                phase = "closing the session"
        except Exception as exc:  # noqa: BLE001 - counted, then the agent reconnects (ten times at most)
            stats.transport_errors += 1
            failures += 1
            if len(stats.examples) < 5:
                inner = leaf(exc)
                stats.examples.append(f"transport error while {phase}: {type(inner).__name__}: {inner}"[:300])
            await asyncio.sleep(0.1)
        finally:
            await http.aclose()


def load(tmp: Path, clients: int, seconds: float, settle: float) -> None:
    """One HTTP server, ``clients`` concurrent sessions for ``seconds``; answers, latency and the server's footprint."""
    workspace = make_fixture(tmp / "load-ws")
    todos = sum(p.read_text().count("TODO") for p in workspace.rglob("*.py"))
    pkg3 = len(list((workspace / "src" / "pkg3").glob("*.py")))
    env = server_env(tmp)
    with http_server(workspace, env, tmp / "load-http.log") as (url, process):
        pid = process.pid

        async def warm_up() -> LoadStats:
            """Every client connects and makes one call, the categories in turn."""
            stats, names = LoadStats(), list(MIX)
            await asyncio.gather(*(load_client(url, i, 0, stats, todos, pkg3, [names[i % len(names)]]) for i in range(clients)))
            return stats

        warm = asyncio.run(warm_up())
        time.sleep(settle)
        before = Footprint.of(pid)

        async def run_load() -> tuple[LoadStats, float, float]:
            stats = LoadStats()
            start = time.monotonic()
            await asyncio.gather(*(load_client(url, i, start + seconds, stats, todos, pkg3) for i in range(clients)))
            return stats, start, time.monotonic()

        cpu_client0, cpu_server0, machine0 = resource.getrusage(resource.RUSAGE_SELF), cpu_s(pid), machine_jiffies()
        stats, start, closed = asyncio.run(run_load())
        cpu_client1, cpu_server1, machine1 = resource.getrusage(resource.RUSAGE_SELF), cpu_s(pid), machine_jiffies()
        time.sleep(settle)
        after = Footprint.of(pid)
        alive = process.poll() is None

    elapsed = stats.last_answer - start
    all_latency = [x for values in stats.latency.values() for x in values]
    calls = len(all_latency)
    wrong = sum(stats.wrong.values())
    client_cpu = (cpu_client1.ru_utime + cpu_client1.ru_stime - cpu_client0.ru_utime - cpu_client0.ru_stime) / (closed - start)
    server_cpu = (cpu_server1 - cpu_server0) / (closed - start)
    machine = (machine1[0] - machine0[0]) / max(1, machine1[1] - machine0[1])

    from lackpy.config import default_concurrency

    print(
        f"\n### Load: {clients} concurrent SDK sessions over HTTP for {seconds:g} s, one server "
        f"(default config: isolated runs, max_concurrent_runs {default_concurrency()})\n"
    )
    print("| calls | throughput | p50 | p99 | wrong answers | transport errors | sessions opened |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {calls} | {calls / elapsed:.1f} calls/s | {fmt_ms(quantile(all_latency, 0.5))} | {fmt_ms(quantile(all_latency, 0.99))} "
        f"| {wrong} | {stats.transport_errors} | {stats.sessions} |"
    )
    print("\n| category | weight | calls | wrong | p50 | p99 |")
    print("|---|---|---|---|---|---|")
    for name, weight in MIX.items():
        data = stats.latency[name]
        cells = f"{fmt_ms(quantile(data, 0.5))} | {fmt_ms(quantile(data, 0.99))}" if data else "— | —"
        print(f"| {name} | {weight} | {len(data)} | {stats.wrong[name]} | {cells} |")

    rss_ok = after.rss_kb <= before.rss_kb * 1.10
    fds_ok = after.fds <= before.fds + 2
    workers_ok = after.workers <= before.workers
    print("\n| server (pid of `lackpy serve`) | before (after warm-up) | after (clients closed, +{:g} s) | tolerance | |".format(settle))
    print("|---|---|---|---|---|")
    print(f"| RSS (VmRSS) | {before.rss_kb / 1024:.1f} MB | {after.rss_kb / 1024:.1f} MB | +10% | {'ok' if rss_ok else 'over'} |")
    print(f"| open file descriptors | {before.fds} | {after.fds} | +2 | {'ok' if fds_ok else 'over'} |")
    print(f"| child processes (workers) | {before.workers} | {after.workers} | none more | {'ok' if workers_ok else 'over'} |")
    print(f"| workers' RSS, summed | {before.workers_rss_kb / 1024:.1f} MB | {after.workers_rss_kb / 1024:.1f} MB | report | |")
    print(
        f"\nCPU during the load: the machine {machine * 100:.0f}% busy ({os.cpu_count()} cores); the server process {server_cpu * 100:.0f}% of a core "
        f"(workers aside); the bench's clients {client_cpu * 100:.0f}% of a core."
    )
    warm_wrong = sum(warm.wrong.values())
    print(f"Warm-up: {clients} sessions at once, one call each (the categories in turn): {warm_wrong} wrong, {warm.transport_errors} transport errors.")
    print(f"No leak (RSS, descriptors, workers back to baseline; server alive): {'PASS' if rss_ok and fds_ok and workers_ok and alive else 'FAIL'}")
    print(f"Every answer right (no wrong answer, no transport error): {'PASS' if wrong == 0 and stats.transport_errors == 0 and warm_wrong == 0 and warm.transport_errors == 0 else 'FAIL'}")
    for example in stats.examples + warm.examples:
        print(f"- {example}")


# -- codemode ------------------------------------------------------------------------

WORD = "order_user"
OLD, NEW = "cache_gamma", "cache_store"


class Agent:
    """One side of the comparison: the calls it makes and the bytes the results put into a model's context."""

    def __init__(self, client) -> None:
        self.client = client
        self.calls = 0
        self.text_bytes = 0
        self.structured_bytes = 0
        self.output_bytes = 0  # code mode: the output's share (what the task asked for)

    async def call(self, tool: str, **args: Any) -> Any:
        """An exposed tool: its value (``structured_content["result"]``)."""
        result = await self._call(tool, args)
        value = result.structured_content["result"]
        if tool in ("grep", "list_dir", "find_files") and isinstance(value, str):
            raise RuntimeError(f"{tool}({args}) answered text, not data: its result was cut to the context budget")
        return value

    async def run(self, program: str) -> Any:
        """One run_program with kit filesystem: the program's output."""
        result = await self._call("run_program", {"program": program, "kit": "filesystem"})
        document = result.structured_content
        self.output_bytes += len(json.dumps(document["output"], ensure_ascii=False).encode())
        return document["output"]

    async def _call(self, tool: str, args: dict) -> Any:
        result = await self.client.call_tool(tool, args)
        self.calls += 1
        self.text_bytes += sum(len(c.text.encode()) for c in result.content if getattr(c, "text", None) is not None)
        if result.structured_content is not None:
            self.structured_bytes += len(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")).encode())
        if result.is_error:
            raise RuntimeError(f"{tool}({args}) failed: {_text(result)}")
        return result


# Each task: (name, tool-calling composition, code-mode program, the answer in plain Python over the fixture).


async def todos_tools(agent: Agent) -> Any:
    hits = await agent.call("grep", pattern="TODO", glob="**/*.py", max_hits=100000)
    return len(hits)


TODOS_PROGRAM = 'len(grep("TODO", glob="**/*.py", max_hits=100000))'


def todos_plain(root: Path) -> Any:
    return sum(p.read_text().count("TODO") for p in root.rglob("*.py"))


async def largest_tools(agent: Agent) -> Any:
    sizes = []
    for entry in await agent.call("list_dir", path="src"):
        if entry["kind"] == "dir":
            for item in await agent.call("list_dir", path="src/" + entry["name"]):
                if item["kind"] == "file":
                    sizes.append(["src/" + entry["name"] + "/" + item["name"], item["size"]])
    return sorted(sizes, key=lambda s: (-s[1], s[0]))[:5]


LARGEST_PROGRAM = """sizes = []
for entry in list_dir("src"):
    if entry["kind"] == "dir":
        for item in list_dir("src/" + entry["name"]):
            if item["kind"] == "file":
                sizes.append(["src/" + entry["name"] + "/" + item["name"], item["size"]])
sorted(sizes, key=lambda s: (-s[1], s[0]))[:5]
"""


def largest_plain(root: Path) -> Any:
    sizes = [[str(p.relative_to(root)), p.stat().st_size] for p in (root / "src").rglob("*") if p.is_file()]
    return sorted(sizes, key=lambda s: (-s[1], s[0]))[:5]


async def word_tools(agent: Agent) -> Any:
    hits = await agent.call("grep", pattern=r"\b" + WORD, glob="**/*.py")
    return sorted({hit["path"] for hit in hits})


WORD_PROGRAM = f'sorted({{hit["path"] for hit in grep(r"\\b{WORD}", glob="**/*.py")}})'


def word_plain(root: Path) -> Any:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if re.search(r"\b" + WORD, p.read_text()))


async def defs_tools(agent: Agent) -> Any:
    # One grep over all 200 modules answers 1,497 lines (74 KB), over the 64 KB a result may put in the
    # context (it comes back cut in the middle); so, as a model would, one grep per package.
    counts: dict[str, int] = {}
    for package in await agent.call("find_files", pattern="src/*", kind="dir"):
        for hit in await agent.call("grep", pattern=r"^\s*(def|class) ", glob=package + "/*.py"):
            counts[hit["path"]] = counts.get(hit["path"], 0) + 1
    return counts


DEFS_PROGRAM = """counts = {}
for package in find_files("src/*", kind="dir"):
    for hit in grep(r"^\\s*(def|class) ", glob=package + "/*.py"):
        counts[hit["path"]] = counts.get(hit["path"], 0) + 1
counts
"""


def defs_plain(root: Path) -> Any:
    counts = {}
    for p in sorted(root.rglob("*.py")):
        found = len(re.findall(r"^\s*(?:def|class) ", p.read_text(), re.M))
        if found:
            counts[str(p.relative_to(root))] = found
    return counts


async def lines_tools(agent: Agent) -> Any:
    lines: dict[str, int] = {}
    for path in await agent.call("find_files", pattern="src/**/*.py"):
        package = path.split("/")[1]
        lines[package] = lines.get(package, 0) + len((await agent.call("read_file", path=path)).splitlines())
    return lines


LINES_PROGRAM = """lines = {}
for path in find_files("src/**/*.py"):
    package = path.split("/")[1]
    lines[package] = lines.get(package, 0) + len(read_file(path).splitlines())
lines
"""


def lines_plain(root: Path) -> Any:
    lines: dict[str, int] = {}
    for p in (root / "src").rglob("*.py"):
        package = p.relative_to(root).parts[1]
        lines[package] = lines.get(package, 0) + len(p.read_text().splitlines())
    return lines


async def rename_tools(agent: Agent) -> Any:
    paths = sorted({hit["path"] for hit in await agent.call("grep", pattern=OLD, glob="**/*.py")})
    for path in paths:
        await agent.call("edit_file", path=path, old_str=OLD, new_str=NEW, replace_all=True)
    return paths


RENAME_PROGRAM = f"""paths = sorted({{hit["path"] for hit in grep("{OLD}", glob="**/*.py")}})
for path in paths:
    edit_file(path, "{OLD}", "{NEW}", replace_all=True)
paths
"""


def rename_plain(root: Path) -> Any:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if OLD in p.read_text())


TASKS: list[tuple[str, Callable[[Agent], Awaitable[Any]], str, Callable[[Path], Any]]] = [
    ("count TODO markers", todos_tools, TODOS_PROGRAM, todos_plain),
    ("five largest files", largest_tools, LARGEST_PROGRAM, largest_plain),
    (f"files containing `{WORD}`", word_tools, WORD_PROGRAM, word_plain),
    ("definitions per module", defs_tools, DEFS_PROGRAM, defs_plain),
    ("lines per package (read every file)", lines_tools, LINES_PROGRAM, lines_plain),
    (f"rename `{OLD}` to `{NEW}` in every file", rename_tools, RENAME_PROGRAM, rename_plain),
]


def _same(a: Any, b: Any) -> bool:
    return json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))


async def codemode_async(tmp: Path, repeat: int, errlog) -> tuple[list[dict], tuple[int, int]]:
    env = server_env(tmp)
    tools_ws = make_fixture(tmp / "cm-tools")
    code_ws = make_fixture(tmp / "cm-code")
    plain_ws = make_fixture(tmp / "cm-plain")
    pristine = snapshot(plain_ws)
    expected = [plain(plain_ws) for _, _, _, plain in TASKS]
    renamed = {name: data.replace(OLD.encode(), NEW.encode()) for name, data in pristine.items()}
    # --approval none: the rename's edits pass the commit gate, which would ask the client (by elicitation) and this
    # client answers no one. The table compares what results put in a model's context, not a person's answers.
    policy = ("--kit", "filesystem", "--allow-kits", "filesystem", "--approval", "none")
    tools_client = stdio_client(tools_ws, env, errlog, "--expose-tools", *policy)
    code_client = stdio_client(code_ws, env, errlog, *policy)
    rows = []
    async with tools_client, code_client:
        listed = {tool.name: tool for tool in (await tools_client.list_tools()).tools}
        used = ["read_file", "list_dir", "find_files", "grep", "write_file", "edit_file"]
        missing = [name for name in used if name not in listed]
        if missing:
            raise RuntimeError(f"lackpy serve --expose-tools does not serve {missing}; it serves {sorted(listed)}")
        code_listed = {tool.name: tool for tool in (await code_client.list_tools()).tools}

        def definition_bytes(tool) -> int:
            """What a host puts in the model's prompt for a tool: name, description, input schema."""
            shown = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
            return len(json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode())

        schema_bytes = (sum(definition_bytes(listed[name]) for name in used), definition_bytes(code_listed["run_program"]))
        # Not timed: each server starts its fork server and first worker.
        await Agent(tools_client).call("read_file", path="README.md")
        await Agent(code_client).run('read_file("README.md")')
        for (name, composition, program, _), answer in zip(TASKS, expected):
            edits = composition is rename_tools
            walls: tuple[list[float], list[float]] = ([], [])
            firsts: list[Agent] = []
            for rep in range(1 if edits else repeat):
                agents = (Agent(tools_client), Agent(code_client))
                start = time.perf_counter()
                got_tools = await composition(agents[0])
                walls[0].append(time.perf_counter() - start)
                start = time.perf_counter()
                got_code = await agents[1].run(program)
                walls[1].append(time.perf_counter() - start)
                if not (_same(got_tools, answer) and _same(got_code, answer)):
                    raise RuntimeError(f"{name}: tool calling answered {str(got_tools)[:200]}, code mode {str(got_code)[:200]}, plain Python {str(answer)[:200]}")
                if rep == 0:
                    firsts = list(agents)
            if edits:
                after_tools, after_code = snapshot(tools_ws), snapshot(code_ws)
                if not after_tools == after_code == renamed:
                    differ = sorted(k for k in set(after_tools) | set(after_code) if after_tools.get(k) != after_code.get(k))
                    raise RuntimeError(f"{name}: the workspaces differ after the edit: {differ[:10]}")
            rows.append({"name": name, "agents": firsts, "walls": [statistics.median(w) for w in walls]})
    return rows, schema_bytes


def codemode(tmp: Path, repeat: int) -> None:
    """Everyday tasks, as an agent would do them: one exposed tool per call, or one run_program."""
    with open(tmp / "codemode-stderr.log", "ab") as errlog:
        rows, (tools_schema, code_schema) = asyncio.run(codemode_async(tmp, repeat, errlog))

    def kb(n: int) -> str:
        return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"

    print(f"\n### Code mode: {len(rows)} tasks over the 200-file fixture, tool calling against one run_program (stdio, kit filesystem)\n")
    print(f"Wall: median of {repeat} runs of each side, alternating (the rename: one run). Context bytes: the text of every result, UTF-8.\n")
    print(
        "| task | tool calling: calls | context bytes | structured_content | wall "
        "| code mode: calls | context bytes | structured_content | wall | context ratio | wall ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    keys = ("t_calls", "t_bytes", "t_struct", "t_wall", "c_calls", "c_bytes", "c_struct", "c_wall", "c_output")
    total = dict.fromkeys(keys, 0)
    for row in rows:
        t, c = row["agents"]
        values = dict(
            zip(keys, (t.calls, t.text_bytes, t.structured_bytes, row["walls"][0], c.calls, c.text_bytes, c.structured_bytes, row["walls"][1], c.output_bytes))
        )
        for key in keys:
            total[key] += values[key]
        print(_codemode_row(row["name"], values))
    print(_codemode_row("**total**", total))
    print(
        f"\nCalls: {total['t_calls'] / total['c_calls']:.1f}x fewer in code mode. structured_content: "
        f"{total['t_struct'] / total['c_struct']:.1f}x smaller in code mode ({_kb(total['c_struct'])}, of which the outputs "
        f"{_kb(total['c_output'])}; the trace and files read are left out unless a call passes trace: true). "
        f"Tool definitions in the model's prompt (name, description, input schema): the six exposed tools {_kb(tools_schema)}, "
        f"run_program alone {_kb(code_schema)}."
    )
    print("Every answer matched plain Python over a third copy of the fixture, on both sides; after the rename both workspaces were byte-identical.")


def _kb(n: float) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n:.0f} B"


def _codemode_row(name: str, v: dict) -> str:
    return (
        f"| {name} | {v['t_calls']} | {_kb(v['t_bytes'])} | {_kb(v['t_struct'])} | {fmt_ms(v['t_wall'])} "
        f"| {v['c_calls']} | {_kb(v['c_bytes'])} | {_kb(v['c_struct'])} | {fmt_ms(v['c_wall'])} "
        f"| {v['t_bytes'] / v['c_bytes']:.1f}x | {v['t_wall'] / v['c_wall']:.1f}x |"
    )


# -- slowloris: connections that never finish their head ------------------------------

SLOW_TOKEN = "bench-slowloris-token"


def attack(port: int, connections: int, stop_at: float, report) -> None:
    """Keep ``connections`` connections open that send half a head and no token, a header line each second; reopen those the server closes.

    Runs in its own process (so it takes no time from the measured client);
    sends (opened, closed by the server, answered 503) through ``report``.
    """
    import selectors

    head = f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
    selector = selectors.DefaultSelector()
    opened = closed = busy = 0

    def open_one() -> None:
        nonlocal opened
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            return
        selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, [False])
        opened += 1

    while len(selector.get_map()) < connections:
        open_one()
    next_tick = time.monotonic()
    while time.monotonic() < stop_at:
        for key, events in selector.select(timeout=0.1):
            sock, started = key.fileobj, key.data
            if events & selectors.EVENT_WRITE and not started[0]:
                started[0] = True
                try:
                    sock.send(head[:30])  # half a head
                except OSError:
                    pass
                selector.modify(sock, selectors.EVENT_READ, started)
            elif events & selectors.EVENT_READ:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 503"):
                    busy += 1
                selector.unregister(sock)
                sock.close()
                closed += 1
        if time.monotonic() >= next_tick:  # a byte now and then, and the closed ones opened again
            next_tick += 1.0
            for key in list(selector.get_map().values()):
                if key.data[0]:
                    try:
                        key.fileobj.send(b"X-Slow: 1\r\n")
                    except OSError:
                        pass
            while len(selector.get_map()) < connections:
                open_one()
    report.send((opened, closed, busy, len(selector.get_map())))
    for key in list(selector.get_map().values()):
        key.fileobj.close()


async def timed_calls(url: str, stop_at: float, per_call_s: float, new_sessions: bool = False) -> list[float | None]:
    """A client with the token calls run_program once a second until ``stop_at``: each call's latency, None when it got no
    right answer within ``per_call_s``. One session throughout (opened when this starts), or with ``new_sessions`` a new
    client each second (its connection and session start included in the latency)."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    def client() -> tuple[Any, Any]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {SLOW_TOKEN}"}, timeout=httpx2.Timeout(per_call_s))
        return Client(streamable_http_client(url, http_client=http)), http

    async def call(session: Any) -> bool:
        answer = await session.call_tool("run_program", {"program": "6 * 7"})
        return not answer.is_error and (answer.structured_content or {}).get("output") == 42

    latencies: list[float | None] = []
    kept = kept_http = None
    refused_opens: list[float] = []  # the one session's opening, refused (503 at once) before it opened
    while not new_sessions and kept is None and time.monotonic() < stop_at:  # the one session opens, retried each second
        kept, kept_http = client()
        try:
            await kept.__aenter__()
        except Exception:
            await kept_http.aclose()
            kept = None
            refused_opens.append(time.monotonic())
            await asyncio.sleep(1.0)
    try:
        while time.monotonic() < stop_at:
            started = time.monotonic()
            try:
                with anyio.fail_after(per_call_s):
                    if kept is not None:
                        ok = await call(kept)
                    else:
                        session, http = client()
                        try:
                            async with session:
                                ok = await call(session)
                        finally:
                            await http.aclose()
                latencies.append(time.monotonic() - started if ok else None)
            except Exception:
                latencies.append(None)
            await asyncio.sleep(max(0.0, started + 1.0 - time.monotonic()))
    finally:
        if kept is not None:
            try:
                await kept.__aexit__(None, None, None)
            except Exception:
                pass
            await kept_http.aclose()
    if refused_opens:
        print(f"(the one session opened at its attempt {len(refused_opens) + 1}; before, it was refused at once)")
    return latencies


def slowloris(tmp: Path, connections: int, seconds: float, nofile: int, repo: Path) -> None:
    """``lackpy serve --http`` with the token and ``ulimit -n nofile``; ``connections`` slow heads; a client's run_program each second."""
    import multiprocessing

    workspace = tmp / "slowloris-ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("# slowloris\n")
    env = dict(server_env(tmp), LACKPY_BENCH_TOKEN=SLOW_TOKEN)
    log = tmp / "slowloris.log"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    with http_server(workspace, env, log, "--token-env", "LACKPY_BENCH_TOKEN", repo=repo, preexec_fn=limit) as (url, process):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        asyncio.run(timed_calls(url, time.monotonic() + 3, 10.0))  # warm: the fork server is up before the attack
        receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)
        stop_at = time.monotonic() + seconds + 3
        attacker = multiprocessing.get_context("fork").Process(target=attack, args=(port, connections, stop_at, send))
        attacker.start()
        time.sleep(3)  # the attack is in place

        async def both() -> tuple[list, list]:
            return tuple(await asyncio.gather(timed_calls(url, stop_at - 0.5, 10.0), timed_calls(url, stop_at - 0.5, 10.0, new_sessions=True)))

        latencies, fresh = asyncio.run(both())
        opened, closed, busy, still = receive.recv() if receive.poll(30) else (0, 0, 0, 0)
        attacker.join(10)
        alive = process.poll() is None
    answered = [x for x in latencies if x is not None]
    stderr_bytes = log.stat().st_size
    shown = repo if repo != REPO else "this checkout"
    print(f"\n### Slowloris: {connections} connections with half a head and no token, ulimit -n {nofile}, {seconds:g} s ({shown})\n")
    print("| client with the token | calls | answered | max latency | p50 |")
    print("|---|---|---|---|---|")
    for name, values in (("one session, a call each second", latencies), ("a new session each second", fresh)):
        got = [x for x in values if x is not None]
        top = fmt_ms(max(got)) if got else "-"
        p50 = fmt_ms(quantile(got, 0.5)) if got else "-"
        print(f"| {name} | {len(values)} | {len(got)} | {top} | {p50} |")
    print("\n| server stderr | slow connections opened | closed by the server (of them 503) | open at the end | server alive |")
    print("|---|---|---|---|---|")
    print(f"| {stderr_bytes:,} bytes | {opened} | {closed} ({busy}) | {still} | {'yes' if alive else 'NO'} |")
    held = bool(latencies) and len(answered) == len(latencies) and max(answered) < 1.0 and stderr_bytes < 1_000_000 and alive
    print(f"\nheld: {'yes' if held else 'NO'} (the session's calls all answered, max latency < 1 s, stderr < 1 MB, the server alive)")


# -- main ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rt = argparse.ArgumentParser(add_help=False)
    rt.add_argument("--calls", type=int, default=500, help="timed round trips per call and session (default 500)")
    rt.add_argument("--warm", type=int, default=50, help="untimed warm-up rounds (default 50)")
    ld = argparse.ArgumentParser(add_help=False)
    ld.add_argument("--clients", type=int, default=200, help="concurrent sessions (default 200)")
    ld.add_argument("--seconds", type=float, default=60, help="how long the load lasts (default 60)")
    ld.add_argument("--settle", type=float, default=5, help="seconds to wait before reading the server's footprint (default 5)")
    cm = argparse.ArgumentParser(add_help=False)
    cm.add_argument("--repeat", type=int, default=5, help="runs of each read-only task, median wall time (default 5)")
    sub.add_parser("roundtrip", parents=[rt], help="round trip of a trivial run_program over stdio and HTTP")
    sub.add_parser("load", parents=[ld], help="many concurrent HTTP sessions, every answer checked")
    sub.add_parser("codemode", parents=[cm], help="tool calling against code mode on everyday tasks")
    sub.add_parser("all", parents=[rt, ld, cm], help="the three, in this order")
    sl = sub.add_parser("slowloris", help="slow heads without a token against a client with it, under ulimit -n 1024")
    sl.add_argument("--connections", type=int, default=1100, help="slow connections kept open (default 1100)")
    sl.add_argument("--seconds", type=float, default=60, help="how long the attack lasts (default 60)")
    sl.add_argument("--nofile", type=int, default=1024, help="the server's ulimit -n (default 1024)")
    sl.add_argument("--repo", type=Path, default=REPO, help="the checkout whose lackpy serves (default this one; e.g. an older commit's, to compare)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lackpy-bench-mcp-"))
    started = time.monotonic()
    print(f"# lackpy serve over MCP — Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    try:
        if args.command in ("roundtrip", "all"):
            roundtrip(tmp, args.calls, args.warm)
        if args.command in ("load", "all"):
            load(tmp, args.clients, args.seconds, args.settle)
        if args.command in ("codemode", "all"):
            codemode(tmp, args.repeat)
        if args.command == "slowloris":
            slowloris(tmp, args.connections, args.seconds, args.nofile, args.repo.resolve())
    finally:
        reap_strays()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n({args.command} took {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
