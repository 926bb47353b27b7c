"""Two files compared by a measure: "is tests/test_api.py bigger than shop/models/order.py?", "does a.py have more lines than b.py?".

The answer is a yes or no: the first file's measure against the second's.
Bigger, larger and smaller compare sizes (bytes); longer and shorter, and
"more lines", compare lines; "more words" words. Both files are named as
paths or file names (a name alone is found beneath the workspace, as
anywhere else).
"""

from __future__ import annotations

from lackpy.infer.understand.phrases import W, Hit, Sentence, State, rx
from lackpy.infer.understand.words import is_file

_SIZE = {"bigger": ("bytes", ">"), "larger": ("bytes", ">"), "heavier": ("bytes", ">"), "smaller": ("bytes", "<"),
         "longer": ("lines", ">"), "shorter": ("lines", "<")}
_VERSUS = rx(
    r"(?:is|are) (?:the file |the )?(?P<a>" + W + r")(?: file)? (?P<adj>bigger|larger|heavier|smaller|longer|shorter) than (?:the file |the )?(?P<b>" + W + ")(?: file)?"
    r"|(?:does|do) (?P<a2>" + W + r") (?:have|contain) (?P<more>more|fewer|less) (?P<m>lines|words|bytes|characters) than (?P<b2>" + W + ")"
)


def parse_versus(s: Sentence, st: State) -> None:
    """The two files and the measure they are compared by."""

    def versus(hit: Hit) -> bool:
        first, second = (hit.token("a"), hit.token("b")) if hit.has("a") else (hit.token("a2"), hit.token("b2"))
        if not (is_file(first.raw) and is_file(second.raw)):
            return False
        if hit.has("adj"):
            measure, op = _SIZE[hit.form("adj")]
        else:
            measure = {"characters": "chars"}.get(hit.form("m"), hit.form("m"))
            op = ">" if hit.form("more") == "more" else "<"
        st.versus = (first.raw, second.raw, measure, op)
        st.note(f"whether {first.raw} has {'more' if op == '>' else 'fewer'} {measure} than {second.raw}")
        return hit.claim("versus")

    s.scan(_VERSUS, versus)


__all__ = ["parse_versus"]
