"""lackpy serve in a hostile repository, through the MCP SDK's own client over stdio: a client reads only the docs of
kits the server allows, and a kit's docs only where they belong (beside the kit, beneath docs/kits).

The repository's read-only kit x names ``secrets.txt`` as its docs, another
kit's doc is a link out of the kits folder, another a FIFO; kit y is above
read-only (ignored: the workspace is not trusted). Two servers: one that
offers only the web kit, and one with the default allow list (every kit within
the read-only grade). The canary must never come back, and every refusal is
one line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostile_kits import CANARY, plant
from mcp_support import PYTHON, result, run, session_results


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The hostile repository (``hostile_kits.plant``), with a notes file, a doc that links out and one that is a FIFO."""
    root = tmp_path_factory.mktemp("kitdocs") / "repo"
    kits = plant(root)
    (root / "notes.md").write_text(f"{CANARY} notes\n")
    (kits / "link.kit").write_text("---\nname: link\ndocs: link.md\n---\nread_file\n")
    (kits / "link.md").symlink_to("../../secrets.txt")
    (kits / "pipe.kit").write_text("---\nname: pipe\ndocs: pipe.md\n---\nread_file\n")
    os.mkfifo(kits / "pipe.md")
    return root


def calls() -> dict:
    doc = lambda target: (lambda client: client.call_tool("resolve_doc", {"path_or_tool": target}))  # noqa: E731
    index = lambda **args: (lambda client: client.call_tool("docs_index", args))  # noqa: E731
    resource = lambda uri: (lambda client: client.read_resource(uri))  # noqa: E731
    return {
        "index": index(),
        "index_x": index(kit="x"),
        "index_y": index(kit="y"),
        "index_team": index(kit="team"),
        "index_tools": index(kit="read_file,grep"),
        "secrets": doc("secrets.txt"),
        "secrets_absolute": doc("SECRETS_ABSOLUTE"),
        "secrets_climb": doc("../repo/secrets.txt"),
        "secrets_dots": doc("docs/kits/../../secrets.txt"),
        "beside_x": doc(".lackpy/kits/secrets.txt"),
        "beside_climb": doc(".lackpy/kits/../../secrets.txt"),
        "link": doc(".lackpy/kits/link.md"),
        "pipe": doc(".lackpy/kits/pipe.md"),
        "ignored": doc(".lackpy/kits/y.md"),
        "team": doc(".lackpy/kits/team.md"),
        "old": doc("docs/kits/old.md"),
        "read_file": doc("read_file"),
        "fetch_url": doc("fetch_url"),
        "resource_secrets": resource("lackpy://docs/secrets.txt"),
        "resource_notes": resource("lackpy://docs/notes.md"),
        "resource_read_file": resource("lackpy://docs/read_file"),
    }


def serve(repo: Path, env: dict, *options: str) -> dict:
    """What one stdio session of ``lackpy serve -w REPO OPTIONS`` answered to every call."""
    from mcp import Client, StdioServerParameters

    made = calls()
    made["secrets_absolute"] = lambda client: client.call_tool("resolve_doc", {"path_or_tool": str(repo / "secrets.txt")})
    client = Client(StdioServerParameters(command=PYTHON, args=["-m", "lackpy", "serve", "-w", str(repo), *options], env=env))
    return run(session_results(client, made))


@pytest.fixture(scope="module")
def web_only(repo, server_env) -> dict:
    return serve(repo, server_env, "--kit", "web", "--allow-kits", "web")


@pytest.fixture(scope="module")
def default(repo, server_env) -> dict:
    return serve(repo, server_env)


def refused(found: dict, name: str, match: str = "") -> str:
    """The call's answer is a one-line tool error of kind docs or kit (or a refused resource), without the canary."""
    answer = found[name]
    if isinstance(answer, Exception):  # a resource that fails is an MCP error, whose text the SDK may keep generic
        assert CANARY not in str(answer)
        return str(answer)
    if hasattr(answer, "contents"):
        text = "".join(getattr(c, "text", "") for c in answer.contents)
        pytest.fail(f"{name}: the resource was read: {text[:80]!r}")
    assert answer.is_error, (name, answer)
    assert len(answer.content) == 1 and "\n" not in answer.content[0].text
    text = answer.content[0].text
    assert CANARY not in text and CANARY not in str(answer.structured_content)
    assert answer.structured_content["error"]["kind"] in ("docs", "kit")
    assert match in text, text
    return text


def test_a_server_of_web_tools_serves_no_kit_doc_and_no_file(web_only):
    for name in ("secrets", "secrets_absolute", "secrets_climb", "secrets_dots", "beside_x", "beside_climb", "link", "pipe",
                 "ignored", "team", "old", "read_file"):
        refused(web_only, name, "is not one this server offers")
    for name in ("index_x", "index_team"):
        refused(web_only, name, "is not allowed by this server")
    refused(web_only, "index_y", "the workspace is not trusted")  # ignored before it could be allowed
    refused(web_only, "index_tools", "are in no kit this server allows")
    for name in ("resource_secrets", "resource_notes", "resource_read_file"):
        refused(web_only, name)
    assert result(web_only, "index").structured_content == {
        "tool_docs": {"fetch_url": "docs/tools/fetch_url.md", "web_search": "docs/tools/web_search.md"}, "kit_docs": [],
    }
    own = result(web_only, "fetch_url")
    assert not own.is_error and own.structured_content["content"].startswith("# fetch_url")


def test_the_default_server_serves_a_kits_docs_only_where_they_belong(default):
    assert result(default, "index_x").structured_content["kit_docs"] == [".lackpy/kits/secrets.txt"]
    refused(default, "beside_x", "does not exist; the kit file x.kit names it relative to its own folder")
    for name in ("secrets", "secrets_absolute", "secrets_climb", "secrets_dots", "beside_climb", "ignored"):
        refused(default, name, "is not one this server offers")
    refused(default, "link", "a symlink leads outside where lackpy reads it")
    refused(default, "pipe", "not a regular file (a FIFO)")
    refused(default, "index_y", "kit 'y'")  # ignored in an untrusted workspace: never allowed, never listed
    for name in ("resource_secrets", "resource_notes"):
        refused(default, name)
    assert result(default, "team").structured_content["content"] == "# team: reads notes\n"
    assert result(default, "old").structured_content["content"] == "# old: greps\n"
    assert result(default, "read_file").structured_content["content"].startswith("# read_file")
    assert result(default, "resource_read_file").contents[0].text.startswith("# read_file")
    refused(default, "fetch_url", "is not one this server offers")  # web is above read-only: not allowed by default
