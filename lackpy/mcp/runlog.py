"""The run log of ``lackpy serve --http``: one line on stderr per run a client asked for, written off the event loop.

Each line names the served tool, what the run ended in, where it ran, how
long it took, how many tool calls it made and, when the call carried one,
its W3C trace id: the same words as the metrics (``lackpy.mcp.metrics``),
so a line found by trace id explains a count. It never holds the program,
its arguments, its output or the session id (a session id lets whoever
holds it use the session's variables).

A server must never wait on its log: a stderr that nobody reads (a pipe
left full) would otherwise stop every request. So lines go through a
bounded queue to a thread of their own; when the queue is full, a line is
dropped and counted (``dropped``, which the metrics show).
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import TextIO

from lackpy.mcp.observe import Served

#: Lines waiting to be written, at most; past it a line is dropped.
MOST_WAITING = 1024


class RunLog:
    """A sink (``lackpy.mcp.observe``) writing one line per served run to ``stream`` from a thread of its own."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.dropped = 0
        self._lines: queue.Queue[str | None] = queue.Queue(MOST_WAITING)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, served: Served) -> None:
        calls = len(served.result.trace) if served.result is not None else 0
        line = (
            f"lackpy: run {served.tool} {served.outcome} mode={served.mode} ms={served.seconds * 1000:.1f} tool_calls={calls}"
            + (f" trace_id={served.trace_id}" if served.trace_id is not None else "")
            + (f" who={served.who}" if served.who is not None else "")
        )
        self.write(line)

    def write(self, line: str) -> None:
        """Queue ``line`` for the log, never waiting: dropped (and counted) when the queue is full."""
        self._started()
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            with self._lock:
                self.dropped += 1

    def close(self) -> None:
        """Write what is queued (waiting at most a second for a stream that does not take it) and stop the thread."""
        thread = self._thread
        if thread is None:
            return
        try:
            self._lines.put(None, timeout=1.0)
        except queue.Full:
            return
        thread.join(1.0)

    def _started(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._write, name="lackpy-runlog", daemon=True)
                    self._thread.start()

    def _write(self) -> None:
        while True:
            line = self._lines.get()
            if line is None:
                return
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):  # a closed or broken stderr: the log is only an aid
                with self._lock:
                    self.dropped += 1


__all__ = ["MOST_WAITING", "RunLog"]
