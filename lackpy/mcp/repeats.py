"""One line per interval for an error that repeats, with a count, instead of one traceback each time.

When descriptors run out, asyncio logs "socket.accept() out of system
resource" with a traceback for every failed accept, and a server under a
flood of connections writes hundreds of megabytes of the same lines. The
``Repeats`` filter lets the first record of a kind through whole, then at
most one line per interval, which says how many it held back::

    socket.accept() out of system resource (repeated 1,234 times in the last 10 s)

Records are of one kind when they come from the same logger with the same
first line and the same exception type and errno.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

#: The loggers the HTTP server's repeated errors come from: asyncio's accept loop, uvicorn, the SDK's transport.
LOGGERS = ("asyncio", "uvicorn.error", "mcp.server.streamable_http", "mcp.server.streamable_http_manager")
INTERVAL_S = 10.0
KINDS_MAX = 256  # kinds remembered at most; the oldest is forgotten first


class Repeats(logging.Filter):
    """A logging filter: each kind of record passes at most once per ``interval_s``; later ones say how many were held back."""

    def __init__(self, interval_s: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval_s, self.clock = interval_s, clock
        self._kinds: dict[tuple, list] = {}  # kind -> [when one last passed, how many were held back since]
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        first = record.getMessage().split("\n", 1)[0]
        error = record.exc_info[1] if record.exc_info else None
        kind = (record.name, record.levelno, first, type(error).__name__ if error else None, getattr(error, "errno", None))
        now = self.clock()
        with self._lock:
            seen = self._kinds.get(kind)
            if seen is not None and now - seen[0] < self.interval_s:
                seen[1] += 1
                return False
            self._kinds.pop(kind, None)
            self._kinds[kind] = [now, 0]
            if len(self._kinds) > KINDS_MAX:
                self._kinds.pop(next(iter(self._kinds)))
        if seen is None:
            return True  # the first of its kind, whole
        held = f" (repeated {seen[1]:,} times in the last {now - seen[0]:.0f} s)" if seen[1] else ""
        reason = f": {error}" if error is not None else ""
        record.msg, record.args = f"{first}{reason}{held}", ()
        record.exc_info = record.exc_text = None
        record.stack_info = None
        return True


def install(interval_s: float = INTERVAL_S) -> Repeats:
    """Put one ``Repeats`` filter on each of ``LOGGERS``; returns it."""
    repeats = Repeats(interval_s)
    for name in LOGGERS:
        logging.getLogger(name).addFilter(repeats)
    return repeats


__all__ = ["INTERVAL_S", "LOGGERS", "Repeats", "install"]
