"""The path race for minutes: a process swaps a directory for a symlink while every path tool runs.

Runs tests/security/test_path_race.py with each race lasting ``--seconds``
(the suite uses 1.5 s) and prints, per tool, mode and target, how many runs
raced, how many succeeded (the directory was there) and how many leaked (must
be 0: a denied file read, or a file outside the workspace written).

    .venv/bin/python bench/race.py --seconds 20
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each race runs")
    parser.add_argument("-k", default="swapped", help="pytest -k expression (default: every race)")
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("r", suffix=".tsv") as report:
        env = dict(os.environ, LACKPY_RACE_S=str(args.seconds), LACKPY_RACE_REPORT=report.name)
        test = REPO / "tests" / "security" / "test_path_race.py"
        status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", args.k, str(test)], env=env, cwd=REPO)
        rows = [line.split("\t") for line in report.read().splitlines()]
    print(f"\n| tool | mode | link to | runs raced | succeeded | leaked |\n|---|---|---|---|---|---|")
    for tool, mode, target, runs, ok, leaked in rows:
        print(f"| {tool} | {mode} | {'secrets/ (denied)' if target == 'denied' else 'outside'} | {runs} | {ok} | {leaked} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
