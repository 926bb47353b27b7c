"""Try lackpy serve as a team would run it, in one command: redis-server, N replicas and HAProxy, all on 127.0.0.1.

usage: python deploy/tryout.py [--replicas N] [--port PORT] [--drain-s S] [WORKSPACE] [-- LACKPY SERVE OPTIONS]

It starts a redis-server (when this lackpy serve shares state: --store),
N ``lackpy serve --http`` replicas of WORKSPACE (default: the current
directory) on free loopback ports, each with the same generated bearer token
(and cluster key), and HAProxy with deploy/haproxy.cfg in front on PORT;
prints the URL and the token; and waits. Ctrl-C (or SIGTERM) stops them all:
the replicas drain, then HAProxy and Redis stop, and no process is left.
The children run in their own process group, so the terminal's Ctrl-C
reaches this command alone, which stops them in order.

Needs the Debian packages haproxy and redis-server (or the same programs on PATH).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "haproxy.cfg"
#: How long one program gets to start listening, in seconds.
START_S = 60.0
#: How long a replica may drain when the try-out stops, in seconds.
STOP_DRAIN_S = 10.0
#: Connections a replica takes from one address: above HAProxy's maxconn per replica (deploy/haproxy.cfg, 64), checks included.
PER_PEER = 128


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    own, serve_options = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", nargs="?", default=".", help="the workspace every replica serves (default: the current directory)")
    parser.add_argument("--replicas", type=int, default=2, help="how many lackpy serve replicas (default 2)")
    parser.add_argument("--port", type=int, default=8000, help="the port HAProxy listens on, on 127.0.0.1 (default 8000)")
    parser.add_argument("--drain-s", type=float, default=STOP_DRAIN_S, help=f"each replica's --drain-s (default {STOP_DRAIN_S:g})")
    args = parser.parse_args(own)
    if not 1 <= args.replicas <= 32 or not 0 < args.port < 65536 or not 0 <= args.drain_s <= 3600:
        parser.error("--replicas goes from 1 to 32, --port from 1 to 65535, --drain-s from 0 to 3600")
    missing = [name for name in ("haproxy", "redis-server") if program(name) is None]
    if missing:
        print(f"tryout: {' and '.join(missing)} not found; install the Debian packages haproxy and redis-server", file=sys.stderr)
        return 2
    workspace = Path(args.workspace).resolve()
    if not workspace.is_dir():
        print(f"tryout: {workspace} is not a directory; give the workspace to serve", file=sys.stderr)
        return 2

    stopping: list[int] = []

    def stop_on(signum: int, _frame: object) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGINT, stop_on)
    signal.signal(signal.SIGTERM, stop_on)
    tmp = Path(tempfile.mkdtemp(prefix="lackpy-tryout-"))
    started: list[tuple[str, subprocess.Popen]] = []
    try:
        return run(args, serve_options, workspace, tmp, started, stopping)
    except (RuntimeError, OSError) as exc:
        print(f"tryout: {exc}", file=sys.stderr)
        return 1
    finally:
        stop_all(started, float(args.drain_s))
        shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, serve_options: list[str], workspace: Path, tmp: Path,
        started: list[tuple[str, subprocess.Popen]], stopping: list[int]) -> int:
    env = dict(os.environ, LACKPY_TOKEN=secrets.token_urlsafe(32), LACKPY_CLUSTER_KEY=secrets.token_urlsafe(32))
    redis_port = free_port()
    start(started, "redis", [program("redis-server"), "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp), "--protected-mode", "yes"], env, tmp)
    wait_listening(redis_port, started[-1][1])
    replicas = []
    for number in range(1, args.replicas + 1):
        port = free_port()
        # behind HAProxy every client comes from its address: the per-peer cap is HAProxy's maxconn per replica and then some
        shared = ["--store", f"redis://127.0.0.1:{redis_port}/0", "--deployment", "tryout", "--cluster-key-env", "LACKPY_CLUSTER_KEY",
                  "--advertise", f"http://127.0.0.1:{port}", "--max-connections-per-peer", str(PER_PEER)]
        start(started, f"replica r{number}", [sys.executable, "-m", "lackpy", "serve", "-w", str(workspace), "--http", f"127.0.0.1:{port}",
                                              "--token-env", "LACKPY_TOKEN", "--drain-s", str(args.drain_s), *shared, *serve_options], env, tmp)
        replicas.append(port)
    for (name, process), port in zip(started[-len(replicas):], replicas):
        wait_ready(port, process, name)
    socket_path = tmp / "haproxy.sock"
    config = tmp / "haproxy.cfg"
    config.write_text(with_replicas(CONFIG.read_text(), len(replicas)))
    env.update(LACKPY_FRONT=f"127.0.0.1:{args.port}", LACKPY_HAPROXY_SOCKET=str(socket_path),
               **{f"LACKPY_REPLICA{n}": f"127.0.0.1:{port}" for n, port in enumerate(replicas, 1)})
    start(started, "haproxy", [program("haproxy"), "-f", str(config)], env, tmp)
    wait_listening(args.port, started[-1][1])
    url = f"http://127.0.0.1:{args.port}/mcp"
    print(f"lackpy try-out: {len(replicas)} replica(s) of {workspace} behind HAProxy", flush=True)
    print(f"  URL:    {url}")
    print(f"  token:  {env['LACKPY_TOKEN']}   (send: Authorization: Bearer <token>)")
    print("  state:  shared in redis-server (sessions and approvals follow calls between replicas)")
    print(f"  replicas: {', '.join(f'r{n} 127.0.0.1:{port}' for n, port in enumerate(replicas, 1))}")
    print(f"  HAProxy stats: echo 'show stat' | socat stdio {socket_path}")
    print("Ctrl-C stops everything.", flush=True)
    while not stopping:
        for name, process in started:
            if process.poll() is not None:
                print(f"tryout: {name} exited with {process.returncode}; stopping the rest (its last lines: {tail(tmp / (name + '.log'))})", file=sys.stderr)
                return 1
        time.sleep(0.2)
    print("lackpy try-out: stopping (replicas drain first)", file=sys.stderr, flush=True)
    return 0


def tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").splitlines()[-3:])
    except OSError:
        return "none"


def program(name: str) -> str | None:
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if Path(p).exists()), None)


def with_replicas(text: str, count: int) -> str:
    """deploy/haproxy.cfg with one ``server rN`` line per replica, in place of the file's own."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if re.match(r"\s*server r\d+ ", line))
    indent = re.match(r"\s*", lines[first]).group(0)
    kept = [line for line in lines if not re.match(r"\s*server r\d+ ", line)]
    servers = [f'{indent}server r{n} "${{LACKPY_REPLICA{n}}}"' for n in range(1, count + 1)]
    return "\n".join(kept[:first] + servers + kept[first:]) + "\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(started: list[tuple[str, subprocess.Popen]], name: str, command: list, env: dict, tmp: Path) -> None:
    with open(tmp / f"{name}.log", "ab") as log:
        process = subprocess.Popen([str(part) for part in command], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    started.append((name, process))


def wait_listening(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode} before it listened on 127.0.0.1:{port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {START_S:g} s")


def wait_ready(port: int, process: subprocess.Popen, name: str) -> None:
    """Until the replica's /readyz answers 200."""
    wait_listening(port, process)
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{name} on 127.0.0.1:{port} is not ready after {START_S:g} s")


def stop_all(started: list[tuple[str, subprocess.Popen]], drain_s: float = STOP_DRAIN_S) -> None:
    """The replicas first (SIGTERM: they drain), then HAProxy and Redis; kill what does not stop in time."""
    replicas = [process for name, process in started if name.startswith("replica")]
    _stop(replicas, drain_s + 5)
    _stop([process for name, process in started if not name.startswith("replica")], 5.0)


def _stop(processes: list[subprocess.Popen], wait_s: float) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + wait_s
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
