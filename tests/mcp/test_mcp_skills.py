"""Skills over MCP through the official SDK client: prompts, resources, run_program(skill=) and --allow-skills.

In-process servers in both protocol eras, and ``lackpy serve`` over stdio.
The workspace has three TODO notes in two files (``make_workspace``), the
shipped skill ``todo-report``, and skills of its own: ``notes`` (read-only
tools) and ``writer`` (a tool above what the server's kits allow).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import make_workspace
from mcp_support import PYTHON, run

MODES = ["legacy", "auto"]
REPORT = Path(__file__).parents[2] / "lackpy" / "skills" / "library" / "todo-report"
SKILL = """---
name: {name}
description: A skill of this workspace ({name}).
{front}tools: {tools}
---

# {name}

Read the notes.
"""


def _skill(root: Path, name: str, tools: str, front: str = "") -> Path:
    """A skill of the workspace with a program and a reference; ``front``: more lines of front matter."""
    folder = root / ".lackpy" / "skills" / name
    (folder / "programs").mkdir(parents=True)
    (folder / "references").mkdir()
    (folder / "SKILL.md").write_text(SKILL.format(name=name, tools=tools, front=front))
    (folder / "programs" / "main.py").write_text('read_file("README.md")\n')
    (folder / "references" / "guide.md").write_text("# Guide\n")
    return folder


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = make_workspace(tmp_path / "ws")
    _skill(root, "notes", "[read_file]")
    _skill(root, "writer", "[read_file, write_file]")
    return root


@pytest.fixture
def service(request, workspace):
    from lackpy import LackpyService

    svc = LackpyService(workspace, trust=True)  # trusted: writer runs here, so only the server's policy refuses it
    request.addfinalizer(svc.close)
    return svc


def _server(service, **options):
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    return build_server(service, KitPolicy.build(service), approval="none", **options)


def _session(server, mode: str, steps):
    """``steps(client)`` in one session of an in-process SDK client in protocol era ``mode``."""
    from mcp import Client

    async def main():
        async with Client(server, mode=mode) as client:
            return await steps(client)

    return run(main())


async def _refused(call) -> str:
    """The message of the protocol error ``call`` raises (it must raise one)."""
    from mcp.shared.exceptions import MCPError

    try:
        await call
    except MCPError as exc:
        return str(exc)
    raise AssertionError("the call was not refused")


def _schema_ok(tools, name: str, document: dict) -> None:
    import jsonschema

    jsonschema.validate(document, {tool.name: tool for tool in tools.tools}[name].output_schema)


# -- prompts ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_prompts_list_shows_each_allowed_skill_with_its_description_and_arguments(service, mode):
    async def steps(client):
        return client.server_capabilities, await client.list_prompts()

    capabilities, listed = _session(_server(service), mode, steps)
    prompts = {prompt.name: prompt for prompt in listed.prompts}
    assert capabilities.prompts is not None
    assert {"todo-report", "notes"} <= set(prompts) and "writer" not in prompts  # write_file is in no kit the server allows
    report = prompts["todo-report"]
    assert report.description.startswith("Reports the TODO, FIXME, XXX and HACK notes")
    assert [(a.name, a.required) for a in report.arguments] == [("folder", False)]
    assert "folder to report on" in report.arguments[0].description


@pytest.mark.parametrize("mode", MODES)
def test_prompts_get_gives_the_body_the_kit_signatures_and_the_arguments_as_values(service, mode):
    async def steps(client):
        return await client.get_prompt("todo-report", {"folder": "src"}), await client.get_prompt("todo-report")

    given, bare = _session(_server(service), mode, steps)
    text = given.messages[0].content.text
    assert given.messages[0].role == "user" and given.description.startswith("Reports the TODO")
    assert text.startswith(service.skill("todo-report").body().rstrip("\n"))  # the SKILL.md body, first
    assert "grep(pattern: str" in text and "skill_file(path: str)" in text  # its kit, as lackpy's kit docs show it
    assert "folder = 'src'" in text and 'skill="todo-report"' in text
    assert (REPORT / "programs" / "report.py").read_text().strip() in text
    assert "folder = None" in bare.messages[0].content.text  # an optional argument not given: None, as its programs get it


@pytest.mark.parametrize("mode", MODES)
def test_prompts_and_rows_show_the_grade_a_skill_may_reach(service, workspace, mode):
    _skill(workspace, "graded", "[read_file]", "grade: [1, 0]\n")

    async def steps(client):
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        texts = {name: (await client.get_prompt(name)).messages[0].content.text for name in ("todo-report", "graded")}
        rows = {row["name"]: row for row in json.loads((await client.read_resource("lackpy://skills")).contents[0].text)["skills"]}
        return listed, texts, rows

    listed, texts, rows = _session(_server(service), mode, steps)
    assert listed["todo-report"].meta == {"lackpy/grade": {"w": 1, "d": 0}} == {"lackpy/grade": rows["todo-report"]["grade"]}
    assert listed["graded"].meta == {"lackpy/grade": rows["graded"]["grade"]} and rows["graded"]["grade_declared"] == {"w": 1, "d": 0}
    assert "may reach grade w=1 d=0 (read-only, as it declares no grade)" in texts["todo-report"]
    assert "may reach grade w=1 d=0 (as it declares)" in texts["graded"]


@pytest.mark.parametrize("mode", MODES)
def test_prompts_get_refuses_a_skill_not_allowed_and_an_argument_missing_or_not_taken(service, workspace, mode):
    _skill(workspace, "needs", "[read_file]", "arguments:\n  - name: path\n    required: true\n")

    async def steps(client):
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        return (
            listed["needs"],
            await _refused(client.get_prompt("writer")),
            await _refused(client.get_prompt("todo-report", {"path": "src"})),
            await _refused(client.get_prompt("needs")),
            await _refused(client.get_prompt("nosuch")),
        )

    needs, writer, argument, missing, unknown = _session(_server(service), mode, steps)
    assert [(a.name, a.required) for a in needs.arguments] == [("path", True)]
    assert "skill 'writer' is not allowed" in writer and "--allow-kits" in writer
    assert "takes no argument path" in argument
    assert "skill 'needs' needs path" in missing
    assert "unknown skill 'nosuch'" in unknown


def test_a_server_that_allows_no_skill_declares_no_prompts(service):
    async def steps(client):
        return client.server_capabilities, await client.read_resource("lackpy://skills")

    capabilities, listed = _session(_server(service, allow_skills=[]), "legacy", steps)
    assert capabilities.prompts is None
    assert json.loads(listed.contents[0].text) == {"skills": []}


def test_a_skill_added_while_serving_is_listed_and_one_whose_kit_grows_is_refused(service, workspace):
    async def steps(client):
        before = {prompt.name for prompt in (await client.list_prompts()).prompts}
        _skill(workspace, "late", "[grep]")
        grown = workspace / ".lackpy" / "skills" / "notes" / "SKILL.md"
        grown.write_text(grown.read_text().replace("[read_file]", "[read_file, write_file]"))
        after = {prompt.name for prompt in (await client.list_prompts()).prompts}
        run_grown = await client.call_tool("run_program", {"program": 'write_file("canary.txt", "x")', "skill": "notes"})
        return before, after, run_grown

    before, after, run_grown = _session(_server(service), "legacy", steps)
    assert "late" not in before and "late" in after
    assert "notes" in before and "notes" not in after
    assert run_grown.is_error and "skill 'notes' is not allowed" in run_grown.content[0].text and "write_file" in run_grown.content[0].text
    assert not (workspace / "canary.txt").exists()


def test_a_skill_whose_kit_file_gained_a_tool_while_serving_is_refused(service, workspace):
    kits = workspace / ".lackpy" / "kits"
    kits.mkdir()
    (kits / "mine.kit").write_text("---\nname: mine\ndescription: reads\n---\nread_file\n")
    _skill(workspace, "kitted", "mine")
    server = _server(service)  # mine (read_file) is within read-only: allowed, held as it is now

    async def steps(client):
        before = await client.call_tool("run_program", {"program": 'read_file("README.md")[:6]', "skill": "kitted"})
        # a tool of the same grade: the core still runs the kit (it is read-only), the server's hold refuses it
        (kits / "mine.kit").write_text("---\nname: mine\ndescription: reads\n---\nread_file\nfind_files\n")
        listed = {prompt.name for prompt in (await client.list_prompts()).prompts}
        after = await client.call_tool("run_program", {"program": 'find_files("**/*.py")', "skill": "kitted"})
        return before, listed, after

    before, listed, after = _session(server, "legacy", steps)
    assert before.structured_content["output"] == "# Demo"
    assert "kitted" not in listed
    assert after.is_error and "changed since this server started" in after.content[0].text and "find_files" in after.content[0].text
    assert "output" not in after.structured_content  # refused before it ran


# -- resources --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_skill_resources_list_and_read(service, mode):
    async def steps(client):
        return (
            await client.list_resources(),
            await client.list_resource_templates(),
            await client.read_resource("lackpy://skills"),
            await client.read_resource("lackpy://skills/todo-report"),
            await client.read_resource("lackpy://skills/todo-report/references/conventions.md"),
            await client.read_resource("lackpy://skills/todo-report/programs/count.py"),
        )

    resources, templates, listed, body, reference, program = _session(_server(service), mode, steps)
    assert "lackpy://skills" in {str(r.uri) for r in resources.resources}
    assert {"lackpy://skills/{name}", "lackpy://skills/{name}/references/{file}"} <= {t.uri_template for t in templates.resource_templates}
    rows = {row["name"]: row for row in json.loads(listed.contents[0].text)["skills"]}
    assert {"todo-report", "notes"} <= set(rows) and "writer" not in rows
    assert rows["todo-report"]["references"] == ["conventions.md"] and rows["todo-report"]["kit"] == ["grep"]
    assert body.contents[0].text == service.skill("todo-report").body()
    assert body.contents[0].mime_type == "text/markdown"
    assert reference.contents[0].text == (REPORT / "references" / "conventions.md").read_text()
    assert program.contents[0].text == (REPORT / "programs" / "count.py").read_text()


def test_a_skill_not_allowed_or_a_file_outside_its_references_is_a_resource_error(service, workspace, tmp_path):
    canary = tmp_path / "canary.md"
    canary.write_text("CANARY-7f3a\n")
    (workspace / ".lackpy" / "skills" / "notes" / "references" / "out.md").symlink_to(canary)

    async def steps(client):
        uris = [
            "lackpy://skills/writer",
            "lackpy://skills/writer/references/guide.md",
            "lackpy://skills/notes/references/out.md",  # a link out of the skill's folder
            "lackpy://skills/notes/references/..%2FSKILL.md",
            "lackpy://skills/notes/references/SKILL.md",
            "lackpy://skills/notes/programs/..%2F..%2F..%2F..%2FREADME.md",
        ]
        return {uri: await _refused(client.read_resource(uri)) for uri in uris}

    said = _session(_server(service), "legacy", steps)
    assert all("CANARY" not in message and "Read the notes" not in message for message in said.values())
    assert "skill 'writer' is not allowed" in said["lackpy://skills/writer"]
    assert "skill 'writer' is not allowed" in said["lackpy://skills/writer/references/guide.md"]
    assert "has no references file 'out.md'" in said["lackpy://skills/notes/references/out.md"]
    assert "has no references file 'SKILL.md'" in said["lackpy://skills/notes/references/SKILL.md"]


def test_completions_offer_the_names_of_the_allowed_skills_only(service):
    from mcp.types import ResourceTemplateReference

    async def steps(client):
        complete = lambda uri: client.complete(ResourceTemplateReference(uri=uri), {"name": "name", "value": ""})  # noqa: E731
        return [await complete(uri) for uri in ("lackpy://skills/{name}", "lackpy://skills/{name}/references/{file}")]

    for answer in _session(_server(service, allow_skills=["todo-report", "notes"]), "legacy", steps):
        assert answer.completion.values == ["notes", "todo-report"]  # not writer: the server does not allow it


# -- run_program(skill=) ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_run_program_with_a_skill_gives_the_report(service, mode):
    program = (REPORT / "programs" / "report.py").read_text()

    async def steps(client):
        return (
            await client.list_tools(),
            await client.call_tool("run_program", {"program": program, "skill": "todo-report", "params": {"folder": "src"}}),
            await client.call_tool("run_program", {"program": program, "skill": "todo-report"}),
            await client.call_tool("run_program", {"program": 'skill_file("references/conventions.md")[:9]', "skill": "todo-report"}),
        )

    tools, in_src, everywhere, own_file = _session(_server(service), mode, steps)
    assert not in_src.is_error, in_src.content[0].text
    report = in_src.structured_content["output"]
    assert (report["notes"], report["files"]) == (3, 2)
    assert report["by_file"]["src/app.py"] == ["1: # TODO: one", "3: # TODO: two"]
    assert everywhere.structured_content["output"]["notes"] == 3  # folder not given: None, the whole workspace
    assert own_file.structured_content["output"] == "# Writing"
    _schema_ok(tools, "run_program", in_src.structured_content)


@pytest.mark.parametrize("mode", MODES)
def test_run_program_refuses_a_skill_not_allowed_with_one_line_naming_the_option(service, workspace, mode):
    async def steps(client):
        return (
            await client.list_tools(),
            await client.call_tool("run_program", {"program": 'write_file("canary.txt", "x")', "skill": "writer"}),
            await client.call_tool("run_program", {"program": "1", "skill": "todo-report", "kit": "readonly"}),
            await client.call_tool("run_program", {"program": "1", "skill": "nosuch"}),
        )

    tools, writer, both, unknown = _session(_server(service), mode, steps)
    for answer in (writer, both, unknown):
        assert answer.is_error and len(answer.content) == 1 and "\n" not in answer.content[0].text
        _schema_ok(tools, "run_program", answer.structured_content)
    assert "skill 'writer' is not allowed" in writer.content[0].text and "lackpy serve --allow-kits" in writer.content[0].text
    assert "give the skill or a kit, not both" in both.content[0].text
    assert "unknown skill 'nosuch'" in unknown.content[0].text
    assert not (workspace / "canary.txt").exists()


# -- --allow-skills ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_allow_skills_limits_what_a_client_sees_and_runs(service, mode):
    async def steps(client):
        return (
            await client.list_prompts(),
            await client.read_resource("lackpy://skills"),
            await client.call_tool("run_program", {"program": 'read_file("README.md")', "skill": "notes"}),
            await _refused(client.get_prompt("notes")),
            await _refused(client.read_resource("lackpy://skills/notes")),
        )

    prompts, listed, ran, prompt, resource = _session(_server(service, allow_skills=["todo-report"]), mode, steps)
    assert [prompt.name for prompt in prompts.prompts] == ["todo-report"]
    assert [row["name"] for row in json.loads(listed.contents[0].text)["skills"]] == ["todo-report"]
    assert ran.is_error and "lackpy serve --allow-skills todo-report,notes" in ran.content[0].text
    assert "--allow-skills" in prompt and "--allow-skills" in resource


def test_allow_skills_refuses_at_start_a_name_unknown_or_whose_kit_is_not_allowed(service):
    from lackpy.errors import UsageError

    with pytest.raises(UsageError, match="cannot offer skill 'nosuch' \\(--allow-skills\\): unknown skill 'nosuch'"):
        _server(service, allow_skills=["todo-report", "nosuch"])
    with pytest.raises(UsageError, match="cannot offer skill 'writer'.*write_file.*--allow-kits"):
        _server(service, allow_skills=["writer"])


def test_lackpy_serve_refuses_an_unknown_skill_in_one_line(workspace, server_env):
    out = subprocess.run(
        [PYTHON, "-m", "lackpy", "serve", "-w", str(workspace), "--allow-skills", "todo-report,nosuch"],
        env=server_env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode != 0
    assert out.stderr.strip().count("\n") == 0 and "--allow-skills" in out.stderr and "unknown skill 'nosuch'" in out.stderr


# -- over stdio ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_lackpy_serve_over_stdio_offers_the_allowed_skill_as_prompt_resource_and_run(workspace, server_env, mode):
    from mcp import Client, StdioServerParameters

    program = (REPORT / "programs" / "report.py").read_text()
    params = StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace), "--allow-skills", "todo-report"], env=server_env)

    async def main():
        async with Client(params, mode=mode) as client:
            return (
                await client.list_prompts(),
                await client.get_prompt("todo-report", {"folder": "src"}),
                await client.read_resource("lackpy://skills/todo-report"),
                await client.call_tool("run_program", {"program": program, "skill": "todo-report", "params": {"folder": "src/pkg"}}),
                await client.call_tool("run_program", {"program": "1", "skill": "notes"}),
            )

    prompts, prompt, body, ran, refused = run(main())
    assert [(p.name, [a.name for a in p.arguments]) for p in prompts.prompts] == [("todo-report", ["folder"])]
    assert "# TODO report" in prompt.messages[0].content.text and "folder = 'src'" in prompt.messages[0].content.text
    assert body.contents[0].text.startswith("# TODO report")
    assert ran.structured_content["output"]["by_file"] == {"src/pkg/util.py": ["2: return 1  # TODO: three"]}
    assert refused.is_error and "--allow-skills todo-report,notes" in refused.content[0].text


# -- the TypeScript SDK client (what most hosts run) -------------------------------------------


def test_the_typescript_client_lists_and_gets_the_prompt_and_runs_the_skill(workspace, server_env):
    from test_mcp_ts import TS, _node

    node = _node()
    config = {
        "command": PYTHON, "args": ["-m", "lackpy", "serve", "-w", str(workspace)], "env": server_env,
        "prompt": "todo-report", "arguments": {"folder": "src"},
        "program": (REPORT / "programs" / "report.py").read_text(), "params": {"folder": "src"},
    }
    done = subprocess.run([node, str(TS / "skills.mjs"), json.dumps(config)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = {line["name"]: line for line in map(json.loads, done.stdout.splitlines())}
    assert all("thrown" not in line for line in found.values()), found
    assert found["capabilities"]["prompts"] is not None
    report = next(p for p in found["prompts/list"]["prompts"] if p["name"] == "todo-report")
    assert report["arguments"] == [{"name": "folder", "description": "The folder to report on (default the whole workspace).", "required": False}]
    message = found["prompts/get"]["messages"][0]
    assert message["role"] == "user" and "# TODO report" in message["content"]["text"] and "folder = 'src'" in message["content"]["text"]
    assert "todo-report" in {row["name"] for row in json.loads(found["resources/read"]["contents"][0]["text"])["skills"]}
    assert found["run_program"]["isError"] is False and found["run_program"]["structured"]["output"]["notes"] == 3
