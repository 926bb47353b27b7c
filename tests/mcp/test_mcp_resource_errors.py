"""A resource URI lackpy does not serve, over stdio and HTTP with the official Python SDK client: JSON-RPC error -32602
with lackpy's one line saying what exists, and nothing on the server's stderr (no traceback, no logged exception)."""

from __future__ import annotations

import pytest

from mcp_support import PYTHON, run, start_http, stop

MODES = ["legacy", "auto"]  # the 2025-11-25 handshake, and the newest revision both sides speak

#: (URI, what the refusal's message must hold) — each a client's mistake, not the server's.
REFUSED = [
    ("lackpy://kits/nosuch", ["unknown kit 'nosuch'", "available kits:", "filesystem", "lackpy://kits lists the kits"]),
    ("lackpy://kits/", ["lackpy://kits/ names no kit", "read lackpy://kits/NAME"]),
    ("lackpy://docs/nosuch", ["doc 'nosuch' is not one this server offers", "give a tool name of the allowed kits", "lackpy://kits/NAME lists"]),
    ("lackpy://docs/", ["doc '' is not one this server offers"]),
    ("lackpy://skills/nosuch", ["unknown skill 'nosuch'", "lackpy://skills lists the skills"]),
    ("lackpy://kits/a/b", ["no resource 'lackpy://kits/a/b' here", "lackpy serves lackpy://kits, lackpy://kits/{kit}, lackpy://docs/{tool}", "resources/list"]),
    ("lackpy://docs/../etc", ["no resource 'lackpy://docs/../etc' here", "lackpy serves"]),
    ("lackpy://nothing", ["no resource 'lackpy://nothing' here", "lackpy://spec"]),
    ("file:///etc/passwd", ["no resource 'file:///etc/passwd' here"]),
]


async def _read_all(client) -> tuple[dict, str]:
    """Each refused URI's (code, message), then a good read, in one session (the server still answers after refusals)."""
    from mcp.shared.exceptions import MCPError

    refused = {}
    async with client:
        for uri, _ in REFUSED:
            try:
                await client.read_resource(uri)
            except MCPError as exc:
                refused[uri] = (exc.error.code, exc.error.message, exc.error.data)
            else:
                refused[uri] = None
        good = await client.read_resource("lackpy://docs/read_file")
    return refused, good.contents[0].text


def _assert_refused(refused: dict, good: str, stderr: str) -> None:
    for uri, parts in REFUSED:
        assert refused[uri] is not None, f"{uri} was read"
        code, message, data = refused[uri]
        assert code == -32602 and data == {"uri": uri}, (uri, code, message, data)  # the URI in data, as SEP-2164 asks
        assert "\n" not in message and all(part in message for part in parts), (uri, message)
    assert good.startswith("# read_file")
    assert "Traceback" not in stderr and "ERROR" not in stderr and "Error creating resource" not in stderr, stderr[-3000:]


@pytest.mark.parametrize("mode", MODES)
def test_unknown_resources_over_stdio_are_invalid_params_with_one_line_and_a_quiet_stderr(mcp_workspace, server_env, mode, tmp_path):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(mcp_workspace)], env=server_env)
    with open(tmp_path / "stderr.txt", "w") as errlog:
        refused, good = run(_read_all(Client(stdio_client(params, errlog=errlog), mode=mode)))
    _assert_refused(refused, good, (tmp_path / "stderr.txt").read_text())


@pytest.mark.parametrize("mode", MODES)
def test_unknown_resources_over_http_are_invalid_params_with_one_line_and_a_quiet_stderr(mcp_workspace, server_env, mode, tmp_path):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with open(tmp_path / "stderr.txt", "w") as errlog:
        process, port = start_http(mcp_workspace, server_env, stderr=errlog)
        try:
            http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0))

            async def main():
                async with http:
                    return await _read_all(Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode=mode))

            refused, good = run(main())
        finally:
            stop(process)
    _assert_refused(refused, good, (tmp_path / "stderr.txt").read_text())
