"""Deterministic repairs: rewrite what models habitually get wrong, before asking them again.

Small models write ordinary Python where a lackpy program calls the kit's
tools at the top level: ``open(p).read()``, ``glob.glob``, ``os.walk``,
``def main()``, helper functions and assigned lambdas, ``while`` over a
counter, ``"{}".format(x)``, imports, a final ``print``. Each of these has one
obvious translation, so it is cheaper and surer to rewrite the program than
to spend a model round on it. Every repair works on the parsed program,
applies only when its tool is in the kit and the meaning is kept, and
returns the new text or None. Comments are lost when a repair applies (the
program is unparsed).

Each repair names the failure mode it fixes (``Repair.mode``), so an answer
that was mended still says what was wrong with it. ``TEXT_REPAIRS`` work on
text that does not parse yet (a Python 3.12 f-string on 3.11).
"""

from __future__ import annotations

import ast
import copy
import string
from typing import Callable, Collection, NamedTuple

from lackpy.infer.mend.fstrings import requote
from lackpy.infer.mend.asttools import call as _call, is_call as _is_call, parse_quietly, unparsed as _unparsed
from lackpy.infer.mend.inline import inline_helpers, map_filter_to_comprehension
from lackpy.infer.mend.loops import while_to_for
from lackpy.infer.mend.failures import IMPLEMENT_NOT_ORCHESTRATE, INVALID, JUPYTER_CONFUSION, STDLIB_LEAK, SYNTAX_ARTIFACT, WRONG_OUTPUT
from lackpy.infer.mend.stdlib_calls import stdlib_to_tools

#: Rounds of the whole table; a repair can expose work for another (unwrap_main, then open_to_read_file).
MAX_ROUNDS = 10


class Repair(NamedTuple):
    """One rewrite: ``apply(tree, names)`` returns the new program, or None when it does not apply.

    ``mode`` is the failure mode the rewritten habit belongs to.
    """

    name: str
    description: str
    apply: Callable[[ast.Module, frozenset[str]], "str | None"]
    mode: str = INVALID


def apply_repairs(program: str, names: Collection[str]) -> tuple[str, list[str]]:
    """Apply ``REPAIRS`` in table order, round after round, until none changes the program.

    ``names`` are the kit's tool aliases. Returns the program and the names of
    the repairs that applied, each once, in the order they first applied. A
    program that does not parse is returned unchanged.
    """
    names = frozenset(names)
    applied: list[str] = []
    if parse_quietly(program) is None:
        for repair in TEXT_REPAIRS:
            new = repair.apply(program)
            if new is not None and parse_quietly(new) is not None:
                program = new
                applied.append(repair.name)
                break
        else:
            return program, applied
    for _ in range(MAX_ROUNDS):
        changed = False
        for repair in REPAIRS:
            try:
                new = repair.apply(parse_quietly(program), names)
            except RecursionError:  # a pathologically deep program is left to the validator
                new = None
            if new is not None and new != program:
                program, changed = new, True
                if repair.name not in applied:
                    applied.append(repair.name)
        if not changed:
            break
    return program, applied


# -- files: open() -> read_file / write_file ---------------------------------------


def _lines_of(path: ast.expr) -> ast.expr:
    """``read_file(path).splitlines(keepends=True)``: what iterating a file yields."""
    split = ast.Attribute(_call("read_file", path), "splitlines", ast.Load())
    return ast.Call(split, [], [ast.keyword("keepends", ast.Constant(True))])


#: Text modes of open() these repairs understand: "r" reads, "w" overwrites (append has no tool).
OPEN_MODES = {"r": "r", "rt": "r", "tr": "r", "w": "w", "wt": "w", "tw": "w"}

#: open() keywords that do not change what the file holds as text.
OPEN_KEYWORDS = frozenset({"mode", "encoding", "errors", "newline"})

