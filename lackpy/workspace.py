"""One workspace as a service sees it: what it loads, as trust allows, and trust followed at every request.

A trusted workspace gets its whole ``.lackpy/``. An untrusted one gets what
cannot raise privileges (``lackpy.trust``): its config without the
privileged keys, and no kit, template or default kit above the read-only
grade. What was withheld becomes one notice that says how to trust. When
the files a person trusted change, the workspace loads again as untrusted
(``Workspace.follow``), and the service forgets what it built on the old
loading (``on_reload``).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from lackpy import trust as trust_store
from lackpy.config import Config, load_config
from lackpy.host import journal
from lackpy.host.places import LACKPY_DIR
from lackpy.kit.cache import KitCache
from lackpy.errors import LackpyError
from lackpy.kit.kitfile import find_kit, kit_dirs, kit_rows
from lackpy.kit.preview import preview
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import Grade
from lackpy.plugins import populate
from lackpy.skills.covered import folders

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


class Workspace:
    """The loading of one workspace, made on first use under ``lock`` and made again, untrusted, when trust is lost.

    ``given`` is the host's config (a Config or a dict), else None to read
    the workspace's; ``trust`` is the service's (``lackpy.trust.WorkspaceTrust``).
    ``notices`` hears what the person should know; ``on_reload()`` runs when a
    lost trust makes the workspace load again.
    """

    def __init__(
        self, root: Path, given: Any, trust: bool | None, notices: list[str], on_reload: Callable[[], None], authorizer: Any = None
    ) -> None:
        self.root, self.notices, self._given, self._on_reload = root, notices, given, on_reload
        #: Who authorizes lackpy at an MCP server that asks for OAuth (``lackpy.remote.oauth.Authorizer``); None: nobody is asked.
        self.authorizer = authorizer
        self.lock = threading.Lock()
        self.trust = trust_store.WorkspaceTrust(root, trust, self.lock)
        #: The current loading, None until the first use (and while a lost trust loads the workspace again).
        self.loaded: Loaded | None = None
        #: What the first load found of a commit an earlier process left unfinished here, and did (``journal.Report``), if anything.
        self.recovery: journal.Report | None = None
        #: The toolbox trust was lost from, until a loading takes over what the host gave it.
        self._previous: Toolbox | None = None
        self.kits_dir = root / LACKPY_DIR / "kits"  # as the toolbox names it (``Toolbox.kits_dir``)
        self._kits = KitCache(self.kits_dir, any(source == "workspace" for source, _ in kit_dirs(self.kits_dir)))

    def load(self) -> Loaded:
        """The loading, made now if there is none: first a commit left unfinished here is finished (``journal``)."""
        loaded = self.loaded
        if loaded is None:
            with self.lock:
                if self.loaded is None:
                    self.recovery, notice = journal.recover_at_start(self.root)
                    self.notices += [notice] if notice else []
                    self._build()
                loaded = self.loaded
        return loaded  # type: ignore[return-value]

    def configured(self) -> Config:
        """The config as the loading reads it, trust applied, without building the toolbox: nothing is started or imported."""
        loaded = self.loaded
        if loaded is not None:
            return loaded.config
        return _config_of(self.root, self._given, self.trust.judge())

    def follow(self) -> None:
        """Where requests enter: a trusted workspace whose trusted files changed is judged again (``WorkspaceTrust.follow``)."""
        self.trust.follow(self._lose)

    @contextmanager
    def keeping(self) -> Iterator[None]:
        """A workspace the person trusted stays trusted while lackpy itself writes its kits, templates, skills and config."""
        self.follow()
        with self.trust.keeping():
            yield

    def resolve(self, kit: KitSpec, extra_tools: Iterable[str] | None = None) -> ResolvedKit:
        """Resolve ``kit`` as trust allows: an untrusted workspace's own kit file counts only up to the read-only grade.

        Resolved kits are kept while the toolbox and the kit file stay as they were.
        """
        loaded = self.load()

        def resolve() -> ResolvedKit:
            if loaded.trusted:
                return resolve_kit(kit, loaded.toolbox, self.kits_dir, extra_tools)
            return trust_store.resolve_untrusted(kit, loaded.toolbox, self.kits_dir, extra_tools, loaded.read_only, self.root)

        return self._kits.get(kit, extra_tools, loaded.toolbox, resolve)

    def kit_rows(self) -> list[dict]:
        """Every kit file as ``lackpy kit list`` shows it; an untrusted workspace's own kit above read-only is ignored, saying so."""
        loaded = self.load()

        def ignored(name: str, source: str) -> str | None:
            grade = None if loaded.trusted else trust_store.above_read_only(name, source, loaded.toolbox, self.kits_dir, loaded.read_only)
            return None if grade is None else f"above read-only ({grade}) in an untrusted workspace"

        return kit_rows(self.kits_dir, ignored)

    def untrusted_kit_file(self, kit: object) -> Path | None:
        """The path of this workspace's own kit file named ``kit`` while the workspace is untrusted; None when trusted or when there is none."""
        if not isinstance(kit, str) or self.load().trusted:
            return None
        try:
            source, path = find_kit(kit, self.kits_dir)
        except LackpyError:
            return None
        return path if source == "workspace" else None

    def ignored_kit(self, kit: object, approval: Callable[[Any], str]) -> dict | None:
        """This untrusted workspace's kit ``kit``, not in force, read as data only (``lackpy.kit.preview``); None for any other kit."""
        path = self.untrusted_kit_file(kit)
        if path is None:
            return None
        return preview(path, self.load().toolbox, approval, f"not in force: ignored until you trust this workspace: lackpy trust {self.root}")

    def close(self) -> None:
        """Stop the MCP servers and the background processes programs started (the toolbox's shared state)."""
        loaded = self.loaded
        if loaded is None:
            return
        if loaded.remotes is not None:
            loaded.remotes.close()
        from lackpy.tools.shell import stop_all

        stop_all(loaded.toolbox.context.state)

    def _build(self) -> None:
        self.loaded = load_workspace(self.root, self._given, self.trust.judge(), self.notices, self._previous, self.authorizer)
        self._previous = None

    def _lose(self, why: str) -> None:
        """From now on the workspace is untrusted: it loads again as a workspace that starts untrusted does (under the lock).

        So exactly what that withholds is withheld, and its notice lists it.
        A run already under way finishes as it began.
        """
        self.notices.append(
            f"{self.root}: {why}; lackpy now treats it as untrusted: "
            f"run lackpy trust {self.root} to trust it again (a running lackpy serve needs a restart)"
        )
        old, self.loaded = self.loaded, None
        self._kits.clear()
        self._on_reload()
        if old is not None and old.remotes is not None:
            old.remotes.close()
        self._previous = old.toolbox if old is not None else self._previous  # kept until a loading takes it over
        self._build()


