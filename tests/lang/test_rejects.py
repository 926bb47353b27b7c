"""Every construct outside the grammar is refused with a stable code, a position and a hint."""

from __future__ import annotations

import pytest

from lackpy import validate
from lackpy.lang.grammar import FORBIDDEN_ATTRIBUTE_PREFIXES, FORBIDDEN_ATTRIBUTES, FORBIDDEN_NAMES

from .snippets import FORBIDDEN_NODE_SNIPPETS, SNIPPET_PARAMS, node_exists

# Names every snippet may read: passing them as parameters keeps each snippet
# down to the one problem it is about.
PARAMS = ("x", "xs", "d", "g", "fr", "c", "s", "cm", "p", "fs", "k")
TOOLS = ["read_file", "find_files"]


def where(result):
    """The (code, line, col) of every diagnostic, in the order reported."""
    return [(e.code, e.line, e.col) for e in result.errors]


# -- statements and expressions refused as nodes ---------------------------------

#: Each forbidden construct this Python has (``ast.TypeAlias``, ``type X = int``, exists from Python 3.12 on).
FORBIDDEN_NODE_CASES = [
    pytest.param(program, line, col, id=name) for name, (program, line, col) in FORBIDDEN_NODE_SNIPPETS.items() if node_exists(name)
]


@pytest.mark.parametrize(("program", "line", "col"), FORBIDDEN_NODE_CASES)
def test_forbidden_node_is_refused(program, line, col):
    """Each forbidden statement or expression gives one forbidden-node diagnostic where it starts."""
    result = validate(program, params=SNIPPET_PARAMS)
    assert result.valid is False
    assert where(result) == [("forbidden-node", line, col)]
    assert result.errors[0].hint


# -- one table of every other refusal --------------------------------------------

LAMBDA_ASSIGNED = "f = lambda: 1"
LAMBDA_OTHER_KEYWORD = "sorted(xs, cmp=lambda a: a)"
LAMBDA_POSITIONAL = "max(xs, lambda v: v)"
LAMBDA_INSIDE_KEY_VALUE = "sorted(xs, key=[lambda v: v])"
LAMBDA_RETURNING_LAMBDA = "sorted(xs, key=lambda v: lambda: v)"
UNDERSCORE_STORE = "_x = 1"
UNDERSCORE_LOAD = "y = _x"
UNDERSCORE_KEYWORD = "print(_x=1)"
UNDERSCORE_LOOP_NAME = "for _ in xs:\n    pass"
UNDERSCORE_LAMBDA_PARAM = "sorted(xs, key=lambda _v: 1)"
DUNDER_IMPORT = "__import__('os')"
PRIVATE_DUNDER_ATTRIBUTE = "x.__class__"
PRIVATE_ATTRIBUTE = "x._y"
PRIVATE_METHOD_CALL = "x._secret()"
GENERATOR_FRAME = "g.gi_frame"
FRAME_GLOBALS = "fr.f_globals"
CODE_BYTES = "c.co_code"
MRO_ATTRIBUTE = "x.mro"
MRO_CALL = "x.mro()"
STR_FORMAT = "'{}'.format(x)"
STR_FORMAT_MAP = "'{x}'.format_map(d)"
DUNDER_STRING = "'__class__'"
DUNDER_BYTES = "y = b'__'"
DUNDER_ESCAPED = "y = '\\x5f_'"
DUNDER_SUBSCRIPT_KEY = "d['__x']"
DUNDER_KEYWORD_DICT = "print(**{'__x': 1})"
DUNDER_FSTRING_EXPRESSION = "y = f'{\"__\"}'"
UNKNOWN_FUNCTION = "listdir('.')"
UNKNOWN_FUNCTION_FAR = "frobnicate(1)"
UNDEFINED_MODULE = "os.path.exists(p)"
UNDEFINED_NAME = "y = missing"
TOOL_AS_VALUE = "f = read_file"
TOOL_AS_KEY = "sorted(xs, key=read_file)"
SHADOW_BUILTIN = "sum = 0"
SHADOW_TOOL = "read_file = 1"
SHADOW_BUILTIN_LOOP = "for len in xs:\n    pass"
SHADOW_BUILTIN_LAMBDA = "sorted(xs, key=lambda max: max)"
REBIND_FORBIDDEN = "open = 1"
INDIRECT_SUBSCRIPT = "fs[0]()"
INDIRECT_CALL_RESULT = "read_file('a')()"
FOR_OVER_LIST = "for v in [1, 2]:\n    pass"
FOR_OVER_SLICE = "for v in xs[1:]:\n    pass"
FOR_OVER_ATTRIBUTE = "for v in d.values:\n    pass"
REPEATED_KEYWORD = 'print(sep="a", sep="b")'
TWO_STARRED = "a, *b, *c = xs"
LONE_STARRED = "*a = xs"
LONE_STARRED_LOOP = "for *a in xs:\n    pass"
TWO_STARRED_COMPREHENSION = "ys = [a for a, *b, *c in xs]"
BREAK_OUTSIDE = "break"
CONTINUE_OUTSIDE = "continue"
BREAK_IN_IF = "if x:\n    break"
CONTINUE_IN_FOR_ELSE = "for v in xs:\n    pass\nelse:\n    continue"
BREAK_IN_WITH = "with cm:\n    break"
DUPLICATE_LAMBDA_PARAMETER = "sorted(xs, key=lambda v, v: v)"
DUPLICATE_LAMBDA_KWONLY = "sorted(xs, key=lambda v, *, v: v)"
ATTRIBUTE_ASSIGN = "x.y = 1"
ATTRIBUTE_AUGASSIGN = "x.y += 1"
ATTRIBUTE_LOOP_TARGET = "for x.y in xs:\n    pass"
ATTRIBUTE_WITH_TARGET = "with cm as x.y:\n    pass"
AUGASSIGN_SLICE = "xs[1:2] += [3]"
ASYNC_COMPREHENSION = "ys = [v async for v in xs]"
SECOND_LINE_OPEN = "y = 1\nz = open('f')"
MULTILINE_CALL_PRIVATE = "y = print(\n    1,\n    _z,\n)"

