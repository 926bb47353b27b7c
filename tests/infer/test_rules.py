"""The rules tier: every rule's program runs for real on a known workspace, on every kit that can serve it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lackpy.infer.base import Request
from lackpy.infer.rules import GROUPS, RULES, RulesTier, match, needs
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.validator import validate
from lackpy.plugins import populate
from lackpy.run.runner import run_program

FILES = {
    "src/app.py": "# TODO: one\ndef main():\n    return 'TODO: two'\n",  # 47 chars, 3 lines
    "src/pkg/util.py": "def helper():\n    return 1  # TODO: three\n",  # 42 chars, 2 lines
    "README.md": "# Demo\nRun a.b here.\nNot axb.\n",  # 30 chars, 3 lines
    "docs/guide.md": "# Guide\n\nfoo bar foo\nfoo\n",  # 25 chars, 4 lines
    "setup.cfg": "[metadata]\nname = demo\n",  # 23 chars, 2 lines
}
PY = ["src/app.py", "src/pkg/util.py"]
TODO_LINES = ["src/app.py:1: # TODO: one", "src/app.py:3:     return 'TODO: two'", "src/pkg/util.py:2:     return 1  # TODO: three"]

# intent -> (rule, output on the readonly kit)
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
    "how many lines of code in src": ("count-lines", 5),
    "count lines": ("count-lines", 14),
    "largest files": ("largest-files", [
        {"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}, {"path": "README.md", "chars": 30},
        {"path": "docs/guide.md", "chars": 25}, {"path": "setup.cfg", "chars": 23},
    ]),
    "5 largest python files": ("largest-files", [{"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}]),
    "show the biggest two files": ("largest-files", [{"path": "src/app.py", "chars": 47}, {"path": "src/pkg/util.py", "chars": 42}]),
    "longest files in src": ("longest-files", [{"path": "src/app.py", "lines": 3}, {"path": "src/pkg/util.py", "lines": 2}]),
    "top 2 longest files": ("longest-files", [{"path": "docs/guide.md", "lines": 4}, {"path": "README.md", "lines": 3}]),
    "which files contain TODO": ("files-containing", PY),
    "files containing helper in python files": ("files-containing", ["src/pkg/util.py"]),
    "find files that mention bar": ("files-containing", ["docs/guide.md"]),
    "grep TODO": ("grep-lines", TODO_LINES),
    "grep TODO in src/pkg": ("grep-lines", TODO_LINES[2:]),
    "search for foo with line numbers": ("grep-lines", ["docs/guide.md:3: foo bar foo", "docs/guide.md:4: foo"]),
    "show lines matching def main": ("grep-lines", ["src/app.py:2: def main():"]),
    "grep a.b": ("grep-lines", ["README.md:2: Run a.b here."]),  # literal: "axb" does not match
    "where is helper used": ("grep-lines", ["src/pkg/util.py:1: def helper():"]),
    "count TODOs": ("count-occurrences", 3),
    "count TODO in python files": ("count-occurrences", 3),
    "how many FIXMEs are there?": ("count-occurrences", 0),
    "count occurrences of foo in *.md": ("count-occurrences", 3),
    "how many times does foo appear in docs": ("count-occurrences", 3),
    'count "foo bar"': ("count-occurrences", 1),
    "list src": ("list-dir", ["app.py", "pkg"]),
    "ls": ("list-dir", ["README.md", "docs", "setup.cfg", "src"]),
    "what's in docs": ("list-dir", ["guide.md"]),
    "list the current directory": ("list-dir", ["README.md", "docs", "setup.cfg", "src"]),
    "show the contents of docs": ("list-dir", ["guide.md"]),
}

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
    "how many words in README.md",
    "count words in README.md",
    "read the docs",
    "find the bug",
    "show me the money",
    "what time is it",
    "list the pros and cons",
    "count TODO files",
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


@pytest.mark.parametrize("intent", EXPECTED)
def test_each_intent_runs_to_its_result(root, kit, intent):
    rule, output = EXPECTED[intent]
    proposal, result = serve(root, kit("readonly"), intent)
    assert proposal.detail == f"rule {rule}"
    assert result == output


@pytest.mark.parametrize("spec", ["filesystem", "readonly", ["find_files", "read_file"], ["grep"]])
def test_count_todos_on_every_kit_that_can(root, kit, spec):
    assert serve(root, kit(spec), "count TODOs")[1] == 3


@pytest.mark.parametrize("spec", [["list_dir"], ["write_file", "edit_file"], ["read_file"], "none"])
def test_no_program_on_a_kit_without_the_tools(root, kit, spec):
    assert RulesTier(workspace=root).propose(Request("count TODOs", kit(spec), workspace=root)) is None


@pytest.mark.parametrize(
    "intent", ["count TODOs", "count foo in docs", "which files contain TODO", "grep TODO", "files with foo in markdown files"]
)
def test_every_variant_gives_the_same_result(root, kit, intent):
    rule = match(intent)[0]
    outputs = [serve(root, kit(list(tools)), intent)[1] for tools, _body in rule.variants]
    assert len(outputs) == 2 and outputs[0] == outputs[1] == serve(root, kit("readonly"), intent)[1]


def test_programs_call_tools_by_the_kits_aliases(root, kit):
    proposal, output = serve(root, kit({"ff": "find_files", "rf": "read_file"}), "count TODOs")
    assert proposal.program == "sum(rf(f).count('TODO') for f in ff('**/*', kind='text'))"
    assert output == 3


def test_a_variant_whose_variables_are_kit_names_is_skipped(root, kit):
    # the read_file variant loops with "f", a tool here, so the grep variant serves
    proposal, output = serve(root, kit({"f": "grep", "find_files": "find_files", "read_file": "read_file"}), "count TODOs")
    assert "f('TODO'" in proposal.program and output == 3


def test_intent_words_never_become_code(root, kit):
    filesystem = kit("filesystem")
    proposal, output = serve(root, filesystem, "count \"x'); write_file('pwned', 'y'); ('\"")
    assert "write_file" not in validate(proposal.program, filesystem.names).calls
    assert output == 0 and not (root / "pwned").exists()


def test_every_example_is_served_by_its_own_rule(root, kit):
    provider = RulesTier(workspace=root)
    everything = kit("all")
    for rule in RULES:
        assert match(rule.example)[0] is rule, rule.name
        assert provider.propose(Request(rule.example, everything, workspace=root)).detail == f"rule {rule.name}"
    assert provider.understands() == [rule.example for rule in RULES]


def test_every_variant_validates_with_exactly_its_tools(kit):
    for rule in RULES:
        for tools, _body in rule.variants:
            only = kit(list(tools))
            proposal = RulesTier().propose(Request(rule.example, only))
            assert proposal is not None and validate(proposal.program, only.names).valid, (rule.name, tools)


@pytest.mark.parametrize("intent", NOT_RULES)
def test_other_intents_match_no_rule(root, kit, intent):
    assert match(intent) is None
    assert RulesTier(workspace=root).propose(Request(intent, kit("all"), workspace=root)) is None


def test_needs_names_the_smallest_tool_set():
    assert needs("count TODOs") == ("grep",)
    assert needs("largest files") == ("find_files", "read_file")
    assert needs("list src") == ("list_dir",)
    assert needs("write a haiku") is None
    assert RulesTier().needs("read README.md") == ("read_file",)


@pytest.mark.parametrize(
    "phrase, glob",
    [
        ("python files", "**/*.py"),
        ("all the markdown files", "**/*.md"),
        ("*.md", "**/*.md"),
        (".py files in src", "src/**/*.py"),
        ("yaml files under config/", "config/**/*.y*ml"),
        ("c++ files", "**/*.cpp"),
        ("c files", "**/*.[ch]"),
        ("files matching src/**/*.py", "src/**/*.py"),
        ("files in the current directory", "**/*"),
        ("files", "**/*"),
        ("python", "**/*.py"),
        ("python code", "**/*.py"),
        ("README.md", "README.md"),
        ("src/app.py", "src/app.py"),
        ("the src directory", "src/**/*"),
        ("docs/", "docs/**/*"),
    ],
)
def test_scopes_become_globs(phrase, glob):
    assert GROUPS["scope"](phrase) == {"glob": glob}


@pytest.mark.parametrize("phrase", ["src", "the parser", "README.md", "python", "frobnitz files", "TODOs"])
def test_file_sets_need_a_kind_extension_or_glob(phrase):
    assert GROUPS["files"](phrase) is None


@pytest.mark.parametrize(
    "text, values",
    [
        ("TODOs", {"word": "TODO", "regex": "TODO"}),
        ("FIXMEs", {"word": "FIXME", "regex": "FIXME"}),
        ("bugs", {"word": "bugs", "regex": "bugs"}),
        ("'TODOs'", {"word": "TODOs", "regex": "TODOs"}),
        ('"lines"', {"word": "lines", "regex": "lines"}),
        ("a.b", {"word": "a.b", "regex": "a\\.b"}),
        ("lines", None),
    ],
)
def test_search_words(text, values):
    assert GROUPS["word"](text) == values


@pytest.mark.parametrize("text, n", [("5", 5), ("five", 5), ("Ten", 10), ("0", None)])
def test_counts(text, n):
    assert GROUPS["n"](text) == (None if n is None else {"n": n})


def test_propose_is_fast(root, kit):
    provider = RulesTier(workspace=root)
    requests = [Request(intent, kit("readonly"), workspace=root) for intent in [*EXPECTED, *NOT_RULES]]
    for request in requests:
        provider.propose(request)  # warm the caches
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        for request in requests:
            provider.propose(request)
    mean = (time.perf_counter() - start) / (rounds * len(requests))
    assert mean < 500e-6, f"{mean * 1e6:.0f} µs per proposal"
