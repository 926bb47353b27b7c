"""Path escapes through every built-in tool, in both modes.

Absolute paths, ``..``, file and directory symlinks leading outside (absolute,
relative, chained, dangling, to the workspace's parent), links to
/proc/self/environ and /dev/zero, and FIFOs in the workspace. Each attempt
must fail with the policy's exact message, quickly, without reading, changing
or creating anything outside the workspace, and without the canary's content
or location appearing anywhere in the result.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from .support import MODES, README, assert_host_ok, run

ABSOLUTE = "absolute paths are not allowed"
OUTSIDE = "outside the workspace"
SYMLINK_OUTSIDE = "symlink leads outside the workspace"
NOT_REGULAR = "not a regular file"

# -- snippets -----------------------------------------------------------------

READ_ABSOLUTE_CANARY = "read_file(canary_path)"
READ_ABSOLUTE_INSIDE = "read_file(readme_path)"
READ_DOTDOT = 'read_file("../outside/canary.txt")'
READ_DOTDOT_NESTED = 'read_file("src/pkg/../../../outside/canary.txt")'
READ_FILE_SYMLINK = 'read_file("canary_link.txt")'
READ_RELATIVE_SYMLINK = 'read_file("rel_link.txt")'
READ_DIR_SYMLINK = 'read_file("outdir/canary.txt")'
READ_PARENT_SYMLINK = 'read_file("up/outside/canary.txt")'
READ_CHAINED_SYMLINK = 'read_file("chain.txt")'
READ_DANGLING_SYMLINK = 'read_file("dangling.txt")'
READ_PROC_ENVIRON = 'read_file("environ")'
READ_DEV_ZERO = 'read_file("zero")'
READ_FIFO = 'read_file("pipe")'

WRITE_ABSOLUTE_CANARY = 'write_file(canary_path, "PWNED")'
WRITE_DOTDOT = 'write_file("../outside/canary.txt", "PWNED")'
WRITE_DOTDOT_NEW = 'write_file("../planted.txt", "PWNED")'
WRITE_FILE_SYMLINK = 'write_file("canary_link.txt", "PWNED")'
WRITE_RELATIVE_SYMLINK = 'write_file("rel_link.txt", "PWNED")'
WRITE_DIR_SYMLINK_NEW = 'write_file("outdir/planted.txt", "PWNED")'
WRITE_PARENT_SYMLINK = 'write_file("up/outside/canary.txt", "PWNED")'
WRITE_CHAINED_SYMLINK = 'write_file("chain.txt", "PWNED")'
WRITE_DANGLING_SYMLINK = 'write_file("dangling.txt", "PWNED")'
WRITE_PROC_ENVIRON = 'write_file("environ", "PWNED")'
WRITE_DEV_ZERO = 'write_file("zero", "PWNED")'
WRITE_FIFO = 'write_file("pipe", "PWNED")'

EDIT_ABSOLUTE_CANARY = 'edit_file(canary_path, "CANARY", "PWNED")'
EDIT_DOTDOT = 'edit_file("../outside/canary.txt", "CANARY", "PWNED")'
EDIT_FILE_SYMLINK = 'edit_file("canary_link.txt", "CANARY", "PWNED")'
EDIT_RELATIVE_SYMLINK = 'edit_file("rel_link.txt", "CANARY", "PWNED")'
EDIT_DIR_SYMLINK = 'edit_file("outdir/canary.txt", "CANARY", "PWNED")'
EDIT_PARENT_SYMLINK = 'edit_file("up/outside/canary.txt", "CANARY", "PWNED")'
EDIT_CHAINED_SYMLINK = 'edit_file("chain.txt", "CANARY", "PWNED")'
EDIT_PROC_ENVIRON = 'edit_file("environ", "PATH", "PWNED")'
EDIT_DEV_ZERO = 'edit_file("zero", "a", "b")'
EDIT_FIFO = 'edit_file("pipe", "a", "b")'

FIND_ABSOLUTE = "find_files(outside_pattern)"
FIND_DOTDOT = 'find_files("../outside/*")'
FIND_DOTDOT_NESTED = 'find_files("src/../../outside/*")'
FIND_DOTDOT_GLOBSTAR = 'find_files("**/../../outside/*")'

# Globs that are valid but must list nothing outside the workspace.
FIND_EVERYTHING = 'find_files("**/*")'
FIND_TOP_LEVEL = 'find_files("*")'
FIND_IN_DIR_SYMLINK = 'find_files("outdir/*")'
FIND_IN_DIR_SYMLINK_DEEP = 'find_files("outdir/**/*")'
FIND_IN_PARENT_SYMLINK = 'find_files("up/**/*")'
FIND_CANARY_ANYWHERE = 'find_files("**/canary.txt")'
FIND_CANARY_ONE_DOWN = 'find_files("*/canary.txt")'


@pytest.fixture
def escapes(workspace: Path, outside: Path, canary) -> Path:
    """Plant links (to the canary, its directory, the parent, /proc, /dev) and a FIFO in the workspace."""
    outdir = outside.parent
    os.symlink(outside, workspace / "canary_link.txt")
    os.symlink("../outside/canary.txt", workspace / "rel_link.txt")
    os.symlink(outdir, workspace / "outdir")
    os.symlink("..", workspace / "up")
    os.symlink(outside, workspace / "hop.txt")
    os.symlink("hop.txt", workspace / "chain.txt")
    os.symlink(outdir / "missing.txt", workspace / "dangling.txt")
    os.symlink("/proc/self/environ", workspace / "environ")
    os.symlink("/dev/zero", workspace / "zero")
    os.mkfifo(workspace / "pipe")
    os.symlink("README.md", workspace / "inside_link.txt")
    return workspace


LINKS = ["canary_link.txt", "rel_link.txt", "outdir", "up", "hop.txt", "chain.txt", "dangling.txt", "environ", "zero"]


def params_for(outside: Path, workspace: Path) -> dict:
    return {
        "canary_path": str(outside),
        "readme_path": str(workspace / "README.md"),
        "outside_pattern": str(outside.parent) + "/*",
    }


def check_refused(result, tool: str, message: str, outside: Path, canary, workspace: Path, elapsed: float) -> None:
    """Refused by the path policy with ``message``; nothing read, nothing leaked, everything in place."""
    assert not result.success, result.output
    assert result.error_kind == "tool", result.error
    assert f"PathError in {tool}: {message}" in result.error, result.error
    if message == OUTSIDE:
        assert SYMLINK_OUTSIDE not in result.error
    assert result.error_line == 1
    assert len(result.trace) == 1 and not result.trace[0].success
    assert result.trace[0].error.startswith(f"PathError: {message}")
    assert result.files_read == [] and result.files_created == [] and result.files_modified == []
    if message != ABSOLUTE:  # an absolute path is echoed as the program wrote it
        assert str(outside.parent) not in result.error, "the error reveals where the link points"
    assert elapsed < 2.0, f"took {elapsed:.2f} s"
    canary.assert_untouched(result)
    for name in LINKS:
        assert (workspace / name).is_symlink(), f"{name} was replaced"
    assert stat.S_ISFIFO(os.lstat(workspace / "pipe").st_mode)
    assert (workspace / "README.md").read_text() == README


def attempt(program: str, kit, mode: str, outside: Path, workspace: Path):
    start = time.monotonic()
    result = run(program, kit, mode, params=params_for(outside, workspace))
    return result, time.monotonic() - start


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (READ_ABSOLUTE_CANARY, ABSOLUTE),
        (READ_ABSOLUTE_INSIDE, ABSOLUTE),
        (READ_DOTDOT, OUTSIDE),
        (READ_DOTDOT_NESTED, OUTSIDE),
        (READ_FILE_SYMLINK, SYMLINK_OUTSIDE),
        (READ_RELATIVE_SYMLINK, SYMLINK_OUTSIDE),
        (READ_DIR_SYMLINK, SYMLINK_OUTSIDE),
        (READ_PARENT_SYMLINK, SYMLINK_OUTSIDE),
        (READ_CHAINED_SYMLINK, SYMLINK_OUTSIDE),
        (READ_DANGLING_SYMLINK, SYMLINK_OUTSIDE),
        (READ_PROC_ENVIRON, SYMLINK_OUTSIDE),
        (READ_DEV_ZERO, SYMLINK_OUTSIDE),
        (READ_FIFO, NOT_REGULAR),
    ],
    ids=["absolute", "absolute-inside", "dotdot", "dotdot-nested", "file-link", "relative-link", "dir-link",
         "parent-link", "chained-link", "dangling-link", "proc-environ", "dev-zero", "fifo"],
)
def test_read_file_escapes_are_refused(kit, escapes, outside, canary, mode, program, message):
    """read_file refuses every escape with the policy's exact message, quickly."""
    result, elapsed = attempt(program, kit, mode, outside, escapes)
    check_refused(result, "read_file", message, outside, canary, escapes, elapsed)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (WRITE_ABSOLUTE_CANARY, ABSOLUTE),
        (WRITE_DOTDOT, OUTSIDE),
        (WRITE_DOTDOT_NEW, OUTSIDE),
        (WRITE_FILE_SYMLINK, SYMLINK_OUTSIDE),
        (WRITE_RELATIVE_SYMLINK, SYMLINK_OUTSIDE),
        (WRITE_DIR_SYMLINK_NEW, SYMLINK_OUTSIDE),
        (WRITE_PARENT_SYMLINK, SYMLINK_OUTSIDE),
        (WRITE_CHAINED_SYMLINK, SYMLINK_OUTSIDE),
        (WRITE_DANGLING_SYMLINK, SYMLINK_OUTSIDE),
        (WRITE_PROC_ENVIRON, SYMLINK_OUTSIDE),
        (WRITE_DEV_ZERO, SYMLINK_OUTSIDE),
    ],
    ids=["absolute", "dotdot", "dotdot-new", "file-link", "relative-link", "dir-link-new", "parent-link",
         "chained-link", "dangling-link", "proc-environ", "dev-zero"],
)
def test_write_file_escapes_are_refused(kit, escapes, outside, canary, mode, program, message):
    """write_file refuses every escape; nothing is created or changed outside, no link is replaced."""
    result, elapsed = attempt(program, kit, mode, outside, escapes)
    check_refused(result, "write_file", message, outside, canary, escapes, elapsed)
    assert not (outside.parent / "missing.txt").exists()
    assert not (outside.parent / "planted.txt").exists()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (EDIT_ABSOLUTE_CANARY, ABSOLUTE),
        (EDIT_DOTDOT, OUTSIDE),
        (EDIT_FILE_SYMLINK, SYMLINK_OUTSIDE),
        (EDIT_RELATIVE_SYMLINK, SYMLINK_OUTSIDE),
        (EDIT_DIR_SYMLINK, SYMLINK_OUTSIDE),
        (EDIT_PARENT_SYMLINK, SYMLINK_OUTSIDE),
        (EDIT_CHAINED_SYMLINK, SYMLINK_OUTSIDE),
        (EDIT_PROC_ENVIRON, SYMLINK_OUTSIDE),
        (EDIT_DEV_ZERO, SYMLINK_OUTSIDE),
        (EDIT_FIFO, NOT_REGULAR),
    ],
    ids=["absolute", "dotdot", "file-link", "relative-link", "dir-link", "parent-link", "chained-link",
         "proc-environ", "dev-zero", "fifo"],
)
def test_edit_file_escapes_are_refused(kit, escapes, outside, canary, mode, program, message):
    """edit_file refuses every escape before reading, so the canary text is never matched or shown."""
    result, elapsed = attempt(program, kit, mode, outside, escapes)
    check_refused(result, "edit_file", message, outside, canary, escapes, elapsed)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (FIND_ABSOLUTE, ABSOLUTE),
        (FIND_DOTDOT, OUTSIDE),
        (FIND_DOTDOT_NESTED, OUTSIDE),
        (FIND_DOTDOT_GLOBSTAR, OUTSIDE),
    ],
    ids=["absolute", "dotdot", "dotdot-nested", "dotdot-globstar"],
)
def test_find_files_escaping_patterns_are_refused(kit, escapes, outside, canary, mode, program, message):
    """find_files refuses absolute and climbing patterns with the policy's message."""
    result, elapsed = attempt(program, kit, mode, outside, escapes)
    check_refused(result, "find_files", message, outside, canary, escapes, elapsed)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, expected",
    [
        (FIND_EVERYTHING, ["README.md", "inside_link.txt", "src/app.py", "src/pkg/util.py"]),
        (FIND_TOP_LEVEL, ["README.md", "inside_link.txt"]),
        (FIND_IN_DIR_SYMLINK, []),
        (FIND_IN_DIR_SYMLINK_DEEP, []),
        (FIND_IN_PARENT_SYMLINK, []),
        (FIND_CANARY_ANYWHERE, []),
        (FIND_CANARY_ONE_DOWN, []),
    ],
    ids=["everything", "top-level", "dir-link", "dir-link-deep", "parent-link", "canary-anywhere", "canary-one-down"],
)
def test_find_files_lists_nothing_outside(kit, escapes, outside, canary, mode, program, expected):
    """Globs list only regular files inside: no outside links, no /proc or /dev links, no FIFO."""
    result, elapsed = attempt(program, kit, mode, outside, escapes)
    assert result.success, result.error
    assert result.output == expected
    assert elapsed < 2.0
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
def test_links_that_stay_inside_still_work(kit, escapes, canary, mode):
    """The policy is not blunt: a link to a workspace file, or through the parent back in, is readable."""
    result = run('[read_file("inside_link.txt"), read_file("up/ws/README.md")]', kit, mode)
    assert result.success, result.error
    assert result.output == [README, README]
    assert result.files_read == ["README.md"]
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
def test_write_to_a_fifo_never_blocks_or_writes_through(kit, escapes, canary, mode):
    """write_file on a FIFO returns at once; the commit replaces the node and never opens the pipe."""
    start = time.monotonic()
    result = run(WRITE_FIFO, kit, mode)
    assert time.monotonic() - start < 2.0
    if result.success:
        assert stat.S_ISREG(os.lstat(escapes / "pipe").st_mode)
        assert (escapes / "pipe").read_text() == "PWNED"
    else:
        assert f"PathError in write_file: {NOT_REGULAR}" in result.error
    canary.assert_untouched(result)
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
def test_null_bytes_and_non_strings_are_not_paths(kit, canary, mode):
    """A path with a NUL byte or an empty path is refused by the policy; a non-string by the argument check."""
    for program in ['read_file("README.md\\x00../x")', 'read_file("")']:
        result = run(program, kit, mode)
        assert not result.success and result.error_kind == "tool", (program, result.error)
        assert "must be a non-empty string" in result.error, result.error
        assert result.files_read == []
    for program, tool, message in [
        ('read_file(["README.md"])', "read_file", "read_file: argument 'path' expects a str, got ['README.md'] (list)"),
        ('write_file(1, "x")', "write_file", "write_file: argument 'path' expects a str, got 1 (int)"),
        ("find_files(None)", "find_files", "find_files: argument 'pattern' expects a str, got None (NoneType)"),
    ]:
        result = run(program, kit, mode)
        assert not result.success and result.error_kind == "argument", (program, result.error)
        assert result.error == f"line 1: ArgumentError in {tool}: {message}"
        assert result.files_read == [] and result.files_modified == [] and result.files_created == []
    canary.assert_untouched()
