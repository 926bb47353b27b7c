"""Custom rules: callables (ast.Module) -> list[str] add custom-rule diagnostics and never break validate."""

from __future__ import annotations

import ast

from lackpy import validate

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


def test_rule_messages_become_custom_rule_diagnostics():
    """Each message a rule returns is one custom-rule diagnostic carrying that message."""
    result = validate(PROGRAM, TOOLS, [no_print])
    assert result.valid is False
    assert [(e.code, e.message, e.line, e.col) for e in result.errors] == [
        ("custom-rule", "print is not allowed here (line 2)", 0, 0)
    ]
    assert "no_print" in result.errors[0].hint


def test_rule_receives_the_parsed_module():
    """A rule is called once with the ast.Module of the program."""
    seen = []

    def spy(tree):
        seen.append(tree)
        return []

    validate(PROGRAM, TOOLS, [spy])
    assert len(seen) == 1
    assert isinstance(seen[0], ast.Module)
    assert len(seen[0].body) == 2


def test_rule_returning_nothing_changes_nothing():
    """A rule returning [] (or None) gives the same result as no rule."""
    plain = validate(PROGRAM, TOOLS).to_dict()
    assert validate(PROGRAM, TOOLS, [nothing]).to_dict() == plain
    assert validate(PROGRAM, TOOLS, [returns_none]).to_dict() == plain
    assert plain["valid"] is True


def test_raising_rule_is_a_rule_error():
    """A rule that raises gives a rule-error naming it and the exception, and validate does not raise."""
    result = validate(PROGRAM, TOOLS, [broken])
    assert result.valid is False
    assert [e.code for e in result.errors] == ["rule-error"]
    message = result.errors[0].message
    assert "broken" in message and "ValueError" in message and "boom" in message


def test_raising_rule_does_not_stop_the_other_rules():
    """Rules after a broken one still run."""
    result = validate(PROGRAM, TOOLS, [broken, no_print])
    assert [e.code for e in result.errors] == ["rule-error", "custom-rule"]


def test_rule_returning_a_non_iterable_is_a_rule_error():
    """A rule returning something that is not a list of messages is reported, not raised."""
    result = validate(PROGRAM, TOOLS, [lambda tree: 42])
    assert [e.code for e in result.errors] == ["rule-error"]


def test_rules_add_to_the_validator_errors():
    """Custom-rule diagnostics come after the validator's own diagnostics."""
    result = validate("import os\nprint(1)", None, [no_print])
    assert [e.code for e in result.errors] == ["forbidden-node", "custom-rule"]


def test_rules_do_not_run_on_unparseable_programs():
    """A program that does not parse is a parse-error and its rules are not called."""
    calls = []

    def spy(tree):
        calls.append(tree)
        return ["never"]

    result = validate("x = (", None, [spy])
    assert [e.code for e in result.errors] == ["parse-error"]
    assert calls == []


def test_calls_and_variables_kept_with_rule_errors():
    """A rule's diagnostics do not erase calls and variables."""
    result = validate(PROGRAM, TOOLS, [no_print])
    assert result.calls == ["find_files", "print", "len"]
    assert result.variables == ["files"]
