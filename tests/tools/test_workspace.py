"""The workspace path policy and glob, with a canary outside the workspace that must stay untouched."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from lackpy.errors import PathError, ToolError
from lackpy.kit.context import ToolContext
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate
from lackpy.host import deny as deny_module
from lackpy.tools import workspace as policy


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    """A ToolContext over the workspace."""
    return ToolContext(workspace)


def call_with_timeout(fn, *args, timeout: float = 5.0):
    """Run fn(*args) in a daemon thread; return ("ok", value) or ("error", exc), or ("hung", None)."""
    outcome: list = []

    def attempt():
        try:
            outcome.append(("ok", fn(*args)))
        except BaseException as exc:  # recorded for the test to check
            outcome.append(("error", exc))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout)
    return outcome[0] if outcome else ("hung", None)


# -- resolve -----------------------------------------------------------------------


def test_resolve_relative(ctx, workspace):
    """A relative path resolves to its canonical workspace-relative form."""
    assert policy.resolve(ctx, "src/app.py") == "src/app.py"
    assert policy.resolve(ctx, "src/../README.md") == "README.md"
    assert policy.resolve(ctx, "./README.md") == "README.md"
    assert policy.resolve(ctx, "not/yet/there.txt") == "not/yet/there.txt"
    assert policy.resolve(ctx, "src/") == "src"


def test_resolve_absolute_refused(ctx, outside, workspace):
    """Absolute paths are refused, even ones inside the workspace."""
    for path in (str(outside), str(workspace / "README.md"), "/etc/passwd"):
        with pytest.raises(PathError) as info:
            policy.resolve(ctx, path)
        assert str(info.value).startswith(f"absolute paths are not allowed: {path}")


@pytest.mark.parametrize("path", ["../outside/canary.txt", "..", "src/../../outside/canary.txt", "src/pkg/../../../x"])
def test_resolve_climb_refused(ctx, outside, path):
    """A '..' that climbs out of the workspace is refused, naming the path as written."""
    with pytest.raises(PathError) as info:
        policy.resolve(ctx, path)
    assert str(info.value) == f"outside the workspace: {path}"


def test_resolve_symlink_refused(ctx, workspace, outside):
    """A symlink whose target is outside is refused, naming the path as written."""
    (workspace / "link.txt").symlink_to(outside)
    with pytest.raises(PathError) as info:
        policy.resolve(ctx, "link.txt")
    assert str(info.value) == "symlink leads outside the workspace: link.txt"


def test_resolve_sibling_prefix_refused(tmp_path):
    """A sibling directory whose name starts with the workspace's name is still outside."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "ws-evil" / "x.txt").write_text("evil")
    ctx = ToolContext(tmp_path / "ws")
    with pytest.raises(PathError):
        policy.resolve(ctx, "../ws-evil/x.txt")
    (tmp_path / "ws" / "l").symlink_to(tmp_path / "ws-evil", target_is_directory=True)
    with pytest.raises(PathError):
        policy.resolve(ctx, "l/x.txt")


@pytest.mark.parametrize("path", ["", "a\x00b", None, 3, b"README.md"])
def test_resolve_bad_values(ctx, path):
    """Empty, NUL-containing and non-string paths are refused with their repr."""
    with pytest.raises(PathError) as info:
        policy.resolve(ctx, path)
    assert str(info.value) == f"a path must be a non-empty string, not {path!r}"


def test_links_inside_resolve_to_their_target(ctx, workspace):
    """A symlink that stays inside the workspace resolves to its target's relative path."""
    os.symlink(workspace / "src" / "pkg", workspace / "alias")
    assert policy.resolve(ctx, "alias/util.py") == "src/pkg/util.py"


def test_symlinked_workspace_root(tmp_path, workspace):
    """A workspace given through a symlink works; paths resolve inside its real directory."""
    link = tmp_path / "wslink"
    link.symlink_to(workspace, target_is_directory=True)
    tb = Toolbox(str(link))
    populate(tb)
    assert tb.bound("read_file")("README.md") == "# Demo\n\nStatus: draft\n"
    assert tb.bound("find_files")("src/*.py") == ["src/app.py"]


# -- read_file / write_file / edit_file against the canary -----------------------------


def test_read_absolute_canary(toolbox, canary):
    """read_file of the canary's absolute path is refused."""
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")(str(canary.path))
    assert "absolute paths are not allowed" in str(info.value)
    assert "CANARY-SECRET" not in str(info.value)
    assert toolbox.context.files_read == {}
    canary.assert_untouched()


