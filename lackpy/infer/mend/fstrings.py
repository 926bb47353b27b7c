"""f-strings written for Python 3.12 on an older Python: a field quoting with the f-string's own quote.

``f"{h["path"]}"`` parses from Python 3.12 on; before, the inner string must
use the other quote: ``f"{h['path']}"``. Models trained on new code write the
first form, and on an older Python the whole answer stops parsing (and the
line even looks like prose to ``sanitize``, its quotes pairing up wrongly).
Swapping the inner quotes is the same program on every version.
"""

from __future__ import annotations

import re

_FSTRING_START = re.compile(r"(?<![\w'\"])(?:[rR]?[fF]|[fF][rR])(['\"])(?!\1\1)")


def requote_line(line: str) -> str:
    """The line with each one-line f-string's inner strings in the other quote; unchanged when unsure."""
    out = list(line)
    for start in _FSTRING_START.finditer(line):
        quote = start.group(1)
        other = "'" if quote == '"' else '"'
        i, depth = start.end(), 0
        while i < len(line):
            char = line[i]
            if depth == 0:
                if char == quote:
                    break
                if char == "{":
                    if line.startswith("{{", i):
                        i += 2
                        continue
                    depth = 1
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == quote:
                end = line.find(quote, i + 1)
                if end < 0 or other in line[i + 1:end]:
                    return line
                out[i] = out[end] = other
                i = end
            elif char == other:
                end = line.find(other, i + 1)
                if end < 0:
                    return line
                i = end
            i += 1
    return "".join(out)


def requote(text: str) -> str | None:
    """The text with its f-string fields requoted, or None when nothing changed."""
    if "f" not in text.lower():
        return None
    new = "\n".join(requote_line(line) for line in text.split("\n"))
    return new if new != text else None


__all__ = ["requote", "requote_line"]
