"""Strip what a model wraps around a program: fences, prose, prompt marks, tags.

Models answer in chat style: a sentence, a fenced block, an explanation. The
validator should see only the program, so ``sanitize`` keeps the code and
drops the rest. It never raises, and it is idempotent by construction: one
pass only ever removes text, and passes repeat until nothing changes.
"""

from __future__ import annotations

import ast
import keyword
import re
import textwrap
import warnings

#: A markdown fence line, with or without a language tag: ```python, ~~~, ``` py.
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})\s*[\w+.#-]*\s*$")

#: Text removed wherever it appears.
NOISE = re.compile(r"</?code>", re.IGNORECASE)

#: Prompt marks a model echoes at a line's start: ">>> x = 1", "... y", "-> result", "=> result".
PROMPT = re.compile(r"^(?:(?:>>>|\.\.\.)(?: |$)|[-=]>[ \t]*)+")

#: A first line that only names the language, left over from a fence.
LANGUAGE_TAGS = frozenset({"python", "python3", "py", "py3"})
_SKIPPED_FIRST = LANGUAGE_TAGS | {""}

# Prose patterns, matched on a line whose string literals and comment are removed:
# two identifiers side by side ("the program"; never valid outside strings),
# a label line ("Explanation:"), a plain sentence ("Done.", "Sure!").
_WORD_PAIR = re.compile(r"\b([A-Za-z_]\w*)[ \t]+(?=([A-Za-z_]\w*)\b)")
_LABEL = re.compile(r"^\s*([A-Za-z]\w*)[\w \t]*:\s*$")
_SENTENCE = re.compile(r"^\s*[A-Za-z][\w \t,'’]*[.!?]\s*$")
_STRINGS = re.compile(r"(?:\b[rRbBfFuU]{1,2})?(?:'[^'\n]*'|\"[^\"\n]*\")")
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)

#: Cut points tried at each end: the longest runs start early and end late, and
#: an answer alternating prose and broken code must not cost a parse per pair.
MAX_CUTS = 20


def sanitize(text: str) -> str:
    """The bare program in a model's answer; ``""`` when there is none."""
    if not isinstance(text, str):
        return ""
    with warnings.catch_warnings():  # the parser warns about odd literals in text that is not ours
        warnings.simplefilter("ignore")
        while True:
            cleaned = _one_pass(text)
            if cleaned == text:
                return cleaned
            text = cleaned


def _one_pass(text: str) -> str:
    """Each step only removes text (or turns CR LF into LF), so repeating it converges."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(PROMPT.sub("", line).rstrip() for line in NOISE.sub("", text).split("\n"))
    lines = _unfence(text).split("\n")
    while lines and lines[0].strip().lower() in _SKIPPED_FIRST:
        lines.pop(0)
    return _without_prose(lines).strip("\n")


def _unfence(text: str) -> str:
    """The first fenced block that parses, else the longest; the text itself when nothing is fenced.

    An unclosed fence runs to the end (an answer cut short); fence lines
    around no code are simply dropped.
    """
    lines = text.split("\n")
    marks = [i for i, line in enumerate(lines) if FENCE.match(line)]
    if not marks:
        return text
    bounds = zip(marks[::2], marks[1::2] + [len(lines)])
    blocks = ["\n".join(lines[start + 1:end]) for start, end in bounds]
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return "\n".join(line for i, line in enumerate(lines) if i not in marks)
    for block in blocks:
        if _parses(textwrap.dedent(block)):
            return block
    return max(blocks, key=len)


def _without_prose(lines: list[str]) -> str:
    """The longest run of lines that parses, cut only next to prose lines.

    Cutting only at prose keeps a broken program whole, so the model hears
    about its syntax error instead of running half a program. When nothing
    parses, the longest stretch between prose lines is kept.
    """
    text = textwrap.dedent("\n".join(lines))
    if _parses(text):
        return text
    prose = [i for i, line in enumerate(lines) if _is_prose(line)]
    cuts = set(prose)
    starts = [0] + [i + 1 for i in prose if i + 1 < len(lines) and i + 1 not in cuts]
    ends = [i for i in prose if i > 0 and i - 1 not in cuts] + [len(lines)]
    runs = sorted(((s, e) for s in starts[:MAX_CUTS] for e in ends[-MAX_CUTS:] if s < e), key=lambda r: (r[0] - r[1], r[0]))
    for start, end in runs:
        candidate = textwrap.dedent("\n".join(lines[start:end]))
        if candidate.strip() and _parses(candidate):
            return candidate
    bounds = [-1] + prose + [len(lines)]
    stretches = [lines[a + 1:b] for a, b in zip(bounds, bounds[1:])]
    return textwrap.dedent("\n".join(max(stretches, key=len)))


def _is_prose(line: str) -> bool:
    """A line no program contains: words side by side, a label, a plain sentence."""
    code = _STRINGS.sub(" ", line).split("#", 1)[0]
    if not code.strip():
        return False
    pairs = _WORD_PAIR.finditer(code)
    if any(m.group(1) not in _KEYWORDS and m.group(2) not in _KEYWORDS for m in pairs):
        return True
    label = _LABEL.match(code)
    return bool(label and label.group(1) not in _KEYWORDS) or bool(_SENTENCE.match(code))


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True
