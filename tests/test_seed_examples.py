"""The examples of the kits-and-toolbox document (seed 004) work exactly as written.

Each snippet is kept here verbatim, as the seed document (which stays
outside the repository, so no test reads it) writes it: all twelve were
last checked word for word against it when this copy was made. The snippets run in a temporary workspace with
what their page assumes around them: a ``my_tools`` module, a ``debug`` kit,
and ``toolbox``/``resolve_kit`` in scope.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli

REGISTER = '''\
from lackpy import LackpyService
from lackpy.kit.toolbox import ToolSpec, ArgSpec
svc = LackpyService()
# Register a custom tool backed by a Python function
svc.toolbox.register_tool(ToolSpec(
name="count_lines",
provider="python",
provider_config={
"module": "my_tools",
"function": "count_lines",
},
description="Count the number of lines in a file",
args=[ArgSpec(name="path", type="str", description="File path")],
returns="int",
grade_w=1,
effects_ceiling=0,
))
'''

EXTRA_TOOLS = '''\
# Named kit + extra tools
kit = resolve_kit("debug", toolbox, extra_tools=["edit_file"])
# Standalone tools (no base kit)
kit = resolve_kit("none", toolbox, extra_tools=["read_file", "find_files"])
'''

KIT_FILE = """\
---
name: filesystem
description: Read, write, and search files
---
read_file
find_files
write_file
edit_file
"""

KIT_FILE_WITH_DOCS = """\
---
name: filesystem
description: Read, write, and search files
docs: docs/kits/filesystem.md
---
read_file
find_files
write_file
edit_file
"""

GRADE = '''\
from lackpy import compute_grade
grade = compute_grade({
"read_file": {"grade_w": 1, "effects_ceiling": 0},
"write_file": {"grade_w": 3, "effects_ceiling": 3},
})
'''

DOCS = '''\
# Get the docs index for a kit
index = svc.docs_index(kit="debug", extra_tools=["edit_file"])
'''

READ_DOC = '''\
# Read a specific doc file
content = svc.resolve_doc("docs/tools/read_file.md")
'''

KIBITZER_INDEX = "docs = svc.docs_index()\n"

CLI = [
    "lackpy kit list",
    "lackpy kit info filesystem",
    "lackpy kit info read_file,find_files,write_file",
    'lackpy kit create mykit --tools read_file find_files --description "Read-only tools"',
]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch) -> Path:
    """A workspace as the page assumes it: the current directory, a my_tools module, a debug kit."""
    (tmp_path / "my_tools.py").write_text(
        textwrap.dedent(
            """
            def count_lines(path):
                with open(path) as handle:
                    return len(handle.read().splitlines())
            """
        )
    )
    kits = tmp_path / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "debug.kit").write_text("---\nname: debug\ndescription: Look around\ndocs: docs/kits/debug.md\n---\nread_file\nfind_files\n")
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run(snippet: str, scope: dict) -> dict:
    exec(compile(snippet, "<seed 004>", "exec"), scope)
    return scope



def test_registering_a_python_tool(workspace: Path):
    scope = run(REGISTER, {})
    svc = scope["svc"]
    assert svc.toolbox.get("count_lines").signature() == "count_lines(path: str) -> int"
    result = asyncio.run(svc.run_program('count_lines("notes.txt")', ["count_lines"]))
    assert (result.success, result.output, result.grade) == (True, 3, (1, 0))


def test_extra_tools(workspace: Path):
    from lackpy import LackpyService, resolve_kit

    svc = LackpyService()
    scope = {"resolve_kit": resolve_kit, "toolbox": svc.toolbox}
    named = resolve_kit("debug", svc.toolbox, extra_tools=["edit_file"])
    run(EXTRA_TOOLS, scope)
    assert sorted(named.tools) == ["edit_file", "find_files", "read_file"] and named.grade == (3, 3)
    assert sorted(scope["kit"].tools) == ["find_files", "read_file"] and scope["kit"].grade == (1, 0)


@pytest.mark.parametrize("text, docs", [(KIT_FILE, []), (KIT_FILE_WITH_DOCS, ["docs/kits/filesystem.md"])])
def test_kit_files(workspace: Path, text: str, docs: list, trusted):
    """The page's kit file, written into a workspace its user then trusts (it shadows the package's kit)."""
    from lackpy import LackpyService

    (workspace / ".lackpy" / "kits" / "filesystem.kit").write_text(text)
    trusted(workspace)
    resolved = LackpyService().resolve_kit("filesystem")
    assert list(resolved.tools) == ["read_file", "find_files", "write_file", "edit_file"]
    assert (resolved.name, resolved.description, resolved.source) == ("filesystem", "Read, write, and search files", "workspace")
    assert [d for d in resolved.docs if d.startswith("docs/kits")] == docs


def test_compute_grade(workspace: Path):
    from lackpy import Grade

    assert run(GRADE, {})["grade"] == Grade(w=3, d=3)
    assert repr(Grade(w=3, d=3)) == "Grade(w=3, d=3)"


def test_docs_index_and_resolve_doc(workspace: Path):
    from lackpy import LackpyService

    scope = run(DOCS + READ_DOC + KIBITZER_INDEX, {"svc": LackpyService()})
    assert scope["index"]["tool_docs"] == {
        "read_file": "docs/tools/read_file.md",
        "find_files": "docs/tools/find_files.md",
        "edit_file": "docs/tools/edit_file.md",
    }
    assert scope["index"]["kit_docs"] == ["docs/kits/debug.md"]
    assert scope["content"].startswith("# read_file")
    assert scope["docs"]["tool_docs"]["grep"] == "docs/tools/grep.md"


def test_cli_examples(workspace: Path):
    import shlex

    runner = CliRunner()
    outputs = []
    for line in CLI:
        args = shlex.split(line)[1:]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (line, result.output)
        outputs.append(result.output)
    assert "debug" in outputs[0] and "filesystem" in outputs[0]
    assert "grade: w=3 d=3" in outputs[1]
    assert "grade: w=3 d=3" in outputs[2] and "write_file(path: str, content: str) -> str" in outputs[2]
    kit = (workspace / ".lackpy" / "kits" / "mykit.kit").read_text()
    assert kit == "---\nname: mykit\ndescription: Read-only tools\n---\nread_file\nfind_files\n"


def test_kit_create_takes_both_forms(workspace: Path):
    runner = CliRunner()
    assert runner.invoke(cli, ["kit", "create", "a", "--tools", "read_file,grep"]).exit_code == 0
    assert runner.invoke(cli, ["kit", "create", "b", "--tools", "read_file", "grep", "--tools", "list_dir"]).exit_code == 0
    assert (workspace / ".lackpy" / "kits" / "a.kit").read_text().endswith("---\nread_file\ngrep\n")
    assert (workspace / ".lackpy" / "kits" / "b.kit").read_text().endswith("---\nread_file\ngrep\nlist_dir\n")
    refused = runner.invoke(cli, ["kit", "create", "c", "--tools", "read_file", "nosuchtool"])
    assert refused.exit_code == 2 and "unknown tool 'nosuchtool'" in refused.output
