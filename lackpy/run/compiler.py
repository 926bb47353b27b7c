"""Compile a validated program into a guarded function, once per text and namespace.

The validated tree goes through RestrictedPython's transformer (attribute and
item access, iteration, item stores and in-place operators become guard
calls), then its statements become the body of a function whose parameters
are the program's parameters. Fast locals make guarded code about as fast as
unguarded module-level code, and the function returns the value of the last
expression together with the program's variables.
"""

from __future__ import annotations

import ast
import types
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from RestrictedPython.transformer import IOPERATOR_TO_STR, RestrictingNodeTransformer, copy_locations

from lackpy.lang.diagnostics import Diagnostic, ValidationResult
from lackpy.lang.grammar import PROGRAM_FILENAME
from lackpy.lang.validator import Check, analyze

CACHE_SIZE = 512


# Operators whose result can grow without bound, compiled into guard calls.
GUARDED_OPERATORS = {ast.Add: "_add_", ast.Mult: "_mul_", ast.Pow: "_pow_", ast.LShift: "_lshift_"}
# Builtins whose result is always a number: adding one cannot build a sequence.
NUMERIC_CALLS = frozenset({"len", "int", "float", "abs", "round", "bool"})


SMALL_INT = 2**31


def range_counters(tree: ast.Module) -> frozenset[str]:
    """Names bound only as ``for NAME in range(...)`` targets: always plain, bounded ints."""
    counters: set[str] = set()
    counter_targets: set[int] = set()
    bound_elsewhere: set[str] = set()
    for node in ast.walk(tree):  # a For is always visited before its target
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            call = node.iter
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range":
                counters.add(node.target.id)
                counter_targets.add(id(node.target))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in counter_targets:
            bound_elsewhere.add(node.id)
        elif isinstance(node, ast.arg):
            bound_elsewhere.add(node.arg)
    return frozenset(counters - bound_elsewhere)


class LackpyTransformer(RestrictingNodeTransformer):
    """RestrictedPython's policy, plus print, item augmented assignment and bounded operators."""

    def __init__(self, counters: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.counters = counters

    def small_int(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.counters
        return isinstance(node, ast.Constant) and type(node.value) is int and -SMALL_INT < node.value < SMALL_INT

    def number(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in NUMERIC_CALLS
        return isinstance(node, ast.Name) and node.id in self.counters

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        left, right = node.left, node.right  # before the transform wraps them
        node = self.node_contents_visit(node)
        guard = GUARDED_OPERATORS.get(type(node.op))
        # The product of two bounded ints cannot run away, and adding a number
        # cannot build a sequence: `total = total + 1` and `i * i` in a loop
        # over range stay plain operators.
        if (
            guard is None
            or (guard == "_mul_" and self.small_int(left) and self.small_int(right))
            or (guard == "_add_" and (self.number(left) or self.number(right)))
        ):
            return node
        call = ast.Call(ast.copy_location(ast.Name(guard, ast.Load()), node), [node.left, node.right], [])
        return ast.copy_location(call, node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "print":  # a plain function per run captures the text
            return node
        return super().visit_Name(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        if not isinstance(target, ast.Subscript):
            return super().visit_AugAssign(node)
        # d[k] += v  ->  t0 = d; t1 = k; _write_(t0)[t1] = _inplacevar_('+=', _getitem_(t0, t1), v)
        container, key = self.gen_tmp_name(), self.gen_tmp_name()
        value, index, rhs = self.visit(target.value), self.visit(target.slice), self.visit(node.value)

        def name(identifier: str, ctx=ast.Load) -> ast.Name:
            return ast.Name(identifier, ctx())

        def call(func: str, *args: ast.expr) -> ast.Call:
            return ast.Call(name(func), list(args), [])

        store = ast.Subscript(call("_write_", name(container)), name(key), ast.Store())
        current = call("_getitem_", name(container), name(key))
        new = call("_inplacevar_", ast.Constant(IOPERATOR_TO_STR[type(node.op)]), current, rhs)
        statements = [
            ast.Assign([name(container, ast.Store)], value),
            ast.Assign([name(key, ast.Store)], index),
            ast.Assign([store], new),
        ]
        for statement in statements:
            copy_locations(statement, node)
        return statements


@dataclass(frozen=True)
class Prepared:
    """A program checked and compiled: ``code`` is None when it is invalid."""

    validation: ValidationResult
    code: types.CodeType | None


def prepare(program: str, tools: frozenset[str], params: tuple[str, ...] = (), checks: tuple[Check, ...] = ()) -> Prepared:
    """Validate and compile, caching by text, tool names, parameter names and checks."""
    try:
        return _prepare_cached(program, tools, params, checks)
    except TypeError:  # unhashable program or checks: do the work uncached
        return _prepare(program, tools, params, checks)


def _prepare(program: str, tools: frozenset[str], params: tuple[str, ...], checks: Sequence[Check]) -> Prepared:
    validation, tree = analyze(program, tools, checks, params)
    if not validation.valid or tree is None:
        return Prepared(validation, None)
    try:
        code = _compile(tree, params)
    except _Refused as exc:
        errors = [Diagnostic("restricted", message, hint="the guarded compiler refused this construct") for message in exc.args[0]]
        return Prepared(ValidationResult(False, errors, validation.calls, validation.variables), None)
    except Exception as exc:  # compile bombs included: the caller gets a diagnostic, never an exception
        line = getattr(exc, "lineno", 0) or 0
        message = f"the program cannot be compiled: {type(exc).__name__}: {exc}"
        diag = Diagnostic("compile-error", message, line, 0, "simplify the statement")
        return Prepared(ValidationResult(False, [diag], validation.calls, validation.variables), None)
    return Prepared(validation, code)


_prepare_cached = lru_cache(maxsize=CACHE_SIZE)(_prepare)


class _Refused(Exception):
    pass


def _compile(tree: ast.Module, params: tuple[str, ...]) -> types.CodeType:
    transformer = LackpyTransformer(range_counters(tree))
    tree = transformer.visit(tree)
    if transformer.errors:
        raise _Refused(list(transformer.errors))
    body = tree.body
    last = body[-1]
    # The nodes added here get their locations one by one: a whole-tree
    # ast.fix_missing_locations would cost as much as the parse.
    if isinstance(last, ast.Expr):
        value, anchor = last.value, last
        body.pop()
    else:
        value, anchor = _located(ast.Constant(None), last), last
    snapshot = _located(ast.Call(_located(ast.Name("_locals_", ast.Load()), anchor), [], []), anchor)
    body.append(_located(ast.Return(_located(ast.Tuple([value, snapshot], ast.Load()), anchor)), anchor))
    arguments = ast.arguments(
        posonlyargs=[],
        args=[],
        vararg=None,
        kwonlyargs=[_located(ast.arg(p), anchor) for p in params],
        kw_defaults=[None] * len(params),
        kwarg=None,
        defaults=[],
    )
    function = ast.FunctionDef(name="program", args=arguments, body=body, decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        function.type_params = []
    function.lineno, function.col_offset = 1, 0
    function.end_lineno, function.end_col_offset = anchor.end_lineno, anchor.end_col_offset
    with warnings.catch_warnings():  # a program's SyntaxWarnings are not the host's business
        warnings.simplefilter("ignore")
        code = compile(ast.Module([function], []), PROGRAM_FILENAME, "exec", dont_inherit=True)
    return next(c for c in code.co_consts if isinstance(c, types.CodeType))


def _located(node: ast.AST, anchor: ast.AST) -> ast.AST:
    return ast.copy_location(node, anchor)


def cache_clear() -> None:
    _prepare_cached.cache_clear()
