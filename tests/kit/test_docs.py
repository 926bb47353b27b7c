"""Docs: the docs index of tools and kits, and resolve_doc's refusal to read outside its roots."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from lackpy.errors import DocsError, KitError
from lackpy.kit.docs import PACKAGE_DOCS, docs_index, resolve_doc
from lackpy.kit.resolve import resolve_kit

FS_TOOLS = ["edit_file", "fetch_url", "find_files", "grep", "list_dir", "list_processes", "poll_process", "read_file", "run_command", "search_tools", "skill_file", "start_process", "stop_process", "todo_read", "todo_set", "web_search", "write_file"]
SECTIONS = ["## Signature", "## Parameters", "## Returns", "## Notes", "## Examples"]


def test_docs_index_all_tools(toolbox):
    """docs_index() maps every tool to its docs path and lists no kit docs."""
    assert docs_index(toolbox) == {
        "tool_docs": {name: f"docs/tools/{name}.md" for name in FS_TOOLS},
        "kit_docs": [],
    }


def test_docs_index_for_named_kit(toolbox):
    """docs_index of the readonly kit lists only its tool docs."""
    assert docs_index(toolbox, resolve_kit("readonly", toolbox)) == {
        "tool_docs": {n: f"docs/tools/{n}.md" for n in ["read_file", "list_dir", "find_files", "grep"]},
        "kit_docs": [],
    }


def test_docs_index_for_workspace_kit(toolbox, kits_dir):
    """A workspace .kit file's frontmatter docs appear under kit_docs: beneath docs/kits as written, beside the kit by its workspace path."""
    (kits_dir / "mine.kit").write_text("---\nname: mine\ndocs: docs/kits/mine.md\n---\nread_file\n")
    assert docs_index(toolbox, resolve_kit("mine", toolbox)) == {
        "tool_docs": {"read_file": "docs/tools/read_file.md"},
        "kit_docs": ["docs/kits/mine.md"],
    }
    (kits_dir / "mine.kit").write_text("---\nname: mine\ndocs: mine.md\n---\nread_file\n")
    assert docs_index(toolbox, resolve_kit("mine", toolbox))["kit_docs"] == [".lackpy/kits/mine.md"]


def test_docs_index_for_alias_kit_and_extra_tools(toolbox):
    """An alias kit is indexed by alias, and extra_tools alone index those tools."""
    assert docs_index(toolbox, resolve_kit({"find": "find_files"}, toolbox))["tool_docs"] == {"find": "docs/tools/find_files.md"}
    assert docs_index(toolbox, resolve_kit("none", toolbox, extra_tools=["write_file"])) == {
        "tool_docs": {"write_file": "docs/tools/write_file.md"},
        "kit_docs": [],
    }


def test_service_docs_index(workspace, trusted):
    """service.docs_index resolves the kit as trust allows: a workspace kit above read-only only once it is trusted."""
    from lackpy.service import LackpyService

    kits = workspace / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "mine.kit").write_text("---\ndocs: docs/kits/mine.md\n---\nedit_file\n")
    with pytest.raises(KitError, match=r"kit 'mine' comes from this workspace .* not trusted"):
        LackpyService(workspace).docs_index("mine")
    trusted(workspace)
    assert LackpyService(workspace).docs_index("mine") == {
        "tool_docs": {"edit_file": "docs/tools/edit_file.md"},
        "kit_docs": ["docs/kits/mine.md"],
    }


def test_resolve_package_doc(workspace):
    """resolve_doc reads a package doc by its relative path."""
    text = resolve_doc("docs/tools/read_file.md", workspace)
    assert text == (PACKAGE_DOCS / "tools" / "read_file.md").read_text(encoding="utf-8")
    assert "read_file" in text


def test_resolve_workspace_doc(workspace):
    """resolve_doc reads a doc that lives in the workspace."""
    doc = workspace / "docs" / "kits" / "mine.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("# Mine\n\nHow to use my kit.\n")
    assert resolve_doc("docs/kits/mine.md", workspace) == "# Mine\n\nHow to use my kit.\n"
    assert resolve_doc(str(doc), workspace) == "# Mine\n\nHow to use my kit.\n"


def test_workspace_file_never_stands_in_for_a_package_doc(workspace):
    """A workspace file at the path of a doc lackpy ships is not read: lackpy's own doc is."""
    doc = workspace / "docs" / "tools" / "read_file.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("CANARY-SECRET notes\n")
    assert resolve_doc("docs/tools/read_file.md", workspace) == (PACKAGE_DOCS / "tools" / "read_file.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("tool", FS_TOOLS)
def test_builtin_tool_docs_have_sections(toolbox, workspace, tool):
    """Each built-in tool doc exists and has Signature, Parameters, Returns, Notes and Examples sections in order."""
    text = resolve_doc(toolbox.get(tool).docs, workspace)
    positions = [text.find(f"\n{section}\n") for section in SECTIONS]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)
    assert toolbox.get(tool).signature() in text


