"""The questions nearest one that was refused: what to ask instead, ready to copy.

A refusal that only says what was not understood leaves the user guessing
which wording would do. People ask a thing one way ("which files define a
class?") that the grammar knows another way ("which python files have at
least one class"); the quickest help is the few questions it does know that
are nearest the one asked, said with the user's own specifics (their file,
their directory, their word), so that one can be pasted back as it stands.

``CATALOGUE`` is the questions the grammar serves, one or two of each kind
it answers, as templates with slots (``{path}``, ``{dir}``, ``{word}``, ...).
``nearest`` ranks them by what they share with the question: its words,
brought to the canonical form and to the singular, each weighted by how
rare it is in the catalogue (a word most questions have says little), with
the noun of what is asked about (functions, lines, files, ...) and the kind
of ask (how many, is there, the largest, an average) weighted more, so that
a question about functions gets questions about functions. It fills the
slots from the question, or with a default, and keeps only suggestions that
parse and build: a suggestion the tier would refuse in turn is worse than
none. Before the catalogue comes the question itself with its one unknown
word quoted (searched for as a word) or, failing that, dropped.

There is no model here, and it is quick: it runs only when a question is
refused, parsing a handful of candidates.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from lackpy.infer.understand.canon import canonical
from lackpy.infer.understand.compose import build
from lackpy.infer.understand.intent import Files, Intent, Parsed, parse
from lackpy.infer.understand.phrases import LEXICON
from lackpy.infer.understand.words import (
    FILLER, KINDS, LOOSE_TYPES, MARKERS, NOT_SUPPORTED, NUMBER_WORDS, TYPE_WORDS, Token, code_like, is_file, search_word, tokenize,
)

# -- the catalogue ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """A question the grammar serves: ``text`` with slots (``{dir}``, or ``{n:5}`` with a default of its own),
    and ``about``: words people use when they mean it that its text does not have ("docstring" for a file's first lines)."""

    text: str
    about: str = ""


#: What a slot holds when the question does not say: the usual file, directory, word, type, number and name.
DEFAULTS = {
    "path": "README.md", "pyfile": "src/app.py", "filename": "utils.py", "dir": "src", "outside": "docs",
    "word": "TODO", "type": "python", "n": "40", "name": "parse",
}

Q = Question
#: The questions offered, the most everyday first (the order settles ties).
CATALOGUE: tuple[Question, ...] = (
    # files: how many, which, where
    Q("how many files are there"),
    Q("how many {type} files are there", "kind extension"),
    Q("how many files are in {dir}"),
    Q("which {type} files are in {dir}"),
    Q("list {dir}", "ls entries contents folder what inside"),
    Q("read {path}", "show open cat contents text print see"),
    Q("show the first {n:5} lines of {path}", "top head beginning start docstring header opening"),
    Q("what is the last line of {path}", "end final bottom tail"),
    Q("is there a {path}", "exist exists present have"),
    Q("is there a file called {filename} in {dir}", "exist exists present named"),
    Q("which files have {name} in their name", "named called filename"),
    Q("how many test files are there", "test tests testing"),
    # a word searched for
    Q("how many times does {word} appear", "count occurrence occurrences often mentioned"),
    Q("count {word} in {type} files", "occurrence occurrences number"),
    Q("which files contain {word}", "mention mentions include have has say"),
    Q("which files in {dir} contain {word}", "mention mentions include have has say"),
    Q("which files do not contain {word}", "without lack lacking missing free no"),
    Q("{type} files without {word} in {dir}", "lack lacking missing free no"),
    Q("how many files contain {word}", "mention have number"),
    Q("does {path} mention {word}", "contain include say"),
    Q("does any file mention {word}", "anywhere exist contain"),
    Q("do all {type} files contain {word}", "every each all"),
    Q("which files contain TODO or FIXME", "either or both two words"),
    Q("grep {word} in {dir}", "search find lines where show look"),
    Q("where is {word} used", "use call calls called usage reference referenced invoked"),
    Q("how many lines contain {word} in {dir}", "matching mention"),
    Q("count {word} ignoring case", "case insensitive insensitively lowercase uppercase regardless"),
    Q("which files contain {word} ignoring case", "case insensitive insensitively lowercase uppercase regardless"),
    Q("count {word} in each file in {dir}", "per file breakdown"),
    Q("count {word} per directory", "folder package each breakdown"),
    Q("count {word} outside {outside}", "except excluding not besides other than"),
    Q("which file has the most {word}", "most top rank"),
    Q("what percentage of {type} files mention {word}", "percent share proportion fraction ratio"),
    Q("on average, how many {word} does a {type} file have", "mean typical per file"),
    # lines
    Q("how many lines in {path}", "length long line count size"),
    Q("how many lines in {type} files", "code size total"),
    Q("how many lines per file in {dir}", "each breakdown"),
    Q("what is the longest line in {path}", "widest long"),
    Q("how long is the longest line", "length width widest"),
    Q("is any line longer than {n:80} characters", "width wide long exceed"),
    Q("which {type} files have lines longer than {n:80} characters", "width wide long exceed"),
    Q("how many empty lines are in {path}", "blank whitespace"),
    Q("count non-empty lines in {type} files", "code blank"),
    Q("what is the average number of lines per {type} file", "mean typical long"),
    Q("the {n:5} longest {type} files", "top most lines"),
    Q("which {type} files have more than {n:40} lines", "over above exceed longer long"),
    Q("how many files have more than {n:40} lines", "over above exceed longer long"),
    Q("which {type} file has the fewest lines", "shortest least short"),
    # sizes, words, characters
    Q("what is the largest file", "biggest big heavy size"),
    Q("the {n:5} largest {type} files", "biggest top size"),
    Q("what is the second largest file", "runner third ordinal place"),
    Q("what is the smallest {type} file", "tiniest small least"),
    Q("how many bytes is {path}", "size big large weigh"),
    Q("what is the average file size", "mean typical big"),
    Q("what is the median file size in bytes", "middle typical big"),
    Q("which files are larger than {n:2000} bytes", "over above exceed bigger big size"),
    Q("list {type} files in {dir} sorted by size", "order sort ordered"),
    Q("how many words in {path}"),
    Q("what is the total size of all files in {dir}", "big large weigh bytes characters"),
    Q("how many bytes are in {dir}", "size big large weigh kilobytes kb"),
    Q("how many characters in {path}", "length long size"),
    Q("how many words in {dir}"),
    # definitions
    Q("how many functions are defined in {dir}", "def method number"),
    Q("how many classes are defined in {dir}", "number"),
    Q("which functions are defined in {pyfile}", "def method list names"),
    Q("which classes are defined in {pyfile}", "list names"),
    Q("what is the first function in {pyfile}", "top start beginning"),
    Q("what is the last function in {pyfile}", "end final bottom"),
    Q("how many distinct function names are there", "unique different duplicate duplicated same"),
    Q("list the distinct function names", "unique different duplicate duplicated same"),
    Q("what is the longest function name", "long length"),
    Q("what is the average length of a function name", "mean typical long"),
    Q("how many functions start with {name}", "prefix begin beginning starting"),
    Q("list functions with {name} in their name", "named called contain containing"),
    Q("where is {name} defined", "definition declared declare locate find which file"),
    Q("how many functions per file in {dir}", "each breakdown"),
    Q("which file defines the most functions", "most top define"),
    Q("which file in {dir} defines the most functions", "most top define"),
    Q("which package defines the most functions", "directory folder module most"),
    Q("which python files have at least one class", "define defines defined declare contain"),
    Q("which python files have more than {n:10} functions", "over above exceed define"),
    Q("what is the median number of functions per python file", "average mean typical"),
    Q("what share of python files define more than {n:10} functions", "percentage percent fraction proportion"),
    Q("which functions take more than {n:1} argument", "argument arguments parameter parameters signature signatures take takes accept"),
    Q("which functions in {dir} take no arguments", "argument arguments parameter parameters signature empty take takes"),
    Q("which functions contain {word}", "body code mention mentions inside have has"),
    Q("what percentage of the functions contain {word}", "percent share proportion fraction body code"),
    Q("how many methods are there", "method methods class member members"),
    Q("what is the most common function name", "common frequent popular repeated often"),
    Q("which classes inherit from Exception", "subclass subclasses inherit inherits derive base parent child exception exceptions"),
    Q("what is the longest function", "long length big biggest largest lines size"),
    Q("what arguments does {name} take", "argument arguments parameter parameters signature take takes"),
    Q("which class has the most methods", "method methods class biggest most"),
    Q("what is the docstring of {pyfile}", "docstring docstrings doc documentation description header"),
    Q("which python files have no docstring", "docstring docstrings doc documentation undocumented missing without"),
    Q("which modules does the code import", "import imports imported importing dependency dependencies library libraries module modules"),
    Q("which python files import os", "import imports imported importing dependency use uses library module"),
    Q("how many import statements are there", "import imports imported importing statement statements lines"),
    Q("what percentage of the lines are empty", "blank whitespace percent share proportion fraction"),
    Q("grep '#' in {path}", "comment comments commented remark remarks"),
    Q("how many lines contain '#' in {type} files", "comment comments commented remark remarks"),
    # directories
    Q("how many directories are there", "folder folders package"),
    Q("which directories are there", "folder folders package list"),
    Q("how many {type} files per directory", "folder package each breakdown"),
    Q("which directory has the most {type} files", "folder package most"),
    Q("how many lines per directory", "folder package each breakdown"),
    Q("how many {type} files outside {outside}", "except excluding not besides other than"),
)
del Q

# -- the question's own specifics ----------------------------------------------------------------

#: Words that name a part of code, or the things counted: never a word the user searches for unless quoted.
_CONCEPTS = frozenset(
    "function functions def defs method methods class classes docstring docstrings module modules line lines file files "
    "word words character characters byte bytes name names directory directories folder folders package packages".split()
)
_OUTSIDE_CUES = frozenset({"outside", "excluding", "except", "besides"})
_NAME_CUES = frozenset({"named", "called", "with"})
#: The words after which a number word is a number ("more than one"), not a pronoun ("one of the files").
_NUMBER_CUES = frozenset({"than", "least", "most", "exactly", "top", "first", "last", "over", "under", "above", "below"})


def specifics(question: str, parsed: Parsed) -> dict[str, str]:
    """The user's own specifics in ``question``: a file, a directory, a word, a type, a number, a name.

    The parse's notes say which places and words it took as such ("in
    src/pkg3", "'cats'"); the words' shapes (a path with a "/" or an
    extension, a quoted phrase, a marker, a number) say the rest.
    """
    found: dict[str, str] = {}
    if parsed.intent is not None:
        _from_intent(parsed.intent, found)
    for note in parsed.understood:
        _from_note(note, found)
    _from_tokens(tokenize(canonical(question)), found)
    path = found.get("path")
    if path:
        found.setdefault("filename", path.rsplit("/", 1)[-1])
        if path.endswith(".py"):
            found.setdefault("pyfile", path)
    return found


def _from_intent(intent: Intent, found: dict[str, str]) -> None:
    """Specifics of a question that was understood but has no program."""
    files = intent.files
    for slot, value in (("path", files.path), ("dir", files.dir and files.dir.removeprefix("./")), ("word", intent.word),
                        ("type", _type_word(files.ext))):
        if value:
            found.setdefault(slot, value)
    for f in intent.filters:
        found.setdefault("word", f.word)
    for c in intent.where:
        found.setdefault("n", str(c.value))
    if intent.outside:
        found.setdefault("outside", intent.outside[0])


_NOTE_PLACE = re.compile(r"(in|outside) (\S+)")
_NOTE_WORD = re.compile(r"(?:(?:not )?containing |or |and )?(['\"])(.+)\1")
_NOTE_NAME = re.compile(r"files named (\S+)")
_NOTE_NUMBER = re.compile(r"(?:more than|fewer than|at least|at most|exactly) (\d+) .+")


def _from_note(note: str, found: dict[str, str]) -> None:
    """A specific from one of the parse's notes of what it understood."""
    if place := _NOTE_PLACE.fullmatch(note):
        where = place[2].removeprefix("./")
        slot = "outside" if place[1] == "outside" else "path" if is_file(where) else "dir"
        found.setdefault(slot, where)
    elif word := _NOTE_WORD.fullmatch(note):
        if word[2].lower() not in _CONCEPTS:
            found.setdefault("word", word[2])
    elif name := _NOTE_NAME.fullmatch(note):
        bare = name[1].strip("*")
        found.setdefault("filename" if "." in bare else "name", bare)
    elif number := _NOTE_NUMBER.fullmatch(note):
        found.setdefault("n", number[1])


def _from_tokens(tokens: list[Token], found: dict[str, str]) -> None:
    """Specifics from the shapes of the words: paths, quoted phrases, markers and code, numbers, types, names."""
    for index, token in enumerate(tokens):
        before = tokens[index - 1].form if index else ""
        after = tokens[index + 1].form if index + 1 < len(tokens) else ""
        raw = token.raw.strip("`")
        if token.quoted:
            found.setdefault("word", token.raw)
        elif before in _OUTSIDE_CUES and re.fullmatch(r"[\w.\-/]+", raw) and token.form not in FILLER:
            found.setdefault("outside", raw.rstrip("/"))
        elif is_file(raw):
            found.setdefault("path", raw)
        elif "/" in raw and re.fullmatch(r"\.?/?[\w.\-]+(/[\w.\-]+)*/?", raw):
            found.setdefault("dir", raw.removeprefix("./").rstrip("/"))
        elif token.form.isdigit() or token.form in NUMBER_WORDS and before in _NUMBER_CUES:
            found.setdefault("n", token.form if token.form.isdigit() else str(NUMBER_WORDS[token.form]))
        elif _type_of_word(token.form, after):
            found.setdefault("type", _type_of_word(token.form, after))
        elif before in _NAME_CUES and re.fullmatch(r"\w+\*?", raw) and code_like(token, index == 0):
            found.setdefault("name", raw.rstrip("*"))
        elif (code_like(token, index == 0) or token.form in MARKERS) and token.form not in _CONCEPTS and re.fullmatch(r"[\w.\-]+", raw):
            found.setdefault("word", search_word(token))


def _type_of_word(form: str, after: str) -> str | None:
    """The type word a token names ("python", ".md"), in the form the grammar reads; a loose one only before a noun for files."""
    if form in TYPE_WORDS and form not in LOOSE_TYPES:
        return _type_word(TYPE_WORDS[form])
    if form in TYPE_WORDS and re.fullmatch(r"files?|modules?|scripts?|sources?", after):
        return _type_word(TYPE_WORDS[form])
    if re.fullmatch(r"\*?\.[a-z0-9+]{1,10}", form):
        return _type_word("*" + form.lstrip("*")) or form.lstrip("*")
    return None


def _type_word(glob: str | None) -> str | None:
    """The everyday name of a type's glob ("*.py" is python)."""
    return next((words[0] for words, g in KINDS if g == glob), None) if glob else None


# -- closeness -------------------------------------------------------------------------------------

#: Words that mean one thing here, brought to one of them (after the plural is dropped).
_SAME = {
    "biggest": "largest", "big": "largest", "large": "largest", "heaviest": "largest", "tiniest": "smallest", "small": "smallest",
    "tiny": "smallest", "def": "function", "method": "function", "definition": "function", "folder": "directory", "dir": "directory",
    "package": "directory", "subdirectory": "directory", "subfolder": "directory", "subdir": "directory", "mention": "contain",
    "mentioned": "contain", "mentioning": "contain", "include": "contain", "containing": "contain", "say": "contain",
    "hold": "contain", "appear": "occurrence", "occur": "occurrence", "time": "occurrence", "instance": "occurrence",
    "appearance": "occurrence", "defined": "define", "declare": "define", "declared": "define", "char": "character", "size": "byte",
    "percent": "share", "percentage": "share", "fraction": "share", "proportion": "share", "ratio": "share", "mean": "average",
    "each": "per", "lack": "without", "lacking": "without", "missing": "without", "longer": "long", "shorter": "short",
    "larger": "largest", "bigger": "largest", "smaller": "smallest", "unique": "distinct", "different": "distinct",
    "imported": "import", "importing": "import",
}
#: The nouns of what is asked about: a question about functions should get questions about functions.
_SUBJECTS = frozenset({"function", "class", "line", "file", "directory", "word", "character", "byte", "name"})
#: Words that carry nothing for closeness, beyond the filler the parser ignores.
_PLAIN = frozenset(
    "how many what which where when why with by on a number count up more than at and but "
    "code base codebase repo repository project workspace".split()
) | FILLER
#: The kinds of ask, each a feature of its own: what a question wants of its subject.
_ASKS = (
    ("count", re.compile(r"\bhow many\b|\bcount\b|\bnumber of\b|\btotal\b|\btally\b")),
    ("exists", re.compile(r"^(?:is|are|do|does|did|has|have)\b|\bany\b|\bis there\b|\bare there\b")),
    ("rank", re.compile(r"\b(?:largest|biggest|smallest|tiniest|longest|shortest|most|fewest|least|top|second|third)\b")),
    ("stat", re.compile(r"\b(?:average|mean|median|percent|percentage|fraction|share|proportion|ratio)\b")),
    ("compare", re.compile(r"\b(?:more|fewer|less|longer|shorter|larger|bigger|smaller) than\b|\bat (?:least|most)\b"
                           r"|\b(?:over|above|under|exceeding) \d")),
    ("list", re.compile(r"^(?:which|what|where|list|show|find|grep|search)\b")),
)
#: How much each kind of feature counts: the subject and the ask over any other word, the user's specifics between.
_WEIGHTS = {"subject": 3.0, "ask": 2.0, "slot": 2.0, "word": 1.0}
#: The slots a template may have, and the features each stands for with their share of a slot's weight
#: (a Python file is a file, and a little more).
_SLOT_FEATURES = {
    "path": (("@path", 1.0),), "pyfile": (("@path", 1.0), ("@pyfile", 0.5)), "filename": (("@path", 1.0),), "dir": (("@dir", 1.0),),
    "outside": (("@outside", 1.0),), "word": (("@word", 1.0),), "type": (("@type", 1.0),), "n": (("@n", 1.0),), "name": (("@name", 1.0),),
}
_SLOT = re.compile(r"\{(\w+)(?::([^}]*))?\}")
#: The slots whose default is a jump away from the question (a file, a directory, a word it never named); a number or a type is not.
_PLACES = frozenset({"@path", "@pyfile", "@dir", "@outside", "@word", "@name"})


def _singular(word: str) -> str:
    """``word`` without its plural ending, so that "functions" and "function" are one word (a rough rule is enough here)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def features(text: str, slots: tuple[str, ...] = ()) -> dict[str, float]:
    """What ``text`` is about, each feature with its weight: its words, its subject nouns, its kinds of ask, its slots.

    ``text`` has its specifics already taken out (a template's slots, a
    question's files and directories); ``slots`` says which it had.
    """
    found: dict[str, float] = {}
    lower = canonical(text).lower()
    for kind, pattern in _ASKS:
        if pattern.search(lower):
            found["?" + kind] = _WEIGHTS["ask"]
    for raw in re.findall(r"[a-z][a-z0-9_+\-]*", lower):
        if raw in TYPE_WORDS and raw not in LOOSE_TYPES:
            found["@type"] = _WEIGHTS["slot"]
            continue
        if raw in _PLAIN or raw in NUMBER_WORDS or len(raw) < 2:
            continue
        word = _SAME.get(raw) or _SAME.get(_singular(raw)) or _singular(raw)
        found[word] = max(found.get(word, 0.0), _WEIGHTS["subject" if word in _SUBJECTS else "word"])
    for slot in slots:
        for feature, share in _SLOT_FEATURES[slot]:
            found[feature] = max(found.get(feature, 0.0), share * _WEIGHTS["slot"])
    return found


@lru_cache(maxsize=1)
def _catalogue_features() -> tuple[tuple[dict[str, float], ...], dict[str, float]]:
    """Each catalogue question's features, and each feature's weight for rarity (inverse document frequency)."""
    each = tuple(features(_SLOT.sub(" ", q.text) + " " + q.about, tuple(m[1] for m in _SLOT.finditer(q.text))) for q in CATALOGUE)
    counts: dict[str, int] = {}
    for found in each:
        for feature in found:
            counts[feature] = counts.get(feature, 0) + 1
    rarity = {feature: 1.0 + math.log(len(each) / n) for feature, n in counts.items()}
    return each, rarity


def _question_features(question: str, found: dict[str, str], unknown: tuple[str, ...]) -> dict[str, float]:
    """The features of the question asked, its places and numbers taken out of its words and kept as slots.

    A word searched for stays a word too: "which files import os" is near
    the questions about imports as well as those about a word.

    The words the parser did not understand count twice: they are what the
    grammar missed, and what a catalogue question's ``about`` words are for.
    """
    text = question
    places = {value for slot, value in found.items() if slot in ("path", "pyfile", "filename", "dir", "outside")}
    for value in sorted(places, key=len, reverse=True):
        text = re.sub(r"(?<![\w/.])['\"`]?" + re.escape(value) + r"['\"`]?(?![\w/])", " ", text)
    asked = features(text, tuple(found))
    for word in unknown:
        if word.lower() in NOT_SUPPORTED:
            continue  # a word of structure ("than", "average"): its own hint says what to say instead
        for feature in features(word):
            if feature in asked and not feature.startswith(("?", "@")):
                asked[feature] *= 2
    return asked


def ranked(question: str, found: dict[str, str], unknown: tuple[str, ...] = ()) -> list[Question]:
    """The catalogue, nearest ``question`` first; ties keep the catalogue's order.

    A question is near by what the two share, each shared feature counted
    by its rarity and by its weights in the two (their geometric mean: a
    word the parser missed weighs more in the question asked, the Python
    file of a slot less in the catalogue's); a tenth of what the catalogue
    question has that the asked one has not is taken off, so a question
    with many features does not win on their number alone, and a third of
    a slot the asked one does not fill, so that its default (README.md, src)
    comes in only where nothing of the question's own would do (a number
    or a type of file is no such jump).
    """
    asked = _question_features(question, found, unknown)
    each, rarity = _catalogue_features()
    scores = []
    for index, have in enumerate(each):
        shared = sum(math.sqrt(weight * asked[f]) * rarity[f] for f, weight in have.items() if f in asked)
        extra = sum(weight * rarity[f] * (0.3 if f in _PLACES else 0.1) for f, weight in have.items() if f not in asked)
        scores.append((-(shared - extra), index))
    return [CATALOGUE[index] for _score, index in sorted(scores)]


# -- filling and checking -------------------------------------------------------------------------


def _quoted(word: str) -> str | None:
    """``word`` as it can stand in a suggestion shown in double quotes: plain when it reads as code, else in single quotes."""
    if re.fullmatch(r"[\w.\-]+", word) and code_like(Token(word, word.lower()), False) and word.lower() not in _CONCEPTS:
        return word
    return _in_quotes(word)


def _in_quotes(word: str) -> str | None:
    """``word`` in single quotes (or backquotes when it has a single quote), never double: the suggestion is shown in those."""
    return next((f"{q}{word}{q}" for q in ("'", "`") if q not in word and '"' not in word), None)


def fill(question: Question, found: dict[str, str]) -> str | None:
    """``question``'s text with each slot filled from ``found``, or its default; None when a value cannot be said in it."""
    failed = False

    def value(match: re.Match[str]) -> str:
        nonlocal failed
        slot, default = match[1], match[2]
        said = found.get(slot) or default or DEFAULTS[slot]
        if slot == "word":
            said = (_quoted(said) or "") if re.search(r"\w", said) else ""  # a word, never punctuation alone
        elif slot == "name" and not re.fullmatch(r"\w+", said):
            said = ""
        failed = failed or not said
        return said

    text = _SLOT.sub(value, question.text)
    text = re.sub(r"\b1 ([a-z]+)", lambda m: "1 " + _singular(m[1]), text)  # "more than 1 function", not "1 functions"
    return None if failed else text


def serves(text: str) -> Intent | None:
    """The intent of ``text`` when the tier would serve it: it parses and has a program."""
    parsed = parse(text)
    return parsed.intent if parsed.intent is not None and build(parsed.intent) else None


def itself(question: str, parsed: Parsed) -> str | None:
    """The question as asked with its unknown word searched for (quoted), or else left out, when that is served.

    "count the cats in python files" is most likely about the word "cats";
    "what is the docstring of X", with "docstring" left out, reads X.
    """
    if not parsed.unknown:
        return None
    tokens = tokenize(canonical(question))
    shown = [(_in_quotes(t.raw) or t.raw) if t.quoted else t.raw for t in tokens]
    first = parsed.unknown[0]
    at = next((i for i, t in enumerate(tokens) if t.raw == first and not t.quoted), None)
    if at is None:
        return None
    quoted = None if first.lower() in LEXICON else _in_quotes(first)  # "the 'most' methods" searches for a word of the grammar
    candidates = [" ".join(shown[:at] + [quoted] + shown[at + 1:])] if quoted else []
    if candidates and not _searches(serves(candidates[0]), first):
        candidates = []  # quoted, the word must be what is searched for, in files or lines, not a part of another question
    if len(parsed.unknown) == 1 and first.lower() not in LEXICON:  # the word left out, with its article, its "of" and what dangles
        start = at - 1 if at and tokens[at - 1].form in ("the", "a", "an", "any", "some") else at
        end = at + 2 if start < at and at + 1 < len(tokens) and tokens[at + 1].form == "of" else at + 1
        kept = [(t, w) for t, w in zip(tokens[:start] + tokens[end:], shown[:start] + shown[end:])]
        while kept and kept[-1][0].form in FILLER and not kept[-1][0].quoted:
            kept.pop()
        candidates.append(" ".join(w for _t, w in kept))
    return next((c for c in candidates if c.strip() and serves(c) is not None and '"' not in c), None)


def _searches(intent: Intent | None, word: str) -> bool:
    """Whether ``intent`` searches files or lines for ``word``."""
    if intent is None or intent.of not in ("files", "lines", "matches"):
        return False
    return intent.word == word or any(f.word == word and not (f.imports or f.docstring or f.defs) for f in intent.filters)


def nearest(question: str, parsed: Parsed, limit: int = 3) -> tuple[str, ...]:
    """Up to ``limit`` questions the tier serves that are nearest ``question``, filled with its specifics, ready to paste back.

    Each parses and builds, and each is a different kind of question: two
    that differ only in their files ("which files contain TODO", "which
    files in src contain TODO") count once, as the user can change the
    files of either, and three of a kind would crowd out the other kinds.
    """
    found = specifics(question, parsed)
    chosen: list[str] = []
    seen: set[Intent] = {_shape(parsed.intent)} if parsed.intent is not None else set()
    own = itself(question, parsed)
    if own is not None:
        chosen.append(own)
        seen.add(_shape(serves(own)))
    for candidate in ranked(question, found, parsed.unknown):
        if len(chosen) >= limit:
            break
        text = fill(candidate, found)
        intent = serves(text) if text is not None else None
        if intent is None and text is not None and any(m[1] in found for m in _SLOT.finditer(candidate.text)):
            text = fill(candidate, {})  # the user's value does not fit this question: offer it as the grammar knows it
            intent = serves(text) if text is not None else None
        if intent is not None and _shape(intent) not in seen:
            seen.add(_shape(intent))
            chosen.append(text)
    return tuple(chosen[:limit])


def _shape(intent: Intent) -> Intent:
    """The kind of question ``intent`` is: the same with every file."""
    return replace(intent, files=Files())


__all__ = ["CATALOGUE", "DEFAULTS", "Question", "features", "fill", "itself", "nearest", "ranked", "serves", "specifics"]
