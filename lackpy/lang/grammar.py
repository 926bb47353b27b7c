"""The lackpy language as data: what a program may contain, and why.

A program is a notebook cell: assignments, ``if``, ``for`` over a call or a
name, ``with``, comprehensions, f-strings and calls; its last expression is its
result. Everything not listed in ``ALLOWED_NODES`` is refused, so syntax added
by a future Python is refused until someone reviews it.
"""

from __future__ import annotations

# Statements and expressions a program may contain, with the reason each is safe.
ALLOWED_NODES: dict[str, str] = {
    "Module": "the program itself",
    "Expr": "an expression statement; the last one is the result",
    "Assign": "bind names, items or tuple targets",
    "AugAssign": "x += 1 on a name or an item",
    "If": "branching",
    "For": "loop over a call or a name",
    "With": "use a context manager a tool returned",
    "withitem": "part of with",
    "Pass": "an empty branch",
    "Break": "leave a loop",
    "Continue": "next loop iteration",
    "BoolOp": "and / or",
    "BinOp": "arithmetic and string operators",
    "UnaryOp": "not, -x, +x, ~x",
    "IfExp": "a if cond else b",
    "Dict": "dict literal",
    "Set": "set literal",
    "List": "list literal",
    "Tuple": "tuple literal",
    "ListComp": "list comprehension",
    "SetComp": "set comprehension",
    "DictComp": "dict comprehension",
    "GeneratorExp": "generator expression",
    "comprehension": "part of a comprehension",
    "Compare": "comparisons",
    "Call": "call a tool or builtin by name, or a method of a value",
    "keyword": "keyword argument",
    "Starred": "*args in calls and targets",
    "FormattedValue": "part of an f-string",
    "JoinedStr": "f-string",
    "Constant": "literals without '__'",
    "Attribute": "public attributes and methods of values",
    "Subscript": "item access and slicing",
    "Slice": "a[i:j:k]",
    "Name": "variables, tools and builtins",
    "Lambda": "only as the key= argument of a call",
    "arguments": "lambda parameters",
    "arg": "a lambda parameter",
}

# Nodes refused on purpose, with the hint a model can act on.
FORBIDDEN_NODES: dict[str, str] = {
    "Import": "imports are not available; the kit's tools and the builtins are already in scope",
    "ImportFrom": "imports are not available; the kit's tools and the builtins are already in scope",
    "FunctionDef": "define no functions; write the steps at the top level",
    "AsyncFunctionDef": "define no functions; write the steps at the top level",
    "ClassDef": "use dicts and lists instead of classes",
    "Return": "the last expression of the program is its result; end with it instead of return",
    "Delete": "rebind the name or build a new dict/list instead of del",
    "While": "loop with for over range(n) or over a tool's result",
    "Try": "errors stop the program; check values with if before using them",
    "TryStar": "errors stop the program; check values with if before using them",
    "Raise": "make the result say what went wrong instead of raising",
    "Assert": "check with if and make the result say what went wrong",
    "Global": "all names are already shared at the top level",
    "Nonlocal": "all names are already shared at the top level",
    "Yield": "build a list instead of yielding",
    "YieldFrom": "build a list instead of yielding",
    "Await": "tools are called directly; no await is needed",
    "AsyncFor": "use a plain for loop",
    "AsyncWith": "use a plain with statement",
    "Match": "use if/elif/else",
    "NamedExpr": "assign on its own line before using the value",
    "AnnAssign": "drop the type annotation: x = value",
    "TypeAlias": "type aliases are not needed; use values directly",
}

# Builtins a program may call, each with its reason.
ALLOWED_BUILTINS: dict[str, str] = {
    "len": "size of a value",
    "sorted": "sort (key= may be a lambda)",
    "reversed": "reverse iteration",
    "enumerate": "index and item",
    "zip": "pair sequences",
    "range": "counting loops",
    "min": "smallest (key= may be a lambda)",
    "max": "largest (key= may be a lambda)",
    "sum": "add numbers",
    "any": "some item true",
    "all": "every item true",
    "abs": "absolute value",
    "round": "round numbers",
    "str": "text conversion",
    "int": "integer conversion",
    "float": "float conversion",
    "bool": "truth value",
    "list": "build a list",
    "dict": "build a dict",
    "set": "build a set",
    "tuple": "build a tuple",
    "isinstance": "type test against the builtin types",
    "print": "captured; returned in the result's printed text",
}

