"""Fixtures for the kit tests: a toolbox holding the built-in tools over the workspace."""

from __future__ import annotations

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


@pytest.fixture
def kits_dir(workspace: Path) -> Path:
    """The workspace's ``.lackpy/kits`` directory, created empty."""
    path = workspace / ".lackpy" / "kits"
    path.mkdir(parents=True)
    return path
