"""Shared parts of the lackpy serve tests: a workspace, a clean environment, and one MCP session per module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("mcp")


def make_workspace(root: Path) -> Path:
    """Two Python files with three TODOs and a README, as the CLI tests use."""
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("# TODO: one\nprint('app')\n# TODO: two\n")
    (root / "src" / "pkg" / "util.py").write_text("def f():\n    return 1  # TODO: three\n")
    (root / "README.md").write_text("# Demo\n\nStatus: draft\n")
    return root


@pytest.fixture(scope="module")
def mcp_workspace(tmp_path_factory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("mcp") / "ws")


@pytest.fixture(scope="module")
def server_env(tmp_path_factory) -> dict[str, str]:
    """The environment of a server subprocess: its own trust record, no entry-point plugins."""
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config-home"))
    env["LACKPY_LOAD_PLUGINS"] = ""
    env.pop("LACKPY_WORKSPACE", None)
    return env


@pytest.fixture(scope="module")
def url(mcp_workspace, server_env):
    """The /mcp address of a `lackpy serve --http` over the module's workspace, stopped after the module."""
    from mcp_support import start_http, stop

    process, port = start_http(mcp_workspace, server_env)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)
