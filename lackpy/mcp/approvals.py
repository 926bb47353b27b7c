"""Approvals over MCP: ``lackpy serve`` asks its client, through elicitation, on both protocol eras.

A handshake-era connection (up to 2025-11-25) can send the client an
``elicitation/create`` request in the middle of a call, so the run's question
is asked there and then. A 2026-07-28 connection cannot: a
call that needs input ends with an ``InputRequiredResult`` and the client
calls again with the answers. So the run goes on in a task while the call
returns its question; the retry (its ``request_state`` names the waiting
run) hands the answer over and waits for the next question or the result.
A run whose client never comes back is denied when its wait ends, like a
person who does not answer.

The run lives in the replica that started it; its state names that replica
(``lackpy.mcp.cluster``), and a retry that lands on another is forwarded
there (``lackpy.mcp.forward``). With a shared store, the question waiting
is recorded (``approval:{token}``: the tool, the question's first line, a
digest of who may answer, the deadline), and a run that ends after it asked
leaves its result (``finished:{token}``) for ``KEEP_FINISHED_S``: a retry
that lands anywhere, even after that replica stopped, gets it. A retry
whose run is neither waiting nor finished, and whose replica is another,
was lost with it (``LostError``): the run is never started again, for what
it did before its question would happen twice.

A client that declared no elicitation capability cannot be asked: a blocking
gate is then denied, with how to allow it (start the server with
``--approval``), and nothing of that call happens.

A question's message holds everything the approval allows (the call with
every argument in full, every file of a commit with its counts) and the
diff, up to ``MESSAGE_CHARS``. What does not fit is the resource
``lackpy://approvals/{id}`` the message names, readable while the question
waits: a diff left out is there on request; a question whose allowed part
itself does not fit is marked cut, and is not approved when its wait ends
unless the client has read that resource first.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from typing import Any, Awaitable, Callable

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field, ValidationError

from lackpy.approvals.approver import Unattended
from lackpy.errors import LackpyError, LostError, ParamError
from lackpy.mcp import results
from lackpy.mcp.cluster import STATE_TTL_S, Cluster, caller
from lackpy.mcp.progress import Reach
from lackpy.mcp.resources import invalid
from lackpy.approvals.decision import Decision
from lackpy.approvals.request import ApprovalRequest, visible

#: The first protocol revision whose calls ask for input by returning InputRequiredResult.
INPUT_REQUIRED_VERSION = "2026-07-28"
#: How long a finished run waits for its client's retry before its result is dropped.
KEEP_FINISHED_S = 60.0
#: Most characters of one question's message; the rest is its resource.
MESSAGE_CHARS = 8000
#: Room kept in a message for the note that says what was left out, and where it is.
NOTE_CHARS = 200
#: Where a question waiting for an answer can be read whole.
QUESTION_URI = "lackpy://approvals/{id}"
#: What each gate asks.
HEADS = {"effects": "Run this program with these effects?", "program": "Run this program?", "call": "Make this call?", "commit": "Apply these changes?", "elicit": "A question for you:", "skill": "Run this program?"}


NO_ELICITATION = Unattended(
    "nobody can be asked: the MCP client cannot answer approvals (it declared no elicitation capability); "
    "start lackpy serve with --approval auto, notify or none to go on without asking"
)

Work = Callable[[Any, Reach], Awaitable[CallToolResult]]
#: How much of a question its record in the store keeps (its first line, cut).
SUMMARY_CHARS = 300

_log = logging.getLogger(__name__)


class Approve(BaseModel):
    """The form a client fills in: accepting it approves; ``approve: false`` lets a form that was accepted still say no.

    The field is optional and defaults to true, so a client that pre-fills
    defaults and one that sends an accept with no content both mean what the
    person did: press accept.
    """

    approve: bool = Field(default=True, description="accepting approves; set to false to refuse instead (or decline)")


def question(request: ApprovalRequest) -> tuple[str, str]:
    """The whole question (what the approval allows, then the diff) and the part of it that makes a message."""
    allowed = "\n".join([f"lackpy: {HEADS[request.gate]} {request.summary()}", *request.lines()])
    extra = "\n".join(request.more())
    return allowed + (f"\n\n{extra}" if extra else ""), allowed


class Questions:
    """The questions of one server waiting for an answer whose message could not hold them whole, readable by id.

    ``open`` makes a question's message; when it does not fit, the whole
    text is kept until ``close`` under an id the message names
    (``lackpy://approvals/{id}``), and ``read`` returns it. A question
    whose allowed part was cut counts as seen whole once it has been read.
    """

    def __init__(self) -> None:
        self.waiting: dict[str, tuple[str, ApprovalRequest]] = {}

    def open(self, request: ApprovalRequest) -> tuple[str, str | None]:
        """The message asking ``request``, and the id its whole text is kept under (None: the message is whole)."""
        whole, allowed = question(request)
        if len(whole) <= MESSAGE_CHARS:
            return whole, None
        key = secrets.token_urlsafe(18)
        self.waiting[key] = (whole, request)
        uri = QUESTION_URI.format(id=key)
        if len(allowed) <= MESSAGE_CHARS - NOTE_CHARS:
            label = request.more_label.capitalize()
            return f"{allowed}\n\n{label} ({len(whole) - len(allowed)} characters) is not in this message: read it at {uri} before you answer.", key
        shown = allowed[: MESSAGE_CHARS - 2 * NOTE_CHARS]
        request.showing.cut(f"the message held only the first {len(shown)} of its {len(allowed)} characters and {uri} was not read")
        return (
            f"{shown}\n...\n\nThis question is too long for one message: above are {len(shown)} of the {len(allowed)} characters of what it "
            f"approves. Read all of it at {uri} before you answer; until it has been read, no answer is a no.",
            key,
        )

    def read(self, key: str) -> str:
        """The whole text of question ``key``, which now counts as seen; a -32602 refusal when no such question waits."""
        found = self.waiting.get(key)
        if found is None:
            raise invalid(f"no approval question {key!r} is waiting (it was answered, or its wait ended)")
        text, request = found
        request.showing.seen()
        return text

    def close(self, key: str | None) -> None:
        if key is not None:
            self.waiting.pop(key, None)


def notice(request: ApprovalRequest) -> str:
    """A notify-mode gate's news: the question, cut at ``MESSAGE_CHARS`` (a notice approves nothing a person must read)."""
    whole, _ = question(request)
    text = f"approval notice: {whole}"
    return text if len(text) <= MESSAGE_CHARS else f"{text[:MESSAGE_CHARS]}\n... ({len(text) - MESSAGE_CHARS} more characters)"


def add_questions(server: MCPServer, asking: "Asking") -> None:
    """``lackpy://approvals/{id}``: a waiting question too long for its message, whole."""

    @server.resource(
        QUESTION_URI, name="approval", mime_type="text/plain",
        description="A question lackpy is waiting for an answer to, whole (its message names this resource when it could not hold all of it).",
    )
    def approval(id: str) -> str:
        return asking.questions.read(id)


#: Most characters of the expression a field of the effects form names.
FIELD_EXPRESSION_CHARS = 200


def form_of(request: ApprovalRequest) -> dict[str, Any]:
    """The form a question asks the client to fill in: the server's own for a server's question, else lackpy's ``Approve``;
    an ``effects`` question with computed arguments also has one ``any_N`` checkbox per argument, unchecked: whether any
    value is allowed for computed argument ``#N`` (else each call with it is asked about when it runs)."""
    if request.gate == "elicit":
        return request.form
    schema = render_elicitation_schema(Approve)
    if request.gate != "effects":
        return schema
    properties = dict(schema["properties"])
    for effect in request.effects:
        for argument in effect.computed():
            if argument.ref is None:  # any value already: its tool's calls are not asked about
                continue
            shown = visible(argument.expression)
            shown = shown if len(shown) <= FIELD_EXPRESSION_CHARS else shown[:FIELD_EXPRESSION_CHARS] + "..."
            properties[f"any_{argument.ref}"] = {
                "type": "boolean", "default": False, "title": f"Any value for #{argument.ref}",
                "description": f"line {effect.line}: {effect.tool} {argument.name} = {shown}; allow any value (else each call with it is asked about when it runs)",
            }
    return {**schema, "properties": properties}


def decision(action: str, content: Any, gate: str = "call") -> Decision:
    """A client's elicitation answer.

    In MCP ``action: "accept"`` is the person's explicit yes, and a form with
    no required field may come back empty: so an accept approves unless its
    content says ``approve: false``. Content that is not the form (not an
    object, or ``approve`` not a boolean) approves nothing: a gate refuses
    what it cannot read. An answer to a server's question (``elicit``)
    carries what was filled in, checked against the server's form later.
    """
    if action != "accept":
        return Decision(False, "client", "the client declined" if action == "decline" else "the client cancelled")
    if gate == "elicit":
        return Decision(True, "client", "answered by the client", content=content if isinstance(content, dict) else {})
    if content is None:
        content = {}
    answer = content.get("approve", True) if isinstance(content, dict) else None
    if answer is True and gate == "effects":
        return _effects_answer(content)
    if answer is True:
        return Decision(True, "client", "approved by the client")
    if answer is False:
        return Decision(False, "client", "the client answered no")
    return Decision(False, "client", "the client's answer did not fill in the form")


def _effects_answer(content: dict) -> Decision:
    """A yes to an ``effects`` question, allowing any value for each computed argument whose ``any_N`` is true; an
    ``any_N`` that is not a boolean, or names no number, is not the form: refused."""
    chosen = []
    for key, value in content.items():
        if not key.startswith("any_"):
            continue
        number = key.removeprefix("any_")
        if not number.isdigit() or not isinstance(value, bool):
            return Decision(False, "client", "the client's answer did not fill in the form")
        if value:
            chosen.append(int(number))
    return Decision(True, "client", "approved by the client", any_value=sorted(chosen))


def _notifier(reach: Reach) -> Callable[[str], None]:
    """A notice (a notify-mode gate) as an info log message to the client, on the request open now; best effort, never waited for."""

    def notify(text: str) -> None:
        async def send() -> None:
            try:
                await (await reach.current()).info(text)
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

    def __init__(self, cluster: Cluster | None = None) -> None:
        self.cluster = cluster or Cluster.local()
        self.waiting: dict[str, _Waiting] = {}
        self.questions = Questions()

    async def serve(self, ctx: Context | None, work: Work, tool: str = "") -> Any:
        """``work(approve, reach)``'s result, asking ``ctx``'s client what its gates ask; an InputRequiredResult while one waits.

        ``tool`` names the served tool, so a retry's ``request_state`` answers
        only a run of that tool; the retry also becomes the run's ``reach``,
        the request its progress goes to.
        """
        if not _can_elicit(ctx):
            return await work(NO_ELICITATION, Reach(ctx))
        if not _modern(ctx):
            reach = Reach(ctx)
            return await work(_Elicit(ctx, _notifier(reach), self.questions), reach)
        state = ctx.request_state
        if state:
            waiting = self.waiting.get(state)
            if waiting is None or waiting.tool != tool:
                try:
                    return await self._not_here(state, tool)
                except LackpyError as exc:
                    return results.of_error(exc)
            waiting.reach.move(ctx)
            waiting.answer(ctx.input_responses or {})
        else:
            waiting = self._start(work, Reach(ctx), tool)
        answer = await waiting.next()
        if isinstance(answer, InputRequiredResult) and self.cluster.shared:
            await self._record(waiting, answer, ctx)
        return answer

    def under_way(self) -> int:
        """Runs that have not ended yet (a drain waits for them: their client's retries come back here)."""
        return sum(1 for waiting in self.waiting.values() if waiting.task is not None and not waiting.task.done())

    def _start(self, work: Work, reach: Reach, tool: str) -> "_Waiting":
        token = f"{self.cluster.me}.{secrets.token_urlsafe(24)}"
        waiting = self.waiting[token] = _Waiting(token, reach, tool, self.questions)
        waiting.task = asyncio.create_task(self._run(waiting, work(waiting.ask, reach)))
        loop = asyncio.get_running_loop()
        waiting.task.add_done_callback(lambda _: loop.call_later(KEEP_FINISHED_S, self.waiting.pop, token, None))
        return waiting

    async def _run(self, waiting: "_Waiting", work: Awaitable[Any]) -> Any:
        """The run's result; when it asked its client something and the store is shared, also left there for the retry."""
        result = await work
        if waiting.asked and self.cluster.shared:
            store, token = self.cluster.store, _key(waiting.token)
            document = result.model_dump(mode="json", by_alias=True, exclude_none=True) if isinstance(result, CallToolResult) else None
            try:
                if document is not None:
                    await asyncio.to_thread(store.put, f"finished:{token}", {"tool": waiting.tool, "result": document}, KEEP_FINISHED_S)
                await asyncio.to_thread(store.delete, f"approval:{token}")
            except LackpyError as exc:  # this replica still holds the result for KEEP_FINISHED_S; a retry that lands here gets it
                _log.warning("lackpy: the result of a run that asked for input was not left in the store: %s", exc)
        return result

    async def _record(self, waiting: "_Waiting", asked: InputRequiredResult, ctx: Context) -> None:
        """Record in the store the question ``asked`` waits on: which replica holds it, for which tool, who may answer, until when."""
        messages = [request.params.message for request in (asked.input_requests or {}).values() if isinstance(request, ElicitRequest)]
        summary = (messages[0].splitlines() or [""])[0][:SUMMARY_CHARS] if messages else ""
        record = {"replica": self.cluster.me, "tool": waiting.tool, "question": summary, "caller": caller(ctx), "deadline": time.time() + STATE_TTL_S}
        try:
            await asyncio.to_thread(self.cluster.store.put, f"approval:{_key(waiting.token)}", record, STATE_TTL_S)
        except LackpyError as exc:  # the retry still reaches the run through its state; only a lost run's message says less
            _log.warning("lackpy: a waiting approval was not recorded in the store: %s", exc)

    async def _not_here(self, state: str, tool: str) -> CallToolResult:
        """The answer to a retry whose run this replica does not hold: its result from the store, or why there is none.

        Raises LostError when the run's replica is another (the retry came
        here because that one is gone), ParamError when it was this one's.
        """
        replica = state.partition(".")[0]
        store, token = self.cluster.store, _key(state)
        if self.cluster.shared:
            finished = await asyncio.to_thread(store.get, f"finished:{token}")
            if isinstance(finished, dict) and finished.get("tool") == tool and isinstance(finished.get("result"), dict):
                return CallToolResult.model_validate(finished["result"])
        if replica != self.cluster.me:
            asked = await asyncio.to_thread(store.get, f"approval:{token}") if self.cluster.shared else None
            question = f" while it waited for your answer to: {asked['question']}" if isinstance(asked, dict) and asked.get("question") else ""
            raise LostError(f"this run was lost with replica {replica} (it stopped){question}; nothing of it was committed; call the tool again")
        raise ParamError("this approval is no longer waiting (it was answered, it timed out, or the server restarted); call the tool again")


class _Waiting:
    """One run on a 2026-07-28 connection: its questions go out as InputRequiredResults, its answers come back on retries."""

    def __init__(self, token: str, reach: Reach, tool: str, kept: Questions) -> None:
        self.token, self.reach, self.tool, self.kept = token, reach, tool, kept
        self.notify = _notifier(reach)
        self.task: asyncio.Task | None = None
        self.questions: asyncio.Queue[tuple[str, str, dict]] = asyncio.Queue()
        self.pending: dict[str, tuple[asyncio.Future, str]] = {}
        self.keys = itertools.count(1)
        #: Whether the run asked its client anything: then a retry will come for its result.
        self.asked = False

    async def ask(self, request: ApprovalRequest) -> Decision | None:
        """The approver the run uses: queue the question, wait for the retry that answers it (the gate bounds the wait)."""
        if request.ask == "notify":
            self.notify(notice(request))
            return None
        key = f"approve-{next(self.keys)}"
        self.asked = True
        answered = asyncio.get_running_loop().create_future()
        self.pending[key] = (answered, request.gate)
        message, kept = self.kept.open(request)
        self.questions.put_nowait((key, message, form_of(request)))
        try:
            return await answered
        finally:
            self.pending.pop(key, None)
            self.kept.close(kept)

    def answer(self, responses: dict[str, Any]) -> None:
        for key, response in responses.items():
            future, gate = self.pending.get(key, (None, ""))
            if future is None or future.done():
                continue
            if isinstance(response, ElicitResult):
                future.set_result(decision(response.action, response.content, gate))
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
        key, message, schema = asked.result()
        self.reach.pause()  # this request ends with the question: until the retry, the run's progress waits
        form = ElicitRequestFormParams(message=message, requested_schema=schema)
        return InputRequiredResult(input_requests={key: ElicitRequest(params=form)}, request_state=self.token)


def _key(state: str) -> str:
    """The store's name for a waiting run: its token, without the replica (the record says which)."""
    return state.partition(".")[2][:64]


class _InTask:
    """Asks the client of a task (SEP-2663): the question waits in the task's ``inputRequests`` until ``tasks/update`` answers it."""

    def __init__(self, run: Any, kept: Questions) -> None:
        self.run, self.kept = run, kept

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        if request.ask == "notify":  # nobody is listening between polls: the decision is in the run's result
            return None
        message, kept = self.kept.open(request)
        asked = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=form_of(request)))
        try:
            answer = await self.run.ask(asked.model_dump(mode="json", by_alias=True, exclude_none=True), "approve")
        finally:
            self.kept.close(kept)
        try:
            given = ElicitResult.model_validate(answer)
        except ValidationError:
            return Decision(False, "client", "the client sent an answer that is not an elicitation result")
        return decision(given.action, given.content, request.gate)


def in_task(run: Any, kept: Questions) -> _InTask:
    """The approver of a run that is a task (``lackpy.mcp.tasks.Run``): its questions are the task's input requests."""
    return _InTask(run, kept)


class _Elicit:
    """Asks a handshake-era client in the middle of the call."""

    def __init__(self, ctx: Context, notify: Callable[[str], None], kept: Questions) -> None:
        self.ctx, self.notify, self.kept = ctx, notify, kept

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        if request.ask == "notify":
            self.notify(notice(request))
            return None
        message, kept = self.kept.open(request)
        try:  # the raw answer, not ctx.elicit's: that one refuses an accept without content, which is a yes
            outcome = await self.ctx.request_context.session.elicit_form(
                message=message, requested_schema=form_of(request), related_request_id=self.ctx.request_id
            )
        finally:
            self.kept.close(kept)
        return decision(outcome.action, outcome.content, request.gate)


__all__ = ["Asking", "NO_ELICITATION", "QUESTION_URI", "Questions", "add_questions", "decision", "in_task", "notice", "question"]
