"""Everyday questions about a code base, asked as different people ask them, answered with no model.

The workspace is the shared benchmark fixture (``make_workspace.py``: 200
generated modules under ``src/pkg*/`` and a README). Every question's expected
answer is computed here, independently of lackpy, by plain Python over the
files (``os.walk``, ``open``, ``re``). Each phrasing is then given to the rules
tier on the readonly kit and its program is run. A phrasing ends one of three
ways:

- **right**: a program was proposed and its result equals the expected answer;
- **refused**: the tier said it did not understand (no program);
- **wrong**: a program was proposed and it failed or gave another answer.

A wrong answer is the failure that matters: zero are allowed. The served
fraction is reported and held above ``SERVED_AT_LEAST``.

The table was written from how people ask before the parser was built; rows
are not tuned to the parser. Every program a phrasing gets is also run with
each of its other variants (the programs for kits with fewer tools), which
must agree.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from lackpy.infer.base import Request
from lackpy.infer.rules import RulesTier
from lackpy.infer.understand.compose import build
from lackpy.infer.understand.intent import NotUnderstood, parse
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.validator import validate
from lackpy.plugins import populate
from lackpy.run.runner import run_program

#: The benchmark workload of the repository (its fixture generator; ``bench/workloads``).
WORKLOADS = Path(__file__).resolve().parents[3] / "bench" / "workloads"
SERVED_AT_LEAST = 0.90


# -- the oracle: plain Python over the files -------------------------------------------


class Oracle:
    """The fixture as plain Python sees it: every file's text, every directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, str] = {}
        self.dirs: list[str] = []
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
            rel = Path(folder).relative_to(root).as_posix()
            if rel != ".":
                self.dirs.append(rel)
            for name in names:
                if not name.startswith("."):
                    path = (Path(rel) / name).as_posix() if rel != "." else name
                    with open(Path(folder) / name, encoding="utf-8") as handle:
                        self.files[path] = handle.read()
        self.files = dict(sorted(self.files.items()))
        self.dirs.sort()

    def select(self, under: str = "", ext: str = "", name: str = "") -> list[str]:
        """Paths under a directory, with an extension, whose file name matches a regex."""
        return [
            p for p in self.files
            if (not under or p.startswith(under.rstrip("/") + "/"))
            and p.endswith(ext)
            and (not name or re.fullmatch(name, p.rsplit("/", 1)[-1]))
        ]

    def text(self, path: str) -> str:
        return self.files[path]

    def occurrences(self, word: str, paths: list[str], ignore_case: bool = False) -> int:
        if ignore_case:
            return sum(len(re.findall(re.escape(word), self.files[p], re.IGNORECASE)) for p in paths)
        return sum(self.files[p].count(word) for p in paths)

    def having(self, word: str, paths: list[str]) -> list[str]:
        return [p for p in paths if word in self.files[p]]

    def lacking(self, word: str, paths: list[str]) -> list[str]:
        return [p for p in paths if word not in self.files[p]]

    def lines(self, path: str) -> list[str]:
        return self.files[path].splitlines()

    def line_count(self, paths: list[str]) -> int:
        return sum(len(self.lines(p)) for p in paths)

    def matching_lines(self, word: str, paths: list[str]) -> list[str]:
        return [f"{p}:{n}: {line}" for p in paths for n, line in enumerate(self.lines(p), 1) if word in line]

    def words(self, paths: list[str]) -> int:
        return sum(len(self.files[p].split()) for p in paths)

    def chars(self, paths: list[str]) -> int:
        return sum(len(self.files[p]) for p in paths)

    def functions(self, path: str) -> list[str]:
        return [m[1] for line in self.lines(path) if (m := re.match(r"\s*(?:async\s+)?def\s+(\w+)", line))]

    def ranked(self, paths: list[str], key: str, measure: Callable[[str], int], n: int | None, largest: bool = True):
        """The top ``n`` as {"path", key}; ties in path order; n None: the single first one."""
        rows = sorted(paths, key=lambda p: (-measure(p) if largest else measure(p), p))
        top = [{"path": p, key: measure(p)} for p in rows[: n or 1]]
        return top if n else top[0]


PY = dict(ext=".py")


# -- the table ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    name: str
    expected: Callable[[Oracle], Any]
    phrasings: tuple[str, ...]


def Q(name: str, expected: Callable[[Oracle], Any], *phrasings: str) -> Question:
    return Question(name, expected, phrasings)


