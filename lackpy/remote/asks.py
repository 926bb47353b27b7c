"""What an MCP server asks the person in the middle of a call: elicitation, forwarded through the run's approval channel.

A server's ``elicitation/create`` goes to whoever answers the run's
approvals (the terminal, the Python ``approve`` callback, the client of
``lackpy serve``), named as the server's question so nobody mistakes it for
lackpy's own. lackpy fills in nothing on its own: with nobody to ask, or
when the question cannot be tied to one run, it is declined.

Which run a question belongs to: on a 2026-07-28 connection the question
comes back with the call itself, on the call's own task, where ``ASKER``
holds the run's channel. On a handshake-era connection it arrives on the
session's reader, so the link keeps the channels of its calls in flight;
one channel (or several that are the same) answers, and otherwise the
question is declined, as lackpy cannot tell whose it is.
"""

from __future__ import annotations

import asyncio
import contextlib
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, Iterator

from lackpy.kit.call import ASKING
from lackpy.kit.spec import ToolSpec

#: Who answers a server's questions for the call made on this task (``asker_of``), if anyone.
ASKER: ContextVar[Any] = ContextVar("lackpy_remote_asker", default=None)


class InFlight:
    """The channels of one link's calls in flight, so a handshake-era question finds the run it belongs to."""

    def __init__(self) -> None:
        self.askers: dict[int, Any] = {}

    @contextlib.contextmanager
    def holding(self, asker: Any) -> Iterator[None]:
        """One call in flight, answered by ``asker``, for the block's time."""
        key = object()
        self.askers[id(key)] = asker
        try:
            yield
        finally:
            del self.askers[id(key)]

    def only(self) -> Any:
        """The one channel of the calls in flight, or None when there is none or they differ."""
        found = {id(asker): asker for asker in self.askers.values() if asker is not None}
        return next(iter(found.values())) if len(found) == 1 else None


def asker_of(spec: ToolSpec) -> Callable[[Any], Awaitable[Any]] | None:
    """Who answers the questions of remote tool ``spec``'s server during this call: the run's gatekeeper (``ASKING``), on a
    thread of its own, since a person takes their time and the remotes' loop serves every server; None outside a run."""
    gatekeeper = ASKING.get()
    if gatekeeper is None:
        return None
    server = spec.provider_config["server"]

    async def ask(params: Any) -> Any:
        from mcp.types import ElicitResult

        schema = getattr(params, "requested_schema", None)
        if schema is None:  # a URL to open: lackpy's channels show text and take answers, they open nothing
            return ElicitResult(action="decline")
        message = str(getattr(params, "message", ""))
        decision = await asyncio.to_thread(gatekeeper.elicit, server, spec.name, message, schema if isinstance(schema, dict) else {})
        if not decision.approved:
            return ElicitResult(action="cancel" if decision.by == "timeout" else "decline")
        return ElicitResult(action="accept", content=decision.content or {})

    return ask


async def elicit(inflight: InFlight, context: Any, params: Any) -> Any:
    """A server's ``elicitation/create``, answered by the run's channel; declined when there is none."""
    from mcp.types import ElicitResult

    asker = ASKER.get() or inflight.only()
    if asker is None:
        return ElicitResult(action="decline")
    return await asker(params)


__all__ = ["ASKER", "InFlight", "asker_of", "elicit"]
