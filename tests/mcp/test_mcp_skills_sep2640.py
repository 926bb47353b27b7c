"""Skills published as SEP-2640 (``io.modelcontextprotocol/skills``), through the official Python SDK client.

In-process servers in both protocol eras and ``lackpy serve`` over stdio and streamable HTTP:
the capability, ``skills/list`` page by page, ``skills/get`` of each entry,
``resources/read`` of every listed file, each file's size and SHA-256 and
the SKILL.md's front matter checked here against the entry, field by field
(not with lackpy's own reading alone). The workspace has the shipped
``todo-report`` and a skill of its own, ``kitbag``, with programs, assets (a
binary one among them), nested references, and files that must never go
out: a hidden one, a denied one, a link to a canary outside the workspace,
and one whose name a URI cannot carry as written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import make_workspace
from lackpy.mcp.task_extension import EXTENSION as TASKS  # declared beside the skills by every lackpy serve
from mcp_support import PYTHON, run
from test_mcp_skills import _server, _session

MODES = ["legacy", "auto"]
EXTENSION = "io.modelcontextprotocol/skills"
REPORT = Path(__file__).parents[2] / "lackpy" / "skills" / "library" / "todo-report"
CANARY = "CANARY-5e1d"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3
KITBAG = """---
name: kitbag
description: >-
  Packs what a release needs: reads the notes and fills the template.
  Use it before a release.
tools: [read_file]
grade: [1, 0]
license: MIT
metadata:
  author: lackpy tests
  version: "1.0"
  tags: [release, notes]
arguments:
  - name: folder
    description: Where to look.
---

# Kitbag

Read `assets/template.md` and fill it.
"""
#: The files of kitbag that are published, with their MIME type and whether they go as text.
KITBAG_FILES = {
    "SKILL.md": ("text/markdown", True),
    "programs/main.py": ("text/x-python", True),
    "programs/extra.py": ("text/x-python", True),
    "assets/template.md": ("text/markdown", True),
    "assets/data.json": ("application/json", True),
    "assets/logo.png": ("image/png", False),
    "assets/latin1.txt": ("application/octet-stream", False),
    "assets/NOTES": ("text/plain", True),
    "references/guide.md": ("text/markdown", True),
    "references/deep/nested.md": ("text/markdown", True),
}
#: Files of kitbag's folder that must never be published nor read: hidden, denied, a link out, a name a URI cannot carry.
UNSERVED = ["references/.hidden.md", "references/private.md", "references/out.md", "assets/my notes.txt"]


def kitbag(root: Path, canary: Path) -> Path:
    folder = root / ".lackpy" / "skills" / "kitbag"
    for sub in ("programs", "assets", "references/deep"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(KITBAG)
    (folder / "programs" / "main.py").write_text('read_file("README.md")\n')
    (folder / "programs" / "extra.py").write_text('skill_file("assets/template.md")\n')
    (folder / "assets" / "template.md").write_text("# Release {version}\n\n- notes: {notes}\n")
    (folder / "assets" / "data.json").write_text('{"markers": ["TODO", "FIXME"], "é": "ü"}\n')
    (folder / "assets" / "logo.png").write_bytes(PNG)
    (folder / "assets" / "latin1.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    (folder / "assets" / "NOTES").write_text("plain notes, no suffix\r\nwith a CRLF line\n")
    (folder / "assets" / "my notes.txt").write_text("a name with a space\n")
    (folder / "references" / "guide.md").write_text("# Guide\n")
    (folder / "references" / "deep" / "nested.md").write_text("# Nested\n")
    (folder / "references" / ".hidden.md").write_text("hidden\n")
    (folder / "references" / "private.md").write_text("PRIVATE-41c2\n")
    (folder / "references" / "out.md").symlink_to(canary)
    config = root / ".lackpy" / "config.toml"
    config.write_text('[tools]\ndeny = ["private.md"]\n')
    return folder


@pytest.fixture
def workspace(tmp_path) -> Path:
    canary = tmp_path / "canary.md"
    canary.write_text(CANARY + "\n")
    root = make_workspace(tmp_path / "ws")
    kitbag(root, canary)
    return root


@pytest.fixture
def service(request, workspace):
    from lackpy import LackpyService

    svc = LackpyService(workspace)
    request.addfinalizer(svc.close)
    return svc


# -- the client side of the test: plain requests, and checks written here ---------------------------


def _request_type():
    from mcp import types

    class SkillsRequest(types.Request[dict[str, Any] | None, str]):
        method: str
        params: dict[str, Any] | None = None

    return SkillsRequest


async def call(client, method: str, params: dict | None = None) -> dict:
    """``method`` sent through the SDK's session as any request is, its result as the JSON object it is."""
    from pydantic import TypeAdapter

    return await client.session.send_request(_request_type()(method=method, params=params or {}), TypeAdapter(dict[str, Any]))


