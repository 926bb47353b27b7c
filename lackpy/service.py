"""LackpyService: the one entry point; the CLI and servers are thin adapters over it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import yaml

from lackpy.config import Config, load_config
from lackpy.errors import KitError, LackpyError, ParamError, WorkspaceError
from lackpy.infer.base import Provider, Request
from lackpy.infer.dispatch import Dispatcher, OnEvent, Outcome
from lackpy.infer.result import DelegateResult, GenerationResult
from lackpy.infer.select import choose_tools, within
from lackpy.infer.tiers import build_tiers
from lackpy.kit.docs import resolve_doc
from lackpy.kit.kitfile import KIT_NAME, list_kit_files, read_kit
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Rule, validate
from lackpy.plugins import populate
from lackpy.run.limits import Limits
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import check_params, run_program

#: The kit whose grade is the default ceiling when delegate chooses tools itself.
READ_ONLY_KIT = "readonly"
#: A ceiling: a kit name (its grade), a Grade, or (w, d).
CeilingSpec = str | Grade | tuple[int, int] | None


class LackpyService:
    """Validate and run programs against kits in one workspace.

    ``workspace`` defaults to the current directory; ``config`` is a Config,
    a dict of config keys, or None to read ``.lackpy/config.toml``.
    """

    def __init__(self, workspace: str | Path | None = None, config: Config | Mapping[str, Any] | None = None) -> None:
        root = Path(workspace) if workspace is not None else Path.cwd()
        if not root.is_dir():
            raise WorkspaceError(f"workspace does not exist or is not a directory: {root}")
        self.workspace = root.resolve()
        if isinstance(config, Config):
            self.config = config
        elif config is not None:
            self.config = Config.from_dict(dict(config))
        else:
            self.config = load_config(self.workspace)
        self.kits_dir = self.workspace / ".lackpy" / "kits"
        self.toolbox = Toolbox(str(self.workspace), settings=self.config.tools)
        populate(self.toolbox)
        self._config_rules: list[Rule] | None = None
        self._tiers: list[Provider] | None = None

    def close(self) -> None:
        """Stop the background processes this service's programs started."""
        from lackpy.tools.shell import stop_all

        stop_all(self.toolbox.context.session)

    def __enter__(self) -> "LackpyService":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- kits --------------------------------------------------------------

    def resolve_kit(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> ResolvedKit:
        """Resolve ``kit`` (default: the configured default kit) in this workspace."""
        return resolve_kit(kit if kit is not None else self.config.default_kit, self.toolbox, self.kits_dir, extra_tools)

    def kit_list(self) -> list[dict]:
        kits = []
        for name, (source, path) in sorted(list_kit_files(self.kits_dir).items()):
            try:
                kit_file = read_kit(path)
                kits.append({"name": name, "description": kit_file.description, "tools": kit_file.tools, "source": source, "path": str(path)})
            except LackpyError as exc:
                kits.append({"name": name, "description": "", "tools": [], "source": source, "path": str(path), "error": str(exc)})
        return kits

    def kit_info(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        resolved = self.resolve_kit(kit, extra_tools)
        return {
            "name": resolved.name,
            "description": resolved.description,
            "source": resolved.source,
            "grade": resolved.grade.to_dict(),
            "tools": [
                {
                    "name": alias,
                    "tool": spec.name,
                    "signature": spec.signature(alias),
                    "description": spec.description,
                    "provider": spec.provider,
                    "grade": {"w": spec.grade_w, "d": spec.effects_ceiling},
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
        if path.exists() and not force:
            raise KitError(f"kit '{name}' already exists at {path}; pass --force to overwrite it")
        meta = {"name": name}
        if description:
            meta["description"] = description
        text = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + "\n".join(tools) + "\n"
        self.kits_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def toolbox_list(self) -> list[dict]:
        return [
            {
                "name": spec.name,
                "signature": spec.signature(),
                "description": spec.description,
                "provider": spec.provider,
                "grade": {"w": spec.grade_w, "d": spec.effects_ceiling},
                "docs": spec.docs,
            }
            for spec in self.toolbox.list_tools()
        ]

    # -- docs and language ---------------------------------------------------

    def docs_index(self, kit: KitSpec = None, extra_tools: Iterable[str] | None = None) -> dict:
        return self.toolbox.docs_index(kit, extra_tools)

    def resolve_doc(self, path: str) -> str:
        """Read a doc by path, or by tool name when a tool of that name has docs."""
        if isinstance(path, str) and path in self.toolbox and self.toolbox.get(path).docs:
            path = self.toolbox.get(path).docs
        return resolve_doc(path, self.workspace)

    def language_spec(self) -> dict:
        return language_spec()

    # -- programs -------------------------------------------------------------

    def rules(self, extra: Sequence[Rule] | None = None) -> tuple[Rule, ...]:
        if self._config_rules is None:
            self._config_rules = self.config.load_rules()
        return tuple(self._config_rules) + tuple(extra or ())

    def validate(
        self,
        program: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | Iterable[str] | None = None,
        extra_tools: Iterable[str] | None = None,
        rules: Sequence[Rule] | None = None,
    ) -> ValidationResult:
        resolved = self.resolve_kit(kit, extra_tools)
        names = list(params or ())
        check_params(dict.fromkeys(names), resolved.names)
        return validate(program, resolved.names, self.rules(rules), params=names)

    async def run_program(
        self,
        program: str,
        kit: KitSpec = None,
        params: Mapping[str, Any] | None = None,
        extra_tools: Iterable[str] | None = None,
        rules: Sequence[Rule] | None = None,
        *,
        mode: str | None = None,
        limits: Mapping[str, Any] | Limits | None = None,
        dry_run: bool = False,
    ) -> ExecutionResult:
        """Validate and run ``program``; the event loop stays free while it runs.

        ``mode`` is ``"isolated"`` (the default: a worker process) or
        ``"inprocess"``; ``limits`` override the config's and the kit's;
        ``dry_run`` returns the diff of the writes instead of applying them.
        """
        resolved = self.resolve_kit(kit, extra_tools)
        run = self._runner(resolved, params, rules, mode=mode, limits=limits, dry_run=dry_run)
        return await asyncio.to_thread(run, program)

    def _runner(
        self,
        resolved: ResolvedKit,
        params: Mapping[str, Any] | None,
        rules: Sequence[Rule] | None,
        *,
        mode: str | None,
        limits: Mapping[str, Any] | Limits | None,
        dry_run: bool,
    ) -> Callable[[str], ExecutionResult]:
        """``run(program)`` with everything else of a call settled: kit, params, rules, limits, mode."""

        def run(program: str) -> ExecutionResult:
            return run_program(
                program,
                resolved,
                params,
                rules=self.rules(rules),
                limits=self.config.limits.merged(resolved.limits, "kit limits").merged(limits),
                mode=mode or self.config.mode,
                dry_run=dry_run,
                sandbox=self.config.sandbox,
            )

        return run

    # -- delegate: intents to programs -------------------------------------------

    def tiers(self) -> list[Provider]:
        """The configured inference tiers, in order (built once per service)."""
        if self._tiers is None:
            self._tiers = build_tiers(self.config.inference, self.workspace)
        return self._tiers

    def tier_list(self) -> list[dict]:
        """Each configured tier: whether it can serve now, and why not."""
        listing = []
        for tier in self.tiers():
            availability = tier.available()
            listing.append(
                {"name": tier.name, "model": tier.model, "available": availability.ok, "reason": availability.reason, "description": tier.describe()}
            )
        return listing

    def plan_kit(self, intent: str, kit: KitSpec = None, extra_tools: Iterable[str] | None = None, ceiling: CeilingSpec = None) -> tuple[ResolvedKit, dict]:
        """The kit for an intent: the one named, or tools chosen from the intent under ``ceiling``."""
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
            return self.resolve_kit(READ_ONLY_KIT).grade
        if isinstance(ceiling, Grade):
            return ceiling
        if isinstance(ceiling, (tuple, list)) and len(ceiling) == 2:
            return Grade(*map(int, ceiling))
        return self.resolve_kit(ceiling).grade

    def _dispatcher(self, on_event: OnEvent | None, rules: Sequence[Rule] | None = None) -> Dispatcher:
        return Dispatcher(self.tiers(), self.config.inference, rules=self.rules(rules), read_doc=self.resolve_doc, on_event=on_event)

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
        request, kit_info = self._request(intent, kit, params, extra_tools, ceiling)
        outcome = await asyncio.to_thread(self._dispatcher(on_event).dispatch, request)
        return GenerationResult(**self._described(request, kit_info, outcome))

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
    ) -> DelegateResult:
        """Write a program for ``intent`` (templates, rules, then model tiers), validate, repair and run it.

        With no ``kit``, tools are chosen from the intent, never above the
        read-only grade unless ``ceiling`` (a kit name, a Grade or (w, d))
        raises it. Raises GenerationError, with the attempt log, when no tier
        can write a valid program.
        """
        request, kit_info = self._request(intent, kit, params, extra_tools, ceiling)
        run = self._runner(request.kit, request.params, None, mode=mode, limits=limits, dry_run=dry_run)
        outcome = await asyncio.to_thread(self._dispatcher(on_event).dispatch, request, run)
        return DelegateResult(**self._described(request, kit_info, outcome), execution=outcome.execution, execution_ms=outcome.execution_ms)

    def _request(self, intent: str, kit: KitSpec, params: Mapping[str, Any] | None, extra_tools: Iterable[str] | None, ceiling: CeilingSpec) -> tuple[Request, dict]:
        if not isinstance(intent, str) or not intent.strip():
            raise ParamError("give an intent, e.g. lackpy delegate \"count TODOs in python files\"")
        resolved, kit_info = self.plan_kit(intent, kit, extra_tools, ceiling)
        params = dict(params or {})
        check_params(params, resolved.names)
        return Request(intent.strip(), resolved, params, self.workspace), kit_info

    @staticmethod
    def _described(request: Request, kit_info: dict, outcome: Outcome) -> dict:
        return {
            "intent": request.intent,
            "program": outcome.program,
            "provider": outcome.provider,
            "detail": outcome.detail,
            "grade": request.kit.grade,
            "kit": kit_info,
            "attempts": outcome.attempts,
            "generation_ms": outcome.generation_ms,
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
        result = validate(program, resolved.names, self.rules(), params=[])
        if not result.valid:
            raise ParamError(f"the program is not valid for kit {resolved.name or sorted(resolved.tools)}: {result.errors[0]}")
        kit_value = kit if isinstance(kit, str) else sorted(resolved.aliases().values()) if kit is not None else resolved.name
        return save_template(self.workspace, name, pattern, program, kit_value, values=values, force=force)

    def template_list(self) -> list[dict]:
        from lackpy.infer.templates import list_templates

        return list_templates(self.workspace)

__all__ = ["LackpyService"]
