"""lackpy serve through the MCP SDK's own client: in-process, over stdio and over streamable HTTP.

Each transport runs one session per module that makes every call once; the
tests below read its answers, so every check runs on every transport.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from mcp_support import COUNT, PYTHON, comparable, result, run, session_results, start_http, stop

#: The size of run_program's description for the readonly kit, in tokens (4 characters each), never to grow past.
READONLY_DESCRIPTION_TOKENS = 450
TOKEN = "test-token-5f0c"
#: A loop of tool calls that its time limit stops.
PARTIAL = 'print("reading")\nsizes = []\nfor i in range(100000):\n    sizes.append(len(read_file("README.md")))\n    n = 0\n    for j in range(20000):\n        n += 1\nsizes'



def calls() -> dict:
    """Every call a session makes, by name."""
    tool = lambda name, **args: (lambda client: client.call_tool(name, args))  # noqa: E731
    return {
        "tools": lambda client: client.list_tools(),
        "run": tool("run_program", program=COUNT),
        "run_traced": tool("run_program", program=COUNT, trace=True),
        "failed_traced": tool("run_program", program='read_file("missing.txt")', trace=True),
        "run_params": tool("run_program", program="read_file(name).strip()", params={"name": "README.md"}, kit="readonly"),
        "invalid": tool("run_program", program="import os\nos.getcwd()"),
        "unknown_kit": tool("run_program", program="1", kit="nosuch"),
        "not_allowed": tool("run_program", program="1", kit="coding"),
        "tools_not_allowed": tool("run_program", program="1", kit="read_file,run_command"),
        "tools_allowed": tool("run_program", program='len(find_files("**/*.py"))', kit="find_files,grep"),
        "failed": tool("run_program", program='read_file("missing.txt")'),
        "partial": tool("run_program", program=PARTIAL, limits={"timeout_s": 1}),
        "validate_ok": tool("validate", program=COUNT),
        "validate_bad": tool("validate", program="import os"),
        "delegate": tool("delegate", intent="count TODOs", kit="readonly"),
        "delegate_traced": tool("delegate", intent="count TODOs", kit="readonly", trace=True),
        "delegate_not_allowed": tool("delegate", intent="count TODOs", kit="coding"),
        "generate": tool("generate", intent="count TODOs"),
        "kit_list": tool("kit_list"),
        "kit_info": tool("kit_info", kit="readonly"),
        "docs_index": tool("docs_index"),
        "resolve_doc": tool("resolve_doc", path_or_tool="read_file"),
        "resolve_doc_missing": tool("resolve_doc", path_or_tool="no/such/doc.md"),
        "progress": _with_progress("run_program", program=COUNT),
        "spec": lambda client: client.read_resource("lackpy://spec"),
        "kit_resource": lambda client: client.read_resource("lackpy://kits/readonly"),
        "doc_resource": lambda client: client.read_resource("lackpy://docs/grep"),
    }


def _with_progress(name: str, **args):
    """A call made with a progress callback: (its answer, the progress messages received)."""

    async def call(client):
        received = []

        async def on_progress(progress, total, message):
            received.append(message)

        answer = await client.call_tool(name, args, progress_callback=on_progress)
        await asyncio.sleep(0.1)
        return answer, received

    return call


@pytest.fixture(scope="module")
def http_server(mcp_workspace, server_env):
    """``lackpy serve --http 127.0.0.1:PORT --token-env ...`` in a subprocess; its URL."""
    process, port = start_http(mcp_workspace, dict(server_env, LACKPY_TEST_TOKEN=TOKEN), "--token-env", "LACKPY_TEST_TOKEN")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def _client(transport: str, request, workspace: Path, env: dict):
    from mcp import Client, StdioServerParameters

    if transport == "inprocess":
        from lackpy import LackpyService
        from lackpy.mcp.policy import KitPolicy
        from lackpy.mcp.server import build_server

        service = LackpyService(workspace, trust=False)
        request.addfinalizer(service.close)
        return Client(build_server(service, KitPolicy.build(service)))
    if transport == "stdio":
        return Client(StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace)], env=env))
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    url = request.getfixturevalue("http_server")
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30.0, read=300.0))
    return Client(streamable_http_client(url, http_client=http))


@pytest.fixture(scope="module", params=["inprocess", "stdio", "http"])
def found(request, mcp_workspace, server_env) -> dict:
    """What one session over each transport answered to every call."""
    return run(session_results(_client(request.param, request, mcp_workspace, server_env), calls()))


@pytest.fixture(scope="module")
def cli_document(mcp_workspace, server_env) -> dict:
    """``lackpy run --json --kit readonly`` for COUNT in the same workspace."""
    program = mcp_workspace.parent / "count.py"
    program.write_text(COUNT)
    out = subprocess.run(
        [PYTHON, "-m", "lackpy", "run", "--json", "--kit", "readonly", "-w", str(mcp_workspace), str(program)],
        env=server_env, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _error(found: dict, name: str) -> tuple[str, dict]:
    answer = result(found, name)
    assert answer.is_error, answer
    assert len(answer.content) == 1 and "\n" not in answer.content[0].text
    return answer.content[0].text, answer.structured_content


# -- the tool list -------------------------------------------------------------------


def test_lists_the_eight_tools_with_schemas_and_hints(found):
    tools = {tool.name: tool for tool in result(found, "tools").tools}
    assert set(tools) == {"run_program", "validate", "delegate", "generate", "kit_list", "kit_info", "docs_index", "resolve_doc"}
    from lackpy import ExecutionResult

    from lackpy.mcp.portable import portable
    from lackpy.mcp.results import optional_trace, output_schema

    # the run, or the error document, in the form every host reads
    assert tools["run_program"].output_schema == portable(output_schema(optional_trace(ExecutionResult.json_schema())))
    assert set(tools["run_program"].input_schema["properties"]) == {"program", "kit", "skill", "params", "dry_run", "limits", "session", "keep", "reset", "trace"}
    assert "trace" in tools["delegate"].input_schema["properties"]
    assert tools["run_program"].input_schema["required"] == ["program"]
    hints = tools["run_program"].annotations
    assert hints.read_only_hint is True and hints.open_world_hint is False  # only readonly is allowed


def test_run_program_describes_the_default_kit_and_the_rules(found):
    from lackpy import LackpyService
    from lackpy.infer.prompt import estimate_tokens

    description = {tool.name: tool for tool in result(found, "tools").tools}["run_program"].description
    for tool in LackpyService(Path.cwd(), trust=False).kit_info("readonly")["tools"]:
        assert tool["signature"] in description and tool["description"] in description
    assert "Builtins: " in description and "no import" in description
    assert estimate_tokens(description) <= READONLY_DESCRIPTION_TOKENS


# -- run_program --------------------------------------------------------------------


def test_run_program_answers_the_cli_document(found, cli_document):
    answer = result(found, "run")
    assert not answer.is_error
    assert answer.structured_content["output"] == 3
    assert comparable(answer.structured_content) == comparable({k: v for k, v in cli_document.items() if k not in ("trace", "files_read")})
    brief = json.loads(answer.content[0].text)  # what a model reads: the output, not the trace
    assert brief == {"output": 3, "session": answer.structured_content["session"], "tool_calls": 3}


def test_progress_arrives_on_every_transport_apart_from_the_result(found):
    answer, received = result(found, "progress")
    assert not answer.is_error and answer.structured_content["output"] == 3
    assert received[0] == "running the program with kit readonly" and received[-1] == "done: 3 tool calls"
    assert "1 tool call, the last find_files" in received


def test_run_program_params_and_tool_lists(found):
    assert result(found, "run_params").structured_content["output"] == "# Demo\n\nStatus: draft"
    assert result(found, "tools_allowed").structured_content["output"] == 2


def test_an_invalid_program_is_a_validation_error(found):
    text, document = _error(found, "invalid")
    assert document["error_kind"] == "validation" and document["success"] is False
    assert "import" in text and document["diagnostics"][0]["code"] == "forbidden-node"


def test_an_unknown_kit_is_a_kit_error(found):
    text, document = _error(found, "unknown_kit")
    assert document["error"]["kind"] == "kit" and "nosuch" in text


@pytest.mark.parametrize("name", ["not_allowed", "delegate_not_allowed"])
def test_a_kit_beyond_the_allow_list_is_refused_with_the_way_to_allow_it(found, name):
    text, document = _error(found, name)
    assert document["error"]["kind"] == "kit"
    assert "not allowed" in text and "lackpy serve --allow-kits readonly,coding" in text


def test_a_tool_outside_the_allowed_kits_is_refused(found):
    text, document = _error(found, "tools_not_allowed")
    assert document["error"]["kind"] == "kit" and "run_command" in text and "--allow-kits" in text


def test_a_failed_run_is_an_error_with_its_result(found):
    text, document = _error(found, "failed")
    assert document["success"] is False and document["error_kind"] == "tool" and document["error_line"] == 1
    assert "missing.txt" in text


def test_a_time_limited_run_says_its_result_is_partial_and_returns_its_finished_calls(found):
    answer = result(found, "partial")
    assert answer.is_error and len(answer.content) == 1
    assert "\n" not in answer.content[0].text  # one line, as every failure's text
    said, _, had = answer.content[0].text.partition(" {")
    had = "{" + had
    assert said.startswith("PARTIAL RESULT: the program did not finish, so this is not its answer.") and "limit error" in said
    document = _conforms(found, "partial")
    assert (document["complete"], document["error_kind"], document["limit"]) == (False, "limit", "timeout")
    finished = [entry for entry in document["trace"] if entry["success"]]  # the trace comes unasked: it is what the run did
    assert len(finished) >= 2 and {entry["tool"] for entry in finished} == {"read_file"}
    sizes = document["assigned"]["sizes"]
    assert len(finished) - 1 <= len(sizes) <= len(finished) and len(set(sizes)) == 1
    assert f"{len(document['trace'])} tool calls had been made" in said
    assert json.loads(had) == {"printed": "reading\n", "assigned": document["assigned"]}


def _conforms(found: dict, name: str) -> dict:
    """The structured content of call ``name``, checked against its tool's declared output schema."""
    import jsonschema

    tools = {tool.name: tool for tool in result(found, "tools").tools}
    tool = "delegate" if name.startswith("delegate") else "run_program"
    document = result(found, name).structured_content
    jsonschema.validate(document, tools[tool].output_schema)
    return document


