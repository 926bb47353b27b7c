"""Approvals: a person says yes before a program does what they asked to be asked about.

lackpy sees a program before it runs and stages its writes, so it can ask at
three gates: the whole ``program`` up front (its own grade and the tools it
can reach), each ``call`` of a tool that acts on the world at once (a shell
command, a process, a web request, a destructive remote tool), before it
runs, and the ``commit`` of the staged writes, with their unified diff.

Each gate has a mode: ``block`` waits for a yes (a no, or no answer within
the wait, denies), ``auto`` waits and then goes on, ``notify`` tells and goes
on, ``none`` does not ask. Who answers is the ``Approver`` the caller gives
(the terminal, an MCP client, a Python callback); with none, a blocking gate
denies and says how to allow it. Time spent waiting is handed back to the
run (``execute.paused``), so it never counts against ``timeout_s``. Every
decision is kept as an ``Approval`` (in the result and its trace) and given
to ``record`` (the audit file).

What a person is shown is everything the approval allows: every argument in
full (``exact``: a Python expression equal to the value, with control and
blank characters escaped and long runs counted, so padding cannot push text
out of sight), every file of a commit by name with its change counts, and
the diff on request. A channel that cannot show a question whole says so
(``Showing.cut``) and lets the person see the rest; until they have, the
question is not approved by default: an ``auto`` gate that gets no answer
denies it.
"""

from __future__ import annotations

import dataclasses
import re
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Protocol, Sequence

from lackpy.errors import ConfigError, DeniedError
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade
from lackpy.run import forms
from lackpy.run.execute import paused
from lackpy.run.slots import set_aside
from lackpy.run.trace import Approval, summarize

#: The modes, least asking first.
MODES = ("none", "notify", "auto", "block")
#: Where a program is asked about.
GATES = ("program", "call", "commit")
#: How long a person has to answer unless configured (``approval_timeout_s``).
DEFAULT_WAIT_S = 120.0
#: The modes that wait for an answer (their wait is part of how much they ask).
WAITING = ("block", "auto")
#: A run of one character this long or longer is shown as the character and its count.
RUN_CHARS = 16
#: Characters that print as nothing (fillers, the braille blank): shown escaped, like control characters.
BLANK = frozenset("\u115f\u1160\u2800\u3164\uffa0")
#: What opens and closes a counted run in a line (``visible``); the opening one is escaped where it is text.
RUN_OPEN, RUN_CLOSE = "\u27e8", "\u27e9"
#: The most levels of a nested argument ``exact`` spells out before it falls back to ``repr`` (still whole).
EXACT_DEPTH = 32


@dataclass(frozen=True)
class Mode:
    """A gate's mode and, when it waits, for how long (None: ``approval_timeout_s``)."""

    kind: str = "none"
    wait_s: float | None = None

    @classmethod
    def parse(cls, text: Any, where: str = "approvals") -> "Mode":
        """``block``, ``auto``, ``notify`` or ``none``; ``block:30`` / ``auto:30`` wait that many seconds."""
        if isinstance(text, Mode):
            return text
        kind, _, seconds = str(text).strip().lower().partition(":") if isinstance(text, str) else ("", "", "")
        if kind not in MODES or (seconds and kind not in ("block", "auto")):
            raise ConfigError(f"{where}: {text!r} is not an approval mode; use block, auto, notify or none (block:30 / auto:30 wait 30 s)")
        wait = None
        if seconds:
            try:
                wait = float(seconds)
            except ValueError:
                wait = -1.0
            if not 0 < wait <= 86_400:
                raise ConfigError(f"{where}: {text!r}: the wait must be a number of seconds from 1 to 86400")
        return cls(kind, wait)

    @property
    def rank(self) -> int:
        return MODES.index(self.kind)

    def __str__(self) -> str:
        return self.kind if self.wait_s is None else f"{self.kind}:{self.wait_s:g}"


NONE, NOTIFY, AUTO, BLOCK = (Mode(kind) for kind in MODES)


