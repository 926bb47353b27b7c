"""approve = "effects" over MCP: one elicitation names every call that can act, on both protocol eras; its form
has an any_N checkbox per computed argument; nothing more is asked while the program runs."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import mcp_types
import pytest
from mcp import Client, StdioServerParameters

from lackpy import LackpyService
from lackpy.mcp.policy import KitPolicy
from lackpy.mcp.server import build_server
from mcp_support import PYTHON

ERAS = ["legacy", "auto"]  # auto negotiates 2026-07-28: the question comes back as an InputRequiredResult
FOUR = "write_file('a.txt', 'A')\nwrite_file('b.txt', 'B')\nwrite_file('c.txt', 'C')\nrun_command('touch canary.txt')['code']"
LOOP = "names = ['x', 'y']\nfor n in names:\n    run_command('touch ' + n + '.out')\n'done'"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


class Asked:
    """An elicitation callback that accepts every question with ``content``, keeping each message and form."""

    def __init__(self, content: dict | None = None) -> None:
        self.content, self.messages, self.forms = content if content is not None else {"approve": True}, [], []

    async def __call__(self, context, params):
        self.messages.append(params.message)
        self.forms.append(params.requested_schema)
        return mcp_types.ElicitResult(action="accept", content=self.content)


async def call(server, mode: str, asked: Asked, program: str) -> dict:
    async with Client(server, mode=mode, elicitation_callback=asked) as client:
        result = await client.call_tool("run_program", {"program": program, "kit": "coding"})
    return {"error": result.is_error, **(result.structured_content or {})}


def in_process(ws: Path, mode: str, asked: Asked, program: str) -> dict:
    async def main() -> dict:
        with LackpyService(ws, {"approve": "effects"}) as svc:
            server = build_server(svc, KitPolicy.build(svc, "readonly", ["readonly", "coding"]))
            return await call(server, mode, asked, program)

    return asyncio.run(main())


@pytest.mark.parametrize("mode", ERAS)
def test_three_writes_and_a_command_are_one_elicitation_naming_all_four(ws, mode):
    asked = Asked()
    result = in_process(ws, mode, asked, FOUR)
    assert not result["error"] and result["output"] == 0, result
    message, commit = asked.messages  # the commit keeps its own question, once the run is over
    assert "a.txt" in commit and "run_command" not in commit
    assert message.startswith("lackpy: Run this program with these effects? run a program (critical, w=3 d=3) that may make these 4 calls")
    for call_text in ["write_file(path='a.txt', content='A')", "write_file(path='b.txt', content='B')",
                      "write_file(path='c.txt', content='C')", "run_command(command='touch canary.txt')"]:
        assert call_text in message
    assert list(asked.forms[0]["properties"]) == ["approve"]
    assert [(d["gate"], d["by"]) for d in result["decisions"]] == [("effects", "client"), ("call", "effects"), ("commit", "client")]
    assert (ws / "canary.txt").exists() and (ws / "a.txt").read_text() == "A"


@pytest.mark.parametrize("mode", ERAS)
def test_the_form_asks_whether_any_value_is_allowed_for_each_computed_argument(ws, mode):
    asked = Asked({"approve": True, "any_1": True})
    result = in_process(ws, mode, asked, LOOP)
    assert not result["error"] and result["output"] == "done", result
    assert len(asked.messages) == 1 and (ws / "x.out").exists() and (ws / "y.out").exists()
    field = asked.forms[0]["properties"]["any_1"]
    assert field["type"] == "boolean" and field["default"] is False and "line 3: run_command command = 'touch ' + n + '.out'" in field["description"]
    assert result["decisions"][0]["any_value"] == [1] and result["decisions"][0]["effects"][0]["arguments"][0]["any_value"] is True


@pytest.mark.parametrize("mode", ERAS)
def test_left_unchecked_each_computed_value_is_asked_about_as_it_runs(ws, mode):
    asked = Asked()
    result = in_process(ws, mode, asked, LOOP)
    assert not result["error"] and len(asked.messages) == 3
    assert asked.messages[1].startswith("lackpy: Make this call? run_command(command='touch x.out')")


@pytest.mark.parametrize("mode", ERAS)
def test_an_any_value_that_is_not_a_checkbox_answer_approves_nothing(ws, mode):
    result = in_process(ws, mode, Asked({"approve": True, "any_1": "yes"}), LOOP)
    assert result["error_kind"] == "denied" and "did not fill in the form" in result["error"] and not (ws / "x.out").exists()


def test_over_stdio_a_trusted_workspace_asking_for_effects_asks_once(ws, server_env):
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('approve = "effects"\n')
    subprocess.run([PYTHON, "-m", "lackpy", "trust", str(ws)], env=server_env, check=True, capture_output=True)
    server = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(ws), "--allow-kits", "readonly,coding"], env=server_env)
    asked = Asked()
    result = asyncio.run(call(server, "auto", asked, FOUR))
    assert not result["error"] and len(asked.messages) == 2 and "run_command(command='touch canary.txt')" in asked.messages[0]
    assert asked.messages[1].startswith("lackpy: Apply") or "b.txt" in asked.messages[1]
    assert (ws / "canary.txt").exists() and (ws / "b.txt").read_text() == "B"
