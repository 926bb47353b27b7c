"""LackpyService: the one entry point; the CLI and servers are thin adapters over it.

The service is a facade: each job lives in the module that owns its idea,
and the methods here put them together for one workspace. Loading and
trust: ``lackpy.workspace`` (``lackpy.trust``, ``lackpy.config``,
``lackpy.remote.attach``). The service's own jobs, one module each:
``kits`` (kits, tools, docs, ceilings), ``skills``, ``runs`` (the checks
and settings of a call's runs), ``intents`` (the tiers, and the program an
intent asks for), ``servers`` (the other MCP servers) and ``templates``. Runs:
``lackpy.run`` (the ``Scheduler``, ``Guardrails``) and ``lackpy.approvals``
(``Gatekeepers``). Writing programs: ``lackpy.infer``.

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
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lackpy.approvals.approver import ApproveSpec, asks_on_loop
from lackpy.approvals.gatekeeper import Gatekeepers
from lackpy.config import Config
from lackpy.errors import ParamError, WorkspaceError
from lackpy.host import journal
from lackpy.infer.base import Tier
from lackpy.infer.result import DelegateResult, GenerationResult
from lackpy.kit.resolve import KitSpec, ResolvedKit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Check
from lackpy.plugins import get_plugin_manager
from lackpy.run.guardrails import Guardrails
from lackpy.run.limits import Limits
from lackpy.run.result import ExecutionResult
from lackpy.run.scheduler import Scheduler, off_loop, on_loop
from lackpy.run.settings import OnEvent, RunSettings
from lackpy.run.slots import Slots
from lackpy.service import servers, templates
from lackpy.service.intents import Intents, Wanted
from lackpy.service.kits import SCHEMA_FORMATS, CeilingSpec, Kits
from lackpy.service.runs import Asked, Runs
from lackpy.service.skills import Skills, one_kit
from lackpy.session import Session, Sessions
from lackpy.skills.catalog import Catalog
from lackpy.skills.remote import RemoteSkill
from lackpy.skills.skill import Skill
from lackpy.workspace import Workspace


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
        self._gatekeepers = Gatekeepers(str(self.workspace), self.notices)
        self._scheduler = Scheduler(lambda: self.config.max_concurrent_runs)
        #: Every tool call of this service's programs passes its guardrails (``add_guardrail``).
        self.guardrails = Guardrails(lambda: self.config.guardrails, lambda: get_plugin_manager().get_plugins())
        self._kits = Kits(self._workspace)
        self._skills = Skills(self._workspace, self._kits)
        self._runs = Runs(self._workspace, self._kits, self._skills, self._gatekeepers, self.guardrails, self.notices)
        self._intents = Intents(self._workspace, self._kits, self._skills, self._runs)

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
        self._runs.forget()
        self._intents.forget()
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
        return servers.add(self._workspace, name, table)

    def remote_listing(self) -> list[dict]:
        """Each configured MCP server as lackpy last listed it (when, and its tools then), starting none; ``remote_status`` connects."""
        return servers.listing(self._workspace)

    def remote_status(self) -> list[dict]:
        """Each configured MCP server: where it is, connected or why not, and its tools.

        An untrusted workspace's own servers are listed too, as ``ignored``
        with what starts them, so a server just added is never reported as
        missing.
        """
        return servers.status(self._workspace)

    def mcp_login(self, name: str, authorize: Any, within: float = 300.0) -> dict | None:
        """Authorize lackpy at MCP server ``name`` through ``authorize`` (a person, within ``within`` seconds); who it knows you as.

        None when the server asked for no authorization. Raises ConfigError for a
        server not configured or without ``oauth``, AuthError when the login failed.
        """
        return servers.remotes_for(self._workspace, name).login(name, authorize, within)

    def mcp_logout(self, name: str) -> bool:
        """Forget MCP server ``name``'s tokens and registration; whether there were any."""
        return servers.remotes_for(self._workspace, name).logout(name)

    def mcp_shapes(self, name: str | None = None, clear: bool = False) -> list[dict]:
        """The result shapes lackpy learned from the configured MCP servers' tools (or server ``name``'s); ``clear`` forgets them first.

        Starts no server: the shapes are read from the person's cache (``lackpy.remote.shapes``).
        ConfigError names the configured servers when ``name`` is not one of them.
        """
        return servers.shapes(self._workspace, name, clear)

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
        return self._kits.resolve(kit, extra_tools)

    def kit_list(self) -> list[dict]:
        """Every kit: where it comes from, whether it shadows the package's, and whether it is ignored."""
        return self._kits.rows()

    def kit_info(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        """A kit as ``lackpy kit info`` shows it: where it comes from, its grade, and each tool by the name programs call."""
        return self._kits.info(kit, extra_tools)

    def toolbox_list(self) -> list[dict]:
        """Every tool of the toolbox, as ``lackpy tools`` shows it."""
        return self._kits.tool_rows()

    def kit_create(self, name: str, tools: Sequence[str], description: str = "", force: bool = False) -> Path:
        """Write ``.lackpy/kits/NAME.kit`` in the workspace; refuses to overwrite unless ``force``."""
        return self._kits.create(name, tools, description, force)

    def tool_schemas(self, format: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> list[dict]:
        """A kit's tools (default: every tool) in the ``openai``, ``anthropic`` or ``mcp`` shape, named as programs call them."""
        return self._kits.schemas(format, kit, extra_tools)

    # -- docs and language ---------------------------------------------------

    def docs_index(self, kit: KitSpec | ResolvedKit = None, extra_tools: Iterable[str] | None = None) -> dict:
        """The doc paths of ``kit`` (with ``extra_tools``) resolved as trust allows, or of every tool when neither is given."""
        return self._kits.docs_index(kit, extra_tools)

    def resolve_doc(self, path: str, kits: Iterable[KitSpec] | None = None) -> str:
        """Read a doc that lackpy lists, by a tool's name or by the path ``docs_index`` lists.

        ``kits`` None: any tool's doc, lackpy's own docs, and the docs of the
        kits that resolve here as trust allows (never those of a kit an
        untrusted workspace has ignored); else only the docs of ``kits`` (a
        server's allowed kits). A path nothing lists is refused: a doc read is
        a file read. A doc in the workspace is judged by the ``[tools] deny``
        patterns on the file opened, as ``read_file`` is.
        """
        return self._kits.resolve_doc(path, kits)

    def language_spec(self) -> dict:
        return language_spec()

    # -- programs -------------------------------------------------------------

    def checks(self, extra: Sequence[Check] | None = None) -> tuple[Check, ...]:
        """The configured custom checks (imported once), then ``extra``."""
        return self._runs.checks(extra)

    def validate(
        self, program: str, kit: KitSpec = None, params: Mapping[str, Any] | Iterable[str] | None = None,
        extra_tools: Iterable[str] | None = None, checks: Sequence[Check] | None = None,
    ) -> ValidationResult:
        """Check ``program`` against ``kit`` without running it (results are cached by text and kit)."""
        return self._runs.validate(program, self.resolve_kit(kit, extra_tools), params, checks)

    async def run_program(
        self, program: str, kit: KitSpec = None, params: Mapping[str, Any] | None = None, extra_tools: Iterable[str] | None = None,
        checks: Sequence[Check] | None = None, *,
        mode: str | None = None, limits: Mapping[str, Any] | Limits | None = None, dry_run: bool = False,
        session: Session | None = None, keep: bool = False, on_event: OnEvent | None = None, ceiling: CeilingSpec = None,
        approve: ApproveSpec = None, approval: str | None = None, skill: str | None = None, stop: asyncio.Event | None = None,
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
        remote = one_kit(kit, extra_tools, skill)
        if keep and session is None:
            raise ParamError("keep needs a session to keep the variables in; open one with open_session() and pass it")
        approve = approve if approve is not None else self.approve
        ready = self.loaded and self._runs.checks_loaded and not remote  # a served skill is fetched: never on the loop
        answering = (approve, approval, asyncio.get_running_loop())
        events = on_loop(on_event)
        asked = Asked(mode, limits, dry_run, ceiling, checks, session)

        def settle() -> tuple[RunSettings, ExecutionResult | None]:
            return self._runs.settle(program, kit, extra_tools, skill, params, events, answering, asked)

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

    def add_guardrail(self, plugin: Any) -> None:
        """Put every tool call of this service's programs through ``plugin``'s ``before_tool_call`` / ``after_tool_call``."""
        self.guardrails.add(plugin)

    def ceiling_grade(self, ceiling: CeilingSpec = None) -> Grade | None:
        """The grade a program may reach: ``ceiling``, else the config's ``ceiling``, resolved now; None when there is none."""
        return self._kits.ceiling_grade(ceiling)

    # -- delegate: intents to programs -------------------------------------------

    def tiers(self) -> list[Tier]:
        """The configured inference tiers, in order (built once per service)."""
        return self._intents.tiers()

    def tier_list(self) -> list[dict]:
        """Each configured tier: whether it can serve now, and why not."""
        return self._intents.rows()

    def plan_kit(self, intent: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None, ceiling: CeilingSpec = None) -> tuple[ResolvedKit, dict]:
        """The kit for an intent: the one named, or tools chosen from the intent under ``ceiling``."""
        return self._intents.plan(intent, kit, extra_tools, ceiling)

    async def generate(
        self, intent: str, kit: KitSpec = None, params: Mapping[str, Any] | None = None, extra_tools: Iterable[str] | None = None,
        *, ceiling: CeilingSpec = None, on_event: OnEvent | None = None, skill: str | None = None,
    ) -> GenerationResult:
        """A validated program for ``intent``, not run. Raises GenerationError when no tier can write one."""
        events = on_loop(on_event)
        return await off_loop(lambda: self._intents.generated(Wanted(intent, kit, params, extra_tools, ceiling, skill), events))

    async def delegate(
        self, intent: str, kit: KitSpec = None, params: Mapping[str, Any] | None = None, extra_tools: Iterable[str] | None = None, *,
        dry_run: bool = False, mode: str | None = None, limits: Mapping[str, Any] | Limits | None = None, ceiling: CeilingSpec = None,
        on_event: OnEvent | None = None, session: Session | None = None,
        approve: ApproveSpec = None, approval: str | None = None, skill: str | None = None, stop: asyncio.Event | None = None,
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
        Setting ``stop`` stops it as ``run_program``'s does: its run ends as
        ``cancelled``, with what it had done.
        """
        events = on_loop(on_event)
        answering = (approve if approve is not None else self.approve, approval, asyncio.get_running_loop())
        wanted, asked = Wanted(intent, kit, params, extra_tools, ceiling, skill), Asked(mode, limits, dry_run, ceiling, None, session)
        return await self._scheduler.cancellable(lambda cancel: self._intents.delegated(wanted, events, answering, asked, cancel), stop=stop)

    # -- skills: workflows a person hands an agent ---------------------------------------

    def skills(self, remote: bool = True) -> list[dict]:
        """Every skill, and every skill folder left out, as ``lackpy skill list`` shows them (``ignored``: why one does not run).

        With ``remote``, the skills the configured MCP servers serve follow
        (``source: mcp``, named ``SERVER__name``; ``lackpy.skills.remote``):
        listing them connects the servers and fetches no file.
        """
        return self._skills.rows(remote)

    def skill(self, name: str) -> Skill:
        """The skill ``name`` (its SKILL.md, programs and files), if it runs here; ParamError saying why not.

        Never a skill another MCP server serves: those are loaded only for a
        person who names one (``remote_skill``, ``run_program(skill=)``).
        """
        return self._skills.get(name)

    def remote_skill(self, name: str) -> RemoteSkill:
        """The skill ``SERVER__name`` another MCP server serves, listed by it now, its SKILL.md read and verified against
        its entry; ParamError saying why not (unknown, refused, a name another origin has, dynamic, a failed check)."""
        return self._skills.remote(name)

    def skill_info(self, name: str) -> dict:
        """A skill as ``lackpy skill info`` shows it: its row (the grade it may reach among it), its kit's tools (signatures,
        grades) and grade, and its SKILL.md body (a served skill's verified, with its ``origin``)."""
        return self._skills.info(name)

    def load_skill(self, name: str) -> Skill:
        """The skill a person names: ``skill(name)``, or for ``SERVER__name`` the served one, fetched and verified
        (``remote_skill``); ParamError saying why not."""
        return self._skills.load(name)

    def skill_kit(self, name: str) -> ResolvedKit:
        """The kit the skill's programs run with: its own, and ``skill_file``."""
        return self._skills.kit(self.skill(name))

    def skill_create(self, name: str, description: str, tools: str | list[str] | None = None, force: bool = False) -> Path:
        """Write a skill to start from in ``.lackpy/skills/NAME`` (SKILL.md and programs/main.py); its folder."""
        return self._skills.create(name, description, tools, force)

    def skill_catalog(self) -> Catalog:
        """The skills found here now (never another MCP server's; every call reads their folders: an edit shows at once),
        judged once by their grades and by trust: each that runs and every row, for a caller that needs several at a time."""
        return self._skills.catalog()

    def workspace_skills(self) -> list[dict]:
        """The workspace's own skills as trusting it would load them (its ``[skills] paths`` included, trusted or not):
        name, folder, the grade each declares, and which are left out and why; what ``lackpy trust`` shows."""
        return self._skills.workspace_rows()

    # -- templates: the ratchet ------------------------------------------------

    def template_save(
        self, name: str, pattern: str, program: str, kit: KitSpec = None, *, intent: str | None = None, force: bool = False
    ) -> Path:
        """Validate ``program`` against ``kit`` and save it as a template served for ``pattern``.

        With ``intent``, the values the pattern captures from it are turned
        back into placeholders in the program, so the template generalizes.
        """
        return templates.save(self._workspace, self._kits, self._runs.checks, name, pattern, program, kit, intent, force)

    def template_list(self) -> list[dict]:
        return templates.rows(self._workspace)


__all__ = ["CeilingSpec", "LackpyService", "SCHEMA_FORMATS"]
