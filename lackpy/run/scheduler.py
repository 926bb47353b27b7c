"""Where a run goes: on the caller's loop, or on a run thread in its turn; and how an async caller hears of it.

The service is async at its edge, and its rules for where work runs live
here together:

1. an invalid program is answered at once by the service, never queued;
2. an ``inprocess`` run whose approver does not answer on the caller's loop
   runs on the loop itself, since nothing else waits for it;
3. an ``isolated`` run that finds a slot free and a worker ready has its
   job sent from the loop; for a program that names no tool, the loop waits
   for its outcome without blocking and finishes it there, with no thread
   switch;
4. every other run (one that calls tools, or an approver that answers on
   the caller's loop, which must stay free) goes to a run thread in its
   turn (``cancellable``): at most ``max_concurrent_runs`` at once
   (``Slots``), and cancelling the awaiting task cancels the run.

Anything else that blocks (reading files, building tiers) goes to a plain
worker thread (``off_loop``). Events a run reports from its thread reach the
caller's ``on_event`` on the caller's loop (``on_loop``), tool calls at most
every ``PROGRESS_S`` (``tool_events``).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Callable, TypeVar

from lackpy.run.cancel import Cancel
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import begin_early, run_with
from lackpy.run.settings import OnEvent, RunSettings
from lackpy.run.slots import Slots

T = TypeVar("T")
#: How long a cancelled call waits for its run to wind down (worker killed, nothing written).
CANCEL_GRACE_S = 2.0
#: How often a run reports its tool calls to ``on_event``, at most, in seconds.
PROGRESS_S = 0.1


class Scheduler:
    """The run threads of one service: ``size()`` (its ``max_concurrent_runs``) runs at once, the rest wait their turn.

    A run that waits for a person gives its slot back meanwhile, so there
    are threads for those too (``Slots.threads``). A run's time starts when
    it starts, so waiting never counts against its timeout. The threads are
    made on first use, so a service that only validates makes none.
    """

    def __init__(self, size: Callable[[], int]) -> None:
        self._size = size
        self._threads: ThreadPoolExecutor | None = None
        self._slots: Slots | None = None
        self._lock = threading.Lock()

    @property
    def slots(self) -> Slots | None:
        """The run slots, once the first run made them (None before)."""
        return self._slots

    @property
    def ready(self) -> bool:
        """Whether the run threads exist (else making them may read the config: do it off the loop)."""
        return self._threads is not None

    def threads(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._threads is None:
                self._slots = Slots(self._size())
                self._threads = ThreadPoolExecutor(self._slots.threads, thread_name_prefix="lackpy-run")
            return self._threads

    async def run(self, program: str, settings: RunSettings, on_loop: bool, stop: asyncio.Event | None = None) -> ExecutionResult:
        """Run a valid program: on the caller's loop when ``on_loop`` (an ``inprocess`` run nobody answers on this loop), else in its turn.

        An isolated run that finds a slot free takes it here, and its job goes
        to a worker held ready before the run thread wakes (``begin_early``).
        Setting ``stop`` ends the run where it is, as ``cancelled``: its result says what it had done.
        """
        if stop is not None:
            return await self.cancellable(lambda cancel: run_with(program, settings, cancel), stop=stop)
        if on_loop:
            return run_with(program, settings)
        if settings.mode != "isolated" or not self.ready or not self._slots.take():
            return await self.cancellable(lambda cancel: run_with(program, settings, cancel))
        try:
            begun = begin_early(program, settings)
        except BaseException:
            self._slots.give_back()
            raise
        if begun is None:
            return await self.cancellable(lambda cancel: run_with(program, settings, cancel), taken=True)
        from lackpy.run.isolated import heard  # loaded already: begin_early took a worker

        try:
            ended = not begun.calls and await heard(begun)
        except BaseException:  # cancelled while the worker ran: it is killed, its slot given back
            begun.end()
            self._slots.give_back()
            raise
        if ended:  # it names no tool and has ended: its result is made here, with no run thread
            try:
                return run_with(program, settings, None, begun)
            finally:
                begun.end()
                self._slots.give_back()

        def work(cancel: Cancel) -> ExecutionResult:
            try:
                return run_with(program, settings, cancel, begun)
            finally:
                begun.end()

        return await self.cancellable(work, taken=True, dropped=begun.end)

    async def cancellable(
        self, work: Callable[[Cancel], T], taken: bool = False, dropped: Callable[[], None] | None = None, stop: asyncio.Event | None = None
    ) -> T:
        """``work(cancel)`` on a run thread in its turn; cancelling the awaiting task cancels the run, which gets ``CANCEL_GRACE_S`` to stop.

        ``taken``: the run already holds its slot (``Slots.take``). Work that
        never starts gives that slot back and calls ``dropped``. Setting
        ``stop`` cancels the run too, but its outcome is returned: work that
        had not started is given a cancel already made, and ends at once.
        """
        cancel = Cancel()
        try:
            threads = self.threads() if self.ready else await off_loop(self.threads)
            submitted = threads.submit(contextvars.copy_context().run, partial(self._slots.run, taken=taken), work, cancel)
        except BaseException:
            _never_ran(self._slots, taken, dropped)
            raise
        future = asyncio.wrap_future(submitted)
        future.add_done_callback(_retrieved)
        loop = asyncio.get_running_loop()
        try:
            if stop is not None and not await _first(future, stop):
                if submitted.cancel():  # it never started: it ends now, cancelled, without a slot or a thread
                    _never_ran(self._slots, taken, dropped)
                    cancel.cancel()
                    return await off_loop(work, cancel)
                cancel.cancel()
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            if submitted.cancel():  # it never started, and now never will
                _never_ran(self._slots, taken, dropped)
                raise
            cancel.cancel()
            deadline = loop.time() + CANCEL_GRACE_S
            while not future.done() and loop.time() < deadline:
                try:
                    await asyncio.wait({future}, timeout=deadline - loop.time())
                except asyncio.CancelledError:
                    continue  # cancelled again (cancel scopes repeat it): the grace is still waited out
            raise

    def close(self) -> None:
        """Stop taking runs; runs still waiting for their turn are dropped."""
        with self._lock:
            threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a worker thread, so the caller's loop stays free."""
    return await asyncio.to_thread(fn, *args)


