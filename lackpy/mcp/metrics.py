"""``/metrics`` of ``lackpy serve --http``: what the server did and holds now, in the Prometheus text format.

Counted as runs end (a sink of ``lackpy.mcp.observe``):

- ``lackpy_runs_total{outcome,mode}``: every run a client asked for, once,
  by what it ended in (``success`` or the failure's name) and where it ran;
- ``lackpy_run_duration_seconds{mode}``: how long each took, as its client
  waited (a queue, approvals and all), from milliseconds to minutes;
- ``lackpy_tool_calls_total{tool,outcome}``: the calls in each run's trace,
  by tool (the served kits' tools; any other is ``other``, so a label never
  grows with what clients send) and outcome (``success`` or the kind of what
  the call raised: ``tool``, ``denied``, ``limit``, ...).

Read when scraped, from where each lives (so nothing is counted twice):
run slots in use and their number, runs waiting for a person, open
sessions, isolated workers held ready, workers forked and fork servers
replaced (``lackpy.run.forkserver.workers``), the state store's failed
operations (``Store.errors``, when the server has a store), run-log lines
dropped. And ``lackpy_http_requests_total{method,status}`` counts every
HTTP request, refused ones (401, 403, 421) too.

The registry is the server's own, never the process-wide default one, so
servers in one process never share counts. ``prometheus_client`` is
imported here only, when an HTTP server starts.
"""

from __future__ import annotations

import collections
from typing import Any, Iterator

from lackpy.mcp.observe import Observer, Served, timings
from lackpy.mcp.runlog import RunLog
from lackpy.service import LackpyService

