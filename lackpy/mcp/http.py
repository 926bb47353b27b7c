"""Streamable HTTP for ``lackpy serve --http``: the address, the bearer token, and the app.

The app is the MCP SDK's own streamable HTTP app, at ``/mcp``, with its
Host/Origin checks (DNS-rebinding protection) on for every host it binds.
With a token, every request must carry ``Authorization: Bearer <token>``;
any other gets 401.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from lackpy.errors import UsageError

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: How long an idle connection stays open, in seconds: longer than clients keep theirs
#: (5 s in common HTTP clients), so a client never reuses one the server is closing.
KEEP_ALIVE_S = 75


def parse_address(value: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` as (host, port); the host defaults to 127.0.0.1."""
    text = value.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--http expects [HOST:]PORT with a port from 1 to 65535, got {value!r}")
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise UsageError(f"--http: {host!r} is not a host; write an IPv6 address in brackets, e.g. [::1]:8000") from None
    return host, int(port)


def transport_security(host: str) -> Any:
    """The SDK's Host/Origin checks, allowing the loopback names and ``host`` itself."""
    from mcp.server.transport_security import TransportSecuritySettings

    shown = f"[{host}]" if ":" in host else host
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if host not in LOOPBACK:
        hosts.append(f"{shown}:*")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


class BearerToken:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            from starlette.responses import JSONResponse

            response = JSONResponse(
                {"error": "unauthorized", "error_description": "send Authorization: Bearer <token>, the token lackpy serve was given"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="lackpy"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: dict) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)
        return False


def serve_http(server: Any, host: str, port: int, token: str | None, metrics: Any = None, drain_s: float | None = None) -> None:
    """Serve ``server`` (an MCPServer) at http://host:port/mcp until a signal ends it.

    With ``metrics`` (``lackpy.mcp.metrics.Metrics``), its page is at /metrics
    too, behind the same token. ``/healthz`` and ``/readyz`` are answered
    without the token (``lackpy.mcp.health``); the first SIGTERM drains for up
    to ``drain_s`` seconds (``lackpy.mcp.drain``). ``server.store``, when the
    server shares a state store, is what ``/readyz`` pings.
    """
    import anyio
    import uvicorn

    from lackpy.mcp.drain import DRAIN_S, GRACE_S, Drain, DrainGate, DrainingServer
    from lackpy.mcp.forward import Forward
    from lackpy.mcp.health import Health, replica_name
    from lackpy.mcp.metrics import serving

    drain = Drain(DRAIN_S if drain_s is None else drain_s, getattr(server, "runs_waiting", None))
    security = transport_security(host)
    app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=security, host=host)
    app = Forward(DrainGate(app, drain), server.cluster, security)  # a call that belongs to another replica goes there (after the token is checked)
    app = serving(app, metrics, security, (lambda inner: BearerToken(inner, token)) if token else None)
    app = Health(app, drain, replica_name(host, port), server.cluster.store if server.cluster.shared else None)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", timeout_keep_alive=KEEP_ALIVE_S,
                            timeout_graceful_shutdown=GRACE_S)
    anyio.run(DrainingServer(config, drain).serve)


__all__ = ["BearerToken", "parse_address", "serve_http", "transport_security"]
