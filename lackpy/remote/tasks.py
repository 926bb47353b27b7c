"""Remote tools that run as tasks (MCP 2025-11-25 ``execution.taskSupport``).

A tool whose ``taskSupport`` is ``"required"`` refuses a plain
``tools/call``: the server answers a call that carries ``task: {ttl}`` with
a ``CreateTaskResult`` at once, and the client polls ``tasks/get`` until the
task ends, then fetches its ``CallToolResult`` with ``tasks/result``. This
driver does that within the call's time, so a program calls such a tool as
it calls any other. An ``"optional"`` tool is called plainly: the server
then runs the task itself and answers with the result, which costs no polls.

Every way the task can end badly becomes an error result
(``CallToolResult`` with ``is_error``), never an exception: the caller reads
it as the tool's own failure (a ToolError with the server's message, its
secrets masked) and the session stays open. A call that is abandoned (the
run's time ran out, the call was cancelled) cancels the task on the server,
best effort, so the server does not keep working for nobody.

The SDK (``mcp`` 2.x) has the types of tasks but no client driver, and it
checks a ``tools/call`` answer against ``CallToolResult`` alone, which a
``CreateTaskResult`` cannot pass; the creating request therefore goes out
through the session's own stamp and dispatcher, unchecked, and is read here.
"""

from __future__ import annotations

import asyncio
from typing import Any

#: The value of ``execution.taskSupport`` that makes a plain call fail.
REQUIRED = "required"
#: The protocol versions that have tasks: they came in 2025-11-25 and left the core in 2026-07-28.
TASK_VERSIONS = frozenset({"2025-11-25"})
#: The bounds of the wait between two polls, in seconds, whatever the server's ``pollInterval`` says.
POLL_MIN_S, POLL_MAX_S = 0.05, 2.0
#: How long the server is asked to keep a task past the call's time, in seconds.
TTL_MARGIN_S = 60.0
#: How long a best-effort ``tasks/cancel`` may take, in seconds.
CANCEL_S = 2.0
#: How much later than the caller's own timer this driver gives up (the caller's ends the call first).
BACKSTOP_S = 1.0

#: Cancels in flight (held so the loop does not drop them before they are sent).
_cancelling: set[asyncio.Task] = set()


def task_support(tool: Any) -> str | None:
    """A listed tool's ``execution.taskSupport`` (``"required"``, ``"optional"``, ``"forbidden"``), or None."""
    execution = getattr(tool, "execution", None)
    support = getattr(execution, "task_support", None)
    return support if isinstance(support, str) else None


def unusable(support: str | None, version: str | None) -> str | None:
    """Why a tool cannot be called on a session of protocol ``version``, or None when it can.

    A tool that requires tasks on a session without them would fail every
    call: it is left out rather than listed as working. 2026-07-28 has them
    through the tasks extension (``lackpy.remote.task_extension``).
    """
    if support == REQUIRED and version not in (*TASK_VERSIONS, "2026-07-28"):
        return f"tool left out: it runs only as a task, and protocol version {version} has no tasks"
    return None


def requires_task(tools: list[Any], name: str) -> bool:
    """Whether the listed tool ``name`` must be called as a task."""
    return any(tool.name == name and task_support(tool) == REQUIRED for tool in tools)


async def call_as_task(session: Any, tool: str, arguments: dict[str, Any], timeout: float, progress: Any = None) -> Any:
    """Call ``tool`` as a task within ``timeout`` seconds; its ``CallToolResult`` (an error result when the task failed)."""
    from mcp.types import CreateTaskResult

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout + BACKSTOP_S
    created = await _create(session, tool, arguments, timeout, progress)
    if not isinstance(created, CreateTaskResult):
        return await _checked(session, tool, created)  # the server answered at once
    task, done = created.task, False
    try:
        task = await _settled(session, task, deadline)
        result = await _outcome(session, tool, task, deadline)
        done = True
        return result
    except _Late:
        return _error(f"the task did not end within the call's time ({timeout:g} s)")
    finally:
        if not done:  # abandoned: the run's time ran out, the call was cancelled, or the backstop passed
            _cancel_later(session, task.task_id)


async def _create(session: Any, tool: str, arguments: dict[str, Any], timeout: float, progress: Any) -> Any:
    """Send the task-augmented ``tools/call``; its CreateTaskResult (or a CallToolResult from a server that did not make a task)."""
    from mcp.types import CallToolRequest, CallToolRequestParams, CallToolResult, CreateTaskResult, TaskMetadata

    ttl_ms = int((timeout + TTL_MARGIN_S) * 1000)
    request = CallToolRequest(params=CallToolRequestParams(name=tool, arguments=arguments, task=TaskMetadata(ttl=ttl_ms)))
    raw = await _send_unchecked(session, request, timeout + BACKSTOP_S, progress)
    if isinstance(raw, dict) and "task" in raw:
        return CreateTaskResult.model_validate(raw, by_name=False)
    return CallToolResult.model_validate(raw, by_name=False)


