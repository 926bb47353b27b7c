"""What ``lackpy serve --http`` tells its operator: /metrics, the run log, the audit's trace id, and OpenTelemetry spans.

A real server subprocess, driven by the MCP SDK's own client over streamable
HTTP; the page is parsed with prometheus_client's own parser; spans arrive at
a real OTLP/HTTP receiver on 127.0.0.1 and are decoded with opentelemetry-proto.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import make_workspace
from mcp_support import COUNT, PYTHON, free_port, run, start_http, stop, wait_for_port

pytest.importorskip("prometheus_client")

TOKEN = "observe-token-1d9a"
TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE}-{SPAN}-01"
#: The program a traced call runs, told apart from the others in the audit.
TRACED = COUNT + "# traced\n"


def _client(port: int, **options):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30.0, read=120.0))
    return Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), **options)


def _families(text: str) -> dict:
    """The page's samples as {(name, frozenset(labels)): value}."""
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, frozenset(s.labels.items())): s.value for family in text_string_to_metric_families(text) for s in family.samples}


def _value(samples: dict, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def _chain_reaches(spans: list, caller: str) -> bool:
    """Whether the parents of the run span, as far as ``spans`` hold them, lead to the caller's span ``caller``."""
    by_id = {span.span_id: span for span in spans}
    found = [span for span in spans if span.name == "lackpy run"]
    ancestor, hops = (found[0], 0) if found else (None, 0)
    while ancestor is not None and ancestor.parent_span_id in by_id and hops < 5:
        ancestor, hops = by_id[ancestor.parent_span_id], hops + 1
    return ancestor is not None and ancestor.parent_span_id.hex() == caller


def _series(samples: dict, name: str) -> list:
    """(name, labels, value) of every sample of metric ``name``."""
    return [(name, dict(labels), value) for (found, labels), value in samples.items() if found == name]


def _get(port: int, path: str = "/metrics", method: str = "GET", **headers: str):
    import httpx2

    return httpx2.request(method, f"http://127.0.0.1:{port}{path}", headers=headers, timeout=30.0)


@pytest.fixture(scope="module")
def served(tmp_path_factory, server_env):
    """A server (audit on, the program gate notifying) after a known set of calls: (port, workspace, its stderr file)."""
    ws = make_workspace(tmp_path_factory.mktemp("observe") / "ws")
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('audit = true\n[approvals]\nprogram = "notify"\n')
    log = tmp_path_factory.mktemp("observe-log") / "stderr.txt"
    with log.open("wb") as stderr:
        process, port = start_http(ws, dict(server_env, LACKPY_TEST_TOKEN=TOKEN), "--trust", "--token-env", "LACKPY_TEST_TOKEN", stderr=stderr)
        try:
            async def calls():
                async with _client(port) as client:
                    answers = [await client.call_tool("run_program", {"program": TRACED}, meta={"traceparent": TRACEPARENT, "tracestate": "lackpy=t1"})]
                    answers += [await client.call_tool("run_program", {"program": COUNT}) for _ in range(2)]
                    answers.append(await client.call_tool("run_program", {"program": "import os\nos.getcwd()"}))
                    answers.append(await client.call_tool("run_program", {"program": 'read_file("missing.txt")'},
                                                          meta={"traceparent": TRACEPARENT.upper()}))  # not the format: ignored
                    answers.append(await client.call_tool("run_program", {"program": "1", "kit": "nosuch"}))
                    return answers

            answers = run(calls())
            assert [a.is_error for a in answers] == [False, False, False, True, True, True]
            yield port, ws, log
        finally:
            stop(process)


def test_metrics_count_each_run_by_outcome_and_mode_and_each_tool_call(served):
    port, _, _ = served
    page = _get(port, Authorization=f"Bearer {TOKEN}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain; version=")
    samples = _families(page.text)
    assert _value(samples, "lackpy_runs_total", outcome="success", mode="isolated") == 3
    assert _value(samples, "lackpy_runs_total", outcome="validation", mode="none") == 1
    assert _value(samples, "lackpy_runs_total", outcome="tool", mode="isolated") == 1
    assert _value(samples, "lackpy_runs_total", outcome="kit", mode="none") == 1
    assert sum(v for (name, _), v in samples.items() if name == "lackpy_runs_total") == 6  # each run once, never twice
    assert _value(samples, "lackpy_run_duration_seconds_count", mode="isolated") == 4
    assert _value(samples, "lackpy_run_duration_seconds_bucket", mode="isolated", le="+Inf") == 4
    assert _value(samples, "lackpy_tool_calls_total", tool="find_files", outcome="success") == 3
    assert _value(samples, "lackpy_tool_calls_total", tool="read_file", outcome="success") == 6
    assert _value(samples, "lackpy_tool_calls_total", tool="read_file", outcome="tool") == 1
    assert _value(samples, "lackpy_run_slots_in_use") == 0 and _value(samples, "lackpy_approvals_waiting") == 0
    assert _value(samples, "lackpy_run_slots") >= 1
    assert _value(samples, "lackpy_forks_total") >= 4  # a fresh worker per run that ran
    assert _value(samples, "lackpy_workers_ready") in (0, 1) and _value(samples, "lackpy_fork_servers") == 1
    assert _value(samples, "lackpy_fork_server_restarts_total") == 0
    assert _value(samples, "lackpy_log_lines_dropped_total") == 0
    assert _value(samples, "lackpy_http_requests_total", method="POST", status="200") >= 6


def test_the_page_needs_the_token_and_a_host_of_the_server(served):
    port, _, _ = served
    assert _get(port).status_code == 401
    assert _get(port, Authorization="Bearer not-the-token").status_code == 401
    assert _get(port, method="POST", Authorization=f"Bearer {TOKEN}").status_code == 405
    assert _get(port, Authorization=f"Bearer {TOKEN}", Host="evil.example:80").status_code in (400, 403, 421)  # DNS rebinding
    for made_up in ("BREW", "X-LEAK-1", "X-LEAK-2"):  # methods a client makes up never become label values of their own
        _get(port, method=made_up)
    samples = _families(_get(port, Authorization=f"Bearer {TOKEN}").text)
    methods = {labels["method"] for name, labels, _ in _series(samples, "lackpy_http_requests_total")}
    assert methods <= {"GET", "POST", "other"} and "other" in methods
    assert _value(samples, "lackpy_http_requests_total", method="GET", status="401") >= 2  # refused requests are counted too
    assert _value(samples, "lackpy_http_requests_total", method="POST", status="405") >= 1


def test_the_trace_id_reaches_the_audit_record_and_the_run_log(served):
    _, ws, log = served
    audit = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    traced = [entry for entry in audit if entry.get("program") == TRACED]
    others = [entry for entry in audit if entry.get("program") != TRACED]
    assert len(traced) == 1 and traced[0]["gate"] == "program" and traced[0]["trace_id"] == TRACE
    assert others and not any("trace_id" in entry for entry in others)  # a bad traceparent, or none: no trace id
    lines = [line for line in log.read_text().splitlines() if line.startswith("lackpy: run ")]
    assert len(lines) == 6
    assert lines[0].startswith("lackpy: run run_program success mode=isolated ") and lines[0].endswith(f"tool_calls=3 trace_id={TRACE}")
    assert [line.split()[3] for line in lines] == ["success", "success", "success", "validation", "tool", "kit"]
    assert sum(TRACE in line for line in lines) == 1
    assert not any("session" in line or "TODO" in line for line in lines)  # no session id, no program, no output


@pytest.mark.parametrize("era", ["legacy", "auto"])  # the 2025 handshake, and the 2026-07-28 revision (auto negotiates it)
def test_a_run_waiting_for_a_person_shows_as_waiting_with_its_slot_given_back(tmp_path, server_env, era):
    """Scraped while the client holds the approval unanswered: one approval waiting, no slot in use; then counted once."""
    import httpx2
    import mcp_types

    ws = make_workspace(tmp_path / "ws")
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('audit = true\n[approvals]\nprogram = "block"\n')
    process, port = start_http(ws, dict(server_env, LACKPY_TEST_TOKEN=TOKEN), "--trust", "--token-env", "LACKPY_TEST_TOKEN",
                               stderr=subprocess.DEVNULL)
    asked, release = asyncio.Event(), asyncio.Event()

    async def answering(context, params):
        asked.set()
        await release.wait()
        return mcp_types.ElicitResult(action="accept", content={"approve": True})

    async def scrape() -> dict:
        async with httpx2.AsyncClient() as http:
            page = await http.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30.0)
        return _families(page.text)

    async def main():
        async with _client(port, mode=era, elicitation_callback=answering) as client:
            call = asyncio.create_task(client.call_tool("run_program", {"program": COUNT}, meta={"traceparent": TRACEPARENT}))
            await asyncio.wait_for(asked.wait(), 60)
            waiting = await scrape()
            release.set()
            answer = await call
        return waiting, answer, await scrape()

    try:
        waiting, answer, after = run(main())
    finally:
        stop(process)
    assert answer.structured_content["output"] == 3
    assert _value(waiting, "lackpy_approvals_waiting") == 1 and _value(waiting, "lackpy_run_slots_in_use") == 0
    assert _value(waiting, "lackpy_runs_total", outcome="success", mode="isolated") is None  # not counted before it ends
    assert _value(after, "lackpy_approvals_waiting") == 0
    assert _value(after, "lackpy_runs_total", outcome="success", mode="isolated") == 1  # once, over all the requests it took
    (decision,) = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    assert decision["gate"] == "program" and decision["by"] == "client" and decision["trace_id"] == TRACE


