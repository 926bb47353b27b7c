"""What a dry run does with each tool call: make it, refuse it, or answer it with the tool's placeholder.

A dry run stages every write of the file tools and applies none of them.
What lackpy cannot stage (a command, a process, a remote tool that can change
things, any tool whose spec says so: ``ToolSpec.dry_run``) is not called at
all: the call fails as ``denied``, or gets the placeholder its spec states.
Either way the result lists it in ``held_back``.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from lackpy.errors import DeniedError
from lackpy.kit.spec import ToolSpec
from lackpy.run.trace import HeldCall
from lackpy.summary import summarize


def holding(alias: str, spec: ToolSpec, fn: Callable[..., Any], held: list[HeldCall], steps: Callable[[], int]) -> Callable[..., Any]:
    """``fn`` as a dry run calls it: itself when it may run, else a stand-in that calls nothing and notes the call in ``held``.

    The stand-in checks the arguments first, so a call a real run would refuse
    as malformed fails the same way. ``steps()`` is the number of calls the
    run's trace holds, so each held call names its trace step.
    """
    action = spec.dry_run_action
    if action == "run":
        return fn
    names = [arg.name for arg in spec.args]
    placeholder = spec.dry_run["placeholder"] if action == "placeholder" else None
    check = spec.check_arguments

    def held_back(*args: Any, **kwargs: Any) -> Any:
        check(args, kwargs)
        arguments = dict(zip(names, args))
        arguments.update(kwargs)
        answer = "placeholder" if action == "placeholder" else "refused"
        held.append(HeldCall(steps() + 1, alias, {name: summarize(value) for name, value in arguments.items()}, answer))
        if action == "placeholder":
            return copy.deepcopy(placeholder)  # the program may change what it gets; the spec's value stays
        raise DeniedError(f"not called: the dry run held it back, as lackpy cannot stage what it does ({_why(spec)}); run without the dry run to call it")

    held_back.__name__ = alias
    return held_back


def _why(spec: ToolSpec) -> str:
    """Why a call was refused: the spec's word, or the grade that says the tool can change things."""
    return "its spec says so" if spec.dry_run == "refuse" else f"its effects grade is {spec.effects_ceiling}"


__all__ = ["holding"]
