"""ToolSpec and ArgSpec: fields, argument coercion, grade validation and signatures."""

from __future__ import annotations

import dataclasses

import pytest

from lackpy.kit.spec import ArgSpec, ToolSpec

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
    """A grade outside the integers 0..3 raises ValueError naming the tool and field."""
    with pytest.raises(ValueError) as info:
        ToolSpec("bad_tool", "p", **{field: value})
    assert "bad_tool" in str(info.value)
    assert field in str(info.value)


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
    """An optional ArgSpec renders with its default: ``offset: int = None``."""
    spec = ToolSpec(
        "read_file",
        "builtin",
        args=[ArgSpec("path", "str"), ArgSpec("offset", "int", required=False, default=None)],
        returns="str",
    )
    assert spec.signature() == "read_file(path: str, offset: int = None) -> str"


def test_argspec_signature_uses_repr_of_default():
    """An optional arg with a string default renders the default quoted."""
    assert ArgSpec("mode", "str", required=False, default="r").signature() == "mode: str = 'r'"
    assert ArgSpec("n").signature() == "n: Any"


def test_to_dict_round_trips():
    """to_dict gives plain data that rebuilds an equal ToolSpec."""
    spec = ToolSpec("t", "p", args=[ArgSpec("x", "int", required=False, default=3)], grade_w=2, tags=["a"])
    data = spec.to_dict()
    assert data["args"] == [{"name": "x", "type": "int", "description": "", "required": False, "default": 3}]
    assert ToolSpec(**data) == spec
