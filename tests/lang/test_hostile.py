"""Hostile input: validate never raises, and refuses with a sensible code."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lackpy import Diagnostic, ValidationResult, validate
from lackpy.lang.grammar import MAX_BLOCK_NESTING, MAX_PROGRAM_CHARS

KNOWN_CODES = {
    "parse-error", "empty-program", "too-large", "too-complex", "too-deep", "forbidden-node",
    "forbidden-name", "forbidden-attribute", "private-attribute", "dunder-string", "unknown-function",
    "undefined-name", "tool-reference", "shadowed-name", "indirect-call", "lambda-position", "for-iter",
    "repeated-keyword", "starred-target", "loop-control", "duplicate-parameter", "attribute-assign",
    "custom-check", "check-error",
}

FUZZ = settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def check_result(result):
    """The invariants every ValidationResult keeps, whatever the input."""
    assert isinstance(result, ValidationResult)
    assert result.valid == (not result.errors)
    for diag in result.errors:
        assert isinstance(diag, Diagnostic)
        assert diag.code in KNOWN_CODES
        assert isinstance(diag.line, int) and diag.line >= 0
        assert isinstance(diag.col, int) and diag.col >= 0
        assert "\n" not in str(diag)
    return result


def codes(result):
    return [e.code for e in result.errors]


# -- empty programs ------------------------------------------------------------------

EMPTY = ""
WHITESPACE = "   \n\t\n  \r\n"
COMMENTS_ONLY = "# just a comment\n   # another one\n"
FORM_FEED = "\x0c"
NO_BREAK_SPACE = "\u00a0"


@pytest.mark.parametrize(
    "program",
    [EMPTY, WHITESPACE, COMMENTS_ONLY, FORM_FEED, NO_BREAK_SPACE],
    ids=["empty", "whitespace", "comments", "form-feed", "no-break-space"],
)
def test_empty_program(program):
    """Text without a statement is an empty-program for the whole program (line 0)."""
    result = check_result(validate(program))
    assert [(e.code, e.line, e.col) for e in result.errors] == [("empty-program", 0, 0)]
    assert result.errors[0].hint


CONTINUATION_THEN_COMMENT = "\\\n# nothing here"
CONTINUATION_THEN_BLANK = "\\\n\n"


@pytest.mark.parametrize(
    "program",
    [CONTINUATION_THEN_COMMENT, CONTINUATION_THEN_BLANK],
    ids=["continuation-comment", "continuation-blank"],
)
def test_program_that_parses_to_no_statements_is_empty(program):
    """A line continuation followed by nothing parses to zero statements, which is an empty program."""
    result = check_result(validate(program))
    assert codes(result) == ["empty-program"]


# -- not text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "program",
    [b"\xff\xfe\x00bad", None, 42, 3.5, ["x = 1"], object()],
    ids=["non-utf8-bytes", "none", "int", "float", "list", "object"],
)
def test_non_text_input(program):
    """Input that is not text is a parse-error, never an exception."""
    result = check_result(validate(program))
    assert codes(result) == ["parse-error"]


def test_utf8_bytes_are_decoded():
    """Bytes holding UTF-8 text are validated as that text."""
    result = check_result(validate("y = len([1])".encode()))
    assert result.valid is True


# -- malformed text ------------------------------------------------------------------

NULL_BYTES = "x = 1\x00\ny = 2"
LONE_SURROGATE = "x = '\ud800'"
BINARY_GARBAGE = bytes(range(256)).decode("latin-1") * 4
UNTERMINATED_STRING = "x = 'abc"
BAD_INDENT = "if x:\npass"


@pytest.mark.parametrize(
    "program",
    [NULL_BYTES, LONE_SURROGATE, BINARY_GARBAGE, UNTERMINATED_STRING, BAD_INDENT],
    ids=["null-bytes", "lone-surrogate", "binary-garbage", "unterminated-string", "bad-indent"],
)
def test_unparseable_text(program):
    """Text Python cannot parse is a parse-error."""
    result = check_result(validate(program))
    assert codes(result) == ["parse-error"]


def test_parse_error_position():
    """A syntax error reports the line and column the parser gives."""
    result = check_result(validate("y = 1\nz = (1 +\n"))
    assert codes(result) == ["parse-error"]
    assert result.errors[0].line == 2


# -- sizes and nesting ---------------------------------------------------------------

DEEP_PARENS = "(" * 1000 + "1" + ")" * 1000
DEEP_LISTS = "[" * 1000 + "]" * 1000
MANY_MINUSES = "-" * 100_000 + "1"
LONG_ATTRIBUTE_CHAIN = "a." * 5000 + "b"
LONG_SUM = "1+" * 50_000 + "1"
HUGE_INT = "x = " + "1" * 10_000
TOO_LARGE = "x = 1\n" * 50_000
DEEP_ATTRIBUTE_OVER_LIMIT = "x = 1\ny = x" + ".a" * 101


@pytest.mark.parametrize(
    ("program", "code"),
    [
        pytest.param(DEEP_PARENS, "too-deep", id="1000-parens"),
        pytest.param(DEEP_LISTS, "too-deep", id="1000-lists"),
        pytest.param(MANY_MINUSES, "too-complex", id="100000-minuses"),
        pytest.param(LONG_ATTRIBUTE_CHAIN, "too-complex", id="5000-attributes"),
        pytest.param(LONG_SUM, "too-complex", id="50000-additions"),
        pytest.param(HUGE_INT, "parse-error", id="10000-digit-int"),
        pytest.param(TOO_LARGE, "too-large", id="300000-chars"),
    ],
)
def test_oversized_or_overnested(program, code):
    """Huge or deeply nested text gives one diagnostic with a sensible code, quickly."""
    result = check_result(validate(program))
    assert codes(result) == [code]


def test_too_large_message_and_limit():
    """A program over the character limit says how long it is and what the limit is."""
    program = "#" * (MAX_PROGRAM_CHARS + 1)
    result = check_result(validate(program))
    assert [(e.code, e.line, e.col) for e in result.errors] == [("too-large", 0, 0)]
    assert str(MAX_PROGRAM_CHARS) in result.errors[0].message


def test_deep_attribute_chain_within_parse_limit():
    """An attribute chain deeper than the limit but parseable is too-deep, at the expression."""
    result = check_result(validate(DEEP_ATTRIBUTE_OVER_LIMIT))
    assert [(e.code, e.line) for e in result.errors] == [("too-deep", 2)]


def nested_fors(levels):
    return "".join("    " * i + f"for v{i} in xs:\n" for i in range(levels)) + "    " * levels + "pass"


def test_deeply_nested_for_loops():
    """25 nested for loops are too-deep at the first loop past the limit of 20."""
    result = check_result(validate(nested_fors(25), params=["xs"]))
    depth = MAX_BLOCK_NESTING + 1
    assert [(e.code, e.line, e.col) for e in result.errors] == [("too-deep", depth, 4 * (depth - 1) + 1)]


def test_nested_for_loops_at_the_limit_are_valid():
    """Exactly 20 nested for loops are allowed."""
    assert check_result(validate(nested_fors(MAX_BLOCK_NESTING), params=["xs"])).valid is True


def test_deep_if_nesting_does_not_raise():
    """99 nested ifs (near the parser's indentation limit) validate without raising."""
    program = "".join(" " * i + "if x:\n" for i in range(99)) + " " * 99 + "pass"
    check_result(validate(program, params=["x"]))


def elif_chain(branches):
    return "if x:\n    y = 0\n" + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, branches))


