"""KitPolicy and what it lets a served client do: allowed kits, refusals, tool hints, description sizes."""

from __future__ import annotations

import pytest

from mcp_support import run

from lackpy import LackpyService
from lackpy.errors import KitError, LackpyError
from lackpy.infer.prompt import estimate_tokens

pytest.importorskip("mcp")

from lackpy.mcp.describe import run_program_description  # noqa: E402
from lackpy.mcp.policy import KitPolicy  # noqa: E402
from lackpy.mcp.server import build_server  # noqa: E402

#: run_program's description for the coding kit, in tokens (4 characters each), never to grow past.
CODING_DESCRIPTION_TOKENS = 800


@pytest.fixture
def svc(workspace):
    with LackpyService(workspace, trust=False) as service:
        yield service


def test_the_default_allows_only_read_only_kits(svc):
    policy = KitPolicy.build(svc)
    assert policy.allowed == ("readonly",) and policy.read_only and not policy.destructive and not policy.open_world
    assert policy.kit_for(svc, None) == "readonly" and policy.kit_for(svc, "read_file,grep") == "read_file,grep"
    with pytest.raises(KitError, match="--allow-kits readonly,filesystem"):
        policy.kit_for(svc, "filesystem")


def test_the_default_kit_is_always_allowed(svc):
    policy = KitPolicy.build(svc, "coding")
    assert policy.allowed[0] == "coding" and "readonly" in policy.allowed
    assert not policy.read_only and policy.destructive


def test_an_unknown_allowed_kit_fails_at_start(svc):
    with pytest.raises(LackpyError, match="nosuch"):
        KitPolicy.build(svc, allow_kits=["readonly", "nosuch"])


def test_allowing_coding_changes_the_hints_and_lets_it_run(svc):
    from mcp import Client

    server = build_server(svc, KitPolicy.build(svc, allow_kits=["readonly", "coding"]))

    async def session():
        async with Client(server) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            answer = await client.call_tool("run_program", {"program": 'todo_set(["a"])\nlen(todo_read())', "kit": "coding"})
            return tools, answer

    tools, answer = run(session())
    hints = tools["run_program"].annotations
    assert hints.read_only_hint is False and hints.destructive_hint is True
    assert "coding" in tools["run_program"].description
    assert not answer.is_error and answer.structured_content["output"] == 1


def test_the_coding_description_stays_small(svc):
    description = run_program_description(svc.resolve_kit("coding"), ("coding",))
    assert "run_command(" in description and estimate_tokens(description) <= CODING_DESCRIPTION_TOKENS


def test_a_servers_ceiling_refuses_a_program_above_it_before_it_runs(svc, workspace):
    from mcp import Client

    server = build_server(svc, KitPolicy.build(svc, "coding", ["coding"]), ceiling="readonly")

    async def session():
        async with Client(server) as client:
            refused = await client.call_tool("run_program", {"program": 'run_command("touch canary.txt")'})
            allowed = await client.call_tool("run_program", {"program": 'len(find_files("**/*"))'})
            return refused, allowed

    refused, allowed = run(session())
    assert refused.is_error and refused.structured_content["error_kind"] == "denied"
    assert "denied: the program calls run_command (w=3 d=3), above the ceiling w=1 d=0" in refused.content[0].text
    assert not (workspace / "canary.txt").exists()
    assert not allowed.is_error and allowed.structured_content["risk"] == "safe"
