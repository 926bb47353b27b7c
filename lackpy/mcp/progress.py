"""A served call's progress notifications, and where they go while the call spans several requests.

A handshake-era call is one request from start to end. A 2026-07-28 call
that asks for approval is several: the first request ends with an
``InputRequiredResult`` and the run goes on while the client answers, and
the answer comes on a retry, a new request with its own progress token. So
a call's notifications go to ``Reach``: the request being answered now.
Between rounds, no request is open and messages wait; the retry receives
them, and whatever comes after.

A long call sends a steady rhythm of notices: tool calls are told at most
every ``TOOLS_EVERY_S`` (the first at once), and when nothing was sent for
``HEARTBEAT_S`` (a long computation, a model writing, a slow tool) a notice
says how long the call has run. A call of 6,000 tool calls in five seconds
sends about ten, and a short one the few it always did. The ``progress``
value is the notice's number in the call (1, 2, 3, ...), so it increases
with each notification as the specification requires, whatever the message
says; there is no ``total``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from lackpy.mcp import tasks
from lackpy.mcp.logs import PROGRESS_LEVEL, say_in

#: The most progress messages that wait to be sent (between rounds, or to a slow client); past them the newest are dropped, and counted.
MOST_WAITING = 256
#: The shortest time between two notices of a call's tool calls, in seconds (the first call is told at once).
TOOLS_EVERY_S = 0.5
#: How long a call goes without a notice before one says how long it has run, in seconds.
HEARTBEAT_S = 0.75


class Reach:
    """The request a call's notifications go to now: the one that started it, then each retry that answers it."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self._open = asyncio.Event()
        self._open.set()

    @property
    def paused(self) -> bool:
        return not self._open.is_set()

    def pause(self) -> None:
        """The request answered with a question: until the retry, nothing can be sent."""
        self._open.clear()

    def move(self, ctx: Any) -> None:
        """The retry ``ctx`` answers the question: what waited and what follows goes to it."""
        self.ctx = ctx
        self._open.set()

    async def current(self) -> Any:
        """The request open now, once there is one."""
        await self._open.wait()
        return self.ctx


class Progress:
    """MCP progress notifications of one call, sent in order by one task; nothing when the client asked for none.

    A call that runs as a task has no request to send them to: its progress
    is the task's ``statusMessage`` instead, which ``tasks/get`` shows.

    ``report`` and ``on_event`` only queue a message, so neither blocks the
    work; leaving the block sends what is queued (unless the request is
    cancelled, or no request is open to take it) and never mixes a message
    into the result. Each message is also a log message at ``info``.
    """

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.sender: asyncio.Task | None = None
        self.count = 0
        self.dropped = 0
        self.begun = time.monotonic()
        #: When the last message was queued; the tool calls made so far and the last tool (for the heartbeat).
        self.said = self.begun
        self.tools_said = 0.0
        self.calls, self.tool = 0, ""
        self.beat: asyncio.Task | None = None
        #: The task the call runs as (``lackpy.mcp.tasks``): its progress is the task's statusMessage.
        self.task = tasks.current()

    async def __aenter__(self) -> "Progress":
        if _in_request(self.reach.ctx):
            self.sender = asyncio.create_task(self._send())
            self.beat = asyncio.create_task(self._heartbeat())
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if self.beat is not None:
            self.beat.cancel()
        if self.sender is None:
            return
        if exc_type is None and not self.reach.paused:
            self.queue.put_nowait(None)
            await self.sender
        else:  # cancelled, or ended while its client was away (an approval that timed out): nobody to tell
            self.sender.cancel()

    def report(self, message: str) -> None:
        if self.task is not None:
            self.task.progress(message)
        if self.sender is None:
            return
        self.said = time.monotonic()
        if self.queue.qsize() >= MOST_WAITING:
            self.dropped += 1
            return
        if self.dropped:
            message = f"({self.dropped} progress messages were dropped while the client could not take them) {message}"
            self.dropped = 0
        self.queue.put_nowait(message)

    def on_event(self, event: dict[str, Any]) -> None:
        """A run or delegate event as a progress message: tool calls made, a tool's own progress, the tier being tried and its attempts."""
        kind = event.get("event")
        if kind == "tool":
            self.calls, self.tool = event.get("calls"), event.get("tool")
            now = time.monotonic()
            if self.calls == 1 or now - self.tools_said >= TOOLS_EVERY_S:
                self.tools_said = now
                self.report(f"{calls(self.calls)}, the last {self.tool}")
        elif kind == "tier":
            self.report(f"trying tier {event.get('tier')} ({'a model' if event.get('model') else 'no model'})")
        elif kind == "progress":
            total = f"/{event['total']:g}" if isinstance(event.get("total"), (int, float)) else ""
            done = f"{event['progress']:g}{total}" if isinstance(event.get("progress"), (int, float)) else ""
            self.report(f"{event.get('tool')}: {event.get('message') or done}")
        elif kind == "attempt":
            self.report(f"tier {event.get('tier')}: attempt {event.get('attempt')}")
        elif kind == "done":
            self.report(f"tier {event.get('tier')} finished")

    async def _heartbeat(self) -> None:
        """While the call runs: a notice with the time it has run whenever ``HEARTBEAT_S`` passed without one."""
        while True:
            wait = self.said + HEARTBEAT_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            elif self.reach.paused:  # waiting for a person's answer: the retry hears what follows, not how long it waited
                await asyncio.sleep(HEARTBEAT_S)
            else:
                done = f": {calls(self.calls)}, the last {self.tool}" if self.calls else ""
                self.report(f"still working after {time.monotonic() - self.begun:.1f} s{done}")

    async def _send(self) -> None:
        while (message := await self.queue.get()) is not None:
            ctx = await self.reach.current()
            self.count += 1
            try:
                await ctx.report_progress(self.count, None, message)
            except Exception:  # a client gone or a transport closed: progress is only a courtesy
                pass
            await say_in(ctx, PROGRESS_LEVEL, message)


def calls(count: Any) -> str:
    return "1 tool call" if count == 1 else f"{count} tool calls"


def _in_request(ctx: Any) -> bool:
    try:
        return ctx is not None and ctx.request_context is not None
    except Exception:
        return False


__all__ = ["HEARTBEAT_S", "TOOLS_EVERY_S", "Progress", "Reach", "calls"]
