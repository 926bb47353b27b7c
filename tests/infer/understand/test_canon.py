"""The canonical form: each everyday wording becomes the one the grammar reads, and nothing with another reading is touched."""

from __future__ import annotations

import pytest

from lackpy.infer.understand.canon import TABLE, canonical
from lackpy.infer.understand.intent import parse


@pytest.mark.parametrize("asked, canon", [
    ("How many modules are there?", "How many python files are there?"),
    ("Which module has the most TODOs?", "Which python file has the most TODOs?"),
    ("Which files are TODO-free?", "Which files are without TODO?"),
    ("Which package has the most TODO-free modules?", "Which package has the most python files without TODO?"),
    ("List everything under src", "List all files under src"),
    ("What are the 3 largest python files, largest first?", "What are the 3 largest python files?"),
    ("the 2 smallest files, smallest first", "the 2 smallest files"),
    ("the 5 longest files in order", "the 5 longest files"),
    ("which modules does the code import", "which imported modules"),  # the modules it imports, never its files
    ("How many distinct modules are imported?", "How many imported modules?"),
])
def test_an_everyday_wording_becomes_its_canonical_form(asked, canon):
    assert canonical(asked) == canon


@pytest.mark.parametrize("asked", [
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


# -- what the everyday set showed: the README said without its extension, and words that name a part of code ------


def _answer(root, question: str):
    import asyncio

    from lackpy import LackpyService

    async def main():
        async with LackpyService(root, trust=False) as svc:
            return await svc.delegate(question, kit="readonly")

    return asyncio.run(main())


def test_the_readme_is_the_one_the_workspace_has(tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n\nStatus: draft\n")
    result = _answer(tmp_path, "How many lines does the README have?")
    assert result.success and result.output == 3 and "README.md" in result.program


def test_two_readmes_are_a_question_of_which_one(tmp_path):
    (tmp_path / "README.md").write_text("a\n")
    (tmp_path / "README.rst").write_text("b\n")
    from lackpy.errors import GenerationError

    with pytest.raises(GenerationError, match="the workspace has README.md and README.rst: name the one you mean"):
        _answer(tmp_path, "How many lines does the README have?")


@pytest.mark.parametrize("question, said", [
    ("Which files contain a function called parse_x?", "to search for the word, quote it"),
])
def test_a_question_with_two_readings_is_refused_saying_what_to_ask(question, said):
    parsed = parse(question)
    assert parsed.intent is None and any(said in problem for problem in parsed.problems)


def test_a_quoted_word_that_names_a_part_of_code_is_searched_for():
    assert parse('files containing "docstring"').intent.describe() == "the files, containing 'docstring'"


@pytest.mark.parametrize("sizes, median", [([1, 3, 5, 10], 4.0), ([2, 9, 4], 4), ([], None)])
def test_a_median_per_file_is_the_middle_value_or_the_mean_of_the_two_middle_ones(tmp_path, sizes, median):
    for index, lines in enumerate(sizes):
        (tmp_path / f"m{index}.py").write_text("x = 1\n" * lines)
    (tmp_path / "notes.txt").write_text("y\n" * 100)  # not a python file
    result = _answer(tmp_path, "What's the median number of lines per python file?")
    assert result.success and result.output == median, (result.output, result.program)


def test_an_ordinal_asks_for_that_place_of_the_ranking(tmp_path):
    for name, size in [("a.py", 10), ("b.py", 30), ("c.py", 20), ("d.txt", 25)]:
        (tmp_path / name).write_text("x" * size)
    second = _answer(tmp_path, "Which is the second largest file?")
    assert second.success and second.output == {"path": "d.txt", "chars": 25}, second.output
    third = _answer(tmp_path, "What's the third largest module?")
    assert third.success and third.output == {"path": "a.py", "chars": 10}, third.output
    beyond = _answer(tmp_path, "the fifth smallest python file")
    assert beyond.success and beyond.output is None  # three python files: there is no fifth


@pytest.mark.parametrize("question, expected", [
    ("how many lines are in the longest file", 5),           # the file with the most lines: its lines
    ("How many lines does the shortest module have?", 1),
    ("How big is the largest module?", 40),                  # its size in bytes
    ("how many lines does the largest file have", 2),        # ranked by size, asked for lines
])
def test_a_figure_of_the_file_a_ranking_puts_first(tmp_path, question, expected):
    (tmp_path / "a.py").write_text("x\n" * 5)                # 10 bytes, 5 lines
    (tmp_path / "b.py").write_text("y = 1\n")                # 6 bytes, 1 line
    (tmp_path / "c.py").write_text("z" * 19 + "\n" + "w" * 19 + "\n")  # 40 bytes, 2 lines
    result = _answer(tmp_path, question)
    assert result.success and result.output == expected, (result.output, result.program)


def test_a_figure_of_several_ranked_files_is_still_refused():
    assert parse("how many lines do the 3 largest files have").intent is None


def test_where_a_name_is_defined_is_the_file_with_its_def_or_class_line_whole(tmp_path):
    (tmp_path / "a.py").write_text("def parse_x2(v):\n    return v\n")     # a longer name that starts the same
    (tmp_path / "b.py").write_text("x = 1\n\n\ndef parse_x(v):\n    return v\n")
    (tmp_path / "c.py").write_text("class Parser:\n    pass\n")
    assert _answer(tmp_path, "Where is `parse_x` defined?").output == ["b.py"]
    assert _answer(tmp_path, "where's Parser defined?").output == ["c.py"]
    assert _answer(tmp_path, "where is nothing_here defined").output == []


def test_the_longest_or_shortest_line_of_a_file_or_of_the_files(tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n\nStatus: draft\n")
    (tmp_path / "a.py").write_text("x = 1\n    # TODO: a longer line than any\n")
    assert _answer(tmp_path, "What's the longest line in the README?").output == "Status: draft"
    assert _answer(tmp_path, "the shortest line in a.py").output == "x = 1"
    assert _answer(tmp_path, "what is the longest line").output == "    # TODO: a longer line than any"
    assert parse("the longest lines").intent is None  # how many? refused, not guessed
    assert parse("What's the longest line in a.py?").intent.describe() == "the longest line in a.py"


def test_which_files_define_a_named_function_or_class_are_those_holding_its_line(tmp_path):
    (tmp_path / "a.py").write_text("def parse_x2(v):\n    return v\n")
    (tmp_path / "b.py").write_text("def parse_x(v):\n    return v\n")
    (tmp_path / "c.py").write_text("class Parser:\n    pass\n\ndef parse_x(v):\n    return v\n")
    assert _answer(tmp_path, "Which files define a function called parse_x?").output == ["b.py", "c.py"]
    assert _answer(tmp_path, "which file defines a class named Parser").output == ["c.py"]
    assert parse("Which file defines a function?").intent == parse("python files with at least 1 function").intent  # any function


def test_distinct_names_of_definitions_are_counted_and_listed_once_each(tmp_path):
    (tmp_path / "a.py").write_text("def parse(x):\n    pass\n\ndef render(x):\n    pass\n")
    (tmp_path / "b.py").write_text("def parse(x):\n    pass\n")
    assert _answer(tmp_path, "How many distinct function names are there?").output == 2
    assert _answer(tmp_path, "how many functions are there").output == 3  # without 'distinct', every definition
    assert _answer(tmp_path, "list the unique function names").output == ["parse", "render"]
    assert parse("how many distinct files").intent is None  # distinct what? refused, not ignored


def test_the_first_or_last_definition_of_a_file_by_its_name(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n\ndef alpha(x):\n    pass\n\n\ndef beta(x):\n    pass\n")
    (tmp_path / "empty.py").write_text("x = 1\n")
    assert _answer(tmp_path, "What's the first function in a.py?").output == "alpha"
    assert _answer(tmp_path, "what is the last function defined in a.py").output == "beta"
    assert _answer(tmp_path, "the first function in empty.py").output is None
    assert parse("the first function in the code base").intent is None  # first by what order? refused


def test_the_longest_or_shortest_name_of_a_definition_and_every_name_that_ties(tmp_path):
    (tmp_path / "a.py").write_text("def parse_everything(x):\n    pass\n\ndef ab(x):\n    pass\n\ndef cd(x):\n    pass\n")
    assert _answer(tmp_path, "What's the longest function name?").output == "parse_everything"
    assert _answer(tmp_path, "the shortest function name").output == ["ab", "cd"]  # a tie: both, not one of them
    assert parse("the longest name").intent is None  # the name of what? refused


def test_lines_kept_by_their_length_and_the_files_that_have_such_a_line(tmp_path):
    (tmp_path / "a.py").write_text("short\n" + "x" * 50 + "\n" + "y" * 90 + "\n")
    (tmp_path / "b.py").write_text("tiny\n" + "z" * 40 + "\n")
    (tmp_path / "c.md").write_text("w" * 45 + "\n")
    assert _answer(tmp_path, "Is any line longer than 80 characters?").output is True
    assert _answer(tmp_path, "is any line longer than 100 characters").output is False
    assert _answer(tmp_path, "how many lines are longer than 80 characters").output == 1
    assert _answer(tmp_path, "how many lines are longer than 42 characters").output == 3
    assert _answer(tmp_path, "Which modules have lines longer than 45 characters?").output == ["a.py"]
    assert sorted(_answer(tmp_path, "which files have lines longer than 44 characters").output) == ["a.py", "c.md"]
    assert parse("list lines longer than 80 characters").intent is None  # which lines, in what form? refused


def test_how_long_the_longest_line_is(tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n\nStatus: draft\n")
    (tmp_path / "a.py").write_text("x = 1\n" + "y" * 33 + "\n")
    assert _answer(tmp_path, "How long is the longest line in the code base?").output == 33
    assert _answer(tmp_path, "how long is the longest line in the README").output == len("Status: draft")
    assert _answer(tmp_path, "how many characters is the shortest line in a.py").output == 5


def test_the_average_or_median_length_of_the_names_of_definitions(tmp_path):
    (tmp_path / "a.py").write_text("def ab(x):\n    pass\n\ndef abcd(x):\n    pass\n\ndef abcdefghi(x):\n    pass\n")
    assert _answer(tmp_path, "What's the average length of a function name?").output == 5.0  # (2 + 4 + 9) / 3
    assert _answer(tmp_path, "the median length of function names").output == 4
    assert parse("the average length of a name").intent is None  # the name of what? refused


@pytest.mark.parametrize("asked, meant", [
    ("How many Python files does the code base have?", "how many python files are there"),
    ("What's the longest function name in the code base?", "the longest function name"),
    ("which files in the repo mention TODO", "which files mention TODO"),
    ("how many times does the code base mention TODO", "how many times is TODO mentioned"),
    ("how many times does README.md mention draft?", "how many times is draft mentioned in README.md"),
    ("On average, roughly how many lines long is a module?", "average number of lines per python file"),
    ("How many lines are there in all the Python files put together?", "how many lines in python files"),
    ("Which modules don't have any functions in them?", "python files with exactly 0 functions"),
    ("which files have no classes", "python files with exactly 0 classes"),
    ("Which files define a class?", "python files with at least 1 class"),
])
def test_everyday_wordings_of_the_code_base_and_its_parts(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_a_searched_code_base_is_left_a_word():
    assert parse("files containing the project").intent.filters[0].word == "project"


def test_the_length_of_the_longest_name_and_whether_a_name_is_defined(tmp_path):
    (tmp_path / "a.py").write_text("def parse_everything(x):\n    pass\n\ndef ab(x):\n    pass\n")
    assert _answer(tmp_path, "How long is the longest function name?").output == len("parse_everything")
    assert _answer(tmp_path, "how many characters is the shortest function name").output == 2
    assert _answer(tmp_path, "Is there a function called main anywhere?").output is False
    assert _answer(tmp_path, "is there a function named ab").output is True


@pytest.mark.parametrize("asked, meant", [
    ("python files in tests", "python files under tests/"),
    ("count TODO outside tests", "count TODO outside tests/"),
    ("which modules import from json", "which python files import json"),
])
def test_a_tests_folder_and_an_import_from(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_test_files_are_still_files_named_for_tests():
    assert parse("how many test files are there").intent.files.names == ("test_*", "*_test.*")


def test_definitions_of_files_kept_by_a_condition_are_looped_over_by_name(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a_very_long_name(x):\n    pass\n")
    (tmp_path / "a.py").write_text("def short(x):\n    pass\n")
    assert _answer(tmp_path, "What's the longest function name outside the tests?").output == "short"
    assert _answer(tmp_path, "How many test functions are there in total?").output == 1
    assert _answer(tmp_path, "Do the tests have any FIXMEs?").output is False


@pytest.mark.parametrize("asked, meant", [
    ("List the markdown files in the docs folder, largest first.", "markdown files in docs sorted by size descending"),
    ("list python files, shortest first", "python files sorted by length ascending"),
    ("How many test functions are in the test suite?", "how many functions named test_* are in tests"),
    ("How many functions in src/a.py start with get_?", "how many functions starting with get_ in src/a.py"),
])
def test_an_order_said_last_and_names_said_after_a_place(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


@pytest.mark.parametrize("asked, meant", [
    ("List every class in src", "list the classes in src"),
    ("What's the median number of lines per test file?", "median number of lines per file in test files"),
    ("Which file mentions FIXME the most?", "which file has the most FIXME"),
    ("Which functions call print?", 'which functions contain "print("'),
    ("How big is the docs folder in bytes?", "how many bytes are in docs"),
])
def test_a_class_said_in_the_singular_and_more_everyday_orders(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_a_searched_class_is_still_the_word():
    assert parse("how many times does class appear").intent.word == "class"


def test_the_file_with_the_longest_line_and_whether_every_file_passes_a_comparison(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" * 30)  # the most lines, short ones
    (tmp_path / "b.py").write_text("y = '" + "z" * 90 + "'\n")  # one line, the longest
    assert _answer(tmp_path, "Which file has the longest line?").output["path"] == "b.py"
    assert _answer(tmp_path, "Are all the modules under 500 lines?").output is True
    assert _answer(tmp_path, "are all python files under 10 lines").output is False
    assert _answer(tmp_path, "What does b.py import?").output == []
    assert parse("What's the total size of the Python files in kilobytes?").intent is None  # never a folder named kilobytes


@pytest.mark.parametrize("asked, meant", [
    ("Where's the Cart class?", 'which files contain "def Cart(" or "class Cart(" or "class Cart:"'),
    ("Which file defines Cart?", 'which file contains "def Cart(" or "class Cart(" or "class Cart:"'),
    ("How many function names start with get?", "how many functions start with get"),
    ("What's the average module size in lines?", "average number of lines per python file"),
    ("Which modules lack a docstring?", "python files without a docstring"),
    ("What does the first line of README.md say?", "what is the first line of README.md"),
    ("List the files in the scripts folder.", "list files under scripts/"),
])
def test_where_a_class_is_and_other_everyday_wordings(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_a_word_of_the_grammar_can_be_a_name_and_where_alone_is_still_a_search():
    assert parse("how many functions start with fetch").intent.def_names == ("fetch*",)
    assert parse("where is TODO").intent.filters[0].word == "TODO"
    assert parse("which files define functions").intent is None  # which functions? refused


def test_a_file_named_without_its_folder_is_the_one_file_of_that_name(tmp_path):
    (tmp_path / "shop" / "api").mkdir(parents=True)
    (tmp_path / "shop" / "api" / "routes.py").write_text("def checkout(x):\n    a = 1\n    return a\n\ndef ok(x):\n    pass\n")
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "api" / "__init__.py").write_text("")
    assert _answer(tmp_path, "What's the longest function in routes.py?").output == "checkout"
    from lackpy.errors import GenerationError
    with pytest.raises(GenerationError, match="__init__.py is the name of 2 files"):
        _answer(tmp_path, "how many lines in __init__.py")


def test_a_count_against_a_number_one_file_against_a_number_and_the_last_method_of_a_class(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "routes.py").write_text("class Order:\n    def a(self):\n        pass\n\n    def z(self):\n        pass\n" + "x = 1\n" * 10)
    (tmp_path / "README.md").write_text("short\n")
    assert _answer(tmp_path, "Is routes.py longer than 250 lines?").output is False
    assert _answer(tmp_path, "is shop/routes.py longer than 10 lines").output is True
    assert _answer(tmp_path, "Does the repo have more than 50 files?").output is False
    assert _answer(tmp_path, "are there at least 2 files").output is True
    assert _answer(tmp_path, "What's the last method defined in the Order class?").output == "z"


def test_the_share_of_the_files_of_a_type_and_markers_said_in_capitals_only(tmp_path):
    for name in ("a.py", "b.py", "c.md", "d.json"):
        (tmp_path / name).write_text("x\n")
    assert _answer(tmp_path, "What percentage of all the files in the repo are .py files?").output == 50.0
    assert _answer(tmp_path, "what fraction of the files are markdown files").output == 0.25
    # "functions or methods" are definitions, never two markers searched for
    assert parse("Are there any functions or methods whose names start with is_? which ones?").intent.def_names == ("is_*",)


@pytest.mark.parametrize("asked, meant", [
    ("How many lines in the whole repo go over 100 characters?", "how many lines are longer than 100 characters"),
    ("Which function in the shop package has the longest name?", "what is the longest function name in shop"),
    ("What modules does src/a.py pull in?", "which modules does src/a.py import"),
    ("On average how big is a page in docs/, in bytes?", "average number of bytes per markdown file in docs"),
    ("How many bytes does the config folder take up altogether?", "how many bytes are in config"),
    ("Which folder has the most files sitting directly in it?", "which folder has the most files"),
    ("Which error classes inherit straight from ApiError?", "which classes inherit from ApiError"),
])
def test_wordings_the_ninth_set_showed(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_exception_classes_alone_are_refused_not_read_as_every_class():
    assert parse("What exception classes does the code base define?").intent is None


@pytest.mark.parametrize("asked, meant", [
    ("how many second-level headings (the ## ones) are there across all the docs pages?", 'how many lines starting with "## " are in docs markdown files'),
    ("What do the shell scripts add up to in bytes, all together?", "how many bytes are in shell scripts"),
    ("Which files have got FIXME comments in them?", "which files contain FIXME"),
    ("What's the smallest file that actually has something in it?", "the smallest file with more than 0 bytes"),
    ("Which class comes first in src/a.py?", "what is the first class in src/a.py"),
    ("Which directory has the most files sitting directly in it, not counting subfolders?", "which directory has the most files"),
    ("What's the longest line in src/a.py? just paste it", "the longest line in src/a.py"),
])
def test_wordings_the_tenth_set_showed(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_files_ranked_by_their_import_statements(tmp_path):
    (tmp_path / "a.py").write_text("import os\nimport sys\nfrom json import loads\n")
    (tmp_path / "b.py").write_text("import os\n")
    assert _answer(tmp_path, "Which Python file has the most import statements?").output == {"path": "a.py", "import statements": 3}
    assert _answer(tmp_path, "which module has the fewest imports").output["path"] == "b.py"


@pytest.mark.parametrize("asked, meant", [
    ("what's the 3rd longest module under shop/ if you count lines?", "the third longest python file under shop by lines"),
    ("What's the second biggest file in the repo, size-wise?", "the second biggest file by size"),
    ("Which test file is the second biggest, byte-wise?", "which test file is the second biggest by bytes"),
    ("How many lines of Python are in the tests folder, all told?", "how many lines of python are in tests"),
    ("What does src/cli.py import? Just the module names please", "which modules does src/cli.py import"),
    ("how many yaml files have we got in config?", "how many yaml files are there in config"),
    ("Smallest python file that isn't completely empty?", "the smallest python file with more than 0 bytes"),
    ("whats the first method on the Cart class", "what is the first method of class Cart"),
    ("any functions that start with serialize? which ones?", "which functions start with serialize"),
    ("How long are the docs pages on average, in lines?", "average number of lines of the markdown files in docs"),
    ("how many classes live in shop/models?", "how many classes are in shop/models"),
])
def test_wordings_the_eleventh_and_twelfth_sets_showed(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_count_said_of_the_ranking_is_no_figure():
    assert parse("what's the 3rd longest module if you count lines?").intent.value is None


@pytest.mark.parametrize("asked, meant", [
    ("Which python file is the second longest, going by number of lines?", "the second longest python file by lines"),
    ("how many markdown files are sitting in the docs folder?", "how many markdown files are in docs"),
    ("What's the combined size of everything under config/, in bytes?", "the total size of all files under config/ in bytes"),
    ("What's the very first function in src/a.py?", "what is the first function in src/a.py"),
    ("In the shop package (not the tests), which function has the longest name?", "the longest function name in shop outside tests"),
    ("Which file pulls in the requests library?", "which python files import requests"),
    ("Does anything in the project use the requests library?", "do any python files import requests"),
    ("Which function has the most lines of code in it?", "which function is the longest"),
    ("Which class is the longest, in lines?", "which class is the longest"),
])
def test_wordings_the_thirteenth_and_fourteenth_sets_showed(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_lines_that_live_in_a_kind_of_file_are_refused_never_read_as_a_folder():
    assert parse("Roughly what percentage of all the lines in the repo live in Python files?").intent is None


def test_the_method_of_a_named_class_that_takes_the_most_arguments(tmp_path):
    (tmp_path / "m.py").write_text("class User:\n    def a(self, x):\n        pass\n\n\nclass Other:\n    def b(self, x, y, z):\n        pass\n")
    assert _answer(tmp_path, "Which method on User takes the most arguments?").output == "a"
    assert _answer(tmp_path, "Are any of the files bigger than 10 KB?").output is False


@pytest.mark.parametrize("asked, meant", [
    ("how many python files are there outside src/pkg3 and src/pkg4", "how many python files are there outside src/pkg3 and outside src/pkg4"),
    ("What are the top 3 folders by number of function definitions?", "the top 3 folders by number of functions"),
    ("Which folder takes up the most bytes?", "which folder has the most bytes"),
    ("Which files live outside the src folder?", "which files are outside src"),
    ("how big are the files in src/pkg6 in bytes", "how many bytes are in files in src/pkg6"),
    ("how many bytes do the files in src/pkg1 take up in total", "how many bytes are in files in src/pkg1"),
])
def test_more_wordings_of_folders_and_sizes(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_a_word_for_handlers_inside_a_path_is_left_as_it_is():
    assert parse("how many handlers in shop/api/routes.py are decorated with @require_auth?").intent.files.path == "shop/api/routes.py"


def test_a_pronoun_is_never_searched_for_and_scripts_alone_are_no_kind_of_file():
    assert parse("If I add up every line in the tests/ folder, what do I get?").intent.filters == ()
    assert parse("Is any of the scripts over 1 KB?").intent is None  # the scripts folder, or files of which language?
    assert parse("Which modules in the shop package import threading?").intent.files.ext == "*.py"


def test_the_share_of_the_bytes_in_files_of_a_type(tmp_path):
    (tmp_path / "a.py").write_text("x" * 300)
    (tmp_path / "b.md").write_text("y" * 100)
    assert _answer(tmp_path, "what percentage of the repo (by bytes) is python?").output == 75.0
    assert _answer(tmp_path, "What share of the project's total bytes is Python?").output == 0.75


@pytest.mark.parametrize("asked, meant", [
    ("In the shop package, how many module-level functions take zero arguments?", "how many top-level functions in shop take no arguments"),
    ("does anything in the code actually import requests?", "do any python files import requests"),
    ("Is yaml imported anywhere in the Python code?", "do any python files import yaml"),
    ("Roughly how much does the docs folder weigh? Give me total bytes.", "how many bytes are in docs"),
    ("Which file has the longest single line in it?", "which file has the longest line"),
    ("Are there any FIXMEs lurking in the tests?", "are there any FIXMEs in the tests"),
    ("First class you hit in src/a.py?", "what is the first class in src/a.py"),
    ("Does any of the test modules go over 200 lines?", "do any of the test python files have more than 200 lines"),
    ("Can you paste me the longest line in src/a.py?", "show me the longest line in src/a.py"),
    ("How many of the handlers in src/a.py are behind @require_auth?", "how many of the functions in src/a.py are decorated with @require_auth"),
])
def test_wordings_the_seventeenth_and_eighteenth_sets_showed(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


@pytest.mark.parametrize("asked, meant", [
    ("Which file comes in 3rd for size?", "which file is the 3rd largest"),
    ("which module under shop/ comes third if I rank them by number of lines?", "the third largest python file under shop/ by lines"),
    ("How many TODO comments are left in the shop package?", "how many TODO comments are in the shop package"),
    ("Is there an Invoice class somewhere?", "are there any classes named Invoice"),
    ("Does any file in shop/ run to more than 250 lines?", "does any file in shop/ have more than 250 lines"),
    ("Got any idea how many .py files run past 50 lines?", "how many .py files have more than 50 lines"),
    ("shop/services - how many classes does it have?", "how many classes are in shop/services"),
    ("Count the functions in shop/utils for me, methods included.", "count the functions in shop/utils"),
    ("On average how long (in lines) is a Python file in tests?", "on average how many lines is a python file in tests"),
    ("Total size of everything in config? bytes please", "total size of all files in config in bytes"),
])
def test_wordings_of_the_last_sets_refusals(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


@pytest.mark.parametrize("asked, meant", [
    ("How many markdown files are there in the repo, README included?", "how many markdown files are there"),
    ("Line length check: how many lines anywhere in the repo go past 100 chars?", "how many lines are longer than 100 characters"),
    ("Are there any TODOs sitting outside of shop/?", "are there any TODOs outside shop/"),
    ("How many different modules does src/a.py import from?", "how many modules does src/a.py import"),
    ("does anything in shop/utils import from the models package?", "do any files in shop/utils import models"),
    ("How many of Order's methods have docstrings?", "how many methods of class Order have a docstring"),
    ("How many classes extend Exception directly?", "how many classes extend Exception"),
    ("How many .py files are bigger than 2,000 bytes?", "how many .py files are bigger than 2000 bytes"),
])
def test_wordings_of_the_nineteenth_and_twentieth_sets(asked, meant):
    assert parse(asked).intent is not None and parse(asked).intent == parse(meant).intent, asked


def test_a_package_is_named_by_a_whole_part_of_its_dotted_path(tmp_path):
    (tmp_path / "shop" / "utils").mkdir(parents=True)
    (tmp_path / "shop" / "utils" / "a.py").write_text("from shop.models.user import User\n")
    (tmp_path / "shop" / "utils" / "b.py").write_text("import modelsx\n")
    assert _answer(tmp_path, "which files in shop/utils import from the models package?").output == ["shop/utils/a.py"]


def test_the_average_parameters_of_top_level_functions(tmp_path):
    (tmp_path / "m.py").write_text("def a(x, y):\n    pass\n\nclass C:\n    def m(self, p, q, r, s):\n        pass\n\ndef b():\n    pass\n")
    assert _answer(tmp_path, "On average how many params does a top-level function take?").output == 1.0
