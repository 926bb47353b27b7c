"""lackpy serve --http behind a load balancer: the probes, the graceful drain, deploy/haproxy.cfg and deploy/tryout.py.

Everything here is real: ``lackpy serve`` subprocesses, the MCP SDK's own
client, and (tests marked ``cluster``) HAProxy with the repository's config
and redis-server, on free loopback ports. Waits are bounded polls for a
state (a replica DOWN, a process gone), never timings.
"""

from __future__ import annotations

import asyncio
import collections
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.cluster import needs, start_redis, stop as stop_program, wait_port
from tests.mcp.mcp_support import PYTHON, free_port, wait_for_port

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "deploy" / "haproxy.cfg"
TOKEN = "balancer-test-token"
#: A run of a few seconds: one tool call (its progress says the run has begun), then a loop.
LONG = 'read_file("README.md")\nt = 0\nfor i in range({n}):\n    for j in range(1000):\n        t += 1\nt\n'
LONG_LIMITS = {"timeout_s": 300}


# -- parts -----------------------------------------------------------------------------------


class Replica:
    """One ``lackpy serve --http`` subprocess with the test token, its stderr in a file; restartable on its port."""

    def __init__(self, workspace: Path, env: dict, log: Path, *options: str, port: int | None = None) -> None:
        self.workspace, self.env, self.log, self.options = workspace, dict(env, LACKPY_TEST_TOKEN=TOKEN), log, options
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> "Replica":
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [PYTHON, "-m", "lackpy", "serve", "-w", str(self.workspace), "--http", f"127.0.0.1:{self.port}", "--token-env", "LACKPY_TEST_TOKEN", *self.options],
                env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            )
        wait_for_port(self.port, self.process)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def said(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def get(url: str, **headers: str) -> tuple[int, dict, dict]:
    """(status, headers, JSON body) of a plain GET."""
    import httpx

    answer = httpx.get(url, headers=headers, timeout=10)
    try:
        body = answer.json()
    except ValueError:
        body = {}
    return answer.status_code, dict(answer.headers), body


def client(url: str, mode: str = "auto", seen: collections.Counter | None = None):
    """The SDK's client over streamable HTTP with the token; ``seen`` counts the replicas that answered (Lackpy-Replica) its calls."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def count(response) -> None:
        if seen is not None and response.request.headers.get("mcp-method") in (None, "tools/call"):  # 2026-07-28: the calls; before: all
            seen[response.headers.get("lackpy-replica")] += 1

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, event_hooks={"response": [count]}, timeout=httpx2.Timeout(30.0, read=300.0))
    return Client(streamable_http_client(url + "/mcp", http_client=http), mode=mode)


async def outputs(url: str, calls: int, mode: str = "auto", seen: collections.Counter | None = None) -> list:
    """The outputs of ``calls`` run_program calls of ``n * 2`` in one client session."""
    async with client(url, mode, seen) as session:
        found = []
        for n in range(calls):
            result = await session.call_tool("run_program", {"program": "n * 2", "params": {"n": n}})
            found.append(result.structured_content.get("output") if not result.is_error else result.content[0].text)
        return found


def wait_until(check, what: str, within: float = 20.0):
    """Poll ``check()`` until it is truthy (its value), failing after ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {within} s")
        time.sleep(0.1)


def leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class LongRun:
    """A long run_program in a thread of its own; ``begun`` is set at its first progress message.

    ``error`` is what failed before the result came; what fails after it, as the client closes (a drained replica
    may have stopped listening by then, so the session's closing request finds nobody), is ``closing``.
    """

    def __init__(self, url: str, n: int, mode: str = "auto") -> None:
        self.begun, self.done = threading.Event(), threading.Event()
        self.result = self.error = self.closing = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run(url, n, mode)), daemon=True)
        self.thread.start()

    async def _run(self, url: str, n: int, mode: str) -> None:
        async def progressed(progress, total, message) -> None:
            self.begun.set()

        try:
            async with client(url, mode) as session:
                # As hosts do, the tools are listed first: else the SDK lists them after the result, to check it against
                # run_program's output schema, and a drained replica may have stopped listening by then.
                await session.list_tools()
                self.result = await session.call_tool("run_program", {"program": LONG.format(n=n), "limits": LONG_LIMITS}, progress_callback=progressed)
        except Exception as exc:  # noqa: BLE001 - the test asserts what it was
            if self.result is None:
                self.error = exc
            else:
                self.closing = exc
        finally:
            self.begun.set()
            self.done.set()


