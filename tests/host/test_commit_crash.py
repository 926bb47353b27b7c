"""Crash consistency of the commit, with real processes and real signals.

``lackpy run`` (the real CLI, plus one tool lackpy does not ship: ``delete_file``,
see DRIVER) commits a program that modifies 150 files, creates 30 in new
directories and deletes 20. The tests kill it with SIGKILL at chosen points
of the commit (the test-only hook ``LACKPY_TEST_COMMIT_PAUSE`` in
``lackpy.host.journal``) and at random moments, then recover the way a user
does (``lackpy doctor``, or the next LackpyService) and check that every file
is wholly old or wholly new, the change set wholly applied or wholly absent,
nothing stray is left, and a file changed by hand after the crash is never
overwritten. Then a full disk, a file the disk refuses to replace, and two
processes committing at once.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lackpy.host import journal

#: Kills a committing process at every point and at random: in CI, not in the README's quick command.
pytestmark = pytest.mark.slow

MODIFIED, CREATED, DELETED = 150, 30, 20
TOTAL = MODIFIED + CREATED + DELETED

DRIVER = '''
"""lackpy's CLI with one more tool, delete_file (lackpy ships none): a staged delete, committed with the writes."""
import lackpy.plugins
from lackpy import tool
from lackpy.kit.context import ToolContext
from lackpy.tools import workspace


@tool(grade=(3, 3))
def delete_file(ctx: ToolContext, path: str) -> str:
    """Delete a workspace file (staged, as writes are).

    Args:
        path: File path, relative to the workspace.
    """
    workspace.filesystem(ctx).remove(workspace.resolve(ctx, path))
    return f"deleted {path}"


_populate = lackpy.plugins.populate


def populate(toolbox, manager=None):
    _populate(toolbox, manager)
    toolbox.register(delete_file)


lackpy.plugins.populate = populate

from lackpy.cli import main  # noqa: E402

