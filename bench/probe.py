"""A probe: one source tree's lackpy answering a benchmark's rows in a process of its own, so two trees are timed side by side.

The script runs itself with ``--probe ARG`` under ``PYTHONPATH=TREE``; the
probe prints ``ready``, then answers each ``{"m": row, "n": count}`` line
with one JSON line of samples (the script decides their shape).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


class Probe:
    def __init__(self, script: Path, tree: Path, arg: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "LACKPY_LOAD_PLUGINS": ""}
        self.tree = tree
        self.process = subprocess.Popen(
            [sys.executable, str(script), "--probe", str(arg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=str(tree),
        )
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit(f"bench: the probe of {tree} did not start")

    def ask(self, row: str, n: int) -> Any:
        """The probe's answer for ``n`` samples of ``row``, as it sent it."""
        self.process.stdin.write(json.dumps({"m": row, "n": n}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"bench: the probe of {self.tree} stopped")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(30)
