"""ExecutionResult: frozen, and its JSON made from its fields in order, without the Python-only ones."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from lackpy import ExecutionResult, Toolbox, resolve_kit, run_program
from lackpy.errors import ErrorKind
from lackpy.plugins import populate

JSON_FIELDS = [
    "success", "complete", "output", "error", "error_kind", "error_line", "diagnostics", "trace", "limit", "limit_value",
    "files_read", "files_created", "files_modified", "files_deleted", "dry_run", "diff", "held_back", "mode", "grade", "program_grade", "risk",
    "printed", "output_truncated", "printed_truncated", "duration_ms", "notices", "session", "kept", "not_kept", "decisions",
    "assigned", "assigned_cut",
]


@pytest.fixture
def kit(workspace: Path):
    box = Toolbox(str(workspace))
    populate(box)
    return resolve_kit("filesystem", box)


def test_fields_and_json_keys_in_order():
    """to_dict has every field in declaration order except variables, limits and clock, which stay Python-only."""
    names = [f.name for f in dataclasses.fields(ExecutionResult)]
    assert names == JSON_FIELDS + ["variables", "limits", "clock"]
    assert list(ExecutionResult(True).to_dict()) == JSON_FIELDS


def test_a_run_result_is_frozen(kit):
    """No field of a finished run can be assigned: the result is what the run produced."""
    result = run_program("x = 2\nx * 21", kit, mode="inprocess")
    for name, value in [("success", False), ("output", 0), ("error", "changed"), ("variables", {})]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, name, value)
    assert (result.success, result.output, result.variables) == (True, 42, {"x": 2})


def test_to_dict_of_a_run_is_json_and_fits_the_schema(kit, workspace: Path):
    """A run's to_dict keeps the field order, leaves out variables and limits, and fits json_schema()."""
    result = run_program('text = read_file("README.md")\nwrite_file("out.txt", text.upper())\nlen(text)', kit, mode="inprocess")
    assert result.success, result.error
    data = result.to_dict()
    assert list(data) == JSON_FIELDS
    assert "variables" not in data and "limits" not in data
    assert result.variables["text"] == "# Demo\n\nStatus: draft\n" and result.limits is not None
    assert data["output"] == 22 and data["files_created"] == ["out.txt"] and data["files_read"] == ["README.md"]
    assert [entry["tool"] for entry in data["trace"]] == ["read_file", "write_file"]
    jsonschema.validate(data, ExecutionResult.json_schema())
    assert json.loads(json.dumps(data)) == data
    assert (workspace / "out.txt").read_text() == "# DEMO\n\nSTATUS: DRAFT\n"


def test_error_kind_is_an_error_kind_and_a_plain_word_in_json(kit):
    """A failed run's error_kind is an ErrorKind in Python and its plain value in to_dict."""
    result = run_program("undefined_tool()", kit, mode="inprocess")
    assert result.error_kind is ErrorKind.VALIDATION
    data = result.to_dict()
    assert data["error_kind"] == "validation" and type(data["error_kind"]) is str
    assert data["diagnostics"][0]["code"] == "unknown-function"
    jsonschema.validate(data, ExecutionResult.json_schema())
