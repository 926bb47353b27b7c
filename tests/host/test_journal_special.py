"""A journal a repository ships can be anything: a FIFO, a link to /dev/stdin, a directory, a huge file.

Each is reported (recovery stops, ``lackpy doctor`` says what it is) and
never applied; nothing waits on it, so no lackpy command hangs at start,
even with a standard input that never ends; ``lackpy doctor --discard``
removes it (a link, never what it points to). The CLI and the MCP server run
as real subprocesses with a timeout.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lackpy.errors import CommitError
from lackpy.host import journal

#: How long a command may take here before it counts as hung (it takes about a second).
PROMPT_S = 30


def plant(root: Path, name: str, kind: str, outside: Path) -> Path:
    """Put a ``kind`` of special file at ``.lackpy/commit/NAME`` of the workspace ``root``."""
    state = root / ".lackpy" / "commit"
    state.mkdir(parents=True, exist_ok=True)
    path = state / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "stdin link":
        path.symlink_to("/dev/stdin")
    elif kind == "directory":
        path.mkdir()
        (path / "inner.txt").write_text("x")
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(journal._MAX_RECORD + 1)  # sparse: no disk used
    elif kind == "link outside":
        path.symlink_to(outside)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("keep\n")
    return root


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A record outside the workspace a link in the journal points at: a valid-looking JSON object."""
    path = tmp_path / "outside" / "record.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"version": 1, "entries": [], "dirs": [], "mac": "0" * 64}))
    return path


KINDS = {
    "fifo": "not a regular file (a FIFO)",
    "stdin link": "a symlink where lackpy follows none",
    "directory": "not a regular file (a directory)",
    "huge": f"larger than {journal._MAX_RECORD} bytes",
    "link outside": "a symlink where lackpy follows none",
}


@pytest.mark.parametrize("name", ["record.json", "undo.json"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_record_that_is_not_a_regular_file_is_reported_never_applied(root, canary, kind, name):
    planted = plant(root, name, kind, canary)
    assert journal.pending(root)
    report = journal.recover(root)
    assert (report.action, report.error_kind, report.verified) == ("stopped", "commit", False)
    assert f".lackpy/commit/{name}: {KINDS[kind]}" in report.message and "lackpy doctor --discard" in report.message
    assert "\n" not in report.message
    assert journal.recover(root, "rollback").action == "stopped"  # an unverified record is not undone either
    with pytest.raises(CommitError, match="will not apply"):
        journal.commit(root, [journal.Change("new.txt", b"x", None)])
    assert not (root / "new.txt").exists()
    report = journal.recover(root, "discard")
    assert report.action == "discarded"
    assert not os.path.lexists(planted) and sorted(os.listdir(root / ".lackpy" / "commit")) == []
    assert canary.exists() and json.loads(canary.read_text())["mac"] == "0" * 64  # the link went, not what it pointed to
    journal.commit(root, [journal.Change("new.txt", b"x", None)])
    assert (root / "new.txt").read_text() == "x"


@pytest.mark.parametrize("kind", ["fifo", "link outside", "file"])
def test_a_journal_directory_that_is_not_a_directory_is_reported_and_discard_removes_only_it(root, tmp_path, kind):
    lackpy_dir = root / ".lackpy"
    lackpy_dir.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "record.json").write_text("{}")
    state = lackpy_dir / "commit"
    if kind == "fifo":
        os.mkfifo(state)
    elif kind == "file":
        state.write_text("x")
    else:
        state.symlink_to(elsewhere)
    assert journal.pending(root)
    report = journal.recover(root)
    assert (report.action, report.error_kind) == ("stopped", "commit")
    assert report.message.startswith(".lackpy/commit is not a directory of this workspace") and "lackpy doctor --discard" in report.message
    with pytest.raises(CommitError, match=r"\.lackpy/commit is not a directory of this workspace"):
        journal.commit(root, [journal.Change("new.txt", b"x", None)])
    assert journal.recover(root, "discard").action == "discarded"
    assert not os.path.lexists(state) and (elsewhere / "record.json").read_text() == "{}"
    journal.commit(root, [journal.Change("new.txt", b"x", None)])
    assert (root / "new.txt").read_text() == "x" and not journal.pending(root)


def test_leftovers_that_are_links_are_removed_never_followed(root, tmp_path):
    """Cleaning the journal unlinks a link to a directory outside; it never empties that directory."""
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "precious.txt").write_text("mine\n")
    plant(root, "new.000000", "fifo", outside)
    (root / ".lackpy" / "commit" / "new.000001").symlink_to(outside)
    (root / ".lackpy" / "commit" / "old.000002").symlink_to(outside / "sub" / "precious.txt")
    (root / ".lackpy" / "commit" / "record.tmp").mkdir()
    assert journal.pending(root)
    assert journal.recover(root).action == "cleaned"
    assert os.listdir(root / ".lackpy" / "commit") == [] and (outside / "sub" / "precious.txt").read_text() == "mine\n"


