"""lackpy serve through the TypeScript MCP SDK client (what most hosts run), over stdio and streamable HTTP.

The client checks every structured result against the tool's output schema,
errors included; each error path must reach it as a result with ``isError``
and lackpy's one line, never as a thrown -32602. One node process per
transport makes every call (tests/mcp/ts/calls.mjs) and prints JSON lines.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcp_support import PYTHON, start_http, stop
from installed import needs_ts

TS = Path(__file__).parent / "ts"
TOKEN = "ts-token-8d21"
SERVE = ["--allow-kits", "readonly,coding"]

CALLS = {
    "program_not_string": ("run_program", {"program": 123}),
    "no_program": ("run_program", {}),
    "refused_kit": ("run_program", {"program": "1", "kit": "filesystem"}),
    "unknown_kit": ("run_program", {"program": "1", "kit": "nosuch"}),
    "params_error": ("run_program", {"program": "1", "params": {"os": 1, "1x": 2}}),
    "validation_error": ("run_program", {"program": "import os\nos.getcwd()"}),
    "limit": ("run_program", {"program": "for i in range(3):\n    find_files('*.py')", "limits": {"max_tool_calls": 1}}),
    "tool_error": ("run_program", {"program": 'read_file("missing.txt")'}),
    "denied": ("run_program", {"program": "run_command('touch canary.txt')", "kit": "coding"}),
    "validate_unknown_kit": ("validate", {"program": "1", "kit": "nosuch"}),
    "delegate_refused_kit": ("delegate", {"intent": "count TODOs", "kit": "filesystem"}),
    "generate_unknown_kit": ("generate", {"intent": "count TODOs", "kit": "nosuch"}),
    "kit_info_unknown": ("kit_info", {"kit": "nosuch"}),
    "resolve_doc_missing": ("resolve_doc", {"path_or_tool": "no/such/doc.md"}),
    "ok": ("run_program", {"program": "1 + 1"}),
}

#: What lackpy's one line of each error path says (a fragment of the text the model reads).
SAYS = {
    "program_not_string": "argument 'program'",
    "no_program": "argument 'program' is required",
    "refused_kit": "--allow-kits",
    "unknown_kit": "unknown kit 'nosuch'",
    "params_error": "param",
    "validation_error": "validation error",
    "limit": "limit error",
    "tool_error": "missing.txt",
    "denied": "denied",
    "validate_unknown_kit": "unknown kit 'nosuch'",
    "delegate_refused_kit": "--allow-kits",
    "generate_unknown_kit": "unknown kit 'nosuch'",
    "kit_info_unknown": "unknown kit 'nosuch'",
    "resolve_doc_missing": "no/such/doc.md",
}


def _node() -> str:
    """The node executable, with the SDK installed from the lock file; a skip saying how to install it (a failure in CI)."""
    return needs_ts()


def _drive(node: str, config: dict, calls: dict = CALLS) -> dict:
    """Every call of ``calls`` (name: (tool, arguments)) made by one TypeScript client; its printed lines by call name."""
    config = dict(config, calls=[{"name": name, "tool": tool, "arguments": args} for name, (tool, args) in calls.items()])
    done = subprocess.run([node, str(TS / "calls.mjs"), json.dumps(config)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line["name"]: line for line in map(json.loads, done.stdout.splitlines())}


@pytest.fixture(scope="module", params=["stdio", "http"])
def answers(request, mcp_workspace, server_env) -> dict:
    node = _node()
    if request.param == "stdio":
        args = ["-m", "lackpy", "serve", "-w", str(mcp_workspace), *SERVE]
        return _drive(node, {"transport": "stdio", "command": PYTHON, "args": args, "env": server_env})
    process, port = start_http(mcp_workspace, dict(server_env, LACKPY_TEST_TOKEN=TOKEN), *SERVE, "--token-env", "LACKPY_TEST_TOKEN")
    try:
        return _drive(node, {"transport": "http", "url": f"http://127.0.0.1:{port}/mcp", "token": TOKEN})
    finally:
        stop(process)


@pytest.mark.parametrize("name", list(SAYS))
def test_every_error_reaches_the_typescript_client_as_a_result_with_lackpys_line(answers, name):
    answer = answers[name]
    assert "thrown" not in answer, answer
    assert answer["isError"] is True
    assert SAYS[name] in answer["text"] and "\n" not in answer["text"]
    assert answer["structured"] is not None


def test_a_success_still_conforms(answers):
    assert answers["ok"]["isError"] is False and answers["ok"]["structured"]["output"] == 2


def test_every_tool_declares_its_document_or_the_error_document(answers):
    schemas = {tool["name"]: tool["outputSchema"] for tool in answers["tools/list"]["tools"]}
    assert {"run_program", "validate", "delegate", "generate", "kit_list", "kit_info", "docs_index", "resolve_doc"} <= set(schemas)
    for schema in schemas.values():
        assert schema["type"] == "object" and schema["anyOf"][1]["title"] == "ErrorReport"


def test_an_exposed_tool_error_reaches_the_typescript_client_as_a_result(mcp_workspace, server_env):
    node = _node()
    args = ["-m", "lackpy", "serve", "-w", str(mcp_workspace), "--expose-tools"]
    calls = {"missing": ("read_file", {"path": "missing.txt"}), "bad_argument": ("read_file", {"nope": 1})}
    found = _drive(node, {"transport": "stdio", "command": PYTHON, "args": args, "env": server_env}, calls)
    assert found["missing"]["isError"] is True and "no such file: missing.txt" in found["missing"]["text"]
    assert found["bad_argument"]["isError"] is True and "unknown argument 'nope'" in found["bad_argument"]["text"]
