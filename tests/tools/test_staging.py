"""All-or-nothing writes: staging, read-your-writes, commit, conflicts and dry runs."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from lackpy import ToolSpec, Toolbox, resolve_kit, run_program
from lackpy.plugins import populate

MODES = ["inprocess", "isolated"]


@pytest.fixture
def kit(workspace: Path, tmp_path: Path, monkeypatch):
    """The filesystem kit plus a tool that edits README.md behind the program's back."""
    module = tmp_path / "mods" / "sneaky.py"
    module.parent.mkdir()
    module.write_text(
        textwrap.dedent(
            f"""
            def touch_readme():
                with open({str(workspace / "README.md")!r}, "a") as handle:
                    handle.write("edited elsewhere\\n")
            """
        )
    )
    monkeypatch.syspath_prepend(str(module.parent))
    monkeypatch.delitem(sys.modules, "sneaky", raising=False)  # each test writes its own module
    box = Toolbox(str(workspace))
    populate(box)
    box.register_tool(ToolSpec("touch_readme", "python", {"module": "sneaky"}))
    return resolve_kit(["read_file", "find_files", "write_file", "edit_file", "touch_readme"], box)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("mode", MODES)
def test_reads_see_the_runs_own_writes(kit, workspace, mode):
    """A program reads back and lists what it wrote before anything is committed."""
    program = 'write_file("notes/new.txt", "hello")\nedit_file("notes/new.txt", "hello", "bye")\n[read_file("notes/new.txt"), find_files("notes/*.txt")]'
    result = run_program(program, kit, mode=mode)
    assert result.success, result.error
    assert result.output == ["bye", ["notes/new.txt"]]
    assert (workspace / "notes" / "new.txt").read_text() == "bye"
    assert result.files_created == ["notes/new.txt"] and result.files_modified == []


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_program_changes_nothing(kit, workspace, mode):
    """Writes before an error are discarded: every file is exactly as it was."""
    before = snapshot(workspace)
    program = 'write_file("a.txt", "a")\nedit_file("README.md", "draft", "final")\n[1][5]'
    result = run_program(program, kit, mode=mode)
    assert not result.success and result.error_line == 3
    assert snapshot(workspace) == before
    assert result.files_created == result.files_modified == []


@pytest.mark.parametrize("mode", MODES)
def test_a_program_stopped_by_a_limit_changes_nothing(kit, workspace, mode):
    """A timeout after writing leaves the workspace untouched."""
    before = snapshot(workspace)
    program = 'write_file("a.txt", "a")\nfor i in range(10**5):\n    for j in range(10**5):\n        pass'
    result = run_program(program, kit, mode=mode, limits={"timeout_s": 0.3})
    assert result.limit == "timeout"
    assert snapshot(workspace) == before


@pytest.mark.parametrize("mode", MODES)
def test_dry_run_returns_the_diff_and_applies_nothing(kit, workspace, mode):
    """A dry run lists created and modified files with their unified diff."""
    before = snapshot(workspace)
    program = 'edit_file("README.md", "Status: draft", "Status: final")\nwrite_file("new.txt", "one\\n")\n"ok"'
    result = run_program(program, kit, mode=mode, dry_run=True)
    assert result.success and result.dry_run and result.output == "ok"
    assert snapshot(workspace) == before
    assert result.files_created == ["new.txt"] and result.files_modified == ["README.md"]
    assert "--- a/README.md\n+++ b/README.md\n" in result.diff
    assert "-Status: draft\n+Status: final\n" in result.diff
    assert "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+one\n" in result.diff


@pytest.mark.parametrize("mode", MODES)
def test_commit_refuses_a_file_changed_meanwhile(kit, workspace, mode):
    """A file changed on disk since the program read it is never overwritten; nothing is written."""
    program = 'text = read_file("README.md")\ntouch_readme()\nwrite_file("other.txt", "x")\nwrite_file("README.md", text.upper())'
    result = run_program(program, kit, mode=mode)
    assert not result.success and result.error_kind == "conflict"
    assert result.error.startswith("README.md changed on disk while the program ran; nothing was written")
    assert (workspace / "README.md").read_text().endswith("edited elsewhere\n")
    assert not (workspace / "other.txt").exists()


def test_blind_write_to_a_file_created_meanwhile_is_a_conflict(kit, workspace):
    """A file that did not exist when staged but exists at commit is not overwritten."""
    from lackpy.kit.context import ToolContext
    from lackpy.tools import workspace as ws

    ctx = ToolContext(workspace, staging=True)
    ws.write_text(ctx, "late.txt", "mine")
    (workspace / "late.txt").write_text("theirs")
    with pytest.raises(Exception, match="late.txt changed on disk"):
        ws.staged(ctx).commit()
    assert (workspace / "late.txt").read_text() == "theirs"


def test_commit_writes_atomically_and_keeps_modes(workspace):
    """Committed files are replaced whole, keep their permission bits, and leave no temp files."""
    from lackpy.kit.context import ToolContext
    from lackpy.tools import workspace as ws

    target = workspace / "README.md"
    target.chmod(0o640)
    ctx = ToolContext(workspace, staging=True)
    ws.write_text(ctx, "README.md", "new\n")
    assert target.read_text() == "# Demo\n\nStatus: draft\n"
    done = ws.staged(ctx).commit()
    assert done.modified == ["README.md"] and target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in workspace.iterdir() if "lackpy-tmp" in p.name] == []


def test_diff_marks_a_missing_final_newline(kit, workspace):
    """A staged file without a final newline shows git's marker in the diff."""
    result = run_program('write_file("x.txt", "hi")', kit, mode="inprocess", dry_run=True)
    assert result.diff == "--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n"
