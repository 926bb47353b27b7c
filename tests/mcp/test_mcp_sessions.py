"""Per-client state over MCP: sessions in both protocol eras and on each transport, notebook variables, --expose-tools."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import PYTHON, free_port, run, start_http, stop
from test_service_async import running_commands, wait_gone

TODO = "todo_set,todo_read"


@pytest.fixture
def workspace(tmp_path) -> Path:
    return make_workspace(tmp_path / "ws")


@pytest.fixture
def service(request, workspace):
    from lackpy import LackpyService

    svc = LackpyService(workspace, trust=False)
    request.addfinalizer(svc.close)
    return svc


def _server(service, *, allow_kits=("readonly", "coding"), **options):
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    options.setdefault("approval", "none")  # these clients answer no approvals; tests/mcp/test_mcp_approvals.py asks them
    return build_server(service, KitPolicy.build(service, allow_kits=list(allow_kits)), **options)


def _client(server, mode: str):
    from mcp import Client

    return Client(server, mode=mode)


async def _call(client, name: str, **args):
    return await client.call_tool(name, args)


# -- the handshake era: a connection is a session ------------------------------------------


def test_a_connection_is_one_session_and_another_connection_is_another(service):
    server = _server(service)

    async def main():
        async with _client(server, "legacy") as first, _client(server, "legacy") as second:
            kept = await _call(first, "run_program", program="x = 41", keep=True)
            await _call(first, "run_program", program='todo_set(["ship it"])', kit=TODO)
            mine = await _call(first, "run_program", program="[x + 1, todo_read()]", kit=TODO)
            theirs = await _call(second, "run_program", program="todo_read()", kit=TODO)
            unseen = await _call(second, "run_program", program="x")
            return kept, mine, theirs, unseen

    kept, mine, theirs, unseen = run(main())
    assert kept.structured_content["kept"] == ["x"]
    assert mine.structured_content["output"] == [42, [{"id": 1, "text": "ship it", "status": "pending"}]]
    assert mine.structured_content["session"] == kept.structured_content["session"]
    assert theirs.structured_content["output"] == []
    assert theirs.structured_content["session"] != kept.structured_content["session"]
    assert unseen.is_error and "name 'x' is not defined" in unseen.content[0].text


def test_closing_a_connection_stops_the_processes_of_its_session(service):
    marker = "89.4427"
    server = _server(service)

    async def main():
        async with _client(server, "legacy") as client:
            started = await _call(client, "run_program", program=f'start_process("sleep {marker}")', kit="coding")
            assert not started.is_error, started
            assert running_commands(marker)
            return started.structured_content["session"]

    session = run(main())
    assert wait_gone(marker) == []
    assert session not in {s.id for s in service.sessions}


# -- the 2026-07-28 revision: no connection state, so a session is its id -------------------------


def test_without_a_handshake_the_returned_session_id_carries_the_state(service):
    server = _server(service)

    async def main():
        async with _client(server, "auto") as client, _client(server, "auto") as other:
            first = await _call(client, "run_program", program='n = 2\ntodo_set(["a"])\nn', kit=TODO, keep=True)
            session = first.structured_content["session"]
            alone = await _call(client, "run_program", program="todo_read()", kit=TODO)
            same = await _call(other, "run_program", program="[n * 10, todo_read()]", kit=TODO, session=session)
            reset = await _call(client, "run_program", program="n", session=session, reset=True)
            return first, alone, same, reset

    first, alone, same, reset = run(main())
    assert not first.is_error and first.structured_content["kept"] == ["n"]
    assert alone.structured_content["output"] == []
    assert alone.structured_content["session"] != first.structured_content["session"]
    assert same.structured_content["output"] == [20, [{"id": 1, "text": "a", "status": "pending"}]]
    assert reset.is_error and "name 'n' is not defined" in reset.content[0].text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_unknown_or_expired_session_is_a_tool_error(service, mode):
    server = _server(service)

    async def main():
        async with _client(server, mode) as client:
            first = await _call(client, "run_program", program="1", session=None)
            service.sessions.expire(now=10**12)
            return first, await _call(client, "run_program", program="1", session="no-such-session")

    first, answer = run(main())
    assert not first.is_error
    assert answer.is_error
    assert answer.content[0].text.startswith("param error: no session 'no-such-session'")
    assert answer.structured_content["error"]["kind"] == "param"


# -- stdio: one client for the server's life, so one session ----------------------------------------


def test_stdio_calls_share_one_session_and_its_processes_end_with_the_server(workspace, server_env):
    from mcp import Client, StdioServerParameters

    marker = "97.1601"
    params = StdioServerParameters(
        command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace), "--allow-kits", "readonly,coding", "--approval", "none"], env=server_env
    )

    async def main():
        async with Client(params) as client:
            await _call(client, "run_program", program="total = 5", keep=True)
            used = await _call(client, "run_program", program="total * 2")
            started = await _call(client, "run_program", program=f'start_process("sleep {marker}")', kit="coding")
            assert running_commands(marker)
            return used, started

    used, started = run(main())
    assert used.structured_content["output"] == 10
    assert not started.is_error, started
    assert wait_gone(marker, 10) == []


def test_http_sessions_are_apart_and_ids_carry_them(workspace, server_env):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    process, port = start_http(workspace, server_env)

    def client(mode: str):
        http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=120.0))
        return Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode=mode)

    async def main():
        async with client("legacy") as legacy, client("auto") as modern:
            await _call(legacy, "run_program", program="x = 1", keep=True)
            legacy_again = await _call(legacy, "run_program", program="x + 1")
            made = await _call(modern, "run_program", program="y = 3", keep=True)
            modern_alone = await _call(modern, "run_program", program="y")
            modern_again = await _call(modern, "run_program", program="y + 1", session=made.structured_content["session"])
            crossed = await _call(modern, "run_program", program="x")
            return legacy_again, modern_alone, modern_again, crossed

    try:
        legacy_again, modern_alone, modern_again, crossed = run(main())
    finally:
        stop(process)
    assert legacy_again.structured_content["output"] == 2
    assert modern_alone.is_error
    assert modern_again.structured_content["output"] == 4
    assert crossed.is_error


# -- --expose-tools ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_exposed_tools_are_the_kits_tools_each_on_its_own(service, mode):
    server = _server(service, expose_tools=True)

    async def main():
        async with _client(server, mode) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            found = await _call(client, "find_files", pattern="**/*.py")
            text = await _call(client, "read_file", path="README.md")
            missing = await _call(client, "read_file", path="nope.txt")
            wrong = await _call(client, "read_file", path=3)
            odd = await _call(client, "grep", pattern="TODO", **{"no such": 1})
            (service.workspace / "big.txt").write_text("a line of text\n" * 20000)
            big = await _call(client, "read_file", path="big.txt")
            return listed, found, text, missing, wrong, odd, big

    from lackpy.mcp.portable import portable

    listed, found, text, missing, wrong, odd, big = run(main())
    assert not big.is_error and big.structured_content["truncated"] is True
    assert isinstance(big.structured_content["result"], str) and len(big.content[0].text) <= 70_000
    kit = service.resolve_kit("readonly")
    assert set(kit.tools) <= set(listed)
    for name, spec in kit.tools.items():
        assert listed[name].input_schema == portable(spec.input_schema())  # the tool's own, as every host reads it
        assert listed[name].annotations.read_only_hint is True
    assert found.structured_content == {"result": ["src/app.py", "src/pkg/util.py"]}  # no "truncated" when whole
    assert found.content[0].text == '["src/app.py","src/pkg/util.py"]'
    assert text.content[0].text == "# Demo\n\nStatus: draft\n"
    assert missing.is_error and missing.content[0].text == "tool error: PathError in read_file: no such file: nope.txt"
    assert wrong.is_error and "argument 'path' expects a str, got 3 (int)" in wrong.content[0].text
    assert odd.is_error and odd.content[0].text == "argument error: grep: unknown argument 'no such'"


def test_exposed_tools_that_write_say_so_and_write_through_the_same_checks(service, workspace):
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    server = build_server(service, KitPolicy.build(service, "filesystem", ["filesystem"]), expose_tools=True, approval="none")

    async def main():
        async with _client(server, "auto") as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            wrote = await _call(client, "write_file", path="notes/new.txt", content="hello")
            outside = await _call(client, "write_file", path="../escape.txt", content="no")
            return listed, wrote, outside

    listed, wrote, outside = run(main())
    assert listed["write_file"].annotations.read_only_hint is False
    assert not wrote.is_error, wrote
    assert (workspace / "notes" / "new.txt").read_text() == "hello"
    assert outside.is_error and outside.structured_content["error_kind"] == "tool"
    assert not (workspace.parent / "escape.txt").exists()


def test_a_kit_tool_named_like_a_served_tool_cannot_be_exposed(service):
    from lackpy import tool
    from lackpy.errors import UsageError
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    @tool(grade=(0, 0))
    def validate(text: str) -> str:
        """Shadow the served validate."""
        return text

    service.toolbox.register(validate)
    with pytest.raises(UsageError, match="the kit's tool 'validate' has the name of a lackpy serve tool"):
        build_server(service, KitPolicy.build(service, "read_file,validate", ["read_file,validate"]), expose_tools=True)


# -- bounds: one client cannot take another's session or the server's memory ------------------------


@contextlib.contextmanager
def _served_http(server):
    """``server`` over streamable HTTP on 127.0.0.1, in a thread of this process (so a test sets its bounds); its URL."""
    import anyio
    import uvicorn

    from lackpy.mcp.http import transport_security

    port = free_port()
    app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=transport_security("127.0.0.1"), host="127.0.0.1")
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=anyio.run, args=(web.serve,), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not web.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert web.started, "the HTTP server did not start"
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        thread.join(30)


def _http_client(url: str, mode: str):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=120.0))), mode=mode)


def test_calls_that_keep_nothing_never_take_a_session_in_use(service):
    marker = "61.7283"
    most = 4
    service.sessions.most = most
    server = _server(service)

    async def main(url):
        async with _http_client(url, "auto") as victim, _http_client(url, "auto") as attacker:
            mine = await _call(victim, "run_program", program=f'v = 7\nstart_process("sleep {marker}")', kit="coding", keep=True)
            assert not mine.is_error, mine
            flood = [await _call(attacker, "run_program", program="1") for _ in range(4 * most + 1)]
            filling = [await _call(attacker, "run_program", program=f"a = {i}", keep=True) for i in range(most)]
            started = await _call(attacker, "run_program", program=f'start_process("sleep {marker}")', kit="coding")
            after = await _call(victim, "run_program", program='[v, [p["running"] for p in list_processes()]]', kit="coding",
                                session=mine.structured_content["session"])
            return mine, flood, filling, started, after

    with _served_http(server) as url:
        mine, flood, filling, started, after = run(main(url))
    assert not after.is_error, after.content[0].text
    assert after.structured_content["output"] == [7, [True]]  # the victim's variable and process are still there
    assert all(not answer.is_error and answer.structured_content["output"] == 1 for answer in flood)
    assert [answer.is_error for answer in filling] == [False] * (most - 1) + [True]
    refused = filling[-1]
    assert refused.structured_content["error"]["kind"] == "limit"
    assert refused.content[0].text.startswith(f"limit error: this server holds {most} sessions in use")
    assert started.is_error and started.structured_content["error_kind"] == "limit"
    assert "the program ran, but its session was not kept, so its processes were stopped" in started.content[0].text
    assert len(service.sessions) == most
    service.sessions.close(mine.structured_content["session"])
    assert wait_gone(marker) == []


def test_a_flood_of_handshake_connections_is_bounded_in_count_and_bytes(service):
    from contextlib import AsyncExitStack

    sessions = service.sessions
    sessions.most, sessions.keep_bytes, sessions.kept_bytes = 4, 1000, 2500
    server = _server(service)

    async def main(url):
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(_http_client(url, "legacy")) for _ in range(10)]
            kept = [await _call(client, "run_program", program=f'blob = "x" * 800\nn = {i}', keep=True) for i, client in enumerate(clients)]
            again = [await _call(client, "run_program", program="n") for client in clients[:4]]
            return kept, again, len(sessions), sessions.held_bytes()

    with _served_http(server) as url:
        kept, again, count, held = run(main(url))
    assert [answer.is_error for answer in kept] == [False] * 4 + [True] * 6
    assert [answer.structured_content["kept"] for answer in kept[:4]] == [["blob", "n"]] * 3 + [["n"]]
    assert kept[3].structured_content["not_kept"] == {"blob": "over the 2500 bytes this server keeps for all its sessions together"}
    assert all(answer.content[0].text.startswith("limit error: this server holds 4 sessions in use") for answer in kept[4:])
    assert [answer.structured_content["output"] for answer in again] == [0, 1, 2, 3]
    assert count == 4 and held <= 2500
    assert len(sessions) == 0  # closing the connections closed their sessions


def test_a_connections_session_expires_when_idle_and_the_next_call_says_so(service):
    marker = "67.4201"
    server = _server(service)

    async def main():
        async with _client(server, "legacy") as client:
            first = await _call(client, "run_program", program=f'x = 1\nstart_process("sleep {marker}")', kit="coding", keep=True)
            assert running_commands(marker)
            service.sessions.expire(now=time.monotonic() + service.sessions.idle_s + 1)
            gone = wait_gone(marker)
            return first, gone, await _call(client, "run_program", program="1")

    first, gone, after = run(main())
    assert not first.is_error and gone == []
    old = first.structured_content["session"]
    assert after.structured_content["notices"][-1] == f"this connection's session {old} expired after 1800 s idle; this call has a new one"
    assert after.structured_content["session"] != old


def test_a_gone_session_says_what_happened_and_an_empty_ones_id_still_works(service):
    server = _server(service)

    async def main():
        async with _client(server, "auto") as client:
            empty = await _call(client, "run_program", program="1")
            reused = await _call(client, "run_program", program="2", session=empty.structured_content["session"])
            kept = await _call(client, "run_program", program="y = 3", keep=True)
            service.sessions.expire(now=time.monotonic() + service.sessions.idle_s + 1)
            expired = await _call(client, "run_program", program="y", session=kept.structured_content["session"])
            return empty, reused, kept, expired

    empty, reused, kept, expired = run(main())
    assert not reused.is_error and reused.structured_content["session"] == empty.structured_content["session"]
    assert len(service.sessions) == 0
    assert expired.is_error
    assert expired.content[0].text == (
        f"param error: no session '{kept.structured_content['session']}': it expired after 1800 s idle; leave session out to start a new one"
    )
