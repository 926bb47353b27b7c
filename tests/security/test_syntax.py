"""Syntax the whitelist might miss: newer statements, async forms, definitions, odd starred uses.

Every node type outside the whitelist is refused by name (forbidden-node), so
syntax added by a newer Python (``type X = ...`` on 3.12+) is refused until
reviewed; on an older parser it does not even parse.
"""

from __future__ import annotations

import sys

import pytest

from lackpy import validate

from .support import MODES, assert_refused, run

# -- snippets -----------------------------------------------------------------

MATCH_STATEMENT = 'match read_file("README.md"):\n    case str(x):\n        x'
MATCH_CLASS_PATTERN = "match 1:\n    case int(real=r):\n        r"
TRY_EXCEPT = "try:\n    x = 1\nexcept Exception:\n    pass"
TRY_EXCEPT_STAR = "try:\n    x = 1\nexcept* ValueError:\n    pass"
TRY_FINALLY = "try:\n    x = 1\nfinally:\n    pass"
WALRUS = '(text := read_file("README.md"))'
WALRUS_IN_COMPREHENSION = "[(y := v) for v in [1]]"
ASYNC_DEF = "async def f():\n    pass"
AWAIT_TOP_LEVEL = 'await read_file("README.md")'
ASYNC_FOR = "async for x in y:\n    pass"
ASYNC_WITH = "async with y as x:\n    pass"
ASYNC_COMPREHENSION = "xs = [1]\n[x async for x in xs]"
ANNOTATED_ASSIGNMENT = "x: int = 1"
BARE_ANNOTATION = "x: open"
GLOBAL_STATEMENT = "global x\nx = 1"
NONLOCAL_STATEMENT = "nonlocal x"
DEL_STATEMENT = "x = 1\ndel x"
DECORATED_FUNCTION = "@read_file\ndef f():\n    pass"
FUNCTION_DEF = "def f(x=open):\n    return x"
CLASS_DEF = "class A:\n    pass"
YIELD_EXPRESSION = "x = (yield)"
YIELD_FROM = "x = yield from [1]"
YIELD_IN_COMPREHENSION = "[(yield v) for v in [1]]"
RETURN_TOP_LEVEL = "return 1"
RAISE_STATEMENT = "raise SystemExit"
ASSERT_STATEMENT = "assert False"
WHILE_LOOP = "while True:\n    pass"
IMPORT_IN_IF = "if True:\n    import os"
IMPORT_IN_FALSE_BRANCH = "if False:\n    import os\nelse:\n    x = 1"
FROM_IMPORT_IN_ELSE = "if len([]):\n    x = 1\nelse:\n    from os import system"
IMPORT_IN_FOR = "for i in range(1):\n    import os"
DUNDER_IMPORT = '__import__("os")'
EVAL_CALL = 'eval("1")'
EXEC_CALL = 'exec("x = 1")'
COMPILE_CALL = 'compile("1", "f", "eval")'
OPEN_IN_DEAD_BRANCH = 'if False:\n    open("x")'
BREAKPOINT_CALL = "breakpoint()"
STAR_ASSIGN_VALUE = "y = [1]\nx = *y"
STAR_TARGET_ALONE = "*x = [1]"
TWO_STARRED_TARGETS = "*a, *b = [1, 2]"
STAR_IN_SUBSCRIPT = "y = {(1, 2): 3}\nt = [1, 2]\ny[*t]"
LAMBDA_DEFAULT_OPEN = "sorted([1], key=lambda v, g=open: v)"
LAMBDA_DEFAULT_TOOL = "sorted([1], key=lambda v, g=read_file: v)"
LAMBDA_KW_DEFAULT_TOOL = "sorted([1], key=lambda v, *, g=write_file: v)"
LAMBDA_DEFAULT_CALLED = "sorted([1], key=lambda v, g=len: g([v]))"
LAMBDA_YIELD_BODY = "sorted([1], key=lambda v: (yield v))"
LAMBDA_WALRUS_BODY = "sorted([1], key=lambda v: (w := v))"
BREAK_OUTSIDE_LOOP = "break"
TYPE_ALIAS = "type X = int"
GENERIC_FUNCTION = "def f[T](x: T) -> T:\n    return x"
NULL_BYTE = "x = 1\x00"

# Allowed and harmless.
PRINT_STAR_AND_DOUBLE_STAR = 'print(*[1, 2], **{"sep": "-"})'
STARRED_LITERALS = "a = [1]\nb = (*a, 2)\n[*a, *b]"
STARRED_TARGET = "first, *rest = [1, 2, 3]\nrest"
DICT_UNPACK = 'a = {"x": 1}\n{**a, "y": 2}'
ELLIPSIS = "..."


