"""REPL and notebook transcripts: keep the code a model typed, drop what it pretends the interpreter printed.

Small models often answer as if at a Python prompt (``>>> x = 1``, ``...``
continuation lines, the value echoed after an expression) or in a notebook
(``In [1]:``, ``Out[1]:``, ``%time``, ``!ls``). Stripping the prompts alone
is not enough: an echoed ``2`` after ``>>> len(files)`` is itself a valid
expression and would become the program's result. So the lines after a
statement that echoes (an expression, or a print) are dropped up to the next
prompt, and a statement that echoes nothing (an assignment) is followed by
code the model forgot to prompt, which is kept.

Magics that only set up a notebook (``%matplotlib``, ``!pip install``) are
dropped and timing magics (``%time x``) give back their statement. A shell
line (``!ls``), an assignment from one (``files = !ls``) or a magic that does
work (``%cd``, ``%run``) has no counterpart in a program: it is not guessed
at, but reported as ``leftover`` so that the answer is refused as
``jupyter_confusion`` with the hint that fixes it.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from dataclasses import dataclass

#: ">>> code" and its continuation "... code" (the space after the mark is the prompt's own).
REPL_PROMPT = re.compile(r"^[ \t]*>>>(?: |$)")
REPL_MORE = re.compile(r"^[ \t]*\.\.\.(?: |$)")
#: IPython's "In [3]: code", "   ...: code" and "Out[3]: value".
NOTEBOOK_PROMPT = re.compile(r"^[ \t]*In ?\[\d*\]: ?")
NOTEBOOK_MORE = re.compile(r"^[ \t]*\.\.\.: ?")
NOTEBOOK_OUT = re.compile(r"^[ \t]*Out ?\[\d*\]:")
#: A fence line: the text is judged one stretch between fences at a time.
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")

#: "%name rest" and "%%name rest"; "!command"; "x = !command" / "x = %magic".
MAGIC = re.compile(r"^([ \t]*)(%%?)([A-Za-z_]\w*)\b[ \t]*(.*)$")
SHELL = re.compile(r"^[ \t]*!(?!=)\S")
ASSIGNED_SHELL = re.compile(r"^[ \t]*[A-Za-z_]\w*[ \t]*=[ \t]*(?:!(?!=)\S|%%?[A-Za-z_])")

#: Magics that time or profile their statement: the statement is the code.
STATEMENT_MAGICS = frozenset({"time", "timeit", "prun"})
#: Cell magics that wrap ordinary Python: the line goes, the cell stays.
CELL_MAGICS = frozenset({"time", "timeit", "prun", "capture"})
#: Magics and shell commands that only set up the notebook; the program needs none of them.
SETUP_MAGICS = frozenset({"matplotlib", "load_ext", "reload_ext", "autoreload", "config", "pip", "conda", "precision", "pylab"})
SETUP_COMMANDS = frozenset({"pip", "pip3", "conda", "mamba"})

#: Calls whose output a transcript shows after the statement.
PRINTING = frozenset({"print", "display", "pprint"})


@dataclass(frozen=True)
class Untranscribed:
    """The text with prompts, echoed outputs and setup magics removed.

    ``changed`` says whether anything was; ``leftover`` is the first line
    (stripped) that no program can hold, such as ``!ls src``, or None.
    """

    text: str
    changed: bool
    leftover: str | None = None


def untranscribe(text: str) -> Untranscribed:
    """Recover the code of a REPL or notebook transcript; any other text comes back unchanged.

    The text is judged a stretch at a time between fence lines, and a
    stretch that already is a program is left alone: ``>>>`` inside one of
    its strings is content, not a prompt.
    """
    out: list[str] = []
    leftover = None
    stretch: list[str] = []
    for line in [*text.split("\n"), None]:
        if line is not None and not FENCE.match(line):
            stretch.append(line)
            continue
        lines, left = _untranscribed(stretch)
        out += lines
        leftover = leftover or left
        stretch = []
        if line is not None:
            out.append(line)
    result = "\n".join(out)
    return Untranscribed(result, result != text, leftover)


def _untranscribed(lines: list[str]) -> tuple[list[str], str | None]:
    """One stretch without its prompts, echoed outputs and magics, and its first unrecoverable line."""
    tree = _parsed(textwrap.dedent("\n".join(lines)))
    if tree is not None and not _has_cells(tree):
        return lines, None
    repl = any(REPL_PROMPT.match(line) for line in lines)
    notebook = any(NOTEBOOK_PROMPT.match(line) for line in lines)
    if repl or notebook:
        lines = _prompted(lines, repl, notebook)
    magic_free = _without_magics(lines, _parses("\n".join(lines)))
    return magic_free if magic_free is not None else (lines, None)


def _has_cells(tree: ast.Module) -> bool:
    """``In [1]: x = 1`` parses, as an annotated assignment to ``In[1]``: a notebook cell, not a program."""
    return any(
        isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Subscript)
        and isinstance(node.target.value, ast.Name)
        and node.target.value.id in ("In", "Out")
        for node in tree.body
    )


def leftover_line(text: str) -> str | None:
    """The first line of ``text`` a transcript left behind (a prompt, an Out cell, a shell line), or None."""
    for line in text.split("\n"):
        if REPL_PROMPT.match(line) or NOTEBOOK_PROMPT.match(line) or NOTEBOOK_OUT.match(line):
            return line.strip()
        if SHELL.match(line) or ASSIGNED_SHELL.match(line) or MAGIC.match(line):
            return line.strip()
    return None


def _prompted(lines: list[str], repl: bool, notebook: bool) -> list[str]:
    """The statements typed at the prompts, with the outputs that follow echoing statements dropped."""
    out: list[str] = []
    statement: list[str] = []  # the current prompt's statement, to decide whether it echoed
    state = "code"  # "code": keep lines; "statement": after a prompt; "output": dropping echoed lines
    for line in lines:
        prompt = (REPL_PROMPT.match(line) if repl else None) or (NOTEBOOK_PROMPT.match(line) if notebook else None)
        more = (REPL_MORE.match(line) if repl else None) or (NOTEBOOK_MORE.match(line) if notebook else None)
        if prompt:
            code = line[prompt.end():]
            out.append(code)
            statement, state = [code], "statement"
        elif more and state == "statement":
            code = line[more.end():]
            out.append(code)
            statement.append(code)
        elif notebook and NOTEBOOK_OUT.match(line):
            state = "output"
        elif state == "output":
            if not line.strip():
                out.append("")  # blank lines between cells stay; output lines around them do not
            continue
        elif state == "statement" and line.strip() and _echoes(statement):
            state = "output"
        else:
            out.append(line)
            if state == "statement" and line.strip():
                state = "code"  # the model went on without prompts: this is code
    return out


def _echoes(statement: list[str]) -> bool:
    """Whether a REPL shows output after this statement: an expression's value, or what it printed."""
    tree = _parsed(textwrap.dedent("\n".join(statement)))
    if tree is None or not tree.body:
        return False
    if isinstance(tree.body[-1], ast.Expr):
        return True
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in PRINTING for n in ast.walk(tree))


