"""Small helpers the repair modules share: quiet parsing, building calls, fresh names.

Kept apart so that ``repairs`` (the table) can import the modules that
implement its entries, and they can import these, without a cycle.
"""

from __future__ import annotations

import ast
import warnings


def parse_quietly(program: str) -> ast.Module | None:
    """The program's tree, or None when it does not parse; a model's odd literals warn nobody."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def unparsed(tree: ast.Module, changed: bool) -> str | None:
    """The program text of a changed tree, None for an unchanged one (the repair did not apply)."""
    return ast.unparse(ast.fix_missing_locations(tree)) if changed else None


def call(name: str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
    """``name(*args, **keywords)`` as a tree."""
    return ast.Call(ast.Name(name, ast.Load()), list(args), [ast.keyword(k, v) for k, v in keywords.items()])


def is_call(node: ast.AST, name: str) -> bool:
    """``node`` is a call of the bare name ``name``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def method(value: ast.expr, name: str, *args: ast.expr) -> ast.Call:
    """``value.name(*args)`` as a tree."""
    return ast.Call(ast.Attribute(value, name, ast.Load()), list(args), [])


def names_in(tree: ast.AST) -> set[str]:
    """Every name the tree mentions, bound or read, and every function and parameter name."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return found


def fresh_name(taken: set[str], base: str) -> str:
    """``base``, or ``base1``, ``base2``...: the first not in ``taken`` (which it joins)."""
    name, number = base, 0
    while name in taken:
        number += 1
        name = f"{base}{number}"
    taken.add(name)
    return name


def stored(tree: ast.AST) -> list[str]:
    """Names the tree assigns, in order, repeated as often as assigned."""
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]


def loaded(tree: ast.AST) -> list[str]:
    """Names the tree reads."""
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


__all__ = ["call", "fresh_name", "is_call", "loaded", "method", "names_in", "parse_quietly", "stored", "unparsed"]