TABLE: tuple[Question, ...] = (
    Q("python files", lambda o: len(o.select(**PY)),
      "how many python files are there?", "How many Python files are there", "count the python files",
      "count .py files", "number of py files", "how many .py files do we have?", "count all *.py files",
      "please tell me how many python files there are", "the number of python files",
      "how many python modules are there?"),
    Q("all files", lambda o: len(o.files),
      "how many files are there?", "count files", "count all the files", "number of files in the workspace",
      "how many files are in this repo?", "total number of files", "how many files do we have"),
    Q("TODOs", lambda o: o.occurrences("TODO", list(o.files)),
      "count TODOs", "count the TODOs", "how many TODOs are there?", "how many TODO comments are there",
      "number of TODOs", "how many times does TODO appear?", "count occurrences of TODO",
      "how many TODO markers do we have", "total number of TODOs in the codebase",
      "Could you count the TODOs, please?", "how many todos are there"),
    Q("TODOs in a directory", lambda o: o.occurrences("TODO", o.select("src/pkg1")),
      "count TODOs in src/pkg1", "how many TODOs are in src/pkg1?", "how many TODOs under src/pkg1",
      "number of TODOs in the src/pkg1 directory", "how many times is TODO mentioned in src/pkg1?",
      "count TODO in python files under src/pkg1", "TODO count for src/pkg1"),
    Q("files with TODO", lambda o: o.having("TODO", list(o.files)),
      "which files contain TODO?", "which files mention TODO", "list files containing TODO", "files with TODOs",
      "show me the files that contain a TODO", "find files that mention TODO", "what files have TODOs?",
      "list the python files with TODO comments"),
    Q("how many files have TODO", lambda o: len(o.having("TODO", list(o.files))),
      "how many files contain TODO?", "how many files have TODOs", "count the files that mention TODO",
      "number of files with a TODO", "how many python files contain TODO", "count .py files containing TODO"),
    Q("files without TODO", lambda o: o.lacking("TODO", list(o.files)),
      "which files don't have any TODOs?", "list files without TODO", "files that do not mention TODO",
      "show files not containing TODO"),
    Q("python files without TODO", lambda o: o.lacking("TODO", o.select(**PY)),
      "which python files have no TODOs", "find the python files without any TODO",
      "list .py files that don't contain TODO", "python files lacking TODO"),
    Q("how many files in a directory lack TODO", lambda o: len(o.lacking("TODO", o.select("src/pkg2"))),
      "how many files in src/pkg2 have no TODOs?", "count files without TODO under src/pkg2",
      "number of python files in src/pkg2 that don't contain TODO",
      "how many files under src/pkg2 do not mention TODO"),
    Q("lines of python", lambda o: o.line_count(o.select(**PY)),
      "how many lines are in the python files?", "count lines in python files",
      "total number of lines in .py files", "how many lines of python code are there",
      "line count of all py files", "count the lines of *.py", "sum of lines across python files"),
    Q("lines of one file", lambda o: len(o.lines("README.md")),
      "how many lines in README.md", "how many lines does README.md have?", "count the lines of README.md",
      "number of lines in README.md", "line count for README.md", "README.md line count"),
    Q("largest file", lambda o: o.ranked(list(o.files), "chars", lambda p: len(o.text(p)), None),
      "what is the largest file?", "which file is the biggest", "largest file", "find the biggest file",
      "show me the largest file"),
    Q("largest python file", lambda o: o.ranked(o.select(**PY), "chars", lambda p: len(o.text(p)), None),
      "what's the biggest python file?", "largest .py file", "which python file is the largest?"),
    Q("five longest python files", lambda o: o.ranked(o.select(**PY), "lines", lambda p: len(o.lines(p)), 5),
      "5 longest python files", "top 5 longest python files", "the five longest .py files",
      "list the 5 longest python files", "which 5 python files have the most lines?",
      "top 5 python files by number of lines"),
    Q("smallest file", lambda o: o.ranked(list(o.files), "chars", lambda p: len(o.text(p)), None, largest=False),
      "what is the smallest file", "which file is the smallest?", "smallest file", "find the tiniest file"),
    Q("shortest python file", lambda o: o.ranked(o.select(**PY), "lines", lambda p: len(o.lines(p)), None, largest=False),
      "what is the shortest python file?", "which .py file has the fewest lines", "shortest py file",
      "the python file with the fewest lines"),
    Q("functions", lambda o: sum(len(o.functions(p)) for p in o.select(**PY)),
      "how many functions are defined?", "count function definitions", "how many functions are there",
      "number of functions", "count the defs in python files", "how many functions are defined in the python files?"),
    Q("functions in a directory", lambda o: sum(len(o.functions(p)) for p in o.select("src/pkg1")),
      "how many functions are defined in src/pkg1?", "count functions in src/pkg1", "number of functions under src/pkg1",
      "how many functions does src/pkg1 define", "how many defs in src/pkg1"),
    Q("function names", lambda o: o.functions("src/pkg1/mod1.py"),
      "list the functions in src/pkg1/mod1.py", "which functions are defined in src/pkg1/mod1.py?",
      "what functions does src/pkg1/mod1.py define", "show functions defined in src/pkg1/mod1.py",
      "function names in src/pkg1/mod1.py"),
    Q("does the README say draft", lambda o: "draft" in o.text("README.md"),
      "does README.md mention draft?", "does README.md contain draft", "is draft mentioned in README.md?",
      "does the README.md file contain the word draft", "is the word draft in README.md?"),
    Q("any FIXME", lambda o: any("FIXME" in t for t in o.files.values()),
      "does any file mention FIXME?", "are there any FIXMEs?", "is there a FIXME anywhere?",
      "do any python files contain FIXME", "is FIXME mentioned anywhere", "any FIXMEs?"),
    Q("words of one file", lambda o: len(o.text("README.md").split()),
      "how many words are in README.md?", "count the words in README.md", "word count of README.md",
      "number of words in README.md"),
    Q("words in a directory", lambda o: o.words(o.select("src/pkg2")),
      "how many words in src/pkg2", "count words in python files under src/pkg2", "total words in src/pkg2",
      "total number of words in the files in src/pkg2"),
    Q("a word in a directory", lambda o: o.occurrences("cache", o.select("src/pkg3")),
      "how many times does cache appear in src/pkg3", "count occurrences of cache in src/pkg3",
      "count 'cache' in src/pkg3", 'how many times is "cache" used in src/pkg3?',
      "number of occurrences of cache under src/pkg3", "how often does cache occur in src/pkg3"),
    Q("file with the most TODOs", lambda o: o.ranked(list(o.files), "matches", lambda p: o.text(p).count("TODO"), None),
      "which file has the most TODOs?", "file with the most TODOs", "what file contains the most TODOs",
      "the file with the highest number of TODOs"),
    Q("python file with the most TODOs", lambda o: o.ranked(o.select(**PY), "matches", lambda p: o.text(p).count("TODO"), None),
      "which python file has the most TODO comments", "the .py file with the most TODOs"),
    Q("directories", lambda o: len(o.dirs),
      "how many directories are there?", "count the folders", "number of directories", "how many dirs"),
    Q("directories in src", lambda o: len([d for d in o.dirs if d.startswith("src/")]),
      "how many folders are in src?", "how many subdirectories does src have", "count directories under src"),
    Q("list directories in src", lambda o: [d for d in o.dirs if d.startswith("src/")],
      "list the directories in src", "which folders are under src?", "show directories under src",
      "what directories are in src"),
    Q("python files in a directory", lambda o: o.select("src/pkg3", ".py"),
      "list python files in src/pkg3", "which .py files are in src/pkg3?", "show me the py files under src/pkg3",
      "find all python files in src/pkg3", "what python files are there in src/pkg3"),
    Q("files in a directory", lambda o: o.select("src/pkg3"),
      "files in src/pkg3", "list all files under src/pkg3", "which files are in the src/pkg3 folder"),
    Q("markdown files", lambda o: len(o.select(ext=".md")),
      "how many markdown files are there?", "count md files", "number of .md files", "how many *.md files"),
    Q("list markdown files", lambda o: o.select(ext=".md"),
      "list markdown files", "which md files are there", "show .md files", "find *.md files"),
    Q("test files", lambda o: len(o.select(name=r"test_.*\.py|.*_test\.py")),
      "how many test files are there", "count the test files", "number of test files"),
    Q("any test files", lambda o: bool(o.select(name=r"test_.*\.py|.*_test\.py")),
      "are there any test files?", "do we have any test files"),
    Q("files named by a pattern", lambda o: len(o.select(name=r"mod1.*")),
      "how many files are named mod1*", "count files named mod1*", "how many files match mod1*",
      "number of files whose name starts with mod1"),
    Q("python files named by a pattern", lambda o: o.select(ext=".py", name=r"mod19.*"),
      "list python files named mod19*", "which .py files are called mod19*"),
    Q("lines with TODO in a directory", lambda o: len(o.matching_lines("TODO", o.select("src/pkg5"))),
      "how many lines contain TODO in src/pkg5", "count lines with TODO under src/pkg5",
      "number of lines mentioning TODO in src/pkg5", "how many lines in src/pkg5 contain TODO?"),
    Q("lines with a word in one file", lambda o: o.matching_lines("retry", ["src/pkg4/mod4.py"]),
      "show lines containing retry in src/pkg4/mod4.py", "grep retry in src/pkg4/mod4.py",
      "search for retry in src/pkg4/mod4.py", "find lines mentioning retry in src/pkg4/mod4.py",
      "where is retry used in src/pkg4/mod4.py"),
    Q("a word ignoring case", lambda o: o.occurrences("module", list(o.files), ignore_case=True),
      "count module ignoring case", "how many times does module appear, ignoring case?",
      "count occurrences of module case-insensitively", "case-insensitive count of module",
      "how many times does 'module' appear regardless of case"),
    Q("characters in a directory", lambda o: o.chars(o.select("src/pkg0")),
      "total size of python files in src/pkg0", "how many characters are in src/pkg0", "count characters in src/pkg0",
      "number of characters in python files under src/pkg0", "total characters in src/pkg0"),
    Q("any TODO in a directory", lambda o: bool(o.having("TODO", o.select("src/pkg1"))),
      "does src/pkg1 have any TODOs?", "are there TODOs in src/pkg1?", "does src/pkg1 contain any TODO",
      "any TODOs under src/pkg1?"),
    Q("file with the most functions", lambda o: o.ranked(o.select(**PY), "functions", lambda p: len(o.functions(p)), None),
      "which file defines the most functions?", "which file has the most functions",
      "the python file with the most functions"),
    Q("every python file says Module", lambda o: all("Module" in o.text(p) for p in o.select(**PY)),
      "do all python files contain Module?", "does every python file mention Module", "do all the .py files mention Module"),
    Q("TODOs per file", lambda o: {p: o.text(p).count("TODO") for p in o.select("src/pkg6")},
      "count TODOs in each file in src/pkg6", "how many TODOs does each file in src/pkg6 have",
      "TODOs per file in src/pkg6", "number of TODOs per file under src/pkg6"),
    Q("lines per file", lambda o: {p: len(o.lines(p)) for p in o.select("src/pkg7", ".py")},
      "how many lines does each python file in src/pkg7 have", "line count per file in src/pkg7",
      "count lines in each python file under src/pkg7"),
    Q("read a file", lambda o: o.text("README.md"),
      "show me README.md", "read README.md", "cat README.md", "what's in README.md?",
      "print the contents of README.md", "open README.md"),
    Q("list a directory", lambda o: sorted(os.listdir(o.root / "src")),
      "list src", "ls src", "what's in src?", "show the contents of the src directory", "list the src folder"),
    Q("files with one word but not another", lambda o: o.lacking("cache", o.having("TODO", o.select("src/pkg8"))),
      "which files in src/pkg8 mention TODO and do not mention cache",
      "python files under src/pkg8 with TODO and without cache",
      "list files in src/pkg8 that contain TODO but don't contain cache"),
    # words that are Python keywords, contain __, or regex characters: searched for, literally
    Q("a keyword", lambda o: o.occurrences("return", list(o.files)),
      "how many times does return appear?", "count occurrences of return", "count 'return'",
      "how many times is the word return used"),
    Q("lines with a keyword", lambda o: len(o.matching_lines("def", list(o.files))),
      "how many lines contain def", "count lines containing def", "number of lines that mention def"),
    Q("files that mention import", lambda o: o.having("import", list(o.files)),
      "which files mention import", "list files containing import", "files that contain the keyword import"),
    Q("any lambda", lambda o: any("lambda" in t for t in o.files.values()),
      "does any file contain lambda?", "is lambda used anywhere?"),
    Q("class as a word", lambda o: o.occurrences("class", list(o.files)),
      "count 'class'", "how many times does class appear", 'how many times does "class" occur?'),
    Q("a bare keyword", lambda o: o.occurrences("return", o.select(**PY)),
      "count return in python files", "how many return in .py files?", "number of return in python files"),
    Q("a dunder name", lambda o: o.having("__init__", list(o.files)),
      "which files contain __init__", "list files mentioning __init__"),
    Q("a dunder count", lambda o: o.occurrences("__name__", list(o.files)),
      "count __name__", "how many times does __name__ appear"),
    Q("a dot is not a wildcard", lambda o: o.having("Module 1.", list(o.files)),
      'which files contain "Module 1."', "list files containing 'Module 1.'"),
    Q("a star is not a wildcard", lambda o: len(o.matching_lines("x * 2", list(o.files))),
      'how many lines contain "x * 2"', "count lines containing 'x * 2'"),
    Q("parentheses are literal", lambda o: o.occurrences("(x):", o.select(**PY)),
      'count "(x):" in python files', "how many times does '(x):' appear in .py files"),
    Q("a keyword phrase", lambda o: o.matching_lines("return x * 11", o.select("src/pkg1")),
      "show lines containing return x * 11 in src/pkg1", "grep 'return x * 11' in src/pkg1"),
)

