"""Understanding an everyday question about files: an intent becomes a small structure, or an honest refusal.

"how many .py files lack TODO?", "count python files without any TODOs" and
"number of py files that don't mention TODO" are one question. A table of
whole-sentence patterns cannot keep up with the ways people ask, so the
intent is read in parts, as a person reads it:

- **what is asked**: a count, a list, a yes/no (any, or all), the top N, a
  file's text or a directory's entries;
- **of what**: files, lines, matches of a word, words, characters,
  definitions (``def``/``class`` lines), directories;
- **which files**: a type ("python files", ".py", "*.py", "md"), a
  directory ("in src", "under src/pkg1"), a name ("test files", "files
  named util*"), one file, or all files;
- **filters**: containing or not containing a word, line by line or file by
  file, ignoring case or not;
- **ordering**: largest, longest, most TODOs, fewest lines, ...

Each part is recognised by a pass that finds its phrases among the words not
yet understood and claims them. What matters for safety is the end: every
word must have been claimed or be a word that carries no meaning ("the",
"please", "there"). A word nobody claimed ("not", "average", "cats"), two
parts that conflict ("python files and markdown files") or a part the
programs cannot serve ("functions containing TODO") means the intent is not
understood, and ``parse`` says what it did understand and what it did not
instead of guessing: a refusal is better than a wrong answer served with
confidence.

Words the user searches for stay data: they are kept as written (a quoted
phrase verbatim) and become string literals in the program (see
``lackpy.infer.understand.compose``), never code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import lru_cache

from lackpy.errors import InferenceError
from lackpy.infer.understand.canon import canonical
from lackpy.infer.understand.common import parse_common
from lackpy.infer.understand.members import parse_members
from lackpy.infer.understand.parts import parse_conditions, parse_parts
from lackpy.infer.understand.versus import parse_versus
from lackpy.infer.understand.phrases import PASSES, Sentence, State, read
from lackpy.infer.understand.words import FILLER, KINDS, NOT_SUPPORTED, tokenize

# -- the structure --------------------------------------------------------------------


@dataclass(frozen=True)
class Files:
    """Which files a question is about; all fields empty means every file.

    ``dir`` is a directory as written ("src/pkg1" is anchored at the
    workspace; a single name such as "src" or "pkg1" is any directory of that
    name). ``ext`` is the file-name glob of a type ("*.py"); ``names`` are
    file-name globs of which any may match; ``path`` is one file; ``glob`` a
    workspace glob the user wrote ("src/**/*.py").
    """

    dir: str | None = None
    ext: str | None = None
    names: tuple[str, ...] = ()
    path: str | None = None
    glob: str | None = None

    def globs(self) -> tuple[str, ...]:
        """The workspace globs whose union is these files."""
        if self.path:
            return (self.path,)
        if self.glob:
            return (self.glob,)
        if self.dir is None or self.dir in (".", "./"):
            prefix = ""
        elif "/" in self.dir.strip("/") or self.dir.startswith("."):
            prefix = self.dir.strip("/").removeprefix("./") + "/"
        else:
            prefix = "**/" + self.dir.strip("/") + "/"
        return tuple(prefix + "**/" + _with_ext(name, self.ext) for name in (self.names or ("*",)))

    def describe(self) -> str:
        if self.path:
            return self.path
        what = "files" if not self.ext else f"{self.ext} files"
        if self.glob:
            what = f"files matching {self.glob}"
        if self.names:
            what += " named " + " or ".join(self.names)
        if self.dir and self.dir not in (".", "./"):
            what += f" under {self.dir}"
        return what


def _with_ext(name: str, ext: str | None) -> str:
    """A file-name glob also required to have the type's extension."""
    if not ext or name == ext:
        return name
    if name == "*":
        return ext
    suffix = ext[1:]  # "*.py" -> ".py"
    if name.endswith(suffix):
        return name
    if name.endswith(".*"):
        return name[:-2] + suffix  # "*_test.*" -> "*_test.py"
    return name.rstrip("*") + "*" + suffix if name.endswith("*") else name + suffix


#: Words a programmer marks code with. "How many TODOs" counts the lines where one stands as a word, as grep
#: and editors count them ("TODO:", "# TODO(ann)"), not the letters inside "TODOs" or "MASTODON".
MARKERS = frozenset({"TODO", "FIXME", "XXX", "HACK"})


@dataclass(frozen=True)
class Filter:
    """Keep files (or, with ``lines``, lines) that contain ``word``, or with ``negated`` that do not."""

    word: str
    negated: bool = False
    lines: bool = False
    alternatives: tuple[str, ...] = ()  # other words, any of which will do in place of ``word`` ("TODO or FIXME")
    blank: bool = False  # keeps blank lines (or, ``negated``, the others) instead of lines with a word
    defs: bool = False  # keeps definitions whose code (their line and the block beneath it) contains ``word``, not files
    docstring: bool = False  # keeps files that open with a docstring (or, ``negated``, the others) instead of files with a word
    imports: bool = False  # keeps files that import the module ``word`` (or, ``negated``, the others)
    start: bool = False  # keeps lines that begin (indentation aside) with ``word``
    place: bool = False  # keeps lines of the files under the folder ``word`` (counted among all lines, for a share)
    every: bool = False  # keeps files each of whose functions has a docstring (``word`` "docstring") or holds ``word``
    decorator: bool = False  # keeps definitions decorated with ``word`` ("@route", "@app.route" for route)
    suffix: bool = False  # keeps files whose name ends with ``word`` (".py"), counted among all files for a share

    @property
    def words(self) -> tuple[str, ...]:
        return (self.word, *self.alternatives)

    def describe(self) -> str:
        """``containing 'TODO' or 'FIXME'``, ``not containing 'x'``, ``empty``."""
        if self.blank:
            return "not empty" if self.negated else "empty"
        if self.docstring:
            return "without a docstring" if self.negated else "with a docstring"
        if self.start:
            return f"starting with {self.word!r}"
        if self.place:
            return f"in files under {self.word}"
        if self.suffix:
            return f"named *{self.word}"
        if self.decorator:
            return f"decorated with @{self.word}"
        if self.every:
            return "where every function " + ("has a docstring" if self.word == "docstring" else f"contains {self.word!r}")
        if self.imports:
            return f"{'not ' if self.negated else ''}importing {self.word}"
        said = f"{'not ' if self.negated else ''}containing {' or '.join(map(repr, self.words))}"
        return said + " in their code" if self.defs else said


@dataclass(frozen=True)
class Compare:
    """Keep files whose ``measure`` (lines, words, chars, bytes, ``matches`` of ``word``, or definitions of ``kind``) is ``op`` ``value``."""

    measure: str
    op: str
    value: int
    word: str | None = None
    kind: str | None = None
    lines: bool = False
    """A line's measure ("lines longer than 80 characters"): a file is kept when one of its lines passes, a line when it does."""

    def describe(self) -> str:
        if self.measure == "params":  # a definition's: "functions with more than 2 arguments"
            return f"taking {OP_WORDS[self.op]} {self.value} arguments"
        what = {"matches": repr(self.word), "definitions": DEFINITION_WORDS.get(self.kind or "", "definitions")}.get(self.measure, self.measure)
        if self.lines:
            return f"with a line of {OP_WORDS[self.op]} {self.value} {what}"
        return f"with {OP_WORDS[self.op]} {self.value} {what}"


