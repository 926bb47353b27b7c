"""resolve_kit: turn any kit form into the tools, callables and grade of a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lackpy.errors import KitError, KitFileError, UnknownKitError, UnknownToolError
from lackpy.kit.context import ToolContext, bind
from lackpy.kit.docplace import Doc, kit_doc
from lackpy.kit.kitfile import read_kit, find_kit
from lackpy.kit.spec import ToolSpec
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import Grade, compute_grade
from lackpy.lang.names import RULE, bindable, shown

KitSpec = str | Iterable[str] | Mapping[str, Any] | None


@dataclass
class ResolvedKit:
    """A kit ready to run: ``tools`` and ``callables`` are keyed by the name programs use.

    ``callables`` are bound to the toolbox's context; the runner rebinds them
    to a fresh context per run with ``bind``. ``limits`` are the kit file's;
    ``config_limits`` the workspace config's, which the runner merges first.
    """

    tools: dict[str, ToolSpec]
    callables: dict[str, Callable[..., Any]]
    grade: Grade
    description: str = ""
    docs: list[str] = field(default_factory=list)
    """The paths of the kit file's own docs, then of its tools' docs (what ``docs_index`` and ``kit info`` list)."""
    own_docs: tuple[Doc, ...] = ()
    """The kit file's own docs, each with where it is read (``lackpy.kit.docplace``)."""
    name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    impls: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    context: ToolContext | None = field(default=None, repr=False)
    limits: dict[str, Any] | None = None
    config_limits: Any = None
    path: Path | None = None
    list_up_to: int = 30
    """How many tools a prompt lists one by one; past it, remote tools by server (``tool_lines``)."""

    def __post_init__(self) -> None:
        self.names = frozenset(self.tools)

    def grade_of(self, aliases: Iterable[str]) -> Grade:
        """The grade of the kit's tools ``aliases`` (a program's own grade, from the tools it calls)."""
        return compute_grade({a: {"grade_w": self.tools[a].grade_w, "effects_ceiling": self.tools[a].effects_ceiling} for a in aliases if a in self.tools})

    def above(self, aliases: Iterable[str], ceiling: Grade) -> list[str]:
        """Which of ``aliases`` reach above ``ceiling``, each with its grade: ``['run_command (w=3 d=3)']``."""
        out = []
        for alias in aliases:
            spec = self.tools.get(alias)
            if spec is not None and not Grade(spec.grade_w, spec.effects_ceiling).within(ceiling):
                out.append(f"{alias} ({Grade(spec.grade_w, spec.effects_ceiling)})")
        return out

    def bind(self, context: ToolContext, only: Iterable[str] | None = None) -> dict[str, Callable[..., Any]]:
        """The callables (or ``only`` those named) with every context-taking tool bound to ``context``."""
        impls = self.impls
        if only is None:
            return {alias: bind(impl, context) for alias, impl in impls.items()}
        return {alias: bind(impls[alias], context) for alias in only}

    def aliases(self) -> dict[str, str]:
        """``{name in programs: tool name in the toolbox}``."""
        return {alias: spec.name for alias, spec in self.tools.items()}

    def info(self, approval: Callable[[ToolSpec], str]) -> dict:
        """The kit as ``lackpy kit info`` shows it: where it comes from, its grade, and each tool by the name programs call."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "path": str(self.path) if self.path else None,
            "grade": self.grade.to_dict(),
            "tools": [spec.row(approval(spec), alias) for alias, spec in self.tools.items()],
            "docs": list(self.docs),
            "extra": dict(self.extra),
        }


#: The tool that finds a kit's tools by words; every kit holding a remote tool (tagged REMOTE_TAG) holds it too.
SEARCH_TOOL = "search_tools"
REMOTE_TAG = "mcp"
#: A kit that is every tool of one MCP server: ``mcp:NAME`` (its tools are ``NAME__tool``).
SERVER_KIT = "mcp:"
#: The provider of remote tools (``lackpy.remote.enroll.PROVIDER``); their ``provider_config["server"]`` names the server.
REMOTE_PROVIDER = "mcp"


def _is_kit(name: str, kits_dir: Path | None) -> bool:
    try:
        find_kit(name, kits_dir)
    except UnknownKitError:
        return False
    return True


def resolve_kit(
    kit: KitSpec,
    toolbox: Toolbox,
    kits_dir: str | Path | None = None,
    extra_tools: Iterable[str] | None = None,
    *,
    workspace_kits: bool = True,
) -> ResolvedKit:
    """Resolve a kit given as a name, ``"none"``, ``"a,b"``, a list, or an alias dict.

    Named kits are looked up in ``kits_dir`` (default: the toolbox workspace's
    ``.lackpy/kits``), then in the package; with ``workspace_kits=False`` in
    the package only. ``extra_tools`` are merged in
    (duplicates ignored) and the grade recomputed.
    """
    kits_dir = None if not workspace_kits else Path(kits_dir) if kits_dir is not None else toolbox.kits_dir
    parsed = _parsed(kit, toolbox, kits_dir)
    _add_extra(parsed.aliases, extra_tools, toolbox)
    return _assembled(parsed, toolbox)


@dataclass
class _Parsed:
    """What a kit spec names before its tools are looked up: aliases, and a kit file's name, description, docs and limits."""

    aliases: dict[str, str]
    name: str | None = None
    description: str | None = None
    source: str | None = None
    limits: Any = None
    docs: tuple[Doc, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


def _parsed(kit: KitSpec, toolbox: Toolbox, kits_dir: Path | None) -> _Parsed:
    if kit is None:
        raise KitError("no kit given; name a kit, list tool names, or use 'none'")
    if isinstance(kit, str):
        return _from_text(kit.strip(), toolbox, kits_dir)
    if isinstance(kit, Mapping):
        return _Parsed(_from_mapping(kit))
    if isinstance(kit, Iterable):
        return _Parsed(_from_list(_named_tools(list(kit), toolbox)))
    raise KitError(f"a kit is a name, a list of tool names or an alias dict, not {type(kit).__name__}")


def _from_text(text: str, toolbox: Toolbox, kits_dir: Path | None) -> _Parsed:
    """``none``, ``mcp:NAME``, ``a,b``, one tool's name (when no kit has it), or a kit file's name."""
    if text in ("none", ""):
        return _Parsed({}, name="none")
    if text.startswith(SERVER_KIT) and "," not in text:
        return _Parsed(_from_list(server_tools(text, toolbox)), name=text, description=f"Every tool of the MCP server {text[len(SERVER_KIT):]}")
    if "," in text:
        return _Parsed(_from_list(_named_tools([t.strip() for t in text.split(",") if t.strip()], toolbox)))
    if text in toolbox and not _is_kit(text, kits_dir):
        return _Parsed(_from_list([text]))  # one tool's name, and no kit has it: that tool alone
    return _from_file(text, toolbox, kits_dir)


def _from_file(text: str, toolbox: Toolbox, kits_dir: Path | None) -> _Parsed:
    """The kit file named ``text``; a tool it names that the toolbox lacks is an error at its line."""
    source, kit_path = find_kit(text, kits_dir)
    kit_file = read_kit(kit_path)
    docs = (kit_doc(kit_file.docs, kit_path, source, toolbox.context.workspace, toolbox.doc_folders),) if kit_file.docs else ()
    for tool, line in kit_file.lines.items():
        if tool not in toolbox:
            try:
                toolbox.get(tool)
            except UnknownToolError as exc:
                raise KitFileError(f"{kit_path}, line {line}: {exc}") from None
    return _Parsed(
        {tool: tool for tool in kit_file.tools}, name=kit_file.name or text, description=kit_file.description, source=source,
        limits=kit_file.limits, docs=docs, extra=kit_file.extra, path=kit_path,
    )


def _from_mapping(kit: Mapping) -> dict[str, str]:
    """``{alias: tool}`` or ``{alias: {"tool": tool}}``."""
    aliases = {}
    for alias, target in kit.items():
        if isinstance(target, Mapping):
            target = target.get("tool")
        if not isinstance(target, str):
            raise KitError(f"kit entry '{alias}' must name a tool: {{'{alias}': 'tool'}} or {{'{alias}': {{'tool': 'tool'}}}}")
        aliases[_alias(alias)] = target
    return aliases


def _add_extra(aliases: dict[str, str], extra_tools: Iterable[str] | None, toolbox: Toolbox) -> None:
    """``extra_tools`` joined to ``aliases`` under their own names; one already there under another alias is a conflict."""
    for tool in extra_tools or ():
        if not isinstance(tool, str):
            raise KitError(f"extra tool names must be strings, not {type(tool).__name__}")
        tool = toolbox.canonical(tool)
        current = aliases.get(tool)
        if current is None:
            aliases[_alias(tool)] = tool
        elif current != tool:
            raise KitError(f"duplicate alias '{tool}': the kit maps it to '{current}', extra tools to '{tool}'")


def _assembled(parsed: _Parsed, toolbox: Toolbox) -> ResolvedKit:
    """The kit of ``parsed``'s tools, looked up in ``toolbox``: specs, implementations, grade and docs, bound to its context."""
    specs = {alias: toolbox.get(tool) for alias, tool in parsed.aliases.items()}
    if SEARCH_TOOL not in specs and SEARCH_TOOL in toolbox and any(REMOTE_TAG in spec.tags for spec in specs.values()):
        specs[SEARCH_TOOL] = toolbox.get(SEARCH_TOOL)  # a kit of remote tools can always look their signatures up
    docs = [doc.shown for doc in parsed.docs]
    for spec in specs.values():
        if spec.docs and spec.docs not in docs:
            docs.append(spec.docs)
    resolved = ResolvedKit(
        tools=specs,
        callables={},
        grade=compute_grade({a: {"grade_w": s.grade_w, "effects_ceiling": s.effects_ceiling} for a, s in specs.items()}),
        description=parsed.description or ("Tools: " + ", ".join(specs) if specs else "No tools"),
        docs=docs,
        own_docs=parsed.docs,
        name=parsed.name,
        extra=parsed.extra,
        source=parsed.source,
        impls={alias: toolbox.resolve(spec.name) for alias, spec in specs.items()},
        context=toolbox.context,
        limits=parsed.limits,
        config_limits=toolbox.config_limits,
        list_up_to=toolbox.list_up_to,
        path=parsed.path,
    )
    resolved.callables = resolved.bind(toolbox.context)
    return resolved


def server_tools(kit: str, toolbox: Toolbox) -> list[str]:
    """The tools of kit ``mcp:NAME``: every tool MCP server NAME serves, the server started first.

    Raises KitError naming the kit when NAME is not a server name, or the
    server is not configured here, did not start, or serves no tools.
    """
    server = kit[len(SERVER_KIT):].strip()
    if not server.isidentifier() or "__" in server:
        raise KitError(f"kit {kit!r}: name an MCP server after 'mcp:', e.g. mcp:github (lackpy mcp list shows them)")
    if toolbox.on_missing is not None:
        try:
            toolbox.on_missing(f"{server}__")  # starts the server when it has not started yet
        except UnknownToolError as exc:
            raise KitError(f"kit {kit!r}: {exc}") from None
    names = sorted(spec.name for spec in toolbox.registered() if spec.provider == REMOTE_PROVIDER and spec.provider_config.get("server") == server)
    if not names:
        raise KitError(f"kit {kit!r}: no MCP server {server!r} serves tools here; lackpy mcp status shows the servers and why one does not")
    return names


def _named_tools(names: list, toolbox: Toolbox) -> list:
    """A list of tool names, each ``mcp:NAME`` in it standing for every tool of that server (a tool it has counts once)."""
    found: list = []
    served: set[str] = set()
    for tool in names:
        if isinstance(tool, str) and tool.startswith(SERVER_KIT):
            more = [name for name in server_tools(tool, toolbox) if name not in found]
            found += more
            served.update(more)
        else:
            tool = toolbox.canonical(tool)
            if tool not in served:
                found.append(tool)
    return found


def _from_list(names: list) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for tool in names:
        if not isinstance(tool, str):
            raise KitError(f"tool names must be strings, not {type(tool).__name__}")
        if tool in aliases:
            raise KitError(f"duplicate tool '{tool}' in the kit; list each tool once")
        aliases[_alias(tool)] = tool
    return aliases


def _alias(alias: object) -> str:
    if not bindable(alias):
        raise KitError(f"{shown(alias)} cannot name a tool in programs ({RULE}); choose another alias")
    return alias
