"""grep matches in linear time: catastrophic patterns return at once, unsupported ones are refused clearly."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

import lackpy.kit.call
from lackpy import LackpyService
from lackpy.errors import LimitExceeded, ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools.builtin import grep

CATASTROPHIC = 'grep("(a+)+$", glob="big.txt")'


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace)


def run(workspace: Path, program: str, mode: str):
    async def main():
        async with LackpyService(workspace) as service:
            return await service.run_program(program, "readonly", mode=mode, limits={"timeout_s": 5})

    return asyncio.run(main())


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize("run_of_a", [41, 100_000])
def test_catastrophic_pattern_returns_at_once(workspace, mode, run_of_a):
    """(a+)+$ over a long run of 'a' then '!' (exponential for a backtracking engine) finds nothing, quickly."""
    (workspace / "big.txt").write_text("a" * run_of_a + "!\n")
    started = time.monotonic()
    result = run(workspace, CATASTROPHIC, mode)
    elapsed = time.monotonic() - started
    assert result.success, result.error
    assert result.output == []
    assert elapsed < 1.0


def test_catastrophic_grep_beside_other_runs(workspace):
    """One service, one loop: the catastrophic grep and 20 trivial runs all finish, within a few seconds."""
    (workspace / "big.txt").write_text("a" * 41 + "!\n")

    async def main():
        async with LackpyService(workspace) as service:
            started = time.monotonic()
            results = await asyncio.gather(
                service.run_program(CATASTROPHIC, "readonly", mode="isolated", limits={"timeout_s": 5}),
                *[service.run_program("1 + 1", "readonly", mode="isolated") for _ in range(20)],
            )
            return results, time.monotonic() - started

    results, elapsed = asyncio.run(main())
    assert results[0].success and results[0].output == []
    assert [(r.success, r.output) for r in results[1:]] == [(True, 2)] * 20
    assert elapsed < 3.0


WHY = "which lackpy's linear-time regex engine does not support; match without it, or filter the lines in the program"


@pytest.mark.parametrize(
    "pattern, construct",
    [
        (r"(TODO)\1", r"a backreference (\1)"),
        (r"TODO(?=:)", "a lookahead (?=...)"),
        (r"(?<=# )TODO", "a lookbehind (?<=...)"),
        (r"TODO(?!x)", "a negative lookahead (?!...)"),
        (r"(?<!x)TODO", "a negative lookbehind (?<!...)"),
        (r"(?>TODO)", "an atomic group (?>...)"),
        (r"TO*+DO", "a possessive quantifier (*+)"),
        (r"(?P<w>T)(?P=w)", "a named backreference (?P=...)"),
    ],
)
def test_unsupported_constructs_are_named(ctx, capfd, pattern, construct):
    """A construct that needs backtracking is refused with one line naming it; RE2 logs nothing."""
    with pytest.raises(ToolError) as info:
        grep(ctx, pattern)
    assert str(info.value) == f"grep: the pattern uses {construct}, {WHY}"
    assert capfd.readouterr() == ("", "")


def test_other_unrunnable_patterns_quote_the_engine(ctx, capfd):
    """A valid Python pattern RE2 cannot run for another reason is refused with RE2's own reason."""
    with pytest.raises(ToolError) as info:
        grep(ctx, "a{2000}")
    assert str(info.value) == (
        "grep: lackpy's linear-time regex engine cannot run 'a{2000}' (invalid repetition size: {2000}); "
        "rewrite the pattern, or filter the lines in the program"
    )
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize(
    "pattern, message",
    [
        ("(", "grep: invalid regular expression '(': missing ), unterminated subpattern at position 0"),
        ("**", "grep: invalid regular expression '**': nothing to repeat at position 0"),
        (r"\q", "grep: invalid regular expression '\\\\q': bad escape \\q at position 0"),
    ],
)
def test_invalid_pattern(ctx, capfd, pattern, message):
    with pytest.raises(ToolError) as info:
        grep(ctx, pattern)
    assert str(info.value) == message
    assert capfd.readouterr() == ("", "")


def test_ignore_case(ctx, workspace):
    (workspace / "notes.txt").write_text("Todo: a\ntodo: b\nnothing\n")
    assert [h["line"] for h in grep(ctx, "TODO", glob="notes.txt")] == []
    assert [h["line"] for h in grep(ctx, "TODO", glob="notes.txt", ignore_case=True)] == [1, 2]
    assert [h["line"] for h in grep(ctx, "(?i)TODO", glob="notes.txt")] == [1, 2]


