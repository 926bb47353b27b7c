"""A co-resident process swaps a directory for a symlink while programs run: nothing denied is read, nothing outside written.

The path policy judges a path, then the tool acts on it. If the tool opened
the path again by name, a process swapping ``sub/real`` (a directory) for
``sub/real -> ../secrets`` or ``sub/real -> /outside`` between the two
would win now and then: lackpy once returned the denied key 3 times in 1,500
runs and wrote 53 of 400 files outside. Every tool that takes a path is raced
here for a bounded time in both run modes; bench/race.py runs the same race
for minutes.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lackpy.host import beneath
from lackpy.service import LackpyService

#: Races for seconds per tool and mode: in CI, not in the README's quick command.
pytestmark = pytest.mark.slow

SECRET = "RACE-SECRET-0451"
#: The swapping process: sub/real is a directory, then a link to TARGET, then a directory again; each state lasts
#: a random moment under a millisecond, so lookups land on both sides of every swap. It stops after a whole swap
#: once the file swapper-done appears beside sub/.
SWAPPER = r"""
import os, random, sys, time
sub, target, stop = sys.argv[1], sys.argv[2], float(sys.argv[3])
real, hold, done = os.path.join(sub, "real"), os.path.join(sub, "hold"), os.path.join(sub, "..", "swapper-done")
while time.time() < stop and not os.path.exists(done):
    try:
        time.sleep(random.random() / 1000)
        os.rename(real, hold)
        os.symlink(target, real)
        time.sleep(random.random() / 1000)
        os.unlink(real)
        os.rename(hold, real)
    except OSError:
        pass
