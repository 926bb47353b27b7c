"""@tool: a ToolSpec from a function's signature, annotations and docstring; registering and running such tools."""

from __future__ import annotations

import asyncio
import enum
import time
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

import pytest

import lackpy
from lackpy import LackpyService, ToolContext, Toolbox, resolve_kit, run_program, tool
from lackpy.errors import ArgumentError, ErrorKind, SpecError, ToolboxError
from lackpy.kit.context import takes_context
from lackpy.kit.decorator import UNDECLARED_GRADE, parse_docstring, spec_of, spec_of_function
from lackpy.kit.spec import ArgSpec, ToolSpec

MODES = ["inprocess", "isolated"]


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(TypedDict):
    x: int
    y: int


class Widget:
    """A class of the test's own: it has no JSON form."""


# -- tools declared for the tests ------------------------------------------------------


@tool(grade=(1, 0), docs="docs/tools/count_lines.md", examples=['count_lines("a.txt")'], tags=["file", "count"])
def count_lines(ctx: ToolContext, path: str, blank: bool = True, limit: int | None = None) -> int:
    """Count the lines of a workspace file.

    Blank lines count unless blank is False.

    Args:
        path: File path, relative to the workspace.
        blank: Count blank lines too.
        limit (int): Stop counting after this many lines;
            None counts them all.

    Returns:
        The number of lines.
    """
    lines = (ctx.workspace / path).read_text().splitlines()
    if not blank:
        lines = [line for line in lines if line.strip()]
    return len(lines) if limit is None else min(len(lines), limit)


@tool
def shout(text: str, times: int = 1) -> str:
    """Upper-case a text.

    :param text: What to shout.
    :param int times: How often to
        repeat it.
    :returns: The shouted text.
    """
    return text.upper() * times


def repeat(text: str, times: int = 2) -> str:
    """Repeat a text, as a plain function with no decorator."""
    return text * times


@tool(grade=(0, 0))
def typed(
    mode: Literal["fast", "slow"],
    count: int | None,
    names: list[str],
    weights: dict[str, int],
    colour: Colour,
    at: Point,
    note: str = "",
) -> dict:
    """Take one argument of each supported kind."""
    return {"mode": mode, "count": count, "names": names, "weights": weights, "colour": colour, "at": at, "note": note}


@tool(grade=(0, 0))
async def later(text: str, delay: float = 0.0) -> str:
    """Upper-case a text after a pause, as an async tool."""
    await asyncio.sleep(delay)
    return text.upper()


@tool(grade=(1, 0))
async def async_head(ctx: ToolContext, path: str) -> str:
    """The first line of a workspace file, read by an async tool that takes the context."""
    await asyncio.sleep(0)
    return (ctx.workspace / path).read_text().splitlines()[0]


# -- the spec built from a function ------------------------------------------------------


def test_google_docstring_gives_description_and_argument_meanings():
    """The first paragraph is the description; the Args section gives each argument's meaning, continued lines joined."""
    spec = count_lines.lackpy_tool
    assert isinstance(spec, ToolSpec)
    assert spec.name == "count_lines"
    assert spec.description == "Count the lines of a workspace file."
    assert spec.args == [
        ArgSpec("path", "str", "File path, relative to the workspace.", True, None, {"type": "string"}),
        ArgSpec("blank", "bool", "Count blank lines too.", False, True, {"type": "boolean"}),
        ArgSpec("limit", "int | None", "Stop counting after this many lines; None counts them all.", False, None, {"type": ["integer", "null"]}),
    ]
    assert spec.returns == "int"
    assert spec.signature() == "count_lines(path: str, blank: bool = True, limit: int | None = None) -> int"


def test_decorator_arguments_are_kept():
    """grade, docs, examples and tags given to @tool land in the spec; the provider is python, naming the function."""
    spec = count_lines.lackpy_tool
    assert (spec.grade_w, spec.effects_ceiling) == (1, 0)
    assert spec.docs == "docs/tools/count_lines.md"
    assert spec.examples == ['count_lines("a.txt")']
    assert spec.tags == ["file", "count"]
    assert spec.provider == "python"
    assert spec.provider_config == {"module": __name__, "function": "count_lines"}


def test_rest_param_lines_give_argument_meanings():
    """``:param x:`` lines (with or without a type) give the meanings; an indented continuation joins its line."""
    spec = shout.lackpy_tool
    assert spec.description == "Upper-case a text."
    assert [(a.name, a.description) for a in spec.args] == [("text", "What to shout."), ("times", "How often to repeat it.")]
    assert spec.signature() == "shout(text: str, times: int = 1) -> str"