def _most(a: Mode, wait_a: float, b: Mode, wait_b: float) -> Mode:
    """The mode that asks more in every part: the kind that asks more and, of the modes that wait, the longest wait.

    ``wait_a`` and ``wait_b`` are what ``a`` and ``b`` wait when they name no
    wait (their policy's ``approval_timeout_s``); the mode returned names its
    wait unless it is ``wait_a``. So a workspace's ``auto:1`` under the
    user's ``auto:600`` is ``auto:600``, and its ``block:1`` under
    ``auto:600`` is ``block:600``: whatever it says, it can only ask more.
    """
    kind = (a if a.rank >= b.rank else b).kind
    if kind not in WAITING:
        return Mode(kind)
    waits = [wait if mode.wait_s is None else mode.wait_s for mode, wait in ((a, wait_a), (b, wait_b)) if mode.kind in WAITING]
    longest = max(waits)
    return Mode(kind, None if longest == wait_a else longest)


def default_call_mode(spec: ToolSpec) -> Mode:
    """Whether a call of ``spec`` is approved before it runs unless configured otherwise.

    A tool that declares ``approval = "call"`` (commands, processes, web
    requests) is; so is a remote tool lackpy grades as able to change things
    (d >= 2: the config's grade, or the highest when nothing trusted says
    less), since its server's own hints are not trusted. Staged file writes
    are approved at commit instead.
    """
    if spec.approval == "call":
        return BLOCK
    if spec.provider == "mcp" and spec.effects_ceiling >= 2:
        return BLOCK
    return NONE


@dataclass(frozen=True)
class ApprovalPolicy:
    """Which gates ask, and how: ``program``, ``commit``, ``calls`` by tool name, ``every`` over all."""

    program: Mode = NONE
    commit: Mode = BLOCK
    calls: Mapping[str, Mode] = field(default_factory=dict)
    wait_s: float = DEFAULT_WAIT_S
    every: Mode | None = None
    defaults: bool = True
    """Whether a tool not named in ``calls`` gets its default mode (``default_call_mode``), or none."""
    floor: "ApprovalPolicy | None" = None
    """A policy this one never asks less than (a trusted one under an untrusted workspace's)."""

    def for_call(self, spec: ToolSpec) -> Mode:
        if self.every is not None:
            return self.every
        mode = self.calls.get(spec.name) or self.calls.get("*") or (default_call_mode(spec) if self.defaults else NONE)
        return _most(mode, self.wait_s, self.floor.for_call(spec), self.floor.wait_s) if self.floor is not None else mode

    def for_gate(self, gate: str) -> Mode:
        if self.every is not None:
            return self.every
        mode = self.program if gate == "program" else self.commit
        return _most(mode, self.wait_s, self.floor.for_gate(gate), self.floor.wait_s) if self.floor is not None else mode


class Showing:
    """Whether the person has been shown a question whole: the channel that asks says so.

    A channel that can show only part of a question calls ``cut(why)`` and,
    once the person has seen the rest (the terminal's "show all", an MCP
    client reading the question's resource), ``seen()``. A question still
    cut when its wait ends is not approved by default (``Gatekeeper``).
    """

    __slots__ = ("why",)

    def __init__(self) -> None:
        self.why: str | None = None

    def cut(self, why: str) -> None:
        self.why = why

    def seen(self) -> None:
        self.why = None

    @property
    def whole(self) -> bool:
        return self.why is None


@dataclass(frozen=True)
class FileChange:
    """One file of a commit: its path, whether it is ``created``, ``modified`` or ``deleted``, and its lines added and removed.

    ``added`` and ``removed`` are None when the diff could not be read back
    per file (lackpy then says the counts are unknown rather than guess).
    """

    path: str
    kind: str
    added: int | None = None
    removed: int | None = None

    def line(self) -> str:
        """``created  tools/build.sh  +3 -0``: the kind, the name (escaped when it needs to be), the counts."""
        counts = "(lines not counted)" if self.added is None else f"+{self.added} -{self.removed}"
        return f"{self.kind:<8}  {name_shown(self.path)}  {counts}"


