"""``lackpy serve --http --oauth-issuer``: access tokens from a real authorization server, checked where each request comes in.

The authorization server is node-oidc-provider (tests/mcp/ts/auth_server.mjs,
installed from tests/mcp/ts's lock file), on a loopback port, issuing JWT
access tokens (RS256, RFC 9068) for lackpy serve's resource URL to three
clients by the client credentials grant: a reader, a writer and an outsider
whose only scope this server does not map. Everything else is real too:
``lackpy serve`` subprocesses, the MCP SDK's client, and lackpy itself as the
client that finds the issuer from the server's 401 and gets its own token.
"""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import PYTHON, free_port, stop, wait_for_port
from installed import needs_ts

TS = Path(__file__).parent / "ts"
SECRET = "s3cret-0123456789abcdef0123456789abcdef"
CLIENTS = [
    {"client_id": "reader", "client_secret": SECRET, "scope": "lackpy:read"},
    {"client_id": "writer", "client_secret": SECRET, "scope": "lackpy:read lackpy:write"},
    {"client_id": "outsider", "client_secret": SECRET, "scope": "elsewhere"},
]


def _node() -> str:
    return needs_ts("oidc-provider")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory, server_env):
    """(issuer URL, lackpy serve's /mcp URL, its workspace, its stderr file): the authorization server, then lackpy serve
    taking its tokens, with the audit on and the program gate notifying (so every run leaves an audit record)."""
    ws = make_workspace(tmp_path_factory.mktemp("oauth") / "ws")
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('audit = true\n[approvals]\nprogram = "notify"\n')
    log = tmp_path_factory.mktemp("oauth-log") / "stderr.txt"
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    issuer_process = subprocess.Popen([_node(), str(TS / "auth_server.mjs"), resource, json.dumps(CLIENTS)],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = issuer_process.stdout.readline()
    assert line.startswith("READY "), line
    issuer = line.split()[1]
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            [PYTHON, "-m", "lackpy", "serve", "-w", str(ws), "--trust", "--http", f"127.0.0.1:{port}", "--allow-kits", "readonly,coding",
             "--oauth-issuer", issuer, "--oauth-scope", "lackpy:read=readonly", "--oauth-scope", "lackpy:write=coding,readonly", "--oauth-runs-per-caller", "1"],
            env=server_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        wait_for_port(port, server)
        yield issuer, resource, ws, log
    finally:
        stop(server)
        issuer_process.kill()
        issuer_process.wait(10)


def token(issuer: str, client: str, scope: str) -> str:
    import httpx

    answer = httpx.post(f"{issuer}/token", auth=(client, SECRET), data={"grant_type": "client_credentials", "scope": scope}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


async def run(url: str, bearer: str, **arguments) -> dict:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=60)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        result = await client.call_tool("run_program", arguments)
    return result.structured_content


def test_a_token_from_the_issuer_is_taken_and_its_scopes_give_its_kits_and_the_caller_is_named_in_the_audit_and_run_log(deployment):
    issuer, url, ws, log = deployment
    reader, writer = token(issuer, "reader", "lackpy:read"), token(issuer, "writer", "lackpy:read lackpy:write")
    assert asyncio.run(run(url, reader, program="len(read_file('README.md')) > 0"))["output"] is True
    refused = asyncio.run(run(url, reader, program="1", kit="coding"))
    assert refused["error"]["kind"] == "denied"
    assert refused["error"]["message"].startswith("kit 'coding' is beyond what your access token's scopes give (kits: readonly); ask your")
    assert asyncio.run(run(url, writer, program="2", kit="coding"))["output"] == 2
    audit = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    assert [(entry["program"], entry["caller"]) for entry in audit] == [("len(read_file('README.md')) > 0", "reader"), ("2", "writer")]
    said = wait_for(lambda: [line for line in log.read_text().splitlines() if line.startswith("lackpy: run run_program")], 3)
    assert [line.rsplit(" ", 1)[-1] for line in said][:3] == ["who=reader", "who=reader", "who=writer"]
    import httpx

    page = httpx.get(url.removesuffix("/mcp") + "/metrics", headers={"Authorization": f"Bearer {reader}"}, timeout=10).text
    assert 'lackpy_caller_runs_total{caller="reader",outcome="success"} 1.0' in page
    assert 'lackpy_caller_runs_total{caller="reader",outcome="denied"} 1.0' in page
    assert 'lackpy_caller_runs_total{caller="writer",outcome="success"} 1.0' in page


def test_one_caller_has_at_most_its_bound_of_runs_under_way_and_another_is_not_held_back(deployment):
    """--oauth-runs-per-caller 1: while the writer's run waits for its approval, its second run is refused; the reader's runs."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ElicitResult

    issuer, url, _, _ = deployment
    writer, reader = token(issuer, "writer", "lackpy:read lackpy:write"), token(issuer, "reader", "lackpy:read")

    async def main():
        asked, release = asyncio.Event(), asyncio.Event()

        async def answer(context, params):
            asked.set()
            await release.wait()
            return ElicitResult(action="accept", content={"approve": True})

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {writer}"}, timeout=60)
        async with Client(streamable_http_client(url, http_client=http), mode="legacy", elicitation_callback=answer) as first:
            waiting = asyncio.create_task(first.call_tool("run_program", {"program": 'write_file("quota.txt", "x")', "kit": "coding"}))
            await asyncio.wait_for(asked.wait(), 60)
            second = await run(url, writer, program="1")
            other = await run(url, reader, program="3")
            release.set()
            done = await waiting
        return second, other, done.structured_content

    second, other, done = asyncio.run(main())
    assert second["error"]["kind"] == "resources"
    assert second["error"]["message"].startswith("you have 1 run(s) under way on this server, its bound per caller (--oauth-runs-per-caller)")
    assert other["output"] == 3 and done["success"] is True


def test_a_request_without_a_good_token_is_told_where_the_metadata_is_and_never_reaches_lackpy(deployment):
    import httpx

    issuer, url, _, _ = deployment
    base = url.removesuffix("/mcp")
    metadata = httpx.get(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=10)
    assert metadata.status_code == 200
    assert metadata.json() == {"resource": url, "authorization_servers": [issuer], "bearer_methods_supported": ["header"],
                               "resource_name": "lackpy serve", "scopes_supported": ["lackpy:read", "lackpy:write"]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    bare = httpx.post(url, json=body, timeout=10)
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"] == f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp", scope="lackpy:read"'
    good = token(issuer, "reader", "lackpy:read")
    head, claims, signature = good.split(".")
    widened = base64.urlsafe_b64encode(json.dumps({**_claims(claims), "scope": "lackpy:write"}).encode()).decode().rstrip("=")
    unsigned = base64.urlsafe_b64encode(json.dumps({"alg": "none", "typ": "at+jwt"}).encode()).decode().rstrip("=")
    for bad, said in (
        ("not-a-jwt", "the access token is not a JWT this server can read"),
        (f"{head}.{widened}.{signature}", "the access token fails its checks (InvalidSignatureError)"),
        (f"{unsigned}.{claims}.", "the access token is not signed with an algorithm this server accepts"),
        (good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB"), "the access token fails its checks"),
    ):
        answer = httpx.post(url, json=body, headers={"Authorization": f"Bearer {bad}"}, timeout=10)
        assert answer.status_code == 401 and 'error="invalid_token"' in answer.headers["www-authenticate"], (bad, answer.text)
        assert said in answer.json()["error_description"] and bad not in answer.text
    outsider = httpx.post(url, json=body, headers={"Authorization": f"Bearer {token(issuer, 'outsider', 'elsewhere')}"}, timeout=10)
    assert outsider.status_code == 403 and 'error="insufficient_scope", scope="lackpy:read"' in outsider.headers["www-authenticate"]


def test_a_token_for_another_resource_is_refused(deployment, tmp_path):
    """A token another issuer signed for another audience: refused."""
    import httpx

    _, url, _, _ = deployment
    other_port = free_port()
    other = f"http://127.0.0.1:{other_port}/mcp"
    process = subprocess.Popen([_node(), str(TS / "auth_server.mjs"), other, json.dumps(CLIENTS)], stdout=subprocess.PIPE, text=True,
                               stderr=subprocess.DEVNULL)
    try:
        foreign_issuer = process.stdout.readline().split()[1]
        foreign = token(foreign_issuer, "writer", "lackpy:read")
    finally:
        process.kill()
        process.wait(10)
    answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={"Authorization": f"Bearer {foreign}"}, timeout=10)
    assert answer.status_code == 401  # another issuer's key (and audience): refused before any of it is used


def test_lackpy_reaches_lackpy_serve_with_its_own_client_credentials(deployment, tmp_path, server_env):
    """OAuth both ways: lackpy's client finds the issuer from the server's 401 and gets a token for the server's resource."""
    issuer, url, _, _ = deployment
    work = tmp_path / "client"
    (work / ".lackpy").mkdir(parents=True)
    (work / ".lackpy" / "config.toml").write_text(
        f'[mcp.servers.team]\nurl = "{url}"\ngrade = [0, 0]\n'
        f'oauth = {{ grant = "client_credentials", client_id = "reader", client_secret = "${{TEAM_SECRET}}", issuer = "{issuer}" }}\n'
        '[approvals]\nteam__run_program = "none"\n'
    )
    env = dict(server_env, TEAM_SECRET=SECRET, XDG_CONFIG_HOME=str(tmp_path / "config"))
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(work)], env=env, capture_output=True, timeout=60, check=True)
    ran = subprocess.run([sys.executable, "-m", "lackpy", "run", "-w", str(work), "--kit", "team__run_program", "--json", "-"],
                         input='team__run_program(program="6 * 7")\n', env=env, capture_output=True, text=True, timeout=120)
    document = json.loads(ran.stdout)
    assert ran.returncode == 0 and document["success"] is True, ran.stdout + ran.stderr
    assert document["output"]["output"] == 42
    assert SECRET not in ran.stdout + ran.stderr


