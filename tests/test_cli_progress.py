"""The status line of a long run, on a real pseudo-terminal: what it says, when it shows, and that it leaves the output clean."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lackpy.cli_progress import _size
from terminal import driven, on_terminal

#: Real work for as long as the test wants: read_file calls, one after another, until flag.txt no longer says go.
LONG = 'n = 0\nfor i in range(10000000):\n    if read_file("flag.txt") != "go\\n":\n        break\n    n += 1\nn\n'
#: How long the test lets it run, in seconds.
RUN_S = 2.5
ARGS = ("--timeout", "120", "--limit", "max_tool_calls=10000000")
#: The drawn status line: a spinner frame, the time, the calls, the last tool and the bytes read and written, cleared to the end of the line.
FRAME = re.compile(r"\r[|/\\-] (\d+\.\d) s, ([\d,]+) tool calls?, the last (\w+)((?:, [\d.]+ [KMG]?B (?:read|written))*)\x1b\[K")
CLEAR = "\r\x1b[K"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / "flag.txt").write_text("go\n")
    (tmp_path / "long.py").write_text(LONG)
    (tmp_path / "fast.py").write_text('len(read_file("a.txt"))\n')
    return tmp_path


def _lackpy(*args: str) -> list[str]:
    return [sys.executable, "-m", "lackpy", *args]


def _stopped_after(ws: Path, seconds: float = RUN_S) -> threading.Timer:
    """The long program ends ``seconds`` from now: flag.txt stops saying go."""
    timer = threading.Timer(seconds, (ws / "flag.txt").write_text, ("stop\n",))
    timer.start()
    return timer


def _calls(out: str) -> int:
    """The long program's result: how many times it found the flag up (one read_file call each)."""
    return int(out)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LACKPY_QUIET"}
    return {**env, "TERM": "xterm", **extra}


@pytest.fixture(autouse=True)
def terminal_env(monkeypatch) -> None:
    """A terminal that knows escapes, and no LACKPY_QUIET from outside (``on_terminal``'s command inherits this environment)."""
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("LACKPY_QUIET", raising=False)


def _frames(drawn: str) -> list[tuple[float, int, str]]:
    return [(float(s), int(n.replace(",", "")), tool) for s, n, tool, _moved in FRAME.findall(drawn)]


def _long(ws: Path, *args: str) -> tuple[int, str, str]:
    """``lackpy run ARGS long.py`` with stderr on a pseudo-terminal, for ``RUN_S``: (exit code, stdout, what was drawn)."""
    timer = _stopped_after(ws)
    try:
        return on_terminal(_lackpy("run", *args, *ARGS, "long.py"), ws, timeout=120)
    finally:
        timer.cancel()


def test_a_long_run_draws_its_status_line_then_clears_it_before_the_result(ws):
    code, out, drawn = _long(ws)
    assert code == 0, drawn
    made = _calls(out)  # stdout holds the result only
    frames = _frames(drawn)
    assert len(frames) >= 4, drawn  # 1.0 s to 2.5 s, four a second
    assert frames[0][0] >= 1.0  # nothing before a second
    assert all(tool == "read_file" for _, _, tool in frames)
    seconds = [s for s, _, _ in frames]
    assert seconds == sorted(seconds) and seconds[-1] >= 1.5
    counts = [n for _, n, _ in frames]
    assert counts == sorted(counts) and 0 < counts[0] < counts[-1] <= made + 1
    moved = [said for *_, said in FRAME.findall(drawn)]  # each call read flag.txt's 3 bytes, and nothing was written
    assert moved == [f", {_size(3 * n)} read" for n in counts]
    assert drawn.endswith(CLEAR)  # the last thing on stderr wipes the line
    assert FRAME.sub("", drawn) == CLEAR  # and nothing else was said around it


def test_with_json_on_a_terminal_no_status_line_and_the_json_parses(ws):
    code, out, drawn = _long(ws, "--json")
    assert code == 0 and drawn == ""
    document = json.loads(out)
    assert document["output"] > 0 and len(document["trace"]) == document["output"] + 1


def test_quiet_or_lackpy_quiet_draws_nothing(ws, monkeypatch):
    code, out, drawn = _long(ws, "-q")
    assert code == 0 and _calls(out) > 0 and drawn == ""
    (ws / "flag.txt").write_text("go\n")
    monkeypatch.setenv("LACKPY_QUIET", "1")
    code, out, drawn = _long(ws)
    assert code == 0 and _calls(out) > 0 and drawn == ""


def test_stderr_on_a_pipe_gets_no_status_line(ws):
    timer = _stopped_after(ws)
    try:
        done = subprocess.run(_lackpy("run", *ARGS, "long.py"), cwd=ws, capture_output=True, text=True, env=_env(), timeout=120)
    finally:
        timer.cancel()
    assert done.returncode == 0 and _calls(done.stdout) > 0
    assert done.stderr == ""


def test_a_fast_run_draws_nothing(ws):
    code, out, drawn = on_terminal(_lackpy("run", "fast.py"), ws)
    assert (code, out, drawn) == (0, "6\n", "")


