"""Kit ``mcp:NAME``: every tool of one MCP server, for ``--kit``, ``--allow-kits`` and any kit argument (real stdio servers)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from lackpy import LackpyService  # noqa: E402
from lackpy.errors import KitError  # noqa: E402

SERVERS = Path(__file__).with_name("servers.py")
NOTES_TOOLS = ["notes__add_note", "notes__ask", "notes__big", "notes__flood", "notes__list_notes", "notes__refuse", "notes__secret_env", "notes__slow", "notes__word_count"]


def table(name: str, grade: str) -> str:
    return f"[mcp.servers.{name}]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(SERVERS), name])}\ngrade = {grade}\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".lackpy").mkdir(parents=True)
    (root / ".lackpy" / "config.toml").write_text(table("notes", "[0, 1]") + table("crashy", "[0, 0]") + table("broken", "[0, 0]"))
    return root


def test_a_server_kit_is_every_tool_of_that_server_and_starts_only_it(ws):
    with LackpyService(ws, trust=True) as svc:
        kit = svc.resolve_kit("mcp:notes")
        live = sorted(svc._workspace.loaded.remotes.live())
        mixed = svc.resolve_kit("mcp:notes,read_file")
        listed = svc.resolve_kit(["mcp:notes", "notes__slow"])
    assert kit.name == "mcp:notes" and sorted(kit.tools) == [*NOTES_TOOLS, "search_tools"]
    assert (kit.grade.w, kit.grade.d) == (0, 1)
    assert live == NOTES_TOOLS  # crashy did not start
    assert sorted(mixed.tools) == [*NOTES_TOOLS, "read_file", "search_tools"]
    assert sorted(listed.tools) == [*NOTES_TOOLS, "search_tools"]  # a tool of the server named again counts once


@pytest.mark.parametrize(
    "kit, message",
    [
        ("mcp:nope", "kit 'mcp:nope': no MCP server 'nope' serves tools here; lackpy mcp status shows the servers"),
        ("mcp:broken", "kit 'mcp:broken': the MCP server broken is not available ("),
        ("mcp:", "kit 'mcp:': name an MCP server after 'mcp:'"),
        ("mcp:a b", "kit 'mcp:a b': name an MCP server after 'mcp:'"),
    ],
)
def test_a_server_kit_that_names_no_serving_server_is_a_kit_error(ws, kit, message):
    with LackpyService(ws, trust=True) as svc:
        with pytest.raises(KitError) as raised:
            svc.resolve_kit(kit)
    assert str(raised.value).startswith(message)


def test_an_untrusted_workspaces_server_is_no_kit(ws):
    with LackpyService(ws, trust=False) as svc:
        with pytest.raises(KitError, match="no MCP server 'notes' serves tools here"):
            svc.resolve_kit("mcp:notes")


@pytest.mark.slow
def test_lackpy_serve_offers_a_server_by_name_and_a_refusal_names_the_server_kit(ws):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(ws), "--trust", "--kit", "mcp:notes", "--allow-kits", "mcp:notes"], env=dict(os.environ)
    )

    async def main():
        async with Client(params) as client:
            counted = await client.call_tool("run_program", {"program": 'notes__word_count("one two three")'})
            other_kit = await client.call_tool("run_program", {"program": "crashy__ping()", "kit": "mcp:crashy"})
            other_tool = await client.call_tool("run_program", {"program": "crashy__ping()", "kit": "crashy__ping"})
            return counted, other_kit, other_tool

    counted, other_kit, other_tool = asyncio.run(asyncio.wait_for(main(), 60))
    assert not counted.is_error and counted.structured_content["output"] == {"words": 3}, counted.content
    assert other_kit.is_error and "kit 'mcp:crashy' is not allowed by this server (allowed: mcp:notes)" in other_kit.content[0].text
    assert "lackpy serve --allow-kits mcp:notes,mcp:crashy" in other_kit.content[0].text
    assert other_tool.is_error and "tool(s) crashy__ping are in no kit this server allows" in other_tool.content[0].text
    assert "lackpy serve --allow-kits mcp:notes,mcp:crashy" in other_tool.content[0].text