async def _send_unchecked(session: Any, request: Any, timeout: float, progress: Any) -> Any:
    """Send ``request`` as the session's ``send_request`` does, but return its raw result: the SDK's check of a ``tools/call`` answer refuses a CreateTaskResult."""
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {"timeout": timeout}
    if progress is not None:
        opts["on_progress"] = progress
    session._stamp(data, opts)
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)


async def _settled(session: Any, task: Any, deadline: float) -> Any:
    """Poll ``tasks/get`` while the task is working, at the server's ``pollInterval`` within bounds; the task once it is not."""
    from mcp.types import GetTaskRequest, GetTaskRequestParams, GetTaskResult

    loop = asyncio.get_running_loop()
    while task.status == "working":
        left = deadline - loop.time()
        if left <= 0:
            raise _Late
        interval = (1000 if task.poll_interval is None else task.poll_interval) / 1000
        await asyncio.sleep(min(max(interval, POLL_MIN_S), POLL_MAX_S, left))
        request = GetTaskRequest(params=GetTaskRequestParams(task_id=task.task_id))
        task = await session.send_request(request, GetTaskResult, request_read_timeout_seconds=max(deadline - loop.time(), POLL_MIN_S))
    return task


async def _outcome(session: Any, tool: str, task: Any, deadline: float) -> Any:
    """The CallToolResult of a task that stopped working: its payload, or an error result saying why there is none.

    ``input_required`` fetches the payload too: ``tasks/result`` waits for
    the end, and the server meanwhile sends its questions, which reach the
    client's usual callbacks (roots, elicitation).
    """
    if task.status == "cancelled":
        return _error(f"the server cancelled the task{_said(task)}")
    if task.status == "failed":
        return await _failure(session, task, deadline)
    if task.status not in ("completed", "input_required"):
        return _error(f"the task ended in an unknown status {task.status!r}")
    return await _checked(session, tool, await _payload(session, task.task_id, deadline))


async def _checked(session: Any, tool: str, result: Any) -> Any:
    """``result``, checked against the tool's output schema as the SDK checks a plain call's."""
    if not result.is_error:
        await session.validate_tool_result(tool, result)
    return result


async def _failure(session: Any, task: Any, deadline: float) -> Any:
    """A failed task's error result: the tool's own error result when the server kept one, else the task's status message."""
    from mcp.shared.exceptions import MCPError

    try:
        result = await _payload(session, task.task_id, deadline)
    except MCPError:
        result = None
    if result is not None and _texts(result):
        return result.model_copy(update={"is_error": True})
    return _error(task.status_message or "the task failed without a message")


async def _payload(session: Any, task_id: str, deadline: float) -> Any:
    """``tasks/result``: the task's CallToolResult, waited for until ``deadline``."""
    from mcp.types import CallToolResult, GetTaskPayloadRequest, GetTaskPayloadRequestParams

    left = deadline - asyncio.get_running_loop().time()
    if left <= 0:
        raise _Late
    request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task_id))
    return await session.send_request(request, CallToolResult, request_read_timeout_seconds=left)


def _cancel_later(session: Any, task_id: str) -> None:
    """Send ``tasks/cancel`` from a task of its own: the call that gave up may itself be cancelled, and must not wait for the server."""
    job = asyncio.get_running_loop().create_task(_cancel(session, task_id))
    _cancelling.add(job)
    job.add_done_callback(_cancelling.discard)


async def _cancel(session: Any, task_id: str) -> None:
    """``tasks/cancel``, best effort: a server that does not answer, or already ended the task, changes nothing here."""
    from mcp.types import CancelTaskRequest, CancelTaskRequestParams, CancelTaskResult

    try:
        request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
        await asyncio.wait_for(session.send_request(request, CancelTaskResult, request_read_timeout_seconds=CANCEL_S), CANCEL_S)
    except Exception:
        pass


class _Late(Exception):
    """The backstop passed: the caller's own timer should have ended the call first."""


def _said(task: Any) -> str:
    return f": {task.status_message}" if task.status_message else ""


def _texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text" and block.text.strip()]


def _error(message: str) -> Any:
    """An error result carrying ``message``, read by the caller as any tool's error."""
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


__all__ = ["REQUIRED", "TASK_VERSIONS", "call_as_task", "requires_task", "task_support", "unusable"]