REJECT_CASES = [
    # lambda outside key=
    pytest.param(LAMBDA_ASSIGNED, "lambda-position", 1, 5, None, id="lambda-assigned"),
    pytest.param(LAMBDA_OTHER_KEYWORD, "lambda-position", 1, 16, None, id="lambda-cmp-keyword"),
    pytest.param(LAMBDA_POSITIONAL, "lambda-position", 1, 9, None, id="lambda-positional"),
    pytest.param(LAMBDA_INSIDE_KEY_VALUE, "lambda-position", 1, 17, None, id="lambda-in-list-as-key"),
    pytest.param(LAMBDA_RETURNING_LAMBDA, "lambda-position", 1, 26, None, id="lambda-returning-lambda"),
    # names starting with '_'
    pytest.param(UNDERSCORE_STORE, "forbidden-name", 1, 1, None, id="underscore-store"),
    pytest.param(UNDERSCORE_LOAD, "forbidden-name", 1, 5, None, id="underscore-load"),
    pytest.param(UNDERSCORE_KEYWORD, "forbidden-name", 1, 7, None, id="underscore-keyword"),
    pytest.param(UNDERSCORE_LOOP_NAME, "forbidden-name", 1, 5, None, id="underscore-loop-name"),
    pytest.param(UNDERSCORE_LAMBDA_PARAM, "forbidden-name", 1, 16, None, id="underscore-lambda-param"),
    pytest.param(DUNDER_IMPORT, "forbidden-name", 1, 1, None, id="dunder-import"),
    pytest.param(REBIND_FORBIDDEN, "forbidden-name", 1, 1, None, id="rebind-open"),
    # attributes
    pytest.param(PRIVATE_DUNDER_ATTRIBUTE, "private-attribute", 1, 1, None, id="dunder-class"),
    pytest.param(PRIVATE_ATTRIBUTE, "private-attribute", 1, 1, None, id="private-attribute"),
    pytest.param(PRIVATE_METHOD_CALL, "private-attribute", 1, 1, None, id="private-method-call"),
    pytest.param(GENERATOR_FRAME, "forbidden-attribute", 1, 1, None, id="gi_frame"),
    pytest.param(FRAME_GLOBALS, "forbidden-attribute", 1, 1, None, id="f_globals"),
    pytest.param(CODE_BYTES, "forbidden-attribute", 1, 1, None, id="co_code"),
    pytest.param(MRO_ATTRIBUTE, "forbidden-attribute", 1, 1, None, id="mro"),
    pytest.param(MRO_CALL, "forbidden-attribute", 1, 1, None, id="mro-call"),
    pytest.param(STR_FORMAT, "forbidden-attribute", 1, 1, None, id="str-format"),
    pytest.param(STR_FORMAT_MAP, "forbidden-attribute", 1, 1, None, id="str-format-map"),
    # literals containing '__'
    pytest.param(DUNDER_STRING, "dunder-string", 1, 1, None, id="dunder-string"),
    pytest.param(DUNDER_BYTES, "dunder-string", 1, 5, None, id="dunder-bytes"),
    pytest.param(DUNDER_ESCAPED, "dunder-string", 1, 5, None, id="dunder-escaped"),
    pytest.param(DUNDER_SUBSCRIPT_KEY, "dunder-string", 1, 3, None, id="dunder-subscript-key"),
    pytest.param(DUNDER_KEYWORD_DICT, "dunder-string", 1, 10, None, id="dunder-double-star-dict"),
    pytest.param(DUNDER_FSTRING_EXPRESSION, "dunder-string", 1, 8, None, id="dunder-in-fstring-expression"),
    # calls and names
    pytest.param(UNKNOWN_FUNCTION, "unknown-function", 1, 1, None, id="unknown-listdir"),
    pytest.param(UNKNOWN_FUNCTION_FAR, "unknown-function", 1, 1, None, id="unknown-far"),
    pytest.param(UNDEFINED_MODULE, "undefined-name", 1, 1, None, id="undefined-module"),
    pytest.param(UNDEFINED_NAME, "undefined-name", 1, 5, None, id="undefined-name"),
    pytest.param(TOOL_AS_VALUE, "tool-reference", 1, 5, TOOLS, id="tool-as-value"),
    pytest.param(TOOL_AS_KEY, "tool-reference", 1, 16, TOOLS, id="tool-as-key"),
    pytest.param(SHADOW_BUILTIN, "shadowed-name", 1, 1, None, id="shadow-builtin"),
    pytest.param(SHADOW_TOOL, "shadowed-name", 1, 1, TOOLS, id="shadow-tool"),
    pytest.param(SHADOW_BUILTIN_LOOP, "shadowed-name", 1, 5, None, id="shadow-builtin-loop"),
    pytest.param(SHADOW_BUILTIN_LAMBDA, "shadowed-name", 1, 16, None, id="shadow-builtin-lambda"),
    pytest.param(INDIRECT_SUBSCRIPT, "indirect-call", 1, 1, None, id="indirect-subscript"),
    pytest.param(INDIRECT_CALL_RESULT, "indirect-call", 1, 1, TOOLS, id="indirect-call-result"),
    # for, keywords, targets, loop control, lambda parameters
    pytest.param(FOR_OVER_LIST, "for-iter", 1, 10, None, id="for-over-list"),
    pytest.param(FOR_OVER_SLICE, "for-iter", 1, 10, None, id="for-over-slice"),
    pytest.param(FOR_OVER_ATTRIBUTE, "for-iter", 1, 10, None, id="for-over-attribute"),
    pytest.param(REPEATED_KEYWORD, "repeated-keyword", 1, 16, None, id="repeated-keyword"),
    pytest.param(TWO_STARRED, "starred-target", 1, 1, None, id="two-starred"),
    pytest.param(LONE_STARRED, "starred-target", 1, 1, None, id="lone-starred"),
    pytest.param(LONE_STARRED_LOOP, "starred-target", 1, 5, None, id="lone-starred-loop"),
    pytest.param(TWO_STARRED_COMPREHENSION, "starred-target", 1, 13, None, id="two-starred-comprehension"),
    pytest.param(BREAK_OUTSIDE, "loop-control", 1, 1, None, id="break-outside"),
    pytest.param(CONTINUE_OUTSIDE, "loop-control", 1, 1, None, id="continue-outside"),
    pytest.param(BREAK_IN_IF, "loop-control", 2, 5, None, id="break-in-if"),
    pytest.param(CONTINUE_IN_FOR_ELSE, "loop-control", 4, 5, None, id="continue-in-for-else"),
    pytest.param(BREAK_IN_WITH, "loop-control", 2, 5, None, id="break-in-with"),
    pytest.param(DUPLICATE_LAMBDA_PARAMETER, "duplicate-parameter", 1, 16, None, id="duplicate-parameter"),
    pytest.param(DUPLICATE_LAMBDA_KWONLY, "duplicate-parameter", 1, 16, None, id="duplicate-kwonly-parameter"),
    pytest.param(ATTRIBUTE_ASSIGN, "attribute-assign", 1, 1, None, id="attribute-assign"),
    pytest.param(ATTRIBUTE_AUGASSIGN, "attribute-assign", 1, 1, None, id="attribute-augassign"),
    pytest.param(ATTRIBUTE_LOOP_TARGET, "attribute-assign", 1, 5, None, id="attribute-loop-target"),
    pytest.param(ATTRIBUTE_WITH_TARGET, "attribute-assign", 1, 12, None, id="attribute-with-target"),
    pytest.param(AUGASSIGN_SLICE, "forbidden-node", 1, 1, None, id="augassign-slice"),
    pytest.param(ASYNC_COMPREHENSION, "forbidden-node", 1, 19, None, id="async-comprehension"),
    # positions past the first line
    pytest.param(SECOND_LINE_OPEN, "forbidden-name", 2, 5, None, id="second-line-open"),
    pytest.param(MULTILINE_CALL_PRIVATE, "forbidden-name", 3, 5, None, id="multiline-call"),
]


