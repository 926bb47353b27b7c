"""lackpy serve's MCP logging, completions and declared capabilities, through the MCP SDK's own client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import run

#: The client side of logging/setLevel is deprecated in the SDK for the 2026-07-28 revision; lackpy serves both eras.
pytestmark = pytest.mark.filterwarnings("ignore:The logging capability is deprecated")

UNTRUSTED = "this workspace is not trusted, so lackpy ignored"


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A workspace whose config asks for a kit above read-only: untrusted, lackpy ignores it and says so in a notice."""
    root = make_workspace(tmp_path / "ws")
    (root / ".lackpy").mkdir()
    (root / ".lackpy" / "config.toml").write_text('default_kit = "filesystem"\n')
    return root


def _client(request, workspace: Path, mode: str = "legacy", allow_kits=None, **options):
    """An in-process SDK client over a lackpy server on ``workspace``; log messages go to ``options['logging_callback']``."""
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    service = LackpyService(workspace, trust=False)
    request.addfinalizer(service.close)
    return Client(build_server(service, KitPolicy.build(service, allow_kits=allow_kits)), mode=mode, **options)


def _collector() -> tuple[list[tuple[str, str]], object]:
    """A list of (level, text) and the logging callback that fills it."""
    seen: list[tuple[str, str]] = []

    async def on_log(params) -> None:
        seen.append((params.level, str(params.data)))

    return seen, on_log


def _logged(request, workspace: Path, steps):
    """``steps(client)`` in one session of a handshake-era client that collects log messages: (its result, [(level, text)])."""
    seen, on_log = _collector()
    client = _client(request, workspace, logging_callback=on_log)

    async def session():
        async with client:
            return await steps(client)

    return run(session()), seen


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_initialize_declares_logging_completions_and_the_skills_prompts(request, workspace, mode):
    client = _client(request, workspace, mode)

    async def session():
        async with client:
            return client.server_capabilities

    capabilities = run(session())
    assert capabilities.completions is not None
    assert capabilities.prompts is not None  # the shipped skills; a server that allows none declares none (test_mcp_skills.py)
    if mode == "legacy":
        assert capabilities.logging is not None


def test_a_notice_reaches_a_client_that_set_no_level_and_progress_text_does_not(request, workspace):
    async def steps(client):
        return await client.call_tool("run_program", {"program": "1 + 1"}), await client.call_tool("run_program", {"program": "2 + 2"})

    (first, second), seen = _logged(request, workspace, steps)
    assert not first.is_error and not second.is_error
    assert [level for level, _ in seen] == ["warning"], seen  # the notice once, not again on the second call
    assert seen[0][1].startswith(UNTRUSTED)


@pytest.mark.parametrize("tool, arguments", [("validate", {"program": "1 + 1"}), ("kit_list", {}), ("docs_index", {})])
def test_a_notice_reaches_the_client_after_any_served_tool_not_only_a_run(request, workspace, tool, arguments):
    answer, seen = _logged(request, workspace, lambda client: client.call_tool(tool, arguments))
    assert not answer.is_error
    assert [level for level, _ in seen] == ["warning"] and seen[0][1].startswith(UNTRUSTED), seen


def test_set_level_debug_sends_progress_text_at_info(request, workspace):
    async def steps(client):
        await client.set_logging_level("debug")
        return await client.call_tool("run_program", {"program": 'len(find_files("**/*.py"))'})

    answer, seen = _logged(request, workspace, steps)
    assert not answer.is_error
    assert seen[0][0] == "warning" and seen[0][1].startswith(UNTRUSTED)  # setLevel sends what was held
    progress = [text for level, text in seen if level == "info"]
    assert progress[0] == "running the program with kit readonly"
    assert progress[-1] == "done: 1 tool call"


def test_a_level_above_warning_holds_the_notice_back_until_it_is_lowered(request, workspace):
    seen, on_log = _collector()
    client = _client(request, workspace, logging_callback=on_log)

    async def session():  # reads what was sent in the middle of the session
        async with client:
            await client.set_logging_level("error")
            await client.call_tool("run_program", {"program": "1 + 1"})
            held = list(seen)
            await client.set_logging_level("warning")
            return held

    held = run(session())
    assert held == []
    assert len(seen) == 1 and seen[0][0] == "warning" and seen[0][1].startswith(UNTRUSTED)


