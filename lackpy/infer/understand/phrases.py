"""Recognising the parts of a question: passes that claim the words they understand.

Each pass looks for its phrases ("how many", "without any X", "in src/pkg1",
"the 5 longest", "ignoring case") among the words no earlier pass claimed,
records what they mean in a ``State`` and claims them. Patterns are regexes
over the words (one space between words, claimed words hidden), so a phrase
is found wherever it stands in the sentence: "how many TODOs in src" and
"TODO count for src" claim the same parts. The order of ``PASSES`` settles
overlaps: "with the most TODOs" is an ordering before "with TODOs" can be a
filter. What no pass claims is left for ``lackpy.infer.understand.intent``
to judge.
"""

from __future__ import annotations

import re
from functools import partial
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable

from lackpy.infer.understand.words import (
    BOUNDARY, CLAIMED, CODE_STARTS, DIR_PATH, FILLER, LOOSE_TYPES, MAGIC, NUMBER_WORDS, TYPE_WORDS, Token, code_like, is_file,
    is_path, search_word, type_of,
)

# -- the sentence: words and who claimed them ------------------------------------------------


class Sentence:
    """The tokens of an intent; a pass claims the tokens whose meaning it understood."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.roles: list[str | None] = [None] * len(tokens)

    def render(self) -> tuple[str, list[int]]:
        forms = [CLAIMED if role else token.form for token, role in zip(self.tokens, self.roles)]
        starts, offset = [], 0
        for form in forms:
            starts.append(offset)
            offset += len(form) + 1
        return " ".join(forms), starts

    def scan(self, pattern: re.Pattern[str], handle: Callable[["Hit"], bool]) -> None:
        """Give each match of ``pattern`` among unclaimed words to ``handle``; it returns whether it claimed."""
        position = 0
        while True:
            text, starts = self.render()
            match = pattern.search(text, position)
            if match is None:
                return
            position = 0 if handle(Hit(self, match, starts)) else match.start() + 1

    def free(self, index: int) -> bool:
        return 0 <= index < len(self.tokens) and self.roles[index] is None

    def first_free(self) -> int:
        return next((i for i, role in enumerate(self.roles) if role is None), -1)


class Hit:
    """One match of a pass's pattern, in tokens."""

    def __init__(self, sentence: Sentence, match: re.Match[str], starts: list[int]) -> None:
        self.sentence, self.match, self.starts = sentence, match, starts

    def has(self, group: str) -> bool:
        return group in self.match.re.groupindex and self.match.group(group) is not None

    def span(self, group: str | int = 0) -> range:
        start, end = self.match.span(group)
        return range(bisect_right(self.starts, start) - 1, bisect_right(self.starts, end - 1))

    def form(self, group: str) -> str:
        return self.match.group(group)

    def token(self, group: str) -> Token:
        return self.sentence.tokens[self.span(group)[0]]

    def index(self, group: str | int = 0) -> int:
        return self.span(group)[0]

    def claim(self, role: str, *indices: int) -> bool:
        for index in indices or self.span(0):
            self.sentence.roles[index] = role
        return True


def rx(pattern: str) -> re.Pattern[str]:
    """A phrase pattern over the words, aligned to whole words (words are separated by one space)."""
    return re.compile(r"(?<![^ ])(?:" + pattern + r")(?![^ ])")


W = r"[^ \x00]+"  # any word not yet claimed
NUM = r"\d+|" + "|".join(NUMBER_WORDS)
TYPE = r"\*?\.[a-z0-9+]+|" + "|".join(re.escape(w) for w in sorted(TYPE_WORDS, key=len, reverse=True))
FILE_NOUN = r"files?|modules?|scripts?|sources?|source files?|programs?|documents?"
DIR_NOUN = r"director(?:y|ies)|folders?|dirs?|trees?|subdirector(?:y|ies)|subfolders?|subdirs?"
DET = r"(?:(?:all of|all|every|each|any|the|these|those|our|my|this) )*"
INTRO = r"(?:(?:any|a|an|the|some|single|(?P<pair>both|either)) )?(?:(?P<intro>word|string|text|phrase|pattern|keyword|term|token|identifier|marker|literal) )?"
DESCRIPTOR = r"(?: (?:comments?|markers?|notes?|items?|tags?|entries))?"
HERE = (r"(?:the |this |our |my |whole |entire )*(?:workspace|repo|repository|project|codebase|code base|code|source tree|tree|"
        r"(?:current|working|top-level|root) (?:directory|folder|dir)|root)|here|\.|\./|everywhere|anywhere|it|them|there")

# -- the state a parse builds -----------------------------------------------------------------


@dataclass
class State:
    """What the passes found, before it is judged: every part as often as it was said (two types is a conflict).

    ``asks`` holds count, list, exists, all, read, ls, grep, where; ``units``
    the nouns of what is asked about; ``terms`` search words given without a
    filter cue; ``filters`` those given with one; ``understood`` phrases for
    the message when the intent is refused.
    """

    asks: set[str] = field(default_factory=set)
    units: list[tuple[str, int, bool]] = field(default_factory=list)  # (unit, token index, plural)
    kinds: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    vague: bool = False  # "code", "sources": which files is not said
    dirs: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    globs: list[str] = field(default_factory=list)
    names: list[tuple[str, ...]] = field(default_factory=list)
    terms: list[tuple[str, str]] = field(default_factory=list)  # (word, how it was given)
    filters: list[tuple[str, bool, int]] = field(default_factory=list)  # (word, negated, index of the cue)
    file_nouns: set[int] = field(default_factory=set)  # token indexes of nouns for files
    case: bool | None = None
    orders: list[tuple[str | None, bool]] = field(default_factory=list)  # (measure, largest)
    order_terms: list[str] = field(default_factory=list)
    n: list[int] = field(default_factory=list)
    nth: int | None = None  # "the second largest": the place in the ranking asked for
    each: bool = False
    names_wanted: bool = False
    distinct: bool = False  # "distinct function names": each name once
    def_end: str | None = None  # "the first function in X": "first" or "last"
    name_rank: bool | None = None  # "the longest function name": True, "the shortest": False
    name_length: bool = False  # "the average length of a function name": the aggregate is of the names' lengths
    sorted_only: bool = False  # ordered by "sorted by ..." alone: every file, in order
    in_bytes: bool = False  # "size in bytes": sizes are bytes, not characters
    compares: list[tuple[str, str, int, str | None, int]] = field(default_factory=list)  # (measure, op, value, word, index): "over 40 lines"
    excludes: list[str] = field(default_factory=list)  # directories left out: "outside src/pkg1"
    alternatives: dict[int, list[str]] = field(default_factory=dict)  # filter position -> other words, any of which will do ("X or Y")
    blanks: set[int] = field(default_factory=set)  # filter positions that keep blank lines (not a word): "empty lines"
    docstrings: set[int] = field(default_factory=set)  # filter positions that keep files with a docstring (or, negated, without)
    imports: set[int] = field(default_factory=set)  # filter positions whose word is a module the files import
    part: str | None = None  # "docstring": the part of one file asked for ("the docstring of X")
    part_of: str | None = None  # the class or function whose part is asked for ("the docstring of Catalogue")
    starts: set[int] = field(default_factory=set)  # filter positions that keep lines starting with the word
    places: set[int] = field(default_factory=set)  # filter positions whose word is the folder the lines' files are in (a share)
    aggregate_share: bool = False  # a share was said: "what percentage of the lines are in tests"
    every_def: set[int] = field(default_factory=set)  # filter positions every definition of a file must pass ("where every function ...")
    decorators: set[int] = field(default_factory=set)  # filter positions whose word is a decorator the definitions carry
    types_counted: set[int] = field(default_factory=set)  # filter positions whose word is an extension the files counted have
    owner: str | None = None  # the class whose methods are asked about ("the Inventory class")
    class_rank: bool | None = None  # the class with the most (True) or fewest (False) methods
    params_of: str | None = None  # the function whose parameters are asked for
    base: str | None = None  # the class whose subclasses are asked for
    bases_of: str | None = None  # the class whose bases are asked for
    threshold: tuple[str, int] | None = None  # "are there more than 50 files": the count compared with a number
    common: str | None = None  # the commonest names, by their "definitions" or by the "files" that define them
    first_word: bool = False  # with ``common``: the commonest first word of the names
    versus: tuple[str, str, str, str] | None = None  # two files compared: (first, second, measure, op)
    imports_origin: str | None = None  # "stdlib" or "external": the imported modules of that origin only
    imports_said: str | None = None  # "modules" (imported, each once), "statements" (import lines) or "imports" (either)
    position: tuple[str, int | None] | None = None  # ("first" or "last", how many; None: one line): "the last line of X"
    aggregate: str | None = None  # "average" or "median" (per file), "fraction" or "percentage" (of the files)
    named_at: dict[int, int] = field(default_factory=dict)  # position in ``names`` -> token index of its "name" phrase
    group_each: bool = False  # "per folder", "each package": one figure per directory
    packages: bool = False  # the directories were called packages: those of Python files
    understood: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.understood:
            self.understood.append(text)


