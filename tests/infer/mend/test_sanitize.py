"""sanitize: a model's answer becomes the bare program, whatever it was wrapped in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from lackpy.infer.mend.sanitize import Extracted, extract, sanitize

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


def test_prose_between_code_lines_keeps_both_sides():
    """A sentence inside the code goes; the statements before and after it both stay."""
    answer = 'files = find_files("*.py")\nThen we count how many there are.\nlen(files)'
    assert sanitize(answer) == 'files = find_files("*.py")\nlen(files)'
    indented = 'for f in find_files("*.py"):\n    This adds one per file.\n    n += 1\nn'
    assert sanitize(indented) == 'for f in find_files("*.py"):\n    n += 1\nn'


def test_output_labels_and_echoed_signatures_are_prose():
    """'Output: 3' (a bare annotation to Python) and a tool signature echoed from the prompt are not code."""
    assert sanitize(f"{PROGRAM}\nOutput: 3") == PROGRAM
    assert sanitize(f"find_files(pattern: str) -> list[str]\n{PROGRAM}") == PROGRAM
    kept = 'notes = """\nStatus: draft\n"""\nnotes'  # the same text inside a string is content
    assert sanitize(kept) == kept


def test_later_fenced_blocks_join_when_they_use_earlier_variables():
    """A program told in steps is one program; an output block or an unrelated example is not part of it."""
    steps = '```python\nfiles = find_files("*.py")\n```\nThen:\n```python\nlen(files)\n```'
    assert extract(steps) == Extracted('files = find_files("*.py")\nlen(files)', ("strip_markup", "join_blocks"))
    output = '```python\nn = len(find_files("*.py"))\nn\n```\n```\n3\n```\n```python\nread_file("a")\n```'
    assert sanitize(output) == 'n = len(find_files("*.py"))\nn'


@pytest.mark.parametrize(
    ("answer", "program"),
    [
        (">>> x = 1\n>>> x + 1\n2", "x = 1\nx + 1"),
        (">>> print(len(find_files('*.py')))\n3\n>>> 'done'\n'done'", "print(len(find_files('*.py')))\n'done'"),
        (">>> x = 1\ny = x + 1\ny", "x = 1\ny = x + 1\ny"),  # an assignment echoes nothing: the next line is code
        ("In [1]: x = 1\n\nIn [2]: x\nOut[2]: 1\n\nIn [3]: x + 1\nOut[3]:\n2", "x = 1\n\nx\n\nx + 1"),
        ("%%time\nx = 1\nx", "x = 1\nx"),
        ("%timeit x = len(find_files('*'))\nx", "x = len(find_files('*'))\nx"),
        ("%load_ext autoreload\n%autoreload 2\n!pip install lackpy\nx = 1\nx", "x = 1\nx"),
        ("```python\n>>> x = 1\n>>> x\n1\n```\nThe answer is 1.", "x = 1\nx"),
    ],
)
def test_transcripts_keep_the_code_and_drop_the_echoed_outputs(answer, program):
    """Prompts go, outputs after a statement that echoes go, setup magics go; nothing that was code is lost."""
    found = extract(answer)
    assert found.program == program
    assert "strip_transcript" in found.removed and found.leftover is None


@pytest.mark.parametrize(
    ("answer", "leftover"),
    [("!ls src\nx = 1", "!ls src"), ("files = !ls\nlen(files)", "files = !ls"), ("%cd src\nx = 1", "%cd src"), ("%%bash\nls", "%%bash")],
)
def test_shell_lines_and_working_magics_are_reported_not_guessed(answer, leftover):
    """A line with no program counterpart is dropped from the program and reported, so the answer is refused."""
    assert extract(answer).leftover == leftover


def test_prompt_marks_inside_a_program_are_content():
    """A fenced program writing a doctest keeps its '>>>' and '...' lines, even with prose around the fence."""
    program = 'write_file("doc.md", """\n>>> x = 1\n... y\n>>> x\n1\n""")'
    assert sanitize(f"Here it is:\n```python\n{program}\n```\nDone.") == program
    assert sanitize(program) == program


def test_a_program_that_parses_is_never_read_as_magics():
    """'%' and '!' cannot start a Python statement; a valid program is left alone whatever it holds."""
    program = "x = (10\n%3)\ny = '!ls'\nx"
    assert extract(program) == Extracted(program)


@pytest.mark.parametrize(
    "answer",
    [
        'files = find_files("*.py")\nlen(fi',
        'x = read_file("README.md',
        "```python\nfor f in find_files('*.py'):",
        "files = find_files('*.py')\nlen(files)\nThis counts the Python files in the",
        "To count the files we first need to",
        "Sure",
        "Here is",
    ],
)
def test_cut_off_answers_are_truncated(answer):
    """An answer that stops mid-line, mid-expression or mid-sentence is flagged, whatever is left of it."""
    assert extract(answer).truncated


@pytest.mark.parametrize(
    "answer",
    [
        PROGRAM,
        f"```python\n{PROGRAM}",  # only the closing fence is missing: the program is whole
        f"```python\n{PROGRAM}\n```\nThis counts the Python files in",  # a closed fence delimits a finished program
        f"{PROGRAM}\nThis counts the Python files.",
        f"{PROGRAM}\nOutput:",
        "x = (1,\n2)\nx",
        "I cannot write that program.",
        "",
    ],
)
def test_complete_answers_are_not_truncated(answer):
    assert not extract(answer).truncated


def test_a_312_fstring_is_requoted_before_prose_is_looked_for():
    """f"{h["path"]}" does not parse before Python 3.12 and even looks like prose; its inner quotes are swapped."""
    answer = 'hits = grep("TODO")\n[f"{h["path"]}: {h["text"]}" for h in hits]'
    found = extract(answer)
    assert found.program == 'hits = grep("TODO")\n[f"{h[\'path\']}: {h[\'text\']}" for h in hits]'
    assert "fstring_quotes" in found.removed or found.program == answer


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
        "In [1]: ", "Out[1]: ", "   ...: ", "%time ", "%%time", "!ls", "!pip install x", "%matplotlib inline", "Output: 3",
        'f"{d["k"]}"', "Then we count the",
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
    assert isinstance(extract(answer).truncated, bool)


def test_alternating_prose_and_broken_code_stays_cheap():
    """Thousands of prose lines between broken code lines are not tried pair by pair; the longest code stretch is kept."""
    import time

    answer = "This is prose.\nx = (\n" * 2000 + "Finally the program:\nn = len(find_files('*.py'))\nn\nThat is all.\n"
    started = time.perf_counter()
    assert sanitize(answer) == "n = len(find_files('*.py'))\nn"
    assert time.perf_counter() - started < 10