"""
#: Each tool's program, reaching through sub/real; ``{i}`` numbers the run.
PROGRAMS = {
    "read_file": 'read_file("sub/real/key")',
    "list_dir": 'list_dir("sub/real")',
    "find_files": 'find_files("sub/real/*")',
    "grep": 'grep("RACE", glob="sub/real/*")',
    "write_file": 'write_file("sub/real/out{i}.txt", "x")',
    "edit_file": 'edit_file("sub/real/key", "RACE", "RACE{i}")',
}
#: How long each race runs: a second and a half in the suite; bench/race.py sets LACKPY_RACE_S for minutes.
RACE_S = float(os.environ.get("LACKPY_RACE_S", "1.5"))
#: The fewest runs a race makes, however slow the machine: it runs until both this many and RACE_S have passed.
MIN_RUNS = 20


@pytest.fixture
def arena(tmp_path: Path) -> dict:
    """A workspace with a denied ``secrets/key``, a harmless ``sub/real/key`` and a canary directory outside."""
    root = tmp_path / "ws"
    (root / ".lackpy").mkdir(parents=True)
    (root / ".lackpy" / "config.toml").write_text('[tools]\ndeny = ["secrets/"]\n')
    (root / "secrets").mkdir()
    (root / "secrets" / "key").write_text(f"{SECRET}\n")
    (root / "sub" / "real").mkdir(parents=True)
    (root / "sub" / "real" / "key").write_text("harmless RACE\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key").write_text(f"{SECRET}\n")
    return {"root": root, "outside": outside}


def _race(root: Path, target: str, program: str, mode: str, seconds: float = RACE_S) -> list:
    """Run ``program`` over and over while the swapper runs; every result."""
    stop = time.time() + seconds
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(root / "sub"), target, str(time.time() + 600)])
    results = []
    try:
        async def runs() -> None:
            async with LackpyService(root, approve=True) as service:
                i = 0
                while (time.time() < stop or i < MIN_RUNS) and i < 5000 * max(RACE_S, 1.0):
                    results.append(await service.run_program(program.format(i=i), kit="filesystem", mode=mode))
                    i += 1

        asyncio.run(runs())
    finally:
        (root / "swapper-done").touch()  # it swaps until the runs are done, however long they took, and stops whole
        swapper.wait(timeout=10)
        (root / "swapper-done").unlink()
    return results


def _report(tool: str, mode: str, target: str, results: list) -> None:
    """One line per race for bench/race.py (``LACKPY_RACE_REPORT``): how many runs, how many succeeded."""
    path = os.environ.get("LACKPY_RACE_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{tool}\t{mode}\t{target}\t{len(results)}\t{sum(r.success for r in results)}\t{len(_leaks(results))}\n")


def _leaks(results: list) -> list[str]:
    return [f"{r.output!r} {r.error}" for r in results if SECRET in f"{r.output!r} {r.error} {r.trace!r}"]


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize("tool", sorted(PROGRAMS))
def test_a_swapped_directory_never_reaches_a_denied_file(arena, tool, mode):
    results = _race(arena["root"], "../secrets", PROGRAMS[tool], mode)
    _report(tool, mode, "denied", results)
    assert len(results) >= MIN_RUNS
    assert _leaks(results) == []
    assert (arena["root"] / "secrets" / "key").read_text() == f"{SECRET}\n"
    assert sorted(p.name for p in (arena["root"] / "secrets").iterdir()) == ["key"]
    assert any(r.success for r in results)  # the race is real: the directory was there some of the time


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize("tool", sorted(PROGRAMS))
def test_a_swapped_directory_never_leads_outside(arena, tool, mode):
    outside = arena["outside"]
    results = _race(arena["root"], str(outside), PROGRAMS[tool], mode)
    _report(tool, mode, "outside", results)
    assert len(results) >= MIN_RUNS
    assert _leaks(results) == []
    assert sorted(p.name for p in outside.iterdir()) == ["key"]
    assert (outside / "key").read_text() == f"{SECRET}\n"
    assert any(r.success for r in results)


def test_the_lookup_itself_refuses_links_out(tmp_path: Path, monkeypatch):
    """openat2 and the walk refuse the same paths: links out, '..' out, and any link when told to follow none."""
    root = tmp_path / "ws"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f").write_text("ok")
    (root / "abs").symlink_to("/etc")
    (root / "a" / "up").symlink_to("../..")
    (root / "a" / "lb").symlink_to("b")
    (root / "full").symlink_to(root / "a" / "b" / "f")
    (root / "back").symlink_to(f"../{root.name}/a/b")
    fd = beneath.open_dir(str(root))

    def outcome(rel: str, follow: bool) -> str:
        try:
            opened = beneath.open_beneath(fd, rel, os.O_RDONLY, follow=follow, at=str(root))
        except OSError as exc:
            return {18: "EXDEV", 40: "ELOOP", 2: "ENOENT"}.get(exc.errno, str(exc.errno))
        try:
            return beneath.canonical(opened, str(root))
        finally:
            os.close(opened)

    cases = {
        ("a/b/f", True): "a/b/f", ("a/lb/f", True): "a/b/f", ("abs/passwd", True): "EXDEV",
        ("a/up/x", True): "EXDEV", ("../x", True): "EXDEV", ("full", True): "a/b/f", ("back/f", True): "a/b/f",
        ("a/b/f", False): "a/b/f", ("a/lb/f", False): "ELOOP", ("abs/passwd", False): "ELOOP",
        ("../x", False): "EXDEV", ("full", False): "ELOOP",
    }
    try:
        for kernel in (True, False):
            if not kernel:
                monkeypatch.setattr(beneath, "_syscall", None)
            assert {case: outcome(*case) for case in cases} == cases, f"openat2={kernel}"
    finally:
        os.close(fd)


def test_lackpy_reads_no_fifo_and_no_stdin_through_a_link(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    os.mkfifo(root / "fifo")
    (root / "stdin").symlink_to("/dev/stdin")
    (root / "big").write_bytes(b"x" * 2048)
    fd = beneath.open_dir(str(root))
    try:
        from lackpy.errors import PathError

        for rel, said in (("fifo", "a FIFO"), ("stdin", "leads outside"), ("big", "larger than 1024 bytes"), (".", "a directory")):
            with pytest.raises(PathError, match=said):
                beneath.read_regular(fd, rel, 1024)
        with pytest.raises(FileNotFoundError):
            beneath.read_regular(fd, "missing", 1024)
    finally:
        os.close(fd)
