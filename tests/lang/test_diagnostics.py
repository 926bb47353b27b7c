"""Diagnostics and results: one-line text, stable dict shapes, JSON-ready."""

from __future__ import annotations

import dataclasses
import json

import pytest

from lackpy import Diagnostic, ValidationResult, validate

OPEN_DIAGNOSTIC = Diagnostic(
    "forbidden-name", "'open' is not available", 1, 5, "no direct I/O; use read_file(path) instead of open()"
)


def test_str_with_position_and_hint():
    """str() is 'line L, col C: message [code] (hint: ...)'."""
    assert str(OPEN_DIAGNOSTIC) == (
        "line 1, col 5: 'open' is not available [forbidden-name] "
        "(hint: no direct I/O; use read_file(path) instead of open())"
    )


def test_str_without_position_or_hint():
    """A whole-program diagnostic without hint has neither prefix nor hint."""
    assert str(Diagnostic("empty-program", "program is empty")) == "program is empty [empty-program]"


def test_str_without_hint():
    """Without a hint the text ends with the code."""
    assert str(Diagnostic("x-code", "msg", 2, 3)) == "line 2, col 3: msg [x-code]"


REAL_PROGRAMS = [
    "open('a')", "import os", "x = (", "", "y = f'{_x}'", "a, *b, *c = xs\nbreak", "'__'", "listdir('.')",
    "x = " + "1" * 5000, "x = 'abc", "if x:\npass", "\x00",
]


@pytest.mark.parametrize("program", REAL_PROGRAMS)
def test_real_diagnostics_print_on_one_line(program):
    """Every diagnostic validate produces prints as one line with its code in brackets."""
    result = validate(program)
    assert result.errors
    for diag in result.errors:
        text = str(diag)
        assert "\n" not in text
        assert f"[{diag.code}]" in text
        if diag.line:
            assert text.startswith(f"line {diag.line}, col {diag.col}: ")


def test_diagnostic_to_dict_keys():
    """to_dict has exactly code, message, line, col and hint."""
    data = OPEN_DIAGNOSTIC.to_dict()
    assert set(data) == {"code", "message", "line", "col", "hint"}
    assert data == {
        "code": "forbidden-name",
        "message": "'open' is not available",
        "line": 1,
        "col": 5,
        "hint": "no direct I/O; use read_file(path) instead of open()",
    }


def test_diagnostic_defaults():
    """line, col and hint default to 0, 0 and ''."""
    diag = Diagnostic("parse-error", "bad")
    assert (diag.line, diag.col, diag.hint) == (0, 0, "")


def test_diagnostic_is_frozen():
    """Diagnostics are immutable."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        OPEN_DIAGNOSTIC.code = "other"  # type: ignore[misc]


def test_validation_result_to_dict_keys():
    """ValidationResult.to_dict has exactly valid, errors, calls and variables."""
    data = validate("y = len(xs)\nopen(y)", params=["xs"]).to_dict()
    assert set(data) == {"valid", "errors", "calls", "variables", "notices", "grade", "risk"}
    assert data["valid"] is False
    assert data["calls"] == ["len"]
    assert data["variables"] == ["y"]
    assert [e["code"] for e in data["errors"]] == ["forbidden-name"]
    assert set(data["errors"][0]) == {"code", "message", "line", "col", "hint"}


def test_validation_result_to_dict_is_json():
    """to_dict of a result with errors survives a JSON round trip."""
    data = validate("import os\nx.__class__").to_dict()
    assert json.loads(json.dumps(data)) == data


def test_valid_result_shape():
    """A valid result has valid=True and an empty error list."""
    result = validate("print(1)")
    assert result == ValidationResult(True, [], ["print"], [])


def test_to_dict_returns_copies():
    """Changing to_dict's lists does not change the result."""
    result = validate("y = len([1])")
    data = result.to_dict()
    data["calls"].append("x")
    data["variables"].clear()
    assert result.calls == ["len"]
    assert result.variables == ["y"]


def test_validation_result_is_frozen():
    """A ValidationResult cannot be changed after validate made it; to_dict keeps the field order."""
    result = validate("import os", ["read_file"])
    for name, value in [("valid", True), ("errors", []), ("calls", ["x"])]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, name, value)
    assert result.valid is False and [e.code for e in result.errors] == ["forbidden-node"]
    assert list(result.to_dict()) == ["valid", "errors", "calls", "variables", "notices", "grade", "risk"]
