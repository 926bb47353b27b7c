"""Fixtures for the inference tests: ``llm`` starts fake LLM servers and stops them after the test.

The ``llm`` marker (declared in pyproject.toml) tags opt-in tests that run a
real local model; they also need LACKPY_TEST_LLM=1, so a plain ``pytest``
never loads a model.
"""

from __future__ import annotations

from typing import Callable

import pytest

from .llm_server import FakeLLM


@pytest.fixture
def llm() -> Callable[..., FakeLLM]:
    """``start(answers, **kw) -> FakeLLM``: a running fake server, stopped at teardown."""
    servers: list[FakeLLM] = []

    def start(answers, **kw) -> FakeLLM:
        server = FakeLLM(answers, **kw).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
