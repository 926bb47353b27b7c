"""Attribute names smuggled through format strings, or built at run time from pieces.

str.format and format_map resolve "{0.attr}" field names with getattr, so they
are refused outright; f-strings and %-formatting cannot look up attributes from
data. A string spelling "__class__" can be built at run time, but every route
that would turn it into an attribute lookup (getattr, vars, format, format_map,
format(), string.Formatter, operator.attrgetter) is unavailable.
"""

from __future__ import annotations

import pytest

from lackpy import validate

from .support import MODES, assert_refused, codes, run, run_unvalidated

# -- snippets -----------------------------------------------------------------

FORMAT_DUNDER_FIELD = '"{0.__class__}".format(1)'
FORMAT_PUBLIC_FIELD = '"{0.real}".format(1)'
FORMAT_MAP = 'd = {"x": 1}\n"{x}".format_map(d)'
FORMAT_VIA_TYPE = 'str.format("{0.real}", 1)'
FORMAT_BUILTIN = 'format(1, "d")'
STRING_FORMATTER = 'string.Formatter().vformat("{0.real}", [1], {})'
STRING_FORMATTER_IMPORT = "import string"
FSTRING_DUNDER = "x = 1\nf\"{x.__class__}\""
FSTRING_NESTED_SPEC_DUNDER = "x = 1\nf\"{x:{x.__class__}}\""
FSTRING_HARMLESS = 'x = 42\ny = ">8"\nf"{x!r:{y}}"'
FSTRING_DEBUG = 'x = 42\nf"{x=}"'
PERCENT_HARMLESS = 'd = {"a": 1}\n"%(a)s" % d'
ESCAPED_DUNDER_LITERAL = '"\\x5f\\x5fclass\\x5f\\x5f"'
IMPLICIT_CONCAT_DUNDER = '"_" "_class__"'
BYTES_DUNDER = 'b"__class__"'

# "__class__" assembled at run time, with no literal containing "__".
BUILD_DUNDER = 'name = "_" + "_class_" + "_"\nname'
BUILT_NAME = 'name = "_" + "_class_" + "_"\n'
ROUTE_GETATTR = BUILT_NAME + "getattr(1, name)"
ROUTE_VARS = BUILT_NAME + "vars(1)[name]"
ROUTE_FORMAT = BUILT_NAME + '("{0." + name + "}").format(1)'
ROUTE_FORMAT_MAP = BUILT_NAME + '("{x." + name + "}").format_map({"x": 1})'
ROUTE_FORMAT_BUILTIN = BUILT_NAME + "format(1, name)"
ROUTE_ATTRGETTER = BUILT_NAME + "getter = attrgetter(name)"
ROUTE_OPERATOR_MODULE = BUILT_NAME + "operator.attrgetter(name)"
ROUTE_STRING_MODULE = BUILT_NAME + 'string.Formatter().get_field("0." + name, [1], {})'
ROUTE_PERCENT = BUILT_NAME + '("%(" + name + ")s") % {"a": 1}'
ROUTE_SUBSCRIPT = BUILT_NAME + "x = 1\nx[name]"
ROUTE_FSTRING_SPEC = BUILT_NAME + 'x = 1\nf"{x:{name}}"'


@pytest.mark.parametrize(
    "program, code",
    [
        (FORMAT_DUNDER_FIELD, "forbidden-attribute"),
        (FORMAT_PUBLIC_FIELD, "forbidden-attribute"),
        (FORMAT_MAP, "forbidden-attribute"),
        (FORMAT_VIA_TYPE, "forbidden-attribute"),
        (FORMAT_BUILTIN, "forbidden-name"),
        (STRING_FORMATTER, "undefined-name"),
        (STRING_FORMATTER_IMPORT, "forbidden-node"),
        (FSTRING_DUNDER, "private-attribute"),
        (FSTRING_NESTED_SPEC_DUNDER, "private-attribute"),
        (ESCAPED_DUNDER_LITERAL, "dunder-string"),
        (IMPLICIT_CONCAT_DUNDER, "dunder-string"),
        (BYTES_DUNDER, "dunder-string"),
    ],
    ids=[
        "format-dunder", "format-public", "format_map", "str.format", "format()", "string.Formatter",
        "import-string", "fstring-dunder", "fstring-spec-dunder", "escaped-literal", "implicit-concat", "bytes",
    ],
)
def test_format_routes_are_refused(kit, canary, program, code):
    """Every formatting route to an attribute is refused statically, with its code."""
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


