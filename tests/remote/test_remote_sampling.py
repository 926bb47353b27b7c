"""A server's sampling request is answered by the inference tier the config names for it, and refused otherwise.

The server ``sampler`` (tests/remote/sampling_server.py, the Python SDK) asks
the client to sample from inside its tools, on a 2026-07-28 connection
(InputRequiredResult rounds); tests/mcp/ts/sampling_server.mjs (the TypeScript
SDK) asks in the middle of a handshake-era call. The tier is an Ollama tier
talking to a fake model on 127.0.0.1 (tests/infer/llm_server.py), so what the
model saw is what lackpy sent over the wire.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tests.infer.llm_server import FakeLLM
from tests.remote.test_remote_servers import workspace_with
from installed import ts_missing

HAS_TS, TS_MISSING = ts_missing() is None, str(ts_missing())

pytest.importorskip("mcp")

SERVER = Path(__file__).parent / "sampling_server.py"
SYSTEM = "You summarize in five words."


def sampler_table(**options: str) -> str:
    lines = ["[mcp.servers.sampler]", f"command = {json.dumps(sys.executable)}", f"args = {json.dumps([str(SERVER)])}", "grade = [0, 1]"]
    return "\n".join(lines + [f"{key} = {value}" for key, value in options.items()]) + "\n"


def model_tier(server: FakeLLM) -> str:
    return f'[inference.ollama]\nhost = "{server.url}"\nmodel = "{server.model}"\n'


def run(root: Path, program: str, kit: str, trust: bool = True):
    from lackpy import LackpyService
    from lackpy.errors import LackpyError

    async def main():
        async with LackpyService(root, trust=trust) as svc:
            try:
                return await svc.run_program(program, kit=kit), list(svc.notices)
            except LackpyError as exc:  # a kit naming the tool of a server that did not start
                return exc, list(svc.notices)

    return asyncio.run(main())


@pytest.fixture
def model():
    seen: list[list[dict]] = []

    def answer(messages):
        seen.append(messages)
        return "a short summary"

    with FakeLLM(answer, model="tiny-model") as server:
        server.seen = seen
        yield server


@pytest.mark.parametrize("era", ["2026-07-28", pytest.param("handshake", marks=pytest.mark.skipif("not HAS_TS", reason=TS_MISSING))])
def test_the_named_tier_answers_the_servers_request_with_its_text_and_model(tmp_path, model, era):
    """The Python SDK server asks through a 2026-07-28 input round; the TypeScript one in the middle of a handshake-era call."""
    table = sampler_table if era == "2026-07-28" else ts_sampler_table
    root = workspace_with(tmp_path / "ws", table(sampling='"ollama"') + model_tier(model))
    result, _ = run(root, 'sampler__summarize("the long text to summarize")', kit="sampler__summarize")
    assert result.success, result.error
    assert result.output == {"role": "assistant", "text": "a short summary", "model": "tiny-model", "stop": "endTurn"}
    assert model.seen == [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "the long text to summarize"}]]
    assert run(root, "sampler__declared()", kit="sampler__declared")[0].output is True


def test_only_a_server_with_sampling_set_is_told_that_lackpy_samples(tmp_path, model):
    on = workspace_with(tmp_path / "on", sampler_table(sampling='"ollama"') + model_tier(model))
    off = workspace_with(tmp_path / "off", sampler_table() + model_tier(model))
    assert run(on, "sampler__declared()", kit="sampler__declared")[0].output is True
    assert run(off, "sampler__declared()", kit="sampler__declared")[0].output is False


def test_without_sampling_set_the_request_is_refused_and_no_model_is_asked(tmp_path, model):
    root = workspace_with(tmp_path / "ws", sampler_table() + model_tier(model))
    result, _ = run(root, 'sampler__summarize("spend my budget")', kit="sampler__summarize")
    # lackpy declares no sampling, so the SDK's client refuses with its own words (on 2026-07-28 the call fails in lackpy).
    assert not result.success and "Sampling not supported" in result.error, result.error
    assert "refused the call" in result.error and "reconnects" not in result.error  # one call refused, not a server failed
    assert model.seen == [] and model.requests == []


def test_images_are_refused_with_a_clear_error_and_no_model_is_asked(tmp_path, model):
    root = workspace_with(tmp_path / "ws", sampler_table(sampling='"ollama"') + model_tier(model))
    result, _ = run(root, "sampler__look()", kit="sampler__look")
    assert not result.success
    assert "lackpy's inference tiers answer text only; the MCP server sampler sent image content" in result.error, result.error
    assert model.requests == []


def test_a_tier_that_fails_is_one_line_with_its_reason(tmp_path):
    with FakeLLM(["never"], model="tiny-model", status=500) as broken:
        root = workspace_with(tmp_path / "ws", sampler_table(sampling='"ollama"') + model_tier(broken))
        result, _ = run(root, 'sampler__summarize("x")', kit="sampler__summarize")
    assert not result.success and "lackpy's tier ollama could not answer: " in result.error, result.error
    assert "\n" not in result.error and "Traceback" not in result.error


def test_an_unknown_tier_stops_that_server_with_one_line_naming_the_key(tmp_path, model):
    root = workspace_with(tmp_path / "ws", sampler_table(sampling='"openai"') + model_tier(model))
    result, notices = run(root, 'sampler__summarize("x")', kit="sampler__summarize")
    assert "unknown kit 'sampler__summarize'" in str(result)
    expected = (
        "[mcp.servers.sampler] sampling = 'openai' names no model tier of this workspace's [inference] (its model tiers: ollama); "
        "add [inference.openai] to the config of a trusted workspace, or name one of them"
    )
    assert any(expected in notice for notice in notices), notices
    assert model.requests == []


def test_a_sampling_value_that_is_not_a_tier_name_is_a_config_error():
    from lackpy.errors import ConfigError
    from lackpy.remote.settings import parse_servers

    with pytest.raises(ConfigError) as info:
        parse_servers({"servers": {"s": {"command": "x", "sampling": 3}}})
    assert str(info.value) == 'config [mcp.servers.s] sampling: must name an inference tier, e.g. sampling = "ollama" for the tier of [inference.ollama]'
    assert parse_servers({"servers": {"s": {"command": "x", "sampling": "ollama"}}})[0].sampling == "ollama"


def test_an_untrusted_workspace_cannot_enable_sampling_for_the_users_own_server(tmp_path, model):
    from lackpy.config import user_config_path

    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(sampler_table())  # the user's server, without sampling
    try:
        # The workspace names the same server with sampling on, and a model tier for it.
        root = workspace_with(tmp_path / "ws", sampler_table(sampling='"ollama"') + model_tier(model))
        result, _ = run(root, 'sampler__summarize("spend my budget")', kit="sampler__summarize", trust=False)
        assert not result.success and "Sampling not supported" in result.error, result.error
        assert run(root, "sampler__declared()", kit="sampler__declared", trust=False)[0].output is False
        assert model.requests == []
    finally:
        user.unlink()


def test_the_users_own_sampling_key_has_no_model_tier_in_an_untrusted_workspace(tmp_path, model):
    from lackpy.config import user_config_path

    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(sampler_table(sampling='"ollama"'))
    try:
        # The untrusted workspace offers a tier of that name pointing at its own URL: it is withheld, so nothing is sent there.
        root = workspace_with(tmp_path / "ws", model_tier(model))
        result, notices = run(root, 'sampler__summarize("x")', kit="sampler__summarize", trust=False)
        assert "unknown kit 'sampler__summarize'" in str(result)
        assert any("sampling = 'ollama' names no model tier of this workspace's [inference] (its model tiers: none)" in n for n in notices), notices
        assert model.requests == []
    finally:
        user.unlink()


def sampler_of(model: FakeLLM, timeout_s: float = 5.0, calling: bool = True):
    """A Sampler as lackpy builds it for ``sampler`` (a real Ollama tier on the fake model), with a call in flight or none."""
    from lackpy.infer.providers.ollama import OllamaTier
    from lackpy.remote.asks import InFlight
    from lackpy.remote.sampling import Sampler
    from lackpy.remote.settings import ServerSettings

    inflight = InFlight()
    if calling:
        inflight.askers.append(None)  # what Remotes holds while a call of the server's tools runs
    settings = ServerSettings(name="sampler", command="x", sampling="ollama", timeout_s=timeout_s)
    return Sampler(settings, OllamaTier({"host": model.url, "model": model.model, "timeout": 10}), inflight)


def request(content=None, **extra):
    from mcp.types import CreateMessageRequestParams, SamplingMessage, TextContent

    content = content if content is not None else TextContent(type="text", text="hello")
    return CreateMessageRequestParams(messages=[SamplingMessage(role="user", content=content)], max_tokens=16, **extra)


def test_a_slow_tier_is_bounded_by_the_servers_time_and_never_blocks_the_loop():
    from mcp.types import ErrorData

    with FakeLLM(["late"], model="tiny-model", delay=1.5) as slow:
        sampler = sampler_of(slow, timeout_s=0.4)

        async def main():
            ticks = 0

            async def ticker():
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.02)
                    ticks += 1

            ticking = asyncio.create_task(ticker())
            started = asyncio.get_running_loop().time()
            answer = await sampler(None, request())
            took = asyncio.get_running_loop().time() - started
            ticking.cancel()
            # The first thread still runs to the tier's own end: the next request waits for it, within its own time.
            again = await sampler(None, request())
            return answer, took, ticks, again, len(slow.requests)

        answer, took, ticks, again, asked = asyncio.run(main())
    assert isinstance(answer, ErrorData) and answer.message == "lackpy's tier ollama did not answer within 0.4 s"
    assert took < 1.2 and ticks >= 5  # the loop went on serving while the tier's thread waited
    assert isinstance(again, ErrorData) and again.message == answer.message and asked == 1  # one thread per server at a time


def test_a_request_outside_any_call_or_asking_for_tools_is_refused_before_the_model(model):
    from mcp.types import ErrorData, Tool

    idle = asyncio.run(sampler_of(model, calling=False)(None, request()))
    assert isinstance(idle, ErrorData)
    assert idle.message == "lackpy answers sampling for the MCP server sampler only during a call of its tools"
    tool = Tool(name="t", input_schema={"type": "object"})
    tools = asyncio.run(sampler_of(model)(None, request(tools=[tool])))
    assert isinstance(tools, ErrorData) and tools.message == "lackpy's inference tiers answer text only; the MCP server sampler asked for tool use"
    assert model.requests == []
    answered = asyncio.run(sampler_of(model)(None, request()))
    assert answered.content.text == "a short summary" and answered.model == "tiny-model"


TS_SERVER = Path(__file__).parents[1] / "mcp" / "ts" / "sampling_server.mjs"


def ts_sampler_table(**options: str) -> str:
    lines = ["[mcp.servers.sampler]", 'command = "node"', f"args = {json.dumps([str(TS_SERVER)])}", "grade = [0, 1]"]
    return "\n".join(lines + [f"{key} = {value}" for key, value in options.items()]) + "\n"


@pytest.mark.skipif(not HAS_TS, reason=TS_MISSING)
def test_on_a_handshake_era_connection_a_server_without_the_key_sees_the_sdks_refusal(tmp_path, model):
    root = workspace_with(tmp_path / "ws", ts_sampler_table() + model_tier(model))
    result, _ = run(root, 'sampler__summarize("spend my budget")', kit="sampler__summarize")
    assert result.success and result.output == "refused: MCP error -32600: Sampling not supported", result.error
    assert run(root, "sampler__declared()", kit="sampler__declared")[0].output is False
    assert model.requests == []


def test_a_tier_that_answers_no_messages_cannot_sample(tmp_path):
    from lackpy.errors import ConfigError
    from lackpy.infer.settings import InferenceSettings
    from lackpy.infer.tiers import build_tiers
    from lackpy.remote.sampling import tier_named

    settings = InferenceSettings()  # templates and rules: no model
    with pytest.raises(ConfigError) as info:
        tier_named("templates", list(zip(settings.order, build_tiers(settings, tmp_path))))
    assert str(info.value).startswith("sampling = 'templates' names no model tier of this workspace's [inference] (its model tiers: none)")
