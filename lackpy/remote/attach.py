"""Attaching the configured MCP servers to a toolbox: their tools join it, each server started on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from lackpy.errors import UnknownToolError
from lackpy.kit.toolbox import Toolbox
from lackpy.remote import RemoteProvider


def attach(
    toolbox: Toolbox, servers: Sequence[Any], workspace: Path, notices: list[str], tier_named: Callable[[str], Any], authorizer: Any = None
) -> Any:
    """Connect ``servers`` (``ServerSettings``) for ``toolbox``: their tools join it, each server started on first use.

    Returns the ``Remotes`` (None when the MCP client is not installed: then
    a notice says how to install it). A server that fails is left out, with
    its reason, in a notice and in ``lackpy mcp list``; a call of one of its
    tools says so. ``tier_named(name)`` is the model tier a server's
    ``sampling`` names; ``authorizer`` asks a person to authorize a server
    that wants OAuth (``lackpy.remote.oauth``).
    """
    try:
        import mcp  # noqa: F401
    except ImportError:
        notices.append("the config names MCP servers, but their client is not installed: pip install 'lackpy[mcp]'")
        return None
    from lackpy.remote.link import Remotes

    def register(specs: list) -> None:
        for spec in specs:
            toolbox.register_tool(spec, replace=True)

    remotes = Remotes(servers, workspace, on_enroll=register, tier_named=tier_named, authorizer=authorizer)
    toolbox.register_provider(RemoteProvider(remotes))

    def on_missing(name: str | None) -> None:
        """Start a server on the first use of one of its tools (every server, when all tools are listed)."""
        server = None if name is None else name.partition("__")[0]
        if name is not None and ("__" not in name or server not in remotes.servers):
            return  # "SERVER__" (kit mcp:SERVER) starts that server
        failed = set(remotes.failures)
        register(remotes.enroll(None if server is None else [server]))
        for late, reason in remotes.failures.items():
            if late not in failed and "." not in late:
                notices.append(f"MCP server {late} is not available: {reason}; see lackpy mcp status")
        if server is not None and server in remotes.failures:
            what = f"unknown tool '{name}': " if name.partition("__")[2] else ""
            raise UnknownToolError(f"{what}the MCP server {server} is not available ({remotes.failures[server]}); see lackpy mcp status")

    toolbox.on_missing = on_missing
    return remotes


__all__ = ["attach"]