#: Written after the parser, to measure what the table cannot: phrasings it never saw. Reported on
#: their own; they count toward "no wrong answer" like the table. Their first run gave 50 right,
#: 5 refused and 2 wrong ("list the TODOs" took TODOs for a directory; "sorted by size" cut the list
#: to ten); both causes were fixed in the parser, not by matching these phrasings.
HELD_OUT: tuple[Question, ...] = (
    Q("held: python files", lambda o: len(o.select(**PY)),
      "how many py modules do we have", "give me the count of python files", "python file count"),
    Q("held: files under src", lambda o: len(o.select("src")), "what's the number of files in src?"),
    Q("held: TODOs", lambda o: o.occurrences("TODO", list(o.files)),
      "tally the TODO markers", "how many TODO's are there"),
    Q("held: TODO lines", lambda o: len(o.matching_lines("TODO", list(o.files))),
      "how many TODO lines are there", "count the lines containing 'TODO: handle'"),
    Q("held: list TODO lines", lambda o: o.matching_lines("TODO", list(o.files)), "TODOs?", "list the TODOs"),
    Q("held: FIXME files", lambda o: o.having("FIXME", list(o.files)), "show me every file that mentions FIXME"),
    Q("held: markdown in the repo", lambda o: o.select(ext=".md"), "list all the .md files in the repo"),
    Q("held: three largest", lambda o: o.ranked(list(o.files), "chars", lambda p: len(o.text(p)), 3), "biggest 3 files"),
    Q("held: three largest python", lambda o: o.ranked(o.select(**PY), "chars", lambda p: len(o.text(p)), 3),
      "which are the three largest python files?"),
    Q("held: two shortest", lambda o: o.ranked(list(o.files), "lines", lambda p: len(o.lines(p)), 2, largest=False),
      "what are the 2 shortest files"),
    Q("held: a word in them", lambda o: o.having("cache", list(o.files)), "which files have the word cache in them"),
    Q("held: lines of one module", lambda o: len(o.lines("src/pkg1/mod1.py")), "count lines in src/pkg1/mod1.py"),
    Q("held: python files mentioning retry", lambda o: len(o.having("retry", o.select(**PY))),
      "number of python files that mention retry"),
    Q("held: any python file without TODO", lambda o: bool(o.lacking("TODO", o.select(**PY))),
      "are there python files without TODOs?"),
    Q("held: every file mentions TODO", lambda o: all("TODO" in t for t in o.files.values()), "do all files mention TODO?"),
    Q("held: directories", lambda o: o.dirs, "which directories are there", "list every folder", "please list the directories"),
    Q("held: function names", lambda o: o.functions("src/pkg2/mod2.py"), "the names of the functions in src/pkg2/mod2.py"),
    Q("held: classes", lambda o: 0, "how many classes are defined", "count class definitions in src"),
    Q("held: longest markdown", lambda o: o.ranked(o.select(ext=".md"), "lines", lambda p: len(o.lines(p)), None),
      "what's the longest markdown file"),
    Q("held: most lines", lambda o: o.ranked(list(o.files), "lines", lambda p: len(o.lines(p)), None),
      "which file contains the most lines?"),
    Q("held: lines without TODO", lambda o: len([l for l in o.lines("src/pkg1/mod1.py") if "TODO" not in l]),
      "count lines that don't mention TODO in src/pkg1/mod1.py"),
    Q("held: a phrase in one file", lambda o: o.text("src/pkg1/mod1.py").count("x * 1"),
      "how many times does 'x * 1' appear in src/pkg1/mod1.py"),
    Q("held: grep nothing", lambda o: [], "grep FIXME", "search for Module in README.md"),
    Q("held: where an identifier is", lambda o: o.matching_lines("alpha_beta", list(o.files)), "where is alpha_beta mentioned"),
    Q("held: find a marker in a file", lambda o: o.matching_lines("TODO", ["src/pkg0/mod0.py"]),
      "find TODO in src/pkg0/mod0.py", "show TODOs in src/pkg0/mod0.py"),
    Q("held: words of the readme", lambda o: len(o.text("README.md").split()), "how many words does README.md contain"),
    Q("held: size of the readme", lambda o: len(o.text("README.md")), "size of README.md"),
    Q("held: total lines", lambda o: o.line_count(list(o.files)), "what is the total line count"),
    Q("held: sorted by size", lambda o: o.ranked(o.select("src/pkg4", ".py"), "chars", lambda p: len(o.text(p)), 20),
      "list python files in src/pkg4 sorted by size"),
    Q("held: no TODOs in the readme", lambda o: o.text("README.md").count("TODO"), "how many TODOs in README.md"),
    Q("held: per file for a directory", lambda o: {p: o.text(p).count("TODO") for p in o.select("src/pkg2")},
      "TODO count per file for src/pkg2"),
    Q("held: is there a readme", lambda o: True, "Is there a README.md?"),
    Q("held: is there a setup.py", lambda o: False, "is there a setup.py"),
    Q("held: three biggest in a directory", lambda o: o.ranked(o.select("src/pkg3"), "chars", lambda p: len(o.text(p)), 3),
      "show the 3 biggest files in src/pkg3"),
    Q("held: fewest TODOs", lambda o: o.ranked(o.select("src/pkg0", ".py"), "matches", lambda p: o.text(p).count("TODO"), 10, largest=False),
      "which py files under src/pkg0 have the fewest TODOs"),
    Q("held: a file by name", lambda o: bool(o.select(name=r"mod7\.py")), "any files named mod7.py?"),
    Q("held: lines mentioning a word in python", lambda o: len(o.matching_lines("cache", o.select(**PY))),
      "how many lines mention cache in python files"),
    Q("held: scope first", lambda o: len(o.having("gamma", o.select("src/pkg2"))), "in src/pkg2, how many files mention gamma?"),
    Q("held: functions of a directory", lambda o: [n for p in o.select("src/pkg3", ".py") for n in o.functions(p)],
      "for src/pkg3, list the functions"),
    Q("held: functions per file", lambda o: {p: len(o.functions(p)) for p in o.select("src/pkg9", ".py")},
      "number of functions per file in src/pkg9"),
    Q("held: a directory by its name", lambda o: o.occurrences("TODO", o.select("src/pkg1")), "count TODOs in pkg1"),
    Q("held: count of markdown", lambda o: 1, "count of markdown files"),
    Q("held: lines of code in python", lambda o: o.line_count(o.select(**PY)), "How many lines of code are in the python files?"),
    Q("held: read a module", lambda o: o.text("src/pkg1/mod1.py"), "show me the contents of src/pkg1/mod1.py", "what does src/pkg1/mod1.py say?"),
    Q("held: a quoted phrase with a space", lambda o: o.occurrences("def ", o.select("src/pkg1")), "number of occurrences of 'def ' in src/pkg1"),
    Q("held: one word but not another", lambda o: len(o.lacking("gamma", o.having("delta", list(o.files)))),
      "how many files mention delta but not gamma"),
    # refused until the grammar learnt comparisons and directories left out (issue 25); moved here from MUST_REFUSE
    Q("files over a number of functions", lambda o: sum(len(o.functions(p)) > 10 for p in o.select(**PY)),
      "how many files have more than 10 functions"),
    Q("python files over one TODO", lambda o: [p for p in o.select(**PY) if o.text(p).count("TODO") > 1],
      "python files with more than one TODO"),
    Q("files over a size", lambda o: sum(len(o.text(p).encode()) > 1000 for p in o.files),
      "count files larger than 1000 bytes"),
    Q("TODOs outside a directory", lambda o: o.occurrences("TODO", [p for p in o.files if not p.startswith("src/pkg1/")]),
      "how many TODOs are not in src/pkg1", "count TODOs outside src/pkg1"),
    Q("files with either word", lambda o: [p for p in o.files if "TODO" in o.text(p) or "FIXME" in o.text(p)],
      "list files containing TODO or FIXME"),
    Q("python files with both words", lambda o: o.having("cache", o.having("TODO", o.select(**PY))),
      "which python files mention both TODO and cache"),
    Q("files with neither word", lambda o: o.lacking("FIXME", o.lacking("TODO", list(o.files))),
      "which files don't contain TODO or FIXME"),
    Q("empty lines of a file", lambda o: sum(1 for line in o.lines("README.md") if not line.strip()),
      "how many empty lines are in README.md"),
    Q("non-empty lines", lambda o: sum(1 for p in o.files for line in o.lines(p) if line.strip()),
      "count non-empty lines"),
    Q("average file size", lambda o: round(sum(len(t) for t in o.files.values()) / len(o.files), 2),
      "what is the average file size"),
    Q("fraction of files with a word", lambda o: round(len(o.having("TODO", list(o.files))) / len(o.files), 4),
      "what fraction of files have TODOs"),
    Q("files in one directory but not another", lambda o: len([p for p in o.select("src") if not p.startswith("src/pkg1/")]),
      "how many files are in src but not in src/pkg1"),
)

