"""A program's effects, listed from its syntax tree, approved once, and the run held to that list.

With ``approve = "effects"``, before a program with effects runs, lackpy
lists every call site of a tool that can act (``listed``: its effects grade
``d`` is above 0, or the policy would ask about each call of it, as it does
for a web request) from the program's text (``lackpy.lang.effects``): the
tool, its grade, its line, whether it may run many times, when it acts (at
once, or, for staged writes, after the run), and each argument as a literal,
a parameter (with the value this run passes) or computed (with its
expression). A person approves the whole list once (the ``effects`` gate)
and, for each computed argument, says whether any value is allowed
(``Decision.any_value`` names them by their number).

At run time every call of a listed tool is checked where it is served, on
the host (``Holding.place``), whatever process runs the program: the worker
that runs it is never believed about which site a call comes from, since the
host matches the call itself against the approved entries of its tool:

- a literal argument must equal the literal on the list exactly (same types,
  all the way down: ``1`` is not ``True``, a tuple is not a list);
- a parameter argument must equal the value this run passed, as it was when
  the list was made (a copy: a program that changes a list it was given
  cannot change what was approved);
- a computed argument goes ahead when any value was allowed for it; else
  the call is asked about on its own, as a per-call question is today;
- a call that matches no entry never runs (``DeniedError``), and neither does
  a call past what the list allows: an entry that is not ``repeated`` is good
  for one call, and calls are matched to entries so that every call so far
  has its own (a bipartite matching, kept as calls come: an honest program's
  calls always fit, since each comes from its own site).

The list approves which calls and how often, not their order: a program's
branches decide that. The ``commit`` of staged writes keeps its own
question, with the diff of what the run wrote (what the list cannot show:
what a computed content is, and what a write replaces).
"""

from __future__ import annotations

import copy
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from lackpy.approvals.request import exact, visible
from lackpy.kit.spec import ToolSpec
from lackpy.lang.effects import FOLDED, CallSite, call_sites
from lackpy.lang.grade import Grade
from lackpy.schema import Contract

#: How a listed call acts: on the world at once, or on staged files written after the run.
AT_ONCE, AFTER_RUN = "at once", "after the run"


@dataclass(frozen=True)
class EffectArgument(Contract):
    """One argument of a listed call: the parameter ``name`` it binds, its ``kind`` (``literal``, ``parameter``,
    ``computed``) and ``expression``; ``shown``, the value a literal or a parameter has (``exact``); ``ref``, the
    number a computed one is answered by; ``any_value``, whether the approval allows any value for it."""

    name: str
    kind: str
    expression: str
    shown: str = ""
    ref: int | None = None
    any_value: bool = False
    value: Any = field(default=None, compare=False, metadata={"json": False})

    def text(self) -> str:
        """``path='a.txt'``, ``path=<parameter target = 'a.txt'>``, ``content=<computed #1: f'{x}'>``: one argument as the list shows it."""
        name = "" if self.name == FOLDED else f"{self.name}="
        if self.kind == "literal":
            return f"{name}{self.shown}"
        if self.kind == "parameter":
            return f"{name}<parameter {self.expression} = {self.shown}>"
        if self.ref is None:  # a tool whose calls the policy never asks about: any value, as without the list
            return f"{name}<computed: {visible(self.expression)}, any value>"
        allowed = ", any value allowed" if self.any_value else ""
        return f"{name}<computed #{self.ref}: {visible(self.expression)}{allowed}>"


@dataclass(frozen=True)
class Effect(Contract):
    """One call site of a tool that can act: the ``tool``, its ``grade``, where the call is (``line``, ``col``),
    whether it may run many times (``repeated``), when it ``acts`` (``at once`` or ``after the run``) and its
    ``arguments``; ``open`` when it passes ``*args`` or ``**kwargs`` (all of which one computed argument holds)."""

    tool: str
    grade: Grade
    line: int
    col: int
    repeated: bool
    acts: str
    arguments: tuple[EffectArgument, ...]
    open: bool = False

    def text(self) -> str:
        """One line: ``line 3  write_file(path='a.txt', content='x')  w=3 d=3, acts after the run, at most once``."""
        call = f"{self.tool}({', '.join(argument.text() for argument in self.arguments)})"
        runs = "may run many times" if self.repeated else "at most once"
        return f"line {self.line}  {call}  {self.grade}, acts {self.acts}, {runs}"

    def computed(self) -> list[EffectArgument]:
        return [argument for argument in self.arguments if argument.kind == "computed"]


