"""lackpy.schema: JSON Schema from annotations and type strings, the compiled check, and bounded serialization."""

from __future__ import annotations

import dataclasses
import enum
import json
from collections import abc
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import jsonschema
import pytest

from lackpy.errors import SpecError
from lackpy.schema import (
    MAX_JSON_DEPTH,
    Contract,
    annotation_text,
    compile_check,
    describe,
    shown,
    text_schema,
    to_jsonable,
    type_schema,
)


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    ONE = 1
    TWO = "two"


class Point(TypedDict):
    x: int
    y: int


class Labelled(Point, total=False):
    label: str


class Widget:
    """A class with no JSON form."""


class Sized:
    """A class that says what its JSON Schema is."""

    @staticmethod
    def __json_schema__():
        return {"type": "integer", "minimum": 0}


@dataclasses.dataclass(frozen=True)
class Report(Contract):
    """A small result.

    Second paragraph, not in the schema."""

    count: int
    names: list[str] = dataclasses.field(default_factory=list, metadata={"doc": "The names."})
    hidden: Any = dataclasses.field(default=None, metadata={"json": False})


# -- type_schema --------------------------------------------------------------------------

TYPE_SCHEMAS = [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (None, {"type": "null"}),
    (type(None), {"type": "null"}),
    (Any, {}),
    (object, {}),
    (list, {"type": "array"}),
    (list[str], {"type": "array", "items": {"type": "string"}}),
    (list[list[int]], {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}),
    (abc.Sequence[str], {"type": "array", "items": {"type": "string"}}),
    (set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    (frozenset[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}),
    (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (tuple, {"type": "array"}),
    (dict, {"type": "object"}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (dict[str, Any], {"type": "object"}),
    (int | None, {"type": ["integer", "null"]}),
    (Optional[str], {"type": ["string", "null"]}),
    (Union[int, str, None], {"type": ["integer", "string", "null"]}),
    (list[str] | None, {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}),
    (int | Any, {}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
    (Literal["a", 1], {"enum": ["a", 1]}),
    (Colour, {"type": "string", "enum": ["red", "green"]}),
    (Level, {"type": "integer", "enum": [1, 2]}),
    (Mixed, {"enum": [1, "two"]}),
    (Point, {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]}),
    (Labelled, {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "label": {"type": "string"}}, "required": ["x", "y"]}),
    (Annotated[int, "how many"], {"type": "integer", "description": "how many"}),
    (Annotated[str, 3], {"type": "string"}),
    (Sized, {"type": "integer", "minimum": 0}),
]


@pytest.mark.parametrize("annotation, schema", TYPE_SCHEMAS, ids=[repr(a) for a, _ in TYPE_SCHEMAS])
def test_type_schema(annotation, schema):
    """Each supported annotation has its JSON Schema, and that schema is valid 2020-12."""
    assert type_schema(annotation) == schema
    jsonschema.Draft202012Validator.check_schema(schema)


def test_type_schema_of_a_dataclass_lists_its_json_fields():
    """A dataclass becomes an object of its fields (all required), without those marked json: False."""
    assert type_schema(Report) == {
        "type": "object",
        "title": "Report",
        "properties": {"count": {"type": "integer"}, "names": {"type": "array", "items": {"type": "string"}, "description": "The names."}},
        "required": ["count", "names"],
        "description": "A small result.",
    }


@pytest.mark.parametrize("annotation", [Widget, list[Widget], dict[str, Widget], Widget | None])
def test_type_schema_refuses_what_has_no_json_form(annotation):
    """strict (the default) refuses a class of one's own, wherever it is nested, with SpecError naming it."""
    with pytest.raises(SpecError) as info:
        type_schema(annotation)
    assert "the annotation Widget has no JSON form" in str(info.value)


def test_type_schema_not_strict_accepts_anything_for_unknown_classes():
    """With strict=False an unknown class accepts any value, and a union containing it does too."""
    assert type_schema(Widget, strict=False) == {}
    assert type_schema(list[Widget], strict=False) == {"type": "array", "items": {}}
    assert type_schema(Widget | None, strict=False) == {}


# -- text_schema ----------------------------------------------------------------------------

TEXT_SCHEMAS = [
    ("str", {"type": "string"}),
    ("int | None", {"type": ["integer", "null"]}),
    ("Optional[int]", {"type": ["integer", "null"]}),
    ("list[str]", {"type": "array", "items": {"type": "string"}}),
    ("List[int]", {"type": "array", "items": {"type": "integer"}}),
    ("typing.List[int]", {"type": "array", "items": {"type": "integer"}}),
    ("dict[str, int]", {"type": "object", "additionalProperties": {"type": "integer"}}),
    ("list[dict]", {"type": "array", "items": {"type": "object"}}),
    ("Literal['a', 'b']", {"type": "string", "enum": ["a", "b"]}),
    ("Literal[1, 2]", {"type": "integer", "enum": [1, 2]}),
    ("tuple[int, ...]", {"type": "array", "items": {"type": "integer"}}),
    ("Union[int, str]", {"type": ["integer", "string"]}),
    ("  float  ", {"type": "number"}),
    ("None", {"type": "null"}),
    ("Any", {}),
    ("", {}),
    ("Widget", {}),
    ("Widget | None", {}),
    ("list[Widget]", {"type": "array", "items": {}}),
    ("Widget[int]", {}),
    ("int |", {}),
    ("list[", {}),
    ("__import__('os').system('echo pwned')", {}),
    ("lambda: 1", {}),
]


@pytest.mark.parametrize("text, schema", TEXT_SCHEMAS, ids=[t for t, _ in TEXT_SCHEMAS])
def test_text_schema(text, schema):
    """A type written as text gets the schema of that type; unknown names and malformed text accept anything."""
    assert text_schema(text) == schema


def test_text_schema_executes_nothing(capfd):
    """A type string is read, never run: a call in it has no effect."""
    assert text_schema("print('ran')") == {}
    assert capfd.readouterr().out == ""


# -- annotation_text, describe, shown ------------------------------------------------------------


@pytest.mark.parametrize(
    "annotation, text",
    [
        (str, "str"),
        (int | None, "int | None"),
        (Optional[int], "int | None"),
        (list[str | dict], "list[str | dict]"),
        (Literal["file", "dir"], "Literal['file', 'dir']"),
        (tuple[int, ...], "tuple[int, ...]"),
        (Annotated[int, "n"], "int"),
        (Colour, "Colour"),
        (None, "None"),
        ("already text", "already text"),
    ],
)
def test_annotation_text(annotation, text):
    """Annotations read as they would in a signature."""
    assert annotation_text(annotation) == text


def test_describe_and_shown():
    """describe says what a schema expects in words; shown gives a short repr with the type."""
    assert describe({"type": "integer"}) == "an int"
    assert describe({"type": ["integer", "null"]}) == "an int or None"
    assert describe({"type": "array", "items": {"type": "string"}}) == "a list of a str"
    assert describe({"enum": ["a", "b"]}) == "one of 'a', 'b'"
    assert describe({"anyOf": [{"type": "boolean"}, {"type": "null"}]}) == "a bool or None"
    assert describe({}) == "any value"
    assert shown(3) == "3 (int)"
    assert shown("x" * 1000).endswith("' (str)") and len(shown("x" * 1000)) < 80
    assert shown(list(range(100))) == "[0, 1, 2, 3, ...] (list)"


# -- compile_check ------------------------------------------------------------------------------

CHECKS = [
    ({"type": "integer"}, [0, -3, 10**30], [True, False, 1.0, "1", None]),
    ({"type": "number"}, [1, 2.5, -0.0], [True, "2.5", None]),
    ({"type": "boolean"}, [True, False], [0, 1, "true", None]),
    ({"type": "string"}, ["", "a"], [b"a", 1, None]),
    ({"type": "null"}, [None], [0, "", False]),
    ({"type": ["integer", "null"]}, [1, None], [True, "1", 1.5]),
    ({"type": "array", "items": {"type": "string"}}, [[], ["a"], ("a", "b"), {"a"}], [["a", 1], "abc", {1}, None]),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, [{}, {"a": 1}], [{"a": "1"}, {"a": True}, [("a", 1)]]),
    ({"enum": ["a", 1]}, ["a", 1], [True, 1.0, "b", None]),
    ({"type": "string", "enum": ["file", "dir"]}, ["file"], ["folder", "FILE"]),
    ({"anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]}, ["x", None], ["y", 0]),
    (
        {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": False},
        [{"x": 1}],
        [{}, {"x": "1"}, {"x": 1, "y": 2}],
    ),
    ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}, [[1, "a"], (2, "b")], [[1], ["a", 1], [1, "a", 2]]),
    ({}, [None, 1, "a", object()], []),
]


@pytest.mark.parametrize("schema, good, bad", CHECKS, ids=[json.dumps(s)[:50] for s, _, _ in CHECKS])
def test_compile_check(schema, good, bad):
    """The compiled check returns None for fitting values and says what was expected for the others."""
    check = compile_check(schema)
    for value in good:
        assert check(value) is None, value
    for value in bad:
        assert check(value) == describe(schema), value


def test_bool_is_not_an_int_and_an_int_is_a_number():
    """True is refused as an int and as a number; an int is accepted as a number; 1.0 is not an int."""
    assert compile_check(type_schema(int))(True) == "an int"
    assert compile_check(type_schema(float))(True) == "a number"
    assert compile_check(type_schema(float))(7) is None
    assert compile_check(type_schema(int))(1.0) == "an int"


def test_compile_check_of_a_typeddict():
    """A TypedDict's required keys must be there; its optional key may be left out but must fit when given."""
    check = compile_check(type_schema(Labelled))
    assert check({"x": 1, "y": 2}) is None
    assert check({"x": 1, "y": 2, "label": "p"}) is None
    expected = "a dict with keys 'x', 'y', 'label' (optional)"
    assert check({"x": 1}) == expected
    assert check({"x": 1, "y": 2, "label": 3}) == expected
    assert check([1, 2]) == expected


def test_compile_check_of_an_enum_needs_the_exact_type():
    """Enum values are compared by value and type: 1 is not True, and 'red' fits Colour's schema."""
    check = compile_check(type_schema(Colour))
    assert check("red") is None
    assert check("blue") == "one of 'red', 'green'"
    assert compile_check({"enum": [True]})(1) == "one of True"


# -- to_jsonable -------------------------------------------------------------------------------


def test_to_jsonable_of_a_very_deep_list_is_a_bounded_summary():
    """A list nested 200,000 deep does not raise: past MAX_JSON_DEPTH levels it becomes a short repr."""
    value: list = []
    for _ in range(200_000):
        value = [value]
    data = to_jsonable(value)
    depth, inner = 0, data
    while isinstance(inner, list):
        assert len(inner) == 1
        inner, depth = inner[0], depth + 1
    assert depth == MAX_JSON_DEPTH + 1
    assert isinstance(inner, str) and inner.startswith("[[") and "..." in inner and len(inner) < 50
    text = json.dumps(data)
    assert len(text) < 1000
    assert json.loads(text) == data


def test_to_jsonable_of_a_deep_dict_is_bounded_too():
    """Dicts nested deeply are cut the same way."""
    value: dict = {}
    for _ in range(50_000):
        value = {"k": value}
    text = json.dumps(to_jsonable(value))
    assert text.count('"k"') == MAX_JSON_DEPTH + 1
    assert len(text) < 2000


def test_to_jsonable_plain_data():
    """Tuples and sets become lists (sets sorted), keys become strings, non-finite floats and bytes text, enums their values."""
    assert to_jsonable({1: (1, 2), "s": {3, 1}, "f": float("inf"), "b": b"hi\xff", "e": Colour.RED, "i": Level.HIGH}) == {
        "1": [1, 2],
        "s": [1, 3],
        "f": "inf",
        "b": "hi\ufffd",
        "e": "red",
        "i": 2,
    }
    assert to_jsonable({"x", 1}) in ([1, "x"], ["x", 1])
    assert to_jsonable(Widget()).startswith("<")
    assert to_jsonable(Report(2, ["a"], hidden="secret")) == {"count": 2, "names": ["a"]}


def test_contract_to_dict_and_json_schema_agree():
    """A Contract's to_dict fits its own json_schema, and leaves out fields marked json: False."""
    report = Report(3, ["a", "b"], hidden=object())
    assert report.to_dict() == {"count": 3, "names": ["a", "b"]}
    schema = Report.json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.validate(report.to_dict(), schema)
    assert "hidden" not in schema["properties"]
