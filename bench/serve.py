"""lackpy serve benchmark: ``lackpy serve`` in a subprocess, driven by the MCP SDK's own client.

usage: python bench/serve.py {roundtrip,load,codemode,all,slowloris} [options]

roundtrip  the round trip of a trivial run_program, and of validate("1") as the
           floor, over stdio and streamable HTTP, in both protocol eras
load       one HTTP server, or N replicas behind HAProxy (--replicas N, with
           one redis-server), many concurrent client sessions of either
           protocol era for a fixed time, every answer checked (a session's
           kept values and checklist read back on a later call); --kill-at S
           kills -9 a replica and restarts it; failures by kind, and each
           server's memory, descriptors and workers before and after
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


def http_client(url: str, mode: str = "auto", replicas: bool = False):
    """An SDK client over streamable HTTP with its own connection pool.

    With ``replicas``, also a list that gets the ``Lackpy-Replica`` of each
    response to a call (a 2026-07-28 ``tools/call``; any request before).
    """
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    answered: list[str] = []

    async def note(response) -> None:
        if response.request.headers.get("mcp-method") in (None, "tools/call"):
            answered.append(response.headers.get("lackpy-replica", "?"))
            del answered[:-1]

    async def approve(context, params):  # a person who says yes to every question (APPROVAL's command)
        import mcp_types

        return mcp_types.ElicitResult(action="accept", content={"approve": True})

    hooks = {"response": [note]} if replicas else {}
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=300.0), event_hooks=hooks)
    client = Client(streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=approve)
    return (client, http, answered) if replicas else (client, http)


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


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of a process and everything below it: its own, its live descendants', and what they reaped (exited workers)."""
    total = 0.0
    for one in [pid, *descendants(pid)]:
        try:
            with open(f"/proc/{one}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


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
#: A session's kept value and checklist, set by one call and read back by a later one (which may land on another replica).
KEEP = 'x = s\ntodo_set(["item-" + str(s)])\nx'
RECALL = '[x, todo_read()[0]["text"]]'
SESSION_KIT = "todo_set,todo_read"
SESSION = "session: keep, then recall"
# category: weight in the mix
#: A run that asks its client before a command (the coding kit asks by default), answered yes; its retries land on any replica.
APPROVED = 'done = run_command("echo " + str(n))\n[done["code"], done["stdout"].strip()]'
APPROVAL = "approval: asked, then answered"
MIX = {"good: count TODOs": 3, "good: params": 3, "invalid": 2, "raises": 1, "time limit": 1, SESSION: 2, APPROVAL: 1}
#: --era: the SDK client's mode for each protocol era.
ERAS = {"modern": "auto", "handshake": "legacy"}
#: After --kill-at, how long the killed replica stays down before it is started again on its port, in seconds.
RESTART_AFTER_S = 5.0


@dataclass
class LoadStats:
    latency: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in MIX})
    wrong: dict[str, int] = field(default_factory=lambda: {name: 0 for name in MIX})
    failures: dict[str, int] = field(default_factory=dict)  # clear failures by kind (a kill, a drain): never wrong answers
    failed_at: list[float] = field(default_factory=list)
    transport_errors: int = 0
    sessions: int = 0
    recalls_elsewhere: int = 0  # recalls answered by another replica than the one that kept the values
    not_followed: int = 0  # recalls answered "no session": the values stayed on the other replica
    answered_by: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    last_answer: float = 0.0

    def failed(self, kind: str, example: str) -> None:
        self.failures[kind] = self.failures.get(kind, 0) + 1
        self.failed_at.append(time.monotonic())
        if len(self.examples) < 8:
            self.examples.append(f"{kind}: {example}"[:300])


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
    if category == APPROVAL:
        n = client_id * 100_000 + step
        return {"program": APPROVED, "params": {"n": n}, "kit": "coding"}, output([0, str(n)])
    if category == SESSION:
        secret = client_id * 100_000 + step
        return {"program": KEEP, "params": {"s": secret}, "keep": True, "kit": SESSION_KIT}, output(secret)
    return {"program": BUSY, "limits": {"timeout_s": 0.3}}, failed("limit", "timeout")


def clear_failure(result) -> str | None:
    """The kind of a clear failure a deployment may give (not a wrong answer): ``lost``, ``store``, ``resources``; else None."""
    document = result.structured_content or {}
    error = document.get("error")
    kind = (error.get("kind") if isinstance(error, dict) else None) or document.get("error_kind")
    return kind if result.is_error and kind in ("lost", "store", "resources") and "\n" not in _text(result) else None


