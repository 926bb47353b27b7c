"""Validate a program against a kit's namespace: an AST whitelist that never raises.

The checker is a small recursive walker with one handler per node type. Any
node without a handler is refused, so syntax added by a future Python is
refused until someone reviews it. It also catches what the CPython compiler
would refuse after parsing (repeated keywords, starred targets, loop control
outside loops, too many nested blocks), so a program that validates compiles.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from lackpy.errors import closest
from lackpy.lang.diagnostics import Diagnostic, ValidationResult
from lackpy.lang.grammar import (
    ALLOWED_BUILTINS,
    FORBIDDEN_ATTRIBUTES,
    FORBIDDEN_NAMES,
    FORBIDDEN_NODES,
    MAX_BLOCK_NESTING,
    MAX_DEPTH,
    MAX_PROGRAM_CHARS,
    MAX_STARRED_PREFIX,
    PROGRAM_FILENAME,
    is_forbidden_attribute,
)

Check = Callable[[ast.Module], "list[str]"]
"""A custom check: a callable ``(ast.Module) -> list[str]`` whose messages become errors (a ``Diagnostic`` is kept as it is)."""
Rule = Check  # the name before 0.2; kept for code that imported it

_BUILTIN_NAMES = frozenset(ALLOWED_BUILTINS)
EMPTY_PROGRAM = Diagnostic("empty-program", "program is empty", hint="write at least one statement")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_STDLIB = frozenset(sys.stdlib_module_names)


def validate(
    program: str,
    allowed_names: Iterable[str] | None = None,
    checks: Sequence[Check] | None = None,
    *,
    params: Iterable[str] = (),
) -> ValidationResult:
    """Check ``program`` against the kit namespace ``allowed_names``.

    ``allowed_names`` are the tool names the program may call (``None``: no
    tools, builtins only); ``params`` are names the caller injects as
    variables; ``checks`` are callables ``(ast.Module) -> list[str]``
    whose messages become ``custom-check`` errors. Never raises.
    """
    return analyze(program, allowed_names, checks, params)[0]


def analyze(
    program: object,
    allowed_names: Iterable[str] | None = None,
    checks: Sequence[Check] | None = None,
    params: Iterable[str] = (),
) -> tuple[ValidationResult, ast.Module | None]:
    """Validate and also return the parsed tree (``None`` when it did not parse)."""
    try:
        tree, errors, program = _parse(program)
        if tree is None:
            return ValidationResult(False, errors), None
        if not tree.body:  # comments or line continuations only
            return ValidationResult(False, [EMPTY_PROGRAM]), None
        checker = _Checker(program, frozenset(allowed_names or ()), frozenset(params))
        checker.module(tree)
        errors = checker.finish()
        if checks:
            errors.extend(_apply_checks(tree, checks))
        result = ValidationResult(not errors, errors, list(checker.calls), list(checker.assigned))
        return result, tree
    except (RecursionError, MemoryError) as exc:
        kind = "memory" if isinstance(exc, MemoryError) else "nesting"
        diag = Diagnostic("too-complex", f"program is too complex to check ({kind})", hint="split it into simpler statements")
        return ValidationResult(False, [diag]), None
    except Exception as exc:  # a checker bug must refuse the program, never crash the caller
        diag = Diagnostic("internal-error", f"the validator failed: {type(exc).__name__}: {exc}", hint="report this program to the lackpy maintainers")
        return ValidationResult(False, [diag]), None


@lru_cache(maxsize=256)
def _callable_names(tools: frozenset[str]) -> frozenset[str]:
    return tools | _BUILTIN_NAMES


def _parse(program: object) -> tuple[ast.Module | None, list[Diagnostic], str]:
    """The tree and the program as text, or None and the reason it does not parse."""
    if isinstance(program, (bytes, bytearray)):
        try:
            program = bytes(program).decode("utf-8")
        except UnicodeDecodeError:
            return None, [Diagnostic("parse-error", "program is not UTF-8 text", hint="save the program as UTF-8")], ""
    if not isinstance(program, str):
        return None, [Diagnostic("parse-error", f"program must be text, not {type(program).__name__}")], ""
    if len(program) > MAX_PROGRAM_CHARS:
        return None, [
            Diagnostic(
                "too-large",
                f"program has {len(program)} characters; the limit is {MAX_PROGRAM_CHARS}",
                hint="compose the tools in a shorter program",
            )
        ], ""
    if not program.strip():  # Unicode whitespace too, which the parser would reject
        return None, [EMPTY_PROGRAM], ""
    depth = _bracket_depth(program)
    if depth > MAX_DEPTH:
        return None, [
            Diagnostic("too-deep", f"brackets nested {depth} levels deep; the limit is {MAX_DEPTH}", hint="split it into several assignments")
        ], ""
    try:
        return ast.parse(program, PROGRAM_FILENAME), [], program
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        return None, [
            Diagnostic("parse-error", f"syntax error: {msg}", exc.lineno or 0, exc.offset or 0, "fix the Python syntax")
        ], ""
    except ValueError as exc:  # null bytes, integer literals beyond the digit limit
        return None, [Diagnostic("parse-error", f"cannot parse program: {exc}", hint="remove the offending characters")], ""
    except (RecursionError, MemoryError, OverflowError):
        return None, [
            Diagnostic("too-complex", "program is nested too deeply to parse", hint="split it into simpler statements")
        ], ""


_BRACKETS = re.compile(r"[(\[{]|[)\]}]")


def _bracket_depth(program: str) -> int:
    """The deepest bracket nesting, found before parsing (brackets inside strings count too)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(program):
        if match.group() in "([{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif depth:
            depth -= 1
    return deepest