async def refused(call_made) -> tuple[int, str]:
    """(code, message) of the JSON-RPC error ``call_made`` raises (it must raise one)."""
    from mcp.shared.exceptions import MCPError

    try:
        await call_made
    except MCPError as exc:
        return exc.error.code, exc.error.message
    raise AssertionError("the call was not refused")


async def listed(client) -> tuple[list[dict], list[dict]]:
    """Every page of ``skills/list`` (following ``nextCursor``) and every entry in them."""
    pages, cursor = [], None
    while True:
        page = await call(client, "skills/list", {"cursor": cursor} if cursor is not None else {})
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            return pages, [entry for page in pages for entry in page["skills"]]
        assert len(pages) < 50, "skills/list never ends"


async def read_bytes(client, uri: str) -> tuple[bytes, str, bool]:
    """(bytes, mimeType, went as text) of one ``resources/read``."""
    found = await client.read_resource(uri)
    assert len(found.contents) == 1
    content = found.contents[0]
    assert str(content.uri) == uri
    if hasattr(content, "text"):
        return content.text.encode("utf-8"), content.mime_type, True
    return base64.b64decode(content.blob), content.mime_type, False


DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")


def conforms_cacheable(result: dict, revision_meta: bool) -> None:
    """The fields SEP-2640 requires of every result: complete, with a ttl and a cache scope."""
    assert result["resultType"] == "complete"
    assert type(result["ttlMs"]) is int and result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")
    if revision_meta:  # 2026-07-28: the SDK stamps the server's info
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "lackpy"


def conforms_entry(entry: dict) -> None:
    """A Skill entry as SEP-2640 writes it, with lackpy's _meta."""
    assert set(entry) <= {"uri", "frontmatter", "resources", "_meta"}
    name = entry["frontmatter"]["name"]
    assert entry["uri"] == f"skill://{name}/SKILL.md"
    assert isinstance(entry["frontmatter"]["description"], str) and entry["frontmatter"]["description"]
    uris = [item["uri"] for item in entry["resources"]]
    assert entry["uri"] in uris and len(uris) == len(set(uris))
    for item in entry["resources"]:
        assert set(item) == {"uri", "digest", "size"}
        assert item["uri"].startswith(f"skill://{name}/") and ".." not in item["uri"].split("/")
        assert DIGEST.match(item["digest"]) and type(item["size"]) is int and item["size"] >= 0
    grade = entry["_meta"]["lackpy/grade"]
    assert set(grade) == {"w", "d"} and all(type(v) is int for v in grade.values())


def frontmatter_in(text: str) -> dict:
    """The YAML front matter of a SKILL.md, parsed here (not with lackpy's reader)."""
    lines = text.splitlines()
    assert lines[0] == "---"
    end = lines.index("---", 1)
    return yaml.safe_load("\n".join(lines[1:end]))


