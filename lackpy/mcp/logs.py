"""MCP logging and completions of ``lackpy serve``.

Logging: lackpy's notices (an untrusted workspace whose config was ignored,
an MCP server that failed to start, an audit file that cannot be written, a
commit recovered or stopped) and a run's progress text go to the client as
``notifications/message``, at or above the level the client asked for.

- ``logging/setLevel`` sets the level of one connection (a handshake-era
  session: stdio, or one ``Mcp-Session-Id``); until a client sets one, the
  level is ``warning``: every notice reaches a client that never asked
  (each says what lackpy did not do, or what the person must do), while the
  progress text (``info``), which a client that asked for progress already
  gets as progress notifications, is not sent twice unasked.
- On the 2026-07-28 revision there is no ``logging/setLevel``: a request
  opts in with its ``_meta`` log level and the SDK drops what is below it.
  No connection lasts across requests there, so each opted-in call gets
  every notice, not only the new ones.
- A notice goes to a connection once; one held back by the client's level
  is sent when the client lowers it.

Completions: ``completion/complete`` completes the arguments of the served
resource templates from what the server offers and nothing else: kit names
for ``lackpy://kits/{name}`` (the allowed kits), tool names for
``lackpy://docs/{tool}`` (the tools of the allowed kits), skill names for
``lackpy://skills/{name}`` and its files (the skills the server allows, as
they are when asked), so a completion never names a kit, tool or skill a
client could not read anyway.
"""

from __future__ import annotations

import warnings
from typing import Any, Awaitable, Callable, get_args

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import (
    Completion,
    CompletionArgument,
    EmptyResult,
    LoggingLevel,
    ResourceTemplateReference,
    SetLevelRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from lackpy.mcp.policy import KitPolicy
from lackpy.service import LackpyService

#: The levels, least severe first (RFC 5424, as the spec lists them).
LEVELS: tuple[str, ...] = get_args(LoggingLevel)
#: A connection's level until its client sets one.
DEFAULT_LEVEL = "warning"
#: The level of lackpy's notices and of a run's progress text.
NOTICE_LEVEL = "warning"
PROGRESS_LEVEL = "info"
#: The logger name on every message.
LOGGER = "lackpy"
#: The most values one completion answers (the spec's limit).
MOST_COMPLETIONS = 100

_LEVEL_KEY = "lackpy.log_level"
_SENT_KEY = "lackpy.notices_sent"

# The 2026-07-28 revision deprecates logging (SEP-2577) and the SDK warns on every use; lackpy still serves it to the
# handshake-era clients that ask, and a served stdio client must not read the SDK's warning on lackpy's stderr.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning, module=r"lackpy\.mcp\.logs")


def lasting(session: Any) -> Any:
    """The transport connection of ``session`` when it lasts across requests (the handshake era), else None.

    The 2026-07-28 revision builds a connection per request, so nothing
    kept on it outlives the request.
    """
    connection = getattr(session, "_connection", None)  # the SDK keeps it private; its state is per connection
    if connection is None or getattr(connection, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS or not hasattr(connection, "exit_stack"):
        return None
    return connection


def at_or_above(level: str, threshold: str) -> bool:
    """Whether a message at ``level`` passes a client's ``threshold``."""
    return LEVELS.index(level) >= LEVELS.index(threshold)


async def say(session: Any, request_id: Any, level: str, text: str) -> None:
    """Send ``text`` at ``level`` on the stream of request ``request_id``, when the connection's level lets it through."""
    connection = lasting(session)
    if connection is not None and not at_or_above(level, connection.state.get(_LEVEL_KEY, DEFAULT_LEVEL)):
        return
    if level not in getattr(session, "_allowed_log_levels", (level,)):
        return  # a 2026-07-28 request that did not opt in at this level: the SDK would drop it, after its deprecation warning
    try:
        await session.send_log_message(level=level, data=text, logger=LOGGER, related_request_id=request_id)
    except Exception:  # a client gone or a transport closed: a log message is only a courtesy
        pass


async def say_in(ctx: Any, level: str, text: str) -> None:
    """``say`` on the request of a tool's Context; nothing outside a request."""
    try:
        session, request_id = ctx.request_context.session, ctx.request_id
    except Exception:
        return
    await say(session, request_id, level, text)


class ClientLog:
    """Sends one service's notices to each connection once."""

    def __init__(self, service: LackpyService) -> None:
        self.service = service

    async def notices(self, session: Any, request_id: Any) -> None:
        """Send the notices the connection has not had yet (every notice, where no connection lasts)."""
        notices = list(self.service.notices)
        connection = lasting(session)
        start = 0
        if connection is not None:
            if not at_or_above(NOTICE_LEVEL, connection.state.get(_LEVEL_KEY, DEFAULT_LEVEL)):
                return  # held back: sent once the client lowers its level
            start = connection.state.get(_SENT_KEY, 0)
            connection.state[_SENT_KEY] = len(notices)
        for notice in notices[start:]:
            await say(session, request_id, NOTICE_LEVEL, notice)

    async def notices_in(self, ctx: Any) -> None:
        """``notices`` on the request of a tool's Context; nothing outside a request."""
        try:
            session, request_id = ctx.request_context.session, ctx.request_id
        except Exception:
            return
        await self.notices(session, request_id)


def add_logging(server: MCPServer, log: ClientLog) -> None:
    """Serve ``logging/setLevel`` (which declares the logging capability): the connection's level, then its notices."""

    async def set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        connection = lasting(ctx.session)
        if connection is not None:
            connection.state[_LEVEL_KEY] = params.level
        await log.notices(ctx.session, ctx.request_id)
        return EmptyResult()

    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)  # MCPServer has no public hook


#: The resource templates whose ``name`` is a skill's.
SKILL_TEMPLATES = ("lackpy://skills/{name}", "lackpy://skills/{name}/references/{file}", "lackpy://skills/{name}/programs/{file}")


def add_completions(server: MCPServer, policy: KitPolicy, skill_names: Callable[[], Awaitable[list[str]]] | None = None) -> None:
    """Serve ``completion/complete`` for the resource templates' arguments (which declares the completions capability).

    ``skill_names()`` gives the names of the skills the server allows now.
    """
    offered = {
        ("lackpy://kits/{name}", "name"): tuple(sorted(policy.allowed)),
        ("lackpy://docs/{tool}", "tool"): tuple(sorted(policy.tools)),
    }

    @server.completion()
    async def complete(ref: Any, argument: CompletionArgument, _context: Any) -> Completion:
        if not isinstance(ref, ResourceTemplateReference):
            return matching((), argument.value)
        if ref.uri in SKILL_TEMPLATES and argument.name == "name" and skill_names is not None:
            return matching(tuple(sorted(await skill_names())), argument.value)
        return matching(offered.get((ref.uri, argument.name), ()), argument.value)


def matching(names: tuple[str, ...], prefix: str) -> Completion:
    """The names that start with ``prefix``, at most MOST_COMPLETIONS of them, and how many there are."""
    found = [name for name in names if name.startswith(prefix)]
    return Completion(values=found[:MOST_COMPLETIONS], total=len(found), has_more=len(found) > MOST_COMPLETIONS)


__all__ = ["ClientLog", "DEFAULT_LEVEL", "PROGRESS_LEVEL", "add_completions", "add_logging", "lasting", "say", "say_in"]