def _apply_checks(tree: ast.Module, checks: Sequence[Check]) -> list[Diagnostic]:
    out = []
    for check in checks:
        name = getattr(check, "__name__", repr(check))
        try:
            messages = check(tree)
            for message in messages or ():  # a check that knows where may say so with a Diagnostic of its own
                out.append(message if isinstance(message, Diagnostic) else Diagnostic("custom-check", str(message), hint=f"required by check {name}"))
        except Exception as exc:  # a broken check must not break validation
            out.append(Diagnostic("check-error", f"check {name} failed: {type(exc).__name__}: {exc}"))
    return out


class _Checker:
    """Walks a parsed program once, collecting diagnostics, calls and variables."""

    def __init__(self, source: str, tools: frozenset[str], params: frozenset[str]) -> None:
        self.source = source
        self.lines: list[str] | None = None
        self.tools = tools
        self.params = params
        self.callable_names = _callable_names(tools)
        self.errors: list[Diagnostic] = []
        self.calls: dict[str, None] = {}
        self.assigned: dict[str, None] = {}
        self.loaded: dict[str, ast.AST] = {}
        self.loops = 0
        self.blocks = 0
        self.scopes: list[set[str]] = []  # names bound by enclosing comprehensions and lambdas

    # -- reporting -------------------------------------------------------

    def err(self, node: ast.AST, code: str, message: str, hint: str = "") -> None:
        self.errors.append(Diagnostic(code, message, *self.where(node), hint))

    def where(self, node: ast.AST) -> tuple[int, int]:
        """1-based line and character column (ast gives a UTF-8 byte offset)."""
        line, offset = getattr(node, "lineno", 0), getattr(node, "col_offset", -1)
        if line and offset > 0 and not self.source.isascii():
            if self.lines is None:
                self.lines = _NEWLINE.split(self.source)  # the parser's own line breaks
            text = self.lines[line - 1] if line <= len(self.lines) else ""
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
        return line, offset + 1

    def finish(self) -> list[Diagnostic]:
        for name, node in self.loaded.items():
            if name not in self.assigned and name not in self.params and name not in self.callable_names:
                self.undefined(name, node)
        self.errors.sort(key=lambda d: (d.line, d.col))
        return self.errors

    def undefined(self, name: str, node: ast.AST) -> None:
        if name in _STDLIB:
            hint = "modules are not available; use the kit's tools" + self.tool_list()
        else:
            hint = "assign it before use, or pass it as a parameter" + closest(name, self.known_names())
        self.err(node, "undefined-name", f"name '{name}' is not defined", hint)

    def known_names(self) -> set[str]:
        return set(self.assigned) | set(self.params) | set(self.callable_names)

    def tool_list(self) -> str:
        tools = sorted(self.tools)
        if not tools:
            return " (this kit has no tools)"
        shown = ", ".join(tools[:8]) + (", ..." if len(tools) > 8 else "")
        return f" ({shown})"

    def too_deep(self, node: ast.AST) -> None:
        self.err(node, "too-deep", f"expression nested more than {MAX_DEPTH} levels", "split it into several assignments")

    # -- statements ------------------------------------------------------

    def module(self, node: ast.Module) -> None:
        self.body(node.body, 1)

    def body(self, stmts: list[ast.stmt], depth: int) -> None:
        for stmt in stmts:
            handler = _STMT.get(type(stmt))
            if handler is None:
                self.forbidden(stmt)
            else:
                handler(self, stmt, depth)

    def forbidden(self, node: ast.AST) -> None:
        name = type(node).__name__
        hint = FORBIDDEN_NODES.get(name, "use assignments, if, for, calls and expressions")
        self.err(node, "forbidden-node", f"'{_describe(node)}' is not allowed in lackpy programs", hint)

    def s_expr(self, node: ast.Expr, depth: int) -> None:
        self.expr(node.value, depth)

    def s_assign(self, node: ast.Assign, depth: int) -> None:
        for target in node.targets:
            self.target(target, depth)
        self.expr(node.value, depth)

    def s_augassign(self, node: ast.AugAssign, depth: int) -> None:
        target = node.target
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
            self.err(node, "forbidden-node", "augmented assignment to a slice is not allowed", "assign the slice: a[i:j] = a[i:j] + b")
        self.target(target, depth)
        if isinstance(target, ast.Name):
            self.load_name(target)
        self.expr(node.value, depth)

    def s_if(self, node: ast.If, depth: int) -> None:
        while True:  # an elif chain is flat in the source, though nested in the tree
            self.expr(node.test, depth)
            self.body(node.body, depth + 1)
            orelse = node.orelse
            if len(orelse) == 1 and type(orelse[0]) is ast.If:
                node = orelse[0]
                continue
            self.body(orelse, depth + 1)
            return

    def s_for(self, node: ast.For, depth: int) -> None:
        if not isinstance(node.iter, (ast.Name, ast.Call)):
            self.err(
                node.iter,
                "for-iter",
                "a for loop must iterate over a call or a name",
                "assign the sequence to a variable first, then loop over the variable",
            )
        self.target(node.target, depth)
        self.expr(node.iter, depth)
        self.block(node, node.body, node.orelse, depth, loop=True, blocks=1)

    def s_with(self, node: ast.With, depth: int) -> None:
        for item in node.items:
            self.expr(item.context_expr, depth)
            if item.optional_vars is not None:
                self.target(item.optional_vars, depth)
        self.block(node, node.body, (), depth, loop=False, blocks=len(node.items))

    def block(self, node: ast.AST, body: list, orelse, depth: int, loop: bool, blocks: int) -> None:
        """A for or with body; CPython allows 20 nested blocks, one per with-item."""
        before = self.blocks
        self.blocks += blocks
        if before <= MAX_BLOCK_NESTING < self.blocks:
            self.err(node, "too-deep", f"more than {MAX_BLOCK_NESTING} nested for/with blocks", "flatten the loops and with statements")
        self.loops += loop
        self.body(body, depth + 1)
        self.loops -= loop
        self.blocks = before
        self.body(orelse, depth + 1)

    def s_pass(self, node: ast.Pass, depth: int) -> None:
        pass

    def s_loop_control(self, node: ast.stmt, depth: int) -> None:
        if not self.loops:
            word = "break" if isinstance(node, ast.Break) else "continue"
            self.err(node, "loop-control", f"'{word}' outside a loop", "use it only inside a for loop")

    # -- assignment targets ---------------------------------------------

    def target(self, node: ast.expr, depth: int) -> None:
        if depth > MAX_DEPTH:
            return self.too_deep(node)
        kind = type(node)
        if kind is ast.Name:
            self.store_name(node, node.id)
        elif kind is ast.Tuple or kind is ast.List:
            starred = [e for e in node.elts if isinstance(e, ast.Starred)]
            if len(starred) > 1:
                self.err(node, "starred-target", "more than one starred name in an assignment", "use one *rest name")
            elif starred and node.elts.index(starred[0]) > MAX_STARRED_PREFIX:
                self.err(node, "starred-target", "too many names before the starred name", "unpack in several steps")
            for elt in node.elts:
                if type(elt) is ast.Starred:
                    self.target(elt.value, depth + 1)
                else:
                    self.target(elt, depth + 1)
        elif kind is ast.Starred:
            self.err(node, "starred-target", "a starred target must be inside a tuple or list", "write: first, *rest = items")
        elif kind is ast.Subscript:
            self.expr(node.value, depth + 1)
            self.expr(node.slice, depth + 1)
        elif kind is ast.Attribute:
            self.err(node, "attribute-assign", f"cannot assign to attribute '{node.attr}'", "keep data in dicts: d[key] = value")
        else:
            self.err(node, "forbidden-node", f"cannot assign to {_describe(node)}", "assign to a name or an item")

    def store_name(self, node: ast.AST, name: str) -> None:
        if name[:1] == "_":
            self.err(node, "forbidden-name", f"name '{name}' starts with '_'", "use a name without a leading underscore")
        elif "__" in name:
            self.err(node, "forbidden-name", f"name '{name}' contains '__'", "use single underscores in names")
        elif name in FORBIDDEN_NAMES:
            self.err(node, "forbidden-name", f"name '{name}' is reserved", FORBIDDEN_NAMES[name])
        elif name in self.callable_names:
            what = "tool" if name in self.tools else "builtin"
            self.err(node, "shadowed-name", f"assigning to '{name}' would hide the {what} of that name", "choose another variable name")
        if self.scopes:
            self.scopes[-1].add(name)
        else:
            self.assigned[name] = None

    # -- expressions -----------------------------------------------------

    def expr(self, node: ast.expr, depth: int) -> None:
        if depth > MAX_DEPTH:
            return self.too_deep(node)
        kind = type(node)
        if kind is ast.Name:
            self.load_name(node)
        elif kind is ast.Constant:
            value = node.value
            if (type(value) is str or type(value) is bytes) and (b"__" in value if type(value) is bytes else "__" in value):
                self.err(node, "dunder-string", "string literals may not contain '__'", "internals are not reachable from programs")
        elif kind is ast.Call:
            self.call(node, depth)
        elif kind is ast.Attribute:
            self.attribute(node, node.attr)
            self.expr(node.value, depth + 1)
        else:
            handler = _EXPR.get(kind)
            if handler is None:
                self.forbidden(node)
            else:
                handler(self, node, depth + 1)

    def exprs(self, nodes: list, depth: int) -> None:
        for node in nodes:
            if node is not None:
                self.expr(node, depth)

    def load_name(self, node: ast.Name) -> None:
        name = node.id
        if name in self.tools:
            self.err(node, "tool-reference", f"tool '{name}' must be called, not used as a value", f"call {name}(...) directly")
        elif name[:1] == "_":
            self.err(node, "forbidden-name", f"name '{name}' starts with '_'", "names starting with '_' are reserved")
        elif name in FORBIDDEN_NAMES:
            self.err(node, "forbidden-name", f"'{name}' is not available", self.name_hint(name))
        elif "__" in name:
            self.err(node, "forbidden-name", f"name '{name}' contains '__'", "use single underscores in names")
        elif name not in self.loaded and not any(name in scope for scope in self.scopes):
            self.loaded[name] = node

    def name_hint(self, name: str) -> str:
        if name == "open" and "read_file" not in self.tools:
            return "no direct I/O; use the kit's tools" + self.tool_list()
        return FORBIDDEN_NAMES[name]

    def attribute(self, node: ast.AST, attr: str) -> None:
        if attr[:1] == "_" or "__" in attr:
            self.err(node, "private-attribute", f"attribute '{attr}' is private", "use public methods and dict keys only")
        elif is_forbidden_attribute(attr):
            hint = FORBIDDEN_ATTRIBUTES.get(attr, "interpreter internals are not reachable from programs")
            self.err(node, "forbidden-attribute", f"attribute '{attr}' is not allowed", hint)

    def call(self, node: ast.Call, depth: int) -> None:
        func = node.func
        if type(func) is ast.Name:
            name = func.id
            if name in self.callable_names:
                self.calls[name] = None
            elif name[:1] == "_" or name in FORBIDDEN_NAMES:
                self.load_name(func)
            else:
                self.unknown_function(func, name)
        elif type(func) is ast.Attribute:
            self.attribute(func, func.attr)
            self.expr(func.value, depth + 1)
        else:
            self.err(func, "indirect-call", "only named tools, builtins and methods of values can be called", "call tools by name: tool(args)")
            self.expr(func, depth + 1)
        for arg in node.args:
            self.expr(arg.value if type(arg) is ast.Starred else arg, depth + 1)
        seen = set()
        for kw in node.keywords:
            key = kw.arg
            if key is not None:
                if key in seen:
                    self.err(kw, "repeated-keyword", f"keyword argument '{key}' is repeated", "pass each keyword once")
                seen.add(key)
                if key[:1] == "_":
                    self.err(kw, "forbidden-name", f"keyword '{key}' starts with '_'", "use keywords without a leading underscore")
                if key == "key" and type(kw.value) is ast.Lambda:
                    self.lambda_(kw.value, depth + 1)
                    continue
            self.expr(kw.value, depth + 1)

    def unknown_function(self, node: ast.Name, name: str) -> None:
        near = closest(name, self.callable_names)
        self.err(
            node,
            "unknown-function",
            f"'{name}' is not a tool of this kit or an allowed builtin{near}",
            "call only the kit's tools" + self.tool_list() + " and the allowed builtins",
        )

    def lambda_(self, node: ast.Lambda, depth: int) -> None:
        args = node.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        if len(set(names)) != len(names):
            self.err(node, "duplicate-parameter", "a lambda parameter is repeated", "give each parameter its own name")
        self.exprs(args.defaults, depth + 1)
        self.exprs(args.kw_defaults, depth + 1)
        self.scopes.append(set())
        for name in names:
            self.store_name(node, name)
        self.expr(node.body, depth + 1)
        self.scopes.pop()

    def e_lambda(self, node: ast.Lambda, depth: int) -> None:
        self.err(node, "lambda-position", "lambda is allowed only as the key= argument of a call", "compute the values with a comprehension instead")

    def e_boolop(self, node: ast.BoolOp, depth: int) -> None:
        self.exprs(node.values, depth)

    def e_binop(self, node: ast.BinOp, depth: int) -> None:
        self.expr(node.left, depth)
        self.expr(node.right, depth)

    def e_unaryop(self, node: ast.UnaryOp, depth: int) -> None:
        self.expr(node.operand, depth)

    def e_ifexp(self, node: ast.IfExp, depth: int) -> None:
        self.expr(node.test, depth)
        self.expr(node.body, depth)
        self.expr(node.orelse, depth)

    def e_dict(self, node: ast.Dict, depth: int) -> None:
        self.exprs(node.keys, depth)
        self.exprs(node.values, depth)

    def e_elts(self, node: ast.List, depth: int) -> None:
        for elt in node.elts:
            self.expr(elt.value if type(elt) is ast.Starred else elt, depth)

    def e_starred(self, node: ast.Starred, depth: int) -> None:
        self.err(node, "forbidden-node", "*value is allowed only in calls and in list, tuple or set literals", "write [*items] or f(*items)")

    def e_compare(self, node: ast.Compare, depth: int) -> None:
        self.expr(node.left, depth)
        self.exprs(node.comparators, depth)

    def e_comp(self, node: ast.ListComp, depth: int) -> None:
        self.scopes.append(set())
        self.generators(node.generators, depth)
        self.expr(node.elt, depth)
        self.scopes.pop()

    def e_dictcomp(self, node: ast.DictComp, depth: int) -> None:
        self.scopes.append(set())
        self.generators(node.generators, depth)
        self.expr(node.key, depth)
        self.expr(node.value, depth)
        self.scopes.pop()

    def generators(self, generators: list[ast.comprehension], depth: int) -> None:
        for gen in generators:
            if gen.is_async:
                self.err(gen.target, "forbidden-node", "async comprehensions are not allowed", "use a plain comprehension")
            self.target(gen.target, depth)
            self.expr(gen.iter, depth)
            self.exprs(gen.ifs, depth)

    def e_joinedstr(self, node: ast.JoinedStr, depth: int) -> None:
        self.exprs(node.values, depth)

    def e_formatted(self, node: ast.FormattedValue, depth: int) -> None:
        self.expr(node.value, depth)
        if node.format_spec is not None:
            self.expr(node.format_spec, depth)

    def e_subscript(self, node: ast.Subscript, depth: int) -> None:
        self.expr(node.value, depth)
        self.expr(node.slice, depth)

    def e_slice(self, node: ast.Slice, depth: int) -> None:
        self.exprs([node.lower, node.upper, node.step], depth)