def same_frontmatter(entry: dict, text: str) -> None:
    parsed = json.loads(json.dumps(frontmatter_in(text)))
    assert sorted(entry["frontmatter"]) == sorted(parsed)
    for key, value in parsed.items():
        assert entry["frontmatter"][key] == value, key


async def verified(client, entry: dict) -> dict[str, tuple[str, bool]]:
    """Every file of ``entry`` read and checked against it (size, SHA-256, and the SKILL.md's front matter); each file's (mimeType, as text)."""
    conforms_entry(entry)
    kinds = {}
    root = entry["uri"].removesuffix("SKILL.md")
    for item in entry["resources"]:
        data, mime, as_text = await read_bytes(client, item["uri"])
        assert len(data) == item["size"], item["uri"]
        assert "sha256:" + hashlib.sha256(data).hexdigest() == item["digest"], item["uri"]
        assert CANARY.encode() not in data and b"PRIVATE-41c2" not in data
        kinds[item["uri"].removeprefix(root)] = (mime, as_text)
        if item["uri"] == entry["uri"]:
            same_frontmatter(entry, data.decode("utf-8"))
    return kinds


def report_files() -> set[str]:
    return {str(path.relative_to(REPORT)) for path in REPORT.rglob("*") if path.is_file() and "__pycache__" not in path.parts}


# -- listing, getting and reading ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_every_listed_skill_is_gettable_and_every_file_matches_its_entry(service, workspace, mode):
    async def steps(client):
        pages, entries = await listed(client)
        gotten = {entry["uri"]: await call(client, "skills/get", {"uri": entry["uri"]}) for entry in entries}
        kinds = {entry["frontmatter"]["name"]: await verified(client, entry) for entry in entries}
        return client.server_capabilities, pages, entries, gotten, kinds

    capabilities, pages, entries, gotten, kinds = _session(_server(service), mode, steps)
    assert capabilities.extensions == {EXTENSION: {}, TASKS: {}} and capabilities.resources is not None
    for page in pages:
        conforms_cacheable(page, mode == "auto")
        assert set(page) <= {"skills", "nextCursor", "resultType", "ttlMs", "cacheScope", "_meta"}
    names = [entry["frontmatter"]["name"] for entry in entries]
    assert names == sorted(names) and {"todo-report", "kitbag"} <= set(names)
    for entry in entries:
        answer = gotten[entry["uri"]]
        conforms_cacheable(answer, mode == "auto")
        assert set(answer) <= {"skill", "resultType", "ttlMs", "cacheScope", "_meta"} and answer["skill"] == entry

    report = next(entry for entry in entries if entry["frontmatter"]["name"] == "todo-report")
    assert set(kinds["todo-report"]) == report_files()
    assert report["_meta"] == {"lackpy/grade": {"w": 1, "d": 0}, "lackpy/kit": ["grep"]}  # read-only: it declares no grade
    assert kinds["todo-report"]["SKILL.md"] == ("text/markdown", True)

    bag = next(entry for entry in entries if entry["frontmatter"]["name"] == "kitbag")
    assert kinds["kitbag"] == dict(KITBAG_FILES)  # complete: every file but those never served, each with its type and form
    assert bag["frontmatter"]["metadata"] == {"author": "lackpy tests", "version": "1.0", "tags": ["release", "notes"]}
    assert bag["frontmatter"]["description"].startswith("Packs what a release needs: reads the notes")  # verbatim, folded as YAML folds it
    assert bag["_meta"] == {"lackpy/grade": {"w": 1, "d": 0}, "lackpy/kit": ["read_file"]}
    sizes = {item["uri"]: item["size"] for item in bag["resources"]}
    assert sizes["skill://kitbag/assets/logo.png"] == len(PNG)


