"""Reflection through attributes: dunder chains, tool internals, frames and type introspection.

Every route is refused statically with a precise diagnostic; the ones that
could slip past the validator are also shown to fail at run time (guards) or
at compile time (RestrictedPython), in both execution modes.
"""

from __future__ import annotations

import pytest

from lackpy import validate

from .support import MODES, assert_host_ok, assert_refused, codes, compile_refusals, run, run_unvalidated

# -- snippets -----------------------------------------------------------------

DUNDER_CHAIN_FROM_LITERAL = "().__class__.__bases__[0].__subclasses__()"
DUNDER_CHAIN_FROM_STRING = '"".__class__.__mro__[1].__subclasses__()'
TOOL_GLOBALS = "read_file.__globals__"
TOOL_CLOSURE = "read_file.__closure__"
TOOL_WRAPPED = "read_file.__wrapped__"
TOOL_PARTIAL_FUNC = "find_files.func"
TOOL_PARTIAL_ARGS = "find_files.args[0]"
TOOL_RESULT_MRO = 'read_file("README.md").__class__.__mro__'
TOOL_RESULT_PRIVATE = 'read_file("README.md")._x'
GENERATOR_FRAME = "(x for x in [1]).gi_frame.f_back.f_globals"
GENERATOR_CODE = "g = (x for x in [1])\ng.gi_code.co_consts"
FRAME_LOCALS_NAMED = "frame = 1\nframe.f_locals"
TRACEBACK_FRAME = "tb = 1\ntb.tb_frame"
COROUTINE_FRAME = "c = 1\nc.cr_frame"
ASYNC_GENERATOR_FRAME = "a = 1\na.ag_frame"
FUNC_GLOBALS_PY2 = "f = 1\nf.func_globals"
STR_MRO = "str.mro()"
TYPE_OF_INT = "type(1)"
VARS_CALL = "vars()"
GETATTR_CLASS = 'getattr(1, "__class__")'
GETATTR_PUBLIC = 'getattr(1, "real")'
DIR_CALL = "dir(1)"
GLOBALS_CALL = "globals()"
OBJECT_SUBCLASSES = "object"
BUILTINS_NAME = "__builtins__"
HARMLESS_RESULT_METHOD = 'read_file("README.md").upper().count("STATUS")'

# Unvalidated probes of the run-time guards (each names its run-time refusal).
RUNTIME_TOOL_PARTIAL_FUNC = "find_files.func"
RUNTIME_TOOL_PARTIAL_KEYWORDS = "read_file.keywords"
RUNTIME_PRINT_ATTRIBUTE = "print.real"
RUNTIME_GENERATOR_STATE = "g = (x for x in [1])\ng.gi_running"
RUNTIME_CODE_CONSTS = "c = 1\nc.co_consts"
RUNTIME_STR_MRO = "str.mro()"
RUNTIME_GETITEM_ON_TOOL = "read_file[0]"
RUNTIME_ITERATE_TOOL = "[x for x in read_file]"


STATIC_CASES = [
    (DUNDER_CHAIN_FROM_LITERAL, "private-attribute"),
    (DUNDER_CHAIN_FROM_STRING, "private-attribute"),
    (TOOL_GLOBALS, "private-attribute"),
    (TOOL_CLOSURE, "private-attribute"),
    (TOOL_WRAPPED, "private-attribute"),
    (TOOL_PARTIAL_FUNC, "tool-reference"),
    (TOOL_PARTIAL_ARGS, "tool-reference"),
    (TOOL_RESULT_MRO, "private-attribute"),
    (TOOL_RESULT_PRIVATE, "private-attribute"),
    (GENERATOR_FRAME, "forbidden-attribute"),
    (GENERATOR_CODE, "forbidden-attribute"),
    (FRAME_LOCALS_NAMED, "forbidden-attribute"),
    (TRACEBACK_FRAME, "forbidden-attribute"),
    (COROUTINE_FRAME, "forbidden-attribute"),
    (ASYNC_GENERATOR_FRAME, "forbidden-attribute"),
    (FUNC_GLOBALS_PY2, "forbidden-attribute"),
    (STR_MRO, "forbidden-attribute"),
    (TYPE_OF_INT, "forbidden-name"),
    (VARS_CALL, "forbidden-name"),
    (GETATTR_CLASS, "forbidden-name"),
    (GETATTR_PUBLIC, "forbidden-name"),
    (DIR_CALL, "forbidden-name"),
    (GLOBALS_CALL, "forbidden-name"),
    (OBJECT_SUBCLASSES, "forbidden-name"),
    (BUILTINS_NAME, "forbidden-name"),
]