OP_WORDS = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most", "==": "exactly"}
DEFINITION_WORDS = {"function": "functions", "class": "classes", "method": "methods", "toplevel": "top-level functions", "any": "definitions"}


@dataclass(frozen=True)
class Intent:
    """What a question asks, as the program builder needs it: the semantic frame the passes fill and ``compose`` reads.

    Every question, however it was said, comes to one frame:

    - **what is returned**: ``ask`` (a count, a list, a yes/no, a ranking,
      a text), with ``value`` (a figure of the thing ranked first),
      ``aggregate`` (an average, a median or a share) and ``names``;
    - **what is counted or named**: ``of`` (files, lines, matches of
      ``word``, definitions of ``kind``, imports, a docstring, ...);
    - **its filters**: ``files`` (type, folder, names, one path),
      ``filters`` (a word, a blank line, a docstring, an import; of a file,
      a line or a definition's code), ``where`` (a measure against a
      number: of a file, a line, or a definition's arguments), ``outside``,
      ``def_names``;
    - **grouping**: ``each`` (per file) and ``group`` (per directory);
    - **order and limit**: ``order``, ``largest``, ``n``, ``nth``,
      ``single``, ``name_rank``, ``def_end``, ``position``.

    A new way of saying a thing is a line of ``canon.TABLE`` that leaves
    this frame as it is; a new thing to ask is a field here and a builder
    in ``compose``.

    ``ask``: ``count`` (with ``each``: one count per file), ``list``,
    ``exists`` (is there any), ``all`` (does every file), ``top`` (ranked by
    ``order``: the top ``n``, all when ``n`` is None, or with ``single`` the
    one first file), ``read`` (a file's text) or ``ls`` (a directory's
    entries).

    ``of``: ``files``, ``lines``, ``matches`` (occurrences of ``word``),
    ``words``, ``chars``, ``bytes``, ``definitions`` (of ``kind``: function, class or
    any), ``dirs``.

    ``order`` is what files are ranked by: ``chars``, ``lines``, ``words``,
    ``matches`` (of ``word``) or ``definitions``.
    """

    ask: str
    of: str
    files: Files = field(default_factory=Files)
    word: str | None = None
    kind: str | None = None
    filters: tuple[Filter, ...] = ()
    ignore_case: bool = False
    order: str | None = None
    largest: bool = True
    n: int | None = None
    each: bool = False
    names: bool = False  # definitions: their names, not lines
    single: bool = False  # top: the single first file (a singular question), not a list
    nth: int | None = None  # top, single: the file at this place of the ranking ("the second largest"), not the first
    value: str | None = None  # top, single: this measure of the file ranked there (lines, words, chars, bytes), not the file
    distinct: bool = False  # definitions, count or list: each name once ("how many distinct function names")
    def_end: str | None = None  # definitions of one file, list: the name of its "first" or "last" one
    name_rank: bool | None = None  # definitions, list: the longest (True) or shortest (False) name; several when they tie
    name_length: bool = False  # definitions, count with an average or median: of the lengths of their names
    common: str | None = None  # definitions, list: the commonest name, by its "definitions" or by the "files" that define it
    owner: str | None = None  # methods: of the class of this name
    threshold: tuple[str, int] | None = None  # count: whether the count is (op, value), a yes or no ("are there more than 50 files")
    other: str | None = None  # versus: the second file, whose ``order`` measure the first file's is compared with (``largest``: more)
    origin: str | None = None  # imports: only those of the standard library ("stdlib") or from outside it and the project ("external")
    class_rank: bool | None = None  # classes, list: the one with the most (True) or fewest (False) methods
    base: str | None = None  # classes: those that name this class among their bases
    per_class: bool = False  # methods, an average or median: of the number each class has
    name_where: bool = False  # with ``name_rank``: the name and the file it is defined in ("where is the longest function name")
    first_word: bool = False  # with ``common``: the commonest first word of the names
    where: tuple[Compare, ...] = ()  # files kept by a measure against a number
    position: tuple[str, int | None] | None = None  # read: ("first" or "last", how many lines; None: the one line)
    aggregate: str | None = None  # count: "average" or "median" per file, or the "fraction" or "percentage" of the files that qualify
    def_names: tuple[str, ...] = ()  # definitions: name patterns ("*render*", "parse*") their names must match
    group: bool = False  # count or top: one figure per directory (the files' parent), not per file or in all
    outside: tuple[str, ...] = ()  # directories whose files are left out
    among: tuple[tuple[str, int], ...] = ()  # a share: the conditions ("filter" or "where", index) picking the files it is of

    @property
    def marker(self) -> bool:
        """Whether the occurrences counted are a code marker's ("count TODOs"): the lines where it stands as a word."""
        return (self.of == "matches" and self.word in MARKERS and not self.ignore_case
                and not (self.filters or self.where or self.group or self.ask != "count"))

    def describe(self) -> str:
        """The intent in plain words, for messages."""
        what = {
            "files": self.files.describe(), "lines": "lines", "words": "words", "chars": "characters", "bytes": "bytes",
            "dirs": "directories",
            "matches": f"{self.word} markers (lines with the word {self.word})" if self.marker else f"occurrences of {self.word!r}", "imports": ({"stdlib": "standard library ", "external": "third-party "}.get(self.origin or "", "")
                        + ("modules imported" if self.distinct else "import statements")), "params": "parameters",
            "definitions": {"function": "function definitions", "class": "class definitions", "method": "methods (functions in a class)",
             "toplevel": "top-level functions"}.get(
                self.kind or "", "definitions"),
        }.get(self.of, self.of)
        where = "" if self.of == "files" else f" in {self.files.describe()}"
        if self.ask == "versus":
            return f"whether {self.files.path} has {'more' if self.largest else 'fewer'} {self.order} than {self.other}"
        if self.ask == "read" and self.position:
            end, n = self.position
            return f"the {end} {f'{n} lines' if n else 'line'} of {self.files.path}"
        if self.ask == "read":
            return f"the {'docstring' if self.of == 'docstring' else 'text'} of {self.def_names[0] if self.def_names else self.files.path}"
        if self.ask == "ls":
            return f"the entries of directory {self.files.dir or '.'}"
        if self.ask == "top" and self.of == "lines":
            line = f"the {_place(self.nth) + ' ' if self.nth else ''}{'longest' if self.largest else 'shortest'} line in {self.files.describe()}"
            return f"the length of {line}" if self.value else line
        ranked = (f"{_place(self.nth) if self.nth else 'single' if self.single else self.n or 'all'}",
                  f"with the {'longest' if self.largest else 'shortest'} line" if self.order == "width" else
                  f"with the {'most' if self.largest else 'fewest'} {self.order if self.order != 'matches' else repr(self.word)}")
        parts = {
            "count": (f"the {self.aggregate} {'per file of the ' + what if self.aggregate in PER_FILE else 'of the ' + what}{where}"
                      if self.aggregate else f"the number of {what}{where}" + (", per file" if self.each else "")),
            "list": f"the {what}{where}",
            "exists": f"whether there are any {what}{where}",
            "all": f"whether all {what}{where} qualify",
            "top": (f"the {self.value} of the {ranked[0]} {what}{where} {ranked[1]}" if self.value else f"the {ranked[0]} {what}{where} {ranked[1]}"),
        }
        text = parts.get(self.ask, self.ask)
        if self.group:
            text = f"the {what}{where}, per directory" if self.ask == "count" else f"the {ranked[0]} directories {ranked[1]}{where}"
        if self.of == "files" and self.files.path and self.ask in ("exists", "all"):
            text = f"whether {self.files.path}"
            for index, f in enumerate(self.filters):
                said = f"is {f.describe()}" if f.docstring or f.imports else f"{'does not contain' if f.negated else 'contains'} {f.word!r}"
                text += f"{' and' if index else ''} {said}"
            for c in self.where:
                text += f" is a file {c.describe()}"
            return text
        for f in self.filters:
            text += ", " + f.describe() + (" (line by line)" if f.lines and not f.blank else "")
        for c in self.where:
            text += (", " if c.measure == "params" else ", files ") + c.describe()
        text = self._definitions_said(text, what, where)
        for d in self.outside:
            text += f", outside {d}"
        if self.ignore_case:
            text += ", ignoring case"
        if self.among:
            text += ", counted among the files " + " and ".join(self.condition_text(role, k) for role, k in self.among)
        return text

    def _definitions_said(self, text: str, what: str, where: str) -> str:
        """``text`` with what is said of definitions: their names, place, class, bases, parameters, commonest name."""
        if self.def_names:
            text += ", named " + " and ".join(self.def_names)
        if self.distinct and self.of != "imports":
            text += ", each name once"
        if self.def_end:
            place = self.def_end if self.def_end in ("first", "last") else _place(int(self.def_end))
            text = f"the name of the {place} of the " + text.removeprefix("the ")
        if self.name_rank is not None:
            text = f"the {'longest' if self.name_rank else 'shortest'} name of the " + text.removeprefix("the ")
            text = "the length of " + text if self.value else text
            text = text + ", and the file it is in" if self.name_where else text
        if self.owner:
            text += f", of class {self.owner}"
        if self.per_class:
            text = f"the {self.aggregate} number of methods per class in {self.files.describe()}"
        if self.base:
            text += f", inheriting from {self.base}"
        if self.class_rank is not None:
            text = f"the class with the {'most' if self.class_rank else 'fewest'} methods in {self.files.describe()}"
        if self.of == "params":
            text = (f"the parameters of {self.owner + '.' if self.owner else ''}{self.def_names[0]}" if self.def_names
                    else f"the {self.aggregate} number of parameters of the definitions") + where
        if self.of == "bases":
            text = f"the classes {self.def_names[0]} inherits from" + where
        if self.threshold:
            text = f"whether {text.removeprefix('the ')} is {OP_WORDS[self.threshold[0]]} {self.threshold[1]}"
        if self.common:
            said = "first word of the names" if self.first_word else "name"
            text = f"the most common {said} of the " + text.removeprefix("the ") + (", by the files that define it" if self.common == "files" else "")
        if self.name_length:
            text = f"the {self.aggregate} length of the names of the " + what + where
        return text

    def condition_text(self, role: str, index: int) -> str:
        """Filter ``index`` (role "filter") or comparison ``index`` (role "where") in words."""
        if role == "where":
            return self.where[index].describe()
        return self.filters[index].describe()