def test_very_long_elif_chain_does_not_raise():
    """A 2000-branch elif chain (a 2000-deep orelse chain in the tree) does not make validate raise."""
    check_result(validate(elif_chain(2000), params=["x"]))


def test_flat_elif_chain_is_not_nesting():
    """A flat 150-branch if/elif chain nests nothing, compiles, and validates."""
    program = elif_chain(150)
    compile(program, "<p>", "exec")
    result = check_result(validate(program, params=["x"]))
    assert [str(e) for e in result.errors] == []


# -- property-based fuzzing ----------------------------------------------------------


@FUZZ
@given(st.text())
def test_any_text_never_raises(text):
    """validate returns a consistent ValidationResult for any text."""
    check_result(validate(text))


@FUZZ
@given(st.binary())
def test_any_bytes_never_raise(data):
    """validate returns a consistent ValidationResult for any bytes."""
    check_result(validate(data))


FRAGMENTS = [
    "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "+", "-", "*", "**", "/", "@", ":=", "->", "\\",
    " ", "\n", "    ", "#", "'", '"', "f'", "b'", "'''", "1", "0x", "1e", "...", "x", "xs", "_", "__", "_x",
    "__class__", "__import__", "__globals__", "gi_frame", "f_back", "format", "mro",
    "lambda", "lambda v: v", "key=", "for", "in", "if", "else", "elif", "while", "with", "as", "def", "class",
    "return", "yield", "await", "async", "import", "from", "del", "global", "nonlocal", "try:", "except",
    "raise", "assert", "match", "case", "not", "and", "or", "is", "pass", "break", "continue",
    "print", "len", "sorted", "open", "eval", "getattr", "type", "read_file", "*xs", "**d",
]


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join))
def test_fragment_soup_never_raises(program):
    """Random concatenations of Python tokens, keywords and dunders never make validate raise."""
    check_result(validate(program, ["read_file"], params=["x", "xs", "d"]))


