"""ToolSpec and ArgSpec: fields, argument coercion, grade validation, signatures, the argument schema and its exports."""

from __future__ import annotations

import dataclasses
import re

import jsonschema
import pytest

from lackpy.errors import ArgumentError, ErrorKind, SpecError, ToolboxError
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.tools.builtin import SUITE_SPECS

ALL_FIELDS = {
    "name",
    "provider",
    "provider_config",
    "description",
    "args",
    "returns",
    "grade_w",
    "effects_ceiling",
    "docs",
    "examples",
    "tags",
    "category",
    "approval",
    "dry_run",
}


def test_toolspec_has_every_field():
    """ToolSpec declares exactly the documented metadata fields."""
    assert {f.name for f in dataclasses.fields(ToolSpec)} == ALL_FIELDS


def test_toolspec_stores_every_field():
    """Every field given to ToolSpec is kept as given."""
    spec = ToolSpec(
        name="count_lines",
        provider="python",
        provider_config={"module": "m", "function": "f"},
        description="Count lines",
        args=[ArgSpec("path", "str", "A file")],
        returns="int",
        grade_w=1,
        effects_ceiling=0,
        docs="docs/tools/count_lines.md",
        examples=['count_lines("a.txt")'],
        tags=["file", "count"],
    )
    assert spec.name == "count_lines"
    assert spec.provider == "python"
    assert spec.provider_config == {"module": "m", "function": "f"}
    assert spec.description == "Count lines"
    assert spec.args == [ArgSpec("path", "str", "A file")]
    assert spec.returns == "int"
    assert (spec.grade_w, spec.effects_ceiling) == (1, 0)
    assert spec.docs == "docs/tools/count_lines.md"
    assert spec.examples == ['count_lines("a.txt")']
    assert spec.tags == ["file", "count"]


def test_toolspec_defaults():
    """A ToolSpec with only name and provider gets empty, grade-0 defaults."""
    spec = ToolSpec("t", "p")
    assert spec.provider_config == {}
    assert spec.description == ""
    assert spec.args == []
    assert spec.returns == "Any"
    assert (spec.grade_w, spec.effects_ceiling) == (0, 0)
    assert spec.docs is None
    assert spec.examples == [] and spec.tags == []


def test_mutable_defaults_are_not_shared():
    """Two specs do not share their default dicts and lists."""
    a, b = ToolSpec("a", "p"), ToolSpec("b", "p")
    a.provider_config["x"] = 1
    a.tags.append("t")
    assert b.provider_config == {} and b.tags == []


def test_args_given_as_dicts_become_argspecs():
    """Args given as dicts are converted to ArgSpec instances with their values."""
    spec = ToolSpec(
        "t",
        "p",
        args=[{"name": "path", "type": "str"}, {"name": "limit", "type": "int", "required": False, "default": 10}],
    )
    assert all(isinstance(a, ArgSpec) for a in spec.args)
    assert spec.args[0] == ArgSpec("path", "str")
    assert spec.args[1] == ArgSpec("limit", "int", required=False, default=10)


def test_args_dict_with_unknown_key_raises():
    """An arg dict with a key ArgSpec does not know fails loudly."""
    with pytest.raises(TypeError):
        ToolSpec("t", "p", args=[{"name": "x", "colour": "red"}])


@pytest.mark.parametrize("field", ["grade_w", "effects_ceiling"])
@pytest.mark.parametrize("value", [-1, 4, 99, "1", 1.0, None])
def test_grade_out_of_range_raises(field, value):
    """A grade outside the integers 0..3 raises SpecError (a ToolboxError) naming the tool, field and value."""
    with pytest.raises(SpecError) as info:
        ToolSpec("bad_tool", "p", **{field: value})
    assert isinstance(info.value, ToolboxError)
    assert info.value.kind == ErrorKind.TOOLBOX == "toolbox"
    assert str(info.value) == f"tool 'bad_tool': {field} must be an integer from 0 to 3, not {value!r}"