# -- one replica: the probes and the drain ---------------------------------------------------------


def test_probes_answer_without_the_token_and_say_only_a_word(mcp_workspace, server_env, tmp_path):
    replica = Replica(mcp_workspace, server_env, tmp_path / "r.log").start()
    try:
        status, headers, body = get(replica.url + "/healthz")
        assert (status, body) == (200, {"status": "ok"})
        name = headers["lackpy-replica"]
        assert re.fullmatch(r"[0-9a-f]{16}", name) and str(replica.port) not in name  # the replica's id, no address
        status, headers, body = get(replica.url + "/readyz")
        assert (status, body, headers["lackpy-replica"]) == (200, {"status": "ready"}, name)
        import httpx

        assert httpx.post(replica.url + "/readyz", timeout=10).status_code == 405
        assert httpx.post(replica.url + "/mcp", json={}, timeout=10).status_code == 401  # the token still guards /mcp
        assert asyncio.run(outputs(replica.url, 2)) == [0, 2]
    finally:
        replica.stop()


def test_drain_s_errors_are_one_line(server_env, tmp_path):
    for options, said in (
        (["--http", "1", "--drain-s", "soon"], "lackpy: error: --drain-s expects seconds from 0 to 3600, got 'soon'"),
        (["--http", "1", "--drain-s", "-1"], "lackpy: error: --drain-s expects seconds from 0 to 3600, got '-1'"),
        (["--drain-s", "5"], "lackpy: error: --drain-s goes with --http [HOST:]PORT"),
    ):
        out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), *options], env=server_env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.startswith(said) and out.stderr.count("\n") == 1, out.stderr


def _new_calls_refused(url: str) -> None:
    """A new call, of either era, gets 503 with Retry-After and a JSON-RPC error that says to send it again."""
    import httpx

    for era, headers, message in (
        ("2025-11-25", {}, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        ("2026-07-28", {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "run_program"},
         {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "run_program", "arguments": {"program": "1"}}}),
    ):
        answer = httpx.post(url + "/mcp", json=message, headers={"Authorization": f"Bearer {TOKEN}", "accept": "application/json, text/event-stream", **headers}, timeout=10)
        body = answer.json()
        assert answer.status_code == 503 and answer.headers["retry-after"] == "1", era
        assert body["id"] == message["id"] and "draining" in body["error"]["message"] and "send it again" in body["error"]["message"]
        assert body["error"]["data"]["error_kind"] == "resources"


def test_sigterm_drains_the_run_under_way_refuses_new_calls_and_exits_0(mcp_workspace, server_env, tmp_path):
    replica = Replica(mcp_workspace, server_env, tmp_path / "r.log", "--drain-s", "120").start()
    try:
        run = LongRun(replica.url, 30000)
        assert run.begun.wait(60) and run.error is None
        replica.process.send_signal(signal.SIGTERM)
        status, _, body = get(replica.url + "/readyz")
        assert (status, body) == (503, {"status": "draining"})
        assert get(replica.url + "/healthz")[0] == 200
        _new_calls_refused(replica.url)
        with pytest.raises(BaseException) as refused:  # the SDK's client shows the refusal as it is
            asyncio.run(outputs(replica.url, 1))
        assert "draining" in str(leaf(refused.value)), repr(leaf(refused.value))
        assert run.done.wait(120) and run.error is None, run.error
        assert not run.result.is_error and run.result.structured_content["output"] == 30000 * 1000
        assert replica.process.wait(60) == 0
        said = replica.said()
        assert "lackpy: draining: /readyz answers 503, new calls get 503; 1 run(s) under way may take up to 120 s" in said
        assert re.search(r"lackpy: drained in [0-9.]+ s: [1-9][0-9]* request\(s\) finished, 0 run\(s\) cut, 3 new call\(s\) refused; stopping", said), said
        assert "Traceback" not in said
    finally:
        replica.stop()


