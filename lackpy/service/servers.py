"""The other MCP servers a workspace configures: added, their status, the result shapes learned, and which one a login is for.

``LackpyService`` hands ``mcp_add``, ``remote_status``, ``mcp_shapes``,
``mcp_login`` and ``mcp_logout`` here. An untrusted workspace's own servers
never start; they are listed as ``ignored``, saying how to start them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from lackpy.config import add_server
from lackpy.errors import ConfigError, WorkspaceError
from lackpy.workspace import Workspace


def add(workspace: Workspace, name: str, table: Mapping[str, Any]) -> Path:
    """Add ``[mcp.servers.NAME]`` with ``table`` to the workspace's config; the config's path."""
    with workspace.keeping():
        return add_server(workspace.root, name, dict(table))


def status(workspace: Workspace) -> list[dict]:
    """Each configured MCP server: where it is, connected or why not, and its tools; an untrusted workspace's as ``ignored``."""
    workspace.follow()
    workspace.load().toolbox.list_tools()  # every server started, so the status is what it is
    loaded = workspace.load()
    config = loaded.config
    rows = loaded.remotes.status() if loaded.remotes is not None else [server.row("not connected") for server in config.mcp]
    why = f"this workspace is not trusted, so its servers do not start; lackpy trust {workspace.root} starts them"
    return rows + [server.row("ignored", why) for server in config.ignored_servers]


def listing(workspace: Workspace) -> list[dict]:
    """Each configured MCP server as lackpy last listed it, starting none: where it is, when, and its tools then.

    Read from the config and the person's cache only (``lackpy.remote.shapes``), so it takes no longer
    than reading them; ``status`` connects to each server now.
    """
    from lackpy.remote.enroll import qualified_names
    from lackpy.remote.shapes import last_listed

    workspace.follow()
    config = workspace.configured()
    seen = last_listed(config.mcp, workspace.root)
    rows = []
    for server in config.mcp:
        last = seen[server.name]
        row = server.row("listed" if last["listed_at"] is not None else "not listed yet",
                         None if last["listed_at"] is not None else "lackpy mcp status connects to it")
        row.update(tools=sorted(qualified_names(server.name, last["names"]).values()), listed_at=last["listed_at"], info=last["info"])
        if server.oauth is not None:
            from lackpy.remote.oauth import identity

            row["login"] = identity(server)
        rows.append(row)
    why = f"this workspace is not trusted, so its servers do not start; lackpy trust {workspace.root} starts them"
    return rows + [server.row("ignored", why) for server in config.ignored_servers]


def shapes(workspace: Workspace, name: str | None, clear: bool) -> list[dict]:
    """The result shapes lackpy learned from the configured servers' tools (or server ``name``'s); starts no server."""
    workspace.follow()
    loaded = workspace.load()
    if loaded.remotes is None:
        from lackpy.remote.shapes import shape_rows

        config = loaded.config  # nothing starts: an untrusted workspace's are shown too
        return shape_rows([*config.mcp, *config.ignored_servers], workspace.root, name, clear)
    return loaded.remotes.shape_rows(name, clear)


def remotes_for(workspace: Workspace, name: str) -> Any:
    """The links of the workspace's MCP servers, when ``name`` is one of them; else why not (WorkspaceError, ConfigError)."""
    workspace.follow()
    loaded = workspace.load()
    remotes = loaded.remotes
    if remotes is None or name not in remotes.servers:
        if any(server.name == name for server in loaded.config.ignored_servers):
            raise WorkspaceError(f"this workspace is not trusted, so its MCP server {name} does not start; lackpy trust {workspace.root} first")
        raise ConfigError(f"no MCP server named {name} is configured; lackpy mcp list shows them")
    return remotes


__all__ = ["add", "listing", "remotes_for", "shapes", "status"]
