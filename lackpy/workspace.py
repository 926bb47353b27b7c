"""What a service loads for one workspace, as trust allows: the config, the toolbox, its MCP servers, the read-only grade.

A trusted workspace gets its whole ``.lackpy/``. An untrusted one gets what
cannot raise privileges (``lackpy.trust``): its config without the
privileged keys, and no kit, template or default kit above the read-only
grade. What was withheld becomes one notice that says how to trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lackpy import trust as trust_store
from lackpy.config import Config, load_config
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import Grade
from lackpy.plugins import populate

#: The kit whose grade is the read-only grade: the default ceiling, and what an untrusted workspace may reach.
READ_ONLY_KIT = "readonly"


@dataclass(frozen=True)
class Loaded:
    """One loading of a workspace; ``remotes`` are its MCP servers' links (None without servers)."""

    config: Config
    toolbox: Toolbox
    remotes: Any
    read_only: Grade
    trusted: bool


def load_workspace(
    workspace: Path,
    given: Config | Mapping[str, Any] | None,
    trusted: bool,
    notices: list[str],
    previous: Toolbox | None = None,
) -> Loaded:
    """Read the config (``given``: the host's own, else the workspace's) and build the toolbox, as ``trusted`` allows.

    ``previous`` is the toolbox of a loading trust was lost from: the new
    toolbox takes over what the host gave it.
    """
    if isinstance(given, Config):
        config = given
    elif given is not None:
        config = Config.from_dict(dict(given))
    else:
        config = load_config(workspace, trusted=trusted)
    toolbox = Toolbox(str(workspace), settings=config.tools)
    toolbox.config_limits, toolbox.list_up_to = config.limits, config.list_tools_up_to
    populate(toolbox)
    remotes = None
    if config.mcp:
        from lackpy.remote.attach import attach

        remotes = attach(toolbox, config.mcp, workspace, notices, lambda name: _sampling_tier(config, workspace, name))
    read_only = resolve_kit(READ_ONLY_KIT, toolbox, workspace_kits=False).grade
    ignored = [] if trusted else list(config.ignored)
    if not trusted:
        kits_dir = workspace / ".lackpy" / "kits"
        withheld, default_withheld = trust_store.withheld(workspace, kits_dir, toolbox, read_only, config.default_kit if given is None else None)
        ignored += withheld
        if default_withheld:
            config.default_kit = READ_ONLY_KIT
    if ignored:
        notices.append(f"this workspace is not trusted, so lackpy ignored: {'; '.join(ignored)}; if you trust it, run: lackpy trust {workspace}")
    if previous is not None:
        from lackpy.remote.enroll import PROVIDER

        toolbox.take_over(previous, leave=PROVIDER)  # remote tools come back from the untrusted config's servers
    return Loaded(config, toolbox, remotes, read_only, trusted)


def _sampling_tier(config: Config, workspace: Path, name: str) -> Any:
    """The model tier ``name`` of ``config``'s ``[inference]``, for a server whose ``sampling`` names it (ConfigError if none).

    Built for that server, on the servers' loop, from the config the servers
    came from, so it never waits for a service's load lock.
    """
    from lackpy.infer.tiers import build_tiers
    from lackpy.remote.sampling import tier_named

    return tier_named(name, list(zip(config.inference.order, build_tiers(config.inference, workspace))))


__all__ = ["READ_ONLY_KIT", "Loaded", "load_workspace"]
