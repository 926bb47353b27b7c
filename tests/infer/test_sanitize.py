"""sanitize: a model's answer becomes the bare program, whatever it was wrapped in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from lackpy.infer.sanitize import sanitize

PROGRAM = 'files = find_files("**/*.py")\nlen(files)'


@pytest.mark.parametrize(
    "answer",
    [
        PROGRAM,
        f"```python\n{PROGRAM}\n```",
        f"```py\n{PROGRAM}\n```",
        f"```\n{PROGRAM}\n```",
        f"~~~python\n{PROGRAM}\n~~~",
        f"``` python\n{PROGRAM}\n```",
        f"Here is the program:\n\n```python\n{PROGRAM}\n```\n\nThis program counts the Python files.",
        f"Here is the program:\n\n{PROGRAM}\n\nThis program counts the Python files.",
        f"Sure!\n{PROGRAM}\nDone.",
        f"python\n{PROGRAM}",
        f"```python\npython\n{PROGRAM}\n```",
        f"<code>{PROGRAM}</code>",
        f"<CODE>\n{PROGRAM}\n</CODE>",
        '>>> files = find_files("**/*.py")\n>>> len(files)',
        'files = find_files("**/*.py")\n-> len(files)',
        'files = find_files("**/*.py")\n=> len(files)',
        PROGRAM.replace("\n", "\r\n") + "\r\n",
        "\ufeff" + PROGRAM,
        'files = find_files("**/*.py")   \nlen(files)\t\n\n\n',
        "    " + PROGRAM.replace("\n", "\n    "),
        f"```python\n{PROGRAM}",  # an answer cut short before the closing fence
        f"Explanation:\n{PROGRAM}\nOutput:",
    ],
)
def test_wrappers_are_removed(answer):
    """Fences, prose, language tags, prompt marks, tags, CR LF, BOM and indentation all go; the program stays."""
    assert sanitize(answer) == PROGRAM


def test_repl_continuation_lines_keep_their_indentation():
    """'... ' continuation marks go, the block's own indentation stays."""
    answer = ">>> total = 0\n>>> for f in find_files('*.py'):\n...     total += 1\n...\n>>> total"
    assert sanitize(answer) == "total = 0\nfor f in find_files('*.py'):\n    total += 1\n\ntotal"


def test_first_fenced_block_that_parses_wins():
    """Of several blocks, the first that parses is kept, even when a later one is longer."""
    answer = "```\nthe output is shown below\n```\n```python\nx = 1\n```\n```python\ny = 2\nz = 3\nw = 4\n```"
    assert sanitize(answer) == "x = 1"


def test_longest_fenced_block_when_none_parses():
    """When no block parses, the longest is kept, so the validator reports its syntax error."""
    answer = "```python\nx = (1\n```\n```python\ny = (1 + 2\n```"
    assert sanitize(answer) == "y = (1 + 2"


def test_broken_program_is_not_cut_in_half():
    """A syntax error inside code without prose keeps the whole program, never a runnable prefix."""
    broken = 'files = find_files("*.py")\ncounts = {f: len(read_file(f).splitlines() for f in files}\ncounts'
    assert sanitize(broken) == broken
    assert sanitize(f"Here is the program:\n{broken}\nThis counts lines.") == broken


def test_code_lines_are_not_mistaken_for_prose():
    """Keywords between names, strings with spaces, comments and f-string pairs are code."""
    program = (
        "for f in find_files('*.md'):\n"
        "    if f not in seen and f is not None:\n"
        "        print(f'{f} is here', f'ok' f'!')  # the file name\n"
        "    else:\n"
        "        pass\n"
        "x = 1 if y else z"
    )
    assert sanitize(program) == program


def test_multiline_string_content_is_kept():
    """Prose inside a triple-quoted string of a program that parses is content."""
    program = 'write_file("notes.md", """\nSome notes here.\nThis is fine.\n""")'
    assert sanitize(program) == program


@pytest.mark.parametrize("answer", ["", "   \n\t\n", "```\n```", "I cannot write that program.", "\ufeff\r\n"])
def test_no_program_gives_empty_text(answer):
    """Empty input, blank input, an empty fence and plain prose give ''."""
    assert sanitize(answer) == ""


def test_non_text_gives_empty_text():
    """Anything but a str gives '' instead of raising."""
    assert sanitize(None) == ""  # type: ignore[arg-type]
    assert sanitize(b"x = 1") == ""  # type: ignore[arg-type]


_FRAGMENTS = st.sampled_from(
    [
        "```", "```python", "~~~", "python", ">>> ", "... ", "-> ", "=> ", "<code>", "</code>", "\r\n", "\n", "\r",
        "\ufeff", "    ", "\t", "x = 1", "for i in range(3):", "Here is the program:", "This counts lines.", "Done.",
        "(", ")", "'", '"', "#", ":", "print(x)", 'f"a"', "<co", "de>", "\x00",
    ]
)
_ANSWERS = st.one_of(st.text(), st.lists(st.one_of(_FRAGMENTS, st.text(max_size=4)), max_size=30).map("".join))


@settings(max_examples=400, deadline=None)
@given(_ANSWERS)
def test_sanitize_never_raises_and_is_idempotent(answer):
    """For any text, sanitize returns text that sanitize leaves unchanged."""
    once = sanitize(answer)
    assert isinstance(once, str)
    assert sanitize(once) == once


def test_alternating_prose_and_broken_code_stays_cheap():
    """Thousands of prose lines between broken code lines are not tried pair by pair; the longest code stretch is kept."""
    import time

    answer = "This is prose.\nx = (\n" * 2000 + "Finally the program:\nn = len(find_files('*.py'))\nn\nThat is all.\n"
    started = time.perf_counter()
    assert sanitize(answer) == "n = len(find_files('*.py'))\nn"
    assert time.perf_counter() - started < 10
