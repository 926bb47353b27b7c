"""lackpy serve under faults: cancellation, malformed JSON-RPC and HTTP, huge arguments, abrupt disconnects.

Every server here is a real ``lackpy serve`` subprocess, spoken to over its
stdin/stdout or over HTTP on 127.0.0.1, by the MCP SDK's own client or by
hand-written JSON-RPC. Each server's environment carries a marker of its own,
so the processes it starts (its fork server and workers) can be found in
/proc and checked for leftovers without touching any other process.

The HTTP server is shared by the module; the last test checks that it still
answers after everything the other tests did to it.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import socket
import struct
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("mcp")

from conftest import make_workspace  # noqa: E402
from mcp_support import PYTHON, run, start_http, stop  # noqa: E402

MARKER = "LACKPY_FAULTS_MARKER"
ERAS = ["auto", "legacy"]  # the SDK client's modes: the 2026-07-28 revision, and the 2025 initialize handshake
KITS = ["--allow-kits", "readonly,filesystem"]
LIMITS = {"timeout_s": 60}
PROMPT_S = 10.0  # what "answers promptly" means
MODERN = "2026-07-28"
LEGACY = "2025-06-18"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "faults", "version": "1"},
}
INITIALIZE = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "faults", "version": "1"}}
CANCEL_NOISE = "Future exception was never retrieved"


def long_program(name: str) -> str:
    """A program that stages a write of ``name``, then loops far longer than any test waits."""
    return f'write_file("{name}", "x")\nx = 0\nfor i in range(9000000):\n    for j in range(9000000):\n        x = x + 1\nx\n'


def long_call(name: str, timeout_s: float = 60) -> dict:
    return {"name": "run_program", "arguments": {"program": long_program(name), "kit": "filesystem", "limits": {"timeout_s": timeout_s}}}


def request(id_: Any, method: str, params: dict | None = None, *, modern: bool = False) -> dict:
    """A JSON-RPC request; ``modern`` adds the 2026-07-28 per-request envelope under ``params._meta``."""
    params = dict(params or {})
    if modern:
        params["_meta"] = ENVELOPE
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def run_call(program: str, **arguments: Any) -> dict:
    return {"name": "run_program", "arguments": {"program": program, **arguments}}


# -- processes -------------------------------------------------------------------------


def marked_processes(marker: str) -> dict[int, tuple[str, int, int]]:
    """Every live process whose environment carries ``marker``: pid -> (state, ppid, session id)."""
    needle = f"{MARKER}={marker}\0".encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle not in handle.read():
                    continue
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:  # gone, or not ours to read
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] in ("Z", "X"):
            continue
        found[int(entry)] = (fields[0], int(fields[1]), int(fields[3]))
    return found


def running_workers(marker: str, server_pid: int) -> set[int]:
    """The workers of the server with ``marker`` that hold a run.

    The fork server is the server's child; a worker is its child, and calls
    setsid() when it takes its run (the spare waiting for the next run has not).
    """
    return {pid for pid, (_, ppid, sid) in marked_processes(marker).items() if sid == pid and ppid != server_pid and pid != server_pid}


def wait_until(condition: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    """``condition()`` once truthy, polled until ``timeout``; its last value otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def kill_marked(marker: str) -> None:
    """Last resort after a failed check: kill what this module started (by marker), so no test leaks it."""
    for pid in marked_processes(marker):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def marked_env(server_env: dict) -> tuple[dict, str]:
    marker = uuid.uuid4().hex
    return dict(server_env, **{MARKER: marker}), marker


def unexpected_stderr(text: str) -> str:
    """``text`` without the serving line, the run log (a line per run, ``lackpy.mcp.runlog``) and the known lost-Cancelled
    reports (see test_a_cancelled_run_leaves_no_report_on_stderr)."""
    kept, skipping = [], False
    for line in text.splitlines():
        if line.startswith(CANCEL_NOISE):
            skipping = True
        if not skipping and not line.startswith(("lackpy: serving MCP at ", "lackpy: run ")):
            kept.append(line)
        if skipping and line.startswith("lackpy.run.execute.Cancelled"):
            skipping = False
    return "\n".join(kept).strip()


# -- a server over stdio, spoken to by hand ------------------------------------------------


