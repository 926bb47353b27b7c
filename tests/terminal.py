"""Commands on a real pseudo-terminal: one drawing its spinner on stderr (``on_terminal``), one a person answers (``typed``)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import tempfile
import time
from pathlib import Path


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


def typed(argv: list[str], cwd: Path, answers: list[tuple[bytes, bytes]], wait_s: float = 60.0) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal as its stdin, stdout and stderr; at each prompt in turn (once its bytes
    appear after the previous one), type its answer. (exit code, everything shown, with plain newlines)."""
    answers = list(answers)
    primary, secondary = pty.openpty()
    process = subprocess.Popen(argv, cwd=cwd, stdin=secondary, stdout=secondary, stderr=secondary, start_new_session=True)
    os.close(secondary)
    output, deadline, at = b"", time.monotonic() + wait_s, 0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
                if answers and answers[0][0] in output[at:]:
                    at = output.index(answers[0][0], at) + len(answers[0][0])
                    os.write(primary, answers.pop(0)[1])
            elif process.poll() is not None:
                break
        process.wait(timeout=10)
    finally:
        os.close(primary)
        if process.poll() is None:
            process.kill()
    return process.returncode, output.decode(errors="replace").replace("\r\n", "\n")
