"""The built-in tools read_file, find_files, write_file and edit_file, their specs and provider."""

from __future__ import annotations

import asyncio
import os
import stat
import threading

import pytest

from lackpy.errors import ArgumentError, PathError, ProviderError, ToolError
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.tools.builtin import FILE_TOOLS, BuiltinProvider

SPECS = [fn.lackpy_tool for fn in FILE_TOOLS]

README = "# Demo\n\nStatus: draft\n"


def run(service, program: str, kit="filesystem"):
    """Run a program through the service and return its ExecutionResult."""
    return asyncio.run(service.run_program(program, kit=kit))


# -- specs and provider ----------------------------------------------------------


FILE_TOOL_NAMES = {"edit_file", "find_files", "grep", "list_dir", "read_file", "write_file"}


def test_specs_and_grades(toolbox):
    """The built-in file tools have their documented signatures and grades: reads low, writes high."""
    table = {s.name: (s.signature(), s.grade_w, s.effects_ceiling, s.provider) for s in toolbox.list_tools() if s.name in FILE_TOOL_NAMES}
    assert table == {
        "edit_file": ("edit_file(path: str, old_str: str, new_str: str, replace_all: bool = False) -> str", 3, 3, "builtin"),
        "find_files": ("find_files(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]", 1, 0, "builtin"),
        "grep": ("grep(pattern: str, glob: str = '**/*', ignore_case: bool = False, max_hits: int = 1000) -> list[dict]", 1, 0, "builtin"),
        "list_dir": ("list_dir(path: str = '.') -> list[dict]", 1, 0, "builtin"),
        "read_file": ("read_file(path: str, offset: int | None = None, limit: int | None = None) -> str", 1, 0, "builtin"),
        "write_file": ("write_file(path: str, content: str) -> str", 3, 3, "builtin"),
    }


def test_specs_have_docs_examples_tags():
    """Each built-in spec has a description, docs path, at least one example and tags."""
    for spec in SPECS:
        assert spec.description
        assert spec.docs == f"docs/tools/{spec.name}.md"
        assert spec.examples and spec.tags


def test_spec_examples_run(service, workspace):
    """Every example program in the built-in specs runs successfully in the filesystem kit."""
    for spec in SPECS:
        for example in spec.examples:
            result = run(service, example)
            assert result.success, (spec.name, example, result.error)


def test_builtin_provider_unknown_function():
    """The builtin provider refuses a function it does not have, listing what it has."""
    with pytest.raises(ProviderError) as info:
        BuiltinProvider().resolve(ToolSpec("mystery", "builtin"))
    assert "no tool 'mystery'" in str(info.value)
    assert "edit_file, fetch_url, find_files, grep, list_dir, list_processes, poll_process, read_file" in str(info.value)


def test_builtin_provider_function_alias(toolbox):
    """A builtin spec may point at an implementation under another name via provider_config."""
    toolbox.register_tool(ToolSpec("cat", "builtin", provider_config={"function": "read_file"}, args=[ArgSpec("path", "str")]))
    assert toolbox.bound("cat")("README.md") == README


# -- read_file -----------------------------------------------------------------------


def test_read_file_returns_text_and_records(toolbox):
    """read_file returns the text and records the relative path in files_read."""
    read = toolbox.bound("read_file")
    assert read("README.md") == README
    assert read("src/pkg/../app.py") == "# TODO: one\nprint('app')\n# TODO: two\n"
    assert list(toolbox.context.files_read) == ["README.md", "src/app.py"]
    assert toolbox.context.files_modified == {}


def test_read_file_replaces_invalid_utf8(toolbox, workspace):
    """Bytes that are not UTF-8 are replaced with U+FFFD."""
    (workspace / "latin.txt").write_bytes(b"caf\xe9\n")
    assert toolbox.bound("read_file")("latin.txt") == "caf\ufffd\n"


def test_read_file_inside_symlink(toolbox, workspace):
    """A symlink whose target is inside the workspace can be read."""
    (workspace / "alias.md").symlink_to(workspace / "README.md")
    assert toolbox.bound("read_file")("alias.md") == README


def test_read_file_in_program(service):
    """A program's result lists the files it read."""
    result = run(service, 'text = read_file("README.md")\nread_file("src/app.py").count("TODO") + text.count("Status")')
    assert result.success, result.error
    assert result.output == 3
    assert result.files_read == ["README.md", "src/app.py"]
    assert result.files_modified == []


