"""The status line of a command that runs or writes a program: one line on stderr, redrawn while it works.

After ``DELAY_S`` it says how long the command has run, how many tool calls
the program has made, which tool it called last, and the bytes its tools
have read from files and written to them; a model tier writing a
program, or a tool's own progress (a command's latest output line), shows at
once, as a spinner did. The line is redrawn ``EVERY_S`` by a thread of its
own from what the run's events (``on_event``) last said: hearing an event
only stores two values, so the program's thread never writes to the
terminal. It is cleared (``\\r\\x1b[K``; on ``TERM=dumb``, spaces over it)
before a question is asked on the terminal, before anything else is said on
stderr, and when the command ends, so the result comes out clean.

It is drawn only when stderr is a terminal; never with ``--json``, and not
with ``--quiet`` (or ``LACKPY_QUIET`` set to anything but empty or 0).
``NO_COLOR`` changes nothing: the line has no colour.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, TextIO

#: How long a command works before its status line appears, in seconds (what a model or a tool says shows at once).
DELAY_S = 1.0
#: How often the line is redrawn, in seconds.
EVERY_S = 0.25
FRAMES = "|/-\\"


def wanted(stream: TextIO, json_: bool, quiet: bool) -> bool:
    """Whether a status line is drawn on ``stream``: a terminal, no --json, no --quiet."""
    try:
        return not json_ and not quiet and stream.isatty()
    except (AttributeError, ValueError):  # closed, or no stream at all
        return False


class StatusLine:
    """A command's status line on ``stream`` (stderr); ``on_event`` is the run's ``on_event``. Use it as a context manager."""

    def __init__(self, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self.calls, self.tool, self.label = 0, "", ""
        self.read = self.written = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._paused = False
        self._drawn = 0  # characters on the line now (0: nothing drawn)
        self._frame = 0
        self._thread: threading.Thread | None = None
        self._dumb = os.environ.get("TERM", "") == "dumb"

    @property
    def on_event(self) -> Any:
        """The run's ``on_event``: None when nothing is drawn, so a run that nobody watches pays nothing for it."""
        return self if self.enabled else None

    def __enter__(self) -> "StatusLine":
        if self.enabled:
            self._thread = threading.Thread(target=self._loop, name="lackpy-status", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __call__(self, event: dict) -> None:
        """Hear one of the run's events: keep what the line will say next."""
        kind = event.get("event")
        if kind == "tool":
            self.calls, self.tool = event.get("calls") or self.calls, str(event.get("tool") or "")
            self.read, self.written = event.get("read") or self.read, event.get("written") or self.written
        elif kind == "tier":
            self.label = f"{event.get('tier')}: writing a program" if event.get("model") else ""
        elif kind == "progress":
            done = f"{event.get('progress')}" + (f"/{event['total']}" if event.get("total") is not None else "")
            self.label = f"{event.get('tool')}: {_last_line(event.get('message')) or done}"
        elif kind == "done":
            self.label = ""

    def text(self, now: float | None = None) -> str:
        """What the line says now, without its spinner frame ("" before ``DELAY_S`` when no model or tool said anything)."""
        elapsed = (now if now is not None else time.monotonic()) - self.start
        if elapsed < DELAY_S:
            return self.label
        said = f"{elapsed:.1f} s"
        if self.calls:
            said += f", {self.calls:,} tool call{'s' if self.calls != 1 else ''}, the last {_printable(self.tool)}"
        said += "".join(f", {_size(count)} {verb}" for count, verb in ((self.read, "read"), (self.written, "written")) if count)
        return f"{said}; {self.label}" if self.label else said

    def pause(self) -> None:
        """Clear the line and draw nothing until ``resume`` (a question is asked on the terminal meanwhile)."""
        with self._lock:
            self._paused = True
            self._clear()

    def resume(self) -> None:
        with self._lock:
            self._paused = False

    def clear(self) -> None:
        """Clear the line now (something else is about to be said on stderr); the next redraw draws it again."""
        with self._lock:
            self._clear()

    def close(self) -> None:
        """Stop drawing and clear the line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._clear()

    def _loop(self) -> None:
        while not self._stop.wait(EVERY_S):
            with self._lock:
                if not self._paused and not self._stop.is_set():
                    self._draw(self.text())

    def _draw(self, text: str) -> None:
        if not text:
            return
        self._frame += 1
        line = fit(f"{FRAMES[self._frame % len(FRAMES)]} {text}", _width(self.stream))
        pad = " " * max(self._drawn - len(line), 0) if self._dumb else ""
        self._write("\r" + line + ("" if self._dumb else "\x1b[K") + pad)
        self._drawn = len(line)

    def _clear(self) -> None:
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r" if self._dumb else "\r\x1b[K")
            self._drawn = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the line is only a courtesy
            self.enabled = False


def _width(stream: TextIO) -> int:
    """The columns the line may fill: one less than the terminal's, so it never wraps (79 when it does not say)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return max(columns - 1, 20) if columns > 0 else 79


def _last_line(message: object) -> str:
    """The last non-blank line of a progress message (a command's output streams in pieces)."""
    if not isinstance(message, str):
        return ""
    lines = [line for line in message.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _size(count: int) -> str:
    """``512 B``, ``3.4 KB``, ``12.0 MB``: a count of bytes for a person (powers of 1,000, as file managers say them)."""
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"


def _printable(text: str) -> str:
    """``text`` without control characters: what a tool or a workspace wrote never drives the terminal."""
    return "".join(ch for ch in text if ch.isprintable())


def fit(text: str, width: int) -> str:
    """``text`` with its printable characters only, cut to ``width``: what a workspace or a tool wrote never drives the terminal."""
    shown = _printable(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


__all__ = ["DELAY_S", "EVERY_S", "StatusLine", "fit", "wanted"]
