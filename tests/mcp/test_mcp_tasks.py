"""Tasks (SEP-2663, ``io.modelcontextprotocol/tasks``) against ``lackpy serve --http``, with the official SDK client.

A client that declares the extension gets run_program and delegate back as a
task: it polls ``tasks/get``, answers approvals through ``tasks/update``, and
may ``tasks/cancel``. Tasks belong to the caller that made them (its
Authorization header) and outlive the connection that made them.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.client.extension import ClientExtension, ResultClaim, advertise
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict

from lackpy.mcp.task_extension import EXTENSION
from mcp_support import COUNT, start_http, stop

WRITE = "write_file('new.txt', 'n')\nrun_command('touch canary.txt')['code']"
TERMINAL = ("completed", "failed", "cancelled")
#: The most polls a test makes before it calls a task stuck (the server says how often to poll: pollIntervalMs).
MOST_POLLS = 600


class TaskCreated(Result):
    """The CreateTaskResult of a tools/call that became a task."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class Detailed(Result):
    """What tasks/get answers (and the empty ack of tasks/update and tasks/cancel: every field left out)."""

    model_config = ConfigDict(extra="allow")
    result_type: str | None = None
    task_id: str | None = None
    status: str | None = None
    result: dict | None = None
    error: dict | None = None


class TaskParams(RequestParams):
    task_id: Any = None
    input_responses: Any = None


class TaskRequest(Request[TaskParams, str]):
    method: str
    params: TaskParams


async def ask(client: Client, method: str, **params: Any) -> Detailed:
    """One tasks/* request through the SDK client's session; its answer (with the wire's extra fields)."""
    return await client.session.send_request(TaskRequest(method=method, params=TaskParams(**params)), Detailed)


def bare(result: Result) -> dict:
    """A result as on the wire, without the ``_meta`` the SDK stamps on every 2026-07-28 result."""
    return result.model_dump(by_alias=True, exclude_none=True, exclude={"meta"})


def inputs_of(task: Detailed) -> dict:
    return (task.model_extra or {}).get("inputRequests") or (task.model_extra or {}).get("input_requests") or {}


async def poll(client: Client, task_id: str, until: tuple[str, ...] = TERMINAL) -> Detailed:
    for _ in range(MOST_POLLS):
        task = await ask(client, "tasks/get", taskId=task_id)
        if task.status in until or task.status in TERMINAL:
            return task
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} stayed {task.status}")


async def _finish(created: TaskCreated, ctx: Any) -> CallToolResult:
    """The claim's resolver: poll the task to its end and give its result as the call's."""
    while True:
        task = await ctx.session.send_request(TaskRequest(method="tasks/get", params=TaskParams(task_id=created.task_id)), Detailed)
        if task.status == "completed":
            return CallToolResult.model_validate(task.result)
        if task.status in TERMINAL:
            raise AssertionError(f"the task ended {task.status}: {task.error}")
        await asyncio.sleep((created.poll_interval_ms or 100) / 1000)


class Tasks(ClientExtension):
    """The client side of the extension as a test needs it: declared, and a task result resolved by polling."""

    identifier = EXTENSION

    def claims(self):
        return (ResultClaim(result_type="task", model=TaskCreated, resolve=_finish),)


def client(url: str, who: str | None = "alice", mode: str = "auto", declare: bool = True) -> Client:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {who}"} if who else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0))
    extensions = ([Tasks()] if mode == "auto" else [advertise(EXTENSION, {})]) if declare else None
    return Client(streamable_http_client(url, http_client=http), mode=mode, extensions=extensions)


async def start(opened: Client, program: str, kit: str | None = None) -> TaskCreated:
    arguments = {"program": program, **({"kit": kit} if kit else {})}
    created = await opened.session.call_tool("run_program", arguments, allow_claimed=True)
    assert isinstance(created, TaskCreated), created
    return created