class RawStdio:
    """``lackpy serve`` over stdio with pipes and no SDK: lines in, JSON-RPC messages out."""

    def __init__(self, workspace: Path, env: dict, stderr: Path) -> None:
        self.stderr_path = stderr
        self._stderr = open(stderr, "wb")
        self.process = subprocess.Popen(
            [PYTHON, "-m", "lackpy", "serve", "-w", str(workspace), *KITS],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                self.messages.put(json.loads(line))
            except ValueError:
                self.messages.put({"not json": line.decode(errors="replace")})
        self.messages.put(None)  # end of output

    def send(self, message: dict | str | bytes) -> None:
        if isinstance(message, dict):
            message = json.dumps(message)
        if isinstance(message, str):
            message = message.encode()
        assert b"\n" not in message
        self.process.stdin.write(message + b"\n")
        self.process.stdin.flush()

    def replies(self, ids: set, timeout: float = 30.0, settle: float = 0.3) -> tuple[dict, list]:
        """The replies to ``ids`` (by id), and every other message seen until ``settle`` s after the last of them."""
        by_id: dict = {}
        others: list = []
        deadline = time.monotonic() + timeout
        while True:
            waiting = set(ids) - set(by_id)
            remaining = deadline - time.monotonic() if waiting else settle
            if remaining <= 0:
                break
            try:
                message = self.messages.get(timeout=remaining)
            except queue.Empty:
                if waiting:
                    continue
                break
            if message is None:
                others.append(None)
                break
            if "id" in message and message["id"] in ids and message["id"] not in by_id:
                by_id[message["id"]] = message
            else:
                others.append(message)
        return by_id, others

    def close(self) -> int:
        """Close stdin (the client leaves); the exit status."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self._stderr.close()

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@pytest.fixture
def raw_stdio(tmp_path, server_env):
    """A factory of RawStdio servers on a workspace of their own; each is closed (and its processes checked gone) after the test."""
    started: list[tuple[RawStdio, str]] = []

    def start() -> tuple[RawStdio, Path, str]:
        workspace = make_workspace(tmp_path / f"ws{len(started)}")
        env, marker = marked_env(server_env)
        server = RawStdio(workspace, env, tmp_path / f"stderr{len(started)}.txt")
        started.append((server, marker))
        return server, workspace, marker

    yield start
    for server, marker in started:
        if server.process.poll() is None:
            server.close()
        if wait_until(lambda: not marked_processes(marker), 5):
            continue
        kill_marked(marker)


def result_of(message: dict) -> dict:
    assert "result" in message, message
    return message["result"]


def error_of(message: dict) -> dict:
    assert "error" in message and "result" not in message, message
    return message["error"]


# -- the shared HTTP server -----------------------------------------------------------------


@dataclass
class HttpServer:
    url: str
    port: int
    process: subprocess.Popen
    workspace: Path
    marker: str
    stderr_path: Path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def http_server(tmp_path_factory, server_env):
    """``lackpy serve --http 127.0.0.1:PORT --allow-kits readonly,filesystem`` for the whole module."""
    root = tmp_path_factory.mktemp("faults-http")
    workspace = make_workspace(root / "ws")
    env, marker = marked_env(server_env)
    stderr_path = root / "stderr.txt"
    with open(stderr_path, "wb") as stderr:
        process, port = start_http(workspace, env, *KITS, stderr=stderr)
    try:
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", port, process, workspace, marker, stderr_path)
    finally:
        stop(process)
        left = wait_until(lambda: not marked_processes(marker), 5)
        if not left:
            leftovers = marked_processes(marker)
            kill_marked(marker)
            raise AssertionError(f"processes of the HTTP server outlived it: {leftovers}")


def sdk_http_client(url: str, mode: str):
    """An SDK client over streamable HTTP; its httpx2 client, which the caller closes."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=120.0))
    return Client(streamable_http_client(url, http_client=http), mode=mode), http


def sdk_stdio_client(workspace: Path, env: dict, mode: str, errlog):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace), *KITS], env=env)
    return Client(stdio_client(params, errlog=errlog), mode=mode)


async def answers_two(client) -> tuple[Any, float]:
    """``run_program("1 + 1")``'s answer and how long it took."""
    start = time.monotonic()
    answer = await asyncio.wait_for(client.call_tool("run_program", {"program": "1 + 1"}), 30)
    return answer, time.monotonic() - start


