"""LackpyService: the one entry point; the CLI and servers are thin adapters over it.

The service is a facade: each job lives in the module that owns its idea,
and the methods here put them together for one workspace. Loading and
trust: ``lackpy.trust`` (``WorkspaceTrust``, what an untrusted workspace
withholds), ``lackpy.config``, ``lackpy.remote.attach``. Kits:
``lackpy.kit`` (``KitCache``). Runs: ``lackpy.run`` (``RunSettings``, the
``Scheduler``, ``Guardrails``) and ``lackpy.approvals`` (``Gatekeepers``).
Writing programs: ``lackpy.infer``.

The service is async at its edge: nothing that blocks (reading the config,
kit and template files, building tiers, probing models, running a program in
its worker) runs on the caller's event loop, except an ``inprocess`` run,
which by its definition runs on the calling thread (``lackpy.run.scheduler``
has the rules). Cancelling the task that awaits ``run_program`` or
``delegate`` stops the program (the worker is killed, staged writes are
discarded). ``async with LackpyService(...)`` (or ``aclose()``) stops the
background processes its programs started.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence


from lackpy.approvals.approver import ApproveSpec, asks_on_loop
from lackpy.approvals.gatekeeper import Gatekeeper, Gatekeepers
from lackpy.config import Config, add_server
from lackpy.errors import ConfigError, ErrorKind, KitError, LackpyError, ParamError, WorkspaceError
from lackpy.host import journal
from lackpy.infer.base import Request, Tier
from lackpy.infer.dispatch import Dispatcher
from lackpy.infer.result import DelegateResult, GenerationResult, described
from lackpy.infer.select import tools_for
from lackpy.infer.tiers import build_tiers, tier_rows
from lackpy.kit.docs import docs_index, find_doc, read_doc
from lackpy.kit.kitfile import write_kit
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.resultkeys import WithWarnings, declared_checks, learned_warnings
from lackpy.kit.spec import ToolSpec
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Check
from lackpy.plugins import get_plugin_manager, skill_dirs
from lackpy.run.cancel import Cancel, Cancelled
from lackpy.run.compiler import prepare
from lackpy.run.guardrails import Guardrails
from lackpy.run.limits import Limits
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import check_params, prepared_for, run_with
from lackpy.run.scheduler import Scheduler, off_loop, on_loop, tool_events
from lackpy.run.settings import OnEvent, RunSettings
from lackpy.run.slots import Slots
from lackpy.session import Session, Sessions
from lackpy.skills import remote as served
from lackpy.skills.catalog import SKILL_FILE_TOOL, Catalog, Needs, judge, skill_grade
from lackpy.skills.remote import RemoteSkill, split_name
from lackpy.skills.skill import Skill
from lackpy.skills.sources import find_skills
from lackpy.skills.tier import SkillTier
from lackpy.workspace import Workspace

#: Formats ``tool_schemas`` exports.
SCHEMA_FORMATS = ("openai", "anthropic", "mcp")
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
        authorize: Any = None,
    ) -> None:
        """``trust``: None asks the trust record (``lackpy trust``); True trusts the workspace for
        this service only (what ``lackpy serve --trust`` does); False never trusts it.
        ``approve`` answers approvals for calls that pass none (see ``run_program``).
        ``authorize`` (an async callable: the authorization URL in, the URL the person was sent back to out) asks a
        person to authorize lackpy at an MCP server that wants OAuth; without it such a server needs ``lackpy mcp login``."""
        root = Path(workspace) if workspace is not None else Path.cwd()
        if not root.is_dir():
            raise WorkspaceError(f"workspace does not exist or is not a directory: {root}")
        self.workspace = root.resolve()
        self.notices: list[str] = []
        self.approve = approve
        #: The sessions of this service's clients (``open_session``); closing the service closes them.
        self.sessions = Sessions()
        #: The config, toolbox and MCP servers as trust allows (``lackpy.workspace``), loaded on first use.
        self._workspace = Workspace(self.workspace, config, trust, self.notices, self._forget, authorize)
        self.kits_dir = self._workspace.kits_dir
        self._config_checks: list[Check] | None = None
        self._tiers: list[Tier] | None = None
        self._gatekeepers = Gatekeepers(str(self.workspace), self.notices)
        self._scheduler = Scheduler(lambda: self.config.max_concurrent_runs)
        #: Every tool call of this service's programs passes its guardrails (``add_guardrail``).
        self.guardrails = Guardrails(lambda: self.config.guardrails, lambda: get_plugin_manager().get_plugins())

    # -- what is loaded on first use (off the event loop in async calls) -------------

    def load(self) -> "LackpyService":
        """Read the config, check trust and build the toolbox now (else on first use); returns the service."""
        self._workspace.load()
        return self

    @property
    def loaded(self) -> bool:
        """Whether the workspace is loaded now: resolving a kit is then a cache lookup (one ``stat`` per kit and trust file)."""
        return self._workspace.loaded is not None

    @property
    def config(self) -> Config:
        """The workspace's settings, read on first use."""
        return self._workspace.load().config

    @property
    def toolbox(self) -> Toolbox:
        """Every tool of this service (the plugins' and the ones registered on it), loaded on first use."""
        return self._workspace.load().toolbox

    @property
    def trusted(self) -> bool:
        """Whether this workspace's .lackpy/ may raise privileges (``lackpy trust``, or ``trust=True``)."""
        return self._workspace.load().trusted

    @property
    def read_only_grade(self) -> Grade:
        """The default ceiling: the grade of the package's read-only kit (never a workspace's)."""
        return self._workspace.load().read_only

    @property
    def recovery(self) -> journal.Report | None:
        """What the load found of a commit an earlier process left unfinished here, and did, if anything."""
        return self._workspace.recovery

    def _forget(self) -> None:
        """What was built on a loading that trust was lost from is built again on the next (called under the load lock)."""
        self._config_checks = self._tiers = None
        self._gatekeepers.clear()

    def doctor(self, action: str = "auto") -> journal.Report:
        """Find and resolve a commit an interrupted lackpy left unfinished here (``lackpy doctor``).

        ``auto`` completes it (or finishes its undo) unless a file it names was
        changed by someone else; ``rollback`` puts back what it had written;
        ``discard`` drops the journal and writes nothing (the only way out for
        a record this user's lackpy did not sign). Waits for a commit another
        process is making here. The report says what was found and done.
        """
        return journal.recover(self.workspace, action, wait=journal.LOCK_WAIT_S)

    # -- other MCP servers -------------------------------------------------------------

    def mcp_add(self, name: str, table: Mapping[str, Any]) -> Path:
        """Add ``[mcp.servers.NAME]`` with ``table`` to the workspace's config; the config's path.

        Raises ConfigError when the table is not a valid server, ParamError when NAME is configured already.
        """
        with self._workspace.keeping():
            return add_server(self.workspace, name, dict(table))

    def remote_status(self) -> list[dict]:
        """Each configured MCP server: where it is, connected or why not, and its tools.

        An untrusted workspace's own servers are listed too, as ``ignored``
        with what starts them, so a server just added is never reported as
        missing.
        """
        self._workspace.follow()
        self.toolbox.list_tools()  # every server started, so the status is what it is
        remotes = self._workspace.load().remotes
        rows = remotes.status() if remotes is not None else [server.row("not connected") for server in self.config.mcp]
        why = f"this workspace is not trusted, so its servers do not start; lackpy trust {self.workspace} starts them"
        return rows + [server.row("ignored", why) for server in self.config.ignored_servers]

    def mcp_login(self, name: str, authorize: Any, within: float = 300.0) -> dict | None:
        """Authorize lackpy at MCP server ``name`` through ``authorize`` (a person, within ``within`` seconds); who it knows you as.

        None when the server asked for no authorization. Raises ConfigError for a
        server not configured or without ``oauth``, AuthError when the login failed.
        """
        return self._remotes_for(name).login(name, authorize, within)

    def mcp_logout(self, name: str) -> bool:
        """Forget MCP server ``name``'s tokens and registration; whether there were any."""
        return self._remotes_for(name).logout(name)

    def mcp_shapes(self, name: str | None = None, clear: bool = False) -> list[dict]:
        """The result shapes lackpy learned from the configured MCP servers' tools (or server ``name``'s); ``clear`` forgets them first.

        Starts no server: the shapes are read from the person's cache (``lackpy.remote.shapes``).
        ConfigError names the configured servers when ``name`` is not one of them.
        """
        self._workspace.follow()
        remotes = self._workspace.load().remotes
        if remotes is None:
            from lackpy.remote.shapes import shape_rows

            return shape_rows([*self.config.mcp, *self.config.ignored_servers], self.workspace, name, clear)  # nothing starts: an untrusted workspace's are shown too
        return remotes.shape_rows(name, clear)

    def _remotes_for(self, name: str) -> Any:
        self._workspace.follow()
        remotes = self._workspace.load().remotes
        if remotes is None or name not in remotes.servers:
            if any(server.name == name for server in self.config.ignored_servers):
                raise WorkspaceError(f"this workspace is not trusted, so its MCP server {name} does not start; lackpy trust {self.workspace} first")
            raise ConfigError(f"no MCP server named {name} is configured; lackpy mcp list shows them")
        return remotes

    # -- closing ---------------------------------------------------------------------

    def close(self) -> None:
        """Stop the background processes this service's programs started (every session's), and its run threads."""
        self._scheduler.close()
        self.sessions.close_all()
        self._workspace.close()

    async def aclose(self) -> None:
        """``close()`` off the event loop."""
        await off_loop(self.close)

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

        Resolved kits are kept while the toolbox and the kit file stay as they
        were. A ``ResolvedKit`` is used as it is (a server resolves and checks
        a kit once per request). An untrusted workspace's own kit file counts
        only up to the read-only grade.
        """
        if isinstance(kit, ResolvedKit) and not extra_tools:
            return kit
        self._workspace.follow()
        return self._workspace.resolve(kit if kit is not None else self.config.default_kit, extra_tools)

    def kit_list(self) -> list[dict]:
        """Every kit: where it comes from, whether it shadows the package's, and whether it is ignored."""
        self._workspace.follow()
        return self._workspace.kit_rows()

    def kit_info(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        """A kit as ``lackpy kit info`` shows it: where it comes from, its grade, and each tool by the name programs call."""
        try:
            resolved = self.resolve_kit(kit, extra_tools)
        except LackpyError:
            # A kit an untrusted workspace wrote that is not in force: shown (as data only, nothing of it loaded) so a
            # person can read it before trusting the workspace.
            ignored = self._workspace.ignored_kit(kit, self._approval) if not extra_tools else None
            if ignored is None:
                raise
            return ignored
        info = resolved.info(self._approval)
        shadowed = self._workspace.untrusted_kit_file(kit) if resolved.source != "workspace" and not extra_tools else None
        if shadowed is not None:  # the package's kit of that name is in force; the workspace's file of that name is not
            info["ignored"] = f"{shadowed}, this workspace's kit '{kit}', is not in force until you trust this workspace: lackpy trust {self.workspace}"
        return info

    def toolbox_list(self) -> list[dict]:
        """Every tool of the toolbox, as ``lackpy tools`` shows it."""
        self._workspace.follow()
        return [spec.row(self._approval(spec)) for spec in self.toolbox.list_tools()]

    def _approval(self, spec: ToolSpec) -> str:
        """How a call of ``spec`` is asked about (the config's policy)."""
        return str(self.config.approvals.for_call(spec))

    def kit_create(self, name: str, tools: Sequence[str], description: str = "", force: bool = False) -> Path:
        """Write ``.lackpy/kits/NAME.kit`` in the workspace; refuses to overwrite unless ``force``."""
        tools = list(tools)
        if not tools:
            raise KitError("a kit needs at least one tool; pass --tools a,b")
        for tool in tools:
            if tool not in self.toolbox:
                self.toolbox.get(tool)  # raises UnknownToolError naming the closest tools
        resolve_kit(tools, self.toolbox)  # duplicates and bad names
        with self._workspace.keeping():
            return write_kit(self.workspace, name, tools, description, force)

    def tool_schemas(self, format: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> list[dict]:
        """A kit's tools (default: every tool) in the ``openai``, ``anthropic`` or ``mcp`` shape, named as programs call them."""
        if format not in SCHEMA_FORMATS:
            raise ParamError(f"unknown schema format {format!r}; use one of: {', '.join(SCHEMA_FORMATS)}")
        if kit is None and not extra_tools:
            pairs = [(spec.name, spec) for spec in self.toolbox.list_tools()]
        else:
            pairs = list(self.resolve_kit(kit if kit is not None else "none", extra_tools).tools.items())
        return [getattr(spec if alias == spec.name else dataclasses.replace(spec, name=alias), f"to_{format}")() for alias, spec in pairs]

    # -- docs and language ---------------------------------------------------

    def docs_index(self, kit: KitSpec | ResolvedKit = None, extra_tools: Iterable[str] | None = None) -> dict:
        """The doc paths of ``kit`` (with ``extra_tools``) resolved as trust allows, or of every tool when neither is given."""
        self._workspace.follow()
        resolved = None if kit is None and not extra_tools else self.resolve_kit(kit if kit is not None else "none", extra_tools)
        return docs_index(self.toolbox, resolved)

    def resolve_doc(self, path: str, kits: Iterable[KitSpec] | None = None) -> str:
        """Read a doc that lackpy lists, by a tool's name or by the path ``docs_index`` lists.

        ``kits`` None: any tool's doc, lackpy's own docs, and the docs of the
        kits that resolve here as trust allows (never those of a kit an
        untrusted workspace has ignored); else only the docs of ``kits`` (a
        server's allowed kits). A path nothing lists is refused: a doc read is
        a file read. A doc in the workspace is judged by the ``[tools] deny``
        patterns on the file opened, as ``read_file`` is.
        """
        self._workspace.follow()
        if kits is None:
            # the tools registered now: a remote tool has no doc, and list_tools would start every MCP server
            doc = find_doc(path, self.workspace, self._kits_here(None), self.toolbox.registered(), lackpy_docs=True)
        else:
            doc = find_doc(path, self.workspace, self._kits_here(kits))
        return read_doc(doc, self.workspace, self.toolbox.context.settings.get("deny") or ())

    def _kits_here(self, kits: Iterable[KitSpec] | None) -> Iterator[ResolvedKit]:
        """Each of ``kits`` (None: every kit not ignored here) resolved as trust allows, one at a time, only when
        asked for; a kit that does not resolve is left out."""
        for kit in (row["name"] for row in self.kit_list() if not row["ignored"]) if kits is None else kits:
            try:
                yield self.resolve_kit(kit)
            except LackpyError:
                continue

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
        result = prepare(program, resolved.names, names, self.checks(checks) + declared_checks(resolved)).validation
        own = resolved.grade_of(result.calls) if result.valid else None
        notices = list(self.notices) + (learned_warnings(program, resolved) if result.valid else [])
        return dataclasses.replace(result, notices=notices, grade=own, risk=own.risk if own is not None else None)

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
        skill: str | None = None,
        stop: asyncio.Event | None = None,
    ) -> ExecutionResult:
        """Validate and run ``program``.

        ``mode`` is ``"isolated"`` (the default: a worker process; the event
        loop stays free) or ``"inprocess"`` (on the calling thread: fastest,
        for trusted programs); ``limits`` add to the config's and the kit's;
        ``dry_run`` returns the diff of the writes instead of applying them. ``session`` (from ``open_session``) gives the tools that session's
        checklist and processes, and the program the variables it kept; with
        ``keep``, a run that succeeds leaves its plain-data variables there
        for the next (listed in ``kept``). ``on_event`` hears
        ``{"event": "tool", "tool", "calls"}`` as tool calls return, at most
        every ``PROGRESS_S``, and what tools report while they work
        (``{"event": "progress", "tool", "progress", "total", "message"}``).
        A program whose own grade (of the tools it calls) is above
        ``ceiling`` (a kit name, a Grade or (w, d); default the config's
        ``ceiling``, else none) is refused before it runs: ``denied``.
        ``approve`` answers what the approval gates ask (``lackpy.approvals``:
        the program up front when configured, commands, processes, web
        requests and destructive remote tools before each call, staged writes
        before they are applied): an async callback given an
        ``ApprovalRequest`` and returning True, False or a ``Decision``;
        True approves everything; None (and no service-wide ``approve``)
        means nobody can be asked, so a blocking gate denies. ``approval``
        (how every gate asks: block, auto, notify, none) replaces every gate's.
        ``skill`` (a name from ``skills()``, or a Skill this service gave) runs
        the program with that skill's kit and ``skill_file`` (its own files). One another MCP server serves (``SERVER__name``)
        is verified first, held to read-only unless ``ceiling`` raises it, and
        runs only once a person approves it (``lackpy.skills.remote``).
        Setting ``stop`` ends the run as ``cancelled``, not ``complete``, with
        what it had done (trace, printed, assigned); nothing is written.
        """
        remote = _one_kit(kit, extra_tools, skill)
        if keep and session is None:
            raise ParamError("keep needs a session to keep the variables in; open one with open_session() and pass it")
        approve = approve if approve is not None else self.approve
        ready = self.loaded and self._config_checks is not None and not remote  # a served skill is fetched: never on the loop
        answering = (approve, approval, asyncio.get_running_loop())
        events = on_loop(on_event)

        def settle() -> tuple[RunSettings, ExecutionResult | None]:
            """The run's settings, and its result already when the program is invalid (answered at once, never queued)."""
            chosen = self._chosen(skill)
            resolved = (kit if isinstance(kit, ResolvedKit) and not remote else self._skill_kit(chosen)) if chosen is not None else self.resolve_kit(kit, extra_tools)
            inputs = session.inputs(params, resolved.names) if session is not None else params
            inputs = chosen.inputs(inputs) if chosen is not None else inputs
            settings = self._settings(
                resolved, inputs, checks, session, events, answering, mode=mode, limits=limits, dry_run=dry_run, ceiling=ceiling, skill=chosen
            )
            settings = _warned(settings, learned_warnings(program, resolved))
            if settings.mode == "inprocess":
                return settings, None
            # The run's own check of the program is then a lookup in prepare's cache (by text, names, params and checks).
            valid = prepared_for(program, resolved, inputs, settings.checks).code is not None
            return settings, None if valid else run_with(program, settings)

        # Once the workspace is loaded, settling is a cache lookup (the kit: one stat per file; the
        # program: prepare's cache), cheaper than the two thread switches of doing it elsewhere.
        settings, result = settle() if ready else await off_loop(settle)
        if result is None:
            result = await self._scheduler.run(program, settings, settings.mode == "inprocess" and not asks_on_loop(approve), stop)
        return session.answered(result, keep) if session is not None else result

    @property
    def run_slots(self) -> Slots | None:
        """The run slots of this service's runs (how many hold one, how many wait for a person), once a run made them."""
        return self._scheduler.slots

    def open_session(self, pinned: bool = False) -> Session:
        """A new session: its own checklist, processes and kept variables, closed with the service.

        Unless ``pinned``, it expires after ``IDLE_S`` unused (its processes stopped).
        """
        return self.sessions.open(pinned)

    def _settings(self, kit: ResolvedKit, params: Mapping[str, Any] | None, checks: Sequence[Check] | None, session: Session | None,
                  events: OnEvent | None, answering: tuple, *, mode: str | None, limits: Any, dry_run: bool, ceiling: CeilingSpec,
                  skill: Skill | None = None) -> RunSettings:
        """The settings of a call's runs (``run_with(program, settings, cancel)``); ``answering`` is who answers its approvals."""
        limit = self.ceiling_grade(ceiling)
        if skill is not None:  # a run with a skill never reaches past the grade the skill declares
            declared = skill_grade(skill, self.read_only_grade)
            if isinstance(skill, RemoteSkill):  # what it declares is a request: read-only unless the person raises the ceiling
                declared = declared.meet(self._ceiling(ceiling))
            limit = declared if limit is None else limit.meet(declared)
        return RunSettings(
            kit=kit, params=params, checks=self.checks(checks) + declared_checks(kit), limits=limits, mode=mode or self.config.mode, dry_run=dry_run,
            sandbox=self.config.sandbox, notices=self.notices, state=session.state if session is not None else None,
            on_call=tool_events(events), on_progress=events, ceiling=limit, guardrails=self.guardrails.hooks(),
            gatekeeper=self._gatekeeper(kit, answering), skill=skill, origin=skill.origin if isinstance(skill, RemoteSkill) else None,
            session_worker=session.worker() if session is not None and self.config.session_worker else None,
        )

    def _gatekeeper(self, kit: ResolvedKit, answering: tuple) -> Gatekeeper:
        approve, approval, loop = answering
        answering = (approve if approve is not None else self.approve, approval, loop)
        return self._gatekeepers.get(kit, self.config.approvals, answering, trusted=self.trusted, audit=self.config.audit)

    def add_guardrail(self, plugin: Any) -> None:
        """Put every tool call of this service's programs through ``plugin``'s ``before_tool_call`` / ``after_tool_call``."""
        self.guardrails.add(plugin)

    def ceiling_grade(self, ceiling: CeilingSpec = None) -> Grade | None:
        """The grade a program may reach: ``ceiling``, else the config's ``ceiling``, resolved now; None when there is none."""
        given = ceiling if ceiling is not None else self.config.ceiling
        return None if given is None else self._ceiling(given)

    def _ceiling(self, ceiling: CeilingSpec) -> Grade:
        """The grade of ``ceiling`` (None: read-only)."""
        if ceiling is None:
            return self.read_only_grade
        grade = Grade.parse(ceiling)
        return grade if grade is not None else self.resolve_kit(ceiling).grade

    # -- delegate: intents to programs -------------------------------------------

    def tiers(self) -> list[Tier]:
        """The configured inference tiers, in order (built once per service)."""
        if self._tiers is None:
            self._tiers = build_tiers(self.config.inference, self.workspace)
        return self._tiers

    def tier_list(self) -> list[dict]:
        """Each configured tier: whether it can serve now, and why not."""
        self._workspace.follow()
        return tier_rows(self.tiers())

    def plan_kit(self, intent: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None, ceiling: CeilingSpec = None) -> tuple[ResolvedKit, dict]:
        """The kit for an intent: the one named, or tools chosen from the intent under ``ceiling``."""
        self._workspace.follow()
        if kit is not None:
            resolved = self.resolve_kit(kit, extra_tools)
            return resolved, {"name": resolved.name, "tools": sorted(resolved.tools), "chosen": False}
        limit = self._ceiling(ceiling)
        needs = [list(self.resolve_kit(need).aliases().values()) for need in (tier.needs(intent) for tier in self.tiers()) if need]
        offered = [spec for spec in self.toolbox.list_tools() if spec.name != SKILL_FILE_TOOL]  # it serves a skill's runs only
        tools = tools_for(intent, offered, limit, needs, lambda: self.resolve_kit(None).tools)
        resolved = self.resolve_kit(tools, extra_tools)
        return resolved, {"name": None, "tools": sorted(resolved.tools), "chosen": True, "ceiling": limit.to_dict()}

    def _dispatcher(self, on_event: OnEvent | None, first: Sequence[Tier] = ()) -> Dispatcher:
        """The tiers in order, after ``first`` (a skill's program its intents route to)."""
        return Dispatcher([*first, *self.tiers()], self.config.inference, checks=self.checks(), read_doc=self.resolve_doc, on_event=on_event)

    async def generate(
        self,
        intent: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | None = None,
        extra_tools: Iterable[str] | None = None,
        *,
        ceiling: CeilingSpec = None,
        on_event: OnEvent | None = None,
        skill: str | None = None,
    ) -> GenerationResult:
        """A validated program for ``intent``, not run. Raises GenerationError when no tier can write one."""
        events = on_loop(on_event)

        def work() -> GenerationResult:
            request, kit_info, _, first = self._request(intent, kit, params, extra_tools, ceiling, skill)
            outcome = self._dispatcher(events, first).dispatch(request)
            return GenerationResult(**described(request, kit_info, outcome, self.notices))

        return await off_loop(work)

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
        skill: str | None = None,
    ) -> DelegateResult:
        """Write a program for ``intent`` (templates, rules, then model tiers), validate, repair and run it.

        With no ``kit``, tools are chosen from the intent, never above the
        read-only grade unless ``ceiling`` (a kit name, a Grade or (w, d))
        raises it. ``session`` gives the program that session's checklist
        and processes. Raises GenerationError, with the attempt log, when no
        tier can write a valid program. ``approve`` and ``approval`` are
        ``run_program``'s: a person approves what the written program does.
        An intent that a skill's ``intents`` match runs that skill's program
        (with no kit named, and the skill's kit within the ceiling); ``skill``
        names the skill to use: its kit, and its SKILL.md for a model.
        """
        events = on_loop(on_event)
        answering = (approve, approval, asyncio.get_running_loop())

        def work(cancel: Cancel) -> DelegateResult:
            request, kit_info, chosen, first = self._request(intent, kit, params, extra_tools, ceiling, skill)
            settings = self._settings(
                request.kit, request.params, None, session, events, answering, mode=mode, limits=limits, dry_run=dry_run, ceiling=ceiling, skill=chosen
            )

            def run(program: str) -> ExecutionResult:
                result = run_with(program, settings, cancel)
                if result.error_kind == ErrorKind.CANCELLED:
                    raise Cancelled()  # the delegation is over: no repair, no next tier
                return session.answered(result, False) if session is not None else result

            outcome = self._dispatcher(events, first).dispatch(request, run)
            execution = outcome.execution
            return DelegateResult(
                **described(request, kit_info, outcome, self.notices),
                success=execution is not None and execution.success,
                execution=execution,
                execution_ms=outcome.execution_ms,
            )

        return await self._scheduler.cancellable(work)

    def _request(
        self, intent: str, kit: KitSpec, params: Mapping[str, Any] | None, extra_tools: Iterable[str] | None, ceiling: CeilingSpec, skill: str | None
    ) -> tuple[Request, dict, Skill | None, list[Tier]]:
        """The request for an intent, the kit as planned, the skill it uses, and the tiers that go first (a skill's program)."""
        if not isinstance(intent, str) or not intent.strip():
            raise ParamError("give an intent, e.g. lackpy delegate \"count TODOs in python files\"")
        _one_kit(kit, extra_tools, skill)
        if split_name(skill) is not None:
            raise ParamError(served.not_here(skill, "delegate"))
        fits = lambda found: self._skill_kit(found).grade.within(self._ceiling(ceiling))  # noqa: E731 (asked only of a routed skill)
        chosen, program, values = self.skill_catalog().choose(intent, skill, kit is not None, fits)
        if chosen is not None:
            resolved = self._skill_kit(chosen)
            kit_info = {"name": resolved.name, "tools": sorted(resolved.tools), "chosen": skill is None, "skill": chosen.name}
        else:
            resolved, kit_info = self.plan_kit(intent, kit, extra_tools, ceiling)
        params = {**values, **dict(params or {})}
        params = chosen.inputs(params) if chosen is not None else params
        check_params(params, resolved.names)
        program_ceiling = None if self.trusted else self.read_only_grade
        guide = chosen.guide() if chosen is not None else None
        request = Request(intent.strip(), resolved, params, self.workspace, program_ceiling=program_ceiling, guide=guide)
        return request, kit_info, chosen, [SkillTier(chosen, program)] if program is not None else []

    # -- skills: workflows a person hands an agent ---------------------------------------

    def skills(self, remote: bool = True) -> list[dict]:
        """Every skill, and every skill folder left out, as ``lackpy skill list`` shows them (``ignored``: why one does not run).

        With ``remote``, the skills the configured MCP servers serve follow
        (``source: mcp``, named ``SERVER__name``; ``lackpy.skills.remote``):
        listing them connects the servers and fetches no file.
        """
        rows = list(self.skill_catalog().rows)
        return rows + self._served_rows(rows) if remote else rows

    def skill(self, name: str) -> Skill:
        """The skill ``name`` (its SKILL.md, programs and files), if it runs here; ParamError saying why not.

        Never a skill another MCP server serves: those are loaded only for a
        person who names one (``remote_skill``, ``run_program(skill=)``).
        """
        if split_name(name) is not None:
            raise ParamError(served.not_here(name, "lackpy serve, delegate or the skill catalog"))
        return self.skill_catalog().get(name)

    def remote_skill(self, name: str) -> RemoteSkill:
        """The skill ``SERVER__name`` another MCP server serves, listed by it now, its SKILL.md read and verified against
        its entry; ParamError saying why not (unknown, refused, a name another origin has, dynamic, a failed check)."""
        self._workspace.follow()
        return served.find(self._workspace.load().remotes, name, served.taken_names(list(self.skill_catalog().rows)))

    def skill_info(self, name: str) -> dict:
        """A skill as ``lackpy skill info`` shows it: its row (the grade it may reach among it), its kit's tools (signatures,
        grades) and grade, and its SKILL.md body (a served skill's verified, with its ``origin``)."""
        if split_name(name) is not None:
            found = self.remote_skill(name)
            kit = self.kit_info(self._skill_kit(found))
            declared = skill_grade(found, self.read_only_grade)
            origin = f"MCP server {found.server}, {found.uri}; verified against its digests, untrusted: it asks, it grants nothing"
            return {**found.row(), "grade": declared.meet(self.read_only_grade).to_dict(), "origin": origin, "files": found.files(),
                    "kit_grade": kit["grade"], "tools": kit["tools"], "body": found.body()}
        catalog = self.skill_catalog()
        found = catalog.get(name)
        row = next(row for row in catalog.rows if row["name"] == name and row.get("ignored") is None)
        kit = self.kit_info(self._skill_kit(found))
        return {**row, "kit_grade": kit["grade"], "tools": kit["tools"], "body": found.body()}

    def load_skill(self, name: str) -> Skill:
        """The skill a person names: ``skill(name)``, or for ``SERVER__name`` the served one, fetched and verified
        (``remote_skill``); ParamError saying why not."""
        return self.remote_skill(name) if split_name(name) is not None else self.skill(name)

    def _chosen(self, skill: str | Skill | None) -> Skill | None:
        """The skill a run uses: one given (a served one listed only is loaded), or the one named (``load_skill``)."""
        if isinstance(skill, RemoteSkill) and skill.text is None:
            return self.remote_skill(skill.name)
        return skill if skill is None or isinstance(skill, Skill) else self.load_skill(skill)

    def _served_rows(self, rows: list[dict]) -> list[dict]:
        """The rows of the skills the configured MCP servers serve (every server connected, its skills listed, no file read)."""
        from concurrent.futures import ThreadPoolExecutor

        from lackpy.remote.fetch import list_skills

        remotes = self._workspace.load().remotes
        if remotes is None:
            return []
        self.toolbox.list_tools()  # every server started, as lackpy mcp list does
        names = [name for name in remotes.servers if name not in remotes.failures]
        if not names:
            return []
        with ThreadPoolExecutor(min(len(names), 8), thread_name_prefix="lackpy-skills") as pool:
            listings = list(pool.map(lambda server: list_skills(remotes, server), names))
        return served.rows(listings, served.taken_names(rows), self.read_only_grade, self._skill_kit)

    def skill_kit(self, name: str) -> ResolvedKit:
        """The kit the skill's programs run with: its own, and ``skill_file``."""
        return self._skill_kit(self.skill(name))

    def skill_create(self, name: str, description: str, tools: str | list[str] | None = None, force: bool = False) -> Path:
        """Write a skill to start from in ``.lackpy/skills/NAME`` (SKILL.md and programs/main.py); its folder."""
        from lackpy.skills.new import write_skill

        grade = self.resolve_kit(tools).grade if tools is not None else None  # an unknown kit or tool is said now, not when it runs
        with self._workspace.keeping():
            return write_skill(self.workspace, name, description, tools, force, grade if grade != self.read_only_grade else None)

    def skill_catalog(self) -> Catalog:
        """The skills found here now (never another MCP server's; every call reads their folders: an edit shows at once),
        judged once by their grades and by trust: each that runs and every row, for a caller that needs several at a time."""
        self._workspace.follow()
        found = find_skills(self.workspace, self.config.skill_paths, skill_dirs(), self.toolbox.context.settings.get("deny") or ())
        return judge(found, self._needs, self.read_only_grade, self.trusted, str(self.workspace))

    def workspace_skills(self) -> list[dict]:
        """The workspace's own skills as trusting it would load them (its ``[skills] paths`` included, trusted or not):
        name, folder, the grade each declares, and which are left out and why; what ``lackpy trust`` shows."""
        from lackpy.skills.covered import folders
        from lackpy.skills.sources import WORKSPACE_SOURCES

        found = find_skills(self.workspace, folders(self.workspace)[1:], skill_dirs(), self.toolbox.context.settings.get("deny") or ())
        rows = [{**skill.row(), "grade": skill_grade(skill, self.read_only_grade).to_dict()} for skill in found.skills if skill.from_workspace]
        return rows + [left.row() for left in found.left_out if left.source in WORKSPACE_SOURCES]

    def _needs(self, skill: Skill) -> Needs:
        """What ``skill``'s programs need: its kit's grade and each valid program's own grade (a program that does not
        validate, or cannot be read, needs nothing: it cannot run)."""
        kit = self._skill_kit(skill)
        params = tuple(sorted(a.name for a in skill.arguments))
        reach = {}
        for program in skill.programs:
            try:
                checked = prepare(skill.program_text(program), kit.names, params, ()).validation
            except LackpyError:
                continue
            if checked.valid:
                reach[program] = kit.grade_of(checked.calls)
        return Needs(kit.grade, reach)

    def _skill_kit(self, skill: Skill) -> ResolvedKit:
        """The kit ``skill`` runs with: its own, and ``skill_file``. Trust was followed when the skill was found
        (``skill_catalog``), so it is not followed again for each skill."""
        kit = skill.kit
        extra = [] if isinstance(kit, list) and SKILL_FILE_TOOL in kit else [SKILL_FILE_TOOL]
        if not isinstance(skill, RemoteSkill):
            return self._workspace.resolve(kit, extra)
        served.own_server_only(skill, served.named_servers(kit, [server.name for server in self.config.mcp]))  # before anything starts
        resolved = self.resolve_kit(kit, extra)  # a served skill's kit never reaches another server, as named nor as resolved
        served.own_server_only(skill, {spec.provider_config.get("server") for spec in resolved.tools.values() if spec.provider == "mcp"})
        return resolved

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
        with self._workspace.keeping():
            return save_template(self.workspace, name, pattern, program, kit_value, values=values, force=force)

    def template_list(self) -> list[dict]:
        from lackpy.infer.templates import list_templates

        return list_templates(self.workspace)


def _warned(settings: RunSettings, warnings: list[str]) -> RunSettings:
    """``settings`` whose result's notices end with ``warnings`` (keys a learned result shape lacks: said, and the program runs)."""
    return dataclasses.replace(settings, notices=WithWarnings(settings.notices, warnings)) if warnings else settings


def _one_kit(kit: KitSpec, extra_tools: Iterable[str] | None, skill: str | Skill | None) -> bool:
    """A skill runs with its own kit: ParamError when a call names both (its kit already resolved, as a server that
    checked it passes it, is the skill's own; never for a skill another MCP server serves). Whether it is such a skill."""
    remote = isinstance(skill, RemoteSkill) or split_name(skill) is not None
    name = getattr(skill, "name", skill)
    if remote and (kit is not None or extra_tools):
        raise ParamError(f"skill '{name}' runs with its own kit, held to what you allow; give the skill, not a kit")
    if skill is not None and ((kit is not None and not isinstance(kit, ResolvedKit)) or extra_tools):
        raise ParamError(f"skill '{name}' runs with its own kit; give the skill or a kit, not both")
    return remote


__all__ = ["LackpyService"]
