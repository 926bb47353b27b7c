"""A file named by its stem ("in mod100", "mod42's docstring"): its path when exactly one file has it, a question when several do."""

from __future__ import annotations

import asyncio

import pytest

from lackpy import LackpyService
from lackpy.errors import GenerationError
from lackpy.infer.stems import files_of_stem, stems, with_paths


def _answer(root, question: str):
    async def main():
        async with LackpyService(root, trust=False) as svc:
            return await svc.delegate(question, kit="readonly")

    return asyncio.run(main())


def test_the_words_that_stand_where_a_file_would():
    assert stems("What's the last function defined in mod100?") == ["mod100"]
    assert stems("What's mod42's docstring?") == ["mod42"]
    assert stems("how many TODOs in src/app.py") == []  # a path already


def test_a_stem_of_one_file_is_its_path(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod7.py").write_text('"""Seven."""\n\ndef a(x):\n    pass\n\ndef b(x):\n    # TODO\n    pass\n')
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "mod7.py").write_text("")  # hidden: never looked in
    assert with_paths("the last function in mod7", tmp_path) == ("the last function in pkg/mod7.py", {})
    assert _answer(tmp_path, "What's the last function defined in mod7?").output == "b"
    assert _answer(tmp_path, "What's mod7's docstring?").output == "Seven."
    assert _answer(tmp_path, "how many TODOs in mod7").output == 1


def test_a_stem_of_two_files_is_a_question_of_which(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "util.py").write_text("def f(x):\n    pass\n")
    with pytest.raises(GenerationError) as refused:
        _answer(tmp_path, "What's the last function defined in util?")
    assert "util is the name of 2 files (a/util.py, b/util.py): name the one you mean" in str(refused.value)


def test_a_directory_of_that_name_is_what_the_question_means(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.py").write_text("# TODO\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "src.md").write_text("TODO TODO\n")
    assert files_of_stem(tmp_path, "src") == []
    assert _answer(tmp_path, "how many TODOs in src").output == 1


def test_a_question_understood_as_said_is_left_as_said(tmp_path):
    (tmp_path / "python.md").write_text("TODO\n")
    (tmp_path / "a.py").write_text("# TODO\n# TODO\n")
    assert _answer(tmp_path, "count TODO in python files").output == 2


def test_files_named_after_a_folder_are_the_files_in_it(tmp_path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "big.yaml").write_text("a: 1\n" * 50)
    (tmp_path / "config" / "small.json").write_text("{}\n")
    (tmp_path / "big_elsewhere.txt").write_text("x" * 5000)
    assert _answer(tmp_path, "Which config file is the largest?").output["path"] == "config/big.yaml"
    assert _answer(tmp_path, "Is any config file longer than 40 lines?").output is True


def test_a_folder_said_as_a_noun_is_its_files(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "deploy.sh").write_text("echo hi\n")
    (tmp_path / "big.txt").write_text("x" * 4000)
    assert _answer(tmp_path, "Is any of the scripts over 1 KB?").output is False