#: Questions the tier cannot answer; serving any of them is a wrong answer.
MUST_REFUSE = (
    "what is the weather today?",
    "compose a haiku about autumn",
    "how many cats are there",
    # "which files import os and sys" is answered since imports are understood (test_code_parts.py)
    # "what is the longest function?" is answered since definitions are ranked by their lines (test_code_parts.py)
    # "how many functions contain a TODO" is answered since a definition's code is understood (test_code_parts.py)
    "delete all python files",
    # "how many lines are longer than 80 characters" is answered since a line's length is understood (test_canon.py)
    "which files changed recently",
    "frobnicate the widgets",
    "count TODOs in python files and markdown files",
    # "how many methods are there" is answered since methods are understood (test_code_parts.py)
    "who wrote src/pkg1/mod1.py",
    "what is the meaning of life",
    "show me the money",
    "count the words that start with a",
    "count TODO files",
    "how many lines of code are there",
    "which files are not python files",
    "count to ten",
    "sort the files",
    # held out, written after the parser
    "how many files live under src/pkg9",
    "how long is README.md",
    "count the files in src/pkg5 and src/pkg6",
    "How many FIXME or TODO markers are there?",
    "list markdown and python files",
    # "how many lines are in the longest file" was refused here until a figure of the file a ranking puts first was
    # understood; it is answered now (tests/infer/understand/test_canon.py: a figure of the first).
    "list files except README.md",
    "count TODOs in the tests",
    "which files mention Module 1",
)


