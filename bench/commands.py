"""What a confined command's start costs with [tools] deny, and an A/B of two source trees.

usage: python bench/commands.py [--rounds N] [--ab TREE] [--files N] [--vendor N]

Every row is one run through the public API, ``await svc.run_program(program,
kit=[...], mode="inprocess")`` of a service that approves what it asks, over
a generated workspace: ``--files`` files in ``src/`` (40 per directory), a
few ``.env`` files among them, ``secrets/`` with 10 files, and ``vendor/``
with ``--vendor`` files (a large directory people deny so that it is not
walked). As in ``bench/isolation.py``, each tree answers in a probe process
of its own and the driver alternates rows and trees in rounds; a figure is
the median of the round medians, and in brackets the fastest sample (what
a machine busy with other work changes least).

Rows:

none     ``run_command("true")``, no deny patterns (nothing walked)
deny     ``run_command("true")``, deny = ["*.env", "secrets/", "vendor/"]
         (the denied directories walked for their files' inodes)
big      the same with ``vendor/`` over the denied directories' budget (more
         entries than the rest of the workspace and than 10,000), so link
         counts decide (``lackpy.host.hardlinks``)
alias    ``deny`` with a hard link of ``secrets/k0`` at ``src/d0/alias.txt``
read     ``read_file`` of a file with two names (both allowed) under the
         deny patterns of ``deny``: the survey a run makes when it first
         meets such a file
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from probe import Probe  # bench/probe.py: this script beside it is sys.path[0]

HERE = Path(__file__).resolve().parent
ROWS = ("none", "deny", "big", "alias", "read")
DENY = ["*.env", "secrets/", "vendor/"]
PROGRAMS = {"read": ('read_file("src/d0/twice.txt")', ["read_file"])}
COMMAND = ('run_command("true")', ["run_command"])


def make_workspace(root: Path, files: int, vendor: int) -> None:
    """``src/`` with ``files`` files, ``.env`` files among them, ``secrets/`` and a ``vendor/`` of ``vendor`` files."""
    for index in range(files):
        folder = root / "src" / f"d{index // 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / (".env" if index % 400 == 7 else f"m{index}.py")).write_text(f"x = {index}\n")
    (root / "secrets").mkdir()
    for index in range(10):
        (root / "secrets" / f"k{index}").write_text("SECRET\n")
    for index in range(vendor):
        folder = root / "vendor" / f"p{index // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.js").write_text("//\n")
    (root / "src" / "d0" / "twice.txt").write_text("two names\n")
    os.link(root / "src" / "d0" / "twice.txt", root / "src" / "d1" / "twice.txt")


def probe(base: Path) -> None:
    """Answer ``{"m": row, "n": samples}`` lines with ``[seconds...]``."""
    from lackpy import LackpyService

    loop = asyncio.new_event_loop()
    services = {
        row: LackpyService(base / row, config={"tools": {"deny": [] if row == "none" else DENY}}, approve=True)
        for row in ROWS
    }

    def once(row: str) -> float:
        program, kit = PROGRAMS.get(row, COMMAND)
        start = time.perf_counter()
        result = loop.run_until_complete(services[row].run_program(program, kit=kit, mode="inprocess"))
        took = time.perf_counter() - start
        if not result.success:
            raise SystemExit(f"bench: {row}: {result.error}")
        return took

    for row in ROWS:
        once(row)  # warm: imports, the toolbox, the supervisor's probe
    print("ready", flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        print(json.dumps([once(ask["m"]) for _ in range(ask["n"])]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--ab", type=Path, help="a second source tree (a checkout of another commit) to compare with")
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--vendor", type=int, default=2000, help="files in vendor/ (the big row has ten times as many)")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        sys.path.insert(0, os.environ.get("PYTHONPATH", str(HERE.parent)).split(os.pathsep)[0])
        return probe(args.probe)
    trees = [HERE.parent] + ([args.ab.resolve()] if args.ab else [])
    with tempfile.TemporaryDirectory(prefix="lackpy-bench-commands-") as tmp:
        base = Path(tmp)
        for row in ROWS:
            make_workspace(base / row, args.files, args.vendor * (10 if row == "big" else 1))
        os.link(base / "alias" / "secrets" / "k0", base / "alias" / "src" / "d0" / "alias.txt")
        probes = [Probe(HERE / "commands.py", tree, base) for tree in trees]
        found: dict[tuple[int, str], list[float]] = {}
        fastest: dict[tuple[int, str], float] = {}
        try:
            for round_ in range(args.rounds):
                order = probes if round_ % 2 == 0 else probes[::-1]
                for row in ROWS:
                    for probe_ in order:
                        samples = probe_.ask(row, args.samples)
                        key = (probes.index(probe_), row)
                        found.setdefault(key, []).append(statistics.median(samples))
                        fastest[key] = min(fastest.get(key, samples[0]), *samples)
        finally:
            for probe_ in probes:
                probe_.close()
    print(f"# commands — Python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.files} files in src/, "
          f"vendor/ {args.vendor} ({args.vendor * 10} in big), {args.rounds} rounds of {args.samples}\n")
    print("| row | " + " | ".join(str(tree) for tree in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for row in ROWS:
        cells = [
            f"{statistics.median(found[(index, row)]) * 1e3:.2f} ms ({fastest[(index, row)] * 1e3:.2f})" for index in range(len(trees))
        ]
        print(f"| {row} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
