"""build_server: an MCPServer whose tools are LackpyService's methods.

Each tool calls the matching service method (blocking ones off the event
loop), checks the kit a request names against the server's KitPolicy, and
answers with the result's ``to_dict()`` as structured content; every failure
is a tool result with ``isError`` set (see ``lackpy.mcp.results``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Awaitable, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from lackpy import __version__
from lackpy.errors import LackpyError
from lackpy.infer.result import DelegateResult, GenerationResult
from lackpy.lang.diagnostics import ValidationResult
from lackpy.mcp import results
from lackpy.mcp.describe import TOOL_DESCRIPTIONS, run_program_description
from lackpy.mcp.policy import KitPolicy
from lackpy.run.result import ExecutionResult
from lackpy.service import LackpyService

Program = Annotated[str, Field(description="The program: Python statements; the last expression is the result.")]
Intent = Annotated[str, Field(description='What to do, in plain words, e.g. "count TODOs in python files".')]
Kit = Annotated[str | None, Field(description="A kit this server allows, or tool names as 'a,b'; default: the server's default kit.")]
Params = Annotated[dict[str, Any] | None, Field(description="Values the program receives as variables, by name.")]
DryRun = Annotated[bool, Field(description="Apply no writes; return the diff of what would change.")]
Limits = Annotated[dict[str, Any] | None, Field(description="Limits for this run, e.g. {\"timeout_s\": 5, \"max_tool_calls\": 100}.")]

INSTRUCTIONS = (
    "lackpy runs small Python programs that compose a kit's tools in one call, validated and traced. "
    "Prefer one run_program call over many single tool calls; read run_program's description for the "
    "tools and the language. Use delegate to have lackpy write the program from an intent."
)

_OBJECT = {"type": "object"}


def build_server(service: LackpyService, policy: KitPolicy) -> MCPServer:
    """The MCP server over ``service``: eight tools and the kit, doc and spec resources."""
    tools = _Tools(service, policy)
    default = service.resolve_kit(policy.default_kit)
    runs = _annotations(policy.read_only, policy.destructive, policy.open_world, idempotent=False)
    writes_programs = _annotations(True, False, _models_reach_out(service), idempotent=False)
    reads = _annotations(True, False, False, idempotent=True)
    served = [
        _tool(tools.run_program, run_program_description(default, policy.allowed), runs, ExecutionResult.json_schema()),
        _tool(tools.validate, TOOL_DESCRIPTIONS["validate"], reads, ValidationResult.json_schema()),
        _tool(tools.delegate, TOOL_DESCRIPTIONS["delegate"], _merge(runs, writes_programs), DelegateResult.json_schema()),
        _tool(tools.generate, TOOL_DESCRIPTIONS["generate"], writes_programs, GenerationResult.json_schema()),
        _tool(tools.kit_list, TOOL_DESCRIPTIONS["kit_list"], reads, _OBJECT),
        _tool(tools.kit_info, TOOL_DESCRIPTIONS["kit_info"], reads, _OBJECT),
        _tool(tools.docs_index, TOOL_DESCRIPTIONS["docs_index"], reads, _OBJECT),
        _tool(tools.resolve_doc, TOOL_DESCRIPTIONS["resolve_doc"], reads, _OBJECT),
    ]
    server = MCPServer("lackpy", instructions=INSTRUCTIONS, version=__version__, tools=served, log_level="WARNING")
    from lackpy.mcp.resources import add_resources

    add_resources(server, service, policy)
    return server


class _Tools:
    """The served tools, bound to one service and policy."""

    def __init__(self, service: LackpyService, policy: KitPolicy) -> None:
        self.service, self.policy = service, policy

    async def _call(self, work: Callable[[], Awaitable[CallToolResult]]) -> CallToolResult:
        try:
            return await work()
        except LackpyError as exc:
            return results.of_error(exc, self.service.notices)

    async def _kit(self, kit: str | None) -> str:
        return await asyncio.to_thread(self.policy.kit_for, self.service, kit)

    async def run_program(
        self, program: Program, kit: Kit = None, params: Params = None, dry_run: DryRun = False, limits: Limits = None, ctx: Context | None = None
    ) -> CallToolResult:
        async def work() -> CallToolResult:
            chosen = await self._kit(kit)
            async with _Progress(ctx) as progress:
                progress.report(f"running the program with kit {chosen}")
                result = await self.service.run_program(program, kit=chosen, params=params, limits=limits, dry_run=dry_run)
                progress.report("done")
            return results.of_run(result.to_dict())

        return await self._call(work)

    async def validate(self, program: Program, kit: Kit = None) -> CallToolResult:
        async def work() -> CallToolResult:
            chosen = await self._kit(kit)
            document = (await asyncio.to_thread(self.service.validate, program, chosen)).to_dict()
            if document["valid"]:
                return results.success(document)
            first = document["errors"][0] if document["errors"] else {}
            text = f"not valid: {first.get('message', '')} (line {first.get('line')}); " + json.dumps(document, ensure_ascii=False)
            return results.success(document, text)

        return await self._call(work)

    async def delegate(self, intent: Intent, kit: Kit = None, params: Params = None, dry_run: DryRun = False, ctx: Context | None = None) -> CallToolResult:
        async def work() -> CallToolResult:
            chosen = await self._kit(kit)
            async with _Progress(ctx) as progress:
                progress.report("writing a program for the intent")
                result = await self.service.delegate(intent, kit=chosen, params=params, dry_run=dry_run, on_event=progress.on_event)
                progress.report("done")
            return results.of_run(result.to_dict())

        return await self._call(work)

    async def generate(self, intent: Intent, kit: Kit = None) -> CallToolResult:
        async def work() -> CallToolResult:
            result = await self.service.generate(intent, kit=await self._kit(kit))
            return results.success(result.to_dict())

        return await self._call(work)

    async def kit_list(self) -> CallToolResult:
        async def work() -> CallToolResult:
            kits = await asyncio.to_thread(self.service.kit_list)
            for row in kits:
                row["allowed"] = row["name"] in self.policy.allowed
            return results.success({"kits": kits, "default_kit": self.policy.default_kit, "allowed": list(self.policy.allowed)})

        return await self._call(work)

    async def kit_info(self, kit: Annotated[str, Field(description="A kit name, or tool names as 'a,b'.")]) -> CallToolResult:
        async def work() -> CallToolResult:
            return results.success(await asyncio.to_thread(self.service.kit_info, kit))

        return await self._call(work)

    async def docs_index(self, kit: Kit = None) -> CallToolResult:
        async def work() -> CallToolResult:
            return results.success(await asyncio.to_thread(self.service.docs_index, kit or self.policy.default_kit))

        return await self._call(work)

    async def resolve_doc(self, path_or_tool: Annotated[str, Field(description="A tool name, e.g. 'read_file', or a doc path.")]) -> CallToolResult:
        async def work() -> CallToolResult:
            content = await asyncio.to_thread(self.service.resolve_doc, path_or_tool)
            return results.success({"path": path_or_tool, "content": content}, content)

        return await self._call(work)


class _Progress:
    """MCP progress notifications of one request, sent in order by one task; nothing when the client asked for none.

    ``report`` and ``on_event`` only queue a message, so neither blocks the
    work; leaving the block sends what is queued (unless the request is
    cancelled) and never mixes a message into the result.
    """

    def __init__(self, ctx: Context | None) -> None:
        self.ctx = ctx
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.sender: asyncio.Task | None = None
        self.count = 0

    async def __aenter__(self) -> "_Progress":
        if self._wanted():
            self.sender = asyncio.create_task(self._send())
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if self.sender is None:
            return
        if exc_type is None:
            self.queue.put_nowait(None)
            await self.sender
        else:
            self.sender.cancel()

    def report(self, message: str) -> None:
        if self.sender is not None:
            self.queue.put_nowait(message)

    def on_event(self, event: dict[str, Any]) -> None:
        """A delegate event as a progress message: the tier being tried, and the tier that finished its turn."""
        if event.get("event") == "tier":
            model = f" ({event['model']})" if event.get("model") else ""
            self.report(f"trying tier {event.get('tier')}{model}")
        elif event.get("event") == "done":
            self.report(f"tier {event.get('tier')} finished")

    def _wanted(self) -> bool:
        try:
            return self.ctx is not None and self.ctx.request_context is not None
        except Exception:
            return False

    async def _send(self) -> None:
        while (message := await self.queue.get()) is not None:
            self.count += 1
            try:
                await self.ctx.report_progress(self.count, None, message)
            except Exception:  # a client gone or a transport closed: progress is only a courtesy
                pass


def _tool(fn: Callable[..., Any], description: str, annotations: ToolAnnotations, output_schema: dict) -> Tool:
    """A served tool whose output schema is lackpy's own (checked by clients on success)."""
    tool = Tool.from_function(fn, name=fn.__name__, description=description, annotations=annotations)
    tool.fn_metadata.output_schema = output_schema
    return tool


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


__all__ = ["build_server"]