# -- OpenTelemetry --------------------------------------------------------------------------


class _Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver: every POST /v1/traces decoded into the server's ``spans``."""

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse

        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with self.server.lock:
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    self.server.spans.extend(scope.spans)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def receiver():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.spans, server.lock = [], threading.Lock()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_run_becomes_spans_in_the_callers_trace_exported_over_otlp(tmp_path, server_env, receiver):
    pytest.importorskip("opentelemetry.sdk")
    ws = make_workspace(tmp_path / "ws")
    env = dict(server_env, LACKPY_TEST_TOKEN=TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{receiver.server_address[1]}",
               OTEL_BSP_SCHEDULE_DELAY="50")
    process, port = start_http(ws, env, "--token-env", "LACKPY_TEST_TOKEN", stderr=subprocess.DEVNULL)
    try:
        async def call():
            async with _client(port) as client:
                return await client.call_tool("run_program", {"program": COUNT}, meta={"traceparent": TRACEPARENT})

        assert run(call()).structured_content["output"] == 3
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with receiver.lock:
                spans = [span for span in receiver.spans if span.trace_id.hex() == TRACE]
            if any(span.name == "lackpy run" for span in spans) and len(spans) >= 5 and _chain_reaches(spans, SPAN):
                break  # the SDK's request span ends after its answer is sent: it may come in a later batch
            time.sleep(0.05)
    finally:
        stop(process)
    by_id = {span.span_id: span for span in spans}
    (run_span,) = [span for span in spans if span.name == "lackpy run"]
    children = sorted((span for span in spans if span.parent_span_id == run_span.span_id), key=lambda span: span.start_time_unix_nano)
    assert [span.name for span in children] == ["lackpy validate", "lackpy tool find_files", "lackpy tool read_file", "lackpy tool read_file"]
    assert all(run_span.start_time_unix_nano <= span.start_time_unix_nano <= span.end_time_unix_nano <= run_span.end_time_unix_nano for span in children)
    ancestor, hops = run_span, 0  # the run span hangs, through the SDK's request span, from the caller's span
    while ancestor.parent_span_id in by_id and hops < 5:
        ancestor, hops = by_id[ancestor.parent_span_id], hops + 1
    assert ancestor.parent_span_id.hex() == SPAN
    attributes = {kv.key: kv.value for kv in run_span.attributes}
    assert attributes["lackpy.outcome"].string_value == "success" and attributes["lackpy.tool_calls"].int_value == 3
    said = " ".join(str(kv.value) for span in spans for kv in span.attributes)
    assert "src/" not in said and "TODO" not in said  # no argument and no result in a span