def test_runs_do_not_share_records(service):
    """Each run gets a fresh context: a second run does not list the first run's reads."""
    run(service, 'read_file("README.md")')
    second = run(service, 'read_file("src/app.py")')
    assert second.files_read == ["src/app.py"]


# -- find_files ----------------------------------------------------------------------


def test_find_files_recursive(toolbox, workspace):
    """find_files('**/*.py') returns sorted relative posix paths including a root-level file."""
    (workspace / "main.py").write_text("")
    assert toolbox.bound("find_files")("**/*.py") == ["main.py", "src/app.py", "src/pkg/util.py"]


def test_find_files_in_program(service):
    """find_files in a program returns the list, and reads nothing."""
    result = run(service, 'find_files("**/*.py")', kit="readonly")
    assert result.success, result.error
    assert result.output == ["src/app.py", "src/pkg/util.py"]
    assert result.files_read == []


def test_find_files_then_read(service):
    """The README's composing program counts TODOs across the found files."""
    program = 'todos = {}\nfor f in find_files("**/*.py"):\n    todos[f] = read_file(f).count("TODO")\ntodos'
    result = run(service, program, kit="readonly")
    assert result.success, result.error
    assert result.output == {"src/app.py": 2, "src/pkg/util.py": 1}
    assert result.files_read == ["src/app.py", "src/pkg/util.py"]


def test_find_files_hidden(toolbox, workspace):
    """Hidden directories are skipped by wildcards but found when named."""
    (workspace / ".git").mkdir()
    (workspace / ".git" / "hook.py").write_text("")
    find = toolbox.bound("find_files")
    assert find("**/*.py") == ["src/app.py", "src/pkg/util.py"]
    assert find(".git/*.py") == [".git/hook.py"]


def test_find_files_refusals(toolbox, outside):
    """find_files refuses '..' and absolute patterns with PathError."""
    find = toolbox.bound("find_files")
    with pytest.raises(PathError, match=r"^outside the workspace: \.\./outside/\*$"):
        find("../outside/*")
    with pytest.raises(PathError, match="absolute paths are not allowed"):
        find(str(outside.parent / "*"))


# -- write_file ----------------------------------------------------------------------


def test_write_file_creates_parents(toolbox, workspace):
    """write_file creates missing parent directories and records files_modified."""
    message = toolbox.bound("write_file")("notes/deep/summary.txt", "3 TODOs\n")
    assert message == "wrote 8 bytes to notes/deep/summary.txt"
    assert (workspace / "notes" / "deep" / "summary.txt").read_text() == "3 TODOs\n"
    assert list(toolbox.context.files_modified) == ["notes/deep/summary.txt"]
    assert toolbox.context.files_read == {}


def test_write_file_counts_bytes(toolbox, workspace):
    """The confirmation counts UTF-8 bytes, not characters."""
    assert toolbox.bound("write_file")("u.txt", "é") == "wrote 2 bytes to u.txt"
    assert (workspace / "u.txt").read_bytes() == "é".encode()


def test_write_file_replaces_atomically(toolbox, workspace):
    """Overwriting renames a new file over the old one: a hard link to the old file keeps the old text."""
    old = workspace / "README.md"
    keep = workspace / "old-readme.md"
    os.link(old, keep)
    toolbox.bound("write_file")("README.md", "new text\n")
    assert old.read_text() == "new text\n"
    assert keep.read_text() == README
    assert os.stat(old).st_ino != os.stat(keep).st_ino


def test_write_file_leaves_no_temp_files(toolbox, workspace):
    """After writes the directory holds only the written files, no temporary leftovers.

    lackpy's own state (the commit journal) lives in .lackpy/, and is empty once a commit is done.
    """
    write = toolbox.bound("write_file")
    write("README.md", "a")
    write("src/new.py", "b")
    write("src/new.py", "c")
    assert sorted(os.listdir(workspace)) == [".lackpy", "README.md", "src"]
    assert sorted(os.listdir(workspace / "src")) == ["app.py", "new.py", "pkg"]
    assert os.listdir(workspace / ".lackpy" / "commit") == [".gitignore"]


def test_write_file_keeps_permission_bits(toolbox, workspace):
    """Overwriting keeps the file's permission bits, including the executable bit."""
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o751)
    (workspace / "README.md").chmod(0o600)
    write = toolbox.bound("write_file")
    write("run.sh", "#!/bin/sh\necho hi\n")
    write("README.md", "x")
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o751
    assert stat.S_IMODE(os.stat(workspace / "README.md").st_mode) == 0o600


