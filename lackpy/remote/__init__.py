"""Remote tools: the tools of the MCP servers a workspace configures, in lackpy's toolbox.

``[mcp.servers.NAME]`` tables (``lackpy.remote.settings``) name the servers;
``Remotes`` (``lackpy.remote.link``) connects them with the MCP SDK's client
and keeps their sessions; ``lackpy.remote.enroll`` turns each remote tool
into a ToolSpec named ``NAME__tool`` and each result into plain data;
``lackpy.remote.fetch`` lists the skills a server serves (SEP-2640, the wire
format in ``lackpy.remote.skills``) and reads their files, verified. The
SDK is the ``mcp`` extra, imported only when a server is configured.
"""

from __future__ import annotations

from typing import Any, Callable

from lackpy.kit.spec import ToolSpec
from lackpy.remote.enroll import PROVIDER


class RemoteProvider:
    """The tool provider of remote tools: a call goes to its server through ``remotes``."""

    name = PROVIDER

    def __init__(self, remotes: Any) -> None:
        self.remotes = remotes

    def resolve(self, spec: ToolSpec) -> Callable[..., Any]:
        names = [arg.name for arg in spec.args]
        remotes = self.remotes

        def call(*args: Any, **kwargs: Any) -> Any:
            arguments = dict(zip(names, args))
            arguments.update(kwargs)
            return remotes.call(spec, arguments)

        call.__name__ = spec.name
        return call


__all__ = ["RemoteProvider"]
