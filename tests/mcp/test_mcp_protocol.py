"""lackpy serve's protocol behaviour through the MCP SDK's own client: cancellation, both protocol eras, progress, arbitrary arguments."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import COUNT, run, comparable

LONG = 'write_file("out.txt", "x")\nx = 0\nfor i in range(9000000):\n    for j in range(9000000):\n        x = x + 1\nx\n'
MODES = ["auto", "legacy"]


@pytest.fixture
def workspace(tmp_path) -> Path:
    return make_workspace(tmp_path / "ws")


def _client(request, workspace: Path, mode: str = "auto", allow_kits=None):
    """An in-process SDK client over a lackpy server on ``workspace``."""
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    service = LackpyService(workspace, trust=False)
    request.addfinalizer(service.close)
    return Client(build_server(service, KitPolicy.build(service, allow_kits=allow_kits)), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_cancelled_run_stops_and_discards_its_writes(request, workspace, mode):
    client = _client(request, workspace, mode, allow_kits=["readonly", "filesystem"])

    async def session():
        async with client:
            call = asyncio.create_task(client.call_tool("run_program", {"program": LONG, "kit": "filesystem", "limits": {"timeout_s": 60}}))
            await asyncio.sleep(0.8)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            start = time.monotonic()
            answer = await asyncio.wait_for(client.call_tool("run_program", {"program": "1 + 1"}), 20)
            return answer, time.monotonic() - start

    answer, took = run(session())
    assert not answer.is_error, answer
    assert answer.structured_content["output"] == 2
    assert took < 10
    time.sleep(0.3)
    assert not (workspace / "out.txt").exists()


@pytest.mark.parametrize("mode", MODES)
def test_run_program_answers_alike_in_both_protocol_eras(request, workspace, mode):
    client = _client(request, workspace, mode)

    async def session():
        async with client:
            return client.protocol_version, await client.call_tool("run_program", {"program": COUNT})

    version, answer = run(session())
    assert version.startswith("2026") == (mode == "auto"), version
    assert not answer.is_error, answer
    assert answer.structured_content["output"] == 3


def _with_progress(client, name: str, args: dict):
    """The answer to one call made with a progress callback, and the (progress, total, message) it received."""
    received: list[tuple] = []

    async def callback(progress, total, message):
        received.append((progress, total, message))

    async def session():
        async with client:
            answer = await client.call_tool(name, args, progress_callback=callback)
            plain = await client.call_tool(name, args)
            await asyncio.sleep(0.2)
            return answer, plain

    answer, plain = run(session())
    return answer, plain, received


@pytest.mark.parametrize("mode", MODES)
def test_run_program_reports_progress_apart_from_its_result(request, workspace, mode):
    answer, plain, received = _with_progress(_client(request, workspace, mode), "run_program", {"program": COUNT})
    assert not answer.is_error, answer
    assert answer.structured_content["output"] == 3
    assert comparable(answer.structured_content) == comparable(plain.structured_content)
    assert len(answer.content) == len(plain.content) == 1
    messages = [message for _, _, message in received]
    assert messages[0] == "running the program with kit readonly"
    assert messages[1] == "1 tool call, the last find_files"
    assert all(re.fullmatch(r"\d+ tool calls, the last (find_files|read_file)", message) for message in messages[2:-1]), messages
    assert messages[-1] == "done: 3 tool calls"
    assert [progress for progress, _, _ in received] == list(range(1, len(messages) + 1))


@pytest.mark.parametrize("mode", MODES)
def test_delegate_reports_the_tiers_it_tries(request, workspace, mode):
    answer, plain, received = _with_progress(_client(request, workspace, mode), "delegate", {"intent": "count TODOs", "kit": "readonly"})
    assert not answer.is_error, answer
    assert answer.structured_content["execution"]["output"] == 3
    assert comparable(answer.structured_content) == comparable(plain.structured_content)
    messages = [message for _, _, message in received]
    assert messages[0] == "writing a program for the intent" and messages[-1] == "done"
    assert any(message.startswith("trying tier ") for message in messages), messages
    progress = [value for value, _, _ in received]
    assert progress == sorted(set(progress))
    assert all("progress" not in block.text for block in answer.content)


TOOLS = {
    "run_program": ["program", "kit", "params", "dry_run", "limits", "session", "keep", "reset"],
    "validate": ["program", "kit"],
    "delegate": ["intent", "kit", "params", "dry_run", "session"],
    "generate": ["intent", "kit"],
    "kit_list": [],
    "kit_info": ["kit"],
    "docs_index": ["kit"],
    "resolve_doc": ["path_or_tool"],
}


def _arguments():
    """Strategies: any JSON value, and a call to any lackpy tool with JSON values under its own or other argument names."""
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)

    def call(name: str):
        names = st.sampled_from(TOOLS[name] + ["extra"]) if TOOLS[name] else st.just("extra")
        return st.tuples(st.just(name), st.dictionaries(names | st.text(max_size=6), values, max_size=4))

    return st.sampled_from(sorted(TOOLS)).flatmap(call)


@pytest.mark.parametrize("mode", MODES)
def test_arbitrary_arguments_are_answered_as_tool_results(tmp_path, mode):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from mcp import Client
    from mcp.types import CallToolResult

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    service = LackpyService(make_workspace(tmp_path / "ws"), trust=False)
    server = build_server(service, KitPolicy.build(service))

    @settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(_arguments(), min_size=1, max_size=4))
    def check(calls):
        async def session():
            async with Client(server, mode=mode) as client:
                answers = [await client.call_tool(name, arguments) for name, arguments in calls]
                return answers, await client.call_tool("run_program", {"program": "1 + 1"})

        answers, trivial = run(session())
        for (name, arguments), answer in zip(calls, answers):
            assert isinstance(answer, CallToolResult), (name, arguments, answer)
            if answer.is_error:  # one line for the model, the structured error for a program
                assert len(answer.content) == 1 and "\n" not in answer.content[0].text, (name, arguments, answer)
                assert answer.structured_content, (name, arguments, answer)
        assert not trivial.is_error and trivial.structured_content["output"] == 2

    try:
        check()
    finally:
        service.close()


@pytest.mark.parametrize("mode", MODES)
def test_delegate_reports_each_attempt_of_a_model_tier(workspace, mode):
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server
    from tests.infer.llm_server import FakeLLM

    good = 'files = find_files("**/*.py")\nsum(read_file(f).count("TODO") for f in files)'
    with FakeLLM(["while True:\n    pass", good]) as model:
        service = LackpyService(workspace, {"inference": {"order": ["ollama"], "ollama": {"host": model.url, "model": model.model}}})
        try:
            answer, _, received = _with_progress(Client(build_server(service, KitPolicy.build(service)), mode=mode), "delegate", {"intent": "count TODOs"})
        finally:
            service.close()
    assert not answer.is_error, answer
    assert answer.structured_content["provider"] == "ollama" and answer.structured_content["execution"]["output"] == 3
    messages = [message for _, _, message in received]
    assert messages[1] == "trying tier ollama (a model)"
    assert messages.index("tier ollama: attempt 1") < messages.index("tier ollama: attempt 2") < messages.index("tier ollama finished")


#: read_file calls one after another until flag.txt no longer says go (the test says when), then the count.
POLL = 'n = 0\nfor i in range(10000000):\n    if read_file("flag.txt") != "go\\n":\n        break\n    n += 1\nn\n'
#: One tool call, then a long computation with none (about 2 s on an idle machine, longer on a busy one).
QUIET = 'read_file("flag.txt")\nt = 0\nfor i in range(30000):\n    for j in range(1000):\n        t += 1\nt\n'
LONG_LIMITS = {"timeout_s": 120, "max_tool_calls": 10000000}


def _timed_progress(client, program: str, stop_after: float | None = None, workspace: Path | None = None):
    """One run_program with a progress callback: the answer, and (seconds since the call, progress, message) of each notice."""
    import threading

    received: list[tuple] = []

    async def session():
        async with client:
            start = time.monotonic()

            async def callback(progress, total, message):
                received.append((time.monotonic() - start, progress, message))

            timer = threading.Timer(stop_after, (workspace / "flag.txt").write_text, ("stop\n",)) if stop_after else None
            if timer is not None:
                timer.start()
            try:
                answer = await client.call_tool("run_program", {"program": program, "limits": LONG_LIMITS}, progress_callback=callback)
            finally:
                if timer is not None:
                    timer.cancel()
            return answer, time.monotonic() - start

    answer, took = run(session())
    return answer, took, received


def _steady(received: list[tuple], took: float) -> None:
    """Notices from start to end, none more than 1.2 s apart, their progress strictly increasing."""
    times = [0.0] + [at for at, _, _ in received] + [took]
    assert max(b - a for a, b in zip(times, times[1:])) <= 1.2, received
    progress = [value for _, value, _ in received]
    assert all(b > a for a, b in zip(progress, progress[1:])), progress


@pytest.mark.parametrize("mode", MODES)
def test_a_long_run_sends_progress_at_a_steady_rhythm_not_one_per_call(request, workspace, mode):
    (workspace / "flag.txt").write_text("go\n")
    answer, took, received = _timed_progress(_client(request, workspace, mode), POLL, 2.5, workspace)
    assert not answer.is_error, answer
    made = answer.structured_content["output"]
    messages = [message for _, _, message in received]
    assert messages[0] == "running the program with kit readonly" and messages[-1] == f"done: {made + 1} tool calls"
    told = [int(m.group(1)) for m in (re.fullmatch(r"(\d+) tool calls?, the last read_file", message) for message in messages[1:-1]) if m]
    assert len(told) >= 4 and told == sorted(told) and told[-1] > told[0]  # 2.5 s, told every 0.5 s
    assert len(received) <= 2 + took / 0.5 + 2, messages  # thousands of calls, a handful of notices
    _steady(received, took)


@pytest.mark.parametrize("mode", MODES)
def test_a_long_computation_with_no_tool_call_still_sends_a_heartbeat(request, workspace, mode):
    (workspace / "flag.txt").write_text("go\n")
    answer, took, received = _timed_progress(_client(request, workspace, mode), QUIET)
    assert not answer.is_error and answer.structured_content["output"] == 30000 * 1000, answer
    messages = [message for _, _, message in received]
    assert messages[:2] == ["running the program with kit readonly", "1 tool call, the last read_file"], messages
    beats = [message for message in messages if message.startswith("still working after ")]
    assert len(beats) >= 1 and all(re.fullmatch(r"still working after \d+\.\d s: 1 tool call, the last read_file", beat) for beat in beats), messages
    assert len(beats) >= took / 0.75 - 3, (took, messages)
    _steady(received, took)


@pytest.mark.parametrize("mode", MODES)
def test_a_short_run_sends_the_few_notices_it_always_did(request, workspace, mode):
    answer, took, received = _timed_progress(_client(request, workspace, mode), COUNT)
    assert not answer.is_error and took < 0.75, took
    assert [message for _, _, message in received] == ["running the program with kit readonly", "1 tool call, the last find_files", "done: 3 tool calls"]
