"""Issue 25's blind measure: the 36 questions of ``blind_questions``, asked of the rules tier as they were written.

Their author never read the parser; each answer type is judged as the
author judged it on the first run: a folder by its name (``"src/pkg1"`` or a
row naming it), numbers within 0.5%, a share as a fraction or a percentage,
paths and names as sets, lines with or without the ``path:line:`` a listing
of matching lines puts before them, and a question's recorded second reading
as right too. First run: 30 right, 6 refused, 0 wrong.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .blind_questions import questions
from .test_intents import fixture_root, kits, oracle  # noqa: F401  (the shared fixtures)
from .test_unseen_harder import Unseen, _folder_name, _tally, _verdict, matches


def judged(kind: str, got: Any, want: Any) -> bool:
    """The blind author's judge; ``want`` is a tuple of acceptable answers (the first reading, then the recorded second)."""
    return any(_one(kind, got, answer) for answer in want)


def _one(kind: str, got: Any, want: Any) -> bool:
    if kind.startswith("folder"):
        return matches("folder", got, _folder_name(want))
    if kind == "list of folders":
        return matches("folders", got, [_folder_name(w) for w in want])
    if kind == "share":
        return matches("share", got, want / 100)
    if kind == "list of lines":
        rows = got if isinstance(got, list) else []
        return [re.sub(r"^[^:]+:\d+: ", "", row) if isinstance(row, str) else row for row in rows] == want
    if kind == "list of names":
        return isinstance(got, list) and set(got) == set(want)
    return matches({"number": "number", "text": "text", "list of paths": "paths"}[kind], got, want)


@pytest.fixture(scope="module")
def blind(fixture_root, kits) -> tuple[tuple[Unseen, ...], dict[str, tuple[str, str]]]:  # noqa: F811
    asked, alternatives = questions(str(fixture_root))
    items = tuple(
        Unseen(text, kind, lambda _o, answers=(expected, *([alternatives[number]] if number in alternatives else [])): answers)
        for number, (_group, kind, text, expected) in enumerate(asked, 1)
    )
    return items, {item.question: _verdict(item, None, fixture_root, kits, judged) for item in items}


def test_the_blind_set(blind, capsys):
    items, verdicts = blind
    assert len(items) == 36
    _tally("blind harder questions", items, verdicts, capsys)
