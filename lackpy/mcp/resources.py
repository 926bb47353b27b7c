"""The served resources: the kits, one kit, a tool's doc and the language spec, as JSON or markdown.

A client's mistake in a URI (a kit or doc that does not exist here, an empty
name, a URI no resource or template matches) is a JSON-RPC error -32602 with
lackpy's one line saying what exists; nothing is logged, as nothing went
wrong on the server. Its ``data`` holds the URI (``{"uri": ...}``), as
SEP-2164 asks.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from lackpy.errors import LackpyError
from lackpy.mcp.policy import KitPolicy
from lackpy.service import LackpyService

KITS_URI = "lackpy://kits"
DOCS_URI = "lackpy://docs"
SPEC_URI = "lackpy://spec"
#: What ``lackpy serve`` offers as resources, as a refusal names them.
SERVED = (f"{KITS_URI}, {KITS_URI}/{{kit}}, {DOCS_URI}/{{tool}}, {SPEC_URI}, lackpy://skills, lackpy://skills/{{name}} "
          "and lackpy://approvals/{id} (a question waiting for an answer)")


def add_resources(server: MCPServer, service: LackpyService, policy: KitPolicy) -> None:
    """``lackpy://kits``, ``lackpy://kits/{name}``, ``lackpy://docs/{tool}`` and ``lackpy://spec``."""

    @server.resource(KITS_URI, name="kits", description="Every kit, and which ones this server allows.", mime_type="application/json")
    async def kits() -> str:
        rows = await asyncio.to_thread(service.kit_list)
        for row in rows:
            row["allowed"] = row["name"] in policy.allowed
        return _json({"kits": rows, "default_kit": policy.default_kit, "allowed": list(policy.allowed)})

    @server.resource(KITS_URI + "/{name}", name="kit", description="One kit: its tools, signatures and grades.", mime_type="application/json")
    async def kit(name: str) -> str:
        if not name.strip():
            raise invalid(f"{KITS_URI}/ names no kit: read {KITS_URI}/NAME, a kit {KITS_URI} lists")
        return _json(await answer(service.kit_info, name, then=f"{KITS_URI} lists the kits"))

    @server.resource(DOCS_URI + "/{tool}", name="tool-doc", description="A tool's documentation.", mime_type="text/markdown")
    async def doc(tool: str) -> str:
        return await answer(lambda: service.resolve_doc(policy.doc(tool), policy.allowed), then=f"{KITS_URI}/NAME lists a kit's tools")

    @server.resource(SPEC_URI, name="spec", description="The program language's grammar and limits.", mime_type="application/json")
    def spec() -> str:
        from lackpy.run.limits import spec as limits_spec

        return _json({**service.language_spec(), "limits": limits_spec()})


async def answer(work: Callable[..., Any], *args: Any, then: str) -> Any:
    """``work(*args)`` off the event loop; a LackpyError as a JSON-RPC invalid-params error with its one line and ``then``
    (what to read instead), a disk's error as one without its path."""
    try:
        return await asyncio.to_thread(work, *args)
    except LackpyError as exc:
        raise invalid(f"{one_line(str(exc))}; {then}") from None
    except OSError as exc:
        raise invalid(f"the resource cannot be read now ({exc.strerror or 'disk error'}); try again") from None


def unknown(uri: str) -> MCPError:
    """The refusal of a URI no resource or template of the server matches."""
    return MCPError(
        code=INVALID_PARAMS, data={"uri": uri},
        message=f"no resource {uri!r} here: lackpy serves {SERVED}; resources/list and resources/templates/list show them",
    )


def naming(exc: MCPError, uri: str) -> MCPError:
    """``exc``, a refusal of a read of ``uri``, with the URI in its ``data`` as hosts look for it (SEP-2164)."""
    if exc.error.code != INVALID_PARAMS or exc.error.data is not None:
        return exc
    return MCPError(code=INVALID_PARAMS, message=exc.error.message, data={"uri": uri})


def invalid(message: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message)


def one_line(message: str) -> str:
    return " ".join(message.split())


def _json(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


__all__ = ["SERVED", "add_resources", "answer", "invalid", "naming", "one_line", "unknown"]