def test_format_with_dunder_field_reports_both_problems(kit):
    """"{0.__class__}".format(1) is refused for .format and for the dunder literal."""
    assert codes(run(FORMAT_DUNDER_FIELD, kit)) == ["forbidden-attribute", "dunder-string"]


def test_string_module_hint_names_the_modules_rule(kit):
    """Using the string module is an undefined name with a hint that modules are unavailable."""
    error = validate(STRING_FORMATTER, kit.names).errors[0]
    assert error.code == "undefined-name" and "modules are not available" in error.hint


@pytest.mark.parametrize("mode", MODES)
def test_fstring_conversion_and_nested_spec_are_harmless(kit, mode):
    """f"{x!r:{y}}" with a spec from data formats a value and reaches no attribute."""
    result = run(FSTRING_HARMLESS, kit, mode)
    assert result.success, result.error
    assert result.output == "      42"
    assert run(FSTRING_DEBUG, kit, mode).output == "x=42"


@pytest.mark.parametrize("mode", MODES)
def test_percent_formatting_with_a_mapping_is_harmless(kit, mode):
    """"%(a)s" % d looks up a dict key, not an attribute."""
    result = run(PERCENT_HARMLESS, kit, mode)
    assert result.success and result.output == "1"


@pytest.mark.parametrize("mode", MODES)
def test_a_dunder_string_can_be_built_but_is_only_text(kit, mode):
    """Building "__class__" from pieces gives a plain string and nothing else."""
    result = run(BUILD_DUNDER, kit, mode)
    assert result.success and result.output == "__class__"


@pytest.mark.parametrize(
    "program, code",
    [
        (ROUTE_GETATTR, "forbidden-name"),
        (ROUTE_VARS, "forbidden-name"),
        (ROUTE_FORMAT, "forbidden-attribute"),
        (ROUTE_FORMAT_MAP, "forbidden-attribute"),
        (ROUTE_FORMAT_BUILTIN, "forbidden-name"),
        (ROUTE_ATTRGETTER, "unknown-function"),
        (ROUTE_OPERATOR_MODULE, "undefined-name"),
        (ROUTE_STRING_MODULE, "undefined-name"),
    ],
    ids=["getattr", "vars", "format", "format_map", "format()", "attrgetter", "operator", "string"],
)
def test_every_route_to_use_a_built_dunder_name_is_refused(kit, canary, program, code):
    """getattr, vars, format, format_map, format(), attrgetter and the modules are all unavailable."""
    result = run(program, kit)
    assert_refused(result, code)
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, error, line",
    [
        (ROUTE_PERCENT, "KeyError: '__class__'", 2),
        (ROUTE_SUBSCRIPT, "TypeError: 'int' object is not subscriptable", 3),
        (ROUTE_FSTRING_SPEC, "ValueError: Invalid format specifier", 3),
    ],
    ids=["percent-key", "subscript", "fstring-spec"],
)
def test_routes_that_run_treat_the_built_name_as_data(kit, canary, mode, program, error, line):
    """%-keys, subscripts and format specs take the built name as data: a plain runtime error."""
    result = run(program, kit, mode)
    assert not result.success
    assert result.error_kind == "runtime", result.error
    assert error in result.error
    assert result.error_line == line
    canary.assert_untouched(result)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, message",
    [
        (FORMAT_PUBLIC_FIELD, "attribute 'format' is not allowed"),
        ('"{x.real}".format_map({"x": 1})', "attribute 'format_map' is not allowed"),
        (ROUTE_FORMAT, "attribute 'format' is not allowed"),
    ],
    ids=["format", "format_map", "built-name-format"],
)
def test_format_is_refused_at_run_time_without_the_validator(kit, mode, program, message):
    """The run-time guard refuses format and format_map even when validation is skipped."""
    outcome = run_unvalidated(program, kit, mode)
    assert not outcome.success and outcome.error_kind == "guard", outcome.error
    assert message in outcome.error
