"""Deterministic repairs: rewrite what models habitually get wrong, before asking them again.

Small models write ordinary Python where a lackpy program calls the kit's
tools at the top level: ``open(p).read()``, ``glob.glob``, ``def main()``,
imports, a final ``print``. Each of these has one obvious translation, so it
is cheaper and surer to rewrite the program than to spend a model round on
it. Every repair works on the parsed program, applies only when its tool is
in the kit, and returns the new text or None. Comments are lost when a
repair applies (the program is unparsed).
"""

from __future__ import annotations

import ast
import copy
import warnings
from typing import Callable, Collection, NamedTuple

#: Rounds of the whole table; a repair can expose work for another (unwrap_main, then open_to_read_file).
MAX_ROUNDS = 10


class Repair(NamedTuple):
    """One rewrite: ``apply(tree, names)`` returns the new program, or None when it does not apply."""

    name: str
    description: str
    apply: Callable[[ast.Module, frozenset[str]], "str | None"]


def apply_repairs(program: str, names: Collection[str]) -> tuple[str, list[str]]:
    """Apply ``REPAIRS`` in table order, round after round, until none changes the program.

    ``names`` are the kit's tool aliases. Returns the program and the names of
    the repairs that applied, each once, in the order they first applied. A
    program that does not parse is returned unchanged.
    """
    names = frozenset(names)
    applied: list[str] = []
    if parse_quietly(program) is None:
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


def parse_quietly(program: str) -> ast.Module | None:
    """The program's tree, or None when it does not parse; a model's odd literals warn nobody."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _unparsed(tree: ast.Module, changed: bool) -> str | None:
    return ast.unparse(ast.fix_missing_locations(tree)) if changed else None


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _is_call(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


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


# -- glob and os.listdir -> find_files / list_dir ----------------------------------


def _entry_names(args: list[ast.expr]) -> ast.expr:
    """``[e["name"] for e in list_dir(p)]``: the names os.listdir would give."""
    entry = ast.Subscript(ast.Name("e", ast.Load()), ast.Constant("name"), ast.Load())
    loop = ast.comprehension(ast.Name("e", ast.Store()), _call("list_dir", *args), [], 0)
    return ast.ListComp(entry, [loop])


#: (module, function) -> (tool, positional arguments allowed, keywords allowed with their value, the tool call).
LISTINGS: dict[tuple[str, str], tuple[str, range, dict[str, object], Callable[[list[ast.expr]], ast.expr]]] = {
    ("glob", "glob"): ("find_files", range(1, 2), {"recursive": True}, lambda args: _call("find_files", *args)),
    ("os", "listdir"): ("list_dir", range(0, 2), {}, _entry_names),
}


class _Listings(ast.NodeTransformer):
    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return node
        entry = LISTINGS.get((func.value.id, func.attr))
        if entry is None or entry[0] not in self.names or len(node.args) not in entry[1]:
            return node
        keywords = entry[2]
        if any(isinstance(a, ast.Starred) for a in node.args) or not all(
            kw.arg in keywords and isinstance(kw.value, ast.Constant) and kw.value.value == keywords[kw.arg] for kw in node.keywords
        ):
            return node
        self.changed = True
        return entry[3](node.args)


def glob_to_find_files(tree: ast.Module, names: frozenset[str]) -> str | None:
    listings = _Listings(names)
    listings.visit(tree)
    return _unparsed(tree, listings.changed)


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

    Only a program of (imports,) one parameterless def and its call is
    unwrapped; any return but the last, and global/nonlocal/yield, refuse.
    """
    body = tree.body
    start = next((i for i, s in enumerate(body) if not isinstance(s, (ast.Import, ast.ImportFrom))), len(body))
    if len(body) < start + 2:
        return None
    fn, rest = body[start], body[start + 1:]
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list or _has_parameters(fn.args):
        return None
    if len(rest) == 1 and _is_main_guard(rest[0]):
        rest = rest[0].body
    call, after = _main_call(rest[0], fn.name), rest[1:]
    steps = fn.body[1:] if _is_docstring(fn.body[0]) else list(fn.body)
    final = steps.pop() if steps and isinstance(steps[-1], ast.Return) else None
    if call is None or not (steps or final):
        return None
    returned = [final.value] if final and final.value else []
    for node in (n for tree_part in steps + after + returned for n in ast.walk(tree_part)):
        if isinstance(node, _SCOPED) or (isinstance(node, ast.Name) and node.id == fn.name):
            return None
    value = final.value if final else None
    if call[0] == "assign":
        steps.append(ast.Assign(call[1], value or ast.Constant(None)))
    elif value is not None:
        steps.append(ast.Expr(value))
    tree.body = body[:start] + steps + after
    return _unparsed(tree, True)


def _has_parameters(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def final_print_to_result(tree: ast.Module, names: frozenset[str]) -> str | None:
    """A last ``print(x)`` becomes ``x``: the answer belongs in the result, not the printed text."""
    last = tree.body[-1] if tree.body else None
    if not (isinstance(last, ast.Expr) and _is_call(last.value, "print")):
        return None
    call = last.value
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        return None
    tree.body[-1] = ast.Expr(call.args[0])
    return _unparsed(tree, True)


#: The repairs in the order they run each round; drop_imports follows the rewrites that free imports.
REPAIRS: tuple[Repair, ...] = (
    Repair("unwrap_main", "a single def main() and its call become top-level statements ending in the returned value", unwrap_main),
    Repair("strip_main_guard", "an if __name__ == '__main__': block becomes its body", strip_main_guard),
    Repair("open_to_read_file", "open(p).read() and with open(p) blocks become read_file(p) / write_file(p, s)", open_to_read_file),
    Repair("glob_to_find_files", "glob.glob(p) becomes find_files(p); os.listdir(p) the names from list_dir(p)", glob_to_find_files),
    Repair("drop_imports", "imports of kit tools and unused imports are removed", drop_imports),
    Repair("final_print_to_result", "a final print(x) becomes the result x", final_print_to_result),
)

__all__ = ["MAX_ROUNDS", "REPAIRS", "Repair", "apply_repairs"]