def test_the_structured_run_leaves_the_trace_out_unless_asked(found, cli_document):
    plain, traced = _conforms(found, "run"), _conforms(found, "run_traced")
    assert not {"trace", "files_read"} & set(plain) and plain["output"] == 3
    assert comparable(traced) == comparable(cli_document)  # trace: true is the whole `lackpy run --json` document
    assert [entry["tool"] for entry in traced["trace"]] == ["find_files", "read_file", "read_file"]
    assert len(traced["files_read"]) == 2
    assert comparable({k: v for k, v in traced.items() if k not in ("trace", "files_read")}) == comparable(plain)  # all that differs
    assert len(json.dumps(traced)) - len(json.dumps(plain)) >= sum(len(json.dumps(entry)) for entry in traced["trace"])


@pytest.mark.parametrize("name", ["failed", "failed_traced", "delegate", "delegate_traced", "invalid"])
def test_every_run_document_conforms_with_or_without_the_trace(found, name):
    document = _conforms(found, name)
    execution = document.get("execution", document)
    assert ("trace" in execution) is ("files_read" in execution) is name.endswith("_traced")


# -- the other tools ---------------------------------------------------------------------


def test_validate(found):
    good = result(found, "validate_ok")
    assert not good.is_error and good.structured_content["valid"] is True
    assert "find_files" in good.structured_content["calls"]
    bad = result(found, "validate_bad")
    assert bad.structured_content["valid"] is False and bad.structured_content["errors"][0]["code"] == "forbidden-node"


