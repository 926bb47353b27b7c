"""Approvals over MCP: ``lackpy serve`` asks its client, through elicitation, on both protocol eras.

A handshake-era connection (up to 2025-11-25) can send the client an
``elicitation/create`` request in the middle of a call, so the run's question
is asked there and then (``ctx.elicit``). A 2026-07-28 connection cannot: a
call that needs input ends with an ``InputRequiredResult`` and the client
calls again with the answers. So the run goes on in a task while the call
returns its question; the retry (its ``request_state`` names the waiting
run) hands the answer over and waits for the next question or the result.
A run whose client never comes back is denied when its wait ends, like a
person who does not answer.

A client that declared no elicitation capability cannot be asked: a blocking
gate is then denied, with how to allow it (start the server with
``--approval``), and nothing of that call happens.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from typing import Any, Awaitable, Callable

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from lackpy.approve import Unattended
from lackpy.mcp import results
from lackpy.run.approvals import ApprovalRequest, Decision

#: The first protocol revision whose calls ask for input by returning InputRequiredResult.
INPUT_REQUIRED_VERSION = "2026-07-28"
#: How long a finished run waits for its client's retry before its result is dropped.
KEEP_FINISHED_S = 60.0
#: Most characters of a program, arguments or diff in one question.
MESSAGE_CHARS = 8000

NO_ELICITATION = Unattended(
    "nobody can be asked: the MCP client cannot answer approvals (it declared no elicitation capability); "
    "start lackpy serve with --approval auto, notify or none to go on without asking"
)

Work = Callable[[Any], Awaitable[CallToolResult]]


class Approve(BaseModel):
    """The form a client fills in."""

    approve: bool = Field(default=False, description="true to let lackpy go ahead; false to refuse")


def question(request: ApprovalRequest) -> str:
    """The message a client shows: what would happen, then the program, the arguments or the diff."""
    head = {"program": "Run this program?", "call": "Make this call?", "commit": "Apply these changes?"}[request.gate]
    text = f"lackpy: {head} {request.summary()}"
    if request.gate == "program":
        text += f"\nIts own grade: {request.grade} ({request.risk})."
    details = request.details()
    if len(details) > MESSAGE_CHARS:
        details = details[:MESSAGE_CHARS] + f"\n... ({len(details) - MESSAGE_CHARS} more characters)"
    return f"{text}\n\n{details}" if details else text


def decision(action: str, content: Any) -> Decision:
    """A client's elicitation answer: approved only when accepted with ``approve: true``."""
    if action == "accept":
        approved = isinstance(content, dict) and content.get("approve") is True
        return Decision(approved, "client", "approved by the client" if approved else "the client answered no")
    return Decision(False, "client", "the client declined" if action == "decline" else "the client cancelled")


def _notifier(ctx: Context) -> Callable[[str], None]:
    """A notice (a notify-mode gate) as an info log message to the client, best effort, never waited for."""

    def notify(text: str) -> None:
        async def send() -> None:
            try:
                await ctx.info(text)
            except Exception:  # a notice is a courtesy: a client that takes no log messages still gets the decision in the result
                pass

        asyncio.get_running_loop().create_task(send())

    return notify


def _modern(ctx: Context | None) -> bool:
    try:
        version = ctx.protocol_version
    except Exception:
        return False
    return version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def _can_elicit(ctx: Context | None) -> bool:
    try:
        capabilities = ctx.client_capabilities
    except Exception:
        return False
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


class Asking:
    """The runs of one server that wait between rounds for their client's answers (2026-07-28 connections)."""

    def __init__(self) -> None:
        self.waiting: dict[str, _Waiting] = {}

    async def serve(self, ctx: Context | None, work: Work, tool: str = "") -> Any:
        """``work(approve)``'s result, asking ``ctx``'s client what its gates ask; an InputRequiredResult while one waits.

        ``tool`` names the served tool, so a retry's ``request_state`` answers only a run of that tool.
        """
        if not _can_elicit(ctx):
            return await work(NO_ELICITATION)
        notify = _notifier(ctx)
        if not _modern(ctx):
            return await work(_Elicit(ctx, notify))
        state = ctx.request_state
        if state:
            waiting = self.waiting.get(state)
            if waiting is None or waiting.tool != tool:
                return results.failure("error: this approval is no longer waiting (it timed out, or the server restarted); call the tool again")
            waiting.answer(ctx.input_responses or {})
        else:
            waiting = self._start(work, notify, tool)
        return await waiting.next()

    def _start(self, work: Work, notify: Callable[[str], None] | None, tool: str) -> "_Waiting":
        token = secrets.token_urlsafe(24)
        waiting = self.waiting[token] = _Waiting(token, notify, tool)
        waiting.task = asyncio.create_task(work(waiting.ask))
        loop = asyncio.get_running_loop()
        waiting.task.add_done_callback(lambda _: loop.call_later(KEEP_FINISHED_S, self.waiting.pop, token, None))
        return waiting


class _Waiting:
    """One run on a 2026-07-28 connection: its questions go out as InputRequiredResults, its answers come back on retries."""

    def __init__(self, token: str, notify: Callable[[str], None] | None, tool: str) -> None:
        self.token, self.notify, self.tool = token, notify, tool
        self.task: asyncio.Task | None = None
        self.questions: asyncio.Queue[tuple[str, ApprovalRequest]] = asyncio.Queue()
        self.pending: dict[str, asyncio.Future] = {}
        self.keys = itertools.count(1)

    async def ask(self, request: ApprovalRequest) -> Decision | None:
        """The approver the run uses: queue the question, wait for the retry that answers it (the gate bounds the wait)."""
        if request.mode == "notify":
            if self.notify is not None:
                self.notify(f"approval notice: {request.summary()}")
            return None
        key = f"approve-{next(self.keys)}"
        answered = self.pending[key] = asyncio.get_running_loop().create_future()
        self.questions.put_nowait((key, request))
        try:
            return await answered
        finally:
            self.pending.pop(key, None)

    def answer(self, responses: dict[str, Any]) -> None:
        for key, response in responses.items():
            future = self.pending.get(key)
            if future is None or future.done():
                continue
            if isinstance(response, ElicitResult):
                future.set_result(decision(response.action, response.content))
            else:
                future.set_result(Decision(False, "client", "the client sent an answer that is not an elicitation result"))

    async def next(self) -> Any:
        """The run's result when it ends first, else its next question as an InputRequiredResult."""
        asked = asyncio.create_task(self.questions.get())
        try:
            await asyncio.wait({self.task, asked}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the client gave up on the call: so does the run
            asked.cancel()
            self.task.cancel()
            raise
        if not asked.done():
            asked.cancel()
            return self.task.result()
        key, request = asked.result()
        form = ElicitRequestFormParams(message=question(request), requested_schema=render_elicitation_schema(Approve))
        return InputRequiredResult(input_requests={key: ElicitRequest(params=form)}, request_state=self.token)


class _Elicit:
    """Asks a handshake-era client in the middle of the call."""

    def __init__(self, ctx: Context, notify: Callable[[str], None] | None) -> None:
        self.ctx, self.notify = ctx, notify

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        if request.mode == "notify":
            if self.notify is not None:
                self.notify(f"approval notice: {request.summary()}")
            return None
        try:
            outcome = await self.ctx.elicit(question(request), Approve)
        except ValueError:  # accepted with content that is not the form
            return Decision(False, "client", "the client's answer did not fill in the form")
        data = getattr(outcome, "data", None)
        return decision(outcome.action, data.model_dump() if data is not None else None)


__all__ = ["Asking", "NO_ELICITATION", "question", "decision"]
