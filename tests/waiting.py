"""Waiting for something another process does, bounded in time: the one poll loop of the tests."""

from __future__ import annotations

import time
from typing import Any, Callable


def eventually(predicate: Callable[[], Any], timeout: float = 5.0, step: float = 0.02) -> Any:
    """The first truthy value of ``predicate()`` within ``timeout`` seconds, else its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)