@pytest.mark.parametrize("mode", MODES)
def test_lackpys_own_reading_accepts_what_it_serves(service, mode):
    from lackpy.remote.skills import parse_entry, verify, verify_frontmatter

    async def steps(client):
        _, entries = await listed(client)
        found = {}
        for entry in entries:
            manifest = parse_entry(entry, "lackpy")
            for rel in manifest.listed():
                data, _, _ = await read_bytes(client, manifest.uri_of(rel))
                verify(manifest, manifest.uri_of(rel), data)
                if rel == "SKILL.md":
                    verify_frontmatter(manifest, data.decode("utf-8"))
            found[manifest.name] = manifest.listed()
        return found

    found = _session(_server(service), mode, steps)
    assert found["kitbag"] == sorted(KITBAG_FILES) and found["todo-report"] == sorted(report_files())


def test_a_page_holds_at_most_its_entries_and_the_cursor_goes_on_by_name(service, workspace):
    from lackpy.mcp.skill_shelf import PAGE_SKILLS

    for n in range(PAGE_SKILLS + 5):
        folder = workspace / ".lackpy" / "skills" / f"many-{n:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: many-{n:02d}\ndescription: Skill number {n}.\n---\n\nBody {n}.\n")

    async def steps(client):
        pages, entries = await listed(client)
        return pages, entries, await verified(client, next(entry for entry in pages[1]["skills"] if entry["frontmatter"]["name"].startswith("many-")))

    pages, entries, last = _session(_server(service), "auto", steps)
    assert len(pages) == 2 and len(pages[0]["skills"]) == PAGE_SKILLS and "nextCursor" not in pages[1]
    names = [entry["frontmatter"]["name"] for entry in entries]
    assert names == sorted(set(names)) and len(names) == PAGE_SKILLS + 5 + 2  # the many, kitbag and todo-report, each once
    assert last == {"SKILL.md": ("text/markdown", True)}


def test_a_page_ends_once_its_bytes_are_spent_but_never_splits_a_skill(service, monkeypatch):
    from lackpy.mcp import skill_shelf

    monkeypatch.setattr(skill_shelf, "PAGE_BYTES", 1)  # every skill spends more: one entry a page

    async def steps(client):
        return await listed(client)

    pages, entries = _session(_server(service), "legacy", steps)
    assert [len(page["skills"]) for page in pages] == [1] * len(entries) and len(entries) >= 2
    assert all(len(entry["resources"]) >= 1 for entry in entries)


def test_a_file_changed_after_listing_no_longer_matches_and_a_new_listing_does(service, workspace):
    from lackpy.remote.skills import RemoteSkillError, parse_entry, verify, verify_frontmatter

    folder = workspace / ".lackpy" / "skills" / "kitbag"
    uri, skill_md = "skill://kitbag/assets/template.md", "skill://kitbag/SKILL.md"

    async def entry(client):
        return parse_entry((await call(client, "skills/get", {"uri": skill_md}))["skill"], "lackpy")

    async def steps(client):
        before = await entry(client)
        (folder / "assets" / "template.md").write_text("# Changed since the listing\n")
        (folder / "SKILL.md").write_text(KITBAG.replace("Use it before a release.", "Use it after a release."))
        data, _, _ = await read_bytes(client, uri)
        text, _, _ = await read_bytes(client, skill_md)
        with pytest.raises(RemoteSkillError, match="not what the skill's entry describes"):
            verify(before, uri, data)
        with pytest.raises(RemoteSkillError, match="not what the skill's entry describes"):
            verify(before, skill_md, text)
        with pytest.raises(RemoteSkillError, match="front matter differs"):
            verify_frontmatter(before, text.decode())
        after = await entry(client)  # listed again: the entry and the files agree once more
        verify_frontmatter(after, verify(after, skill_md, text).decode())
        return verify(after, uri, data), after.frontmatter["description"]

    data, description = _session(_server(service), "auto", steps)
    assert data == b"# Changed since the listing\n" and description.endswith("Use it after a release.")