def test_read_relative_climb(toolbox, canary):
    """read_file('../outside/canary.txt') is refused naming the path."""
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("../outside/canary.txt")
    assert str(info.value) == "outside the workspace: ../outside/canary.txt"
    canary.assert_untouched()


def test_read_symlink_to_canary(toolbox, workspace, canary):
    """read_file through a symlink to the canary is refused."""
    (workspace / "leak.txt").symlink_to(canary.path)
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("leak.txt")
    assert str(info.value) == "symlink leads outside the workspace: leak.txt"
    canary.assert_untouched()


def test_read_through_symlinked_dir(toolbox, workspace, canary):
    """read_file through a symlinked directory pointing outside is refused."""
    (workspace / "ext").symlink_to(canary.dir, target_is_directory=True)
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("ext/canary.txt")
    assert str(info.value) == "symlink leads outside the workspace: ext/canary.txt"
    canary.assert_untouched()


def test_nul_byte_path(toolbox, canary):
    """A path with a NUL byte is refused by every tool, with the path shown escaped."""
    for name, args in [("read_file", ()), ("write_file", ("x",)), ("edit_file", ("a", "b"))]:
        with pytest.raises(PathError) as info:
            toolbox.bound(name)("README.md\x00../outside/canary.txt", *args)
        assert "\\x00" in str(info.value)
    assert (Path(toolbox.context.root) / "README.md").read_text() == "# Demo\n\nStatus: draft\n"
    canary.assert_untouched()


def test_fifo_refused_quickly(toolbox, workspace):
    """read_file of a FIFO refuses with PathError at once instead of blocking on open."""
    fifo = workspace / "pipe"
    os.mkfifo(fifo)
    status, value = call_with_timeout(toolbox.bound("read_file"), "pipe")
    if status == "hung":  # unblock the reader before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("read_file blocked on a FIFO")
    assert status == "error" and isinstance(value, PathError), value
    assert str(value) == "not a regular file: pipe"


def test_fifo_edit_refused_quickly(toolbox, workspace):
    """edit_file of a FIFO refuses with PathError at once."""
    fifo = workspace / "pipe"
    os.mkfifo(fifo)
    status, value = call_with_timeout(toolbox.bound("edit_file"), "pipe", "a", "b")
    if status == "hung":
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("edit_file blocked on a FIFO")
    assert status == "error" and isinstance(value, PathError)


def test_directory_path(toolbox):
    """read_file of a directory raises PathError naming it."""
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("src")
    assert str(info.value) == "is a directory, not a file: src"


def test_missing_file(toolbox):
    """read_file of a missing file raises PathError naming it."""
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("src/nope.py")
    assert str(info.value) == "no such file: src/nope.py"


def test_file_as_parent(toolbox):
    """A path through a regular file raises PathError, not OSError."""
    with pytest.raises(PathError) as info:
        toolbox.bound("read_file")("README.md/child")
    assert "README.md/child" in str(info.value)


def test_path_error_is_tool_error():
    """PathError is a ToolError, so programs see both the same way."""
    assert issubclass(PathError, ToolError)


def test_write_symlink_to_canary(toolbox, workspace, canary):
    """write_file through a symlink to the canary is refused and the canary is unchanged."""
    (workspace / "leak.txt").symlink_to(canary.path)
    with pytest.raises(PathError) as info:
        toolbox.bound("write_file")("leak.txt", "pwned")
    assert str(info.value) == "symlink leads outside the workspace: leak.txt"
    assert (workspace / "leak.txt").is_symlink()
    assert toolbox.context.files_modified == {}
    canary.assert_untouched()


def test_edit_symlink_to_canary(toolbox, workspace, canary):
    """edit_file through a symlink to the canary is refused and the canary is unchanged."""
    (workspace / "leak.txt").symlink_to(canary.path)
    with pytest.raises(PathError) as info:
        toolbox.bound("edit_file")("leak.txt", "CANARY", "PWNED")
    assert "symlink leads outside the workspace: leak.txt" == str(info.value)
    assert "CANARY-SECRET" not in str(info.value)
    canary.assert_untouched()


