"""``@tool``: declare a tool once, as a plain function.

The function's signature and annotations give the arguments (names, types,
defaults, which are required) and the return type; its docstring gives the
description (the first paragraph) and each argument's meaning (an ``Args:``
section, or ``:param name:`` lines). The grade and the docs path are
decorator arguments::

    @tool(grade=(1, 0))
    def count_lines(path: str) -> int:
        \"\"\"Count the lines of a file.

        Args:
            path: File path, relative to the workspace.
        \"\"\"

``tags`` are words a user might search for that the name and description
lack (``tags=["notify", "email"]``), and ``category`` where the tool belongs
(``category="communication"``; see ``lackpy.kit.spec.CATEGORIES``); both rank
``Toolbox.search``.

A first parameter annotated ``ToolContext`` receives the run's context (the
workspace, its files) and is not an argument of the tool. The function stays
callable as it was; its ToolSpec is ``fn.lackpy_tool``, and
``toolbox.register(fn)`` adds it to a toolbox.
"""

from __future__ import annotations

import enum
import inspect
import re
import typing
from typing import Any, Callable, Iterable, TypeVar

from lackpy.errors import SpecError
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.schema import annotation_text, type_schema

F = TypeVar("F", bound=Callable[..., Any])

#: Names string annotations may use even where the function's module does not define them
#: (a tool defined inside a function, under ``from __future__ import annotations``).
_KNOWN_NAMES = {"ToolContext": ToolContext, **{name: getattr(typing, name) for name in ("Any", "Literal", "Optional", "Union", "Annotated")}}

#: The grade of a tool that declares none: lackpy cannot know what it does, so the worst.
UNDECLARED_GRADE = (3, 3)


def tool(
    fn: F | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    grade: tuple[int, int] = UNDECLARED_GRADE,
    docs: str | None = None,
    examples: Iterable[str] = (),
    tags: Iterable[str] = (),
    category: str = "",
    approval: str | None = None,
    dry_run: str | dict | None = None,
    provider: str | None = None,
) -> Any:
    """Build the ToolSpec of ``fn`` and attach it as ``fn.lackpy_tool``; usable bare or with arguments.

    ``grade`` is ``(w, d)``: world coupling and effects ceiling, 0-3 each.
    ``dry_run`` says what a dry run does with a call (``ToolSpec.dry_run``).
    ``provider`` defaults to ``python`` (the function's module and name), so
    a tool declared in an importable module can also be named in config.
    """

    def decorate(function: F) -> F:
        spec = spec_of_function(
            function,
            name=name,
            description=description,
            grade=grade,
            docs=docs,
            examples=list(examples),
            tags=_tag_list(tags),
            category=category,
            approval=approval,
            dry_run=dry_run,
            provider=provider,
        )
        function.lackpy_tool = spec  # type: ignore[attr-defined]
        return function

    return decorate(fn) if fn is not None else decorate


def spec_of(fn: Callable[..., Any]) -> ToolSpec | None:
    """The ToolSpec ``@tool`` attached to ``fn``, or None."""
    spec = getattr(fn, "lackpy_tool", None)
    return spec if isinstance(spec, ToolSpec) else None