def test_front_matter_goes_as_json_writes_it(service, workspace):
    skill = workspace / ".lackpy" / "skills" / "dated"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: dated\ndescription: Dated.\nmetadata:\n  released: 2026-09-13\n  1: one\n---\nBody\n")

    async def steps(client):
        return (await call(client, "skills/get", {"uri": "skill://dated/SKILL.md"}))["skill"]["frontmatter"]

    front = _session(_server(service), "legacy", steps)
    assert front == {"name": "dated", "description": "Dated.", "metadata": {"released": "2026-09-13", "1": "one"}}


# -- what is never served ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_skill_not_allowed_a_file_outside_the_manifest_and_every_trick_are_invalid_params(service, mode):
    bad_reads = [
        "skill://kitbag/SKILL.md",  # not allowed by --allow-skills
        "skill://kitbag/assets/template.md",
        "skill://todo-report/../../etc/passwd",
        "skill://todo-report/assets/../SKILL.md",
        "skill://todo-report/%2e%2e/%2e%2e/etc/passwd",
        "skill://todo-report/..%2F..%2FREADME.md",
        "skill://todo-report/assets%2Fmarkers.txt",
        "skill://todo-report/./SKILL.md",
        "skill://todo-report//SKILL.md",
        "skill://todo-report/SKILL.md?x=1",
        "skill://todo-report/SKILL.md#top",
        "skill://todo-report/",
        "skill://todo-report",
        "skill:///etc/passwd",
        "skill://TODO-REPORT/SKILL.md",
        "skill://nosuch/SKILL.md",
        "skill://todo-report/" + "a/" * 3000 + "SKILL.md",
    ]
    bad_gets = [
        {"uri": "skill://kitbag/SKILL.md"},
        {"uri": "skill://todo-report/assets/markers.txt"},
        {"uri": "skill://todo-report/../todo-report/SKILL.md"},
        {"uri": "skill://nosuch/SKILL.md"},
        {"uri": "file:///etc/passwd"},
        {"uri": 7},
        {"uri": ["skill://todo-report/SKILL.md"]},
        {},
    ]
    bad_cursors = ["", "after:", "after:../x", "x" * 100_000, 3, {"after": "a"}]

    async def steps(client):
        _, entries = await listed(client)
        reads = {uri: await refused(client.read_resource(uri)) for uri in bad_reads}
        gets = [await refused(call(client, "skills/get", params)) for params in bad_gets]
        cursors = [await refused(call(client, "skills/list", {"cursor": cursor})) for cursor in bad_cursors]
        return entries, reads, gets, cursors, await call(client, "skills/list")

    entries, reads, gets, cursors, after = _session(_server(service, allow_skills=["todo-report"]), mode, steps)
    assert [entry["frontmatter"]["name"] for entry in entries] == ["todo-report"]
    for code, message in [*reads.values(), *gets, *cursors]:
        assert code == -32602 and "\n" not in message and len(message) < 400
        assert CANARY not in message and "root:" not in message
    assert "skill 'kitbag' is not allowed" in reads["skill://kitbag/SKILL.md"][1] and "--allow-skills" in reads["skill://kitbag/SKILL.md"][1]
    assert "is not a file of skill 'todo-report'" in reads["skill://todo-report/../../etc/passwd"][1]
    assert "skill 'kitbag' is not allowed" in gets[0][1]
    assert "not the URI of a skill's SKILL.md" in gets[1][1]
    assert "give params.uri" in gets[-1][1]
    assert all("not one this server gave; list again without a cursor" in message for _, message in cursors)
    assert [entry["frontmatter"]["name"] for entry in after["skills"]] == ["todo-report"]  # the server goes on


