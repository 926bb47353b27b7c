"""The terminal as an approver: the CLI shows what a program would do and waits for y/n.

It asks on the terminal the command runs in (standard input when that is a
terminal, else ``/dev/tty`` when standard error is one), never on a pipe, so
a command in a script or a test is never left waiting for a keypress it
cannot get: there, ``terminal()`` is None and a blocking gate is denied with
a sentence saying to run on a terminal or pass ``--yes``.

A question shows everything the approval allows (``ApprovalRequest``:
arguments in full with nothing invisible, every file of a commit with its
counts) and, when it fits, the diff. What does not fit in ``SHOWN_LINES``
lines and ``SHOWN_CHARS`` characters is left out with a line that says so,
and ``a`` at the prompt prints all of it before the person answers; until
they have read a question that was cut, it is not approved when its wait
ends, however the gate asks.
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import Any, Callable, TextIO

from lackpy.approvals import forms
from lackpy.approvals.approver import Unattended
from lackpy.approvals.decision import Decision
from lackpy.approvals.request import ApprovalRequest, visible

#: Lines of a question shown before the rest is left out (``a`` shows it all).
SHOWN_LINES = 200
#: Characters of a question shown before the rest is left out (a very long command, a wide diff).
SHOWN_CHARS = 20_000
#: The answers that print the whole question and ask again.
SHOW_ALL = ("a", "all")
#: What each gate asks.
HEADS = {"effects": "run this program with these effects?", "program": "run this program?", "call": "make this call?", "commit": "apply these changes?", "elicit": "a question for you:", "skill": "run this program?"}
#: How many times a field is asked again after an answer it cannot take.
FIELD_TRIES = 3
#: A blocking approval on no terminal.
NO_TERMINAL = Unattended("nobody can be asked: no terminal to ask on; pass --yes to approve everything for this command")


class Prompt:
    """Asks on a terminal (``fd`` to read, ``out`` to write); ``before`` runs first and ``after`` once it is answered
    (a status line steps aside while a person reads and answers)."""

    def __init__(self, fd: int, out: TextIO, before: Callable[[], Any] | None = None, after: Callable[[], Any] | None = None) -> None:
        self.fd, self.out, self.before, self.after = fd, out, before, after

    def __call__(self, request: ApprovalRequest) -> Decision | None:
        if self.before is not None:
            self.before()
        try:
            return self._ask(request)
        finally:
            if self.after is not None:
                self.after()

    def _ask(self, request: ApprovalRequest) -> Decision | None:
        everything, shown, note = _layout(request)
        self._write(shown + ([note] if note else []))
        if request.ask == "notify":
            return None
        if request.gate == "elicit":
            return self._fill(request, time.monotonic() + request.wait_s)
        deadline = time.monotonic() + request.wait_s
        more = f"; a: show all {len(everything)} line{'s' if len(everything) != 1 else ''}" if note else ""
        choices = _choices(request)
        self.out.write(f"lackpy: approve? [y/N{choices}] (waiting {request.wait_s:g} s{more}) ")
        self.out.flush()
        while True:
            answer = _read_line(self.fd, deadline - time.monotonic())
            if answer is None:
                self._write(["", f"lackpy: no answer within {request.wait_s:g} s"])
                return None
            if answer.strip().lower() not in SHOW_ALL:
                return _answer(request, answer)
            self._write(everything)
            request.showing.seen()
            self.out.write(f"lackpy: approve? [y/N{choices}] ({max(deadline - time.monotonic(), 0):.0f} s left) ")
            self.out.flush()

    def _fill(self, request: ApprovalRequest, deadline: float) -> Decision | None:
        """A server's question: answer it at all (y/N), then each field of its form in turn; None when time runs out."""
        self.out.write(f"lackpy: answer it? [y/N] (waiting {request.wait_s:g} s) ")
        self.out.flush()
        answer = _read_line(self.fd, deadline - time.monotonic())
        if answer is None:
            self._write(["", f"lackpy: no answer within {request.wait_s:g} s"])
            return None
        if answer.strip().lower() not in ("y", "yes"):
            return Decision(False, "user", "declined on the terminal")
        content: dict[str, Any] = {}
        for field in forms.fields(request.form):
            value = self._field(field, deadline)
            if value is _TIMED_OUT:
                self._write(["", f"lackpy: no answer within {request.wait_s:g} s"])
                return None
            if value is _WRONG:
                return Decision(False, "user", f"no answer the field {field.name!r} takes")
            if value is not _SKIPPED:
                content[field.name] = value
        return Decision(True, "user", "answered on the terminal", content=content)

    def _field(self, field: forms.Field, deadline: float) -> Any:
        """One field's typed value; _SKIPPED for an empty one that is optional or has a default (shown, and sent:
        ``forms.filled``), _WRONG after FIELD_TRIES answers it cannot take."""
        for _ in range(FIELD_TRIES):
            self.out.write(f"  {visible(field.line())}: ")
            self.out.flush()
            text = _read_line(self.fd, deadline - time.monotonic())
            if text is None:
                return _TIMED_OUT
            if not text.strip():
                if not field.required or field.given is not None:
                    return _SKIPPED
                self._write(["  it is required"])
                continue
            try:
                return forms.parse(field, text)
            except ValueError as exc:
                self._write([f"  {exc}"])
        return _WRONG

    def _write(self, lines: list[str]) -> None:
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()


