"""The HTTP front of ``lackpy serve --http``: slow heads and bodies, large bodies, connection caps, the token before the body.

Every test talks to a real ``lackpy serve --http`` subprocess on 127.0.0.1,
with raw sockets for what a hostile client does and the SDK's own client for
what a real one does. The front's timeouts are set short through the
environment (``LACKPY_HTTP_*``); waits have generous upper bounds and only
check that something happened, never how fast.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time

import pytest
from mcp_support import PYTHON, run, start_http, stop

TOKEN = "front-token-8d1e"
HEAD = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()


@pytest.fixture
def front_env(server_env):
    return dict(server_env, LACKPY_TEST_TOKEN=TOKEN, LACKPY_HTTP_HEAD_TIMEOUT="0.5", LACKPY_HTTP_BODY_TIMEOUT="0.5", LACKPY_HTTP_MAX_BODY="4096")


@pytest.fixture
def serve_front(mcp_workspace, front_env):
    """Start a server with the short front, the token and ``options``; (process, port); stopped after the test."""
    started = []

    def serve(*options: str):
        process, port = start_http(mcp_workspace, front_env, "--token-env", "LACKPY_TEST_TOKEN", *options)
        started.append(process)
        return process, port

    yield serve
    for process in started:
        if process.returncode is None:
            stop(process)


@pytest.fixture
def served(serve_front):
    return serve_front()


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as the end)."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def _head(port: int, length: int, token: bool = True, extra: str = "") -> bytes:
    auth = f"Authorization: Bearer {TOKEN}\r\n" if token else ""
    return (HEAD.format(port=port) + auth + f"Content-Length: {length}\r\n" + extra + "\r\n").encode()


def _client(port: int, source: str = "127.0.0.1"):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    transport = httpx2.AsyncHTTPTransport(local_address=source)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30.0), transport=transport)
    return Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http))


async def _program(port: int, program: str = "6 * 7", source: str = "127.0.0.1") -> dict:
    async with _client(port, source) as client:
        answer = await client.call_tool("run_program", {"program": program})
    return answer.structured_content


def test_a_connection_that_never_finishes_its_head_is_closed(served):
    _, port = served
    with _connect(port) as sock:
        sock.sendall(HEAD.format(port=port).encode()[:40])  # half a head, then nothing
        started = time.monotonic()
        assert _answer(sock) == b""  # closed, not answered
        assert time.monotonic() - started < 12  # the 0.5 s head timeout, with room for a loaded machine


def test_a_trickled_head_is_closed_too(served):
    _, port = served
    with _connect(port) as sock:
        sock.settimeout(0.2)
        closed = False
        for byte in HEAD.format(port=port).encode()[:100]:  # a byte every 0.1 s: data keeps coming, the head never does
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(1) == b"":
                    closed = True
                    break
            except socket.timeout:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.1)
        assert closed


def test_a_body_over_the_cap_is_413_before_it_is_read(served):
    _, port = served
    with _connect(port) as sock:
        sock.sendall(_head(port, 10_000_000))
        answer = _answer(sock)
    assert _status(answer) == 413 and b"4096" in answer


def test_a_chunked_body_over_the_cap_is_413(served):
    _, port = served
    head = (HEAD.format(port=port) + f"Authorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    with _connect(port) as sock:
        sock.sendall(head)
        for _ in range(3):
            sock.sendall(b"800\r\n" + b"x" * 0x800 + b"\r\n")  # 2 KiB chunks: the third passes 4096
        answer = _answer(sock)
    assert _status(answer) == 413


def test_a_body_that_does_not_arrive_is_408_and_closed(served):
    _, port = served
    with _connect(port) as sock:
        sock.sendall(_head(port, len(LIST)) + LIST[:10])
        answer = _answer(sock)
    assert _status(answer) == 408 and b"did not arrive" in answer


def test_without_the_token_a_large_body_is_refused_unread(served):
    _, port = served
    with _connect(port) as sock:
        sock.sendall(_head(port, 3000, token=False) + b"x" * 1000)  # under the cap, and two thirds never sent
        answer = _answer(sock)  # the server answers and closes without waiting for the rest
    assert _status(answer) == 401 and b"Connection: close" in answer.replace(b"connection", b"Connection")


def test_a_whole_request_still_works(served):
    _, port = served
    document = run(_program(port))
    assert document["success"] is True and document["output"] == 42


def test_over_the_per_peer_cap_busy_connections_are_refused_at_once_and_others_served(serve_front):
    """127.0.0.2 holds four requests under way (heads sent, bodies pending): a fifth gets 503 at once; 127.0.0.1 is served."""
    _, port = serve_front("--max-connections", "16", "--max-connections-per-peer", "4")
    busy = []
    try:
        for _ in range(4):
            sock = _connect(port, "127.0.0.2")
            sock.sendall(_head(port, 100))  # a request under way: its body is awaited, so it is not evicted
            busy.append(sock)
        time.sleep(0.1)  # the server has read the heads (not a timing assertion: a late read only makes them evictable)
        with _connect(port, "127.0.0.2") as extra:
            answer = _answer(extra)
        assert _status(answer) == 503 and b"too many connections" in answer
        document = run(_program(port))
        assert document["success"] is True and document["output"] == 42
    finally:
        for sock in busy:
            sock.close()


def test_connections_without_a_request_give_their_place_to_a_client_that_sends_one(serve_front):
    """The peer's cap is full of connections that sent half a head: a client from the same address is served, the oldest closed."""
    _, port = serve_front("--max-connections", "16", "--max-connections-per-peer", "4")
    idle = []
    try:
        for _ in range(4):
            sock = _connect(port)
            sock.sendall(HEAD.format(port=port).encode()[:20])
            idle.append(sock)
        time.sleep(0.5)  # past their grace (front.GRACE_S): within it a connection keeps its place whatever comes
        document = run(_program(port))
        assert document["success"] is True and document["output"] == 42
        idle[0].settimeout(5)
        assert _answer(idle[0]) == b""  # the longest waiting gave its place
    finally:
        for sock in idle:
            sock.close()


