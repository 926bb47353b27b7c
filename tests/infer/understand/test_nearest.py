"""A refusal helps: it names up to three questions the grammar understands that are nearest the one asked, ready to paste back.

Every question of the catalogue is served as it stands; a refused question
gets suggestions about what it was about (functions for a question about
functions' arguments), with its own file, directory, word or number in
them, each in double quotes, each one that parses and has a program.
"""

from __future__ import annotations

import re
import time

import pytest

from lackpy.infer.rules import closest, normalize, understand
from lackpy.infer.understand.compose import build
from lackpy.infer.understand.intent import parse
from lackpy.infer.understand.nearest import CATALOGUE, fill, nearest, specifics


def suggestions(question: str) -> tuple[str, ...]:
    """What the rules tier offers when it refuses ``question``."""
    parsed = understand(question)
    assert parsed.intent is None, question  # a refusal, or the test asks the wrong thing
    return closest(question, parsed)


def served(text: str) -> bool:
    parsed = parse(text)
    return parsed.intent is not None and bool(build(parsed.intent))


@pytest.mark.parametrize("question", CATALOGUE, ids=[q.text for q in CATALOGUE])
def test_every_catalogue_question_filled_with_its_defaults_parses_and_builds(question):
    text = fill(question, {})
    assert text is not None and "{" not in text and served(text), text


def test_the_catalogue_covers_the_grammar_once_each():
    texts = [q.text for q in CATALOGUE]
    assert 60 <= len(texts) <= 150
    assert len(set(texts)) == len(texts)


def test_a_question_about_functions_gets_questions_about_functions():
    offered = suggestions("Which functions are overridden in subclasses?")
    assert offered and "function" in offered[0] and sum("function" in s for s in offered) >= 2


def test_a_question_naming_a_file_gets_questions_naming_that_file():
    offered = suggestions("Who wrote src/pkg4/mod84.py?")
    assert offered and all("src/pkg4/mod84.py" in s for s in offered)


def test_a_question_in_a_directory_keeps_that_directory():
    offered = suggestions("how many functions are decorated in src/pkg3")
    assert offered and all("src/pkg3" in s for s in offered if "{" not in s) and any("function" in s for s in offered)
    offered = suggestions("Which files in src/pkg3 call retry_3?")
    assert offered[0] == "which files in src/pkg3 contain retry_3"
    assert all("src/pkg3" in s and "retry_3" in s for s in offered)


def test_a_question_about_classes_gets_questions_about_classes():
    offered = suggestions("Which classes are abstract?")
    assert offered and any("class" in s for s in offered)


def test_the_number_asked_is_kept():
    offered = suggestions("which modules have more than 25 functions or classes")
    assert "which python files have more than 25 functions" in offered


def test_a_word_not_understood_is_first_searched_for_in_the_question_itself():
    assert suggestions("count the cats in python files")[0] == "count the 'cats' in python files"
    assert suggestions("how many cats are there")[0] == "how many 'cats' are there"


def test_a_word_that_cannot_be_searched_for_is_left_out_with_what_it_leaves_dangling():
    assert suggestions("how many files in src/pkg3 are sorted")[0] == "how many files in src/pkg3"


def test_imports_get_questions_about_imports():
    assert all("import" in s for s in suggestions("Which modules import each other?"))  # never "import each", a module named each
    assert all("'" not in s for s in suggestions("what are the dependencies of the project, by version"))  # never "contain ','"


@pytest.mark.parametrize("question", [
    "Which classes are abstract?",
    "Which functions are overridden in subclasses?",
    "Who wrote src/pkg4/mod84.py?",
    "How many endpoints are registered?",
    "count the cats in python files",
    "Which test file has the second most tests in it?",
    "which lines of src/pkg4/mod84.py are comments",
    "who wrote src/pkg1/mod1.py",
])
def test_the_refusal_names_the_words_not_understood_and_up_to_three_questions_to_paste(question):
    parsed = understand(question)
    message = parsed.explain(closest(question, parsed))
    assert "did not understand " + ", ".join(repr(w) for w in parsed.unknown) in message
    said = message.split("questions I do understand that are near it: ", 1)[1]
    pasted = re.findall(r'"([^"]*)"', said)
    assert said == "; ".join(f'"{p}"' for p in pasted)  # each in double quotes, nothing else after
    assert 1 <= len(pasted) <= 3
    assert all(served(normalize(p)) for p in pasted)
    assert len({parse(p).intent for p in pasted}) == len(pasted)  # three different questions


def test_the_user_specifics_are_read_from_the_question_and_its_parse():
    question = "how many functions take arguments in src/pkg3 over 12 lines with 'cats'"
    found = specifics(question, parse(question))
    assert (found["dir"], found["n"], found["word"]) == ("src/pkg3", "12", "cats")
    question = "What is the docstring of src/pkg4/mod84.py"
    found = specifics(question, parse(question))
    assert (found["path"], found["pyfile"], found["filename"]) == ("src/pkg4/mod84.py", "src/pkg4/mod84.py", "mod84.py")


def test_the_suggestions_are_the_same_each_time_and_quick():
    questions = ["Which classes are abstract?", "Which functions are overridden in subclasses?",
                 "Who wrote src/pkg4/mod84.py", "which files in src/pkg3 call retry_3"]
    first = [nearest(q, parse(q)) for q in questions]
    parse.cache_clear()
    start = time.perf_counter()
    again = [nearest(q, parse(q)) for q in questions]
    assert (time.perf_counter() - start) / len(questions) < 0.05  # seconds per refusal, parses included
    assert again == first