#: The run-latency buckets, in seconds: a cached trivial run takes milliseconds, a long one minutes (the timeout's range).
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
#: The HTTP methods a label names; any other is ``other``.
METHODS = frozenset({"GET", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"})
#: Where the page is served.
PATH = "/metrics"
#: The most callers the metrics name one by one (the rest are ``other``), so the series stay bounded.
MOST_CALLERS = 1000


class Metrics:
    """The server's counters and gauges, in a registry of its own; a sink for served runs."""

    def __init__(self, service: LackpyService, observer: Observer, store: Any = None, runlog: RunLog | None = None) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.observer = observer
        self.registry = CollectorRegistry(auto_describe=True)
        self.runs = Counter("lackpy_runs", "Runs clients asked for, by outcome (success or the failure's name) and mode.",
                            ["outcome", "mode"], registry=self.registry)
        self.durations = Histogram("lackpy_run_duration_seconds", "How long each run took, as its client waited.", ["mode"],
                                   buckets=DURATION_BUCKETS, registry=self.registry)
        self.tool_calls = Counter("lackpy_tool_calls", "Tool calls the runs made, by tool (other: a tool the served kits lack) and outcome.",
                                  ["tool", "outcome"], registry=self.registry)
        self.callers = Counter("lackpy_caller_runs", "Runs by caller (the checked subject of an access token; other past "
                               f"{MOST_CALLERS} callers) and outcome.", ["caller", "outcome"], registry=self.registry)
        self._callers: set[str] = set()
        self.requests = Counter("lackpy_http_requests", "HTTP requests, by method and status code.", ["method", "status"],
                                registry=self.registry)
        self.registry.register(_Now(service, store, runlog))

    def __call__(self, served: Served) -> None:
        self.runs.labels(served.outcome, served.mode).inc()
        self.durations.labels(served.mode).observe(served.seconds)
        if served.who is not None:
            if served.who not in self._callers and len(self._callers) < MOST_CALLERS:
                self._callers.add(served.who)
            self.callers.labels(served.who if served.who in self._callers else "other", served.outcome).inc()
        calls = timings(served.result)
        if not calls:
            return
        counts = collections.Counter((self.observer.tool_name(call.tool), call.error_kind or "success") for call in calls)
        for (tool, outcome), count in counts.items():  # one increment per tool and outcome, however many calls
            self.tool_calls.labels(tool, outcome).inc(count)

    def page(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)

    def request(self, method: str, status: int | str) -> None:
        self.requests.labels(method if method in METHODS else "other", str(status)).inc()


class _Now:
    """A collector reading, when scraped, what the server holds now; it keeps no count of its own."""

    def __init__(self, service: LackpyService, store: Any, runlog: RunLog | None) -> None:
        self.service, self.store, self.runlog = service, store, runlog

    def describe(self) -> list:
        return []  # names are known only when collected; nothing to check them against at registration

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        from lackpy.run.forkserver import workers

        slots = self.service.run_slots
        yield GaugeMetricFamily("lackpy_run_slots_in_use", "Runs holding a run slot now.", value=slots.in_use if slots else 0)
        yield GaugeMetricFamily("lackpy_run_slots", "Run slots (max_concurrent_runs); 0 until the first run.", value=slots.size if slots else 0)
        yield GaugeMetricFamily("lackpy_approvals_waiting", "Runs waiting for a person to answer an approval, their slot given back.",
                                value=slots.asking if slots else 0)
        yield GaugeMetricFamily("lackpy_sessions", "Sessions open now.", value=len(self.service.sessions))
        now = workers()
        yield GaugeMetricFamily("lackpy_workers_ready", "Isolated workers held ready for the next run.", value=now.ready)
        yield GaugeMetricFamily("lackpy_fork_servers", "Fork servers alive now.", value=now.servers)
        yield CounterMetricFamily("lackpy_forks", "Isolated workers handed to runs, each a fresh fork.", value=now.forks)
        yield CounterMetricFamily("lackpy_fork_server_restarts", "Fork servers replaced after they exited or stopped answering.",
                                  value=now.restarts)
        errors = CounterMetricFamily("lackpy_store_errors", "State store operations that failed, by operation.", labels=["operation"])
        for operation, count in sorted(dict(getattr(self.store, "errors", None) or {}).items()):
            errors.add_metric([str(operation)], count)
        yield errors
        if self.runlog is not None:
            yield CounterMetricFamily("lackpy_log_lines_dropped", "Run-log lines dropped because stderr did not take them in time.",
                                      value=self.runlog.dropped)


class MetricsPage:
    """ASGI: ``GET /metrics`` answers the page, behind the same Host/Origin checks as ``/mcp``; anything else goes to ``app``.

    It sits inside the bearer-token check, so with a token the page needs it
    too: counts by tool and outcome tell what a team does.
    """

    def __init__(self, app: Any, metrics: Metrics, security: Any) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app, self.metrics, self.checks = app, metrics, TransportSecurityMiddleware(security)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, Response

        refused = await self.checks.validate_request(Request(scope, receive), is_post=False)
        if refused is not None:
            response = refused
        elif scope.get("method") not in ("GET", "HEAD"):
            response = PlainTextResponse("use GET /metrics\n", status_code=405, headers={"Allow": "GET, HEAD"})
        else:
            from prometheus_client import CONTENT_TYPE_LATEST

            response = Response(self.metrics.page(), media_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
        await response(scope, receive, send)


#: The HTTP methods counted by name; any other a client makes up is "other", so no client can grow the label set.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class CountedRequests:
    """ASGI: counts every HTTP request by method and the status it was answered with (``aborted``: none was sent)."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status: list[int] = []

        async def sending(message: dict) -> None:
            if message.get("type") == "http.response.start" and not status:
                status.append(int(message.get("status", 0)))
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            method = scope.get("method", "")
            self.metrics.request(method if method in METHODS else "other", status[0] if status else "aborted")


def serving(app: Any, metrics: Metrics | None, security: Any, guard: Any = None) -> Any:
    """``app`` with ``/metrics`` beside it, behind ``guard`` (the bearer-token middleware, if any), every request counted."""
    if metrics is not None:
        app = MetricsPage(app, metrics, security)
    if guard is not None:
        app = guard(app)
    return CountedRequests(app, metrics) if metrics is not None else app


__all__ = ["DURATION_BUCKETS", "CountedRequests", "Metrics", "MetricsPage", "PATH", "serving"]