@pytest.mark.slow
def test_the_drain_cuts_what_outlives_its_bound_and_a_second_sigterm_stops_at_once(mcp_workspace, server_env, tmp_path):
    replica = Replica(mcp_workspace, server_env, tmp_path / "a.log", "--drain-s", "0.5").start()
    try:
        run = LongRun(replica.url, 2_000_000)  # minutes of work: it outlives the bound
        assert run.begun.wait(60) and run.error is None
        replica.process.send_signal(signal.SIGTERM)
        assert replica.process.wait(60) == 0
        assert run.done.wait(60) and run.result is None and run.error is not None  # the client learns its call was cut
        assert "0 request(s) finished, 1 run(s) cut" in replica.said()
    finally:
        replica.stop()
    replica = Replica(mcp_workspace, server_env, tmp_path / "b.log", "--drain-s", "600").start()
    try:
        run = LongRun(replica.url, 2_000_000)
        assert run.begun.wait(60)
        replica.process.send_signal(signal.SIGTERM)
        wait_until(lambda: get(replica.url + "/readyz")[0] == 503, "draining")
        replica.process.send_signal(signal.SIGTERM)
        assert replica.process.wait(60) == 128 + signal.SIGTERM  # stopped, not drained: not 0
        assert run.done.wait(60) and run.result is None and run.error is not None
    finally:
        replica.stop()


# -- cluster: a real store, a real HAProxy -------------------------------------------------------------


