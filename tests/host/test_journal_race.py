"""A directory swapped for a symlink to a directory outside, while commits run: nothing lands outside.

Another process exchanges ``sub/real`` (a directory of the workspace) with
``sub/real -> OUTSIDE`` (``renameat2(RENAME_EXCHANGE)``, atomic) in a tight
loop while commits create, modify and delete files under ``sub/real/``. The
outside directory holds files identical to the inside ones, so a commit
that looked inside and then acted outside would find what it expects there.
Every commit must either act inside the real directory or fail with a
conflict; the outside directory never changes. Then the same swap at chosen
points of one commit and of its recovery, deterministically. Each runs with
``openat2`` and with the descriptor walk that replaces it on older kernels.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lackpy.errors import CommitError, ConflictError
from lackpy.host import beneath, journal
from lackpy.host.journal import Baseline, Change

#: Races commits against swapped directories: in CI, not in the README's quick command.
pytestmark = pytest.mark.slow

COMMITS, SECONDS = 300, 4.0
_RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)

SWAPPER = r'''
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
deadline = time.monotonic() + 30
open(sys.argv[4], "w").close()
while not os.path.exists(stop) and time.monotonic() < deadline:
    for _ in range(200):
        if libc.renameat2(-100, a, -100, b, 2) != 0:
            sys.exit(f"renameat2: errno {ctypes.get_errno()}")
'''


def exchange(a: Path, b: Path) -> None:
    if _libc.renameat2(-100, os.fsencode(a), -100, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        pytest.skip(f"renameat2(RENAME_EXCHANGE) is not available here ({os.strerror(err)})")


@pytest.fixture(params=["openat2", "walk"])
def lookups(request, monkeypatch) -> str:
    """Run with the kernel's openat2, and with the O_NOFOLLOW descriptor walk lackpy uses where it is missing."""
    if request.param == "openat2" and not beneath.kernel_enforced():
        pytest.skip("this kernel has no openat2")
    if request.param == "walk":
        monkeypatch.setattr(beneath, "_syscall", None)
    return request.param


