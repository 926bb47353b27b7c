"""The canonical form: each everyday wording becomes the one the grammar reads, and nothing with another reading is touched."""

from __future__ import annotations

import pytest

from lackpy.infer.understand.canon import TABLE, canonical
from lackpy.infer.understand.intent import parse


@pytest.mark.parametrize("asked, canon", [
    ("How many modules are there?", "How many python files are there?"),
    ("Which module has the most TODOs?", "Which python file has the most TODOs?"),
    ("Which files are TODO-free?", "Which files are without TODO?"),
    ("List everything under src", "List all files under src"),
    ("What are the 3 largest python files, largest first?", "What are the 3 largest python files?"),
    ("the 2 smallest files, smallest first", "the 2 smallest files"),
    ("the 5 longest files in order", "the 5 longest files"),
])
def test_an_everyday_wording_becomes_its_canonical_form(asked, canon):
    assert canonical(asked) == canon


@pytest.mark.parametrize("asked", [
    "which modules does the code import",          # the modules it imports, not its files
    "how many times does 'module' appear",         # quoted: a word searched for
    "files containing module",                     # a word searched for
    "does every python file mention Module",
    "list files sorted by size, largest first",    # no ranking said before: the order is not implied, so not dropped
    "sorted by size, smallest first",
])
def test_a_wording_with_another_reading_is_left_for_the_parser(asked):
    assert canonical(asked) == " ".join(asked.split())


def test_the_parser_reads_the_canonical_form():
    for asked, meant in [("How many modules are there?", "How many python files are there?"),
                         ("Which files are TODO-free?", "files without TODO"),
                         ("List everything under src", "list files in src")]:
        assert parse(asked).intent == parse(meant).intent, asked


def test_every_entry_says_why():
    assert all(entry.why for entry in TABLE)
