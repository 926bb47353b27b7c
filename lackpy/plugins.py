"""The plugin manager: built-in plugins, then the ``lackpy`` entry points.

``LACKPY_LOAD_PLUGINS`` limits which entry points load: unset loads all, an
empty value loads none, ``a,b`` loads only those names. A plugin that fails to
import is skipped with a warning instead of breaking lackpy.
"""

from __future__ import annotations

import os
import warnings
from importlib import import_module, metadata

import pluggy

from lackpy import hookspecs

DEFAULT_PLUGINS = ("lackpy.kit.providers", "lackpy.tools.builtin", "lackpy.infer.builtin", "lackpy.skills.builtin")
ENTRY_POINT_GROUP = "lackpy"

_manager: pluggy.PluginManager | None = None


class PluginWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, loaded on first use."""
    global _manager
    if _manager is None:
        _manager = build_plugin_manager()
    return _manager


def build_plugin_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager("lackpy")
    manager.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        manager.register(import_module(name), name=name)
    _load_entry_points(manager)
    return manager


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    wanted = os.environ.get("LACKPY_LOAD_PLUGINS")
    allowed = None if wanted is None else {n.strip() for n in wanted.split(",") if n.strip()}
    if allowed is not None and not allowed:
        return
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if allowed is not None and entry_point.name not in allowed:
            continue
        if manager.get_plugin(entry_point.name) is not None:
            continue
        try:
            manager.register(entry_point.load(), name=entry_point.name)
        except Exception as exc:
            warnings.warn(f"lackpy plugin '{entry_point.name}' was skipped: {type(exc).__name__}: {exc}", PluginWarning)


def populate(toolbox, manager: pluggy.PluginManager | None = None) -> None:
    """Register every plugin's providers and tools into ``toolbox``."""
    manager = manager or get_plugin_manager()
    manager.hook.register_tool_providers(register=toolbox.register_provider)
    manager.hook.register_tools(register=toolbox.register_tool)


def skill_dirs(manager: pluggy.PluginManager | None = None) -> list[str]:
    """The folders of skills every plugin offers, in the order the plugins were registered."""
    manager = manager or get_plugin_manager()
    found: list[str] = []
    manager.hook.register_skill_dirs(register=lambda path: found.append(str(path)))
    return found


def inference_factories(manager: pluggy.PluginManager | None = None) -> dict:
    """``{tier name: factory}`` from every plugin.

    Built-in tiers are registered first and keep their names: a plugin that
    registers a name again is skipped with a warning, never silently swapped in.
    """
    manager = manager or get_plugin_manager()
    factories: dict = {}
    for impl in manager.hook.register_inference_providers.get_hookimpls():  # oldest plugin first
        found: list = []
        impl.function(register=lambda name, factory: found.append((name, factory)))
        for name, factory in found:
            if name in factories:
                warnings.warn(
                    f"inference tier '{name}' from plugin '{impl.plugin_name}' is already registered; it was skipped",
                    PluginWarning,
                )
                continue
            factories[name] = factory
    return factories
