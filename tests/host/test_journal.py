"""The commit journal in one process: records, recovery, conflicts, refusals, undo and the lock.

A crash is simulated by an exception lackpy does not catch, raised at a
chosen point of the commit through the test hook (``journal._test_pause``);
tests/host/test_commit_crash.py does the same with real processes and SIGKILL.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from lackpy.errors import CommitError, ConflictError, PathError
from lackpy.kit.context import ToolContext
from lackpy.host import journal
from lackpy.tools import workspace as ws
from lackpy.host.fs import LocalFilesystem, StagedFilesystem

N = 12


class Crash(BaseException):
    """What a SIGKILL is to the commit: nothing of lackpy's runs after it."""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A workspace with N files to modify, 3 to delete and a file nobody touches."""
    root = tmp_path / "tree"
    for i in range(N):
        path = root / "mod" / f"d{i % 3}" / f"m{i:02d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(old(i))
    for i in range(3):
        path = root / "gone" / f"g{i}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"doomed {i}\n")
    (root / "keep.txt").write_text("keep\n")
    return root


def old(i: int) -> str:
    return f"old {i}\n" * 5


def new(i: int) -> str:
    return f"new {i} " * (i % 4 + 2) + "\n"


def staged(root: Path) -> ToolContext:
    """A run's context that modified every file, created 4 in new directories and deleted 3."""
    ctx = ToolContext(root, staging=True)
    for i in range(N):
        rel = f"mod/d{i % 3}/m{i:02d}.txt"
        if i % 2:
            ws.read_text(ctx, rel)  # half read first, half written blind
        ws.write_text(ctx, rel, new(i))
    for i in range(4):
        ws.write_text(ctx, f"made/x{i % 2}/deep/c{i}.txt", f"made {i}\n")
    for i in range(3):
        ws.filesystem(ctx).remove(f"gone/g{i}.txt")
    return ctx


def state(root: Path) -> str:
    """'old' or 'new' when the change set is wholly absent or wholly applied; fails on any mix or leftover."""
    seen = set()
    for i in range(N):
        text = (root / "mod" / f"d{i % 3}" / f"m{i:02d}.txt").read_text()
        assert text in (old(i), new(i)), text
        seen.add("old" if text == old(i) else "new")
    for i in range(4):
        path = root / "made" / f"x{i % 2}" / "deep" / f"c{i}.txt"
        seen.add("new" if path.exists() else "old")
        if path.exists():
            assert path.read_text() == f"made {i}\n"
    for i in range(3):
        path = root / "gone" / f"g{i}.txt"
        seen.add("old" if path.exists() else "new")
        if path.exists():
            assert path.read_text() == f"doomed {i}\n"
    if "old" in seen:
        assert not (root / "made").exists(), "directories the commit made are removed with it"
    assert (root / "keep.txt").read_text() == "keep\n"
    assert len(seen) == 1, f"a mix of old and new: {seen}"
    assert_clean(root)
    return seen.pop()


def assert_clean(root: Path) -> None:
    assert [p for p in root.rglob("*lackpy-tmp*")] == []
    commit_dir = root / ".lackpy" / "commit"
    assert not commit_dir.exists() or sorted(os.listdir(commit_dir)) == [".gitignore"], os.listdir(commit_dir)


#: The hook as lackpy has it (monkeypatch.undo() would also drop the test's own config directory).
PAUSE = journal._test_pause


def no_crash(monkeypatch) -> None:
    monkeypatch.setattr(journal, "_test_pause", PAUSE)


def crash_at(monkeypatch, point: str, then=None) -> None:
    """The next commit stops dead at ``point`` (after running ``then``, if given)."""

    def pause_at():
        def pause(name: str) -> None:
            if name == point:
                if then is not None:
                    then()
                else:
                    raise Crash(point)

        return pause

    monkeypatch.setattr(journal, "_test_pause", pause_at)


def test_a_commit_writes_creates_and_deletes_and_leaves_nothing(tree):
    ctx = staged(tree)
    os.chmod(tree / "mod" / "d0" / "m00.txt", 0o751)
    changes = ws.staged(ctx).commit()
    assert len(changes.modified) == N and len(changes.created) == 4 and len(changes.deleted) == 3
    assert state(tree) == "new"
    assert (tree / "mod" / "d0" / "m00.txt").stat().st_mode & 0o777 == 0o751
    assert not journal.pending(tree)