def _describe(node: ast.AST) -> str:
    names = {
        "Import": "import",
        "ImportFrom": "from ... import",
        "FunctionDef": "def",
        "AsyncFunctionDef": "async def",
        "ClassDef": "class",
        "Return": "return",
        "Delete": "del",
        "While": "while",
        "Try": "try",
        "TryStar": "try/except*",
        "Raise": "raise",
        "Assert": "assert",
        "Global": "global",
        "Nonlocal": "nonlocal",
        "Yield": "yield",
        "YieldFrom": "yield from",
        "Await": "await",
        "AsyncFor": "async for",
        "AsyncWith": "async with",
        "Match": "match",
        "NamedExpr": ":= (assignment expression)",
        "AnnAssign": "annotated assignment",
    }
    name = type(node).__name__
    return names.get(name, name)


_STMT: dict[type, Callable] = {
    ast.Expr: _Checker.s_expr,
    ast.Assign: _Checker.s_assign,
    ast.AugAssign: _Checker.s_augassign,
    ast.If: _Checker.s_if,
    ast.For: _Checker.s_for,
    ast.With: _Checker.s_with,
    ast.Pass: _Checker.s_pass,
    ast.Break: _Checker.s_loop_control,
    ast.Continue: _Checker.s_loop_control,
}

_EXPR: dict[type, Callable] = {
    ast.Lambda: _Checker.e_lambda,
    ast.BoolOp: _Checker.e_boolop,
    ast.BinOp: _Checker.e_binop,
    ast.UnaryOp: _Checker.e_unaryop,
    ast.IfExp: _Checker.e_ifexp,
    ast.Dict: _Checker.e_dict,
    ast.Set: _Checker.e_elts,
    ast.List: _Checker.e_elts,
    ast.Tuple: _Checker.e_elts,
    ast.Starred: _Checker.e_starred,
    ast.Compare: _Checker.e_compare,
    ast.ListComp: _Checker.e_comp,
    ast.SetComp: _Checker.e_comp,
    ast.GeneratorExp: _Checker.e_comp,
    ast.DictComp: _Checker.e_dictcomp,
    ast.JoinedStr: _Checker.e_joinedstr,
    ast.FormattedValue: _Checker.e_formatted,
    ast.Subscript: _Checker.e_subscript,
    ast.Slice: _Checker.e_slice,
}
