"""The W3C trace context a call carries (``traceparent``, ``tracestate``), read strictly, and held for the run it starts.

An MCP request may carry its caller's trace context in ``params._meta``
(the 2026-07-28 revision reserves the keys ``traceparent``, ``tracestate``
and ``baggage`` for it, in the W3C Trace Context format). lackpy reads it so
an operator can follow one call from the client to what it did: the trace id
goes into the audit record of every approval the run asks
(``lackpy.approvals.approver.Audit``), the server's log line for the run and,
with tracing on, the run's spans (``lackpy.mcp.tracing``).

It comes from a client, so it is read strictly: a value that is not exactly
the W3C format (lowercase hex, no all-zero ids, version ``ff`` refused) is
ignored as if absent, never an error; a ``tracestate`` is kept only whole and
well formed, and only beside a valid ``traceparent``. Nothing of it is ever
trusted for anything but naming the trace.

The server sets ``CALLER`` for the call; a run thread gets it with the
call's context (the scheduler runs each run in a copy of it).
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Mapping

#: version-traceid-parentid-flags; a later version may add fields after a dash (W3C Trace Context, 3.2).
_PARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?", re.ASCII | re.DOTALL)
#: One tracestate list member: a key (simple or tenant@system) and a value of printable ASCII but ',' and '='.
_MEMBER = re.compile(
    r"[ \t]*(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e][ \t]*",
    re.ASCII,
)
#: The most a tracestate may hold (W3C: 32 list members, and 512 characters is what a vendor must pass on).
MOST_STATE_MEMBERS = 32
MOST_STATE_CHARS = 512
_ZERO_TRACE, _ZERO_SPAN = "0" * 32, "0" * 16


@dataclass(frozen=True)
class TraceParent:
    """A caller's trace context: its trace id, the id of its span that made the call, the trace flags and tracestate."""

    trace_id: str
    parent_id: str
    flags: int
    state: str = ""

    @property
    def sampled(self) -> bool:
        return bool(self.flags & 1)


def parse(traceparent: Any, tracestate: Any = None) -> TraceParent | None:
    """The trace context of a ``traceparent`` (and ``tracestate``) header value; None when it is not one."""
    if not isinstance(traceparent, str) or len(traceparent) > 512:
        return None
    found = _PARENT.fullmatch(traceparent)
    if found is None:
        return None
    version, trace_id, parent_id, flags, rest = found.groups()
    if version == "ff" or (version == "00" and rest is not None) or trace_id == _ZERO_TRACE or parent_id == _ZERO_SPAN:
        return None
    return TraceParent(trace_id, parent_id, int(flags, 16), _state(tracestate))


def from_meta(meta: Mapping[str, Any] | None) -> TraceParent | None:
    """The trace context in a request's ``_meta`` (its ``traceparent`` and ``tracestate`` keys), if valid."""
    if not meta:
        return None
    try:
        return parse(meta.get("traceparent"), meta.get("tracestate"))
    except Exception:  # a _meta that is not a plain mapping: no trace context
        return None


def _state(value: Any) -> str:
    """``value`` when it is a well-formed tracestate within the bounds, else "" (W3C: an invalid one is dropped whole)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MOST_STATE_CHARS:
        return ""
    members = [member for member in value.split(",") if member.strip()]
    if len(members) > MOST_STATE_MEMBERS or not all(_MEMBER.fullmatch(member) for member in members):
        return ""
    keys = [member.split("=", 1)[0].strip() for member in members]
    return ",".join(member.strip() for member in members) if len(set(keys)) == len(keys) else ""


#: The trace context of the call being served, while its run goes on (None: the call carried none).
CALLER: ContextVar[TraceParent | None] = ContextVar("lackpy_caller_trace", default=None)


def current_trace_id() -> str | None:
    """The trace id of the call being served, if it carried one."""
    caller = CALLER.get()
    return caller.trace_id if caller is not None else None


__all__ = ["CALLER", "TraceParent", "current_trace_id", "from_meta", "parse"]