@pytest.mark.parametrize("point", ["0", "1", "3", "7", "15", "19", "finished"])
def test_a_commit_interrupted_after_its_record_is_completed(tree, monkeypatch, point):
    crash_at(monkeypatch, point)
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    assert journal.pending(tree)
    no_crash(monkeypatch)
    report = journal.recover(tree)
    assert report.action == ("cleaned" if point == "finished" else "completed"), report
    assert report.verified in (True, None) and report.conflicts == []
    assert state(tree) == "new"


@pytest.mark.parametrize("point, after", [("prepared", "old"), ("0", "old"), ("1", "new")])
def test_a_one_file_commit_needs_no_record(tree, monkeypatch, point, after):
    """One file: its rename is the commit; a crash leaves it old or new and only leftovers to clean."""
    ctx = ToolContext(tree, staging=True)
    ws.write_text(ctx, "keep.txt", "new\n")
    crash_at(monkeypatch, point)
    with pytest.raises(Crash):
        ws.staged(ctx).commit()
    no_crash(monkeypatch)
    assert not (tree / ".lackpy" / "commit" / "record.json").exists()
    assert journal.recover(tree).action == "cleaned"
    assert (tree / "keep.txt").read_text() == ("keep\n" if after == "old" else "new\n")
    assert_clean(tree)


@pytest.mark.parametrize("point", ["lock", "prepared"])
def test_a_commit_interrupted_before_its_record_changes_nothing(tree, monkeypatch, point):
    crash_at(monkeypatch, point)
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    report = journal.recover(tree)
    assert report.action in ("none", "cleaned")
    assert state(tree) == "old"


def test_recovery_never_overwrites_a_file_changed_after_the_crash(tree, monkeypatch):
    """Pending or already applied, a file changed by hand stops the recovery; --rollback puts back the rest."""
    crash_at(monkeypatch, "7")  # entries are sorted: gone/ (3), made/ (4), then mod/
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    pending_file, applied_file = tree / "mod" / "d2" / "m11.txt", tree / "gone" / "g1.txt"
    pending_file.write_text("mine\n")
    applied_file.write_text("recreated by hand\n")
    report = journal.recover(tree)
    assert (report.action, report.error_kind, report.verified) == ("stopped", "conflict", True)
    assert report.conflicts == ["gone/g1.txt", "mod/d2/m11.txt"]
    assert "gone/g1.txt, mod/d2/m11.txt changed on disk" in report.message and "lackpy doctor --rollback" in report.message
    assert pending_file.read_text() == "mine\n" and (tree / "mod" / "d0" / "m00.txt").read_text() == old(0)
    with pytest.raises(ConflictError, match="mod/d2/m11.txt changed on disk.*this commit wrote nothing"):
        ws.staged(_one_write(tree)).commit()  # a stopped journal stops every commit here
    report = journal.recover(tree, "rollback")
    assert report.action == "rolled_back" and sorted(report.conflicts) == ["gone/g1.txt", "mod/d2/m11.txt"]
    assert pending_file.read_text() == "mine\n" and applied_file.read_text() == "recreated by hand\n"
    # the deleted file's content from before the commit was only in the journal: kept, and the message says where
    kept = list((tree / ".lackpy" / "recovered").glob("*/gone%2Fg1.txt"))
    assert [p.read_text() for p in kept] == ["doomed 1\n"]
    assert f".lackpy/recovered/{kept[0].parent.name}" in report.message
    assert not (tree / "made").exists() and (tree / "gone" / "g0.txt").read_text() == "doomed 0\n"
    assert all((tree / "mod" / f"d{i % 3}" / f"m{i:02d}.txt").read_text() == old(i) for i in range(N - 1))
    assert_clean(tree)


def test_an_interrupted_undo_is_finished_as_an_undo(tree, monkeypatch):
    """A commit that failed partway and died while putting files back is undone by recovery, never completed."""
    crash_at(monkeypatch, "9")
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    state_dir = tree / ".lackpy" / "commit"
    os.rename(state_dir / "record.json", state_dir / "undo.json")  # what a failing commit does first
    report = journal.recover(tree)
    assert (report.action, report.state) == ("rolled_back", "rollback")
    assert state(tree) == "old"