def _number(form: str) -> int:
    return NUMBER_WORDS.get(form) or int(form)


# -- passes ---------------------------------------------------------------------------------------
# Each pass is (pattern, handler); handlers read the match, record meaning in the state, and claim.

_CASE_ON = rx(
    r"(?:while |when |but |and )?(?:ignoring|ignore|disregarding|regardless of|irrespective of|without regard to) (?:the )?(?:letter )?case"
    r"|case-?insensitive(?:ly)?|case insensitive(?:ly)?|in any case|in either case|(?:in )?(?:upper or lower|lower or upper) ?case"
    r"|no matter (?:the|what) case"
)
_CASE_OFF = rx(r"case-?sensitive(?:ly)?|case sensitive(?:ly)?|(?:with|matching|respecting) (?:the )?(?:exact )?case|exact case")
_NUMBERED = rx(r"(?:with|showing|and show|including|plus|and) (?:the )?line numbers|numbered")


def _parse_case(s: Sentence, st: State) -> None:
    def on(hit: Hit) -> bool:
        st.case = True
        st.note("ignoring case")
        return hit.claim("case")

    def off(hit: Hit) -> bool:
        st.case = False
        return hit.claim("case")

    s.scan(_CASE_ON, on)
    s.scan(_CASE_OFF, off)
    s.scan(_NUMBERED, lambda hit: hit.claim("numbers"))


_READ = rx(
    r"(?:(?P<verb>read|cat|open|view|dump|ls|list)"
    r"|(?:(?:show|print|display|give|get|list)(?: me)? )?(?:the )?(?:contents?|text|content|entries) of"
    r"|what (?:is|are) (?:the (?:contents?|files?|entries) )?(?:in|inside))"
    r"(?: (?:the )?(?:file |(?:" + DIR_NOUN + r") )?(?P<x>" + W + r")(?: (?:" + DIR_NOUN + r"|file))?)?$"
)
_SAYS = rx(r"what does (?:the )?(?P<x>" + W + r")(?: file)? (?:say|contain)")


def _parse_read(s: Sentence, st: State) -> None:
    """"read X", "cat X", "what's in X", "contents of X", "ls X", "list src", "what does X say": the sentence ends with X."""

    def target(hit: Hit) -> bool:
        """Place X: a file is read, a directory (a path, or any plain word here) is listed."""
        if not hit.has("x"):
            return True
        token = hit.token("x")
        if token.form in ("current", "working", "root", "top-level", ".", "./"):
            st.dirs.append(".")
            return True
        if token.quoted or token.form in LEXICON or type_of(token.form):
            return False
        if hit.has("verb") and hit.form("verb") not in ("ls", "list") and not is_file(token.raw):
            return False  # "read the docs": read takes a file
        if hit.has("verb") and hit.form("verb") == "list" and code_like(token, False) and not is_path(token.raw):
            return False  # "list the TODOs": a search word, not a directory
        return _place(st, token.raw, as_dir=not is_file(token.raw))

    def read(hit: Hit) -> bool:
        verb = hit.form("verb") if hit.has("verb") else None
        if verb == "list" and not hit.has("x") or not target(hit):
            return False
        st.asks.add("ls" if verb in ("ls", "list") else "read")
        return hit.claim("read")

    def says(hit: Hit) -> bool:
        if not target(hit):
            return False
        st.asks.add("read")
        return hit.claim("read")

    s.scan(_SAYS, says)
    s.scan(_READ, read)


_COUNT = rx(
    r"how many|how much|how often|(?:what is |what are )?(?:the )?(?:total )?(?:number|count|amount|tally|sum) of"
    r"|(?:the )?total number|(?:the )?totals?|sum(?: up)?|count(?:ing)?(?: up)?|counts|tally(?: up)?|add up"
)
_YES_NO = rx(r"^(?:(?:please|so|and|also|now|ok|okay|hey|quick question) )*(?P<aux>is there|are there|is|are|does|do|did|has|have|any)(?: (?P<q>all(?: of)?(?: the)?|every|each))?")
_LIST = rx(r"(?<!with )(?<!named )(?<!called )(?<!like )(?:list|show|find|get|give|display|print|enumerate|locate|fetch|output|which|what|tell)")
_WHERE = rx(r"where (?:is|are|do|does)")


