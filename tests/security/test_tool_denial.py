"""Denial of service and damage through the tools themselves.

Globbing huge or adversarially deep trees, endless files, slow host-side
tools, oversized writes, and all-or-nothing commits: a program that fails,
times out, crashes or races another writer must leave the workspace exactly
as it was, and every run must end within its timeout with the right limit.
"""

from __future__ import annotations

import os
import stat
import time
import tracemalloc
from pathlib import Path

import pytest

from .support import MODES, README, assert_host_ok, assert_limit, run

MiB = 2**20

# -- snippets -----------------------------------------------------------------

GLOB_EVERYTHING = 'len(find_files("**/*"))'
GLOB_TXT = 'len(find_files("**/*.txt"))'
GLOB_EXPONENTIAL = 'find_files("' + "**/" * 8 + '*.py")'
GLOB_MANY_GLOBSTARS_SHALLOW = 'find_files("' + "**/" * 130 + '*.py")'
SLOW_HOST_TOOL = 'slow(3)\n"finished"'

READ_DEV_ZERO_LINK = 'read_file("zero")'
READ_FIFO = 'read_file("pipe")'
EDIT_FIFO = 'edit_file("pipe", "a", "b")'
READ_FIFO_IN_LOOP = 'for i in range(1000):\n    read_file("pipe")'
READ_HUGE_FILE = 'len(read_file("huge.txt"))'

WRITE_PAST_LIMIT = 'write_file("big.txt", "x" * 5000)'
WRITES_ADD_UP = 'write_file("a.txt", "x" * 600)\nwrite_file("b.txt", "x" * 600)'
REWRITES_DO_NOT_ADD_UP = 'for i in range(20):\n    write_file("a.txt", "x" * 600)\n"ok"'
WRITE_HUGE_ARGUMENT = 'chunk = "x" * 9000000\nwrite_file("big.txt", chunk + chunk)'
WRITE_FLOOD = 'for i in range(10**4):\n    write_file(f"flood/f{i}.txt", "x")'
REPEATED_LARGE_ARGUMENT = 's = "x" * 9000000\nfor i in range(10**4):\n    write_file("a.txt", s)'

WRITES = (
    'write_file("new.txt", "planted")\n'
    'edit_file("README.md", "Status: draft", "Status: final")\n'
    'write_file("src/app.py", "overwritten")\n'
)
FAIL_RUNTIME_AFTER_WRITES = WRITES + 'd = {}\nd["missing"]'
FAIL_TOOL_AFTER_WRITES = WRITES + 'read_file("missing.txt")'
FAIL_GUARD_AFTER_WRITES = WRITES + "m = str.join\nm.name"
FAIL_LIMIT_AFTER_WRITES = WRITES + "x = 10 ** 10**8"
TIMEOUT_AFTER_WRITES = WRITES + "for i in range(10**7):\n    for j in range(10**7):\n        pass"
MEMORY_AFTER_WRITES = WRITES + "d = {}\nfor i in range(10**7):\n    d[i] = str(i) * 10"
CRASH_AFTER_WRITES = WRITES + "t = ()\nfor i in range(10**6):\n    t = (t,)\nd = {t: 1}"

