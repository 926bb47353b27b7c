"""Tests for lackpy.host.budget: bounding text to a UTF-8 byte budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lackpy.host.budget import DEFAULT_BUDGET, SHORT_NOTICE, clamp, cut_notice

MODES = ["head", "tail", "middle"]
ALPHA = "abcdefghij" * 10  # 100 ASCII bytes


def nbytes(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


# --- concrete examples ------------------------------------------------------


def test_constants_and_notice():
    assert DEFAULT_BUDGET == 64 * 1024
    assert cut_notice(12345) == "\n[... 12345 bytes cut ...]\n"


@pytest.mark.parametrize(
    "keep, expected",
    [
        ("head", "abcde\n[... 95 bytes cut ...]\n"),
        ("tail", "\n[... 95 bytes cut ...]\nfghij"),
        ("middle", "ab\n[... 95 bytes cut ...]\nhij"),
    ],
)
def test_ascii_exact(keep, expected):
    # The notice reserved for "100" is 25 bytes, leaving 5 bytes of text.
    assert clamp(ALPHA, 30, keep) == (expected, 95)


def test_default_keep_is_middle():
    assert clamp(ALPHA, 30) == clamp(ALPHA, 30, "middle")


@pytest.mark.parametrize(
    "text", ["", "abc", ALPHA, "é" * 20, "日本語", "😀" * 3, "\ud800x\udfff"]
)
@pytest.mark.parametrize("keep", MODES)
def test_exact_fit_is_unchanged(text, keep):
    size = nbytes(text)
    assert clamp(text, size, keep) == (text, 0)
    assert clamp(text, size + 1, keep) == (text, 0)
    assert clamp(text, DEFAULT_BUDGET, keep) == (text, 0)


def test_one_byte_short_is_cut():
    text, dropped = clamp(ALPHA, 99, "head")
    assert dropped > 0 and nbytes(text) <= 99


@pytest.mark.parametrize(
    "text, budget, keep, expected",
    [
        # "é" is 2 bytes; 40 bytes in all, the notice reserved for "40" is 24.
        ("é" * 20, 27, "head", ("é\n[... 38 bytes cut ...]\n", 38)),
        ("é" * 20, 27, "tail", ("\n[... 38 bytes cut ...]\né", 38)),
        ("é" * 20, 27, "middle", ("\n[... 38 bytes cut ...]\né", 38)),
        ("é" * 20, 29, "middle", ("é\n[... 36 bytes cut ...]\né", 36)),
        # "日本語" is 3 bytes per character: 3 spare bytes hold one, 5 still one.
        ("日本語" * 10, 27, "head", ("日\n[... 87 bytes cut ...]\n", 87)),
        ("日本語" * 10, 29, "head", ("日\n[... 87 bytes cut ...]\n", 87)),
        ("日本語" * 10, 29, "tail", ("\n[... 87 bytes cut ...]\n語", 87)),
        ("日本語" * 10, 29, "middle", ("\n[... 87 bytes cut ...]\n語", 87)),
        # "😀" is 4 bytes: 3 spare bytes hold none, 5 hold one.
        ("😀" * 10, 27, "head", ("\n[... 40 bytes cut ...]\n", 40)),
        ("😀" * 10, 27, "tail", ("\n[... 40 bytes cut ...]\n", 40)),
        ("😀" * 10, 29, "head", ("😀\n[... 36 bytes cut ...]\n", 36)),
        ("😀" * 10, 29, "tail", ("\n[... 36 bytes cut ...]\n😀", 36)),
        ("😀" * 10, 29, "middle", ("\n[... 36 bytes cut ...]\n😀", 36)),
        # Lone surrogates are 3 bytes each with surrogatepass.
        ("\ud800" * 10, 27, "head", ("\ud800\n[... 27 bytes cut ...]\n", 27)),
        ("a\udfff" * 10, 28, "tail", ("\n[... 36 bytes cut ...]\na\udfff", 36)),
    ],
)
def test_multibyte_boundaries(text, budget, keep, expected):
    assert clamp(text, budget, keep) == expected


@pytest.mark.parametrize("keep", MODES)
def test_tiny_budgets(keep):
    assert clamp(ALPHA, 0, keep) == ("", 100)
    assert clamp(ALPHA, 4, keep) == ("", 100)
    assert clamp(ALPHA, 5, keep) == (SHORT_NOTICE, 100)
    assert clamp(ALPHA, 24, keep) == (SHORT_NOTICE, 100)
    # Exactly the reserved notice: no text kept, but the full notice fits.
    assert clamp(ALPHA, 25, keep) == (cut_notice(100), 100)
    assert clamp("😀", 3, keep) == ("", 4)
    assert clamp("", 0, keep) == ("", 0)


@pytest.mark.parametrize("keep", ["", "both", "HEAD", None, "start"])
def test_invalid_keep(keep):
    with pytest.raises(ValueError, match="keep must be one of"):
        clamp("abc", 10, keep)


def test_negative_budget():
    with pytest.raises(ValueError, match="budget"):
        clamp("abc", -1)


# --- properties -------------------------------------------------------------

ANY_CHAR = st.characters(exclude_categories=())  # includes astral and surrogate code points
MIXED_CHAR = st.one_of(
    st.characters(max_codepoint=0x7F),
    ANY_CHAR,
    st.characters(min_codepoint=0x10000),  # astral: 4 bytes
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone surrogates
)
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)


def check(text: str, budget: int, keep: str) -> None:
    result, dropped = clamp(text, budget, keep)
    total = nbytes(text)
    size = nbytes(result)  # also proves it re-encodes with surrogatepass
    assert result.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass") == result
    assert size <= budget
    assert (dropped == 0) == (total <= budget)
    if dropped == 0:
        assert result == text
        return
    assert size < total
    if budget < len(cut_notice(total)):  # too small for a notice: nothing kept
        assert result in (SHORT_NOTICE, "") and dropped == total
        return
    notice = cut_notice(dropped)
    if keep == "head":
        assert result.endswith(notice)
        head, tail = result[: -len(notice)], ""
    elif keep == "tail":
        assert result.startswith(notice)
        head, tail = "", result[len(notice) :]
    else:
        # The text itself may contain something notice-like: accept any split
        # at an occurrence of the notice that leaves a prefix and a suffix.
        splits = []
        i = result.find(notice)
        while i != -1:
            splits.append((result[:i], result[i + len(notice) :]))
            i = result.find(notice, i + 1)
        good = [(h, t) for h, t in splits if text.startswith(h) and text.endswith(t)]
        assert good, (text, result)
        head, tail = good[0]
    assert text.startswith(head)
    assert text.endswith(tail)
    assert dropped + nbytes(head) + nbytes(tail) == total
    assert len(head) + len(tail) < len(text)  # the kept parts do not overlap


@SETTINGS
@given(st.text(), st.integers(min_value=0, max_value=5000), st.sampled_from(MODES))
def test_property_text(text, budget, keep):
    check(text, budget, keep)


@SETTINGS
@given(st.text(ANY_CHAR), st.integers(min_value=0, max_value=5000), st.sampled_from(MODES))
def test_property_any_char(text, budget, keep):
    check(text, budget, keep)


# Runs of repeated characters give long texts cheaply; the budget is drawn
# relative to the text's size so that most examples are actually cut.
RUNS = st.lists(st.tuples(MIXED_CHAR, st.integers(min_value=1, max_value=40)), max_size=30)


@SETTINGS
@given(RUNS, st.sampled_from(MODES), st.data())
def test_property_budget_below_size(runs, keep, data):
    text = "".join(ch * n for ch, n in runs)
    budget = data.draw(st.integers(min_value=0, max_value=nbytes(text) + 2), label="budget")
    check(text, budget, keep)


@SETTINGS
@given(
    st.text(MIXED_CHAR, min_size=1, max_size=50),
    st.integers(min_value=1, max_value=60),
    st.sampled_from(MODES),
)
def test_property_repeated(unit, repeat, keep):
    text = unit * repeat
    for budget in (0, 5, 24, 30, 40, nbytes(text) - 1, nbytes(text)):
        check(text, budget, keep)
