"""The terminal as an approver: the CLI shows what a program would do and waits for y/n.

It asks on the terminal the command runs in (standard input when that is a
terminal, else ``/dev/tty`` when standard error is one), never on a pipe, so
a command in a script or a test is never left waiting for a keypress it
cannot get: there, ``terminal()`` is None and a blocking gate is denied with
a sentence saying to run on a terminal or pass ``--yes``.
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import Any, Callable, TextIO

from lackpy.approve import Unattended
from lackpy.run.approvals import ApprovalRequest, Decision

#: Lines of a diff or program shown before the rest is left out.
SHOWN_LINES = 200
#: A blocking approval on no terminal.
NO_TERMINAL = Unattended("nobody can be asked: no terminal to ask on; pass --yes to approve everything for this command")


class Prompt:
    """Asks on a terminal (``fd`` to read, ``out`` to write); ``before`` runs first (stops a spinner)."""

    def __init__(self, fd: int, out: TextIO, before: Callable[[], Any] | None = None) -> None:
        self.fd, self.out, self.before = fd, out, before

    def __call__(self, request: ApprovalRequest) -> Decision | None:
        if self.before is not None:
            self.before()
        self.out.write(_shown(request))
        if request.mode == "notify":
            self.out.flush()
            return None
        self.out.write(f"lackpy: approve? [y/N] (waiting {request.wait_s:g} s) ")
        self.out.flush()
        answer = _read_line(self.fd, request.wait_s)
        if answer is None:
            self.out.write(f"\nlackpy: no answer within {request.wait_s:g} s\n")
            self.out.flush()
            return None
        approved = answer.strip().lower() in ("y", "yes")
        return Decision(approved, "user", "approved on the terminal" if approved else "refused on the terminal")


def terminal(before: Callable[[], Any] | None = None) -> Prompt | None:
    """A Prompt on the command's terminal, or None when it has none."""
    try:
        if sys.stdin.isatty():
            return Prompt(sys.stdin.fileno(), sys.stderr, before)
        if sys.stderr.isatty():
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
            return Prompt(fd, os.fdopen(os.dup(fd), "w", encoding="utf-8", errors="replace"), before)
    except (OSError, ValueError):
        pass
    return None


def _shown(request: ApprovalRequest) -> str:
    """What the person reads: the gate and its summary, then the program, the arguments or the diff."""
    head = {"program": "run this program?", "call": "make this call?", "commit": "apply these changes?"}[request.gate]
    if request.mode == "notify":
        head = "(notice) " + head
    lines = [f"lackpy: {head} {request.summary()}"]
    if request.gate == "program":
        lines.append(f"lackpy: its own grade: {request.grade} ({request.risk})")
    details = request.details().splitlines()
    for line in details[:SHOWN_LINES]:
        lines.append(f"  {line}")
    if len(details) > SHOWN_LINES:
        lines.append(f"  ... {len(details) - SHOWN_LINES} more lines (--dry-run prints them all)")
    return "\n".join(lines) + "\n"


def _read_line(fd: int, wait_s: float) -> str | None:
    """A line typed on ``fd`` within ``wait_s`` seconds, or None."""
    deadline = time.monotonic() + wait_s
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1024)
        if not chunk:
            return data.decode(errors="replace") if data else ""
        data += chunk
    return data.decode(errors="replace")


__all__ = ["NO_TERMINAL", "Prompt", "terminal"]