def load_workspace(
    workspace: Path,
    given: Config | Mapping[str, Any] | None,
    trusted: bool,
    notices: list[str],
    previous: Toolbox | None = None,
    authorizer: Any = None,
) -> Loaded:
    """Read the config (``given``: the host's own, else the workspace's) and build the toolbox, as ``trusted`` allows.

    ``previous`` is the toolbox of a loading trust was lost from: the new
    toolbox takes over what the host gave it.
    """
    config = _config_of(workspace, given, trusted)
    toolbox = Toolbox(str(workspace), settings=config.tools)
    # The [skills] paths, trusted or not (.lackpy/skills is lackpy's own already): no program and no command writes them.
    toolbox.context.protected = tuple(dict.fromkeys([*config.skill_paths, *folders(workspace)[1:]]))
    toolbox.config_limits, toolbox.list_up_to, toolbox.doc_folders = config.limits, config.list_tools_up_to, tuple(config.kit_docs)
    populate(toolbox)
    remotes = None
    if config.mcp:
        from lackpy.remote.attach import attach

        remotes = attach(toolbox, config.mcp, workspace, notices, lambda name: _sampling_tier(config, workspace, name), authorizer)
    read_only = resolve_kit(READ_ONLY_KIT, toolbox, workspace_kits=False).grade
    ignored = [] if trusted else list(config.ignored)
    if not trusted:
        withheld, default_withheld = trust_store.withheld(workspace, toolbox.kits_dir, toolbox, read_only, config.default_kit if given is None else None)
        ignored += withheld
        if default_withheld:
            config.default_kit = READ_ONLY_KIT
    if ignored:
        notices.append(f"this workspace is not trusted, so lackpy ignored: {'; '.join(ignored)}; if you trust it, run: lackpy trust {workspace}")
    if previous is not None:
        from lackpy.remote.enroll import PROVIDER

        toolbox.take_over(previous, leave=PROVIDER)  # remote tools come back from the untrusted config's servers
    return Loaded(config, toolbox, remotes, read_only, trusted)


def _config_of(workspace: Path, given: Config | Mapping[str, Any] | None, trusted: bool) -> Config:
    """The host's config (``given``), else the workspace's as ``trusted`` allows."""
    if isinstance(given, Config):
        return given
    if given is not None:
        return Config.from_dict(dict(given))
    return load_config(workspace, trusted=trusted)


def _sampling_tier(config: Config, workspace: Path, name: str) -> Any:
    """The model tier ``name`` of ``config``'s ``[inference]``, for a server whose ``sampling`` names it (ConfigError if none).

    Built for that server, on the servers' loop, from the config the servers
    came from, so it never waits for a service's load lock.
    """
    from lackpy.infer.tiers import build_tiers
    from lackpy.remote.sampling import tier_named

    return tier_named(name, list(zip(config.inference.order, build_tiers(config.inference, workspace))))


__all__ = ["READ_ONLY_KIT", "Loaded", "Workspace", "load_workspace"]