@pytest.mark.parametrize("value", [0, 1, 2, 3])
def test_grade_in_range_accepted(value):
    """Every integer grade from 0 to 3 is accepted for both fields."""
    spec = ToolSpec("t", "p", grade_w=value, effects_ceiling=value)
    assert (spec.grade_w, spec.effects_ceiling) == (value, value)


def test_signature_without_alias():
    """signature() renders name, typed params and return type."""
    spec = ToolSpec("read_file", "builtin", args=[ArgSpec("path", "str")], returns="str")
    assert spec.signature() == "read_file(path: str) -> str"


def test_signature_with_alias():
    """signature(alias) renders the program-facing alias instead of the tool name."""
    spec = ToolSpec("read_file", "builtin", args=[ArgSpec("path", "str")], returns="str")
    assert spec.signature("rf") == "rf(path: str) -> str"


def test_signature_no_args():
    """A tool without args renders empty parentheses and the default return type."""
    assert ToolSpec("now", "p").signature() == "now() -> Any"


def test_signature_optional_arg():
    """An optional ArgSpec with a None default shows that None is allowed: ``offset: int | None = None``."""
    spec = ToolSpec(
        "read_file",
        "builtin",
        args=[ArgSpec("path", "str"), ArgSpec("offset", "int", required=False, default=None)],
        returns="str",
    )
    assert spec.signature() == "read_file(path: str, offset: int | None = None) -> str"
    spec.check_arguments(("a.txt",), {"offset": None})  # what it shows is what it accepts


@pytest.mark.parametrize(
    "type_text, shown",
    [
        ("float", "float | None"),
        ("list[str | None]", "list[str | None] | None"),  # a None inside is not the argument's own
        ("int | None", "int | None"),
        ("None | int", "None | int"),
        ("Optional[int]", "Optional[int]"),
        ("Any", "Any"),
        ("Literal['a', 'b'] | None", "Literal['a', 'b'] | None"),
    ],
)
def test_an_optional_none_default_shows_none_once(type_text, shown):
    assert ArgSpec("x", type_text, required=False, default=None).signature() == f"x: {shown} = None"
    assert ArgSpec("x", type_text, required=False, default=3).signature() == f"x: {type_text} = 3"


def test_argspec_signature_uses_repr_of_default():
    """An optional arg with a string default renders the default quoted."""
    assert ArgSpec("mode", "str", required=False, default="r").signature() == "mode: str = 'r'"
    assert ArgSpec("n").signature() == "n: Any"


def test_to_dict_round_trips():
    """to_dict gives plain data that rebuilds an equal ToolSpec."""
    spec = ToolSpec("t", "p", args=[ArgSpec("x", "int", required=False, default=3)], grade_w=2, tags=["a"])
    data = spec.to_dict()
    assert data["args"] == [{"name": "x", "type": "int", "description": "", "required": False, "default": 3, "schema": None}]
    assert ToolSpec(**data) == spec


def test_to_dict_carries_an_argument_schema():
    """An ArgSpec's schema is part of to_dict, and rebuilding from it keeps it."""
    spec = ToolSpec("t", "p", args=[ArgSpec("kind", "str", schema={"type": "string", "enum": ["a", "b"]})])
    data = spec.to_dict()
    assert data["args"][0]["schema"] == {"type": "string", "enum": ["a", "b"]}
    rebuilt = ToolSpec(**data)
    assert rebuilt == spec
    assert rebuilt.input_schema()["properties"]["kind"] == {"type": "string", "enum": ["a", "b"]}


def test_equality_compares_to_dict():
    """Two specs are equal exactly when their to_dict() are; a different schema makes them differ."""
    plain = ToolSpec("t", "p", args=[ArgSpec("x", "str")])
    assert plain == ToolSpec("t", "p", args=[ArgSpec("x", "str")])
    assert plain != ToolSpec("t", "p", args=[ArgSpec("x", "str", schema={"type": "string"})])
    assert plain != ToolSpec("t", "p", args=[ArgSpec("x", "str")], tags=["a"])
    assert plain != plain.to_dict()


# -- the JSON Schema of a tool's arguments, and its exports ------------------------------------

