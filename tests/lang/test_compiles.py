"""Property: a program that validates compiles, with CPython and through lackpy's guarded compiler."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lackpy import validate
from lackpy.run.compiler import prepare

from .test_accepts import ACCEPT_CASES
from .test_accepts import PARAMS as ACCEPT_PARAMS
from .test_accepts import TOOLS as ACCEPT_TOOLS

# Every name a generated program reads is a parameter, so most programs are
# valid and the property is not vacuous.
NAMES = ("a", "b", "n", "xs", "ys", "d", "s", "total")
PARAMS = NAMES

PROPERTY = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def assert_compiles_when_valid(src, params=PARAMS, tools=()):
    """If validate accepts src, CPython compiles it and prepare returns code."""
    result = validate(src, list(tools) or None, params=params)
    if result.valid:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "'int' object is not subscriptable"
            compile(src, "<p>", "exec")
        prepared = prepare(src, frozenset(tools), tuple(params))
        assert prepared.code is not None, [str(e) for e in prepared.validation.errors]
    return result


# -- a grammar of programs -----------------------------------------------------------

ATOMS = st.sampled_from(["a", "b", "n", "xs", "ys", "d", "s", "total", "0", "1", "2.5", "'text'", "True", "None", "[]", "{}"])
BINOPS = st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "and", "or", "<", "<=", "==", "!=", "in", "not in", "is", "|", "&"])
BUILTINS = st.sampled_from(["len", "sorted", "min", "max", "sum", "print", "str", "int", "list", "dict", "set",
                            "tuple", "range", "enumerate", "zip", "abs", "round", "any", "all", "reversed", "bool"])
KEYWORD_NAMES = st.sampled_from(["key", "key", "reverse", "sep", "end", "default", "start"])
LAMBDA_PARAMS = st.sampled_from(["v", "v", "v, w", "v, w=1", "v, *rest", "v, v", "v, *, v", "*v", "v, **kw"])
LAMBDA_BODIES = st.sampled_from(["v", "-v", "v[0]", "len(v)", "(v, n)", "v if v else n", "str(v).lower()"])


def _lambda():
    return st.tuples(LAMBDA_PARAMS, LAMBDA_BODIES).map(lambda t: f"lambda {t[0]}: {t[1]}")


def _call(children):
    positional = st.lists(st.one_of(children, children.map(lambda c: f"*{c}")), max_size=3)
    keyword_value = st.one_of(children, _lambda())
    keywords = st.lists(st.tuples(KEYWORD_NAMES, keyword_value), max_size=3)
    double_star = st.sampled_from(["", "", "", "**d"])
    return st.tuples(BUILTINS, positional, keywords, double_star).map(
        lambda t: f"{t[0]}({', '.join([*t[1], *(f'{k}={v}' for k, v in t[2]), *([t[3]] if t[3] else [])])})"
    )


def _comprehension(children):
    target = st.sampled_from(["v", "v", "v, w", "v, *w", "(v, w)"])
    iterable = st.one_of(children, st.sampled_from(["xs", "range(n)", "d.items()", "[1, 2]"]))
    condition = st.one_of(st.just(""), children.map(lambda c: f" if {c}"))
    return st.tuples(st.sampled_from(["[{}]", "{{{}}}", "({})", "sum({})", "DICT"]), children, target, iterable,
                     condition).map(
        lambda t: ("{" + f"{t[1]}: v for {t[2]} in {t[3]}{t[4]}" + "}") if t[0] == "DICT"
        else t[0].format(f"{t[1]} for {t[2]} in {t[3]}{t[4]}")
    )


def _fstring(children):
    suffix = st.sampled_from(["", "!r", ":>8", "!s:<4", ":.2f", "="])
    return st.tuples(children, suffix).map(lambda t: f'f"<{{ {t[0]} {t[1]}}}>"' if t[1] == "=" else f'f"<{{ {t[0]}{t[1]} }}>"')


def _extend(children):
    return st.one_of(
        st.tuples(children, BINOPS, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["not ", "-", "+", "~"]), children).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.lists(st.one_of(children, children.map(lambda c: f"*{c}")), max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: f"({', '.join(xs)},)"),
        st.lists(st.tuples(children, children), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(children, st.sampled_from(["1:", ":2", "::-1", "1:2:1", ":"])).map(lambda t: f"{t[0]}[{t[1]}]"),
        _call(children),
        _comprehension(children),
        _fstring(children),
        children.map(lambda c: f"str({c}).upper()"),
        children.map(lambda c: f"', '.join({c})"),
        children.map(lambda c: f"isinstance({c}, (int, str))"),
    )


EXPRESSIONS = st.recursive(ATOMS, _extend, max_leaves=8)

TARGETS = st.sampled_from(["a", "b", "total", "a, b", "a, *b", "(a, b), c", "[a, b]", "d[n]", "xs[0]", "xs[1:2]"])
EDGE_TARGETS = st.sampled_from(["a, *b, *c", "*a", "a.b"])
AUG_TARGETS = st.sampled_from(["total", "n", "d[n]", "xs[0]"])
AUG_OPS = st.sampled_from(["+=", "-=", "*=", "//=", "|=", "%="])
LOOP_TARGETS = st.sampled_from(["v", "v, w", "v, *w", "d[n]"])
LOOP_ITERS = st.sampled_from(["xs", "range(n)", "enumerate(xs)", "zip(xs, ys)", "d.items()", "sorted(xs, key=lambda v: -v)", "reversed(xs)"])


def indent(lines):
    return ["    " + line for line in lines]


@st.composite
def statement(draw, depth, in_loop, edge):
    """One statement (as lines), possibly a block with nested statements."""
    kinds = ["assign", "assign", "aug", "expr", "pass", "break", "continue"]
    if depth < (5 if edge else 3):
        kinds += ["if", "for", "for", "with"]
    kind = draw(st.sampled_from(kinds))
    if kind == "assign":
        target = draw(st.one_of(TARGETS, EDGE_TARGETS) if edge and draw(st.booleans()) else TARGETS)
        value = draw(EXPRESSIONS)
        if edge and draw(st.integers(0, 5)) == 0:
            value = f"*{value}"
        return [f"{target} = {value}"]
    if kind == "aug":
        target = draw(st.one_of(AUG_TARGETS, st.just("xs[1:2]")) if draw(st.booleans()) else AUG_TARGETS)
        return [f"{target} {draw(AUG_OPS)} {draw(EXPRESSIONS)}"]
    if kind == "expr":
        value = draw(EXPRESSIONS)
        if edge and draw(st.integers(0, 5)) == 0:
            value = f"*{value}"
        return [value]
    if kind in ("pass", "break", "continue"):
        # break and continue land inside and outside loops alike
        return [kind]
    if kind == "if":
        lines = [f"if {draw(EXPRESSIONS)}:", *indent(draw(block(depth + 1, in_loop, edge)))]
        for _ in range(draw(st.integers(0, 2))):
            lines += [f"elif {draw(EXPRESSIONS)}:", *indent(draw(block(depth + 1, in_loop, edge)))]
        if draw(st.booleans()):
            lines += ["else:", *indent(draw(block(depth + 1, in_loop, edge)))]
        return lines
    if kind == "for":
        iterable = draw(st.one_of(LOOP_ITERS, st.just("[1, 2]")) if draw(st.booleans()) else LOOP_ITERS)
        lines = [f"for {draw(LOOP_TARGETS)} in {iterable}:", *indent(draw(block(depth + 1, True, edge)))]
        if draw(st.booleans()):
            lines += ["else:", *indent(draw(block(depth + 1, in_loop, edge)))]
        return lines
    # with: one item in the core grammar, up to six in edge programs
    count = draw(st.integers(1, 6 if edge else 2))
    items = [draw(st.sampled_from(["s", "d", "xs", "a"])) + draw(st.sampled_from(["", " as a", " as (a, b)"]))
             for _ in range(count)]
    return [f"with {', '.join(items)}:", *indent(draw(block(depth + 1, in_loop, edge)))]


@st.composite
def block(draw, depth, in_loop, edge):
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        lines += draw(statement(depth, in_loop, edge))
    return lines


@st.composite
def programs(draw, edge=False):
    """A random program in (and sometimes just outside) the lackpy grammar."""
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        lines += draw(statement(0, False, edge))
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@PROPERTY
@given(programs())
def test_valid_generated_programs_compile(src):
    """Whenever validate accepts a generated program, CPython and prepare() compile it."""
    assert_compiles_when_valid(src)


@pytest.mark.slow
@PROPERTY
@given(programs(edge=True))
def test_valid_generated_edge_programs_compile(src):
    """Also with many with-items, deep blocks, starred values and odd targets, valid implies compilable."""
    assert_compiles_when_valid(src)


def test_generator_produces_valid_programs():
    """The program strategy is not vacuous: a fixed sample contains many valid programs."""
    seen = []

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(programs())
    def collect(src):
        seen.append(validate(src, params=PARAMS).valid)

    collect()
    assert len(seen) >= 100
    # The share of valid programs varies with hypothesis's draw (17-33% seen,
    # depending on which tests ran first); 20 valid programs keep it meaningful.
    assert sum(seen) >= 20


# -- hand-written programs -----------------------------------------------------------


@pytest.mark.parametrize("program", ACCEPT_CASES)
def test_every_accepted_program_compiles(program):
    """Every program of the accept table compiles with CPython and through prepare()."""
    result = assert_compiles_when_valid(program, ACCEPT_PARAMS, ACCEPT_TOOLS)
    assert result.valid is True


# Programs that parse but that the CPython compiler refuses afterwards.
REPEATED_KEYWORD = "print(sep='a', sep='b')"
TWO_STARRED_TARGETS = "a, *b, *c = xs"
LONE_STARRED_TARGET = "*a = xs"
BREAK_OUTSIDE_LOOP = "break"
CONTINUE_IN_FOR_ELSE = "for v in xs:\n    pass\nelse:\n    continue"
DUPLICATE_LAMBDA_PARAMETER = "sorted(xs, key=lambda v, v: v)"
ASYNC_COMPREHENSION = "ys = [v async for v in xs]"
TWENTY_ONE_NESTED_FORS = "".join("    " * i + f"for v{i} in xs:\n" for i in range(21)) + "    " * 21 + "pass"
STAR_AFTER_256_NAMES = ", ".join(f"a{i}" for i in range(256)) + ", *rest = xs"

COMPILER_REFUSALS = [
    pytest.param(REPEATED_KEYWORD, "repeated-keyword", id="repeated-keyword"),
    pytest.param(TWO_STARRED_TARGETS, "starred-target", id="two-starred"),
    pytest.param(LONE_STARRED_TARGET, "starred-target", id="lone-starred"),
    pytest.param(BREAK_OUTSIDE_LOOP, "loop-control", id="break-outside-loop"),
    pytest.param(CONTINUE_IN_FOR_ELSE, "loop-control", id="continue-in-for-else"),
    pytest.param(DUPLICATE_LAMBDA_PARAMETER, "duplicate-parameter", id="duplicate-parameter"),
    pytest.param(ASYNC_COMPREHENSION, "forbidden-node", id="async-comprehension"),
    pytest.param(TWENTY_ONE_NESTED_FORS, "too-deep", id="21-nested-fors"),
    pytest.param(STAR_AFTER_256_NAMES, "starred-target", id="star-after-256-names"),
]


@pytest.mark.parametrize(("program", "code"), COMPILER_REFUSALS)
def test_compiler_refusals_are_caught_by_validate(program, code):
    """What CPython refuses only after parsing comes back invalid with the right code instead of raising."""
    with pytest.raises(SyntaxError):
        compile(program, "<p>", "exec")
    result = validate(program, params=["xs"])
    assert result.valid is False
    assert [e.code for e in result.errors] == [code]
    assert prepare(program, frozenset(), ("xs",)).code is None


def test_star_after_255_names_is_valid_and_compiles():
    """255 names before the starred target is the compiler's limit and is allowed."""
    program = ", ".join(f"a{i}" for i in range(255)) + ", *rest = xs"
    assert assert_compiles_when_valid(program, ("xs",)).valid is True