@pytest.mark.parametrize(("program", "code", "line", "col", "tools"), REJECT_CASES)
def test_refused_with_code_and_position(program, code, line, col, tools):
    """The program is invalid with exactly one diagnostic of the given code at the given place."""
    result = validate(program, tools, params=PARAMS)
    assert result.valid is False
    assert where(result) == [(code, line, col)]
    assert result.errors[0].hint


DUNDER_FSTRING_LITERAL = "y = f'__{x}'"
DUNDER_FSTRING_SPEC = "y = f'{x:__}'"


@pytest.mark.parametrize("program", [DUNDER_FSTRING_LITERAL, DUNDER_FSTRING_SPEC], ids=["literal-part", "format-spec"])
def test_dunder_in_fstring_literal_part(program):
    """'__' in the literal text or format spec of an f-string is a dunder-string on its line."""
    result = validate(program, params=PARAMS)
    assert [e.code for e in result.errors] == ["dunder-string"]
    # Python 3.11 places these constants at the start of the f-string; later versions at the text itself.
    assert result.errors[0].line == 1
    assert 5 <= result.errors[0].col <= 10


# -- forbidden names, attributes and prefixes, generated from the grammar tables ------


@pytest.mark.parametrize(
    "name",
    ["open", "eval", "exec", "compile", "getattr", "setattr", "globals", "locals", "vars", "dir",
     "type", "breakpoint", "input", "iter", "next", "printed"],
)
def test_forbidden_name_called(name):
    """Calling a forbidden name is a forbidden-name diagnostic at the name."""
    result = validate(f"y = {name}(x)", params=PARAMS)
    assert where(result) == [("forbidden-name", 1, 5)]
    assert result.errors[0].hint


