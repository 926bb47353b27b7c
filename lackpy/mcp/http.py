"""Streamable HTTP for ``lackpy serve --http``: the address, the bearer token, and the app.

The app is the MCP SDK's own streamable HTTP app, at ``/mcp``, with its
Host/Origin checks (DNS-rebinding protection) on for every host it binds.
With a token, every request must carry ``Authorization: Bearer <token>``;
any other gets 401, before any of its body is read, and its connection is
closed. The front (``lackpy.mcp.front``) bounds every connection: its head,
its body, its idle time, and how many there are.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import socket
from typing import Any

from lackpy.errors import UsageError
from lackpy.mcp.front import Front, FrontSettings, refuse

LOOPBACK = ("127.0.0.1", "localhost", "::1")


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


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``, before anything says the server is serving; UsageError (one line) when it cannot be.

    The server is handed this socket: the address it says it serves at is
    one it already holds, and a port another process holds is said at once,
    as a mistake in ``--http``, not found by the web server after the
    service has loaded (which would exit with a code of its own).
    """
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise UsageError(f"cannot listen on {shown}: {exc.strerror or exc}; choose another address with --http HOST:PORT") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a port left in TIME_WAIT is free, one listened on is not
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(_why_not_bound(exc, host, port, shown)) from None
    return sock


def _why_not_bound(exc: OSError, host: str, port: int, shown: str) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"{shown} is in use: choose another port with --http HOST:PORT"
    if exc.errno == errno.EACCES:
        return f"{shown}: this user may not listen on port {port} (ports below 1024 need privileges): choose another port with --http HOST:PORT"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{shown}: {host} is not an address of this machine: give one it has with --http HOST:PORT, e.g. --http 127.0.0.1:{port}"
    if isinstance(exc, socket.gaierror):
        return f"{shown}: the host name {host!r} is not known: give an address with --http HOST:PORT, e.g. --http 127.0.0.1:{port}"
    return f"cannot listen on {shown}: {exc.strerror or exc}: choose another address with --http HOST:PORT"


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
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401, from their head alone.

    ``receive`` is never called for them: their body stays unread, and the
    401 closes the connection (``front.refuse``), so nothing waits for it.
    """

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await refuse(send, 401, "", {"WWW-Authenticate": 'Bearer realm="lackpy"'}, document={
                "error": "unauthorized", "error_description": "send Authorization: Bearer <token>, the token lackpy serve was given"})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: dict) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)
        return False


def serve_http(server: Any, host: str, port: int, token: str | None, metrics: Any = None, drain_s: float | None = None,
               front: FrontSettings | None = None, issuer: Any = None, sock: socket.socket | None = None) -> None:
    """Serve ``server`` (an MCPServer) at http://host:port/mcp until a signal ends it (on ``sock``, ``bind``'s, when given).

    From the outside in: ``/healthz`` and ``/readyz``, answered without the
    token (``lackpy.mcp.health``); the token check (the shared ``token``, or
    the access tokens of ``issuer``, ``lackpy.mcp.bearer``); ``/metrics`` when
    ``metrics`` (``lackpy.mcp.metrics.Metrics``) is given; bodies read whole
    within the front's bounds (``front``, its defaults if None:
    ``lackpy.mcp.front``); a call that belongs to another replica sent there
    (``lackpy.mcp.forward``); new calls refused while the replica drains, the
    first SIGTERM draining for up to ``drain_s`` seconds (``lackpy.mcp.drain``);
    the SDK's app, whose 2025-11-25 event streams are resumable (``lackpy.mcp.resume``). ``/readyz`` pings the cluster's store when it is shared.
    """
    import anyio

    from lackpy.mcp import repeats
    from lackpy.mcp.drain import DRAIN_S, GRACE_S, Drain, DrainGate, DrainingServer
    from lackpy.mcp.forward import Forward
    from lackpy.mcp.health import Health
    from lackpy.mcp.metrics import serving
    from lackpy.mcp.resume import RETRY_MS, resumable

    gate = Front(front or FrontSettings.build())
    drain = Drain(DRAIN_S if drain_s is None else drain_s, getattr(server, "runs_waiting", None))
    security = transport_security(host)
    app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=security, host=host, retry_interval=RETRY_MS)
    resumable(server.session_manager)  # each 2025-11-25 session's POST streams primed, and resumable with Last-Event-ID
    app = gate.wrap(Forward(DrainGate(app, drain), server.cluster, security))
    guard = (lambda inner: BearerToken(inner, token)) if token else None
    if issuer is not None:
        from lackpy.mcp.bearer import OAuthBearer

        guard = lambda inner: OAuthBearer(inner, issuer)  # noqa: E731
    app = serving(app, metrics, security, guard)
    app = Health(app, drain, server.cluster.me, server.cluster.store if server.cluster.shared else None)
    config = gate.config(app, host, port, log_level="warning", lifespan="on", timeout_graceful_shutdown=GRACE_S)
    repeats.install()  # after uvicorn's config has set up its loggers
    anyio.run(DrainingServer(config, drain).serve, [sock] if sock is not None else None)


__all__ = ["BearerToken", "bind", "parse_address", "serve_http", "transport_security"]