# -- running the table -------------------------------------------------------------------


@pytest.fixture(scope="session")
def fixture_root(tmp_path_factory) -> Path:
    """The benchmark fixture, generated as bench does: ``bench/workloads/make_workspace.py DIR 200``."""
    generator = WORKLOADS / "make_workspace.py"
    root = tmp_path_factory.mktemp("workload")
    subprocess.run([sys.executable, str(generator), str(root), "200"], check=True, capture_output=True)
    return root


@pytest.fixture(scope="session")
def oracle(fixture_root) -> Oracle:
    return Oracle(fixture_root)


@pytest.fixture(scope="session")
def kits(fixture_root):
    toolbox = Toolbox(str(fixture_root))
    populate(toolbox)
    cache: dict = {}

    def kit(spec):
        key = repr(spec)
        if key not in cache:
            cache[key] = resolve_kit(spec, toolbox)
        return cache[key]

    return kit


@dataclass
class Outcome:
    verdict: str  # right | refused | wrong
    program: str = ""
    got: Any = None
    why: str = ""


def run(program: str, kit) -> tuple[bool, Any]:
    checked = validate(program, kit.names)
    if not checked.valid:
        return False, f"invalid: {checked.errors[0]}"
    result = run_program(program, kit, mode="inprocess")
    return (True, result.output) if result.success else (False, f"failed: {result.error}")


