"""Questions about the parts of code the rules tier reads from text: what a definition's code holds, docstrings and imports.

Each answer is checked against a workspace written here, whose truth is
plain: every expectation below can be read off the files by eye.
"""

from __future__ import annotations

import asyncio

from lackpy import LackpyService
from lackpy.infer.understand.intent import parse

CODE = '''\
import os
from json import loads


def alpha(x):
    # TODO: the empty case
    return x


@cached
def beta(x, y):
    def inner(z):
        return z  # TODO inner
    return inner(x) + y

# TODO: a comment between two definitions is the first one's


class Gamma:
    def method(self):
        return 1


def delta():
    return 0
'''


def _answer(root, question: str):
    async def main():
        async with LackpyService(root, trust=False) as svc:
            return await svc.delegate(question, kit="readonly")

    return asyncio.run(main())


def _workspace(tmp_path):
    (tmp_path / "a.py").write_text(CODE)
    (tmp_path / "b.py").write_text('"""B."""\n\ndef only(x):\n    return x\n')
    return tmp_path


def test_definitions_kept_by_what_their_code_holds(tmp_path):
    root = _workspace(tmp_path)
    # alpha (its own TODO), beta (its inner function's TODO, and the comment after it), inner
    assert _answer(root, "which functions contain TODO").output == ["alpha", "beta", "inner"]
    assert _answer(root, "How many functions have a TODO in them?").output == 3
    assert _answer(root, "which functions don't mention TODO").output == ["method", "delta", "only"]
    assert _answer(root, "are there any classes containing TODO").output is False
    assert _answer(root, "which functions in a.py mention return").output == ["alpha", "beta", "inner", "method", "delta"]


def test_the_share_of_the_definitions_whose_code_holds_a_word(tmp_path):
    root = _workspace(tmp_path)
    assert _answer(root, "What percentage of the functions have a TODO comment?").output == 50.0  # 3 of 6
    assert _answer(root, "what fraction of functions mention TODO").output == 0.5


def test_files_kept_first_then_their_definitions(tmp_path):
    root = _workspace(tmp_path)
    assert _answer(root, "how many functions in files containing B. contain return").output == 1  # b.py's only


def test_definitions_containing_a_word_with_another_question_about_them_is_refused():
    assert parse("the longest name of the functions containing TODO").intent is None
    assert parse("how many functions containing TODO per file").intent is None
