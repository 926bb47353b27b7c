"""Shared snippets: one program per forbidden AST node, with where the error is reported.

Every program defines nothing itself; the names it reads are passed as
``SNIPPET_PARAMS`` so that the only diagnostic is the forbidden node.
"""

from __future__ import annotations

import ast

SNIPPET_PARAMS = ("x", "xs", "cm")

# node name -> (program, line, col) of the single ``forbidden-node`` diagnostic
FORBIDDEN_NODE_SNIPPETS: dict[str, tuple[str, int, int]] = {
    "Import": ("import os", 1, 1),
    "ImportFrom": ("from os import path", 1, 1),
    "FunctionDef": ("def f():\n    pass", 1, 1),
    "AsyncFunctionDef": ("async def f():\n    pass", 1, 1),
    "ClassDef": ("class A:\n    pass", 1, 1),
    "Return": ("y = 1\nreturn y", 2, 1),
    "Delete": ("y = 1\ndel y", 2, 1),
    "While": ("while x:\n    pass", 1, 1),
    "Try": ("try:\n    pass\nexcept Exception:\n    pass", 1, 1),
    "TryStar": ("try:\n    pass\nexcept* ValueError:\n    pass", 1, 1),
    "Raise": ("raise ValueError('no')", 1, 1),
    "Assert": ("assert x", 1, 1),
    "Global": ("global x", 1, 1),
    "Nonlocal": ("nonlocal x", 1, 1),
    "Yield": ("y = (yield)", 1, 6),
    "YieldFrom": ("y = yield from xs", 1, 5),
    "Await": ("y = await x", 1, 5),
    "AsyncFor": ("async for v in xs:\n    pass", 1, 1),
    "AsyncWith": ("async with cm:\n    pass", 1, 1),
    "Match": ("match x:\n    case 1:\n        pass", 1, 1),
    "NamedExpr": ("y = (n := 1)", 1, 6),
    "AnnAssign": ("y: int = 1", 1, 1),
    "TypeAlias": ("type Alias = int", 1, 1),
}


def node_exists(name: str) -> bool:
    """True when this Python's ``ast`` module has the node class ``name``."""
    return hasattr(ast, name)