def test_a_flood_of_connections_leaves_stderr_small_and_the_server_answering(serve_front):
    process, port = serve_front("--max-connections", "8", "--max-connections-per-peer", "8")
    socks = []
    try:
        for _ in range(300):
            try:
                sock = _connect(port)
                sock.sendall(_head(port, 100))  # each a request under way, so the ninth on are refused
                socks.append(sock)
            except OSError:
                pass
        time.sleep(0.5)
        for sock in socks:
            sock.close()
        socks = []
        document = run(_program(port))
        assert document["success"] is True
    finally:
        for sock in socks:
            sock.close()
        stop(process)
    said = process.stderr.read() if not process.stderr.closed else b""
    assert len(said) < 4096, said[-2000:]


def test_connection_options_are_one_line_errors(server_env, tmp_path):
    for options, expected in (
        (["--max-connections", "0"], "--max-connections expects a whole number above 0, got '0'"),
        (["--max-connections", "10", "--max-connections-per-peer", "11"], "--max-connections-per-peer 11 is more than --max-connections 10"),
        (["--max-connections", "999999"], "leaves too few of the"),
    ):
        out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", "127.0.0.1:9", *options],
                             env=server_env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.startswith("lackpy: error: ") and expected in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1


def test_a_bad_timeout_in_the_environment_is_a_one_line_error(server_env, tmp_path):
    env = dict(server_env, LACKPY_HTTP_HEAD_TIMEOUT="soon")
    out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", "127.0.0.1:9"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr == "lackpy: error: LACKPY_HTTP_HEAD_TIMEOUT expects a number of seconds above 0, got 'soon'\n"


def test_connection_options_need_http(server_env, tmp_path):
    out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--max-connections", "5"], env=server_env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--max-connections goes with --http" in out.stderr and out.stderr.count("\n") == 1


def test_asyncio_is_imported_only_by_the_server():
    """The front is loaded by ``serve --http`` alone: ``lackpy --help`` imports neither uvicorn nor the front."""
    out = subprocess.run([PYTHON, "-X", "importtime", "-m", "lackpy", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "uvicorn" not in out.stderr and "lackpy.mcp.front" not in out.stderr


