"""OpenTelemetry spans of served runs, exported over OTLP/HTTP when the standard environment asks for it.

With the ``otel`` extra installed and ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
or ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, every run a client asks for becomes
a span (``lackpy run``) with a child for its checks (``lackpy validate``:
limits, parameters, the program's validation, the ceiling) and one per tool
call (``lackpy tool NAME``), each with its real start and duration and its
outcome, never its arguments or result (they may hold secrets). The run span's
parent is the MCP SDK's span of the request, itself parented on the
``traceparent`` the request carried in ``_meta``; where there is none, the
run span is parented on that ``traceparent`` directly.

The tool calls are served in this process but timed by the run's trace
(``lackpy.run.trace``), so their spans are made from it after the run, and
a run costs nothing more while it goes on. A run's tool-call spans are
bounded (``MOST_TOOL_SPANS``; the run span says how many were left out).

Off unless configured, and then free: nothing here imports OpenTelemetry's
SDK or exporter, and no run pays anything (``start`` returns None).
The exporter reads the rest of the standard variables itself (headers,
timeout, compression, certificates); ``OTEL_SDK_DISABLED=true`` or
``OTEL_TRACES_EXPORTER=none`` turns it off.
"""

from __future__ import annotations

import os
import time
from typing import Any, Mapping

from lackpy import __version__
from lackpy.errors import UsageError
from lackpy.mcp.observe import Observer, Served, timings

#: The variables that turn tracing on, either one (the first names the traces endpoint whole, the second a base URL).
ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
#: The most tool-call spans one run makes; the calls past it are counted on the run span instead.
MOST_TOOL_SPANS = 256


def wanted(env: Mapping[str, str] = os.environ) -> bool:
    """Whether ``env`` asks for traces (an OTLP endpoint, and tracing not turned off)."""
    if not any(env.get(name, "").strip() for name in ENDPOINTS):
        return False
    return env.get("OTEL_SDK_DISABLED", "").strip().lower() != "true" and env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() != "none"


def start(observer: Observer) -> "Spans | None":
    """The span sink when the process's environment asks for traces, else None (and nothing imported).

    The exporter and its batching read the same environment (endpoint,
    headers, timeout, compression, ``OTEL_BSP_*``), so it is read nowhere else.

    Raises UsageError when traces are asked for but cannot be sent: the
    ``otel`` extra is not installed, or another OTLP protocol than
    http/protobuf is asked for.
    """
    env = os.environ
    if not wanted(env):
        return None
    protocol = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf").strip()
    if protocol != "http/protobuf":
        raise UsageError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: lackpy sends traces over OTLP/HTTP only; set it to http/protobuf (port 4318)")
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise UsageError(
            f"{next(name for name in ENDPOINTS if env.get(name, '').strip())} is set, but OpenTelemetry is not installed: "
            "pip install 'lackpy[otel]', or unset it"
        ) from None
    named = {} if env.get("OTEL_SERVICE_NAME") else {"service.name": "lackpy"}
    provider = TracerProvider(resource=Resource.create({**named, "service.version": __version__}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)  # the MCP SDK's request spans go out too, and parent lackpy's
    return Spans(observer, provider)


class Spans:
    """A sink (``lackpy.mcp.observe``) making the spans of each served run after it ended."""

    def __init__(self, observer: Observer, provider: Any) -> None:
        from opentelemetry import context, trace

        self.observer, self.provider = observer, provider
        self.tracer = provider.get_tracer("lackpy", __version__)
        self._trace, self._context = trace, context

    def __call__(self, served: Served) -> None:
        trace = self._trace
        parent = self._parent(served)
        outcome = served.outcome
        run = served.result
        calls = timings(run)
        span = self.tracer.start_span(
            "lackpy run", context=parent, start_time=served.started_ns,
            attributes={"lackpy.tool": served.tool, "lackpy.outcome": outcome, "lackpy.mode": served.mode, "lackpy.tool_calls": len(calls)},
        )
        if outcome != "success":
            span.set_status(trace.Status(trace.StatusCode.ERROR, outcome))
        inside = trace.set_span_in_context(span)
        shift = time.time_ns() - time.perf_counter_ns()  # a perf_counter reading, in ns, plus this: the wall clock then
        if run is not None and run.clock is not None:
            began, checked = (int(at * 1e9) + shift for at in run.clock)
            checks_failed = outcome in _CHECKS and not calls
            child = self.tracer.start_span("lackpy validate", context=inside, start_time=began,
                                           attributes={"lackpy.outcome": outcome if checks_failed else "success"})
            if checks_failed:
                child.set_status(trace.Status(trace.StatusCode.ERROR, outcome))
            child.end(end_time=max(checked, began))
        for step, call in enumerate(calls[:MOST_TOOL_SPANS], 1):
            name = self.observer.tool_name(call.tool)
            begun = int(call.started * 1e9) + shift
            child = self.tracer.start_span(f"lackpy tool {name}", context=inside, start_time=begun,
                                           attributes={"lackpy.tool": name, "lackpy.step": step, "lackpy.outcome": call.error_kind or "success"})
            if call.error_kind is not None:
                child.set_status(trace.Status(trace.StatusCode.ERROR, call.error_kind))
            child.end(end_time=begun + int(call.duration_ms * 1e6))
        if len(calls) > MOST_TOOL_SPANS:
            span.set_attribute("lackpy.tool_calls_not_shown", len(calls) - MOST_TOOL_SPANS)
        span.end(end_time=max(served.ended_ns, served.started_ns))

    def _parent(self, served: Served) -> Any:
        """The context the run span is made in: the current span's (the SDK's span of the request), else the caller's traceparent."""
        trace = self._trace
        current = self._context.get_current()
        if trace.get_current_span(current).get_span_context().is_valid or served.caller is None:
            return current
        caller = served.caller
        state = trace.TraceState.from_header([caller.state]) if caller.state else None
        remote = trace.SpanContext(int(caller.trace_id, 16), int(caller.parent_id, 16), is_remote=True,
                                   trace_flags=trace.TraceFlags(caller.flags & 1), trace_state=state)
        return trace.set_span_in_context(trace.NonRecordingSpan(remote), current)

    def close(self) -> None:
        """Send the spans still waiting (the exporter's own timeout bounds it) and stop."""
        self.provider.shutdown()


#: The outcomes only a run's checks give: its validate span failed with them (a denial may come later too: it shows on the run span).
_CHECKS = frozenset({"validation", "param"})


__all__ = ["ENDPOINTS", "MOST_TOOL_SPANS", "Spans", "start", "wanted"]