_TIMED_OUT, _WRONG, _SKIPPED = object(), object(), object()


def _numbers(request: ApprovalRequest) -> list[int]:
    """The numbers of the computed arguments of an ``effects`` question (``#N`` on its list)."""
    return [a.ref for effect in request.effects for a in effect.computed() if a.ref is not None] if request.gate == "effects" else []


def _choices(request: ApprovalRequest) -> str:
    """What else a yes may say: at the ``effects`` gate, with computed arguments, the ones any value is allowed for."""
    numbers = _numbers(request)
    if len(numbers) == 1:
        return f"; y {numbers[0]}: also allow any value for computed #{numbers[0]}"
    return f"; y {numbers[0]} {numbers[1]}: also allow any value for computed #{numbers[0]} and #{numbers[1]}; y *: for all" if numbers else ""


def _answer(request: ApprovalRequest, text: str) -> Decision:
    """A typed answer: ``y``/``yes`` approves, anything else refuses; at the ``effects`` gate a yes may go on with the
    numbers of the computed arguments it allows any value for (``y 1 3``, ``y #1,#3``, ``y *``). A yes with anything
    else after it refuses, rather than guess what was meant."""
    first, *rest = text.replace(",", " ").lower().split() or [""]
    if first not in ("y", "yes"):
        return Decision(False, "user", "refused on the terminal")
    known, chosen = _numbers(request), set()
    for word in rest:
        number = word.removeprefix("#")
        if word == "*":
            chosen.update(known)
        elif number.isdigit() and int(number) in known:
            chosen.add(int(number))
        else:
            return Decision(False, "user", f"refused on the terminal: {visible(word)!r} is not the number of a computed argument on the list")
    return Decision(True, "user", "approved on the terminal", any_value=sorted(chosen))


def terminal(before: Callable[[], Any] | None = None, after: Callable[[], Any] | None = None) -> Prompt | None:
    """A Prompt on the command's terminal, or None when it has none; ``before`` and ``after`` run around each question."""
    try:
        if sys.stdin.isatty():
            return Prompt(sys.stdin.fileno(), sys.stderr, before, after)
        if sys.stderr.isatty():
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
            return Prompt(fd, os.fdopen(os.dup(fd), "w", encoding="utf-8", errors="replace"), before, after)
    except (OSError, ValueError):
        pass
    return None


def _layout(request: ApprovalRequest) -> tuple[list[str], list[str], str | None]:
    """The whole question, the part shown now, and the line that says what was left out (None: nothing).

    The summary and every line of what the approval allows come first; the
    diff follows when all of it fits. A question whose allowed part does
    not fit is marked cut on the request (``Showing``), so it is not
    approved by default until the person has read it all.
    """
    head = ("(notice) " if request.ask == "notify" else "") + HEADS[request.gate]
    allowed = [f"lackpy: {head} {request.summary()}"] + [f"  {line}" for line in request.lines()]
    extra = [f"  {line}" for line in request.more()]
    everything = allowed + extra
    if _fits(everything):
        return everything, everything, None
    asks = request.ask != "notify"
    if _fits(allowed):
        return everything, allowed, f"lackpy: {request.more_label} ({len(extra)} lines) is not shown" + ("; answer a to read it before you answer" if asks else "")
    shown = _cut(allowed)
    total = sum(map(len, allowed)) + len(allowed)
    request.showing.cut(f"the terminal showed only part of it ({total} characters in {len(allowed)} lines)")
    note = f"lackpy: only part of what this approves is shown ({total} characters in {len(allowed)} lines)"
    return everything, shown, note + ("; answer a to read all of it; until you do, no answer is a no" if asks else "")


def _fits(lines: list[str]) -> bool:
    return len(lines) <= SHOWN_LINES and sum(map(len, lines)) + len(lines) <= SHOWN_CHARS


def _cut(lines: list[str]) -> list[str]:
    """The first lines within the budgets, the last one cut short (and saying so) when it alone is too long."""
    shown, room = [], SHOWN_CHARS
    for line in lines[:SHOWN_LINES]:
        if len(line) + 1 > room:
            shown.append(f"{line[:max(room - 60, 0)]}... ({len(line) - max(room - 60, 0)} more characters)")
            break
        shown.append(line)
        room -= len(line) + 1
    return shown


def _read_line(fd: int, wait_s: float) -> str | None:
    """A line typed on ``fd`` within ``wait_s`` seconds, or None."""
    if wait_s <= 0:
        return None
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