def assert_two(answer) -> None:
    assert not answer.is_error, answer
    assert answer.structured_content["output"] == 2


def one_line_error(answer) -> str:
    assert answer.is_error, answer
    assert len(answer.content) == 1
    text = answer.content[0].text
    assert "\n" not in text, text
    return text


def http_answers(url: str, mode: str) -> tuple[Any, float]:
    async def session():
        client, http = sdk_http_client(url, mode)
        try:
            async with client:
                return await answers_two(client)
        finally:
            await http.aclose()

    return run(session())


# -- 1. cancellation ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cancelled_run_writes_nothing_and_the_server_answers_next(request, tmp_path, server_env, transport, mode):
    """Cancelling the task that awaits call_tool stops the run: its staged write is never applied, its worker stops, the server goes on."""
    name = f"cancelled-{transport}-{mode}.txt"
    http = None
    if transport == "http":
        server = request.getfixturevalue("http_server")
        workspace, marker = server.workspace, server.marker
        client, http = sdk_http_client(server.url, mode)
    else:
        workspace = make_workspace(tmp_path / "ws")
        env, marker = marked_env(server_env)
        errlog = open(tmp_path / "stderr.txt", "w")
        request.addfinalizer(errlog.close)
        client = sdk_stdio_client(workspace, env, mode, errlog)

    def server_pid() -> int:
        if transport == "http":
            return server.process.pid if server.process.poll() is None else -1
        children = [pid for pid, (_, ppid, _) in marked_processes(marker).items() if ppid == os.getpid()]
        return children[0] if len(children) == 1 else -1

    async def session():
        try:
            async with client:
                before = server_pid()
                call = asyncio.create_task(client.call_tool("run_program", {"program": long_program(name), "kit": "filesystem", "limits": LIMITS}))
                started = time.monotonic()
                running = await asyncio.to_thread(wait_until, lambda: running_workers(marker, before), 20)
                await asyncio.sleep(max(0.0, 0.8 - (time.monotonic() - started)))
                assert not call.done(), call
                call.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await call
                answer, took = await answers_two(client)
                stopped = await asyncio.to_thread(wait_until, lambda: not running & running_workers(marker, before), 10)
                return before, running, answer, took, stopped, server_pid()
        finally:
            if http is not None:
                await http.aclose()

    before, running, answer, took, stopped, after = run(session())
    assert before > 0 and after == before, "the same server process answers before and after the cancellation"
    assert running, "the long program was running when the call was cancelled"
    assert_two(answer)
    assert took < PROMPT_S, took
    assert stopped, "the cancelled run's worker is still running"
    time.sleep(0.3)
    assert not (workspace / name).exists(), "a cancelled run applied its staged write"
    if transport == "stdio":
        assert wait_until(lambda: not marked_processes(marker), 5), f"left behind by the stdio server: {marked_processes(marker)}"


@pytest.mark.slow
def test_a_cancelled_run_leaves_no_report_on_stderr(raw_stdio):
    """A cancelled run's lackpy.run.execute.Cancelled is retrieved, not reported by asyncio as a lost exception.

    Scheduler.cancellable catches the CancelledError and waits up to
    CANCEL_GRACE_S for the run thread, then retrieves its exception; the MCP
    SDK cancels handlers through an anyio cancel scope, which cancels that wait
    again at once, so the retrieval is skipped and asyncio prints "Future
    exception was never retrieved" with the Cancelled traceback.
    """
    server, workspace, marker = raw_stdio()
    server.send(request(0, "initialize", INITIALIZE))
    result_of(server.replies({0})[0][0])
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for id_ in (1, 2):
        server.send(request(id_, "tools/call", long_call(f"noise{id_}.txt")))
        assert wait_until(lambda: running_workers(marker, server.process.pid), 20)
        time.sleep(0.3)
        server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id_, "reason": "test"}})
        assert wait_until(lambda: not running_workers(marker, server.process.pid), 10)
    server.send(request(9, "tools/call", run_call("1 + 1")))
    replies, others = server.replies({9})
    assert result_of(replies[9])["structuredContent"]["output"] == 2
    assert others == [], "a cancelled request is never answered"
    assert server.close() == 0
    assert not any(workspace.glob("noise*.txt"))
    assert CANCEL_NOISE not in server.stderr, server.stderr[-2000:]


