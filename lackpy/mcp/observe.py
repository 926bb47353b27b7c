"""What each run a client asks for leaves for whoever runs the server: one ``Served`` record, made once, given to the sinks.

A run is counted where its result is made: ``Watch`` spans the served call
of run_program, delegate or a kit tool served on its own (``--expose-tools``),
once per run, however many requests it takes (a 2026-07-28 run that waits
for approvals spans several). What it ended in is always named: ``success``,
the error kind of a failed run or of a refused call (``validation``,
``limit``, ``denied``, ``kit``, ``crash``, ``resources``, ``store``,
``lost``, ...), ``generation`` for a delegation no tier could write a
program for, ``cancelled`` when the client gave up, ``internal`` for a fault
of lackpy's own.

The watch also sets the call's trace context (``lackpy.caller.traceparent``),
read from the request's ``_meta``, for the run it starts: the audit record
and the sinks name its trace id. The sinks are the server's metrics
(``lackpy.mcp.metrics``), its spans (``lackpy.mcp.tracing``) and its run log
(``lackpy.mcp.runlog``); with none (stdio, nothing configured), a watch
costs two context-variable writes.
"""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from lackpy.infer.result import DelegateResult
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import Timing, Trace
from lackpy.mcp.bearer import caller_in
from lackpy.caller.principal import WHO
from lackpy.caller.traceparent import CALLER, TraceParent, from_meta

#: The label of a tool the served kits do not hold (bounds the metrics' and spans' names).
OTHER_TOOL = "other"


@dataclass(frozen=True)
class Served:
    """One run a client asked for, as it ended: never its program, arguments or output, which may hold secrets."""

    tool: str
    """The served tool that ran it: run_program, delegate, or a kit tool served on its own."""
    outcome: str
    mode: str
    """Where it ran: isolated, inprocess, dry-run (a dry run, wherever), or none (refused before it ran)."""
    started_ns: int
    """When the call began and ended, wall clock (``time.time_ns``)."""
    ended_ns: int
    caller: TraceParent | None = None
    result: ExecutionResult | None = None
    who: str | None = None
    """Who asked, when the server checked it (an access token's issuer and subject: ``lackpy.mcp.bearer``)."""
    """The run's result, when it made one: its trace's timings and its ``clock``."""

    @property
    def seconds(self) -> float:
        return max(0, self.ended_ns - self.started_ns) / 1e9

    @property
    def trace_id(self) -> str | None:
        return self.caller.trace_id if self.caller is not None else None


Sink = Callable[[Served], None]


class Observer:
    """The sinks every served run is given to, and the tool names they may name (the served kits' tools; others are ``other``)."""

    def __init__(self, sinks: Sequence[Sink] = (), tools: Iterable[str] = ()) -> None:
        self.sinks = tuple(sinks)
        self.tools = frozenset(tools)

    def tool_name(self, alias: str) -> str:
        """``alias`` when a served kit holds a tool of that name, else ``other``: what a label or span may say."""
        return alias if alias in self.tools else OTHER_TOOL

    def watch(self, tool: str, ctx: Any) -> "Watch":
        """The watch of one served run of ``tool``, whose request is ``ctx``'s."""
        checked = caller_in(ctx)
        return Watch(self, tool, from_meta(_meta(ctx)), checked.who if checked is not None else None)

    def emit(self, served: Served) -> None:
        """Give ``served`` to every sink; a sink's own failure never reaches the client or the other sinks."""
        for sink in self.sinks:
            try:
                sink(served)
            except Exception:  # an operator's aid must never break a run's answer
                pass


#: The watch of the run being served in this context, which ``seen`` tells of its result.
_WATCH: ContextVar["Watch | None"] = ContextVar("lackpy_watch", default=None)


class Watch:
    """One served run: sets its trace context while it goes on, learns how it ended, and emits one ``Served`` at the end."""

    __slots__ = ("observer", "tool", "caller", "who", "started_ns", "result", "kind", "_tokens")

    def __init__(self, observer: Observer, tool: str, caller: TraceParent | None, who: str | None = None) -> None:
        self.observer, self.tool, self.caller, self.who = observer, tool, caller, who
        self.started_ns = 0
        self.result: ExecutionResult | DelegateResult | None = None
        self.kind: str | None = None

    def __enter__(self) -> "Watch":
        self.started_ns = time.time_ns()
        self._tokens = (CALLER.set(self.caller), _WATCH.set(self), WHO.set(self.who))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        CALLER.reset(self._tokens[0])
        _WATCH.reset(self._tokens[1])
        WHO.reset(self._tokens[2])
        if self.observer.sinks:
            self.observer.emit(self._served(exc))

    def _served(self, exc: BaseException | None) -> Served:
        ended = time.time_ns()
        run = self.result.execution if isinstance(self.result, DelegateResult) else self.result
        if isinstance(exc, asyncio.CancelledError):
            outcome = "cancelled"
        elif exc is not None:
            outcome = "internal"
        elif self.kind is not None:
            outcome = self.kind
        elif isinstance(self.result, DelegateResult) and run is None:
            outcome = "generation"
        elif run is None:
            outcome = "internal"
        else:
            outcome = "success" if run.success else str(run.error_kind or "runtime")
        mode = "none" if run is None else "dry-run" if run.dry_run else run.mode or "none"
        return Served(self.tool, outcome, mode, self.started_ns, ended, self.caller, run, self.who)


def seen(result: ExecutionResult | DelegateResult) -> None:
    """Tell the run's watch its result (the one the client gets); nothing outside a watch."""
    watch = _WATCH.get()
    if watch is not None:
        watch.result = result


def refused(kind: str) -> None:
    """Tell the run's watch it was refused with an error of ``kind`` before it made a result; nothing outside a watch."""
    watch = _WATCH.get()
    if watch is not None and watch.result is None:
        watch.kind = kind


def timings(result: ExecutionResult | None) -> list[Timing]:
    """When each tool call of ``result`` ran and how it ended (none for a result without a recorded trace)."""
    trace = result.trace if result is not None else ()
    return trace.timings() if isinstance(trace, Trace) else []


def _meta(ctx: Any) -> Any:
    """The ``_meta`` of ``ctx``'s request, if any."""
    try:
        return ctx.request_context.meta
    except Exception:  # no request (a call from Python), or an SDK without it
        return None


__all__ = ["OTHER_TOOL", "Observer", "Served", "Sink", "Watch", "refused", "seen", "timings"]