#: (file method, open mode) -> (tool it needs, number of arguments, the tool call); "__iter__" is `for x in f`.
FILE_METHODS: dict[tuple[str, str], tuple[str, int, Callable[[ast.expr, list[ast.expr]], ast.expr]]] = {
    ("read", "r"): ("read_file", 0, lambda path, args: _call("read_file", path)),
    ("readlines", "r"): ("read_file", 0, lambda path, args: _lines_of(path)),
    ("__iter__", "r"): ("read_file", 0, lambda path, args: _lines_of(path)),
    ("write", "w"): ("write_file", 1, lambda path, args: _call("write_file", path, *args)),
}


def _opened(node: ast.AST) -> tuple[ast.expr, str] | None:
    """``(path, "r" | "w")`` when ``node`` is ``open(path[, mode], encoding=...)`` in text mode."""
    if not _is_call(node, "open") or not 1 <= len(node.args) <= 2:
        return None
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if not set(keywords) <= OPEN_KEYWORDS or (len(node.args) == 2 and "mode" in keywords):
        return None
    mode = node.args[1] if len(node.args) == 2 else keywords.get("mode", ast.Constant("r"))
    if not isinstance(mode, ast.Constant) or mode.value not in OPEN_MODES:
        return None
    return node.args[0], OPEN_MODES[mode.value]


def _file_call(method: str, opened: tuple[ast.expr, str], args: list[ast.expr], names: frozenset[str]) -> ast.expr | None:
    """The tool call doing what ``method`` does on the opened file, when the kit has that tool."""
    entry = FILE_METHODS.get((method, opened[1]))
    if entry is None or entry[0] not in names or len(args) != entry[1] or any(isinstance(a, ast.Starred) for a in args):
        return None
    return entry[2](opened[0], args)


class _Files(ast.NodeTransformer):
    """``open(p).read()``, ``for line in open(p)`` and ``with open(p) as f`` blocks, as tool calls."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        opened = _opened(func.value) if isinstance(func, ast.Attribute) and not node.keywords else None
        new = _file_call(func.attr, opened, node.args, self.names) if opened else None
        self.changed |= new is not None
        return new or node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        opened = _opened(node.iter)
        new = _file_call("__iter__", opened, [], self.names) if opened else None
        if new is not None:
            node.iter, self.changed = new, True
        return node

    def visit_With(self, node: ast.With) -> ast.AST | list[ast.stmt]:
        """The block's body, each handle's single use replaced by its tool call.

        A handle used twice (two writes would overwrite each other; a second
        read gives "" in Python) or in any other way keeps the block as is.
        """
        self.generic_visit(node)
        handles = {}
        for item in node.items:
            opened = _opened(item.context_expr)
            if opened is None or not isinstance(item.optional_vars, ast.Name):
                return node
            handles[item.optional_vars.id] = opened
        uses = [n.id for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in handles]
        if sorted(uses) != sorted(handles):
            return node
        body = [_Handles(handles, self.names).visit(stmt) for stmt in copy.deepcopy(node.body)]
        if any(isinstance(n, ast.Name) and n.id in handles for stmt in body for n in ast.walk(stmt)):
            return node
        self.changed = True
        return body


class _Handles(ast.NodeTransformer):
    """Replaces ``f.read()``, ``f.write(s)`` and ``for x in f`` for the handles of a with block."""

    def __init__(self, handles: dict[str, tuple[ast.expr, str]], names: frozenset[str]) -> None:
        self.handles = handles
        self.names = names

    def handle(self, node: ast.AST) -> tuple[ast.expr, str] | None:
        return self.handles.get(node.id) if isinstance(node, ast.Name) else None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        opened = self.handle(func.value) if isinstance(func, ast.Attribute) and not node.keywords else None
        return (_file_call(func.attr, opened, node.args, self.names) if opened else None) or node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        opened = self.handle(node.iter)
        node.iter = (_file_call("__iter__", opened, [], self.names) if opened else None) or node.iter
        return node


def open_to_read_file(tree: ast.Module, names: frozenset[str]) -> str | None:
    files = _Files(names)
    files.visit(tree)
    return _unparsed(tree, files.changed)


# -- program shape: imports, def main(), the main guard, a final print --------------


def _bound(stmt: ast.Import | ast.ImportFrom) -> list[str]:
    """The names an import binds; ``import a.b`` binds ``a``."""
    return [alias.asname or alias.name.partition(".")[0] for alias in stmt.names]


def drop_imports(tree: ast.Module, names: frozenset[str]) -> str | None:
    """Drop top-level imports whose every name is a kit tool or is never used.

    ``from tools import read_file`` is harmless noise; ``import os`` stays
    while ``os`` is used, so the validator still names the real problem.
    """
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}

    def droppable(stmt: ast.stmt) -> bool:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) or any(a.name == "*" for a in stmt.names):
            return False
        return all(name in names or name not in used for name in _bound(stmt))

    kept = [stmt for stmt in tree.body if not droppable(stmt)]
    changed = len(kept) != len(tree.body)
    tree.body = kept
    return _unparsed(tree, changed)


_MAIN_GUARD_SIDES = {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def _is_main_guard(stmt: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either way round) without an else."""
    if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    return {ast.dump(test.left), ast.dump(test.comparators[0])} == _MAIN_GUARD_SIDES


