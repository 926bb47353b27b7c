"""The rules tier: every kind of question's program runs for real on a known workspace, on every kit that can serve it.

The many ways of asking each question are in understand/test_intents.py; this file
holds the tier's contract: details, kits and aliases, refusals and their
messages, needs, globs, escaping, and speed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lackpy.errors import InferenceError
from lackpy.infer.base import Request
from lackpy.infer.understand.intent import NotUnderstood, parse
from lackpy.infer.rules import EXAMPLES, RulesTier, anchored, needs, programs
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.validator import validate
from lackpy.plugins import populate
from lackpy.run.runner import run_program

FILES = {
    "src/app.py": "# TODO: one\ndef main():\n    return 'TODO: two'\n",  # 47 chars, 3 lines
    "src/pkg/util.py": "def helper():\n    return 1  # TODO: three\n",  # 42 chars, 2 lines
    "README.md": "# Demo\nRun a.b here.\nNot axb.\n",  # 30 chars, 3 lines, 7 words
    "docs/guide.md": "# Guide\n\nfoo bar foo\nfoo\n",  # 25 chars, 4 lines
    "setup.cfg": "[metadata]\nname = demo\n",  # 23 chars, 2 lines
}
PY = ["src/app.py", "src/pkg/util.py"]
TODO_LINES = ["src/app.py:1: # TODO: one", "src/app.py:3:     return 'TODO: two'", "src/pkg/util.py:2:     return 1  # TODO: three"]

# intent -> (detail, output on the readonly kit)
EXPECTED = {
    "read README.md": ("read-file", FILES["README.md"]),
    "show the contents of src/app.py": ("read-file", FILES["src/app.py"]),
    "cat setup.cfg": ("read-file", FILES["setup.cfg"]),
    "what's in README.md?": ("read-file", FILES["README.md"]),
    "show me the file setup.cfg": ("read-file", FILES["setup.cfg"]),
    "list python files": ("list-files", PY),
    "find all *.md files": ("list-files", ["README.md", "docs/guide.md"]),
    "find files matching src/**/*.py": ("list-files", PY),
    "list .py files in src": ("list-files", PY),
    "list markdown files under docs/": ("list-files", ["docs/guide.md"]),
    "show me all files in the src directory": ("list-files", PY),
    "how many python files are there": ("count-files", 2),
    "count markdown files": ("count-files", 2),
    "how many lines in README.md": ("count-lines-file", 3),
    "how many lines does src/pkg/util.py have": ("count-lines-file", 2),
    "count lines in python files": ("count-lines", 5),
    "how many lines of python code in src": ("count-lines", 5),
    "count lines": ("count-lines", 14),
    "how many words in README.md": ("count-words", 7),
    "largest files": ("largest-files", [
        {"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}, {"path": "README.md", "chars": 30},
        {"path": "docs/guide.md", "chars": 25}, {"path": "setup.cfg", "chars": 23},
    ]),
    "5 largest python files": ("largest-files", [{"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}]),
    "show the biggest two files": ("largest-files", [{"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}]),
    "what is the largest file?": ("largest-files", {"path": "src/app.py", "chars": 47}),
    "longest files in src": ("longest-files", [{"path": "src/app.py", "lines": 3}, {"path": "src/pkg/util.py", "lines": 2}]),
    "top 2 longest files": ("longest-files", [{"path": "docs/guide.md", "lines": 4}, {"path": "README.md", "lines": 3}]),
    "which file has the most TODOs": ("files-by-matches", {"path": "src/app.py", "matches": 2}),
    "which files contain TODO": ("files-containing", PY),
    "files containing helper in python files": ("files-containing", ["src/pkg/util.py"]),
    "find files that mention bar": ("files-containing", ["docs/guide.md"]),
    "which files don't mention TODO": ("files-without", ["README.md", "docs/guide.md", "setup.cfg"]),
    "how many python files have no TODOs": ("count-files-without", 0),
    "does README.md mention Demo": ("any-files-containing", True),
    "grep TODO": ("grep-lines", TODO_LINES),
    "grep TODO in src/pkg": ("grep-lines", TODO_LINES[2:]),
    "search for foo with line numbers": ("grep-lines", ["docs/guide.md:3: foo bar foo", "docs/guide.md:4: foo"]),
    "show lines matching def main": ("grep-lines", ["src/app.py:2: def main():"]),
    "grep a.b": ("grep-lines", ["README.md:2: Run a.b here."]),  # literal: "axb" does not match
    "where is helper used": ("grep-lines", ["src/pkg/util.py:1: def helper():"]),
    "how many lines contain TODO": ("count-matching-lines", 3),
    "count TODOs": ("count-markers", 3),
    "count TODO in python files": ("count-markers", 3),
    "how many FIXMEs are there?": ("count-markers", 0),
    "count occurrences of foo in *.md": ("count-occurrences", 3),
    "how many times does foo appear in docs": ("count-occurrences", 3),
    'count "foo bar"': ("count-occurrences", 1),
    "TODOs per file in src": ("count-markers-per-file", {"src/app.py": 2, "src/pkg/util.py": 1}),
    "how many functions are defined": ("count-definitions", 2),
    "list the functions in src/app.py": ("list-definitions", ["main"]),
    "how many directories are there": ("count-dirs", 3),
    "list src": ("list-dir", ["app.py", "pkg"]),
    "ls": ("list-dir", ["README.md", "docs", "setup.cfg", "src"]),
    "what's in docs": ("list-dir", ["guide.md"]),
    "list the current directory": ("list-dir", ["README.md", "docs", "setup.cfg", "src"]),
    "show the contents of docs": ("list-dir", ["guide.md"]),
    "list the src directory": ("list-dir", ["app.py", "pkg"]),
}

#: Intents the tier proposes nothing for: not about files, or not understood.
NOT_RULES = [
    "refactor the parser",
    "write a haiku",
    "explain this code",
    "fix the bug in src/app.py",
    "delete all python files",
    "rename foo to bar",
    "summarize README.md",
    "search the web for lackpy",
    "count to ten",
    "read the docs",
    "find the bug",
    "show me the money",
    "what time is it",
    "list the pros and cons",
    "count TODO files",
    "how many lines of code are there",  # which files are code? a type must be named
    "count TODO or FIXME",  # two words' occurrences at once
    "count a.b",  # count what in the file a.b?
    "grep " + "x " * 200,  # too long to be an everyday request
]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rules")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def kit(root):
    """``kit(spec)``: a resolved kit over the workspace."""
    toolbox = Toolbox(str(root))
    populate(toolbox)
    return lambda spec: resolve_kit(spec, toolbox)


def serve(root, kit, intent):
    """(proposal, output) on ``kit``; the program must validate and run."""
    proposal = RulesTier(workspace=root).propose(Request(intent, kit, workspace=root))
    if proposal is None:
        return None, None
    assert validate(proposal.program, kit.names).valid, proposal.program
    result = run_program(proposal.program, kit, mode="inprocess")
    assert result.success, (proposal.program, result.error)
    return proposal, result.output


def proposes_nothing(root, kit, intent) -> bool:
    try:
        return RulesTier(workspace=root).propose(Request(intent, kit, workspace=root)) is None
    except NotUnderstood:
        return True


@pytest.mark.parametrize("intent", EXPECTED)
def test_each_intent_runs_to_its_result(root, kit, intent):
    detail, output = EXPECTED[intent]
    proposal, result = serve(root, kit("readonly"), intent)
    assert proposal.detail.split(": ")[0] == f"rule {detail}"
    assert result == output


@pytest.mark.parametrize("spec", ["filesystem", "readonly", ["grep"]])
def test_count_todos_on_every_kit_that_can(root, kit, spec):
    assert serve(root, kit(spec), "count TODOs")[1] == 3


def test_a_marker_is_counted_as_a_word_on_its_lines_as_the_readme_program_counts_it(tmp_path):
    # "TODOs" in prose and "MASTODON" are not TODO markers; a line marked twice is one marked line, as grep counts it
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "notes.txt").write_text("two TODOs left\nMASTODON\nTODO: a TODO twice\n# TODO(ann) last\n")
    toolbox = Toolbox(str(tmp_path))
    populate(toolbox)
    root, kit = tmp_path, lambda spec: resolve_kit(spec, toolbox)
    proposal, output = serve(root, kit("readonly"), "count TODOs")
    assert proposal.program == """len([hit for hit in grep('\\\\bTODO\\\\b', glob='**/*', max_hits=100000) for f in [hit["path"]] if not hit.get("truncated")])"""
    assert output == 3 + 2
    hits = serve(root, kit("readonly"), "grep TODO")[1]
    assert len([hit for hit in hits if hit.startswith("notes.txt")]) == 4  # a searched word is still any occurrence


@pytest.mark.parametrize("spec", [["find_files", "read_file"], ["list_dir"], ["write_file", "edit_file"], ["read_file"], "none"])
def test_a_kit_without_the_tools_gets_no_program_and_is_told_which_it_lacks(root, kit, spec):
    with pytest.raises(InferenceError) as info:
        RulesTier(workspace=root).propose(Request("count TODOs", kit(spec), workspace=root))
    assert "understood the number of TODO markers (lines with the word TODO)" in str(info.value)
    assert "it needs grep" in str(info.value)
    with pytest.raises(InferenceError) as info:  # counting a word's occurrences needs whole texts: grep's lines are cut at 500 characters
        RulesTier(workspace=root).propose(Request("count occurrences of foo", kit(["grep"]), workspace=root))
    assert "find_files and read_file" in str(info.value)


@pytest.mark.parametrize(
    "intent",
    ["which files contain TODO", "grep TODO", "files containing foo in markdown files", "how many lines contain foo",
     "how many functions are defined", "does any file mention bar", "show lines containing TODO in src/app.py"],
)
def test_every_variant_gives_the_same_result(root, kit, intent):
    variants = programs(intent)
    assert len(variants) == 2
    outputs = [serve(root, kit(list(tools)), intent)[1] for tools, _body, _values in variants]
    assert outputs[0] == outputs[1] == serve(root, kit("readonly"), intent)[1]


def test_programs_call_tools_by_the_kits_aliases(root, kit):
    proposal, output = serve(root, kit({"ff": "find_files", "rf": "read_file"}), "count occurrences of foo in docs")
    assert proposal.program == "sum(rf(f).count('foo') for f in ff('docs/**/*', kind='text'))"
    assert output == 3


def test_a_variant_whose_variables_are_kit_names_is_skipped(root, kit):
    # the read_file variant loops with "f", a tool here, so the grep variant serves
    aliases = {"f": "grep", "find_files": "find_files", "read_file": "read_file"}
    proposal, output = serve(root, kit(aliases), "how many functions are defined")
    assert proposal.program.startswith("len([hit for hit in f(") and output == 2


def test_intent_words_never_become_code(root, kit):
    filesystem = kit("filesystem")
    proposal, output = serve(root, filesystem, "count \"x'); write_file('pwned', 'y'); ('\"")
    assert "write_file" not in validate(proposal.program, filesystem.names).calls
    assert output == 0 and not (root / "pwned").exists()


@pytest.mark.parametrize("word", ["class", "import", "def", "return", "lambda", "for"])
def test_keywords_are_searched_for(root, kit, word):
    proposal, output = serve(root, kit("readonly"), f"count '{word}'")
    assert repr(word) in proposal.program
    assert output == sum(text.count(word) for text in FILES.values())


def test_a_word_with_a_double_underscore_is_built_not_written(root, kit):
    # programs may not hold a string literal containing "__"; the word is assembled as data instead
    proposal, output = serve(root, kit("readonly"), "which files contain __init__")
    assert "__" not in proposal.program and '"_" * 2' in proposal.program
    assert output == []
    (root / "src" / "pkg" / "__init__.py").write_text("from .util import helper  # __init__\n")
    try:
        assert serve(root, kit("readonly"), "which files contain __init__")[1] == ["src/pkg/__init__.py"]
        assert serve(root, kit("readonly"), "count lines in src/pkg/__init__.py")[1] == 1
    finally:
        (root / "src" / "pkg" / "__init__.py").unlink()


def test_regex_characters_are_literal_for_grep(root, kit):
    assert serve(root, kit(["grep"]), "which files contain 'a.b'")[1] == ["README.md"]
    assert serve(root, kit(["grep"]), "which files contain '(x)'")[1] == []
    assert serve(root, kit(["grep"]), "how many lines contain '[metadata]'")[1] == 1


def test_every_example_is_served(root, kit):
    provider = RulesTier(workspace=root)
    everything = kit("all")
    for example in EXAMPLES:
        assert provider.propose(Request(example, everything, workspace=root)) is not None, example
    assert provider.understands() == list(EXAMPLES)


def test_every_variant_validates_with_exactly_its_tools(kit):
    for intent in [*EXAMPLES, *EXPECTED]:
        for tools, _body, _values in programs(intent):
            only = kit(list(tools))
            proposal = RulesTier().propose(Request(intent, only))
            assert proposal is not None and validate(proposal.program, only.names).valid, (intent, tools)


@pytest.mark.parametrize("intent", NOT_RULES)
def test_other_intents_get_no_program(root, kit, intent):
    assert programs(intent) == []
    assert proposes_nothing(root, kit("all"), intent)


def test_an_intent_about_nothing_the_tier_knows_is_no_match(root, kit):
    assert RulesTier(workspace=root).propose(Request("compose a haiku about autumn", kit("all"), workspace=root)) is None


def test_a_refusal_says_what_was_understood_what_was_not_and_what_is_close(root, kit):
    with pytest.raises(NotUnderstood) as info:
        RulesTier(workspace=root).propose(Request("how many cats are there", kit("readonly"), workspace=root))
    message = str(info.value)
    assert "understood a count" in message and "did not understand 'cats'" in message
    assert "questions I do understand that are near it: \"how many 'cats' are there\"; " in message
    with pytest.raises(NotUnderstood, match="one search word at a time"):
        RulesTier(workspace=root).propose(Request("count TODO or FIXME", kit("readonly"), workspace=root))
    with pytest.raises(NotUnderstood) as info:  # understood, but no program for it: the questions near it all the same
        RulesTier(workspace=root).propose(Request("grep TODO in files without FIXME", kit("readonly"), workspace=root))
    said = str(info.value).split("but I have no program for that combination; questions I do understand that are near it: ")[1]
    assert set(said.split("; ")) == {'"which files do not contain TODO"', '"which files contain TODO or FIXME"', '"which files contain TODO"'}
    with pytest.raises(NotUnderstood, match="only files can be ranked"):
        RulesTier(workspace=root).propose(Request("what is the longest word", kit("readonly"), workspace=root))


def test_needs_names_the_smallest_tool_set():
    assert needs("count TODOs") == ("grep",)
    assert needs("count occurrences of foo") == ("find_files", "read_file")
    assert needs("which files contain TODO") == ("grep",)
    assert needs("largest files") == ("find_files", "read_file")
    assert needs("list src") == ("list_dir",)
    assert needs("how many python files") == ("find_files",)
    assert needs("write a haiku") is None
    assert needs("how many cats are there") is None
    assert RulesTier().needs("read README.md") == ("read_file",)


@pytest.mark.parametrize(
    "phrase, glob",
    [
        ("python files", "**/*.py"),
        ("all the markdown files", "**/*.md"),
        ("*.md", "**/*.md"),
        (".py files in src/pkg/", "src/pkg/**/*.py"),
        ("yaml files under config/app", "config/app/**/*.y*ml"),
        ("c++ files", "**/*.cpp"),
        ("c files", "**/*.[ch]"),
        ("files matching src/**/*.py", "src/**/*.py"),
        ("files in the current directory", "**/*"),
        ("files", "**/*"),
        ("test files", "**/test_*"),
        ("python files named util*", "**/util*.py"),
        ("files whose name starts with mod", "**/mod*"),
        ("files in pkg", "**/pkg/**/*"),
    ],
)
def test_file_phrases_become_globs(phrase, glob):
    assert parse(f"list {phrase}").intent.files.globs()[0] == glob


def test_a_directory_named_by_its_name_is_the_top_one_when_there_is_one(root):
    top = parse("count TODOs in src").intent
    assert anchored(top, root).files.globs() == ("src/**/*",)
    nested = parse("count TODOs in pkg").intent
    assert anchored(nested, root).files.globs() == ("**/pkg/**/*",)


@pytest.mark.parametrize(
    "intent, word",
    [("count TODOs", "TODO"), ("how many FIXMEs", "FIXME"), ("count todos", "TODO"), ("count 'TODOs'", "TODOs"),
     ('count "lines"', "lines"), ('count "a.b"', "a.b"), ("count Bugs", "Bugs"), ("count x.y_z", "x.y_z")],
)
def test_search_words(intent, word):
    assert parse(intent).intent.word == word


@pytest.mark.parametrize("intent, n", [("top 5 largest files", 5), ("five longest files", 5), ("the largest ten files", 10)])
def test_numbers(intent, n):
    assert parse(intent).intent.n == n


def test_propose_is_fast(root, kit):
    provider = RulesTier(workspace=root)
    requests = [Request(intent, kit("readonly"), workspace=root) for intent in EXPECTED]
    for request in requests:
        provider.propose(request)  # warm the caches
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        for request in requests:
            provider.propose(request)
    mean = (time.perf_counter() - start) / (rounds * len(requests))
    assert mean < 500e-6, f"{mean * 1e6:.0f} µs per proposal"


def test_a_size_in_bytes_counts_bytes_and_never_reads_bytes_as_a_directory(tmp_path):
    """"in bytes" once made a directory named bytes and answered 0; now the answer is the files' bytes (not characters)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("é = 1\n", encoding="utf-8")  # 6 characters, 7 bytes
    (tmp_path / "b.py").write_text("x = 2\n")
    toolbox = Toolbox(str(tmp_path))
    populate(toolbox)
    readonly = resolve_kit("readonly", toolbox)
    for intent in ("what is the total size of the python files in bytes?", "how many bytes are in the python files"):
        assert serve(tmp_path, readonly, intent)[1] == 13
    assert serve(tmp_path, readonly, "count the characters in python files")[1] == 12
    assert serve(tmp_path, readonly, "how many bytes is src/a.py")[1] == 7


