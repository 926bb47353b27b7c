"""Helper functions and assigned lambdas, written out where they are used.

A lackpy program defines no functions, yet small models wrap one expression
in ``def count(p): return len(read_file(p).splitlines())`` or
``count = lambda p: ...`` and call it, or feed a lambda to ``map`` and
``filter``. When the function is one expression, writing that expression at
each call with the arguments in place of the parameters is the same program,
provided that:

- every use of the function is a call (or ``key=f``, which becomes a lambda,
  the one place lackpy allows one) after its definition, and it is bound once;
- an argument that is not a plain name or constant is used exactly once in
  the body, outside any condition, comprehension or lambda, and is the only
  such argument, so it is evaluated once and in the same order;
- no name the body reads or an argument holds is rebound by a comprehension
  or lambda around the call or inside the body, so every name means the same.

``map(f, xs)`` is ``(f(x) for x in xs)`` and ``filter(f, xs)`` is
``(x for x in xs if f(x))``: both lazy, like the originals; ``list()`` of
such a generator becomes a list comprehension.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from lackpy.infer.mend.asttools import fresh_name, is_call, names_in, stored, unparsed

#: Nodes that evaluate their parts conditionally or repeatedly: a one-time argument must not land inside one.
_GUARDED = (ast.BoolOp, ast.IfExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)
_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


@dataclass
class _Helper:
    """A one-expression function: its parameters, its body, and where it is defined."""

    name: str
    params: list[str]
    body: ast.expr
    stmt: ast.stmt
    line: int


def _one_expression(stmt: ast.stmt) -> _Helper | None:
    """``def f(a, b): return E`` or ``f = lambda a, b: E`` at the top level, with plain parameters."""
    if isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list:
        body = [s for s in stmt.body if not _is_docstring(s)]
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            params = _plain_params(stmt.args)
            return _Helper(stmt.name, params, body[0].value, stmt, stmt.lineno) if params is not None else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        if isinstance(stmt.value, ast.Lambda):
            params = _plain_params(stmt.value.args)
            if params is not None:
                return _Helper(stmt.targets[0].id, params, stmt.value.body, stmt, stmt.lineno)
    return None


def _plain_params(args: ast.arguments) -> list[str] | None:
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.kw_defaults:
        return None
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    return params if len(set(params)) == len(params) else None


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _scope_bound(tree: ast.AST) -> set[str]:
    """Names bound by the comprehensions and lambdas inside ``tree``."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            bound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Lambda):
            bound |= {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    return bound


def _simple(node: ast.expr) -> bool:
    return isinstance(node, (ast.Name, ast.Constant))


class _Uses(ast.NodeVisitor):
    """Every use of the helpers' names: calls (with the scope names around them), key=f, and anything else."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.calls: dict[str, list[tuple[ast.Call, set[str]]]] = {n: [] for n in names}
        self.keys: dict[str, list[ast.keyword]] = {n: [] for n in names}
        self.other: set[str] = set()
        self.scopes: list[set[str]] = []

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in self.names:
            self.calls[node.func.id].append((node, set().union(*self.scopes)))
            for part in [*node.args, *node.keywords]:
                self.visit(part)
            return
        for kw in node.keywords:
            if kw.arg == "key" and isinstance(kw.value, ast.Name) and kw.value.id in self.names:
                self.keys[kw.value.id].append(kw)
            else:
                self.visit(kw.value)
        self.visit(node.func)
        for arg in node.args:
            self.visit(arg)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names:
            self.other.add(node.id)

    def _scoped(self, node: ast.AST) -> None:
        self.scopes.append(_scope_bound(node))
        self.generic_visit(node)
        self.scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda = _scoped

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        """Inside another function, its parameters and locals could hide the names the body reads."""
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        self.scopes.append(params | set(stored(node)))
        self.generic_visit(node)
        self.scopes.pop()


def _arguments(helper: _Helper, node: ast.Call) -> dict[str, ast.expr] | None:
    """Parameter -> argument for a call that fills every parameter exactly once, plainly."""
    if len(node.args) > len(helper.params) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    given = dict(zip(helper.params, node.args))
    for kw in node.keywords:
        if kw.arg is None or kw.arg not in helper.params or kw.arg in given:
            return None
        given[kw.arg] = kw.value
    return given if len(given) == len(helper.params) else None


def _occurrences(body: ast.expr, name: str) -> list[bool]:
    """For each read of ``name`` in ``body``: whether it sits inside a conditional or repeated part."""
    found: list[bool] = []

    def walk(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(guarded)
        for child in ast.iter_child_nodes(node):
            walk(child, guarded or (isinstance(node, _GUARDED) and not _evaluated_first(node, child)))

    walk(body, False)
    return found


def _evaluated_first(node: ast.AST, child: ast.AST) -> bool:
    """The part of a conditional node that is always evaluated once: ``a`` of ``a and b``, the test of ``x if t else y``."""
    if isinstance(node, ast.BoolOp):
        return child is node.values[0]
    return isinstance(node, ast.IfExp) and child is node.test


def _inlined(helper: _Helper, node: ast.Call, around: set[str]) -> ast.expr | None:
    """The body with the call's arguments in place of the parameters, or None when that would change the meaning."""
    given = _arguments(helper, node)
    if given is None:
        return None
    inside = _scope_bound(helper.body)
    free = set(_names_read(helper.body)) - set(helper.params)
    if free & around or inside & set(helper.params):
        return None
    complex_args = [p for p, a in given.items() if not _simple(a)]
    if len(complex_args) > 1:
        return None
    for param, arg in given.items():
        if set(_names_read(arg)) & inside:
            return None
        if param in complex_args:
            uses = _occurrences(helper.body, param)
            if uses != [False]:
                return None
    return _Substitute(given).visit(copy.deepcopy(helper.body))


def _names_read(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


class _Substitute(ast.NodeTransformer):
    def __init__(self, given: dict[str, ast.expr]) -> None:
        self.given = given

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.given:
            return copy.deepcopy(self.given[node.id])
        return node


def _as_lambda(helper: _Helper) -> ast.Lambda:
    args = ast.arguments([], [ast.arg(p) for p in helper.params], None, [], [], None, [])
    return ast.Lambda(args, copy.deepcopy(helper.body))


class _Replace(ast.NodeTransformer):
    def __init__(self, replacements: dict[int, ast.expr]) -> None:
        self.replacements = replacements

    def visit_Call(self, node: ast.Call) -> ast.AST:
        new = self.replacements.get(id(node))
        if new is not None:
            return new
        self.generic_visit(node)
        return node


def inline_helpers(tree: ast.Module, names: frozenset[str]) -> str | None:
    """Write one-expression helper functions and assigned lambdas where they are called, and drop them."""
    helpers = {h.name: h for h in map(_one_expression, tree.body) if h is not None}
    if not helpers:
        return None
    counts = stored(tree)
    defs = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for name in list(helpers):
        helper = helpers[name]
        bound = counts.count(name) + defs.count(name)
        if bound != 1 or name in names_in(helper.body) or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)) for n in ast.walk(helper.body)):
            del helpers[name]
    # A helper another helper calls waits for the next round, when that call has been written out.
    called = {name for h in helpers.values() for name in _names_read(h.body)}
    helpers = {name: h for name, h in helpers.items() if name not in called}
    uses = _Uses(set(helpers))
    for stmt in tree.body:
        if stmt not in [h.stmt for h in helpers.values()]:
            uses.visit(stmt)
    replacements: dict[int, ast.expr] = {}
    done = []
    for name, helper in helpers.items():
        if name in uses.other or any(n.lineno < helper.line for n, _ in uses.calls[name]):
            continue
        mine = {id(n): _inlined(helper, n, around) for n, around in uses.calls[name]}
        if any(v is None for v in mine.values()):
            continue
        replacements.update(mine)
        for kw in uses.keys[name]:
            kw.value = _as_lambda(helper)
        done.append(helper.stmt)
    if not done:
        return None
    tree.body = [_Replace(replacements).visit(stmt) for stmt in tree.body if stmt not in done]
    return unparsed(tree, True)