@pytest.mark.parametrize("name", sorted(FORBIDDEN_NAMES))
def test_every_forbidden_name_as_value_and_target(name):
    """Every name of FORBIDDEN_NAMES is refused when read and when assigned."""
    loaded = validate(f"y = [{name}]", params=PARAMS)
    assert where(loaded) == [("forbidden-name", 1, 6)]
    stored = validate(f"{name} = 1", params=PARAMS)
    assert where(stored) == [("forbidden-name", 1, 1)]
    assert loaded.errors[0].hint and stored.errors[0].hint


@pytest.mark.parametrize("attr", sorted(FORBIDDEN_ATTRIBUTES))
def test_every_forbidden_attribute(attr):
    """Every attribute of FORBIDDEN_ATTRIBUTES is refused when read."""
    result = validate(f"y = s.{attr}", params=PARAMS)
    assert where(result) == [("forbidden-attribute", 1, 5)]


@pytest.mark.parametrize("prefix", FORBIDDEN_ATTRIBUTE_PREFIXES)
def test_every_forbidden_attribute_prefix(prefix):
    """Attributes with an interpreter-internals prefix are refused."""
    result = validate(f"y = x.{prefix}thing", params=PARAMS)
    assert where(result) == [("forbidden-attribute", 1, 5)]
    assert "internals" in result.errors[0].hint


# -- messages and hints --------------------------------------------------------------


def test_open_hint_points_to_read_file_when_the_kit_has_it():
    """With read_file in the kit, open() gets a hint naming read_file."""
    result = validate("open('a.txt')", ["read_file"])
    assert where(result) == [("forbidden-name", 1, 1)]
    assert "read_file" in result.errors[0].hint


def test_open_hint_lists_the_kit_when_it_has_no_read_file():
    """Without read_file, open() gets a hint listing the kit's tools."""
    result = validate("open('a.txt')", ["find_files"])
    assert where(result) == [("forbidden-name", 1, 1)]
    assert "find_files" in result.errors[0].hint
    assert "read_file" not in result.errors[0].hint


