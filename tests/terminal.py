"""Commands on a real pseudo-terminal: one drawing on stderr (``on_terminal``), one a person answers (``typed``), one driven by a step (``driven``)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable


def on_terminal(argv: list[str], cwd: Path, timeout: float = 60.0) -> tuple[int, str, str]:
    """Run ``argv`` with stderr on a pseudo-terminal; (exit code, stdout, everything drawn on the terminal).

    Its stdout goes to a file, so a command that prints much is never held up while the terminal is read.
    """
    primary, secondary = pty.openpty()
    out_file = tempfile.TemporaryFile()
    process = subprocess.Popen(argv, cwd=cwd, stdout=out_file, stderr=secondary, stdin=subprocess.DEVNULL)
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
    process.wait(timeout=timeout)
    os.close(primary)
    out_file.seek(0)
    out = out_file.read()
    out_file.close()
    return process.returncode, out.decode(), drawn.decode(errors="replace")


def driven(argv: list[str], cwd: Path, step: Callable[[bytes, subprocess.Popen, int], None], *, wait_s: float = 60.0,
           env: dict | None = None, whole: bool = True) -> tuple[int, bytes]:
    """Run ``argv`` on a pseudo-terminal (its stdin, stdout and stderr; with ``whole=False`` stderr only) and read it until it
    ends; after each read, and at least every 0.05 s, ``step(shown so far, the process, the terminal's fd)`` may answer or
    signal. (exit code, everything shown)."""
    primary, secondary = pty.openpty()
    ends = dict(stdin=secondary, stdout=secondary, start_new_session=True) if whole else dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    process = subprocess.Popen(argv, cwd=cwd, stderr=secondary, env=env, **ends)
    os.close(secondary)
    shown, deadline = b"", time.monotonic() + wait_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                shown += chunk
            elif process.poll() is not None:
                break
            step(shown, process, primary)
        process.wait(timeout=30)
    finally:
        os.close(primary)
        if process.poll() is None:
            process.kill()
    return process.returncode, shown


def typed(argv: list[str], cwd: Path, answers: list[tuple[bytes, bytes]], wait_s: float = 60.0) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal as its stdin, stdout and stderr; at each prompt in turn (once its bytes
    appear after the previous one), type its answer. (exit code, everything shown, with plain newlines)."""
    answers, at = list(answers), [0]

    def answer(shown: bytes, process: subprocess.Popen, terminal: int) -> None:
        if answers and answers[0][0] in shown[at[0]:]:
            at[0] = shown.index(answers[0][0], at[0]) + len(answers[0][0])
            os.write(terminal, answers.pop(0)[1])

    code, shown = driven(argv, cwd, answer, wait_s=wait_s)
    return code, shown.decode(errors="replace").replace("\r\n", "\n")
