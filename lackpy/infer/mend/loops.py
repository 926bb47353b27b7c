"""A ``while`` loop over a counter, as the ``for i in range(...)`` lackpy allows.

lackpy refuses ``while`` (a loop that need not end), but small models count
with it::

    i = 0
    while i < len(lines):
        ...
        i += 1

which is ``for i in range(len(lines)): ...`` exactly when:

- the counter is set to an integer constant before the loop, in the same
  block, with no statement in between touching it, and the loop's last
  statement adds a positive integer constant;
- the test is ``i < stop`` or ``i <= stop`` (either way round), and ``stop``
  is a constant, a name or ``len(name)`` that the body never changes (no
  assignment, and for ``len`` no method call on the name), since ``range``
  reads it once;
- the body assigns the counter nowhere else and has no ``continue`` (which
  in the while loop skips the increment), and the loop has no ``else``;
- the counter is read nowhere but in the loop: after a ``while`` it holds
  ``stop``, after a ``for`` the last value, or nothing when the range is empty.

Anything else is left for the validator, whose hint says to loop with
``for``.
"""

from __future__ import annotations

import ast

from lackpy.infer.mend.asttools import is_call, stored, unparsed


def _counter_start(stmt: ast.stmt) -> tuple[str, int] | None:
    """``i = 0`` -> ("i", 0)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        value = stmt.value
        if isinstance(value, ast.Constant) and type(value.value) is int:
            return stmt.targets[0].id, value.value
    return None


def _step(stmt: ast.stmt, counter: str) -> int | None:
    """``i += k`` or ``i = i + k`` with a positive integer constant k -> k."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and _is_name(stmt.target, counter):
        amount = stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_name(stmt.targets[0], counter):
        value = stmt.value
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _is_name(value.left, counter)):
            return None
        amount = value.right
    else:
        return None
    return amount.value if isinstance(amount, ast.Constant) and type(amount.value) is int and amount.value > 0 else None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _stop(test: ast.expr, counter: str) -> tuple[ast.expr, bool] | None:
    """``i < stop`` / ``stop > i`` -> (stop, False); ``i <= stop`` / ``stop >= i`` -> (stop, True)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _is_name(left, counter) and isinstance(op, (ast.Lt, ast.LtE)):
        return right, isinstance(op, ast.LtE)
    if _is_name(right, counter) and isinstance(op, (ast.Gt, ast.GtE)):
        return left, isinstance(op, ast.GtE)
    return None


def _fixed(stop: ast.expr, body: list[ast.stmt]) -> bool:
    """``stop`` keeps its value through the body: a constant, or a name (or len of one) the body leaves alone."""
    changed = set(stored(ast.Module(body, [])))
    if isinstance(stop, ast.Constant):
        return type(stop.value) is int
    if isinstance(stop, ast.Name):
        return stop.id not in changed
    if is_call(stop, "len") and len(stop.args) == 1 and not stop.keywords and isinstance(stop.args[0], ast.Name):
        name = stop.args[0].id
        mutated = any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _is_name(n.func.value, name)
            for stmt in body for n in ast.walk(stmt)
        )
        return name not in changed and not mutated
    return False


def _continues(body: list[ast.stmt]) -> bool:
    """A ``continue`` of this loop (not of a loop nested in it)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(getattr(node, "orelse", []))  # a loop's else belongs to the outer loop
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _range(start: int, stop: ast.expr, inclusive: bool, step: int) -> ast.Call:
    """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``; ``<=`` adds one to stop."""
    if inclusive:
        stop = ast.Constant(stop.value + 1) if isinstance(stop, ast.Constant) else ast.BinOp(stop, ast.Add(), ast.Constant(1))
    args: list[ast.expr] = [stop] if start == 0 and step == 1 else [ast.Constant(start), stop]
    if step != 1:
        args.append(ast.Constant(step))
    return ast.Call(ast.Name("range", ast.Load()), args, [])


def _init(before: list[ast.stmt], counter: str) -> int | None:
    """Index in ``before`` of the ``counter = constant`` the loop starts from; the statements after it leave the counter alone."""
    for index in range(len(before) - 1, -1, -1):
        start = _counter_start(before[index])
        if start is not None and start[0] == counter:
            return index
        if any(_is_name(n, counter) for n in ast.walk(before[index])):
            return None
    return None


def _as_for(start: tuple[str, int], loop: ast.stmt, reads_elsewhere: dict[str, int]) -> ast.For | None:
    """The for loop equivalent to the counter's ``start`` followed by ``loop``, or None."""
    if not isinstance(loop, ast.While) or loop.orelse or len(loop.body) < 1:
        return None
    counter, first = start
    step = _step(loop.body[-1], counter)
    bounds = _stop(loop.test, counter)
    if step is None or bounds is None:
        return None
    stop, inclusive = bounds
    body = loop.body[:-1]
    if counter in stored(ast.Module(body, [])) or _continues(body) or not _fixed(stop, body):
        return None
    inside = sum(1 for n in ast.walk(loop) if _is_name(n, counter) and isinstance(n.ctx, ast.Load))
    if reads_elsewhere.get(counter, 0) != inside:
        return None
    return ast.For(ast.Name(counter, ast.Store()), _range(first, stop, inclusive, step), body or [ast.Pass()], [])


def _loop_counter(stmt: ast.stmt) -> str | None:
    """The name a while loop's last statement increments, if it is one."""
    if isinstance(stmt, ast.While) and stmt.body:
        last = stmt.body[-1]
        target = last.target if isinstance(last, ast.AugAssign) else (last.targets[0] if isinstance(last, ast.Assign) and len(last.targets) == 1 else None)
        if isinstance(target, ast.Name):
            return target.id
    return None


class _Blocks(ast.NodeTransformer):
    """Rewrites the pattern in every statement list: the module, and the bodies of if, for and with."""

    def __init__(self, reads: dict[str, int]) -> None:
        self.reads = reads
        self.changed = False

    def rewrite(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            counter = _loop_counter(stmt)
            found = _init(out, counter) if counter else None
            loop = _as_for(_counter_start(out[found]), stmt, self.reads) if found is not None else None
            if loop is None:
                out.append(self.visit(stmt))
                continue
            del out[found]  # the counter's start is now the range's
            out.append(self.visit(loop))
            self.changed = True
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                setattr(node, field, self.rewrite(stmts))
        return node


def while_to_for(tree: ast.Module, names: frozenset[str]) -> str | None:
    """``i = a`` then ``while i < b: ...; i += k`` becomes ``for i in range(a, b, k): ...`` when they mean the same."""
    if not any(isinstance(n, ast.While) for n in ast.walk(tree)):
        return None
    reads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1
    blocks = _Blocks(reads)
    tree.body = blocks.rewrite(tree.body)
    return unparsed(tree, blocks.changed)


__all__ = ["while_to_for"]