def test_delegate_counts_todos(found):
    answer = result(found, "delegate")
    assert not answer.is_error, answer.content
    assert answer.structured_content["success"] is True and answer.structured_content["execution"]["output"] == 3
    assert answer.structured_content["provider"] in ("rules", "templates")
    brief = json.loads(answer.content[0].text)
    assert brief["program"] == answer.structured_content["program"] and brief["output"] == 3
    assert brief["tool_calls"] == len(result(found, "delegate_traced").structured_content["execution"]["trace"]) > 0
    assert not {"trace", "files_read"} & set(answer.structured_content["execution"])


def test_generate_writes_a_program(found):
    answer = result(found, "generate")
    assert not answer.is_error and "TODO" in answer.structured_content["program"]


def test_kit_list_kit_info_and_docs(found):
    kits = result(found, "kit_list").structured_content
    assert kits["default_kit"] == "readonly" and kits["allowed"] == ["readonly"]
    allowed = {row["name"]: row["allowed"] for row in kits["kits"]}
    assert allowed["readonly"] is True and allowed["coding"] is False
    info = result(found, "kit_info").structured_content
    assert info["name"] == "readonly" and info["grade"] == {"w": 1, "d": 0}
    assert "read_file" in result(found, "docs_index").structured_content["tool_docs"]
    doc = result(found, "resolve_doc")
    assert not doc.is_error and "read_file" in doc.structured_content["content"]
    text, document = _error(found, "resolve_doc_missing")
    assert document["error"]["kind"] == "docs"


