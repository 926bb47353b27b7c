"""The allowed grammar validates: notebook-cell programs that compose tools and builtins."""

from __future__ import annotations

import pytest

from lackpy import ValidationResult, validate
from lackpy.lang.grammar import ALLOWED_BUILTINS

TOOLS = ["read_file", "find_files", "write_file", "lock"]
PARAMS = ("xs", "d", "text", "names", "k", "n", "cm")

ASSIGN = "total = 1"
CHAINED_ASSIGN = "a = b = 1"
AUGASSIGN_NAME = "n += 1"
AUGASSIGN_NEW_NAME = "total = 0\ntotal += 2\ntotal *= 3\ntotal //= 2"
AUGASSIGN_ITEM = "counts = {}\ncounts[k] = 0\ncounts[k] += 1"
AUGASSIGN_PARAM_ITEM = "d[k] += 1"
TUPLE_UNPACK = "first, second = 1, 2"
STARRED_UNPACK = "a, *b = xs"
STARRED_MIDDLE = "a, *b, c = xs"
LIST_TARGET = "[a, b] = xs"
NESTED_UNPACK = "(a, b), *rest = xs"
SWAP = "a = 1\nb = 2\na, b = b, a"
ITEM_ASSIGN = "d['a'] = 1"
SLICE_ASSIGN = "xs[1:2] = [3]"
IF_ELIF_ELSE = "if n > 1:\n    y = 'big'\nelif n == 1:\n    y = 'one'\nelse:\n    y = 'small'\ny"
NESTED_IF = "if n:\n    if xs:\n        y = 1\n    else:\n        y = 2\nelse:\n    y = 3"
FOR_OVER_CALL = "total = 0\nfor i in range(10):\n    total += i\ntotal"
FOR_OVER_NAME = "for v in xs:\n    if v is None:\n        continue\n    if v > 3:\n        break\n    print(v)"
FOR_OVER_METHOD_CALL = "for key, value in d.items():\n    print(key, value)"
FOR_ELSE = "for v in xs:\n    if v:\n        break\nelse:\n    print('none')"
FOR_TUPLE_TARGET = "for i, (a, *b) in enumerate(xs):\n    print(i, a, b)"
FOR_ITEM_TARGET = "for d[k] in xs:\n    pass"
BREAK_IN_NESTED_BLOCK = "for v in xs:\n    with cm:\n        if v:\n            break"
NESTED_FOR_AT_LIMIT = "".join("    " * i + f"for v{i} in xs:\n" for i in range(20)) + "    " * 20 + "pass"
WITH_AS = "with lock('a') as held:\n    print(held)"
WITH_NO_AS = "with cm:\n    pass"
WITH_TWO_ITEMS = "with cm as a, lock('b') as b:\n    print(a, b)"
WITH_TUPLE_TARGET = "with cm as (a, b):\n    pass"
LIST_COMP = "ys = [v * 2 for v in xs if v]"
NESTED_COMP = "pairs = [(a, b) for a in xs for b in names if a != b]"
SET_COMP = "ys = {v % 3 for v in xs}"
DICT_COMP = "ys = {name: len(name) for name in names}"
GENERATOR_EXP = "total = sum(v for v in xs if v > 0)"
GENERATOR_ASSIGNED = "gen = (v for v in xs)\nys = list(gen)"
COMPREHENSION_OVER_LITERAL = "ys = [v for v in [1, 2, 3]]"
CONDITIONAL = "y = 1 if xs else 2"
FSTRING = "msg = f'{n:>10} {text!r} {n:.2f} {n=} {n!s:{k}}'"
FSTRING_NESTED_CALL = "msg = f\"{len(xs)} files, {', '.join(names)}\""
LITERALS = "y = [1, 2.5, 3j, 'a', b'b', True, False, None, ..., (1,), (), {1}, {'a': 1}, [], {}]"
SINGLE_UNDERSCORE_STRING = "name = 'snake_case_name'"
CALL_KEYWORDS = "print('a', 'b', sep=', ', end='')"
CALL_STAR_ARGS = "print(*xs)"
CALL_STAR_KWARGS = "y = dict(**d)"
CALL_BOTH_STARS = "print(*xs, *names, sep='-', **d)"
STARRED_DISPLAYS = "ys = [*xs, *names]\nzs = {**d, 'k': 1}\nws = (*xs,)"
SUBSCRIPTS = "y = xs[0]\nz = xs[1:3]\nw = xs[::-1]\nv = d['k']\nu = xs[-1][0]"
COMPARISONS = "y = 1 < n <= 3 and n != 2 or n in xs or n is None or n not in xs or n is not None"
BOOL_UNARY_BINARY = "y = not (-n + ~n * 2 // 3 % 4 ** 2 - n / 1) and +n << 1 | n & 3 ^ n >> 1"
MATRIX_AND_ELLIPSIS = "y = xs[...]"
SORTED_KEY_LAMBDA = "ys = sorted(xs, key=lambda v: -v, reverse=True)"
MIN_MAX_KEY_LAMBDA = "lo = min(xs, key=lambda v: abs(v))\nhi = max(d, key=lambda name: d[name])"
KEY_LAMBDA_DEFAULTS = "ys = sorted(xs, key=lambda v, w=1, *rest, **more: v)"
KEY_LAMBDA_NESTED = "ys = sorted(xs, key=lambda v: sorted(v, key=lambda w: w))"
KEY_BUILTIN_VALUE = "ys = sorted(names, key=len)"
BUILTINS_AS_VALUES = "converters = [int, float, str]"
METHOD_CALLS = "count = text.count('TODO')\njoined = ', '.join(names)\nalso = str.join('-', names)\nlines = text.splitlines()"
CHAINED_METHODS = "y = text.strip().lower().replace('a', 'b').split(',')"
ISINSTANCE = "ok = isinstance(text, str)\nboth = isinstance(n, (int, float))"
PRINT = "print('hi')"
PASS = "if n:\n    pass"
LAST_EXPRESSION_RESULT = "{'n': n, 'count': len(xs)}"
STRING_ONLY = "'just a value'"
COMMENTS_AND_BLANK_LINES = "# count the files\n\nfiles = find_files('*.py')  # all of them\n\nlen(files)\n"
TOOL_COMPOSITION = (
    "files = find_files('lackpy/**/*.py')\n"
    "sizes = {f: len(read_file(f).splitlines()) for f in files}\n"
    "largest = sorted(sizes, key=lambda f: sizes[f], reverse=True)[:5]\n"
    "write_file('report.txt', str(largest))\n"
    "{'modules': len(files), 'lines': sum(sizes.values()), 'largest': largest}"
)
PARAM_REBOUND = "n = n + 1"