def test_a_record_this_user_did_not_sign_is_never_applied(tree, monkeypatch, own_trust_record):
    crash_at(monkeypatch, "2")
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    (own_trust_record / "lackpy" / "commit.key").write_text(os.urandom(32).hex())  # another user, another machine
    before = snapshot(tree)
    report = journal.recover(tree)
    assert (report.action, report.verified, report.error_kind) == ("stopped", False, "commit")
    assert "does not match this user's commit key" in report.message and "lackpy doctor --discard" in report.message
    assert snapshot(tree) == before
    report = journal.recover(tree, "rollback")  # an unverified record is not undone either: that writes files too
    assert report.action == "stopped" and snapshot(tree) == before
    report = journal.recover(tree, "discard")
    assert report.action == "discarded"
    assert_clean(tree)
    assert {k: v for k, v in snapshot(tree).items() if ".lackpy" not in k} == {k: v for k, v in before.items() if ".lackpy" not in k}


def test_a_journal_shipped_in_a_cloned_repository_writes_nothing(tmp_path, own_trust_record):
    """A crafted record (any signature, a path outside, a file to plant) is reported, never applied."""
    root = tmp_path / "cloned"
    state_dir = root / ".lackpy" / "commit"
    state_dir.mkdir(parents=True)
    (root / "victim.txt").write_text("mine\n")
    payload = b"planted\n"
    (state_dir / "new.000000").write_bytes(payload)
    (state_dir / "new.000001").write_bytes(payload)
    import hashlib

    entry = {"op": "write", "old": "old.000000", "baseline": None, "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    record = {
        "version": 1, "workspace": str(root.resolve()), "state": "apply", "dirs": [],
        "entries": [dict(entry, path=".bashrc", new="new.000000"), dict(entry, path="victim.txt", new="new.000001", old="old.000001")],
        "mac": "0" * 64,
    }
    (state_dir / "record.json").write_text(json.dumps(record))
    for attempt in (None, "key exists"):
        if attempt:
            journal._key(create=True)  # the user has a key now; the record is still not signed with it
        report = journal.recover(root)
        assert (report.action, report.verified) == ("stopped", False)
        assert not (root / ".bashrc").exists() and (root / "victim.txt").read_text() == "mine\n"
    from lackpy import LackpyService

    svc = LackpyService(root).load()
    assert any("will not apply" in notice for notice in svc.notices)
    assert not (root / ".bashrc").exists()
    with pytest.raises(CommitError, match="will not apply"):
        ws.staged(_one_write(root)).commit()


def test_a_journal_moved_to_another_workspace_is_refused(tree, tmp_path, monkeypatch):
    crash_at(monkeypatch, "2")
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    twin = tmp_path / "twin"
    shutil.copytree(tree, twin, symlinks=True)
    report = journal.recover(twin)
    assert report.action == "stopped" and "written for another workspace" in report.message
    assert journal.recover(tree).action == "completed"


def test_leftovers_without_a_record_are_cleaned(tree):
    state_dir = tree / ".lackpy" / "commit"
    state_dir.mkdir(parents=True)
    (state_dir / "new.000003").write_text("half written")
    (state_dir / "record.tmp").write_text("{")  # a record that was being written
    assert journal.pending(tree)
    assert journal.recover(tree).action == "cleaned"
    assert not journal.pending(tree)


def test_a_late_change_to_a_later_file_undoes_the_commit(tree, monkeypatch):
    """A file changed after the commit began replacing files (after every early check) is a conflict: all put back."""
    target = tree / "mod" / "d2" / "m11.txt"

    def meddle() -> None:
        text = target.read_text()
        target.write_text(text.replace("old", "OLD"))  # same size
        os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns - 10**9))

    crash_at(monkeypatch, "5", then=meddle)
    with pytest.raises(ConflictError, match="^mod/d2/m11.txt changed on disk while the program ran; nothing was written"):
        ws.staged(staged(tree)).commit()
    assert target.read_text() == old(11).replace("old", "OLD")
    target.write_text(old(11))
    assert state(tree) == "old"


def test_a_write_landing_between_the_check_and_the_rename_is_kept(tree, monkeypatch):
    """An outside write into the file in the instant before lackpy replaces it: found after, and everything put back, theirs included."""
    real_replace = os.replace
    target = tree / "mod" / "d2" / "m05.txt"

    def replace(src, dst, *args, **kwargs):
        if str(src).startswith("new.") and os.path.samefile(f"/proc/self/fd/{kwargs['dst_dir_fd']}", target.parent) and dst == target.name:
            with open(target, "a") as handle:  # the commit acts relative to directory descriptors
                handle.write("late\n")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(ConflictError, match="^mod/d2/m05.txt changed on disk while the program ran; nothing was written"):
        ws.staged(staged(tree)).commit()
    assert target.read_text() == old(5) + "late\n"
    target.write_text(old(5))
    assert state(tree) == "old"