def _parse_ask(s: Sentence, st: State) -> None:
    def count(hit: Hit) -> bool:
        if st.orders and hit.match[0].removeprefix("the ") in ("total", "totals"):
            return hit.claim("order")  # "the largest total size", "the most lines in total": the total is what is ranked
        st.asks.add("count")
        st.note("a count")
        if hit.match[0] == "how often":
            st.units.append(("matches", hit.index(0), True))
        return hit.claim("ask")

    def yes_no(hit: Hit) -> bool:
        if hit.form("aux") == "any" and hit.index("aux") != s.first_free():
            return False
        st.asks.add("all" if hit.has("q") else "exists")
        st.note("a yes/no question")
        return hit.claim("ask")

    s.scan(_YES_NO, yes_no)
    s.scan(_COUNT, count)
    s.scan(_WHERE, lambda hit: st.asks.add("where") or hit.claim("ask"))
    s.scan(_LIST, lambda hit: st.asks.add("list") or hit.claim("ask"))


#: Places in a ranking said as words ("the second largest file").
ORDINALS = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
_TOP_N = rx(r"(?:the )?(?:top|first) (?P<n>" + NUM + ")")
_SUPERLATIVE = rx(
    r"(?:the )?(?:(?P<n>" + NUM + r") )?(?:(?P<ord>" + "|".join(ORDINALS) + r") )?"
    r"(?P<sup>largest|biggest|longest|smallest|shortest|tiniest|heaviest|lightest)(?: (?P<n2>" + NUM + "))?"
    r"(?! (?:number|count|amount) of )"  # "the largest number of lines" ranks by lines (``_MOST``), not by size
)
_WIDEST = rx(r"(?:has|with|having|contains|containing|holds) the (?P<dir>longest|widest|shortest) line\b")
_MOST = rx(
    r"(?:the )?(?:(?P<ord>" + "|".join(ORDINALS) + r") )?(?P<dir>most|fewest|least|(?:highest|largest|greatest|biggest|maximum|max) (?:number|count|amount) of"
    r"|(?:lowest|smallest|minimum|min) (?:number|count|amount) of)(?: (?:occurrences|mentions|instances) of)? "
    + INTRO + r"(?P<what>" + W + ")" + DESCRIPTOR
)
_BY = rx(
    r"(?:(?:sorted|ordered|ranked|sort|order|rank) )?by (?:the )?(?:number of |count of )?(?P<m>size|length|line count|lines of code|lines?|word count|words?|bytes?"
    r"|characters|chars|functions|definitions|defs|classes)(?: (?P<dir>ascending|descending|(?:smallest|largest|biggest|fewest|most) first))?"
)
_N_BEFORE = rx(r"(?P<n>" + NUM + r")(?= (?:(?:" + TYPE + r") )?(?:" + FILE_NOUN + r"|packages|" + DIR_NOUN + r"))")
_MOST_FILES = rx(r"(?:the )?(?P<dir>most|fewest|least) (?:(?P<type>" + TYPE + r") )?(?:" + FILE_NOUN + r")")
_BY_COUNT = rx(r"by (?:the )?(?:number|count) of " + INTRO + r"(?P<what>" + W + ")" + DESCRIPTOR)
SUPERLATIVES = {
    "largest": ("chars", True), "biggest": ("chars", True), "heaviest": ("chars", True),
    "smallest": ("chars", False), "tiniest": ("chars", False), "lightest": ("chars", False),
    "longest": ("lines", True), "shortest": ("lines", False),
}
MEASURES = {
    "lines": "lines", "line": "lines", "length": "lines", "line count": "lines", "lines of code": "lines", "loc": "lines",
    "words": "words", "word": "words", "word count": "words", "characters": "chars", "chars": "chars", "size": "chars", "imports": "imports",
    "parameters": "params", "params": "params", "arguments": "params", "args": "params", "bytes": "bytes", "byte": "bytes",
    "functions": "function", "defs": "function", "classes": "class", "definitions": "any",
}


def _parse_name_rank(s: Sentence, st: State) -> None:
    """"the longest function name": a name of a definition, ranked by its length (before rankings of files claim the word)."""

    def name_rank(hit: Hit) -> bool:
        st.name_rank = hit.form("sup") == "longest"
        st.kinds.append({"class": "class", "method": "method"}.get(hit.form("kind") or "", "function"))
        st.units.append(("definitions", hit.index("sup"), False))
        st.note(f"the {hit.form('sup')} name")
        return hit.claim("order")

    s.scan(_NAME_RANK, name_rank)


def _by(st: State, hit: Hit) -> bool:
    """"sorted by size", "by line count": the measure, and the direction when one is said."""
    measure = MEASURES[hit.form("m")]
    if measure in ("function", "class", "any"):
        st.kinds.append(measure)
        measure = "definitions"
    direction = hit.form("dir") or ""
    said = [o for o in st.orders if o[0] is not None]
    if said and not direction:  # "the second biggest by line count": the superlative says which end, "by" what is measured
        st.orders = [(measure, said[0][1]) if o is said[0] else o for o in st.orders]
        return hit.claim("order")
    st.orders.append((measure, not any(w in direction for w in ("ascending", "smallest", "fewest"))))
    return hit.claim("order")


def _parse_widest(s: Sentence, st: State) -> None:
    """"which file has the longest line": files ranked by the length of their longest line (before "the longest" is a ranking by lines)."""

    def widest(hit: Hit) -> bool:
        st.orders.append(("width", hit.form("dir") != "shortest"))
        st.note(f"ranked by the {hit.form('dir')} line")
        return hit.claim("order")

    s.scan(_WIDEST, widest)


def _parse_order(s: Sentence, st: State) -> None:
    def top(hit: Hit) -> bool:
        st.n.append(_number(hit.form("n")))
        st.orders.append((None, True))
        return hit.claim("order")

    def superlative(hit: Hit) -> bool:
        measure, largest = SUPERLATIVES[hit.form("sup")]
        st.orders.append((measure, largest))
        for group in ("n", "n2"):
            if hit.has(group):
                st.n.append(_number(hit.form(group)))
        if hit.has("ord"):
            if st.n:
                return False  # "the 3 second largest": not a question
            st.nth = ORDINALS[hit.form("ord")]
        st.note(f"the {hit.form('ord') + ' ' if hit.has('ord') else ''}{hit.form('sup')}")
        return hit.claim("order")

    def ranked_by(hit: Hit, largest: bool, said: str) -> bool:
        """Rank by the thing named at group ``what``: a measure, definitions, or a word's matches; False when it is none."""
        what = hit.token("what")
        measure = MEASURES.get(what.form)
        if measure in ("function", "class", "any"):
            st.kinds.append(measure)
            measure = "definitions"
        elif measure is None:
            if what.form in LEXICON and not what.quoted or not (code_like(what, False) or what.quoted):
                return False
            st.order_terms.append(search_word(what))
            measure = "matches"
        st.orders.append((measure, largest))
        st.note(f"ranked by {said} {what.raw}")
        return hit.claim("order")

    def most(hit: Hit) -> bool:
        largest = not any(w in hit.form("dir") for w in ("fewest", "least", "lowest", "smallest", "minimum", "min"))
        if hit.has("ord"):  # "the 2nd most lines": that place of the ranking
            st.nth = ORDINALS[hit.form("ord")]
        return ranked_by(hit, largest, "most" if largest else "fewest")

    def most_files(hit: Hit) -> bool:
        """"the most python files": directories ranked by how many files they hold."""
        if hit.has("type"):
            if type_of(hit.form("type")) is None:
                return False
            st.types.append(type_of(hit.form("type")))
        st.orders.append(("files", hit.form("dir") == "most"))
        st.note(f"ranked by {hit.form('dir')} files")
        return hit.claim("order")

    def by_count(hit: Hit) -> bool:
        """"by number of TODOs": ranked by a word's matches (or a measure), most first."""
        return ranked_by(hit, True, "number of")

    def only_sorted() -> None:
        """Did only "sorted by" order the files (no top N, no superlative)? Then all of them are wanted."""
        st.sorted_only = bool(st.orders) and not st.n and not superlatives

    s.scan(_TOP_N, top)
    s.scan(_SUPERLATIVE, superlative)
    s.scan(_MOST_FILES, most_files)
    s.scan(_MOST, most)
    s.scan(_BY_COUNT, by_count)
    superlatives = bool(st.orders)
    s.scan(_BY, partial(_by, st))
    only_sorted()
    if st.orders:
        s.scan(_N_BEFORE, lambda hit: st.n.append(_number(hit.form("n"))) or hit.claim("n"))


