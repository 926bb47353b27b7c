"""Shared fixtures: every test gets its own workspace in a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import lackpy.plugins
from lackpy.kit.toolbox import Toolbox

# Entry-point plugins installed on the machine must not change test results;
# tests that exercise entry points run a subprocess with their own setting.
os.environ["LACKPY_LOAD_PLUGINS"] = ""


@pytest.fixture(autouse=True)
def own_trust_record(tmp_path_factory, monkeypatch) -> Path:
    """Every test records workspace trust in a directory of its own, never in the user's ~/.config."""
    home = tmp_path_factory.mktemp("config-home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache-home")))  # learned result shapes, never the user's ~/.cache
    return home


@pytest.fixture
def trusted():
    """``trusted(path)``: trust a workspace as its .lackpy/ is now, as `lackpy trust` does."""
    from lackpy.trust import trust

    def record(path: Path) -> Path:
        trust(path)
        return path

    return record


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace: two Python files with TODOs, a README and a nested package."""
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("# TODO: one\nprint('app')\n# TODO: two\n")
    (root / "src" / "pkg" / "util.py").write_text("def f():\n    return 1  # TODO: three\n")
    (root / "README.md").write_text("# Demo\n\nStatus: draft\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A canary file outside the workspace; tests assert it is never read or changed."""
    canary = tmp_path / "outside" / "canary.txt"
    canary.parent.mkdir()
    canary.write_text("CANARY-SECRET\n")
    return canary


@pytest.fixture
def service(workspace: Path):
    """A service over ``workspace`` that approves what its gates ask (tests/run/test_approvals.py asks for real)."""
    from lackpy import LackpyService

    return LackpyService(workspace, approve=True)

@pytest.fixture
def toolbox(workspace: Path) -> Toolbox:
    """A Toolbox over ``workspace`` populated with the built-in providers and tools."""
    tb = Toolbox(str(workspace))
    lackpy.plugins.populate(tb)
    return tb


class Canary:
    """The canary file outside the workspace with a snapshot of its content, mtime and siblings."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.dir = path.parent
        self.content = path.read_bytes()
        self.mtime = os.stat(path).st_mtime_ns
        self.siblings = sorted(p.name for p in self.dir.iterdir())

    def assert_untouched(self) -> None:
        assert self.path.read_bytes() == self.content
        assert os.stat(self.path).st_mtime_ns == self.mtime
        assert sorted(p.name for p in self.dir.iterdir()) == self.siblings


@pytest.fixture
def canary(outside: Path) -> Canary:
    """A snapshot of the canary; call ``assert_untouched()`` after trying to reach it."""
    return Canary(outside)


@pytest.fixture
def make_ctx(workspace: Path):
    """``make_ctx(root=workspace, **settings)``: tool contexts; every process they started is killed at teardown."""
    from lackpy.kit.context import ToolContext
    from lackpy.tools.shell import stop_all

    made: list = []

    def make(root: Path = workspace, **settings) -> ToolContext:
        context = ToolContext(root, settings=settings)
        made.append(context)
        return context

    yield make
    for context in made:
        stop_all(context.state)


@pytest.fixture
def redis_url(tmp_path: Path):
    """A real redis-server on a free loopback port for this test (skipped, saying how to get one, where it is not installed)."""
    from tests.cluster import redis_server

    with redis_server(tmp_path / "redis") as url:
        yield url
