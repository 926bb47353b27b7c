"""Remote tools that run as tasks: a TypeScript SDK server whose tools require (or allow) task augmentation."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from tests.remote.test_remote_servers import serving, workspace_with
from installed import ts_missing

HERE = Path(__file__).parent
SERVER = HERE / "tasks_server.mjs"

pytestmark = pytest.mark.skipif(ts_missing() is not None, reason=str(ts_missing()))


def tasks_table(markers: Path, **options) -> str:
    lines = ["[mcp.servers.tasks]", 'command = "node"', f"args = {json.dumps([str(SERVER), str(markers)])}", "grade = [0, 0]"]
    lines += [f"{key} = {value}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def markers(tmp_path_factory):
    return tmp_path_factory.mktemp("markers")


@pytest.fixture(scope="module")
def service(tmp_path_factory, markers):
    root = workspace_with(tmp_path_factory.mktemp("tasks") / "ws", tasks_table(markers) + "[mcp.servers.tasks.tools.slow]\ntimeout_s = 1\n")
    with serving(root) as svc:
        yield svc


def run(svc, program: str, kit: str, **options):
    return asyncio.run(svc.run_program(program, kit=kit, **options))


def test_a_tool_that_requires_a_task_returns_its_value(service):
    start = time.monotonic()
    result = run(service, 'tasks__research(topic="tides")', "tasks__research")
    assert result.success, result.error
    assert result.output == "report on tides"
    assert time.monotonic() - start < 5  # the task took 0.3 s: polls follow its pollInterval (0.1 s), not a fixed second
    assert [entry.tool for entry in result.trace] == ["tasks__research"]


def test_a_task_that_failed_is_a_tool_error_with_the_servers_message(service):
    result = run(service, "tasks__broken()", "tasks__broken")
    assert result.error_kind == "tool", result.error
    assert result.error.endswith("ToolError in tasks__broken: the archive is offline")


def test_a_task_that_failed_without_a_result_is_a_tool_error_with_its_status_message(service):
    result = run(service, "tasks__refused()", "tasks__refused")
    assert result.error_kind == "tool", result.error
    assert result.error.endswith("ToolError in tasks__refused: quota exhausted")
    assert run(service, 'tasks__research(topic="after")', "tasks__research").output == "report on after"  # the session still serves


def test_a_task_past_the_tools_timeout_is_cancelled_on_the_server(service, markers):
    start = time.monotonic()
    result = run(service, "tasks__slow()", "tasks__slow", limits={"timeout_s": 30})
    assert time.monotonic() - start < 5
    assert result.error_kind == "tool" and "did not answer within the tool's timeout_s (1 s)" in result.error, result.error
    assert _appears(markers / "cancelled-slow", within_s=5.0), "the server never saw tasks/cancel"


def test_a_task_past_the_runs_time_is_cancelled_and_the_run_ends_at_its_deadline(tmp_path):
    from lackpy import LackpyService

    markers = tmp_path / "markers"
    markers.mkdir()
    with LackpyService(workspace_with(tmp_path / "ws", tasks_table(markers)), trust=True) as svc:
        result = run(svc, "tasks__slow()", "tasks__slow", limits={"timeout_s": 1})
        assert result.error_kind == "limit" and result.limit == "timeout", result.error
        assert _appears(markers / "cancelled-slow", within_s=5.0), "the server never saw tasks/cancel"


def test_a_tool_with_optional_task_support_is_called_plainly(service):
    result = run(service, "tasks__either()", "tasks__either")
    assert result.success, result.error
    assert result.output == "called plainly"


def test_task_tools_are_listed_as_working(service):
    names = {spec.name for spec in service.toolbox.list_tools()}
    assert {"tasks__research", "tasks__slow", "tasks__either"} <= names
    assert service.toolbox.get("tasks__research").provider_config["tasks"] == "required"
    assert service.toolbox.get("tasks__either").provider_config["tasks"] == "optional"
    assert not [key for key in service.remote_status() if key.get("reason")]


def _appears(path: Path, within_s: float) -> bool:
    """Whether ``path`` exists within ``within_s`` seconds (the server writes it as it handles tasks/cancel)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return path.exists()