def test_unknown_function_suggests_a_close_builtin():
    """An unknown function close to an allowed name says 'did you mean'."""
    result = validate("lenn(x)", params=PARAMS)
    assert where(result) == [("unknown-function", 1, 1)]
    assert "did you mean" in result.errors[0].message
    assert "len" in result.errors[0].message


def test_unknown_function_listdir_suggests_list():
    """listdir is reported as unknown, with 'did you mean' naming the close builtin list."""
    result = validate(UNKNOWN_FUNCTION)
    assert "did you mean" in result.errors[0].message
    assert "list" in result.errors[0].message


def test_unknown_function_suggests_a_close_tool():
    """A misspelt tool name suggests the tool."""
    result = validate("read_fil('a')", TOOLS)
    assert where(result) == [("unknown-function", 1, 1)]
    assert "did you mean: read_file" in result.errors[0].message


def test_unknown_function_far_from_everything_has_no_suggestion():
    """A name unlike any tool or builtin gets no 'did you mean'."""
    result = validate(UNKNOWN_FUNCTION_FAR)
    assert "did you mean" not in result.errors[0].message


def test_undefined_module_hint_mentions_modules():
    """Using a stdlib module name says modules are not available."""
    result = validate(UNDEFINED_MODULE, TOOLS, params=["p"])
    assert where(result) == [("undefined-name", 1, 1)]
    assert "modules" in result.errors[0].hint
    assert "read_file" in result.errors[0].hint


def test_undefined_name_reported_once_at_first_use():
    """An undefined name read three times is reported once, where it is first read."""
    result = validate("y = 1\nz = missing + missing\nw = missing")
    assert where(result) == [("undefined-name", 2, 5)]


def test_lambda_called_directly_is_indirect_and_misplaced():
    """(lambda: 1)() is both an indirect call and a lambda outside key=."""
    result = validate("(lambda: 1)()")
    assert result.valid is False
    assert sorted(where(result)) == [("indirect-call", 1, 2), ("lambda-position", 1, 2)]


def test_call_of_call_result_is_indirect():
    """f()() is an indirect call even when f is a defined variable."""
    result = validate("f = 1\nf()()")
    assert ("indirect-call", 2, 1) in where(result)


def test_rebinding_a_tool_and_reading_it():
    """read_file += 1 rebinds a tool and reads it as a value."""
    result = validate("read_file += 1", TOOLS)
    assert sorted(where(result)) == [("shadowed-name", 1, 1), ("tool-reference", 1, 1)]


# -- all errors are collected and sorted --------------------------------------------

THREE_PROBLEMS = "y = missing + 1\nimport os\nz = open('f')"


def test_all_errors_collected_and_sorted_by_line():
    """Three different problems give three diagnostics ordered by line."""
    result = validate(THREE_PROBLEMS)
    assert where(result) == [("undefined-name", 1, 5), ("forbidden-node", 2, 1), ("forbidden-name", 3, 5)]
    assert all(e.hint for e in result.errors)


def test_errors_on_one_line_sorted_by_column():
    """Several problems on one line come out ordered by column."""
    result = validate("y = [_a, x.__b, '__c']", params=PARAMS)
    assert where(result) == [("forbidden-name", 1, 6), ("private-attribute", 1, 10), ("dunder-string", 1, 17)]


# -- positions are character columns and names do not leak out of their scopes ------

NON_ASCII_BEFORE_ERROR = 't = "日本" + _x'


def test_column_counts_characters_not_utf8_bytes():
    """The column of a diagnostic after non-ASCII text counts characters, as parse errors do."""
    parse_error = validate('t = "日本" + )')
    assert parse_error.errors[0].col == 12
    result = validate(NON_ASCII_BEFORE_ERROR)
    assert where(result) == [("forbidden-name", 1, 12)]


COMPREHENSION_VARIABLE_AFTER = "ys = [y for y in xs]\ny"
LAMBDA_PARAMETER_AFTER = "ys = sorted(xs, key=lambda v: v)\nv"


@pytest.mark.parametrize(
    "program",
    [COMPREHENSION_VARIABLE_AFTER, LAMBDA_PARAMETER_AFTER],
    ids=["comprehension-variable", "lambda-parameter"],
)
def test_names_bound_in_an_inner_scope_are_undefined_after_it(program):
    """A comprehension variable or lambda parameter is not defined after its expression (NameError at run time)."""
    result = validate(program, params=["xs"])
    assert where(result) == [("undefined-name", 2, 1)]