@pytest.mark.parametrize("mode", MODES)
def test_hidden_denied_linked_and_unnameable_files_are_not_listed_nor_readable(service, mode):
    from urllib.parse import quote

    uris = [f"skill://kitbag/{rel}" for rel in UNSERVED] + [f"skill://kitbag/{quote(rel)}" for rel in UNSERVED]

    async def steps(client):
        entry = (await call(client, "skills/get", {"uri": "skill://kitbag/SKILL.md"}))["skill"]
        return entry, {uri: await refused(client.read_resource(uri)) for uri in uris}

    entry, said = _session(_server(service), mode, steps)
    listed_uris = {item["uri"] for item in entry["resources"]}
    assert not listed_uris & set(uris)
    for code, message in said.values():
        assert code == -32602 and "is not a file of skill 'kitbag' this server serves" in message
        assert CANARY not in message and "PRIVATE" not in message


def test_a_server_that_allows_no_skill_declares_no_extension_and_serves_no_skill_methods(service):
    async def steps(client):
        return (
            client.server_capabilities,
            await refused(call(client, "skills/list")),
            await refused(call(client, "skills/get", {"uri": "skill://todo-report/SKILL.md"})),
            await refused(client.read_resource("skill://todo-report/SKILL.md")),
        )

    for mode in MODES:
        capabilities, listing, getting, reading = _session(_server(service, allow_skills=[]), mode, steps)
        assert not (capabilities.extensions or {}).get(EXTENSION)
        assert listing[0] == getting[0] == -32601 and reading[0] == -32602


# -- lackpy serve over stdio and streamable HTTP ----------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", MODES)
def test_lackpy_serve_publishes_the_allowed_skills_as_sep_2640(workspace, server_env, mode, transport):
    import contextlib

    from mcp import Client, StdioServerParameters

    from mcp_support import start_http, stop

    options = ["--allow-skills", "todo-report,kitbag"]

    async def main(target):
        async with contextlib.AsyncExitStack() as stack:
            if transport == "http":
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                http = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=120.0)))
                target = streamable_http_client(target, http_client=http)
            client = await stack.enter_async_context(Client(target, mode=mode))
            pages, entries = await listed(client)
            kinds = {entry["frontmatter"]["name"]: await verified(client, entry) for entry in entries}
            gotten = [await call(client, "skills/get", {"uri": entry["uri"]}) for entry in entries]
            return client.server_capabilities, pages, entries, kinds, gotten, await refused(client.read_resource("skill://kitbag/references/out.md"))

    if transport == "stdio":
        answers = run(main(StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(workspace), *options], env=server_env)))
    else:
        process, port = start_http(workspace, server_env, *options)
        try:
            answers = run(main(f"http://127.0.0.1:{port}/mcp"))
        finally:
            stop(process)
    capabilities, pages, entries, kinds, gotten, link = answers
    assert capabilities.extensions == {EXTENSION: {}, TASKS: {}}
    assert [entry["frontmatter"]["name"] for entry in entries] == ["kitbag", "todo-report"]
    assert [answer["skill"] for answer in gotten] == entries
    for answer in [*pages, *gotten]:
        conforms_cacheable(answer, mode == "auto")
    assert kinds["kitbag"] == dict(KITBAG_FILES) and set(kinds["todo-report"]) == report_files()
    assert link[0] == -32602 and CANARY not in link[1]


# -- the TypeScript SDK client (what most hosts run) ----------------------------------------------------------


