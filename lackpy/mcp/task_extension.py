"""``lackpy serve``'s tasks as SEP-2663 (``io.modelcontextprotocol/tasks``): ``tasks/get``, ``tasks/update``, ``tasks/cancel``.

The server declares ``capabilities.extensions["io.modelcontextprotocol/tasks"]``
(on a 2025-11-25 handshake too, ``declare_on_handshake``). A client that
declares the extension in its capabilities (at ``initialize``, or on
2026-07-28 in a request's ``_meta`` client capabilities, which is how one
call opts in) gets a ``tools/call`` of a tool offered as a task (``offer``:
lackpy's ``run_program`` and ``delegate``) answered at once with a
``CreateTaskResult`` (``resultType: "task"``, ``taskId``, ``status``,
``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs``); the run goes
on, and the client

- polls ``tasks/get {taskId}``: the task's status, and when it ended its
  ``result`` (the tool result, ``isError`` set when the tool failed, status
  ``completed``) or its ``error`` (a failure of the server, status ``failed``);
  while it waits for answers (an approval), status ``input_required`` and
  ``inputRequests``, each an ``elicitation/create`` under a key;
- answers with ``tasks/update {taskId, inputResponses: {key: answer}}``
  (any subset; keys nobody waits for are ignored);
- ends it with ``tasks/cancel {taskId}``: a run cancelled stops, and nothing
  it staged is committed.

``tasks/update`` and ``tasks/cancel`` answer an empty ``{resultType:
"complete"}``; what they did shows on the next ``tasks/get``. A client that
did not declare the extension gets its calls answered as before, and
``tasks/*`` answers -32021 (the missing capability, named in the error's
data); a tool offered as ``required`` answers it -32021 too. A task another
caller made, or none, is -32602; so is a malformed request, with one line
saying what to send. ``notifications/tasks`` are not sent (they are optional):
clients poll.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolRequestParams, RequestParams
from mcp_types.jsonrpc import HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY

from lackpy.errors import LackpyError
from lackpy.mcp.cluster import caller
from lackpy.mcp.tasks import TERMINAL, TaskBook, public

EXTENSION = "io.modelcontextprotocol/tasks"
GET, UPDATE, CANCEL = "tasks/get", "tasks/update", "tasks/cancel"
#: The answer of tasks/update and tasks/cancel: done, and nothing to say (the next tasks/get says the rest).
ACK = {"resultType": "complete"}


class TaskParams(RequestParams):
    """The params of ``tasks/get`` and ``tasks/cancel``: the task's id (any value is taken here and judged by the handler)."""

    task_id: Any = None


class UpdateParams(TaskParams):
    """The params of ``tasks/update``: the task's id and the answers, by the keys of its ``inputRequests``."""

    input_responses: Any = None


@dataclasses.dataclass(frozen=True)
class Offer:
    """How a tool runs as a task: ``required`` (never without one), and ``when`` a call becomes one (None: always)."""

    required: bool = False
    when: Callable[[CallToolRequestParams], bool] | None = None


class TasksExtension(Extension):
    """The extension's methods and its ``tools/call`` interceptor, over one server's TaskBook."""

    identifier = EXTENSION

    def __init__(self, book: TaskBook) -> None:
        self.book = book
        self.offers: dict[str, Offer] = {}

    def offer(self, tool: str, *, required: bool = False, when: Callable[[CallToolRequestParams], bool] | None = None) -> None:
        """Let calls of ``tool`` run as tasks (``required``: only so; ``when``: for the calls it says yes to)."""
        self.offers[tool] = Offer(required, when)

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding(GET, TaskParams, self.get),
            MethodBinding(UPDATE, UpdateParams, self.update),
            MethodBinding(CANCEL, TaskParams, self.cancel),
        )

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: Any, call_next: Any) -> Any:
        offer = self.offers.get(params.name)
        if offer is None:
            return await call_next(ctx)
        if not declared(ctx):
            if offer.required:
                raise missing(f"the tool {params.name} runs only as a task")
            return await call_next(ctx)
        if offer.when is not None and not offer.when(params):
            return await call_next(ctx)
        try:
            record = await self.book.start(params.name, caller(ctx), call_next(ctx))
        except LackpyError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"the task could not be recorded ({exc}); call the tool again") from None
        return {"resultType": "task", **public(record)}

    async def get(self, ctx: Any, params: TaskParams) -> dict:
        record, _ = await self._find(ctx, params, GET)
        shown = public(record)
        if isinstance(shown.get("inputRequests"), dict):
            shown["inputRequests"] = dict(shown["inputRequests"])
        return {**ACK, **shown}

    async def update(self, ctx: Any, params: UpdateParams) -> dict:
        responses = params.input_responses
        if not isinstance(responses, dict):
            raise invalid("tasks/update: inputResponses must be an object giving an answer under each key of the task's inputRequests")
        record, run = await self._find(ctx, params, UPDATE)
        if run is not None:
            await self.book.answer(run, responses)
        elif record.get("status") not in TERMINAL:
            raise elsewhere(record)
        return dict(ACK)

    async def cancel(self, ctx: Any, params: TaskParams) -> dict:
        record, run = await self._find(ctx, params, CANCEL)
        if run is not None:
            await self.book.cancel(run)
        elif record.get("status") not in TERMINAL:
            raise elsewhere(record)
        return dict(ACK)

    async def _find(self, ctx: Any, params: TaskParams, method: str) -> tuple[dict, Any]:
        """The task a request names, as its caller may see it, and its run when it runs here; MCPError otherwise."""
        if not declared(ctx):
            raise missing(f"{method} belongs to it")
        task_id = params.task_id
        if not isinstance(task_id, str) or not task_id:
            raise invalid(f"{method}: taskId must be the string a CreateTaskResult gave")
        _check_name_header(ctx, task_id)
        try:
            record, run = await self.book.find(task_id, caller(ctx))
        except LackpyError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"{method}: the task cannot be read now ({exc}); try again") from None
        if record is None:
            raise invalid(f"{method}: no task {task_id[:80]!r} of yours is known here (it expired, or the id is wrong); call the tool again")
        return record, run


def declared(ctx: Any) -> bool:
    """Whether the request's client declared the extension (at initialize, or in this request's ``_meta``)."""
    try:
        capabilities = ctx.session.client_capabilities
    except Exception:
        return False
    extensions = getattr(capabilities, "extensions", None) if capabilities is not None else None
    return isinstance(extensions, dict) and EXTENSION in extensions


def missing(what: str) -> MCPError:
    """-32021: the client must declare the extension, and the error's data says so as capabilities."""
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"{what}: declare the {EXTENSION} extension in the client's capabilities (extensions) to use tasks",
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def invalid(message: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message)


def elsewhere(record: dict) -> MCPError:
    """A task that runs on another replica, which this request did not reach."""
    return invalid(f"this task runs on replica {record.get('replica')}; this request reached another, which cannot change it: try again")


def _check_name_header(ctx: Any, task_id: str) -> None:
    """-32020 when the request came with an ``Mcp-Name`` header that is not its taskId (SEP-2243, as SEP-2663 extends it)."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    given = headers.get(MCP_NAME_HEADER) if headers is not None else None
    if given is not None and decode_header_value(given) != task_id:
        raise MCPError(code=HEADER_MISMATCH, message=f"the {MCP_NAME_HEADER} header must be the request's taskId")


__all__ = ["ACK", "CANCEL", "EXTENSION", "GET", "Offer", "TaskParams", "TasksExtension", "UPDATE", "UpdateParams", "declared", "missing"]