ATOMS = st.sampled_from(["x", "xs", "1", "'s'", "b'b'", "None", "_x", "'__'", "open", "read_file", "d"])


def _wrap(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "and", "or", "<", "==", "in", "@", "%"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(st.sampled_from(["-", "not ", "~", "*", "**", "await ", "yield "]), children).map("".join),
        st.lists(children, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(children, max_size=4).map(lambda xs: "{" + ", ".join(xs) + "}"),
        st.tuples(st.sampled_from(["len", "sorted", "print", "getattr", "read_file", "f", "x.y", "(lambda: 1)"]),
                  st.lists(children, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(children, st.sampled_from(["a", "_a", "__class__", "format", "gi_frame", "mro"])).map(
            lambda t: f"{t[0]}.{t[1]}"
        ),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(children, children).map(lambda t: f"[{t[0]} for v in {t[1]}]"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        children.map(lambda c: f"f'{{{c}}}'"),
        children.map(lambda c: f"sorted(xs, key=lambda v: {c})"),
        children.map(lambda c: f"(y := {c})"),
    )


NESTED_EXPRESSIONS = st.recursive(ATOMS, _wrap, max_leaves=40)
STATEMENT_TEMPLATES = st.sampled_from([
    "y = {}", "{}", "for v in {}:\n    {}", "if {}:\n    pass\nelse:\n    {}", "with {} as w:\n    {}",
    "y += {}", "del {}", "while {}:\n    break", "d[{}] = {}", "return {}",
])


@st.composite
def nested_programs(draw):
    """Programs of a few statements whose holes are filled with random nested expressions."""
    lines = []
    for template in draw(st.lists(STATEMENT_TEMPLATES, min_size=1, max_size=4)):
        holes = template.count("{}")
        lines.append(template.format(*(draw(NESTED_EXPRESSIONS) for _ in range(holes))))
    return "\n".join(lines)


@FUZZ
@given(nested_programs())
def test_random_nested_programs_never_raise(program):
    """Random nested expressions in random statements never make validate raise."""
    check_result(validate(program, ["read_file"], params=["x", "xs", "d"]))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(min_value=1, max_value=400), st.sampled_from(["(", "[", "{", "-", "not ", "x.a", "f("]))
def test_deep_nesting_of_any_bracket_never_raises(depth, opener):
    """Any nesting depth of brackets, operators, attributes or calls is refused or accepted, never raised."""
    closer = {"(": ")", "[": "]", "{": "}", "-": "", "not ": "", "x.a": "", "f(": ")"}[opener]
    if opener == "x.a":
        program = "x" + ".a" * depth
    else:
        program = opener * depth + "1" + closer * depth
    check_result(validate(program, params=["x"]))


def test_a_checker_bug_is_a_diagnostic_not_an_exception(monkeypatch):
    """If the checker itself fails, validate refuses the program with internal-error."""
    from lackpy.lang import validator

    def broken(self, node):
        raise KeyError("boom")

    monkeypatch.setattr(validator._Checker, "module", broken)
    result = validate("x = 1")
    assert not result.valid and result.errors[0].code == "internal-error"
    assert "KeyError" in result.errors[0].message


def test_utf8_bytes_are_checked_as_text():
    """A UTF-8 bytes program is decoded and its diagnostics carry character columns."""
    result = validate('t = "日本" + _x'.encode("utf-8"))
    assert [(e.code, e.line, e.col) for e in result.errors] == [("forbidden-name", 1, 12)]


def test_bracket_nesting_is_capped_before_parsing(monkeypatch):
    """Brackets nested deeper than the limit are refused without parsing the text."""
    from lackpy.lang import validator

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(validator.ast, "parse", no_parse)
    result = validate("x = " + "[" * 101 + "]" * 101)
    assert [(e.code, e.message) for e in result.errors] == [("too-deep", "brackets nested 101 levels deep; the limit is 100")]