class Scene:
    """A workspace with ``sub/real/`` and ``sub/lnk -> OUTSIDE``, and an outside directory that mirrors ``sub/real``."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "ws"
        self.real = self.root / "sub" / "real"
        self.link = self.root / "sub" / "lnk"
        self.outside = tmp / "outside"
        self.real.mkdir(parents=True)
        self.outside.mkdir()
        self.real_ino = self.real.stat().st_ino
        self.link.symlink_to(self.outside)
        self.put("keep.txt", b"keep 0\n")

    def put(self, name: str, data: bytes) -> None:
        """The same file inside the real directory (wherever it is now) and outside."""
        (self.real_dir() / name).write_bytes(data)
        (self.outside / name).write_bytes(data)

    def real_dir(self) -> Path:
        """Where the real directory is now: ``sub/real`` or ``sub/lnk`` (the swapper exchanges the two names)."""
        for path in (self.real, self.link):
            if not path.is_symlink() and path.stat().st_ino == self.real_ino:
                return path
        raise AssertionError("the real directory is gone")

    def outside_state(self) -> dict[str, tuple[int, bytes]]:
        return {p.name: (p.stat().st_ino, p.read_bytes()) for p in sorted(self.outside.iterdir())}


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return Scene(tmp_path)


def test_commits_under_a_directory_swapped_with_a_link_never_act_outside(scene, lookups, tmp_path):
    dels = {f"del{i}.txt": f"doomed {i}\n".encode() for i in range(0, COMMITS, 4)}
    for name, data in dels.items():
        scene.put(name, data)
    before = scene.outside_state()
    stop, ready = tmp_path / "stop", tmp_path / "ready"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(scene.real), str(scene.link), str(stop), str(ready)])
    ok: dict[int, str] = {}
    refused: dict[int, str] = {}
    keep = b"keep 0\n"
    try:
        deadline = time.monotonic() + 10
        while not ready.exists():
            assert swapper.poll() is None and time.monotonic() < deadline, "the swapper did not start"
            time.sleep(0.01)
        deadline = time.monotonic() + SECONDS
        for i in range(COMMITS):
            if time.monotonic() > deadline:
                break
            kind = ("delete", "create", "create two", "modify")[i % 4]
            if kind == "delete":
                changes = [Change(f"sub/real/del{i}.txt", None, Baseline.of(dels[f"del{i}.txt"]))]
            elif kind == "create":
                changes = [Change(f"sub/real/out{i}.txt", b"%d\n" % i, None)]
            elif kind == "create two":  # journaled; a.txt is applied first, so a conflict on the second undoes it
                changes = [Change(f"a{i}.txt", b"a\n", None), Change(f"sub/real/out{i}.txt", b"%d\n" % i, None)]
            else:
                changes = [Change("sub/real/keep.txt", b"keep %d\n" % i, Baseline.of(keep))]
            try:
                journal.commit(scene.root, changes)
            except (ConflictError, CommitError) as exc:
                refused[i] = f"{kind}: {exc}"
            else:
                ok[i] = kind
                if kind == "modify":
                    keep = b"keep %d\n" % i
                    (scene.outside / "keep.txt").write_bytes(keep)  # outside mirrors inside again
                    before = scene.outside_state()
            assert scene.outside_state() == before, f"commit {i} ({kind}) changed the directory outside"
    finally:
        stop.touch()
        swapper.wait(timeout=30)
    assert swapper.returncode == 0
    real = scene.real_dir()
    for i in range(len(ok) + len(refused)):
        done = i in ok
        kind = ("delete", "create", "create two", "modify")[i % 4]
        if kind == "delete":
            assert (real / f"del{i}.txt").exists() != done, (i, refused.get(i))
        elif kind.startswith("create"):
            assert ((real / f"out{i}.txt").read_bytes() == b"%d\n" % i) if done else not (real / f"out{i}.txt").exists()
            if kind == "create two":
                assert (scene.root / f"a{i}.txt").exists() == done, (i, refused.get(i))
    assert (real / "keep.txt").read_bytes() == keep
    assert not any(name.startswith("out") for name in os.listdir(scene.outside))
    assert not journal.pending(scene.root)
    assert ok and refused, f"the race never went both ways: {len(ok)} committed, {len(refused)} refused"
    # a link met by the walk between its lstat and its O_NOFOLLOW open says ENOTDIR: "sub/real is not a directory"
    odd = [why for why in refused.values() if not any(said in why for said in ("changed into a link", "changed on disk", "sub/real is not a directory"))]
    assert odd == [], odd[:3]


def test_a_link_swapped_in_between_prepare_and_apply_is_a_conflict(scene, lookups, monkeypatch):
    """Prepare saw the real directory; the apply finds a link there and writes nothing, inside or out."""
    scene.put("del.txt", b"doomed\n")
    before = scene.outside_state()
    changes = [Change("sub/real/del.txt", None, Baseline.of(b"doomed\n")), Change("sub/real/keep.txt", b"mine\n", Baseline.of(b"keep 0\n")),
               Change("sub/real/new.txt", b"new\n", None), Change("top.txt", b"top\n", None)]
    swap_at(monkeypatch, "0", lambda: exchange(scene.real, scene.link))
    with pytest.raises(ConflictError, match=r"^sub/real/del.txt: a parent directory changed into a link while the program ran; nothing was written"):
        journal.commit(scene.root, changes)
    assert scene.outside_state() == before
    exchange(scene.real, scene.link)
    assert sorted(os.listdir(scene.real)) == ["del.txt", "keep.txt"] and (scene.real / "keep.txt").read_bytes() == b"keep 0\n"
    assert not (scene.root / "top.txt").exists() and not journal.pending(scene.root)


def test_a_link_swapped_in_midway_undoes_what_was_applied_in_the_real_directory(scene, lookups, monkeypatch):
    """Two entries in, the directory becomes a link: the next entry is a conflict and the undo acts where the apply did.

    The apply resolves each directory once and acts through that descriptor:
    an entry in a directory it already opened lands in the real directory
    (wherever that now is); one it opens after the swap meets the link.
    """
    scene.put("del.txt", b"doomed\n")
    before = scene.outside_state()
    changes = [Change("other/x.txt", b"x\n", None), Change("sub/real/del.txt", None, Baseline.of(b"doomed\n")),
               Change("sub/real/keep.txt", b"mine\n", Baseline.of(b"keep 0\n")), Change("sub/real/z/new.txt", b"new\n", None)]
    swap_at(monkeypatch, "2", lambda: exchange(scene.real, scene.link))  # other/x.txt and sub/real/del.txt done
    with pytest.raises(ConflictError, match=r"^sub/real/z/new.txt: a parent directory changed into a link while the program ran; nothing was written"):
        journal.commit(scene.root, changes)
    assert scene.outside_state() == before
    assert sorted(os.listdir(scene.link)) == ["del.txt", "keep.txt"]  # put back in the real directory, now named sub/lnk
    assert (scene.link / "del.txt").read_bytes() == b"doomed\n" and (scene.link / "keep.txt").read_bytes() == b"keep 0\n"
    exchange(scene.real, scene.link)
    assert not (scene.root / "other").exists() and not journal.pending(scene.root)


def test_recovery_never_follows_a_directory_swapped_for_a_link(scene, lookups, monkeypatch):
    """A commit dies midway; the directory becomes a link to a mirror outside: recovery stops, outside untouched; swapped back, it completes."""
    scene.put("del.txt", b"doomed\n")
    changes = [Change("sub/real/del.txt", None, Baseline.of(b"doomed\n")), Change("sub/real/keep.txt", b"mine\n", Baseline.of(b"keep 0\n")),
               Change("sub/real/new.txt", b"new\n", None)]

    class Crash(BaseException):
        pass

    def crash() -> None:
        raise Crash()

    swap_at(monkeypatch, "1", crash)
    with pytest.raises(Crash):
        journal.commit(scene.root, changes)
    monkeypatch.setattr(journal, "_test_pause", lambda: (lambda point: None))
    exchange(scene.real, scene.link)
    (scene.outside / "del.txt").write_bytes(b"doomed\n")  # the mirror looks exactly like the commit's baseline
    before = scene.outside_state()
    report = journal.recover(scene.root)
    assert (report.action, report.error_kind) == ("stopped", "conflict")
    assert report.conflicts == ["sub/real/del.txt", "sub/real/keep.txt", "sub/real/new.txt"]
    assert scene.outside_state() == before
    exchange(scene.real, scene.link)
    report = journal.recover(scene.root)
    assert report.action == "completed", report
    assert sorted(os.listdir(scene.real)) == ["keep.txt", "new.txt"] and (scene.real / "keep.txt").read_bytes() == b"mine\n"
    assert scene.outside_state() == before


def swap_at(monkeypatch, point: str, action) -> None:
    """At ``point`` of the next commit (``journal._test_pause``), run ``action``."""

    def pause_at():
        return lambda name: action() if name == point else None

    monkeypatch.setattr(journal, "_test_pause", pause_at)
