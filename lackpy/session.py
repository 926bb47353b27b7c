"""Sessions: what one client's runs share, and the table of them that expires idle ones.

A ``Session`` holds the state tools keep between runs (the checklist, the
background processes) and, for runs made with ``keep=True``, the plain-data
variables a run leaves, which the next run of the session receives as
variables: a program is a notebook cell. Only plain data crosses (None,
bools, numbers, strings, lists and dicts with string keys), within
``keep_bytes``; nothing else, so a session never holds a program's objects.

``Sessions`` is the table a server keeps: ids are unguessable, so a session
is reachable only by whoever was given its id; a session idle longer than
``idle_s`` expires, and closing one stops its processes.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, Iterator, Mapping

from lackpy.errors import ParamError
from lackpy.run.execute import MAX_RESULT_DEPTH, nesting, value_size
from lackpy.run.trace import Summary

#: How much a session keeps of the variables its runs leave, in bytes (as JSON would count them).
KEEP_BYTES = 1024 * 1024
#: How long a session may stay unused before it expires, in seconds.
IDLE_S = 30 * 60.0
#: How many sessions a table holds; opening one more closes the least recently used
#: (so what clients can make a server keep is bounded: at most this many times KEEP_BYTES).
MOST_SESSIONS = 256

_SCALARS = (type(None), bool, int, float, str)


class Session:
    """One client's state: ``state`` for the tools, ``variables`` kept between runs."""

    def __init__(self, id: str | None = None, keep_bytes: int = KEEP_BYTES) -> None:
        self.id = id or secrets.token_urlsafe(12)
        self.keep_bytes = keep_bytes
        self.state: dict = {}
        self.variables: dict[str, Any] = {}
        self.used = time.monotonic()
        self.closed = False
        #: A pinned session lives as long as what holds it (a connection, a stdio server) and never expires idle.
        self.pinned = False

    def inputs(self, params: Mapping[str, Any] | None, tools: frozenset[str]) -> dict[str, Any]:
        """The variables a run of this session receives: the kept ones, then ``params`` over them.

        A kept variable the kit names as a tool is left out: there the name is the tool.
        """
        inputs = {name: value for name, value in self.variables.items() if name not in tools}
        inputs.update(params or {})
        return inputs

    def keep(self, variables: Mapping[str, Any]) -> dict[str, str]:
        """Keep the plain-data ``variables`` of a run that succeeded, in place of those kept before.

        Returns the variables not kept, each with the reason.
        """
        kept: dict[str, Any] = {}
        left = self.keep_bytes
        refused: dict[str, str] = {}
        for name, value in variables.items():
            if type(value) is Summary:
                refused[name] = "too large for the run's result, so not kept"
                continue
            if not plain(value):
                refused[name] = f"a {type(value).__name__} value is not plain data (keep numbers, strings, lists, dicts)"
                continue
            size = value_size(value, left)
            if size > left:
                refused[name] = f"over the {self.keep_bytes} bytes a session keeps"
                continue
            kept[name] = value
            left -= size
        self.variables = kept
        return refused

    def reset(self) -> None:
        """Forget the kept variables."""
        self.variables = {}

    def close(self) -> int:
        """Stop the session's background processes and forget its state; how many processes were running."""
        from lackpy.tools.shell import stop_all

        self.closed = True
        stopped = stop_all(self.state)
        self.state.clear()
        self.variables = {}
        return stopped


def plain(value: Any) -> bool:
    """Whether ``value`` is plain data a session may keep: None, bools, numbers, strings, lists and str-keyed dicts.

    Exact types only, so a summary of a value (a ``str`` subclass) or a
    program's own object never passes as data; nesting is bounded.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind is list:
            stack.extend(item)
        elif kind is dict and all(type(key) is str for key in item):
            stack.extend(item.values())
        else:
            return False
    return nesting(value, MAX_RESULT_DEPTH) < MAX_RESULT_DEPTH


class Sessions:
    """The sessions of one service, by id; idle ones expire and their processes stop."""

    def __init__(self, idle_s: float = IDLE_S, most: int = MOST_SESSIONS, keep_bytes: int = KEEP_BYTES) -> None:
        self.idle_s, self.most, self.keep_bytes = idle_s, most, keep_bytes
        self._open: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self, pinned: bool = False) -> Session:
        """A new session (closing expired ones, and the least recently used unpinned one when the table is full).

        A ``pinned`` session never expires idle: whatever holds it closes it.
        """
        self.expire()
        session = Session(keep_bytes=self.keep_bytes)
        session.pinned = pinned
        with self._lock:
            evicted = []
            if len(self._open) >= self.most:
                oldest = next((s for s in self._open.values() if not s.pinned), None)
                if oldest is not None:
                    evicted.append(self._open.pop(oldest.id))
            self._open[session.id] = session
        for old in evicted:
            old.close()
        return session

    def get(self, id: str) -> Session:
        """The open session ``id``, marked used. Raises ParamError when there is none (never was, closed or expired)."""
        self.expire()
        with self._lock:
            session = self._open.pop(id, None) if isinstance(id, str) else None
            if session is not None:
                self._open[id] = session  # most recently used last
        if session is None:
            raise ParamError(f"no session {str(id)[:40]!r} (it expired after {self.idle_s:g} s idle, or was never opened); leave session out to start a new one")
        session.used = time.monotonic()
        return session

    def close(self, id: str) -> int:
        """Close session ``id`` if it is open; how many of its processes were running."""
        with self._lock:
            session = self._open.pop(id, None)
        return session.close() if session is not None else 0

    def expire(self, now: float | None = None) -> int:
        """Close the sessions idle longer than ``idle_s``; how many closed."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [session for session in self._open.values() if not session.pinned and now - session.used > self.idle_s]
            for session in idle:
                del self._open[session.id]
        for session in idle:
            session.close()
        return len(idle)

    def close_all(self) -> int:
        """Close every session (when the service closes); how many processes were running."""
        with self._lock:
            sessions, self._open = list(self._open.values()), {}
        return sum(session.close() for session in sessions)

    def __len__(self) -> int:
        return len(self._open)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._open.values()))


__all__ = ["IDLE_S", "KEEP_BYTES", "Session", "Sessions", "plain"]
