"""What an MCP server asks the person in the middle of a call: elicitation, carried to the run's approval channel.

A server's ``elicitation/create`` goes to whoever answers the run's
approvals (the terminal, the Python ``approve`` callback, the client of
``lackpy serve``), shown as the server's question so nobody mistakes it for
lackpy's own, and the answer is checked against the server's form before it
is sent (``Gatekeeper.elicit``). lackpy fills in nothing on its own: with
nobody to ask, or when the question cannot be tied to one run, it is
declined; a URL to open is declined too (lackpy's channels show text).

The question is asked on the run's own thread, which waits for the call
(``Asker.wait``): so the run's clock stops while the person answers (as at
every gate), and the call's own time is extended by the wait.

Which call a question belongs to: on a 2026-07-28 connection it comes back
with the call itself, on the call's own task, where ``ASKER`` holds the
call's Asker. On a handshake-era connection it arrives on the session's
reader, so each server keeps the Askers of its calls in flight
(``InFlight``); when they all belong to one run, the oldest call's asks;
otherwise lackpy cannot tell whose it is, and declines.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import time
from contextvars import ContextVar
from typing import Any, Iterator

from lackpy.kit.call import ASKING
from lackpy.kit.spec import ToolSpec

#: The Asker of the call made on this task, if anyone answers its server's questions.
ASKER: ContextVar["Asker | None"] = ContextVar("lackpy_remote_asker", default=None)
#: The most questions one call may put to the person; past them, the server's questions are declined unasked
#: (each question stops the run's clock, so a server that kept asking would hold the run, and the person, for ever).
MOST_QUESTIONS = 5
#: The SDK's read timeout of a call whose questions a person may answer (``Asker.wait`` keeps the call's real time).
LONGEST_S = 86_400.0
_DONE = object()


class Asker:
    """The questions of one remote call, carried from the remotes' loop to the run's thread and the answers back."""

    def __init__(self, gatekeeper: Any, server: str, tool: str) -> None:
        self.gatekeeper, self.server, self.tool = gatekeeper, server, tool
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.asked = 0

    async def __call__(self, params: Any) -> Any:
        """On the loop: hand the question to the run's thread and wait for its answer."""
        answered = asyncio.get_running_loop().create_future()
        self.inbox.put((params, answered))
        return await answered

    def wait(self, call: concurrent.futures.Future, timeout: float) -> Any:
        """On the run's thread: ``call``'s result within ``timeout`` seconds (plus the time questions waited), answering them.

        Raises TimeoutError (the call cancelled) when it does not end in time.
        """
        call.add_done_callback(lambda _: self.inbox.put(_DONE))
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                call.cancel()
                raise TimeoutError from None
            if item is _DONE:
                return call.result()
            started = time.monotonic()
            params, answered = item
            result = self.answer(params)
            answered.get_loop().call_soon_threadsafe(_settle, answered, result)
            deadline += time.monotonic() - started

    def answer(self, params: Any) -> Any:
        """The person's answer to one question, as the server's ``ElicitResult``."""
        from mcp.types import ElicitResult

        form = getattr(params, "requested_schema", None)
        if not isinstance(form, dict):  # a URL to open: lackpy's channels show text and take answers; they open nothing
            return ElicitResult(action="decline")
        self.asked += 1
        if self.asked > MOST_QUESTIONS:
            return ElicitResult(action="decline")
        decision = self.gatekeeper.elicit(self.server, self.tool, str(getattr(params, "message", "")), form)
        if not decision.approved:
            return ElicitResult(action="cancel" if decision.by == "timeout" else "decline")
        return ElicitResult(action="accept", content=decision.content or {})


def _settle(answered: asyncio.Future, result: Any) -> None:
    if not answered.done():  # the call may have ended (cancelled, timed out) meanwhile
        answered.set_result(result)


def asker_of(spec: ToolSpec) -> Asker | None:
    """The Asker of a call of remote tool ``spec`` from this run (its gatekeeper, ``ASKING``); None outside a run."""
    gatekeeper = ASKING.get()
    return None if gatekeeper is None else Asker(gatekeeper, spec.provider_config["server"], spec.name)


class InFlight:
    """The Askers of one server's calls in flight, so a handshake-era question finds the run it belongs to."""

    def __init__(self) -> None:
        self.askers: list[Asker | None] = []

    @contextlib.contextmanager
    def holding(self, asker: Asker | None) -> Iterator[None]:
        """One call in flight, for the block's time."""
        self.askers.append(asker)
        try:
            yield
        finally:
            self.askers.remove(asker)

    def only(self) -> Asker | None:
        """The oldest call's Asker when every call in flight belongs to one run that has someone to ask, else None."""
        runs = {id(asker.gatekeeper) if asker is not None else None for asker in self.askers}
        return self.askers[0] if len(runs) == 1 and None not in runs else None


async def elicit(inflight: InFlight, context: Any, params: Any) -> Any:
    """A server's ``elicitation/create``, answered through the call's Asker; declined when there is none."""
    from mcp.types import ElicitResult

    asker = ASKER.get() or inflight.only()
    if asker is None:
        return ElicitResult(action="decline")
    return await asker(params)


__all__ = ["ASKER", "Asker", "InFlight", "asker_of", "elicit"]
