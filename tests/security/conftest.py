"""Fixtures for the adversarial suite: a populated toolbox, the filesystem kit and the canary."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from lackpy import ArgSpec, ToolSpec, Toolbox, resolve_kit
from lackpy.plugins import populate

from .support import Canary

TOOL_MODULE = "lackpy_security_tools"
TOOL_SOURCE = textwrap.dedent(
    """
    import os
    import time

    def touch_readme():
        # Another writer changes README.md on disk while the program runs.
        with open(os.environ["LACKPY_SECURITY_README"], "a") as handle:
            handle.write("changed behind the program's back\\n")
        return "touched"

    def create_behind(name):
        # Another writer creates a workspace file the program is about to create.
        path = os.path.join(os.environ["LACKPY_SECURITY_WORKSPACE"], name)
        with open(path, "w") as handle:
            handle.write("created by someone else\\n")
        return "created"

    def slow(seconds):
        time.sleep(seconds)
        return "slept"
    """
)


@pytest.fixture
def toolbox(workspace: Path) -> Toolbox:
    box = Toolbox(str(workspace))
    populate(box)
    return box


@pytest.fixture
def kit(toolbox: Toolbox):
    """The filesystem kit: read_file, find_files, write_file, edit_file."""
    return resolve_kit("filesystem", toolbox)


@pytest.fixture
def canary(outside: Path, tmp_path: Path) -> Canary:
    """Snapshot of the canary outside the workspace (and of everything beside the workspace)."""
    return Canary(outside, tmp_path)


@pytest.fixture
def helper_kit(toolbox: Toolbox, workspace: Path, tmp_path_factory, monkeypatch):
    """The filesystem kit plus python-provider tools that act behind the program's back.

    The tools' module lives in its own temporary directory, so the canary's
    snapshot of everything beside the workspace is unaffected.
    """
    mods = tmp_path_factory.mktemp("mods")
    (mods / f"{TOOL_MODULE}.py").write_text(TOOL_SOURCE)
    monkeypatch.syspath_prepend(str(mods))
    monkeypatch.setenv("LACKPY_SECURITY_README", str(workspace / "README.md"))
    monkeypatch.setenv("LACKPY_SECURITY_WORKSPACE", str(workspace))
    sys.modules.pop(TOOL_MODULE, None)
    toolbox.register_tool(ToolSpec("touch_readme", "python", {"module": TOOL_MODULE}))
    toolbox.register_tool(ToolSpec("create_behind", "python", {"module": TOOL_MODULE}, args=[ArgSpec("name", "str")]))
    toolbox.register_tool(ToolSpec("slow", "python", {"module": TOOL_MODULE}, args=[ArgSpec("seconds", "float")]))
    yield resolve_kit(
        ["read_file", "find_files", "write_file", "edit_file", "touch_readme", "create_behind", "slow"], toolbox
    )
    sys.modules.pop(TOOL_MODULE, None)