def test_word_boundaries_digits_groups(ctx, workspace):
    (workspace / "words.txt").write_text("TODO here\nTODOs there\nnot_TODO\nFIXME 42\n")
    assert [h["line"] for h in grep(ctx, r"\bTODO\b", glob="words.txt")] == [1]
    assert [h["line"] for h in grep(ctx, r"\b(TODO|FIXME)\b", glob="words.txt")] == [1, 4]
    assert [h["line"] for h in grep(ctx, r"\d+$", glob="words.txt")] == [4]
    assert [h["line"] for h in grep(ctx, r"(?P<word>TODO)s", glob="words.txt")] == [2]


def test_anchors_hold_per_line(ctx, workspace):
    """^, $, \\A and \\Z anchor at each line, whatever the line endings, as if each line were searched alone."""
    (workspace / "anchors.txt").write_bytes(b"end\nx end\r\nend y\n\nend\rlast end")
    assert [h["line"] for h in grep(ctx, "^end", glob="anchors.txt")] == [1, 3, 5]
    assert [h["line"] for h in grep(ctx, "end$", glob="anchors.txt")] == [1, 2, 5, 6]
    assert [h["line"] for h in grep(ctx, r"\Aend\Z", glob="anchors.txt")] == [1, 5]
    assert [h["line"] for h in grep(ctx, "^$", glob="anchors.txt")] == [4]
    assert grep(ctx, r"x end\s+end", glob="anchors.txt") == []  # a match never runs across lines


def test_blank_lines_and_empty_matches(ctx, workspace):
    """Empty lines count as lines, a trailing newline adds none, and an empty match hits its line."""
    (workspace / "blank.txt").write_bytes(b"a\n\nb\n\n")
    (workspace / "empty.txt").write_bytes(b"")
    assert [h["line"] for h in grep(ctx, "^$", glob="*.txt")] == [2, 4]
    assert [(h["line"], h["text"]) for h in grep(ctx, "x*", glob="*.txt")] == [(1, "a"), (2, ""), (3, "b"), (4, "")]


TEXTS = [
    b"alpha beta\n\ngamma  \n\tdelta = 1\nbeta-alpha\n",
    b"win\r\nend\r\n\fpage\x0bvt\rcr\x1dgs end\n",
    "caf\u00e9 beta\n\u00e9t\u00e9\u2028line sep\x85nel\n".encode() + b"bad \xff byte\n",
]


@pytest.mark.parametrize("pattern", [r"beta", r"^\s*$", r"\bend$", r"a.b|=\s\d", r"^[a-z]+$", r"(?i)^(ALPHA|CAF.)", r"\S+\s+\S+", "^.{3}$"])
def test_same_lines_as_searching_each_line(ctx, workspace, pattern):
    """grep hits exactly the lines a per-line search with Python's re hits, whatever the line endings."""
    for number, data in enumerate(TEXTS):
        (workspace / f"t{number}.txt").write_bytes(data)
    regex = re.compile(pattern)
    expected = [
        (f"t{number}.txt", line_number, line)
        for number, data in enumerate(TEXTS)
        for line_number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1)
        if regex.search(line)
    ]
    assert [(h["path"], h["line"], h["text"]) for h in grep(ctx, pattern, glob="t*.txt")] == expected


def test_lines_text_and_cut(ctx, workspace):
    """Hits carry the line as str.splitlines splits it, cut at 500 characters; undecodable bytes are replaced."""
    (workspace / "long.txt").write_bytes(b"caf\xe9 \xc3\xa9t\xc3\xa9\n" + b"x" * 600 + b" mark\n")
    assert grep(ctx, "\u00e9t\u00e9", glob="long.txt") == [{"path": "long.txt", "line": 1, "text": "caf\ufffd \u00e9t\u00e9"}]
    assert grep(ctx, r"\u00e9t\u00e9", glob="long.txt")[0]["line"] == 1  # \uXXXX escapes are understood
    [hit] = grep(ctx, "mark$", glob="long.txt")
    assert hit["line"] == 2 and hit["text"] == "x" * 500


def test_stops_at_the_run_deadline(ctx):
    """With the run's deadline passed, grep stops before the next file."""
    token = lackpy.kit.call.DEADLINE.set(time.monotonic() - 1)
    try:
        with pytest.raises(LimitExceeded) as info:
            grep(ctx, "TODO")
    finally:
        lackpy.kit.call.DEADLINE.reset(token)
    assert info.value.limit == "timeout"
    assert str(info.value) == "grep ran past the run's deadline"


def test_deadline_checked_between_files(ctx, monkeypatch):
    """The remaining time is read before each file; the limit's value is the time grep was given."""
    left = iter([2.0, 1.5, 0.0])
    monkeypatch.setattr(lackpy.kit.call, "remaining", lambda default=3600.0: next(left))
    with pytest.raises(LimitExceeded) as info:
        grep(ctx, "TODO", glob="**/*.py")
    assert info.value.value == 2.0
