"""Hard links of denied files (``lackpy.host.hardlinks``): the survey, the guard the file tools use, link counts.

Real files in pytest's temporary directories, real links, real ``lstat``:
nothing replaces a system call. Budgets are made small where a test needs
the survey to fall short.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lackpy.errors import PathError
from lackpy.host import hardlinks, journal
from lackpy.host.hardlinks import Guard, link_counts, survey, unaccounted
from lackpy.host.journal import Change

SECRET = "CANARY-HARDLINK-SECRET\n"
DENY = ("*.env", "secrets/")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``app/.env`` and ``secrets/key`` (denied), ``app/main.py`` and ``app/sub/util.py`` (allowed)."""
    root = tmp_path / "tree"
    (root / "app" / "sub").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "app" / ".env").write_text(SECRET)
    (root / "secrets" / "key").write_text(SECRET)
    (root / "app" / "main.py").write_text("print('main')\n")
    (root / "app" / "sub" / "util.py").write_text("x = 1\n")
    return root


@pytest.fixture
def root_fd(tree: Path):
    fd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def opened(path: Path) -> os.stat_result:
    """What the file tools judge: ``fstat`` of a descriptor of the file."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def test_the_survey_knows_every_denied_file_and_finds_its_other_names(tree: Path, root_fd: int) -> None:
    os.link(tree / "app" / ".env", tree / "app" / "notes.txt")
    os.link(tree / "secrets" / "key", tree / "app" / "sub" / "key.txt")  # in a subdirectory, from a denied directory
    found = survey(root_fd, DENY, 1000)
    assert sorted(found.holes) == ["app/.env", "secrets"]
    assert found.gap is None
    assert sorted(rel for names in found.denied.values() for rel in names) == ["app/.env", "secrets/key"]
    assert sorted(found.aliases(root_fd)) == ["app/notes.txt", "app/sub/key.txt"]
    info = opened(tree / "app" / "notes.txt")
    assert found.denies(root_fd, info) and not found.denies(root_fd, opened(tree / "app" / "main.py"))


def test_a_denied_directorys_link_to_an_allowed_file_makes_that_file_denied(tree: Path, root_fd: int) -> None:
    """Its inode is a denied file's: granting it would grant secrets/copy. Its siblings stay allowed."""
    os.link(tree / "app" / "main.py", tree / "secrets" / "copy")
    found = survey(root_fd, DENY, 1000)
    assert found.aliases(root_fd) == {"app/main.py": (os.lstat(tree / "app" / "main.py").st_dev, os.lstat(tree / "app" / "main.py").st_ino)}
    guard = Guard(root_fd, DENY)
    with pytest.raises(PathError, match=r"^denied by the workspace policy: app/main.py \(another name"):
        guard.check(opened(tree / "app" / "main.py"), "app/main.py")
    guard.check(opened(tree / "app" / "sub" / "util.py"), "app/sub/util.py")


def test_a_file_whose_names_are_all_allowed_passes(tree: Path, root_fd: int) -> None:
    os.link(tree / "app" / "main.py", tree / "app" / "sub" / "main.py")
    guard = Guard(root_fd, DENY)
    guard.check(opened(tree / "app" / "sub" / "main.py"), "app/sub/main.py")
    assert survey(root_fd, DENY, 1000).aliases(root_fd) == {}


def test_the_guard_surveys_only_when_it_meets_a_file_with_other_names(tree: Path, root_fd: int, monkeypatch) -> None:
    made = []
    real = hardlinks.survey
    monkeypatch.setattr(hardlinks, "survey", lambda *args: made.append(args) or real(*args))
    guard = Guard(root_fd, DENY)
    for rel in ("app/main.py", "app/sub/util.py"):
        guard.check(opened(tree / rel), rel)
    assert made == []
    os.link(tree / "app" / "main.py", tree / "app" / "twice.py")
    guard.check(opened(tree / "app" / "twice.py"), "app/twice.py")
    guard.check(opened(tree / "app" / "main.py"), "app/main.py")  # the same inode, unchanged since: that survey holds
    assert len(made) == 1


def test_a_link_made_after_the_survey_is_seen_when_the_file_is_next_judged(tree: Path, root_fd: int) -> None:
    """link(2) sets the inode's ctime, so a file changed since shortly before the survey is judged by a new one."""
    os.link(tree / "app" / "main.py", tree / "app" / "twice.py")
    guard = Guard(root_fd, DENY)
    guard.check(opened(tree / "app" / "twice.py"), "app/twice.py")
    first = guard._survey
    (tree / "app" / "later.env").write_text(SECRET)
    os.link(tree / "app" / "later.env", tree / "app" / "later.txt")
    with pytest.raises(PathError, match="another name of a file"):
        guard.check(opened(tree / "app" / "later.txt"), "app/later.txt")
    assert guard._survey is not first


