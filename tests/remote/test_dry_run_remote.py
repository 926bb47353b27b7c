"""A dry run and remote tools: a real stdio MCP server's writing tools are never called; its read-only ones still run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy.run.trace import HeldCall

from .test_remote_servers import server_table, workspace_with

pytest.importorskip("mcp")

MODES = ["inprocess", "isolated"]
KIT = "scribe__write_note,scribe__read_note,scribe__tidy,read_file,write_file"
#: The config grades read_note read-only; write_note and tidy (which only claims to be read-only) stay ungraded: (3, 3).
CONFIG = server_table("scribe", "scribe") + "[mcp.servers.scribe.tools.read_note]\ngrade = [1, 0]\n"


@pytest.fixture(scope="module")
def scribe(tmp_path_factory):
    from lackpy import LackpyService

    root = workspace_with(tmp_path_factory.mktemp("dry") / "ws", CONFIG)
    (root / "kept.txt").write_text("as it was")
    svc = LackpyService(root, trust=True)
    try:
        svc.load()
        yield svc, root
    finally:
        svc.close()


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, kit=KIT, approval="none", **options))


@pytest.mark.parametrize("mode", MODES)
def test_a_writing_remote_tool_is_not_called_in_a_dry_run(scribe, mode: str):
    """The server's writer would create the file: in a dry run it is refused, listed, and nothing is on disk."""
    svc, root = scribe
    name = f"remote-{mode}.txt"
    program = f't = scribe__read_note("kept.txt")\nwrite_file("copy.txt", t)\nscribe__write_note("{name}", t)'
    result = run(svc, program, mode=mode, dry_run=True)
    assert not (root / name).exists() and not (root / "copy.txt").exists()
    assert result.error_kind == "denied" and "its effects grade is 3" in result.error
    assert result.held_back == [HeldCall(3, "scribe__write_note", {"name": repr(name), "text": "'as it was'"}, "refused")]
    assert result.files_created == ["copy.txt"] and result.variables["t"] == "as it was"


@pytest.mark.parametrize("mode", MODES)
def test_a_read_only_hint_alone_does_not_make_a_tool_run(scribe, mode: str):
    """tidy says it is read-only and writes: without trust_annotations its grade is (3, 3) and a dry run holds it back."""
    svc, root = scribe
    result = run(svc, 'scribe__tidy("kept.txt")', mode=mode, dry_run=True)
    assert result.error_kind == "denied" and [held.tool for held in result.held_back] == ["scribe__tidy"]
    assert (root / "kept.txt").read_text() == "as it was"


@pytest.mark.parametrize("mode", MODES)
def test_a_read_only_remote_tool_still_runs_in_a_dry_run(scribe, mode: str):
    svc, _ = scribe
    result = run(svc, 'scribe__read_note("kept.txt")', mode=mode, dry_run=True)
    assert result.success and result.output == "as it was" and result.held_back == []


def test_without_a_dry_run_the_writer_really_writes(scribe):
    """The control: the same server tool writes the file when the run is not a dry run."""
    svc, root = scribe
    result = run(svc, 'scribe__write_note("real.txt", "written")', mode="inprocess")
    assert result.success and result.held_back == [] and (root / "real.txt").read_text() == "written"
