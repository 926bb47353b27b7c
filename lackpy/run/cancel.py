"""Cancel: how a caller on another thread stops a run.

``cancel()`` raises ``Cancelled`` into the thread running the program (and
runs the stop callbacks a mode registered, such as killing the isolated
worker). Once the run starts committing its writes it can no longer be
cancelled: a commit is never cut in half. A cancelled run writes nothing.
"""

from __future__ import annotations

import threading
from typing import Callable

from lackpy.run.execute import Cancelled, _watchdog


class Cancel:
    """A one-shot cancel switch for one run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._thread: int | None = None
        self._token: int | None = None
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Stop the run if it is still running; idempotent."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            if self._thread is not None:
                self._token = _watchdog.arm(0.0, Cancelled, self._thread)
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the run is cancelled (at once if it already was)."""
        with self._lock:
            if not self._cancelled:
                self._callbacks.append(callback)
                return
        callback()

    def attach(self) -> None:
        """From now until ``detach``, cancelling raises Cancelled into this thread (raises at once if already cancelled)."""
        with self._lock:
            if self._cancelled:
                raise Cancelled()
            self._thread = threading.get_ident()

    def commit_or_raise(self) -> None:
        """Past this point the run is committing and cannot be cancelled; raises Cancelled if it was."""
        with self._lock:
            self._callbacks = []
            if self._cancelled:
                raise Cancelled()

    def detach(self) -> None:
        """The program is over: no more Cancelled raised into this thread."""
        with self._lock:
            self._thread = None
            token, self._token = self._token, None
        if token is not None:
            _watchdog.disarm(token)


__all__ = ["Cancel", "Cancelled"]
