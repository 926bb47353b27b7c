"""Helpers of the lackpy serve tests: ports, durations, and one MCP session's answers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from typing import Any, Awaitable, Callable

COUNT = 'files = find_files("**/*.py")\nsum(read_file(f).count("TODO") for f in files)\n'
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process, timeout: float = 30.0) -> None:
    """Return once 127.0.0.1:port accepts connections; fail if the process exits first."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = process.stderr.read().decode(errors="replace") if process.stderr is not None else "(stderr not piped)"
            raise AssertionError(f"lackpy serve exited with {process.returncode}: {said}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"lackpy serve did not listen on 127.0.0.1:{port} within {timeout} s")


def start_http(workspace, env: dict, *options: str, stderr: Any = subprocess.PIPE) -> tuple[subprocess.Popen, int]:
    """``lackpy serve -w WORKSPACE OPTIONS --http 127.0.0.1:PORT`` in a subprocess, listening; (the process, PORT)."""
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "lackpy", "serve", "-w", str(workspace), *options, "--http", f"127.0.0.1:{port}"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
    )
    try:
        wait_for_port(port, process)
    except BaseException:
        stop(process)
        raise
    return process, port


def stop(process: subprocess.Popen) -> None:
    """Terminate ``process`` (kill it if it takes over 10 s) and close its stderr pipe."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


def comparable(value: Any) -> Any:
    """``value`` without what differs from call to call: durations (``*_ms``) and session ids, at any depth."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if not k.endswith("_ms") and k != "session"}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


async def session_results(client, calls: dict[str, Callable[[Any], Awaitable[Any]]]) -> dict[str, Any]:
    """Run every ``calls[name](client)`` in one session; the results (or the exceptions) by name."""
    found: dict[str, Any] = {}
    async with client:
        for name, call in calls.items():
            try:
                found[name] = await call(client)
            except Exception as exc:  # kept, so the test that reads it fails with it
                found[name] = exc
    return found


def result(found: dict[str, Any], name: str) -> Any:
    value = found[name]
    if isinstance(value, Exception):
        raise value
    return value


def run(coro) -> Any:
    return asyncio.run(coro)