def failure_kind(exc: BaseException) -> str:
    """What an exception out of a call was, in words: how a killed or draining replica shows to a client."""
    inner = leaf(exc)
    text = str(inner)
    if "draining" in text:
        return "503 draining, not retried by the balancer"
    if "stream ended without a response" in text:
        return "connection cut (the SSE stream ended without a response)"
    if "Server returned an error response" in text:
        return "HTTP error from the balancer (502/503/504: its replica died under the call)"
    if type(inner).__module__.startswith(("httpx", "httpcore", "anyio")) or isinstance(inner, (ConnectionError, EOFError)):
        return f"connection cut ({type(inner).__name__})"
    if isinstance(inner, TimeoutError):
        return "no answer within 120 s"
    said = re.sub(r"\d+", "N", " ".join(text.split()))[:90]  # what it said, so each kind is named; numbers folded so one kind stays one row
    return f"other ({type(inner).__name__}: {said})"


async def load_client(url: str, client_id: int, stop_at: float, stats: LoadStats, todos: int, pkg3: int, mode: str = "auto",
                      categories: list[str] | None = None) -> None:
    """One agent: its own SDK session (and connection pool); calls the mix until ``stop_at``; reconnects after a transport error.

    With ``categories`` it makes exactly those calls, once each, and returns.
    A session call keeps a value and a checklist, then reads them back in a
    later call naming the session (with no affinity, often on another replica).
    """
    rng = random.Random(client_id)
    names, weights = list(MIX), list(MIX.values())
    step = failures = 0
    held: str | None = None  # the client's lackpy session, once its first session call made one
    queue = list(categories) if categories is not None else None
    while (queue if queue is not None else time.monotonic() < stop_at) and failures < 10:
        client, http, answered = http_client(url, mode, replicas=True)
        phase = "opening the session"
        try:
            async with client:
                stats.sessions += 1
                while queue if queue is not None else time.monotonic() < stop_at:
                    category = queue.pop(0) if queue is not None else rng.choices(names, weights)[0]
                    step += 1
                    args, check = load_call(category, client_id, step, todos, pkg3)
                    if category == SESSION and held is not None:
                        args["session"] = held  # one client, one session for its life: its values follow it from replica to replica
                    phase = f"a call ({category})"
                    start = time.perf_counter()
                    async with asyncio.timeout(120):
                        result = await client.call_tool("run_program", args)
                    if category == SESSION and check(result):
                        kept_on, session = answered[-1], result.structured_content["session"]
                        held = session
                        check = lambda r, s=args["params"]["s"]: not r.is_error and r.structured_content.get("output") == [s, f"item-{s}"]  # noqa: E731
                        async with asyncio.timeout(120):
                            result = await client.call_tool("run_program", {"program": RECALL, "session": session, "kit": SESSION_KIT})
                        stats.recalls_elsewhere += answered[-1] != kept_on
                        if result.is_error and "no session" in _text(result):
                            stats.not_followed += 1
                            continue
                    stats.latency[category].append(time.perf_counter() - start)
                    stats.last_answer = time.monotonic()
                    stats.answered_by[answered[-1]] = stats.answered_by.get(answered[-1], 0) + 1
                    if check(result):
                        continue
                    if (kind := clear_failure(result)) is not None:
                        stats.failed(kind, _text(result)[:200])
                    else:
                        stats.wrong[category] += 1
                        if len(stats.examples) < 8:
                            stats.examples.append(f"wrong, {category}: is_error={result.is_error} {_text(result)[:200]}")
                phase = "closing the session"
        except Exception as exc:  # noqa: BLE001 - counted by kind, then the agent reconnects (ten times in a row at most)
            stats.transport_errors += 1
            failures += 1
            inner = leaf(exc)
            stats.failed(failure_kind(exc), f"while {phase}: {type(inner).__name__}: {inner}")
            await asyncio.sleep(0.1)
        else:
            failures = 0
        finally:
            await http.aclose()