def test_a_linked_lackpy_directory_holds_no_journal_of_lackpys(root, tmp_path):
    """``.lackpy`` as a link: nothing behind it is read or removed, and a commit refuses to keep its journal there."""
    elsewhere = tmp_path / "elsewhere"
    plant(elsewhere, "record.json", "fifo", elsewhere)
    (root / ".lackpy").symlink_to(elsewhere / ".lackpy")
    assert not journal.pending(root)
    report = journal.recover(root, "discard")
    assert report.action == "none" and ".lackpy is not a directory of this workspace" in report.message
    assert (elsewhere / ".lackpy" / "commit" / "record.json").is_fifo()
    with pytest.raises(CommitError, match=r"\.lackpy is not a directory of this workspace"):
        journal.commit(root, [journal.Change("new.txt", b"x", None)])


def test_a_record_too_deeply_nested_to_parse_is_reported(root):
    (root / ".lackpy" / "commit").mkdir(parents=True)
    (root / ".lackpy" / "commit" / "record.json").write_text("[" * 200_000 + "]" * 200_000)
    report = journal.recover(root)
    assert report.action == "stopped" and "it cannot be read" in report.message


# -- the real CLI and server, with a standard input that never ends ---------------------


def lackpy(args: list[str], root: Path) -> subprocess.CompletedProcess:
    """``python -m lackpy ARGS`` with stdin a pipe that stays open and silent; fails if it takes PROMPT_S."""
    read_end, write_end = os.pipe()
    try:
        return subprocess.run([sys.executable, "-m", "lackpy", *args, "-w", str(root)], stdin=read_end,
                              capture_output=True, text=True, timeout=PROMPT_S)
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize("kind", ["fifo", "stdin link"])
def test_run_and_doctor_do_not_hang_on_a_shipped_record(root, canary, tmp_path, kind):
    plant(root, "record.json", kind, canary)
    program = tmp_path / "program.py"
    program.write_text('read_file("keep.txt")')
    done = lackpy(["run", "--json", "--kit", "readonly", str(program)], root)
    result = json.loads(done.stdout)
    assert (done.returncode, result["success"], result["output"]) == (0, True, "keep\n"), done.stderr
    said = f"commit: found a commit record in .lackpy/commit that lackpy will not apply: .lackpy/commit/record.json: {KINDS[kind]}"
    assert any(notice.startswith(said) for notice in result["notices"]), result["notices"]
    done = lackpy(["doctor"], root)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"lackpy: {said}") and done.stderr.count("\n") == 1, done.stderr
    done = lackpy(["doctor", "--json"], root)
    report = json.loads(done.stdout)
    assert (done.returncode, report["action"], report["verified"]) == (1, "stopped", False)
    done = lackpy(["doctor", "--discard"], root)
    assert (done.returncode, done.stdout.strip()) == (0, "dropped a commit record lackpy could not verify; nothing was written"), done.stderr
    assert os.listdir(root / ".lackpy" / "commit") == []
    done = lackpy(["doctor"], root)
    assert (done.returncode, done.stdout.strip()) == (0, f"no unfinished commit in {root.resolve()}")


def test_serve_over_stdio_answers_initialize_with_a_fifo_record(root, canary):
    """The server's load reads the journal before the client's first message: it must neither block nor swallow it."""
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    plant(root, "record.json", "fifo", canary)
    env = dict(os.environ, LACKPY_LOAD_PLUGINS="")

    async def session() -> list[str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(root)], env=env)
        async with Client(params) as client:
            tools = await client.list_tools()
            return [tool.name for tool in tools.tools]

    names = asyncio.run(asyncio.wait_for(session(), PROMPT_S))
    assert "run_program" in names
    assert (root / ".lackpy" / "commit" / "record.json").is_fifo()  # reported, not touched