def test_an_old_survey_is_kept_for_files_unchanged_since(tree: Path, root_fd: int, monkeypatch) -> None:
    os.link(tree / "app" / "main.py", tree / "app" / "twice.py")
    guard = Guard(root_fd, DENY)
    monkeypatch.setattr(hardlinks, "CTIME_SLACK_NS", 0)
    time.sleep(0.05)
    guard._survey = survey(root_fd, DENY, 1000)
    kept = guard._survey
    guard.check(opened(tree / "app" / "twice.py"), "app/twice.py")
    assert guard._survey is kept


@pytest.fixture
def crowded(tree: Path, monkeypatch) -> Path:
    """A denied directory with more entries than the rest of the workspace and than the (small) budget.

    ``secrets/deep/k`` is never reached: the budget runs out in ``secrets/`` itself.
    """
    for index in range(30):
        (tree / "secrets" / f"k{index:02}").write_text(SECRET)
    (tree / "secrets" / "deep").mkdir()
    (tree / "secrets" / "deep" / "k").write_text(SECRET)
    monkeypatch.setattr(hardlinks, "DENIED_WALK_MIN", 5)
    return tree


def test_past_its_budget_the_survey_says_what_it_did_not_see(crowded: Path, root_fd: int) -> None:
    os.link(crowded / "secrets" / "deep" / "k", crowded / "app" / "notes.txt")
    found = survey(root_fd, DENY, 1000)
    assert found.gap == "the denied directories hold more than 7 entries"  # as many as the rest of the workspace: app, sub, main.py, ...
    assert found.aliases(root_fd) == {}  # not found by inode: the link counts say it is unaccounted for
    counts = link_counts(root_fd, found.holes, 1000)
    assert unaccounted(counts) == ["app/notes.txt"]


def test_past_its_budget_the_guard_refuses_a_file_it_cannot_account_for(crowded: Path, root_fd: int) -> None:
    os.link(crowded / "secrets" / "deep" / "k", crowded / "app" / "notes.txt")
    with pytest.raises(PathError) as info:
        Guard(root_fd, DENY).check(opened(crowded / "app" / "notes.txt"), "app/notes.txt")
    message = str(info.value)
    assert message == (
        "denied by the workspace policy: app/notes.txt has 2 names (hard links) and lackpy cannot check them all "
        "against [tools] deny (the denied directories hold more than 7 entries); to read it, replace it with a copy "
        "of its own (cp, then mv over it)"
    )


def test_past_its_budget_link_counts_still_pass_a_file_whose_names_are_all_allowed(crowded: Path, root_fd: int) -> None:
    os.link(crowded / "app" / "main.py", crowded / "app" / "sub" / "main.py")
    guard = Guard(root_fd, DENY)
    guard.check(opened(crowded / "app" / "main.py"), "app/main.py")
    assert guard._survey.gap is not None  # decided by the counts, not by a complete survey


def test_a_name_outside_the_workspace_is_unaccounted_for_only_when_the_survey_fell_short(crowded: Path, root_fd: int, tmp_path: Path) -> None:
    os.link(crowded / "app" / "main.py", tmp_path / "elsewhere.py")
    with pytest.raises(PathError, match="has 2 names"):
        Guard(root_fd, DENY).check(opened(crowded / "app" / "main.py"), "app/main.py")
    for index in range(30):  # the survey now sees every denied file: the name outside is no concern of [tools] deny
        os.unlink(crowded / "secrets" / f"k{index:02}")
    os.unlink(crowded / "secrets" / "deep" / "k")
    Guard(root_fd, DENY).check(opened(crowded / "app" / "main.py"), "app/main.py")


def test_too_large_a_workspace_refuses_files_with_other_names_only(tree: Path, root_fd: int, monkeypatch) -> None:
    made = []
    real = hardlinks.survey
    monkeypatch.setattr(hardlinks, "survey", lambda *args: made.append(args) or real(*args))
    os.link(tree / "app" / "main.py", tree / "app" / "twice.py")
    os.link(tree / "app" / "sub" / "util.py", tree / "app" / "sub" / "again.py")
    guard = Guard(root_fd, DENY, limit=2)
    guard.check(opened(tree / "secrets" / "key"), "secrets/key")  # one name: nothing to walk
    for rel in ("app/twice.py", "app/sub/again.py"):
        with pytest.raises(PathError, match=r"more than 2 files and directories to check against \[tools\] deny; deny the large"):
            guard.check(opened(tree / rel), rel)
    assert len(made) == 1  # walked once: a workspace too large stays so for the run


