"""Keys a program reads from tool results that the tool's documentation says it never returns.

``hit["file"]`` on grep's results (whose keys are path, line and text) fails
at run time with a KeyError, but ``hit.get("file")`` quietly gives None, and
a run that "succeeds" with a column of Nones is worse than one that fails.
Both are visible in the program: follow each tool result through the
variables, loops and comprehensions that carry it, and compare every
constant key read from one of its items with the keys its doc lists.

The flow analysis is ``lackpy.kit.keyflow``'s (the one the pre-run check
of remote results uses). A key is only reported against a doc that lists
keys (in a ``{"key": ...}`` or ``{"key", ...}`` form in its Returns or
Notes section), or a shape the tool's server declared or lackpy learned
from its results (``lackpy.kit.resultkeys``), so a tool with neither is
never blamed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from lackpy.kit.docs import doc_sections
from lackpy.kit.keyflow import misses
from lackpy.kit.resolve import ResolvedKit
from lackpy.kit.resultkeys import spec_shapes

#: Doc sections that describe a result's shape (Notes add entries such as grep's "truncated" marker).
SHAPE_SECTIONS = ("Returns", "Notes")
_BRACES = re.compile(r"\{[^{}]*\}")
#: In a dict form a key is followed by a colon; in a set form (``{"id", "command"}``) by a comma or the brace.
_DICT_KEY = re.compile(r"[\"'](\w+)[\"']\s*:")
_SET_KEY = re.compile(r"[\"'](\w+)[\"']\s*(?=[,}])")


@dataclass(frozen=True)
class WrongKey:
    """``tool``'s items have no key ``key``; the program reads it on ``line``. ``known`` lists the documented keys."""

    tool: str
    key: str
    line: int
    known: tuple[str, ...]

    def describe(self) -> str:
        if not self.known:
            return f"line {self.line}: the items of {self.tool}(...) are strings, so they have no key {self.key!r}"
        keys = ", ".join(repr(k) for k in self.known)
        return f"line {self.line}: {self.tool}(...) results have no key {self.key!r}; their keys are {keys}"


def documented_keys(doc: str) -> tuple[str, ...]:
    """The dict keys a tool doc's Returns and Notes sections show, in order of appearance."""
    sections = doc_sections(doc)
    found: list[str] = []
    for title in SHAPE_SECTIONS:
        for braces in _BRACES.findall(sections.get(title, "")):
            for key in (_DICT_KEY if ":" in braces else _SET_KEY).findall(braces):
                if key not in found:
                    found.append(key)
    return tuple(found)


def result_shapes(kit: ResolvedKit, read_doc: Callable[[str], str] | None) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Alias -> ("list" | "dict", keys) for tools whose results are dicts with documented keys,
    and ("strings", ()) for tools returning a list of strings."""
    shapes: dict[str, tuple[str, tuple[str, ...]]] = {}
    for alias, spec in kit.tools.items():
        returns = (spec.returns or "").replace(" ", "")
        if returns == "list[str]":
            shapes[alias] = ("strings", ())
            continue
        if returns not in ("list[dict]", "dict") and not returns.startswith(("list[dict[", "dict[")):
            continue
        if not spec.docs or read_doc is None:
            continue
        try:
            keys = documented_keys(read_doc(spec.docs))
        except Exception:  # an unreadable doc documents nothing
            continue
        if keys:
            shapes[alias] = ("list" if returns.startswith("list") else "dict", keys)
    return shapes


def wrong_keys(program: str, kit: ResolvedKit, read_doc: Callable[[str], str] | None) -> list[WrongKey]:
    """Every constant key the program reads from a tool's items that its doc (or its declared or learned shape) does not list."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return []
    shapes = {alias: _node(*shape) for alias, shape in result_shapes(kit, read_doc).items()}
    shapes.update(spec_shapes(kit))
    found = []
    for miss in misses(tree, shapes):
        if miss.known or "string" in miss.types:
            found.append(WrongKey(miss.tool, miss.key, miss.line, miss.known))
    return found


def _node(form: str, keys: tuple[str, ...]) -> dict:
    """A doc's shape as a shape node (``lackpy.kit.shape``): a list of objects, one object, or a list of strings."""
    if form == "strings":
        return {"types": ["array"], "items": {"types": ["string"]}}
    item = {"types": ["object"], "keys": {key: {} for key in keys}}
    return {"types": ["array"], "items": item} if form == "list" else item


__all__ = ["WrongKey", "documented_keys", "result_shapes", "wrong_keys"]
