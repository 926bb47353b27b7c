"""ToolSpec and ArgSpec: the metadata a kit, a model and the runner see of a tool.

A tool is declared once. ``@tool`` (``lackpy.kit.decorator``) builds the
ToolSpec from a function; a ToolSpec can also be written by hand. Either way
its parameters' JSON Schema (``input_schema()``) comes from the same ArgSpecs,
checks every call before the tool runs, and is exported in the shapes of
OpenAI, Anthropic and MCP.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Callable

from lackpy.errors import ArgumentError, SpecError
from lackpy.schema import compile_check, shown, text_schema


#: The categories lackpy's own tools use, for browsing and for ranking a search. A tool may use
#: another, in the same shape (lower-case words, ``/`` for a subcategory, e.g. ``finance/billing``).
CATEGORIES = (
    "system",
    "communication",
    "data",
    "data/visualization",
    "data/exploration",
    "data/management",
    "development",
    "development/execution",
    "development/project",
    "research",
    "creative",
    "media",
    "productivity",
)
_CATEGORY = re.compile(r"[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)*\Z")


def category_problem(value: Any) -> str | None:
    """Why ``value`` is not a category (None when it is one, or ``""``: no category).

    One rule for every way a category is declared (``@tool``, a hand-written
    ToolSpec, a server's config), so the same value is accepted everywhere.
    """
    if not isinstance(value, str):
        return f"must be a string such as 'communication', not {type(value).__name__}"
    if value and not _CATEGORY.match(value):
        return (
            f"{value!r} is not a category: lower-case words with '/' between levels, "
            f"e.g. {', '.join(repr(c) for c in CATEGORIES[:4])}"
        )
    return None


@dataclass
class ArgSpec:
    """One parameter of a tool: its name, type annotation string and meaning.

    An optional parameter has ``required=False`` and its ``default``.
    ``schema`` is its JSON Schema; when None it is derived from ``type``.
    """

    name: str
    type: str = "Any"
    description: str = ""
    required: bool = True
    default: Any = None
    schema: dict | None = None

    def signature(self) -> str:
        """``name: type``, then `` = default`` when optional; a None default shows ``type | None``, as the check accepts None."""
        if self.required:
            return f"{self.name}: {self.type}"
        shown = self.type if self.default is not None or _admits_none(self.type) else f"{self.type} | None"
        return f"{self.name}: {shown} = {self.default!r}"

    def json_schema(self) -> dict:
        """This parameter's schema, with its description and default."""
        schema = dict(self.schema if self.schema is not None else text_schema(self.type))
        if self.description:
            schema["description"] = self.description
        if not self.required and _plain(self.default):
            schema["default"] = self.default
        return schema


def _admits_none(text: str) -> bool:
    """Whether type text already allows None (``int | None``, ``Optional[int]``, ``Any``); text that is not a type is left as it is."""
    try:
        nodes = [ast.parse(text.strip() or "Any", mode="eval").body]
    except SyntaxError:
        return True
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            nodes += [node.left, node.right]
        elif isinstance(node, ast.Constant) and node.value is None:
            return True
        elif isinstance(node, ast.Name) and node.id in ("Any", "object", "None", "NoneType"):
            return True
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Optional":
            return True
    return False


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str)) or (
        isinstance(value, (list, tuple)) and all(_plain(v) for v in value)
    )


