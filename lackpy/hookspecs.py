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
def register_skill_dirs(register):
    """Offer skills: call ``register(path)`` for each folder of skill folders a package ships (``lackpy.skills``)."""


@hookspec
def register_inference_providers(register):
    """Register inference tiers: call ``register(name, factory)`` for each one.

    ``factory(settings, workspace)`` builds the tier from its
    ``[inference.NAME]`` table; it should import heavy packages only when called.
    """


@hookspec
def before_tool_call(call):
    """See a tool call before it runs (a guardrail).

    ``call`` is a ``lackpy.run.guardrails.ToolCall``: ``tool`` (the name the
    program called), ``name`` (the tool's own) and ``arguments`` (by parameter
    name). Return None to let it pass, ``Deny("why")`` to refuse it (the
    program gets a ``denied`` error and nothing of the call happens), or a
    dict of arguments to run it with instead.
    """


@hookspec
def after_tool_call(call, result):
    """See a tool's result (a guardrail): return None to pass it on, or the value the program gets instead (redacted, say)."""