# -- 2. malformed JSON-RPC over stdio -----------------------------------------------------------


def test_malformed_json_rpc_over_stdio_before_and_after_the_handshake(raw_stdio):
    """Garbage lines get no reply (the SDK drops what it cannot parse); requests get the JSON-RPC error they are owed."""
    server, _, _ = raw_stdio()
    for line in [
        "this is not json",
        b"\xff\xfe binary \x00 bytes",
        "",
        '{"a": 1}',  # JSON, not JSON-RPC
        "[1, 2, 3]",  # a batch of nothing
        '{"jsonrpc": "2.0", "id": 77, "result": {}}',  # an answer to a request never made
        '{"jsonrpc": "2.0", "id": 78, "method": 5}',  # a method that is not a string
    ]:
        server.send(line)
    server.send(request("pre-unknown", "no/such"))
    server.send(request("pre-call", "tools/call", run_call("1 + 1")))  # before the handshake: refused, not run
    server.send({"jsonrpc": "2.0", "method": "notifications/no_such"})
    server.send(request(1, "initialize", INITIALIZE))
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.send(request(2, "no/such"))
    server.send(request(3, "tools/call", {"name": 5}))
    server.send(request(4, "tools/call", {"name": "run_program", "arguments": [1, 2]}))
    server.send(request(5, "tools/call", {"name": "no_such_tool", "arguments": {}}))
    server.send(request(6, "tools/call", {"name": "run_program", "arguments": {}}))
    server.send(request(7, "tools/call", {"name": "run_program", "arguments": {"program": 5}}))
    server.send(request(8, "tools/call", run_call("1 + 1"), modern=True))  # the 2026 envelope on a 2025 connection
    server.send("{not json after the handshake")
    server.send(request(9, "tools/call", run_call("1 + 1")))
    server.send(request("list", "tools/list"))
    ids = {"pre-unknown", "pre-call", 1, 2, 3, 4, 5, 6, 7, 8, 9, "list"}
    replies, others = server.replies(ids)

    assert set(replies) == ids, f"unanswered: {ids - set(replies)}"
    assert others == [], f"replies to nothing we asked (no parse-error or invalid-request reply is sent over stdio): {others}"
    assert error_of(replies["pre-unknown"]) == {"code": -32601, "message": "Method not found", "data": "no/such"}
    assert error_of(replies["pre-call"])["code"] == -32602
    assert result_of(replies[1])["protocolVersion"] == LEGACY and result_of(replies[1])["serverInfo"]["name"] == "lackpy"
    assert error_of(replies[2]) == {"code": -32601, "message": "Method not found", "data": "no/such"}
    assert error_of(replies[3])["code"] == -32602
    assert error_of(replies[4])["code"] == -32602
    unknown = result_of(replies[5])
    assert unknown["isError"] is True and unknown["content"][0]["text"] == "Unknown tool: no_such_tool"
    for id_ in (6, 7):  # the SDK's own argument check: a tool result, though not lackpy's one line
        answer = result_of(replies[id_])
        assert answer["isError"] is True and "program" in answer["content"][0]["text"], answer
    assert error_of(replies[8])["code"] == -32600
    assert result_of(replies[9])["structuredContent"]["output"] == 2
    assert len(result_of(replies["list"])["tools"]) == 8
    assert server.process.poll() is None
    assert server.close() == 0
    assert "Traceback" not in server.stderr, server.stderr[-2000:]