def test_a_same_size_rewrite_with_its_mtime_restored_is_a_conflict(tree):
    ctx = ToolContext(tree, staging=True)
    target = tree / "mod" / "d0" / "m00.txt"
    ws.read_text(ctx, "mod/d0/m00.txt")
    ws.write_text(ctx, "mod/d0/m00.txt", "mine\n")
    info = target.stat()
    with open(target, "r+") as handle:  # in place: same inode, same size
        handle.write("OLD")
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert target.stat().st_mtime_ns == info.st_mtime_ns and target.stat().st_size == info.st_size
    with pytest.raises(ConflictError, match="mod/d0/m00.txt changed on disk"):
        ws.staged(ctx).commit()
    assert target.read_text().startswith("OLD")


def test_a_blind_write_keeps_the_baseline_of_when_it_was_staged(tree):
    """A write that never read the file still refuses a file changed (or created) after it was staged."""
    ctx = ToolContext(tree, staging=True)
    ws.write_text(ctx, "keep.txt", "mine\n")
    ws.write_text(ctx, "late.txt", "mine\n")
    (tree / "keep.txt").write_text("keep\n")  # rewritten with the same bytes: not a change
    ws.staged(ctx).commit()
    assert (tree / "keep.txt").read_text() == "mine\n"
    ctx = ToolContext(tree, staging=True)
    ws.write_text(ctx, "keep.txt", "again\n")
    (tree / "keep.txt").write_text("theirs\n")
    with pytest.raises(ConflictError, match="keep.txt changed on disk"):
        ws.staged(ctx).commit()


def test_a_file_created_between_the_checks_and_the_link_is_never_overwritten(tree, monkeypatch):
    crash_at(monkeypatch, "0", then=lambda: (tree / "made" / "x0" / "deep").mkdir(parents=True) or (tree / "made" / "x0" / "deep" / "c2.txt").write_text("theirs\n"))
    with pytest.raises(ConflictError, match="made/x0/deep/c2.txt changed on disk"):
        ws.staged(staged(tree)).commit()
    assert (tree / "made" / "x0" / "deep" / "c2.txt").read_text() == "theirs\n"
    assert not (tree / "made" / "x0" / "deep" / "c0.txt").exists()
    assert (tree / "gone" / "g0.txt").exists()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("chattr"), reason="needs root and chattr to make a file immutable")
def test_a_failure_partway_puts_back_what_was_replaced(tree):
    """The ninth replace is refused by the disk: the deletes, creates and the first modify are undone."""
    ctx = staged(tree)
    locked = tree / "mod" / "d1" / "m01.txt"  # entry 9 of 19 in commit order
    subprocess.run(["chattr", "+i", str(locked)], check=True)
    try:
        with pytest.raises(CommitError, match=r"^could not write the changes: .*: mod/d1/m01.txt; nothing was written$"):
            ws.staged(ctx).commit()
    finally:
        subprocess.run(["chattr", "-i", str(locked)], check=True)
    assert state(tree) == "old"


def test_without_hard_links_originals_are_copied_and_put_back_whole(tree, monkeypatch):
    """On a filesystem that refuses link(2), a commit copies what it replaces; a failure restores content and mode."""
    import errno

    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    ws.staged(staged(tree)).commit()
    assert state(tree) == "new"
    for i in range(N):
        (tree / "mod" / f"d{i % 3}" / f"m{i:02d}.txt").write_text(old(i))
    for i in range(3):
        (tree / "gone" / f"g{i}.txt").write_text(f"doomed {i}\n")
    shutil.rmtree(tree / "made")
    os.chmod(tree / "mod" / "d0" / "m00.txt", 0o604)
    ctx = staged(tree)
    real_replace = os.replace

    def refuse_the_last(src, dst, *args, **kwargs):
        if str(dst).endswith("m11.txt") and "new." in str(src):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refuse_the_last)
    with pytest.raises(CommitError, match="permission denied: mod/d2/m11.txt; nothing was written"):
        ws.staged(ctx).commit()
    assert state(tree) == "old"
    assert (tree / "mod" / "d0" / "m00.txt").stat().st_mode & 0o777 == 0o604


