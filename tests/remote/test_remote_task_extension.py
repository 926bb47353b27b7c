"""Remote tools that answer with a task on 2026-07-28 (the tasks extension, SEP-2663), called from a lackpy program.

The server is ``lackpy serve --http`` with the conformance suite's tasks
fixture tools beside its own (tests/mcp/tasks_fixture_server.py): tools that
may or must run as tasks, ask questions through the task, fail as a tool or
inside the server. lackpy is the client, through ``LackpyService`` on the
2026-07-28 wire; a question reaches the run's ``approve`` callback as any
server's question does.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.remote.test_remote_servers import workspace_with

FIXTURES = Path(__file__).resolve().parents[1] / "mcp" / "tasks_fixture_server.py"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ws = tmp_path_factory.mktemp("served")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path_factory.mktemp("config")))
    process = subprocess.Popen([sys.executable, str(FIXTURES), "serve", "-w", str(ws), "--http", f"127.0.0.1:{port}"],
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "the fixture server did not start"
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def run(url: str, tmp_path: Path, program: str, tool: str, approve=None):
    from lackpy import LackpyService

    config = f"[mcp.servers.fx]\nurl = {json.dumps(url)}\ngrade = [0, 0]\n[approvals]\n{tool} = \"none\"\n"

    async def main():
        async with LackpyService(workspace_with(tmp_path / "ws", config), trust=True, approve=approve) as service:
            return await service.run_program(program, kit=tool)

    return asyncio.run(main())


def answering(accept: bool):
    """An approve callback that accepts the server's question (confirm: true) or declines it; and the questions it saw."""
    from lackpy.approvals.decision import Decision

    asked = []

    async def approve(request):
        if request.gate == "elicit":
            asked.append(request.question)
            return Decision(True, "callback", "yes", content={"confirm": True}) if accept else Decision(False, "callback", "no")
        return True

    return approve, asked


def test_a_tool_that_only_runs_as_a_task_is_called_through_the_extension(url, tmp_path):
    result = run(url, tmp_path, "fx__failing_job()", "fx__failing_job")
    assert result.success is False and result.error_kind == "tool"
    assert "the job failed (a fixture that always fails)" in result.error  # the tool's own error result, from the finished task


def test_a_task_is_polled_to_its_result(url, tmp_path):
    result = run(url, tmp_path, 'fx__slow_compute(seconds=0.3, label="x")', "fx__slow_compute")
    assert result.success, result.error
    assert result.output == "computed x after 0.3 s"


@pytest.mark.parametrize("accept, said", [(True, "a.txt deleted"), (False, "a.txt kept")])
def test_a_question_inside_a_task_reaches_the_person_and_the_answer_goes_back_through_tasks_update(url, tmp_path, accept, said):
    approve, asked = answering(accept)
    result = run(url, tmp_path, 'fx__confirm_delete(filename="a.txt")', "fx__confirm_delete", approve)
    assert result.success, result.error
    assert result.output == said and asked == ["Delete a.txt?"]


def test_a_task_that_failed_inside_the_server_is_a_tool_error_with_its_words(url, tmp_path):
    result = run(url, tmp_path, "fx__protocol_error_job()", "fx__protocol_error_job")
    assert result.success is False and result.error_kind == "tool"
    assert "the task failed: the job broke inside the server (a fixture that always does)" in result.error


def test_lackpy_serves_a_program_to_lackpy_as_a_task(url, tmp_path):
    result = run(url, tmp_path, 'fx__run_program(program="6 * 7")', "fx__run_program")
    assert result.success, result.error
    assert result.output["output"] == 42 and result.output["success"] is True


def test_a_task_past_the_runs_time_is_cancelled_on_the_server(url, tmp_path, monkeypatch):
    from lackpy import LackpyService
    from lackpy.remote import task_extension

    sent, original = [], task_extension._ask

    async def recorded(session, method, task_id, deadline, answers=None):
        answer = await original(session, method, task_id, deadline, answers)
        sent.append((method, answer.status))  # the ack of tasks/cancel has no status
        return answer

    monkeypatch.setattr(task_extension, "_ask", recorded)
    config = f'[mcp.servers.fx]\nurl = {json.dumps(url)}\ngrade = [0, 0]\n[approvals]\nfx__slow_compute = "none"\n'

    async def main():
        async with LackpyService(workspace_with(tmp_path / "ws", config), trust=True) as service:
            result = await service.run_program('fx__slow_compute(seconds=60, label="late")', kit="fx__slow_compute", limits={"timeout_s": 2})
            for _ in range(100):  # the cancel goes out from a task of its own, after the call gave up
                if ("tasks/cancel", None) in sent:
                    break
                await asyncio.sleep(0.05)
            return result

    result = asyncio.run(main())
    assert result.success is False and result.error_kind == "limit"
    assert ("tasks/get", "working") in sent and ("tasks/cancel", None) in sent  # the server answered the cancel
