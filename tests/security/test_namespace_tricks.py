"""Namespace tricks: aliasing and rebinding tools and builtins, indirect calls, scopes, parameters.

A program calls tools and builtins only by their bare names, so anything that
would make such a name mean something else, or call a value that is not a
bare name, is refused statically. Parameters that would hide a tool or a
builtin are refused before the program runs.
"""

from __future__ import annotations

import pytest

from lackpy.lang.names import bindable

from .support import MODES, assert_refused, codes, run

# -- snippets -----------------------------------------------------------------

ALIAS_TOOL = 'f = read_file\nf("README.md")'
SUBSCRIPTED_CALL = '[read_file][0]("README.md")'
DICT_SUBSCRIPTED_CALL = 'd = {"r": 1}\nd["r"]("README.md")'
UNPACKED_TOOL = 'a, = [read_file]\na("README.md")'
STARRED_UNPACK_TOOL = "a, *rest = [read_file, write_file]"
CONDITIONAL_CALL = '(read_file if True else len)("README.md")'
CALL_RESULT_CALL = 'sorted([1])("x")'
REBIND_BUILTIN_TO_OPEN = "len = open"
REBIND_TOOL = "read_file = 1"
REBIND_PRINT = 'print = "quiet"'
AUGMENT_BUILTIN = "len += 1"
REBIND_IN_FOR = "for print in [1]:\n    pass"
REBIND_IN_WITH = 'with read_file("README.md") as len:\n    pass'
REBIND_IN_TUPLE = "a, sorted = 1, 2"
REBIND_IN_COMPREHENSION = "[len for len in [1]]"
LAMBDA_PARAM_SHADOWS_TOOL = "sorted([1], key=lambda read_file: 1)"
LAMBDA_PARAM_SHADOWS_BUILTIN = "sorted([1], key=lambda len: len)"
LAMBDA_AS_VALUE = "f = lambda: 1"
LAMBDA_IN_LIST = "fs = [lambda x: x]"
LAMBDA_AS_POSITIONAL = "sorted([1], lambda x: x)"
LAMBDA_AS_OTHER_KEYWORD = "max([1], default=lambda: 1)"
CALL_SORTED_RESULT = "sorted([1], key=lambda v: 1)()"
COMPREHENSION_NAME_AFTER = "[x for x in [1, 2]]\nx"
SET_COMPREHENSION_NAME_AFTER = "{y for y in [1]}\ny"
DICT_COMPREHENSION_NAME_AFTER = "{k: 1 for k in [1]}\nk"
GENERATOR_NAME_AFTER = "list(g for g in [1])\ng"
LAMBDA_PARAM_AFTER = "sorted([2, 1], key=lambda v: v)\nv"
UNDERSCORE_NAME = "_ = 1"
DUNDER_IN_NAME = "a__b = 1"
FORBIDDEN_NAME_STORE = "open = 1"
PRINTED_NAME = "printed"

# A lambda may leave its key= position through dict(key=...): it stays a value
# that can only be passed on as a key=, never called directly or inspected.
LAMBDA_SMUGGLED_THROUGH_DICT = 'd = dict(key=lambda v: -v)\nsorted([1, 3, 2], key=d["key"])'
SMUGGLED_LAMBDA_CALLED = 'd = dict(key=lambda v: -v)\nd["key"](1)'
SMUGGLED_LAMBDA_ATTRIBUTE = 'd = dict(key=lambda v: -v)\nd["key"].defaults'

PROGRAM_USING_PARAM = "x"


