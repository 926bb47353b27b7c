"""Finding tools by what a user types: the one scorer behind every tool search in lackpy.

``lackpy tools search``, ``Toolbox.search``, the ``search_tools`` tool that
programs call and delegate's choice of tools all rank with ``rank`` (or
``match``) here, so one query finds the same tools wherever it is asked.

Each word of the query is matched against a tool's signals and counts once,
by its strongest one:

==============  ======  ===================================================
signal          weight  the query word is...
==============  ======  ===================================================
``name``        3       a word of the tool's name (``write`` of write_file)
``tag``         2       one of its tags (the synonyms its author declared)
``category``    2       a level of its category (``data``, ``visualization``)
``description`` 1       a word of its description
``close``       1       a typo away from a word of its name (difflib, 0.88)
==============  ======  ===================================================

plus ``exact`` (10) when the query is the tool's name itself (``write_file``,
``write file``, ``WriteFile``). Counting each word once rewards a tool that
covers more of the query over one that repeats one word in every field.

Words are compared after a small, deterministic normalisation, with no
stemming library and no synonym table (a tool's tags carry its synonyms):
lower case; snake_case, kebab-case and camelCase split; a plural ``s``/``ies``
and an ``-ing``/``-ed`` ending dropped; then two words match when one is the
other plus a common ending (``SUFFIXES``: ``edit`` ~ ``editor``, ``process`` ~
``processe(s)``), a final ``e`` or ``y`` of the shorter one dropped first
(``create`` ~ ``creation``, ``notify`` ~ ``notification``). A word that only
begins another is not enough (``read`` is not ``readme``, ``time`` not ``timeout``).
Equal scores rank first the tool more of whose fields match (``support``:
"shell" is a tag of every process tool but also in run_command's
description), then by name, so a search always gives the same order.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, NamedTuple

from lackpy.errors import ParamError
from lackpy.kit.spec import ToolSpec

#: What one query word earns, by the signal it matched.
WEIGHTS = {"exact": 10, "name": 3, "tag": 2, "category": 2, "description": 1, "close": 1}
#: How alike a word must be to a name's word to count as a typo of it (difflib ratio).
CLOSE_CUTOFF = 0.88
#: Words that say nothing about which tool is meant.
STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or is are be it its this that these those all any each every "
    "me my i you your we our there their what which who how many much do does show give get please some "
    "into as than then if not no about using use via can could would should will want need like just so".split()
)

#: Endings that make a related word of the same stem (after ``stem`` took off plurals, -ing and -ed).
SUFFIXES = frozenset(
    "e s es ed er ers or ors ing ion ions ation ations ication ications ier iers ied able ible ment ments "
    "al ally ly ive ity ize ise ness".split()
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z][a-z0-9]*")
_LOOSE = re.compile(r"[^a-z0-9]")
_VOWEL = re.compile(r"[aeiouy]")


class Hit(NamedTuple):
    """One query word matched: the word (normalised), the signal, and the tool's word it matched."""

    term: str
    signal: str
    word: str


@dataclass(frozen=True)
class ToolMatch:
    """A tool a search found: the name it was searched under, its score, and why (its hits)."""

    name: str
    score: int
    hits: tuple[Hit, ...]
    spec: ToolSpec = field(repr=False, compare=False)
    #: How many (query word, signal) pairs matched, not only each word's strongest: breaks ties.
    support: int = 0

    @property
    def category(self) -> str:
        return self.spec.category

    @property
    def terms(self) -> frozenset[str]:
        """The query words this tool covers."""
        return frozenset(hit.term for hit in self.hits if hit.signal != "exact")

    def why(self) -> str:
        """The hits as one short line: ``exact name; name write, file; tag save``."""
        grouped: dict[str, list[str]] = {}
        for hit in self.hits:
            grouped.setdefault(hit.signal, [])
            if hit.word not in grouped[hit.signal]:
                grouped[hit.signal].append(hit.word)
        return "; ".join("exact name" if signal == "exact" else f"{signal} {', '.join(words)}" for signal, words in grouped.items())

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "tool": self.spec.name,
            "score": self.score,
            "category": self.spec.category,
            "signature": self.spec.signature(self.name),
            "description": self.spec.description,
            "matched": [hit._asdict() for hit in self.hits],
        }


