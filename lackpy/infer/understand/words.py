"""The words of an intent: tokens, and what kind of word each is (a type, a path, code, a marker).

A question about files mixes English ("how many", "the", "without") with
code ("TODO", "__init__", "src/pkg1", "*.py"). ``tokenize`` splits an intent
into words, keeping a quoted phrase as one word and expanding contractions
("don't" is "do not", so "not" is never lost); the predicates here say what a
word looks like, which the passes of ``lackpy.infer.understand.phrases`` use
to decide what it means. The vocabulary is data: which words name file
types, which carry no meaning, which name operations the parser knows it does
not serve. ``normalize_intent`` (the intent as patterns see it) lives here
too, so that the templates tier and the parser read an intent one way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- vocabulary -------------------------------------------------------------------------

#: Words whose meaning the parser knows it does not serve, and what to say about them.
NOT_SUPPORTED = {
    **dict.fromkeys(("or", "either"), "one search word at a time (no 'or'), except in a condition: 'files containing TODO or FIXME'"),
    **dict.fromkeys(("both",), "several words at once: say containing X and containing Y"),
    **dict.fromkeys(("not", "except", "excluding", "outside", "besides"),
                    "'not' is understood as 'not containing a word', and leaving a directory out as 'outside src/pkg1'"),
    **dict.fromkeys(("more", "less", "fewer", "than", "longer", "shorter", "larger", "smaller", "bigger", "over", "above",
                     "below", "exceeding", "least"), "a comparison needs a number and a unit: 'more than 40 lines', 'larger than 2 KB', 'over 3 TODOs'"),
    **dict.fromkeys(("average", "mean", "median", "percent", "percentage", "fraction", "ratio", "proportion"),
                    "an average or a median is of a measure per file ('median number of lines per python file') and a "
                    "fraction or percentage of files ('what percentage of python files mention TODO')"),
    **dict.fromkeys(("changed", "modified", "recent", "recently", "newest", "oldest", "wrote", "author", "blame"),
                    "history (who, when) is not in the files"),
    **dict.fromkeys(("delete", "remove", "rename", "move", "write", "edit", "create", "replace", "fix", "refactor"),
                    "changing files is not understood here; only questions"),
}

#: Words for kinds of files, and the file-name glob each stands for.
KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("python", "py"), "*.py"),
    (("markdown", "md"), "*.md"),
    (("javascript", "js"), "*.js"),
    (("typescript", "ts"), "*.ts"),
    (("rust", "rs"), "*.rs"),
    (("go", "golang"), "*.go"),
    (("java",), "*.java"),
    (("c",), "*.[ch]"),
    (("c++", "cpp"), "*.cpp"),
    (("ruby", "rb"), "*.rb"),
    (("yaml", "yml"), "*.y*ml"),
    (("json",), "*.json"),
    (("toml",), "*.toml"),
    (("html",), "*.html"),
    (("css",), "*.css"),
    (("text", "txt"), "*.txt"),
    (("shell", "sh", "bash"), "*.sh"),
)
TYPE_WORDS: dict[str, str] = {word: glob for words, glob in KINDS for word in words}
#: Type words that are also everyday words: a type only right before a word for files ("go files", "text files").
LOOSE_TYPES = frozenset({"c", "go", "text", "shell", "bash", "java", "ruby", "rust"})

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "fifty": 50, "hundred": 100,
}

#: Extensionless file names a path may be.
BARE_FILES = ("makefile", "dockerfile", "license", "readme", "procfile", "gemfile", "rakefile", "justfile")

#: Conventional markers: searched for as their usual upper-case spelling ("todos" means TODO).
MARKERS = {"todo": "TODO", "fixme": "FIXME", "xxx": "XXX", "hack": "HACK", "todos": "TODO", "fixmes": "FIXME", "hacks": "HACK"}

#: Python keywords that start a phrase of code ("def main", "import os", "return x * 2"):
#: after a word such as "containing", the words up to the next part of the sentence are searched for.
CODE_STARTS = frozenset({"def", "class", "import", "from", "return", "raise", "lambda", "yield", "assert", "async", "await", "del", "global", "nonlocal"})

#: Words that carry no meaning here: they may be left over.
FILLER = frozenset(
    "the a an all of me please kindly can could would will you tell i we us our my there here are is be been do does "
    "did have has had that which who it its this these those them they their exist exists existing currently right now "
    "just also some any anywhere everywhere somewhere in to for at want need like know let see whether if whose "
    "total hey hi ok okay so then quick question thanks thank really actually altogether overall every "
    "across throughout within inside show list find get give display print".split()
)
#: Words that end a phrase of code after a search word ("... containing def main in src").
BOUNDARY = frozenset(
    "in under inside within below beneath across throughout ignoring regardless irrespective case and or but that which "
    "sorted ordered per appear appears occur occurs used mentioned referenced written found present shows show comes come "
    "anywhere everywhere somewhere please".split()
)

# -- tokens ----------------------------------------------------------------------------------

_CONTRACTIONS = (
    (re.compile(r"\bcan't\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(what|where|there|that|it|here|who|how|which)'s\b", re.I), r"\1 is"),
    (re.compile(r"\b(\w+)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(\w+)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(i|you|we|they)'d\b", re.I), r"\1 would"),
    (re.compile(r"\b(i|you|we|they)'ll\b", re.I), r"\1 will"),
    (re.compile(r"\bi'm\b", re.I), "i am"),
    (re.compile(r"(\w)'s(?=\s|$)"), r"\1"),  # possessive or plural apostrophe: README.md's, TODO's
)
#: A quoted phrase: searched for as written (its quote, then its text).
QUOTED_PHRASE = r"""(?<!\w)(["'`])(.+?)\1(?!\w)"""
_PIECE = re.compile(QUOTED_PHRASE + r"|(\S+)")
QUOTED, CLAIMED = "\x01", "\x00"
_TRAILING = ",;!?"


@dataclass(frozen=True)
class Token:
    """A word of the intent: ``raw`` as written (a quoted phrase without its quotes), ``form`` as passes see it."""

    raw: str
    form: str
    quoted: bool = False


def normalize_intent(intent: str) -> str:
    """The intent as patterns see it: stripped, without one trailing ``.``, ``!`` or ``?``.

    One rule for every reader of an intent: the templates' patterns match it,
    and ``tokenize`` starts from it.
    """
    text = intent.strip()
    if text[-1:] in (".", "!", "?"):
        text = text[:-1].rstrip()
    return text


def tokenize(intent: str) -> list[Token]:
    """The words of ``intent``: contractions expanded, a quoted phrase one word, trailing punctuation dropped."""
    text = normalize_intent(intent.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"'))
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    tokens = []
    for match in _PIECE.finditer(text):
        if match[2] is not None:
            tokens.append(Token(match[2], QUOTED, True))
            continue
        word = match[3].rstrip(_TRAILING) if len(match[3]) > 1 else match[3]
        if word.endswith(".") and word.count(".") == 1 and len(word) > 1:
            word = word[:-1]  # "...in src. thanks": a full stop, not an extension
        if word:
            tokens.append(Token(word, word.lower()))
    return tokens


# -- token kinds -------------------------------------------------------------------------------

_EXT = re.compile(r"\*?\.([a-z0-9+]{1,10})")
_FILE = re.compile(r"(?:[\w.\-]+/)*[\w\-]*[\w]\.[a-z][a-z0-9]{0,9}", re.I)
DIR_PATH = re.compile(r"\.{1,2}/?|(?:\./)?[\w.\-]+(?:/[\w.\-]+)*/?")
MAGIC = re.compile(r"[*?\[]")


def type_of(form: str) -> str | None:
    """The file-name glob of a type word or an extension token (".py", "*.py"), else None."""
    if form in TYPE_WORDS:
        return TYPE_WORDS[form]
    found = _EXT.fullmatch(form)
    return "*." + found[1] if found else None


def is_file(raw: str) -> bool:
    """A token shaped like a file: a name with an extension ("README.md", "src/a.py") or a well-known bare name."""
    return bool(_FILE.fullmatch(raw)) or raw.lower().rsplit("/", 1)[-1] in BARE_FILES


def is_path(raw: str) -> bool:
    """A token that names files or a directory by its shape: has a "/", an extension, a wildcard."""
    return is_file(raw) or ("/" in raw and bool(DIR_PATH.fullmatch(raw))) or bool(MAGIC.search(raw)) and "/" in raw


def code_like(token: Token, first: bool) -> bool:
    """A word that reads as code or a marker, not as English: TODO, __init__, x2, Module (mid-sentence)."""
    raw = token.raw
    if token.quoted:
        return True
    if raw.lower() in MARKERS:
        return True
    if any(c.isdigit() or c == "_" for c in raw) or not raw.replace("-", "").isalnum():
        return True
    upper = [c.isupper() for c in raw]
    return any(upper[1:]) or (upper[0] and not first)


def search_word(token: Token) -> str:
    """What a search word stands for: as written; TODOs means TODO, todos means TODO."""
    if token.quoted:
        return token.raw
    lower = token.raw.lower()
    if lower in MARKERS and (token.raw.islower() or token.raw.isupper() or lower.endswith("s")):
        return MARKERS[lower]
    plural = re.fullmatch(r"([A-Z][A-Z0-9_]+)s", token.raw)
    return plural[1] if plural else token.raw


__all__ = [
    "BARE_FILES", "CODE_STARTS", "FILLER", "KINDS", "LOOSE_TYPES", "MARKERS", "NOT_SUPPORTED", "NUMBER_WORDS",
    "TYPE_WORDS", "Token", "code_like", "is_file", "is_path", "normalize_intent", "search_word", "tokenize", "type_of",
]