def strip_main_guard(tree: ast.Module, names: frozenset[str]) -> str | None:
    if not any(_is_main_guard(stmt) for stmt in tree.body):
        return None
    tree.body = [inner for stmt in tree.body for inner in (stmt.body if _is_main_guard(stmt) else [stmt])]
    return _unparsed(tree, True)


def drop_global(tree: ast.Module, names: frozenset[str]) -> str | None:
    """A ``global x`` statement at the top level declares what is already so: it goes."""
    kept = [stmt for stmt in tree.body if not isinstance(stmt, ast.Global)]
    changed = len(kept) != len(tree.body)
    tree.body = kept
    return _unparsed(tree, changed)


#: Inside main, these make the body mean something else at the top level (a return other than the last too).
_SCOPED = (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Return)


def _main_call(stmt: ast.stmt, name: str) -> tuple[str, list[ast.expr]] | None:
    """How the program calls main: ``("expr", [])`` for ``main()`` or ``print(main())``, ``("assign", targets)``."""
    if isinstance(stmt, ast.Assign) and _is_call(stmt.value, name) and not (stmt.value.args or stmt.value.keywords):
        return "assign", stmt.targets
    if not isinstance(stmt, ast.Expr):
        return None
    value = stmt.value
    if _is_call(value, "print") and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if _is_call(value, name) and not (value.args or value.keywords):
        return "expr", []
    return None


def unwrap_main(tree: ast.Module, names: frozenset[str]) -> str | None:
    """``def main(): ... return x`` then ``main()`` becomes the body at the top level, ending in ``x``.

    The program is imports and defs, the last def parameterless, then its
    call (or a main guard holding it). Other defs stay for
    ``inline_helpers``, unless they read a name main assigns (which would
    then be shared). ``global`` statements at main's top level go, since its
    names become global anyway; any return but the last, a nested global,
    nonlocal and yield refuse.
    """
    body = tree.body
    start = next((i for i, s in enumerate(body) if not isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef))), len(body))
    if start == 0 or start == len(body):
        return None
    fn, rest = body[start - 1], body[start:]
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list or _has_parameters(fn.args):
        return None
    if len(rest) == 1 and _is_main_guard(rest[0]):
        rest = rest[0].body
    call, after = _main_call(rest[0], fn.name), rest[1:]
    steps = [stmt for stmt in (fn.body[1:] if _is_docstring(fn.body[0]) else fn.body) if not isinstance(stmt, ast.Global)]
    final = steps.pop() if steps and isinstance(steps[-1], ast.Return) else None
    if call is None or not (steps or final):
        return None
    returned = [final.value] if final and final.value else []
    for node in (n for tree_part in steps + after + returned for n in ast.walk(tree_part)):
        if isinstance(node, _SCOPED) or (isinstance(node, ast.Name) and node.id == fn.name):
            return None
    others = [s for s in body[: start - 1] if isinstance(s, ast.FunctionDef)]
    assigned = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if any(isinstance(n, ast.Name) and (n.id in assigned or n.id == fn.name) for other in others for n in ast.walk(other)):
        return None
    value = final.value if final else None
    if call[0] == "assign":
        steps.append(ast.Assign(call[1], value or ast.Constant(None)))
    elif value is not None:
        steps.append(ast.Expr(value))
    tree.body = body[: start - 1] + steps + after
    return _unparsed(tree, True)


