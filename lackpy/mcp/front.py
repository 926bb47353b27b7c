"""The HTTP front of ``lackpy serve --http``: what a connection may cost before it is a request.

uvicorn alone waits forever for a request head, keeps every connection it
accepts and accepts until descriptors run out: a few hundred connections
that send half a head stop the server answering anyone. The front bounds
each stage of a connection:

- **the head**: a connection that has not sent a whole request head within
  ``head_timeout_s`` (from its accept, or from the first byte of its next
  request) is closed;
- **the body**: it is read whole before the app sees the request (``WholeBody``,
  which sits inside the token check, so a request without the token is
  refused before any of its body is read): larger than ``max_body_bytes`` is 413
  (at once when its Content-Length says so), not all there within
  ``body_timeout_s`` is 408; a response sent before the body was read (401,
  413) closes the connection: the front ends its side at once and throws
  away what still comes (``_Lingering``, bounded) so the client reads its answer;
- **the idle time**: a kept-alive connection with no request closes after ``idle_timeout_s``;
- **the count**: at most ``max_connections`` connections, ``max_connections_per_peer``
  from one client address. A new one over a cap takes the place of one
  waiting without a request under way (``Gate``: a connection that never
  sent a whole head goes first, the longest waiting first); when none may
  give its place, the new one is answered 503 at once and closed, never queued.

The default caps come from the descriptor limit (``RLIMIT_NOFILE``), so the
connections never take the descriptors runs need and accept never fails.
Settings come from ``FrontSettings.build`` (options, then ``LACKPY_HTTP_*``
variables, then the defaults); ``Front`` holds the shared state and makes
uvicorn's config, so other layers wrap the app before it is handed over.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

from lackpy.errors import UsageError

#: How long an idle connection stays open, in seconds: longer than clients keep theirs
#: (5 s in common HTTP clients), so a client never reuses one the server is closing.
IDLE_TIMEOUT_S = 75.0
HEAD_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
MAX_BODY_BYTES = 4 * 1024 * 1024  # the SDK's own limit: the front refuses first, and alike
#: Descriptors kept for everything but connections, at least: the fork server, workers'
#: channels, commands' pipes, the store, logs. A quarter of the limit when that is more.
RESERVED_FDS = 64
MAX_CONNECTIONS_CEILING = 10_000  # a default past this would only spend memory

#: The environment variables that set the front (options win over them).
ENV = {
    "head_timeout_s": "LACKPY_HTTP_HEAD_TIMEOUT",
    "body_timeout_s": "LACKPY_HTTP_BODY_TIMEOUT",
    "idle_timeout_s": "LACKPY_HTTP_IDLE_TIMEOUT",
    "max_body_bytes": "LACKPY_HTTP_MAX_BODY",
    "max_connections": "LACKPY_HTTP_MAX_CONNECTIONS",
    "max_connections_per_peer": "LACKPY_HTTP_MAX_CONNECTIONS_PER_PEER",
}
_OPTION = {"max_connections": "--max-connections", "max_connections_per_peer": "--max-connections-per-peer"}


def descriptor_limit() -> int:
    """This process's soft ``RLIMIT_NOFILE`` (65536 when unlimited or unknown)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 65536
    return 65536 if soft == resource.RLIM_INFINITY or soft <= 0 else soft


