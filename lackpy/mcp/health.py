"""``/healthz`` and ``/readyz`` for ``lackpy serve --http``: what a load balancer asks a replica, answered without the token.

The balancer checks these on every replica, every second or so, and holds no
token; so they are answered before the bearer check, and they say nothing a
client should not see: a status word and the replica's short name, never a
path, a count or a tool.

- ``/healthz``: 200 when the process and its event loop answer (the answer
  itself is the proof). A balancer or supervisor that gets nothing restarts
  or drops the replica.
- ``/readyz``: 200 when the replica takes new calls: it is not draining
  (``lackpy.mcp.drain``) and, when it shares a state store, the store answers
  within ``PING_S``. Else 503 with the reason word (``draining``, ``store``),
  so the balancer sends new calls elsewhere. The fork server is not checked:
  a broken one is replaced on the next run (``lackpy.run.forkserver``), so
  it never makes a replica unable to serve.

Every response of the server also carries ``Lackpy-Replica: NAME``, so a
client, a test or a benchmark behind a balancer can tell which replica
answered. The name is the replica's id in its deployment
(``lackpy.mcp.cluster``), the one its log, the registry and its ``lost``
errors use: new with each start of the process, since a restarted replica
holds none of what the one before it held, and it shows no address.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

#: The most a store's ping may take before the replica says it is not ready, in seconds.
PING_S = 1.0
#: The response header that names the replica that answered.
REPLICA_HEADER = b"lackpy-replica"
#: The probe paths.
PATHS = ("/healthz", "/readyz")


class Health:
    """ASGI middleware: answers the probes itself, names the replica on every response, passes the rest on.

    ``drain`` is the replica's ``Drain`` (its ``draining`` flag); ``store``,
    when given, is pinged off the event loop by ``/readyz``, one ping at a
    time whatever the number of balancers asking.
    """

    def __init__(self, app: Any, drain: Any, replica: str, store: Any = None) -> None:
        self.app, self.drain, self.store = app, drain, store
        self.header = (REPLICA_HEADER, replica.encode())
        self._ping: asyncio.Future | None = None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in PATHS:
            await self._probe(scope, send)
            return

        async def named(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), self.header]}
            await send(message)

        await self.app(scope, receive, named)

    async def _probe(self, scope: dict, send: Any) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _answer(send, 405, {"status": "method not allowed"}, self.header, (b"allow", b"GET, HEAD"), head=False)
            return
        if scope["path"] == "/healthz":
            status, word = 200, "ok"
        elif self.drain.draining:
            status, word = 503, "draining"
        elif not await self._store_answers():
            status, word = 503, "store"
        else:
            status, word = 200, "ready"
        await _answer(send, status, {"status": word}, self.header, head=scope["method"] == "HEAD")

    async def _store_answers(self) -> bool:
        """Whether the shared store answers a ping within PING_S; the ping runs in a thread, one at a time."""
        if self.store is None:
            return True
        if self._ping is None or self._ping.done():
            self._ping = asyncio.get_running_loop().run_in_executor(None, self.store.ping)
            self._ping.add_done_callback(lambda done: done.cancelled() or done.exception())  # read here, so never "never retrieved"
        try:
            await asyncio.wait_for(asyncio.shield(self._ping), PING_S)
        except Exception:  # noqa: BLE001 - a StoreError, a timeout, anything: the store does not answer
            return False
        return True


async def _answer(send: Any, status: int, document: dict, *headers: tuple[bytes, bytes], head: bool) -> None:
    body = json.dumps(document).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store"), *headers],
    })
    await send({"type": "http.response.body", "body": b"" if head else body})


__all__ = ["Health", "PATHS", "PING_S"]