@dataclass(frozen=True)
class ApprovalRequest:
    """What a person is asked to approve: one gate of one run.

    ``program`` gate: the ``program``, its own ``grade`` and ``risk`` and the
    ``tools`` it can reach. ``call``: the ``tool`` and its ``arguments``.
    ``commit``: the ``files`` the writes change, each with its counts
    (``changes``), and their unified ``diff``. ``elicit``: the MCP
    ``server`` asks the person its ``question`` during a call of ``tool``,
    and the answer fills in its ``form`` (``lackpy.run.forms``). ``mode`` says whether the
    answer is waited for (``block``, ``auto``) or this is only news
    (``notify``); ``wait_s`` how long an answer may take. ``showing`` is
    where the channel that asks says whether the person saw it whole.

    ``summary()`` and ``lines()`` are everything the approval allows, in
    full; ``more()`` is what a person sees on request (a commit's diff).
    """

    gate: str
    mode: str
    wait_s: float
    workspace: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    program: str | None = None
    grade: Grade | None = None
    risk: str | None = None
    tools: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    diff: str | None = None
    changes: list[FileChange] = field(default_factory=list)
    server: str | None = None
    question: str | None = None
    form: dict[str, Any] = field(default_factory=dict)
    showing: Showing = field(default_factory=Showing, compare=False, repr=False)

    def summary(self) -> str:
        """One line: what would happen; a call with every argument in full (``exact``)."""
        if self.gate == "call":
            shown = ", ".join(f"{name}={exact(value)}" for name, value in self.arguments.items())
            return f"{self.tool}({shown})"
        if self.gate == "commit":
            return f"write {_count(len(self.changes or self.files), 'file')} ({_tally(self.changes)})"
        if self.gate == "elicit":
            return f"the MCP server {self.server} asks, during {self.tool}:"
        return f"run a program ({self.risk}, {self.grade}) that can call {', '.join(self.tools) or 'no tools'}"

    def lines(self) -> list[str]:
        """What the approval allows beyond the summary, one line each: every file of a commit, or the program."""
        if self.gate == "commit":
            return [change.line() for change in self.changes] or [name_shown(path) for path in self.files]
        if self.gate == "program":
            return [f"its own grade: {self.grade} ({self.risk})"] + _visible_lines(self.program or "")
        if self.gate == "elicit":
            return _visible_lines(self.question or "") + [f"- {visible(f.line())}" for f in forms.fields(self.form)]
        return []

    def more(self) -> list[str]:
        """What a person may read on request before answering: a commit's unified diff, with nothing invisible."""
        return _visible_lines(self.diff or "") if self.gate == "commit" else []


def _visible_lines(text: str) -> list[str]:
    """``text`` cut at each ``\\n`` only, every line ``visible``: any other line break (``\\r``, ``\\u2028``) shows as an escape."""
    lines = text.split("\n")
    return [visible(line) for line in (lines[:-1] if lines[-1] == "" else lines)]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _tally(changes: Sequence[FileChange]) -> str:
    """``8 created, 1 modified; +9 -0 lines``: the kinds of a commit's changes and its lines."""
    if not changes:
        return "no changes counted"
    kinds = [f"{sum(c.kind == kind for c in changes)} {kind}" for kind in ("created", "modified", "deleted") if any(c.kind == kind for c in changes)]
    if any(c.added is None for c in changes):
        return ", ".join(kinds) + "; lines not counted"
    return ", ".join(kinds) + f"; +{sum(c.added for c in changes)} -{sum(c.removed for c in changes)} lines"


_RUN = re.compile(r"(.)\1{%d,}" % (RUN_CHARS - 1), re.S)
_ODD = re.compile(r"(.)\1{%d,}|[^\x20-\x7e]" % (RUN_CHARS - 1), re.S)


def _quoted(text: str) -> str:
    """``repr(text)``, with the characters that print as nothing escaped too."""
    quoted = repr(text)
    return "".join(f"\\u{ord(c):04x}" if c in BLANK else c for c in quoted) if BLANK.intersection(text) else quoted