@pytest.fixture
def served(tmp_path, server_env):
    from conftest import make_workspace

    ws = make_workspace(tmp_path / "ws")
    process, port = start_http(ws, server_env, "--allow-kits", "readonly,coding")
    try:
        yield ws, f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def test_a_run_comes_back_as_a_task_and_is_polled_to_its_result(served):
    _, url = served

    async def main():
        async with client(url) as opened:
            created = await start(opened, COUNT)
            done = await poll(opened, created.task_id)
            resolved = await opened.call_tool("run_program", {"program": COUNT})  # the SDK resolves the claim by polling
        return created, done, resolved

    created, done, resolved = asyncio.run(main())
    assert created.status == "working" and created.ttl_ms > 0 and created.poll_interval_ms > 0
    assert done.result_type == "complete" and done.status == "completed" and done.error is None
    assert done.result["structuredContent"]["output"] == 3 and done.result["structuredContent"]["success"] is True
    assert not done.result.get("isError") and resolved.structured_content["output"] == 3
    assert re.fullmatch(r"done: \d+ tool calls", (done.model_extra or {}).get("statusMessage") or ""), done.model_extra  # its last progress


def test_a_running_task_shows_its_progress_in_tasks_get(served):
    """The run's progress messages, which a task has no request to send, are its statusMessage: here while it waits for an
    approval after three reads, and its last one when it ends."""
    _, url = served
    program = "n = 0\nfor i in range(3):\n    n += len(read_file('README.md'))\nwrite_file('progress.txt', str(n))\n"

    async def main():
        async with client(url) as opened:
            created = await start(opened, program, "coding")
            asked = await poll(opened, created.task_id, ("input_required",))
            [key] = inputs_of(asked)
            await ask(opened, "tasks/update", taskId=created.task_id, inputResponses={key: {"action": "decline"}})
            return asked, await poll(opened, created.task_id)

    asked, done = asyncio.run(main())
    said = (asked.model_extra or {}).get("statusMessage") or ""
    assert asked.status == "input_required" and re.fullmatch(r"[123] tool calls?, the last read_file", said), said  # tool events: the first, then every PROGRESS_S
    assert done.status == "completed" and (done.model_extra or {}).get("statusMessage") == "done: 4 tool calls"


def test_a_client_that_does_not_declare_the_extension_gets_the_result_and_no_tasks(served):
    _, url = served

    async def main():
        async with client(url, declare=False) as opened:
            result = await opened.call_tool("run_program", {"program": COUNT})
            with pytest.raises(MCPError) as refused:
                await ask(opened, "tasks/get", taskId="x.y")
        return result, refused.value

    result, refused = asyncio.run(main())
    assert result.structured_content["output"] == 3
    assert refused.error.code == -32021 and EXTENSION in refused.error.message and "\n" not in refused.error.message
    assert refused.error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


def test_approvals_wait_in_the_task_and_are_answered_through_tasks_update(served):
    ws, url = served

    async def main():
        async with client(url) as opened:
            created = await start(opened, WRITE, "coding")
            asked = await poll(opened, created.task_id, ("input_required",))
            [(key, request)] = inputs_of(asked).items()
            ack = await ask(opened, "tasks/update", taskId=created.task_id, inputResponses={key: {"action": "accept", "content": {"approve": True}}})
            commit = await poll(opened, created.task_id, ("input_required",))
            while set(inputs_of(commit)) == {key}:  # the answer is recorded before the ack; the next question comes when the run asks it
                commit = await poll(opened, created.task_id, ("input_required",))
            [(second, question)] = inputs_of(commit).items()
            await ask(opened, "tasks/update", taskId=created.task_id, inputResponses={second: {"action": "decline"}})
            return asked, request, ack, question, await poll(opened, created.task_id)

    asked, request, ack, question, done = asyncio.run(main())
    assert asked.status == "input_required" and request["method"] == "elicitation/create"
    assert request["params"]["message"].startswith("lackpy: Run this program with these effects?")  # the exact list, once
    assert "run_command(command='touch canary.txt')" in request["params"]["message"]
    assert bare(ack) == {"resultType": "complete"}
    assert question["params"]["message"].startswith("lackpy: Apply these changes? write 1 file")
    assert done.status == "completed" and done.result["structuredContent"]["error_kind"] == "denied"
    assert [(d["by"], d["approved"]) for d in done.result["structuredContent"]["decisions"]] == [("client", True), ("effects", True), ("client", False)]
    assert (ws / "canary.txt").exists() and not (ws / "new.txt").exists()  # the command ran; the declined write was not committed


