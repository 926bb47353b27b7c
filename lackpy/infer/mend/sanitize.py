"""Strip what a model wraps around a program: fences, prose, prompt marks, tags, transcripts.

Models answer in chat style: a sentence, a fenced block, an explanation; or
as a REPL or notebook session. The validator should see only the program, so
``sanitize`` keeps the code and drops the rest. It never raises, and it is
idempotent by construction: one pass only ever removes text, and passes
repeat until nothing changes.

``extract`` says what it removed (as the repair names the attempt log
shows), whether the answer was cut off (``truncation``), and which
transcript line could not be turned into code (``transcript``).
"""

from __future__ import annotations

import ast
import keyword
import re
import textwrap
import warnings
from dataclasses import dataclass

from lackpy.infer.mend.fstrings import requote
from lackpy.infer.mend.transcript import untranscribe
from lackpy.infer.mend.truncation import completable, few_words, unfinished_sentence

#: A markdown fence line, with or without a language tag: ```python, ~~~, ``` py.
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})\s*[\w+.#-]*\s*$")

#: Text removed wherever it appears.
NOISE = re.compile(r"</?code>", re.IGNORECASE)

#: Prompt marks a model echoes at a line's start, outside a program: ">>> x" and "... y" of a broken transcript, "-> result", "=> result".
PROMPT = re.compile(r"^(?:(?:>>>|\.\.\.)(?: |$)|[-=]>[ \t]*)+")

#: A first line that only names the language, left over from a fence.
LANGUAGE_TAGS = frozenset({"python", "python3", "py", "py3"})
_SKIPPED_FIRST = LANGUAGE_TAGS | {""}

#: What extract reports having removed; each is a repair in the attempt log.
STRIP_MARKUP = "strip_markup"  # fences, <code> tags, a language line
STRIP_PROMPTS = "strip_prompts"  # "->", "=>" and stray "..." marks
STRIP_TRANSCRIPT = "strip_transcript"  # REPL / notebook prompts, echoed outputs, setup magics
DROP_PROSE = "drop_prose"  # sentences, labels, echoed prompt lines, even between code lines
JOIN_BLOCKS = "join_blocks"  # a later fenced block that goes on with the first one's variables
REQUOTE_FSTRINGS = "fstring_quotes"  # f"{d["k"]}" (Python 3.12) as f"{d['k']}", before prose is looked for

# Prose patterns, matched on a line whose string literals and comment are removed:
# two identifiers side by side ("the program"; never valid outside strings),
# a label line ("Explanation:"), a plain sentence ("Done.", "Sure!").
_WORD_PAIR = re.compile(r"\b([A-Za-z_]\w*)[ \t]+(?=([A-Za-z_]\w*)\b)")
_LABEL = re.compile(r"^\s*([A-Za-z]\w*)[\w \t]*:\s*$")
_SENTENCE = re.compile(r"^\s*[A-Za-z][\w \t,'’]*[.!?]\s*$")
_STRINGS = re.compile(r"(?:\b[rRbBfFuU]{1,2})?(?:'[^'\n]*'|\"[^\"\n]*\")")
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
# A tool signature echoed from the prompt: "read_file(path: str) -> str" is never a statement.
_SIGNATURE = re.compile(r"^\s*[A-Za-z_]\w*\(.*\)\s*->\s*\S.*$")
# "Output: 3", "Result: ['a.py']": a capitalized label and a value, which Python reads as a bare annotation.
_VALUE_LABEL = re.compile(r"^\s*[A-Z]\w*\s*:\s*\S")

#: Cut points tried at each end: the longest runs start early and end late, and
#: an answer alternating prose and broken code must not cost a parse per pair.
MAX_CUTS = 20


@dataclass(frozen=True)
class Extracted:
    """The program in an answer, what was removed to get it, and what the answer's end says.

    ``removed`` lists the repair names above, each once, in the order first
    applied; ``truncated`` is true when the answer was cut off; ``leftover``
    is a transcript line no program can hold (``!ls src``), dropped here.
    """

    program: str
    removed: tuple[str, ...] = ()
    truncated: bool = False
    leftover: str | None = None


def sanitize(text: str) -> str:
    """The bare program in a model's answer; ``""`` when there is none."""
    return extract(text).program


def extract(text: str) -> Extracted:
    """The bare program in a model's answer, and how it was found."""
    if not isinstance(text, str):
        return Extracted("")
    seen: list[str] = []
    leftover = None
    answer = _normalized(text)
    with warnings.catch_warnings():  # the parser warns about odd literals in text that is not ours
        warnings.simplefilter("ignore")
        while True:
            cleaned, left = _one_pass(text, seen)
            leftover = leftover or left
            if cleaned == text:
                break
            text = cleaned
        truncated = _cut_off(answer, text)
    return Extracted(text, tuple(seen), truncated, leftover)


def _normalized(text: str) -> str:
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _one_pass(text: str, seen: list[str]) -> tuple[str, str | None]:
    """Each step only removes text (or turns CR LF into LF), so repeating it converges."""
    text = _normalized(text)
    if NOISE.search(text):
        _note(seen, STRIP_MARKUP)
        text = NOISE.sub("", text)
    transcript = untranscribe(text)
    if transcript.changed:
        _note(seen, STRIP_TRANSCRIPT)
        text = transcript.text
    lines = _without_prompt_marks(text, seen)
    lines = _unfence("\n".join(lines), seen).split("\n")
    while lines and lines[0].strip().lower() in _SKIPPED_FIRST:
        if lines.pop(0).strip():
            _note(seen, STRIP_MARKUP)
    joined = "\n".join(lines)
    requoted = None if _parses(textwrap.dedent(joined)) else requote(joined)
    if requoted is not None:
        _note(seen, REQUOTE_FSTRINGS)
        lines = requoted.split("\n")
    program = _without_prose(lines)
    if _content(program) != _content("\n".join(lines)):
        _note(seen, DROP_PROSE)
    return program.strip("\n"), transcript.leftover


def _without_prompt_marks(text: str, seen: list[str]) -> list[str]:
    """The lines without trailing blanks, and without prompt marks in each stretch between fences that is not a program.

    A stretch that parses keeps its marks: there they are string content or
    an Ellipsis, never prompts.
    """
    out: list[str] = []
    stretch: list[str] = []
    for line in [*text.split("\n"), None]:
        if line is not None and not FENCE.match(line):
            stretch.append(line)
            continue
        program = _parses(textwrap.dedent("\n".join(stretch)))
        for item in stretch:
            bare = item if program else PROMPT.sub("", item)
            if bare != item:
                _note(seen, STRIP_PROMPTS)
            out.append(bare.rstrip())
        stretch = []
        if line is not None:
            out.append(line.rstrip())
    return out


def _note(seen: list[str], name: str) -> None:
    if name not in seen:
        seen.append(name)


def _content(text: str) -> list[str]:
    """The non-blank lines without their indentation: what dedenting and blank lines do not change."""
    return [line.strip() for line in text.split("\n") if line.strip()]


def _unfence(text: str, seen: list[str]) -> str:
    """The first fenced block that parses, else the longest; the text itself when nothing is fenced.

    Later blocks that parse and read a variable an earlier block set are the
    same program told in steps, and are joined to it; a block that only
    shows an output or an unrelated example reads none, and is left out.
    An unclosed fence runs to the end (an answer cut short); fence lines
    around no code are simply dropped.
    """
    lines = text.split("\n")
    marks = [i for i, line in enumerate(lines) if FENCE.match(line)]
    if not marks:
        return text
    _note(seen, STRIP_MARKUP)
    bounds = zip(marks[::2], marks[1::2] + [len(lines)])
    blocks = ["\n".join(lines[start + 1:end]) for start, end in bounds]
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return "\n".join(line for i, line in enumerate(lines) if i not in marks)
    first = next((i for i, block in enumerate(blocks) if _parses(textwrap.dedent(block))), None)
    if first is None:
        return max(blocks, key=len)
    program = textwrap.dedent(blocks[first])
    bound = _stored(ast.parse(program))
    for block in blocks[first + 1:]:
        later = _parsed(textwrap.dedent(block))
        if later is not None and _continues(bound, later):
            program += "\n" + textwrap.dedent(block)
            bound |= _stored(later)
            _note(seen, JOIN_BLOCKS)
    return program


def _stored(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _continues(bound: set[str], block: ast.Module) -> bool:
    """Whether ``block`` reads a variable of ``bound`` (set by the blocks before) before setting it itself."""
    loads: dict[str, int] = {}
    stores: dict[str, int] = {}
    for node in ast.walk(block):
        if isinstance(node, ast.Name):
            table = stores if isinstance(node.ctx, ast.Store) else loads
            table[node.id] = min(table.get(node.id, node.lineno), node.lineno)
    return any(name in bound and line <= stores.get(name, line) for name, line in loads.items())


def _without_prose(lines: list[str]) -> str:
    """The code of the lines: all of it when prose lines are the only obstacle, else the longest run that parses.

    Dropping every prose line first keeps code on both sides of an
    explanation. Failing that, runs are cut only next to prose lines, which
    keeps a broken program whole, so the model hears about its syntax error
    instead of running half a program. When nothing parses, the longest
    stretch between prose lines is kept.
    """
    text = textwrap.dedent("\n".join(lines))
    tree = _parsed(text)
    if tree is not None:
        return _without_value_labels(text, tree)
    prose = [i for i, line in enumerate(lines) if _is_prose(line)]
    cuts = set(prose)
    if prose:
        kept = textwrap.dedent("\n".join(line for i, line in enumerate(lines) if i not in cuts))
        if kept.strip() and _parses(kept):
            return kept
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


def _without_value_labels(text: str, tree: ast.Module) -> str:
    """The program without its "Output: 3" lines, found in the tree so that a string's content is never touched."""
    labels = {
        node.lineno
        for node in ast.walk(tree)
        if _is_value_label(node) and node.lineno == node.end_lineno
    }
    if not labels:
        return text
    return "\n".join(line for number, line in enumerate(text.split("\n"), 1) if number not in labels)


def _is_value_label(node: ast.AST) -> bool:
    """``Output: 3``: an annotation with no value on a capitalized name, which no program means."""
    return (
        isinstance(node, ast.AnnAssign)
        and node.value is None
        and isinstance(node.target, ast.Name)
        and node.target.id[:1].isupper()
    )


def _is_prose(line: str) -> bool:
    """A line no program contains: words side by side, a label, a sentence, an echoed signature, "Output: 3"."""
    code = _STRINGS.sub(" ", line).split("#", 1)[0]
    if not code.strip():
        return False
    pairs = _WORD_PAIR.finditer(code)
    if any(m.group(1) not in _KEYWORDS and m.group(2) not in _KEYWORDS for m in pairs):
        return True
    label = _LABEL.match(code)
    if (label and label.group(1) not in _KEYWORDS) or _SENTENCE.match(code) or _SIGNATURE.match(line):
        return True
    if not _VALUE_LABEL.match(code):
        return False
    tree = _parsed(line.strip())
    return tree is not None and len(tree.body) == 1 and _is_value_label(tree.body[0])


def _is_sentence(line: str) -> bool:
    """Words side by side outside strings: what a sentence has and a label or an output does not."""
    code = _STRINGS.sub(" ", line).split("#", 1)[0]
    return any(m.group(1) not in _KEYWORDS and m.group(2) not in _KEYWORDS for m in _WORD_PAIR.finditer(code))


def _cut_off(answer: str, program: str) -> bool:
    """Whether the answer stops short: a program that only more text would complete, or an unfinished sentence.

    A sentence cut after a closed fence does not count: the fence already
    delimits a finished program.
    """
    if completable(program) or few_words(answer):
        return True
    lines = [line for line in answer.split("\n") if line.strip()]
    if not lines or sum(1 for line in lines if FENCE.match(line)) >= 2:
        return False
    last = lines[-1]
    return _is_sentence(last) and unfinished_sentence(last)


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _parses(text: str) -> bool:
    return _parsed(text) is not None


__all__ = ["DROP_PROSE", "JOIN_BLOCKS", "REQUOTE_FSTRINGS", "STRIP_MARKUP", "STRIP_PROMPTS", "STRIP_TRANSCRIPT", "Extracted", "extract", "sanitize"]
