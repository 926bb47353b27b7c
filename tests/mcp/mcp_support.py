"""Helpers of the lackpy serve tests: ports, durations, and one MCP session's answers."""

from __future__ import annotations

import asyncio
import socket
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
            raise AssertionError(f"lackpy serve exited with {process.returncode}: {process.stderr.read().decode(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"lackpy serve did not listen on 127.0.0.1:{port} within {timeout} s")


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