@pytest.mark.parametrize("intent", ["count TODOs in nosuchdir", "how many python files under src/nope", "count TODOs outside nosuchdir",
                                    "how many TODOs outside ../.."])
def test_a_directory_the_workspace_does_not_have_is_refused_not_answered_zero(root, kit, intent):
    with pytest.raises(NotUnderstood, match=r"the workspace has no directory (nosuchdir|src/nope|\.\.[/.]*); name one it has"):
        RulesTier(workspace=root).propose(Request(intent, kit("readonly"), workspace=root))


@pytest.mark.parametrize("intent, output", [
    ("what is the last line of README.md?", "Not axb."),
    ("the first 2 lines of README.md", ["# Demo", "Run a.b here."]),
    ("what's the first line of src/app.py", "# TODO: one"),
])
def test_lines_of_a_file_by_position(root, kit, intent, output):
    assert serve(root, kit("readonly"), intent)[1] == output


def test_the_last_line_of_an_empty_file_is_none_not_an_error(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    toolbox = Toolbox(str(tmp_path))
    populate(toolbox)
    assert serve(tmp_path, resolve_kit("readonly", toolbox), "the last line of empty.txt")[1] is None


@pytest.mark.parametrize("intent, output", [
    ("how many functions have main in their name", 1),
    ("list the functions whose name starts with help", ["helper"]),
    ("count functions named helper", 1),
])
def test_definitions_by_name(root, kit, intent, output):
    assert serve(root, kit("readonly"), intent)[1] == output


@pytest.mark.parametrize("intent", ["the first line of python files", "what percentage of files are python files in bytes"])
def test_new_constructs_refuse_what_they_cannot_serve(root, kit, intent):
    assert proposes_nothing(root, kit("readonly"), intent)


@pytest.mark.parametrize("intent, output", [
    ("which folder has the most TODOs", {"folder": "src", "matches": 2}),
    ("how many TODOs does each folder have", {".": 0, "docs": 0, "src": 2, "src/pkg": 1}),
    ("TODOs per package", {"src": 2, "src/pkg": 1}),
    ("the 2 folders with the fewest lines", [{"folder": "src/pkg", "lines": 2}, {"folder": "src", "lines": 3}]),
    ("which directory has the most python files", {"folder": "src", "files": 1}),
])
def test_figures_per_directory_and_directories_ranked(root, kit, intent, output):
    assert serve(root, kit("readonly"), intent)[1] == output
