"""LackpyService: the one entry point; the CLI and servers are thin adapters over it.

The service is async at its edge: nothing that blocks (reading the config,
kit and template files, building tiers, probing models, running a program in
its worker) runs on the caller's event loop, except an ``inprocess`` run,
which by its definition runs on the calling thread. Cancelling the task that
awaits ``run_program`` or ``delegate`` stops the program (the worker is
killed, staged writes are discarded). ``async with LackpyService(...)``
(or ``aclose()``) stops the background processes its programs started.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

import yaml

from lackpy.config import Config, load_config
from lackpy.errors import ConfigError, KitError, LackpyError, ParamError, UnknownKitError, UnknownToolError, WorkspaceError
from lackpy.infer.base import Request, Tier
from lackpy.infer.dispatch import Dispatcher, OnEvent, Outcome
from lackpy.infer.result import DelegateResult, GenerationResult
from lackpy.infer.select import choose_tools, within
from lackpy.infer.tiers import build_tiers
from lackpy.kit.docs import docs_index, resolve_doc
from lackpy.kit.kitfile import KIT_NAME, kit_dirs, list_kit_files, read_kit
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Check
from lackpy.plugins import populate
from lackpy.approvals.approver import ApproveSpec, Audit, approver_for, asks_on_loop
from lackpy.approvals.gatekeeper import Gatekeeper
from lackpy.approvals.policy import Ask, with_kit
from lackpy.run.cancel import Cancel
from lackpy.run.compiler import prepare
from lackpy.run.limits import Limits
from lackpy.run.result import ExecutionResult
from lackpy.run.slots import Slots
from lackpy.run.runner import check_params, prepared_for, run_with
from lackpy.run.settings import RunSettings
from lackpy.session import Session, Sessions
from lackpy.host import journal
from lackpy.host.ownfiles import exists, open_state, write_own
from lackpy import trust as trust_store
from lackpy.trust import is_trusted

T = TypeVar("T")
#: How long a cancelled call waits for its run to wind down (worker killed, nothing written).
CANCEL_GRACE_S = 2.0
#: How often a run reports its tool calls to ``on_event``, at most, in seconds.
PROGRESS_S = 0.1
#: Formats ``tool_schemas`` exports.
SCHEMA_FORMATS = ("openai", "anthropic", "mcp")

#: Gatekeepers kept for reuse (by kit, answerer, mode and loop) before the table starts again.
MOST_GATEKEEPERS = 64
#: The kit whose grade is the default ceiling when delegate chooses tools itself.
READ_ONLY_KIT = "readonly"
#: A ceiling: a kit name (its grade), a Grade, or (w, d).
CeilingSpec = str | Grade | tuple[int, int] | None


class LackpyService:
    """Validate and run programs against kits in one workspace.

    ``workspace`` defaults to the current directory; ``config`` is a Config,
    a dict of config keys, or None to read ``.lackpy/config.toml``.
    """

    def __init__(
        self,
        workspace: str | Path | None = None,
        config: Config | Mapping[str, Any] | None = None,
        *,
        trust: bool | None = None,
        approve: ApproveSpec = None,
    ) -> None:
        """``trust``: None asks the trust record (``lackpy trust``); True trusts the workspace for
        this service only (what ``lackpy serve --trust`` does); False never trusts it.
        ``approve`` answers approvals for calls that pass none (see ``run_program``)."""
        root = Path(workspace) if workspace is not None else Path.cwd()
        if not root.is_dir():
            raise WorkspaceError(f"workspace does not exist or is not a directory: {root}")
        self.workspace = root.resolve()
        self.kits_dir = self.workspace / ".lackpy" / "kits"
        #: Whether the workspace can have kit files of its own (not when its kits directory is the package's).
        self._own_kits = any(source == "workspace" for source, _ in kit_dirs(self.kits_dir))
        self._config_given = config
        self._trust = trust
        self._trusted = True
        #: The stats and hash of the trusted files as trusted (None: not trusted); every request compares the stats.
        self._stamp: trust_store.Stamp | None = None
        #: With ``trust=True``: the hash of the files this service trusts (its own writes move it along).
        self._pinned_hash: str | None = None
        #: The toolbox trust was lost from, until the rebuilt one takes over what the host gave it.
        self._previous: Toolbox | None = None
        self.notices: list[str] = []
        self._read_only = Grade(0, 0)
        self._config: Config | None = None
        self._toolbox: Toolbox | None = None
        self._load_lock = threading.Lock()
        self._config_checks: list[Check] | None = None
        self._tiers: list[Tier] | None = None
        self._kits: dict[Any, tuple[Any, ResolvedKit]] = {}
        self._runs: ThreadPoolExecutor | None = None
        self._slots: Slots | None = None
        self._runs_lock = threading.Lock()
        #: The sessions of this service's clients (``open_session``); closing the service closes them.
        self.sessions = Sessions()
        self._remotes: Any = None
        self._guardrails: Any = None
        self.approve = approve
        self._audit: Audit | None = None
        self._gatekeepers: dict[tuple, tuple[ResolvedKit, Gatekeeper]] = {}
        #: What the load found of a commit an earlier process left unfinished, and did (``journal.Report``), if anything.
        self.recovery: journal.Report | None = None

    # -- what is loaded on first use (off the event loop in async calls) -------------

    def load(self) -> "LackpyService":
        """Read the config, check trust and build the toolbox now (else on first use); returns the service."""
        if self._toolbox is None:
            self._load()
        return self

    @property
    def config(self) -> Config:
        """The workspace's settings, read on first use."""
        return self.load()._config  # type: ignore[return-value]

    @property
    def toolbox(self) -> Toolbox:
        """Every tool of this service (the plugins' and the ones registered on it), loaded on first use."""
        return self.load()._toolbox  # type: ignore[return-value]

    def _load(self) -> None:
        with self._load_lock:
            if self._toolbox is not None:
                return
            self._recover_commit()
            self._build()

    def _build(self) -> None:
        """Judge trust, read the config and build the toolbox, as trust allows (called under the load lock)."""
        given = self._config_given
        trusted = self._judge_trust()
        if isinstance(given, Config):
            config = given
        elif given is not None:
            config = Config.from_dict(dict(given))
        else:
            config = load_config(self.workspace, trusted=trusted)
        toolbox = Toolbox(str(self.workspace), settings=config.tools)
        toolbox.config_limits = config.limits
        toolbox.list_up_to = config.list_tools_up_to
        populate(toolbox)
        if config.mcp:
            self._enroll_remote(config, toolbox)
        self._read_only = resolve_kit(READ_ONLY_KIT, toolbox, workspace_kits=False).grade
        self._trusted = trusted
        ignored = list(config.ignored) if not trusted else []
        if not trusted:
            ignored += self._withhold_workspace(config, toolbox, config_from_workspace=given is None)
        if ignored:
            self.notices.append(
                f"this workspace is not trusted, so lackpy ignored: {'; '.join(ignored)}; "
                f"if you trust it, run: lackpy trust {self.workspace}"
            )
        if self._previous is not None:
            self._carry_over(self._previous, toolbox)
            self._previous = None
        self._config, self._toolbox = config, toolbox

    # -- trust that follows the files ------------------------------------------------

    def _judge_trust(self) -> bool:
        """Whether the workspace is trusted now; keeps the stamp later requests compare against.

        ``trust=False``: never. ``trust=True``: the files as they are now (the
        stamp pins them). ``trust=None``: when the trust record holds the hash
        of the files as they are now; a workspace never trusted is not hashed.
        """
        self._stamp = None
        if self._trust is False or (self._trust is None and trust_store.recorded_hash(self.workspace) is None):
            return False
        record = (str(trust_store.store_path()),) if self._trust is None else ()  # a revoked or renewed record counts too
        stamp = trust_store.stamp(self.workspace, record)
        if self._trust is None and trust_store.recorded_hash(self.workspace) != stamp.hash:
            return False
        self._stamp, self._pinned_hash = stamp, stamp.hash
        return True

    def _follow_trust(self) -> None:
        """Where requests enter: a trusted workspace whose trusted files changed is judged again.

        Costs one ``stat`` per covered file and directory (and the trust
        record) while nothing changed; only a changed stat hashes the files
        again. A hash the person trusted (the record, which ``lackpy kit
        create`` and ``lackpy trust`` renew; with ``trust=True`` the files as
        the service started, moved along by its own writes) keeps trust;
        anything else loses it for the rest of this service's life.
        """
        stamp = self._stamp
        if stamp is None or not stamp.changed():
            return
        with self._load_lock:
            if self._stamp is not stamp:
                return  # another request judged this change already
            why = self._changed_trust(stamp)
            if why is not None:
                self._lose_trust(why)

    def _changed_trust(self, stamp: trust_store.Stamp) -> str | None:
        """Why the changed files are no longer trusted, or None when they still are (the stamp renewed)."""
        try:
            fresh = stamp.again()
        except LackpyError as exc:
            return f"its .lackpy/ changed since you trusted it and cannot be read ({exc})"
        expected = self._pinned_hash if self._trust is True else trust_store.recorded_hash(self.workspace)
        if expected is None:
            return "its trust was revoked (lackpy trust --revoke)"
        if fresh.hash != expected:
            return "its .lackpy/ changed since you trusted it"
        self._stamp = fresh
        return None

    def _lose_trust(self, why: str) -> None:
        """From now on the workspace is untrusted: the config, kits, checks, tiers and MCP servers reload as untrusted.

        The untrusted loading is the one a service that starts untrusted gets
        (``_build``), so exactly what it withholds is withheld, and its notice
        lists it. A run already under way finishes as it began.
        """
        self.notices.append(
            f"{self.workspace}: {why}; lackpy now treats it as untrusted: "
            f"run lackpy trust {self.workspace} to trust it again (a running lackpy serve needs a restart)"
        )
        self._trust, self._stamp = False, None
        self._previous = self._toolbox if self._toolbox is not None else self._previous
        remotes = self._remotes
        self._toolbox = self._config = self._config_checks = self._tiers = self._remotes = None
        self._kits.clear()
        self._gatekeepers.clear()
        if remotes is not None:
            remotes.close()
        self._build()

    @staticmethod
    def _carry_over(old: Toolbox, new: Toolbox) -> None:
        """What the host gave the toolbox trust was lost from goes on in the new one.

        The processes programs started (the shared session state, so ``close``
        still stops them), and the providers and tools the host registered:
        trust never governed those. Remote tools are left behind: the
        untrusted config brings back those of servers it still names.
        """
        from lackpy.remote.enroll import PROVIDER

        new.context.session = old.context.session
        for name, provider in old._providers.items():
            if name != PROVIDER and name not in new._providers:
                new.register_provider(provider)
        for name, spec in old._tools.items():
            if name in new._tools or spec.provider == PROVIDER:
                continue
            function = old._functions.get(name)
            if function is not None:
                new.register(function)
            else:
                new.register_tool(spec)

    def _recover_commit(self) -> None:
        """Finish a commit an earlier lackpy process left unfinished here, before anything reads the workspace.

        No trust is needed: recovery acts only on a record this user's lackpy
        signed for this workspace (``lackpy.host.journal``). What it did, or
        why it stopped (a conflict, a record that does not verify), becomes a
        notice; a stopped journal also stops the next commit here, until
        ``lackpy doctor`` resolves it. One directory read when there is nothing.
        """
        if not journal.pending(self.workspace):
            return
        try:
            report = journal.recover(self.workspace)
        except Exception as exc:  # a recovery that breaks must not take every command down with it; said, not hidden
            self.notices.append(f"commit: lackpy could not check the unfinished commit in {journal.STATE_DIR}: {type(exc).__name__}: {exc}; run lackpy doctor")
            return
        if report.action in ("none", "busy", "cleaned"):
            return
        self.recovery = report
        if report.stopped:
            self.notices.append(f"{report.error_kind}: {report.message}")
        else:
            self.notices.append(f"lackpy {report.message}")

    def doctor(self, action: str = "auto") -> journal.Report:
        """Find and resolve a commit an interrupted lackpy left unfinished here (``lackpy doctor``).

        ``auto`` completes it (or finishes its undo) unless a file it names was
        changed by someone else; ``rollback`` puts back what it had written;
        ``discard`` drops the journal and writes nothing (the only way out for
        a record this user's lackpy did not sign). Waits for a commit another
        process is making here. The report says what was found and done.
        """
        return journal.recover(self.workspace, action, wait=journal.LOCK_WAIT_S)

    def _enroll_remote(self, config: Config, toolbox: Toolbox) -> None:
        """Connect the configured MCP servers and add their tools; a server that fails is left out, with its reason."""
        try:
            import mcp  # noqa: F401
        except ImportError:
            self.notices.append("the config names MCP servers, but their client is not installed: pip install 'lackpy[mcp]'")
            return
        from lackpy.remote import RemoteProvider
        from lackpy.remote.link import Remotes

        def register(specs: list) -> None:
            for spec in specs:
                toolbox.register_tool(spec, replace=True)

        remotes = self._remotes = Remotes(config.mcp, self.workspace, on_enroll=register, tier_named=lambda name: self._sampling_tier(config, name))
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
                    self.notices.append(f"MCP server {late} is not available: {reason}; see lackpy mcp list")
            if server is not None and server in remotes.failures:
                what = f"unknown tool '{name}': " if name.partition("__")[2] else ""
                raise UnknownToolError(f"{what}the MCP server {server} is not available ({remotes.failures[server]}); see lackpy mcp list")

        toolbox.on_missing = on_missing

    def mcp_add(self, name: str, table: Mapping[str, Any]) -> Path:
        """Add ``[mcp.servers.NAME]`` with ``table`` to the workspace's config; the config's path.

        Raises ConfigError when the table is not a valid server, ParamError when NAME is configured already.
        """
        import tomllib

        from lackpy.config import CONFIG_PATH, workspace_config_text
        from lackpy.remote.settings import parse_servers, table_text

        table = dict(table)
        parse_servers({"servers": {name: table}}, "lackpy mcp add")
        path = self.workspace / CONFIG_PATH
        text = workspace_config_text(self.workspace) or ""
        try:
            existing = tomllib.loads(text).get("mcp", {}).get("servers", {})
        except (tomllib.TOMLDecodeError, AttributeError) as exc:
            raise ConfigError(f"{path}: cannot add a server to this file: {exc}; fix it first") from None
        if name in existing:
            raise ParamError(f"an MCP server named {name!r} is configured already in {path}; edit or remove its table there")
        added = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "") + table_text(name, table)
        with self._keeping_trust():
            state = open_state(self.workspace, error=ConfigError, create=True)
            try:
                write_own(state, path.name, added.encode("utf-8"))
            finally:
                os.close(state)
        return path

    def remote_status(self) -> list[dict]:
        """Each configured MCP server: where it is, connected or why not, and its tools.

        An untrusted workspace's own servers are listed too, as ``ignored``
        with what starts them, so a server just added is never reported as
        missing.
        """
        self._follow_trust()
        self.toolbox.list_tools()  # every server started, so the status is what it is
        rows = self._remotes.status() if self._remotes is not None else [
            {"name": s.name, "transport": s.transport, "where": s.describe(), "state": "not connected", "reason": None, "tools": []} for s in self.config.mcp
        ]
        why = f"this workspace is not trusted, so its servers do not start; lackpy trust {self.workspace} starts them"
        return rows + [
            {"name": s.name, "transport": s.transport, "where": s.describe(), "state": "ignored", "reason": why, "tools": []}
            for s in self.config.ignored_servers
        ]

    @property
    def trusted(self) -> bool:
        """Whether this workspace's .lackpy/ may raise privileges (``lackpy trust``, or ``trust=True``)."""
        return self.load()._trusted

    @property
    def read_only_grade(self) -> Grade:
        """The default ceiling: the grade of the package's read-only kit (never a workspace's)."""
        return self.load()._read_only

    def _withhold_workspace(self, config: Config, toolbox: Toolbox, *, config_from_workspace: bool) -> list[str]:
        """What an untrusted workspace's kits, templates and default kit ask above the read-only grade.

        A config the host passed in is its own, not the workspace's: its default kit stands.
        """
        from lackpy.infer.templates import load_templates

        ignored = []
        for name, (source, path) in sorted(list_kit_files(self.kits_dir).items()):
            grade = self._above_read_only(name, source, toolbox)
            if grade is not None:
                ignored.append(f"kit '{name}' ({path.relative_to(self.workspace)}, {grade})")
        default = self._grade_of(config.default_kit, toolbox) if config_from_workspace else None
        if default is not None and not default.within(self._read_only):
            ignored.append(f"default_kit = {config.default_kit!r} (above read-only)")
            config.default_kit = READ_ONLY_KIT
        for template in load_templates(self.workspace):
            grade = self._grade_of(template.kit, toolbox) if template.kit is not None else None
            if grade is not None and not grade.within(self._read_only):
                ignored.append(f"template '{template.name}' (kit {template.kit}, {grade})")
        return ignored

    def _above_read_only(self, name: str, source: str, toolbox: Toolbox) -> Grade | None:
        """The grade of a workspace's own kit file when it reaches above read-only (what trust gates), else None."""
        grade = self._grade_of(name, toolbox) if source == "workspace" else None
        return grade if grade is not None and not grade.within(self._read_only) else None

    def _grade_of(self, kit: KitSpec, toolbox: Toolbox) -> Grade | None:
        """The grade of ``kit`` as the workspace defines it, or None when it does not resolve."""
        try:
            return resolve_kit(kit, toolbox, self.kits_dir).grade
        except LackpyError:
            return None

    async def _off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker thread, so the caller's loop stays free."""
        return await asyncio.to_thread(fn, *args)

    # -- closing ---------------------------------------------------------------------

    def close(self) -> None:
        """Stop the background processes this service's programs started (every session's), and its run threads."""
        if self._runs is not None:
            self._runs.shutdown(wait=False, cancel_futures=True)
            self._runs = None
        self.sessions.close_all()
        if self._remotes is not None:
            self._remotes.close()
        if self._toolbox is None:
            return
        from lackpy.tools.shell import stop_all

        stop_all(self._toolbox.context.session)

    async def aclose(self) -> None:
        """``close()`` off the event loop."""
        await self._off_loop(self.close)

    def __enter__(self) -> "LackpyService":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> "LackpyService":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- kits --------------------------------------------------------------

    def resolve_kit(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> ResolvedKit:
        """Resolve ``kit`` (default: the configured default kit) in this workspace.

        Resolved kits are kept while the toolbox and the kit file stay as they were.
        A ``ResolvedKit`` is used as it is (a server resolves and checks a kit once per request).
        """
        if isinstance(kit, ResolvedKit) and not extra_tools:
            return kit
        self._follow_trust()
        kit = kit if kit is not None else self.config.default_kit
        key = _kit_key(kit, extra_tools)
        if key is None:
            return self._resolve(kit, extra_tools)
        stamp = self._kit_stamp(kit)
        cached = self._kits.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        resolved = self._resolve(kit, extra_tools)
        if len(self._kits) > 256:
            self._kits.clear()
        self._kits[key] = (stamp, resolved)
        return resolved

    def _resolve(self, kit: KitSpec, extra_tools: Iterable[str] | None) -> ResolvedKit:
        """Resolve a kit; an untrusted workspace's own kit file counts only up to the read-only grade."""
        resolved = resolve_kit(kit, self.toolbox, self.kits_dir, extra_tools)
        if self.trusted or resolved.source != "workspace":
            return resolved
        base = resolve_kit(kit, self.toolbox, self.kits_dir)
        if base.grade.within(self._read_only):
            return resolved
        try:
            return resolve_kit(kit, self.toolbox, extra_tools=extra_tools, workspace_kits=False)  # the package's kit it shadows
        except UnknownKitError:
            raise KitError(
                f"kit '{kit}' comes from this workspace ({base.grade}, above read-only) and the workspace is not trusted; "
                f"if you trust it, run: lackpy trust {self.workspace}"
            ) from None

    def _kit_stamp(self, kit: KitSpec) -> tuple:
        """What a resolved kit depends on: the toolbox's version and, for a named kit, the workspace's file.

        A workspace kit file shadows the package's of the same name; the
        package's own files do not change while lackpy runs.
        """
        version = self.toolbox.version
        if isinstance(kit, str) and self._own_kits and KIT_NAME.match(kit):
            try:
                info = os.stat(f"{self.kits_dir}/{kit}.kit")
            except OSError:
                return (version, None)
            return (version, info.st_mtime_ns, info.st_size, info.st_ino)
        return (version,)

    def kit_list(self) -> list[dict]:
        """Every kit: where it comes from, whether it shadows the package's, and whether it is ignored."""
        self._follow_trust()
        package = list_kit_files(None)
        kits = []
        for name, (source, path) in sorted(list_kit_files(self.kits_dir).items()):
            row = {"name": name, "description": "", "tools": [], "source": source, "path": str(path)}
            row["shadows"] = str(package[name][1]) if source == "workspace" and name in package else None
            row["ignored"] = None
            try:
                kit_file = read_kit(path)
                row.update(description=kit_file.description, tools=kit_file.tools)
                grade = None if self.trusted else self._above_read_only(name, source, self.toolbox)
                if grade is not None:
                    row["ignored"] = f"above read-only ({grade}) in an untrusted workspace"
            except LackpyError as exc:
                row["error"] = str(exc)
            kits.append(row)
        return kits

    def kit_info(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        resolved = self.resolve_kit(kit, extra_tools)
        return {
            "name": resolved.name,
            "description": resolved.description,
            "source": resolved.source,
            "path": str(resolved.path) if resolved.path else None,
            "grade": resolved.grade.to_dict(),
            "tools": [
                {
                    "name": alias,
                    "tool": spec.name,
                    "signature": spec.signature(alias),
                    "description": spec.description,
                    "provider": spec.provider,
                    "grade": {"w": spec.grade_w, "d": spec.effects_ceiling},
                    "category": spec.category,
                    "approval": str(self.config.approvals.for_call(spec)),
                    "docs": spec.docs,
                }
                for alias, spec in resolved.tools.items()
            ],
            "docs": list(resolved.docs),
            "extra": dict(resolved.extra),
        }

    def kit_create(self, name: str, tools: Sequence[str], description: str = "", force: bool = False) -> Path:
        """Write ``.lackpy/kits/NAME.kit`` in the workspace; refuses to overwrite unless ``force``."""
        if not isinstance(name, str) or not KIT_NAME.match(name) or name == "none":
            raise KitError(f"kit name {name!r} is not valid; use letters, digits, '-', '_' and '.'")
        tools = list(tools)
        if not tools:
            raise KitError("a kit needs at least one tool; pass --tools a,b")
        for tool in tools:
            if tool not in self.toolbox:
                self.toolbox.get(tool)  # raises UnknownToolError naming the closest tools
        resolve_kit(tools, self.toolbox)  # duplicates and bad names
        path = self.kits_dir / f"{name}.kit"
        meta = {"name": name}
        if description:
            meta["description"] = description
        text = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + "\n".join(tools) + "\n"
        with self._keeping_trust():
            kits = open_state(self.workspace, "kits", KitError, create=True)  # never through a link out of the workspace
            try:
                if not force and exists(kits, path.name):
                    raise KitError(f"kit '{name}' already exists at {path}; pass --force to overwrite it")
                write_own(kits, path.name, text.encode("utf-8"))  # replaces whatever was there (a FIFO, a link), never opens it
            finally:
                os.close(kits)
        return path

    @contextmanager
    def _keeping_trust(self) -> Iterator[None]:
        """A workspace the user trusted stays trusted when lackpy itself writes its kits and templates.

        A change someone else made before this write is judged first, as at
        any request; then the record (or, with ``trust=True``, the hash this
        service pinned) moves along with lackpy's own write.
        """
        self._follow_trust()
        recorded = self._trust is None and is_trusted(self.workspace)
        yield
        if recorded:
            trust_store.trust(self.workspace)
        with self._load_lock:
            if self._stamp is not None and (recorded or self._trust is True):
                self._stamp = self._stamp.again()
                self._pinned_hash = self._stamp.hash

    def tool_schemas(self, format: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> list[dict]:
        """A kit's tools (default: every tool) in the ``openai``, ``anthropic`` or ``mcp`` shape, named as programs call them."""
        if format not in SCHEMA_FORMATS:
            raise ParamError(f"unknown schema format {format!r}; use one of: {', '.join(SCHEMA_FORMATS)}")
        if kit is None and not extra_tools:
            pairs = [(spec.name, spec) for spec in self.toolbox.list_tools()]
        else:
            pairs = list(self.resolve_kit(kit if kit is not None else "none", extra_tools).tools.items())
        exported = []
        for alias, spec in pairs:
            named = spec if alias == spec.name else dataclasses.replace(spec, name=alias)
            exported.append(getattr(named, f"to_{format}")())
        return exported

    def toolbox_list(self) -> list[dict]:
        self._follow_trust()
        return [
            {
                "name": spec.name,
                "signature": spec.signature(),
                "description": spec.description,
                "provider": spec.provider,
                "grade": {"w": spec.grade_w, "d": spec.effects_ceiling},
                "category": spec.category,
                "approval": str(self.config.approvals.for_call(spec)),
                "docs": spec.docs,
            }
            for spec in self.toolbox.list_tools()
        ]

    # -- docs and language ---------------------------------------------------

    def docs_index(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        self._follow_trust()
        return docs_index(self.toolbox, kit, extra_tools)

    def resolve_doc(self, path: str) -> str:
        """Read a doc by path, or by tool name when a tool of that name has docs.

        A doc in the workspace is a file read like any other: the ``[tools]
        deny`` patterns refuse it, as they would refuse ``read_file``.
        """
        if isinstance(path, str) and path in self.toolbox and self.toolbox.get(path).docs:
            path = self.toolbox.get(path).docs
        return resolve_doc(path, self.workspace, self.toolbox.context.settings.get("deny") or ())

    def language_spec(self) -> dict:
        return language_spec()

    # -- programs -------------------------------------------------------------

    def checks(self, extra: Sequence[Check] | None = None) -> tuple[Check, ...]:
        """The configured custom checks (imported once), then ``extra``."""
        if self._config_checks is None:
            self._config_checks = self.config.load_checks()
        return tuple(self._config_checks) + tuple(extra or ())

    def validate(
        self,
        program: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | Iterable[str] | None = None,
        extra_tools: Iterable[str] | None = None,
        checks: Sequence[Check] | None = None,
    ) -> ValidationResult:
        """Check ``program`` against ``kit`` without running it (results are cached by text and kit)."""
        resolved = self.resolve_kit(kit, extra_tools)
        names = tuple(sorted(params or ()))
        check_params(dict.fromkeys(names), resolved.names)
        result = prepare(program, resolved.names, names, self.checks(checks)).validation
        own = resolved.grade_of(result.calls) if result.valid else None
        return dataclasses.replace(result, notices=list(self.notices), grade=own, risk=own.risk if own is not None else None)

    async def run_program(
        self,
        program: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | None = None,
        extra_tools: Iterable[str] | None = None,
        checks: Sequence[Check] | None = None,
        *,
        mode: str | None = None,
        limits: Mapping[str, Any] | Limits | None = None,
        dry_run: bool = False,
        session: Session | None = None,
        keep: bool = False,
        on_event: OnEvent | None = None,
        ceiling: CeilingSpec = None,
        approve: ApproveSpec = None,
        approval: str | None = None,
    ) -> ExecutionResult:
        """Validate and run ``program``.

        ``mode`` is ``"isolated"`` (the default: a worker process; the event
        loop stays free) or ``"inprocess"`` (on the calling thread: fastest,
        for trusted programs); ``limits`` add to the config's and the kit's;
        ``dry_run`` returns the diff of the writes instead of applying them.
        ``session`` (from ``open_session``) gives the tools that session's
        checklist and processes, and the program the variables it kept; with
        ``keep``, a run that succeeds leaves its plain-data variables there
        for the next (listed in ``kept``). ``on_event`` hears
        ``{"event": "tool", "tool", "calls"}`` as tool calls return, at most
        every ``PROGRESS_S``, and what tools report while they work
        (``{"event": "progress", "tool", "progress", "total", "message"}``).
        A program whose own grade (of the tools it calls) is above
        ``ceiling`` (a kit name, a Grade or (w, d); default the config's
        ``ceiling``, else none) is refused before it runs: ``denied``.
        ``approve`` answers what the approval gates ask (``lackpy.approvals.gatekeeper``:
        the program up front when configured, commands, processes, web
        requests and destructive remote tools before each call, staged writes
        before they are applied): an async callback given an
        ``ApprovalRequest`` and returning True, False or a ``Decision``;
        True approves everything; None (and no service-wide ``approve``)
        means nobody can be asked, so a blocking gate denies. ``approval``
        (a mode: block, auto, notify, none) replaces every gate's mode.
        """
        if keep and session is None:
            raise ParamError("keep needs a session to keep the variables in; open one with open_session() and pass it")
        configured = mode or (self._config.mode if self._config is not None else None)  # settled again after resolve_kit judged trust
        approve = approve if approve is not None else self.approve
        on_loop = configured == "inprocess" and self._toolbox is not None and self._config_checks is not None and not asks_on_loop(approve)
        events = _on_loop(on_event)
        asking = (approve, approval, asyncio.get_running_loop())

        def settle() -> tuple[RunSettings, ExecutionResult | None]:
            """The run's settings, and its result already when the program is invalid (answered at once, never queued for a run thread)."""
            resolved = self.resolve_kit(kit, extra_tools)
            inputs = session.inputs(params, resolved.names) if session is not None else params
            settings = self._settings(
                resolved, inputs, checks, mode=mode, limits=limits, dry_run=dry_run, session=session, on_event=events, ceiling=ceiling, asking=asking
            )
            if settings.mode == "inprocess":
                return settings, None
            # The run's own check of the program is then a lookup in prepare's cache (by text, names, params and checks).
            valid = prepared_for(program, resolved, inputs, settings.checks).code is not None
            return settings, None if valid else run_with(program, settings)

        settings, result = settle() if on_loop else await self._off_loop(settle)
        if result is None:
            result = await self._scheduled(program, settings, approve)
        return _in_session(result, session, keep)

    def open_session(self, pinned: bool = False) -> Session:
        """A new session: its own checklist, processes and kept variables, closed with the service.

        Unless ``pinned``, it expires after ``IDLE_S`` unused (its processes stopped).
        """
        return self.sessions.open(pinned)

    async def _scheduled(self, program: str, settings: RunSettings, approve: ApproveSpec) -> ExecutionResult:
        """Run a valid program where its mode says; the three ways a call of ``run_program`` is scheduled:

        1. an invalid program is answered at once, by ``settle`` in ``run_program``, never queued;
        2. an ``inprocess`` run whose approver does not answer on this loop runs on the loop itself (nothing here waits for it);
        3. every other run (``isolated``, or an approver that answers on this loop, which must stay free) goes to a run
           thread in its turn (``_cancellable``): cancelling the awaiting task cancels the run.
        """
        if settings.mode == "inprocess" and not asks_on_loop(approve):
            return run_with(program, settings)
        return await self._cancellable(lambda cancel: run_with(program, settings, cancel))

    def _settings(
        self,
        resolved: ResolvedKit,
        params: Mapping[str, Any] | None,
        checks: Sequence[Check] | None,
        *,
        mode: str | None,
        limits: Mapping[str, Any] | Limits | None,
        dry_run: bool,
        session: Session | None = None,
        on_event: OnEvent | None = None,
        ceiling: CeilingSpec = None,
        asking: tuple[ApproveSpec, str | None, asyncio.AbstractEventLoop | None] = (None, None, None),
    ) -> RunSettings:
        """The settings of a call's runs (``run_with(program, settings, cancel)``): kit, params, checks, limits, mode, session,
        ceiling, and who answers approvals (``asking``: approve, a mode for every gate, the caller's loop)."""
        return RunSettings(
            kit=resolved,
            params=params,
            checks=self.checks(checks),
            limits=limits,
            mode=mode or self.config.mode,
            dry_run=dry_run,
            sandbox=self.config.sandbox,
            notices=self.notices,
            state=session.state if session is not None else None,
            on_call=_tool_events(on_event),
            on_progress=on_event,
            ceiling=self._run_ceiling(ceiling),
            guardrails=self._guardrail_hooks(),
            gatekeeper=self._gatekeeper(resolved, *asking),
        )

    def _gatekeeper(self, kit: ResolvedKit, approve: ApproveSpec, approval: str | None, loop: asyncio.AbstractEventLoop | None) -> Gatekeeper:
        """The approval gates of a call: the config's policy, the kit's ``approvals``, every gate ``approval`` when given;
        answered by ``approve``. Built once per kit, answerer, mode and loop (a run takes its own copy, ``fresh``)."""
        approve = approve if approve is not None else self.approve
        try:
            key = (id(kit), approve, approval, loop)
            kept = self._gatekeepers.get(key)
        except TypeError:  # an answerer that cannot be a key: built each time
            key, kept = None, None
        if kept is not None and kept[0] is kit:
            return kept[1]
        gatekeeper = self._new_gatekeeper(kit, approve, approval, loop)
        if key is not None:
            if len(self._gatekeepers) >= MOST_GATEKEEPERS:
                self._gatekeepers.clear()
            self._gatekeepers[key] = (kit, gatekeeper)  # the kit is kept too, so its id is never another kit's
        return gatekeeper

    def _new_gatekeeper(self, kit: ResolvedKit, approve: ApproveSpec, approval: str | None, loop: asyncio.AbstractEventLoop | None) -> Gatekeeper:
        policy = self.config.approvals
        if kit.extra.get("approvals") is not None:
            names = {alias: spec.name for alias, spec in kit.tools.items()}
            own = self.trusted or kit.source != "workspace"  # a kit an untrusted workspace wrote may only ask more
            try:
                policy = with_kit(policy, kit.extra["approvals"], names, f"kit '{kit.name}'", only_more=not own)
            except ConfigError as exc:
                raise KitError(str(exc)) from None
        if approval is not None:
            try:
                policy = dataclasses.replace(policy, every=Ask.parse(approval, "approval"))
            except ConfigError as exc:
                raise ParamError(str(exc)) from None
        approver, nobody = approver_for(approve, loop)
        if self.config.audit and self._audit is None:
            self._audit = Audit(self.workspace, self.notices)
        return Gatekeeper(policy, approver, nobody=nobody, record=self._audit if self.config.audit else None, workspace=str(self.workspace))

    def add_guardrail(self, plugin: Any) -> None:
        """Put every tool call of this service's programs through ``plugin``'s ``before_tool_call`` / ``after_tool_call``."""
        self._guardrail_manager().register(plugin)

    def _guardrail_manager(self) -> Any:
        """The guardrails of this service: the config's ``[guardrails]``, the plugins that implement the hooks, and ``add_guardrail``'s."""
        if self._guardrails is None:
            import pluggy

            from lackpy import hookspecs
            from lackpy.plugins import get_plugin_manager
            from lackpy.run.guardrails import AllowHosts, RedactKeys

            manager = pluggy.PluginManager("lackpy")
            manager.add_hookspecs(hookspecs)
            for plugin in get_plugin_manager().get_plugins():
                if any(hasattr(plugin, hook) for hook in ("before_tool_call", "after_tool_call")):
                    manager.register(plugin)
            settings = self.config.guardrails
            if settings.get("redact_keys"):
                manager.register(RedactKeys())
            if settings.get("allow_hosts") is not None:
                manager.register(AllowHosts(settings["allow_hosts"]))
            self._guardrails = manager
        return self._guardrails

    def _guardrail_hooks(self) -> tuple[Any, Any] | None:
        """The (before, after) hook callers, or None when no guardrail is registered (calls go straight through)."""
        hook = self._guardrail_manager().hook
        if not hook.before_tool_call.get_hookimpls() and not hook.after_tool_call.get_hookimpls():
            return None
        return hook.before_tool_call, hook.after_tool_call

    def ceiling_grade(self, ceiling: CeilingSpec = None) -> Grade | None:
        """The grade ``ceiling`` (else the config's ``ceiling``) stands for, resolved now; None when there is none."""
        return self._run_ceiling(ceiling)

    def _run_ceiling(self, ceiling: CeilingSpec) -> Grade | None:
        """The grade a program may reach: ``ceiling``, else the config's ``ceiling``, else no ceiling."""
        given = ceiling if ceiling is not None else self.config.ceiling
        return None if given is None else self._ceiling(given)

    def _run_threads(self) -> ThreadPoolExecutor:
        """The threads runs go on: ``max_concurrent_runs`` at once, the rest wait their turn (``lackpy.run.slots``).

        A run that waits for a person gives its slot back meanwhile, so there
        are threads for those too. A run's time starts when it starts, so
        waiting never counts against its timeout.
        """
        size = self.config.max_concurrent_runs
        with self._runs_lock:
            if self._runs is None:
                self._slots = Slots(size)
                self._runs = ThreadPoolExecutor(self._slots.threads, thread_name_prefix="lackpy-run")
            return self._runs

    async def _cancellable(self, work: Callable[[Cancel], T]) -> T:
        """``work(cancel)`` on a run thread; cancelling the awaiting task cancels the run."""
        cancel = Cancel()
        threads = self._run_threads() if self._toolbox is not None else await self._off_loop(self._run_threads)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(threads, contextvars.copy_context().run, self._slots.run, work, cancel)
        future.add_done_callback(_retrieved)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            cancel.cancel()
            deadline = loop.time() + CANCEL_GRACE_S
            while not future.done() and loop.time() < deadline:
                try:
                    await asyncio.wait({future}, timeout=deadline - loop.time())
                except asyncio.CancelledError:
                    continue  # cancelled again (cancel scopes repeat it): the grace is still waited out
            raise

    # -- delegate: intents to programs -------------------------------------------

    def tiers(self) -> list[Tier]:
        """The configured inference tiers, in order (built once per service)."""
        if self._tiers is None:
            self._tiers = build_tiers(self.config.inference, self.workspace)
        return self._tiers

    def _sampling_tier(self, config: Config, name: str) -> Tier:
        """The model tier ``name`` of ``config``'s ``[inference]``, for a server whose ``sampling`` names it (ConfigError if none).

        Built for that server on the remotes' loop from the config the remotes came from, so it never waits for the service's load lock.
        """
        from lackpy.remote.sampling import tier_named

        return tier_named(name, list(zip(config.inference.order, build_tiers(config.inference, self.workspace))))

    def tier_list(self) -> list[dict]:
        """Each configured tier: whether it can serve now, and why not."""
        self._follow_trust()
        listing = []
        for tier in self.tiers():
            availability = tier.available()
            listing.append(
                {"name": tier.name, "model": tier.model, "available": availability.ok, "reason": availability.reason, "description": tier.describe()}
            )
        return listing

    def plan_kit(self, intent: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None, ceiling: CeilingSpec = None) -> tuple[ResolvedKit, dict]:
        """The kit for an intent: the one named, or tools chosen from the intent under ``ceiling``."""
        self._follow_trust()
        if kit is not None:
            resolved = self.resolve_kit(kit, extra_tools)
            return resolved, {"name": resolved.name, "tools": sorted(resolved.tools), "chosen": False}
        limit = self._ceiling(ceiling)
        needs = [self.resolve_kit(need).aliases().values() for need in self._needs(intent)]
        tools = choose_tools(intent, self.toolbox.list_tools(), limit, [list(n) for n in needs])
        if not tools:
            stronger = choose_tools(intent, self.toolbox.list_tools(), Grade(3, 3))
            if stronger:
                raise KitError(
                    f"{intent!r} needs {', '.join(stronger)}, above the ceiling ({limit}); "
                    f"name a kit with --kit, or raise the ceiling with --ceiling KIT"
                )
            default = self.resolve_kit(None)
            tools = [alias for alias, spec in default.tools.items() if within(spec, limit)]
        resolved = self.resolve_kit(tools, extra_tools)
        return resolved, {"name": None, "tools": sorted(resolved.tools), "chosen": True, "ceiling": limit.to_dict()}

    def _needs(self, intent: str) -> list[KitSpec]:
        """Kits the deterministic tiers already know would serve ``intent``."""
        found = []
        for tier in self.tiers():
            need = tier.needs(intent)
            if need:
                found.append(need)
        return found

    def _ceiling(self, ceiling: CeilingSpec) -> Grade:
        if ceiling is None:
            return self.read_only_grade
        grade = Grade.parse(ceiling)
        return grade if grade is not None else self.resolve_kit(ceiling).grade

    def _dispatcher(self, on_event: OnEvent | None, checks: Sequence[Check] | None = None) -> Dispatcher:
        return Dispatcher(self.tiers(), self.config.inference, checks=self.checks(checks), read_doc=self.resolve_doc, on_event=on_event)

    async def generate(
        self,
        intent: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | None = None,
        extra_tools: Iterable[str] | None = None,
        *,
        ceiling: CeilingSpec = None,
        on_event: OnEvent | None = None,
    ) -> GenerationResult:
        """A validated program for ``intent``, not run. Raises GenerationError when no tier can write one."""
        events = _on_loop(on_event)

        def work() -> GenerationResult:
            request, kit_info = self._request(intent, kit, params, extra_tools, ceiling)
            outcome = self._dispatcher(events).dispatch(request)
            return GenerationResult(**self._described(request, kit_info, outcome))

        return await self._off_loop(work)

    async def delegate(
        self,
        intent: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | None = None,
        extra_tools: Iterable[str] | None = None,
        *,
        dry_run: bool = False,
        mode: str | None = None,
        limits: Mapping[str, Any] | Limits | None = None,
        ceiling: CeilingSpec = None,
        on_event: OnEvent | None = None,
        session: Session | None = None,
        approve: ApproveSpec = None,
        approval: str | None = None,
    ) -> DelegateResult:
        """Write a program for ``intent`` (templates, rules, then model tiers), validate, repair and run it.

        With no ``kit``, tools are chosen from the intent, never above the
        read-only grade unless ``ceiling`` (a kit name, a Grade or (w, d))
        raises it. ``session`` gives the program that session's checklist
        and processes. Raises GenerationError, with the attempt log, when no
        tier can write a valid program. ``approve`` and ``approval`` are
        ``run_program``'s: a person approves what the written program does.
        """
        events = _on_loop(on_event)
        asking = (approve, approval, asyncio.get_running_loop())

        def work(cancel: Cancel) -> DelegateResult:
            request, kit_info = self._request(intent, kit, params, extra_tools, ceiling)
            settings = self._settings(
                request.kit, request.params, None, mode=mode, limits=limits, dry_run=dry_run, session=session, on_event=events, ceiling=ceiling, asking=asking
            )
            outcome = self._dispatcher(events).dispatch(request, lambda program: _in_session(run_with(program, settings, cancel), session, False))
            execution = outcome.execution
            return DelegateResult(
                **self._described(request, kit_info, outcome),
                success=execution is not None and execution.success,
                execution=execution,
                execution_ms=outcome.execution_ms,
            )

        return await self._cancellable(work)

    def _request(self, intent: str, kit: KitSpec, params: Mapping[str, Any] | None, extra_tools: Iterable[str] | None, ceiling: CeilingSpec) -> tuple[Request, dict]:
        if not isinstance(intent, str) or not intent.strip():
            raise ParamError("give an intent, e.g. lackpy delegate \"count TODOs in python files\"")
        resolved, kit_info = self.plan_kit(intent, kit, extra_tools, ceiling)
        params = dict(params or {})
        check_params(params, resolved.names)
        ceiling = None if self.trusted else self.read_only_grade
        return Request(intent.strip(), resolved, params, self.workspace, program_ceiling=ceiling), kit_info

    def _described(self, request: Request, kit_info: dict, outcome: Outcome) -> dict:
        return {
            "intent": request.intent,
            "program": outcome.program,
            "provider": outcome.provider,
            "detail": outcome.detail,
            "grade": request.kit.grade,
            "kit": kit_info,
            "attempts": outcome.attempts,
            "generation_ms": outcome.generation_ms,
            "notices": list(self.notices),
        }

    # -- templates: the ratchet ------------------------------------------------

    def template_save(
        self,
        name: str,
        pattern: str,
        program: str,
        kit: KitSpec = None,
        *,
        intent: str | None = None,
        force: bool = False,
    ) -> Path:
        """Validate ``program`` against ``kit`` and save it as a template served for ``pattern``.

        With ``intent``, the values the pattern captures from it are turned
        back into placeholders in the program, so the template generalizes.
        """
        from lackpy.infer.templates import Template, save_template

        values = None
        if intent is not None:
            values = Template(name=name, pattern=pattern, body="").match(intent)
            if values is None:
                raise ParamError(f"the pattern {pattern!r} does not match the intent {intent!r}; write a pattern that does")
        resolved = self.resolve_kit(kit)
        result = prepare(program, resolved.names, (), self.checks()).validation
        if not result.valid:
            raise ParamError(f"the program is not valid for kit {resolved.name or sorted(resolved.tools)}: {result.errors[0]}")
        kit_value = kit if isinstance(kit, str) else sorted(resolved.aliases().values()) if kit is not None else resolved.name
        with self._keeping_trust():
            return save_template(self.workspace, name, pattern, program, kit_value, values=values, force=force)

    def template_list(self) -> list[dict]:
        from lackpy.infer.templates import list_templates

        return list_templates(self.workspace)

def result_schema(name: str) -> dict:
    """The JSON Schema of a --json document: ``result``, ``delegate``, ``generate``, ``validate`` or ``error``."""
    from lackpy.report import ErrorReport

    types = {"result": ExecutionResult, "delegate": DelegateResult, "generate": GenerationResult, "validate": ValidationResult, "error": ErrorReport}
    if name not in types:
        raise ParamError(f"unknown schema {name!r}; use one of: {', '.join(types)}")
    return types[name].json_schema()


def _kit_key(kit: KitSpec, extra_tools: Iterable[str] | None) -> Any:
    """A hashable key for a kit form, or None when it has none."""
    try:
        extra = tuple(extra_tools or ())
        if isinstance(kit, str):
            return ("s", kit, extra)
        if isinstance(kit, Mapping):
            return ("m", tuple((k, v if isinstance(v, str) else tuple(sorted(v.items()))) for k, v in kit.items()), extra)
        return ("l", tuple(kit), extra)
    except TypeError:
        return None


def _retrieved(future: asyncio.Future) -> None:
    """Retrieve a run's outcome, so a cancelled run that nobody awaits is not reported as lost."""
    if not future.cancelled():
        future.exception()


def _in_session(result: ExecutionResult, session: Session | None, keep: bool) -> ExecutionResult:
    """``result`` naming its session and the variables the session keeps (updated from a successful ``keep`` run)."""
    if session is None:
        return result
    not_kept = session.keep(result.variables) if keep and result.success else {}
    return dataclasses.replace(result, session=session.id, kept=sorted(session.variables), not_kept=not_kept)


def _tool_events(on_event: OnEvent | None) -> Callable[[str, int], None] | None:
    """A run's ``on_call`` sending ``on_event`` a tool event for the first call and then at most every PROGRESS_S."""
    if on_event is None:
        return None
    last = [0.0]

    def on_call(tool: str, calls: int) -> None:
        now = time.monotonic()
        if calls == 1 or now - last[0] >= PROGRESS_S:
            last[0] = now
            on_event({"event": "tool", "tool": tool, "calls": calls})

    return on_call


def _on_loop(on_event: OnEvent | None) -> OnEvent | None:
    """``on_event`` called on the caller's event loop, whichever thread the event comes from."""
    if on_event is None:
        return None
    loop = asyncio.get_running_loop()
    return lambda event: loop.call_soon_threadsafe(on_event, event)


__all__ = ["LackpyService", "result_schema"]
