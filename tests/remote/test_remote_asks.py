"""A remote server's question (elicitation) reaches the person through the run's approval channel, and nothing else answers it.

The server ``notes`` (tests/remote/servers.py, the Python SDK) asks on a
2026-07-28 connection, through InputRequiredResult rounds; ``asker``
(tests/mcp/ts/ask_server.mjs, the TypeScript SDK) asks in the middle of a
handshake-era call. Each channel answers: a Python ``approve`` callback, the
client of ``lackpy serve`` (in both of its own eras), and the terminal.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from terminal import typed
from tests.remote.test_remote_servers import server_table, workspace_with
from installed import ts_missing

pytest.importorskip("mcp")

ASK_SERVER = Path(__file__).parents[1] / "mcp" / "ts" / "ask_server.mjs"
HAS_TS, TS_MISSING = ts_missing() is None, str(ts_missing())
SERVERS = {
    "notes": ("notes__ask", server_table("notes", "notes", grade="[0, 1]")),
    "asker": ("asker__ask", f'[mcp.servers.asker]\ncommand = "node"\nargs = [{json.dumps(str(ASK_SERVER))}]\ngrade = [0, 1]\n'),
}
ERAS = [
    pytest.param("notes", id="2026-07-28"),
    pytest.param("asker", id="handshake", marks=pytest.mark.skipif(not HAS_TS, reason=TS_MISSING)),
]


def ws_for(tmp_path: Path, server: str) -> Path:
    return workspace_with(tmp_path / "ws", SERVERS[server][1])


def ask(root: Path, server: str, approve, question: str = "who?"):
    from lackpy import LackpyService

    tool = SERVERS[server][0]

    async def main():
        async with LackpyService(root, trust=True, approve=approve) as svc:
            return await svc.run_program(f"{tool}({question!r})", kit=tool)

    return asyncio.run(main())


@pytest.mark.parametrize("server", ERAS)
def test_a_python_callback_answers_the_servers_question_with_its_form_filled(tmp_path, server):
    asked = []

    async def approve(request):
        asked.append(request)
        return {"name": "Ada", "count": 3}

    result = ask(ws_for(tmp_path, server), server, approve)
    assert result.success and result.output == "Ada x3", result.error
    (request,) = asked
    assert request.gate == "elicit" and request.server == server and request.tool == SERVERS[server][0]
    assert request.summary() == f"the MCP server {server} asks, during {request.tool}:"
    assert request.lines() == ["who?", "- name (string, required): who", "- count (integer, default 1): how many"]
    (kept,) = result.decisions
    assert (kept.gate, kept.approved, kept.by, kept.tool) == ("elicit", True, "callback", request.tool)
    assert "Ada" not in json.dumps(result.to_dict()["decisions"])  # what was typed is the server's, not the record's


@pytest.mark.parametrize("server", ERAS)
@pytest.mark.parametrize(
    "answer, sent, why",
    [
        ({"name": "Ada", "count": "three"}, "decline", "the answer was not sent: the field 'count' takes a whole number"),
        ({"count": 2}, "decline", "the answer was not sent: the required field 'name' was not filled in"),
        ({"name": "Ada", "extra": 1}, "decline", "the answer was not sent: the form has no field 'extra'"),
        (False, "decline", "refused"),
    ],
)
def test_an_answer_that_does_not_fill_in_the_form_never_reaches_the_server(tmp_path, server, answer, sent, why):
    async def approve(request):
        return answer

    result = ask(ws_for(tmp_path, server), server, approve)
    assert result.success and result.output == sent
    assert result.decisions[0].reason == why


@pytest.mark.parametrize("server", ERAS)
def test_with_nobody_to_ask_or_only_yes_the_question_is_declined(tmp_path, server):
    root = ws_for(tmp_path, server)
    nobody, yes = ask(root, server, None), ask(root, server, True)
    assert nobody.output == "decline" and nobody.decisions[0].by == "nobody" and "approve=" in nobody.decisions[0].reason
    assert yes.output == "decline" and yes.decisions[0].by == "yes" and "needs a person's answer" in yes.decisions[0].reason


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_the_client_of_lackpy_serve_answers_with_the_servers_own_form(tmp_path, era):
    import mcp_types
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    root = ws_for(tmp_path, "notes")
    asked = []

    async def answer(context, params):
        asked.append(params)
        return mcp_types.ElicitResult(action="accept", content={"name": "Bo", "count": 2})

    async def main():
        with LackpyService(root, trust=True) as svc:
            server = build_server(svc, KitPolicy.build(svc, "notes__ask", ["notes__ask"]))
            async with Client(server, mode=era, elicitation_callback=answer) as client:
                return await client.call_tool("run_program", {"program": "notes__ask('who is it?')"})

    answered = asyncio.run(main())
    assert not answered.is_error and answered.structured_content["output"] == "Bo x2"
    (params,) = asked
    assert params.message == (
        "lackpy: A question for you: the MCP server notes asks, during notes__ask:\n"
        "who is it?\n- name (string, required): who\n- count (integer, default 1): how many"
    )
    assert set(params.requested_schema["properties"]) == {"name", "count"} and params.requested_schema["required"] == ["name"]


@pytest.mark.skipif(not HAS_TS, reason=TS_MISSING)
def test_a_handshake_era_server_that_lists_roots_gets_the_workspace_alone(tmp_path):
    from lackpy import LackpyService

    root = ws_for(tmp_path, "asker")

    async def main():
        async with LackpyService(root, trust=True) as svc:
            return await svc.run_program("asker__roots()", kit="asker__roots")

    result = asyncio.run(main())
    assert result.success and result.output == [["ws", root.resolve().as_uri()]], result.error


def test_on_a_terminal_the_person_fills_in_each_field_and_is_asked_again_after_a_wrong_one(tmp_path):
    root = ws_for(tmp_path, "notes")
    (root / "ask.py").write_text("notes__ask('who?')\n")
    argv = [sys.executable, "-m", "lackpy", "run", "--kit", "notes__ask", "ask.py"]
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], cwd=root, check=True, capture_output=True, timeout=60)
    code, out = typed(
        argv, root,
        [(b"answer it? [y/N]", b"y\n"), (b"name (string, required): who: ", b"Cy\n"), (b"count (integer, default 1): how many: ", b"three\n"),
         (b"answer a whole number\r\n  count (integer, default 1): how many: ", b"4\n")],
    )
    assert code == 0, out
    assert "lackpy: a question for you: the MCP server notes asks, during notes__ask:\n  who?\n" in out
    assert "Cy x4" in out
    code, out = typed(argv, root, [(b"answer it? [y/N]", b"y\n"), (b"who: ", b"Di\n"), (b"count (integer, default 1): how many: ", b"\n")])
    assert code == 0 and "Di x1" in out, out  # the field left empty is sent with the default its line showed


def test_a_server_that_keeps_asking_is_declined_unasked_after_five_questions():
    """Each question stops the run's clock: a server may not hold the run, and the person, by asking for ever."""
    from mcp.types import ElicitRequestFormParams

    from lackpy.remote.asks import MOST_QUESTIONS, Asker
    from lackpy.approvals.decision import Decision
    from lackpy.approvals.gatekeeper import Gatekeeper
    from lackpy.approvals.policy import policy_from

    asked = []

    def approver(request):
        asked.append(request.question)
        return Decision(True, "callback", "answered", content={"name": "Ada"})

    gatekeeper = Gatekeeper(policy_from({}), approver)
    asker = Asker(gatekeeper, "nag", "nag__ask")
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answers = [asker.answer(ElicitRequestFormParams(message=f"again {i}?", requested_schema=form)) for i in range(8)]
    assert [a.action for a in answers] == ["accept"] * MOST_QUESTIONS + ["decline"] * (8 - MOST_QUESTIONS)
    assert asked == [f"again {i}?" for i in range(MOST_QUESTIONS)]


