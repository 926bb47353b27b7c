"""Placeholders: patterns, rendering values as data, and generalizing programs back into bodies."""

from __future__ import annotations

import ast

import pytest

from lackpy.errors import TemplateError
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lackpy.infer.fill import body_placeholders, generalize, pattern_regex, placeholders, render
from lackpy.infer.understand.words import normalize_intent


def test_placeholders_in_order():
    assert placeholders("count {word} in {kind} files") == ["word", "kind"]
    assert placeholders("list everything") == []


@pytest.mark.parametrize(
    "pattern, message",
    [
        ("count {word} and {word}", "appears twice"),
        ("count {1st}", "is not a name"),
        ("count {two words}", "is not a name"),
        ("count {}", "is not a name"),
        ("count {word", "unmatched brace"),
        ("count word}", "unmatched brace"),
    ],
)
def test_placeholders_refuse_bad_patterns(pattern, message):
    with pytest.raises(TemplateError, match=message):
        placeholders(pattern)


def test_normalize_intent_strips_one_closing_mark():
    assert normalize_intent("  count TODOs?  ") == "count TODOs"
    assert normalize_intent("read setup.py.") == "read setup.py"
    assert normalize_intent("wow!!") == "wow!"


@pytest.mark.parametrize(
    "intent, expected",
    [
        ("count TODO in python files", {"word": "TODO", "kind": "python"}),
        ("COUNT   TODO in\tpython files", {"word": "TODO", "kind": "python"}),
        ("count fix me in shell script files", {"word": "fix me", "kind": "shell script"}),
        ("count TODO in python files?", {"word": "TODO", "kind": "python"}),
        ("count TODO in python", None),
        ("please count TODO in python files", None),
    ],
)
def test_pattern_regex_fullmatches_normalized_intents(intent, expected):
    found = pattern_regex("count {word} in {kind} files").fullmatch(normalize_intent(intent))
    assert (found.groupdict() if found else None) == expected


def test_pattern_regex_escapes_literal_text():
    regex = pattern_regex("size of {path} (in bytes)")
    assert regex.fullmatch("size of a.txt (in bytes)")["path"] == "a.txt"
    assert regex.fullmatch("size of a.txt xin bytesx") is None


def test_pattern_regex_ignores_the_patterns_own_closing_mark():
    assert pattern_regex("what is in {path}?").fullmatch(normalize_intent("what is in README.md?"))["path"] == "README.md"


# -- render ---------------------------------------------------------------------------


def test_render_bare_placeholder_becomes_a_string_literal():
    assert render("read_file({path})", {"path": "README.md"}) == "read_file('README.md')"


def test_render_inside_strings_rewrites_the_literal():
    body = 'find_files("src/**/*.{ext}")  # keep this comment\n'
    assert render(body, {"ext": "py"}) == "find_files('src/**/*.py')  # keep this comment\n"


def test_render_leaves_other_braces_and_strings_alone():
    body = 'd = {"a": 1}\ns = {x}\nt = "{x} {y}"\nu = "plain"\nf"{d} files"\n'
    assert render(body, {"y": "Y"}) == 'd = {"a": 1}\ns = {x}\nt = \'{x} Y\'\nu = "plain"\nf"{d} files"\n'


def test_render_raw_strings_keep_their_meaning():
    program = render('grep(r"\\b{word}\\b")', {"word": "TODO"})
    assert ast.literal_eval(program[5:-1]) == "\\bTODO\\b"


def test_render_does_not_substitute_inside_values():
    program = render('"{a}-{b}"', {"a": "{b}", "b": "B"})
    assert ast.literal_eval(program) == "{b}-B"


def test_render_keeps_injection_inside_one_literal():
    value = '"); write_file("x", "y"); ("'
    program = render('read_file({path})\nread_file("docs/{path}")', {"path": value})
    calls = [node for node in ast.walk(ast.parse(program)) if isinstance(node, ast.Call)]
    assert [c.func.id for c in calls] == ["read_file", "read_file"]
    assert [c.args[0].value for c in calls] == [value, "docs/" + value]


@pytest.mark.parametrize(
    "body, message",
    [
        ('f"{word} files"', "inside the f-string"),
        ('f"{ word!r}"', "inside the f-string"),
        ('b"{word}"', "bytes literal"),
        ("count(", "not valid Python"),
    ],
)
def test_render_refuses(body, message):
    with pytest.raises(TemplateError, match=message):
        render(body, {"word": "TODO"})