def exact(value: Any, depth: int = 0) -> str:
    """``value`` whole, as a Python expression equal to it, that hides nothing.

    A string is its ``repr`` (control characters, line breaks and other
    characters that print as nothing escaped), and a run of one character
    ``RUN_CHARS`` or longer is written ``' ' * 200``; so
    ``'echo ok' + ' ' * 200 + '; touch x'`` is what padding looks like.
    Lists, tuples, sets and dicts are spelled out the same way inside.
    """
    if isinstance(value, str):
        parts, at = [], 0
        for run in _RUN.finditer(value):
            if run.start() > at:
                parts.append(_quoted(value[at:run.start()]))
            parts.append(f"{_quoted(run.group(1))} * {len(run.group(0))}")
            at = run.end()
        if at < len(value) or not parts:
            parts.append(_quoted(value[at:]))
        return " + ".join(parts)
    if depth >= EXACT_DEPTH:
        return visible(repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(exact(item, depth + 1) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(exact(item, depth + 1) for item in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{exact(key, depth + 1)}: {exact(item, depth + 1)}" for key, item in value.items()) + "}"
    if isinstance(value, (set, frozenset)) and value:
        return "{" + ", ".join(sorted(exact(item, depth + 1) for item in value)) + "}"
    return visible(repr(value))


def visible(line: str) -> str:
    """A line of text (a program, a diff) with nothing invisible: control and blank characters escaped
    (``\\x1b``, ``\\t``, ``\\u202e``), and a run of one character ``RUN_CHARS`` or longer shown as
    ``⟨' ' × 200⟩`` (the opening bracket itself is escaped where the text has it)."""
    return _ODD.sub(_visible_match, line) if _ODD.search(line) else line


def _visible_match(match: re.Match) -> str:
    if match.group(1) is not None:
        return f"{RUN_OPEN}{_quoted(match.group(1))} \u00d7 {len(match.group(0))}{RUN_CLOSE}"
    char = match.group(0)
    if char.isprintable() and char not in BLANK and char != RUN_OPEN:
        return char
    escaped = char.encode("unicode_escape").decode("ascii")
    return escaped if escaped != char else f"\\x{ord(char):02x}"


def name_shown(path: str) -> str:
    """A file name as it is when it is plain, else as ``exact`` spells it (a name cannot hide a line break or padding)."""
    return path if path.isprintable() and "  " not in path and path.strip() == path and not BLANK.intersection(path) else exact(path)


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file\n"


def file_changes(changes: Any, diff: str | None) -> list[FileChange]:
    """Each file of ``changes`` (its ``created``, ``modified`` and ``deleted`` paths), by path, with the lines
    the unified ``diff`` adds and removes in it.

    The diff is read back the way lackpy writes it (``StagedFilesystem.diff``):
    files in path order, each with its ``---``/``+++`` header (``/dev/null``
    for a file created or deleted) and hunks of the counts their headers say,
    so a line of content is never taken for a header. A file with no header
    changed no line. Anything else leaves the counts unknown (None), never guessed.
    """
    kinds = {path: kind for kind in ("created", "modified", "deleted") for path in getattr(changes, kind)}
    counts = _line_counts(kinds, diff or "")
    return [FileChange(path, kinds[path], *(counts.get(path, (0, 0)) if counts is not None else (None, None))) for path in sorted(kinds)]


def _line_counts(kinds: Mapping[str, str], diff: str) -> dict[str, tuple[int, int]] | None:
    counts: dict[str, tuple[int, int]] = {}
    at = 0
    for path in sorted(kinds):
        header = ("--- /dev/null\n" if kinds[path] == "created" else f"--- a/{path}\n") + ("+++ /dev/null\n" if kinds[path] == "deleted" else f"+++ b/{path}\n")
        if not diff.startswith(header, at):
            continue
        at, added, removed = at + len(header), 0, 0
        while diff.startswith("@@ -", at):
            end = diff.find("\n", at)
            hunk = _HUNK.fullmatch(diff, at, end) if end >= 0 else None
            if hunk is None:
                return None
            old, new = (1 if size is None else int(size) for size in hunk.groups())
            at = end + 1
            while old > 0 or new > 0:
                end = diff.find("\n", at)
                tag = diff[at] if end > at else ""
                if end < 0 or tag not in " -+" or (tag != "+" and old == 0) or (tag != "-" and new == 0):
                    return None
                old, new = old - (tag != "+"), new - (tag != "-")
                added, removed = added + (tag == "+"), removed + (tag == "-")
                at = end + 1
                if diff.startswith(_NO_NEWLINE, at):
                    at += len(_NO_NEWLINE)
        counts[path] = (added, removed)
    return counts if at == len(diff) else None


@dataclass(frozen=True)
class Decision:
    """An answer: approved or not, ``by`` whom (``user``, ``client``, ``callback``, ``yes``), and why.

    ``content`` is what the person filled in, when they answered a server's question (``elicit``).
    """

    approved: bool
    by: str = "user"
    reason: str = ""
    content: dict[str, Any] | None = None


#: What a run's gates call to ask: a Decision, or None when nobody answered within ``request.wait_s``.
class Approver(Protocol):
    def __call__(self, request: ApprovalRequest) -> Decision | None: ...


class Gatekeeper:
    """The gates of one run: asks ``approver`` as ``policy`` says and keeps every decision.

    ``nobody`` is the sentence a blocking gate's denial carries when there is
    no one to ask (how to allow it in this channel); ``record`` hears each
    decision (the audit file); ``steps`` counts the calls made so far, so a
    call's decision names its trace step.
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        approver: Approver | None,
        *,
        nobody: str = "nobody can be asked here",
        record: Callable[[Approval, ApprovalRequest], None] | None = None,
        workspace: str = "",
    ) -> None:
        self.policy, self.approver, self.nobody, self.record, self.workspace = policy, approver, nobody, record, workspace
        self.decisions: list[Approval] = []
        self.steps: Callable[[], int] = lambda: 0

    def fresh(self) -> "Gatekeeper":
        """The same gates for another run, with no decisions yet."""
        return Gatekeeper(self.policy, self.approver, nobody=self.nobody, record=self.record, workspace=self.workspace)

    def program(self, program: str, grade: Grade, tools: Sequence[str]) -> Approval | None:
        """The up-front gate (None when it does not ask)."""
        mode = self.policy.for_gate("program")
        request = self._request("program", mode, program=program, grade=grade, risk=grade.risk, tools=sorted(tools))
        return None if request is None else self._decide(request, mode)

    def commit(self, changes: Any, diff: Callable[[], str]) -> Approval | None:
        """The gate before staged writes are applied (None when it does not ask).

        ``changes`` has the ``created``, ``modified`` and ``deleted`` paths;
        the question names every one, with the lines ``diff()`` adds and removes in it.
        """
        mode = self.policy.for_gate("commit")
        if mode.kind == "none":
            return None
        text = diff()
        files = [*changes.created, *changes.modified, *changes.deleted]
        request = self._request("commit", mode, files=files, diff=text, changes=file_changes(changes, text))
        return self._decide(request, mode)

    def gate(self, alias: str, spec: ToolSpec, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` asked about before each call, when its mode asks; else ``fn`` itself."""
        mode = self.policy.for_call(spec)
        if mode.kind == "none":
            return fn
        names = [arg.name for arg in spec.args]

        def gated(*args: Any, **kwargs: Any) -> Any:
            arguments = dict(zip(names, args))
            arguments.update((f"#{at}", value) for at, value in enumerate(args[len(names):], len(names) + 1))  # never dropped unseen
            arguments.update(kwargs)
            request = self._request("call", mode, tool=alias, arguments=arguments)
            decision = self._decide(request, mode, step=self.steps() + 1)
            if not decision.approved:
                raise DeniedError(f"{alias}: not approved ({decision.by}): {decision.reason}")
            return fn(*args, **kwargs)

        gated.__name__ = alias
        return gated

    def elicit(self, server: str, tool: str, question: str, form: dict[str, Any]) -> Decision:
        """An MCP server's question to the person during ``tool``'s call, asked as a blocking gate; the answer fills ``form``.

        Nobody is asked when there is nobody, or only ``--yes`` (it approves
        lackpy's gates; a server's question needs a person's answer). An
        answer that does not fill in the form as asked is a refusal: the
        server never sees it. The decision is kept without what was typed.
        """
        mode = Mode("block", self.policy.wait_s)
        asked_at, start = _now(), time.monotonic()
        try:
            forms.fields(form)
        except ValueError as exc:
            request = self._request("elicit", mode, tool=tool, server=server, question=question)
            return self._keep(request, mode, Decision(False, "lackpy", f"the server's form cannot be asked: {exc}"), asked_at, start)
        request = self._request("elicit", mode, tool=tool, server=server, question=question, form=form)
        if self.approver is approve_all:
            decision = Decision(False, "yes", "--yes approves lackpy's own gates; a server's question needs a person's answer")
        else:
            decision = self._ask(request, mode)
            wrong = forms.problem(form, decision.content or {}) if decision.approved else None
            if wrong is not None:
                decision = Decision(False, decision.by, f"the answer was not sent: {wrong}")
        self._keep(request, mode, decision, asked_at, start)
        return decision if not decision.approved else dataclasses.replace(decision, content=dict(decision.content or {}))

    def _request(self, gate: str, mode: Mode, **fields: Any) -> ApprovalRequest | None:
        if mode.kind == "none":
            return None
        wait = mode.wait_s if mode.wait_s is not None else self.policy.wait_s
        return ApprovalRequest(gate=gate, mode=mode.kind, wait_s=wait, workspace=self.workspace, **fields)

    def _decide(self, request: ApprovalRequest, mode: Mode, step: int | None = None) -> Approval:
        asked_at, start = _now(), time.monotonic()
        return self._keep(request, mode, self._ask(request, mode), asked_at, start, step)

    def _ask(self, request: ApprovalRequest, mode: Mode) -> Decision:
        """The approver's answer to ``request`` (the run's clock stopped meanwhile), or what no answer means in ``mode``."""
        if mode.kind == "notify":
            if self.approver is not None:
                self.approver(request)  # news only: the approver does not wait, and its answer does not count
            return Decision(True, "notify", "notify mode goes on without waiting")
        waits = self.approver is not None and not getattr(self.approver, "instant", False)
        with paused() if waits else nullcontext():  # the run's clock stops only for someone who takes time
            with set_aside() if waits else nullcontext() as busy:  # and its run slot goes to another run meanwhile
                answer = Decision(False, "busy", busy) if busy else self.approver(request) if self.approver is not None else None
        return answer if answer is not None else self._unanswered(request, mode)

    def _keep(self, request: ApprovalRequest, mode: Mode, decision: Decision, asked_at: str, start: float, step: int | None = None) -> Approval:
        """``decision`` kept as an Approval (in the result and the audit), never with what a person typed into a form."""
        approval = Approval(
            gate=request.gate,
            mode=str(mode),
            approved=decision.approved,
            by=decision.by,
            reason=decision.reason,
            tool=request.tool,
            arguments={name: summarize(value) for name, value in request.arguments.items()},
            files=list(request.files),
            step=step,
            asked_at=asked_at,
            waited_ms=round((time.monotonic() - start) * 1000, 3),
        )
        self.decisions.append(approval)
        if self.record is not None:
            self.record(approval, request)
        return approval

    def _unanswered(self, request: ApprovalRequest, mode: Mode) -> Decision:
        if self.approver is None and request.gate == "elicit":
            return Decision(False, "nobody", self.nobody)
        if self.approver is None:
            if mode.kind == "auto":
                return Decision(True, "auto", "nobody to ask; auto mode goes on")
            name = request.tool if request.gate == "call" else request.gate
            return Decision(False, "nobody", f"{self.nobody}; or set [approvals] {name} = \"none\" in .lackpy/config.toml")
        if mode.kind == "auto" and not request.showing.whole:
            return Decision(False, "timeout", f"no answer within {request.wait_s:g} s, and {request.showing.why}; auto mode goes on only after a question shown whole")
        if mode.kind == "auto":
            return Decision(True, "timeout", f"no answer within {request.wait_s:g} s; auto mode goes on")
        return Decision(False, "timeout", f"no answer within {request.wait_s:g} s")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def as_decision(answer: Any, by: str) -> Decision:
    """A channel's answer as a Decision: a Decision, a bool, "yes"/"no" text, or a dict (a server's form, filled in); anything else denies."""
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, dict):
        return Decision(True, by, "answered", content=answer)
    if isinstance(answer, bool):
        return Decision(answer, by, "approved" if answer else "refused")
    if isinstance(answer, str) and answer.strip().lower() in ("y", "yes", "approve", "approved"):
        return Decision(True, by, "approved")
    return Decision(False, by, "refused" if answer in (None, "", "n", "no") else f"not an approval: {str(answer)[:60]!r}")


def approve_all(request: ApprovalRequest) -> Decision:
    """The approver of ``--yes``: everything asked is approved, and recorded as such."""
    return _YES


_YES = Decision(True, "yes", "approved in advance (--yes)")
approve_all.instant = True  # type: ignore[attr-defined]  # answers at once: no run clock to stop


def policy_from(settings: Mapping[str, Any], where: str = "config", *, defaults: bool = True) -> ApprovalPolicy:
    """An ApprovalPolicy from config keys: ``approve``, ``approval_timeout_s`` and the ``[approvals]`` table.

    ``approve = "program"`` asks about the whole program up front.
    ``[approvals]`` takes ``program``, ``commit``, ``"*"`` (every call) and
    tool names, each a mode. Without ``defaults``, only what is named asks
    (an untrusted workspace's settings, which may add to a policy, never
    take from it).
    """
    table = dict(settings.get("approvals") or {})
    approve = settings.get("approve")
    if approve is not None and approve not in ("program", "calls"):
        raise ConfigError(f"{where}: approve must be \"program\" (ask once up front, too) or \"calls\" (the default)")
    wait = settings.get("approval_timeout_s", DEFAULT_WAIT_S)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 < wait <= 86_400:
        raise ConfigError(f"{where}: approval_timeout_s must be a number of seconds from 1 to 86400")
    modes = {name: Mode.parse(value, f"{where} [approvals] {name}") for name, value in table.items()}
    program = modes.pop("program", BLOCK if approve == "program" else NONE)
    commit = modes.pop("commit", BLOCK if defaults else NONE)
    every = modes.pop("*", None)
    calls = {name: mode for name, mode in modes.items()}
    if every is not None:
        calls["*"] = every
    return ApprovalPolicy(program=program, commit=commit, calls=calls, wait_s=float(wait), defaults=defaults)


def with_kit(policy: ApprovalPolicy, table: Any, names: Mapping[str, str], where: str, *, only_more: bool) -> ApprovalPolicy:
    """``policy`` with a kit's ``approvals`` (gates and tools, tools by alias or name): the kit's modes replace the
    config's for what it names, or, ``only_more`` (a kit an untrusted workspace wrote), may only ask more."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: approvals must be 'name: mode' lines, e.g. run_command: none")
    modes = {str(name): Mode.parse(value, f"{where} approvals {name}") for name, value in table.items()}
    program, commit, every = modes.pop("program", None), modes.pop("commit", None), modes.pop("*", None)
    calls = {names.get(name, name): mode for name, mode in modes.items()}
    if every is not None:
        calls["*"] = every
    if only_more:
        return ApprovalPolicy(program or NONE, commit or NONE, calls, policy.wait_s, defaults=False, floor=policy)
    merged = {**policy.calls, **calls}
    return dataclasses.replace(policy, program=program or policy.program, commit=commit or policy.commit, calls=merged)


__all__ = [
    "AUTO",
    "BLOCK",
    "NONE",
    "NOTIFY",
    "Approval",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "FileChange",
    "Gatekeeper",
    "Mode",
    "Showing",
    "approve_all",
    "as_decision",
    "default_call_mode",
    "exact",
    "file_changes",
    "policy_from",
    "visible",
    "with_kit",
]