# Names refused anywhere in a program, each with the hint to give instead.
FORBIDDEN_NAMES: dict[str, str] = {
    "open": "no direct I/O; use read_file(path) instead of open()",
    "eval": "no code generation; write the expression directly",
    "exec": "no code generation; write the statements directly",
    "compile": "no code generation; write the statements directly",
    "__import__": "imports are not available; use the kit's tools",
    "getattr": "use obj.name for public attributes, or a dict for dynamic keys",
    "setattr": "keep data in dicts: d[key] = value",
    "delattr": "keep data in dicts and rebuild them",
    "hasattr": "keep data in dicts and test with 'key in d'",
    "globals": "use your variables directly",
    "locals": "use your variables directly",
    "vars": "use your variables directly",
    "dir": "read the tool docs instead of introspecting",
    "type": "use isinstance(x, T) to test a type",
    "object": "use dicts and lists",
    "super": "classes are not available",
    "classmethod": "classes are not available",
    "staticmethod": "classes are not available",
    "property": "classes are not available",
    "breakpoint": "no debugger; print values instead",
    "input": "pass values in as parameters",
    "help": "read the tool docs instead",
    "memoryview": "work with str and bytes values directly",
    "id": "compare values with == instead of identities",
    "exit": "the program ends after its last line",
    "quit": "the program ends after its last line",
    "callable": "call tools by name",
    "iter": "loop with for instead",
    "next": "loop with for, or index a list",
    "format": "use an f-string",
    "printed": "printed text is returned in the result's printed field",
    "builtins": "the builtins are already in scope",
}

# Attribute names refused besides those starting with "_": reflection and
# format strings reach object internals.
FORBIDDEN_ATTRIBUTES: dict[str, str] = {
    "format": "use an f-string: f\"{x}\" instead of \"{}\".format(x)",
    "format_map": "use an f-string",
    "mro": "classes are not available",
}

# Prefixes of frame, code, generator, coroutine and traceback internals.
FORBIDDEN_ATTRIBUTE_PREFIXES: tuple[str, ...] = ("f_", "co_", "gi_", "cr_", "ag_", "tb_", "func_")

# Limits applied before and during the walk, so hostile text cannot exhaust
# the parser, the walker or the compiler.
MAX_PROGRAM_CHARS = 200_000
MAX_DEPTH = 100
MAX_BLOCK_NESTING = 20  # the CPython compiler's limit for nested for/with blocks
MAX_STARRED_PREFIX = 255  # names before a starred target, a compiler limit

PROGRAM_FILENAME = "<program>"


def is_forbidden_attribute(name: str) -> bool:
    """True for private, reflective and format attributes."""
    return (
        name[:1] == "_"
        or name in FORBIDDEN_ATTRIBUTES
        or name.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES)
    )


def language_spec() -> dict:
    """The grammar as JSON-ready data (what ``lackpy spec`` prints)."""
    return {
        "allowed_nodes": dict(sorted(ALLOWED_NODES.items())),
        "forbidden_nodes": dict(sorted(FORBIDDEN_NODES.items())),
        "forbidden_names": dict(sorted(FORBIDDEN_NAMES.items())),
        "allowed_builtins": dict(sorted(ALLOWED_BUILTINS.items())),
        "forbidden_attributes": {
            **dict(sorted(FORBIDDEN_ATTRIBUTES.items())),
            **{p + "*": "interpreter internals" for p in FORBIDDEN_ATTRIBUTE_PREFIXES},
            "_*": "private and dunder attributes",
        },
        "rules": {
            "result": "the value of the last expression statement is the program's result",
            "calls": "call kit tools and allowed builtins by bare name, or methods of values",
            "lambda": "only as the key= argument of a call",
            "for": "loop over a call or a name",
            "strings": "no string or bytes literal may contain '__'",
            "names": "no name, attribute or keyword starting with '_'",
            "tools": "tools are called, never passed around or rebound",
        },
        "limits": {
            "max_program_chars": MAX_PROGRAM_CHARS,
            "max_depth": MAX_DEPTH,
            "max_block_nesting": MAX_BLOCK_NESTING,
        },
    }