def test_modern_era_sends_log_messages_only_to_a_request_that_opts_in(request, workspace):
    seen, on_log = _collector()
    quiet = _client(request, workspace, mode="auto", logging_callback=on_log)
    seen_opted, on_log_opted = _collector()
    opted = _client(request, workspace, mode="auto", logging_callback=on_log_opted, log_level="info")

    async def session():
        async with quiet:
            await quiet.call_tool("run_program", {"program": "1 + 1"})
        async with opted:
            await opted.call_tool("run_program", {"program": "1 + 1"})

    run(session())
    assert seen == []
    assert seen_opted[0] == ("warning", seen_opted[0][1]) and seen_opted[0][1].startswith(UNTRUSTED)
    assert ("info", "running the program with kit readonly") in seen_opted


def _complete(request, workspace, uri: str, argument: str, value: str, allow_kits=None) -> tuple[list[str], int | None, bool | None]:
    from mcp.types import ResourceTemplateReference

    client = _client(request, workspace, allow_kits=allow_kits)

    async def session():
        async with client:
            return await client.complete(ResourceTemplateReference(uri=uri), {"name": argument, "value": value})

    completion = run(session()).completion
    return completion.values, completion.total, completion.has_more


def test_kit_names_complete_from_the_allowed_kits_only(request, workspace):
    values, total, more = _complete(request, workspace, "lackpy://kits/{name}", "name", "", allow_kits=["readonly", "filesystem"])
    assert values == ["filesystem", "readonly"] and total == 2 and more is False
    assert _complete(request, workspace, "lackpy://kits/{name}", "name", "fi", allow_kits=["readonly", "filesystem"])[0] == ["filesystem"]
    assert _complete(request, workspace, "lackpy://kits/{name}", "name", "fi")[0] == []  # filesystem is above read-only: not offered


def test_tool_names_complete_from_the_allowed_kits_tools_only(request, workspace):
    values, _, _ = _complete(request, workspace, "lackpy://docs/{tool}", "tool", "read")
    assert values == ["read_file"]
    assert "write_file" not in _complete(request, workspace, "lackpy://docs/{tool}", "tool", "")[0]
    assert _complete(request, workspace, "lackpy://docs/{tool}", "tool", "w", allow_kits=["readonly", "filesystem"])[0] == ["write_file"]


def test_an_unknown_template_or_argument_completes_to_nothing(request, workspace):
    assert _complete(request, workspace, "lackpy://nothing/{name}", "name", "") == ([], 0, False)
    assert _complete(request, workspace, "lackpy://kits/{name}", "tool", "") == ([], 0, False)


def test_completions_stop_at_one_hundred():
    from lackpy.mcp.logs import matching

    completion = matching(tuple(f"kit{index:03}" for index in range(150)), "kit")
    assert len(completion.values) == 100 and completion.total == 150 and completion.has_more is True
    assert completion.values[0] == "kit000" and completion.values[-1] == "kit099"


def test_progress_that_cannot_be_sent_waits_bounded_and_says_how_much_was_dropped():
    """Between approval rounds nothing can be sent: a run that keeps reporting fills at most MOST_WAITING messages."""
    from lackpy.mcp.progress import MOST_WAITING, Progress, Reach

    class Request:
        request_context = object()

        def __init__(self):
            self.sent = []

        async def report_progress(self, progress, total, message):
            self.sent.append(message)

    async def main():
        first, retry = Request(), Request()
        reach = Reach(first)
        async with Progress(reach) as progress:
            reach.pause()
            for i in range(MOST_WAITING + 50):
                progress.report(f"m{i}")
            reach.move(retry)
            await asyncio.sleep(0.05)  # the retry takes what waited
            progress.report("last")
        return first.sent, retry.sent

    first, retry = asyncio.run(main())
    assert first == [] and len(retry) == MOST_WAITING + 1
    assert retry[:2] == ["m0", "m1"] and retry[-1] == "(50 progress messages were dropped while the client could not take them) last"
