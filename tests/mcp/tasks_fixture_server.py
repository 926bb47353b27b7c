"""A test server: ``lackpy serve`` with the MCP conformance suite's tasks fixture tools added beside lackpy's own tools.

Run as ``python tests/mcp/tasks_fixture_server.py serve -w WORKSPACE --http
127.0.0.1:PORT``: it is lackpy's own CLI, whose ``build_server`` is wrapped
so the server it builds also has the tools the suite's ``tasks-*`` scenarios
call (SEP-2663). These tools are test fixtures only, never part of lackpy:

- ``greet``: sync only, "Hello, {name}!";
- ``slow_compute``: may run as a task, sleeps ``seconds`` then answers;
- ``failing_job``: runs only as a task (required), ends with a tool error;
- ``protocol_error_job``: may run as a task, fails with a JSON-RPC error;
- ``confirm_delete``: may run as a task, asks one question (``elicitation/create``) through the task;
- ``multi_input``: may run as a task, asks two questions at once;
- ``test_tool_with_task``: runs only as a task, after a 2026-07-28 input-required round that asks for a name.

Each task-capable tool is offered through lackpy's own ``TasksExtension``
(``server.tasks.offer``), and asks its questions through the task it runs in
(``lackpy.mcp.tasks.current``), as lackpy's approvals do.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp.server.mcpserver import Context  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import CallToolResult, TextContent  # noqa: E402
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult  # noqa: E402

import lackpy.mcp.server as lackpy_server  # noqa: E402
from lackpy.mcp import tasks  # noqa: E402

_CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
_NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _question(message: str, schema: dict) -> dict:
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema)).model_dump(mode="json", by_alias=True, exclude_none=True)


def _text(text: str, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def greet(name: str) -> str:
    return f"Hello, {name}!"


async def slow_compute(seconds: float = 0, label: str = "") -> str:
    await asyncio.sleep(max(0.0, min(float(seconds), 600.0)))
    return f"computed {label} after {seconds} s"


async def failing_job() -> CallToolResult:
    return _text("the job failed (a fixture that always fails)", error=True)


async def protocol_error_job() -> CallToolResult:
    raise MCPError(code=-32603, message="the job broke inside the server (a fixture that always does)")


async def confirm_delete(filename: str) -> CallToolResult:
    run = tasks.current()
    if run is None:
        return _text("confirm_delete asks its question through a task: declare the tasks extension", error=True)
    answer = await run.ask(_question(f"Delete {filename}?", _CONFIRM))
    accepted = isinstance(answer, dict) and answer.get("action") == "accept"
    return _text(f"{filename} {'deleted' if accepted else 'kept'}")


async def multi_input() -> CallToolResult:
    run = tasks.current()
    if run is None:
        return _text("multi_input asks its questions through a task: declare the tasks extension", error=True)
    first, second = await asyncio.gather(run.ask(_question("First name?", _NAME)), run.ask(_question("Second name?", _NAME)))
    return _text(f"answers: {first.get('content')} and {second.get('content')}")


async def test_tool_with_task(ctx: Context) -> CallToolResult | InputRequiredResult:
    answers = ctx.input_responses or {}
    given = answers.get("user_name")
    if given is None:
        return InputRequiredResult(input_requests={"user_name": ElicitRequest(params=ElicitRequestFormParams(message="Your name?", requested_schema=_NAME))})
    content = given.content if isinstance(given, ElicitResult) else None
    return _text(f"Hello, {(content or {}).get('name', 'nobody')}!")


def _with_fixtures(build):
    def build_server(*args, **kwargs):
        server = build(*args, **kwargs)
        for fn in (greet, slow_compute, failing_job, protocol_error_job, confirm_delete, multi_input, test_tool_with_task):
            server.add_tool(fn, name=fn.__name__, description=f"conformance fixture {fn.__name__}")
        for name in ("slow_compute", "protocol_error_job", "confirm_delete", "multi_input"):
            server.tasks.offer(name)
        server.tasks.offer("failing_job", required=True)
        server.tasks.offer("test_tool_with_task", required=True, when=lambda params: params.input_responses is not None)
        return server

    return build_server


if __name__ == "__main__":
    lackpy_server.build_server = _with_fixtures(lackpy_server.build_server)
    from lackpy.cli import cli

    cli(prog_name="lackpy")
