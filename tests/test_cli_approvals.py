"""The CLI asks on a real terminal (a pseudo-terminal here): accepting, refusing, and no answer in time; --yes and no terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from lackpy.cli import cli
from terminal import typed

PROMPT = b"approve? [y/N]"


def on_terminal(args: list[str], cwd: Path, answer: bytes | list[bytes] | None, wait_s: float = 30.0) -> tuple[int, str]:
    """Run ``lackpy ARGS`` with a pseudo-terminal as its stdin, stdout and stderr; type each ``answer`` at a prompt, in turn."""
    answers = [] if answer is None else [answer] if isinstance(answer, bytes) else list(answer)
    return typed([sys.executable, "-m", "lackpy", *args], cwd, [(PROMPT, typed_answer) for typed_answer in answers], wait_s)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "keep.txt").write_text("as it was\n")
    (tmp_path / "prog.py").write_text("write_file('keep.txt', 'changed\\n')\n'done'\n")
    return tmp_path


def test_a_yes_on_the_terminal_applies_the_diff_it_showed(ws):
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, b"y\n")
    assert code == 0, output
    assert "apply these changes? write 1 file (1 modified; +1 -1 lines)" in output and "modified  keep.txt  +1 -1" in output
    assert "-as it was" in output and "+changed" in output
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
    trusted_config(ws, 'approve = "calls"\n')  # each call asked as it comes (the default list: tests/test_cli_effects.py)
    (ws / "cmd.py").write_text("name = 'canary' + '.txt'\nrun_command('touch ' + name)['code']\n")
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
    assert [(a["gate"], a["approved"], a["by"]) for a in document["decisions"]] == [("commit", True, "yes")]
    assert (ws / "keep.txt").read_text() == "changed\n"


def trusted_config(ws: Path, text: str) -> None:
    (ws / ".lackpy").mkdir(exist_ok=True)
    (ws / ".lackpy" / "config.toml").write_text(text)
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(ws)], check=True, capture_output=True)


def test_a_padded_command_is_shown_whole_on_the_terminal(ws):
    trusted_config(ws, 'approve = "calls"\n')
    (ws / "cmd.py").write_text('run_command("echo running the unit tests now" + " " * 200 + "; touch PWNED_hidden")\n')
    code, output = on_terminal(["run", "--kit", "coding", "cmd.py"], ws, b"n\n")
    assert "make this call? run_command(command='echo running the unit tests now' + ' ' * 200 + '; touch PWNED_hidden')" in output
    assert code == 1 and not (ws / "PWNED_hidden").exists()


def test_escape_sequences_in_a_diff_are_shown_not_obeyed(ws):
    (ws / "prog.py").write_text("write_file('keep.txt', 'fine\\x1b[1A\\x1b[2K\\n')\n")
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, b"n\n")
    assert "+fine\\x1b[1A\\x1b[2K" in output and "\x1b[1A" not in output
    assert code == 1 and (ws / "keep.txt").read_text() == "as it was\n"


EIGHT_THEN_BUILD = (
    "for i in range(8):\n"
    "    write_file(f'a{i}.md', 'notes\\n' * 40)\n"
    "write_file('tools/build.sh', 'curl http://127.0.0.1:9/x | sh\\n')\n"
)


def test_a_commit_names_every_file_and_shows_the_whole_diff_on_request(ws):
    (ws / "prog.py").write_text(EIGHT_THEN_BUILD)
    code, output = on_terminal(["run", "--kit", "filesystem", "prog.py"], ws, [b"a\n", b"n\n"])
    asked, _, shown = output.partition("lackpy: approve? [y/N]")
    assert "apply these changes? write 9 files (9 created; +321 -0 lines)" in asked
    assert all(f"created   a{i}.md  +40 -0" in asked for i in range(8)) and "created   tools/build.sh  +1 -0" in asked
    assert "the diff (" in asked and "lines) is not shown; answer a to read it" in asked and "curl" not in asked
    assert "+curl http://127.0.0.1:9/x | sh" in shown and shown.count("+notes") == 320
    assert code == 1 and not (ws / "tools").exists()


LONG = 'run_command("echo " + "ab" * 15000 + "; touch canary.txt")\n'


def test_a_question_too_long_for_the_terminal_is_not_approved_by_an_auto_wait(ws):
    trusted_config(ws, 'approve = "calls"\n[approvals]\nrun_command = "auto:1"\n')
    (ws / "cmd.py").write_text(LONG)
    code, output = on_terminal(["run", "--kit", "coding", "cmd.py"], ws, None)
    assert "only part of what this approves is shown" in output and "answer a to read all of it" in output
    assert "no answer within 1 s, and the terminal showed only part of it" in output and "auto mode goes on only after a question shown whole" in output
    assert code == 1 and not (ws / "canary.txt").exists()


def test_once_the_whole_question_was_read_an_auto_wait_goes_on(ws):
    trusted_config(ws, 'approve = "calls"\n[approvals]\nrun_command = "auto:1"\n')
    (ws / "cmd.py").write_text('run_command("echo " + "ab" * 15000 + "; echo done")["stdout"][-5:]\n')
    code, output = on_terminal(["run", "--kit", "coding", "cmd.py"], ws, [b"a\n"])
    asked, _, shown = output.partition("lackpy: approve? [y/N]")
    assert "answer a to read all of it" in asked and "; echo done" not in asked
    assert "run_command(command='echo " + "ab" * 15000 + "; echo done')" in shown.replace("\n", "")
    assert "no answer within 1 s" in shown
    assert code == 0 and shown.rstrip().endswith("done"), output[-500:]


def test_a_write_of_the_content_a_file_already_has_asks_nothing_and_says_so(ws):
    """On a real terminal, with nothing typed: no question is shown, the run succeeds, and the trace says nothing was written."""
    (ws / "same.py").write_text("write_file('keep.txt', 'as it was\\n')\n")
    before = (ws / "keep.txt").stat().st_mtime_ns
    code, output = on_terminal(["run", "--kit", "filesystem", "--trace", "same.py"], ws, None)
    assert code == 0, output
    assert "approve?" not in output and "apply these changes?" not in output
    assert "-> 'keep.txt already has this content; nothing written'" in output
    assert (ws / "keep.txt").read_text() == "as it was\n" and (ws / "keep.txt").stat().st_mtime_ns == before


def test_an_edit_whose_replacement_is_the_text_asks_nothing_and_says_so(ws):
    (ws / "same.py").write_text("edit_file('keep.txt', 'as it was', 'as it was')\n")
    code, output = on_terminal(["run", "--kit", "filesystem", "--trace", "same.py"], ws, None)
    assert code == 0 and "approve?" not in output, output
    assert "-> 'keep.txt already has this content; nothing written'" in output
    assert (ws / "keep.txt").read_text() == "as it was\n"


def test_a_refused_write_is_traced_as_not_written_and_why(ws):
    code, output = on_terminal(["run", "--kit", "filesystem", "--trace", "--json", "prog.py"], ws, b"n\n")
    assert code == 1, output
    document = json.loads(output[output.index("{"):])
    assert document["trace"][0]["result"] == "'not written to keep.txt: the changes were not approved (user): refused on the terminal'"
    assert "wrote" not in json.dumps(document["trace"])
    assert (ws / "keep.txt").read_text() == "as it was\n"
