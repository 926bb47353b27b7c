"""What a served run pays for being observed: metrics and the run log, tracing off, tracing on with an exporter.

usage: python bench/observe.py [--rounds R] [--runs N] [--mode isolated|inprocess]

Three servers, each built through the public API (``build_server`` with the
observer ``lackpy serve`` builds: ``lackpy.mcp.telemetry.Telemetry``) in a
process of its own, each driven by the MCP SDK's own in-memory client:

floor    an observer with no sink (what stdio has: the trace id still reaches the audit)
metrics  the HTTP server's sinks: the Prometheus counters and the run log (to /dev/null)
traced   those and OpenTelemetry spans, exported over OTLP/HTTP to a receiver on 127.0.0.1

Each call is a trivial run (one tool call) carrying a ``traceparent`` in
``_meta``. The servers take turns, R rounds of N calls each, so the machine's
noise falls on all three alike; each row is the median of its rounds, and the
ratio is to the floor's median in the same run. The last column is what the
sinks themselves take per run, timed on the run's own record.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PYTHON = sys.executable
CONFIGS = ("floor", "metrics", "traced")
PROGRAM = 'len(find_files("*.md"))'
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


# -- a server in a process of its own ----------------------------------------------------------


def child(config: str, workspace: str, endpoint: str, mode: str) -> None:
    """Serve in-process with ``config``'s observer; on each line ``N`` from stdin, make N calls and print the seconds taken."""
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.observe import Observer
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.runlog import RunLog
    from lackpy.mcp.server import build_server
    from lackpy.mcp.telemetry import Telemetry

    service = LackpyService(workspace, {"mode": mode}, trust=False).load()
    policy = KitPolicy.build(service)
    if config == "traced":
        os.environ.update(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_BSP_SCHEDULE_DELAY="200")
    telemetry = Telemetry(Observer()) if config == "floor" else Telemetry.start(service, policy, http=True)
    for sink in telemetry.observer.sinks:  # the run log to /dev/null, so the terminal is not the bottleneck
        if isinstance(sink, RunLog):
            sink.stream = open(os.devnull, "w")
    last: list = []
    telemetry.observer.sinks = (*telemetry.observer.sinks, last.append)

    async def main() -> None:
        async with Client(build_server(service, policy, observer=telemetry.observer)) as client:
            async def call() -> None:
                answer = await client.call_tool("run_program", {"program": PROGRAM}, meta={"traceparent": TRACEPARENT})
                assert not answer.is_error, answer

            for _ in range(20):  # warm: the fork server, the caches
                await call()
            for line in sys.stdin:
                count = int(line)
                start = time.perf_counter()
                for _ in range(count):
                    await call()
                took = time.perf_counter() - start
                served, sinks = last[-1], telemetry.observer.sinks[:-1]
                start = time.perf_counter()
                for _ in range(count):
                    for sink in sinks:
                        sink(served)
                print(took, time.perf_counter() - start, flush=True)

    asyncio.run(main())
    telemetry.close()
    service.close()


# -- an OTLP/HTTP receiver ----------------------------------------------------------------------


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            self.server.spans += sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
        except ImportError:
            pass
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--mode", choices=("isolated", "inprocess"), default="isolated", help="where the runs run (default: isolated)")
    parser.add_argument("--child", choices=CONFIGS, help=argparse.SUPPRESS)
    parser.add_argument("--workspace", help=argparse.SUPPRESS)
    parser.add_argument("--endpoint", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.workspace, args.endpoint, args.mode)
        return
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    receiver.spans = 0
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# bench\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        env.update(XDG_CONFIG_HOME=str(Path(tmp) / "config-home"), LACKPY_LOAD_PLUGINS="")
        children = {
            config: subprocess.Popen([PYTHON, __file__, "--child", config, "--workspace", str(ws), "--endpoint", endpoint, "--mode", args.mode],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            for config in CONFIGS
        }
        took: dict[str, list[float]] = {config: [] for config in CONFIGS}
        sinks: dict[str, list[float]] = {config: [] for config in CONFIGS}
        try:
            for round_ in range(args.rounds):
                order = CONFIGS[round_ % 3:] + CONFIGS[:round_ % 3]  # each goes first in turn
                for config in order:
                    process = children[config]
                    process.stdin.write(f"{args.runs}\n")
                    process.stdin.flush()
                    answer = process.stdout.readline().split()
                    if len(answer) != 2:
                        raise SystemExit(f"the {config} server stopped")
                    took[config].append(float(answer[0]) / args.runs)
                    sinks[config].append(float(answer[1]) / args.runs)
        finally:
            for process in children.values():
                process.stdin.close()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    floor = statistics.median(took["floor"])
    print(f"{args.rounds} rounds of {args.runs} calls of run_program({PROGRAM!r}) ({args.mode}), each with a traceparent; medians per call\n")
    print("| server | per call | ratio to floor | the sinks themselves, per run |")
    print("|---|---|---|---|")
    for config in CONFIGS:
        median = statistics.median(took[config])
        print(f"| {config} | {median * 1e3:.3f} ms | {median / floor:.3f} | {statistics.median(sinks[config]) * 1e6:.1f} µs |")
    receiver.shutdown()
    print(f"\nspans the receiver decoded: {receiver.spans}")


if __name__ == "__main__":
    main()
