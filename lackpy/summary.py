"""A bounded one-line description of any value: what a trace and a decision keep of a value, never all of it.

A tool's arguments and result, and the arguments a person is asked to
approve, are kept as these descriptions (``lackpy.run.trace``,
``lackpy.approvals.gatekeeper``): a string up to ``SUMMARY_CHARS``
characters, a container up to 8 items and 3 levels deep, with its length
said when it was cut. A ``Summary`` is a description already made (a
variable an isolated run could not send back whole), passed on as it is.
"""

from __future__ import annotations

import reprlib
from typing import Any

SUMMARY_CHARS = 200

_repr = reprlib.Repr()
_repr.maxstring = SUMMARY_CHARS
_repr.maxother = SUMMARY_CHARS
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdict = 8
_repr.maxlevel = 3


class Summary(str):
    """A value already summarised: a description, never the program's own text."""


def summarize(value: Any) -> str:
    """A bounded one-line description of a value."""
    kind = type(value)
    if kind is Summary:
        return str(value)
    if value is None or kind is bool or kind is float or (kind is int and -10**18 < value < 10**18):
        return repr(value)
    if kind is str:
        if len(value) <= SUMMARY_CHARS:
            return repr(value)
        return f"{value[:SUMMARY_CHARS]!r}... (len {len(value)})"
    text = _repr.repr(value)
    if isinstance(value, (str, bytes)):
        cut = len(value) > SUMMARY_CHARS
    else:
        cut = isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > _repr.maxlist
    return f"{text} (len {len(value)})" if cut else text


__all__ = ["SUMMARY_CHARS", "Summary", "summarize"]