def test_write_file_through_inside_symlink(toolbox, workspace):
    """Writing through a symlink to a workspace file updates the target and keeps the link."""
    (workspace / "alias.md").symlink_to(workspace / "README.md")
    toolbox.bound("write_file")("alias.md", "via link\n")
    assert (workspace / "README.md").read_text() == "via link\n"
    assert (workspace / "alias.md").is_symlink()


@pytest.mark.parametrize("content", [b"bytes", None, 3, ["a"]])
def test_write_file_rejects_non_str(toolbox, workspace, content):
    """Non-str content is refused by the argument check (ArgumentError naming the value and type); no file is created."""
    with pytest.raises(ArgumentError) as info:
        toolbox.bound("write_file")("x.txt", content)
    assert str(info.value) == f"write_file: argument 'content' expects a str, got {content!r} ({type(content).__name__})"
    assert info.value.kind == "argument"
    assert not (workspace / "x.txt").exists()
    assert toolbox.context.files_modified == {}


def test_write_file_unencodable_content(toolbox, workspace):
    """Content that cannot be encoded as UTF-8 (a lone surrogate) raises ToolError, not UnicodeEncodeError."""
    with pytest.raises(ToolError):
        toolbox.bound("write_file")("x.txt", "\ud800")
    assert not (workspace / "x.txt").exists()


def test_write_file_directory_target(toolbox, workspace):
    """Writing to a directory path raises PathError and leaves the directory alone."""
    with pytest.raises(PathError) as info:
        toolbox.bound("write_file")("src", "x")
    assert str(info.value) == "is a directory, not a file: src"
    assert info.value.kind == "tool" and isinstance(info.value, ToolError)
    assert (workspace / "src" / "app.py").exists()


def test_write_file_parent_is_a_file(toolbox):
    """Writing below a regular file raises PathError, not an OSError."""
    with pytest.raises(PathError):
        toolbox.bound("write_file")("README.md/child.txt", "x")


def test_write_file_does_not_follow_planted_temp_symlink(toolbox, workspace, canary):
    """A symlink planted at the temp-file name is not followed: the canary and the link stay as they were."""
    planted = workspace / f".README.md.lackpy-{os.getpid()}.tmp"
    planted.symlink_to(canary.path)
    toolbox.bound("write_file")("README.md", "new text\n")
    canary.assert_untouched()
    assert not (workspace / "README.md").is_symlink()
    assert (workspace / "README.md").read_text() == "new text\n"


def test_write_file_does_not_clobber_file_named_like_temp(toolbox, workspace):
    """A user's file that happens to have the temp-file name survives a write next to it."""
    user_file = workspace / f".README.md.lackpy-{os.getpid()}.tmp"
    user_file.write_text("user data\n")
    toolbox.bound("write_file")("README.md", "new text\n")
    assert user_file.read_text() == "user data\n"