def test_required_optional_and_defaults():
    """A parameter without a default is required; one with a default is optional and keeps it, in the schema too."""
    spec = shout.lackpy_tool
    assert [(a.name, a.required, a.default) for a in spec.args] == [("text", True, None), ("times", False, 1)]
    schema = spec.input_schema()
    assert schema["required"] == ["text"]
    assert schema["properties"]["times"] == {"type": "integer", "description": "How often to repeat it.", "default": 1}
    assert "default" not in schema["properties"]["text"]


def test_each_supported_annotation_becomes_its_schema():
    """Literal, int | None, list[str], dict[str, int], an Enum and a TypedDict each get their JSON Schema and text."""
    args = {a.name: a for a in typed.lackpy_tool.args}
    assert {name: (a.type, a.schema) for name, a in args.items()} == {
        "mode": ("Literal['fast', 'slow']", {"type": "string", "enum": ["fast", "slow"]}),
        "count": ("int | None", {"type": ["integer", "null"]}),
        "names": ("list[str]", {"type": "array", "items": {"type": "string"}}),
        "weights": ("dict[str, int]", {"type": "object", "additionalProperties": {"type": "integer"}}),
        "colour": ("Colour", {"type": "string", "enum": ["red", "green"]}),
        "at": (
            "Point",
            {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]},
        ),
        "note": ("str", {"type": "string"}),
    }
    assert [name for name, a in args.items() if a.required] == ["mode", "count", "names", "weights", "colour", "at"]
    assert typed.lackpy_tool.returns == "dict"


GOOD_TYPED = {"mode": "fast", "count": None, "names": ["a"], "weights": {"a": 1}, "colour": "red", "at": {"x": 1, "y": 2}}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"mode": "medium"}, "typed: argument 'mode' expects one of 'fast', 'slow', got 'medium' (str)"),
        ({"count": "3"}, "typed: argument 'count' expects an int or None, got '3' (str)"),
        ({"names": ["a", 1]}, "typed: argument 'names' expects a list of a str, got ['a', 1] (list)"),
        ({"weights": {"a": "1"}}, "typed: argument 'weights' expects a dict, got {'a': '1'} (dict)"),
        ({"colour": "blue"}, "typed: argument 'colour' expects one of 'red', 'green', got 'blue' (str)"),
        ({"at": {"x": 1}}, "typed: argument 'at' expects a dict with keys 'x', 'y', got {'x': 1} (dict)"),
    ],
    ids=["literal", "optional-int", "list-item", "dict-value", "enum", "typeddict-key"],
)
def test_the_schema_of_each_annotation_checks_calls(change, message):
    """A call that breaks one annotation's schema is refused before the tool runs; the fitting call goes through."""
    box = Toolbox(".")
    box.register(typed)
    call = box.bound("typed")
    assert call(**GOOD_TYPED) == {**GOOD_TYPED, "colour": Colour.RED, "note": ""}  # an Enum's value arrives as its member
    with pytest.raises(ArgumentError) as info:
        call(**{**GOOD_TYPED, **change})
    assert str(info.value) == message


def test_a_first_tool_context_parameter_is_not_an_argument():
    """A first parameter annotated ToolContext receives the context: it is no argument and marks the function."""
    assert [a.name for a in count_lines.lackpy_tool.args] == ["path", "blank", "limit"]
    assert takes_context(count_lines) is True
    assert takes_context(shout) is False
    assert "ctx" not in count_lines.lackpy_tool.input_schema()["properties"]


def test_a_context_tool_gets_the_toolbox_context(workspace: Path):
    """Registered and bound, a context tool reads through the toolbox's workspace."""
    box = Toolbox(str(workspace))
    box.register(count_lines)
    assert box.bound("count_lines")("src/app.py") == 3
    assert box.bound("count_lines")("README.md", blank=False) == 2
    assert box.bound("count_lines")("README.md", limit=1) == 1


def test_tool_context_later_than_first_is_refused():
    """Only the first parameter may take the context; later, ToolContext is an annotation with no JSON form."""

    def late(path: str, ctx: ToolContext) -> str:
        return path

    with pytest.raises(SpecError) as info:
        tool(late)
    assert str(info.value).startswith("tool 'late', parameter 'ctx': the annotation ToolContext has no JSON form")


@pytest.mark.parametrize(
    "source, parameter",
    [
        ("def bad(path: str, *rest: str) -> str:\n    return path", "rest"),
        ("def bad(path: str, **options: str) -> str:\n    return path", "options"),
    ],
    ids=["*args", "**kwargs"],
)
def test_star_parameters_are_refused(source, parameter):
    """*args and **kwargs cannot be described by a schema: SpecError naming the tool and the parameter."""
    scope: dict = {}
    exec(source, scope)
    with pytest.raises(SpecError) as info:
        tool(scope["bad"])
    assert str(info.value) == (
        f"tool 'bad': parameter '{parameter}' must be an ordinary named parameter (no *args, **kwargs or /)"
    )
    assert isinstance(info.value, ToolboxError) and info.value.kind == ErrorKind.TOOLBOX
    assert not hasattr(scope["bad"], "lackpy_tool")


