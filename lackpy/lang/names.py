"""Which names a program can bind: the one rule for tool names, kit aliases and parameters.

A name a program uses to reach a tool or a value is a plain identifier, no
keyword (``if`` can name nothing a program can call), no leading underscore
(lackpy keeps those for itself, and the language refuses them), and none of
the names the language forbids (``eval``, ``open``, ...), which a program
could never use anyway.
"""

from __future__ import annotations

import keyword
from typing import Any

from lackpy.lang.grammar import FORBIDDEN_NAMES

#: What a refusal says a bindable name is.
RULE = "letters, digits and '_', not starting with a digit or '_', not a keyword or a name the language forbids"


def bindable(name: Any) -> bool:
    """Whether ``name`` can name a tool, an alias or a parameter in a program."""
    return (
        isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_") and name not in FORBIDDEN_NAMES
    )


def shown(name: Any, most: int = 60) -> str:
    """``name`` as a refusal quotes it: its repr, cut at ``most`` characters."""
    text = repr(name)
    return text if len(text) <= most else text[:most] + "..."


__all__ = ["RULE", "bindable", "shown"]
