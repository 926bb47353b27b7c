"""What a commit costs: program 07 and 200-file writes through ``run_program``, in-process.

usage: python bench/commit.py [--repeat N] [--workloads DIR]     (bench/run.py prints the same table last)

Every figure is the median of ``--repeat`` runs of the whole ``run_program``
call (validate cached, run, commit), timed after the workspace is put back
(not timed). The 200-file rows write or create 200 files of about 1 KB each
in 10 directories; "modify" overwrites files that exist, "create" writes new
ones, "delete" removes 200. The figures are meant to be compared between
commits of lackpy on one machine in one sitting (the VM is noisy).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lackpy import Toolbox, resolve_kit, run_program, tool  # noqa: E402
from lackpy.kit.context import ToolContext  # noqa: E402
from lackpy.plugins import populate  # noqa: E402
from lackpy.tools import workspace  # noqa: E402

N = 200
WRITE = f'for i in range({N}):\n    write_file(f"out/d{{i % 10}}/f{{i}}.txt", tag + str(i) * 300)\n'
DELETE = f'for i in range({N}):\n    delete_file(f"out/d{{i % 10}}/f{{i}}.txt")\n'


@tool(grade=(3, 3))
def delete_file(ctx: ToolContext, path: str) -> str:
    """Delete a workspace file (staged, as writes are).

    Args:
        path: File path, relative to the workspace.
    """
    workspace.filesystem(ctx).remove(workspace.resolve(ctx, path))
    return f"deleted {path}"


def timed(fn, repeat: int, setup) -> float:
    samples = []
    for _ in range(repeat):
        setup()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def fill(ws: Path, tag: str) -> None:
    shutil.rmtree(ws / "out", ignore_errors=True)
    for i in range(N):
        path = ws / "out" / f"d{i % 10}" / f"f{i}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(tag + str(i) * 300)


def table(ws: Path, programs_dir: Path, repeat: int) -> None:
    """Print the commit table for the fixture workspace ``ws`` (its README.md is put back; ``out/`` is removed)."""
    readme = (ws / "README.md").read_text()
    toolbox = Toolbox(str(ws))
    populate(toolbox)
    toolbox.register(delete_file)
    kit = resolve_kit(["read_file", "edit_file", "write_file", "delete_file"], toolbox)
    edit = (programs_dir / "07_edit.py").read_text()

    def restore() -> None:
        (ws / "README.md").write_text(readme)

    def staged() -> None:
        assert run_program(edit, kit, mode="inprocess").success

    def direct() -> None:
        assert run_program(edit, kit, mode="inprocess", context=ToolContext(ws, staging=False)).success

    for fn in (staged, direct):
        restore()
        fn()
    t_staged = timed(staged, repeat * 2, restore)
    t_direct = timed(direct, repeat * 2, restore)

    def write(tag: str):
        def go() -> None:
            result = run_program(WRITE, kit, {"tag": tag}, mode="inprocess")
            assert result.success, result.error

        return go

    t_modify = timed(write("new"), repeat, lambda: fill(ws, "old"))
    t_create = timed(write("new"), repeat, lambda: shutil.rmtree(ws / "out", ignore_errors=True))

    def delete() -> None:
        result = run_program(DELETE, kit, mode="inprocess")
        assert result.success, result.error

    t_delete = timed(delete, repeat, lambda: fill(ws, "old"))
    restore()
    shutil.rmtree(ws / "out", ignore_errors=True)
    print(f"\n| commit (in-process run, median of {repeat}; 07 of {repeat * 2}) | time |")
    print("|---|---|")
    print(f"| 07_edit, staged | {fmt(t_staged)} |")
    print(f"| 07_edit, direct (no staging) | {fmt(t_direct)} |")
    print(f"| write {N} files that exist (1 KB each) | {fmt(t_modify)} ({fmt(t_modify / N)} per file) |")
    print(f"| create {N} new files (1 KB each, 10 directories) | {fmt(t_create)} ({fmt(t_create / N)} per file) |")
    print(f"| delete {N} files | {fmt(t_delete)} ({fmt(t_delete / N)} per file) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--workloads", type=Path, default=REPO / "bench" / "workloads")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lackpy-commit-bench-"))
    try:
        ws = tmp / "ws"
        subprocess.run([sys.executable, str(args.workloads / "make_workspace.py"), str(ws), "200"], check=True, capture_output=True)
        print(f"# commit cost — Python {sys.version.split()[0]}")
        table(ws, args.workloads / "programs", args.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
