"""Which keys a program reads from tool results, followed through its variables, loops and comprehensions.

``hit["file"]`` on results whose keys are path, line and text fails at run
time with a KeyError, but ``hit.get("file")`` quietly gives None, and a run
that "succeeds" with a column of Nones is worse than one that fails. Both
are visible in the program: follow each tool result through the names,
loops, comprehensions, ``sorted``/``min``/``max`` and key lambdas that
carry it, and compare every constant key read from it with the keys its
shape (``lackpy.kit.shape``) lists.

The analysis is deliberately small and flow-insensitive: a name bound to
values of one kind everywhere it is bound is tracked, anything else is not.
A value's kind is ``(tool, path)``: the result of calling ``tool``, then
the steps of ``path`` (a key, or ``ELEMENT`` for a list's element), so
``for item in inventory(...)["items"]: item["qty"]`` is a read of ``qty``
at ``("items", ELEMENT)``. A key is reported only where the shape lists
every key (an object node that is not ``open``), or where the value is
known to be a string or a number (no key at all; ``in`` excepted, a
substring test). The callers say what a miss means: a declared shape makes
it an error, a learned one a warning, a doc a hint for a model.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from lackpy.kit.shape import ELEMENT, at, known_keys

#: Builtins that give back a list of the same items, or one item of it.
SAME_ITEMS = frozenset({"sorted", "reversed", "list"})
ONE_ITEM = frozenset({"min", "max"})

# A value's kind: the tool whose result it comes from, and the path to it within that result.
Kind = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Miss:
    """A program reads ``key`` (on ``line``, ``col``, 1-based) from a value of ``tool``'s results at ``path`` that has no such key.

    ``known`` lists the keys the shape has there; empty when the value is
    not an object at all (``types`` says what it is).
    """

    tool: str
    path: tuple[str, ...]
    key: str
    line: int
    col: int
    known: tuple[str, ...]
    types: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """The value read, as a program would write it: ``inventory(...)["items"][i]``."""
        steps = "".join("[i]" if step == ELEMENT else f"[{json.dumps(step, ensure_ascii=False)}]" for step in self.path)
        return f"{self.tool}(...){steps}"


def misses(tree: ast.Module, shapes: dict[str, dict]) -> list[Miss]:
    """Every constant key ``tree`` reads from a tool's results that their shape lacks; ``shapes``: ``{tool name: shape}``."""
    if not shapes:
        return []
    try:
        names = _bindings(tree, shapes)
        return _reads(tree, shapes, names)
    except RecursionError:  # a pathologically deep program is not worth the check
        return []


def _is_list(shapes: dict, kind: Kind | None) -> bool:
    return kind is not None and "array" in at(shapes[kind[0]], kind[1]).get("types", ())


def _element(kind: Kind) -> Kind:
    return (kind[0], kind[1] + (ELEMENT,))


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _kind(node: ast.AST, shapes: dict, names: dict[str, Kind | None]) -> Kind | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in shapes:
            return (name, ())
        if node.args and name in SAME_ITEMS | ONE_ITEM:
            inner = _kind(node.args[0], shapes, names)
            if _is_list(shapes, inner):
                return inner if name in SAME_ITEMS else _element(inner)  # type: ignore[arg-type]
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        inner, key = _kind(node.func.value, shapes, names), _key(node.args[0])
        return (inner[0], inner[1] + (key,)) if inner is not None and key is not None else None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Subscript):
        inner = _kind(node.value, shapes, names)
        if inner is None:
            return None
        key = _key(node.slice)
        if key is not None:
            return (inner[0], inner[1] + (key,))
        if _is_list(shapes, inner):
            return inner if isinstance(node.slice, ast.Slice) else _element(inner)
        return None
    if isinstance(node, ast.ListComp) and isinstance(node.elt, ast.Name) and len(node.generators) == 1:
        loop = node.generators[0]
        if isinstance(loop.target, ast.Name) and loop.target.id == node.elt.id:
            inner = _kind(loop.iter, shapes, names)
            return inner if _is_list(shapes, inner) else None
    return None


def _targets(target: ast.AST, iterable: ast.AST, shapes: dict, names: dict) -> list[tuple[str, Kind | None]]:
    """The names a loop binds and their kinds: ``for h in hits``, ``for i, h in enumerate(hits)``."""
    if isinstance(target, ast.Name):
        kind = _kind(iterable, shapes, names)
        return [(target.id, _element(kind) if _is_list(shapes, kind) else None)]  # type: ignore[arg-type]
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and iterable.args
    ):
        kind = _kind(iterable.args[0], shapes, names)
        item = _element(kind) if _is_list(shapes, kind) else None  # type: ignore[arg-type]
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
            item = _element(kind) if _is_list(shapes, kind) else None  # type: ignore[arg-type]
            out += [(p, item if i == 0 else None) for i, p in enumerate(params)]
    return out


def _read(node: ast.AST) -> tuple[ast.AST, ast.AST] | tuple[None, None]:
    """What ``node`` reads a key from, and the key: ``x["k"]``, ``x.get("k")``, ``"k" in x``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.value, node.slice
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        return node.func.value, node.args[0]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return node.comparators[0], node.left
    return None, None


def _reads(tree: ast.Module, shapes: dict, names: dict[str, Kind | None]) -> list[Miss]:
    found: list[Miss] = []
    for node in ast.walk(tree):
        target, key_node = _read(node)
        key = _key(key_node) if key_node is not None else None
        if target is None or key is None:
            continue
        kind = _kind(target, shapes, names)
        if kind is None:
            continue
        shape = at(shapes[kind[0]], kind[1])
        types = tuple(shape.get("types", ()))
        known = known_keys(shape)
        if known is not None and key not in known:
            found.append(Miss(kind[0], kind[1], key, node.lineno, node.col_offset + 1, known, types))
        elif types and "object" not in types and "array" not in types and not isinstance(node, ast.Compare):
            found.append(Miss(kind[0], kind[1], key, node.lineno, node.col_offset + 1, (), types))  # "x" in a string is a substring test
    return sorted(found, key=lambda m: (m.line, m.col))


__all__ = ["Kind", "Miss", "ONE_ITEM", "SAME_ITEMS", "misses"]