@pytest.mark.parametrize(
    "program, code",
    [
        (MATCH_STATEMENT, "forbidden-node"),
        (MATCH_CLASS_PATTERN, "forbidden-node"),
        (TRY_EXCEPT, "forbidden-node"),
        (TRY_EXCEPT_STAR, "forbidden-node"),
        (TRY_FINALLY, "forbidden-node"),
        (WALRUS, "forbidden-node"),
        (WALRUS_IN_COMPREHENSION, "forbidden-node"),
        (ASYNC_DEF, "forbidden-node"),
        (AWAIT_TOP_LEVEL, "forbidden-node"),
        (ASYNC_FOR, "forbidden-node"),
        (ASYNC_WITH, "forbidden-node"),
        (ASYNC_COMPREHENSION, "forbidden-node"),
        (ANNOTATED_ASSIGNMENT, "forbidden-node"),
        (BARE_ANNOTATION, "forbidden-node"),
        (GLOBAL_STATEMENT, "forbidden-node"),
        (NONLOCAL_STATEMENT, "forbidden-node"),
        (DEL_STATEMENT, "forbidden-node"),
        (DECORATED_FUNCTION, "forbidden-node"),
        (FUNCTION_DEF, "forbidden-node"),
        (CLASS_DEF, "forbidden-node"),
        (YIELD_EXPRESSION, "forbidden-node"),
        (YIELD_FROM, "forbidden-node"),
        (YIELD_IN_COMPREHENSION, "forbidden-node"),
        (RETURN_TOP_LEVEL, "forbidden-node"),
        (RAISE_STATEMENT, "forbidden-node"),
        (ASSERT_STATEMENT, "forbidden-node"),
        (WHILE_LOOP, "forbidden-node"),
        (IMPORT_IN_IF, "forbidden-node"),
        (IMPORT_IN_FALSE_BRANCH, "forbidden-node"),
        (FROM_IMPORT_IN_ELSE, "forbidden-node"),
        (IMPORT_IN_FOR, "forbidden-node"),
        (DUNDER_IMPORT, "forbidden-name"),
        (EVAL_CALL, "forbidden-name"),
        (EXEC_CALL, "forbidden-name"),
        (COMPILE_CALL, "forbidden-name"),
        (OPEN_IN_DEAD_BRANCH, "forbidden-name"),
        (BREAKPOINT_CALL, "forbidden-name"),
        (STAR_ASSIGN_VALUE, "forbidden-node"),
        (STAR_TARGET_ALONE, "starred-target"),
        (TWO_STARRED_TARGETS, "starred-target"),
        (LAMBDA_DEFAULT_OPEN, "forbidden-name"),
        (LAMBDA_DEFAULT_TOOL, "tool-reference"),
        (LAMBDA_KW_DEFAULT_TOOL, "tool-reference"),
        (LAMBDA_DEFAULT_CALLED, "unknown-function"),
        (LAMBDA_YIELD_BODY, "forbidden-node"),
        (LAMBDA_WALRUS_BODY, "forbidden-node"),
        (BREAK_OUTSIDE_LOOP, "loop-control"),
        (NULL_BYTE, "parse-error"),
    ],
    ids=lambda value: value.replace("\n", ";").replace("\x00", "NUL")[:32],
)
def test_syntax_outside_the_whitelist_is_refused(kit, canary, program, code):
    """Each construct is refused statically with its diagnostic code, and nothing runs."""
    assert validate(program, kit.names).errors[0].code == code
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


@pytest.mark.parametrize("program", [TYPE_ALIAS, GENERIC_FUNCTION], ids=["type-alias", "generic-def"])
def test_syntax_of_newer_pythons_is_refused(kit, program):
    """PEP 695 syntax does not parse on 3.11 and is a forbidden node on 3.12+."""
    expected = "forbidden-node" if sys.version_info >= (3, 12) else "parse-error"
    assert_refused(run(program, kit), expected)


def test_refused_nodes_name_the_construct(kit):
    """The diagnostic names the construct and gives a hint a model can act on."""
    error = validate(TRY_EXCEPT_STAR, kit.names).errors[0]
    assert "'try/except*' is not allowed" in error.message and error.hint
    error = validate(IMPORT_IN_IF, kit.names).errors[0]
    assert (error.line, error.col) == (2, 5) and "'import' is not allowed" in error.message


@pytest.mark.parametrize("mode", MODES)
def test_print_with_star_and_double_star_is_allowed(kit, mode):
    """print(*[1, 2], **{"sep": "-"}) is valid and only prints."""
    result = run(PRINT_STAR_AND_DOUBLE_STAR, kit, mode)
    assert result.success, result.error
    assert result.printed == "1-2\n" and result.output is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, output",
    [
        (STARRED_LITERALS, [1, 1, 2]),
        (STARRED_TARGET, [2, 3]),
        (DICT_UNPACK, {"x": 1, "y": 2}),
        (STAR_IN_SUBSCRIPT, 3),
        (ELLIPSIS, Ellipsis),
    ],
    ids=["starred-literals", "starred-target", "dict-unpack", "star-subscript", "ellipsis"],
)
def test_allowed_starred_forms_are_plain_data(kit, mode, program, output):
    """Starred forms the whitelist accepts only build plain values."""
    result = run(program, kit, mode)
    assert result.success, result.error
    if output is Ellipsis:
        assert result.output in (Ellipsis, "Ellipsis")  # the worker returns its repr
    else:
        assert result.output == output