class Deployment:
    """What the load runs against: one ``lackpy serve --http`` alone, or N replicas behind HAProxy with one redis-server.

    Every part runs on 127.0.0.1; ``close`` stops them all. Replicas share
    their state in the redis-server (``--store`` and the rest).
    """

    def __init__(self, tmp: Path, workspace: Path, env: dict[str, str], replicas: int, *options: str) -> None:
        sys.path.insert(0, str(REPO / "deploy"))
        import tryout  # deploy/tryout.py: the haproxy config's server lines, which programs, which options

        self.tmp, self.workspace, self.env, self.options = tmp, workspace, dict(env, LACKPY_CLUSTER_KEY="bench-" + os.urandom(16).hex()), options
        self.processes: list[subprocess.Popen] = []
        self.others: list[subprocess.Popen] = []
        self.ports = [free_port() for _ in range(max(1, replicas))]
        self.socket: Path | None = None
        self.shared: list[str] = []
        try:
            self.shares_state = replicas >= 2
            if self.shares_state:
                redis_port = free_port()
                self.others.append(self._spawn([tryout.program("redis-server"), "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                                "--appendonly", "no", "--dir", str(tmp)], "redis"))
                tryout.wait_listening(redis_port, self.others[-1])
                self.shared = ["--store", f"redis://127.0.0.1:{redis_port}/0", "--deployment", "bench", "--cluster-key-env", "LACKPY_CLUSTER_KEY"]
            for index in range(len(self.ports)):
                self.processes.append(self._replica(index))
            for index, port in enumerate(self.ports):
                tryout.wait_ready(port, self.processes[index], f"replica r{index + 1}")
            if replicas >= 2:
                self.socket = tmp / "haproxy.sock"
                config = tmp / "haproxy.cfg"
                config.write_text(tryout.with_replicas((REPO / "deploy" / "haproxy.cfg").read_text(), len(self.ports)))
                front = free_port()
                haproxy_env = dict(os.environ, LACKPY_FRONT=f"127.0.0.1:{front}", LACKPY_HAPROXY_SOCKET=str(self.socket),
                                   LACKPY_REPLICA_MAXCONN="256", **{f"LACKPY_REPLICA{n}": f"127.0.0.1:{p}" for n, p in enumerate(self.ports, 1)})
                self.others.append(self._spawn([tryout.program("haproxy"), "-f", str(config)], "haproxy", haproxy_env))
                tryout.wait_listening(front, self.others[-1])
                self.url = f"http://127.0.0.1:{front}/mcp"
            else:
                self.url = f"http://127.0.0.1:{self.ports[0]}/mcp"
        except BaseException:
            self.close()
            raise

    def _spawn(self, command: list, name: str, env: dict | None = None) -> subprocess.Popen:
        with open(self.tmp / f"{name}.log", "ab") as log:
            return subprocess.Popen([str(c) for c in command], env=env or self.env, cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    def _replica(self, index: int) -> subprocess.Popen:
        port = self.ports[index]
        advertise = ["--advertise", f"http://127.0.0.1:{port}"] if self.shared else []
        return self._spawn([PYTHON, *serve_args(self.workspace, "--http", f"127.0.0.1:{port}", *self.shared, *advertise, *self.options)], f"r{index + 1}")

    def kill(self, index: int) -> None:
        self.processes[index].kill()
        self.processes[index].wait()

    def restart(self, index: int) -> None:
        self.processes[index] = self._replica(index)

    def state(self) -> dict[str, str]:
        """Each replica's status in HAProxy (UP, DOWN, NOLB), from its stats socket; {} without a balancer."""
        if self.socket is None:
            return {}
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(2)
                sock.connect(str(self.socket))
                sock.sendall(b"show stat\n")
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
        except OSError:
            return {}
        rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
        return {row[1]: row[17].split(" ")[0] for row in rows if len(row) > 17 and row[0] == "lackpy" and row[1] != "BACKEND"}

    def close(self) -> None:
        for process in self.processes + self.others:
            stop(process)


def kill_and_restart(deployment: Deployment, start: float, kill_at: float, events: dict[str, float], stop_at: float) -> None:
    """At ``kill_at`` s, kill -9 the first replica; start it again RESTART_AFTER_S later; note when HAProxy saw it DOWN and UP (a thread)."""
    time.sleep(max(0.0, start + kill_at - time.monotonic()))
    deployment.kill(0)
    events["killed"] = time.monotonic() - start
    while time.monotonic() < stop_at + 30:
        now = time.monotonic() - start
        status = deployment.state().get("r1", "")
        if "down" not in events and status.startswith("DOWN"):
            events["down"] = now
        if "restarted" not in events and now >= events["killed"] + RESTART_AFTER_S:
            deployment.restart(0)
            events["restarted"] = now
        if "restarted" in events and status == "UP":
            events["up"] = now
            return
        time.sleep(0.1)


def load(tmp: Path, clients: int, seconds: float, settle: float, replicas: int = 1, era: str = "modern", kill_at: float | None = None) -> None:
    """``clients`` concurrent sessions for ``seconds`` against one server, or ``replicas`` behind HAProxy; answers, latency, failures, footprint."""
    import threading

    workspace = make_fixture(tmp / "load-ws")
    todos = sum(p.read_text().count("TODO") for p in workspace.rglob("*.py"))
    pkg3 = len(list((workspace / "src" / "pkg3").glob("*.py")))
    env = server_env(tmp)
    modes = [ERAS[e] for e in (ERAS if era == "both" else [era])]
    mode_of = lambda i: modes[i % len(modes)]  # noqa: E731 - with both eras, half the clients each
    deployment = Deployment(tmp, workspace, env, replicas, "--allow-kits", "readonly,coding")
    events: dict[str, float] = {}
    try:
        url = deployment.url

        async def warm_up() -> LoadStats:
            """Every client connects and makes one call, the categories in turn."""
            stats, names = LoadStats(), list(MIX)
            await asyncio.gather(*(load_client(url, i, 0, stats, todos, pkg3, mode_of(i), [names[i % len(names)]]) for i in range(clients)))
            return stats

        warm = asyncio.run(warm_up())
        time.sleep(settle)
        pids = [process.pid for process in deployment.processes]
        before = [Footprint.of(pid) for pid in pids]

        async def run_load() -> tuple[LoadStats, float, float]:
            stats = LoadStats()
            start = time.monotonic()
            if kill_at is not None:
                threading.Thread(target=kill_and_restart, args=(deployment, start, kill_at, events, start + seconds), daemon=True).start()
            await asyncio.gather(*(load_client(url, i, start + seconds, stats, todos, pkg3, mode_of(i)) for i in range(clients)))
            return stats, start, time.monotonic()

        cpu_client0, cpu_server0, machine0 = resource.getrusage(resource.RUSAGE_SELF), sum(tree_cpu_s(p) for p in pids), machine_jiffies()
        stats, start, closed = asyncio.run(run_load())
        cpu_client1, machine1 = resource.getrusage(resource.RUSAGE_SELF), machine_jiffies()
        cpu_server1 = sum(tree_cpu_s(p) for p in pids)  # a replica killed by --kill-at takes its share with it: capacity is then a floor
        deadline = time.monotonic() + 30
        while kill_at is not None and "up" not in events and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(settle)
        after = [Footprint.of(pid) if os.path.exists(f"/proc/{pid}") else None for pid in pids]
        alive = all(process.poll() is None for process in deployment.processes)
    finally:
        deployment.close()
    report_load(stats, warm, start, closed, clients, seconds, settle, replicas, era, deployment.shares_state, before, after, alive, events,
                (cpu_client0, cpu_client1, cpu_server0, cpu_server1, machine0, machine1))


def report_load(stats: LoadStats, warm: LoadStats, start: float, closed: float, clients: int, seconds: float, settle: float, replicas: int, era: str,
                shares_state: bool, before: list[Footprint], after: list[Footprint | None], alive: bool, events: dict[str, float], cpu: tuple) -> None:
    from lackpy.config import default_concurrency

    cpu_client0, cpu_client1, cpu_server0, cpu_server1, machine0, machine1 = cpu
    elapsed = stats.last_answer - start
    all_latency = [x for values in stats.latency.values() for x in values]
    calls = len(all_latency) + len(stats.latency[SESSION])  # a session row is two calls, timed together
    wrong = sum(stats.wrong.values())
    client_cpu = (cpu_client1.ru_utime + cpu_client1.ru_stime - cpu_client0.ru_utime - cpu_client0.ru_stime) / (closed - start)
    server_cpu = (cpu_server1 - cpu_server0) / (closed - start)
    machine = (machine1[0] - machine0[0]) / max(1, machine1[1] - machine0[1])
    shape = "one server alone" if replicas <= 1 else f"{replicas} replicas behind HAProxy (deploy/haproxy.cfg), round robin" + (
        ", one redis-server for their state" if shares_state else ", each with its own state (this lackpy serve has no --store)")
    print(
        f"\n### Load: {clients} concurrent SDK sessions over HTTP for {seconds:g} s, {shape}; protocol era: {era} "
        f"(default config: isolated runs, max_concurrent_runs {default_concurrency()})\n"
    )
    print("p50 and p99 are over every row of the mix; a session row is its two calls, keep then recall, timed together.\n")
    print("| calls | throughput | p50 | p99 | wrong answers | clear failures | sessions opened |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {calls} | {calls / elapsed:.1f} calls/s | {fmt_ms(quantile(all_latency, 0.5))} | {fmt_ms(quantile(all_latency, 0.99))} "
        f"| {wrong} | {sum(stats.failures.values())} | {stats.sessions} |"
    )
    print("\n| category | weight | calls | wrong | p50 | p99 |")
    print("|---|---|---|---|---|---|")
    for name, weight in MIX.items():
        data = stats.latency[name]
        cells = f"{fmt_ms(quantile(data, 0.5))} | {fmt_ms(quantile(data, 0.99))}" if data else "— | —"
        print(f"| {name} | {weight} | {len(data)} | {stats.wrong[name]} | {cells} |")
    recalls = len(stats.latency[SESSION]) + stats.not_followed
    print(f"\nSessions (keep=True and a checklist, read back by a later call): {recalls} recalls, {stats.recalls_elsewhere} answered by another "
          f"replica than the one that kept the values; {stats.not_followed} answered 'no session' (the values did not follow).")
    if len(stats.answered_by) > 1 or replicas > 1:
        print("Calls answered per replica (Lackpy-Replica): " + ", ".join(f"{name}: {count}" for name, count in sorted(stats.answered_by.items(), key=str)))
    if events:
        print(f"\nkill -9 of replica r1 at {events.get('killed', float('nan')):.1f} s; HAProxy marked it DOWN at {events.get('down', float('nan')):.1f} s; "
              f"restarted at {events.get('restarted', float('nan')):.1f} s; marked UP at {events.get('up', float('nan')):.1f} s (s from the start of the load).")
        times = sorted(t - start for t in stats.failed_at)
        if times:
            print(f"Failures happened between {times[0]:.1f} s and {times[-1]:.1f} s.")
    if stats.failures:
        print("\n| clear failure | count |")
        print("|---|---|")
        for kind, count in sorted(stats.failures.items()):
            print(f"| {kind} | {count} |")
    print(f"\n| server (pid of `lackpy serve`) | before (after warm-up) | after (clients closed, +{settle:g} s) | tolerance | |")
    print("|---|---|---|---|---|")
    leak_free = True
    for index, (b, a) in enumerate(zip(before, after)):
        label = f"r{index + 1}: " if len(before) > 1 else ""
        if a is None:
            print(f"| {label}killed and restarted: a new process, not compared | | | | |")
            continue
        rss_ok, fds_ok, workers_ok = a.rss_kb <= b.rss_kb * 1.10, a.fds <= b.fds + 2, a.workers <= b.workers
        leak_free = leak_free and rss_ok and fds_ok and workers_ok
        print(f"| {label}RSS (VmRSS) | {b.rss_kb / 1024:.1f} MB | {a.rss_kb / 1024:.1f} MB | +10% | {'ok' if rss_ok else 'over'} |")
        print(f"| {label}open file descriptors | {b.fds} | {a.fds} | +2 | {'ok' if fds_ok else 'over'} |")
        print(f"| {label}child processes (workers) | {b.workers} | {a.workers} | none more | {'ok' if workers_ok else 'over'} |")
        print(f"| {label}workers' RSS, summed | {b.workers_rss_kb / 1024:.1f} MB | {a.workers_rss_kb / 1024:.1f} MB | report | |")
    cores = os.cpu_count() or 1
    print(
        f"\nCPU during the load: the machine {machine * 100:.0f}% busy ({cores} cores, whatever else runs on it included); the replicas with their "
        f"fork servers and workers {server_cpu * 100:.0f}% of a core; the bench's clients {client_cpu * 100:.0f}% of a core. "
        f"Capacity: {calls / elapsed / max(1e-9, server_cpu):.1f} calls/s per core of lackpy serve (this mix)."
    )
    warm_wrong = sum(warm.wrong.values())
    print(f"Warm-up: {clients} sessions at once, one call each (the categories in turn): {warm_wrong} wrong, {sum(warm.failures.values())} failures.")
    print(f"No leak (RSS, descriptors, workers back to baseline; servers alive): {'PASS' if leak_free and alive else 'FAIL'}")
    print(f"No wrong answer: {'PASS' if wrong == 0 and warm_wrong == 0 else 'FAIL'}; "
          f"every call answered (no failure of any kind): {'yes' if not stats.failures and not warm.failures else 'no, see the failures'}")
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
    ld.add_argument("--replicas", type=int, default=1, help="0 or 1: one server alone; N >= 2: N replicas behind HAProxy with one redis-server (default 1)")
    ld.add_argument("--era", choices=["modern", "handshake", "both"], default="modern", help="the protocol era of the clients; both: half each (default modern)")
    ld.add_argument("--kill-at", type=float, default=None, metavar="S", help=f"kill -9 one replica S seconds in, start it again {RESTART_AFTER_S:g} s later")
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
            if args.kill_at is not None and args.replicas < 2:
                parser.error("--kill-at needs --replicas 2 or more (a balancer to move the calls)")
            load(tmp, args.clients, args.seconds, args.settle, args.replicas, args.era, args.kill_at)
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
