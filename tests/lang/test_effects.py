"""A program's call sites, from its syntax tree: each argument a literal, a parameter or computed; a site in a loop may repeat."""

from __future__ import annotations

import pytest

from lackpy.lang.effects import call_sites
from lackpy.lang.validator import validate

TOOLS = {"write_file": ["path", "content"], "run_command": ["command", "timeout", "cwd"]}


def kinds(site) -> list[tuple[str, str, str]]:
    return [(a.name, a.kind, a.expression) for a in site.arguments]


def test_each_argument_is_a_literal_a_parameter_or_computed_with_its_expression():
    program = "write_file('a.txt', f'{x}!')\nrun_command(cmd, timeout=30)\nwrite_file(target, ['x', 1])"
    first, second, third = call_sites(program, TOOLS, params=["cmd", "target", "x"])
    assert kinds(first) == [("path", "literal", "'a.txt'"), ("content", "computed", "f'{x}!'")]
    assert first.arguments[0].value == "a.txt" and (first.line, first.col) == (1, 1)
    assert kinds(second) == [("command", "parameter", "cmd"), ("timeout", "literal", "30")]
    assert kinds(third) == [("path", "parameter", "target"), ("content", "literal", "['x', 1]")]


def test_a_parameter_the_program_binds_again_is_computed():
    [site] = call_sites("target = 'b.txt'\nwrite_file(target, 'x')", TOOLS, params=["target"])
    assert kinds(site)[0] == ("path", "computed", "target")


def test_sites_in_loops_comprehensions_and_key_lambdas_may_repeat_and_others_run_once():
    program = (
        "run_command('once')\n"
        "for n in run_command('iter once')['stdout'].split():\n"
        "    run_command('each ' + n)\n"
        "else:\n"
        "    run_command('after')\n"
        "[run_command(c) for c in [run_command('first iterable')['stdout']]]\n"
        "sorted(['a'], key=lambda v: run_command(v)['code'])\n"
        "if True:\n"
        "    run_command('in if')\n"
    )
    sites = call_sites(program, TOOLS)
    repeated = {site.arguments[0].expression: site.repeated for site in sites}
    assert repeated == {
        "'once'": False, "'iter once'": False, "'each ' + n": True, "'after'": False,
        "c": True, "'first iterable'": False, "v": True, "'in if'": False,
    }


def test_two_calls_on_one_line_are_two_sites_with_their_own_columns():
    a, b = call_sites("x = [run_command('a'), run_command('b')]", TOOLS)
    assert (a.line, a.col, b.line, b.col) == (1, 6, 1, 24) and kinds(b) == [("command", "literal", "'b'")]


def test_star_arguments_are_folded_into_one_computed_argument_and_the_site_is_open():
    [site] = call_sites("write_file('a', *rest, **more)", TOOLS)
    assert site.open and kinds(site) == [("path", "literal", "'a'"), ("*", "computed", "*rest, **more")]


def test_a_nested_call_is_a_site_of_its_own_and_the_outer_argument_computed():
    inner, outer = sorted(call_sites("run_command(run_command('a')['stdout'])", TOOLS), key=lambda s: s.col, reverse=True)
    assert kinds(inner) == [("command", "literal", "'a'")] and kinds(outer) == [("command", "computed", "run_command('a')['stdout']")]


@pytest.mark.parametrize("program", [
    "f = write_file\nf('a', 'b')",
    "sorted(['a'], key=run_command)",
    "tools = [run_command]",
    "d = {'w': write_file}",
    "print(run_command)",
    "x = run_command if True else None",
])
def test_a_tool_can_only_be_called_by_its_name_never_used_as_a_value(program):
    """So every run-time call of a tool is one of its call sites: nothing reaches a tool another way."""
    result = validate(program, TOOLS)
    assert not result.valid and any(d.code == "tool-reference" for d in result.errors), result.errors