def test_a_cancelled_task_stops_and_commits_nothing(served):
    ws, url = served

    async def main():
        async with client(url) as opened:
            created = await start(opened, "write_file('new.txt', 'n')\n'written'", "coding")
            await poll(opened, created.task_id, ("input_required",))  # the commit waits for its approval
            ack = await ask(opened, "tasks/cancel", taskId=created.task_id)
            after = await ask(opened, "tasks/get", taskId=created.task_id)
            again = await ask(opened, "tasks/cancel", taskId=created.task_id)
            answered = await ask(opened, "tasks/update", taskId=created.task_id, inputResponses={"approve-1": {"action": "accept"}})
            return ack, after, again, answered, await ask(opened, "tasks/get", taskId=created.task_id)

    ack, after, again, answered, last = asyncio.run(main())
    for empty in (ack, again, answered):
        assert bare(empty) == {"resultType": "complete"}
    assert after.status == "cancelled" and after.result is None and not inputs_of(after)
    assert last.status == "cancelled" and not (ws / "new.txt").exists()


def test_another_caller_cannot_see_answer_or_cancel_a_task(served):
    ws, url = served

    async def main():
        async with client(url, "alice") as alice:
            created = await start(alice, "write_file('new.txt', 'n')\n'written'", "coding")
            await poll(alice, created.task_id, ("input_required",))
            refusals = []
            for who in ("mallory", None):
                async with client(url, who) as other:
                    for method, extra in (("tasks/get", {}), ("tasks/cancel", {}), ("tasks/update", {"inputResponses": {"approve-1": {"action": "accept"}}})):
                        with pytest.raises(MCPError) as refused:
                            await ask(other, method, taskId=created.task_id, **extra)
                        refusals.append(refused.value.error)
            still = await ask(alice, "tasks/get", taskId=created.task_id)
            await ask(alice, "tasks/cancel", taskId=created.task_id)
        return created, refusals, still

    created, refusals, still = asyncio.run(main())
    assert len(refusals) == 6 and {error.code for error in refusals} == {-32602}
    assert all("no task" in error.message and "of yours" in error.message for error in refusals)
    assert still.status == "input_required" and not (ws / "new.txt").exists()
    assert len(created.task_id.partition(".")[2]) >= 32  # the id itself is a secret: 32 random characters after the replica


def test_a_task_made_through_one_connection_is_read_through_another(served):
    _, url = served

    async def main():
        async with client(url) as first:
            created = await start(first, COUNT)
        async with client(url, mode="legacy") as second:  # another connection, of the handshake era
            done = await poll(second, created.task_id)
        return done

    done = asyncio.run(main())
    assert done.status == "completed" and done.result["structuredContent"]["output"] == 3