def spec_of_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    grade: tuple[int, int] = UNDECLARED_GRADE,
    docs: str | None = None,
    examples: list[str] | None = None,
    tags: list[str] | None = None,
    category: str = "",
    approval: str | None = None,
    dry_run: str | dict | None = None,
    provider: str | None = None,
) -> ToolSpec:
    """The ToolSpec of a plain function (what ``@tool`` attaches)."""
    if not callable(fn) or not hasattr(fn, "__name__"):
        raise SpecError(f"@tool needs a function, not {type(fn).__name__}")
    tool_name = name or fn.__name__
    try:
        hints = typing.get_type_hints(fn, localns=_KNOWN_NAMES, include_extras=True)
    except Exception as exc:
        raise SpecError(f"tool '{tool_name}': its annotations cannot be read: {type(exc).__name__}: {exc}") from None
    summary, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
    params = list(inspect.signature(fn).parameters.values())
    if params and (hints.get(params[0].name) is ToolContext):
        uses_context(fn)
        params = params[1:]
    args = [_argument(tool_name, p, hints, arg_docs.get(p.name, "")) for p in params]
    enums = {p.name: hints[p.name] for p in params if _is_enum(hints.get(p.name))}
    if enums:
        fn.lackpy_enums = enums  # type: ignore[attr-defined]  # values become members before the call
    try:
        w, d = grade
    except (TypeError, ValueError):
        raise SpecError(f"tool '{tool_name}': grade must be (w, d), two integers from 0 to 3, not {grade!r}") from None
    returns = hints.get("return", Any)
    return ToolSpec(
        name=tool_name,
        provider=provider or "python",
        provider_config={} if provider else {"module": fn.__module__, "function": fn.__qualname__},
        description=description if description is not None else summary,
        args=args,
        returns=annotation_text(returns) if returns is not Any else "Any",
        grade_w=w,
        effects_ceiling=d,
        docs=docs,
        examples=list(examples or ()),
        tags=_tag_list(tags or ()),
        category=category,
        approval=approval,
        dry_run=dry_run,
    )


def _tag_list(tags: Iterable[str]) -> list[str]:
    """``tags`` as a list; one string would otherwise become a tag per letter."""
    if isinstance(tags, str):
        raise SpecError(f"tags must be a list of words, e.g. tags=[{tags!r}], not one string")
    return list(tags)


def _argument(tool_name: str, param: inspect.Parameter, hints: dict, doc: str) -> ArgSpec:
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
        raise SpecError(
            f"tool '{tool_name}': parameter '{param.name}' must be an ordinary named parameter (no *args, **kwargs or /)"
        )
    annotation = hints.get(param.name, Any)
    try:
        schema = type_schema(annotation)
    except SpecError as exc:
        raise SpecError(f"tool '{tool_name}', parameter '{param.name}': {exc}") from None
    required = param.default is inspect.Parameter.empty
    default = None if required else param.default
    return ArgSpec(
        name=param.name,
        type=annotation_text(annotation) if annotation is not Any else "Any",
        description=doc,
        required=required,
        default=default.value if isinstance(default, enum.Enum) else default,
        schema=schema,
    )


def _is_enum(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, enum.Enum)


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Returns?|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_PARAM_LINE = re.compile(r"^:param\s+(?:[\w\[\], |]+\s+)?(\w+):\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph (as one line) and ``{argument: description}`` of a docstring.

    Arguments come from a Google-style ``Args:`` section or reST ``:param x:`` lines.
    """
    lines = doc.expandtabs().splitlines()
    summary_lines: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()) or line.strip().startswith(":"):
            break
        summary_lines.append(line.strip())
    args: dict[str, str] = {}
    section = None
    current = None
    indent = None
    for line in lines:
        stripped = line.strip()
        header = _SECTION.match(stripped)
        if header and len(line) - len(line.lstrip()) == 0:
            section, current, indent = header.group(1), None, None
            continue
        param = _PARAM_LINE.match(stripped)
        if param:
            current, section = param.group(1), None
            args[current] = param.group(2).strip()
            continue
        if section in ("Args", "Arguments", "Parameters", "Params") and stripped:
            depth = len(line) - len(line.lstrip())
            match = _ARG_LINE.match(stripped)
            if match and (indent is None or depth <= indent):
                indent = depth
                current = match.group(1)
                args[current] = match.group(2).strip()
            elif current:
                args[current] = f"{args[current]} {stripped}".strip()
        elif current and stripped and section is None and line.startswith(" "):
            args[current] = f"{args[current]} {stripped}".strip()
        elif not stripped:
            current = None if section is None else current
    return " ".join(summary_lines), args


__all__ = ["UNDECLARED_GRADE", "parse_docstring", "spec_of", "spec_of_function", "tool"]