def test_write_into_symlinked_dir(toolbox, workspace, canary):
    """write_file of a new file inside a symlinked directory pointing outside is refused; nothing is created."""
    (workspace / "ext").symlink_to(canary.dir, target_is_directory=True)
    for path in ("ext/new.txt", "ext/canary.txt", "ext/deeper/new.txt"):
        with pytest.raises(PathError) as info:
            toolbox.bound("write_file")(path, "pwned")
        assert str(info.value) == f"symlink leads outside the workspace: {path}"
    canary.assert_untouched()


def test_write_through_dangling_symlink(toolbox, workspace, canary):
    """write_file through a dangling symlink aimed outside is refused and creates nothing there."""
    target = canary.dir / "created.txt"
    (workspace / "dangle.txt").symlink_to(target)
    with pytest.raises(PathError):
        toolbox.bound("write_file")("dangle.txt", "pwned")
    assert not target.exists()
    canary.assert_untouched()


@pytest.mark.parametrize("path", ["../outside/canary.txt", "../outside/new.txt", "src/../../outside/canary.txt"])
def test_write_climb(toolbox, canary, path):
    """write_file and edit_file with a climbing path are refused naming the path."""
    with pytest.raises(PathError) as info:
        toolbox.bound("write_file")(path, "pwned")
    assert str(info.value) == f"outside the workspace: {path}"
    with pytest.raises(PathError):
        toolbox.bound("edit_file")(path, "CANARY", "PWNED")
    canary.assert_untouched()


def test_write_absolute(toolbox, canary):
    """write_file with an absolute path is refused even when it names the canary."""
    with pytest.raises(PathError) as info:
        toolbox.bound("write_file")(str(canary.path), "pwned")
    assert "absolute paths are not allowed" in str(info.value)
    canary.assert_untouched()


def test_program_cannot_read_canary(service, canary):
    """A program reading the canary fails with a tool error that leaks nothing of it."""
    result = asyncio.run(service.run_program('read_file("../outside/canary.txt")', kit="readonly"))
    assert result.success is False
    assert result.error_kind == "tool"
    assert "outside the workspace: ../outside/canary.txt" in result.error
    assert "CANARY-SECRET" not in repr(result.to_dict())
    assert result.files_read == []
    canary.assert_untouched()


# -- glob ---------------------------------------------------------------------------


