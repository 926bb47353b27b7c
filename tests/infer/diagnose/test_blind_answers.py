"""A second labelled set of raw answers, written by another engineer from the README's precedence alone, after the classifier was changed.

``corpus`` was written by the engineer who changed the classifier; these
answers were written and labelled without reading it or the classifier's
rules, so they check that the documented precedence is what the code does.
Their first run: 25 answers, 22 named, 21 of those right (95%). The two
misses are kept as labelled: prose lines without a final full stop read as
a cut sentence (``truncated``), and a second, broken fenced block after a
whole first one is dropped by mending, which runs the first (``none``).
"""

from __future__ import annotations

import pytest

from lackpy.kit.docs import resolve_doc

from .corpus import Case
from .test_corpus import MIN_PRECISION, NONE, kit, named_mode  # noqa: F401  (the kit fixture)

F = "```"

BLIND: list[Case] = [
    # sessions whose program still fails: the prompts are the first cause
    Case("jupyter_confusion", 'In [1]: files = find_files("**/*.py")\n\nIn [2]: for f in files\n   ...:     print(f)'),
    Case("jupyter_confusion", '>>> hits = grep("TODO")\n>>> len(hits\n3'),
    Case("jupyter_confusion", 'In [1]: !grep -r TODO .\nsrc/app.py:# TODO: one'),
    # text that is not code, before anything else
    Case("syntax_artifact", 'files = find_files("**/*.py")\nThen we count them:\nlen(files) and that is the answer'),
    Case("syntax_artifact", 'for f in find_files("**/*.py")\n    print(f)'),
    Case("syntax_artifact", f'{F}python\ntotal = 0\nfor f in find_files("**/*.py"):\n    total += read_file(f).count("TODO")\ntotal\n{F}\n{F}python\nprint(total\n{F}'),
    # cut, with clean text before the cut
    Case("truncated", 'total = 0\nfor f in find_files("**/*.py"):\n    total += read_file(f).count("TO'),
    Case("truncated", 'files = find_files("**/*.py")\ncounts = {f: read_file(f).count("TODO") for f in fil'),
    Case("truncated", 'hits = grep("TODO")\nlen(hits)', cut=True),
    Case("truncated", 'Here is a program that counts the TODO comments in every Python file of the'),
    # the kit's reach and the program's shape
    Case("stdlib_leak", 'import subprocess\nout = subprocess.run(["grep", "-r", "TODO", "."], capture_output=True).stdout\nlen(out.splitlines())'),
    Case("stdlib_leak", 'import requests\nrequests.get("http://127.0.0.1:9/todo").text'),
    Case("implement_not_orchestrate", 'class Counter:\n    def __init__(self):\n        self.n = 0\n\nc = Counter()\nc.n'),
    Case("implement_not_orchestrate", 'total = 0\ntry:\n    total = len(grep("TODO"))\nexcept Exception:\n    total = -1\ntotal'),
    Case("unknown_tool", 'len(search_text("TODO"))'),
    Case("unknown_tool", 'files = list_files("src")\nlen(files)'),
    Case("invalid", 'hits = grep("TODO")\nhits.__class__'),
    # after a run: causes before symptoms
    Case("path_prefix", 'files = find_files("*.py")\nsum(read_file(f).count("TODO") for f in files)'),
    Case("path_prefix", 'files = find_files("*.py")\nread_file(files[0]).count("TODO")'),
    Case("wrong_output", 'files = find_files("**/*.py")\n[f for f in files if f.endswith(".PY")]', intent="which python files are there"),
    Case("runtime_error", 'read_file("src/app.py").count(3)'),
    Case("runtime_error", 'int(read_file("README.md"))'),
    Case("limit", 'n = 0\nfor i in range(10**9):\n    n += i\nn'),
    # fine once mended
    Case(NONE, f'Sure! Here you go:\n\n{F}python\nlen(grep("TODO"))\n{F}'),
    Case(NONE, 'import os\nlen([f for f in os.listdir("src")])'),
]


def test_the_blind_answers_are_named_as_the_readme_says(kit, workspace):  # noqa: F811
    read_doc = lambda path: resolve_doc(path, workspace)  # noqa: E731
    got = {case.answer: named_mode(case, kit, read_doc) for case in BLIND}
    named = [case for case in BLIND if got[case.answer] != NONE]
    right = [case for case in named if got[case.answer] == case.label]
    misses = [f"{case.label} named {got[case.answer]}: {case.answer[:60]!r}" for case in BLIND if got[case.answer] != case.label]
    print(f"\nblind answers: {len(BLIND)}, named {len(named)}, right {len(right)}; misses: {misses}")
    assert len(right) / len(named) >= MIN_PRECISION, "\n".join(misses)
    assert len(misses) <= 2, "\n".join(misses)
