"""A program's call sites of given tools, read from its syntax tree: what each call passes, and whether it may repeat.

This is pure syntax, for the approval of a program's effects
(``lackpy.approvals.effects``): the caller names the tools whose calls it
wants listed, with their parameter names, and gets one ``CallSite`` per
call of them in the text, in source order. Each argument is one of:

- ``literal``: a value written in the program (``'a.txt'``, ``3``,
  ``['-q', 'tests']``: what ``ast.literal_eval`` reads), kept as ``value``;
- ``parameter``: a bare name of one of the run's parameters that the program
  never binds (so the value is the one the caller passed);
- ``computed``: anything else, kept as its expression (``ast.unparse``).

A call that passes ``*args`` or ``**kwargs`` cannot be bound to parameter
names from its text: the positions after the first ``*`` and every
``**`` are folded into one computed argument named ``*``, and the site is
``open``. A site is ``repeated`` when it is in a ``for`` body, in a
comprehension past its first iterable, or in a lambda (the only lambda the
language allows is a ``key=``, called once per item): it may run many times.
Anywhere else a site runs at most once, for a program has no ``while``, no
function definitions and no recursion.

Why the bare-name calls are all there is: the validator refuses a tool's
name anywhere but as the callee of a call (``tool-reference``), so a tool
cannot be aliased, passed as ``key=``, put in a list or reached through a
builtin; every run-time call of a tool is one of these sites.
"""

from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from lackpy.schema import Contract

#: The kinds of argument a site passes.
KINDS = ("literal", "parameter", "computed")
#: The name of the argument that holds what ``*args`` and ``**kwargs`` pass, and every position after them.
FOLDED = "*"


@dataclass(frozen=True)
class Argument(Contract):
    """One argument of a call site: the tool's parameter ``name`` it binds (``#3`` past the signature, ``*`` folded),
    its ``kind`` (``literal``, ``parameter``, ``computed``) and its ``expression`` as source text."""

    name: str
    kind: str
    expression: str
    value: Any = field(default=None, compare=False, metadata={"json": False})
    """A literal's value (``ast.literal_eval``); None for the other kinds."""


@dataclass(frozen=True)
class CallSite(Contract):
    """One call of a tool in a program's text: where it is (1-based ``line`` and character ``col``), what it passes,
    whether it may run many times (``repeated``) and whether its arguments could be bound by name (not ``open``)."""

    tool: str
    line: int
    col: int
    repeated: bool
    arguments: tuple[Argument, ...]
    open: bool = False


def call_sites(program: str, tools: Mapping[str, Sequence[str]], params: Iterable[str] = ()) -> tuple[CallSite, ...]:
    """Every call of ``tools`` (``{name: its parameter names in order}``) in ``program``, in source order.

    ``program`` must already be valid (``lackpy.lang.validator``): it is
    parsed again here, which gives the same tree.
    """
    tree = ast.parse(program)
    params = frozenset(params)
    finder = _Sites(program, tools, params - _bound(tree))
    finder.visit(tree)
    return tuple(sorted(finder.sites, key=lambda site: (site.line, site.col)))


def _bound(tree: ast.AST) -> set[str]:
    """Every name the program binds anywhere (an assignment, a loop, a comprehension, a lambda parameter)."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    return names | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}


class _Sites(ast.NodeVisitor):
    def __init__(self, source: str, tools: Mapping[str, Sequence[str]], params: frozenset[str]) -> None:
        self.lines = re.split(r"\r\n|\r|\n", source)  # the parser's own line breaks
        self.tools, self.params = tools, params
        self.repeated = False
        self.sites: list[CallSite] = []

    @contextmanager
    def many(self) -> Iterator[None]:
        before, self.repeated = self.repeated, True
        try:
            yield
        finally:
            self.repeated = before

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        with self.many():
            self.visit(node.target)  # a target like d[f()] is stored to once per item
            for statement in node.body:
                self.visit(statement)
        for statement in node.orelse:  # runs once after the loop
            self.visit(statement)

    def _comprehension(self, node: ast.AST, parts: Sequence[ast.AST]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)  # evaluated once, where the comprehension is
        with self.many():
            for position, generator in enumerate(generators):
                self.visit(generator.target)
                if position:
                    self.visit(generator.iter)
                for condition in generator.ifs:
                    self.visit(condition)
            for part in parts:
                self.visit(part)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        with self.many():
            self.visit(node.body)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if type(func) is ast.Name and func.id in self.tools:
            self.sites.append(self.site(node, func.id))
        self.generic_visit(node)

    def site(self, node: ast.Call, tool: str) -> CallSite:
        names = list(self.tools[tool])
        arguments: list[Argument] = []
        folded: list[str] = []
        for position, arg in enumerate(node.args):
            if folded or type(arg) is ast.Starred:
                folded.append(ast.unparse(arg))
                continue
            name = names[position] if position < len(names) else f"#{position + 1}"
            arguments.append(self.argument(name, arg))
        for keyword in node.keywords:
            if keyword.arg is None:
                folded.append(ast.unparse(keyword))
            else:
                arguments.append(self.argument(keyword.arg, keyword.value))
        if folded:
            arguments.append(Argument(FOLDED, "computed", ", ".join(folded)))
        line, col = self.where(node)
        return CallSite(tool, line, col, self.repeated, tuple(arguments), bool(folded))

    def argument(self, name: str, node: ast.expr) -> Argument:
        text = ast.unparse(node)
        if type(node) is ast.Name and node.id in self.params:
            return Argument(name, "parameter", text)
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return Argument(name, "computed", text)
        return Argument(name, "literal", text, value)

    def where(self, node: ast.AST) -> tuple[int, int]:
        """1-based line and character column (the tree gives a UTF-8 byte offset)."""
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return node.lineno, len(line.encode("utf-8")[: node.col_offset].decode("utf-8", errors="ignore")) + 1


__all__ = ["FOLDED", "KINDS", "Argument", "CallSite", "call_sites"]
