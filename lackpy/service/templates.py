"""Templates, the ratchet: a program that worked, saved for the intents a pattern matches, and served without a model.

``LackpyService.template_save`` and ``template_list`` hand their work here.
A program is saved only once it validates against its kit; with an intent,
the values the pattern captures from it go back into the program as
placeholders, so the template generalizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from lackpy.errors import ParamError
from lackpy.kit.resolve import KitSpec
from lackpy.lang.validator import Check
from lackpy.run.compiler import prepare
from lackpy.service.kits import Kits
from lackpy.workspace import Workspace


def save(
    workspace: Workspace, kits: Kits, checks: Callable[[], tuple[Check, ...]], name: str, pattern: str, program: str, kit: KitSpec, intent: str | None, force: bool
) -> Path:
    """Validate ``program`` against ``kit`` (with ``checks()``) and save it as template ``name`` served for ``pattern``; its path."""
    from lackpy.infer.templates import Template, save_template

    values = None
    if intent is not None:
        values = Template(name=name, pattern=pattern, body="").match(intent)
        if values is None:
            raise ParamError(f"the pattern {pattern!r} does not match the intent {intent!r}; write a pattern that does")
    resolved = kits.resolve(kit)
    result = prepare(program, resolved.names, (), checks()).validation
    if not result.valid:
        raise ParamError(f"the program is not valid for kit {resolved.name or sorted(resolved.tools)}: {result.errors[0]}")
    kit_value = kit if isinstance(kit, str) else sorted(resolved.aliases().values()) if kit is not None else resolved.name
    with workspace.keeping():
        return save_template(workspace.root, name, pattern, program, kit_value, values=values, force=force)


def rows(workspace: Workspace) -> list[dict]:
    """Every template of the workspace, as ``lackpy template list`` shows it."""
    from lackpy.infer.templates import list_templates

    return list_templates(workspace.root)


__all__ = ["rows", "save"]