def test_malformed_json_rpc_over_stdio_in_the_2026_era(raw_stdio):
    """A connection opened by an enveloped request is modern: the handshake and bare requests are refused, enveloped ones answered."""
    server, _, _ = raw_stdio()
    server.send("this is not json")
    server.send('{"a": 1}')
    server.send({"jsonrpc": "2.0", "method": "notifications/no_such"})
    server.send(request(1, "no/such", modern=True))  # the first request: it opens the 2026 era
    server.send(request(2, "tools/call", {"name": 5}, modern=True))
    server.send(request(3, "tools/call", {"name": "run_program", "arguments": {}}, modern=True))
    server.send(request(4, "tools/list"))  # no envelope
    server.send(request(5, "initialize", INITIALIZE))
    unsupported = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}
    server.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {**run_call("1 + 1"), "_meta": unsupported}})
    server.send("[]")
    server.send(request(7, "tools/call", run_call("1 + 1"), modern=True))
    server.send(request(8, "server/discover", modern=True))
    ids = set(range(1, 9))
    replies, others = server.replies(ids)

    assert set(replies) == ids, f"unanswered: {ids - set(replies)}"
    assert others == [], others
    assert error_of(replies[1]) == {"code": -32601, "message": "Method not found", "data": "no/such"}
    assert error_of(replies[2])["code"] == -32602
    assert result_of(replies[3])["isError"] is True
    assert error_of(replies[4])["code"] == -32602 and "_meta" in error_of(replies[4])["message"]
    refused = error_of(replies[5])
    assert refused["code"] == -32022 and refused["data"] == {"supported": [MODERN], "requested": LEGACY}
    assert error_of(replies[6])["code"] == -32022
    answer = result_of(replies[7])
    assert answer["structuredContent"]["output"] == 2 and answer["resultType"] == "complete"
    assert result_of(replies[8])["supportedVersions"] == [MODERN]
    assert server.process.poll() is None
    assert server.close() == 0
    assert "Traceback" not in server.stderr, server.stderr[-2000:]


# -- 3. malformed requests over HTTP -----------------------------------------------------------------

JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _modern_headers(method: str, name: str | None = None) -> dict:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def _modern(id_: Any, method: str, params: dict | None = None, name: str | None = None) -> tuple[dict, bytes]:
    return _modern_headers(method, name), json.dumps(request(id_, method, params, modern=True)).encode()


def _body(message: dict) -> bytes:
    return json.dumps(message).encode()


HUGE = 5 * 1024 * 1024  # past the SDK's 4 MiB request body limit
LIST = _body(request(1, "tools/list"))