def _without_magics(lines: list[str], parses: bool) -> tuple[list[str], str | None] | None:
    """Lines with setup magics dropped and timing magics unwrapped, and the first line that cannot be.

    A text that parses has no magics (``%`` and ``!`` cannot start a Python
    statement), so it is left alone; None means nothing was found.
    """
    if parses:
        return None
    out: list[str] = []
    leftover = None
    found = False
    for line in lines:
        kept, ok = _magic_line(line)
        if kept is None and ok:
            out.append(line)
            continue
        found = True
        if not ok:
            leftover = leftover or line.strip()
            continue
        if kept:
            out.append(kept)
    return (out, leftover) if found else None


def _magic_line(line: str) -> tuple[str | None, bool]:
    """``(None, True)``: not a magic; ``(text, True)``: what replaces it ("" drops it); ``(None, False)``: unrecoverable."""
    if ASSIGNED_SHELL.match(line):
        return None, False
    if SHELL.match(line):
        command = line.strip()[1:].split()
        return ("", True) if command and command[0] in SETUP_COMMANDS else (None, False)
    magic = MAGIC.match(line)
    if not magic:
        return None, True
    indent, marks, name, rest = magic.groups()
    if marks == "%%":
        return ("", True) if name in CELL_MAGICS and not rest.strip() else (None, False)
    if name in SETUP_MAGICS:
        return "", True
    if name in STATEMENT_MAGICS and rest.strip() and not rest.startswith("-"):
        return indent + rest, True
    return None, False


def _parsed(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _parses(text: str) -> bool:
    return _parsed(text) is not None


__all__ = ["Untranscribed", "leftover_line", "untranscribe"]
