"""What a person is asked: one gate of one run, shown whole.

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

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from lackpy.approvals import forms
from lackpy.lang.grade import Grade

#: A run of one character this long or longer is shown as the character and its count.
RUN_CHARS = 16
#: Characters that print as nothing (fillers, the braille blank): shown escaped, like control characters.
BLANK = frozenset("\u115f\u1160\u2800\u3164\uffa0")
#: What opens and closes a counted run in a line (``visible``); the opening one is escaped where it is text.
RUN_OPEN, RUN_CLOSE = "\u27e8", "\u27e9"
#: The most levels of a nested argument ``exact`` spells out before it falls back to ``repr`` (still whole).
EXACT_DEPTH = 32


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
class SkillOrigin:
    """Where a skill served by another MCP server came from: the server (the config's name for it), its ``SKILL.md``
    URI, and each of its files as its entry lists them and lackpy verifies them (``(path, sha256 digest, size)``).

    A program run with such a skill is approved by a person first, at the ``skill`` gate, whatever the policy says;
    the question names all of this, so a changed file is a changed question.
    """

    skill: str
    server: str
    uri: str
    files: tuple[tuple[str, str, int], ...]

    def lines(self) -> list[str]:
        return [
            f"served by the MCP server {self.server} as {visible(self.uri)}: its text is the server's, untrusted, checked only against these digests:",
            *(f"  {digest}  {size:>9}  {name_shown(path)}" for path, digest, size in self.files),
        ]


@dataclass(frozen=True)
class ApprovalRequest:
    """What a person is asked to approve: one gate of one run.

    ``program`` gate: the ``program``, its own ``grade`` and ``risk`` and the
    ``tools`` it can reach. ``call``: the ``tool`` and its ``arguments``.
    ``commit``: the ``files`` the writes change, each with its counts
    (``changes``), and their unified ``diff``. ``elicit``: the MCP
    ``server`` asks the person its ``question`` during a call of ``tool``,
    and the answer fills in its ``form`` (``lackpy.approvals.forms``). ``skill``:
    the ``program`` (its ``grade``, ``risk`` and ``tools``) runs with a skill
    another MCP server serves, from ``origin``. ``ask`` says whether the
    answer is waited for (``block``, ``auto``) or this is only news
    (``notify``); ``wait_s`` how long an answer may take. ``showing`` is
    where the channel that asks says whether the person saw it whole.

    ``summary()`` and ``lines()`` are everything the approval allows, in
    full; ``more()`` is what a person sees on request (a commit's diff).
    """

    gate: str
    ask: str
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
    origin: SkillOrigin | None = None
    effects: tuple[Any, ...] = ()
    """The ``effects`` gate's list (``lackpy.approvals.effects.Effect``); a ``call`` asked because the list did not cover it: its entries."""
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
        if self.gate == "effects":
            tools = ", ".join(f"{tool} \u00d7{n}" for tool, n in _tally_tools(self.effects))
            return f"run a program ({self.risk}, {self.grade}) that may make these {_count(len(self.effects), 'call')} that act ({tools}), and no others"
        if self.gate == "skill" and self.origin is not None:
            return f"run a program with skill {self.origin.skill} from the MCP server {self.origin.server} ({self.risk}, {self.grade}) that can call {', '.join(self.tools) or 'no tools'}"
        return f"run a program ({self.risk}, {self.grade}) that can call {', '.join(self.tools) or 'no tools'}"

    def lines(self) -> list[str]:
        """What the approval allows beyond the summary, one line each: every file of a commit, or the program."""
        if self.gate == "commit":
            return [change.line() for change in self.changes] or [name_shown(path) for path in self.files]
        if self.gate == "program":
            return [f"its own grade: {self.grade} ({self.risk})"] + _visible_lines(self.program or "")
        if self.gate == "skill" and self.origin is not None:
            return self.origin.lines() + [f"the program, its own grade {self.grade} ({self.risk}):"] + _visible_lines(self.program or "")
        if self.gate == "elicit":
            return _visible_lines(self.question or "") + [f"- {visible(f.line())}" for f in forms.fields(self.form)]
        if self.gate == "effects":
            return [f"{at}. {effect.text()}" for at, effect in enumerate(self.effects, 1)] + _effects_notes(self.effects)
        if self.gate == "call" and self.effects:
            computed = sorted({f"#{a.ref}" for effect in self.effects for a in effect.computed() if not a.any_value})
            return [f"on the approved list at line {', '.join(str(e.line) for e in self.effects)}; asked now for its computed {', '.join(computed)}"]
        return []

    def more(self) -> list[str]:
        """What a person may read on request before answering: a commit's unified diff, or the program whose effects
        are listed, with nothing invisible."""
        if self.gate == "effects":
            return ["the program:"] + [f"  {line}" for line in _visible_lines(self.program or "")]
        return _visible_lines(self.diff or "") if self.gate == "commit" else []

    @property
    def more_label(self) -> str:
        """What ``more()`` is, as a note that it was left out names it."""
        return "the program" if self.gate == "effects" else "the diff"


def _tally_tools(effects: Sequence[Any]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for effect in effects:
        counts[effect.tool] = counts.get(effect.tool, 0) + 1
    return list(counts.items())


def _effects_notes(effects: Sequence[Any]) -> list[str]:
    """What approving the list means, in the words of the list."""
    notes = ["approving allows these calls only, each at most once unless it may run many times; any other call of these tools is refused"]
    if any(argument.ref is not None for effect in effects for argument in effect.computed()):
        notes.append("a <computed #N> value is asked about again each time its call runs, unless you allow any value for it")
    if any(effect.acts == "after the run" for effect in effects):
        notes.append("writes acting after the run are applied if it ends well; a changed file the list does not name is asked about then, with its diff")
    return notes


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


__all__ = ["ApprovalRequest", "FileChange", "Showing", "SkillOrigin", "exact", "file_changes", "name_shown", "visible"]