def test_without_an_endpoint_no_opentelemetry_sdk_is_loaded_and_runs_pay_nothing(tmp_path, server_env):
    """The MCP SDK itself imports OpenTelemetry's API; lackpy loads the SDK and the exporter only when an endpoint is set."""
    ws = make_workspace(tmp_path / "ws")
    script = f"""
import asyncio, sys
from mcp import Client
from lackpy import LackpyService
from lackpy.mcp.policy import KitPolicy
from lackpy.mcp.server import build_server
from lackpy.mcp.telemetry import Telemetry

service = LackpyService({str(ws)!r}, trust=False)
policy = KitPolicy.build(service)
telemetry = Telemetry.start(service, policy, http=True)
async def main():
    async with Client(build_server(service, policy, observer=telemetry.observer)) as client:
        answer = await client.call_tool("run_program", {{"program": "1 + 1"}}, meta={{"traceparent": {TRACEPARENT!r}}})
        assert answer.structured_content["output"] == 2
asyncio.run(main())
telemetry.close()
service.close()
print(len(telemetry.observer.sinks), sorted(m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter"))))
"""
    env = {k: v for k, v in server_env.items() if not k.startswith("OTEL_")}
    done = subprocess.run([PYTHON, "-c", script], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "2 []"  # the metrics and the run log; no span sink, no SDK


def test_traces_asked_for_without_the_means_to_send_them_stop_the_server_with_one_line(tmp_path, server_env):
    ws = make_workspace(tmp_path / "ws")
    env = dict(server_env, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL="grpc")
    done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(ws), "--http", f"127.0.0.1:{free_port()}"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and "http/protobuf" in said[0], done.stderr


# -- in one process ---------------------------------------------------------------------------


def test_store_errors_are_read_from_the_store_by_operation(tmp_path):
    """A real Redis client at a port where nothing listens: every failed operation is counted where it failed, and shown."""
    pytest.importorskip("redis")
    from lackpy import LackpyService
    from lackpy.errors import StoreError
    from lackpy.mcp.metrics import Metrics
    from lackpy.mcp.observe import Observer
    from lackpy.store.redis import RedisStore

    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout_s=1.0)
    for _ in range(2):
        with pytest.raises(StoreError):
            store.get("sessions/x")
    with pytest.raises(StoreError):
        store.put("sessions/x", {"a": 1}, 10)
    with LackpyService(make_workspace(tmp_path / "ws"), trust=False) as service:
        samples = _families(Metrics(service, Observer(), store).page().decode())
    assert _value(samples, "lackpy_store_errors_total", operation="get") == 2
    assert _value(samples, "lackpy_store_errors_total", operation="put") == 1
    assert _value(samples, "lackpy_run_slots") == 0  # no run yet: no slots made