def test_programs_cannot_touch_the_journal(tree):
    ctx = ToolContext(tree, staging=True)
    with pytest.raises(PathError, match="lackpy's own"):
        ws.write_text(ctx, ".lackpy/commit/record.json", "{}")
    with pytest.raises(PathError, match="lackpy's own"):
        LocalFilesystem(tree).write(".lackpy/commit/x", b"")


@pytest.mark.parametrize("rel", [".lackpy", ".lackpy/config.toml", ".lackpy/kits/readonly.kit", ".lackpy/commit/record.json", ".LACKPY/config.toml", "a/../.lackpy/x"])
def test_everything_in_lackpy_is_reserved_and_no_record_may_name_it(tree, rel):
    """No commit writes under .lackpy/, whoever asks: a record naming such a path is malformed, and a commit refuses it."""
    assert journal.reserved(rel) and not journal._safe_rel(rel)
    with pytest.raises(CommitError, match="is not a path lackpy can commit; nothing was written"):
        journal.commit(tree, [journal.Change(rel, b"x", None), journal.Change("keep.txt", b"x", journal.ANY)])
    assert not (tree / ".lackpy" / "config.toml").exists() and (tree / "keep.txt").read_text() == "keep\n"


@pytest.mark.parametrize("rel", ["lackpy/x", ".lackpyrc", "src/.lackpy/x", "x.lackpy"])
def test_paths_that_only_look_like_lackpy_are_not_reserved(rel):
    assert not journal.reserved(rel) and journal._safe_rel(rel)


def test_the_journal_lives_only_in_a_real_lackpy_directory(tree, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tree / ".lackpy").symlink_to(elsewhere)
    with pytest.raises(CommitError, match=r"\.lackpy is not a directory of this workspace"):
        ws.staged(staged(tree)).commit()
    assert state(tree) == "old" and os.listdir(elsewhere) == []


def test_commits_of_two_threads_serialize(tree, monkeypatch):
    """A second commit waits for the lock while the first is halfway; then it sees the first one's writes."""
    halfway, go_on = threading.Event(), threading.Event()

    def pause_at():
        def pause(name: str) -> None:
            if name == "5" and threading.current_thread().name == "first":
                halfway.set()
                go_on.wait(10)

        return pause

    monkeypatch.setattr(journal, "_test_pause", pause_at)
    first = staged(tree)
    second = ToolContext(tree, staging=True)
    ws.write_text(second, "second.txt", "2\n")
    ws.write_text(second, "mod/d2/m11.txt", "second\n")  # blind, staged before the first commit writes it
    errors: list[BaseException] = []

    def commit(ctx) -> None:
        try:
            ws.staged(ctx).commit()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    one = threading.Thread(target=commit, args=(first,), name="first")
    one.start()
    assert halfway.wait(10)
    two = threading.Thread(target=commit, args=(second,), name="second")
    two.start()
    time.sleep(0.3)
    assert two.is_alive() and not (tree / "second.txt").exists(), "the second commit must wait for the lock"
    go_on.set()
    one.join(10)
    two.join(10)
    assert state(tree) == "new"
    assert len(errors) == 1 and isinstance(errors[0], ConflictError) and "mod/d2/m11.txt" in str(errors[0])
    assert not (tree / "second.txt").exists()


def test_the_service_recovers_on_load_without_trust(tree, monkeypatch):
    crash_at(monkeypatch, "4")
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    from lackpy import LackpyService

    svc = LackpyService(tree, trust=False).load()
    assert svc.recovery is not None and svc.recovery.action == "completed"
    assert any("completed an interrupted commit of 19 files" in n for n in svc.notices)
    assert state(tree) == "new"
    assert LackpyService(tree).doctor().action == "none"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _one_write(root: Path) -> ToolContext:
    ctx = ToolContext(root, staging=True)
    ws.write_text(ctx, "new.txt", "x")
    return ctx


def test_a_staged_filesystem_over_another_backend_puts_back_on_failure():
    """Without a disk there is no journal; a failing write still leaves the base as it was."""
    from lackpy.host.fs import MemoryFilesystem

    class Flaky(MemoryFilesystem):
        def write(self, rel, data):
            if rel == "b.txt" and getattr(self, "armed", False):
                raise PathError("disk full: b.txt")
            super().write(rel, data)

    base = Flaky({"a.txt": "a", "b.txt": "b"})
    staged_fs = StagedFilesystem(base)
    staged_fs.write("a.txt", b"A")
    staged_fs.write("b.txt", b"B")
    base.armed = True
    with pytest.raises(CommitError, match="disk full: b.txt; nothing was written"):
        staged_fs.commit()
    assert base.files == {"a.txt": b"a", "b.txt": b"b"}


