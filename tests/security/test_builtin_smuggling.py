"""Smuggling interpreter access through the allowed builtins and the kit's tools.

Builtins may be used as values (``sorted(xs, key=len)``), so their dunder
attributes are refused statically and every attribute of a function, builtin
or method descriptor is refused at run time, even under a public name. Tools
may never be used as values; with the validator skipped, the tool objects a
program would see (traced wrappers in-process, channel proxies in the worker)
are opaque too.
"""

from __future__ import annotations

import pytest

from .support import MODES, assert_host_ok, assert_refused, run, run_unvalidated

# -- snippets -----------------------------------------------------------------

LEN_SELF = "len.__self__"
PRINT_GLOBALS = "print.__globals__"
PRINT_CLOSURE = "print.__closure__"
SORTED_MODULE = "sorted.__module__"
STR_JOIN_OBJCLASS = "str.join.__objclass__"
ISINSTANCE_CALL = "isinstance.__call__"
DICT_CLASS_DICT = "dict.__dict__"
INT_SUBCLASSES = "int.__subclasses__()"
RANGE_REDUCE = "range(3).__reduce__()"
BUILTINS_VIA_NAME = "__builtins__"
DICT_FROMKEYS = 'dict.fromkeys(["a", "b"], 0)'
STR_MAKETRANS = 'str.maketrans("ab", "xy")'
KEY_WITH_METHOD_DESCRIPTOR = 'sorted(["b", "A", "c"], key=str.lower)'

# Builtins as values, then a public attribute: refused by the run-time guards.
SORTED_ALIAS_ATTRIBUTE = "f = sorted\nf.text_signature"
LEN_ALIAS_ATTRIBUTE = "f = len\nf.name"
PRINT_ALIAS_ATTRIBUTE = "p = print\np.parts"
METHOD_DESCRIPTOR_ATTRIBUTE = "m = str.join\nm.name"
BOUND_METHOD_ATTRIBUTE = 'm = "abc".upper\nm.name'
CLASSMETHOD_ATTRIBUTE = "m = dict.fromkeys\nm.name"
BUILTIN_IN_LIST_ATTRIBUTE = "fs = [len, print]\nfs[1].parts"

# Tools as values: refused statically.
TOOL_ALIAS = "x = read_file"
TOOL_ALIAS_THEN_ATTRIBUTE = "x = read_file\nx.func"
TOOL_IN_DICT = 'd = {"f": write_file}'
TOOL_AS_KEY = 'sorted(["a"], key=read_file)'
TOOL_AS_ARGUMENT = "len(find_files)"
TOOL_IN_FSTRING = 'f"{edit_file}"'

# With the validator skipped: public attributes of the tool objects themselves.
RUNTIME_TOOL_FUNC = "x = read_file\nx.func"
RUNTIME_TOOL_ARGS = "x = read_file\nx.args"
RUNTIME_TOOL_KEYWORDS = "x = write_file\nx.keywords"
RUNTIME_TOOL_NAME_ATTRIBUTE = "x = edit_file\nx.name"


@pytest.mark.parametrize(
    "program, code",
    [
        (LEN_SELF, "private-attribute"),
        (PRINT_GLOBALS, "private-attribute"),
        (PRINT_CLOSURE, "private-attribute"),
        (SORTED_MODULE, "private-attribute"),
        (STR_JOIN_OBJCLASS, "private-attribute"),
        (ISINSTANCE_CALL, "private-attribute"),
        (DICT_CLASS_DICT, "private-attribute"),
        (INT_SUBCLASSES, "private-attribute"),
        (RANGE_REDUCE, "private-attribute"),
        (BUILTINS_VIA_NAME, "forbidden-name"),
    ],
    ids=["len.__self__", "print.__globals__", "print.__closure__", "sorted.__module__", "__objclass__",
         "isinstance.__call__", "dict.__dict__", "int.__subclasses__", "range.__reduce__", "__builtins__"],
)
def test_dunder_attributes_of_builtins_are_refused(kit, canary, program, code):
    """Dunder attributes of every allowed builtin are refused before running."""
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
def test_public_class_helpers_are_harmless(kit, mode):
    """dict.fromkeys, str.maketrans and str.lower as a key are allowed and build plain data."""
    assert run(DICT_FROMKEYS, kit, mode).output == {"a": 0, "b": 0}
    assert run(STR_MAKETRANS, kit, mode).output == {97: 120, 98: 121}
    assert run(KEY_WITH_METHOD_DESCRIPTOR, kit, mode).output == ["A", "b", "c"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, kind",
    [
        (SORTED_ALIAS_ATTRIBUTE, "builtin_function_or_method"),
        (LEN_ALIAS_ATTRIBUTE, "builtin_function_or_method"),
        (PRINT_ALIAS_ATTRIBUTE, "function"),
        (METHOD_DESCRIPTOR_ATTRIBUTE, "method_descriptor"),
        (BOUND_METHOD_ATTRIBUTE, "builtin_function_or_method"),
        (CLASSMETHOD_ATTRIBUTE, "builtin_function_or_method"),
        (BUILTIN_IN_LIST_ATTRIBUTE, "function"),
    ],
    ids=["sorted", "len", "print", "str.join", "bound-method", "dict.fromkeys", "print-in-list"],
)
def test_public_attributes_of_builtins_fail_at_run_time(kit, canary, mode, program, kind):
    """A builtin held in a variable is valid, but none of its attributes is readable."""
    result = run(program, kit, mode)
    assert not result.success
    assert result.error_kind == "guard", result.error
    assert f"attributes of a {kind} are not accessible" in result.error
    assert result.error_line == 2
    canary.assert_untouched(result)


@pytest.mark.parametrize(
    "program",
    [TOOL_ALIAS, TOOL_ALIAS_THEN_ATTRIBUTE, TOOL_IN_DICT, TOOL_AS_KEY, TOOL_AS_ARGUMENT, TOOL_IN_FSTRING],
    ids=["alias", "alias-attribute", "in-dict", "as-key", "as-argument", "in-fstring"],
)
def test_tools_are_never_values(kit, canary, program):
    """A tool named anywhere but in call position is refused as tool-reference."""
    result = run(program, kit)
    assert_refused(result, "tool-reference")
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program", [RUNTIME_TOOL_FUNC, RUNTIME_TOOL_ARGS, RUNTIME_TOOL_KEYWORDS, RUNTIME_TOOL_NAME_ATTRIBUTE],
    ids=["func", "args", "keywords", "name"],
)
def test_tool_objects_are_opaque_at_run_time(kit, canary, mode, program):
    """Without the validator, a tool's public attributes (its partial's func/args/keywords) are refused."""
    outcome = run_unvalidated(program, kit, mode)
    assert not outcome.success
    assert outcome.error_kind == "guard", outcome.error
    assert "attributes of a function are not accessible" in outcome.error
    assert outcome.error_line == 2
    canary.assert_untouched()
    assert_host_ok(kit, mode)
