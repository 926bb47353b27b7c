"""The CLI asks on a real terminal (a pseudo-terminal here): accepting, refusing, and no answer in time; --yes and no terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli

PROMPT = b"approve? [y/N]"


def on_terminal(args: list[str], cwd: Path, answer: bytes | None, wait_s: float = 30.0) -> tuple[int, str]:
    """Run ``lackpy ARGS`` with a pseudo-terminal as its stdin, stdout and stderr; type ``answer`` at the prompt."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lackpy", *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    output, answered, deadline = b"", False, time.monotonic() + wait_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
                if answer is not None and not answered and PROMPT in output:
                    os.write(master, answer)
                    answered = True
            elif proc.poll() is not None:
                break
        proc.wait(timeout=10)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, output.decode(errors="replace").replace("\r\n", "\n")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "keep.txt").write_text("as it was\n")
    (tmp_path / "prog.py").write_text("write_file('keep.txt', 'changed\\n')\n'done'\n")
    return tmp_path


def test_a_yes_on_the_terminal_applies_the_diff_it_showed(ws):
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, b"y\n")
    assert code == 0, output
    assert "apply these changes? write 1 file: keep.txt" in output and "-as it was" in output and "+changed" in output
    assert (ws / "keep.txt").read_text() == "changed\n" and "done" in output


def test_a_no_on_the_terminal_writes_nothing(ws):
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, b"n\n")
    assert code == 1, output
    assert "refused on the terminal" in output and "nothing was written" in output
    assert (ws / "keep.txt").read_text() == "as it was\n"


def test_no_answer_in_time_is_a_refusal(ws):
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('[approvals]\ncommit = "block:1"\n')
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(ws)], check=True, capture_output=True)
    started = time.monotonic()
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, None)
    assert code == 1, output
    assert "no answer within 1 s" in output and (ws / "keep.txt").read_text() == "as it was\n"
    assert time.monotonic() - started < 20


def test_a_command_is_asked_about_with_its_arguments_before_it_runs(ws):
    (ws / "cmd.py").write_text("run_command('touch canary.txt')['code']\n")
    code, output = on_terminal(["run", "--kit", "coding", "cmd.py"], ws, b"no\n")
    assert code == 1 and "make this call? run_command(command='touch canary.txt')" in output
    assert not (ws / "canary.txt").exists()


def test_without_a_terminal_a_blocking_approval_says_to_pass_yes(ws, monkeypatch):
    monkeypatch.chdir(ws)
    result = CliRunner().invoke(cli, ["run", "--kit", "filesystem", "prog.py"])
    assert result.exit_code == 1 and "no terminal to ask on; pass --yes" in result.output
    assert (ws / "keep.txt").read_text() == "as it was\n"


def test_yes_approves_everything_for_that_command_and_the_result_says_so(ws, monkeypatch):
    monkeypatch.chdir(ws)
    result = CliRunner().invoke(cli, ["run", "--kit", "filesystem", "--yes", "--json", "prog.py"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [(a["gate"], a["approved"], a["by"]) for a in document["approvals"]] == [("commit", True, "yes")]
    assert (ws / "keep.txt").read_text() == "changed\n"