main()
'''

PROGRAM = f"""
for i in range({MODIFIED}):
    write_file(f"mod/d{{i % 10}}/m{{i}}.txt", f"new {{i}} " * (i % 7 + 3) + "\\n")
for i in range({CREATED}):
    write_file(f"made/d{{i % 3}}/c{{i}}.txt", f"made {{i}}\\n")
for i in range({DELETED}):
    delete_file(f"gone/g{{i}}.txt")
"""


def old(i: int) -> str:
    return f"old {i}\n" * 9


def new(i: int) -> str:
    return f"new {i} " * (i % 7 + 3) + "\n"


def made(i: int) -> str:
    return f"made {i}\n"


@pytest.fixture
def bench(tmp_path: Path) -> "Bench":
    return Bench(tmp_path)


class Bench:
    """A workspace of old files, the program that changes them all, and the driver that runs it."""

    def __init__(self, tmp: Path, root: Path | None = None) -> None:
        self.tmp = tmp
        self.ws = root or tmp / "ws"
        self.driver = tmp / "driver.py"
        self.driver.write_text(DRIVER)
        self.program = tmp / "program.py"
        self.program.write_text(PROGRAM)
        self.marker = tmp / "paused"
        self.runs = 0
        self.fill()

    def fill(self) -> None:
        for i in range(MODIFIED):
            self.write(f"mod/d{i % 10}/m{i}.txt", old(i))
        for i in range(DELETED):
            self.write(f"gone/g{i}.txt", f"doomed {i}\n")
        self.write("keep.txt", "keep\n")

    def write(self, rel: str, text: str) -> None:
        path = self.ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def start(self, pause: str | None = None, program: Path | None = None, marker: Path | None = None) -> subprocess.Popen:
        env = {**os.environ, "LACKPY_LOAD_PLUGINS": ""}
        env.pop("LACKPY_TEST_COMMIT_PAUSE", None)
        if pause is not None:
            env.update(LACKPY_TEST_COMMIT_PAUSE=pause, LACKPY_TEST_COMMIT_MARKER=str(marker or self.marker))
        command = [sys.executable, str(self.driver), "run", "-w", str(self.ws), "--yes", "--kit", "write_file,delete_file",
                   "--mode", "inprocess", "--json", str(program or self.program)]
        self.runs += 1
        out, err = (open(self.tmp / f"run{self.runs}.{name}", "w+b") for name in ("out", "err"))  # files: a full pipe would stall lackpy
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        process.output = out, err  # type: ignore[attr-defined]
        return process

    def doctor(self, *options: str) -> tuple[int, dict]:
        done = subprocess.run([sys.executable, "-m", "lackpy", "doctor", "-w", str(self.ws), "--json", *options],
                              capture_output=True, text=True, env={**os.environ, "LACKPY_LOAD_PLUGINS": ""}, timeout=60)
        return done.returncode, json.loads(done.stdout)

    def state(self, hand: dict[str, str] | None = None) -> str:
        """'old' or 'new' when every change is absent or every change applied; fails on a mix or on leftovers.

        ``hand``: files changed by hand, which must have kept exactly that content (and are not counted).
        """
        hand = hand or {}
        seen: dict[str, list[str]] = {"old": [], "new": []}

        def note(rel: str, is_new: bool) -> None:
            seen["new" if is_new else "old"].append(rel)

        for rel, text in hand.items():
            assert (self.ws / rel).read_text() == text, f"{rel}: a file changed by hand was overwritten"
        for i in range(MODIFIED):
            rel = f"mod/d{i % 10}/m{i}.txt"
            if rel not in hand:
                text = (self.ws / rel).read_text()
                assert text in (old(i), new(i)), f"{rel} is neither wholly old nor wholly new: {text!r}"
                note(rel, text == new(i))
        for i in range(CREATED):
            rel = f"made/d{i % 3}/c{i}.txt"
            if rel not in hand:
                path = self.ws / rel
                assert not path.exists() or path.read_text() == made(i)
                note(rel, path.exists())
        for i in range(DELETED):
            rel = f"gone/g{i}.txt"
            if rel not in hand:
                path = self.ws / rel
                assert not path.exists() or path.read_text() == f"doomed {i}\n"
                note(rel, not path.exists())
        assert (self.ws / "keep.txt").read_text() == "keep\n"
        assert seen["old"] == [] or seen["new"] == [], f"a mix: {len(seen['old'])} old ({seen['old'][:3]}...), {len(seen['new'])} new ({seen['new'][:3]}...)"
        if seen["old"] and not any(rel.startswith("made/") for rel in hand):
            assert not (self.ws / "made").exists(), "the directories of an absent change set are gone too"
        self.assert_clean()
        return "old" if seen["old"] else "new"

    def assert_clean(self) -> None:
        stray = [str(p.relative_to(self.ws)) for p in self.ws.rglob("*") if "lackpy-tmp" in p.name]
        assert stray == [], f"temp files among the user's: {stray}"
        state_dir = self.ws / ".lackpy" / "commit"
        assert not state_dir.exists() or os.listdir(state_dir) == [".gitignore"], f"left in {state_dir}: {os.listdir(state_dir)}"

    def wait_for_marker(self, process: subprocess.Popen, marker: Path | None = None, timeout: float = 30) -> None:
        marker = marker or self.marker
        deadline = time.monotonic() + timeout
        while not marker.exists():
            if process.poll() is not None:
                pytest.fail(f"lackpy ended before the pause (status {process.returncode}): {finish(process)[1][-2000:]}")
            assert time.monotonic() < deadline, "lackpy never reached the pause"
            time.sleep(0.01)
        marker.unlink()


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    finish(process)


def finish(process: subprocess.Popen) -> tuple[str, str]:
    """Wait for lackpy to end; its stdout and stderr."""
    process.wait(timeout=60)
    texts = []
    for handle in process.output:  # type: ignore[attr-defined]
        handle.seek(0)
        texts.append(handle.read().decode())
        handle.close()
    return texts[0], texts[1]


def recover_with_service(ws: Path) -> list[str]:
    from lackpy import LackpyService

    svc = LackpyService(ws, trust=False)
    try:
        svc.load()
        return list(svc.notices)
    finally:
        svc.close()


# Entries are committed in path order: 20 deletes (gone/), 30 creates (made/), then 150 modifies (mod/).
POINTS = ["prepared", "0", "1", "20", "35", "50", "120", str(TOTAL - 1), str(TOTAL), "finished"]


@pytest.mark.parametrize("point", POINTS)
def test_a_kill_at_any_point_of_the_commit_is_recovered_whole(bench, point):
    process = bench.start(pause=point)
    bench.wait_for_marker(process)
    kill(process)
    if point == "prepared":
        status, report = bench.doctor()
        assert (status, report["action"]) == (0, "cleaned"), report
    else:
        notices = recover_with_service(bench.ws)
        if point != "finished":
            assert any(f"completed an interrupted commit of {TOTAL} files" in n for n in notices), notices
    assert bench.state() == ("old" if point == "prepared" else "new")


def test_kills_at_random_moments_leave_old_or_new_never_a_mix(bench):
    """Killed at a random moment after the commit began (its journal or its record appeared): recovery makes it whole."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    landed = 0
    for attempt in range(6):
        process = bench.start()
        sign = bench.ws / ".lackpy" / "commit" / ("record.json" if attempt % 2 else f"new.{DELETED:06d}")  # the record; the first new file
        deadline = time.monotonic() + 30
        while not sign.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0002)
        time.sleep(rng.uniform(0, 0.04 if attempt % 2 else 0.005))
        kill(process)
        landed += journal.pending(bench.ws)
        status, report = bench.doctor()
        assert status == 0 and report["action"] in ("none", "cleaned", "completed"), (seed, report)
        if bench.state() == "new":
            shutil.rmtree(bench.ws / "made")
            bench.fill()
    assert landed >= 1, f"no kill landed inside a commit (seed {seed})"


def test_a_file_changed_by_hand_after_the_crash_is_never_overwritten(bench):
    process = bench.start(pause="120")
    bench.wait_for_marker(process)
    kill(process)
    hand = {"mod/d9/m99.txt": "my fix\n", "mod/d0/m0.txt": "also mine\n"}  # one still to write (entry 170), one written (entry 51)
    for rel, text in hand.items():
        bench.write(rel, text)
    status, report = bench.doctor()
    assert (status, report["action"], report["error_kind"]) == (1, "stopped", "conflict"), report
    assert sorted(report["conflicts"]) == sorted(hand) and report["verified"] is True
    assert "changed on disk since it began" in report["message"] and "lackpy doctor --rollback" in report["message"]
    notices = recover_with_service(bench.ws)
    assert any(n.startswith("conflict: an interrupted commit was not completed: mod/d0/m0.txt, mod/d9/m99.txt") for n in notices), notices
    status, report = bench.doctor("--rollback")
    assert (status, report["action"]) == (0, "rolled_back"), report
    assert bench.state(hand) == "old"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("chattr"), reason="needs root and chattr to make a file the disk refuses to replace")
def test_a_file_the_disk_refuses_partway_undoes_the_commit(bench):
    """The fifth replace fails (an immutable file): the four deletes before it are put back; a run failure, exit 1."""
    locked = bench.ws / "gone" / "g12.txt"  # gone/g0, g1, g10, g11, g12: the fifth in commit order
    subprocess.run(["chattr", "+i", str(locked)], check=True)
    try:
        process = bench.start()
        out, err = finish(process)
    finally:
        subprocess.run(["chattr", "-i", str(locked)], check=True)
    result = json.loads(out)
    assert (process.returncode, result["success"], result["error_kind"]) == (1, False, "commit"), err
    assert result["error"] == "could not write the changes: permission denied: gone/g12.txt; nothing was written"
    assert result["files_created"] == result["files_modified"] == result["files_deleted"] == []
    assert bench.state() == "old"


@pytest.fixture
def small_disk(tmp_path: Path):
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a small tmpfs")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_leaves_the_old_tree_and_a_clear_error(tmp_path, small_disk):
    """Writing the journal runs out of space: nothing is replaced, the journal is cleaned, error_kind commit, exit 1."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    disk = Bench(scratch, root=small_disk / "ws")
    big = tmp_path / "big.py"
    big.write_text(f'for i in range({MODIFIED}):\n    write_file(f"mod/d{{i % 10}}/m{{i}}.txt", "x" * 16000)\n')
    process = disk.start(program=big)
    out, err = finish(process)
    result = json.loads(out)
    assert (process.returncode, result["error_kind"]) == (1, "commit"), err
    assert result["error"].startswith("could not write the changes: no space left on the device") and result["error"].endswith("nothing was written")
    assert disk.state() == "old"


def test_a_directory_on_another_filesystem_is_refused_before_anything_is_written(bench, small_disk):
    """A rename cannot cross filesystems atomically, so the commit stops before it starts."""
    from lackpy.errors import CommitError
    from lackpy.kit.context import ToolContext
    from lackpy.tools import workspace as ws

    inside = bench.ws / "mounted"
    inside.mkdir()
    subprocess.run(["mount", "--bind", str(small_disk), str(inside)], check=True)
    try:
        ctx = ToolContext(bench.ws, staging=True)
        ws.write_text(ctx, "keep.txt", "changed\n")
        ws.write_text(ctx, "mounted/x.txt", "x\n")
        with pytest.raises(CommitError, match="mounted is on another filesystem than .lackpy/commit"):
            ws.staged(ctx).commit()
        assert not (inside / "x.txt").exists()
    finally:
        subprocess.run(["umount", "-l", str(inside)], check=False)
    assert bench.state() == "old"


def test_two_processes_commit_one_at_a_time_and_a_dead_holder_frees_the_lock(bench, tmp_path):
    """The second commit waits while the first holds the lock; the first is killed; the second completes it, then commits."""
    other = tmp_path / "other.py"
    other.write_text('for i in range(20):\n    write_file(f"other/o{i}.txt", "other\\n")\n')
    first = bench.start(pause="120")
    bench.wait_for_marker(first)
    waiting = tmp_path / "at-the-lock"
    second = bench.start(pause="lock:0", program=other, marker=waiting)
    bench.wait_for_marker(second, waiting)
    time.sleep(0.5)
    assert second.poll() is None and not (bench.ws / "other").exists(), "the second commit went ahead while the first held the lock"
    kill(first)  # the kernel drops its lock; nothing is stale
    out, err = finish(second)
    assert second.returncode == 0, err
    assert json.loads(out)["files_created"] == [f"other/o{i}.txt" for i in sorted(range(20), key=str)]
    assert bench.state() == "new"  # the second process completed the first one's commit before its own
