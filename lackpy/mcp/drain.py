"""The graceful drain of ``lackpy serve --http`` on SIGTERM: runs under way finish, new calls go elsewhere, then the process exits 0.

A replica behind a load balancer is stopped with SIGTERM (a deploy, a scale
down, systemd, a container runtime). Stopping at once would cut every run in
flight; so the first SIGTERM starts a drain instead:

- ``/readyz`` answers 503 at once (``lackpy.mcp.health``): the balancer stops
  sending new calls here within its check interval.
- A new call that still arrives (``initialize``, or a ``tools/call`` that is
  not a retry carrying a ``requestState``) gets 503 with ``Retry-After`` and
  a JSON-RPC error saying the replica is draining: nothing of it ran here, so
  the balancer (or the client) may send it again to another replica.
- What belongs to work under way here still goes through: requests of an open
  handshake-era session (``Mcp-Session-Id``: such a session lives in this
  process and cannot move), retries carrying a ``requestState`` (a run here
  waits for their answers; one of another replica is that replica's, and is
  passed on or refused by what reads it), and every request that is not a
  new call.
- When nothing is in flight any more, or ``--drain-s`` seconds have passed,
  the server stops: open streams get ``GRACE_S`` more, then are cut, and the
  process exits 0. A line on stderr says when the drain starts and how it
  ended (runs finished, runs cut).

A second SIGTERM, or SIGINT during the drain, stops at once. SIGINT before
any drain keeps uvicorn's own stop (bounded by ``GRACE_S``).

Uvicorn owns the signal handlers while it serves (``Server.capture_signals``
installs ``handle_exit`` and re-raises the captured signals after); the drain
takes over ``handle_exit`` for the first SIGTERM, and does not record it, so
no signal is re-raised when the drain ends and the exit code stays 0.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from typing import Any, Callable

import uvicorn

from lackpy.errors import ErrorKind, UsageError
from lackpy.mcp.front import refuse, whole_body

#: How long runs under way may take to finish after SIGTERM, by default, in seconds.
DRAIN_S = 30.0
#: The longest drain ``--drain-s`` accepts.
MOST_DRAIN_S = 3600.0
#: After the drain, how long uvicorn waits for open connections (idle streams) before it cuts them.
GRACE_S = 3.0
#: What a refused new call is told to wait before it tries again (another replica answers at once).
RETRY_AFTER_S = 1
#: What a refused new call is told, as the JSON-RPC error's message.
REFUSED = "this lackpy replica is draining (shutting down) and takes no new calls; nothing of this call ran: send it again (a load balancer sends it to another replica)"


def parse_drain_s(value: Any) -> float:
    """``--drain-s``: seconds from 0 to MOST_DRAIN_S; UsageError for anything else."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if not 0 <= seconds <= MOST_DRAIN_S:  # NaN fails this too
        raise UsageError(f"--drain-s expects seconds from 0 to {MOST_DRAIN_S:g}, got {value!r}")
    return seconds


class Drain:
    """The replica's drain: whether it is draining, and the requests and runs under way here.

    ``waiting`` counts runs that live between requests (2026-07-28 runs that
    wait for a client's answers); the requests in flight are counted by
    ``DrainGate``.
    """

    def __init__(self, seconds: float = DRAIN_S, waiting: Callable[[], int] | None = None) -> None:
        self.seconds, self.waiting = seconds, waiting
        self.draining = False
        self.started = 0.0
        self.in_flight = 0
        self.finished = 0  # requests that ended while draining
        self.refused = 0  # new calls refused while draining

    def start(self) -> None:
        """Drain from now on (called from a signal handler: sets fields only)."""
        if not self.draining:
            self.draining, self.started = True, time.monotonic()

    def busy(self) -> int:
        """Requests in flight here, and runs that wait between requests."""
        return self.in_flight + (self.waiting() if self.waiting is not None else 0)

    def over(self) -> bool:
        """Whether the drain may end: nothing under way, or its time is up."""
        return self.busy() == 0 or time.monotonic() - self.started >= self.seconds

    def enter(self) -> None:
        self.in_flight += 1

    def leave(self) -> None:
        self.in_flight -= 1
        if self.draining:
            self.finished += 1


class DrainGate:
    """ASGI middleware: counts the requests in flight, and while draining refuses new calls with 503."""

    def __init__(self, app: Any, drain: Drain) -> None:
        self.app, self.drain = app, drain

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] == "GET":  # GET: a handshake-era stream, never a run of its own
            await self.app(scope, receive, send)
            return
        if self.drain.draining and scope["method"] == "POST" and not _header(scope, b"mcp-session-id"):
            refused = _new_call(whole_body(scope))
            if refused is not False:
                self.drain.refused += 1
                await _refuse(send, refused)
                return
        self.drain.enter()
        try:
            await self.app(scope, receive, send)
        finally:
            self.drain.leave()


class DrainingServer(uvicorn.Server):
    """uvicorn's server, whose first SIGTERM drains (``Drain``) instead of stopping."""

    def __init__(self, config: uvicorn.Config, drain: Drain) -> None:
        super().__init__(config)
        self.drain = drain
        self._said_start = False

    def handle_exit(self, sig: int, frame: Any) -> None:
        if sig == signal.SIGTERM and not self.drain.draining and not self.should_exit:
            self.drain.start()  # not recorded as captured: nothing is re-raised after a drain, the exit code stays 0
            return
        if self.drain.draining:  # a second signal during the drain: stop at once
            self.force_exit = True
        super().handle_exit(sig, frame)

    async def on_tick(self, counter: int) -> bool:
        drain = self.drain
        if drain.draining and not self.should_exit:
            if not self._said_start:
                self._said_start = True
                _say(f"draining: /readyz answers 503, new calls get 503; {drain.busy()} run(s) under way may take up to {drain.seconds:g} s")
            if drain.over():
                cut = drain.busy()
                took = time.monotonic() - drain.started
                _say(f"drained in {took:.1f} s: {drain.finished} request(s) finished, {cut} run(s) cut, {drain.refused} new call(s) refused; stopping")
                self.should_exit = True
        return await super().on_tick(counter)


def _say(line: str) -> None:
    print(f"lackpy: {line}", file=sys.stderr, flush=True)


def _header(scope: dict, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def _new_call(body: bytes) -> Any:
    """False when ``body`` starts no new call; else the id of the request to refuse (None when it has none).

    New calls are ``initialize`` and a ``tools/call`` without a ``requestState``.
    A body that is not JSON passes, for the SDK to answer as malformed.
    """
    try:
        document = json.loads(body)
    except ValueError:
        return False
    for message in document if isinstance(document, list) else [document]:
        if not isinstance(message, dict):
            continue
        method, params = message.get("method"), message.get("params")
        state = params.get("requestState") if isinstance(params, dict) else None
        if method == "initialize" or (method == "tools/call" and not state):
            request_id = message.get("id")
            return request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None
    return False


async def _refuse(send: Any, request_id: Any) -> None:
    error = {"code": -32000, "message": REFUSED, "data": {"error_kind": ErrorKind.RESOURCES.value, "draining": True}}
    await refuse(send, 503, REFUSED, headers={"Retry-After": str(RETRY_AFTER_S)}, document={"jsonrpc": "2.0", "id": request_id, "error": error})


__all__ = ["DRAIN_S", "GRACE_S", "Drain", "DrainGate", "DrainingServer", "parse_drain_s"]