def test_on_a_dumb_terminal_the_line_is_wiped_with_spaces(ws, monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    code, out, drawn = _long(ws)
    assert code == 0 and _calls(out) > 0
    assert "\x1b" not in drawn and re.search(r"\r[|/\\-] \d+\.\d s, [\d,]+ tool calls?, the last read_file", drawn)
    assert re.search(r"\r +\r$", drawn)


def _answered_late(argv: list[str], cwd: Path, prompt: bytes, answer: bytes, late_s: float) -> tuple[int, str, str]:
    """Run ``argv`` on a pseudo-terminal; ``late_s`` after ``prompt`` appears, type ``answer``. (exit code, what was shown before
    the answer, what was shown after it)."""
    asked, at = [None], [-1]

    def step(shown: bytes, process: subprocess.Popen, terminal: int) -> None:
        if asked[0] is None and prompt in shown:
            asked[0] = time.monotonic()
        elif asked[0] is not None and at[0] < 0 and time.monotonic() - asked[0] >= late_s:
            at[0] = len(shown)
            os.write(terminal, answer)

    code, shown = driven(argv, cwd, step, wait_s=120, env=_env())
    return code, shown[:at[0]].decode(errors="replace"), shown[at[0]:].decode(errors="replace")


def test_the_line_steps_aside_for_a_question_and_stays_away_while_it_waits(ws):
    (ws / "write.py").write_text(LONG.replace("\nn\n", '\nwrite_file("out.txt", str(n))\nn\n'))
    timer = _stopped_after(ws)
    try:
        code, shown, after = _answered_late(_lackpy("run", "--kit", "filesystem", *ARGS, "write.py"), ws, b"approve? [y/N]", b"y\n", 1.5)
    finally:
        timer.cancel()
    assert code == 0, shown + after
    assert int((ws / "out.txt").read_text()) > 0
    before, question = shown.split("apply these changes?", 1)
    assert _frames(before), shown  # the line was up while the program ran
    assert before.endswith(CLEAR + "lackpy: "), before[-200:]  # and was wiped before the question
    assert not _frames(question) and "\r\x1b[K" not in question  # nothing drawn in the 1.5 s the person took to answer


def test_delegate_draws_the_status_line_of_the_program_it_runs(ws):
    saved = subprocess.run(_lackpy("template", "save", "long.py", "--name", "poll", "--pattern", "poll the flag", "--kit", "readonly"),
                           cwd=ws, capture_output=True, text=True, env=_env(), timeout=60)
    assert saved.returncode == 0, saved.stderr
    timer = _stopped_after(ws)
    try:
        code, out, drawn = on_terminal(_lackpy("delegate", "--kit", "readonly", *ARGS, "poll the flag"), ws, timeout=120)
    finally:
        timer.cancel()
    assert code == 0, drawn
    frames = _frames(drawn)
    assert len(frames) >= 3 and all(tool == "read_file" for _, _, tool in frames), drawn
    counts = [n for _, n, _ in frames]
    assert counts == sorted(counts) and 0 < counts[0] < counts[-1] <= _calls(out) + 1
    assert drawn.endswith(CLEAR) and FRAME.sub("", drawn) == CLEAR


def _interrupted(ws: Path, command: list[str]) -> tuple[int, str]:
    """``command`` with stderr on a pseudo-terminal, sent one SIGINT once its status line is up: (exit code, what was drawn)."""
    import signal

    signalled = []

    def step(shown: bytes, process: subprocess.Popen, terminal: int) -> None:
        if not signalled and len(FRAME.findall(shown.decode(errors="replace"))) >= 2:  # the line is up: stop the run
            process.send_signal(signal.SIGINT)
            signalled.append(True)

    try:
        code, drawn = driven(command, ws, step, env=_env(), whole=False)
    finally:
        (ws / "flag.txt").write_text("stop\n")
    assert signalled, drawn
    return code, drawn.decode(errors="replace")


def _stopped_cleanly(code: int, text: str) -> None:
    """Exit 130, the stop said on a clean line, the partial result after it, every message on a line of its own."""
    assert code == 130, text
    assert CLEAR + "lackpy: stopping the run (Ctrl-C again to quit at once)\r\n" in text
    after = text.split("stopping the run", 1)[1]
    assert "lackpy: partial result: the program did not finish;" in after
    said = [m.start() for m in re.finditer("lackpy: ", after)]
    assert said and all(after[:at].endswith(("\r\n", CLEAR)) for at in said), after  # what follows starts on a clean line too
    assert text.endswith("\r\n") and not text.rstrip("\r\n").endswith("\x1b[K")


def test_ctrl_c_says_it_is_stopping_on_a_clean_line(ws):
    _stopped_cleanly(*_interrupted(ws, _lackpy("run", *ARGS, "long.py")))


def test_ctrl_c_stops_delegate_as_it_stops_run(ws):
    """The program a delegate wrote (here a saved template's) stops at the first Ctrl-C, and shows what it had done."""
    saved = subprocess.run(_lackpy("template", "save", "long.py", "--name", "poll", "--pattern", "poll the flag", "--kit", "readonly"),
                           cwd=ws, capture_output=True, text=True, env=_env(), timeout=60)
    assert saved.returncode == 0, saved.stderr
    _stopped_cleanly(*_interrupted(ws, _lackpy("delegate", "--kit", "readonly", *ARGS, "poll the flag")))
