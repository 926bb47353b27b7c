"""Line-oriented regular expressions in linear time, for the file tools.

Tools run in lackpy's own process in both run modes, so a pattern that makes
a backtracking engine explode (``(a+)+$`` over a line of ``a``) would hold
that process, and every run beside it, for as long as it takes; not even the
run's deadline can stop one long C call. lackpy therefore matches with RE2
(the google-re2 binding), whose search time is linear in the text. RE2 has
no construct that needs backtracking: a pattern using a backreference, a
lookaround, an atomic group or a possessive quantifier is refused with a
message naming it.

Patterns are written in Python's syntax as far as RE2 shares it. ``\\A``,
``\\Z`` (and ``\\z``) anchor at each line, as they would if every line were
searched on its own; ``\\uXXXX``, ``\\UXXXXXXXX`` and ``{,n}`` are rewritten
in RE2's spelling.
"""

from __future__ import annotations

import re
import string
from typing import Any, Iterator

from lackpy.errors import ToolError

#: Operators RE2 refuses as "invalid perl operator", with the construct lackpy names for each.
_OPERATORS = {
    "(?=": "a lookahead (?=...)",
    "(?!": "a negative lookahead (?!...)",
    "(?<=": "a lookbehind (?<=...)",
    "(?<!": "a negative lookbehind (?<!...)",
    "(?>": "an atomic group (?>...)",
    "(?(": "a conditional group (?(...)...)",
    "(?P": "a named backreference (?P=...)",
    "(?#": "a comment (?#...)",
}

#: The ASCII characters other than \n that ``str.splitlines`` ends a line at.
_OTHER_BREAKS = b"\r\x0b\x0c\x1c\x1d\x1e"

#: Python's escapes of a code point by its hex digits (RE2 writes \x{...}), with their digit counts.
_HEX_WIDTHS = {"u": 4, "U": 8}

#: Python's repetition with no minimum, ``{,n}`` (RE2 reads it as literal text).
_NO_MINIMUM = re.compile(r"\{,\d+\}")

_WHY = "which lackpy's linear-time regex engine does not support; match without it, or filter the lines in the program"


class LineRegex:
    """A compiled pattern that finds the lines of a text it matches."""

    __slots__ = ("_match", "_unanchored")

    def __init__(self, regexp: Any, unanchored: Any) -> None:
        self._match = regexp.Match
        self._unanchored = unanchored

    def matching_lines(self, data: bytes) -> Iterator[tuple[int, str]]:
        """``(number, line)`` of each line of ``data`` with a match.

        ``data`` is read as UTF-8 (undecodable bytes as U+FFFD) and split into
        lines as ``str.splitlines`` splits it. The text is searched whole, its
        lines joined by ``\\n`` (a match never spans one); each match's
        offset is mapped to its line, and the search resumes at the next line.
        """
        if not data:
            return
        lines: list[str] | None = None
        if data.isascii() and len(data.translate(None, _OTHER_BREAKS)) == len(data):
            body = data[:-1] if data.endswith(b"\n") else data  # already its lines joined by \n
        else:
            lines = data.decode("utf-8", "replace").splitlines()
            body = "\n".join(lines).encode("utf-8")
        match, unanchored, size = self._match, self._unanchored, len(body)
        index = counted = position = 0
        while True:
            start = match(unanchored, body, position, size)[0][0]
            if start < 0:
                return
            index += body.count(b"\n", counted, start)
            if lines is None:
                lines = body.decode("ascii").split("\n")
            yield index + 1, lines[index]
            position = body.find(b"\n", start) + 1
            if not position:
                return
            counted, index = position, index + 1


def compile_lines(pattern: str, ignore_case: bool, tool: str) -> LineRegex:
    """``pattern`` compiled for ``matching_lines``; a ``ToolError`` (one line, naming ``tool``) if it cannot run."""
    import re2  # a compiled extension: loaded when a tool first needs it

    options = re2.Options()
    options.log_errors = False  # the error comes back as a ToolError, not as a line on stderr
    options.never_nl = True  # a match stays within one line
    options.never_capture = True  # only where a match starts is wanted
    options.case_sensitive = not ignore_case
    # The binding's RE2 object itself: one call per matching line, without the
    # generator and match object its Python wrapper makes for every search.
    regexp = re2._re2.RE2(("(?m)" + _translated(pattern, tool)).encode("utf-8", "surrogatepass"), options)
    if regexp.ok():
        return LineRegex(regexp, re2._re2.RE2.Anchor.UNANCHORED)
    reason = regexp.error().decode("utf-8", "replace")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"{tool}: invalid regular expression {pattern!r}: {exc}") from None
    construct = _construct(reason)
    if construct:
        raise ToolError(f"{tool}: the pattern uses {construct}, {_WHY}")
    raise ToolError(
        f"{tool}: lackpy's linear-time regex engine cannot run {pattern!r} ({reason}); "
        "rewrite the pattern, or filter the lines in the program"
    )


def _construct(reason: str) -> str | None:
    """The construct RE2's complaint is about, when lackpy recognizes it."""
    kind, _, part = reason.partition(": ")
    if kind == "invalid escape sequence" and part[1:2].isdigit():
        return f"a backreference ({part})"
    if kind == "bad repetition operator" and part.endswith("+"):
        return f"a possessive quantifier ({part})"
    if kind == "invalid perl operator":
        if part in _OPERATORS:
            return _OPERATORS[part]
        if part[2:].isalpha():
            return f"the inline flag (?{part[-1]})"
    return None


def _translated(pattern: str, tool: str) -> str:
    """``pattern`` with the Python escapes RE2 lacks or reads differently rewritten for a per-line search."""
    out: list[str] = []
    i, size, in_class = 0, len(pattern), False
    while i < size:
        char = pattern[i]
        if char == "\\" and i + 1 < size:
            escape = pattern[i + 1]
            if escape == "C":  # one byte, newline included: it would let a match run across lines
                raise ToolError(f"{tool}: the pattern uses \\C (any byte), {_WHY}")
            width = _HEX_WIDTHS.get(escape, 0)
            digits = pattern[i + 2 : i + 2 + width]
            if width and len(digits) == width and all(d in string.hexdigits for d in digits):
                out.append(f"\\x{{{digits}}}")
                i += 2 + width
                continue
            if escape in "AZz" and not in_class:
                out.append("^" if escape == "A" else "$")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            end = pattern.find(":]", i + 2) if pattern.startswith("[:", i) else -1
            if end != -1:  # a POSIX class such as [:alpha:]
                out.append(pattern[i : end + 2])
                i = end + 2
                continue
            in_class = char != "]"
        elif char == "[":
            start = i + 1 + pattern.startswith("^", i + 1)
            end = start + pattern.startswith("]", start)  # a ']' first in a class is literal
            out.append(pattern[i:end])
            i, in_class = end, True
            continue
        elif char == "{" and _NO_MINIMUM.match(pattern, i):
            char = "{0"  # Python's {,n} is RE2's {0,n}
        out.append(char)
        i += 1
    return "".join(out)
