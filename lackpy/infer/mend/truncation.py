"""Was the answer cut off? A model that hits its token limit stops mid-line, mid-expression or mid-sentence.

Such an answer must not be validated as it is: its last line may be a
fragment that happens to parse (``The``), and its syntax error is an
accident of the cut, not a mistake to explain. The signals are all at the
end of the text:

- the program does not parse, but would if text were appended: an unclosed
  bracket or string, a dangling operator, a block header without a body
  (or cut inside its brackets, before its colon).
  Appending cannot fix an error in the middle of a program, so a typo there
  is not mistaken for a cut.
- the answer ends in a sentence without its final punctuation.
- the whole answer is a word or two with no code in it (``Here is``).
"""

from __future__ import annotations

import ast
import re
import warnings

#: What may be missing at the end of a cut program, tried in turn after closing its strings and brackets.
FILLERS = ("", " 0", "x", " x", ":", " 0:", ": 0")
#: A block header cut inside its brackets (``if "x" in read_file(f``) lacks its colon after the closers.
HEADER_END = ":"
#: Characters that end a finished sentence or label; a line ending otherwise was cut.
SENTENCE_END = re.compile(r"""[.!?:;)\]}"'`…*>]\s*$""")
#: A capitalized word, or two or three plain words, with no code punctuation: an answer stopped before it began.
#: (One lowercase word may be a program: the name of a parameter.)
FEW_WORDS = re.compile(r"^\s*(?:[A-Z][A-Za-z']*|[A-Za-z][A-Za-z']*(?:[ \t]+[A-Za-z][A-Za-z']*){1,2})\s*$")
CONSTANTS = frozenset({"True", "False", "None"})
#: Longest program the completion test tries: a few parses of it must stay cheap.
MAX_CHARS = 20_000

_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def completable(program: str) -> bool:
    """True when ``program`` does not parse but a short ending (closers, a value, a block) makes it parse."""
    if not program.strip() or len(program) > MAX_CHARS or _parses(program):
        return False
    quote, closers = _open_at_end(program)
    last = program.rstrip("\n").rsplit("\n", 1)[-1]
    indent = " " * (len(last) - len(last.lstrip()) + 4)
    endings = [quote + filler + closers for filler in FILLERS] + [quote + closers + HEADER_END]
    for ending in endings:
        for block in ("", f"\n{indent}pass"):
            if _parses(program + ending + block):
                return True
    return False


def unfinished_sentence(line: str) -> bool:
    """A line of prose that stops without the punctuation a finished sentence or label ends with."""
    text = line.strip()
    return bool(text) and not SENTENCE_END.search(text)


def few_words(answer: str) -> bool:
    """The whole answer is a capitalized word or two or three plain words: the model stopped before writing anything."""
    return bool(FEW_WORDS.match(answer)) and answer.strip() not in CONSTANTS


def _open_at_end(text: str) -> tuple[str, str]:
    """The string delimiter and the brackets still open at the end, as the text that closes them.

    A small scanner, not the tokenizer: the tokenizer stops at the first
    error, and a cut text has one by definition. Comments and string
    contents are skipped; f-string braces count as string content.
    """
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if char in "'\"":
            delim = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else char
            end = _string_end(text, i + len(delim), delim)
            if end < 0:
                return delim, "".join(_BRACKETS[b] for b in reversed(stack))
            i = end
            continue
        if char in _BRACKETS:
            stack.append(char)
        elif char in ")]}" and stack and _BRACKETS[stack[-1]] == char:
            stack.pop()
        i += 1
    return "", "".join(_BRACKETS[b] for b in reversed(stack))


def _string_end(text: str, start: int, delim: str) -> int:
    """Index just past the string's closing delimiter, or -1 when the text ends inside the string."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if len(delim) == 1 and text[i] == "\n":
            return -1 if i == len(text) - 1 else i  # an unterminated one-line string: cut only at the very end
        if text.startswith(delim, i):
            return i + len(delim)
        i += 1
    return -1


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


__all__ = ["completable", "few_words", "unfinished_sentence"]