#: (name, method, headers, body, HTTP status, JSON-RPC error code or None)
HTTP_FAULTS = [
    ("garbage", "POST", JSON_HEADERS, b"not json{", 400, -32700),
    ("garbage, 2026", "POST", _modern_headers("tools/list"), b"not json{", 400, -32700),
    ("not UTF-8", "POST", JSON_HEADERS, b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', 400, -32700),
    ("deep nesting, 2026", "POST", _modern_headers("tools/list"), b"[" * 100000 + b"]" * 100000, 400, -32700),
    ("a 5000-digit id, 2026", "POST", _modern_headers("tools/list"), b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/list"}', 400, -32700),
    ("JSON, not JSON-RPC", "POST", JSON_HEADERS, b'{"a": 1}', 400, -32602),
    ("JSON, not JSON-RPC, 2026", "POST", _modern_headers("tools/list"), b'{"a": 1}', 400, -32600),
    ("a batch", "POST", JSON_HEADERS, b"[" + _body(request(1, "initialize", INITIALIZE)) + b"]", 400, -32602),
    ("a batch, 2026", "POST", _modern_headers("tools/list"), b"[1, 2]", 400, -32600),
    ("text/plain", "POST", {**JSON_HEADERS, "Content-Type": "text/plain"}, _body(request(1, "initialize", INITIALIZE)), 400, None),
    ("a form", "POST", {**JSON_HEADERS, "Content-Type": "application/x-www-form-urlencoded"}, b"a=1", 400, None),
    ("no content type", "POST", {"Accept": JSON_HEADERS["Accept"]}, _body(request(1, "initialize", INITIALIZE)), 400, None),
    ("text/plain, 2026", "POST", {**_modern_headers("tools/list"), "Content-Type": "text/plain"}, _modern(1, "tools/list")[1], 400, None),
    ("accepts no event stream", "POST", {**JSON_HEADERS, "Accept": "application/json"}, _body(request(1, "initialize", INITIALIZE)), 406, -32600),
    ("an unknown method without a session", "POST", JSON_HEADERS, _body(request(1, "no/such")), 400, -32600),
    ("a notification without a session", "POST", JSON_HEADERS, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', 400, -32600),
    ("an unknown method, 2026", "POST", *_modern(1, "no/such"), 404, -32601),
    ("initialize, 2026", "POST", *_modern(1, "initialize", INITIALIZE), 404, -32601),
    ("tools/call without a name, 2026", "POST", *_modern(1, "tools/call", {"arguments": {}}), 400, -32602),
    ("tools/call with list arguments, 2026", "POST", *_modern(1, "tools/call", {"name": "run_program", "arguments": [1]}, "run_program"), 400, -32602),
    ("headers that contradict the body, 2026", "POST", _modern_headers("tools/list"), _modern(1, "tools/call", run_call("1 + 1"), "run_program")[1], 400, -32020),
    ("no envelope, 2026", "POST", _modern_headers("tools/list"), LIST, 400, -32602),
    ("an unsupported version", "POST", {**_modern_headers("tools/list"), "MCP-Protocol-Version": "2099-01-01"},
     _body({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}), 400, -32022),
    ("a notification, 2026", "POST", _modern_headers("notifications/no_such"), b'{"jsonrpc":"2.0","method":"notifications/no_such"}', 202, None),
    ("an unknown session", "POST", {**JSON_HEADERS, "Mcp-Session-Id": "no-such-session"}, LIST, 404, -32600),
    ("a Latin-1 session id", "POST", {**JSON_HEADERS, "Mcp-Session-Id": b"\xe9" * 10}, LIST, 404, -32600),
    ("a 10 kB session id", "POST", {**JSON_HEADERS, "Mcp-Session-Id": "a" * 10000}, LIST, 404, -32600),
    ("an empty session id", "POST", {**JSON_HEADERS, "Mcp-Session-Id": ""}, LIST, 404, -32600),
    ("GET without a session", "GET", {"Accept": "text/event-stream"}, None, 400, -32600),
    ("GET an unknown session", "GET", {"Accept": "text/event-stream", "Mcp-Session-Id": "no-such-session"}, None, 404, -32600),
    ("GET, 2026", "GET", {"Accept": "text/event-stream", "MCP-Protocol-Version": MODERN}, None, 405, None),
    ("DELETE an unknown session", "DELETE", {"Mcp-Session-Id": "no-such-session"}, None, 404, -32600),
    ("PUT", "PUT", JSON_HEADERS, LIST, 405, -32600),
    ("a huge body", "POST", JSON_HEADERS, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"' + b"a" * HUGE + b'"}}', 413, None),
    ("a huge body, 2026", "POST", _modern_headers("tools/list"), b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + b"a" * HUGE + b'"}}', 413, None),
]


def _sse_message(response) -> dict:
    """The one JSON-RPC message of a legacy POST's event stream (or JSON) response."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    data = [line[len("data:") :].strip() for line in response.text.splitlines() if line.startswith("data:")]
    assert len(data) == 1, response.text
    return json.loads(data[0])


def test_malformed_http_requests_get_4xx_and_json_rpc_errors(http_server):
    """Every malformed request gets the status the SDK sets for it (and its JSON-RPC error); then SDK sessions of both eras work."""
    import httpx

    wrong = []
    with httpx.Client(timeout=30) as http:
        for name, method, headers, body, status, code in HTTP_FAULTS:
            response = http.request(method, http_server.url, headers=headers, content=body)
            found_code = None
            if response.headers.get("content-type", "").startswith("application/json"):
                document = response.json()
                found_code = document["error"]["code"] if "error" in document else None
                assert "result" not in document, (name, document)
            if (response.status_code, found_code) != (status, code):
                wrong.append(f"{name}: {response.status_code} {found_code}, expected {status} {code}: {response.text[:200]}")
        assert http.post(http_server.url.replace("/mcp", "/nope"), headers=JSON_HEADERS, content=LIST).status_code == 404

        # Inside a 2025 session: errors in the event stream, then the session ended, and its id refused.
        opened = http.post(http_server.url, headers=JSON_HEADERS, content=_body(request(0, "initialize", INITIALIZE)))
        assert opened.status_code == 200, opened.text
        session = {**JSON_HEADERS, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
        assert http.post(http_server.url, headers=session, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}').status_code == 202
        unknown = http.post(http_server.url, headers=session, content=_body(request(1, "no/such")))
        assert unknown.status_code == 200 and error_of(_sse_message(unknown))["code"] == -32601
        bad = http.post(http_server.url, headers=session, content=_body(request(2, "tools/call", {"name": 5})))
        assert bad.status_code == 200 and error_of(_sse_message(bad))["code"] == -32602
        garbage = http.post(http_server.url, headers=session, content=b"not json{")
        assert garbage.status_code == 400 and error_of(garbage.json())["code"] == -32700
        good = http.post(http_server.url, headers=session, content=_body(request(3, "tools/call", run_call("1 + 1"))))
        assert result_of(_sse_message(good))["structuredContent"]["output"] == 2
        assert http.delete(http_server.url, headers=session).status_code == 200
        ended = http.post(http_server.url, headers=session, content=_body(request(4, "tools/list")))
        assert ended.status_code == 404 and error_of(ended.json())["code"] == -32600

    assert wrong == []
    assert http_server.process.poll() is None
    for mode in ERAS:
        answer, took = http_answers(http_server.url, mode)
        assert_two(answer)
        assert took < PROMPT_S


# -- 4. huge arguments ---------------------------------------------------------------------------------

MB = 1_000_000


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "auto"), ("http", "auto"), ("http", "legacy")])
def test_huge_arguments_are_answered_as_tool_results(request, tmp_path, server_env, transport, mode):
    """A program of megabytes is a one-line too-large validation error; megabytes of params run; over HTTP a body past 4 MiB is refused by the SDK.

    Over stdio the sizes are 5 MB; over HTTP 3 MB, under the SDK's 4 MiB
    request body limit, and one call of 5 MB shows what lies past it.
    """
    from mcp.shared.exceptions import MCPError

    size = 5 * MB if transport == "stdio" else 3 * MB
    http = None
    if transport == "http":
        server = request.getfixturevalue("http_server")
        client, http = sdk_http_client(server.url, mode)
    else:
        env, _ = marked_env(server_env)
        errlog = open(tmp_path / "stderr.txt", "w")
        request.addfinalizer(errlog.close)
        client = sdk_stdio_client(make_workspace(tmp_path / "ws"), env, mode, errlog)
    comments = "# " + "c" * 98 + "\n"
    calls = {
        "comments": {"program": comments * (size // len(comments)) + "1 + 1\n"},
        "literal": {"program": "len('" + "z" * size + "')"},
        "params": {"program": "len(blob)", "params": {"blob": "p" * size}},
        "many_params": {"program": "len(table)", "params": {"table": {f"k{i}": i for i in range(size // 50)}}},
        "echo": {"program": "blob", "params": {"blob": "p" * size}},
    }

    async def session():
        found = {}
        try:
            async with client:
                for name, arguments in calls.items():
                    found[name] = await client.call_tool("run_program", arguments)
                if transport == "http":
                    try:
                        await client.call_tool("run_program", {"program": "len('" + "z" * 5 * MB + "')"})
                    except MCPError as exc:
                        found["past_the_limit"] = exc
                found["after"] = await answers_two(client)
        finally:
            if http is not None:
                await http.aclose()
        return found

    found = run(session())
    for name in ("comments", "literal"):
        text = one_line_error(found[name])
        document = found[name].structured_content
        assert document["error_kind"] == "validation" and document["diagnostics"][0]["code"] == "too-large", document
        assert text.startswith("the program failed, validation error: ") and "the limit is 200000" in text, text
    assert not found["params"].is_error and found["params"].structured_content["output"] == size
    assert not found["many_params"].is_error and found["many_params"].structured_content["output"] == size // 50
    text = one_line_error(found["echo"])
    assert found["echo"].structured_content["limit"] == "max_output_bytes", text
    if transport == "http":
        assert found["past_the_limit"].code == -32603  # the client's name for the 413 the server answered
        assert server.process.poll() is None
    answer, took = found["after"]
    assert_two(answer)
    assert took < PROMPT_S


# -- 5. abrupt disconnects ----------------------------------------------------------------------------------


def _raw_post(port: int, headers: dict, body: bytes) -> socket.socket:
    """A POST to /mcp written on a plain socket, whose answer is never read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    return sock


def _drop(sock: socket.socket) -> None:
    """Close with a reset: the client is simply gone, with no cancellation of any protocol."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.slow
@pytest.mark.parametrize("era", ["2026", "2025"])
def test_a_dropped_http_connection_leaves_the_server_healthy_and_writes_nothing(http_server, era):
    """A client drops its connection mid-run: another client is answered at once; the write never lands; no worker is left running.

    2026: closing the response stream is the cancellation, so the run (60 s
    allowed) stops at once. 2025: a dropped stream is not a cancellation (the
    2025 transport says a client cancels with notifications/cancelled), so the
    run goes on to its own timeout (2 s here), answered to no one, and writes nothing.
    """
    import httpx

    name = f"dropped-{era}.txt"
    server = http_server
    if era == "2026":
        timeout_s = 60
        headers = _modern_headers("tools/call", "run_program")
        body = _body(request(1, "tools/call", long_call(name, timeout_s), modern=True))
    else:
        timeout_s = 2
        opened = httpx.post(server.url, headers=JSON_HEADERS, content=_body(request(0, "initialize", INITIALIZE)), timeout=30)
        headers = {**JSON_HEADERS, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
        assert httpx.post(server.url, headers=headers, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}', timeout=30).status_code == 202
        body = _body(request(1, "tools/call", long_call(name, timeout_s)))
    pid = server.process.pid
    sock = _raw_post(server.port, headers, body)
    dropped = wait_until(lambda: running_workers(server.marker, pid), 20)
    assert len(dropped) == 1, "the long program was running when the connection dropped"
    time.sleep(0.3)
    _drop(sock)
    gone = time.monotonic()

    answer, took = http_answers(server.url, "auto")
    assert_two(answer)
    assert took < PROMPT_S
    if era == "2025":
        assert dropped <= running_workers(server.marker, pid), "a dropped 2025 stream does not cancel the run"
    assert wait_until(lambda: not dropped & running_workers(server.marker, pid), timeout_s + 5), "the dropped run outlived its timeout"
    if era == "2026":
        assert time.monotonic() - gone < 5, "the run was stopped by the drop"
    time.sleep(0.3)
    assert not (server.workspace / name).exists(), "a dropped run applied its staged write"
    for _ in range(3):  # still healthy, a moment later
        assert server.process.poll() is None
        answer, took = http_answers(server.url, "legacy")
        assert_two(answer)
        assert took < PROMPT_S
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("era", ["2026", "2025"])
def test_closing_stdin_mid_run_ends_the_server_and_its_workers(raw_stdio, era):
    """The client of a stdio server goes away mid-run: the server exits at once, leaves no process behind and writes nothing."""
    server, workspace, marker = raw_stdio()
    modern = era == "2026"
    if not modern:
        server.send(request(0, "initialize", INITIALIZE))
        result_of(server.replies({0})[0][0])
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.send(request(1, "tools/call", long_call("closed.txt"), modern=modern))
    assert wait_until(lambda: running_workers(marker, server.process.pid), 20), "the long program was running when stdin closed"
    time.sleep(0.3)
    assert len(marked_processes(marker)) >= 3  # the server, its fork server and the run's worker (and a spare)
    start = time.monotonic()
    status = server.close()
    took = time.monotonic() - start
    assert status == 0 and took < 5, (status, took)
    replies, others = server.replies({1}, timeout=1, settle=0)
    if 1 in replies:  # the SDK's word for a request the closed connection can no longer answer
        assert error_of(replies[1]) == {"code": -32000, "message": "Connection closed"}
    assert others in ([], [None]), others
    assert wait_until(lambda: not marked_processes(marker), 5), f"left behind: {marked_processes(marker)}"
    time.sleep(0.3)
    assert not (workspace / "closed.txt").exists()
    assert unexpected_stderr(server.stderr) == ""


# -- 6. after all of it --------------------------------------------------------------------------------------


def test_the_shared_http_server_still_answers_after_every_fault(http_server):
    """Whatever the tests above sent it, the HTTP server is up, answers both eras, and reported nothing but known noise."""
    assert http_server.process.poll() is None
    for mode in ERAS:
        answer, took = http_answers(http_server.url, mode)
        assert_two(answer)
        assert took < PROMPT_S
    assert wait_until(lambda: not running_workers(http_server.marker, http_server.process.pid), 5)
    assert not list(http_server.workspace.glob("*.txt"))
    assert unexpected_stderr(http_server.stderr) == ""