def test_render_takes_str_and_int_values_only():
    assert render('x = {n}\ny = "top {n}"', {"n": 5}) == "x = 5\ny = 'top 5'"
    for bad in (True, 1.5, None, ["a"]):
        with pytest.raises(TypeError, match="must be str or int"):
            render("x = {n}", {"n": bad})


def test_body_placeholders():
    assert body_placeholders('find_files("**/*.{ext}")\nread_file({path})\nf"{other}"\n"{ext}{x}"') == ["ext", "path", "x"]


# -- generalize --------------------------------------------------------------------------

ROUND_TRIPS = [
    ('read_file("README.md")', {"path": "README.md"}, "read_file({path})"),
    ('sum(read_file(f).count("TODO") for f in find_files("**/*.py"))', {"word": "TODO", "ext": "py"},
     "sum(read_file(f).count({word}) for f in find_files('**/*.{ext}'))"),
    ('x = ("a" "TODO")', {"word": "TODO"}, "x = (\"a\" '{word}')"),
    ('grep("TODO", glob="**/*")', {"word": "TODO", "empty": ""}, "grep({word}, glob=\"**/*\")"),
    ('f"TODO {x}"', {"word": "TODO"}, 'f"TODO {x}"'),
    ('"src/main.py"', {"path": "src/main.py", "name": "main"}, "{path}"),
    ('"in src/main.py"', {"path": "src/main.py", "name": "main"}, "'in {path}'"),
    ('"main and main"', {"a": "main", "b": "main"}, "'{a} and {a}'"),
    ('"{braces} TODO"', {"word": "TODO"}, "'{braces} {word}'"),
]


@pytest.mark.parametrize("program, values, body", ROUND_TRIPS)
def test_generalize(program, values, body):
    assert generalize(program, values) == body
    assert ast.dump(ast.parse(render(body, values))) == ast.dump(ast.parse(program))


@pytest.mark.parametrize(
    "program, message",
    [('"{word} TODO"', "already has the text {word}"), ("s = {word}", "already has {word} in its code")],
)
def test_generalize_refuses_programs_that_already_hold_placeholders(program, message):
    with pytest.raises(TemplateError, match=message):
        generalize(program, {"word": "TODO"})


def test_generalize_refuses_bad_names():
    with pytest.raises(TemplateError, match="not an identifier"):
        generalize('"x"', {"not a name": "x"})


# -- properties ---------------------------------------------------------------------------

BODIES = [
    "read_file({path})",
    'files = find_files("**/*.{ext}")\nsum(read_file(f).count({word}) for f in files)',
    'grep(r"^\\s*{word}", glob="{path}/**")\n[h["text"] for h in grep({word})]',
    'x = ("prefix-" "{word}" \'{ext}\')\n{"k": {path}, "n": [1, 2]}',
    '"""{word}\n{path}"""',
]
HARMLESS = {"path": "p", "ext": "e", "word": "w"}
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1) | st.sampled_from(
    ['"); write_file("x", "y"); ("', "'''", '\\', "{word}", "{path}", "\n", "\x00", "__import__('os')", 'f"{x}"']
)


def _shape(tree: ast.AST) -> str:
    """The AST with every constant blanked (in place): what code the program is, whatever its data."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            node.value = None
    return ast.dump(tree)


@settings(max_examples=150, deadline=None)
@given(body=st.sampled_from(BODIES), path=texts, ext=texts, word=texts)
def test_render_never_changes_the_code(body, path, ext, word):
    values = {"path": path, "ext": ext, "word": word}
    rendered = ast.parse(render(body, values))
    harmless = ast.parse(render(body, HARMLESS))
    names = lambda tree: {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}  # noqa: E731
    strings = [n.value for n in ast.walk(rendered) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for name in body_placeholders(body):
        assert any(values[name] in s for s in strings)
    assert names(rendered) == names(harmless)
    assert _shape(rendered) == _shape(harmless)


@settings(max_examples=150, deadline=None)
@given(literals=st.lists(texts, min_size=1, max_size=4), a=texts, b=texts | st.just(""))
def test_generalize_then_render_gives_the_program_back(literals, a, b):
    program = "\n".join(f"x{i} = f({text!r})" for i, text in enumerate(literals)) + f"\ny = ({literals[0]!r} {a!r})"
    values = {"a": a, "b": b}
    try:
        body = generalize(program, values)
    except TemplateError:  # the program already contains {a} or {b}
        assume(False)
    assert ast.dump(ast.parse(render(body, values))) == ast.dump(ast.parse(program))
