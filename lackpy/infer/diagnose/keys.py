"""Keys a program reads from tool results that the tool's documentation says it never returns.

``hit["file"]`` on grep's results (whose keys are path, line and text) fails
at run time with a KeyError, but ``hit.get("file")`` quietly gives None, and
a run that "succeeds" with a column of Nones is worse than one that fails.
Both are visible in the program: follow each tool result through the
variables, loops and comprehensions that carry it, and compare every
constant key read from one of its items with the keys its doc lists.

The analysis is deliberately small and flow-insensitive: a name bound to
tool results of one kind everywhere it is bound is tracked, anything else
is not. A key is only reported against a doc that lists keys (in a
``{"key": ...}`` or ``{"key", ...}`` form in its Returns or Notes section),
so a tool without such a doc is never blamed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from lackpy.kit.docs import doc_sections
from lackpy.kit.resolve import ResolvedKit

#: Doc sections that describe a result's shape (Notes add entries such as grep's "truncated" marker).
SHAPE_SECTIONS = ("Returns", "Notes")
_BRACES = re.compile(r"\{[^{}]*\}")
#: In a dict form a key is followed by a colon; in a set form (``{"id", "command"}``) by a comma or the brace.
_DICT_KEY = re.compile(r"[\"'](\w+)[\"']\s*:")
_SET_KEY = re.compile(r"[\"'](\w+)[\"']\s*(?=[,}])")

#: Builtins that give back a list of the same items, or one item of it.
SAME_ITEMS = frozenset({"sorted", "reversed", "list"})
ONE_ITEM = frozenset({"min", "max"})


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
    """Every constant key the program reads from a tool's items that its doc does not list."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return []
    shapes = result_shapes(kit, read_doc)
    if not shapes:
        return []
    try:
        kinds = _bindings(tree, shapes)
        return _reads(tree, shapes, kinds)
    except RecursionError:  # a pathologically deep program is not worth the check
        return []


# A value's kind: ("items", tool) is a list of the tool's items, ("item", tool) one of them.
Kind = tuple[str, str]


def _kind(node: ast.AST, shapes: dict, names: dict[str, Kind | None]) -> Kind | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in shapes:
            return ("items" if shapes[name][0] in ("list", "strings") else "item", name)
        if node.args and name in SAME_ITEMS | ONE_ITEM:
            inner = _kind(node.args[0], shapes, names)
            if inner and inner[0] == "items":
                return inner if name in SAME_ITEMS else ("item", inner[1])
        return None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Subscript):
        inner = _kind(node.value, shapes, names)
        if inner and inner[0] == "items":
            return inner if isinstance(node.slice, ast.Slice) else ("item", inner[1])
        return None
    if isinstance(node, ast.ListComp) and isinstance(node.elt, ast.Name) and len(node.generators) == 1:
        loop = node.generators[0]
        if isinstance(loop.target, ast.Name) and loop.target.id == node.elt.id:
            inner = _kind(loop.iter, shapes, names)
            return inner if inner and inner[0] == "items" else None
    return None


def _targets(target: ast.AST, iterable: ast.AST, shapes: dict, names: dict) -> list[tuple[str, Kind | None]]:
    """The names a loop binds and their kinds: ``for h in hits``, ``for i, h in enumerate(hits)``."""
    if isinstance(target, ast.Name):
        kind = _kind(iterable, shapes, names)
        return [(target.id, ("item", kind[1]) if kind and kind[0] == "items" else None)]
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and iterable.args
    ):
        kind = _kind(iterable.args[0], shapes, names)
        item = ("item", kind[1]) if kind and kind[0] == "items" else None
        return [(n.id, item if i == 1 else None) for i, n in enumerate(target.elts) if isinstance(n, ast.Name)]
    return [(n.id, None) for n in ast.walk(target) if isinstance(n, ast.Name)]


def _bindings(tree: ast.Module, shapes: dict) -> dict[str, Kind | None]:
    """Each name's kind, when every binding of it agrees; repeated until nothing changes."""
    names: dict[str, Kind | None] = {}
    for _ in range(5):
        seen: dict[str, set] = {}
        for node in ast.walk(tree):
            pairs: list[tuple[str, Kind | None]] = []
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        pairs.append((target.id, _kind(node.value, shapes, names)))
                    else:
                        pairs += [(n.id, None) for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
            elif isinstance(node, (ast.For, ast.comprehension)):
                pairs = _targets(node.target, node.iter, shapes, names)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
                pairs = [(node.target.id, None)]
            elif isinstance(node, ast.Call):
                pairs = _key_lambda(node, shapes, names)
            for name, kind in pairs:
                seen.setdefault(name, set()).add(kind)
        new = {name: next(iter(kinds)) if len(kinds) == 1 else None for name, kinds in seen.items()}
        if new == names:
            break
        names = new
    return names


def _key_lambda(node: ast.Call, shapes: dict, names: dict) -> list[tuple[str, Kind | None]]:
    """``sorted(hits, key=lambda h: ...)``: the lambda's parameter is an item of what is sorted."""
    out = []
    for kw in node.keywords:
        if kw.arg == "key" and isinstance(kw.value, ast.Lambda) and node.args:
            params = [a.arg for a in kw.value.args.args]
            kind = _kind(node.args[0], shapes, names)
            item = ("item", kind[1]) if kind and kind[0] == "items" else None
            out += [(p, item if i == 0 else None) for i, p in enumerate(params)]
    return out


def _reads(tree: ast.Module, shapes: dict, names: dict[str, Kind | None]) -> list[WrongKey]:
    found: list[WrongKey] = []
    for node in ast.walk(tree):
        target = key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            target, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            target, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            target, key = node.comparators[0], node.left
        if target is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        kind = _kind(target, shapes, names)
        if kind is None or kind[0] != "item":
            continue
        shape, keys = shapes[kind[1]]
        if shape == "strings":
            if not isinstance(node, ast.Compare):  # "x" in a path is a substring test, not a key
                found.append(WrongKey(kind[1], key.value, node.lineno, ()))
        elif key.value not in keys:
            found.append(WrongKey(kind[1], key.value, node.lineno, keys))
    return sorted(found, key=lambda w: w.line)


__all__ = ["WrongKey", "documented_keys", "result_shapes", "wrong_keys"]
