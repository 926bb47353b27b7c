"""One result contract: every --json document of every command fits the schema `lackpy schema` prints."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from lackpy import DelegateResult, ExecutionResult, LackpyService, ValidationResult
from lackpy.cli import cli
from lackpy.report import ErrorReport

KINDS = ["result", "delegate", "generate", "validate", "error"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("# TODO one\n")
    return tmp_path


def invoke(ws: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(cli, [*args, "-w", str(ws)], input=input)


def schema(name: str) -> dict:
    result = CliRunner().invoke(cli, ["schema", name])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def check(document: dict, name: str) -> None:
    jsonschema.Draft202012Validator(schema(name)).validate(document)


@pytest.mark.parametrize("name", KINDS)
def test_each_schema_is_a_json_schema(name):
    jsonschema.Draft202012Validator.check_schema(schema(name))


RUNS = [
    pytest.param("len(read_file('a.txt').splitlines())", [], 0, id="success"),
    pytest.param("import os", [], 2, id="invalid"),
    pytest.param("x = 0\n1 / x", [], 1, id="runtime"),
    pytest.param("read_file(3)", [], 1, id="argument"),
    pytest.param("read_file('missing.txt')", [], 1, id="tool"),
    pytest.param("sum(range(10 ** 9))", ["--timeout", "0.3"], 1, id="limit"),
    pytest.param("write_file('b.txt', 'new')\n'ok'", ["--dry-run"], 0, id="dry-run"),
    pytest.param("1", ["--limit", "nosuchlimit=1"], 2, id="bad-limit"),
    pytest.param("x", ["--param", "_x=1"], 2, id="bad-param"),
]


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize("program, options, status", RUNS)
def test_run_documents_fit_the_result_schema(ws, program, options, status, mode):
    result = invoke(ws, "run", "-", "--kit", "filesystem", "--mode", mode, "--json", *options, input=program)
    assert result.exit_code == status, result.output
    document = json.loads(result.output)
    check(document, "result")
    assert list(document) == [f.name for f in dataclasses.fields(ExecutionResult) if f.metadata.get("json", True)]


def test_delegate_and_generate_documents_fit_their_schemas(ws):
    delegated = invoke(ws, "delegate", "count TODOs", "--kit", "readonly", "--json")
    assert delegated.exit_code == 0, delegated.output
    document = json.loads(delegated.output)
    check(document, "delegate")
    check(document["execution"], "result")
    assert document["success"] is True and document["execution"]["output"] == 1
    generated = invoke(ws, "generate", "count TODOs", "--kit", "readonly", "--json")
    check(json.loads(generated.output), "generate")


def test_validate_documents_fit_the_schema(ws):
    for program, status in [("len('x')", 0), ("import os\nopen('x')", 2)]:
        result = invoke(ws, "validate", "-", "--json", input=program)
        assert result.exit_code == status
        check(json.loads(result.output), "validate")


ERRORS = [
    pytest.param(["run", "-", "--kit", "nosuchkit", "--json"], "1", "kit", id="unknown-kit"),
    pytest.param(["delegate", "compose a haiku", "--json"], None, "generation", id="generation"),
    pytest.param(["run", "-", "--param", "novalue", "--json"], "1", "usage", id="usage"),
    pytest.param(["docs", "show", "../../etc/passwd", "--json"], None, "docs", id="docs"),
]


@pytest.mark.parametrize("args, input, kind", ERRORS)
def test_error_documents_fit_the_error_schema(ws, args, input, kind):
    result = invoke(ws, *args, input=input)
    assert result.exit_code == 2, result.output
    document = json.loads(result.output)
    check(document, "error")
    assert document["error"]["kind"] == kind
    if kind != "generation":  # a generation error lists each tier's attempt and a config snippet
        assert "\n" not in document["error"]["message"]
    else:
        assert document["error"]["attempts"] and {a["tier"] for a in document["error"]["attempts"]} >= {"rules"}


def test_python_results_serialize_through_the_same_path(ws):
    svc = LackpyService(ws)
    run = asyncio.run(svc.run_program("read_file('a.txt')", "readonly", mode="inprocess"))
    delegated = asyncio.run(svc.delegate("count TODOs", "readonly"))
    validated = svc.validate("len('x')")
    jsonschema.validate(run.to_dict(), ExecutionResult.json_schema())
    jsonschema.validate(delegated.to_dict(), DelegateResult.json_schema())
    jsonschema.validate(validated.to_dict(), ValidationResult.json_schema())
    assert delegated.to_dict()["execution"] == delegated.execution.to_dict()
    assert (delegated.success, delegated.output) == (delegated.execution.success, delegated.execution.output)
    assert json.loads(json.dumps(run.to_dict())) == run.to_dict()


def test_results_are_frozen(ws):
    svc = LackpyService(ws)
    run = asyncio.run(svc.run_program("1", "readonly", mode="inprocess"))
    for result, name in [(run, "success"), (svc.validate("1"), "valid"), (asyncio.run(svc.delegate("count TODOs", "readonly")), "program")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, name, None)


def test_the_error_report_of_an_exception():
    from lackpy.errors import UnknownKitError

    report = ErrorReport.of(UnknownKitError("unknown kit 'x'"))
    assert report.to_dict() == {"error": {"kind": "kit", "message": "unknown kit 'x'", "attempts": [], "notices": []}}


OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.mark.parametrize("kit", ["readonly", "coding", "all"])
def test_tools_format_prints_each_sdk_shape(ws, kit):
    import mcp.types
    import pydantic
    from anthropic.types import ToolParam

    shapes = {}
    for format_ in ["openai", "anthropic", "mcp"]:
        result = invoke(ws, "tools", "--format", format_, "--kit", kit)
        assert result.exit_code == 0, result.output
        shapes[format_] = json.loads(result.output)
    names = [t["name"] for t in shapes["mcp"]]
    assert names == [t["name"] for t in shapes["anthropic"]] == [t["function"]["name"] for t in shapes["openai"]]
    assert names == list(LackpyService(ws).resolve_kit(kit).tools)
    for tool in shapes["openai"]:
        assert tool["type"] == "function" and OPENAI_NAME.match(tool["function"]["name"])
        assert isinstance(tool["function"]["description"], str)
        jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])
        assert tool["function"]["parameters"]["type"] == "object"
    for tool in shapes["anthropic"]:
        pydantic.TypeAdapter(ToolParam).validate_python(tool)
    for tool in shapes["mcp"]:
        parsed = mcp.types.Tool.model_validate(tool)
        assert parsed.input_schema["type"] == "object"


def test_tools_format_names_tools_as_the_kit_does(ws):
    result = invoke(ws, "tools", "--format", "mcp", "--kit", "read_file,grep")
    assert [t["name"] for t in json.loads(result.output)] == ["read_file", "grep"]
    bad = invoke(ws, "tools", "--format", "yaml")
    assert bad.exit_code == 2 and "yaml" in bad.output
