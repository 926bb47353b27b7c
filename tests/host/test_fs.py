"""The filesystem seam: the tools run unchanged over the memory backend, staged or not."""

from __future__ import annotations

import os

import pytest

from lackpy import ConflictError, Toolbox, resolve_kit, run_program
from lackpy.errors import LimitExceeded, PathError, ToolError
from lackpy.kit.context import ToolContext
from lackpy.plugins import populate
from lackpy.tools.builtin import edit_file, find_files, grep, list_dir, read_file, write_file
from lackpy.host.fs import Entry, LocalFilesystem, MemoryFilesystem, StagedFilesystem
from lackpy.tools.shell import run_command

FILES = {"README.md": "# Demo\n\nStatus: draft\n", "src/app.py": "# TODO: one\nprint('app')\n", "src/pkg/util.py": "x = 1\n"}


@pytest.fixture
def memory(tmp_path) -> ToolContext:
    return ToolContext(tmp_path / "nowhere", fs=MemoryFilesystem(FILES))


def test_tools_over_the_memory_backend(memory):
    """read, find, list, grep, write and edit work on files that exist only in memory."""
    assert read_file(memory, "src/app.py", offset=2) == "print('app')\n"
    assert find_files(memory, "**/*.py") == ["src/app.py", "src/pkg/util.py"]
    assert find_files(memory, "**/*", kind="dir") == ["src", "src/pkg"]
    assert list_dir(memory, "src") == [{"name": "app.py", "kind": "file", "size": 25}, {"name": "pkg", "kind": "dir", "size": 0}]
    assert grep(memory, "TODO") == [{"path": "src/app.py", "line": 1, "text": "# TODO: one"}]
    write_file(memory, "notes/new.txt", "hello\n")
    assert "+Status: final\n" in edit_file(memory, "README.md", "Status: draft", "Status: final")
    assert memory.fs.files["README.md"] == b"# Demo\n\nStatus: final\n"
    assert memory.fs.files["notes/new.txt"] == b"hello\n"
    with pytest.raises(PathError, match="outside the workspace: ../x"):
        read_file(memory, "../x")
    with pytest.raises(PathError, match="no such file: nope.txt"):
        read_file(memory, "nope.txt")


def test_runs_stage_over_a_custom_backend(tmp_path):
    """A program run over a memory backend stages its writes and commits them on success only."""
    box = Toolbox(str(tmp_path))
    populate(box)
    box.context.fs = MemoryFilesystem(FILES)
    kit = resolve_kit("filesystem", box)
    failed = run_program('write_file("a.txt", "a")\n[1][5]', kit, mode="inprocess")
    assert not failed.success and "a.txt" not in box.context.fs.files
    dry = run_program('edit_file("README.md", "draft", "final")', kit, mode="inprocess", dry_run=True)
    assert "+Status: final\n" in dry.diff and box.context.fs.files["README.md"].endswith(b"draft\n")
    done = run_program('write_file("a.txt", "a")\nread_file("a.txt")', kit, mode="isolated")
    assert done.output == "a" and done.files_created == ["a.txt"] and box.context.fs.files["a.txt"] == b"a"


def test_staged_backend_conflict_and_write_limit():
    """A base change since the first read refuses the commit; staged bytes are capped."""
    base = MemoryFilesystem(FILES)
    staged = StagedFilesystem(base, max_write_bytes=10)
    staged.read_bytes("README.md")
    staged.write("README.md", b"mine")
    base.write("README.md", b"theirs")
    with pytest.raises(ConflictError, match="README.md changed on disk"):
        staged.commit()
    assert base.files["README.md"] == b"theirs"
    with pytest.raises(LimitExceeded):
        staged.write("big.txt", b"x" * 11)


def test_staged_listing_and_removal():
    """Staged files appear in listings; a staged removal hides the file and commits as a delete."""
    base = MemoryFilesystem(FILES)
    staged = StagedFilesystem(base)
    staged.write("src/new/deep.py", b"y = 2\n")
    assert Entry("new", "dir", 0) in staged.list("src")
    staged.remove("src/pkg/util.py")
    assert not staged.exists("src/pkg/util.py") and staged.list("src/pkg") == []
    changes = staged.commit()
    assert (changes.created, changes.deleted) == (["src/new/deep.py"], ["src/pkg/util.py"])
    assert "src/pkg/util.py" not in base.files and base.files["src/new/deep.py"] == b"y = 2\n"


def test_commands_need_a_disk(memory):
    """Shell tools refuse a workspace that lives only in memory."""
    with pytest.raises(ToolError, match="commands need a workspace on disk"):
        run_command(memory, "true")


def test_local_backend_keeps_paths_relative(workspace):
    """The local backend resolves to canonical relative paths and refuses links leading outside."""
    local = LocalFilesystem(workspace)
    assert local.resolve("src/../src/app.py") == "src/app.py"
    assert local.resolve(".") == "."
    (workspace / "out").symlink_to("/")
    with pytest.raises(PathError, match="symlink leads outside the workspace: out"):
        local.resolve("out")


def test_local_listing_with_and_without_sizes(tmp_path):
    """Without sizes a listing takes each kind from the directory itself; links are still followed beneath the root only."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "file.txt").write_text("12345")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "to-file").symlink_to("file.txt")
    (tmp_path / "to-dir").symlink_to("dir")
    (tmp_path / "out").symlink_to("/")
    local = LocalFilesystem(tmp_path)
    assert local.list(".") == [
        Entry("dir", "dir", 0), Entry("file.txt", "file", 5), Entry("pipe", "other", 0),
        Entry("to-dir", "dir", 0, True), Entry("to-file", "file", 5, True),
    ]
    assert local.list(".", sizes=False) == [
        Entry("dir", "dir", 0), Entry("file.txt", "file", 0), Entry("pipe", "other", 0),
        Entry("to-dir", "dir", 0, True), Entry("to-file", "file", 5, True),
    ]
    assert find_files(ToolContext(tmp_path), "**/*") == ["file.txt", "to-file"]
