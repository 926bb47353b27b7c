"""``lackpy serve``'s skills as SEP-2640 (``io.modelcontextprotocol/skills``): ``skills/list``, ``skills/get`` and ``skill://`` files.

The server declares ``capabilities.extensions["io.modelcontextprotocol/skills"] = {}``
(and ``resources``, which it has anyway), answers ``skills/list`` (pages of
entries, ``cursor`` and ``nextCursor``) and ``skills/get`` (one entry by the
URI of its ``SKILL.md``), and serves each published file through
``resources/read`` as ``skill://NAME/PATH`` (``lackpy.mcp.skill_shelf``
says what is published and how entries and files agree). It offers no
``resources/directory/read``: an entry already lists every file of its
skill, and a client reads files by those URIs.

Both revisions lackpy serves get the methods. The extension is written
against 2026-07-28, where the SDK declares it and stamps its results; but
the hosts most people run (the TypeScript SDK 1.x) speak 2025-11-25, whose
capabilities have an ``extensions`` map in that SDK, while the Python SDK
drops it from the handshake of that revision. So on a 2025-11-25 handshake
the server puts the extension back into ``initialize``'s capabilities itself
(``declare_on_handshake``), and its methods answer there as on 2026-07-28:
the results are the extension's own, with ``resultType``, ``ttlMs`` and
``cacheScope``. A client that does not know the extension sees one more
capability it ignores.

Caching: ``ttlMs`` is TTL_MS (five seconds): skills are read from disk on
every request, so an edit shows at once here, and a host that keeps a
listing longer would show a skill that may have changed; a host that reads
a file changed since then finds its digest differs and lists again.
``cacheScope`` is ``public``: what is listed depends on the server's
``--allow-kits`` and ``--allow-skills`` and on the workspace, never on who
asks, so one caller's answer is every caller's.

A client's mistake (a cursor this server did not give, a URI it does not
serve, params of the wrong shape, a skill it does not allow, a file outside
a skill's manifest) is a JSON-RPC error -32602 with one line saying what to
do; disk work runs off the event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence

from mcp.server.extension import Extension, MethodBinding
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, RequestParams

from lackpy.errors import LackpyError
from lackpy.mcp.skill_shelf import Shelf
from lackpy.mcp.skills import invalid_params
from lackpy.remote.skills import EXTENSION, GET_METHOD, LIST_METHOD

#: How long a client may keep an answer, in milliseconds.
TTL_MS = 5000
#: Who may share an answer: every caller gets the same one.
CACHE_SCOPE = "public"


class ListSkillsParams(RequestParams):
    """The params of ``skills/list``: a cursor from the page before, or none. Any value is taken here and judged by the
    Shelf, so a wrong one gets lackpy's line rather than the SDK's."""

    cursor: Any = None


class GetSkillParams(RequestParams):
    """The params of ``skills/get``: the URI of a skill's ``SKILL.md`` (judged by the Shelf, as a cursor is)."""

    uri: Any = None


class SkillsExtension(Extension):
    """The extension's methods over one server's Shelf."""

    identifier = EXTENSION

    def __init__(self, shelf: Shelf) -> None:
        self.shelf = shelf

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding(LIST_METHOD, ListSkillsParams, self.list_skills),
            MethodBinding(GET_METHOD, GetSkillParams, self.get_skill),
        )

    async def list_skills(self, _ctx: Any, params: ListSkillsParams) -> dict:
        return cacheable(await _off_loop(self.shelf.page, params.cursor))

    async def get_skill(self, _ctx: Any, params: GetSkillParams) -> dict:
        return cacheable({"skill": await _off_loop(self.shelf.get, params.uri)})


def cacheable(result: dict) -> dict:
    """A complete result with the cache fields SEP-2640 requires."""
    return {**result, "resultType": "complete", "ttlMs": TTL_MS, "cacheScope": CACHE_SCOPE}


async def read_skill_file(shelf: Shelf, uri: str) -> list[ReadResourceContents]:
    """The contents of ``resources/read`` for a ``skill://`` URI: text or bytes (the SDK sends bytes as a base64 blob)."""
    found = await _off_loop(shelf.read, uri)
    return [ReadResourceContents(content=found.text if found.text is not None else found.data, mime_type=found.mime_type)]


def declare_on_handshake(server: MCPServer, extension: Extension) -> None:
    """Keep ``extension`` in ``initialize``'s capabilities on a 2025-11-25 handshake, where the SDK leaves the map out."""
    identifier, settings = extension.identifier, extension.settings()

    async def declare(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        result = await call_next(ctx)
        if ctx.method != "initialize" or not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
            return result
        capabilities = result["capabilities"]
        extensions = capabilities.get("extensions") if isinstance(capabilities.get("extensions"), dict) else {}
        if identifier in extensions:
            return result
        return {**result, "capabilities": {**capabilities, "extensions": {**extensions, identifier: dict(settings)}}}

    server.middleware.append(declare)


async def _off_loop(work: Callable[[Any], Any], arg: Any) -> Any:
    """``work(arg)`` in a thread; a LackpyError as a JSON-RPC invalid-params error with its one line, and so is a disk's
    error (said without its path)."""
    try:
        return await asyncio.to_thread(work, arg)
    except LackpyError as exc:
        raise invalid_params(exc) from None
    except OSError as exc:
        raise MCPError(code=INVALID_PARAMS, message=f"the skill cannot be read now ({exc.strerror or 'disk error'}); try again") from None


__all__ = ["CACHE_SCOPE", "TTL_MS", "GetSkillParams", "ListSkillsParams", "SkillsExtension", "cacheable", "declare_on_handshake", "read_skill_file"]