def judge(intent: str, expected: Any, root: Path, kits) -> Outcome:
    """Serve ``intent`` on the readonly kit and judge the answer; then every other variant must agree."""
    try:
        proposal = RulesTier(workspace=root).propose(Request(intent, kits("readonly"), workspace=root))
    except NotUnderstood as refusal:
        return Outcome("refused", why=str(refusal))
    if proposal is None:
        return Outcome("refused", why="no match")
    ok, got = run(proposal.program, kits("readonly"))
    if not ok or got != expected:
        return Outcome("wrong", proposal.program, got)
    for tools, _body, _values in build(parse(intent).intent):
        variant = RulesTier(workspace=root).propose(Request(intent, kits(list(tools)), workspace=root))
        ok, got = run(variant.program, kits(list(tools)))
        if not ok or got != expected:
            return Outcome("wrong", variant.program, got, why=f"the variant for {tools} disagrees")
    return Outcome("right", proposal.program, got)


ROWS = [(question.name, phrasing) for question in TABLE for phrasing in question.phrasings]
HELD_ROWS = [(question.name, phrasing) for question in HELD_OUT for phrasing in question.phrasings]


@pytest.fixture(scope="session")
def outcomes(fixture_root, oracle, kits) -> dict[str, Outcome]:
    found = {}
    for question in TABLE + HELD_OUT:
        expected = question.expected(oracle)
        for phrasing in question.phrasings:
            found[phrasing] = judge(phrasing, expected, fixture_root, kits)
    for intent in MUST_REFUSE:
        outcome = judge(intent, object(), fixture_root, kits)  # nothing served can be right
        found[intent] = outcome
    return found