def stem(word: str) -> str:
    """``word`` without a plural or ``-ing``/``-ed`` ending: files -> file, directories -> directory, running -> run."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for ending, shortest in (("ing", 3), ("ed", 4)):  # saving -> sav, but speed stays speed
        rest = word[: -len(ending)]
        if word.endswith(ending) and len(rest) >= shortest and _VOWEL.search(rest):  # string stays string
            if len(rest) > 3 and rest[-1] == rest[-2] and rest[-1] not in "lsz":
                rest = rest[:-1]  # running -> runn -> run
            return rest
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The lower-case words of ``text``, snake_case, kebab-case and camelCase split, in order."""
    return _WORD.findall(_CAMEL.sub(" ", text.replace("_", " ")).lower())


def query_terms(text: str) -> tuple[str, ...]:
    """The meaningful, normalised words of a query, each once, in order: ``Send a notification`` -> ``("send", "notification")``."""
    return tuple(dict.fromkeys(stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1))


@lru_cache(maxsize=65536)
def related(a: str, b: str) -> bool:
    """Whether two normalised words mean the same to a search (see the module docstring); kept, as every search asks again."""
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    bases = (short, short[:-1]) if short.endswith(("e", "y")) else (short,)
    return any(len(base) >= 3 and long.startswith(base) and long[len(base):] in SUFFIXES for base in bases)


def loose(name: str) -> str:
    """A name without case or separators, for comparing a query with a tool's name."""
    return _LOOSE.sub("", name.lower())


@dataclass(frozen=True)
class _Signals:
    names: frozenset[str]  # the tool's names, loose
    fields: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (signal, ((stem, word), ...)), strongest first


@lru_cache(maxsize=4096)
def _signals(alias: str, name: str, description: str, tags: tuple[str, ...], category: str) -> _Signals:
    def pairs(text: str) -> tuple[tuple[str, str], ...]:
        return tuple(dict.fromkeys((stem(w), w) for w in words(text) if len(w) > 1 and w not in STOPWORDS))

    return _Signals(
        names=frozenset({loose(alias), loose(name)}),
        fields=(
            ("name", pairs(f"{alias} {name}" if alias != name else name)),
            ("tag", pairs(" ".join(tags))),
            ("category", pairs(category.replace("/", " "))),
            ("description", pairs(description)),
        ),
    )


def _find(term: str, pairs: tuple[tuple[str, str], ...]) -> str | None:
    """The tool's word ``term`` matches, the same word first, else a related one."""
    for stemmed, word in pairs:
        if stemmed == term:
            return word
    for stemmed, word in pairs:
        if related(term, stemmed):
            return word
    return None


def match(terms: Iterable[str], alias: str, spec: ToolSpec, query: str = "") -> ToolMatch | None:
    """How ``spec`` (called ``alias``) matches the query ``terms``; None when it matches none.

    ``query`` is the query as typed, for the ``exact`` signal; without it
    (delegate's cover of what is left of an intent) only words count.
    """
    signals = _signals(alias, spec.name, spec.description, tuple(spec.tags), spec.category)
    hits: list[Hit] = []
    support = 0
    raw = {loose(query)} | set(words(query)) if query else set()
    if raw & signals.names:
        hits.append(Hit(query.strip(), "exact", alias))
    for term in terms:
        hit = None
        for signal, pairs in signals.fields:
            word = _find(term, pairs)
            if word is not None:
                support += 1
                hit = hit or Hit(term, signal, word)
        if hit is None and len(term) >= 4:
            name_words = dict(signals.fields[0][1])
            close = difflib.get_close_matches(term, list(name_words), n=1, cutoff=CLOSE_CUTOFF)
            if close:
                hit = Hit(term, "close", name_words[close[0]])
        if hit is not None:
            hits.append(hit)
    if not hits:
        return None
    return ToolMatch(alias, sum(WEIGHTS[hit.signal] for hit in hits), tuple(hits), spec, support)


def rank(query: str, specs: Mapping[str, ToolSpec], limit: int | None = 5) -> list[ToolMatch]:
    """The tools of ``specs`` (``{name programs call it by: spec}``) that match ``query``, best first.

    At most ``limit`` (None: every match); ties go to the better supported
    tool, then by name. A query of no
    meaningful words, or words no tool has, finds nothing.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ParamError(f"a tool search's limit must be a whole number from 1, not {limit!r}")
    terms = query_terms(query)
    found = [m for alias, spec in specs.items() if (m := match(terms, alias, spec, query)) is not None]
    found.sort(key=lambda m: (-m.score, -m.support, m.name))
    return found if limit is None else found[:limit]


__all__ = ["CLOSE_CUTOFF", "STOPWORDS", "SUFFIXES", "WEIGHTS", "Hit", "ToolMatch", "loose", "match", "query_terms", "rank", "related", "stem", "words"]