_EACH = rx(
    r"(?:(?:in|for|of|from|does|do|has|have) )?(?:each|every single) (?:(?P<type>" + TYPE + r") )?(?:file|one|module|document)"
    r"|(?:per|by) (?:(?P<type2>" + TYPE + r") )?file|file by file|per-file|for each"
)


_EACH_DIR = rx(
    r"(?:(?:in|for|of|from|does|do|has|have) )?(?:each|every|per|by) (?:package|folder|directory|dir|subdirectory|subfolder)"
)


def _parse_each(s: Sentence, st: State) -> None:
    def each_dir(hit: Hit) -> bool:
        st.group_each = True
        st.packages = st.packages or "package" in hit.match[0]
        st.note("per directory")
        return hit.claim("each")

    s.scan(_EACH_DIR, each_dir)

    def each(hit: Hit) -> bool:
        st.each = True
        for group in ("type", "type2"):
            if hit.has(group):
                st.types.append(type_of(hit.form(group)))
        st.note("per file")
        return hit.claim("each")

    s.scan(_EACH, each)


_NAMED = rx(r"(?:that are |which are )?(?:named|called) (?P<p>" + W + ")")
_NAME_START = rx(r"(?:whose |with |that have |having )?(?:file ?)?names? (?:that )?(?:starts?|starting|begins?|beginning) with (?P<p>" + W + ")")
_NAME_END = rx(r"(?:whose |with |that have |having )?(?:file ?)?names? (?:that )?(?:ends?|ending) (?:with|in) (?P<p>" + W + ")")
_NAME_HAS = rx(
    r"(?:whose |with |that have |having )?(?:file ?)?names? (?:that )?(?:contains?|containing|including|includes) (?P<p>" + W + ")"
    r"|(?:with|have|has|having|that have|which have) (?P<p2>" + W + r") in (?:the|their|its) (?:file ?)?names?"
)
#: Right after a noun for definitions, "starting with X" can only be said of their names ("functions that start with parse");
#: after a noun for files it could be their text, so there "name" must be said.
_AFTER_DEFINITION = "|".join(f"(?<={noun} )" for noun in ("functions", "function", "defs", "classes", "class", "methods", "definitions"))
_DEF_START = rx(r"(?:" + _AFTER_DEFINITION + r")(?:that |which )?(?:starts?|starting|begins?|beginning) with (?P<p>" + W + ")")
_DEF_END = rx(r"(?:" + _AFTER_DEFINITION + r")(?:that |which )?(?:ends?|ending) (?:with|in) (?P<p>" + W + ")")
_GLOB_LIKE = rx(r"(?:that |which )?(?:match(?:es|ing)?|like) (?P<p>" + W + ")")
_EXTENSION = rx(
    r"(?:(?:that |which )?(?:end|ends|ending) (?:with|in)|with (?:the )?(?:extension|suffix)|with (?:the |an? )?) (?P<e>\*?\.[a-z0-9]+)(?: (?:extension|suffix))?"
)
_TEST = rx(r"tests?(?= (?:(?:" + TYPE + r") )?(?:" + FILE_NOUN + r"))")


def _parse_names(s: Sentence, st: State) -> None:
    def pattern(wrap: Callable[[str], str], group: str = "p") -> Callable[[Hit], bool]:
        def handle(hit: Hit) -> bool:
            g = group if hit.has(group) else "p2"
            token = hit.token(g)
            if token.form in STRUCTURE and not token.quoted or token.form in LEXICON and not re.fullmatch(r"\w+", token.raw):
                return False  # "named the", "starting with *": not a name; "starting with get": a name, though a word of the grammar
            st.named_at[len(st.names)] = hit.index(0)
            st.names.append((wrap(token.raw),))
            st.note(f"files named {wrap(token.raw)}")
            return hit.claim("name")
        return handle

    def globlike(hit: Hit) -> bool:
        raw = hit.token("p").raw
        if not MAGIC.search(raw):
            return False
        if "/" in raw:
            st.globs.append(raw)
        elif type_of(raw.lower()):
            st.types.append(type_of(raw.lower()))
        else:
            st.names.append((raw,))
        st.note(f"files matching {raw}")
        return hit.claim("name")

    def extension(hit: Hit) -> bool:
        st.types.append(type_of(hit.form("e")))
        return hit.claim("type")

    def test(hit: Hit) -> bool:
        st.names.append(("test_*", "*_test.*"))
        st.note("test files")
        return hit.claim("name")

    s.scan(_NAMED, pattern(lambda p: p))
    s.scan(_NAME_START, pattern(lambda p: p + "*"))
    s.scan(_NAME_END, pattern(lambda p: "*" + p))
    s.scan(_NAME_HAS, pattern(lambda p: "*" + p + "*"))
    s.scan(_DEF_START, pattern(lambda p: p + "*"))
    s.scan(_DEF_END, pattern(lambda p: "*" + p))
    s.scan(_GLOB_LIKE, globlike)
    s.scan(_EXTENSION, extension)
    s.scan(_TEST, test)


