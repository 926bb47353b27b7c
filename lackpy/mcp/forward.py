"""Forwarding between replicas: a 2026-07-28 call that belongs to another replica is answered by that replica.

Two things live in one replica's memory and nowhere else: a run waiting for
its client's answer, and a session's background processes. A 2026-07-28
request is self-contained, so a balancer may send it to any replica; this
ASGI middleware, in front of the SDK's app on ``POST /mcp`` and behind the
front's ``WholeBody`` (which read the body within its bounds), reads the
JSON-RPC request and, for a ``tools/call``,

- whose ``requestState`` another replica sealed (verified here: a state
  that is altered, forged or sealed under another key is refused with a
  ``param`` tool error), or
- whose ``session`` argument names a session whose background processes run
  on another replica (its record in the store says),

and for a ``tasks/update`` or ``tasks/cancel`` whose ``taskId`` names another
replica (a task runs in the replica that made it, ``lackpy.mcp.tasks``),
sends the request to that replica as it came (its Authorization too, so it is
authenticated there the same way) with a hop mark only replicas can make,
and streams the answer back as it comes, server-sent events included. A
marked request is never forwarded again. A target that is not registered,
or does not accept the connection (then it is dropped from the registry:
it is gone), is not tried: the request is answered here, where the run's
result is found in the store if it finished, or the call is told it was
lost with its replica (``lackpy.mcp.approvals``, ``lackpy.session``).

Handshake-era requests (``Mcp-Session-Id``) belong to the replica holding
their stream, and are never forwarded: a balancer keeps them there.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from lackpy.errors import LackpyError, ParamError
from lackpy.mcp import results
from lackpy.mcp.cluster import Cluster
from lackpy.mcp.front import whole_body
from lackpy.store.replicas import ID

#: The header that marks a request one replica forwarded to another.
HOP_HEADER = b"lackpy-forwarded"
#: How long a forward may take to connect, in seconds; and wait between two parts of the answer (a waiting run pings).
CONNECT_S, READ_S = 2.0, 300.0
#: Headers that belong to one connection, not to the request or answer: never passed on.
_HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"proxy-connection", b"content-length"})
_SESSION_HEADER = b"mcp-session-id"
#: The tasks methods whose task runs in one replica (SEP-2663): a task's answers and its cancel go there; its record is read anywhere.
_TASK_METHODS = frozenset({"tasks/update", "tasks/cancel"})

_log = logging.getLogger(__name__)


class Forward:
    """ASGI middleware: each 2026-07-28 ``tools/call`` is answered by the replica that holds what it is about (module docstring)."""

    def __init__(self, app: Any, cluster: Cluster, security: Any) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app, self.cluster = app, cluster
        self.security = TransportSecurityMiddleware(security)
        self._client: Any = None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", ())) if scope["type"] == "http" else {}
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != "/mcp" or _SESSION_HEADER in headers:
            await self.app(scope, receive, send)
            return
        body = whole_body(scope)
        if self.cluster.forwarded(headers.get(HOP_HEADER, b"").decode("latin-1") or None, body):
            await self.app(scope, receive, send)
            return
        message = _message(body)
        try:
            target = await self._target(message)
        except LackpyError as exc:
            await _answer(send, message, exc)
            return
        if target is None or not await self._forwarded(scope, receive, send, headers, body, target):
            await self.app(scope, receive, send)

    async def _target(self, message: dict | None) -> str | None:
        """The replica ``message`` belongs to when it is another than this one, else None; ParamError for a state not ours."""
        if message is not None and message.get("method") in _TASK_METHODS:
            return _task_replica(message.get("params"), self.cluster.me)
        params = message.get("params") if message is not None and message.get("method") == "tools/call" else None
        if not isinstance(params, dict):
            return None
        state = params.get("requestState")
        if state is not None:
            replica = self.cluster.codec.replica(state)
            if replica is None:
                raise ParamError("this requestState was not issued by this server, or was changed; call the tool again without it")
            return replica if replica != self.cluster.me else None
        arguments = params.get("arguments")
        session = arguments.get("session") if isinstance(arguments, dict) else None
        if not self.cluster.shared or not isinstance(session, str) or not 0 < len(session) <= 64:
            return None
        try:
            record = await asyncio.to_thread(self.cluster.store.get, f"session:{session}")
        except LackpyError:  # the call is answered here, and fails there saying the store is down
            return None
        home = record.get("home") if isinstance(record, dict) else None
        return home if isinstance(home, str) and home != self.cluster.me else None

    async def _forwarded(self, scope: dict, receive: Any, send: Any, headers: dict, body: bytes, target: str) -> bool:
        """Send the request to replica ``target`` and its answer back; False when the target is gone (nothing was sent back)."""
        import httpx
        from starlette.requests import Request

        try:
            url = await asyncio.to_thread(self.cluster.replicas.where, target)
        except LackpyError:
            return False
        if url is None:
            return False
        refused = await self.security.validate_request(Request(scope), is_post=True)  # as the SDK checks here, before it goes anywhere
        if refused is not None:
            await refused(scope, receive, send)
            return True
        sent = [(name, value) for name, value in scope.get("headers", ()) if name not in _HOP_BY_HOP and name != HOP_HEADER]
        sent.append((HOP_HEADER, self.cluster.hop(target, body).encode()))
        client = self._http()
        try:
            upstream = await client.send(client.build_request("POST", f"{url.rstrip('/')}/mcp", headers=sent, content=body), stream=True)
        except httpx.TransportError as exc:
            _log.warning("lackpy: replica %s at %s did not take a forwarded call (%s); taking it as gone", target, url, type(exc).__name__)
            try:
                await asyncio.to_thread(self.cluster.replicas.forget, target)
            except LackpyError:
                pass
            return False
        try:
            await _relay(upstream, receive, send)
        finally:
            await upstream.aclose()
        return True

    def _http(self) -> Any:
        """The HTTP client forwards go through, made on first use (the replicas of a deployment are few: its connections are kept)."""
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(timeout=httpx.Timeout(READ_S, connect=CONNECT_S), follow_redirects=False, trust_env=False)
        return self._client


async def _relay(upstream: Any, receive: Any, send: Any) -> None:
    """Stream ``upstream``'s answer to the client as it comes; stop (and so end the forwarded call) when the client goes."""
    import anyio

    headers = [(name.lower(), value) for name, value in upstream.headers.raw if name.lower() not in _HOP_BY_HOP]
    await send({"type": "http.response.start", "status": upstream.status_code, "headers": headers})

    async def watch(scope: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch, group.cancel_scope)
        try:
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except Exception as exc:  # the other replica went away mid-answer: the answer ends where it broke off
            _log.warning("lackpy: a forwarded answer broke off: %s", type(exc).__name__)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        group.cancel_scope.cancel()


def _task_replica(params: Any, me: str) -> str | None:
    """The replica a task's id names (the one that runs it) when it is another than ``me``; who may touch the task is
    checked there, as here."""
    task_id = params.get("taskId") if isinstance(params, dict) else None
    replica, dot, _ = task_id.partition(".") if isinstance(task_id, str) else ("", "", "")
    return replica if dot and replica != me and ID.fullmatch(replica) else None


def _message(body: bytes) -> dict | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read: the SDK answers it (a parse error)
        return None
    return message if isinstance(message, dict) else None


async def _answer(send: Any, message: dict | None, exc: LackpyError) -> None:
    """Answer the JSON-RPC request ``message`` with ``exc`` as a tool error, as the tool itself would."""
    result = results.of_error(exc).model_dump(mode="json", by_alias=True, exclude_none=True)
    body = json.dumps({"jsonrpc": "2.0", "id": (message or {}).get("id"), "result": result}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


__all__ = ["Forward", "HOP_HEADER"]
