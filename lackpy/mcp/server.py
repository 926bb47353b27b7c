"""build_server: an MCPServer whose tools are LackpyService's methods.

Each tool calls the matching service method (blocking ones off the event
loop), checks the kit a request names against the server's KitPolicy, and
answers with the result's ``to_dict()`` as structured content; every failure
is a tool result with ``isError`` set (see ``lackpy.mcp.results``). The
skills the server allows (``lackpy.mcp.skills.SkillPolicy``) are its
prompts, resources, the ``skill`` argument of run_program, and the skills it
publishes as SEP-2640 (``lackpy.mcp.skill_extension``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from typing import Annotated, Any, AsyncIterator, Awaitable, Callable, Iterable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Prompt, ToolAnnotations
from pydantic import Field, ValidationError

from lackpy import __version__
from lackpy.errors import ArgumentError, ErrorKind, LackpyError, LimitExceeded, ParamError, UsageError, resource_error
from lackpy.infer.result import DelegateResult, GenerationResult
from lackpy.kit.resolve import ResolvedKit
from lackpy.kit.spec import ToolSpec
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grade import Grade
from lackpy.lang.names import bindable, shown
from lackpy.mcp import resources, results
from lackpy.mcp import tasks
from lackpy.mcp.bearer import Quota, caller_in
from lackpy.mcp.approvals import Asking, add_questions, in_task
from lackpy.mcp.cluster import Cluster
from lackpy.mcp.describe import TOOL_DESCRIPTIONS, run_program_description
from lackpy.mcp.logs import ClientLog, add_completions, add_logging, lasting
from lackpy.mcp.observe import Observer, refused, seen
from lackpy.mcp.progress import Progress, Reach, calls
from lackpy.mcp.policy import KitPolicy
from lackpy.mcp.portable import portable
from lackpy.mcp.skill_extension import SkillsExtension, declare_on_handshake, read_skill_file
from lackpy.mcp.skill_shelf import Shelf
from lackpy.mcp.skills import SkillPolicy, SkillPrompts, add_skill_resources
from lackpy.mcp.task_extension import TasksExtension
from lackpy.remote.skills import SCHEME
from lackpy.run.result import ExecutionResult
from lackpy.schema import to_jsonable
from lackpy.service import LackpyService
from lackpy.session import Session
from lackpy.store.replicas import RENEW_S

# The served tools' arguments, named *Arg so that no name here shadows the idea it carries (Kit, Limits, Session).
ProgramArg = Annotated[str, Field(description="The program: Python statements; the last expression is the result.")]
IntentArg = Annotated[str, Field(description='What to do, in plain words, e.g. "count TODOs in python files".')]
KitArg = Annotated[str | None, Field(description="A kit this server allows, or tool names as 'a,b'; default: the server's default kit.")]
SkillArg = Annotated[
    str | None,
    Field(description="A skill this server offers (its prompts; lackpy://skills): the program runs with the skill's kit and skill_file; give no kit then."),
]
ParamsArg = Annotated[dict[str, Any] | None, Field(description="Values the program receives as variables, by name.")]
DryRunArg = Annotated[bool, Field(description="Apply no writes and call no tool whose effects cannot be staged (commands, processes, remote tools that change things; held_back lists them); return the diff of what would change.")]
LimitsArg = Annotated[dict[str, Any] | None, Field(description="Limits for this run, e.g. {\"timeout_s\": 5, \"max_tool_calls\": 100}.")]
SessionArg = Annotated[
    str | None,
    Field(description="A session id from an earlier result: its checklist, processes and kept variables. Left out: this connection's session, or a new one."),
]
KeepArg = Annotated[bool, Field(description="Keep the run's plain-data variables (numbers, strings, lists, dicts) for the session's next run, like a notebook cell.")]
ResetArg = Annotated[bool, Field(description="Forget the session's kept variables before this run.")]
TraceArg = Annotated[bool, Field(description="Include the trace (every tool call with its arguments and result) and the files read in the structured result; left out by default.")]

INSTRUCTIONS = (
    "lackpy runs small Python programs that compose a kit's tools in one call, validated and traced. "
    "Prefer one run_program call over many single tool calls; read run_program's description for the "
    "tools and the language. Use delegate to have lackpy write the program from an intent. "
    "Skills (the prompts; lackpy://skills) are jobs written down: run a skill's program with run_program(skill=NAME)."
)

_OBJECT = {"type": "object"}
#: Where a handshake-era connection keeps its lackpy session.
_SESSION_KEY = "lackpy.session"
#: How often idle sessions are looked for, in seconds.
EXPIRE_EVERY_S = 30.0

_log = logging.getLogger(__name__)


def build_server(
    service: LackpyService,
    policy: KitPolicy,
    *,
    one_client: bool = False,
    expose_tools: bool = False,
    ceiling: str | None = None,
    approval: str | None = None,
    allow_skills: Iterable[str] | None = None,
    observer: Observer | None = None,
    cluster: Cluster | None = None,
) -> MCPServer:
    """The MCP server over ``service``: eight tools, the kit, doc and spec resources, and the allowed skills (prompts, resources).

    ``one_client`` says the transport serves one client for the server's
    life (stdio): its calls share one session. ``expose_tools`` also serves
    each tool of the default kit as its own MCP tool. ``ceiling`` (a kit
    name or "w,d"; else the config's) refuses every program whose own grade
    is above it; it is resolved to a grade here, once, so a kit file that
    changes later never raises it. Approvals are asked of the client
    (``lackpy.mcp.approvals``); ``approval`` (block, auto, notify, none)
    replaces every gate's mode. ``allow_skills`` names the skills clients
    may use (None: every skill whose kit ``policy`` allows); UsageError
    for a name that is unknown or whose kit the server does not allow.
    ``observer`` hears how each run a client asks for ended (metrics, spans,
    the run log: ``lackpy.mcp.observe``); without one, a run's trace context
    still reaches its audit record.
    ``cluster`` is this replica in its deployment (``lackpy.mcp.cluster``;
    None: this process alone); with a shared store, the sessions and the
    waiting runs' results and questions go through it. The server shows it
    as ``server.cluster`` (its ``store``, whose ``errors`` count failures,
    and ``me``, the replica id), for readiness and metrics.
    """
    cluster = cluster or Cluster.local()
    skills = SkillPolicy.build(service, policy, allow_skills)
    if cluster.shared:
        service.sessions.share(cluster.replicas)
    tools = _Tools(service, policy, service.open_session(pinned=True) if one_client else None, cluster)
    tools.observer = observer if observer is not None else Observer()
    tools.skills = skills
    tools.ceiling, tools.approval = service.ceiling_grade(ceiling), approval
    default = service.resolve_kit(policy.default_kit)
    runs = _annotations(policy.read_only, policy.destructive, policy.open_world, idempotent=False)
    writes_programs = _annotations(True, False, _models_reach_out(service), idempotent=False)
    reads = _annotations(True, False, False, idempotent=True)
    served = [
        _tool(tools.run_program, run_program_description(default, policy.allowed), runs, results.optional_trace(ExecutionResult.json_schema())),
        _tool(tools.validate, TOOL_DESCRIPTIONS["validate"], reads, ValidationResult.json_schema()),
        _tool(tools.delegate, TOOL_DESCRIPTIONS["delegate"], _merge(runs, writes_programs), results.optional_trace(DelegateResult.json_schema())),
        _tool(tools.generate, TOOL_DESCRIPTIONS["generate"], writes_programs, GenerationResult.json_schema()),
        _tool(tools.kit_list, TOOL_DESCRIPTIONS["kit_list"], reads, _OBJECT),
        _tool(tools.kit_info, TOOL_DESCRIPTIONS["kit_info"], reads, _OBJECT),
        _tool(tools.docs_index, TOOL_DESCRIPTIONS["docs_index"], reads, _OBJECT),
        _tool(tools.resolve_doc, TOOL_DESCRIPTIONS["resolve_doc"], reads, _OBJECT),
    ]
    if expose_tools:
        served += exposed_tools(tools, default, {tool.name for tool in served})
    shelf = Shelf(service, skills)
    published = [SkillsExtension(shelf)] if skills.named != () else []  # --allow-skills "": no skill is ever served
    offered = _tasks(cluster)
    server = _Server("lackpy", instructions=INSTRUCTIONS, version=__version__, tools=served, log_level="WARNING", lifespan=_expiring(service, cluster),
                     extensions=[offered, *published], request_state_security=cluster.security())
    server.cluster = cluster
    server.describe = _Description(service, policy, served[0].description)
    server.quota = tools.quota
    server.tasks = offered
    server.skill_prompts = SkillPrompts(service, skills)
    server.skill_shelf = shelf if published else None
    server.runs_waiting = lambda: tools.asking.under_way() + offered.book.under_way()  # a drain waits for these too (lackpy.mcp.drain)
    for extension in [offered, *published]:
        declare_on_handshake(server, extension)

    resources.add_resources(server, service, policy)
    add_skill_resources(server, service, skills)
    add_questions(server, tools.asking)
    add_logging(server, tools.log)
    add_completions(server, policy, server.skill_prompts.names)
    _without_empty_prompts(server, bool(skills.rows(service)))
    return server


class _Description:
    """run_program's description, made again only when the toolbox changed (a tool enrolled, a result shape learned)."""

    def __init__(self, service: LackpyService, policy: KitPolicy, first: str) -> None:
        self.service, self.policy = service, policy
        self.version, self.text = service.toolbox.version, first

    def __call__(self) -> str:
        version = self.service.toolbox.version
        if version != self.version:
            self.text = run_program_description(self.service.resolve_kit(self.policy.default_kit), self.policy.allowed)
            self.version = version
        return self.text


def _tasks(cluster: Cluster) -> TasksExtension:
    """The tasks extension of a server (``lackpy.mcp.task_extension``): run_program and delegate may run as tasks."""
    offered = TasksExtension(tasks.TaskBook(cluster))
    for name in ("run_program", "delegate"):  # a retry of a call that asked for input (requestState) goes on as it began
        offered.offer(name, when=lambda params: params.request_state is None)
    return offered


class _Tools:
    """The served tools, bound to one service and policy."""

    def __init__(self, service: LackpyService, policy: KitPolicy, main: Session | None = None, cluster: Cluster | None = None) -> None:
        self.service, self.policy, self.main = service, policy, main
        self.ceiling: Grade | None = None
        self.approval: str | None = None
        self.asking = Asking(cluster)
        self.log = ClientLog(service)
        self.skills = SkillPolicy(policy)
        self.observer = Observer()
        #: The bound on each caller's runs under way (``lackpy.mcp.bearer``); unbounded unless ``lackpy serve`` sets it.
        self.quota = Quota()

    async def _call(self, work: Callable[[], Awaitable[CallToolResult]], ctx: Context | Reach | None = None) -> CallToolResult:
        """``work()``'s result, a LackpyError as a tool error; then the notices the call left go to ``ctx``'s client
        (a Reach: to the request open when the call ends)."""
        try:
            return await work()
        except LackpyError as exc:
            refused(str(exc.kind))
            return results.of_error(exc, self.service.notices)
        except OSError as exc:  # descriptors, processes or memory ran out on the way: a resources error, not a bare failure
            out_of = resource_error(exc)
            if out_of is None:
                raise
            return results.of_error(out_of, self.service.notices)
        finally:
            await self.log.notices_in(ctx.ctx if isinstance(ctx, Reach) else ctx)

    async def _asking(self, ctx: Context | None, tool: str, work: Callable[[Any, Reach], Awaitable[CallToolResult]]) -> Any:
        """``work(approve, reach)`` of served tool ``tool``, its approvals asked of ``ctx``'s client and its progress sent to
        ``reach`` (the request open now); a LackpyError is a tool error."""

        async def guarded(approve: Any, reach: Reach) -> CallToolResult:
            with self.observer.watch(tool, ctx):  # once per run, however many requests its approvals take
                return await self._call(lambda: self.quota.around(ctx, lambda: work(approve, reach)), reach)

        run = tasks.current()
        if run is not None:  # the call is a task: its questions wait in it for tasks/update; no request is open to take progress
            return await guarded(in_task(run, self.asking.questions), Reach(None))
        await self.log.notices_in(ctx)
        return await self.asking.serve(ctx, guarded, tool)

    async def _kit(self, kit: str | None, ctx: Context | None = None) -> ResolvedKit:
        """The kit a call runs with, resolved now and checked against what the server started with and what the caller's
        access token gives (``lackpy.mcp.bearer``).

        Once the workspace is loaded that is a cache lookup, cheaper than the
        two thread switches of doing it elsewhere; until then, off the loop.
        """
        if kit is None or not kit.strip():
            kit = self.policy.default_for(_granted_kits(ctx))
        if self.service.loaded:
            resolved = self.policy.resolve(self.service, kit)
        else:
            resolved = await asyncio.to_thread(self.policy.resolve, self.service, kit)
        return self._granted(resolved, ctx)

    def _granted(self, resolved: ResolvedKit, ctx: Context | None) -> ResolvedKit:
        """``resolved`` when the caller's access token gives it (or the server takes no access tokens); DeniedError otherwise."""
        kits = _granted_kits(ctx)
        if kits is not None:
            self.policy.granted(resolved, kits)
        return resolved

    async def _session(self, ctx: Context | None, given: str | None, keep: bool = False) -> tuple[Session, str | None]:
        """The session of a call (the one it names, its connection's or the one client's, else a new one), and a
        notice when its connection's session went away since the last call.

        A new session enters the table only if it holds something when the
        call ends (``Sessions.end``); a call that asks to ``keep`` is refused
        up front when it could not. A named session is read off the event
        loop: with a shared store that is a round trip to it.
        """
        sessions, note, owner = self.service.sessions, None, _owner(ctx)
        if given is not None:
            if owner is not None and not given.startswith(f"{owner}."):  # a checked caller is given only its own sessions
                raise ParamError(f"no session {given[:80]!r} of yours is known here; leave session out to start a new one")
            session = await _sessions_call(sessions, sessions.get, given)
        elif self.main is not None:
            return self.main, None
        elif (connection := _connection(ctx)) is None:
            session = sessions.fresh(owner)
        else:
            session = connection.state.get(_SESSION_KEY)
            if session is not None and owner is not None and not session.id.startswith(f"{owner}."):
                session = None  # another caller's request on this connection: never its session
            if session is None or session.closed:
                if session is not None:
                    note = f"this connection's session {session.id} {sessions.why(session.id) or 'was closed'}; this call has a new one"
                session = connection.state[_SESSION_KEY] = sessions.fresh(owner)
                connection.exit_stack.push_async_callback(asyncio.to_thread, sessions.close_session, session, "was closed: its connection closed")
            elif session.version and sessions.replicas is not None:  # shared: a call naming it elsewhere may have changed it
                session = await asyncio.to_thread(sessions.get, session.id)
        if keep:
            sessions.ensure_room(session)
        return session, note

    async def _in_session(self, session: Session, note: str | None, work: Callable[[], Awaitable[Any]]) -> Any:
        """``work()``'s result (a run's or a delegation's), the call held in ``session`` while it runs.

        When the call ends, the session enters the table, stays, or leaves
        it (``Sessions.end``); a session refused for a full table was closed,
        and the result says so as a ``limit`` failure. With a shared store,
        what the session holds is written there (``Sessions.save``); when that
        fails, the result says so with the failure's kind (store, conflict).
        """
        sessions = self.service.sessions
        sessions.begin(session)
        try:
            result = await work()
        finally:
            dropped = await _sessions_call(sessions, sessions.end, session)
            unsaved = await _sessions_call(sessions, sessions.save, session) if dropped is None else None
        problem = LimitExceeded("sessions", sessions.most, dropped) if dropped is not None else unsaved
        if isinstance(result, DelegateResult):
            if result.execution is not None:
                execution = _settled(result.execution, problem, note)
                result = dataclasses.replace(result, execution=execution, success=execution.success)
        else:
            result = _settled(result, problem, note)
        seen(result)
        return result

    async def run_program(
        self,
        program: ProgramArg,
        kit: KitArg = None,
        skill: SkillArg = None,
        params: ParamsArg = None,
        dry_run: DryRunArg = False,
        limits: LimitsArg = None,
        session: SessionArg = None,
        keep: KeepArg = False,
        reset: ResetArg = False,
        trace: TraceArg = False,
        ctx: Context | None = None,
    ) -> CallToolResult:
        async def work(approve: Any, reach: Reach) -> CallToolResult:
            if skill is not None:  # the skill's kit, resolved and checked once here, is the one the run uses (a kit named too: the service refuses both)
                chosen = self._granted(await asyncio.to_thread(self.skills.kit, self.service, skill), ctx) if kit is None else kit
                shown = f"skill {skill}"
            else:
                chosen = await self._kit(kit, ctx)
                shown = f"kit {_kit_name(chosen)}"
            held, note = await self._session(ctx, session, keep)
            if reset:
                held.reset()
            async with Progress(reach) as progress:
                progress.report(f"running the program with {shown}")
                result = await self._in_session(held, note, lambda: self.service.run_program(
                    program, kit=chosen, params=params, limits=limits, dry_run=dry_run, session=held, keep=keep, on_event=progress.on_event,
                    ceiling=self.ceiling, approve=approve, approval=self.approval, skill=skill,
                ))
                progress.report(f"done: {calls(len(result.trace))}")
            return results.of_run(result.to_dict(), trace)

        return await self._asking(ctx, "run_program", work)

    async def call_tool(self, spec: ToolSpec, arguments: dict[str, Any], ctx: Context | None) -> CallToolResult:
        """One tool of the default kit called on its own (``--expose-tools``): a one-call program, its output as the answer."""

        async def work(approve: Any, reach: Reach) -> CallToolResult:
            given = dict(arguments or {})
            program = _one_call(spec.name, given)
            chosen = self._granted(await asyncio.to_thread(self.policy.resolve_tools, self.service, [spec.name]), ctx)
            held, note = await self._session(ctx, None)
            result = await self._in_session(held, note, lambda: self.service.run_program(
                program, kit=chosen, params=given, session=held, ceiling=self.ceiling, approve=approve, approval=self.approval
            ))
            if not result.success:
                error = (result.error or "no result").removeprefix("line 1: ")
                return results.failure(f"{result.error_kind or 'runtime'} error: {error}", result.to_dict())
            answer = {"result": to_jsonable(result.output)}
            if result.output_truncated:  # over the result budget: the text of the value, cut in the middle
                answer["truncated"] = True
            return results.success(answer, _answer_text(result.output))

        return await self._asking(ctx, spec.name, work)

    async def validate(self, program: ProgramArg, kit: KitArg = None, ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            chosen = await self._kit(kit, ctx)
            document = (await asyncio.to_thread(self.service.validate, program, chosen)).to_dict()
            if document["valid"]:
                return results.success(document)
            first = document["errors"][0] if document["errors"] else {}
            text = f"not valid: {first.get('message', '')} (line {first.get('line')}); " + json.dumps(document, ensure_ascii=False)
            return results.success(document, text)

        return await self._call(work, ctx)

    async def delegate(
        self, intent: IntentArg, kit: KitArg = None, params: ParamsArg = None, dry_run: DryRunArg = False, session: SessionArg = None, trace: TraceArg = False,
        ctx: Context | None = None,
    ) -> CallToolResult:
        async def work(approve: Any, reach: Reach) -> CallToolResult:
            chosen = await self._kit(kit, ctx)
            held, note = await self._session(ctx, session)
            async with Progress(reach) as progress:
                progress.report("writing a program for the intent")
                result = await self._in_session(held, note, lambda: self.service.delegate(
                    intent, kit=chosen, params=params, dry_run=dry_run, on_event=progress.on_event, session=held, ceiling=self.ceiling,
                    approve=approve, approval=self.approval,
                ))
                progress.report("done")
            return results.of_run(result.to_dict(), trace)

        return await self._asking(ctx, "delegate", work)

    async def generate(self, intent: IntentArg, kit: KitArg = None, ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            result = await self.service.generate(intent, kit=await self._kit(kit, ctx))
            return results.success(result.to_dict())

        return await self._call(work, ctx)

    async def kit_list(self, ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            kits = await asyncio.to_thread(self.service.kit_list)
            for row in kits:
                row["allowed"] = row["name"] in self.policy.allowed
            return results.success({"kits": kits, "default_kit": self.policy.default_kit, "allowed": list(self.policy.allowed)})

        return await self._call(work, ctx)

    async def kit_info(self, kit: Annotated[str, Field(description="A kit name, or tool names as 'a,b'.")], ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            return results.success(await asyncio.to_thread(self.service.kit_info, kit))

        return await self._call(work, ctx)

    async def docs_index(self, kit: KitArg = None, ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            return results.success(await asyncio.to_thread(self.service.docs_index, await self._kit(kit, ctx)))

        return await self._call(work, ctx)

    async def resolve_doc(
        self, path_or_tool: Annotated[str, Field(description="A tool name, e.g. 'read_file', or a doc path.")], ctx: Context | None = None
    ) -> CallToolResult:
        async def work() -> CallToolResult:
            content = await asyncio.to_thread(self.service.resolve_doc, self.policy.doc(path_or_tool), self.policy.allowed)
            return results.success({"path": path_or_tool, "content": content}, content)

        return await self._call(work, ctx)


class _ServedTool(Tool):
    """A served tool whose wrong arguments get lackpy's argument error (one line, structured), not the SDK's text."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            answer = results.of_error(ArgumentError(_argument_problems(self.name, exc)))
            return self.fn_metadata.convert_result(answer) if convert_result else answer
        return await super().run(arguments, context, convert_result)


def _argument_problems(tool: str, exc: ValidationError) -> str:
    """What is wrong with a call's arguments, in one line naming each argument."""
    problems = []
    for error in exc.errors(include_url=False)[:5]:
        name = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
        if error.get("type") == "missing":
            problems.append(f"argument '{name}' is required")
        else:
            problems.append(f"argument '{name}': {error.get('msg', 'is not valid').lower()}")
    return f"{tool}: {'; '.join(problems)}; see the tool's input schema"


class _ExposedTool(Tool):
    """A kit tool served as its own MCP tool: the arguments go, as they came, to ``fn(arguments, ctx)``."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        answer = await self.fn(arguments, context)
        return self.fn_metadata.convert_result(answer) if convert_result else answer


def exposed_tools(tools: _Tools, kit: ResolvedKit, taken: set[str]) -> list[Tool]:
    """Each tool of ``kit`` as an MCP tool of its own, its schema and hints the tool's.

    Raises UsageError when a tool has the name of a served tool.
    """
    exposed = []
    for spec in kit.tools.values():
        if spec.name in taken:
            raise UsageError(f"--expose-tools: the kit's tool '{spec.name}' has the name of a lackpy serve tool; serve a kit without it")
        declared = spec.to_mcp()
        hints = _annotations(spec.effects_ceiling == 0, spec.effects_ceiling >= 3, spec.grade_w >= 2, idempotent=False)
        tool = _ExposedTool.from_function(_caller(tools, spec), name=spec.name, description=declared["description"], annotations=hints)
        exposed.append(tool.model_copy(update={"parameters": portable(declared["inputSchema"])}))  # the tool's own schema, not the caller's
    return exposed


def _caller(tools: _Tools, spec: ToolSpec) -> Callable[[dict[str, Any], Context], Awaitable[CallToolResult]]:
    """``call(arguments, ctx)``: one call of kit tool ``spec`` through ``tools``."""

    async def call(arguments: dict[str, Any], ctx: Context) -> CallToolResult:
        return await tools.call_tool(spec, arguments, ctx)

    return call


def _one_call(tool: str, arguments: dict[str, Any]) -> str:
    """The program that calls ``tool`` once with ``arguments`` (given to it as variables of the same names)."""
    for name in arguments:
        if not bindable(name):
            raise ArgumentError(f"{tool}: unknown argument {shown(name)}")
    return f"{tool}({', '.join(f'{name}={name}' for name in arguments)})"


def _settled(result: ExecutionResult, problem: LackpyError | None, note: str | None) -> ExecutionResult:
    """A run's result with ``note`` among its notices; a failure saying so when its session was not kept (``problem``)."""
    if note is not None:
        result = dataclasses.replace(result, notices=[*result.notices, note])
    if problem is None:
        return result
    if isinstance(problem, LimitExceeded):  # refused for a full table: the session was closed
        return dataclasses.replace(
            result, success=False, error_kind=ErrorKind.LIMIT, limit=problem.limit, limit_value=problem.value, session=None, kept=[],
            error=f"the program ran, but its session was not kept, so its processes were stopped and its variables dropped: {problem}",
        )
    return dataclasses.replace(
        result, success=False, error_kind=problem.kind, error=f"the program ran, but what its session holds was not saved: {problem}",
    )


def _owner(ctx: Context | None) -> str | None:
    """The prefix of the session ids a checked caller owns (``lackpy.mcp.bearer``); None when the server checks no tokens."""
    checked = caller_in(ctx)
    return checked.key[:16] if checked is not None else None


def _granted_kits(ctx: Context | None) -> tuple[str, ...] | None:
    """The kits the caller's checked access token gives (``lackpy.mcp.bearer``); None when the server takes none, or they give every kit."""
    checked = caller_in(ctx)
    return checked.kits if checked is not None else None


def _kit_name(kit: ResolvedKit) -> str:
    return kit.name or ",".join(kit.tools)


def _answer_text(value: Any) -> str:
    """A tool's return value as the text a model reads: a string as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"))


async def _sessions_call(sessions: Any, method: Callable[..., Any], *args: Any) -> Any:
    """``method(*args)`` of the session table: off the event loop when a shared store makes it a round trip, else here
    (a lock and a few dict operations cost less than the hop to a thread)."""
    if sessions.replicas is None:
        return method(*args)
    return await asyncio.to_thread(method, *args)


def _connection(ctx: Context | None) -> Any:
    """The transport connection of a call that has one lasting across calls (the handshake era), else None.

    The 2026-07-28 revision builds a connection per request, so there a
    session lives by its id alone.
    """
    try:
        return lasting(ctx.request_context.session)
    except Exception:
        return None


class _Server(MCPServer):
    """An MCPServer whose prompts are the skills it allows, computed on each request (``lackpy.mcp.skills``), and whose
    ``skill://`` resources are those skills' files (``lackpy.mcp.skill_extension``).

    MCPServer registers prompts one by one, each fixed when added; skills are
    read from disk on every ``skills()`` call, so the list and each prompt
    are made when asked (off the event loop), and an edited SKILL.md shows at
    once. The same holds for the files: a ``skill://`` URI is read when asked,
    from what the skill holds then, never through a resource registered at start.
    """

    skill_prompts: SkillPrompts | None = None
    skill_shelf: Shelf | None = None
    #: run_program's description as it is now (the default kit's signatures, with the result shapes learned so far).
    describe: Callable[[], str] | None = None
    tasks: TasksExtension | None = None
    quota: Quota | None = None
    runs_waiting: Callable[[], int] | None = None

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        """The contents at ``uri``; a refusal (-32602, one line, the URI in its data) for one this server does not serve."""
        try:
            if self.skill_shelf is not None and str(uri).startswith(SCHEME):
                return await read_skill_file(self.skill_shelf, str(uri))
            return await super().read_resource(uri, context)
        except ResourceNotFoundError:  # lackpy's own refusals are MCPErrors; this is a URI nothing here matches
            raise resources.unknown(str(uri)) from None
        except MCPError as exc:
            raise resources.naming(exc, str(uri)) from None

    async def list_tools(self) -> list[Any]:
        """The tools, run_program's description made again first: a result shape learned since the last listing shows in it."""
        tool = self._tool_manager.get_tool("run_program") if self.describe is not None else None
        if tool is not None:
            try:
                tool.description = self.describe()
            except Exception:  # the description made before stays; the next listing tries again
                pass
        return await super().list_tools()

    async def list_prompts(self) -> list[Prompt]:
        return await self.skill_prompts.list() if self.skill_prompts is not None else await super().list_prompts()

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        if self.skill_prompts is None:
            return await super().get_prompt(name, arguments, context)
        return await self.skill_prompts.get(name, arguments)


def _without_empty_prompts(server: MCPServer, prompts: bool) -> None:
    """Serve no prompt methods when the server starts with no prompts (no skill it allows), so initialize declares no
    ``prompts`` capability.

    The SDK declares a capability for each method it serves; a client that
    sees ``prompts`` looks for prompts that are not there. Capabilities are
    declared once, at initialize, so this is decided at start.
    """
    if not prompts:  # MCPServer has no public way to leave a method unserved
        for method in ("prompts/list", "prompts/get"):
            server._lowlevel_server._request_handlers.pop(method, None)


def _expiring(service: LackpyService, cluster: Cluster) -> Callable[[Any], Any]:
    """The server's lifespan: while it serves, idle sessions expire (their processes stopped) every EXPIRE_EVERY_S, and with a
    shared store the replica stays registered (renewed every RENEW_S; deregistered when it stops)."""

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(EXPIRE_EVERY_S)
                await asyncio.to_thread(service.sessions.expire)

        async def renew() -> None:
            while True:
                try:
                    await asyncio.to_thread(cluster.replicas.register)
                except LackpyError as exc:  # the store is down: calls that need it fail saying so; this replica registers when it is back
                    _log.warning("lackpy: replica %s could not renew its registration: %s", cluster.me, exc)
                await asyncio.sleep(RENEW_S)

        tasks = [asyncio.create_task(sweep())] + ([asyncio.create_task(renew())] if cluster.shared else [])
        try:
            yield {}
        finally:
            for task in tasks:
                task.cancel()
            if cluster.shared:
                with contextlib.suppress(LackpyError):
                    await asyncio.to_thread(cluster.replicas.deregister)

    return lifespan


def _tool(fn: Callable[..., Any], description: str, annotations: ToolAnnotations, output_schema: dict) -> Tool:
    """A served tool whose output schema is lackpy's own, or its error document (clients check both; see results); its input
    and output schemas as every host reads them (``lackpy.mcp.portable``)."""
    tool = _ServedTool.from_function(fn, name=fn.__name__, description=description, annotations=annotations)
    tool.fn_metadata.output_schema = portable(results.output_schema(output_schema))
    return tool.model_copy(update={"parameters": portable(tool.parameters)})  # what is listed; arguments are checked by fn_metadata


def _annotations(read_only: bool, destructive: bool, open_world: bool, *, idempotent: bool) -> ToolAnnotations:
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=open_world, idempotent_hint=idempotent)
    return ToolAnnotations(read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=open_world)


def _merge(a: ToolAnnotations, b: ToolAnnotations) -> ToolAnnotations:
    """The hints of a tool that does what both do."""
    read_only = bool(a.read_only_hint and b.read_only_hint)
    return _annotations(read_only, bool(a.destructive_hint or b.destructive_hint), bool(a.open_world_hint or b.open_world_hint), idempotent=False)


def _models_reach_out(service: LackpyService) -> bool:
    """Whether a configured tier sends the request to a model (anything beyond templates and rules)."""
    try:
        return any(tier.model for tier in service.tiers())
    except LackpyError:
        return False


__all__ = ["build_server", "exposed_tools"]