def test_a_watch_names_every_ending_once():
    """Refused with a kind, given up by the client, or a fault of lackpy's own: each watch gives one record, named."""
    from lackpy.mcp.observe import Observer, refused

    ended = []
    observer = Observer([ended.append], tools={"read_file"})
    with observer.watch("run_program", None):
        refused("kit")
    with pytest.raises(asyncio.CancelledError):
        with observer.watch("run_program", None):
            raise asyncio.CancelledError
    with pytest.raises(RuntimeError):
        with observer.watch("delegate", None):
            raise RuntimeError("a bug")
    assert [(s.tool, s.outcome, s.mode) for s in ended] == [("run_program", "kit", "none"), ("run_program", "cancelled", "none"),
                                                             ("delegate", "internal", "none")]
    assert observer.tool_name("read_file") == "read_file" and observer.tool_name("anything a kit calls") == "other"


def test_a_sink_that_fails_never_reaches_the_run():
    from lackpy.mcp.observe import Observer

    ended = []

    def broken(_served):
        raise ValueError("a sink's bug")

    observer = Observer([broken, ended.append])
    with observer.watch("run_program", None):
        pass
    assert [s.outcome for s in ended] == ["internal"]  # no result was seen: named, not dropped


def test_the_run_log_never_waits_for_its_stream(tmp_path):
    """A stderr nobody reads: lines past the queue are dropped and counted, and writing never blocks."""
    import os

    from lackpy.mcp.runlog import MOST_WAITING, RunLog

    read, write = os.pipe()
    stream = os.fdopen(write, "w")
    try:
        log = RunLog(stream)
        for i in range(MOST_WAITING + 200 + 65536 // 20):  # more than the pipe and the queue hold
            log.write(f"line {i:>12}")
        assert log.dropped > 0
    finally:
        os.close(read)  # the writer thread now fails on a broken pipe, and ends at close
        log.close()
        try:
            stream.close()
        except OSError:  # what was still buffered for the broken pipe
            pass


def test_without_prometheus_client_the_server_serves_and_says_metrics_are_off(tmp_path, server_env):
    """/metrics comes with lackpy[team]; a server with only lackpy[mcp] still serves, says once why it has no page, and /metrics is 404."""
    ws = make_workspace(tmp_path / "ws")
    port = free_port()
    hide = "import sys; sys.modules['prometheus_client'] = None; sys.argv[0] = 'lackpy'; from lackpy.cli import main; main()"
    log = tmp_path / "stderr"
    with open(log, "wb") as err:
        process = subprocess.Popen([PYTHON, "-c", hide, "serve", "-w", str(ws), "--http", f"127.0.0.1:{port}"], env=server_env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_for_port(port, process)
        status = _get(port).status_code

        async def call():
            async with _client(port) as client:
                return await client.call_tool("run_program", {"program": COUNT})

        answer = run(call())
    finally:
        stop(process)
    said = log.read_text()
    assert status == 404 and answer.structured_content["output"] == 3
    assert said.count("/metrics is off: it needs the prometheus-client package; pip install 'lackpy[team]'") == 1 and "Traceback" not in said