_AND = r"(?:(?:and|but) )?"
_REL = r"(?:(?:that|which|who|to) )?"
_NEG_CUE = rx(
    _AND + _REL + r"(?:(?:do|does|did) not (?:contain|mention|include|reference|use|match|have|say)|not (?:containing|mentioning|including|referencing|using|matching|having|with)"
    r"|(?:(?:contains?|containing|mentions?|mentioning|includes?|including|with|having|has|have) )?neither"
    r"|without(?: any)?|with no|(?:have|has|having) no|lacking|lacks?|missing|free of|(?<=and |but )not"
    r"|except (?:for )?(?:those|ones|files) (?:with|containing|mentioning)) " + INTRO + "(?P<t>" + W + ")" + DESCRIPTOR
)
_CUE = rx(
    _AND + _REL + r"(?P<cue>contains?|containing|mentions?|mentioning|includes?|including|references?|referencing|matching|match(?:es)?"
    r"|says?|saying|(?P<weak>with|having|has|have|using|uses?)) " + INTRO + "(?P<t>" + W + ")" + DESCRIPTOR
)
_CONJ = rx(r"(?P<conj>and|or|nor)(?: also)? " + INTRO + "(?P<t>" + W + ")" + DESCRIPTOR)
_GREP = rx(r"(?P<cue>grep|search|look|hunt|scan)(?: for| through)? " + INTRO + "(?P<t>" + W + ")" + DESCRIPTOR)
_OCCURRENCES = rx(r"(?P<unit>occurrences?|instances?|mentions?|appearances?|uses|usages?|hits|matches) of " + INTRO + "(?P<t>" + W + ")")
_PASSIVE = rx(
    r"(?:(?:the )?(?:word|string|text|phrase|keyword|term|token|marker) )?(?P<t>" + W + r") (?:is |are |does |do )?"
    r"(?:mentioned|used|referenced|written|found|present|appears?|occurs?|shows? up|comes? up)"
)
_INTRO_TERM = rx(r"(?:the )?(?:word|string|text|phrase|keyword|term|token|marker) (?P<t>" + W + ")")
_BARE = rx(r"(?P<t>" + W + ")" + DESCRIPTOR)


def _take_term(s: Sentence, hit: Hit, strong: bool) -> tuple[str, list[int]] | None:
    """The search word at group ``t`` (and the words of a code phrase after it), or None if it is not one."""
    index = hit.index("t")
    token = s.tokens[index]
    if not token.quoted:
        if token.form in STRUCTURE or token.form in NUMBERISH and not strong:
            return None
        if not strong and not code_like(token, index == 0):
            return None
    taken = [index]
    if not token.quoted and token.form in CODE_STARTS:
        following = index + 1
        while s.free(following) and not s.tokens[following].quoted and s.tokens[following].form not in BOUNDARY | LEXICON:
            taken.append(following)
            following += 1
        if len(taken) > 1:
            return " ".join(s.tokens[i].raw for i in taken), taken
    return search_word(token), taken


def _parse_filters(s: Sentence, st: State) -> None:
    def cue(negated: bool) -> Callable[[Hit], bool]:
        def handle(hit: Hit) -> bool:
            strong = negated or not hit.has("weak") or hit.has("intro") or hit.has("pair")  # "with both X and Y": words
            taken = _take_term(s, hit, strong)
            if taken is None:
                return False
            word, indexes = taken
            st.filters.append((word, negated, hit.index(0)))
            st.note(f"{'not ' if negated else ''}containing {word!r}")
            return hit.claim("filter", *hit.span(0), *indexes)
        return handle

    def term(how: str) -> Callable[[Hit], bool]:
        def handle(hit: Hit) -> bool:
            taken = _take_term(s, hit, strong=True)
            if taken is None:
                return False
            word, indexes = taken
            st.terms.append((word, how))
            if how == "grep":
                st.asks.add("grep")
            if how in ("occurrences", "passive"):
                st.units.append(("matches", hit.index(0), True))
            st.note(repr(word))
            return hit.claim("term", *hit.span(0), *indexes)
        return handle

    def joined(hit: Hit) -> bool:
        """"X and Y", "X or Y", "X nor Y" right after a filter's word: a second word, both needed, or either enough."""
        before = hit.index("conj") - 1
        last = next((k for k in range(len(st.filters) - 1, -1, -1)), None)
        if last is None or before < 0 or s.roles[before] != "filter":
            return False
        token = hit.token("t")
        if token.form in LEXICON and not token.quoted:
            return False
        taken = _take_term(s, hit, strong=True)
        if taken is None:
            return False
        word, indexes = taken
        _first, negated, _index = st.filters[last]
        if hit.form("conj") == "or" and not negated:
            st.alternatives.setdefault(last, []).append(word)  # containing X or Y
        else:
            st.filters.append((word, negated, hit.index(0)))  # X and Y; without X or Y; neither X nor Y
        st.note(f"{hit.form('conj')} {word!r}")
        return hit.claim("filter", *hit.span(0), *indexes)

    s.scan(_NEG_CUE, cue(True))
    s.scan(_GREP, term("grep"))
    s.scan(_OCCURRENCES, term("occurrences"))
    s.scan(_CUE, cue(False))
    s.scan(_CONJ, joined)
    s.scan(_PASSIVE, term("passive"))
    s.scan(_INTRO_TERM, term("intro"))


_SCOPE_PREP = r"in|under|inside|within|below|beneath|from|across|throughout|among"
_SCOPE = rx(
    r"(?P<prep>" + _SCOPE_PREP + r"|of|for|on) " + DET + r"(?:"
    r"(?P<here>" + HERE + r")"
    r"|(?P<test>tests? )?(?:(?P<type>" + TYPE + r") )?(?P<noun>" + FILE_NOUN + r"|code|source code)(?! (?:" + DIR_NOUN + r"))"
    r"|(?P<type2>" + TYPE + r")(?: (?P<noun2>" + FILE_NOUN + r"|code))?"
    r"|(?P<path>" + W + r")(?: (?P<pathnoun>" + DIR_NOUN + r"|package|files?))?"
    r")"
)
_DIR_NAMED = rx(r"(?:the )?(?P<dir>" + W + r") (?:" + DIR_NOUN + r"|package)")
_SUBJECT_DIR = rx(r"(?:does|do) (?P<dir>" + W + r")(?= (?:have|contain|define|hold|include)s?)")
_PATH = rx(r"(?P<path>" + W + r")(?: (?P<noun>file|" + DIR_NOUN + "))?")
_HERE_ALONE = rx(r"(?:the |this )?(?:current|working|top-level|root) (?:directory|folder|dir)")


def _place(st: State, raw: str, as_dir: bool = False, folder: bool = False) -> bool:
    """Record a path-like word as one file, a glob, a type or a directory; False when it is none of these."""
    lower = raw.lower()
    if type_of(lower) and "/" not in raw:
        st.types.append(type_of(lower))
    elif MAGIC.search(raw):
        if "/" in raw:
            st.globs.append(raw)
        else:
            st.names.append((raw,))
    elif is_file(raw) and not as_dir:
        st.paths.append(raw)
    elif as_dir or "/" in raw or raw in (".", "./"):
        if not DIR_PATH.fullmatch(raw) or (lower in _UNITS or lower in _SIZE_UNITS) and not folder:  # "in lines": a unit, not a directory
            return False
        st.dirs.append(raw.rstrip("/") or raw)
    else:
        return False
    st.note(f"in {raw}")
    return True


