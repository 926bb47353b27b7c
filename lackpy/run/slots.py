"""Run slots: how many runs of a service go on at once, and what a run that waits for a person gives back.

A service runs at most ``size`` programs at once (``max_concurrent_runs``);
the others wait their turn. A run that stops to ask a person gives its slot
back while it waits (``set_aside``) and takes one again, in turn, once
answered: a client that never answers holds up nobody but itself. How many
runs may wait for a person at the same time is bounded as well
(``waiting``, ``WAITING_PER_SLOT`` per slot unless given), since each keeps
its thread and its worker; past that bound a question is refused at once,
with a reason, rather than asked (runs that ask nothing are never refused).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

#: How many runs may wait for a person at once, per slot.
WAITING_PER_SLOT = 4

#: The slots of the run on this thread, while it holds one.
HELD: ContextVar["Slots | None"] = ContextVar("lackpy_run_slots", default=None)


class Slots:
    """``size`` runs at once; up to ``waiting`` more may be waiting for a person with their slot given back."""

    def __init__(self, size: int, waiting: int | None = None) -> None:
        if size < 1:
            raise ValueError("a service needs at least one run slot")
        self.size = size
        self.waiting = waiting if waiting is not None else WAITING_PER_SLOT * size
        self._free = threading.Semaphore(size)
        self._asking = threading.Semaphore(self.waiting)

    @property
    def in_use(self) -> int:
        """How many slots runs hold now (a run waiting for a person holds none); for metrics, read without a lock."""
        return self.size - self._free._value  # the semaphore's own count: no second count to keep in step

    @property
    def asking(self) -> int:
        """How many runs wait for a person now, their slot given back (``set_aside``)."""
        return self.waiting - self._asking._value

    @property
    def threads(self) -> int:
        """Threads enough for a run in every slot and every run waiting for a person."""
        return self.size + self.waiting

    def take(self) -> bool:
        """A slot now if one is free, never waiting: a run that took one goes through ``run(..., taken=True)`` or ``give_back``."""
        return self._free.acquire(blocking=False)

    def give_back(self) -> None:
        """The slot ``take`` gave, for a run that will not run."""
        self._free.release()

    def run(self, fn: Callable[..., T], *args: Any, taken: bool = False) -> T:
        """``fn(*args)`` once a slot is free (or in the one ``taken``), holding it (except while it waits for a person) until it returns."""
        if not taken:
            self._free.acquire()
        token = HELD.set(self)
        try:
            return fn(*args)
        finally:
            HELD.reset(token)
            self._free.release()

    @contextmanager
    def _aside(self) -> Iterator[str | None]:
        if not self._asking.acquire(blocking=False):
            yield f"{self.waiting} runs are already waiting for a person to answer, the most this service lets wait at once"
            return
        self._free.release()
        try:
            yield None
        finally:
            self._free.acquire()  # in turn with runs not yet started
            self._asking.release()


@contextmanager
def set_aside() -> Iterator[str | None]:
    """The block waits for a person: this thread's run slot goes to another run meanwhile.

    Yields None, or why the wait cannot be allowed (too many runs waiting
    already): the caller then refuses the question instead of asking it.
    On a thread that holds no slot (a run on the caller's own thread) it
    does nothing and yields None.
    """
    slots = HELD.get()
    if slots is None:
        yield None
        return
    with slots._aside() as refused:
        yield refused


__all__ = ["HELD", "Slots", "WAITING_PER_SLOT", "set_aside"]