def test_an_annotation_with_no_json_form_is_refused():
    """A parameter annotated with a class of one's own: SpecError naming the tool, the parameter and the class."""

    def build(widget: Widget) -> str:
        return "built"

    with pytest.raises(SpecError) as info:
        tool(name="builder")(build)
    message = str(info.value)
    assert message.startswith("tool 'builder', parameter 'widget': the annotation Widget has no JSON form; use str, int")
    assert not hasattr(build, "lackpy_tool")


@pytest.mark.parametrize("grade, expected", [((4, 0), "grade_w must be an integer from 0 to 3, not 4"), ("high", "grade must be (w, d)")])
def test_a_bad_grade_is_refused(grade, expected):
    """A grade outside 0-3, or not a pair, is a SpecError naming the tool."""

    def f(x: int) -> int:
        return x

    with pytest.raises(SpecError, match=r"tool 'f'.*" + expected.replace("(", r"\(").replace(")", r"\)")):
        tool(grade=grade)(f)


def test_undeclared_grade_is_the_worst():
    """A tool that declares no grade gets (3, 3): lackpy cannot know what it does."""
    assert UNDECLARED_GRADE == (3, 3)
    assert (shout.lackpy_tool.grade_w, shout.lackpy_tool.effects_ceiling) == (3, 3)
    assert (spec_of_function(repeat).grade_w, spec_of_function(repeat).effects_ceiling) == (3, 3)


def test_name_and_description_can_be_given():
    """@tool(name=..., description=...) override the function's name and docstring."""

    @tool(name="yell", description="Say it loudly.", grade=(0, 0))
    def loud(text: str) -> str:
        """Not this."""
        return text.upper()

    assert (loud.lackpy_tool.name, loud.lackpy_tool.description) == ("yell", "Say it loudly.")
    assert loud.lackpy_tool.provider_config == {"module": __name__, "function": loud.__qualname__}


def test_decorated_function_stays_callable_and_spec_of_finds_the_spec():
    """The function is returned as it was; spec_of gives its spec, and None for an undecorated function."""
    assert shout("hi", 2) == "HIHI"
    assert spec_of(shout) is shout.lackpy_tool
    assert spec_of(repeat) is None
    assert lackpy.tool is tool


def test_no_docstring_gives_empty_descriptions():
    """Without a docstring the description and the argument meanings are empty, and no annotation means Any."""

    @tool(grade=(0, 0))
    def bare(x, y: int = 2):
        return x

    spec = bare.lackpy_tool
    assert spec.description == ""
    assert [(a.name, a.type, a.description, a.schema) for a in spec.args] == [("x", "Any", "", {}), ("y", "int", "", {"type": "integer"})]
    assert spec.returns == "Any"


def test_parse_docstring_sections():
    """parse_docstring stops the summary at the first blank line or section, and ignores Returns and Raises."""
    summary, args = parse_docstring(
        "Find things\nquickly.\n\nArgs:\n    a (str): First.\n    b: Second,\n        longer.\n\nReturns:\n    x: not an argument.\n\nRaises:\n    ValueError: never.\n"
    )
    assert summary == "Find things quickly."
    assert args == {"a": "First.", "b": "Second, longer."}
    assert parse_docstring(":param a: only params") == ("", {"a": "only params"})


# -- registering and running --------------------------------------------------------------


def test_register_a_decorated_function(workspace: Path):
    """toolbox.register(fn) adds the @tool spec as it is and returns it."""
    box = Toolbox(str(workspace))
    spec = box.register(shout)
    assert spec is shout.lackpy_tool
    assert box.get("shout") is spec
    assert box.bound("shout")("a", times=3) == "AAA"


def test_register_a_plain_function(workspace: Path):
    """toolbox.register of an undecorated function derives its spec now: signature, docstring, worst grade."""
    box = Toolbox(str(workspace))
    spec = box.register(repeat)
    assert spec.signature() == "repeat(text: str, times: int = 2) -> str"
    assert spec.description == "Repeat a text, as a plain function with no decorator."
    assert (spec.grade_w, spec.effects_ceiling) == (3, 3)
    assert not hasattr(repeat, "lackpy_tool")
    assert box.bound("repeat")("ab") == "abab"