SUITE = {spec.name: spec for spec in SUITE_SPECS}
SUITE_NAMES = sorted(SUITE)
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_the_suite_is_every_builtin_tool():
    """SUITE_SPECS holds the sixteen tools lackpy ships, once each."""
    assert SUITE_NAMES == sorted(
        ["read_file", "find_files", "write_file", "edit_file", "list_dir", "grep", "run_command", "search_tools", "start_process",
         "poll_process", "stop_process", "list_processes", "todo_set", "todo_read", "fetch_url", "web_search", "skill_file"]
    )
    assert len(SUITE_SPECS) == len(SUITE)


def test_input_schema_of_read_file():
    """read_file: path required, offset and limit optional ints or None, nothing else accepted."""
    assert SUITE["read_file"].input_schema() == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace."},
            "offset": {"type": ["integer", "null"], "description": "First line to return, 1-based.", "default": None},
            "limit": {"type": ["integer", "null"], "description": "How many lines to return.", "default": None},
        },
        "required": ["path"],
        "additionalProperties": False,
    }


def test_input_schema_of_find_files_write_file_and_todo_set():
    """find_files' kind is an enum or None; write_file needs both strings; todo_set takes a list of str or dict."""
    assert SUITE["find_files"].input_schema()["properties"]["kind"] == {
        "anyOf": [{"type": "string", "enum": ["file", "dir", "any", "text"]}, {"type": "null"}],
        "description": "'file' (the default), 'dir', 'any', or 'text' (files read_file can read: not binary, at most 16 MiB).",
        "default": None,
    }
    assert SUITE["write_file"].input_schema() == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace."},
            "content": {"type": "string", "description": "The complete new text."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    assert SUITE["todo_set"].input_schema()["properties"]["items"] == {
        "type": "array",
        "items": {"type": ["string", "object"]},
        "description": "The whole checklist, in order.",
    }
    assert SUITE["list_processes"].input_schema() == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_input_schema_of_every_builtin_tool(name):
    """Every built-in tool's schema is a valid 2020-12 object schema listing exactly its arguments, each described."""
    spec = SUITE[name]
    schema = spec.input_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert list(schema["properties"]) == [a.name for a in spec.args]
    assert schema["required"] == [a.name for a in spec.args if a.required]
    for arg in spec.args:
        assert schema["properties"][arg.name]["description"] == arg.description != ""
        if not arg.required:
            assert schema["properties"][arg.name]["default"] == arg.default


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_the_argument_check_agrees_with_the_schema(name):
    """For sample calls by keyword, the tool's own check accepts exactly what jsonschema accepts."""
    spec = SUITE[name]
    validator = jsonschema.Draft202012Validator(spec.input_schema())
    samples = [None, True, 0, 3, -1, 2.5, "", "a.txt", "file", [], ["a"], [1], [{"text": "t"}], {}, {"k": 1}]
    for arg in spec.args:
        base = {a.name: _fitting(a) for a in spec.args if a.required}
        for value in samples:
            call = {**base, arg.name: value}
            expected = validator.is_valid(call) or (value is None and not arg.required and arg.default is None)
            try:
                spec.check_arguments((), call)
                accepted = True
            except ArgumentError:
                accepted = False
            assert accepted == expected, (name, arg.name, value)


def _fitting(arg: ArgSpec):
    return {"string": "a.txt", "array": ["a"], "integer": 1}[arg.json_schema()["type"]]


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_to_openai_is_a_chat_completions_function_tool(name):
    """to_openai: type 'function' and a function with a valid name, a description and a JSON Schema object."""
    spec = SUITE[name]
    exported = spec.to_openai()
    assert set(exported) == {"type", "function"}
    assert exported["type"] == "function"
    function = exported["function"]
    assert set(function) == {"name", "description", "parameters"}
    assert OPENAI_NAME.match(function["name"]) and function["name"] == name
    assert isinstance(function["description"], str) and function["description"] == spec.description
    jsonschema.Draft202012Validator.check_schema(function["parameters"])
    assert function["parameters"] == spec.input_schema()
    assert function["parameters"]["type"] == "object"


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_to_anthropic_fits_the_sdk_tool_param(name):
    """to_anthropic validates as the anthropic SDK's ToolParam and keeps the name, description and schema."""
    from anthropic.types import ToolParam
    from pydantic import TypeAdapter

    spec = SUITE[name]
    exported = spec.to_anthropic()
    validated = TypeAdapter(ToolParam).validate_python(exported)
    assert validated["name"] == name
    assert validated["description"] == spec.description
    assert validated["input_schema"]["type"] == "object"
    assert exported["input_schema"] == spec.input_schema()


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_to_mcp_fits_the_mcp_tool(name):
    """to_mcp validates as mcp.types.Tool; readOnlyHint follows the effects ceiling and openWorldHint world coupling."""
    import mcp.types

    spec = SUITE[name]
    parsed = mcp.types.Tool.model_validate(spec.to_mcp())
    assert parsed.name == name and parsed.description == spec.description
    assert parsed.input_schema == spec.input_schema()
    assert parsed.annotations.read_only_hint is (spec.effects_ceiling == 0)
    assert parsed.annotations.open_world_hint is (spec.grade_w >= 2)
    if spec.effects_ceiling == 0:
        assert parsed.annotations.destructive_hint is None
    else:
        assert parsed.annotations.destructive_hint is (spec.effects_ceiling == 3)


def test_mcp_annotations_of_read_file_and_write_file():
    """read_file is read-only and write_file destructive, as MCP clients see them."""
    import mcp.types

    read = mcp.types.Tool.model_validate(SUITE["read_file"].to_mcp()).annotations
    write = mcp.types.Tool.model_validate(SUITE["write_file"].to_mcp()).annotations
    assert (read.read_only_hint, read.destructive_hint) == (True, None)
    assert (write.read_only_hint, write.destructive_hint) == (False, True)
    assert SUITE["read_file"].to_mcp()["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert SUITE["write_file"].to_mcp()["annotations"] == {"readOnlyHint": False, "openWorldHint": True, "destructiveHint": True}


def test_hand_written_spec_schema_comes_from_its_type_strings():
    """A hand-written ArgSpec (schema None) gets its schema from its type text; unknown types accept anything."""
    spec = ToolSpec(
        "t",
        "p",
        args=[
            ArgSpec("n", "int | None", "How many.", required=False, default=None),
            ArgSpec("names", "list[str]"),
            ArgSpec("thing", "Widget"),
            ArgSpec("when", "str", required=False, default=object()),
        ],
    )
    assert spec.input_schema() == {
        "type": "object",
        "properties": {
            "n": {"type": ["integer", "null"], "description": "How many.", "default": None},
            "names": {"type": "array", "items": {"type": "string"}},
            "thing": {},
            "when": {"type": "string"},
        },
        "required": ["names", "thing"],
        "additionalProperties": False,
    }
    jsonschema.Draft202012Validator.check_schema(spec.input_schema())


def test_a_spec_with_no_args_takes_none():
    """A ToolSpec without args has an empty schema object and refuses any argument."""
    spec = ToolSpec("ping", "p")
    assert spec.input_schema() == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    spec.check_arguments((), {})
    with pytest.raises(ArgumentError, match=r"^ping: unknown argument 'x'; it takes no arguments$"):
        spec.check_arguments((), {"x": 1})
    with pytest.raises(ArgumentError, match=r"^ping: takes at most 0 positional arguments, got 1; call it as ping\(\)$"):
        spec.check_arguments((1,), {})


def test_argspec_has_every_field():
    """ArgSpec declares name, type, description, required, default and the new schema (None unless given)."""
    assert [f.name for f in dataclasses.fields(ArgSpec)] == ["name", "type", "description", "required", "default", "schema"]
    assert ArgSpec("x").schema is None
    assert ArgSpec("x", "int").json_schema() == {"type": "integer"}
    assert ArgSpec("x", "int", schema={"type": "integer", "minimum": 1}).json_schema() == {"type": "integer", "minimum": 1}
