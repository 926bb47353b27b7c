"""Resumable event streams of a 2025-11-25 session over HTTP: the priming event, ``retry``, and ``Last-Event-ID``.

In MCP 2025-11-25 a server that answers a POST with an SSE stream SHOULD
send first an event with an ID and empty data, so a client whose
connection drops can ask for the rest: a GET with ``Last-Event-ID`` set to
the last ID it saw, answered with what the stream sent after it and then
what it sends next. The event carries ``retry`` (RETRY_MS), how long a
client waits before it asks. 2026-07-28 has no resumable stream; the SDK
answers that revision without any of this.

The SDK sends the priming event when its session manager has an event
store; one store would serve every session, and an SSE stream is named by
its request's ID, which the sessions of two clients share (each counts
from 1): a replay could hand one client what was sent to another. So each
session gets its own store (``SessionEvents``), made as the SDK admits the
session and gone with it; an event ID is a number within the session. A
store keeps the last KEEP_EVENTS events, KEEP_BYTES at most; a
``Last-Event-ID`` older than those (or one this session never sent)
replays nothing. The newest event is kept whatever its size, so the answer a dropped
stream was waiting for can be had.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId

#: How long a client waits before it asks for the rest of a dropped stream, in milliseconds (the ``retry`` field).
RETRY_MS = 1000
#: The events a session keeps for replay: the last this many, ...
KEEP_EVENTS = 256
#: ... and no more than these bytes of messages.
KEEP_BYTES = 1024 * 1024


class SessionEvents(EventStore):
    """One session's events, each with its stream, so a ``Last-Event-ID`` replays the rest of its own stream only."""

    def __init__(self, keep_events: int = KEEP_EVENTS, keep_bytes: int = KEEP_BYTES) -> None:
        self._events: OrderedDict[str, tuple[StreamId, Any, int]] = OrderedDict()
        self._count = 0
        self._bytes = 0
        self._keep_events, self._keep_bytes = keep_events, keep_bytes

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        """Keep ``message`` (None: a priming event) as the next event of ``stream_id``; its ID."""
        self._count += 1
        event_id = str(self._count)
        size = len(message.model_dump_json(by_alias=True, exclude_unset=True)) if message is not None else 0
        self._events[event_id] = (stream_id, message, size)
        self._bytes += size
        while len(self._events) > 1 and (len(self._events) > self._keep_events or self._bytes > self._keep_bytes):
            _, (_, _, dropped) = self._events.popitem(last=False)
            self._bytes -= dropped
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        """Send each message of ``last_event_id``'s stream kept after it; that stream, or None for an ID not kept."""
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream = found[0]
        after = int(last_event_id)
        later = [(event_id, message) for event_id, (sid, message, _) in list(self._events.items())
                 if int(event_id) > after and sid == stream and message is not None]
        for event_id, message in later:
            await send_callback(EventMessage(message, event_id))
        return stream


class _EachSessionItsOwn:
    """A session manager whose ``event_store`` is a new ``SessionEvents`` each time it is read: the SDK reads it once
    for each session it admits (and never for a 2026-07-28 request, which has no stream to resume)."""

    @property
    def event_store(self) -> EventStore:
        return SessionEvents()

    @event_store.setter
    def event_store(self, value: Any) -> None:  # the SDK's constructor sets None; every session gets its own instead
        pass


def resumable(manager: Any) -> None:
    """Make the SDK's session manager ``manager`` give each session its own event store (``_EachSessionItsOwn``).

    The manager takes one store for all sessions; its class is narrowed to
    one whose store is made per session, before it admits any session.
    """
    cls = type(manager)
    manager.__dict__.pop("event_store", None)
    manager.__class__ = type(f"Resumable{cls.__name__}", (_EachSessionItsOwn, cls), {})


__all__ = ["KEEP_BYTES", "KEEP_EVENTS", "RETRY_MS", "SessionEvents", "resumable"]
