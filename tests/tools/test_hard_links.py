"""The file tools refuse a denied file under any name: hard links of ``[tools] deny`` files in allowed places.

Each test makes real hard links in pytest's temporary workspace and calls
the tools as a program does, over the local disk and over the staged
backend every run writes through. The canary is a denied file's content.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lackpy.errors import DocsError, PathError
from lackpy.kit.context import ToolContext
from lackpy.kit.docs import resolve_doc
from lackpy.tools.builtin import edit_file, find_files, grep, list_dir, read_file, write_file

SECRET = "CANARY-HARDLINK-SECRET"
DENY = ["*.env", "secrets/"]


@pytest.fixture
def ws(workspace: Path) -> Path:
    """The shared workspace with ``app/.env`` and ``secrets/key`` holding the canary, and allowed files beside them."""
    (workspace / "app" / "sub").mkdir(parents=True)
    (workspace / "secrets").mkdir()
    (workspace / "app" / ".env").write_text(SECRET + "\n")
    (workspace / "secrets" / "key").write_text(SECRET + "\n")
    (workspace / "app" / "main.py").write_text("print('main')\n")
    return workspace


@pytest.fixture(params=["local", "staged"])
def ctx(ws: Path, request) -> ToolContext:
    return ToolContext(ws, staging=request.param == "staged", settings={"deny": DENY})


ALIASES = ["app/notes.txt", "app/sub/deep.txt", "src/key.txt"]


@pytest.fixture
def linked(ws: Path) -> Path:
    """Aliases of the denied files: beside one, in a subdirectory, and elsewhere (of a file in a denied directory)."""
    os.link(ws / "app" / ".env", ws / "app" / "notes.txt")
    os.link(ws / "app" / ".env", ws / "app" / "sub" / "deep.txt")
    os.link(ws / "secrets" / "key", ws / "src" / "key.txt")
    return ws


@pytest.mark.parametrize("alias", ALIASES)
def test_read_file_refuses_another_name_of_a_denied_file(ctx, linked, alias) -> None:
    with pytest.raises(PathError) as info:
        read_file(ctx, alias)
    assert str(info.value) == f"denied by the workspace policy: {alias} (another name of a file [tools] deny covers)"
    assert ctx.files_read == {}


def test_a_path_written_another_way_is_refused_too(ctx, linked) -> None:
    for path in ("app/sub/../notes.txt", "./src/key.txt", "app//sub/deep.txt"):
        with pytest.raises(PathError, match="denied by the workspace policy"):
            read_file(ctx, path)


def test_a_symlink_to_an_alias_is_refused(ctx, linked) -> None:
    (linked / "src" / "link").symlink_to("../app/notes.txt")
    with pytest.raises(PathError, match="denied by the workspace policy"):
        read_file(ctx, "src/link")


def test_grep_and_find_text_skip_aliases(ctx, linked) -> None:
    assert grep(ctx, SECRET) == []
    assert grep(ctx, "main") == [{"path": "app/main.py", "line": 1, "text": "print('main')"}]
    texts = find_files(ctx, "**/*", kind="text")
    assert not set(ALIASES) & set(texts) and "app/main.py" in texts


def test_list_dir_leaves_aliases_out_as_it_does_denied_names(ctx, linked) -> None:
    assert [e["name"] for e in list_dir(ctx, "app")] == ["main.py", "sub"]
    assert list_dir(ctx, "app/sub") == []


def test_edit_and_write_through_an_alias_are_refused_and_change_nothing(ctx, linked) -> None:
    with pytest.raises(PathError, match="denied by the workspace policy: app/notes.txt"):
        edit_file(ctx, "app/notes.txt", SECRET, "gone")
    with pytest.raises(PathError, match="denied by the workspace policy: src/key.txt"):
        write_file(ctx, "src/key.txt", "overwritten\n")
    if ctx.staging:
        ctx.fs.commit()
    assert (linked / "app" / ".env").read_text() == SECRET + "\n"
    assert (linked / "secrets" / "key").read_text() == SECRET + "\n"
    assert os.stat(linked / "secrets" / "key").st_nlink == 2


def test_a_file_with_two_allowed_names_reads_and_writes_as_any(ctx, ws) -> None:
    os.link(ws / "app" / "main.py", ws / "app" / "sub" / "main.py")
    assert read_file(ctx, "app/sub/main.py") == "print('main')\n"
    assert grep(ctx, "main", glob="app/**/*.py") == [
        {"path": "app/main.py", "line": 1, "text": "print('main')"},
        {"path": "app/sub/main.py", "line": 1, "text": "print('main')"},
    ]
    assert [e["name"] for e in list_dir(ctx, "app/sub")] == ["main.py"]
    write_file(ctx, "app/sub/main.py", "print('new')\n")
    if ctx.staging:
        ctx.fs.commit()
    assert (ws / "app" / "sub" / "main.py").read_text() == "print('new')\n"
    assert (ws / "app" / "main.py").read_text() == "print('main')\n"  # replaced by name: the other name keeps its file


def test_a_denied_directorys_link_to_an_allowed_file_denies_that_file_only(ctx, ws) -> None:
    """secrets/copy is the same inode as app/main.py: a denied file. Every other file stays readable."""
    os.link(ws / "app" / "main.py", ws / "secrets" / "copy")
    with pytest.raises(PathError, match="denied by the workspace policy: app/main.py"):
        read_file(ctx, "app/main.py")
    assert read_file(ctx, "src/app.py").startswith("# TODO: one")


def test_an_alias_made_while_a_run_goes_on_is_refused_when_next_read(ctx, ws) -> None:
    os.link(ws / "app" / "main.py", ws / "app" / "sub" / "main.py")
    assert read_file(ctx, "app/sub/main.py") == "print('main')\n"  # the run's survey is made here
    os.link(ws / "app" / ".env", ws / "app" / "sub" / "late.txt")
    with pytest.raises(PathError, match="denied by the workspace policy: app/sub/late.txt"):
        read_file(ctx, "app/sub/late.txt")


def test_find_files_lists_names_but_no_tool_opens_them(ctx, linked) -> None:
    """A name is not the denied file: find_files (names only, no file opened) lists it; every tool that opens it refuses."""
    assert "app/notes.txt" in find_files(ctx, "app/*.txt")


def test_a_workspace_doc_that_is_an_alias_is_not_read(linked) -> None:
    os.link(linked / "app" / ".env", linked / "notes.md")
    with pytest.raises(DocsError) as info:
        resolve_doc("notes.md", linked, DENY)
    assert "denied by the workspace policy" in str(info.value) and SECRET not in str(info.value)
    assert resolve_doc("README.md", linked, DENY).startswith("# Demo")
