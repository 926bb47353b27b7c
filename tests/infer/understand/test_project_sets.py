"""Issue 37's blind measures on the project fixture: fourteen sets of 36 everyday questions, each asked as written.

Each set (``<name>_questions.py``) was written by an engineer who had not
read the parser, its tests, its README paragraph or the earlier sets, about
the project of ``bench/workloads/make_project.py`` (a small library with
packages, classes, tests, docs, configuration and scripts), with every
answer computed by plain Python and the fair second readings recorded
before the set was run once. They are judged as the other everyday sets are
(``test_everyday.judged``). ``SETS`` holds, for each, its history: the
first run, which is the blind figure, what was built from it since (no
longer blind), and the figure now, held so that nothing answered right is
lost and no wrong answer comes back.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest

from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate

from .test_everyday import ask_set, hold
from .test_intents import WORKLOADS


@dataclass(frozen=True)
class Held:
    """A set's figure now (right at least, wrong at most) and its history in words."""

    right: int
    wrong: int
    history: str


SETS: dict[str, Held] = {
    "third": Held(34, 0, """\
Issue 37's third blind measure: the 36 everyday questions of ``third_questions`` about a realistic project, asked as written.

The project (``bench/workloads/make_project.py``: a small library with
packages, classes and methods, tests, docs, configuration files and
scripts) and the questions were written by an engineer who had not read
the parser, its tests or its README paragraph, with every answer computed
by plain Python and the fair second readings recorded before any question
was asked. They are judged as the other everyday sets are
(``test_everyday.judged``).

First run (2026-11-29, the tier at b01488c, before anyone working on it
had read the set): 21 right, 12 refused, 3 wrong, short of the issue's
targets on both counts (4 in 5 right: 29; 1 in 30 wrong: at most 1). The
three wrong: "different method names across the classes in shop/models"
counted the names of the classes too (a question about methods that names
classes read as asking about both); "lines in the Python code longer than
100 characters" counted every line of the code; "which modules import
shop.models.user" missed the modules that import it relatively
(``from .user import User``).

Since, and no longer blind: with methods said with their classes, lines in
files kept by their own length, and relative imports made absolute from the
package of their file: 24 right, 12 refused, 0 wrong; with "the tests"
(the folder), test functions (named test_*), "don't take any arguments",
subpackages of a package, and a loop over files kept by a condition named
first (the language loops over a call or a name): 30 right, 6 refused, 0
wrong; with definitions with or without a docstring, and "in the shop
package": 31 right, 5 refused, 0 wrong; with the class with the most
methods: 32 right, 4 refused, 0 wrong; with "the most TODOs any single
file has": 33 right, 3 refused, 0 wrong.
"""),
    "fourth": Held(36, 0, """\
Issue 37's fourth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, over the project of
``bench/workloads/make_project.py``, with every answer computed by plain
Python and the fair second readings recorded before any question was
asked; judged as the other everyday sets are (``test_everyday.judged``).

First run (2026-11-29, the tier at b68607c, before anyone working on it had
read the set): 25 right, 11 refused, 0 wrong. None wrong meets the issue's
1 in 30; 25 of 36 (69%) is short of its 4 in 5.

Since, and no longer blind: with "largest first" said alone as an order,
lines outside a folder kept by their own length, module-level (top-level)
functions, names said after a place ("functions in X start with get_") and
the test suite: 30 right, 6 refused, 0 wrong; with the methods of a named
class, the class with the most methods, and the parameters of a function
(and their average): 34 right, 2 refused, 0 wrong; with the share of the
lines in a folder: 35 right, 1 refused, 0 wrong.
"""),
    "fifth": Held(32, 0, """\
Issue 37's fifth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a developer on a first day with the
project of ``bench/workloads/make_project.py`` would ask, with every answer
computed by plain Python and the fair second readings recorded before any
question was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 13df03b, before anyone working on it had
read the set): 18 right, 17 refused, 1 wrong. Its author asked more as one
talks than the others did ("Where are the FIXMEs? Which files have one?",
"relative imports count too", "Dotted names please"). The wrong answer was
a failure at run time: "Which module is the 3rd longest, counting lines?".

Since, and no longer blind: with a figure of the file at an ordinal place
and "counting lines", "completely", "TODOs left", empty files, "any TODOs or
FIXMEs", and definitions ranked by their lines ("the longest function"): 22
right, 14 refused, 0 wrong; with "N lines long", "starts with a docstring",
"the most TODOs any file has", the pages of the docs, and the classes that
inherit from a named one: 28 right, 8 refused, 0 wrong; with the share of
the lines in a folder: 29 right, 7 refused, 0 wrong.
"""),
    "sixth": Held(30, 0, """\
Issue 37's sixth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as quick factual questions of a reviewer,
over the project of ``bench/workloads/make_project.py``, with every answer
computed by plain Python and the fair second readings recorded before any
question was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at b7bfe27, before anyone working on it had
read the set): 23 right, 12 refused, 1 wrong. The wrong answer: "Which
package inside shop is the smallest, in bytes?" named shop itself (the
folder of shop's own modules) where the packages inside it were asked.

Since, and no longer blind: a ranking of the folders inside a folder leaves
that folder out: 24 right, 12 refused, 0 wrong; with a superlative measured
"by line count", the nth definition of a file, the tests importing, a
method's parameters by Class.method, and a class's bases: 29 right, 7
refused, 0 wrong.
"""),
    "seventh": Held(35, 0, """\
Issue 37's seventh blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as one getting oriented in the project of
``bench/workloads/make_project.py`` would ask a code-search assistant, with
every answer computed by plain Python and the fair second readings
recorded before any question was asked; judged as the other everyday sets
are.

First run (2026-11-29, the tier at b0f5a76, before anyone working on it had
read the set): 23 right, 13 refused, 0 wrong.

Since, and no longer blind: with "going by line count", the JSON configs,
"take just a single parameter", "import something from", what a docstring
says, "functions or methods" (and two markers said only in capitals: "any
functions or methods" had been read as two words searched for, a latent
wrong answer this set caught), "'s got", and the share of the files of a
type: 31 right, 5 refused, 0 wrong.
"""),
    "eighth": Held(33, 0, """\
Issue 37's eighth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets (they saw the names of the other sets'
files, not their text), as a tech lead sizing up an inherited repository,
over the project of ``bench/workloads/make_project.py``, with every answer
computed by plain Python and the fair second readings recorded before any
question was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 2eab941, before anyone working on it had
read the set): 17 right, 18 refused, 1 wrong. The wrong answer: "What's the
longest function in routes.py?" read routes.py at the top of the workspace,
where there is none, and failed at run time.

Since, and no longer blind: with a file named alone being the one file of
that name, and the wordings it showed ("tests included", "the single
longest line", "are there any X? Which ones?", "how many methods does Money
have", "not counting self", "the median length, in lines", "the most code",
"take up", "second-longest", "functions and methods", "how many tests are
in X", a glob of files as a place): 30 right, 6 refused, 0 wrong. Dropping
"the package's" from "the package's Python lines" was tried and answered
wrong (the share among the package's lines was asked, not among all), so
that question is refused. With a count against a number ("does the repo
have more than 50 files"), one file against a number ("is routes.py longer
than 250 lines") and the last method of a class: 33 right, 3 refused, 0
wrong.
"""),
    "ninth": Held(34, 1, """\
Issue 37's ninth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a new team member would ask on the first
day with the project of ``bench/workloads/make_project.py``, with every
answer computed by plain Python and the fair second readings recorded
before any question was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 7b8c593, before anyone working on it had
read the set): 26 right, 9 refused, 1 wrong. The wrong one is a reading:
"How many functions in shop/ don't take any arguments at all?" was
answered 35, counting methods whose only parameter is self (a call passes
them nothing), where the author counted self and expected 5. lackpy keeps
its reading, that self is not an argument, and the set keeps the author's.

Since, and no longer blind: with "go over 100 characters", "which function
has the longest name", "pull in", "how big on average", "take up" said of
a folder, "directly in it", and "error classes that inherit straight
from": 33 right, 2 refused, 1 wrong (the same reading).
"""),
    "tenth": Held(34, 0, """\
Issue 37's tenth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as one preparing a code review summary of
the project of ``bench/workloads/make_project.py`` would ask, with every
answer computed by plain Python and the fair second readings recorded
before any question was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 03e8381, before anyone working on it had
read the set): 23 right, 13 refused, 0 wrong.

Since, and no longer blind: with markdown headings (# lines), "add up to",
"all together", "have got", "has something in it", "comes first", "every
file counted", "not counting subfolders", "just paste it", and files ranked
by their import statements: 32 right, 4 refused, 0 wrong.
"""),
    "eleventh": Held(34, 0, """\
Issue 37's eleventh blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a developer working on it would ask about the
project of ``bench/workloads/make_project.py``, with every answer computed
by plain Python and the fair second readings recorded before any question
was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 501a189, before anyone working on it had
read the set): 26 right, 10 refused, 0 wrong.

Since, and no longer blind: with "if you count lines", "size-wise", "all
told", "any X? which ones?", "truncate()", "just the module names please",
a class's method or docstring asked by name, "have we got", "isn't empty",
"whats", functions ranked by their parameters, "how long on average", the
docs pages and "live in": 32 right, 4 refused, 0 wrong.
"""),
    "twelfth": Held(35, 0, """\
Issue 37's twelfth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as an engineer on call finding their way around would ask about the
project of ``bench/workloads/make_project.py``, with every answer computed
by plain Python and the fair second readings recorded before any question
was asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 501a189, before anyone working on it had
read the set): 23 right, 12 refused, 1 wrong. The wrong
answer: "what's the 3rd longest module under shop/ if you count lines?"
read "count lines" as asking for the lines of the module ranked there
(100) where it only says how the modules are ranked.

Since, and no longer blind: with "if you count lines", "size-wise", "all
told", "any X? which ones?", "truncate()", "just the module names please",
a class's method or docstring asked by name, "have we got", "isn't empty",
"whats", functions ranked by their parameters, "how long on average", the
docs pages and "live in": 33 right, 3 refused, 0 wrong.
"""),
    "thirteenth": Held(35, 0, """\
Issue 37's thirteenth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a developer would type to an assistant, about the project of
``bench/workloads/make_project.py``, with every answer computed by plain
Python and the fair second readings recorded before any question was
asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at b2681d4, before anyone working on it had
read the set): 29 right, 7 refused, 0 wrong (81%: the issue's targets, 4 in 5 right and at most 1 in 30 wrong, met on this set's first run).

Since, and no longer blind: with the wordings it showed: 35 right, 1 refused, 0 wrong.
"""),
    "fourteenth": Held(33, 0, """\
Issue 37's fourteenth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a product engineer who rarely writes Python would ask, about the project of
``bench/workloads/make_project.py``, with every answer computed by plain
Python and the fair second readings recorded before any question was
asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at b2681d4, before anyone working on it had
read the set): 23 right, 12 refused, 1 wrong. The wrong answer:
"Roughly what percentage of all the lines in the repo live in Python
files?" read "Python" as the name of a folder the lines live in (0.0).

Since, and no longer blind: with a kind of file refused as a
folder's name, and the wordings it showed: 32 right, 4 refused, 0 wrong.
"""),
    "fifteenth": Held(34, 0, """\
Issue 37's fifteenth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a developer would type to an assistant, about the project of
``bench/workloads/make_project.py``, with every answer computed by plain
Python and the fair second readings recorded before any question was
asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 8a536b7, before anyone working on it had
read the set): 26 right, 9 refused, 1 wrong. The wrong
answer: "If I add up every line of every .py file under shop/, what do I
get?" searched the lines for the word "I".

Since, and no longer blind: a pronoun is never a word searched for, "the
scripts" said alone is refused as vague unless the workspace has a folder
of that name (then its files), and "modules in X import Y" names files:
27 right, 9 refused, 0 wrong.
"""),
    "sixteenth": Held(29, 0, """\
Issue 37's sixteenth blind measure: 36 more everyday questions about the project fixture, asked as written.

Written by an engineer who had not read the parser, its tests, its README
paragraph or the earlier sets, as a student reading the code to learn it would ask, about the project of
``bench/workloads/make_project.py``, with every answer computed by plain
Python and the fair second readings recorded before any question was
asked; judged as the other everyday sets are.

First run (2026-11-29, the tier at 8a536b7, before anyone working on it had
read the set): 21 right, 13 refused, 2 wrong. The wrong
answers: "If I add up every line in the tests/ folder" searched for the
word "I", and "Is any of the scripts over 1 KB?" read "the scripts" as
every file, where the project's scripts folder was meant.

Since, and no longer blind: a pronoun is never a word searched for, "the
scripts" said alone is refused as vague unless the workspace has a folder
of that name (then its files), and "modules in X import Y" names files:
24 right, 12 refused, 0 wrong.
"""),
    "seventeenth": Held(35, 0, """\
A developer typing to an assistant.

First run (2026-11-29, the tier at 1ff2527, before anyone working on it had
read the set): 32 right, 4 refused, 0 wrong (89%: the issue's targets met
on this set's first run).

Since, and no longer blind: with "zero arguments", "actually import", "is
yaml imported anywhere", and the eighteenth set's wordings: 35 right, 1
refused, 0 wrong."""),
    "eighteenth": Held(34, 0, """\
A senior engineer doing a quick health check of an unfamiliar repository.

First run (2026-11-29, the tier at 1ff2527, before anyone working on it had
read the set): 25 right, 11 refused, 0 wrong.

Since, and no longer blind: with "weigh", "give me total bytes", "the
longest single line", "lurking in", "the first class you hit", "(non-empty)",
"go over 200 lines", "can you paste me" and "behind @require_auth": 34 right,
2 refused, 0 wrong."""),
    "nineteenth": Held(31, 0, """\
A developer typing to an assistant.

First run (2026-11-29, the tier at f6b22b7, before anyone working on it had
read the set): 26 right, 10 refused, 0 wrong.

Since, and no longer blind, with the wordings of this set and the next: 31
right, 5 refused, 0 wrong."""),
    "twentieth": Held(31, 1, """\
A maintainer preparing for a refactor.

First run (2026-11-29, the tier at f6b22b7, before anyone working on it had
read the set): 23 right, 12 refused, 1 wrong. The wrong one is a reading:
"How many blank lines are there across the test files?" counted the files
named test_* (114), where the author counted every file of the tests folder,
conftest.py and __init__.py too (121).

Since, and no longer blind, with its wordings ("README included", "check:",
"sitting outside of", "import from", "anything in X", "Order's methods", a
package named by a part of its dotted path, the first top-level function,
the average parameters of top-level functions): 31 right, 4 refused, 1
wrong (the same reading)."""),
    "twentyfirst": Held(29, 0, """\
A developer typing to an assistant.

First run (2026-11-29, the tier at 1eba3a0, before anyone working on it had
read the set): 29 right, 7 refused, 0 wrong (81%: the issue's targets met
on this set's first run)."""),
    "twentysecond": Held(30, 0, """\
A reviewer checking what surrounds a pull request.

First run (2026-11-29, the tier at 1eba3a0, before anyone working on it had
read the set): 30 right, 6 refused, 0 wrong (83%: the issue's targets met
on this set's first run)."""),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    subprocess.run([sys.executable, str(WORKLOADS / "make_project.py"), str(root)], check=True, capture_output=True)
    toolbox = Toolbox(str(root))
    populate(toolbox)
    cache: dict = {}

    def kit(spec):
        if repr(spec) not in cache:
            cache[repr(spec)] = resolve_kit(spec, toolbox)
        return cache[repr(spec)]

    return root, kit


@pytest.mark.parametrize("name", list(SETS))
def test_a_blind_set(project, name, capsys):
    root, kits = project
    module = __import__(f"{__package__}.{name}_questions", fromlist=["questions"])
    hold(f"{name} everyday questions", ask_set(module.questions, root, kits), 36, SETS[name].right, SETS[name].wrong, capsys)