@pytest.mark.parametrize("program, code", STATIC_CASES, ids=[c[0][:40] for c in STATIC_CASES])
def test_reflection_is_refused_statically(kit, canary, program, code):
    """Each reflective route is refused before running, with its diagnostic code."""
    assert validate(program, kit.names).errors[0].code == code
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


def test_tool_internals_report_every_problem(kit):
    """read_file.__globals__ is both a tool used as a value and a private attribute."""
    assert {"private-attribute", "tool-reference"} <= set(codes(run(TOOL_GLOBALS, kit)))
    assert {"private-attribute", "tool-reference"} <= set(codes(run(TOOL_CLOSURE, kit)))


def test_getattr_with_dunder_reports_the_string_too(kit):
    """getattr(1, "__class__") is refused for the name and for the dunder literal."""
    assert codes(run(GETATTR_CLASS, kit)) == ["forbidden-name", "dunder-string"]


@pytest.mark.parametrize("mode", MODES)
def test_public_methods_of_tool_results_stay_usable(kit, mode):
    """A tool's result is a plain str whose public methods work (nothing to reflect on)."""
    result = run(HARMLESS_RESULT_METHOD, kit, mode)
    assert result.success, result.error
    assert result.output == 1


@pytest.mark.parametrize(
    "program",
    [DUNDER_CHAIN_FROM_LITERAL, TOOL_GLOBALS, TOOL_CLOSURE, TOOL_WRAPPED, TOOL_RESULT_MRO],
    ids=["literal-chain", "globals", "closure", "wrapped", "result-mro"],
)
def test_dunder_attributes_cannot_even_compile_without_the_validator(program):
    """RestrictedPython's transformer refuses '_' attributes on its own (third line)."""
    refusals = compile_refusals(program)
    assert refusals and all('starts with "_"' in message for message in refusals), refusals


def test_frame_attributes_cannot_even_compile_without_the_validator():
    """RestrictedPython also refuses gi_frame / f_back / f_globals by name."""
    refusals = compile_refusals(GENERATOR_FRAME)
    assert any('"gi_frame" is a restricted name' in message for message in refusals), refusals


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (RUNTIME_TOOL_PARTIAL_FUNC, "attributes of a function are not accessible"),
        (RUNTIME_TOOL_PARTIAL_KEYWORDS, "attributes of a function are not accessible"),
        (RUNTIME_PRINT_ATTRIBUTE, "attributes of a function are not accessible"),
        (RUNTIME_GENERATOR_STATE, "attribute 'gi_running' is not allowed"),
        (RUNTIME_CODE_CONSTS, "attribute 'co_consts' is not allowed"),
        (RUNTIME_STR_MRO, "attribute 'mro' is not allowed"),
        (RUNTIME_GETITEM_ON_TOOL, "a function cannot be indexed"),
        (RUNTIME_ITERATE_TOOL, "a function cannot be iterated"),
    ],
    ids=["partial-func", "partial-keywords", "print-attr", "gi_running", "co_consts", "mro", "index-tool", "iterate-tool"],
)
def test_runtime_guards_refuse_reflection_without_the_validator(kit, canary, mode, program, message):
    """With the validator skipped, the run-time guards still refuse tool and frame internals."""
    outcome = run_unvalidated(program, kit, mode)
    assert not outcome.success
    assert outcome.error_kind == "guard", outcome.error
    assert message in outcome.error
    assert outcome.error_line is not None
    canary.assert_untouched()
    assert_host_ok(kit, mode)