CONFLICT_EDIT = (
    'text = read_file("README.md")\n'
    "touch_readme()\n"
    'write_file("notes.txt", "mine")\n'
    'edit_file("README.md", "Status: draft", "Status: final")'
)
CONFLICT_CREATE = 'write_file("new.txt", "mine")\ncreate_behind("new.txt")'


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed): kind, content or target, and mtime."""
    state = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                state[str(path.relative_to(root))] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                state[str(path.relative_to(root))] = ("file", path.read_bytes(), info.st_mtime_ns)
            else:
                state[str(path.relative_to(root))] = ("other", stat.S_IFMT(info.st_mode))
    return state


def assert_nothing_committed(result) -> None:
    assert not result.success
    assert result.files_created == [] and result.files_modified == [] and result.files_deleted == []


# -- globbing -------------------------------------------------------------------


@pytest.fixture
def huge_tree(workspace: Path) -> Path:
    """3,000 files in 100 directories five levels deep."""
    for a in range(10):
        for b in range(10):
            directory = workspace / f"a{a}" / f"b{b}" / "c" / "d" / "e"
            directory.mkdir(parents=True)
            for c in range(30):
                (directory / f"f{c}.txt").write_text("x")
    return workspace


@pytest.fixture
def deep_chain(workspace: Path) -> Path:
    """A single chain of 12 nested directories ending in one .py file."""
    directory = workspace
    for level in range(12):
        directory = directory / f"l{level}"
    directory.mkdir(parents=True)
    (directory / "deep.py").write_text("x = 1\n")
    return workspace


@pytest.mark.parametrize("mode", MODES)
def test_glob_over_a_huge_tree_finishes_within_the_timeout(kit, huge_tree, canary, mode):
    """find_files("**/*") over 3,000 files finishes (or stops with timeout) within 2 s, never hangs."""
    start = time.monotonic()
    result = run(GLOB_EVERYTHING, kit, mode, timeout_s=2)
    elapsed = time.monotonic() - start
    assert elapsed < 3.0, f"took {elapsed:.2f} s"
    if result.success:
        assert result.output == 3000 + 3
        assert run(GLOB_TXT, kit, mode, timeout_s=2).output == 3000
    else:
        assert_limit(result, "timeout")
    canary.assert_untouched(result)
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
def test_exponential_globstar_pattern_stops_at_the_timeout(kit, deep_chain, canary, mode):
    """Eight '**' over a 12-deep chain (~C(20,8) walks unless collapsed) finish correctly or stop near timeout_s."""
    start = time.monotonic()
    result = run(GLOB_EXPONENTIAL, kit, mode, timeout_s=1)
    elapsed = time.monotonic() - start
    if result.success:  # consecutive '**' are collapsed into one: the glob is cheap
        assert "l0/l1/l2/l3/l4/l5/l6/l7/l8/l9/l10/l11/deep.py" in result.output
    else:
        assert_limit(result, "timeout")
    assert elapsed < 2.5, f"a 1 s run took {elapsed:.2f} s: the glob ran on past the deadline"
    canary.assert_untouched(result)
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
def test_many_globstars_over_the_small_workspace_stop_at_the_timeout(kit, canary, mode):
    """130 '**' segments over the 3-file workspace (seconds of matching) finish or stop near a 1 s timeout."""
    start = time.monotonic()
    result = run(GLOB_MANY_GLOBSTARS_SHALLOW, kit, mode, timeout_s=1)
    elapsed = time.monotonic() - start
    if result.success:
        assert result.output == ["src/app.py", "src/pkg/util.py"]
    else:
        assert_limit(result, "timeout")
    assert elapsed < 2.5, f"a 1 s run took {elapsed:.2f} s: the glob ran on past the deadline"
    canary.assert_untouched(result)
    assert_host_ok(kit, mode)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_slow_host_tool_is_cut_off_at_the_timeout(helper_kit, mode):
    """A host-side tool that blocks for 3 s under a 1 s timeout ends the run with limit timeout, not a crash.

    A tool blocked in one C call (here a sleep) cannot be interrupted in the
    host; the run stops as soon as the call returns (documented in README).
    """
    start = time.monotonic()
    result = run(SLOW_HOST_TOOL, helper_kit, mode, timeout_s=1)
    elapsed = time.monotonic() - start
    assert_limit(result, "timeout")
    assert elapsed < 3 + 1.5, f"the run went on {elapsed - 3:.2f} s after the blocking call returned"
    assert_host_ok(helper_kit, mode)


# -- endless and huge files --------------------------------------------------------


@pytest.fixture
def endless(workspace: Path) -> Path:
    os.symlink("/dev/zero", workspace / "zero")
    os.mkfifo(workspace / "pipe")
    return workspace


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (READ_DEV_ZERO_LINK, "symlink leads outside the workspace: zero"),
        (READ_FIFO, "not a regular file: pipe"),
        (EDIT_FIFO, "not a regular file: pipe"),
        (READ_FIFO_IN_LOOP, "not a regular file: pipe"),
    ],
    ids=["dev-zero-link", "fifo", "edit-fifo", "fifo-loop"],
)
def test_endless_files_are_refused_at_once(kit, endless, canary, mode, program, message):
    """A link to /dev/zero and a FIFO with no writer are refused immediately, never read."""
    start = time.monotonic()
    result = run(program, kit, mode)
    assert time.monotonic() - start < 1.5
    assert not result.success and result.error_kind == "tool", result.error
    assert message in result.error
    assert len(result.trace) == 1 and result.files_read == []
    assert stat.S_ISFIFO(os.lstat(endless / "pipe").st_mode)
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
def test_a_large_workspace_file_is_read_or_refused_by_a_limit(kit, workspace, mode):
    """Reading a 20 MiB workspace file either works or stops with a limit; it never crashes the worker."""
    (workspace / "huge.txt").write_bytes(b"y" * (20 * MiB))
    result = run(READ_HUGE_FILE, kit, mode, max_write_bytes=1000)
    assert result.error_kind != "crash", result.error
    if result.success:
        assert result.output == 20 * MiB
    else:
        assert result.error_kind == "limit", result.error
    assert_host_ok(kit, mode)


# -- oversized writes ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, line, absent",
    [(WRITE_PAST_LIMIT, 1, ["big.txt"]), (WRITES_ADD_UP, 2, ["a.txt", "b.txt"])],
    ids=["one-file", "files-add-up"],
)
def test_writing_past_max_write_bytes_writes_nothing(kit, workspace, mode, program, line, absent):
    """Staging more than max_write_bytes stops with that limit, on the line that crossed it; nothing is written."""
    before = snapshot(workspace)
    result = run(program, kit, mode, max_write_bytes=1000)
    assert_limit(result, "max_write_bytes", line)
    assert result.limit_value == 1000
    assert_nothing_committed(result)
    for name in absent:
        assert not (workspace / name).exists()
    assert snapshot(workspace) == before


@pytest.mark.parametrize("mode", MODES)
def test_rewriting_one_file_is_counted_once(kit, workspace, mode):
    """Rewriting the same file twenty times stages only its last content against the limit."""
    result = run(REWRITES_DO_NOT_ADD_UP, kit, mode, max_write_bytes=1000)
    assert result.success, result.error
    assert (workspace / "a.txt").read_text() == "x" * 600


@pytest.mark.parametrize("mode", MODES)
def test_a_write_larger_than_the_channel_is_still_the_write_limit(kit, workspace, mode):
    """An 18 MB write_file argument with max_write_bytes=1000 is the max_write_bytes limit, not a crash."""
    before = snapshot(workspace)
    result = run(WRITE_HUGE_ARGUMENT, kit, mode, max_write_bytes=1000, max_items=50_000_000)
    assert_limit(result, "max_write_bytes", 2)
    assert_nothing_committed(result)
    assert snapshot(workspace) == before
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
def test_write_flood_stops_at_the_call_limit_and_writes_nothing(kit, workspace, mode):
    """Ten thousand small writes stop at max_tool_calls; none of the staged files is written."""
    before = snapshot(workspace)
    result = run(WRITE_FLOOD, kit, mode, max_tool_calls=100)
    assert_limit(result, "max_tool_calls", 2)
    assert len(result.trace) == 100 and all(entry.success for entry in result.trace)
    assert not (workspace / "flood").exists()
    assert snapshot(workspace) == before


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_repeated_large_tool_arguments_do_not_pile_up_in_the_host(kit, workspace, mode):
    """Rewriting one file with one 9 MB string must not make the host hold more than memory_bytes (a copy per call)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = run(REPEATED_LARGE_ARGUMENT, kit, mode, timeout_s=2, memory_bytes=64 * MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * MiB, f"the host peaked at {peak // MiB} MiB for {len(result.trace)} calls"
    assert result.success or result.error_kind == "limit", result.error
    assert_host_ok(kit, mode)


# -- all or nothing ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, kind, line",
    [
        (FAIL_RUNTIME_AFTER_WRITES, "runtime", 5),
        (FAIL_TOOL_AFTER_WRITES, "tool", 4),
        (FAIL_GUARD_AFTER_WRITES, "guard", 5),
        (FAIL_LIMIT_AFTER_WRITES, "limit", 4),
    ],
    ids=["runtime", "tool", "guard", "limit"],
)
def test_a_failed_program_leaves_every_file_as_it_was(kit, workspace, canary, mode, program, kind, line):
    """After a create, an edit and an overwrite, any failure commits none of them."""
    before = snapshot(workspace)
    result = run(program, kit, mode)
    assert result.error_kind == kind, result.error
    assert result.error_line == line
    assert_nothing_committed(result)
    assert snapshot(workspace) == before
    assert (workspace / "README.md").read_text() == README
    assert not (workspace / "new.txt").exists()
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
def test_a_program_killed_by_timeout_after_writing_writes_nothing(kit, workspace, mode):
    """Writes staged before a timeout are discarded."""
    before = snapshot(workspace)
    result = run(TIMEOUT_AFTER_WRITES, kit, mode, timeout_s=1)
    assert_limit(result, "timeout")
    assert_nothing_committed(result)
    assert snapshot(workspace) == before
    assert_host_ok(kit, mode)


