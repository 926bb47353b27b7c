"""Workspace configuration from ``.lackpy/config.toml``, with defaults when absent.

::

    default_kit = "readonly"                # kit used when a call names none
    checks = ["my_checks:no_writes_in_loops"] # custom validation checks, module:function
    mode = "isolated"                       # or "inprocess" for trusted programs
    max_concurrent_runs = 8                 # runs at once per service (default: twice the cores, at least 4)
    sandbox = true                          # Landlock/seccomp in the worker, where available
    session_worker = true                   # a session keeps its own isolated worker between its runs, reset between them (false: a fresh one per run)
    approve = "effects"                     # list what a program can do and ask once, up front (the default); "calls": ask at each call; "program": the program, then each call
    approval_timeout_s = 120                # how long a person has to answer
    audit = true                            # append every approval decision to .lackpy/audit.jsonl

    [approvals]                             # block, auto, notify or none (block:30 / auto:30 wait 30 s)
    commit = "block"                        # staged writes, with their diff (the default)
    run_command = "block"                   # a tool, before each call (commands, processes, web: block)

    [limits]                                # any field of lackpy.Limits
    timeout_s = 10
    memory_bytes = 536870912

    [tools]                                 # settings the tools read
    deny = [".git/**"]                      # paths no tool (nor command) may touch
    command_network = false                 # let shell commands reach the network (trusted workspaces only)
    require_command_confinement = false     # refuse commands where the kernel cannot confine them
    command_output_bytes = 65536

    [kits]
    docs = ["docs/kits", "handbook"]        # folders whose files kits may name as docs (default docs/kits; trusted only)

    [inference]                             # how delegate writes programs
    order = ["templates", "rules", "ollama"]
    [inference.ollama]
    model = "qwen2.5-coder:1.5b"

See ``lackpy.infer.settings`` for every inference key.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lackpy.errors import ConfigError, LimitsError
from lackpy.host.ownfiles import open_state, read_own, read_path
from lackpy.host.places import user_dir
from lackpy.kit.docplace import DEFAULT_FOLDERS, docs_folder
from lackpy.lang.grade import Grade
from lackpy.infer.settings import InferenceSettings
from lackpy.run.limits import Limits
from lackpy.run.modes import DEFAULT_MODE, MODES
from lackpy.skills.sources import skill_paths as parse_skill_paths

CONFIG_PATH = Path(".lackpy") / "config.toml"
#: The keys that say how programs are asked about (``lackpy.approvals.policy.policy_from``).
APPROVAL_KEYS = ("approve", "approval_timeout_s", "approvals")
#: The most runs one service may run at once.
MAX_CONCURRENT_RUNS = 256


def default_concurrency() -> int:
    """How many runs a service runs at once unless configured: twice the cores, at least 4.

    An isolated run is mostly a worker process computing while lackpy's thread
    waits on its channel, so a few more runs than cores keep the machine busy.
    """
    return max(4, 2 * (os.cpu_count() or 1))


@dataclass
class Config:
    """Settings of one workspace; ``extra`` keeps keys later versions use."""

    default_kit: str = "readonly"
    checks: list[str] = field(default_factory=list)
    mode: str = DEFAULT_MODE
    sandbox: bool = True
    session_worker: bool = True
    """A session's isolated runs reuse one worker, checked clean after each run and never another session's; ``false``: a fresh
    worker per run. Any workspace may say ``false``: nothing is wider than the default (README, Isolation)."""
    max_concurrent_runs: int = field(default_factory=lambda: default_concurrency())
    limits: Limits = field(default_factory=Limits)
    tools: dict[str, Any] = field(default_factory=dict)
    inference: InferenceSettings = field(default_factory=InferenceSettings)
    mcp: list = field(default_factory=list)
    """The MCP servers whose tools join the toolbox (``[mcp.servers.NAME]``; ``lackpy.remote.settings``)."""
    guardrails: dict = field(default_factory=dict)
    """``[guardrails]``: ``redact_keys = true`` and ``allow_hosts = [...]`` turn on the shipped guardrails."""
    ceiling: Any = None
    """The grade no program may exceed: a kit name or [w, d] (None: no ceiling beyond the kit's)."""
    approvals: Any = field(default_factory=lambda: _default_approvals())
    """How programs are asked about (``approve``, ``approval_timeout_s``, ``[approvals]``): a ``lackpy.approvals.policy.ApprovalPolicy``."""
    audit: bool = False
    """``audit = true``: every approval decision is appended to ``.lackpy/audit.jsonl``."""
    list_tools_up_to: int = 30
    """``[mcp] list_tools_up_to``: past this many tools, prompts list remote tools by server (search_tools finds them)."""
    skill_paths: list[str] = field(default_factory=list)
    """``[skills] paths``: folders of skills beneath the workspace (e.g. ``.claude/skills``), read after ``.lackpy/skills``;
    a trusted workspace's only (programs cannot write them)."""
    kit_docs: list[str] = field(default_factory=lambda: list(DEFAULT_FOLDERS))
    """``[kits] docs``: folders beneath the workspace whose files a kit's ``docs:`` may name (``lackpy.kit.docplace``)."""
    serve: dict = field(default_factory=dict)
    """``[serve]``: ``store`` (memory, or redis://HOST:PORT/DB) and ``deployment`` for ``lackpy serve``; a trusted workspace's only."""
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    ignored: list[str] = field(default_factory=list)
    """What an untrusted workspace's config asked for and did not get, each with why."""
    ignored_servers: list = field(default_factory=list)
    """An untrusted workspace's own MCP servers (``ServerSettings``): read to be listed as ignored, never started."""

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path | None = None) -> "Config":
        where = str(path) if path else "config"
        data = dict(data)
        default_kit = data.pop("default_kit", cls.default_kit)
        if not isinstance(default_kit, str) or not default_kit.strip():
            raise ConfigError(f"{where}: default_kit must be a kit name such as \"readonly\"")
        if "rules" in data:  # one word per idea: "rules" is the tier that needs no model
            raise ConfigError(f"{where}: the key rules is now checks (custom checks, \"module:function\"); rename it")
        checks = data.pop("checks", [])
        if not isinstance(checks, list) or not all(isinstance(r, str) and ":" in r for r in checks):
            raise ConfigError(f"{where}: checks must be a list of \"module:function\" strings")
        mode = data.pop("mode", DEFAULT_MODE)
        if mode not in MODES:
            raise ConfigError(f"{where}: mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
        sandbox = data.pop("sandbox", True)
        if not isinstance(sandbox, bool):
            raise ConfigError(f"{where}: sandbox must be true or false")
        session_worker = data.pop("session_worker", True)
        if not isinstance(session_worker, bool):
            raise ConfigError(f"{where}: session_worker must be true or false")
        concurrency = data.pop("max_concurrent_runs", default_concurrency())
        if type(concurrency) is not int or not 1 <= concurrency <= MAX_CONCURRENT_RUNS:
            raise ConfigError(f"{where}: max_concurrent_runs must be a whole number from 1 to {MAX_CONCURRENT_RUNS}, not {concurrency!r}")
        try:
            limits = Limits().merged(data.pop("limits", None), f"{where} [limits]")
        except LimitsError as exc:
            raise ConfigError(str(exc)) from None
        tools = data.pop("tools", {})
        if not isinstance(tools, dict):
            raise ConfigError(f"{where}: [tools] must be a table of settings")
        for flag in ("allow_private_addresses", "command_network", "require_command_confinement"):
            if not isinstance(tools.get(flag, False), bool):
                raise ConfigError(f"{where}: [tools] {flag} must be true or false")
        deny = tools.get("deny", [])
        if not isinstance(deny, list) or not all(isinstance(p, str) for p in deny):
            raise ConfigError(f"{where}: [tools] deny must be a list of globs such as \".git/**\"")
        _check_command_env(tools, where)
        inference = InferenceSettings.from_dict(data.pop("inference", None), where)
        guardrails = data.pop("guardrails", {})
        if not isinstance(guardrails, dict) or set(guardrails) - {"redact_keys", "allow_hosts"}:
            raise ConfigError(f"{where}: [guardrails] takes redact_keys = true and allow_hosts = [\"example.com\", ...]")
        if not isinstance(guardrails.get("redact_keys", False), bool):
            raise ConfigError(f"{where}: [guardrails] redact_keys must be true or false")
        hosts = guardrails.get("allow_hosts", [])
        if not isinstance(hosts, list) or not all(isinstance(h, str) and h.strip() for h in hosts):
            raise ConfigError(f"{where}: [guardrails] allow_hosts must be a list of host names such as \"docs.python.org\"")
        ceiling = data.pop("ceiling", None)
        if ceiling is not None and not (isinstance(ceiling, str) and ceiling.strip()) and Grade.parse(ceiling) is None:
            raise ConfigError(f"{where}: ceiling must be a kit name such as \"readonly\" or [w, d] such as [1, 0]")
        from lackpy.remote.settings import list_up_to, parse_servers
        from lackpy.approvals.policy import policy_from

        approvals = policy_from({key: data.pop(key) for key in APPROVAL_KEYS if key in data}, where)
        audit = data.pop("audit", False)
        if not isinstance(audit, bool):
            raise ConfigError(f"{where}: audit must be true or false")

        mcp_table = data.pop("mcp", None)
        mcp = parse_servers(mcp_table, where)
        return cls(
            default_kit=default_kit,
            checks=checks,
            mode=mode,
            sandbox=sandbox,
            session_worker=session_worker,
            max_concurrent_runs=concurrency,
            limits=limits,
            tools=tools,
            inference=inference,
            mcp=mcp,
            guardrails=guardrails,
            ceiling=ceiling,
            approvals=approvals,
            audit=audit,
            list_tools_up_to=list_up_to(mcp_table, where),
            skill_paths=parse_skill_paths(data.pop("skills", None), where),
            kit_docs=_kit_docs(data.pop("kits", None), where), serve=_serve(data.pop("serve", None), where),
            extra=data,  # what is left once every key above is taken
            path=path,
        )

    def load_checks(self) -> list:
        """Import the configured check callables."""
        loaded = []
        for spec in self.checks:
            module_name, _, function = spec.partition(":")
            try:
                check = getattr(importlib.import_module(module_name), function)
            except Exception as exc:
                raise ConfigError(f"check '{spec}' cannot be loaded: {type(exc).__name__}: {exc}") from None
            if not callable(check):
                raise ConfigError(f"check '{spec}' is not callable")
            loaded.append(check)
        return loaded


def _default_approvals() -> Any:
    from lackpy.approvals.policy import ApprovalPolicy

    return ApprovalPolicy()


def load_config(workspace: Path, *, trusted: bool = True) -> Config:
    """The workspace's config; from an untrusted workspace without the keys that raise privileges.

    MCP servers of the user's own config (``user_config_path()``, outside every
    workspace, so trusted) come first; a trusted workspace's servers of the
    same name replace them. Both files are read as ``lackpy.host.ownfiles``
    reads lackpy's own files: regular files only, never blocking, at most
    ``MAX_FILE_BYTES`` (1 MiB); the workspace's through no symlink that
    leads out of its ``.lackpy/``.
    """
    path = Path(workspace) / CONFIG_PATH
    text = workspace_config_text(workspace)
    data = _parse(text, path) if text is not None else {}
    asked_mcp = None if trusted else data.get("mcp")
    ignored = [] if trusted else _withhold(data)
    user = user_config_path()
    user_text = _user_text(user)
    mine: dict[str, Any] = {}
    if user_text is not None:
        mine = _parse(user_text, user)
        data["mcp"] = _merged_mcp(mine.get("mcp"), data.get("mcp"), user)
        _merge_command_env(mine, data, user)
    if text is None and user_text is None:
        return Config()
    own = {key: mine[key] for key in APPROVAL_KEYS if key in mine}
    asked = {} if trusted else {key: data.pop(key) for key in APPROVAL_KEYS if key in data}
    config = Config.from_dict({**own, **data}, path if text is not None else None)
    if asked:  # an untrusted workspace may ask more than the user's own settings, never less
        from lackpy.approvals.policy import policy_from

        config.approvals = dataclasses.replace(config.approvals, floor=policy_from(asked, str(path), defaults=False))
    config.ignored = ignored
    config.ignored_servers = _ignored_servers(asked_mcp, config.mcp, str(path))
    return config


def _ignored_servers(table: Any, served: list, where: str) -> list:
    """The servers an untrusted workspace's ``[mcp]`` names, so status can say they wait for ``lackpy trust``.

    Each table is only parsed (nothing starts); one that does not parse, or
    whose name the user's own config serves, is left out.
    """
    from lackpy.remote.settings import parse_servers

    servers = table.get("servers") if isinstance(table, dict) else None
    if not isinstance(servers, dict):
        return []
    names = {s.name for s in served}
    found = []
    for name, entry in servers.items():
        if name in names:
            continue
        try:
            found += parse_servers({"servers": {name: entry}}, where)
        except ConfigError:
            continue
    return found


def _kit_docs(table: Any, where: str) -> list[str]:
    """``[kits] docs``: the docs folders kits may name, normalized (``lackpy.kit.docplace.docs_folder`` says which may)."""
    if table is None:
        return list(DEFAULT_FOLDERS)
    folders = table.get("docs", []) if isinstance(table, dict) and set(table) <= {"docs"} else None
    normal = [docs_folder(p) for p in folders] if isinstance(folders, list) else [None]
    if None in normal:
        raise ConfigError(
            f'{where}: [kits] takes docs = ["docs/kits", ...]: folders beneath the workspace whose files kits may name as docs '
            "(not the workspace itself, not .lackpy, no '..' or absolute path)"
        )
    return list(dict.fromkeys(normal))  # type: ignore[arg-type]


#: The keys of ``[serve]``.
SERVE_KEYS = ("store", "deployment")


def _serve(table: Any, where: str) -> dict:
    """``[serve]``: each key a non-empty string (``lackpy.mcp.serve`` checks what they name when the server starts)."""
    if table is None:
        return {}
    if not isinstance(table, dict) or set(table) - set(SERVE_KEYS):
        raise ConfigError(f"{where}: [serve] takes store = \"redis://HOST:PORT/DB\" (or \"memory\") and deployment = \"NAME\"")
    for key, value in table.items():
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: [serve] {key} must be a non-empty string")
    return dict(table)


def user_config_path() -> Path:
    """The user's own config, outside every workspace: ``$XDG_CONFIG_HOME/lackpy/config.toml``."""
    return user_dir() / "config.toml"


def workspace_config_text(workspace: str | Path) -> str | None:
    """The text of the workspace's ``.lackpy/config.toml``, or None when there is none; ConfigError when it cannot be read safely."""
    path = Path(workspace) / CONFIG_PATH
    try:
        state = open_state(workspace, error=ConfigError)
    except FileNotFoundError:
        return None
    try:
        return _decoded(read_own(state, CONFIG_PATH.name, str(path), ConfigError), path)
    except FileNotFoundError:
        return None
    finally:
        os.close(state)


def _user_text(path: Path) -> str | None:
    """The text of the user's own config (its links followed: the path is theirs), or None when there is none."""
    try:
        return _decoded(read_path(path, str(path), ConfigError), path)
    except FileNotFoundError:
        return None


def _decoded(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the config as UTF-8") from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}; fix the file or remove it") from None


def _check_command_env(tools: dict[str, Any], where: str) -> None:
    """``[tools] command_env`` must list environment variable names (``lackpy.host.confine`` says what is wrong)."""
    from lackpy.host.confine import env_names_problem

    problem = env_names_problem(tools.get("command_env", []))
    if problem:
        raise ConfigError(f"{where}: [tools] command_env {problem}")


def _merge_command_env(user: dict[str, Any], workspace: dict[str, Any], user_path: Path) -> None:
    """The user's ``[tools] command_env`` names, then the (trusted) workspace's: only those two may pass variables on."""
    tools = user.get("tools")
    if not isinstance(tools, dict) or "command_env" not in tools:
        return
    _check_command_env(tools, str(user_path))
    own = workspace.get("tools", {})
    if not isinstance(own, dict) or not isinstance(own.get("command_env", []), list):
        return  # Config.from_dict says what is wrong with it
    names = [*tools["command_env"], *own.get("command_env", [])]
    workspace["tools"] = {**own, "command_env": list(dict.fromkeys(names))}


def _merged_mcp(user: Any, workspace: Any, user_path: Path) -> Any:
    """The user's ``[mcp]`` under the workspace's: servers by name, the workspace's winning."""
    if user is None:
        return workspace
    if not isinstance(user, dict):
        raise ConfigError(f"{user_path}: [mcp] must be a table with [mcp.servers.NAME] tables in it")
    if not isinstance(workspace, dict):
        return user
    merged = {**user, **workspace}
    user_servers, own = user.get("servers", {}), workspace.get("servers", {})
    if isinstance(user_servers, dict) and isinstance(own, dict):
        merged["servers"] = {**user_servers, **own}
    return merged


def _withhold(data: dict[str, Any]) -> list[str]:
    """Drop from ``data`` what only a trusted workspace may set; say what and why."""
    from lackpy.trust import PRIVILEGED_DEFAULTS, PRIVILEGED_KEYS, PRIVILEGED_TOOL_SETTINGS

    ignored = []
    for key, why in PRIVILEGED_KEYS.items():
        if key not in data:
            continue
        if (key == "mode" and data[key] == DEFAULT_MODE) or (key in PRIVILEGED_DEFAULTS and data[key] is PRIVILEGED_DEFAULTS[key]):
            continue  # the safe value, said all the same
        del data[key]
        ignored.append(f"config '{key}' ({why})")
    tools = data.get("tools")
    if isinstance(tools, dict):
        for key, why in PRIVILEGED_TOOL_SETTINGS.items():
            if key in tools:
                tools = {k: v for k, v in tools.items() if k != key}
                ignored.append(f"[tools] {key} ({why})")
        data["tools"] = tools
    return ignored


def add_server(workspace: Path, name: str, table: dict[str, Any]) -> Path:
    """Add ``[mcp.servers.NAME]`` with ``table`` to the workspace's config (``lackpy mcp add``); the config's path.

    Raises ConfigError when the table is not a valid server or the file
    cannot take one, ParamError when NAME is configured already. The file is
    written whole and renamed into place, never opened through a link.
    """
    from lackpy.errors import ParamError
    from lackpy.host.ownfiles import write_own
    from lackpy.remote.settings import parse_servers, table_text

    parse_servers({"servers": {name: table}}, "lackpy mcp add")
    path = Path(workspace) / CONFIG_PATH
    text = workspace_config_text(workspace) or ""
    try:
        existing = tomllib.loads(text).get("mcp", {}).get("servers", {})
    except (tomllib.TOMLDecodeError, AttributeError) as exc:
        raise ConfigError(f"{path}: cannot add a server to this file: {exc}; fix it first") from None
    if name in existing:
        raise ParamError(f"an MCP server named {name!r} is configured already in {path}; edit or remove its table there")
    added = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "") + table_text(name, table)
    state = open_state(workspace, error=ConfigError, create=True)
    try:
        write_own(state, path.name, added.encode("utf-8"))
    finally:
        os.close(state)
    return path
