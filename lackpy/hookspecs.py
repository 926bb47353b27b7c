"""Hook specifications: how built-in code and plugins add to lackpy.

A plugin is a module or object with ``@lackpy.hookimpl`` functions, listed
under the ``lackpy`` entry-point group of its package.
"""

import pluggy

hookspec = pluggy.HookspecMarker("lackpy")
hookimpl = pluggy.HookimplMarker("lackpy")


@hookspec
def register_tool_providers(register):
    """Register tool providers: call ``register(provider)`` for each one."""


@hookspec
def register_tools(register):
    """Register tools: call ``register(ToolSpec(...))`` for each one."""


@hookspec
def register_inference_providers(register):
    """Register inference tiers: call ``register(name, factory)`` for each one.

    ``factory(settings, workspace)`` builds the tier from its
    ``[inference.NAME]`` table; it should import heavy packages only when called.
    """
