"""Custom checks: callables (ast.Module) -> list[str] add custom-check diagnostics and never break validate."""

from __future__ import annotations

import ast

from lackpy import Check, validate
from lackpy.lang.validator import Rule

PROGRAM = "files = find_files('*.py')\nprint(len(files))"
TOOLS = ["find_files"]


def no_print(tree: ast.Module) -> list[str]:
    """Refuse any call to print."""
    return [
        f"print is not allowed here (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]


def nothing(tree: ast.Module) -> list[str]:
    """Find no problem."""
    return []


def returns_none(tree: ast.Module):
    """Return None instead of a list."""
    return None


def broken(tree: ast.Module) -> list[str]:
    """Fail with an exception."""
    raise ValueError("boom")


def test_check_messages_become_custom_check_diagnostics():
    """Each message a check returns is one custom-check diagnostic carrying that message, hinted with the check's name."""
    result = validate(PROGRAM, TOOLS, [no_print])
    assert result.valid is False
    assert [(e.code, e.message, e.line, e.col) for e in result.errors] == [
        ("custom-check", "print is not allowed here (line 2)", 0, 0)
    ]
    assert result.errors[0].hint == "required by check no_print"


def test_checks_keyword():
    """validate takes the checks by the keyword ``checks`` too, alongside params."""
    result = validate("print(n)", [], checks=[no_print], params=["n"])
    assert [(e.code, e.message) for e in result.errors] == [("custom-check", "print is not allowed here (line 1)")]
    assert validate("print(n)", [], checks=[nothing], params=["n"]).valid is True


def test_rule_is_the_old_name_of_check():
    """Rule, the name before checks, is kept as an alias of Check."""
    assert Rule is Check


def test_check_receives_the_parsed_module():
    """A check is called once with the ast.Module of the program."""
    seen = []

    def spy(tree):
        seen.append(tree)
        return []

    validate(PROGRAM, TOOLS, [spy])
    assert len(seen) == 1
    assert isinstance(seen[0], ast.Module)
    assert len(seen[0].body) == 2


def test_check_returning_nothing_changes_nothing():
    """A check returning [] (or None) gives the same result as no check."""
    plain = validate(PROGRAM, TOOLS).to_dict()
    assert validate(PROGRAM, TOOLS, [nothing]).to_dict() == plain
    assert validate(PROGRAM, TOOLS, [returns_none]).to_dict() == plain
    assert plain["valid"] is True


def test_raising_check_is_a_check_error():
    """A check that raises gives a check-error naming it and the exception, and validate does not raise."""
    result = validate(PROGRAM, TOOLS, [broken])
    assert result.valid is False
    assert [e.code for e in result.errors] == ["check-error"]
    assert result.errors[0].message == "check broken failed: ValueError: boom"


def test_raising_check_does_not_stop_the_other_checks():
    """Checks after a broken one still run."""
    result = validate(PROGRAM, TOOLS, [broken, no_print])
    assert [e.code for e in result.errors] == ["check-error", "custom-check"]


def test_check_returning_a_non_iterable_is_a_check_error():
    """A check returning something that is not a list of messages is reported, not raised."""
    result = validate(PROGRAM, TOOLS, [lambda tree: 42])
    assert [e.code for e in result.errors] == ["check-error"]
    assert result.errors[0].message.startswith("check <lambda> failed: TypeError: ")


def test_checks_add_to_the_validator_errors():
    """Custom-check diagnostics come after the validator's own diagnostics."""
    result = validate("import os\nprint(1)", None, [no_print])
    assert [e.code for e in result.errors] == ["forbidden-node", "custom-check"]


def test_checks_do_not_run_on_unparseable_programs():
    """A program that does not parse is a parse-error and its checks are not called."""
    calls = []

    def spy(tree):
        calls.append(tree)
        return ["never"]

    result = validate("x = (", None, [spy])
    assert [e.code for e in result.errors] == ["parse-error"]
    assert calls == []


def test_calls_and_variables_kept_with_check_errors():
    """A check's diagnostics do not erase calls and variables."""
    result = validate(PROGRAM, TOOLS, [no_print])
    assert result.calls == ["find_files", "print", "len"]
    assert result.variables == ["files"]