ACCEPT_CASES = [
    pytest.param(ASSIGN, id="assign"),
    pytest.param(CHAINED_ASSIGN, id="chained-assign"),
    pytest.param(AUGASSIGN_NAME, id="augassign-param"),
    pytest.param(AUGASSIGN_NEW_NAME, id="augassign-name"),
    pytest.param(AUGASSIGN_ITEM, id="augassign-item"),
    pytest.param(AUGASSIGN_PARAM_ITEM, id="augassign-param-item"),
    pytest.param(TUPLE_UNPACK, id="tuple-unpack"),
    pytest.param(STARRED_UNPACK, id="starred-unpack"),
    pytest.param(STARRED_MIDDLE, id="starred-middle"),
    pytest.param(LIST_TARGET, id="list-target"),
    pytest.param(NESTED_UNPACK, id="nested-unpack"),
    pytest.param(SWAP, id="swap"),
    pytest.param(ITEM_ASSIGN, id="item-assign"),
    pytest.param(SLICE_ASSIGN, id="slice-assign"),
    pytest.param(IF_ELIF_ELSE, id="if-elif-else"),
    pytest.param(NESTED_IF, id="nested-if"),
    pytest.param(FOR_OVER_CALL, id="for-over-call"),
    pytest.param(FOR_OVER_NAME, id="for-over-name-break-continue"),
    pytest.param(FOR_OVER_METHOD_CALL, id="for-over-method-call"),
    pytest.param(FOR_ELSE, id="for-else"),
    pytest.param(FOR_TUPLE_TARGET, id="for-tuple-target"),
    pytest.param(FOR_ITEM_TARGET, id="for-item-target"),
    pytest.param(BREAK_IN_NESTED_BLOCK, id="break-in-with-in-for"),
    pytest.param(NESTED_FOR_AT_LIMIT, id="twenty-nested-fors"),
    pytest.param(WITH_AS, id="with-as"),
    pytest.param(WITH_NO_AS, id="with"),
    pytest.param(WITH_TWO_ITEMS, id="with-two-items"),
    pytest.param(WITH_TUPLE_TARGET, id="with-tuple-target"),
    pytest.param(LIST_COMP, id="list-comp"),
    pytest.param(NESTED_COMP, id="nested-comp"),
    pytest.param(SET_COMP, id="set-comp"),
    pytest.param(DICT_COMP, id="dict-comp"),
    pytest.param(GENERATOR_EXP, id="generator-exp"),
    pytest.param(GENERATOR_ASSIGNED, id="generator-assigned"),
    pytest.param(COMPREHENSION_OVER_LITERAL, id="comprehension-over-literal"),
    pytest.param(CONDITIONAL, id="conditional"),
    pytest.param(FSTRING, id="fstring"),
    pytest.param(FSTRING_NESTED_CALL, id="fstring-calls"),
    pytest.param(LITERALS, id="literals"),
    pytest.param(SINGLE_UNDERSCORE_STRING, id="single-underscores-in-string"),
    pytest.param(CALL_KEYWORDS, id="call-keywords"),
    pytest.param(CALL_STAR_ARGS, id="call-star-args"),
    pytest.param(CALL_STAR_KWARGS, id="call-star-kwargs"),
    pytest.param(CALL_BOTH_STARS, id="call-both-stars"),
    pytest.param(STARRED_DISPLAYS, id="starred-displays"),
    pytest.param(SUBSCRIPTS, id="subscripts"),
    pytest.param(COMPARISONS, id="comparisons"),
    pytest.param(BOOL_UNARY_BINARY, id="operators"),
    pytest.param(MATRIX_AND_ELLIPSIS, id="ellipsis-subscript"),
    pytest.param(SORTED_KEY_LAMBDA, id="sorted-key-lambda"),
    pytest.param(MIN_MAX_KEY_LAMBDA, id="min-max-key-lambda"),
    pytest.param(KEY_LAMBDA_DEFAULTS, id="key-lambda-all-parameter-kinds"),
    pytest.param(KEY_LAMBDA_NESTED, id="key-lambda-nested"),
    pytest.param(KEY_BUILTIN_VALUE, id="key-builtin"),
    pytest.param(BUILTINS_AS_VALUES, id="builtins-as-values"),
    pytest.param(METHOD_CALLS, id="method-calls"),
    pytest.param(CHAINED_METHODS, id="chained-methods"),
    pytest.param(ISINSTANCE, id="isinstance"),
    pytest.param(PRINT, id="print"),
    pytest.param(PASS, id="pass"),
    pytest.param(LAST_EXPRESSION_RESULT, id="result-expression"),
    pytest.param(STRING_ONLY, id="string-only"),
    pytest.param(COMMENTS_AND_BLANK_LINES, id="comments-and-blank-lines"),
    pytest.param(TOOL_COMPOSITION, id="tool-composition"),
    pytest.param(PARAM_REBOUND, id="param-rebound"),
]