def _has_parameters(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


# -- results: a final print or display ----------------------------------------------

#: print() keywords that change only how the text looks: sep joins the values, end and flush do not matter for a value.
PRINT_KEYWORDS = frozenset({"sep", "end", "flush"})


def _printed(node: ast.Call) -> ast.expr | None:
    """The value a print shows: its one argument, or the f-string of several joined by ``sep``."""
    args = node.args
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if not args or any(isinstance(a, ast.Starred) for a in args) or not set(keywords) <= PRINT_KEYWORDS:
        return None
    if not all(isinstance(v, ast.Constant) and (isinstance(v.value, str) or k == "flush") for k, v in keywords.items()):
        return None
    if len(args) == 1:
        return args[0]
    sep = keywords["sep"].value if "sep" in keywords else " "
    values: list[ast.expr] = []
    for index, arg in enumerate(args):
        if index and sep:
            values.append(ast.Constant(sep))
        values.append(ast.Constant(arg.value) if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ast.FormattedValue(arg, -1, None))
    merged: list[ast.expr] = []
    for value in values:
        if merged and isinstance(value, ast.Constant) and isinstance(merged[-1], ast.Constant):
            merged[-1] = ast.Constant(merged[-1].value + value.value)
        else:
            merged.append(value)
    return ast.JoinedStr(merged)


def _final_call_to_result(tree: ast.Module, name: str) -> str | None:
    last = tree.body[-1] if tree.body else None
    if not (isinstance(last, ast.Expr) and _is_call(last.value, name)):
        return None
    value = _printed(last.value) if name == "print" else (last.value.args[0] if len(last.value.args) == 1 and not last.value.keywords else None)
    if value is None or isinstance(value, ast.Starred):
        return None
    tree.body[-1] = ast.Expr(value)
    return _unparsed(tree, True)


def final_print_to_result(tree: ast.Module, names: frozenset[str]) -> str | None:
    """A last ``print(x)`` becomes ``x``, ``print("n:", n)`` becomes ``f"n: {n}"``: the answer belongs in the result."""
    return _final_call_to_result(tree, "print")


def final_display_to_result(tree: ast.Module, names: frozenset[str]) -> str | None:
    """A notebook's last ``display(x)`` becomes ``x``: a program's last expression is what it shows."""
    return _final_call_to_result(tree, "display")


# -- "{}".format(x) -> f"{x}" --------------------------------------------------------


def _format_fields(template: str) -> list[tuple[str, str | None, str, str | None]] | None:
    """``string.Formatter`` fields of a template, or None when one is beyond a plain f-string field."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for _, field, spec, _ in fields:
        if field is not None and (any(c in field for c in ".[") or (spec and "{" in spec)):
            return None
    return fields


def _format_call(node: ast.Call) -> ast.expr | None:
    """``"{} of {n}".format(a, n=b)`` as ``f"{a} of {b}"``, when each argument that is not a name or constant is used once, in order."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "format" and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)):
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords):
        return None
    fields = _format_fields(func.value.value)
    if fields is None:
        return None
    keywords = {kw.arg: kw.value for kw in node.keywords}
    values: list[ast.expr] = []
    used: list[ast.expr] = []
    auto = 0
    for literal, field, spec, conversion in fields:
        if literal:
            values.append(ast.Constant(literal))
        if field is None:
            continue
        if field == "":
            if auto >= len(node.args):
                return None
            arg, auto = node.args[auto], auto + 1
        elif field.isdigit():
            if int(field) >= len(node.args):
                return None
            arg = node.args[int(field)]
        elif field in keywords:
            arg = keywords[field]
        else:
            return None
        used.append(arg)
        spec_node = ast.JoinedStr([ast.Constant(spec)]) if spec else None
        values.append(ast.FormattedValue(copy.deepcopy(arg), ord(conversion) if conversion else -1, spec_node))
    given = [*node.args, *keywords.values()]
    for arg in given:
        if not isinstance(arg, (ast.Name, ast.Constant)) and sum(1 for u in used if u is arg) != 1:
            return None
    order = [a for a in used if not isinstance(a, (ast.Name, ast.Constant))]
    if order != [a for a in given if not isinstance(a, (ast.Name, ast.Constant))]:
        return None
    return ast.JoinedStr(values)


