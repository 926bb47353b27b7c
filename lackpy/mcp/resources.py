"""The served resources: the kits, one kit, a tool's doc and the language spec, as JSON or markdown."""

from __future__ import annotations

import asyncio
import json

from mcp.server.mcpserver import MCPServer

from lackpy.mcp.policy import KitPolicy
from lackpy.service import LackpyService


def add_resources(server: MCPServer, service: LackpyService, policy: KitPolicy) -> None:
    """``lackpy://kits``, ``lackpy://kits/{name}``, ``lackpy://docs/{tool}`` and ``lackpy://spec``."""

    @server.resource("lackpy://kits", name="kits", description="Every kit, and which ones this server allows.", mime_type="application/json")
    async def kits() -> str:
        rows = await asyncio.to_thread(service.kit_list)
        for row in rows:
            row["allowed"] = row["name"] in policy.allowed
        return _json({"kits": rows, "default_kit": policy.default_kit, "allowed": list(policy.allowed)})

    @server.resource("lackpy://kits/{name}", name="kit", description="One kit: its tools, signatures and grades.", mime_type="application/json")
    async def kit(name: str) -> str:
        return _json(await asyncio.to_thread(service.kit_info, name))

    @server.resource("lackpy://docs/{tool}", name="tool-doc", description="A tool's documentation.", mime_type="text/markdown")
    async def doc(tool: str) -> str:
        return await asyncio.to_thread(service.resolve_doc, policy.doc(tool), policy.allowed)

    @server.resource("lackpy://spec", name="spec", description="The program language's grammar and limits.", mime_type="application/json")
    def spec() -> str:
        from lackpy.run.limits import spec as limits_spec

        return _json({**service.language_spec(), "limits": limits_spec()})


def _json(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


__all__ = ["add_resources"]