@pytest.fixture
def tree(workspace: Path, outside: Path) -> Path:
    """The workspace plus a root-level file, hidden dirs, a hidden file and links in and out."""
    (workspace / "top.py").write_text("x = 1\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".venv" / "lib").mkdir(parents=True)
    (workspace / ".venv" / "lib" / "site.py").write_text("")
    (workspace / "src" / ".hidden.py").write_text("")
    (workspace / "ext").symlink_to(outside.parent, target_is_directory=True)
    (workspace / "leak.txt").symlink_to(outside)
    (workspace / "alias.md").symlink_to(workspace / "README.md")
    (workspace / "srclink").symlink_to(workspace / "src", target_is_directory=True)
    return workspace


def test_glob_recursive_sorted_posix(ctx, tree):
    """'**/*.py' returns sorted, relative, '/'-separated paths including root-level files."""
    assert policy.glob(ctx, "**/*.py") == ["src/app.py", "src/pkg/util.py", "top.py"]


def test_glob_star_does_not_cross_slash(ctx, tree):
    """'*' matches within one directory level only."""
    assert policy.glob(ctx, "*.py") == ["top.py"]
    assert policy.glob(ctx, "src/*.py") == ["src/app.py"]
    assert policy.glob(ctx, "*/*.py") == ["src/app.py"]
    assert policy.glob(ctx, "src/**/*.py") == ["src/app.py", "src/pkg/util.py"]


def test_glob_question_and_class(ctx, tree):
    """'?' and '[...]' work like the shell's."""
    assert policy.glob(ctx, "src/ap?.py") == ["src/app.py"]
    assert policy.glob(ctx, "src/[a-b]*.py") == ["src/app.py"]


def test_glob_files_only(ctx, tree):
    """Directories are never returned, only files."""
    assert policy.glob(ctx, "src/*") == ["src/app.py"]
    assert policy.glob(ctx, "*") == ["README.md", "alias.md", "top.py"]
    assert policy.glob(ctx, "src") == []


def test_glob_skips_hidden(ctx, tree):
    """Wildcards skip hidden files and directories such as .git and .venv."""
    everything = policy.glob(ctx, "**")
    assert everything == ["README.md", "alias.md", "src/app.py", "src/pkg/util.py", "top.py"]
    assert not any(part.startswith(".") for path in everything for part in path.split("/"))


def test_glob_hidden_reachable_literally(ctx, tree):
    """Hidden directories and files are found when the pattern names them."""
    assert policy.glob(ctx, ".git/config") == [".git/config"]
    assert policy.glob(ctx, ".git/*") == [".git/config"]
    assert policy.glob(ctx, ".venv/**/*.py") == [".venv/lib/site.py"]
    assert policy.glob(ctx, "src/.hidden.py") == ["src/.hidden.py"]


def test_glob_never_leaves_workspace(ctx, tree):
    """Symlinked dirs are not descended and links to outside files are not listed."""
    for pattern in ("**", "**/*.txt", "*.txt", "ext/*", "ext/canary.txt", "ext/**", "leak.txt"):
        assert all(not p.startswith(("ext/", "leak")) for p in policy.glob(ctx, pattern)), pattern
    assert policy.glob(ctx, "ext/canary.txt") == []
    assert policy.glob(ctx, "leak.txt") == []


def test_glob_lists_inside_symlinks(ctx, tree):
    """A symlinked file whose target is inside the workspace is listed; a symlinked dir is not descended."""
    assert policy.glob(ctx, "*.md") == ["README.md", "alias.md"]
    assert policy.glob(ctx, "srclink/*.py") == []


def test_glob_missing(ctx, tree):
    """A pattern matching nothing gives an empty list."""
    assert policy.glob(ctx, "nothing/**/*.rs") == []
    assert policy.glob(ctx, "*.rs") == []


@pytest.mark.parametrize("pattern", ["../outside/*", "..", "src/../../outside/*", "**/../*", "src/.."])
def test_glob_dotdot_refused(ctx, tree, pattern):
    """A pattern with a '..' component is refused naming the pattern."""
    with pytest.raises(PathError) as info:
        policy.glob(ctx, pattern)
    assert str(info.value) == f"outside the workspace: {pattern}"


def test_glob_absolute_refused(ctx, tree, outside):
    """An absolute pattern is refused."""
    for pattern in (str(outside), str(outside.parent) + "/*", "/etc/*"):
        with pytest.raises(PathError) as info:
            policy.glob(ctx, pattern)
        assert str(info.value).startswith(f"absolute paths are not allowed: {pattern}")


@pytest.mark.parametrize("pattern", ["", "a\x00b", None, 3])
def test_glob_bad_values(ctx, pattern):
    """Empty, NUL-containing and non-string patterns are refused."""
    with pytest.raises(PathError) as info:
        policy.glob(ctx, pattern)
    assert str(info.value) == f"a pattern must be a non-empty string, not {pattern!r}"


@pytest.mark.parametrize("pattern", [".", "./", "/".join(["."] * 3)])
def test_glob_dot_only(ctx, tree, pattern):
    """A pattern naming only the workspace itself lists no files (it is a directory), without crashing."""
    try:
        result = policy.glob(ctx, pattern)
    except PathError:
        return
    assert result == []


# -- deny patterns and binary content -------------------------------------------------


@pytest.mark.parametrize(
    "patterns, rel, is_dir, expected",
    [
        ([".git/**"], ".git", True, True),  # "dir/**" shuts the directory itself too
        (["secrets/"], "secrets", True, True),
        (["secrets/"], "secrets", False, False),
        (["secrets"], "a/secrets", False, True),
        (["*.pem"], "certs.pem/readme.txt", False, True),  # a denied directory denies what is below
        (["*"], ".", True, False),  # the workspace itself is never denied
        (["#comment", ""], "#comment", False, False),
    ],
)
def test_denied_semantics(patterns, rel, is_dir, expected):
    """denied follows gitignore: directory-only patterns, any-depth names, denied directories, comments."""
    assert policy.denied(rel, patterns, is_dir) is expected


def test_denied_answers_per_directory_as_the_rules_say():
    """The per-directory answers are remembered, and every path still gets gitignore's answer, whatever came before."""
    spec_for = deny_module.deny_spec

    def reference(rel: str, patterns: tuple, is_dir: bool) -> bool:
        parts, spec = rel.split("/"), spec_for(patterns)
        if any(spec.match_file("/".join(parts[:depth]) + "/") for depth in range(1, len(parts))):
            return True
        return spec.match_file(rel + "/" if is_dir else rel)

    pattern_sets = [("secrets/", "!secrets/a"), ("*.env", "/build", "docs/*.md"), ("a/**", "!a/keep"), ("**/tmp/",), ("*",), ("b",)]
    paths = ["a", "a/keep", "a/b/c.txt", "secrets", "secrets/a", "x/secrets/a", "build/x", "src/build/x", "docs/r.md", "docs/x/r.md",
             "q/tmp/f", "tmp", ".env", "p/.env", "b/b/b", "c/b", "deep/" * 40 + "f"]
    for _ in range(2):  # the second round answers from what the first remembered
        for patterns in pattern_sets:
            for rel in paths:
                for is_dir in (False, True):
                    assert policy.denied(rel, list(patterns), is_dir) is reference(rel, patterns, is_dir), (patterns, rel, is_dir)


def test_deny_directory_pattern_asks_the_backend(workspace):
    """A directory-only pattern refuses the directory but not a file of that name."""
    (workspace / "src" / "secrets").mkdir()
    (workspace / "secrets").write_text("not a directory\n")
    ctx = ToolContext(workspace, settings={"deny": ["secrets/"]})
    with pytest.raises(PathError, match="denied by the workspace policy: src/secrets"):
        policy.list_dir(ctx, "src/secrets")
    assert policy.read_text(ctx, "secrets") == "not a directory\n"


def test_deny_checks_the_name_as_written(workspace):
    """A symlink whose own name is denied is refused even when its target is not."""
    (workspace / "x.env").symlink_to(workspace / "README.md")
    ctx = ToolContext(workspace, settings={"deny": ["*.env"]})
    with pytest.raises(PathError, match="denied by the workspace policy: x.env"):
        policy.read_text(ctx, "x.env")
    assert policy.read_text(ctx, "README.md").startswith("# Demo")


def test_invalid_deny_pattern(workspace):
    """A pattern gitignore cannot parse refuses every path with a message saying where to fix it."""
    ctx = ToolContext(workspace, settings={"deny": ["!"]})
    with pytest.raises(ToolError) as info:
        policy.resolve(ctx, "README.md")
    assert str(info.value) == "[tools] deny: Invalid git pattern: '!'; fix the pattern in .lackpy/config.toml"


def test_deny_patterns_compiled_once(workspace, monkeypatch):
    """The patterns of one setting are compiled once, however many paths are checked."""
    compiled = []
    original = deny_module.GitIgnoreSpec.from_lines
    monkeypatch.setattr(deny_module.GitIgnoreSpec, "from_lines", lambda lines: compiled.append(lines) or original(lines))
    ctx = ToolContext(workspace, settings={"deny": ["compiled-once-*.log"]})
    for _ in range(3):
        policy.glob(ctx, "**/*")
        policy.read_text(ctx, "README.md")
    assert compiled == [("compiled-once-*.log",)]


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"", False),
        ("café\n".encode("utf-8"), False),
        (b"caf\xe9\n", False),  # Latin-1 text reads with U+FFFD, it is not binary
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", True),
        (b"x" * (policy.BINARY_SNIFF_BYTES - 1) + b"\x00", True),
        (b"x" * policy.BINARY_SNIFF_BYTES + b"\x00", False),  # only the first 8 KiB are looked at
    ],
)
def test_is_binary(data, expected):
    """Binary means a NUL byte in the first 8 KiB."""
    assert policy.is_binary(data) is expected


def test_a_file_another_writer_makes_between_the_two_looks_is_looked_at_again(workspace, monkeypatch):
    """resolve() opens the path, and on ENOENT looks at the entry itself: one another writer made in between is no dangling link."""
    import errno

    from lackpy.host.fs import LocalFilesystem

    fs = LocalFilesystem(str(workspace))
    (workspace / "made.txt").write_text("x")
    real_open, failed = fs._open, []

    def first_open_misses(rel, flags, *, follow=False):
        if rel == "made.txt" and not failed:  # the first look: the file is not there yet
            failed.append(rel)
            raise FileNotFoundError(errno.ENOENT, "not yet")
        return real_open(rel, flags, follow=follow)

    monkeypatch.setattr(fs, "_open", first_open_misses)
    assert fs.resolve("made.txt") == "made.txt" and failed == ["made.txt"]
    (workspace / "dangle.txt").symlink_to(workspace / "nowhere.txt")
    with pytest.raises(PathError, match="a symlink to nothing: dangle.txt"):
        fs.resolve("dangle.txt")