# Programs the validator accepts today although CPython or the guarded compiler refuse them.
STARRED_VALUE = "x = *xs"
STARRED_STATEMENT = "*xs"
WITH_21_ITEMS = "with " + ", ".join(["cm"] * 21) + ":\n    pass"
WITH_TWO_ITEMS_AND_19_FORS = (
    "with cm, cm:\n" + "".join("    " * (i + 1) + f"for v{i} in xs:\n" for i in range(19)) + "    " * 20 + "pass"
)


@pytest.mark.parametrize(
    "program",
    [STARRED_VALUE, STARRED_STATEMENT],
    ids=["starred-assigned-value", "starred-expression-statement"],
)
def test_bare_starred_expression_is_refused(program):
    """A starred expression outside a call, display or target ('can't use starred expression here') is invalid."""
    with pytest.raises(SyntaxError):
        compile(program, "<p>", "exec")
    result = validate(program, params=["xs"])
    assert result.valid is False
    assert result.errors[0].line == 1


@pytest.mark.parametrize(
    "program",
    [WITH_21_ITEMS, WITH_TWO_ITEMS_AND_19_FORS],
    ids=["one-with-21-items", "two-with-items-and-19-fors"],
)
def test_with_items_count_towards_block_nesting(program):
    """Each item of a with statement is one nested block for CPython, so 21 of them are too-deep."""
    with pytest.raises(SyntaxError, match="too many statically nested blocks"):
        compile(program, "<p>", "exec")
    result = validate(program, params=["xs", "cm"])
    assert [e.code for e in result.errors] == ["too-deep"]


@pytest.mark.parametrize("program", ["y__roles__ = 1", "y = s.name__roles__"], ids=["name", "attribute"])
def test_roles_names_validate_only_if_the_guarded_compiler_accepts_them(program):
    """Names RestrictedPython refuses (ending in '__roles__') must not validate, or prepare must compile them."""
    assert_compiles_when_valid(program, ("s",))


@pytest.mark.parametrize("program", ["\\\n# nothing", "\\\n\n"], ids=["continuation-comment", "continuation-blank"])
def test_prepare_never_raises_on_a_program_without_statements(program):
    """prepare() on text that parses to no statements returns an invalid result instead of raising."""
    prepared = prepare(program, frozenset())
    assert prepared.code is None
    assert prepared.validation.valid is False
