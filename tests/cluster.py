"""Real redis-server and haproxy for the tests marked ``cluster``: started on free loopback ports, stopped after.

A test that needs Redis takes the ``redis_url`` fixture (tests/conftest.py) or
calls ``redis_server``; when the program is not installed the test is
skipped saying how to get it (``.ci/run`` installs both Debian packages).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

INSTALL = "install the Debian packages redis-server and haproxy (.ci/run does), or run the tests marked cluster where they are"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def needs(program: str) -> str:
    """The path of ``program``, or skip the test saying how to get it."""
    found = shutil.which(program) or next((p for p in (f"/usr/sbin/{program}", f"/usr/bin/{program}") if Path(p).exists()), None)
    if found is None:
        pytest.skip(f"{program} is not installed: {INSTALL}")
    return found


def wait_port(port: int, process: subprocess.Popen, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the process on port {port} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def start_redis(port: int, directory: Path) -> subprocess.Popen:
    """A redis-server on loopback ``port``, nothing saved to disk, answering when this returns."""
    directory.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [needs("redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(directory),
         "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    wait_port(port, process)
    return process


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server on a free loopback port for the block; yields its URL (database 0)."""
    port = free_port()
    process = start_redis(port, directory)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)
