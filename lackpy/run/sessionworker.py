"""A session's own isolated worker (``session_worker``, on by default): kept between that session's runs, never another's."""

from __future__ import annotations

import socket
import threading
from typing import Any

from lackpy.run.forkserver import hung_up
from lackpy.run.placement import NARROWED, apart


class SessionWorker:
    """The worker one session keeps between its runs (``session_worker``), never another session's.

    A run takes it (so two runs of the session never share it at once) and
    gives it back when its program ended without a limit and the worker
    found itself as it was before its first run (``lackpy.run.reuse``);
    ``close`` (the session's reset, close or expiry) ends it. At most ``MOST`` workers are
    kept in one process at a time (each is a process of a few MB of its
    own); past that, a session's runs get a fresh worker each, as without
    the option.
    """

    MOST = 64
    _count = 0  # workers kept now, in every session of this process
    _counting = threading.RLock()  # re-entrant: a dropped session's worker may be closed by the collector anywhere

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[Any, int, socket.socket, int] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The kept worker's pid (None when none is kept)."""
        kept = self._kept
        return None if kept is None else kept[1]

    def take(self, memory_bytes: int) -> tuple[Any, int, socket.socket, int] | None:
        """The kept worker (its server, pid, channel and memory cap) if it is still there and may give a run ``memory_bytes``; never waits.

        A kept worker's hard memory limit was set for its first run (a
        limit can be lowered, never raised): a run that asks for more than
        that first run had gets a fresh worker, and this one is let go.
        """
        with self._lock:
            kept, self._kept = self._kept, None
        if kept is None:
            return None
        _counted(-1)
        if not kept[0].alive() or hung_up(kept[2]) or memory_bytes > kept[3]:
            let_go(kept[:3])
            return None
        if kept[1] in NARROWED:
            apart(kept[1], widen=True)  # a run of its own: no CPU kept from it any more
        return kept

    def give(self, server: Any, pid: int, channel: socket.socket, cap: int) -> bool:
        """Keep this worker (whose runs may have at most ``cap`` bytes of memory) for the session's next run; False (and nothing
        kept) if one is kept already or the session closed."""
        with self._lock:
            if self._kept is None and not self._closed and _counted(+1):
                self._kept = (server, pid, channel, cap)
                return True
        return False

    def close(self) -> None:
        """End the kept worker; nothing is kept after this."""
        with self._lock:
            kept, self._kept, self._closed = self._kept, None, True
        if kept is not None:
            _counted(-1)
            let_go(kept[:3])

    def __del__(self) -> None:
        """A session dropped without a close: its worker goes with it, by its channel closing (it then exits by itself).

        Never through the fork server: the collector may run this on a thread
        that holds the server's send lock, in the middle of a send.
        """
        kept, self._kept = self._kept, None
        if kept is not None:
            _counted(-1)
            let_go(kept[:3], kill=False)


def _counted(change: int) -> bool:
    """Count a worker kept (+1, refused past ``SessionWorker.MOST``) or let go (-1)."""
    with SessionWorker._counting:
        if change > 0 and SessionWorker._count >= SessionWorker.MOST:
            return False
        SessionWorker._count += change
        return True


def let_go(worker: tuple[Any, int, socket.socket], kill: bool = True) -> None:
    """Kill a worker (through its fork server) and close the host's end of its channel; without ``kill``, the closed
    channel alone ends it (it exits at end of stream)."""
    server, pid, channel = worker
    NARROWED.discard(pid)
    if kill:
        server.kill(pid)
    channel.close()


__all__ = ["SessionWorker", "let_go"]