def _parse_scope(s: Sentence, st: State) -> None:
    """Where the question looks: here, a kind of file, a named directory, a subject directory or a path."""
    s.scan(_HERE_ALONE, lambda hit: st.dirs.append(".") or hit.claim("scope"))
    s.scan(_SCOPE, partial(_scope, st))
    s.scan(_DIR_NAMED, partial(_named_dir, st))
    s.scan(_SUBJECT_DIR, partial(_subject_dir, st))
    s.scan(_PATH, partial(_scope_path, st))


def _scope(st: State, hit: Hit) -> bool:
    """"in all files", "in python files", "in the tests", "under src/": one scope phrase, claimed when it is understood."""
    if hit.has("here"):
        understood = _scope_here(st, hit)
    elif hit.has("noun") or hit.has("type2"):
        understood = _scope_kind(st, hit)
    else:
        understood = _scope_place(st, hit)
    if not understood:
        return False
    if re.search(r"\beach\b", hit.match[0]):
        st.each = True
    return hit.claim("scope")


def _scope_here(st: State, hit: Hit) -> bool:
    prep = hit.form("prep")
    if prep in ("of", "for", "on") or hit.form("here") == "code" and prep != "in":
        return False
    st.note("in all files")
    return True


def _scope_kind(st: State, hit: Hit) -> bool:
    """A kind of file ("python files", "the tests", "source code")."""
    noun = hit.form("noun") or hit.form("noun2") or ""
    kind = hit.form("type") or hit.form("type2")
    if kind and (type_of(kind) is None or kind in LOOSE_TYPES and not noun):
        return False
    if kind:
        st.types.append(type_of(kind))
    if hit.has("test"):
        st.names.append(("test_*", "*_test.*"))
    if noun in ("code", "source code", "sources", "source", "source file", "source files", "scripts", "script", "programs", "program") and not kind:
        st.vague = True  # "the scripts": of which language, or the scripts folder? said with a type, or the folder named
    if noun:
        st.file_nouns.add(hit.index("noun") if hit.has("noun") else hit.index("noun2"))
    st.note(f"in {kind + ' ' if kind else ''}{noun or 'files'}")
    return True


def _scope_place(st: State, hit: Hit) -> bool:
    """A place after a preposition ("in src", "under docs/ folder", "in app.py file")."""
    token = hit.token("path")
    noun = hit.form("pathnoun") or ""
    if noun == "files" and not MAGIC.search(token.raw):
        return False  # "in python files" is a kind of file (``_scope_kind``); "in the test_*.py files" names them
    noun = "file" if noun == "files" else noun
    folder = noun not in ("", "file")  # "the scripts folder": a folder's name, whatever the word
    if token.quoted or token.form in LEXICON and token.form not in PLACE_WORDS and not folder:
        return False
    is_dir = bool(noun) and noun != "file"
    if not is_path(token.raw) and not type_of(token.form) and not MAGIC.search(token.raw):
        if hit.form("prep") not in _SCOPE_PREP.split("|") and not noun or noun == "file" or not DIR_PATH.fullmatch(token.raw):
            return False
        is_dir = True
    if not _place(st, token.raw, as_dir=is_dir, folder=folder):
        return False
    if noun == "file":
        st.file_nouns.add(hit.index("pathnoun"))
    return True


def _named_dir(st: State, hit: Hit) -> bool:
    """"the current directory", "the src folder"."""
    token = hit.token("dir")
    if token.quoted or token.form in LEXICON and token.form not in ("current", "working", "root"):
        return False
    if token.form in ("current", "working", "root", "top-level"):
        st.dirs.append(".")
    elif not _place(st, token.raw, as_dir=True):
        return False
    return hit.claim("scope")


def _subject_dir(st: State, hit: Hit) -> bool:
    """A directory the question is about ("src has how many files")."""
    token = hit.token("dir")
    if token.quoted or token.form in LEXICON or type_of(token.form) or not _place(st, token.raw, as_dir=not is_file(token.raw)):
        return False
    return hit.claim("scope", hit.index("dir"))


def _scope_path(st: State, hit: Hit) -> bool:
    """A path written as one ("src/app.py", "./")."""
    token = hit.token("path")
    if token.quoted or token.form in LEXICON or not (is_path(token.raw) or token.raw in (".", "./")):
        return False
    noun = hit.form("noun") or ""
    if not _place(st, token.raw, as_dir=bool(noun) and noun != "file"):
        return False
    if noun == "file":
        st.file_nouns.add(hit.index("noun"))
    return hit.claim("scope")


_UNITS = {
    **{w: "files" for w in ("file", "files", "document", "documents")},
    **{w: "files?" for w in ("module", "modules", "script", "scripts", "source", "sources", "program", "programs")},
    **{w: "lines" for w in ("line", "lines", "loc")},
    **{w: "words" for w in ("word", "words")},
    **{w: "chars" for w in ("character", "characters", "char", "chars", "size", "sizes", "letters")},
    **{w: "bytes" for w in ("byte", "bytes")},
    **{w: "function" for w in ("function", "functions", "defs", "function definitions", "function defs", "function definition")},
    **{w: "class" for w in ("class", "classes", "class definitions", "class definition", "class defs")},
    **{w: "any" for w in ("definition", "definitions")},
    **{w: "method" for w in ("method", "methods")},
    **{w: "toplevel" for w in ("top-level function", "top-level functions", "top-level def", "top-level defs")},
    **{w: "dirs" for w in ("package", "packages", "directory", "directories", "dir", "dirs", "folder", "folders", "subdirectory", "subdirectories",
                           "subdir", "subdirs", "subfolder", "subfolders", "sub-directories")},
    **{w: "matches" for w in ("occurrence", "occurrences", "match", "matches", "instance", "instances", "times", "mentions",
                              "hits", "appearances", "usages")},
    "names": "names", "code": "code", "source code": "code", "lines of code": "lines+code",
}
_UNIT = rx(
    r"(?:(?P<type>" + TYPE + r") )?(?P<u>lines of code|source code|function definitions?|function defs|class definitions?|class defs|top-level (?:functions?|defs?)|"
    + "|".join(sorted((re.escape(w) for w in _UNITS if " " not in w), key=len, reverse=True)) + ")"
)
_DEFINE_VERB = rx(r"defined|define|defines|declared|declare|declares")
_NAME_RANK = rx(r"(?:the )?(?P<sup>longest|shortest) (?P<kind>function|class|method) name(?! (?!(?:in|under|outside|across|of|among|within|anywhere|overall|everywhere)\b)\w)")
_DEF_END_AT = rx(r"(?:the )?(?P<end>first|last|final|" + "|".join(ORDINALS) + r")(?= (?:top-level )?(?:function|class|method|definition|def)\b)")
_DISTINCT = rx(r"(?:distinct|different|unique)(?= (?:function |class |method )?(?:names|functions|classes|methods|definitions))")


