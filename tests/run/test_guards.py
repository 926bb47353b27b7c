"""Run-time guards hold on their own, behind the validator.

Programs here are compiled with the guarded compiler but WITHOUT the
validator, to show that each escape the validator refuses statically is also
refused while running.
"""

from __future__ import annotations

import ast
import os
import types

import pytest

from lackpy import GuardError
from lackpy.run import compiler
from lackpy.run.guards import (
    BASE_GLOBALS,
    guarded_getattr,
    guarded_getitem,
    guarded_getiter,
    guarded_write,
    operation_guards,
)
from lackpy.run.execute import Printer
from lackpy.run.limits import DEFAULT_LIMITS

guarded_inplacevar = operation_guards(DEFAULT_LIMITS)["_inplacevar_"]

# Escapes the validator refuses statically; each must also fail at run time.
FORMAT_REFLECTION = '"{0.real}".format(1)'
FORMAT_MAP = '"{x}".format_map({"x": 1})'
FUNCTION_ATTRIBUTE = "len.text_signature"
FRAME_FROM_GENERATOR = "g = (i for i in [1])\ng.gi_frame"
MRO = "str.mro()"


def run_unvalidated(program: str, **names):
    """Compile through RestrictedPython and lackpy's wrapper, skipping validation."""
    code = compiler._compile(ast.parse(program), ())
    namespace = dict(BASE_GLOBALS, print=Printer(1000).make(), **operation_guards(DEFAULT_LIMITS), **names)
    return types.FunctionType(code, namespace)()[0]


@pytest.mark.parametrize(
    "program, message",
    [
        (FORMAT_REFLECTION, "attribute 'format' is not allowed"),
        (FORMAT_MAP, "attribute 'format_map' is not allowed"),
        (FUNCTION_ATTRIBUTE, "attributes of a builtin_function_or_method are not accessible"),
        (MRO, "attribute 'mro' is not allowed"),
    ],
    ids=["format", "format_map", "function-attribute", "mro"],
)
def test_escapes_fail_at_run_time_too(program, message):
    """Each statically refused escape is refused again by the run-time guards."""
    with pytest.raises(GuardError, match=message):
        run_unvalidated(program)


@pytest.mark.parametrize("program", ["x = ().__class__", FRAME_FROM_GENERATOR], ids=["dunder", "gi_frame"])
def test_guarded_compiler_refuses_without_the_validator(program):
    """RestrictedPython's transformer refuses private and inspect names on its own."""
    with pytest.raises(compiler._Refused):
        compiler._compile(ast.parse(program), ())


def test_attributes_of_modules_and_functions_are_not_readable():
    """Interpreter objects that reach globals are opaque."""
    for obj in (os, len, run_unvalidated, (lambda: 1), print):
        with pytest.raises(GuardError):
            guarded_getattr(obj, "anything")


def test_plain_values_keep_their_methods():
    """Strings, lists, dicts and builtin types keep their public methods."""
    assert guarded_getattr("a b", "split")() == ["a", "b"]
    assert guarded_getattr(str, "join")(",", ["a", "b"]) == "a,b"
    assert guarded_getattr({"k": 1}, "get")("k") == 1


@pytest.mark.parametrize("name", ["__class__", "_private", "f_globals", "co_code", "tb_frame", "gi_code", "format", "mro", "func_globals"])
def test_getattr_refuses_reflective_names(name):
    """The guard repeats the validator's attribute rules."""
    with pytest.raises(GuardError):
        guarded_getattr("text", name)


def test_getitem_and_getiter_refuse_interpreter_objects():
    """Modules and functions cannot be indexed or iterated; data can."""
    with pytest.raises(GuardError):
        guarded_getitem(os, "path")
    with pytest.raises(GuardError):
        guarded_getiter(len)
    assert guarded_getitem({"a": 1}, "a") == 1
    assert list(guarded_getiter((i for i in range(2)))) == [0, 1]


def test_write_allows_only_plain_containers():
    """Item stores work on lists, dicts, sets and bytearrays only."""
    for value in ([], {}, set(), bytearray()):
        assert guarded_write(value) is value
    for value in ((1, 2), "text", os, frozenset()):
        with pytest.raises(GuardError):
            guarded_write(value)


def test_write_guard_at_run_time():
    """Assigning into a tuple a tool returned is refused by the guard."""
    with pytest.raises(GuardError, match="tuple cannot be modified"):
        run_unvalidated("t = give()\nt[0] = 5", give=lambda: (1, 2))


def test_inplacevar_applies_operators():
    """In-place operators go through the operator module."""
    assert guarded_inplacevar("+=", 1, 2) == 3
    items = [1]
    assert guarded_inplacevar("+=", items, [2]) is items and items == [1, 2]
    assert guarded_inplacevar("//=", 7, 2) == 3


def test_safe_builtins_exclude_dangerous_ones():
    """Only the allowed builtins are reachable; open, eval and __import__ are not."""
    builtins = BASE_GLOBALS["__builtins__"]
    assert "len" in builtins and "sorted" in builtins
    for name in ("open", "eval", "exec", "__import__", "getattr", "type", "globals"):
        assert name not in builtins
    with pytest.raises(NameError):
        run_unvalidated("open('x')")