@dataclass(eq=False)
class ToolSpec:
    """The metadata record of one tool.

    ``grade_w`` is world coupling (0-3) and ``effects_ceiling`` the worst
    effect (0-3). ``docs`` is a path to a markdown file read only when asked:
    lackpy's own doc when the package ships that path, else a file beneath
    the workspace (a host's tool; ``lackpy.kit.docplace``). ``examples`` are short programs.
    ``tags`` are words a user might search for (synonyms the name and
    description lack); ``category`` is where the tool belongs (one of
    ``CATEGORIES`` or another lower-case path; ``""``: none said). Both feed
    ``Toolbox.search``.
    """

    name: str
    provider: str
    provider_config: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    args: list[ArgSpec] = field(default_factory=list)
    returns: str = "Any"
    grade_w: int = 0
    effects_ceiling: int = 0
    docs: str | None = None
    examples: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    category: str = ""
    approval: str | None = None
    """``"call"``: each call is approved before it runs unless configured otherwise (a command, a process, a web request)."""
    dry_run: str | dict | None = None
    """What a dry run does with a call (``dry_run_action``). ``"run"``: call it, for it changes nothing
    or only what the run stages (the file tools). ``"refuse"``: never call it; the call fails as
    ``denied``. ``{"placeholder": value}``: never call it; the program gets ``value`` (plain JSON data)
    instead. ``None``: by the grade: a tool that changes nothing (``effects_ceiling`` 0) runs, any
    other is refused, since lackpy cannot stage what it does."""

    def __post_init__(self) -> None:
        self.args = [a if isinstance(a, ArgSpec) else ArgSpec(**a) for a in self.args]
        if not isinstance(self.tags, (list, tuple)) or not all(isinstance(t, str) and t.strip() for t in self.tags):
            raise SpecError(f"tool {self.name!r}: tags must be a list of words, e.g. ['notify', 'email'], not {self.tags!r}")
        self.tags = list(self.tags)
        if self.approval not in (None, "call"):
            raise SpecError(f"tool {self.name!r}: approval must be \"call\" (approve each call before it runs) or left out, not {self.approval!r}")
        problem = category_problem(self.category)
        if problem:
            raise SpecError(f"tool {self.name!r}: category {problem}")
        self.dry_run = _dry_run(self.name, self.dry_run)
        for label in ("grade_w", "effects_ceiling"):
            value = getattr(self, label)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
                raise SpecError(f"tool {self.name!r}: {label} must be an integer from 0 to 3, not {value!r}")
        names = [a.name for a in self.args]
        if len(set(names)) != len(names):
            raise SpecError(f"tool {self.name!r}: each argument needs its own name, not {names}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolSpec) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    @property
    def dry_run_action(self) -> str:
        """``"run"``, ``"refuse"`` or ``"placeholder"``: what a dry run does with a call of this tool."""
        if self.dry_run is None:
            return "run" if self.effects_ceiling == 0 else "refuse"
        return self.dry_run if isinstance(self.dry_run, str) else "placeholder"

    def signature(self, alias: str | None = None) -> str:
        """``read_file(path: str) -> str``, under ``alias`` when the kit renames the tool."""
        params = ", ".join(a.signature() for a in self.args)
        return f"{alias or self.name}({params}) -> {self.returns}"

    def to_dict(self) -> dict:
        return asdict(self)

    def row(self, approval: str, alias: str | None = None) -> dict:
        """The tool as ``lackpy tools`` and ``lackpy kit info`` list it (``approval``: how a call of it is asked about)."""
        return {
            "name": alias or self.name,
            **({"tool": self.name} if alias is not None else {}),
            "signature": self.signature(alias),
            "description": self.description,
            "provider": self.provider,
            "grade": {"w": self.grade_w, "d": self.effects_ceiling},
            "category": self.category,
            "approval": approval,
            "docs": self.docs,
        }

    # -- the schema and its exports ---------------------------------------------

    def input_schema(self) -> dict:
        """The JSON Schema of the tool's arguments as one object (keyword arguments)."""
        return {
            "type": "object",
            "properties": {a.name: a.json_schema() for a in self.args},
            "required": [a.name for a in self.args if a.required],
            "additionalProperties": False,
        }

    def to_openai(self) -> dict:
        """A function tool for OpenAI's Chat Completions ``tools`` list."""
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": self.input_schema()}}

    def to_anthropic(self) -> dict:
        """A client tool for Anthropic's Messages API ``tools`` list."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema()}

    def to_mcp(self) -> dict:
        """An MCP ``Tool``: its input schema and annotations derived from the grade."""
        read_only = self.effects_ceiling == 0
        annotations = {"readOnlyHint": read_only, "openWorldHint": self.grade_w >= 2}
        if not read_only:
            annotations["destructiveHint"] = self.effects_ceiling >= 3
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema(), "annotations": annotations}

    # -- checking calls -------------------------------------------------------------

    @cached_property
    def check_arguments(self) -> Callable[[tuple, dict], None]:
        """``check(args, kwargs)``: raises ArgumentError unless a call fits the schema."""
        return _argument_check(self.name, self.args)


#: The largest placeholder a tool may declare for dry runs, as JSON text.
PLACEHOLDER_CHARS = 64 * 1024


def _dry_run(tool: str, value: Any) -> str | dict | None:
    """``value`` checked as a ToolSpec's ``dry_run``; a placeholder comes back as plain JSON data (tuples as lists)."""
    if value is None or value in ("run", "refuse"):
        return value
    if not isinstance(value, dict) or list(value) != ["placeholder"]:
        raise SpecError(
            f"tool {tool!r}: dry_run must be \"run\", \"refuse\" or {{\"placeholder\": value}} (or left out: by the grade), not {shown(value)}"
        )
    try:
        text = json.dumps(value["placeholder"], allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise SpecError(f"tool {tool!r}: a dry_run placeholder must be plain JSON data (str, numbers, bools, None, lists, dicts with str keys)") from None
    if len(text) > PLACEHOLDER_CHARS:
        raise SpecError(f"tool {tool!r}: a dry_run placeholder is at most {PLACEHOLDER_CHARS} characters of JSON, not {len(text)}")
    return {"placeholder": json.loads(text)}


#: Exact types that pass a simple schema type at once; anything else gets the full check.
_FAST_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (),  # items may need checking
    "object": (),
}


def _fast_types(schema: dict, optional_none: bool) -> frozenset:
    """Exact value types this schema accepts without looking inside the value."""
    kinds = schema.get("type")
    if not kinds or set(schema) - {"type", "description", "default"}:
        return frozenset({type(None)}) if optional_none else frozenset()
    kinds = [kinds] if isinstance(kinds, str) else kinds
    fast = {t for kind in kinds for t in _FAST_TYPES.get(kind, ())}
    if schema.get("type") in ("array", "object") and len(schema) <= 3:
        fast |= {list, tuple} if schema["type"] == "array" else {dict}
    if optional_none:
        fast.add(type(None))
    return frozenset(fast)


def _argument_check(tool: str, args: list[ArgSpec]) -> Callable[[tuple, dict], None]:
    names = [a.name for a in args]
    index = {name: i for i, name in enumerate(names)}
    schemas = {a.name: a.json_schema() for a in args}
    fast = {a.name: _fast_types(schemas[a.name], not a.required and a.default is None) for a in args}
    full = {name: compile_check(schema) for name, schema in schemas.items()}
    required = [a.name for a in args if a.required]
    leading = len(required) if names[: len(required)] == required else None  # all required come first
    most = len(names)
    usage = f"{tool}({', '.join(a.signature() for a in args)})"

    def slow(name: str, value: Any) -> None:
        if value is None and type(None) in fast[name]:
            return
        expected = full[name](value)
        if expected is not None:
            raise ArgumentError(f"{tool}: argument '{name}' expects {expected}, got {shown(value)}")

    def check(positional: tuple, keywords: dict) -> None:
        count = len(positional)
        if count > most:
            raise ArgumentError(f"{tool}: takes at most {most} positional arguments, got {count}; call it as {usage}")
        for name, value in zip(names, positional):
            if type(value) not in fast[name]:
                slow(name, value)
        if keywords:
            for name, value in keywords.items():
                at = index.get(name)
                if at is None:
                    hint = f"its arguments are {', '.join(names)}" if names else "it takes no arguments"
                    raise ArgumentError(f"{tool}: unknown argument '{name}'; {hint}")
                if at < count:
                    raise ArgumentError(f"{tool}: argument '{name}' is given twice (by position and by name)")
                if type(value) not in fast[name]:
                    slow(name, value)
        if required and (leading is None or count < leading):
            for name in required:
                if index[name] >= count and name not in keywords:
                    raise ArgumentError(f"{tool}: missing required argument '{name}'; call it as {usage}")

    return check