def connection_room(limit: int) -> int:
    """How many descriptors connections may take at most under ``limit``: all but the reserve (a quarter, at least ``RESERVED_FDS``)."""
    return max(0, limit - max(RESERVED_FDS, limit // 4))


@dataclass(frozen=True)
class FrontSettings:
    """The bounds of the HTTP front (seconds, bytes, connections)."""

    max_connections: int
    max_connections_per_peer: int
    head_timeout_s: float = HEAD_TIMEOUT_S
    body_timeout_s: float = BODY_TIMEOUT_S
    idle_timeout_s: float = IDLE_TIMEOUT_S
    max_body_bytes: int = MAX_BODY_BYTES

    @classmethod
    def build(cls, max_connections: int | None = None, max_connections_per_peer: int | None = None,
              environ: dict[str, str] | None = None, limit: int | None = None) -> "FrontSettings":
        """The settings from the options given, then ``LACKPY_HTTP_*`` in ``environ``, then defaults from the descriptor ``limit``.

        Half of the room connections may take is the default total, so each
        connection can still take a descriptor for its run; an eighth of that
        the default per peer (at least 8). A bad value is a one-line UsageError.
        """
        environ = os.environ if environ is None else environ
        limit = descriptor_limit() if limit is None else limit
        room = connection_room(limit)
        given: dict[str, Any] = {}
        for name, kind in (("head_timeout_s", float), ("body_timeout_s", float), ("idle_timeout_s", float), ("max_body_bytes", int),
                           ("max_connections", int), ("max_connections_per_peer", int)):
            value = {"max_connections": max_connections, "max_connections_per_peer": max_connections_per_peer}.get(name)
            if value is not None:
                given[name] = _positive(kind, value, _OPTION[name])
            elif environ.get(ENV[name], "").strip():
                given[name] = _positive(kind, environ[ENV[name]].strip(), ENV[name])
        total = given.get("max_connections", max(1, min(MAX_CONNECTIONS_CEILING, room // 2)))
        if total > room:
            raise UsageError(
                f"--max-connections {total} leaves too few of the {limit} file descriptors (ulimit -n) for runs; "
                f"use at most {room}, or raise ulimit -n"
            )
        per_peer = given.get("max_connections_per_peer", min(total, max(8, total // 8)))
        if per_peer > total:
            raise UsageError(f"--max-connections-per-peer {per_peer} is more than --max-connections {total}; give at most {total}")
        given.update(max_connections=total, max_connections_per_peer=per_peer)
        return cls(**given)


def _positive(kind: type, value: object, name: str) -> Any:
    """``value`` as a positive ``kind`` (int or float), or a UsageError naming ``name``."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or number <= 0 or number == float("inf"):
        expected = "a whole number above 0" if kind is int else "a number of seconds above 0"
        raise UsageError(f"{name} expects {expected}, got {value!r}")
    return number


_BUSY = b'{"error": "busy", "error_description": "too many connections to lackpy serve; close some or retry shortly"}'
#: What a connection over the caps gets before it is closed (not counted, not logged): no request was read, so the shortest answer.
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(_BUSY), _BUSY)
)


async def refuse(send: Any, status: int, message: str, headers: dict[str, str] | None = None, document: dict | None = None) -> None:
    """Answer an HTTP request ``status`` with ``message`` as one line of plain text (or ``document`` as JSON), and close its connection.

    Plain text is what the SDK answers its own refusals with (its 413), so a
    client reads the front's the same way. Closing matters: the request's
    body may be unread, and a connection kept alive would have to read through it first.
    """
    import json

    if document is not None:
        body, kind = json.dumps(document).encode(), b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    fields = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    fields += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": body, "more_body": False})


#: Where ``WholeBody`` leaves the body it read in a request's scope, for the middleware behind it that decides by the body.
BODY = "lackpy.body"


def whole_body(scope: dict) -> bytes:
    """The body ``WholeBody`` read for this request: middleware that decides by the body stands behind it and reads it here
    (a KeyError, not an empty body, when it was put anywhere else)."""
    return scope[BODY]


class WholeBody:
    """ASGI middleware: a request's body is read whole, within the front's size and time, before the app sees the request
    (and left in its scope: ``whole_body``).

    The app behind it is never handed a slow or oversized body: 413 and 408
    are answered here, and the app is not called.
    """

    def __init__(self, app: Any, settings: FrontSettings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        most = self.settings.max_body_bytes
        length = _content_length(scope)
        if length is not None and length > most:
            await refuse(send, 413, f"Request body too large: {length} bytes, more than the {most} lackpy serve accepts; send less")
            return
        body = await self._read(receive, send, most)
        if body is None:
            return
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app({**scope, BODY: body}, replay, send)

    async def _read(self, receive: Any, send: Any, most: int) -> bytes | None:
        """The whole body, or None when it was refused here (too large, too slow) or the client went away."""
        import anyio

        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.settings.body_timeout_s) as scope:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return None  # the client went away: nobody to answer
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > most:
                    await refuse(send, 413, f"Request body too large: more than the {most} bytes lackpy serve accepts; send less")
                    return None
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
        if scope.cancelled_caught:
            await refuse(send, 408, f"Request body too slow: it did not arrive within {self.settings.body_timeout_s:g} s; send it at once")
        return None


def _content_length(scope: dict) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else None  # h11 has refused a malformed one already
    return None


#: How long a new connection keeps its place whatever comes after it: the time a client takes to send its head once connected.
GRACE_S = 0.25
#: How long a kept-alive connection keeps its place: common HTTP clients drop theirs after 5 s unused.
IDLE_GRACE_S = 5.0


class Gate:
    """The connections one server holds: how many, from which peer, and which may give their place to a new one.

    A connection between requests is *fresh* until it has sent a whole head
    once, *idle* after: a fresh one waiting longest (for more than
    ``GRACE_S``, so a burst of connections never pushes out one that had no
    time to send its head) gives its place first; an idle one (it has sent
    a request already) only when no fresh one can, and only once unused for
    ``IDLE_GRACE_S``, so a flood of new connections never pushes out a
    client's kept-alive one. A connection with a request under way never does.
    """

    def __init__(self, settings: FrontSettings, clock: Any = None) -> None:
        self.settings = settings
        self.clock = clock or time.monotonic
        self.grace_s = min(GRACE_S, settings.head_timeout_s / 2)
        self.open: dict[str, int] = {}  # peer -> connections open
        self.total = 0
        # Who may give their place, longest waiting first: in all, and per peer.
        self.fresh: dict[Any, float] = {}
        self.idle: dict[Any, float] = {}
        self.fresh_of: dict[str, dict[Any, float]] = {}
        self.idle_of: dict[str, dict[Any, float]] = {}
        #: What the front did, since the start: connections refused (503), closed for a newer one, closed for a slow head.
        self.refused = self.evicted = self.timed_out = 0

    def admit(self, connection: Any) -> bool:
        """Take ``connection`` in (fresh), closing one that may give its place if a cap is reached; False when none may."""
        peer = connection.peer
        if self.open.get(peer, 0) >= self.settings.max_connections_per_peer:
            victim = self._victim(self.fresh_of.get(peer, {}), self.idle_of.get(peer, {}))
        elif self.total >= self.settings.max_connections:
            victim = self._victim(self.fresh, self.idle)
        else:
            victim = False
        if victim is None:
            self.refused += 1
            return False
        if victim is not False:
            self.evicted += 1
            self.leave(victim)
            victim.close()
        self.open[peer] = self.open.get(peer, 0) + 1
        self.total += 1
        connection.admitted = True
        self.wait(connection, "fresh")
        return True

    def _victim(self, fresh: dict, idle: dict) -> Any:
        """The connection that gives its place: the longest waiting of ``fresh`` past its grace, else of ``idle``; None if neither is."""
        now = self.clock()
        for waiting, grace in ((fresh, self.grace_s), (idle, IDLE_GRACE_S)):
            for connection, since in waiting.items():
                if now - since >= grace:
                    return connection
                break  # the longest waiting is within its grace: so are the others
        return None

    def wait(self, connection: Any, state: str | None) -> None:
        """``connection`` now waits ``fresh`` or ``idle`` (last in line), or (None) has a request under way."""
        if not getattr(connection, "admitted", False):
            return
        self._forget(connection)
        if state is not None:
            now, peer = self.clock(), connection.peer
            shared, own = (self.fresh, self.fresh_of) if state == "fresh" else (self.idle, self.idle_of)
            shared[connection] = now
            own.setdefault(peer, {})[connection] = now

    def leave(self, connection: Any) -> None:
        """``connection`` closed (or was closed for another): its place is free."""
        if not getattr(connection, "admitted", False):
            return
        connection.admitted = False
        self._forget(connection)
        peer = connection.peer
        self.total -= 1
        left = self.open[peer] - 1
        if left:
            self.open[peer] = left
        else:
            del self.open[peer]

    def _forget(self, connection: Any) -> None:
        peer = connection.peer
        for shared, own in ((self.fresh, self.fresh_of), (self.idle, self.idle_of)):
            if shared.pop(connection, None) is not None:
                mine = own[peer]
                del mine[connection]
                if not mine:
                    del own[peer]


def protocol_class(gate: Gate) -> type:
    """uvicorn's h11 protocol with the front's head timeout, caps and early close, for connections that share ``gate``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class FrontProtocol(H11Protocol):
        """One connection: admitted by the gate, its head timed, closed when a response leaves a body unread."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self.lingered: int | None = None  # bytes of an unread body thrown away since its answer, while lingering
            super().connection_made(_Lingering(transport, self))
            self.peer = self.client[0] if self.client else "?"
            self._head_timer: asyncio.TimerHandle | None = None
            self.admitted = False
            if not gate.admit(self):
                transport.write(REFUSED)
                transport.close()
                return
            self._waiting_for_head()

        def connection_lost(self, exc: Exception | None) -> None:
            gate.leave(self)
            self._stop_head_timer()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.lingered is not None:
                self.lingered += len(data)
                if self.lingered > LINGER_BYTES:
                    self.transport.really_close()
                return
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self._waiting_for_head()
            else:
                self._stop_head_timer()
                gate.wait(self, None)

        def on_response_complete(self) -> None:
            if self.body_unread() and not self.transport.is_closing():
                self.transport.close()  # answered before its body was read: never read through it
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE:
                gate.wait(self, "idle")

        def body_unread(self) -> bool:
            return self.conn.their_state is h11.SEND_BODY

        def linger(self, transport: asyncio.Transport) -> None:
            """The answer is sent and the body unread: end our side, throw away what still comes, close after ``body_timeout_s``."""
            self.lingered = 0
            if transport.can_write_eof():
                transport.write_eof()
            transport.resume_reading()
            self.loop.call_later(gate.settings.body_timeout_s, transport.close)

        def close(self) -> None:
            """Close this connection at once (the gate needs its place)."""
            self._stop_head_timer()
            if not self.transport.is_closing():
                self.transport.close()

        def _waiting_for_head(self) -> None:
            if self._head_timer is None and not self.transport.is_closing():
                self._head_timer = self.loop.call_later(gate.settings.head_timeout_s, self._head_too_slow)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                gate.timed_out += 1
                self.transport.close()

    return FrontProtocol


#: What a client may still send of a body answered unread (a 401, a 413) before its connection is closed on it.
LINGER_BYTES = 4 * MAX_BODY_BYTES


class _Lingering:
    """A connection's transport as uvicorn sees it; closing it while the request's body is unread lingers first.

    Closing a socket with unread data makes the kernel reset the connection,
    and a client still sending its body then loses the answer (a 413, a
    401) it was sent. So the front ends its side (FIN), throws away what the
    client still sends (up to ``LINGER_BYTES``, for ``body_timeout_s``) and
    closes when the client does.
    """

    def __init__(self, transport: asyncio.Transport, protocol: Any) -> None:
        self._transport, self._protocol = transport, protocol
        self._lingering = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self._lingering or self._transport.is_closing()

    def close(self) -> None:
        if not self._lingering and not self._transport.is_closing() and self._protocol.body_unread():
            self._lingering = True
            self._protocol.linger(self._transport)
            return
        self._transport.close()

    def really_close(self) -> None:
        self._transport.close()


class Front:
    """The front of one HTTP server: its settings and gate; ``wrap`` the app, then ``config`` for uvicorn."""

    def __init__(self, settings: FrontSettings) -> None:
        self.settings = settings
        self.gate = Gate(settings)

    def wrap(self, app: Any) -> Any:
        """``app`` behind ``WholeBody``: what the token check (or any middleware outside it) hands on has a whole body."""
        return WholeBody(app, self.settings)

    def config(self, app: Any, host: str, port: int, **options: Any) -> Any:
        """A ``uvicorn.Config`` serving ``app`` through the front's protocol; ``options`` go to uvicorn as they are."""
        import uvicorn

        return uvicorn.Config(
            app, host=host, port=port, http=protocol_class(self.gate), timeout_keep_alive=self.settings.idle_timeout_s, **options,
        )


__all__ = ["BODY", "Front", "FrontSettings", "Gate", "WholeBody", "whole_body", "connection_room", "descriptor_limit", "protocol_class", "refuse"]
