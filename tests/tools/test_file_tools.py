"""The suite's file tools: read windows, binary files, find kinds, list_dir, grep, loose edits and deny patterns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lackpy.errors import ArgumentError, PathError, ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools.builtin import edit_file, find_files, grep, list_dir, read_file, write_file


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    (workspace / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    (workspace / "data.bin").write_bytes(b"TODO\x00\x01binary")
    return ToolContext(workspace)


def test_read_file_line_window(ctx):
    """offset (1-based) and limit select lines, keeping their endings."""
    assert read_file(ctx, "notes.txt", offset=2, limit=2) == "two\nthree\n"
    assert read_file(ctx, "notes.txt", offset=3) == "three\nfour\n"
    assert read_file(ctx, "notes.txt", limit=1) == "one\n"
    assert read_file(ctx, "notes.txt", offset=9) == ""
    with pytest.raises(ToolError, match="^offset must be at least 1, not 0$"):
        read_file(ctx, "notes.txt", offset=0)
    with pytest.raises(ToolError, match="^limit must be at least 1, not -2$"):
        read_file(ctx, "notes.txt", limit=-2)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"offset": "2"}, "read_file: argument 'offset' expects an int or None, got '2' (str)"),
        ({"offset": 1.5}, "read_file: argument 'offset' expects an int or None, got 1.5 (float)"),
        ({"limit": True}, "read_file: argument 'limit' expects an int or None, got True (bool)"),
    ],
)
def test_read_file_window_must_be_whole_numbers(toolbox, workspace, kwargs, message):
    """A line window that is not an int is refused by the argument check before the file is read."""
    (workspace / "notes.txt").write_text("one\ntwo\n")
    with pytest.raises(ArgumentError) as info:
        toolbox.bound("read_file")("notes.txt", **kwargs)
    assert str(info.value) == message
    assert toolbox.context.files_read == {}


PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"


@pytest.mark.parametrize("name, data", [("logo.png", PNG_HEADER + bytes(range(256))), ("data.bin", b"TODO\x00\x01binary")])
def test_read_file_refuses_binary(ctx, workspace, name, data):
    """A binary file is refused with its size and what to do instead; nothing is recorded as read."""
    (workspace / name).write_bytes(data)
    with pytest.raises(ToolError) as info:
        read_file(ctx, name)
    assert str(info.value) == f"not a text file: {name} is binary ({len(data)} bytes); read_file reads text files only, so skip it"
    assert ctx.files_read == {}


def test_read_file_reads_utf8_beyond_ascii(ctx, workspace):
    """UTF-8 text with non-ASCII characters is text, not binary."""
    (workspace / "menu.txt").write_text("café ☕ naïve 日本\n", encoding="utf-8")
    assert read_file(ctx, "menu.txt") == "café ☕ naïve 日本\n"


def test_find_files_kinds(ctx):
    """kind selects files (default), directories or both."""
    assert find_files(ctx, "src/*") == ["src/app.py"]
    assert find_files(ctx, "src/*", kind="dir") == ["src/pkg"]
    assert find_files(ctx, "**/*", kind="any") == ["README.md", "data.bin", "notes.txt", "src", "src/app.py", "src/pkg", "src/pkg/util.py"]
    assert find_files(ctx, "src/*", kind=None) == ["src/app.py"]


@pytest.mark.parametrize("kind", ["folder", "FILE", "", 1])
def test_find_files_refuses_other_kinds(toolbox, kind):
    """A kind outside 'file', 'dir', 'any' (or None) is refused by the argument check, naming the allowed values."""
    with pytest.raises(ArgumentError) as info:
        toolbox.bound("find_files")("*", kind=kind)
    assert str(info.value) == (
        f"find_files: argument 'kind' expects one of 'file', 'dir', 'any', 'text' or None, got {kind!r} ({type(kind).__name__})"
    )


def test_list_dir(ctx, workspace, outside):
    """list_dir gives name, kind and size, hides links leading outside, and refuses files."""
    os.symlink(outside, workspace / "escape")
    entries = list_dir(ctx)
    assert [e["name"] for e in entries] == ["README.md", "data.bin", "notes.txt", "src"]
    assert entries[2] == {"name": "notes.txt", "kind": "file", "size": 19}
    assert entries[3] == {"name": "src", "kind": "dir", "size": 0}
    assert list_dir(ctx, "src") == [{"name": "app.py", "kind": "file", "size": 37}, {"name": "pkg", "kind": "dir", "size": 0}]
    with pytest.raises(PathError, match="not a directory: notes.txt"):
        list_dir(ctx, "notes.txt")
    with pytest.raises(PathError, match="no such directory: nope"):
        list_dir(ctx, "nope")


def test_list_dir_and_grep_see_staged_writes(workspace):
    """In a run, new files are listed and searched before they are committed."""
    ctx = ToolContext(workspace, staging=True)
    write_file(ctx, "fresh/new.txt", "TODO: staged\n")
    assert list_dir(ctx, "fresh") == [{"name": "new.txt", "kind": "file", "size": 13}]
    assert grep(ctx, "staged") == [{"path": "fresh/new.txt", "line": 1, "text": "TODO: staged"}]
    assert not (workspace / "fresh").exists()


def test_grep_hits_case_and_binary(ctx):
    """grep returns path, line and text per match, honours ignore_case and skips binary files."""
    assert grep(ctx, "TODO", glob="**/*.py") == [
        {"path": "src/app.py", "line": 1, "text": "# TODO: one"},
        {"path": "src/app.py", "line": 3, "text": "# TODO: two"},
        {"path": "src/pkg/util.py", "line": 2, "text": "    return 1  # TODO: three"},
    ]
    assert [h["path"] for h in grep(ctx, "todo")] == []
    assert len(grep(ctx, "todo", ignore_case=True)) == 3  # data.bin is binary: skipped
    with pytest.raises(ToolError, match="invalid regular expression"):
        grep(ctx, "(")


def test_grep_cap_is_flagged(ctx):
    """Past max_hits the list ends with one entry whose truncated is True."""
    hits = grep(ctx, "TODO", glob="**/*.py", max_hits=2)
    assert [h["line"] for h in hits[:2]] == [1, 3]
    assert hits[2]["truncated"] is True and hits[2]["text"].startswith("[grep stopped at 2 hits")
    assert len(hits) == 3


def test_edit_file_ignores_whitespace_when_exact_text_is_missing(ctx, workspace):
    """A match that differs only in indentation and spacing is replaced, line for line."""
    (workspace / "code.py").write_text("def f():\n    x  =  1\n    return x\n")
    diff = edit_file(ctx, "code.py", "x = 1\nreturn x", "y = 2\n    return y")
    assert (workspace / "code.py").read_text() == "def f():\ny = 2\n    return y\n"
    assert "-    x  =  1\n" in diff and "+y = 2\n" in diff


def test_edit_file_replace_all_and_ambiguity(ctx, workspace):
    """Several matches need replace_all; with it every one is replaced."""
    (workspace / "list.txt").write_text("a = 1\nb = 2\na = 1\n")
    with pytest.raises(ToolError, match="occurs 2 times in list.txt; include more surrounding text, or pass replace_all=True"):
        edit_file(ctx, "list.txt", "a = 1", "a = 9")
    edit_file(ctx, "list.txt", "a = 1", "a = 9", replace_all=True)
    assert (workspace / "list.txt").read_text() == "a = 9\nb = 2\na = 9\n"
    (workspace / "loose.txt").write_text("  k  = 1\nk = 1\n")
    with pytest.raises(ToolError, match="matches 2 places in loose.txt \\(ignoring whitespace\\)"):
        edit_file(ctx, "loose.txt", "k = 1 ", "k = 2")
    with pytest.raises(ToolError, match="old_str not found in loose.txt"):
        edit_file(ctx, "loose.txt", "missing", "x")


def test_deny_globs(workspace):
    """Paths matching the configured deny globs are refused and never listed or searched."""
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("TODO secret\n")
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key.txt").write_text("TODO key\n")
    ctx = ToolContext(workspace, settings={"deny": [".git/**", "secrets"]})
    with pytest.raises(PathError, match="denied by the workspace policy: .git/config"):
        read_file(ctx, ".git/config")
    with pytest.raises(PathError, match="denied by the workspace policy: secrets/key.txt"):
        read_file(ctx, "secrets/key.txt")
    with pytest.raises(PathError, match="denied"):
        write_file(ctx, "secrets/new.txt", "x")
    assert "secrets/key.txt" not in find_files(ctx, "**/*")
    assert [e["name"] for e in list_dir(ctx)] == ["README.md", "src"]
    assert all(not h["path"].startswith("secrets") for h in grep(ctx, "TODO"))


DENY_TABLE = [
    # (deny patterns, path, denied?)
    (["*.env"], ".env", True),
    (["*.env"], "a/.env", True),
    (["*.env"], "x.env", True),
    (["*.env"], "X.ENV", False),  # case-sensitive
    (["**/*.pem"], ".secrets/id.pem", True),
    (["**/*.pem"], "conf/id.pem", True),
    (["**/*.pem"], "id.pem", True),
    (["**/*.pem"], "a/b/.c/d.pem", True),
    (["**/*.pem"], "ID.PEM", False),
    (["secrets/"], "secrets/x", True),
    (["secrets/"], "a/secrets/x", True),
    (["secrets/"], "Secrets/x", False),
    (["secrets/"], "secrets", False),  # a trailing '/' matches directories only
    ([".secrets"], ".secrets/id.pem", True),
    ([".git/"], ".git/config", True),
    ([".git/**"], ".git/config", True),
    (["/top.txt"], "top.txt", True),
    (["/top.txt"], "a/top.txt", False),  # a leading '/' anchors at the workspace root
    (["*.pem", "!keep.pem"], "keep.pem", False),
    (["*.pem", "!keep.pem"], "a/keep.pem", False),
    (["*.pem", "!keep.pem"], "id.pem", True),
    (["secrets/", "!secrets/keep.pem"], "secrets/keep.pem", True),  # a denied directory stays shut
]


def _listed(ctx: ToolContext, path: str) -> bool:
    """Whether list_dir shows every component of ``path``, walking down from the workspace."""
    parent = "."
    for name in path.split("/"):
        if name not in [e["name"] for e in list_dir(ctx, parent)]:
            return False
        parent = name if parent == "." else f"{parent}/{name}"
    return True


@pytest.mark.parametrize("patterns, path, is_denied", DENY_TABLE, ids=[f"{'+'.join(p)}:{path}" for p, path, _ in DENY_TABLE])
def test_deny_patterns(workspace, patterns, path, is_denied):
    """Each tool refuses, or hides, exactly the paths the deny patterns cover, dot-files included."""
    (workspace / path).parent.mkdir(parents=True, exist_ok=True)
    (workspace / path).write_text("TODO secret\n")
    ctx = ToolContext(workspace, settings={"deny": patterns})
    if is_denied:
        with pytest.raises(PathError) as info:
            read_file(ctx, path)
        assert str(info.value) == f"denied by the workspace policy: {path}"
        with pytest.raises(PathError, match="denied by the workspace policy"):
            write_file(ctx, path, "overwritten\n")
        assert (workspace / path).read_text() == "TODO secret\n"
    else:
        assert read_file(ctx, path) == "TODO secret\n"
    visible = not is_denied
    assert (find_files(ctx, path) == [path]) is visible
    assert ([h["path"] for h in grep(ctx, "secret", glob=path)] == [path]) is visible
    assert _listed(ctx, path) is visible


def test_find_files_text_skips_binary_and_huge_files(toolbox, workspace):
    """kind='text' lists what read_file can read, so programs over '**/*' do not stop at an image."""
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (workspace / "notes.md").write_text("TODO: text\n")
    find = toolbox.bound("find_files")
    everything = find("**/*")
    text = find("**/*", kind="text")
    assert "logo.png" in everything and "logo.png" not in text and "notes.md" in text
    read = toolbox.bound("read_file")
    assert all(isinstance(read(path), str) for path in text)