def test_doctor_on_the_command_line(tree, monkeypatch):
    """`lackpy doctor` says there is nothing to do (0), completes a commit (0), refuses two answers at once (2)."""
    from click.testing import CliRunner

    from lackpy.cli import cli

    runner = CliRunner()
    done = runner.invoke(cli, ["doctor", "-w", str(tree)])
    assert (done.exit_code, done.output.strip()) == (0, f"no unfinished commit in {tree.resolve()}")
    crash_at(monkeypatch, "3")
    with pytest.raises(Crash):
        ws.staged(staged(tree)).commit()
    no_crash(monkeypatch)
    done = runner.invoke(cli, ["doctor", "-w", str(tree), "--json"])
    report = json.loads(done.output)
    assert (done.exit_code, report["action"], report["verified"], len(report["already"]), len(report["written"])) == (0, "completed", True, 3, 16)
    assert state(tree) == "new"
    done = runner.invoke(cli, ["doctor", "-w", str(tree), "--rollback", "--discard", "--json"])
    assert done.exit_code == 2 and json.loads(done.output)["error"]["kind"] == "usage"


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_commit_the_disk_refuses_is_a_run_failure_in_both_modes(tmp_path, monkeypatch, mode):
    """Not an exception out of run_program: a result with error_kind commit, exit status 1, nothing written."""
    import asyncio
    import errno

    from lackpy import LackpyService
    from lackpy.cli import exit_status

    root = tmp_path / "ws"
    root.mkdir()
    (root / "b.txt").write_text("old b\n")
    real_replace = os.replace

    def refuse_b(src, dst, *args, **kwargs):
        if str(dst).endswith("b.txt") and "new." in str(src):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refuse_b)
    program = 'write_file("a.txt", "a")\nwrite_file("b.txt", "b")\nwrite_file("c/c.txt", "c")'
    with LackpyService(root, approve=True) as svc:
        result = asyncio.run(svc.run_program(program, ["write_file"], mode=mode))
    assert (result.success, result.error_kind, exit_status(result)) == (False, "commit", 1)
    assert result.error == "could not write the changes: permission denied: b.txt; nothing was written"
    assert result.files_created == result.files_modified == []
    assert sorted(p.name for p in root.iterdir()) == [".lackpy", "b.txt"] and (root / "b.txt").read_text() == "old b\n"
    assert_clean(root)


def test_a_directory_is_never_deleted(tree):
    """A delete takes files only: a directory is refused when staged, and by the journal if it gets that far."""
    ctx = ToolContext(tree, staging=True)
    with pytest.raises(PathError, match="not a file: mod/d0"):
        ws.filesystem(ctx).remove("mod/d0")
    with pytest.raises(CommitError, match="mod/d0 is not a file"):
        journal.commit(tree, [journal.Change("mod/d0", None, journal.OTHER), journal.Change("keep.txt", b"x", journal.ANY)])
    assert state(tree) == "old"


def test_a_blind_write_over_a_file_changed_after_the_run_began_is_a_conflict(tree):
    """The program never read it, so it never saw their change: committing over it would lose it."""
    ctx = ToolContext(tree, staging=True)  # the run begins
    time.sleep(0.05)  # past the coarse clock file times are stamped with
    (tree / "keep.txt").write_text("theirs\n")  # someone else, while the program runs
    (tree / "made.txt").write_text("theirs too\n")  # a file someone created meanwhile
    ws.write_text(ctx, "keep.txt", "mine\n")  # blind writes, staged after their changes
    ws.write_text(ctx, "made.txt", "mine\n")
    with pytest.raises(ConflictError, match="changed on disk while the program ran; nothing was written"):
        ws.staged(ctx).commit()
    assert (tree / "keep.txt").read_text() == "theirs\n" and (tree / "made.txt").read_text() == "theirs too\n"


def test_a_file_changed_before_the_run_began_is_written_as_asked(tree):
    (tree / "keep.txt").write_text("before\n")
    time.sleep(0.05)
    ctx = ToolContext(tree, staging=True)
    ws.write_text(ctx, "keep.txt", "mine\n")
    ws.staged(ctx).commit()
    assert (tree / "keep.txt").read_text() == "mine\n"
