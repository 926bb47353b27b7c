"""Fixtures for the tool tests: a populated toolbox and a canary that must stay untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import lackpy.plugins
from lackpy.kit.toolbox import Toolbox


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
        stop_all(context.session)