def listed(spec: ToolSpec, asks_each_call: bool) -> bool:
    """Whether calls of ``spec`` are on a program's list: it can act (``d`` above 0), or the policy asks about each call of it."""
    return spec.effects_ceiling > 0 or asks_each_call


def effects_of(
    program: str, specs: Mapping[str, ToolSpec], params: Mapping[str, Any], staging: bool, quiet: Iterable[str] = ()
) -> tuple[Effect, ...]:
    """The list of ``program``'s calls of ``specs`` (the listed tools it calls, by the name it calls them), in source order.

    ``params`` are the run's parameters: shown, and copied as the values the
    calls must pass. ``staging``: whether this run stages its writes (then a
    file tool acts after the run, when its writes are committed). ``quiet``:
    tools whose calls the policy never asks about (``todo_set``,
    ``poll_process``, staged writes, whose commit asks with its diff);
    their computed values are listed as allowing any value, with no number
    to answer, so the list never asks about a call the policy would not
    have asked about.
    """
    signatures = tuple(sorted((alias, tuple(arg.name for arg in spec.args)) for alias, spec in specs.items()))
    sites = _sites(program, signatures, tuple(sorted(params)))
    quiet, counter = frozenset(quiet), iter(range(1, 1 + sum(len(site.arguments) for site in sites)))
    numbered = {alias for alias, spec in specs.items() if alias not in quiet}
    return tuple(_effect(site, specs[site.tool], params, staging, counter if site.tool in numbered else None) for site in sites)


def _acts(spec: ToolSpec, staging: bool) -> str:
    """When a call of ``spec`` acts: a file tool of a run that stages its writes, after the run; any other, at once."""
    return AFTER_RUN if staging and spec.dry_run_action == "run" and spec.effects_ceiling > 0 else AT_ONCE


@lru_cache(maxsize=256)
def _sites(program: str, signatures: tuple, params: tuple[str, ...]) -> tuple[CallSite, ...]:
    return call_sites(program, dict(signatures), params)


def _effect(site: CallSite, spec: ToolSpec, params: Mapping[str, Any], staging: bool, counter: Any) -> Effect:
    """One entry; its computed arguments numbered from ``counter``, or, with None, allowing any value (``effects_of``)."""
    arguments = []
    for argument in site.arguments:
        if argument.kind == "literal":
            arguments.append(EffectArgument(argument.name, "literal", argument.expression, exact(argument.value), value=argument.value))
        elif argument.kind == "parameter":
            value = copy.deepcopy(params[argument.expression])
            arguments.append(EffectArgument(argument.name, "parameter", argument.expression, exact(value), value=value))
        elif counter is None:
            arguments.append(EffectArgument(argument.name, "computed", argument.expression, any_value=True))
        else:
            arguments.append(EffectArgument(argument.name, "computed", argument.expression, ref=next(counter)))
    grade = Grade(spec.grade_w, spec.effects_ceiling)
    return Effect(site.tool, grade, site.line, site.col, site.repeated, _acts(spec, staging), tuple(arguments), site.open)


def refs(effects: Sequence[Effect]) -> list[int]:
    """The numbers of every computed argument on the list."""
    return [argument.ref for effect in effects for argument in effect.computed() if argument.ref is not None]


def allowing(effects: Sequence[Effect], any_value: Iterable[int]) -> tuple[Effect, ...]:
    """The list as approved: each computed argument numbered in ``any_value`` marked as allowing any value."""
    chosen = set(any_value)
    return tuple(
        replace(effect, arguments=tuple(replace(a, any_value=a.any_value or a.ref in chosen) if a.kind == "computed" else a for a in effect.arguments))
        for effect in effects
    )