def test_write_file_concurrent_writers(toolbox, workspace):
    """Two threads writing the same file never fail and leave one complete version."""
    write = toolbox.bound("write_file")
    errors: list[str] = []

    def writer(tag: str) -> None:
        for _ in range(100):
            try:
                write("shared.txt", tag * 1000)
            except Exception as exc:  # collected and asserted below
                errors.append(repr(exc))

    threads = [threading.Thread(target=writer, args=(t,)) for t in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (workspace / "shared.txt").read_text() in ("a" * 1000, "b" * 1000)
    assert sorted(os.listdir(workspace)) == [".lackpy", "README.md", "shared.txt", "src"]
    assert os.listdir(workspace / ".lackpy" / "commit") == [".gitignore"]


def test_write_file_in_program(service, workspace):
    """A program's write appears in files_modified and on disk."""
    result = run(service, 'write_file("out/report.txt", "done\\n")')
    assert result.success, result.error
    assert result.output == "wrote 5 bytes to out/report.txt"
    assert result.files_created == ["out/report.txt"] and result.files_modified == []
    assert (workspace / "out" / "report.txt").read_text() == "done\n"


def test_write_file_not_in_readonly_kit(service, workspace):
    """write_file is not callable from the readonly kit, and nothing is written."""
    result = run(service, 'write_file("x.txt", "x")', kit="readonly")
    assert result.success is False
    assert result.error_kind == "validation"
    assert not (workspace / "x.txt").exists()


# -- edit_file ----------------------------------------------------------------------


def test_edit_file_unique_match(toolbox, workspace):
    """edit_file replaces the unique match, returns a unified diff and records the file."""
    diff = toolbox.bound("edit_file")("README.md", "Status: draft", "Status: final")
    lines = diff.splitlines()
    assert lines[:2] == ["--- a/README.md", "+++ b/README.md"]
    assert lines[2].startswith("@@")
    assert "-Status: draft" in lines
    assert "+Status: final" in lines
    assert (workspace / "README.md").read_text() == "# Demo\n\nStatus: final\n"
    assert list(toolbox.context.files_modified) == ["README.md"]
    assert list(toolbox.context.files_read) == ["README.md"]


def test_edit_file_in_program(service, workspace):
    """The documented example works in a program and reports the modification."""
    result = run(service, 'diff = edit_file("README.md", "Status: draft", "Status: final")\ndiff.count("\\n+")')
    assert result.success, result.error
    assert result.output == 2  # the '+++' header and the added line
    assert result.files_modified == ["README.md"]


def test_edit_file_missing_match_names_closest(toolbox, workspace):
    """A missing match raises ToolError naming the closest line, and the file is unchanged."""
    with pytest.raises(ToolError) as info:
        toolbox.bound("edit_file")("README.md", "Status: drat", "Status: final")
    message = str(info.value)
    assert "old_str not found in README.md" in message
    assert "the closest line is: 'Status: draft'" in message
    assert (workspace / "README.md").read_text() == README
    assert toolbox.context.files_modified == {}


def test_edit_file_missing_match_without_close_line(toolbox):
    """A missing match with nothing similar raises ToolError without a suggestion."""
    with pytest.raises(ToolError) as info:
        toolbox.bound("edit_file")("README.md", "zzzzzzzzzzzz", "y")
    assert str(info.value) == "edit_file: old_str not found in README.md"


def test_edit_file_multiple_matches(toolbox, workspace):
    """Several matches raise ToolError saying how many, and the file is unchanged."""
    before = (workspace / "src" / "app.py").read_text()
    with pytest.raises(ToolError) as info:
        toolbox.bound("edit_file")("src/app.py", "TODO", "DONE")
    assert "occurs 2 times in src/app.py" in str(info.value)
    assert (workspace / "src" / "app.py").read_text() == before


def test_edit_file_overlapping_matches_are_ambiguous(toolbox, workspace):
    """old_str occurring at two overlapping positions is not unique and is refused."""
    (workspace / "a.txt").write_text("aaa\n")
    with pytest.raises(ToolError):
        toolbox.bound("edit_file")("a.txt", "aa", "X")
    assert (workspace / "a.txt").read_text() == "aaa\n"


def test_edit_file_same_text(toolbox, workspace):
    """new_str equal to old_str says the file is unchanged, and modifies nothing."""
    assert toolbox.bound("edit_file")("README.md", "Status: draft", "Status: draft") == "README.md already has this content; nothing written"
    assert toolbox.context.files_modified == {}
    assert (workspace / "README.md").read_text() == README


@pytest.mark.parametrize("old, new", [("", "x"), (None, "x"), ("draft", None), (b"draft", "x")])
def test_edit_file_bad_arguments(toolbox, workspace, old, new):
    """Empty or non-str old_str/new_str raise ToolError and leave the file alone."""
    with pytest.raises(ToolError):
        toolbox.bound("edit_file")("README.md", old, new)
    assert (workspace / "README.md").read_text() == README


def test_edit_file_missing_file(toolbox):
    """edit_file of a missing file raises PathError naming it."""
    with pytest.raises(PathError, match="^no such file: nope.md$"):
        toolbox.bound("edit_file")("nope.md", "a", "b")


def test_edit_file_keeps_other_bytes(toolbox, workspace):
    """Editing a file with non-UTF-8 bytes either refuses or keeps the bytes outside the edit intact."""
    original = b"caf\xe9\nStatus: draft\n"
    (workspace / "latin.txt").write_bytes(original)
    try:
        toolbox.bound("edit_file")("latin.txt", "draft", "final")
    except ToolError:
        assert (workspace / "latin.txt").read_bytes() == original
    else:
        assert (workspace / "latin.txt").read_bytes() == b"caf\xe9\nStatus: final\n"


def test_edit_file_keeps_permission_bits(toolbox, workspace):
    """An edited file keeps its permission bits."""
    (workspace / "README.md").chmod(0o640)
    toolbox.bound("edit_file")("README.md", "draft", "final")
    assert stat.S_IMODE(os.stat(workspace / "README.md").st_mode) == 0o640