def test_an_accepted_form_carries_the_defaults_of_the_fields_left_out():
    """What a form shows as a field's default is what the person accepted by leaving it alone: the server gets it (SEP-1034).
    A default that does not fit its field (wrong type, not among the choices) is left out, as the person did."""
    from mcp.types import ElicitRequestFormParams

    from lackpy.remote.asks import Asker
    from lackpy.approvals.decision import Decision
    from lackpy.approvals.gatekeeper import Gatekeeper
    from lackpy.approvals.policy import policy_from

    gatekeeper = Gatekeeper(policy_from({}), lambda request: Decision(True, "callback", "answered", content={"name": "Ada"}))
    form = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "default": 1},
            "loud": {"type": "boolean", "default": True},
            "tone": {"type": "string", "enum": ["calm", "warm"], "default": "warm"},
            "shade": {"type": "string", "enum": ["dark"], "default": "light"},
            "ratio": {"type": "number", "default": "half"},
            "note": {"type": "string"},
        },
        "required": ["name", "count"],
    }
    answer = Asker(gatekeeper, "forms", "forms__ask").answer(ElicitRequestFormParams(message="who?", requested_schema=form))
    assert answer.action == "accept"
    assert answer.content == {"name": "Ada", "count": 1, "loud": True, "tone": "warm"}


def test_a_required_field_with_a_default_shows_the_default_it_takes_when_left_out():
    """The person sees every value an answer sends: a default filled in for a field left out is on the field's line."""
    from lackpy.approvals import forms

    form = {
        "type": "object",
        "properties": {"count": {"type": "integer", "default": 1}, "shade": {"type": "string", "enum": ["dark"], "default": "light"}},
        "required": ["count", "shade"],
    }
    lines = [field.line() for field in forms.fields(form)]
    assert lines == ["count (integer, required, default 1)", "shade (one of dark, required)"]
    assert forms.filled(form, {}) == {"count": 1}
    assert forms.problem(form, forms.filled(form, {})) == "the required field 'shade' was not filled in"