@pytest.mark.parametrize("mode", MODES)
def test_registered_tools_run_in_a_program(workspace: Path, mode):
    """A decorated tool, a plain one and a context tool run in a program through lackpy.run_program."""
    box = Toolbox(str(workspace))
    for fn in (shout, repeat, count_lines):
        box.register(fn)
    kit = resolve_kit(["shout", "repeat", "count_lines"], box)
    result = run_program('n = count_lines("src/app.py")\nrepeat(shout("ok"), n)', kit, mode=mode)
    assert result.success, result.error
    assert result.output == "OKOKOK"
    assert [entry.tool for entry in result.trace] == ["count_lines", "shout", "repeat"]
    assert result.grade.to_dict() == {"w": 3, "d": 3}  # repeat declares no grade


@pytest.mark.parametrize("mode", MODES)
def test_registered_tool_runs_through_the_service(workspace: Path, mode):
    """LackpyService.run_program with a kit list runs a tool registered in its toolbox; a bad call is 'argument'."""
    service = LackpyService(workspace)
    try:
        service.toolbox.register(repeat)
        result = asyncio.run(service.run_program('repeat("xy", 3)', ["repeat"], mode=mode))
        assert (result.success, result.output) == (True, "xyxyxy")
        refused = asyncio.run(service.run_program("repeat(3)", ["repeat"], mode=mode))
        assert (refused.success, refused.error_kind) == (False, "argument")
        assert refused.error == "line 1: ArgumentError in repeat: repeat: argument 'text' expects a str, got 3 (int)"
    finally:
        service.close()


# -- async tools -------------------------------------------------------------------------


def test_an_async_tool_called_directly_is_awaited(workspace: Path):
    """Bound outside a run, an async tool gives its value, not a coroutine."""
    box = Toolbox(str(workspace))
    box.register(later)
    box.register(async_head)
    assert box.bound("later")("hi") == "HI"
    assert box.bound("async_head")("README.md") == "# Demo"


@pytest.mark.parametrize("mode", MODES)
def test_an_async_tool_is_awaited_in_a_program(workspace: Path, mode):
    """In both modes an async tool's value (not a coroutine) reaches the program, with or without the context."""
    box = Toolbox(str(workspace))
    box.register(later)
    box.register(async_head)
    kit = resolve_kit(["later", "async_head"], box)
    result = run_program('[later("hi"), async_head("src/app.py")]', kit, mode=mode)
    assert result.success, result.error
    assert result.output == ["HI", "# TODO: one"]


@pytest.mark.parametrize("mode", MODES)
def test_an_async_tool_past_the_timeout_is_a_limit(workspace: Path, mode):
    """An async tool sleeping past the run's timeout stops the run with error_kind 'limit' soon after the deadline."""
    box = Toolbox(str(workspace))
    box.register(later)
    kit = resolve_kit(["later"], box)
    started = time.monotonic()
    result = run_program('later("hi", 30)', kit, mode=mode, limits={"timeout_s": 0.5})
    assert time.monotonic() - started < 5
    assert (result.success, result.error_kind, result.limit) == (False, "limit", "timeout")
    assert result.output is None


# -- what a review of the first version found ------------------------------------------


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


class Options(TypedDict):
    size: int
    label: NotRequired[str]


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_enum_values_become_members_and_sets_and_optional_keys_pass(tmp_path, mode):
    @tool(grade=(0, 0))
    def paint(shade: Shade = Shade.LIGHT, tags: set[str] | None = None, options: Options | None = None) -> str:
        """Describe a paint job."""
        return f"{shade.name} {sorted(tags or [])} {options}"

    assert paint.lackpy_tool.signature() == "paint(shade: Shade = 'light', tags: set[str] | None = None, options: Options | None = None) -> str"
    svc = LackpyService(tmp_path)
    svc.toolbox.register(paint)
    result = asyncio.run(svc.run_program('paint("dark", {"b", "a"}, {"size": 2})', ["paint"], mode=mode))
    assert (result.success, result.output) == (True, "DARK ['a', 'b'] {'size': 2}")
    assert asyncio.run(svc.run_program("paint()", ["paint"], mode=mode)).output == "LIGHT [] None"
    refused = asyncio.run(svc.run_program('paint(options={"label": "x"})', ["paint"], mode=mode))
    assert refused.error.endswith("argument 'options' expects a dict with keys 'size', 'label' (optional) or None, got {'label': 'x'} (dict)")
    assert svc.toolbox.bound("paint")(Shade.DARK) == "DARK [] None"


def test_the_shipped_decorator_survives_the_builtin_module_import():
    import lackpy.tools.builtin  # noqa: F401  (the module of the same old name)
    from lackpy.tools import shipped

    @shipped(grade=(0, 0))
    def late() -> int:
        """A tool declared after the shipped tools' modules loaded."""
        return 1

    assert late.lackpy_tool.provider == "builtin"