def _place(nth: int) -> str:
    return {2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(nth, f"{nth}th")


class NotUnderstood(InferenceError):
    """The rules tier understood part of an intent, or none it can serve, and proposes nothing.

    The message says what was understood, what was not, and the questions
    it does understand that are nearest the one asked; it becomes the
    tier's line in the attempt log.
    """


def offered(questions: tuple[str, ...]) -> str:
    """The questions a refusal offers instead, each in double quotes exactly as it can be pasted back."""
    return "questions I do understand that are near it: " + "; ".join(f'"{q}"' for q in questions)


@dataclass(frozen=True)
class Parsed:
    """The outcome of ``parse``: an Intent, or why there is none."""

    intent: Intent | None
    understood: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def relevant(self) -> bool:
        """Whether the intent was about files at all (anything beyond a question word was understood)."""
        return bool(self.understood)

    def explain(self, closest: tuple[str, ...] = ()) -> str:
        """One line for the attempt log: what was understood, what was not and why, and ``closest``, the questions to ask instead."""
        parts = []
        if self.understood:
            parts.append("understood " + ", ".join(self.understood))
        if self.unknown:
            parts.append("did not understand " + ", ".join(repr(w) for w in self.unknown))
        parts += list(dict.fromkeys(NOT_SUPPORTED[w.lower()] for w in self.unknown if w.lower() in NOT_SUPPORTED))
        parts += list(self.problems)
        if any(w.isalpha() and w.lower() not in NOT_SUPPORTED and w.lower() not in FILLER for w in self.unknown):
            parts.append('a word to search for can be quoted: count "word"')
        if closest:
            parts.append(offered(closest))
        return "not sure what is asked: " + "; ".join(parts)


# -- composing the parts ------------------------------------------------------------------------


#: The measures of a file a question may ask of the one a ranking puts first ("how many lines does the largest file have").
MEASURED = ("lines", "words", "chars", "bytes")

#: The aggregates taken of a measure per file (the others are shares of the files that qualify).
PER_FILE = ("average", "median")

#: Words that name a part of code as well as being words: searched for unquoted, they would be read as the word only.
CONCEPTS = frozenset({"docstring", "docstrings", "function", "functions", "class", "classes", "method", "methods"})


def _concept_searched(s: Sentence, st: State) -> str | None:
    """What to say when a filter searches, unquoted, for a word that also names a part of code ("modules without a docstring")."""
    for position, (word, _negated, _index) in enumerate(st.filters):
        if position in st.every_def:
            continue  # "where every function has a docstring": the part of code, read as one
        quoted = any(token.quoted and token.raw.lower() == str(word).lower() for token in s.tokens)
        if isinstance(word, str) and word.lower() in CONCEPTS and not quoted:
            about = ("docstrings are asked about as 'modules without a docstring' or 'the docstring of src/app.py'" if word.lower().startswith("docstring")
                     else "definitions are asked about by name or number ('functions named parse*', 'files with more than 10 functions')")
            return f"'{word}' names a part of code as well as a word: {about}; to search for the word, quote it: files containing \"{word}\""
    return None


def _leftovers(s: Sentence, st: State) -> list[str]:
    """Words nobody claimed that matter."""
    unknown = []
    filter_starts = {index for _word, _neg, index in st.filters}
    for index, (token, role) in enumerate(zip(s.tokens, s.roles)):
        if role:
            continue
        form = token.form
        if form in ("and", "but") and (index + 1 in filter_starts or index + 1 < len(s.roles) and s.roles[index + 1] == "outside"):
            continue  # "with X and without Y", "outside src/a and outside src/b"
        if form in ("contain", "contains", "containing", "have", "has", "with", "having", "defines", "define", "take", "takes", "accepts") and st.orders:
            continue
        if form in FILLER and not token.quoted:
            continue
        if form in ("contain", "contains", "hold", "holds") and "count" in st.asks and not st.filters \
                and not any(u == "files" for u, _i, _p in st.units):
            continue
        unknown.append(token.raw)
    return unknown


class _Draft:
    """The Intent the claimed parts make, decided one question at a time; ``problems`` say why there is none."""

    def __init__(self, s: Sentence, st: State) -> None:
        self.s, self.st = s, st
        self.problems: list[str] = []
        self.among: tuple[tuple[str, int], ...] = ()
        self.value: str | None = None  # a measure asked of the file a ranking puts first

    def one(self, values: list, what: str):
        """The single value the parts agree on; two different ones is a problem ("python and markdown files")."""
        distinct = list(dict.fromkeys(values))
        if len(distinct) > 1:
            self.problems.append(f"two {what}: {' and '.join(map(str, distinct))}")
        return distinct[0] if distinct else None

    def definition_names(self) -> tuple[str, ...]:
        """Name patterns said of the definitions asked about ("functions with render in their name"), taken out of the file names.

        A name phrase is the definitions' when it follows their noun with no
        noun for files between ("functions in test files named x*" names files).
        """
        st = self.st
        nouns = [index for unit, index, _p in st.units if unit == "definitions"]
        if not nouns:
            return ()
        taken = []
        for position, at in sorted(st.named_at.items(), reverse=True):
            if at > nouns[0] and not any(nouns[0] < i < at for i in st.file_nouns):
                taken += st.names.pop(position)
        return tuple(taken)

    def files(self) -> Files:
        st = self.st
        ext = self.one(st.types, "file types")
        directory = self.one(st.dirs, "directories")
        path = self.one(st.paths, "files")
        glob = self.one(st.globs, "globs")
        names = self.one(st.names, "name patterns") or ()
        if directory == ".":
            directory = None
        if path and (directory or glob or names):
            self.problems.append(f"a file ({path}) and other files at once")
        if glob and (ext or names or directory):
            self.problems.append(f"a glob ({glob}) and other files at once")
        if path and ext and not fnmatchcase(path.rsplit("/", 1)[-1], ext):
            self.problems.append(f"{path} is not a {ext} file")
        if st.vague and not ext and not st.packages:  # "the package with the most lines of code": packages hold Python
            self.problems.append("which files are code? name a type, e.g. python files")
        return Files(dir=directory, ext=ext, names=names, path=path, glob=glob)

    def subject(self) -> tuple[str | None, str | None, str | None]:
        """(of what, the search word, the kind of definition) from the nouns and search words."""
        st = self.st
        units = [u for u, _i, _p in st.units]
        kinds = list(dict.fromkeys(st.kinds))
        if set(kinds) == {"method", "class"}:  # "the methods of the classes": the classes are where the methods are
            if kinds[0] != "method":
                self.problems.append("classes by their methods are not understood yet: ask about the methods ('how many methods are there')")
            kinds = ["method"]
        kind = (kinds[0] if len(kinds) == 1 else "any") if kinds else None
        terms = list(dict.fromkeys([w for w, _how in st.terms] + st.order_terms))
        if len(terms) > 1:
            self.problems.append("two words to search for: " + " and ".join(repr(t) for t in terms))
        word = terms[0] if terms else None
        if "matches" in units and word is None:
            self.problems.append("occurrences of what? name the word")
        nouns = [u for u in dict.fromkeys(units) if u != "matches"]
        if st.in_bytes:  # "the size in bytes", "how many bytes": one measure, in bytes
            nouns = list(dict.fromkeys("bytes" if n == "chars" else n for n in nouns)) or ["bytes"]
        if len(nouns) == 2 and "files" in nouns:
            # the file of "the file with the most lines" is what is ranked; else the other noun is what is asked about
            nouns = ["files"] if st.orders else [n for n in nouns if n != "files"]
        ranked = {m for m, _l in st.orders} | ({"bytes"} if st.in_bytes else set())
        if len(nouns) == 2 and "dirs" in nouns and set(nouns) - {"dirs"} <= ranked:
            nouns = ["dirs"]  # "which folder has the largest size": the size is what the folders are ranked by
        if st.aggregate in PER_FILE and word is not None and nouns == ["files"]:
            nouns = []  # "on average, how many TODOs does a python file have": the file is what the average is over
        if "params" in nouns and set(nouns) <= {"params", "definitions"}:
            nouns = ["params"]  # "how many parameters do the functions take": the parameters of the definitions
        if sorted(nouns) == ["chars", "definitions"] and "count" in st.asks and st.name_rank is not None:
            nouns, self.value = ["definitions"], "chars"  # "how many characters is the longest function name": its length
        if nouns == ["chars", "lines"] and "count" in st.asks and any(m == "lines" for m, _l in st.orders):
            nouns = ["lines"]  # "how many characters is the longest line": the line ranked, its characters the figure asked
        if len(nouns) > 1:
            self.problems.append("more than one thing to count or list: " + ", ".join(nouns))
        of = nouns[0] if nouns else "matches" if word is not None or "matches" in units else None
        return of, word, kind

    def ask(self, of: str | None, word: str | None, files: Files) -> str | None:
        """What is asked: count, list, exists, all or top (read and ls are decided before)."""
        asks = self.st.asks
        if self.st.threshold is not None:  # "are there more than 50 files": a count, then compared
            if self.st.orders or self.st.aggregate or self.st.each or self.st.group_each:
                self.problems.append("more than a number of what? a count: 'are there more than 50 python files'")
            return "count"
        if self.st.group_each and not self.st.orders and not asks & {"exists", "all"}:
            return "count"  # "TODOs per folder": a figure per directory
        if self.st.aggregate:
            clash = asks & {"exists", "all", "grep", "where"} or self.st.orders
            if clash:
                self.problems.append(f"the {self.st.aggregate} and another question at once")
            return "count"
        if self.st.orders:
            clash = asks & {"count", "exists", "all", "grep", "where"}
            counted = [unit for unit, _index, many in self.st.units if many and unit in MEASURED]  # "how many lines": said in the plural
            if clash == {"count"} and counted and not self.st.n:
                self.value = counted[0]  # "how many lines does the shortest module have": a figure of the one file ranked first
                return "top"
            words = {w for w, _how in self.st.terms} | set(self.st.order_terms)
            if clash == {"count"} and not counted and len(words) == 1 and self.st.order_terms and not self.st.n:
                self.value = "matches"  # "how many TODOs does the file with the most TODOs have": its count of the word
                return "top"
            if clash:
                self.problems.append("a ranking and a " + ", ".join(sorted(clash)) + " at once")
            return "top"
        if self.st.n:
            self.problems.append("a number but no ranking: the top N by what?")
            return "list"
        if asks & {"exists", "all"}:
            return "all" if "all" in asks or self.st.each else "exists"
        if "count" in asks or self.st.each and of not in (None, "files"):
            return "count"
        if asks & {"grep", "where"}:
            return "list"
        if of in ("chars", "bytes", "words"):
            return "count"  # "size of README.md", "words in src": a figure, not a list
        if "list" in asks or of or self.st.filters or word or files != Files():
            return "list"
        self.problems.append("what is asked?")
        return None

    def ranking(self, kind: str | None) -> dict:
        """For "top": the measure, direction, how many, and whether one file is wanted."""
        st = self.st
        order = self.one([m for m, _l in st.orders if m], "orderings") or "chars"
        if order == "chars" and st.in_bytes:
            order = "bytes"
        n = self.one(st.n, "numbers")
        plural = [p for u, _i, p in st.units if u == "files"]
        single = n is None and (not (plural and plural[0]) or st.nth is not None)  # "the largest file", "the second largest": the one
        if n is None and not single and not st.sorted_only:
            n = 10  # "largest files": the top ten; "sorted by size": all of them
        if order == "definitions" and kind is None:
            kind = "function"
        return {"order": order, "largest": all(l for m, l in st.orders if m), "n": n, "single": single, "kind": kind, "nth": st.nth}

    def filters(self, of: str, path: str | None) -> list[Filter]:
        """The filters; a cue right after a noun for files filters files, else it filters what is asked about."""
        found = []
        for position, (word, negated, index) in enumerate(self.st.filters):
            before = index - 1
            while before >= 0 and self.s.tokens[before].form in ("that", "which", "who", "do", "does", "not", "to", "and", "but"):
                before -= 1
            on_files = before in self.st.file_nouns or of == "files" or path is not None and of not in ("lines", "definitions")
            if of == "lines" and before == index - 1 and self.s.tokens[index].form in MAIN_VERBS:
                on_files = False  # "how many lines in python files mention X": no "that", so the lines mention it
            alternatives = tuple(self.st.alternatives.get(position, ()))
            blank = position in self.st.blanks
            if position in self.st.every_def:  # "files where every function has a docstring": said of files
                found.append(Filter(word, negated, every=True))
                if of != "files":
                    self.problems.append("every function of a file is a condition on files: 'files where every function has a docstring'")
                continue
            if position in self.st.decorators:  # "functions decorated with @route": said of definitions
                found.append(Filter(word, negated, decorator=True, defs=True))
                if of != "definitions":
                    self.problems.append("a decorator is said of definitions: 'functions decorated with @route'")
                continue
            if position in self.st.types_counted:  # "what share of the files are .py files"
                found.append(Filter(word, negated, suffix=True))
                continue
            if position in self.st.starts or position in self.st.places:  # said of lines only
                found.append(Filter(word, negated, lines=True, start=position in self.st.starts, place=position in self.st.places))
                if of != "lines":
                    self.problems.append("'starting with' and 'are in a folder' are said of lines here: 'lines starting with #'")
                continue
            if position in self.st.docstrings or position in self.st.imports:  # of files; a docstring of definitions too
                docstring = position in self.st.docstrings
                of_defs = docstring and of == "definitions" and not on_files  # "functions without a docstring"
                found.append(Filter(word or "docstring", negated, alternatives=alternatives, docstring=docstring,
                                    imports=position in self.st.imports, defs=of_defs))
                if not on_files and of != "files" and not of_defs:
                    self.problems.append("a docstring is said of files or definitions, an import of files: "
                                         "'modules without a docstring', 'functions with a docstring', 'modules that import os'")
                continue
            if blank and of != "lines":
                self.problems.append("empty what? only lines are empty")
            found.append(Filter(word, negated, lines=of == "lines" and (blank or not on_files), alternatives=alternatives, blank=blank,
                                defs=of == "definitions" and not on_files))
        return found

    def check(self, ask: str, of: str, files: Files, filters: list[Filter], word: str | None) -> None:
        """Combinations the programs cannot serve."""
        st, problems = self.st, self.problems
        line_filters = [f for f in filters if f.lines]
        if st.imports_origin and (of != "imports" or st.imports_said == "statements"):
            problems.append("the standard library or third-party: said of the imported modules ('which standard library modules does src/app.py import')")
        if of == "imports" and (ask not in ("count", "list", "exists") or line_filters or st.each or st.group_each or st.aggregate or st.distinct):
            problems.append("the imported modules are listed, counted or looked for: 'which modules does the code import', 'how many modules are imported'")
        elif of == "imports" and ask == "count" and st.imports_said == "imports":  # two fair readings: both offered
            problems.append("'imports' can be the modules imported, each once ('how many modules are imported'), or the import statements "
                            "('how many import statements are there'): ask one of the two")
        elif of == "imports" and ask == "list" and st.imports_said == "statements":
            problems.append("the import statements are counted ('how many import statements are there'); to list what they import, "
                            "ask 'which modules does the code import'")
        if of in ("definitions", "dirs", "words", "chars", "bytes") and line_filters:
            problems.append(f"{of} containing a word: only files and lines can be filtered by a word")
        if of == "definitions" and filters and ask not in ("top", "count", "list", "exists"):
            problems.append("definitions filtered by a word: count or list them, or ask whether there are any")
        if of == "definitions" and any(f.defs for f in filters) and (st.each or st.name_rank is not None or st.def_end or st.distinct
                                                                       or any(c[0] != "params" for c in st.compares)):
            problems.append("definitions containing a word, and another question about them at once")
        if of == "dirs" and (filters or files.ext or files.path or files.names):
            problems.append("directories filtered by content or type: ask for files instead")
        if of == "lines" and ask == "list" and not line_filters:
            problems.append("which lines? say lines containing a word, or read the file")
        if of == "definitions" and word is not None and ask != "top":
            problems.append(f"definitions and the word {word!r}: definitions containing it? say \"functions containing {word}\"")
        if of == "files" and word is not None and ask != "top":
            problems.append(f"files and the word {word!r}: files containing it? say \"files containing {word}\"")
        if st.each and (of in ("files", "dirs") or ask not in ("count", "all") or files.path):
            problems.append("per file: count lines, words, characters, definitions or a word's matches")
        if st.each and filters:
            problems.append("per file with a filter")
        if st.case is not None and not (filters or word):
            problems.append("ignoring case in what? name the word")
        if ask == "all" and (of == "matches" or not (filters or st.compares)):
            problems.append("does every file what? say containing a word")
        if ask == "top" and line_filters:
            problems.append("ranking files by lines containing a word")
        if ask == "top" and of not in ("files", None):
            problems.append(f"ranking {of}: only files can be ranked (by size, lines, words, definitions or a word's matches)")
        if of == "definitions" and files.ext not in (None, "*.py") and not files.path:
            problems.append("definitions are understood in Python files only")

    def compares(self, files: Files, of: str) -> tuple[Compare, ...]:
        """The file conditions on a measure ("files over 40 lines"); on anything but files ("lines longer than 80"), one file, or definitions outside Python, they cannot be served."""
        st, found = self.st, []
        for measure, op, value, word, index in st.compares:
            before = index - 1
            while before >= 0 and self.s.tokens[before].form in ("that", "which", "are", "is", "have", "has", "do", "does", "anywhere", "overall"):
                before -= 1
            of_lines = before >= 0 and measure == "chars" and (
                self.s.tokens[before].form in ("line", "lines")
                or of == "lines" and self.s.roles[before] in ("scope", "outside"))  # "lines in python files are longer than 100 characters"
            if measure == "params":  # the arguments a definition takes: said of definitions, never of files
                if of != "definitions":
                    self.problems.append("arguments are a function's: 'functions with more than 2 arguments'")
                found.append(Compare(measure, op, value))
                continue
            if of != "files" and before not in st.file_nouns and not (of_lines and of == "lines"):
                self.problems.append("a comparison keeps files only: say 'files with more than 40 lines'")
            if of_lines:  # "lines longer than 80 characters": a line's length
                found.append(Compare(measure, op, value, word, None, lines=True))
                continue
            kind = None
            if measure in ("function", "class", "any"):
                measure, kind = "definitions", measure
            found.append(Compare(measure, op, value, word, kind))
        one_file_yes_no = files.path and of == "files" and st.asks & {"exists", "all"} and not st.excludes  # "is routes.py longer than 250 lines"
        if (any(c.measure != "params" for c in found) or st.excludes) and files.path and not one_file_yes_no:
            self.problems.append(f"one file ({files.path}) kept or left out by a condition: ask about files")
        if any(c.measure == "definitions" for c in found) and files.ext not in (None, "*.py"):
            self.problems.append("definitions are understood in Python files only")
        return tuple(found)

    def per_class(self) -> bool:
        """"On average, how many methods does a class have": an average of the methods of each class."""
        return self.st.aggregate in PER_FILE and "method" in self.st.kinds and "class" in self.st.kinds

    def check_names(self, ask: str, of: str, files: Files, def_names: tuple[str, ...], group: bool) -> None:
        """What is asked of the names of definitions (the longest, the first of a file, distinct ones) and what it cannot go with."""
        st = self.st
        if st.name_rank is not None and (of != "definitions" or ask != "list" or def_names or st.distinct or st.def_end or st.orders):
            self.problems.append("the longest or shortest name of a definition, and another question at once")
        if st.def_end and (of != "definitions" or ask != "list" or not (files.path or st.owner) or def_names or st.distinct):
            self.problems.append("the first, last or nth definition: of one file, by its name ('the first function in src/app.py')")
        if set(st.kinds) & {"method", "toplevel"} and set(st.kinds) <= {"method", "class", "toplevel"} and of != "params" and (
                ask not in ("count", "list", "exists") or of != "definitions" or group or st.each or st.orders or st.name_rank is not None
                or st.def_end and not (st.owner or files.path) or st.common or st.name_length
                or st.aggregate in ("average", "median") and not self.per_class()):
            self.problems.append("methods and top-level functions are counted, listed or looked for: 'how many methods are there', "
                                 "'top-level functions with more than 2 arguments'")
        if st.base and (of != "definitions" or ask not in ("count", "list", "exists") or st.each or group or st.orders or st.name_rank is not None
                        or st.def_end or st.common):
            self.problems.append(f"the subclasses of {st.base} are counted, listed or looked for")
        if st.owner and (of != "definitions" or "method" not in st.kinds):
            self.problems.append(f"the class {st.owner}: its methods are asked about ('how many methods does the {st.owner} class have')")
        if of == "params" and (ask != "count" or st.aggregate not in PER_FILE or st.filters or st.compares or group or st.each):
            self.problems.append("parameters are asked of one function ('what arguments does parse take'), or averaged "
                                 "('on average, how many parameters do the functions take')")
        if any(c[0] == "params" for c in st.compares) and (st.name_rank is not None or st.def_end or st.distinct or st.each or group or def_names
                                                            or ask not in ("count", "list", "exists")):
            self.problems.append("definitions by their arguments are counted, listed or looked for, with no other question about them")
        if st.common and (of != "definitions" or ask != "list" or def_names or st.distinct or st.def_end or st.name_rank is not None
                          or st.orders or st.each or group or st.filters or st.compares):
            self.problems.append("the most common name of a definition, and another question at once")
        if st.distinct and (of != "definitions" or ask not in ("count", "list") or st.each or group):
            self.problems.append("distinct: the names of definitions are counted or listed once each ('how many distinct function names')")

    def longest_line(self, files: Files, ranking: dict) -> Intent | None:
        """"The longest line in X", "how long is the longest line": the one line (or its length), of one file or of the files."""
        st = self.st
        plural = any(unit == "lines" and many for unit, _index, many in st.units)
        if ranking.get("order") != "lines" or plural or st.filters or st.compares or st.aggregate or st.each:
            self.problems.append("ranking lines: only the longest or the shortest line is understood (or how long it is)")
        if ranking.get("value") not in (None, "chars"):
            self.problems.append("a line's figure: how long it is, in characters")
        if self.problems:
            return None
        return Intent("top", "lines", files, order="length", largest=ranking["largest"], single=True, value=ranking.get("value"),
                      nth=ranking.get("nth"), outside=tuple(dict.fromkeys(st.excludes)))

    def grouped(self, ask: str, of: str | None) -> None:
        """"TODOs per folder", "how many functions does each package define": one count per directory."""
        if ask != "count" or of not in (None, "files", "lines", "words", "chars", "bytes", "matches", "definitions"):
            self.problems.append("per directory: count files, lines, words, characters, bytes, definitions or a word's matches")
        self.st.each = False

    def check_aggregate(self, of: str, files: Files, filters: list[Filter], where: tuple[Compare, ...]) -> None:
        """An average is of a measure per file; a fraction or percentage is of the files that pass a condition."""
        aggregate = self.st.aggregate
        if aggregate is None:
            return
        if aggregate not in PER_FILE and self.st.in_bytes and of not in ("bytes", "chars"):
            self.problems.append(f"the {aggregate} of the files or lines is of how many there are, not of their bytes")
        if files.path and of != "params":
            self.problems.append(f"the {aggregate} of one file ({files.path}): ask about files")
        elif aggregate in PER_FILE and (of not in ("lines", "words", "chars", "bytes", "matches", "definitions", "params") or any(f.lines for f in filters)):
            self.problems.append(f"the {aggregate} of what? lines, words, characters, bytes, definitions or a word's matches per file")
        elif (aggregate not in PER_FILE and of == "definitions" and (filters or where) and all(f.defs for f in filters)
              and all(c.measure == "params" for c in where)):
            return  # the share of the definitions whose code contains a word, or that take so many arguments
        elif aggregate not in PER_FILE and of == "lines" and any(f.lines for f in filters) and not where:
            return  # the share of the lines that are empty, or contain a word
        elif aggregate not in PER_FILE and of in ("bytes", "chars") and filters and all(f.suffix for f in filters) and not where:
            return  # the share of the bytes that are in files of a type
        elif aggregate not in PER_FILE and (of != "files" or not (filters or where)):
            self.problems.append(f"the {aggregate} of which files? say which: files containing a word, or over a size")
        elif aggregate not in PER_FILE:
            self.among = self.share_roles(aggregate)

    def share_roles(self, aggregate: str) -> tuple[tuple[str, int], ...]:
        """The conditions that pick the files a share is of; the others pick the files it counts.

        Conditions joined by and, but, or, nor stand together ("mention both
        TODO and render"). When two stand apart, the first is said of the
        files ("python files with more than 10 functions") and the second,
        a verb of the sentence, counts them ("... mention TODO", "... are
        longer than 30 lines"). Any other arrangement has no clear roles and
        is refused rather than answered with a wrong ratio.
        """
        conditions = sorted([(index, "filter", k) for k, (_w, _n, index) in enumerate(self.st.filters)]
                            + [(c[-1], "where", k) for k, c in enumerate(self.st.compares)])
        groups: list[list[tuple[int, str, int]]] = []
        for condition in conditions:
            if groups and self.s.tokens[condition[0]].form in ("and", "but", "or", "nor"):
                groups[-1].append(condition)
            else:
                groups.append([condition])
        if len(groups) == 1:
            return ()
        if len(groups) > 2 or self.predicate(groups[0][0][0]) or not self.predicate(groups[1][0][0]):
            self.problems.append(f"the {aggregate} of files with two conditions: which files is it of? "
                                 "say 'what fraction of python files with more than 10 functions mention TODO'")
            return ()
        return tuple((role, k) for _index, role, k in groups[0])

    def predicate(self, start: int) -> bool:
        """Whether the condition starting at token ``start`` is the sentence's verb ("mention X", "are longer than"), not said of a noun."""
        tokens = self.s.tokens
        if tokens[start].form in MAIN_VERBS | {"do", "does", "define", "defines"}:
            return True
        return start > 0 and tokens[start - 1].form in ("are", "is", "have", "has") and (start < 2 or tokens[start - 2].form not in ("that", "which"))

    def positioned(self, files: Files, of: str | None, word: str | None) -> Intent | None:
        """"the last line of README.md", "the first 3 lines of X": lines of one file by where they stand."""
        st = self.st
        if not files.path or files.ext or files.names or files.glob:
            self.problems.append("the first or last lines of which file? name one")
        if of not in (None, "lines", "files") or st.filters or word or st.orders or st.compares or st.excludes or st.each or st.asks & {"count", "exists", "all"}:
            self.problems.append("lines by position, and another question at once")
        return None if self.problems else Intent("read", "text", files, position=st.position)

    def longest_definition(self, files: Files, kind: str | None, ranking: dict) -> Intent | None:
        """"the longest function": definitions ranked by their lines (the definition's line and its block)."""
        st = self.st
        if st.filters or st.compares or st.each or st.aggregate or st.names or st.name_rank is not None or st.def_end or st.distinct or st.common:
            self.problems.append("the longest definition, and another question at once")
        if files.ext not in (None, "*.py") or files.glob:
            self.problems.append("definitions are understood in Python files only")
        if self.problems:
            return None
        files = files if files.ext or files.path else replace(files, ext="*.py")
        ranking = {**ranking, "kind": kind or "function"}
        return Intent("top", "definitions", files, names=True, outside=tuple(dict.fromkeys(st.excludes)), owner=st.owner, **ranking)

    def finish(self, ask: str, of: str, files: Files, word: str | None, kind: str | None, filters: list[Filter],
               where: tuple[Compare, ...], def_names: tuple[str, ...], group: bool, ranking: dict) -> Intent | None:
        """The Intent of the parts decided, after the last checks of what goes with what."""
        st = self.st
        if def_names and (of != "definitions" or ask not in ("count", "list", "exists") or any(not _simple_name(n) for n in def_names)):
            self.problems.append("names of definitions are understood in counts, lists and yes/no questions, as 'with X in their name', 'starting with X' or 'ending with X'")
            return None
        if group and st.packages and files.ext is None and not files.glob:
            files = replace(files, ext="*.py")  # a package is a directory of Python files
        if group and (files.path or any(f.lines for f in filters) or st.aggregate or def_names):
            self.problems.append("per directory: a count or ranking of what the files hold, with no other question")
            return None
        return Intent(where=where, outside=tuple(dict.fromkeys(st.excludes)), aggregate=st.aggregate, def_names=def_names, group=group, among=self.among,
            ask=ask, of=of, files=files, word=word, kind=kind if "definitions" in (of, ranking.get("order")) or of == "params" else None,
            filters=tuple(filters), ignore_case=bool(st.case), each=st.each, names=st.names_wanted or st.distinct or bool(st.def_end) or st.name_rank is not None,
            distinct=st.distinct or of == "imports" and st.imports_said != "statements", def_end=st.def_end, common=st.common, first_word=st.first_word,
            owner=st.owner, base=st.base, per_class=self.per_class(),
            name_where=st.name_rank is not None and ("where" in st.asks or any(u == "files" for u, _i, _p in st.units)), threshold=st.threshold, origin=st.imports_origin, name_rank=st.name_rank, name_length=st.name_length, **ranking,
        )

    def single(self, files: Files, of: str | None, word: str | None) -> Intent | None:
        """The questions of one kind that stand alone: lines by position, a part of a file, two files compared, a member."""
        st = self.st
        if st.position is not None:
            return self.positioned(files, of, word)
        if st.part is not None:
            return self.part(files, of, word)
        if st.versus is None:
            return self.member(files, of, word)
        first, second, measure, op = st.versus
        if st.filters or word or st.orders or st.compares or st.aggregate or st.each or st.group_each or st.excludes:
            self.problems.append("two files compared, and another question at once")
            return None
        return Intent("versus", "files", Files(path=first), other=second, order=measure, largest=op == ">")

    def member(self, files: Files, of: str | None, word: str | None) -> Intent | None:
        """"what arguments does f take" (a function's parameters), "which class has the most methods" (classes by their methods)."""
        st = self.st
        if files.ext not in (None, "*.py") or files.names or files.glob:
            self.problems.append("definitions are understood in Python files only")
        if st.filters or word or st.orders or st.compares or st.each or st.group_each or st.aggregate or st.owner and st.params_of is None:
            self.problems.append("a function's parameters, a class's bases, or the class with the most methods, and another question at once")
        if self.problems:
            return None
        files = files if files.ext or files.path else replace(files, ext="*.py")
        if st.params_of is not None:
            return Intent("count" if "count" in st.asks else "list", "params", files, def_names=(st.params_of,), outside=tuple(st.excludes),
                          owner=st.owner)
        if st.bases_of is not None:
            return Intent("list", "bases", files, def_names=(st.bases_of,), outside=tuple(st.excludes))
        return Intent("list", "definitions", files, kind="class", names=True, class_rank=st.class_rank, outside=tuple(st.excludes))

    def part(self, files: Files, of: str | None, word: str | None) -> Intent | None:
        """"the docstring of src/app.py": a part of one file."""
        st = self.st
        word = st.part_of or word
        named = word is not None and re.fullmatch(r"[A-Za-z_]\w*", word) and not files.path  # "the docstring of Catalogue": a class's or a function's
        if named and not (files.ext or files.names or files.glob):
            files = replace(files, ext="*.py")
        elif not files.path or files.ext or files.names or files.glob:
            self.problems.append(f"the {st.part} of which file? name one ('the {st.part} of src/app.py')")
        if of not in ((None, "files", "matches", "definitions") if named else (None, "files")) or st.filters or word and not named \
                or st.orders or st.compares or st.excludes or st.each \
                or st.asks & {"count", "exists", "all"}:
            self.problems.append(f"the {st.part} of a file, and another question at once")
        return None if self.problems else Intent("read", st.part, files, def_names=(word,) if named else ())

    def intent(self) -> Intent | None:
        st = self.st
        def_names = self.definition_names()
        files = self.files()
        of, word, kind = self.subject()
        # "read X", "list src", "show me README.md", "what's in docs": a file's text or a directory's entries
        the_file = of == "files" and files.path and [(u, p) for u, _i, p in st.units] == [("files", False)]  # "show me the file X"
        if st.position is not None or st.part is not None or st.versus is not None \
                or st.params_of is not None or st.class_rank is not None or st.bases_of is not None:
            return self.single(files, of, word)
        if st.aggregate in PER_FILE:
            st.each = False  # "per file" is what an average (or a median) is taken over
        plain = (of is None or the_file) and not (
            st.filters or word or st.orders or st.each or files.ext or files.glob or files.names or st.compares or st.excludes
        )
        if st.asks & {"read", "ls"} or st.asks <= {"list"} and plain and (files.path or files.dir or st.dirs):
            if not plain:
                self.problems.append("reading a file or listing a directory, and another question at once")
                return None
            return Intent("read", "text", files) if files.path else Intent("ls", "entries", files)
        ask = "list" if st.name_rank is not None and self.value == "chars" else self.ask(of, word, files)
        if ask is None:
            return None
        if st.asks & {"grep", "where"} and of in (None, "matches"):
            of = "lines"  # "grep X", "where is X used": the lines
        ranking = self.ranking(kind) if ask == "top" else {}
        if self.value is not None and ask == "top":
            ranking.update(single=True, n=None, value=self.value)
        elif self.value is not None:
            ranking["value"] = self.value  # the length of the longest name
        group = st.group_each or ask == "top" and of == "dirs"
        if ask == "top" and of == "lines" and not group:
            return self.longest_line(files, ranking)
        if group and ask == "top":
            of = "files"  # directories are ranked by what their files hold
        if group and st.group_each:
            self.grouped(ask, of)
        if ranking.get("order") == "files" and not group:
            self.problems.append("ranked by the number of files: only directories hold files")
        if ask == "top" and of == "definitions" and ranking.get("order") in ("lines", "params") and not group and self.value is None:
            return self.longest_definition(files, kind, ranking)
        if ranking.get("order") == "params":
            self.problems.append("ranked by parameters: only definitions take them ('which function takes the most parameters')")
            return None
        if ask == "top":
            self.check(ask, of, files, [], word)
            of, kind = "files", ranking.pop("kind")
            if ranking["order"] == "matches" and word is None:
                self.problems.append("the most of what? name the word")
        if of is None:
            if ask == "count" and files.path:
                self.problems.append(f"count what in {files.path}? lines, words, characters, or a word's occurrences")
                return None
            if not (st.filters or st.compares or files != Files() or st.each) or ask == "list" and word:
                self.problems.append("what to count or list?")
                return None
            of = "files"
        filters = self.filters(of, files.path)
        # a search word is the lines that contain it (listing, "lines containing"), or for yes/no the files that do
        if of == "matches" and ask == "list" or of == "lines" and word is not None and not any(f.lines for f in filters):
            of, filters, word = "lines", [Filter(word, lines=True)] + filters, None
        if ask == "exists" and of == "matches":
            of, filters, word = "files", [Filter(word)] + filters, None
        if ("definitions" in (of, ranking.get("order")) or of in ("imports", "params")) and files.ext is None and not files.path and not files.glob:
            files = replace(files, ext="*.py")
        if of == "lines" and ask == "list" and st.compares and any(unit == "files" for unit, _index, _many in st.units):
            of = "files"  # "which modules have lines longer than 30 characters": the modules, kept by a line's length
        self.check(ask, of, files, filters, word)
        where = self.compares(files, of)
        code_parts = any(f.docstring or f.imports or f.every for f in filters)
        if (code_parts or any(c.measure == "definitions" for c in where)) and files.ext is None and not files.path and not files.glob:
            files = replace(files, ext="*.py")  # "files with no classes", "files with a docstring": parts of Python files
        self.check_aggregate(of, files, filters, where)
        self.check_names(ask, of, files, def_names, group)
        if self.problems:
            return None
        return self.finish(ask, of, files, word, kind, filters, where, def_names, group, ranking)


#: Cues that are a finite verb: right after a noun for files with no "that" before them, the verb is the
#: sentence's own, so its subject is what is asked about ("lines in files mention X"), not the files.
MAIN_VERBS = frozenset("contain contains mention mentions include includes reference references match say says use".split())


def _simple_name(pattern: str) -> bool:
    """A name pattern a program can test without fnmatch: X, X*, *X or *X* with no other wildcard."""
    return not re.search(r"[?\[\]]", pattern) and "*" not in pattern.strip("*") and pattern.strip("*") != ""


#: Longer intents are not the one-line questions this parser is for; skipping them keeps it fast.
MAX_INTENT_CHARS = 300


@lru_cache(maxsize=512)
def parse(intent: str) -> Parsed:
    """The structure of ``intent``, or what was understood and what was not."""
    if len(intent) > MAX_INTENT_CHARS:
        return Parsed(None, problems=(f"longer than {MAX_INTENT_CHARS} characters",))
    tokens = tokenize(canonical(intent))  # everyday wordings first brought to the one the passes read
    if not tokens:
        return Parsed(None)
    sentence, state = read(tokens, (parse_versus, parse_conditions, parse_parts, parse_common, parse_members, *PASSES))
    unknown = _leftovers(sentence, state)
    concept = _concept_searched(sentence, state)
    if concept is not None:  # two fair readings, and one of them is not understood: refused, saying both
        return Parsed(None, tuple(state.understood), (), (concept,))
    substantive = [r for r in sentence.roles if r and r not in ("ask",)] or state.asks & {"count", "exists", "all"}
    understood = tuple(state.understood) if substantive else ()
    if unknown:
        return Parsed(None, understood, tuple(unknown))
    draft = _Draft(sentence, state)
    intent_ = draft.intent()
    if intent_ is None:
        return Parsed(None, understood, (), tuple(dict.fromkeys(draft.problems)))
    files_at = [index for unit, index, _plural in state.units if unit == "files"]
    definitions_at = [index for unit, index, _plural in state.units if unit == "definitions"]
    if intent_.of == "definitions" and files_at and definitions_at and min(files_at) < min(definitions_at) and not intent_.name_where:
        # "which files define a function called X" asks for files; an answer of definitions would look like one
        return Parsed(None, understood, (), ("files that define a name are not understood yet: ask for the definitions "
                                             "('functions named X'), or for the files holding its code ('files containing def X')",))
    return Parsed(intent_, (intent_.describe(),))


__all__ = ["Files", "Filter", "Intent", "KINDS", "NotUnderstood", "Parsed", "offered", "parse", "tokenize"]