@pytest.mark.cluster
def test_readyz_says_store_while_the_shared_store_does_not_answer(mcp_workspace, server_env, tmp_path):
    redis_port, port = free_port(), free_port()
    redis = start_redis(redis_port, tmp_path)
    serve = [PYTHON, "-m", "lackpy", "serve", "-w", str(mcp_workspace), "--http", str(port), "--store", f"redis://127.0.0.1:{redis_port}/0",
             "--cluster-key-env", "LACKPY_TEST_CLUSTER_KEY"]
    server = subprocess.Popen(serve, env={**server_env, "LACKPY_TEST_CLUSTER_KEY": "k" * 40}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        wait_for_port(port, server)
        status, _, body = get(f"http://127.0.0.1:{port}/readyz")
        assert (status, body) == (200, {"status": "ready"})
        stop_program(redis)
        status, _, body = get(f"http://127.0.0.1:{port}/readyz")
        assert (status, body) == (503, {"status": "store"})
        assert get(f"http://127.0.0.1:{port}/healthz")[0] == 200  # alive, only not ready
        redis = start_redis(redis_port, tmp_path)
        wait_until(lambda: get(f"http://127.0.0.1:{port}/readyz")[0] == 200, "ready again once the store is back")
    finally:
        stop_program(redis)
        stop_program(server)
        server.stderr.close()


class Balancer:
    """HAProxy with deploy/haproxy.cfg in front of two replicas, its ports and stats socket through the environment."""

    def __init__(self, tmp: Path, replicas: list[Replica]) -> None:
        self.port, self.socket = free_port(), tmp / "haproxy.sock"
        env = dict(os.environ, LACKPY_FRONT=f"127.0.0.1:{self.port}", LACKPY_HAPROXY_SOCKET=str(self.socket),
                   LACKPY_REPLICA1=f"127.0.0.1:{replicas[0].port}", LACKPY_REPLICA2=f"127.0.0.1:{replicas[1].port}")
        self.log = tmp / "haproxy.log"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([needs("haproxy"), "-f", str(CONFIG)], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        wait_port(self.port, self.process)
        wait_until(lambda: self.state() == {"r1": "UP", "r2": "UP"}, "both replicas UP in HAProxy")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def state(self) -> dict[str, str]:
        """Each replica's status in HAProxy (UP, DOWN, NOLB, ...), from ``show stat`` on its stats socket."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(self.socket))
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
        return {row[1]: row[17].split(" ")[0] for row in rows if row[0] == "lackpy" and row[1] not in ("BACKEND",)}

    def stop(self) -> None:
        stop_program(self.process)


@pytest.fixture
def two_replicas(mcp_workspace, server_env, tmp_path):
    needs("haproxy")
    replicas = [Replica(mcp_workspace, server_env, tmp_path / f"r{n}.log", "--drain-s", "120").start() for n in (1, 2)]
    balancer = None
    try:
        balancer = Balancer(tmp_path, replicas)
        yield balancer, replicas
    finally:
        if balancer is not None:
            balancer.stop()
        for replica in replicas:
            replica.stop()


def _names(replicas: list[Replica]) -> list[str]:
    return [get(replica.url + "/healthz")[1]["lackpy-replica"] for replica in replicas]


@pytest.mark.cluster
def test_haproxy_spreads_calls_drops_a_killed_replica_and_takes_it_back(two_replicas):
    balancer, replicas = two_replicas
    names = _names(replicas)
    seen: collections.Counter = collections.Counter()
    assert asyncio.run(outputs(balancer.url, 8, "auto", seen)) == [n * 2 for n in range(8)]
    assert set(seen) == set(names)  # 2026-07-28: every request balanced alone, round robin
    held: collections.Counter = collections.Counter()
    assert asyncio.run(outputs(balancer.url, 6, "legacy", held)) == [n * 2 for n in range(6)]
    assert len(held) == 1  # a handshake-era session stays on the replica that holds it (Mcp-Session-Id)

    replicas[0].process.kill()
    replicas[0].process.wait(10)
    wait_until(lambda: balancer.state()["r1"] == "DOWN", "HAProxy marks the killed replica DOWN")
    after: collections.Counter = collections.Counter()
    assert asyncio.run(outputs(balancer.url, 6, "auto", after)) == [n * 2 for n in range(6)]
    assert set(after) == {names[1]}

    replicas[0].start()  # the same port
    wait_until(lambda: balancer.state()["r1"] == "UP", "HAProxy takes the restarted replica back")
    back: collections.Counter = collections.Counter()
    assert asyncio.run(outputs(balancer.url, 8, "auto", back)) == [n * 2 for n in range(8)]
    renamed = _names(replicas)
    assert renamed[1] == names[1] and renamed[0] != names[0]  # a restarted replica is a new one: it holds nothing of the old
    assert set(back) == set(renamed)


@pytest.mark.cluster
@pytest.mark.slow
def test_a_draining_replica_finishes_its_run_while_haproxy_sends_new_calls_to_the_other(two_replicas):
    balancer, replicas = two_replicas
    names = _names(replicas)
    run = LongRun(replicas[0].url, 30000)  # in flight on r1
    assert run.begun.wait(60) and run.error is None
    replicas[0].process.send_signal(signal.SIGTERM)
    assert get(replicas[0].url + "/readyz")[0] == 503
    seen: collections.Counter = collections.Counter()  # at once, before HAProxy's next check: r1 refuses, HAProxy retries on r2
    assert asyncio.run(outputs(balancer.url, 6, "auto", seen)) == [n * 2 for n in range(6)]
    assert set(seen) == {names[1]}
    wait_until(lambda: balancer.state()["r1"] in ("NOLB", "DOWN"), "HAProxy stops balancing to the draining replica")
    assert run.done.wait(120) and run.error is None and run.result.structured_content["output"] == 30000 * 1000
    assert replicas[0].process.wait(60) == 0
    assert "new call(s) refused" in replicas[0].said()


# -- the try-out command ---------------------------------------------------------------------------


def _lines(stream, into: queue.Queue) -> None:
    for line in iter(stream.readline, ""):
        into.put(line)
    into.put(None)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> set[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parents.setdefault(int(handle.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except OSError:
                pass
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.cluster
def test_the_tryout_serves_through_haproxy_and_ctrl_c_leaves_no_process(mcp_workspace, server_env):
    needs("haproxy"), needs("redis-server")
    port = free_port()
    tryout = subprocess.Popen([PYTHON, str(REPO / "deploy" / "tryout.py"), "--replicas", "2", "--port", str(port), str(mcp_workspace)],
                              env=server_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(tryout.stdout, lines), daemon=True).start()
    try:
        said = []
        while not said or "Ctrl-C stops everything." not in said[-1]:
            line = lines.get(timeout=120)
            assert line is not None, "".join(said)
            said.append(line)
        fields = dict(line.strip().split(":", 1) for line in said if line.startswith("  ") and ":" in line)
        url, token = fields["URL"].strip(), fields["token"].split()[0]
        assert url == f"http://127.0.0.1:{port}/mcp" and token
        assert token != TOKEN and len(token) >= 32
        children = _descendants(tryout.pid)
        assert len(children) >= 3  # two replicas and HAProxy (and Redis, and the replicas' workers)

        async def through() -> object:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
            async with Client(streamable_http_client(url, http_client=http)) as session:
                return (await session.call_tool("run_program", {"program": 'len(read_file("README.md"))'})).structured_content["output"]

        assert asyncio.run(through()) == len((mcp_workspace / "README.md").read_text())
        tryout.send_signal(signal.SIGINT)
        assert tryout.wait(60) == 0
        assert [pid for pid in children if _alive(pid)] == []
    finally:
        if tryout.poll() is None:
            tryout.kill()
            tryout.wait()
        tryout.stdout.close()


@pytest.mark.cluster
def test_the_haproxy_config_is_valid_as_is(tmp_path):
    out = subprocess.run([needs("haproxy"), "-c", "-f", str(CONFIG)], env=dict(os.environ, LACKPY_HAPROXY_SOCKET=str(tmp_path / "s.sock")),
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "Configuration file is valid" in out.stdout, out.stdout + out.stderr