@pytest.mark.parametrize(
    "program, kind", [(MEMORY_AFTER_WRITES, "limit"), (CRASH_AFTER_WRITES, "crash")], ids=["memory", "crash"]
)
def test_a_worker_that_dies_after_writing_writes_nothing(kit, workspace, program, kind):
    """Writes staged before the worker runs out of memory or crashes are discarded."""
    before = snapshot(workspace)
    result = run(program, kit, "isolated", memory_bytes=64 * MiB)
    assert result.error_kind == kind, result.error
    assert_nothing_committed(result)
    assert snapshot(workspace) == before
    assert_host_ok(kit, "isolated")


@pytest.mark.parametrize("mode", MODES)
def test_a_file_changed_behind_the_program_is_a_conflict(helper_kit, workspace, mode):
    """README.md changed on disk after the program read it: conflict, the other change kept, nothing written."""
    result = run(CONFLICT_EDIT, helper_kit, mode)
    assert not result.success
    assert result.error_kind == "conflict", result.error
    assert "README.md changed on disk while the program ran; nothing was written" in result.error
    assert (workspace / "README.md").read_text() == README + "changed behind the program's back\n"
    assert not (workspace / "notes.txt").exists()
    assert result.files_created == [] and result.files_modified == []
    assert [entry.tool for entry in result.trace] == ["read_file", "touch_readme", "write_file", "edit_file"]


@pytest.mark.parametrize("mode", MODES)
def test_a_file_created_behind_the_program_is_a_conflict(helper_kit, workspace, mode):
    """A file the program creates, created meanwhile by someone else, is a conflict; theirs is kept."""
    result = run(CONFLICT_CREATE, helper_kit, mode)
    assert result.error_kind == "conflict", result.error
    assert "new.txt changed on disk while the program ran" in result.error
    assert (workspace / "new.txt").read_text() == "created by someone else\n"