def test_wrong_requests_get_one_line_errors_and_the_server_goes_on(served):
    _, url = served

    async def main():
        errors = []
        async with client(url) as opened:
            created = await start(opened, COUNT)
            for method, params in (
                ("tasks/get", {}),
                ("tasks/get", {"taskId": 5}),
                ("tasks/get", {"taskId": "nobody.knows-this-task"}),
                ("tasks/cancel", {"taskId": ["x"]}),
                ("tasks/update", {"taskId": created.task_id, "inputResponses": "yes"}),
                ("tasks/update", {"taskId": created.task_id}),
                ("tasks/get", {"taskId": "x" * 10000}),
            ):
                with pytest.raises(MCPError) as refused:
                    await ask(opened, method, **params)
                errors.append(refused.value.error)
            for method in ("tasks/result", "tasks/list"):
                with pytest.raises(MCPError) as refused:
                    await ask(opened, method, taskId=created.task_id)
                errors.append(refused.value.error)
            done = await poll(opened, created.task_id)
        return errors, done

    errors, done = asyncio.run(main())
    assert [error.code for error in errors] == [-32602] * 7 + [-32601] * 2
    for error in errors[:7]:
        assert "\n" not in error.message and len(error.message) < 300 and error.message.split(":")[0].startswith("tasks/")
    assert "taskId must be the string a CreateTaskResult gave" in errors[0].message
    assert "inputResponses must be an object" in errors[4].message
    assert done.status == "completed"  # the server answered every wrong request and went on


def test_elicitation_answers_that_are_not_answers_refuse_the_approval(served):
    ws, url = served

    async def main():
        async with client(url) as opened:
            created = await start(opened, WRITE, "coding")
            asked = await poll(opened, created.task_id, ("input_required",))
            [key] = inputs_of(asked)
            await ask(opened, "tasks/update", taskId=created.task_id, inputResponses={key: "yes please"})
            return await poll(opened, created.task_id)

    done = asyncio.run(main())
    assert done.status == "completed" and done.result["structuredContent"]["error_kind"] == "denied"
    assert "not an elicitation result" in done.result["structuredContent"]["error"]
    assert not (ws / "canary.txt").exists() and not (ws / "new.txt").exists()


def test_the_extension_is_declared_on_both_eras(served):
    _, url = served

    async def main():
        found = {}
        for mode in ("auto", "legacy"):
            async with client(url, mode=mode) as opened:
                found[mode] = opened.server_capabilities.extensions or {}
        return found

    found = asyncio.run(main())
    assert all(EXTENSION in extensions for extensions in found.values()), found


@pytest.mark.cluster
def test_a_task_outlives_its_replica_s_connection_and_is_answered_and_cancelled_through_another(tmp_path, server_env, redis_url):
    """Two replicas sharing redis: a task made on A is read on B from the store; B forwards its answer and its cancel to A."""
    from conftest import make_workspace
    from test_mcp_cluster import KEY, TOKEN, Replicas

    ws = make_workspace(tmp_path / "ws")
    replicas = Replicas(ws, dict(server_env, LACKPY_TEST_TOKEN=TOKEN, LACKPY_CLUSTER_KEY=KEY), redis_url)
    a, b = replicas.urls

    async def main():
        async with client(a, TOKEN) as on_a:
            answered = await start(on_a, WRITE, "coding")
            cancelled = await start(on_a, "write_file('other.txt', 'o')\n'written'", "coding")
        async with client(b, TOKEN) as on_b:
            asked = await poll(on_b, answered.task_id, ("input_required",))
            [key] = inputs_of(asked)
            await ask(on_b, "tasks/update", taskId=answered.task_id, inputResponses={key: {"action": "decline"}})
            done = await poll(on_b, answered.task_id)
            await poll(on_b, cancelled.task_id, ("input_required",))
            await ask(on_b, "tasks/cancel", taskId=cancelled.task_id)
            gone = await poll(on_b, cancelled.task_id)
        return answered, asked, done, gone

    try:
        made_on = replicas.ids()[a]
        answered, asked, done, gone = asyncio.run(main())
    finally:
        replicas.close()
    assert answered.task_id.startswith(f"{made_on}.")  # made on A, every later request sent to B
    assert asked.status == "input_required" and done.status == "completed"
    assert done.result["structuredContent"]["error_kind"] == "denied" and not (ws / "canary.txt").exists()
    assert gone.status == "cancelled" and not (ws / "other.txt").exists()
