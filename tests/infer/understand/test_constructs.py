"""The grammar's constructs one at a time, each checked against plain Python on the benchmark fixture.

Each question exercises one rule of the parser (who a verb's subject is, a
pair of words after "with both", names of definitions said without "name",
"define" before a comparison, the average over "a file", folders ranked by a
measure named as a noun) and is served through the rules tier like
``test_intents``: the answer, and every variant's, must equal the one
computed here. The near misses must be refused, saying what was understood.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import pytest

from lackpy.infer.base import Request
from lackpy.infer.rules import RulesTier
from lackpy.infer.understand.intent import parse
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate

from .test_intents import Oracle, fixture_root, judge, kits, oracle, run  # noqa: F401  (the shared fixture and judge)

PY = dict(ext=".py")


def _defs(o: Oracle, paths: list[str]) -> list[str]:
    return [name for path in paths for name in re.findall(r"^\s*def (\w+)", o.text(path), re.M)]


def _lines_with(o: Oracle, word: str, paths: list[str]) -> int:
    return sum(1 for p in paths for line in o.lines(p) if word in line)


def _folder_totals(o: Oracle, measure: Callable[[str], int], paths: list[str]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for path in paths:
        folder = path.rsplit("/", 1)[0] if "/" in path else "."
        totals[folder] = totals.get(folder, 0) + measure(path)
    return totals


def _share(o: Oracle, among: Callable[[str], bool], counted: Callable[[str], bool], paths: list[str]) -> float:
    pool = [p for p in paths if among(p)]
    return sum(counted(p) for p in pool) / len(pool)


def _best(totals: dict[str, int], key: str) -> dict[str, Any]:
    folder = sorted(totals, key=lambda d: (-totals[d], d))[0]
    return {"folder": folder, key: totals[folder]}


RIGHT: tuple[tuple[str, Callable[[Oracle], Any]], ...] = (
    # a verb right after the files, with no "that": the lines are its subject; a participle keeps the files
    ("how many lines in python files mention render", lambda o: _lines_with(o, "render", o.select(**PY))),
    ("how many lines in python files include TODO", lambda o: _lines_with(o, "TODO", o.select(**PY))),
    ("count lines in python files containing TODO", lambda o: sum(len(o.lines(p)) for p in o.having("TODO", o.select(**PY)))),
    # "with both X and Y": two words, both needed
    ("are there any files with both alpha and omega", lambda o: False),
    ("are there files with both TODO and cache in src/pkg1", lambda o: any("TODO" in o.text(p) and "cache" in o.text(p) for p in o.select("src/pkg1"))),
    # names of definitions, said without "name"
    ("how many functions start with parse", lambda o: sum(n.startswith("parse") for n in _defs(o, o.select(**PY)))),
    ("count functions ending with _3", lambda o: sum(n.endswith("_3") for n in _defs(o, o.select(**PY)))),
    ("list the functions that begin with user in src/pkg1/mod111.py", lambda o: [n for n in _defs(o, ["src/pkg1/mod111.py"]) if n.startswith("user")]),
    # "define" before a comparison of definitions
    ("which files in src/pkg7 define at least 11 functions", lambda o: [p for p in o.select("src/pkg7") if len(_defs(o, [p])) >= 11]),
    ("how many python files define no more than 4 functions", lambda o: sum(len(_defs(o, [p])) <= 4 for p in o.select(**PY))),
    # "neither X nor Y"; a comparison after "containing" or "mentioning"
    ("which files have neither TODO nor alpha in src/pkg3", lambda o: [p for p in o.select("src/pkg3") if "TODO" not in o.text(p) and "alpha" not in o.text(p)]),
    ("python files containing at least 10 functions in src/pkg2", lambda o: [p for p in o.select("src/pkg2") if len(_defs(o, [p])) >= 10]),
    ("files in src/pkg5 mentioning over 2 TODO comments", lambda o: [p for p in o.select("src/pkg5") if o.text(p).count("TODO") > 2]),
    # the average over "a file"
    ("on average, how many TODOs does a python file have",
     lambda o: round(o.occurrences("TODO", o.select(**PY)) / len(o.select(**PY)), 2)),
    # folders ranked by a measure named as a noun, "total" and "the largest number of"
    ("which package has the largest total size", lambda o: _best(_folder_totals(o, lambda p: len(o.text(p)), o.select(**PY)), "chars")),
    ("which folder has the largest number of lines", lambda o: _best(_folder_totals(o, lambda p: len(o.lines(p)), list(o.files)), "lines")),
    # a share whose conditions are joined is one condition
    ("what fraction of python files mention both TODO and render",
     lambda o: round(sum("TODO" in o.text(p) and "render" in o.text(p) for p in o.select(**PY)) / len(o.select(**PY)), 4)),
    # two conditions apart: the first is said of the files the share is of, the sentence's verb counts them
    ("what percentage of python files with more than 10 functions mention TODO",
     lambda o: round(100 * _share(o, lambda p: len(_defs(o, [p])) > 10, lambda p: "TODO" in o.text(p), o.select(**PY)), 2)),
    ("what fraction of files containing TODO are longer than 30 lines",
     lambda o: round(_share(o, lambda p: "TODO" in o.text(p), lambda p: len(o.lines(p)) > 30, list(o.files)), 4)),
    ("what fraction of files over 40 lines do not mention render",
     lambda o: round(_share(o, lambda p: len(o.lines(p)) > 40, lambda p: "render" not in o.text(p), list(o.files)), 4)),
)

#: Near misses: (question, a phrase the refusal must say it understood).
REFUSED: tuple[tuple[str, str], ...] = (
    ("what percentage of files mention TODO with more than 30 lines", "more than 30 lines"),  # which condition is the share of?
    ("files that define more than 40 lines", "more than 40 lines"),
    ("how many functions start with an underscore", "functions"),
    ("files starting with mod1", "files"),
    ("what is the average number of files containing TODO", "the average"),
    ("which package has the most lines of zorblax", "package"),
    ("files containing more than 40 zorblaxes", "files"),
)


@pytest.mark.parametrize("question, expected", RIGHT, ids=[q for q, _ in RIGHT])
def test_each_construct_is_answered_right(question, expected, oracle, fixture_root, kits):  # noqa: F811
    want = expected(oracle)
    assert want not in ([], 0, None, {}) or want is False, f"{question}: an empty answer would not test the program"
    outcome = judge(question, want, fixture_root, kits)
    assert outcome.verdict == "right", f"{question!r}: {outcome.verdict} {outcome.got!r} {outcome.why}\n{outcome.program}"


@pytest.mark.parametrize("question, understood", REFUSED, ids=[q for q, _ in REFUSED])
def test_near_misses_are_refused_saying_what_was_understood(question, understood, fixture_root, kits):  # noqa: F811
    parsed = parse(question)
    assert parsed.intent is None
    assert any(understood in part for part in parsed.understood), parsed
    assert judge(question, object(), fixture_root, kits).verdict == "refused"


# -- edge cases: empty files, no final newline, nothing to average over ------------------------


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    """A workspace of edge cases: an empty file, a file without a final newline, a folder with no Python file."""
    root = tmp_path_factory.mktemp("edges")
    (root / "src").mkdir()
    (root / "docs").mkdir()
    (root / "src" / "empty.py").write_text("")
    (root / "src" / "short.py").write_text("def a():\n\n    return 1  # TODO")
    (root / "docs" / "notes.md").write_text("one\n\nthree\n")
    toolbox = Toolbox(str(root))
    populate(toolbox)
    return root, resolve_kit("readonly", toolbox)


def _serve(question: str, edges) -> Any:
    root, kit = edges
    proposal = RulesTier(workspace=root).propose(Request(question, kit, workspace=root))
    ok, got = run(proposal.program, kit)
    assert ok, got
    return got


@pytest.mark.parametrize("question, expected", (
    ("what is the last line of src/empty.py", None),  # no line to give: None, not an error
    ("show the first 3 lines of src/empty.py", []),
    ("what is the last line of src/short.py", "    return 1  # TODO"),  # no final newline: the last line is still whole
    ("how many empty lines are in src/short.py", 1),
    ("average number of lines per python file in docs", None),  # no files to average over: None, not a division by zero
    ("what fraction of python files in docs mention TODO", None),
    ("what fraction of python files with more than 5 lines mention TODO", None),  # none has: no files to take a share of
    ("average number of lines per python file", 1.5),  # the empty file counts, with 0 lines
    ("what percentage of python files mention TODO", 50.0),
    ("how many lines in python files mention TODO", 1),
))
def test_edge_cases(question, expected, edges):
    assert _serve(question, edges) == expected
