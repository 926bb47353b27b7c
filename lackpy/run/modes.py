"""Where a program runs: ``isolated`` (a sandboxed worker process, the default) or ``inprocess`` (the calling thread, for trusted programs).

The one list of run modes, which the config, the CLI and the runner check
against; kept apart from the runner so reading it costs nothing.
"""

from __future__ import annotations

#: The run modes, the default first.
MODES: tuple[str, ...] = ("isolated", "inprocess")
DEFAULT_MODE = MODES[0]

__all__ = ["DEFAULT_MODE", "MODES"]
