"""serve: build the service, the kit policy and the server, and run it over stdio or HTTP."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lackpy.errors import UsageError


def serve(
    workspace: str | Path | None = None,
    *,
    kit: str = "readonly",
    allow_kits: list[str] | None = None,
    trust: bool = False,
    http: str | None = None,
    token_env: str | None = None,
    expose_tools: bool = False,
    ceiling: str | None = None,
    approval: str | None = None,
    allow_skills: list[str] | None = None,
    max_connections: int | str | None = None,
    max_connections_per_peer: int | str | None = None,
) -> None:
    """Serve lackpy over MCP until the client (stdio) or a signal (HTTP) ends it.

    ``allow_skills`` names the skills clients may see and use (None: every
    skill whose kit the server allows; ``lackpy.mcp.skills``).
    ``max_connections`` and ``max_connections_per_peer`` cap the HTTP
    connections (None: from the descriptor limit; ``lackpy.mcp.front``).
    """
    from lackpy.mcp.http import parse_address, serve_http
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server
    from lackpy.service import LackpyService

    address = parse_address(http) if http is not None else None
    token = _token(token_env) if token_env is not None else None
    if approval is not None:
        from lackpy.approvals.policy import Ask

        Ask.parse(approval, "--approval")  # a bad approval mode is said before the server starts
    if token_env is not None and address is None:
        raise UsageError("--token-env goes with --http [HOST:]PORT; over stdio the client that starts lackpy is trusted")
    front = None
    if address is not None:
        from lackpy.mcp.front import FrontSettings

        front = FrontSettings.build(max_connections, max_connections_per_peer)  # bad values are said before the server starts
    elif max_connections is not None or max_connections_per_peer is not None:
        raise UsageError("--max-connections and --max-connections-per-peer go with --http [HOST:]PORT; over stdio there is one client")
    service = LackpyService(workspace, trust=True if trust else None).load()
    for notice in service.notices:
        print(f"lackpy: {notice}", file=sys.stderr)
    try:
        policy = KitPolicy.build(service, kit, allow_kits)
        server = build_server(service, policy, one_client=address is None, expose_tools=expose_tools, ceiling=ceiling, approval=approval,
                              allow_skills=allow_skills)
        if address is None:
            server.run("stdio")
            return
        host, port = address
        shown = f"[{host}]" if ":" in host else host
        print(f"lackpy: serving MCP at http://{shown}:{port}/mcp (kits: {', '.join(policy.allowed)})", file=sys.stderr)
        serve_http(server, host, port, token, front)
    finally:
        service.close()


def _token(name: str) -> str:
    token = os.environ.get(name, "").strip()
    if not token:
        raise UsageError(f"--token-env {name}: the environment variable {name} is not set or empty; export the token in it first")
    return token


__all__ = ["serve"]