@pytest.mark.parametrize(
    "program, code",
    [
        (ALIAS_TOOL, "tool-reference"),
        (SUBSCRIPTED_CALL, "indirect-call"),
        (DICT_SUBSCRIPTED_CALL, "indirect-call"),
        (UNPACKED_TOOL, "tool-reference"),
        (STARRED_UNPACK_TOOL, "tool-reference"),
        (CONDITIONAL_CALL, "indirect-call"),
        (CALL_RESULT_CALL, "indirect-call"),
        (REBIND_BUILTIN_TO_OPEN, "shadowed-name"),
        (REBIND_TOOL, "shadowed-name"),
        (REBIND_PRINT, "shadowed-name"),
        (AUGMENT_BUILTIN, "shadowed-name"),
        (REBIND_IN_FOR, "shadowed-name"),
        (REBIND_IN_WITH, "shadowed-name"),
        (REBIND_IN_TUPLE, "shadowed-name"),
        (REBIND_IN_COMPREHENSION, "shadowed-name"),
        (LAMBDA_PARAM_SHADOWS_TOOL, "shadowed-name"),
        (LAMBDA_PARAM_SHADOWS_BUILTIN, "shadowed-name"),
        (LAMBDA_AS_VALUE, "lambda-position"),
        (LAMBDA_IN_LIST, "lambda-position"),
        (LAMBDA_AS_POSITIONAL, "lambda-position"),
        (LAMBDA_AS_OTHER_KEYWORD, "lambda-position"),
        (CALL_SORTED_RESULT, "indirect-call"),
        (COMPREHENSION_NAME_AFTER, "undefined-name"),
        (SET_COMPREHENSION_NAME_AFTER, "undefined-name"),
        (DICT_COMPREHENSION_NAME_AFTER, "undefined-name"),
        (GENERATOR_NAME_AFTER, "undefined-name"),
        (LAMBDA_PARAM_AFTER, "undefined-name"),
        (UNDERSCORE_NAME, "forbidden-name"),
        (DUNDER_IN_NAME, "forbidden-name"),
        (FORBIDDEN_NAME_STORE, "forbidden-name"),
        (PRINTED_NAME, "forbidden-name"),
    ],
    ids=lambda value: value.replace("\n", ";")[:30],
)
def test_namespace_tricks_are_refused(kit, canary, program, code):
    """Aliases, indirect calls, rebinding, stray lambdas and leaked scopes are refused statically."""
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


def test_rebinding_a_builtin_to_open_reports_both_names(kit):
    """len = open is refused for hiding len and for naming open."""
    assert codes(run(REBIND_BUILTIN_TO_OPEN, kit)) == ["shadowed-name", "forbidden-name"]


def test_aliasing_a_tool_also_flags_the_indirect_call(kit):
    """f = read_file; f(...) is a tool reference and a call of an unknown name."""
    assert codes(run(ALIAS_TOOL, kit)) == ["tool-reference", "unknown-function"]


@pytest.mark.parametrize("mode", MODES)
def test_lambda_smuggled_through_dict_is_only_a_sort_key(kit, mode):
    """dict(key=lambda ...) lets a lambda out, but it can only be passed on as key=."""
    result = run(LAMBDA_SMUGGLED_THROUGH_DICT, kit, mode)
    assert result.success and result.output == [3, 2, 1]
    assert_refused(run(SMUGGLED_LAMBDA_CALLED, kit, mode), "indirect-call")
    attribute = run(SMUGGLED_LAMBDA_ATTRIBUTE, kit, mode)
    assert attribute.error_kind == "guard" and "attributes of a function are not accessible" in attribute.error
    assert attribute.error_line == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "name", ["read_file", "write_file", "len", "print", "open", "getattr", "_private", "__builtins__", "not valid"]
)
def test_params_that_would_hide_names_are_refused(kit, workspace, canary, mode, name):
    """run_program(..., params={name: ...}) is refused when the name hides a tool, a builtin or is reserved."""
    result = run(PROGRAM_USING_PARAM, kit, mode, params={name: 1})
    assert not result.success
    assert result.error_kind == "param", result.error
    assert result.trace == [] and result.files_read == []
    if bindable(name):  # a name a program could bind, were it free
        assert f"parameter '{name}' would hide a tool or builtin of that name" in result.error
    else:
        assert "is not a valid variable name" in result.error
    assert (workspace / "README.md").read_text() == "# Demo\n\nStatus: draft\n"
    canary.assert_untouched(result)


def test_params_must_be_plain_data_in_the_worker(kit):
    """In isolated mode a parameter holding a function is refused before the worker gets it."""
    result = run(PROGRAM_USING_PARAM, kit, "isolated", params={"x": len})
    assert not result.success and result.error_kind == "param"
    assert "parameters must be plain data" in result.error