def assert_refused(path: str, workspace: Path) -> str:
    """resolve_doc(path) raises DocsError whose message does not leak the canary; return the message."""
    with pytest.raises(DocsError) as info:
        resolve_doc(path, workspace)
    message = str(info.value)
    assert "CANARY-SECRET" not in message
    return message


def test_refuses_absolute_outside(workspace, outside):
    """An absolute path to the canary outside the workspace is refused."""
    message = assert_refused(str(outside), workspace)
    assert "outside the workspace and the package docs" in message


def test_refuses_relative_climb(workspace, outside):
    """'../outside/canary.txt' is refused."""
    message = assert_refused("../outside/canary.txt", workspace)
    assert "'../outside/canary.txt'" in message


def test_refuses_symlink_to_canary(workspace, outside):
    """A symlink inside the workspace pointing at the canary is refused."""
    (workspace / "docs").mkdir()
    (workspace / "docs" / "leak.md").symlink_to(outside)
    assert_refused("docs/leak.md", workspace)


def test_refuses_symlinked_dir(workspace, outside):
    """A symlinked directory inside the workspace that points outside is refused."""
    (workspace / "ext").symlink_to(outside.parent, target_is_directory=True)
    assert_refused("ext/canary.txt", workspace)


@pytest.mark.parametrize(
    "path",
    ["../../etc/passwd", "../../../../../../../../etc/passwd", "/etc/passwd", "docs/../../../etc/passwd", "../ws/../outside/canary.txt"],
)
def test_refuses_climbs(workspace, outside, path):
    """Paths that climb out of both roots are refused."""
    assert_refused(path, workspace)


def test_package_root_outside_docs_refused(workspace):
    """Package files outside the package docs directory (e.g. lackpy's source) are refused."""
    assert_refused("config.py", workspace)
    assert_refused("kits/filesystem.kit", workspace)
    assert_refused("docs/../config.py", workspace)


@pytest.mark.parametrize("path", ["", "   ", "docs/\x00x.md", None, 3])
def test_bad_doc_path(workspace, path):
    """Empty, NUL-containing and non-string paths raise DocsError."""
    with pytest.raises(DocsError) as info:
        resolve_doc(path, workspace)
    assert "give a doc path" in str(info.value)


def test_missing_doc(workspace):
    """A doc path that names no file raises DocsError saying it does not exist."""
    message = assert_refused("docs/tools/nope.md", workspace)
    assert "'docs/tools/nope.md' does not exist" in message


def test_directory_is_not_a_doc(workspace):
    """A directory path inside the workspace is not read as a doc."""
    message = assert_refused("src", workspace)
    assert "not a regular file (a directory)" in message