class _Formats(ast.NodeTransformer):
    def __init__(self) -> None:
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        new = _format_call(node)
        if new is None:
            return node
        self.changed = True
        return new


def format_to_fstring(tree: ast.Module, names: frozenset[str]) -> str | None:
    formats = _Formats()
    formats.visit(tree)
    return _unparsed(tree, formats.changed)


# -- text repairs: programs that do not parse yet --------------------------------------


class TextRepair(NamedTuple):
    """A rewrite of program text that does not parse; ``apply(text)`` returns the new text or None."""

    name: str
    description: str
    apply: Callable[[str], "str | None"]
    mode: str = SYNTAX_ARTIFACT


def fstring_quotes(text: str) -> str | None:
    """Python 3.12 lets an f-string's fields reuse its quote; earlier versions need the other one."""
    return requote(text)


TEXT_REPAIRS: tuple[TextRepair, ...] = (
    TextRepair("fstring_quotes", "an f-string field quoting with the f-string's own quote gets the other quote", fstring_quotes),
)


#: The repairs in the order they run each round: the shape first (main, helpers, loops), then the
#: calls (open, the standard library), drop_imports after the rewrites that free imports, the result last.
REPAIRS: tuple[Repair, ...] = (
    Repair("unwrap_main", "a def main() and its call become top-level statements ending in the returned value", unwrap_main, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("strip_main_guard", "an if __name__ == '__main__': block becomes its body", strip_main_guard, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("drop_global", "a top-level global statement, which declares nothing, is removed", drop_global, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("map_filter_to_comprehension", "map(f, xs) and filter(f, xs) become generator expressions", map_filter_to_comprehension, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("inline_helpers", "one-expression functions and assigned lambdas are written where they are called", inline_helpers, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("while_to_for", "i = a; while i < b: ...; i += k becomes for i in range(a, b, k)", while_to_for, IMPLEMENT_NOT_ORCHESTRATE),
    Repair("open_to_read_file", "open(p).read() and with open(p) blocks become read_file(p) / write_file(p, s)", open_to_read_file, STDLIB_LEAK),
    Repair(
        "stdlib_to_tools",
        "glob.glob, os.listdir, os.walk, os.path and pathlib.Path calls, however imported, become the kit's tools",
        stdlib_to_tools,
        STDLIB_LEAK,
    ),
    Repair("format_to_fstring", "'{}'.format(x) becomes f'{x}'", format_to_fstring, INVALID),
    Repair("drop_imports", "imports of kit tools and unused imports are removed", drop_imports, STDLIB_LEAK),
    Repair("final_print_to_result", "a final print(...) becomes the result", final_print_to_result, WRONG_OUTPUT),
    Repair("final_display_to_result", "a final display(x) becomes the result x", final_display_to_result, JUPYTER_CONFUSION),
)

#: The failure mode each repair (text repairs included) fixes, by name.
REPAIR_MODES: dict[str, str] = {r.name: r.mode for r in (*REPAIRS, *TEXT_REPAIRS)}

__all__ = ["MAX_ROUNDS", "REPAIRS", "REPAIR_MODES", "Repair", "TEXT_REPAIRS", "TextRepair", "apply_repairs", "parse_quietly"]
