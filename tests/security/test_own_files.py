"""lackpy's own files are not the program's to change: nothing under .lackpy/ is created, changed or deleted by a tool.

A program that could rewrite ``.lackpy/kits/readonly.kit`` or
``.lackpy/config.toml`` would widen its own powers on the next run (a kit
with run_command, ``deny = []``). The file tools refuse every path there, as
written and as resolved; commands get ``.lackpy/`` read-only from Landlock
(tests/host/test_confine.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy.service import LackpyService

KIT = "---\nname: readonly\ndescription: x\n---\nread_file\nrun_command\n"


@pytest.fixture
def lackpy_dir(workspace: Path, trusted) -> Path:
    state = workspace / ".lackpy"
    (state / "kits").mkdir(parents=True, exist_ok=True)
    (state / "kits" / "readonly.kit").write_text("---\nname: readonly\ndescription: mine\n---\nread_file\n")
    (state / "config.toml").write_text('[tools]\ndeny = ["secrets/"]\n')
    (workspace / "into").symlink_to(".lackpy")
    trusted(workspace)
    return state


def _snapshot(state: Path) -> dict[str, bytes]:
    return {str(p.relative_to(state)): p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file() and "commit" not in p.parts}


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize(
    "program",
    [
        f'write_file(".lackpy/kits/readonly.kit", {KIT!r})',
        'write_file(".lackpy/config.toml", "deny = []")',
        'write_file(".lackpy/kits/new.kit", "x")',
        'write_file(".LACKPY/config.toml", "x")',
        'write_file("into/config.toml", "deny = []")',
        'write_file("src/../.lackpy/config.toml", "x")',
        'edit_file(".lackpy/config.toml", "secrets/", "nothing/")',
        'edit_file("into/kits/readonly.kit", "read_file", "run_command")',
        'write_file(".lackpy", "x")',
    ],
)
def test_no_tool_changes_lackpys_own_files(workspace, lackpy_dir, program, mode):
    before = _snapshot(lackpy_dir)

    async def run():
        async with LackpyService(workspace, approve=True) as service:
            return await service.run_program(program, kit="filesystem", mode=mode)

    result = asyncio.run(run())
    assert not result.success
    assert result.error_kind == "tool", result.error
    assert "lackpy's own" in result.error, result.error
    assert _snapshot(lackpy_dir) == before
    assert not (workspace / ".LACKPY").exists()


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize(
    "program",
    [
        'write_file(".git/hooks/pre-commit", "#!/bin/sh\\ntouch PWNED\\n")',
        'edit_file(".git/config", "bare = false", "bare = false\\n\\tfsmonitor = touch PWNED")',
        'write_file(".GIT/hooks/post-checkout", "x")',
        'write_file("gitdir/hooks/pre-push", "x")',
        'write_file("vendor/lib/.git/hooks/pre-commit", "x")',
    ],
)
def test_no_tool_plants_what_git_runs(workspace, program, mode):
    """A hook or a config line in .git/ would run outside any sandbox the next time the person uses git."""
    git = workspace / ".git"
    (git / "hooks").mkdir(parents=True)
    (git / "config").write_text("[core]\n\tbare = false\n")
    (workspace / "gitdir").symlink_to(".git")
    before = {str(p): p.read_bytes() for p in git.rglob("*") if p.is_file()}

    async def run():
        async with LackpyService(workspace, approve=True) as service:
            return await service.run_program(program, kit="filesystem", mode=mode)

    result = asyncio.run(run())
    assert not result.success and "git's own" in result.error, result.error
    assert {str(p): p.read_bytes() for p in git.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in (git / "hooks").iterdir()) == []
    assert not (workspace / "vendor").exists()


def test_reading_lackpys_files_still_works(workspace, lackpy_dir):
    async def run():
        async with LackpyService(workspace) as service:
            return await service.run_program('read_file(".lackpy/config.toml")', kit="filesystem", mode="inprocess")

    result = asyncio.run(run())
    assert result.success, result.error
    assert "secrets/" in result.output
