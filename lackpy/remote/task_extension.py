"""Remote tools that answer with a task on 2026-07-28: the client side of the tasks extension (SEP-2663).

lackpy declares ``io.modelcontextprotocol/tasks`` to the servers it uses
(the SDK advertises it only on the revisions where its claim is active: the
2026-07-28 wire; 2025-11-25's core tasks are ``lackpy.remote.tasks``). A
server may then answer a ``tools/call`` with a ``CreateTaskResult``
(``resultType: "task"``); the SDK hands it to ``follow``, which, within the
call's time:

- polls ``tasks/get`` while the task is ``working``: first after POLL_MIN_S,
  each wait twice the one before until it reaches the server's
  ``pollIntervalMs`` (within POLL_MIN_S and POLL_MAX_S), so a short run is
  not held for a whole interval and a long one is polled as the server asks;
- answers an ``input_required`` task's ``inputRequests`` with
  ``tasks/update``: an ``elicitation/create`` goes to the person who answers
  the run's approvals (``lackpy.remote.asks``, as a question in the middle
  of a plain call does), a ``roots/list`` gets the workspace; anything else
  (sampling) is not answered inside a task: the task is cancelled and the
  call fails saying so;
- returns the ``result`` of a ``completed`` task as the call's result (an
  error result stays one), and makes a ``failed`` task's error or a
  ``cancelled`` task an error result with the server's words.

A call abandoned on the way (the run's time ran out, the run was cancelled)
cancels the task on the server, best effort, so it does not work for nobody.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Literal

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import CallToolResult, ElicitResult, Request, RequestParams, Result, TextContent
from pydantic import ConfigDict, Field

from lackpy.remote.tasks import CANCEL_S, POLL_MAX_S, POLL_MIN_S

EXTENSION = "io.modelcontextprotocol/tasks"
#: How many rounds of questions one task may ask (each waits for a person); past it the task is cancelled.
MOST_ROUNDS = 5
#: The wait for one task request when the call gave no time of its own, in seconds.
REQUEST_S = 30.0


class Created(Result):
    """The ``CreateTaskResult`` a ``tools/call`` answered with."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class Detailed(Result):
    """What ``tasks/get`` answers (the acks of ``tasks/update`` and ``tasks/cancel`` fill none of it)."""

    model_config = ConfigDict(extra="allow")
    task_id: str | None = None
    status: str | None = None
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict | None = None
    error: dict | None = None
    input_requests: dict | None = Field(default=None, alias="inputRequests")


class TaskParams(RequestParams):
    task_id: str
    input_responses: dict | None = None


class TaskRequest(Request[TaskParams, str]):
    method: str
    params: TaskParams


Elicit = Callable[[Any, Any], Awaitable[Any]]
Roots = Callable[[Any], Awaitable[Any]]


class Tasks(ClientExtension):
    """The extension as lackpy's client takes part in it: declared, and each task a call answers with followed to its end."""

    identifier = EXTENSION

    def __init__(self, elicit: Elicit, roots: Roots) -> None:
        self.elicit, self.roots = elicit, roots

    def claims(self) -> tuple[ResultClaim, ...]:
        return (ResultClaim(result_type="task", model=Created, resolve=self.follow),)

    async def follow(self, created: Created, ctx: ClaimContext) -> CallToolResult:
        """The call's result: the task polled, its questions answered, until it ends."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (ctx.read_timeout_seconds or REQUEST_S)
        task_id, interval, rounds, polls, done = created.task_id, created.poll_interval_ms, 0, 0, False
        try:
            while True:
                task = await _ask(ctx.session, "tasks/get", task_id, deadline)
                if task.status == "completed":
                    done = True
                    return CallToolResult.model_validate(task.result or {"content": []}, by_name=False)
                if task.status in ("failed", "cancelled"):
                    done = True
                    return _error(_ended(task))
                if task.status == "input_required" and task.input_requests:
                    rounds += 1
                    if rounds > MOST_ROUNDS:
                        return _error(f"the task asked more than {MOST_ROUNDS} rounds of questions; lackpy cancelled it")
                    answers = await self._answers(task.input_requests)
                    if answers is None:
                        return _error("the task asked for something lackpy does not answer inside a task (only questions and roots); "
                                      "lackpy cancelled it")
                    await _ask(ctx.session, "tasks/update", task_id, deadline, answers)
                    continue
                interval = task.poll_interval_ms or interval
                wait = min(max((interval or 1000) / 1000, POLL_MIN_S), POLL_MAX_S)
                await asyncio.sleep(min(wait, POLL_MIN_S * 2 ** polls, max(deadline - loop.time(), 0)))
                polls += 1
                if loop.time() >= deadline:
                    raise TimeoutError
        finally:
            if not done:
                _cancel_later(ctx.session, task_id)

    async def _answers(self, requests: dict) -> dict | None:
        """The answer to each input request, by its key; None when one is of a kind lackpy does not answer here."""
        from mcp.types import ElicitRequestFormParams, ElicitRequestURLParams

        answers: dict[str, Any] = {}
        for key, request in requests.items():
            method = request.get("method") if isinstance(request, dict) else None
            params = request.get("params") or {} if isinstance(request, dict) else {}
            if method == "elicitation/create":
                shape = ElicitRequestURLParams if params.get("mode") == "url" else ElicitRequestFormParams
                try:
                    asked = shape.model_validate(params, by_name=False)
                except ValueError:
                    answers[key] = {"action": "decline"}
                    continue
                answer = await self.elicit(None, asked)
                answers[key] = (answer if isinstance(answer, ElicitResult) else ElicitResult(action="decline")).model_dump(
                    mode="json", by_alias=True, exclude_none=True)
            elif method == "roots/list":
                answers[key] = (await self.roots(None)).model_dump(mode="json", by_alias=True, exclude_none=True)
            else:
                return None
        return answers


async def _ask(session: Any, method: str, task_id: str, deadline: float, answers: dict | None = None) -> Detailed:
    left = deadline - asyncio.get_running_loop().time()
    if left <= 0:
        raise TimeoutError
    request = TaskRequest(method=method, params=TaskParams(task_id=task_id, input_responses=answers))
    return await session.send_request(request, Detailed, request_read_timeout_seconds=left)


#: Cancels in flight (held so the loop does not drop them before they are sent).
_cancelling: set[asyncio.Task] = set()


def _cancel_later(session: Any, task_id: str) -> None:
    """``tasks/cancel`` from a task of its own, best effort: the call that gave up may itself be cancelled."""

    async def cancel() -> None:
        try:
            await asyncio.wait_for(_ask(session, "tasks/cancel", task_id, asyncio.get_running_loop().time() + CANCEL_S), CANCEL_S)
        except Exception:
            pass

    job = asyncio.get_running_loop().create_task(cancel())
    _cancelling.add(job)
    job.add_done_callback(_cancelling.discard)


def _ended(task: Detailed) -> str:
    error = task.error if isinstance(task.error, dict) else {}
    said = error.get("message") or task.status_message
    return f"the task {task.status}" + (f": {said}" if said else "")


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


__all__ = ["EXTENSION", "Tasks"]
