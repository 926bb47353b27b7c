"""How common a name is: "the most common function name", "which function names show up in the most modules",
"the commonest first word of function names".

A name is common by how many definitions carry it, or, when the question
says so ("in the most modules", "in the most files"), by how many files
define it. A name's first word is its part before the first underscore
(leading underscores aside), as Python names are written. Every name that
ties for the most is the answer, sorted; one name alone is the answer
itself.
"""

from __future__ import annotations

from lackpy.infer.understand.phrases import Hit, Sentence, State, rx

_KIND = r"(?P<kind>function|class|method)"
_COMMON = r"(?:most common|commonest|most frequent|most frequently used|most used|most popular|most repeated)"
_MOST_COMMON = rx(r"(?:the )?" + _COMMON + r" (?P<first>first words? (?:of|in) (?:the |a )?)?" + _KIND + r" names?")
_IN_MOST = rx(
    r"(?:the )?(?P<first>first words? (?:of|in) (?:the |a )?)?" + _KIND + r" names? (?:that |which )?(?:shows? up|appears?|occurs?|is used|are used"
    r"|(?:is|are) defined|recurs?) (?:the most|most often|most|(?:in|across) the most (?P<files>modules|files|python files))"
)


def parse_common(s: Sentence, st: State) -> None:
    """The commonest names of definitions, or their commonest first word."""

    def common(hit: Hit) -> bool:
        st.common = "files" if hit.has("files") else "definitions"
        st.first_word = hit.has("first")
        st.kinds.append({"class": "class", "method": "method"}.get(hit.form("kind"), "function"))
        st.units.append(("definitions", hit.index("kind"), True))
        st.names_wanted = True
        said = "first word of the names" if st.first_word else "name"
        st.note(f"the most common {hit.form('kind')} {said}" + (" by the files that define it" if st.common == "files" else ""))
        return hit.claim("order")

    s.scan(_MOST_COMMON, common)
    s.scan(_IN_MOST, common)


#: The program's last lines: the commonest key of ``found``, a list of (file, name) pairs; every key that ties, sorted.
COMMONEST = """\
keys = {keys}
counts = {{}}
for key in keys:
    counts[key] = counts.get(key, 0) + 1
best = max(counts.values(), default=0)
tied = sorted(key for key in counts if counts[key] == best)
(tied[0] if len(tied) == 1 else tied) if counts else None"""


def commonest(first_word: bool, by_files: bool) -> str:
    """The lines that leave the commonest name (or first word) of ``found``: by its definitions, or by the files that define it."""
    key = 'name.lstrip("_").split("_")[0]' if first_word else "name"
    keys = f"[k for f, k in sorted(set((f, {key}) for f, name in found))]" if by_files else f"[{key} for f, name in found]"
    return COMMONEST.format(keys=keys)


__all__ = ["commonest", "parse_common"]