def test_without_deny_patterns_nothing_is_judged(tree: Path, root_fd: int) -> None:
    os.link(tree / "app" / ".env", tree / "app" / "notes.txt")
    Guard(root_fd, ()).check(opened(tree / "app" / "notes.txt"), "app/notes.txt")


def test_a_commit_replaces_a_name_and_never_writes_through_it(tree: Path) -> None:
    """The journal renames new content over a name: another name of the old file keeps the old content."""
    os.link(tree / "app" / ".env", tree / "app" / "notes.txt")
    journal.commit(str(tree), [Change("app/notes.txt", b"new\n", journal.ANY)])
    assert (tree / "app" / ".env").read_text() == SECRET
    assert (tree / "app" / "notes.txt").read_text() == "new\n"
    assert os.stat(tree / "app" / ".env").st_nlink == 1


def test_a_denied_name_renamed_to_another_after_the_walk_still_denies_its_aliases(tree: Path, root_fd: int) -> None:
    os.link(tree / "app" / ".env", tree / "app" / "sub" / "notes.txt")
    found = survey(root_fd, DENY, 1000)
    os.rename(tree / "app" / ".env", tree / "app" / "other.env")  # the walk's denied name is gone; the file is still denied
    assert list(found.aliases(root_fd)) == ["app/sub/notes.txt"]


def test_the_guard_counts_a_denied_name_gone_since_the_survey(tree: Path, root_fd: int, monkeypatch) -> None:
    """The file was opened before the rename (its ctime predates the survey): it is refused, not passed."""
    os.link(tree / "app" / ".env", tree / "app" / "sub" / "notes.txt")
    monkeypatch.setattr(hardlinks, "CTIME_SLACK_NS", 0)
    time.sleep(0.05)
    guard = Guard(root_fd, DENY)
    guard._survey = survey(root_fd, DENY, 1000)
    info = opened(tree / "app" / "sub" / "notes.txt")
    os.rename(tree / "app" / ".env", tree / "app" / "other.env")
    with pytest.raises(PathError, match="another name of a file"):
        guard.check(info, "app/sub/notes.txt")


def _unlistable(tree: Path, monkeypatch, rel: str) -> None:
    """``rel`` cannot be listed: for real where the tests do not run as root (which lists anything), else its opening fails as EACCES would."""
    if os.geteuid() != 0:
        os.chmod(tree / rel, 0)  # the caller puts the mode back
        return
    real = hardlinks.open_beneath

    def refusing(dir_fd, path, flags, *args, **kwargs):
        if path == rel:
            raise PermissionError(13, "Permission denied", path)
        return real(dir_fd, path, flags, *args, **kwargs)

    monkeypatch.setattr(hardlinks, "open_beneath", refusing)


def test_a_denied_directory_that_cannot_be_listed_leaves_a_gap_that_names_it_not(tree: Path, root_fd: int, monkeypatch) -> None:
    (tree / "secrets" / "deep").mkdir()
    (tree / "secrets" / "deep" / "k").write_text(SECRET)
    os.link(tree / "secrets" / "deep" / "k", tree / "app" / "notes.txt")
    _unlistable(tree, monkeypatch, "secrets/deep")
    try:
        found = survey(root_fd, DENY, 1000)
        assert found.gap == "a denied directory cannot be listed" and found.aliases(root_fd) == {}
        with pytest.raises(PathError, match=r"has 2 names \(hard links\) and lackpy cannot check them all against \[tools\] deny \(a denied directory cannot be listed\)"):
            Guard(root_fd, DENY).check(opened(tree / "app" / "notes.txt"), "app/notes.txt")
    finally:
        os.chmod(tree / "secrets" / "deep", 0o755)


def test_an_allowed_directory_that_cannot_be_listed_is_a_hole_and_a_gap(tree: Path, root_fd: int, monkeypatch) -> None:
    os.link(tree / "app" / "main.py", tree / "app" / "sub" / "main.py")
    _unlistable(tree, monkeypatch, "app/sub")
    try:
        found = survey(root_fd, DENY, 1000)
        assert "app/sub" in found.holes and found.gap == "app/sub cannot be listed"
        with pytest.raises(PathError, match="has 2 names"):  # its other name is where lackpy could not look
            Guard(root_fd, DENY).check(opened(tree / "app" / "main.py"), "app/main.py")
    finally:
        os.chmod(tree / "app" / "sub", 0o755)
