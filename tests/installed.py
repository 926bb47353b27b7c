"""What some tests need that pip does not install, and the one line that installs it.

The TypeScript MCP SDK (what most hosts run) and the authorization server
the OAuth tests use come from the lock file in ``tests/mcp/ts``; they need
``node`` (20 or later). Nothing here installs anything: the test command
runs the same tests every time, with no network. A test that needs what is
missing skips, saying how to install it; under CI (``.ci/run`` installs it
first) it fails instead, so a broken install cannot pass as a skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

TS = Path(__file__).resolve().parent / "mcp" / "ts"
INSTALL_TS = "npm ci --prefix tests/mcp/ts"


def ts_missing(package: str = "@modelcontextprotocol/sdk") -> str | None:
    """Why ``node`` with ``package`` from ``tests/mcp/ts`` cannot run here, and how to install it; None when it can."""
    if shutil.which("node") is None:
        return f"needs node 20 or later (the Debian package nodejs), then {package}: {INSTALL_TS}"
    if not (TS / "node_modules" / package).is_dir():
        return f"needs {package} from tests/mcp/ts: {INSTALL_TS}"
    return None


def needs_ts(package: str = "@modelcontextprotocol/sdk") -> str:
    """The ``node`` executable when ``package`` is installed; otherwise a skip naming the install (a failure under CI)."""
    missing = ts_missing(package)
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return shutil.which("node")