@pytest.mark.parametrize("program", ACCEPT_CASES)
def test_allowed_program_validates(program):
    """The program is valid and has no diagnostics."""
    result = validate(program, TOOLS, params=PARAMS)
    assert isinstance(result, ValidationResult)
    assert [str(e) for e in result.errors] == []
    assert result.valid is True


@pytest.mark.parametrize("name", sorted(ALLOWED_BUILTINS))
def test_every_allowed_builtin_can_be_called(name):
    """Each allowed builtin can be called by name and is listed in calls."""
    result = validate(f"y = {name}(xs)", params=["xs"])
    assert result.valid is True
    assert result.calls == [name]


def test_builtins_only_when_no_tools_given():
    """allowed_names=None allows the builtins and no tools."""
    assert validate("len([1, 2])").valid is True
    assert [e.code for e in validate("read_file('a')").errors] == ["unknown-function"]


# -- calls and variables -------------------------------------------------------------

CALLS_AND_VARIABLES = (
    "files = find_files('*.py')\n"
    "total = 0\n"
    "for i, f in enumerate(files):\n"
    "    total += len(read_file(f))\n"
    "first, *rest = files\n"
    "print(total, len(rest))\n"
    "total"
)


def test_calls_in_order_of_first_use_and_variables_in_order_assigned():
    """calls lists tools and builtins once each in order of first use; variables in order of assignment."""
    result = validate(CALLS_AND_VARIABLES, TOOLS)
    assert result.valid is True
    assert result.calls == ["find_files", "enumerate", "len", "read_file", "print"]
    assert result.variables == ["files", "total", "i", "f", "first", "rest"]


def test_method_calls_are_not_listed_as_calls():
    """Methods of values are calls on values, not names, so calls stays empty."""
    result = validate("y = text.count('TODO')\n', '.join(names)", params=PARAMS)
    assert result.valid is True
    assert result.calls == []
    assert result.variables == ["y"]


def test_item_assignment_is_not_a_variable():
    """Assigning to an item binds no new variable."""
    result = validate("counts = {}\ncounts['a'] = 1\ncounts['a'] += 1\ncounts")
    assert result.valid is True
    assert result.variables == ["counts"]
    assert result.calls == []


def test_with_target_and_starred_names_are_variables():
    """Names bound by with ... as and starred targets are variables."""
    result = validate("with lock('x') as held:\n    a, *b = held", TOOLS)
    assert result.valid is True
    assert result.calls == ["lock"]
    assert result.variables == ["held", "a", "b"]


# -- parameters ----------------------------------------------------------------------


def test_params_define_names():
    """A name passed in params is defined, without it the same program has an undefined name."""
    assert validate("n + 1", params=["n"]).valid is True
    result = validate("n + 1")
    assert result.valid is False
    assert [(e.code, e.line, e.col) for e in result.errors] == [("undefined-name", 1, 1)]
    assert "parameter" in result.errors[0].hint


def test_params_are_not_variables():
    """Reading a parameter does not list it among the variables."""
    result = validate("y = n * 2", params=["n"])
    assert result.valid is True
    assert result.variables == ["y"]


def test_name_assigned_later_in_program_is_defined():
    """A name assigned anywhere in the program counts as defined (the check is not flow-sensitive)."""
    result = validate("for v in xs:\n    if v:\n        print(last)\n    last = v", params=["xs"])
    assert result.valid is True
