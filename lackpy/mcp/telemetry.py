"""What one ``lackpy serve`` tells its operator, put together from the transport and the environment.

Over HTTP: the metrics page (``lackpy.mcp.metrics``) and the run log on
stderr (``lackpy.mcp.runlog``). Over either transport: spans, when the
OpenTelemetry environment asks for them (``lackpy.mcp.tracing``). Over
stdio with nothing configured, the observer has no sink, and a run's trace
context still reaches its audit record.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

from lackpy.mcp.observe import Observer
from lackpy.mcp.policy import KitPolicy
from lackpy.service import LackpyService
from lackpy.skills.catalog import SKILL_FILE_TOOL


class Telemetry:
    """The observer a server is built with (``build_server(observer=...)``), its metrics (HTTP) and what to close at the end."""

    def __init__(self, observer: Observer, metrics: Any = None, closers: tuple[Callable[[], None], ...] = ()) -> None:
        self.observer, self.metrics, self.closers = observer, metrics, closers

    @classmethod
    def start(cls, service: LackpyService, policy: KitPolicy, *, http: bool, store: Any = None) -> "Telemetry":
        """The telemetry of a server over ``service`` and ``policy``; ``store``: the state store whose errors the metrics show.

        Raises UsageError when the environment asks for traces that cannot
        be sent (``lackpy.mcp.tracing.start``).
        """
        from lackpy.mcp import tracing

        observer = Observer(tools=served_tools(policy))
        sinks: list[Callable[..., None]] = []
        closers: list[Callable[[], None]] = []
        metrics = None
        if http:
            from lackpy.mcp.runlog import RunLog

            runlog = RunLog()
            sinks.append(runlog)
            closers.append(runlog.close)
            if _has_prometheus():
                from lackpy.mcp.metrics import Metrics

                metrics = Metrics(service, observer, store, runlog)
                sinks.append(metrics)
            else:
                print(f"lackpy: /metrics is off: it needs the prometheus-client package; {METRICS_HINT}", file=sys.stderr)
        spans = tracing.start(observer)
        if spans is not None:
            sinks.append(spans)
            closers.append(spans.close)
        observer.sinks = tuple(sinks)
        return cls(observer, metrics, tuple(closers))

    def close(self) -> None:
        """Flush the run log and the spans still waiting; a failure to is not the server's."""
        for close in self.closers:
            try:
                close()
            except Exception:
                pass


#: How to get /metrics where prometheus-client is not installed.
METRICS_HINT = "pip install 'lackpy[team]'"


def _has_prometheus() -> bool:
    try:
        importlib.import_module("prometheus_client")
    except ImportError:
        return False
    return True


def served_tools(policy: KitPolicy) -> frozenset[str]:
    """Every tool name a served run can call: the allowed kits' tools, by their names in programs and their own, and skill_file."""
    names = set(policy.tools) | {SKILL_FILE_TOOL}
    for held in policy.held.values():
        names.update(held.tools)
    return frozenset(names)


__all__ = ["Telemetry", "served_tools"]