def test_the_typescript_client_lists_gets_reads_and_verifies_every_file(workspace, server_env):
    import subprocess

    from test_mcp_ts import TS, _node

    node = _node()
    config = {
        "command": PYTHON, "args": ["-m", "lackpy", "serve", "-w", str(workspace), "--allow-skills", "todo-report,kitbag"], "env": server_env,
        "refuse": {"get": ["skill://nosuch/SKILL.md", "skill://todo-report/assets/markers.txt"],
                   "read": ["skill://kitbag/references/private.md", "skill://kitbag/references/out.md", "skill://todo-report/../../etc/passwd"]},
    }
    done = subprocess.run([node, str(TS / "skills_sep2640.mjs"), json.dumps(config)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all("thrown" not in line for line in lines if line["name"] != "refused"), lines
    found = {line["name"]: line for line in lines if line["name"] in ("capabilities", "done")}
    assert found["capabilities"]["extensions"] == {EXTENSION: {}, TASKS: {}} and found["capabilities"]["resources"] is not None

    pages = [line["page"] for line in lines if line["name"] == "page"]
    entries = [entry for page in pages for entry in page["skills"]]
    for page in pages:
        conforms_cacheable(page, False)
    assert [entry["frontmatter"]["name"] for entry in entries] == ["kitbag", "todo-report"]
    for line in (line for line in lines if line["name"] == "get"):
        conforms_cacheable(line["result"], False)
        assert line["result"]["skill"] in entries
    files = {line["uri"]: line for line in lines if line["name"] == "file"}
    assert set(files) == {item["uri"] for entry in entries for item in entry["resources"]}
    assert all(line["sizeMatches"] and line["digestMatches"] for line in files.values()), files
    assert files["skill://kitbag/assets/logo.png"]["kind"] == "blob" and files["skill://kitbag/assets/logo.png"]["mimeType"] == "image/png"
    assert files["skill://kitbag/SKILL.md"]["kind"] == "text" and files["skill://kitbag/SKILL.md"]["mimeType"] == "text/markdown"
    for entry in entries:
        same_frontmatter(entry, files[entry["uri"]]["text"])
    refusals = [line for line in lines if line["name"] == "refused"]
    assert len(refusals) == 5 and all(line["code"] == -32602 and CANARY not in line["thrown"] for line in refusals), refusals
    assert found["done"]["ok"] is True


def test_a_skill_the_server_does_not_allow_is_never_named_not_even_as_a_near_miss(service, workspace):
    folder = workspace / ".lackpy" / "skills" / "writer"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: writer\ndescription: Writes.\ntools: [read_file, write_file]\n---\nWrite.\n")

    async def steps(client):
        _, entries = await listed(client)
        return (
            [entry["frontmatter"]["name"] for entry in entries],
            await refused(call(client, "skills/get", {"uri": "skill://writr/SKILL.md"})),
            await refused(client.read_resource("skill://writr/SKILL.md")),
            await refused(call(client, "skills/get", {"uri": "skill://writer/SKILL.md"})),
            await refused(call(client, "skills/get", {"uri": "skill://kitbg/SKILL.md"})),
        )

    names, near_get, near_read, writer, offered = _session(_server(service), "auto", steps)
    assert "writer" not in names
    for code, message in (near_get, near_read):
        assert code == -32602 and "unknown skill 'writr'" in message and "writer" not in message
    assert writer[0] == -32602 and "not allowed by this server" in writer[1] and "--allow-kits" in writer[1]
    assert "did you mean: kitbag?" in offered[1]  # a skill it offers is named


def test_a_file_a_link_replaced_after_the_listing_is_not_served(service, workspace, monkeypatch):
    """What is served is what was listed: the read itself follows no link, so a name listed as a file and made a link
    since (to a hidden file of the skill here) is refused, whatever the listing said a moment before."""
    from lackpy.errors import PathError
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.skill_shelf import Shelf
    from lackpy.mcp.skills import SkillPolicy
    from lackpy.skills.skill import Skill

    shelf = Shelf(service, SkillPolicy.build(service, KitPolicy.build(service)))
    guide = workspace / ".lackpy" / "skills" / "kitbag" / "references" / "guide.md"
    assert shelf.read("skill://kitbag/references/guide.md").data == b"# Guide\n"
    listed = Skill.files
    monkeypatch.setattr(Skill, "files", lambda self: [*listed(self), "references/guide.md"])  # the listing as it was
    guide.unlink()
    guide.symlink_to(".hidden.md")
    with pytest.raises(PathError):
        shelf.read("skill://kitbag/references/guide.md")