def test_the_table_is_what_the_brief_asks_for():
    assert len(TABLE) >= 25 and len(ROWS) >= 150
    assert len({p for _, p in ROWS}) == len(ROWS), "a phrasing is in the table twice"


@pytest.mark.parametrize("name, phrasing", ROWS + HELD_ROWS)
def test_no_phrasing_gets_a_wrong_answer(outcomes, name, phrasing):
    outcome = outcomes[phrasing]
    assert outcome.verdict != "wrong", f"{name}: {phrasing!r} -> {outcome.got!r} ({outcome.why})\n{outcome.program}"


@pytest.mark.parametrize("intent", MUST_REFUSE)
def test_questions_it_cannot_answer_are_refused(outcomes, intent):
    outcome = outcomes[intent]
    assert outcome.verdict == "refused", f"{intent!r} was served:\n{outcome.program}\n-> {outcome.got!r}"


def test_most_phrasings_are_served_and_none_wrong(outcomes, capsys):
    def counts(rows):
        verdicts = [outcomes[p].verdict for _, p in rows]
        return tuple(verdicts.count(v) for v in ("right", "refused", "wrong"))

    right, refused, wrong = counts(ROWS)
    held = counts(HELD_ROWS)
    with capsys.disabled():
        print(f"\nintent table: {len(TABLE)} questions, {len(ROWS)} phrasings: "
              f"{right} served right, {refused} refused, {wrong} wrong")
        print(f"held out: {len(HELD_OUT)} questions, {len(HELD_ROWS)} phrasings: "
              f"{held[0]} served right, {held[1]} refused, {held[2]} wrong")
        print(f"unanswerable: {len(MUST_REFUSE)} intents, {sum(outcomes[i].verdict == 'refused' for i in MUST_REFUSE)} refused")
        for name, phrasing in ROWS + HELD_ROWS:
            if outcomes[phrasing].verdict != "right":
                print(f"  {outcomes[phrasing].verdict}: {phrasing!r} ({name}): {outcomes[phrasing].why}")
    assert wrong == 0 and held[2] == 0
    assert right / len(ROWS) >= SERVED_AT_LEAST


def test_parse_and_build_cost(capsys):
    """What understanding an intent costs, per phrasing: parse plus building its programs (printed, not asserted)."""
    intents = [p for _, p in ROWS + HELD_ROWS] + list(MUST_REFUSE)
    parse.cache_clear()
    times = []
    for intent in intents:
        started = time.perf_counter()
        parsed = parse(intent)
        if parsed.intent is not None:
            build(parsed.intent)
        times.append((time.perf_counter() - started) * 1e6)
    with capsys.disabled():
        print(f"\nparse+build per intent, uncached, {len(times)} intents: "
              f"median {statistics.median(times):.0f} µs, max {max(times):.0f} µs")
