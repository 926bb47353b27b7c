"""Tool-call tracing: every call a program makes, cheap enough to leave always on.

The wrapper around each tool records a raw tuple per call (under a
microsecond); summaries, parameter names and durations are worked out once,
when the run ends.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Callable, Literal

from lackpy.approvals.decision import Decision
from lackpy.errors import LimitExceeded
from lackpy.kit.spec import ToolSpec
from lackpy.schema import Contract, as_dict

SUMMARY_CHARS = 200

_repr = reprlib.Repr()
_repr.maxstring = SUMMARY_CHARS
_repr.maxother = SUMMARY_CHARS
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdict = 8
_repr.maxlevel = 3

# Results of these types are kept as they are; anything else is summarised at
# once, so later changes by the program do not rewrite the trace.
_KEEP = frozenset({type(None), bool, int, float})


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


class Summary(str):
    """A value already summarised: a description, never the program's own text."""


def summarize(value: Any) -> str:
    """A bounded one-line description of a value."""
    kind = type(value)
    if kind is Summary:
        return str(value)
    if value is None or kind is bool or kind is float or (kind is int and -10**18 < value < 10**18):
        return repr(value)
    if kind is str:
        if len(value) <= SUMMARY_CHARS:
            return repr(value)
        return f"{value[:SUMMARY_CHARS]!r}... (len {len(value)})"
    text = _repr.repr(value)
    if isinstance(value, (str, bytes)):
        cut = len(value) > SUMMARY_CHARS
    else:
        cut = isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > _repr.maxlist
    return f"{text} (len {len(value)})" if cut else text


def _snapshot(value: Any) -> Any:
    """What the trace keeps of a result: short strings as they are, else a summary."""
    if type(value) is str and len(value) <= SUMMARY_CHARS:
        return value
    return Summary(summarize(value))


def _kept(values: Any) -> Any:
    """Arguments as the trace keeps them: small immutable values as they are, others summarised now.

    Keeping a large argument (a file's new content) until the run ends would
    hold every call's copy in memory.
    """
    if type(values) is dict:
        return {k: v if type(v) in _KEEP or (type(v) is str and len(v) <= SUMMARY_CHARS) else _snapshot(v) for k, v in values.items()}
    for value in values:
        if not (type(value) in _KEEP or (type(value) is str and len(value) <= SUMMARY_CHARS)):
            return tuple(v if type(v) in _KEEP or (type(v) is str and len(v) <= SUMMARY_CHARS) else _snapshot(v) for v in values)
    return values  # all small and immutable: the tuple itself


class Recorder:
    """Wraps a run's tools, keeps the raw record of every call and caps their number."""

    def __init__(self, max_calls: int = 10_000, on_call: Callable[[str, int], None] | None = None) -> None:
        self.calls: list[tuple] = []
        self.max_calls = max_calls
        self.on_call = on_call

    def wrap(self, alias: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        calls = self.calls
        append = calls.append
        max_calls = self.max_calls
        clock = perf_counter
        keep = _KEEP
        snapshot = _snapshot

        def traced(*args: Any, **kwargs: Any) -> Any:
            if len(calls) >= max_calls:
                raise LimitExceeded("max_tool_calls", max_calls, f"made more than {max_calls} tool calls")
            start = clock()
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                append((alias, _kept(args), _kept(kwargs), None, start, clock(), exc))
                if not isinstance(exc, LimitExceeded):
                    exc.lackpy_tool = alias  # type: ignore[attr-defined]
                raise
            end = clock()
            if args:
                args = _kept(args)
            if kwargs:
                kwargs = _kept(kwargs)
            append((alias, args, kwargs, result if type(result) in keep else snapshot(result), start, end, None))
            return result

        if self.on_call is not None:
            traced = self._announced(alias, traced)
        traced.__name__ = traced.__qualname__ = alias
        return traced

    def _announced(self, alias: str, traced: Callable[..., Any]) -> Callable[..., Any]:
        """``traced`` telling ``on_call`` the tool's name and the calls made so far, after each call."""
        on_call, calls = self.on_call, self.calls

        def announced(*args: Any, **kwargs: Any) -> Any:
            try:
                return traced(*args, **kwargs)
            finally:
                on_call(alias, len(calls))

        return announced

    def entries(self, tools: dict[str, ToolSpec], decisions: Any = ()) -> list[TraceEntry]:
        """The trace: one entry per call, with the decision asked for before it (``decisions`` name their step)."""
        if not self.calls:
            return []
        asked = {decision.step: decision for decision in decisions if decision.step is not None}
        params = {alias: [a.name for a in spec.args] for alias, spec in tools.items()}
        out = []
        append = out.append
        entry = TraceEntry
        for step, (alias, args, kwargs, result, start, end, error) in enumerate(self.calls, 1):
            mapped = {}
            if args:
                names = params.get(alias, ())
                for index, value in enumerate(args):
                    mapped[names[index] if index < len(names) else f"arg{index}"] = summarize(value)
            if kwargs:
                for key, value in kwargs.items():
                    mapped[key] = summarize(value)
            decision = asked.get(step) if asked else None
            duration = int((end - start) * 1e7 + 0.5) / 1e4  # milliseconds to 0.1 µs, as round(.., 4) would, at half its cost
            if error is None:
                append(entry(step, alias, mapped, "None" if result is None else summarize(result), duration, True, None, decision))
            else:
                append(entry(step, alias, mapped, "", duration, False, describe_exception(error), decision))
        return out


def describe_exception(exc: BaseException) -> str:
    """``Type: message``, never empty."""
    message = str(exc)
    if not message:
        message = "out of memory" if isinstance(exc, MemoryError) else "raised without a message"
    return f"{type(exc).__name__}: {message}"