def _parse_units(s: Sentence, st: State) -> None:
    def unit(hit: Hit) -> bool:
        form, index = hit.form("u"), hit.index("u")
        meaning = _UNITS[form]
        kind = hit.form("type")
        if kind:
            if type_of(kind) is None:
                return False
            st.types.append(type_of(kind))
        plural = form.endswith("s") or form in ("loc", "code", "source code")
        if meaning in ("files", "files?"):
            if meaning == "files?" and not kind and not st.types:
                return False  # "modules", "scripts": of which language?
            st.units.append(("files", index, plural))
            st.file_nouns.add(index)
        elif meaning in ("function", "class", "any", "method", "toplevel"):
            st.kinds.append(meaning)
            st.units.append(("definitions", index, plural))
        elif meaning == "names":
            st.names_wanted = True
        elif meaning == "code":
            if not kind:
                st.vague = True
        elif meaning == "lines+code":
            st.units.append(("lines", index, True))
            if not kind:
                st.vague = True
        else:
            st.units.append((meaning, index, plural))
            st.packages = st.packages or form.startswith("package")
        st.note((kind + " " if kind else "") + form)
        return hit.claim("unit")

    s.scan(_DISTINCT, lambda hit: setattr(st, "distinct", True) or st.note("distinct") or hit.claim("distinct"))
    s.scan(_DEF_END_AT, lambda hit: setattr(st, "def_end", "last" if hit.form("end") in ("last", "final") else
                                            str(ORDINALS[hit.form("end")]) if hit.form("end") in ORDINALS else "first")
           or st.note(f"the {hit.form('end')}") or hit.claim("position"))
    s.scan(_UNIT, unit)
    if any(u == "definitions" for u, _, _ in st.units) or any(o == "definitions" for o, _ in st.orders):
        s.scan(_DEFINE_VERB, lambda hit: hit.claim("unit"))


def _parse_types(s: Sentence, st: State) -> None:
    for index, token in enumerate(s.tokens):
        if s.free(index) and not token.quoted and type_of(token.form):
            following = s.tokens[index + 1].form if index + 1 < len(s.tokens) else ""
            if token.form in LOOSE_TYPES and following not in _UNITS:
                continue
            st.types.append(type_of(token.form))
            st.note(f"{token.raw} files")
            s.roles[index] = "type"


def _parse_bare_terms(s: Sentence, st: State) -> None:
    """Words left that read as code or markers are what to count or find: "count TODOs", "any FIXMEs?"."""

    def bare(hit: Hit) -> bool:
        index = hit.index("t")
        token = s.tokens[index]
        if token.form in STRUCTURE and not token.quoted or token.form in NUMBERISH:
            return False
        # a plain word is a search word only when the sentence says it is text ("ignoring case");
        # a keyword of code ("count lambda in python files") is text to search for by itself
        if not (code_like(token, index == 0) or st.case is not None or token.form in KEYWORD_TERMS):
            return False
        if is_path(token.raw) and not token.quoted:
            return False
        word = search_word(token)
        st.terms.append((word, "bare"))
        st.note(repr(word))
        return hit.claim("term")

    s.scan(_BARE, bare)