# -- map and filter -------------------------------------------------------------------


def _over_items(function: ast.expr, items: ast.expr, taken: set[str], keep_item: bool) -> ast.GeneratorExp | None:
    """``(f(x) for x in items)`` (map) or ``(x for x in items if f(x))`` (filter), a lambda's body written out."""
    if isinstance(function, ast.Lambda):
        params = _plain_params(function.args)
        if params is None or len(params) != 1:
            return None
        var, applied = params[0], function.body
    elif isinstance(function, ast.Name) or (keep_item and isinstance(function, ast.Constant) and function.value is None):
        var = fresh_name(taken, "item")
        applied = ast.Name(var, ast.Load()) if isinstance(function, ast.Constant) else ast.Call(function, [ast.Name(var, ast.Load())], [])
    else:
        return None
    loop = ast.comprehension(ast.Name(var, ast.Store()), items, [applied] if keep_item else [], 0)
    return ast.GeneratorExp(ast.Name(var, ast.Load()) if keep_item else applied, [loop])


class _MapFilter(ast.NodeTransformer):
    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.made: set[int] = set()

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        for name, keep in (("map", False), ("filter", True)):
            if is_call(node, name) and len(node.args) == 2 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
                new = _over_items(node.args[0], node.args[1], self.taken, keep)
                if new is not None:
                    self.made.add(id(new))
                    return new
        if is_call(node, "list") and len(node.args) == 1 and not node.keywords and id(node.args[0]) in self.made:
            return ast.ListComp(node.args[0].elt, node.args[0].generators)
        return node


def map_filter_to_comprehension(tree: ast.Module, names: frozenset[str]) -> str | None:
    """``map(f, xs)`` and ``filter(f, xs)`` (builtins lackpy does not offer) as generator expressions."""
    if not any(is_call(n, "map") or is_call(n, "filter") for n in ast.walk(tree)):
        return None
    assigned = set(stored(tree))
    if "map" in assigned or "filter" in assigned:
        return None
    rewriter = _MapFilter(names_in(tree))
    rewriter.visit(tree)
    return unparsed(tree, bool(rewriter.made))


__all__ = ["inline_helpers", "map_filter_to_comprehension"]