def same(a: Any, b: Any) -> bool:
    """Whether ``a`` equals ``b`` with the same type all the way down (``1`` is not ``True`` or ``1.0``, a tuple not a list)."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return len(a) == len(b) and all(any(same(k, j) and same(v, b[j]) for j in b if j == k) for k, v in a.items())
    if type(a) in (set, frozenset):
        return len(a) == len(b) and all(any(same(x, y) for y in b if y == x) for x in a)
    return bool(a == b)


def arguments_of(names: Sequence[str], args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any] | None:
    """A call's arguments by the tool's parameter ``names`` (``#3`` past them), as its call sites name them; None when a
    keyword repeats a position or names what only lackpy names (``#3``, ``*``): such a call cannot be matched, so it never runs."""
    arguments = {names[at] if at < len(names) else f"#{at + 1}": value for at, value in enumerate(args)}
    for name, value in kwargs.items():
        if name in arguments or name.startswith("#") or name == FOLDED:
            return None
        arguments[name] = value
    return arguments


def _match(effect: Effect, arguments: Mapping[str, Any]) -> str | None:
    """``covered`` when the approved ``effect`` covers a call with ``arguments``; ``ask`` when it would once a person
    approves the call's computed values; None when it does not."""
    known = [argument for argument in effect.arguments if argument.name != FOLDED]
    names = {argument.name for argument in known}
    given = set(arguments)
    if not (names <= given if effect.open else names == given):
        return None
    ask = False
    for argument in known:
        if argument.kind != "computed":
            if not same(arguments[argument.name], argument.value):
                return None
        elif not argument.any_value:
            ask = True
    if effect.open and given - names:
        folded = next(argument for argument in effect.arguments if argument.name == FOLDED)
        ask = ask or not folded.any_value
    return "ask" if ask else "covered"


@dataclass
class Placed:
    """Where a call stands against the list: ``covered`` (it goes ahead), ``ask`` (a person approves it first) or
    ``refused``; ``entries`` are the approved entries it could be (indexes into the list); ``why`` a refusal's reason."""

    verdict: str
    entries: tuple[int, ...] = ()
    why: str = ""


class Holding:
    """One run held to its approved list: which entries each call took.

    An entry that is not ``repeated`` is good for one call; calls are matched
    to entries (``_fit``) so that every call so far has one of its own,
    moving an earlier call to another entry it also matches when that makes
    room. A call that matches a ``repeated`` entry needs no room.
    """

    def __init__(self, effects: Sequence[Effect]) -> None:
        self.effects = tuple(effects)
        self.lock = threading.Lock()
        self.owner: dict[int, int] = {}
        self.holds: dict[int, int] = {}
        self.choices: dict[int, tuple[int, ...]] = {}
        self.count = 0
    @property
    def tools(self) -> frozenset[str]:
        return frozenset(effect.tool for effect in self.effects)

    def place(self, tool: str, arguments: Mapping[str, Any]) -> Placed:
        """Where a call of ``tool`` with ``arguments`` stands; a ``covered`` call has taken its entry."""
        covered, asked = [], []
        for at, effect in enumerate(self.effects):
            if effect.tool == tool:
                verdict = _match(effect, arguments)
                (covered if verdict == "covered" else asked if verdict == "ask" else []).append(at)
        with self.lock:
            if covered and self._fit(tuple(covered), commit=True):
                return Placed("covered", tuple(covered))
            both = tuple(covered + asked)
            if asked and self._fit(both, commit=False):
                return Placed("ask", both)
        if not covered and not asked:
            return Placed("refused", why=f"{tool} with these arguments is not on the approved list")
        lines = ", ".join(str(self.effects[at].line) for at in both)
        return Placed("refused", why=f"the approved call of {tool} at line {lines} runs at most once, and has run")

    def take(self, placed: Placed) -> bool:
        """A call a person approved on its own takes its entry (False: it no longer fits)."""
        with self.lock:
            return self._fit(placed.entries, commit=True)

    def _fit(self, entries: tuple[int, ...], commit: bool) -> bool:
        """Whether a new call matching ``entries`` fits beside every call so far (an augmenting path); kept when ``commit``."""
        if any(self.effects[at].repeated for at in entries):
            return True
        owner, holds, choices = (self.owner, self.holds, self.choices) if commit else (dict(self.owner), dict(self.holds), dict(self.choices))
        call = self.count
        choices[call] = entries
        reached: dict[int, int] = {}
        queue = deque([call])
        while queue:
            current = queue.popleft()
            for entry in choices[current]:
                if entry in reached:
                    continue
                reached[entry] = current
                if entry in owner:
                    queue.append(owner[entry])
                    continue
                while True:  # move each call on the path to the entry it reached, back to the new call
                    current = reached[entry]
                    previous = holds.get(current)
                    owner[entry], holds[current] = current, entry
                    if current == call:
                        if commit:
                            self.count += 1
                        return True
                    entry = previous
        if commit:
            del choices[call]
        return False


__all__ = [
    "AFTER_RUN", "AT_ONCE", "Effect", "EffectArgument", "Holding", "Placed",
    "allowing", "arguments_of", "effects_of", "listed", "refs", "same",
]
