"""Tool-call tracing: every call a program makes, cheap enough to leave always on.

The wrapper around each tool keeps a small tuple per call, its arguments and
result summarised as it returns; the trace's entries are made from those
when first looked at (``Trace``). Each tuple also keeps when the call
started and, for a call that failed, its error kind: what ``Trace.timings``
gives a tracer, so the spans of a run's tool calls are made from its trace
after the run, with their real times, and nothing is measured twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Callable, Iterator, Literal, NamedTuple, Sequence

from lackpy.approvals.decision import Decision
from lackpy.errors import ErrorKind, LackpyError, LimitExceeded
from lackpy.schema import Contract, as_dict
from lackpy.summary import summarize

@dataclass(frozen=True)
class HeldCall(Contract):
    """A call a dry run did not make (``lackpy.run.dryrun``): its trace step, tool and arguments, and how the program was answered."""

    step: int
    tool: str
    arguments: dict[str, str] = field(default_factory=dict)
    answer: Literal["refused", "placeholder"] = "refused"
    """``refused``: the call failed as ``denied``; ``placeholder``: the program got the value the tool's spec states."""


@dataclass(slots=True)
class TraceEntry:
    """One tool call: its arguments by parameter name and a bounded result summary."""

    step: int
    tool: str
    args: dict[str, str]
    result: str
    duration_ms: float
    success: bool
    error: str | None = None
    decision: Decision | None = None
    """The decision asked for before this call ran, if one was."""

    def to_dict(self) -> dict:
        return as_dict(self)


def _named(names: tuple[str, ...], args: tuple, kwargs: dict) -> tuple[str, ...]:
    """A call's arguments summarised, by parameter name (``argN`` past the declared ones): name, summary, name, summary, ..."""
    named: list[str] = []
    for index, value in enumerate(args):
        named += (names[index] if index < len(names) else f"arg{index}", summarize(value))
    for key, value in kwargs.items():
        named += (key, summarize(value))
    return tuple(named)


class Timing(NamedTuple):
    """When one tool call ran and how it ended: what a span of it shows (never its arguments or result)."""

    tool: str
    started: float
    """When it started, a ``time.perf_counter()`` reading."""
    duration_ms: float
    error_kind: str | None
    """None when it returned; else the kind of what it raised (``tool``, ``denied``, ``limit``, ...)."""


#: Where a call's tuple keeps its fields: tool, result summary, duration, error, start, error kind; its arguments follow.
_ARGS_AT = 6


class Trace(Sequence[TraceEntry]):
    """A run's trace: a ``TraceEntry`` per call, in order, each made when first looked at.

    A run keeps one flat tuple of strings and numbers per call (its tool,
    result summary, duration, error, start, error kind, then each argument's
    name and summary), which the garbage collector stops following at its first pass.
    ``to_dict`` makes each entry's JSON data in turn, so a trace that is only
    sent on is never all entry objects at once.
    """

    __slots__ = ("_records", "_asked", "_entries")

    def __init__(self, records: list[tuple], decisions: Any = ()) -> None:
        self._records = records
        self._asked = {decision.step: decision for decision in decisions if decision.step is not None}
        self._entries: list[TraceEntry] | None = None

    def _entry(self, step: int, record: tuple) -> TraceEntry:
        alias, result, duration, error = record[:4]
        args = dict(zip(record[_ARGS_AT::2], record[_ARGS_AT + 1::2])) if len(record) > _ARGS_AT else {}
        return TraceEntry(step, alias, args, result, duration, error is None, error, self._asked.get(step))

    def _built(self) -> list[TraceEntry]:
        if self._entries is None:
            self._entries = [self._entry(step, record) for step, record in enumerate(self._records, 1)]
        return self._entries

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, index):  # type: ignore[override]
        return self._built()[index]

    def __iter__(self) -> Iterator[TraceEntry]:
        return iter(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Trace({self._built()!r})"

    def timings(self) -> list[Timing]:
        """Each call's tool, start, duration and error kind, in order, read without making the entries."""
        return [Timing(record[0], record[4], record[2], record[5]) for record in self._records]

    def to_dict(self) -> list[dict]:
        """The entries as JSON data, in order."""
        if self._entries is not None:
            return [entry.to_dict() for entry in self._entries]
        return [self._entry(step, record).to_dict() for step, record in enumerate(self._records, 1)]


class Recorder:
    """Wraps a run's tools, traces every call as it returns and caps their number.

    Each call's arguments and result are summarised as it returns: the
    program may change them later, and a large argument (a file's new
    content) is not held until the run ends.
    """

    def __init__(
        self, max_calls: int = 10_000, on_call: Callable[[str, int, tuple[int, int]], None] | None = None,
        moved: Callable[[], tuple[int, int]] = lambda: (0, 0),
    ) -> None:
        self.calls: list[tuple] = []
        self.max_calls = max_calls
        self.on_call = on_call
        self.moved = moved

    def wrap(self, alias: str, fn: Callable[..., Any], names: Sequence[str] = ()) -> Callable[..., Any]:
        """``fn`` traced under ``alias``; ``names`` are its parameters, in order, which name the arguments in the trace."""
        calls = self.calls
        append = calls.append
        max_calls = self.max_calls
        clock = perf_counter
        names = tuple(names)

        def traced(*args: Any, **kwargs: Any) -> Any:
            if len(calls) >= max_calls:
                raise LimitExceeded("max_tool_calls", max_calls, f"made more than {max_calls} tool calls")
            start = clock()
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                duration = int((clock() - start) * 1e7 + 0.5) / 1e4
                append((alias, "", duration, describe_exception(exc), start, _kind(exc), *_named(names, args, kwargs)))
                if not isinstance(exc, LimitExceeded):
                    exc.lackpy_tool = alias  # type: ignore[attr-defined]
                raise
            duration = int((clock() - start) * 1e7 + 0.5) / 1e4  # milliseconds to 0.1 µs, as round(.., 4) would, at half its cost
            summary = "None" if result is None else summarize(result)
            append((alias, summary, duration, None, start, None, *_named(names, args, kwargs)) if args or kwargs else (alias, summary, duration, None, start, None))
            return result

        if self.on_call is not None:
            traced = self._announced(alias, traced)
        traced.__name__ = traced.__qualname__ = alias
        return traced

    def _announced(self, alias: str, traced: Callable[..., Any]) -> Callable[..., Any]:
        """``traced`` telling ``on_call`` the tool's name, the calls made so far and the bytes read and written, after each call."""
        on_call, calls, moved = self.on_call, self.calls, self.moved

        def announced(*args: Any, **kwargs: Any) -> Any:
            try:
                return traced(*args, **kwargs)
            finally:
                on_call(alias, len(calls), moved())

        return announced

    def entries(self, decisions: Any = ()) -> Trace:
        """The trace of the calls so far (a call made later is not in it), each entry with the decision asked for before it (``decisions`` name their step)."""
        return Trace(list(self.calls), decisions)


def _kind(exc: BaseException) -> str:
    """The error kind of what a tool call raised, as the run's result would name it (anything not lackpy's: ``tool``)."""
    return str(exc.kind) if isinstance(exc, LackpyError) else ErrorKind.TOOL.value


def describe_exception(exc: BaseException) -> str:
    """``Type: message``, never empty."""
    message = str(exc)
    if not message:
        message = "out of memory" if isinstance(exc, MemoryError) else "raised without a message"
    return f"{type(exc).__name__}: {message}"
