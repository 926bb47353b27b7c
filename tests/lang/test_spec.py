"""language_spec(): the grammar as JSON-ready data, consistent with what validate enforces."""

from __future__ import annotations

import ast
import json

import pytest

from lackpy import language_spec, validate
from lackpy.lang import grammar
from lackpy.lang.grammar import ALLOWED_NODES, FORBIDDEN_NODES

from .snippets import FORBIDDEN_NODE_SNIPPETS, SNIPPET_PARAMS, node_exists

ISSUE_BUILTINS = {
    "len", "sorted", "reversed", "enumerate", "zip", "range", "min", "max", "sum", "any", "all", "abs",
    "round", "str", "int", "float", "bool", "list", "dict", "set", "tuple", "isinstance", "print",
}


def test_spec_sections():
    """The spec has the node, name, builtin, attribute, rule and limit sections."""
    spec = language_spec()
    for key in ("allowed_nodes", "forbidden_nodes", "forbidden_names", "allowed_builtins",
                "forbidden_attributes", "rules", "limits"):
        assert key in spec, key
        assert spec[key], key


def test_spec_lists_every_allowed_builtin():
    """allowed_builtins is exactly the builtins of the issue, each with a reason."""
    builtins = language_spec()["allowed_builtins"]
    assert set(builtins) == ISSUE_BUILTINS
    assert all(isinstance(reason, str) and reason for reason in builtins.values())


def test_spec_forbidden_names_include_the_dangerous_ones():
    """forbidden_names covers I/O, code generation, reflection and introspection."""
    names = language_spec()["forbidden_names"]
    for name in ("open", "eval", "exec", "compile", "getattr", "setattr", "globals", "locals", "vars", "dir",
                 "type", "__import__", "breakpoint", "input", "iter", "next", "printed"):
        assert name in names, name
        assert names[name]


def test_spec_is_json_serialisable():
    """The spec survives a JSON round trip unchanged."""
    spec = language_spec()
    assert json.loads(json.dumps(spec)) == spec


def test_spec_sections_are_sorted():
    """Node, name and builtin sections list their keys in sorted order."""
    spec = language_spec()
    for key in ("allowed_nodes", "forbidden_nodes", "forbidden_names", "allowed_builtins"):
        assert list(spec[key]) == sorted(spec[key]), key


def test_spec_limits_match_grammar():
    """The limits section repeats the grammar's constants."""
    assert language_spec()["limits"] == {
        "max_program_chars": grammar.MAX_PROGRAM_CHARS,
        "max_depth": grammar.MAX_DEPTH,
        "max_block_nesting": grammar.MAX_BLOCK_NESTING,
    }


def test_no_node_is_both_allowed_and_forbidden():
    """ALLOWED_NODES and FORBIDDEN_NODES are disjoint."""
    spec = language_spec()
    assert set(spec["allowed_nodes"]).isdisjoint(spec["forbidden_nodes"])
    assert set(ALLOWED_NODES).isdisjoint(FORBIDDEN_NODES)


def test_allowed_builtins_are_not_forbidden_names():
    """No allowed builtin is also a forbidden name."""
    spec = language_spec()
    assert set(spec["allowed_builtins"]).isdisjoint(spec["forbidden_names"])


def test_allowed_nodes_exist_in_ast():
    """Every allowed node name is an ast class of this Python."""
    missing = [name for name in ALLOWED_NODES if not node_exists(name)]
    assert missing == []


@pytest.mark.parametrize("base", [ast.stmt, ast.expr], ids=["statements", "expressions"])
def test_every_statement_and_expression_node_is_classified(base):
    """Each concrete statement and expression class of this Python is either allowed or forbidden."""
    names = {cls.__name__ for cls in base.__subclasses__()}
    unclassified = names - set(ALLOWED_NODES) - set(FORBIDDEN_NODES)
    assert unclassified == set()


def test_every_forbidden_node_has_a_snippet():
    """The reject snippets cover every node in FORBIDDEN_NODES."""
    assert set(FORBIDDEN_NODE_SNIPPETS) == set(FORBIDDEN_NODES)


@pytest.mark.parametrize("name", sorted(FORBIDDEN_NODES))
def test_every_forbidden_node_is_rejected(name):
    """Writing each forbidden construct is refused; where this Python has the node, as forbidden-node."""
    program, line, col = FORBIDDEN_NODE_SNIPPETS[name]
    result = validate(program, params=SNIPPET_PARAMS)
    assert result.valid is False
    if node_exists(name):
        assert [(e.code, e.line, e.col) for e in result.errors] == [("forbidden-node", line, col)]
        assert result.errors[0].hint == FORBIDDEN_NODES[name]
    else:
        assert [e.code for e in result.errors] == ["parse-error"]


def test_forbidden_attribute_section_lists_prefixes_and_private_names():
    """forbidden_attributes names format, the internals prefixes and '_*'."""
    attributes = language_spec()["forbidden_attributes"]
    assert {"format", "format_map", "mro", "_*"} <= set(attributes)
    for prefix in grammar.FORBIDDEN_ATTRIBUTE_PREFIXES:
        assert prefix + "*" in attributes


def test_spec_returns_a_fresh_copy():
    """Changing the returned spec does not change the next one."""
    spec = language_spec()
    spec["allowed_builtins"]["open"] = "oops"
    assert "open" not in language_spec()["allowed_builtins"]
