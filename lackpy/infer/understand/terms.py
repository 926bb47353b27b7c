"""Words of an intent, a tool or an example, reduced so that they can be compared.

``terms("Count the TODOs in python_files")`` is ``{"count", "todo", "python",
"file"}``: lower case, snake_case and dotted names split, a plural ``s``
dropped, and the words that carry no meaning removed.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")

STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or is are be it its this that these those all any each every "
    "me my i you your we our there their what which who how many much do does show give get please some "
    "into as than then if not no".split()
)

#: Words that mean the same thing to a user choosing a tool.
SYNONYMS = {
    "dir": "directory",
    "directories": "directory",
    "folder": "directory",
    "folders": "directory",
    "ls": "directory",
    "cat": "read",
    "open": "read",
    "contents": "content",
    "search": "find",
    "locate": "find",
    "lookup": "find",
    "mention": "contain",
    "mentions": "contain",
    "containing": "contain",
    "contains": "contain",
    "lines": "line",
    "execute": "run",
    "shell": "command",
    "download": "fetch",
    "website": "web",
    "url": "web",
    "page": "web",
    "modify": "edit",
    "change": "edit",
    "replace": "edit",
    "save": "write",
    "create": "write",
}


def _reduce(word: str) -> str:
    word = word.lower()
    word = SYNONYMS.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = SYNONYMS.get(word[:-1], word[:-1])
    return word


@lru_cache(maxsize=1024)
def terms(text: str) -> frozenset[str]:
    """The meaningful, reduced words of ``text``."""
    found = (_reduce(w) for w in _WORD.findall(text.replace("_", " ")))
    return frozenset(w for w in found if w not in STOPWORDS and len(w) > 1)


__all__ = ["STOPWORDS", "SYNONYMS", "terms"]