#: A server of protocol 2025-06-18 (before tasks; or of the version its argument names) that marks a tool as requiring
#: tasks, as a careless server may, and answers every call at once: raw JSON-RPC over stdio, since the SDK's own server
#: drops what the negotiated version does not have.
BEFORE_TASKS = r'''
import json, sys
VERSION = sys.argv[1] if len(sys.argv) > 1 else "2025-06-18"
def tool(name, support):
    return {"name": name, "inputSchema": {"type": "object"}, "execution": {"taskSupport": support}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, answer = message.get("method"), {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        answer["result"] = {"protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "old", "version": "1"}}
    elif method == "tools/list":
        answer["result"] = {"tools": [tool("needs_task", "required"), tool("may_task", "optional")]}
    elif method == "tools/call":
        params = message["params"]
        answer["result"] = {"content": [{"type": "text", "text": params["name"] + (" with a task" if "task" in params else " plainly")}]}
    else:
        answer["error"] = {"code": -32601, "message": "Method not found"}
    print(json.dumps(answer), flush=True)
'''


def test_a_tool_that_requires_tasks_on_a_version_without_them_is_left_out_with_its_reason(tmp_path):
    """2025-06-18 stands for every version without tasks (2026-07-28 has them through the extension:
    test_remote_task_extension.py), and the rule is one."""
    from lackpy import LackpyService
    from lackpy.remote import tasks

    assert tasks.unusable("required", "2025-06-18") and tasks.unusable("optional", "2025-06-18") is None
    assert tasks.unusable("required", "2026-07-28") is None

    script = tmp_path / "old.py"
    script.write_text(BEFORE_TASKS)
    config = f'[mcp.servers.old]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(script)])}\ngrade = [0, 0]\n'
    with LackpyService(workspace_with(tmp_path / "ws", config), trust=True) as svc:
        svc.load()
        assert run(svc, "old__may_task()", "old__may_task").output == "may_task plainly"
        names = {spec.name for spec in svc.toolbox.list_tools()}
        assert "old__may_task" in names and "old__needs_task" not in names
        assert svc._workspace.loaded.remotes.failures["old.needs_task"] == "tool left out: it runs only as a task, and protocol version 2025-06-18 has no tasks"
        (row,) = svc.remote_status()
    assert row["left_out"] == {"needs_task": "tool left out: it runs only as a task, and protocol version 2025-06-18 has no tasks"}


def test_a_task_that_needs_input_asks_the_person_through_tasks_result(tmp_path):
    from lackpy import LackpyService

    asked = []

    async def approve(request):
        asked.append(request)
        return {"colour": "teal"}

    async def main():
        async with LackpyService(workspace_with(tmp_path / "ws", tasks_table(tmp_path)), trust=True, approve=approve) as svc:
            return await svc.run_program("tasks__asking()", kit="tasks__asking", limits={"timeout_s": 20})

    result = asyncio.run(main())
    assert result.success and result.output == "accept: teal", result.error
    (request,) = asked
    assert request.gate == "elicit" and request.server == "tasks" and request.lines()[0] == "Which colour?"


def test_a_server_that_answers_a_task_call_at_once_is_read_as_a_plain_answer(tmp_path):
    from lackpy import LackpyService

    script = tmp_path / "old.py"
    script.write_text(BEFORE_TASKS)
    config = f'[mcp.servers.old]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(script), "2025-11-25"])}\ngrade = [0, 0]\n'
    with LackpyService(workspace_with(tmp_path / "ws", config), trust=True) as svc:
        assert run(svc, "old__needs_task()", "old__needs_task").output == "needs_task with a task"
        assert run(svc, "old__may_task()", "old__may_task").output == "may_task plainly"