_OPS = {
    "more than": ">", "over": ">", "above": ">", "greater than": ">", "at least": ">=", "no fewer than": ">=", "no less than": ">=",
    "fewer than": "<", "less than": "<", "under": "<", "below": "<", "at most": "<=", "no more than": "<=", "exactly": "==",
    "larger than": ">", "bigger than": ">", "longer than": ">", "smaller than": "<", "shorter than": "<",
}
#: The unit a comparison counts, and the factor its number is multiplied by.
_COMPARE_UNITS = {
    **{w: ("lines", 1) for w in ("line", "lines", "loc")},
    **{w: ("words", 1) for w in ("word", "words")},
    **{w: ("chars", 1) for w in ("character", "characters", "char", "chars")},
    **{w: ("bytes", 1) for w in ("byte", "bytes", "b")},
    **{w: ("bytes", 1024) for w in ("kb", "kib", "kilobyte", "kilobytes", "k")},
    **{w: ("bytes", 1024 * 1024) for w in ("mb", "mib", "megabyte", "megabytes")},
    **{w: ("function", 1) for w in ("function", "functions", "defs", "function definitions")},
    **{w: ("class", 1) for w in ("class", "classes")},
    **{w: ("any", 1) for w in ("definition", "definitions")},
    **{w: ("params", 1) for w in ("argument", "arguments", "arg", "args", "parameter", "parameters", "param", "params")},
}
_COMPARE = rx(
    r"(?:(?:with|having|that have|which have|that has|which has|that are|which are|that is|of"
    r"|(?P<defines>(?:that |which )?(?:defines?|defining|declares?|declaring))"
    r"|(?:that |which )?(?:contains?|containing|mentions?|mentioning)"
    r"|(?P<takes>(?:that |which )?(?:takes?|taking|accepts?|accepting))) )?"
    r"(?P<op>" + "|".join(sorted(map(re.escape, _OPS), key=len, reverse=True)) + r") "
    r"(?P<n>\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")(?: ?(?P<unit>" + "|".join(sorted(map(re.escape, _COMPARE_UNITS), key=len, reverse=True))
    + r"))?(?: (?P<t>" + W + r")" + DESCRIPTOR + ")?"
)


def _parse_compare(s: Sentence, st: State) -> None:
    """"with more than 40 lines", "larger than 2 KB", "fewer than 3 TODOs": files kept by a measure against a number."""

    def compare(hit: Hit) -> bool:
        op, number = _OPS[hit.form("op")], hit.form("n")
        value = float(number) if number[0].isdigit() else float(NUMBER_WORDS[number])
        span = list(hit.span(0))
        if hit.has("unit"):
            (measure, factor), word = _COMPARE_UNITS[hit.form("unit")], None
            if hit.has("t"):
                span = [i for i in span if i < hit.index("t")]  # the word after the unit is not the comparison's
        elif hit.has("t") and hit.form("op") not in ("larger than", "bigger than", "smaller than", "longer than", "shorter than"):
            token = hit.token("t")
            if token.form in LEXICON and not token.quoted or not (code_like(token, False) or token.quoted):
                return False
            measure, factor, word = "matches", 1, search_word(token)
        elif hit.form("op") in ("longer than", "shorter than"):
            measure, factor, word = "lines", 1, None
            if hit.has("t"):
                span = [i for i in span if i < hit.index("t")]
        else:
            return False  # "over 40" of what?
        if factor == 1 and value != int(value):
            return False  # "over 2.5 lines"
        if hit.has("defines") and measure not in ("function", "class", "any"):
            return False  # "define" is said of definitions: "files that define at least 11 functions"
        if hit.has("takes") and measure != "params":
            return False  # "take" is said of a function's arguments
        st.compares.append((measure, op, int(value * factor), word, hit.index(0)))
        st.note(f"{hit.form('op')} {number} {hit.form('unit') if hit.has('unit') else word or 'lines'}")
        return hit.claim("compare", *span)

    s.scan(_COMPARE, compare)


_OUTSIDE = rx(
    r"(?:that are |which are )?(?:outside(?: of)?|excluding|except(?: for| in| under)?|not in|not under|apart from|other than(?: in)?|but not in) "
    r"(?:the )?(?:(?:" + DIR_NOUN + r") )?(?P<x>" + W + r")(?: (?:" + DIR_NOUN + r"))?"
)


def _parse_outside(s: Sentence, st: State) -> None:
    """"outside src/pkg1", "excluding tests", "not in docs": a directory whose files are left out."""

    def outside(hit: Hit) -> bool:
        token = hit.token("x")
        raw = token.raw.rstrip("/")
        if token.quoted or token.form in LEXICON and token.form not in PLACE_WORDS or not DIR_PATH.fullmatch(raw) or is_file(raw) or MAGIC.search(raw):
            return False
        st.excludes.append(raw.removeprefix("./"))
        st.note(f"outside {raw}")
        return hit.claim("outside")

    s.scan(_OUTSIDE, outside)


_AGGREGATE = rx(
    r"(?:the |an? |on )?(?P<avg>average|mean|median)(?: (?:number|count|amount) of)?"
    r"|(?:the |a |what )?(?P<share>fraction|proportion|share|percentage|percent|%)(?: of)?"
)
_NAME_LENGTH = rx(r"(?:the |an? )?(?P<avg>average|mean|median) (?:length|number of characters) of (?:an? |the )?(?P<kind>function|class|method) names?")
_BLANK = rx(r"(?P<neg>non-?|not )?(?:empty|blank|whitespace-only)(?= lines?\b)")
_BLANK_SAID = rx(r"(?:that |which )?(?:are|is) (?P<neg>non-?|not )?(?:empty|blank|whitespace-only)")  # "lines that are blank"
_POSITION = rx(r"(?:the )?(?P<end>first|last|top|final|opening|bottom)(?: (?P<n>" + NUM + r"))? (?P<u>lines?)(?= (?:of|in|from) )")


def _parse_lines(s: Sentence, st: State) -> None:
    """A class of lines ("empty lines", "non-blank lines") and lines by position ("the last line of X", "the first 3 lines of X")."""

    def blank(hit: Hit) -> bool:
        st.blanks.add(len(st.filters))
        st.filters.append(("", hit.has("neg"), hit.index(0)))
        st.note(("non-" if hit.has("neg") else "") + "empty lines")
        return hit.claim("filter")

    def position(hit: Hit) -> bool:
        end = "last" if hit.form("end") in ("last", "final", "bottom") else "first"
        n = _number(hit.form("n")) if hit.has("n") else None
        if n is None and hit.form("u") == "lines":
            return False  # "the last lines of X": how many?
        st.position = (end, n)
        st.note(f"the {end} {n or ''} line{'s' if n else ''}".replace("  ", " "))
        return hit.claim("position")

    def aggregate(hit: Hit) -> bool:
        if hit.has("avg"):
            st.aggregate = "median" if hit.form("avg") == "median" else "average"
        else:
            st.aggregate = "percentage" if hit.form("share") in ("percentage", "percent", "%") else "fraction"
        st.note(f"the {st.aggregate}")
        return hit.claim("aggregate")

    def name_length(hit: Hit) -> bool:
        """"the average length of a function name": the names' lengths, averaged (or their median)."""
        st.aggregate = "median" if hit.form("avg") == "median" else "average"
        st.name_length = True
        st.kinds.append({"class": "class", "method": "method"}.get(hit.form("kind"), "function"))
        st.units.append(("definitions", hit.index("kind"), True))
        st.note(f"the {st.aggregate} length of a {hit.form('kind')} name")
        return hit.claim("aggregate")

    s.scan(_NAME_LENGTH, name_length)
    s.scan(_POSITION, position)
    s.scan(_BLANK, blank)
    s.scan(_BLANK_SAID, blank)
    s.scan(_AGGREGATE, aggregate)


_IN_BYTES = rx(r"(?:(?:in|as|measured in|counted in) )?(?:the number of )?bytes")


def _parse_bytes(s: Sentence, st: State) -> None:
    """"in bytes", "size in bytes": sizes are counted in bytes (a unit, never a directory named bytes)."""

    def in_bytes(hit: Hit) -> bool:
        if hit.match[0] == "bytes":
            return False  # the bare noun is a unit ("how many bytes"), which ``_parse_units`` claims
        st.in_bytes = True
        st.note("in bytes")
        return hit.claim("unit")

    s.scan(_IN_BYTES, in_bytes)


PASSES = (_parse_case, _parse_read, _parse_lines, _parse_compare, _parse_name_rank, _parse_widest, _parse_order, _parse_ask, _parse_each, _parse_names, _parse_outside,
          _parse_filters, _parse_bytes, _parse_scope, _parse_units, _parse_types, _parse_bare_terms)

#: Words with a meaning of their own to some pass: never a directory's or a search word's name by accident.
LEXICON = frozenset(
    set(FILLER) | set(_UNITS) | set(TYPE_WORDS) | set(NUMBER_WORDS) | set(SUPERLATIVES)
    | set("how many much often count number total sum most fewest least top first by per each every not no without and or but "
          "with contain contains containing mention mentions mentioning include includes including named called match matching "
          "where grep search read cat open ls contents what which list show find lines files word words test tests".split())
)
#: Units of size that are never a folder's name ("the total size in kilobytes" is refused, not read as a folder kilobytes).
_SIZE_UNITS = frozenset({"kb", "kib", "kilobytes", "kilobyte", "mb", "mib", "megabytes", "megabyte", "gb", "gigabytes"})
#: Words of the lexicon that are also the name of a folder when they stand where one would ("in tests", "outside tests").
PLACE_WORDS = frozenset({"test", "tests"})
#: Words that cannot be searched for without quotes: they are the sentence's own structure.
STRUCTURE = frozenset(
    "the a an any some all every each of in under inside within below from to for with without and or but not no that which "
    "who whose is are do does there here it them files file lines line words directories folders i me my we us you".split()
)
NUMBERISH = frozenset(NUMBER_WORDS)
#: Python keywords that are never English structure, so a bare one is searched for ("count import", "which files use lambda").
KEYWORD_TERMS = CODE_STARTS - {"from"}


def read(tokens: list[Token], passes: tuple[Callable[[Sentence, State], None], ...] = PASSES) -> tuple["Sentence", "State"]:
    """Run every pass over ``tokens``: the sentence (who claimed each word) and what the claims mean."""
    sentence, state = Sentence(tokens), State()
    for step in passes:
        step(sentence, state)
    return sentence, state


__all__ = ["LEXICON", "PASSES", "STRUCTURE", "W", "Hit", "Sentence", "State", "read", "rx"]