def test_fifo_doc_refused_without_hanging(workspace):
    """A FIFO inside the workspace is refused quickly rather than opened (which would block)."""
    fifo = workspace / "pipe.md"
    os.mkfifo(fifo)
    outcome: list = []

    def attempt():
        try:
            outcome.append(resolve_doc("pipe.md", workspace))
        except Exception as exc:  # recorded and checked below
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=5)
    if worker.is_alive():  # unblock the reader so the thread can finish
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join(timeout=5)
        pytest.fail("resolve_doc blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], DocsError)


def test_non_utf8_doc(workspace):
    """A workspace doc that is not UTF-8 raises DocsError."""
    (workspace / "bad.md").write_bytes(b"caf\xe9\n")
    assert "not UTF-8" in assert_refused("bad.md", workspace)


def test_service_resolve_doc_by_tool_name(service):
    """service.resolve_doc('read_file') returns the read_file doc."""
    assert service.resolve_doc("read_file") == (PACKAGE_DOCS / "tools" / "read_file.md").read_text(encoding="utf-8")


def test_service_resolve_doc_reads_only_what_is_listed(service, workspace, outside):
    """service.resolve_doc reads a listed doc by its path, and no other file: not a workspace file, not the canary."""
    assert service.resolve_doc("docs/tools/grep.md") == (PACKAGE_DOCS / "tools" / "grep.md").read_text(encoding="utf-8")
    (workspace / "secret.md").write_text("CANARY-SECRET\n")
    for path in ("README.md", "secret.md", "../outside/canary.txt", str(outside), "./secret.md", "docs/../secret.md"):
        with pytest.raises(DocsError, match=r"is not one lackpy lists here; give a tool name") as info:
            service.resolve_doc(path)
        assert "CANARY-SECRET" not in str(info.value) and "\n" not in str(info.value)


def test_symlinked_docs_dir_falls_back_to_package(workspace, tmp_path):
    """A workspace docs/ symlinked outside is ignored; the package doc of that path is read instead."""
    foreign = tmp_path / "foreign"
    (foreign / "tools").mkdir(parents=True)
    (foreign / "tools" / "read_file.md").write_text("CANARY-SECRET\n")
    (workspace / "docs").symlink_to(foreign, target_is_directory=True)
    text = resolve_doc("docs/tools/read_file.md", workspace)
    assert "CANARY-SECRET" not in text
    assert text == (PACKAGE_DOCS / "tools" / "read_file.md").read_text(encoding="utf-8")


def test_oversized_doc_refused(workspace):
    """A doc larger than MAX_DOC_BYTES is refused without being read."""
    from lackpy.kit.docs import MAX_DOC_BYTES

    (workspace / "big.md").write_bytes(b"x" * (MAX_DOC_BYTES + 1))
    assert "larger than" in assert_refused("big.md", workspace)


def test_docs_index_none_kit(toolbox):
    """The 'none' kit has an empty docs index."""
    assert docs_index(toolbox, resolve_kit("none", toolbox)) == {"tool_docs": {}, "kit_docs": []}


def test_doc_sections_splits_on_second_level_headings():
    """doc_sections keys each '## ' section by its title, drops the preamble and strips the text."""
    from lackpy.kit.docs import doc_sections

    text = "# tool\n\nintro\n\n## Signature\n\n`tool(x: int) -> str`\n\n## Notes \n\n- one\n- two\n\n### Detail\n\nmore\n"
    assert doc_sections(text) == {"Signature": "`tool(x: int) -> str`", "Notes": "- one\n- two\n\n### Detail\n\nmore"}


def test_doc_sections_ignores_headings_in_code_fences_and_joins_repeats():
    """A '## ' line inside a fence stays content; a repeated heading's texts are joined; no heading gives {}."""
    from lackpy.kit.docs import doc_sections

    text = "## Examples\n\n```python\n## not a heading\nx = 1\n```\n## Examples\nsecond\n"
    assert doc_sections(text) == {"Examples": "```python\n## not a heading\nx = 1\n```\nsecond"}
    assert doc_sections("# title\n\njust text\n") == {}
    assert doc_sections("## Signature\r\n`f() -> int`\r\n") == {"Signature": "`f() -> int`"}


@pytest.mark.parametrize("tool", FS_TOOLS)
def test_doc_sections_of_builtin_docs(toolbox, workspace, tool):
    """Every built-in tool doc splits into the five sections, its Signature being the tool's signature in backticks."""
    from lackpy.kit.docs import doc_sections

    sections = doc_sections(resolve_doc(toolbox.get(tool).docs, workspace))
    assert list(sections) == [s[3:] for s in SECTIONS]
    assert sections["Signature"] == f"`{toolbox.get(tool).signature()}`"


def test_a_denied_file_is_not_a_doc(workspace, tmp_path):
    """resolve_doc reads through the deny patterns, judged on the file opened: by name, or through a link."""
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key").write_text("CANARY-SECRET\n")
    (workspace / "alias.md").symlink_to("secrets/key")
    for path in ("secrets/key", "alias.md", "src/../secrets/key", str(workspace / "secrets" / "key")):
        with pytest.raises(DocsError, match=r"denied by the workspace policy") as info:
            resolve_doc(path, workspace, ["secrets/"])
        assert "CANARY-SECRET" not in str(info.value)
    assert resolve_doc("README.md", workspace, ["secrets/"]) == "# Demo\n\nStatus: draft\n"


def test_service_resolve_doc_honours_deny(workspace):
    """A kit's doc is judged by [tools] deny on the file opened: by its name, or through a link beside the kit."""
    (workspace / ".lackpy" / "kits").mkdir(parents=True)
    (workspace / ".lackpy" / "config.toml").write_text('[tools]\ndeny = ["*.env"]\n')
    (workspace / ".lackpy" / "kits" / "x.env").write_text("TOKEN=CANARY-SECRET\n")
    (workspace / ".lackpy" / "kits" / "y.md").symlink_to("x.env")
    (workspace / ".lackpy" / "kits" / "x.kit").write_text("---\ndocs: x.env\n---\nread_file\n")
    (workspace / ".lackpy" / "kits" / "y.kit").write_text("---\ndocs: y.md\n---\nread_file\n")
    from lackpy.service import LackpyService

    with LackpyService(workspace) as svc:
        for path in (".lackpy/kits/x.env", ".lackpy/kits/y.md"):
            with pytest.raises(DocsError, match="denied by the workspace policy") as info:
                svc.resolve_doc(path)
            assert "CANARY-SECRET" not in str(info.value)