def test_resources(found):
    spec = json.loads(result(found, "spec").contents[0].text)
    assert "limits" in spec
    assert json.loads(result(found, "kit_resource").contents[0].text)["name"] == "readonly"
    assert "grep" in result(found, "doc_resource").contents[0].text


# -- HTTP: the bearer token -------------------------------------------------------------


def test_http_needs_the_bearer_token(http_server):
    import httpx

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    assert httpx.post(http_server, json=body, headers=headers).status_code == 401
    assert httpx.post(http_server, json=body, headers={**headers, "Authorization": "Bearer wrong"}).status_code == 401
    refused = httpx.post(http_server, json=body, headers={**headers, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"})
    assert refused.status_code in (400, 403, 421)  # the SDK's DNS-rebinding check stays on


# -- without the SDK ------------------------------------------------------------------------


def test_serve_without_mcp_says_how_to_install_it(server_env, tmp_path):
    code = "import sys; sys.modules['mcp'] = None; sys.argv = ['lackpy', 'serve', '-w', sys.argv[1]]; from lackpy.cli import main; main()"
    out = subprocess.run([PYTHON, "-c", code, str(tmp_path)], env=server_env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "pip install 'lackpy[mcp]'" in out.stderr


def test_serve_option_errors_are_one_line(server_env, tmp_path):
    out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", "nope"], env=server_env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("lackpy: error: --http expects") and out.stderr.count("\n") == 1
    out = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", "127.0.0.1:1", "--token-env", "LACKPY_NO_SUCH"], env=server_env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "LACKPY_NO_SUCH" in out.stderr


def test_a_port_in_use_is_one_line_and_exit_2_before_anything_says_serving(tmp_path, server_env):
    """A real socket holds the port on 127.0.0.1: lackpy serve says so in one line, exits 2 (usage), and never says it serves."""
    import socket

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", f"127.0.0.1:{port}"], env=server_env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    finally:
        holder.close()
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"lackpy: error: 127.0.0.1:{port} is in use: choose another port with --http HOST:PORT\n"
    assert done.stdout == ""


def test_the_port_it_says_it_serves_at_is_the_one_it_holds(tmp_path, server_env):
    """Bound before it says so: the line that says it serves comes once the port is already taken."""
    process, port = start_http(tmp_path, server_env)
    try:
        again = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", f"127.0.0.1:{port}"], env=server_env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    finally:
        stop(process)
    assert again.returncode == 2 and again.stderr == f"lackpy: error: 127.0.0.1:{port} is in use: choose another port with --http HOST:PORT\n"


@pytest.mark.parametrize("options, said", [
    (["--token-env", "LACKPY_T_UNSET"], "lackpy: error: --token-env needs --http [HOST:]PORT: the token guards the HTTP transport; stdio has no token "
                                        "(the one client that starts lackpy has the server to itself)\n"),
    (["--cluster-key-env", "LACKPY_T_UNSET"], "lackpy: error: --cluster-key-env goes with --http [HOST:]PORT; over stdio the one client that "
                                              "starts lackpy has the server to itself\n"),
    (["--oauth-issuer", "http://127.0.0.1:9", "--oauth-introspect-env", "LACKPY_T_UNSET"],
     "lackpy: error: --oauth-issuer goes with --http [HOST:]PORT; over stdio the one client that starts lackpy has the server to itself\n"),
    (["--http", "127.0.0.1:1", "--oauth-issuer", "http://127.0.0.1:9", "--token-env", "LACKPY_T_UNSET"],
     "lackpy: error: give --oauth-issuer or --token-env, not both: a server takes either its issuer's access tokens or one shared token\n"),
])
def test_options_that_do_not_go_together_are_said_before_any_variable_is_read(tmp_path, server_env, options, said):
    env = {k: v for k, v in server_env.items() if k != "LACKPY_T_UNSET"}
    done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), *options], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr == said, done.stderr


def test_a_token_env_with_http_that_is_unset_is_said_as_before(tmp_path, server_env):
    env = {k: v for k, v in server_env.items() if k != "LACKPY_T_UNSET"}
    done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(tmp_path), "--http", "127.0.0.1:1", "--token-env", "LACKPY_T_UNSET"], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "lackpy: error: --token-env LACKPY_T_UNSET: the environment variable LACKPY_T_UNSET is not set or empty; export the token in it first\n"
