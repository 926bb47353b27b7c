"""An MCP server built with the SDK whose tools ask the client to sample: ``python sampling_server.py``.

``summarize(text)`` asks for a summary (a system prompt, one user message,
``max_tokens`` 64) and answers with what came back as JSON, or
``"refused: MESSAGE"`` when the client answered with an error; ``look()``
asks with an image; ``declared()`` says whether the client declared
sampling. On a handshake-era connection the request goes out in the middle of
the call (``ctx.session.create_message``); on 2026-07-28 as an
InputRequiredResult round, read on the retry (lackpy's client speaks
2026-07-28 with an SDK server of this version).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ImageContent, SamplingMessage, TextContent

SYSTEM = "You summarize in five words."


def sampler() -> MCPServer:
    server = MCPServer("sampler")

    @server.tool()
    async def summarize(text: str, ctx: Context) -> Any:
        """Ask the client's model for a summary of text."""
        return await _sample(ctx, [SamplingMessage(role="user", content=TextContent(type="text", text=text))])

    @server.tool()
    async def look(ctx: Context) -> Any:
        """Ask the client's model about a picture."""
        picture = ImageContent(type="image", data=base64.b64encode(b"\x89PNG").decode(), mime_type="image/png")
        return await _sample(ctx, [SamplingMessage(role="user", content=[TextContent(type="text", text="what is it?"), picture])])

    @server.tool()
    def declared(ctx: Context) -> bool:
        """Whether the client declared the sampling capability."""
        capabilities = ctx.client_capabilities
        return capabilities is not None and capabilities.sampling is not None

    return server


async def _sample(ctx: Context, messages: list[SamplingMessage]) -> Any:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CreateMessageRequest, CreateMessageRequestParams, InputRequiredResult
    from mcp_types.version import is_version_at_least

    if not is_version_at_least(ctx.protocol_version or "2025-11-25", "2026-07-28"):
        try:
            answer = await ctx.session.create_message(messages, max_tokens=64, system_prompt=SYSTEM)
        except MCPError as exc:
            return f"refused: {exc.error.message}"
        return _shown(answer)
    answer = (ctx.input_responses or {}).get("sample")
    if answer is None:
        params = CreateMessageRequestParams(messages=messages, max_tokens=64, system_prompt=SYSTEM)
        return InputRequiredResult(input_requests={"sample": CreateMessageRequest(params=params)}, request_state="asked")
    return _shown(answer)


def _shown(answer: Any) -> str:
    content = getattr(answer, "content", None)
    return json.dumps({
        "role": getattr(answer, "role", None), "text": getattr(content, "text", None),
        "model": getattr(answer, "model", None), "stop": getattr(answer, "stop_reason", None),
    })


if __name__ == "__main__":
    sampler().run("stdio")