def wait_for(found, count: int, within: float = 10.0) -> list:
    """``found()`` once it has ``count`` items (the run log is written by a thread of its own), bounded by ``within`` seconds."""
    import time

    deadline = time.monotonic() + within
    while len(value := found()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def _claims(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_opaque_tokens_are_taken_as_the_issuers_introspection_says(tmp_path, server_env):
    """An issuer of opaque tokens: lackpy serve asks its introspection endpoint (RFC 7662) as a client of its own."""
    import httpx

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    clients = [*CLIENTS, {"client_id": "lackpy-serve", "client_secret": SECRET, "scope": "lackpy:read"}]
    issuer_process = subprocess.Popen([_node(), str(TS / "auth_server.mjs"), url, json.dumps(clients), "opaque"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    issuer = issuer_process.stdout.readline().split()[1]
    server = subprocess.Popen(
        [PYTHON, "-m", "lackpy", "serve", "-w", str(make_workspace(tmp_path / "ws")), "--http", f"127.0.0.1:{port}", "--oauth-issuer", issuer,
         "--oauth-scope", "lackpy:read=readonly", "--oauth-introspect-env", "INTROSPECT"],
        env=dict(server_env, INTROSPECT=f"lackpy-serve:{SECRET}"), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server)
        opaque = token(issuer, "reader", "lackpy:read")
        assert opaque.count(".") != 2  # not a JWT: only the issuer can say what it is
        assert asyncio.run(run(url, opaque, program="5 + 5"))["output"] == 10
        assert asyncio.run(run(url, opaque, program="6"))["output"] == 6
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        made_up = httpx.post(url, json=body, headers={"Authorization": "Bearer " + "x" * 43}, timeout=10)
        assert made_up.status_code == 401 and made_up.json()["error_description"] == "the issuer says the access token is not active"
    finally:
        stop(server)
        issuer_process.kill()
        issuer_process.wait(10)


def test_a_session_belongs_to_the_caller_that_made_it(deployment):
    issuer, url, _, _ = deployment
    reader, writer = token(issuer, "reader", "lackpy:read"), token(issuer, "writer", "lackpy:read lackpy:write")
    kept = asyncio.run(run(url, reader, program="secret = 41\nsecret", keep=True))
    session = kept["session"]
    assert kept["kept"] == ["secret"]
    assert asyncio.run(run(url, reader, program="secret + 1", session=session))["output"] == 42
    other = asyncio.run(run(url, writer, program="secret + 1", session=session))
    assert other["error"]["kind"] == "param"
    assert other["error"]["message"] == f"no session {session!r} of yours is known here; leave session out to start a new one"
