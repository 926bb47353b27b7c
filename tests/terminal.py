"""A command run with its stderr on a real pseudo-terminal, as a person's `lackpy run` draws its spinner there."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path


def on_terminal(argv: list[str], cwd: Path, timeout: float = 60.0) -> tuple[int, str, str]:
    """Run ``argv`` with stderr on a pseudo-terminal; (exit code, stdout, everything drawn on the terminal)."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=secondary, stdin=subprocess.DEVNULL)
    os.close(secondary)
    drawn = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    out, _ = process.communicate(timeout=timeout)
    os.close(primary)
    return process.returncode, out.decode(), drawn.decode(errors="replace")
