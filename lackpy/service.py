"""LackpyService: the one entry point; the CLI and servers are thin adapters over it."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import yaml

from lackpy.config import Config, load_config
from lackpy.errors import KitError, LackpyError, WorkspaceError
from lackpy.kit.docs import resolve_doc
from lackpy.kit.kitfile import KIT_NAME, list_kit_files, read_kit
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.diagnostics import ValidationResult
from lackpy.lang.grammar import language_spec
from lackpy.lang.validator import Rule, validate
from lackpy.plugins import populate
from lackpy.run.limits import Limits
from lackpy.run.result import ExecutionResult
from lackpy.run.runner import check_params, run_program


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
        all_rules = self.rules(rules)
        if mode is None:
            mode = self.config.mode
        run = functools.partial(
            run_program,
            program,
            resolved,
            params,
            rules=all_rules,
            limits=self.config.limits.merged(resolved.limits, "kit limits").merged(limits),
            mode=mode,
            dry_run=dry_run,
            sandbox=self.config.sandbox,
        )
        return await asyncio.to_thread(run)


__all__ = ["LackpyService"]
