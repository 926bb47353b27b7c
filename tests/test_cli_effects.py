"""approve = "effects" on a real terminal (a pseudo-terminal): one question naming every call that can act, none while it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from terminal import typed

PROMPT = b"lackpy: approve? [y/N"
#: The commit's own question, with its diff, once the run is over.
COMMIT = b"apply these changes?"
FOUR = "write_file('a.txt', 'A')\nwrite_file('b.txt', 'B')\nwrite_file('c.txt', 'C')\nrun_command('touch canary.txt')['code']\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".lackpy").mkdir()
    (tmp_path / ".lackpy" / "config.toml").write_text('approve = "effects"\n')
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(tmp_path)], check=True, capture_output=True)
    return tmp_path


def on_terminal(ws: Path, program: str, answers: list[bytes], prompts: list[bytes] | None = None) -> tuple[int, str]:
    (ws / "prog.py").write_text(program)
    shown = [(prompt, answer) for prompt, answer in zip(prompts or [PROMPT] * len(answers), answers)]
    return typed([sys.executable, "-m", "lackpy", "run", "--kit", "coding", "prog.py"], ws, shown, 60)


def test_three_writes_and_a_command_are_one_question_on_the_terminal_and_none_while_it_runs(ws):
    # A second effects answer would be typed if a second question came; the commit asks after the run, with its diff.
    code, output = on_terminal(ws, FOUR, [b"y\n", b"y\n"], [PROMPT, COMMIT])
    assert code == 0, output
    ran, _, committed = output.partition(COMMIT.decode())
    assert ran.count("approve? [y/N") == 1 and committed.count("approve? [y/N") == 1
    assert "+A" in committed and "make this call?" not in output
    assert "lackpy: run this program with these effects? run a program (critical, w=3 d=3) that may make these 4 calls that act" in output
    for at, call in enumerate(["write_file(path='a.txt', content='A')", "write_file(path='b.txt', content='B')",
                               "write_file(path='c.txt', content='C')"], 1):
        assert f"  {at}. line {at}  {call}  w=3 d=3, acts after the run, at most once" in output
    assert "  4. line 4  run_command(command='touch canary.txt')  w=3 d=3, acts at once, at most once" in output
    assert "the program:" in output  # readable below the list
    assert (ws / "canary.txt").exists() and (ws / "c.txt").read_text() == "C"


def test_a_no_on_the_terminal_runs_nothing(ws):
    code, output = on_terminal(ws, FOUR, [b"n\n"])
    assert code == 2 and "the list of the program's effects was not approved (user): refused on the terminal" in output
    assert not (ws / "canary.txt").exists() and not (ws / "a.txt").exists()


LOOP = "names = ['x', 'y']\nfor n in names:\n    run_command('touch ' + n + '.out')\n'done'\n"


def test_y_with_a_number_allows_any_value_for_that_computed_argument(ws):
    code, output = on_terminal(ws, LOOP, [b"y 1\n", b"n\n"])
    assert code == 0, output
    assert "run_command(command=<computed #1: 'touch ' + n + '.out'>)  w=3 d=3, acts at once, may run many times" in output
    assert "approve? [y/N; y 1: also allow any value for computed #1]" in output
    assert output.count("approve? [y/N") == 1 and (ws / "x.out").exists() and (ws / "y.out").exists()


def test_a_plain_y_asks_again_for_each_computed_value_as_it_runs(ws):
    code, output = on_terminal(ws, LOOP, [b"y\n", b"y\n", b"n\n"])
    assert "make this call? run_command(command='touch x.out')" in output and "make this call? run_command(command='touch y.out')" in output
    assert "on the approved list at line 3; asked now for its computed #1" in output
    assert code == 1 and (ws / "x.out").exists() and not (ws / "y.out").exists()


def test_a_yes_naming_something_else_is_a_no(ws):
    code, output = on_terminal(ws, LOOP, [b"y 9\n"])
    assert code == 2 and "'9' is not the number of a computed argument on the list" in output and not (ws / "x.out").exists()
