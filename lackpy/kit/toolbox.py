"""The Toolbox: every registered tool and the providers that build them.

``ToolSpec`` and ``ArgSpec`` are importable from here too, as the kit
documentation has always shown (``from lackpy.kit.toolbox import ToolSpec, ArgSpec``).
"""

from __future__ import annotations

import builtins
import sys
import warnings
from typing import Any, Callable, Iterable, Mapping, Protocol, runtime_checkable

from lackpy.errors import LackpyWarning, ProviderError, ToolboxError, UnknownToolError, closest
from lackpy.kit.call import checked
from lackpy.kit.context import ToolContext, bind
from lackpy.kit.decorator import spec_of, spec_of_function
from lackpy.kit.docplace import DEFAULT_FOLDERS
from lackpy.kit.search import ToolMatch, rank
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.lang.names import RULE, bindable, shown


@runtime_checkable
class ToolProvider(Protocol):
    """Builds the callable for a ToolSpec whose ``provider`` is ``name``."""

    name: str

    def resolve(self, spec: ToolSpec) -> Callable[..., Any]:
        """Return the implementation; mark it ``uses_context`` to receive a ToolContext."""


class Toolbox:
    """Service-wide registry of tools (ToolSpec) and providers.

    Implementations are built on first ``resolve`` and cached, so a provider's
    imports happen only when a kit uses one of its tools. ``register(fn)``
    adds a function declared with ``@tool``; it is called as it is.
    """

    def __init__(self, workspace: str | None = None, settings: dict | None = None) -> None:
        self.context = ToolContext(workspace or ".", settings=settings)
        self.kits_dir = self.context.workspace / ".lackpy" / "kits"
        self._tools: dict[str, ToolSpec] = {}
        self._providers: dict[str, ToolProvider] = {}
        self._impls: dict[str, Callable[..., Any]] = {}
        self._functions: dict[str, Callable[..., Any]] = {}
        #: Counts registrations, so a resolved kit can tell it is stale.
        self.version = 0
        #: The configured ``[limits]`` every kit of this toolbox runs under (set by the service).
        self.config_limits: Any = None
        #: How many tools a prompt lists one by one (``[mcp] list_tools_up_to``, set by the service).
        self.list_up_to = 30
        #: The docs folders a workspace kit's ``docs:`` may name (``[kits] docs`` of a trusted config; set by the service).
        self.doc_folders: tuple[str, ...] = DEFAULT_FOLDERS
        #: ``on_missing(name)`` runs before the toolbox says it has no tool ``name`` (``None``: before listing
        #: every tool; ``SERVER__``: for every tool of that server), so tools that join on first use (a remote
        #: server's) can join; it may raise UnknownToolError.
        self.on_missing: Callable[[str | None], None] | None = None

    # -- registration ----------------------------------------------------

    def register_provider(self, provider: ToolProvider, *, replace: bool = False) -> None:
        name = getattr(provider, "name", None)
        if not isinstance(name, str) or not name or not callable(getattr(provider, "resolve", None)):
            raise ToolboxError("a tool provider needs a 'name' string and a 'resolve(spec)' method")
        if name in self._providers and self._providers[name] is not provider and not replace:
            raise ToolboxError(f"a provider named '{name}' is already registered; pass replace=True to replace it")
        self._providers[name] = provider
        self.version += 1
        self._impls = {t: f for t, f in self._impls.items() if self._tools[t].provider != name}

    def take_over(self, old: "Toolbox", leave: str) -> None:
        """What a host gave ``old`` goes on here: its session state (the processes programs started), and the providers
        and tools registered on it, except provider ``leave``'s (a rebuilt service's config brings back its own)."""
        self.context.state = old.context.state
        for name, provider in old._providers.items():
            if name != leave and name not in self._providers:
                self.register_provider(provider)
        for name, spec in old._tools.items():
            if name in self._tools or spec.provider == leave:
                continue
            function = old._functions.get(name)
            if function is not None:
                self.register(function)
            else:
                self.register_tool(spec)

    def register(self, fn: Callable[..., Any], *, replace: bool = False) -> ToolSpec:
        """Add a function as a tool: its ``@tool`` spec, or one derived from it now. Returns the spec."""
        spec = spec_of(fn) or spec_of_function(fn)
        self.register_tool(spec, replace=replace)
        self._functions[spec.name] = fn
        self._impls.pop(spec.name, None)
        self.version += 1
        return spec

    def register_tool(self, spec: ToolSpec, *, replace: bool = False) -> None:
        if not isinstance(spec, ToolSpec):
            raise ToolboxError(f"register_tool expects a ToolSpec, not {type(spec).__name__}")
        name = spec.name
        if not bindable(name):
            raise ToolboxError(f"tool name {shown(name)} cannot name a tool in programs ({RULE}); choose another name")
        if name in self._tools and not replace:
            if self._tools[name] == spec:
                return
            raise ToolboxError(f"a tool named '{name}' is already registered; pass replace=True to replace it")
        masked = _masks(name)
        if masked:
            warnings.warn(f"tool '{name}' masks the Python {masked} '{name}'", LackpyWarning, stacklevel=2)
        self._tools[name] = spec
        self._impls.pop(name, None)
        self._functions.pop(name, None)
        self.version += 1

    # -- lookup ----------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        if name in self._tools:
            return True
        if self.on_missing is None or not isinstance(name, str):
            return False
        try:
            self.on_missing(name)
        except UnknownToolError:
            return False
        return name in self._tools

    def get(self, name: str) -> ToolSpec:
        spec = self._tools.get(name) if isinstance(name, str) else None
        if spec is None and self.on_missing is not None and isinstance(name, str):
            self.on_missing(name)
            spec = self._tools.get(name)
        if spec is None:
            raise UnknownToolError(f"unknown tool '{name}'{closest(str(name), self._tools)}")
        return spec

    def canonical(self, name: str) -> str:
        """The tool ``name`` means: itself, else the one tool whose name matches it ignoring case, '_' and '-' (else ``name``)."""
        if not isinstance(name, str) or name in self._tools:
            return name
        key = _loose(name)
        found = [tool for tool in self._tools if _loose(tool) == key]
        return found[0] if len(found) == 1 else name

    def list_tools(self) -> list[ToolSpec]:
        if self.on_missing is not None:
            self.on_missing(None)
        return [self._tools[n] for n in sorted(self._tools)]

    def registered(self) -> list[ToolSpec]:
        """The tools registered now, asking ``on_missing`` for none (``list_tools`` would start every remote server)."""
        return [self._tools[n] for n in sorted(self._tools)]

    def providers(self) -> list[str]:
        return sorted(self._providers)

    def search(
        self, query: str, limit: int | None = 5, tools: Iterable[str] | Mapping[str, str] | None = None
    ) -> list[ToolMatch]:
        """The tools that match ``query`` (words a user would type), best first, each with its score and hits.

        ``tools`` narrows the search to a list of names or an ``{alias: tool}``
        mapping (a kit's tools under the names its programs call); default:
        every tool. The scoring is ``lackpy.kit.search``'s, the one every tool
        search in lackpy uses.
        """
        if tools is None:
            specs = {spec.name: spec for spec in self.list_tools()}
        elif isinstance(tools, Mapping):
            specs = {alias: self.get(name) for alias, name in tools.items()}
        else:
            specs = {name: self.get(name) for name in tools}
        return rank(query, specs, limit)

    def resolve(self, name: str) -> Callable[..., Any]:
        """The tool ``name`` as programs call it: its implementation behind its argument check.

        Marked ``uses_context`` when the implementation takes a ToolContext.
        """
        impl = self._impls.get(name)
        if impl is not None:
            return impl
        spec = self.get(name)
        function = self._functions.get(name)
        if function is not None:
            impl = self._impls[name] = checked(spec, function)
            return impl
        provider = self._providers.get(spec.provider)
        if provider is None:
            known = ", ".join(self.providers()) or "none"
            raise ProviderError(
                f"tool '{name}' needs provider '{spec.provider}', which is not registered (registered: {known}); "
                "install the plugin that provides it"
            )
        try:
            impl = provider.resolve(spec)
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(f"provider '{spec.provider}' cannot build tool '{name}': {type(exc).__name__}: {exc}") from exc
        if not callable(impl):
            raise ProviderError(f"provider '{spec.provider}' returned a non-callable for tool '{name}'")
        impl = self._impls[name] = checked(spec, impl)
        return impl

    def bound(self, name: str, context: ToolContext | None = None) -> Callable[..., Any]:
        """The tool as a program calls it: bound to ``context`` (default: the toolbox's)."""
        return bind(self.resolve(name), context or self.context)

    # -- presentation ----------------------------------------------------

    def format_description(self, tools: Iterable[str] | Mapping[str, str] | None = None) -> str:
        """The signature lines a model sees: ``name(args) -> returns: description``.

        ``tools`` is a list of names or an ``{alias: tool}`` mapping (default: all).
        """
        if tools is None:
            pairs = [(n, n) for n in sorted(self._tools)]
        elif isinstance(tools, Mapping):
            pairs = list(tools.items())
        else:
            pairs = [(n, n) for n in tools]
        lines = []
        for alias, name in pairs:
            spec = self.get(name)
            line = spec.signature(alias)
            if spec.description:
                line += f": {spec.description}"
            lines.append(line)
        return "\n".join(lines)


def _loose(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _masks(name: str) -> str:
    if name in vars(builtins):
        return "builtin"
    if name in sys.stdlib_module_names:
        return "stdlib module"
    return ""


__all__ = ["ArgSpec", "LackpyWarning", "ToolProvider", "ToolSpec", "Toolbox"]