def on_loop(on_event: OnEvent | None) -> OnEvent | None:
    """``on_event`` called on the caller's event loop, whichever thread the event comes from."""
    if on_event is None:
        return None
    loop = asyncio.get_running_loop()
    return lambda event: loop.call_soon_threadsafe(on_event, event)


def tool_events(on_event: OnEvent | None) -> Callable[[str, int, tuple[int, int]], None] | None:
    """A run's ``on_call`` sending ``on_event`` a tool event (``tool``, ``calls``, bytes ``read`` and ``written``) for the first call
    and then at most every PROGRESS_S."""
    if on_event is None:
        return None
    last = [0.0]

    def on_call(tool: str, calls: int, moved: tuple[int, int] = (0, 0)) -> None:
        now = time.monotonic()
        if calls == 1 or now - last[0] >= PROGRESS_S:
            last[0] = now
            on_event({"event": "tool", "tool": tool, "calls": calls, "read": moved[0], "written": moved[1]})

    return on_call


async def _first(future: asyncio.Future, stop: asyncio.Event) -> bool:
    """Whether ``future`` is done before ``stop`` is set."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({future, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    return future.done()


def _never_ran(slots: Slots | None, taken: bool, dropped: Callable[[], None] | None) -> None:
    if taken and slots is not None:
        slots.give_back()
    if dropped is not None:
        dropped()


def _retrieved(future: asyncio.Future) -> None:
    """Retrieve a run's outcome, so a cancelled run that nobody awaits is not reported as lost."""
    if not future.cancelled():
        future.exception()


__all__ = ["CANCEL_GRACE_S", "PROGRESS_S", "Scheduler", "off_loop", "on_loop", "tool_events"]
