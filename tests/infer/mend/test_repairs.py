"""Deterministic repairs: each rewrites one habit of models into a valid lackpy program, and only that."""

from __future__ import annotations

import ast

import pytest

from lackpy.infer.mend.failures import MODES
from lackpy.infer.mend.repairs import REPAIR_MODES, REPAIRS, TEXT_REPAIRS, apply_repairs
from lackpy.lang.validator import validate

KIT = frozenset({"read_file", "write_file", "find_files", "list_dir", "grep", "edit_file"})


def repaired(program: str, names=KIT) -> tuple[str, list[str]]:
    return apply_repairs(program, names)


def same_program(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


# Each case: (repair expected, program a model wrote, the program after all repairs).
FIXES = [
    ("open_to_read_file", 'text = open("README.md").read()\nlen(text)', 'text = read_file("README.md")\nlen(text)'),
    ("open_to_read_file", 'open("README.md", "r").read().count("TODO")', 'read_file("README.md").count("TODO")'),
    ("open_to_read_file", 'open("README.md", encoding="utf-8").read()', 'read_file("README.md")'),
    ("open_to_read_file", 'open("README.md", mode="rt", errors="replace").readlines()', 'read_file("README.md").splitlines(keepends=True)'),
    ("open_to_read_file", 'with open("README.md") as f:\n    x = f.read()\nx', 'x = read_file("README.md")\nx'),
    (
        "open_to_read_file",
        'n = 0\nwith open("README.md") as f:\n    for line in f:\n        n += 1\nn',
        'n = 0\nfor line in read_file("README.md").splitlines(keepends=True):\n    n += 1\nn',
    ),
    ("open_to_read_file", 'open("out.txt", "w").write("done")', 'write_file("out.txt", "done")'),
    ("open_to_read_file", 'with open("out.txt", "w") as f:\n    f.write("done")', 'write_file("out.txt", "done")'),
    (
        "open_to_read_file",
        'with open("a.txt") as src, open("b.txt", "w") as dst:\n    dst.write(src.read().upper())',
        'write_file("b.txt", read_file("a.txt").upper())',
    ),
    ("drop_imports", 'from tools import read_file\nread_file("README.md")', 'read_file("README.md")'),
    ("drop_imports", 'import json\nimport os.path as p\nlen(find_files("*.md"))', 'len(find_files("*.md"))'),
    ("stdlib_to_tools", 'import glob\nlen(glob.glob("**/*.py", recursive=True))', 'len(find_files("**/*.py"))'),
    ("stdlib_to_tools", 'import glob\nglob.glob("*.md")', 'find_files("*.md")'),
    ("stdlib_to_tools", 'import os\nos.listdir("src")', '[e["name"] for e in list_dir("src")]'),
    ("stdlib_to_tools", "import os\nsorted(os.listdir())", 'sorted([e["name"] for e in list_dir()])'),
    ("stdlib_to_tools", 'from glob import glob\nglob("*.md")', 'find_files("*.md")'),
    ("stdlib_to_tools", 'from glob import iglob as g\nlen(list(g("*.md")))', 'len(list(find_files("*.md")))'),
    ("stdlib_to_tools", 'from os import listdir\nlistdir("src")', '[e["name"] for e in list_dir("src")]'),
    ("stdlib_to_tools", 'import os.path\nos.path.isfile("README.md")', 'bool(find_files("README.md", kind="file"))'),
    ("stdlib_to_tools", 'import os.path as osp\nx = osp.join("src", "app.py")\nx', 'x = "src/app.py"\nx'),
    ("stdlib_to_tools", 'from os.path import join\nd = "src"\nread_file(join(d, "app.py"))', 'd = "src"\nread_file(f"{d}/app.py")'),
    ("stdlib_to_tools", 'from os import path\nf = "src/app.py"\npath.basename(f)', 'f = "src/app.py"\nf.rsplit("/", 1)[-1]'),
    ("stdlib_to_tools", 'import os\nf = "src/app.py"\nos.path.dirname(f)', 'f = "src/app.py"\nf.rpartition("/")[0]'),
    ("stdlib_to_tools", 'from pathlib import Path\nPath("README.md").read_text(encoding="utf-8")', 'read_file("README.md")'),
    ("stdlib_to_tools", 'import pathlib\npathlib.Path("out.txt").write_text("hi")', 'write_file("out.txt", "hi")'),
    ("stdlib_to_tools", 'from pathlib import Path\nPath("src").is_dir()', 'bool(find_files("src", kind="dir"))'),
    (
        "stdlib_to_tools",
        'import os\nn = 0\nfor root, dirs, files in os.walk("src"):\n    for f in files:\n        n += len(read_file(os.path.join(root, f)))\nn',
        'n = 0\nfor path in find_files("src/**/*"):\n    n += len(read_file(path))\nn',
    ),
    (
        "stdlib_to_tools",
        'import os\nout = []\nfor r, _, names in os.walk("."):\n    for name in names:\n        if name.endswith(".py"):\n            out.append(os.path.join(r, name))\nout',
        'out = []\nfor path in find_files("**/*"):\n    name = path.rsplit("/", 1)[-1]\n    if name.endswith(".py"):\n        out.append(path)\nout',
    ),
    ("inline_helpers", 'count = lambda p: len(read_file(p))\n[count(f) for f in find_files("*.py")]', '[len(read_file(f)) for f in find_files("*.py")]'),
    (
        "inline_helpers",
        'def lines(p):\n    """Lines of p."""\n    return len(read_file(p).splitlines())\nsorted(find_files("*.py"), key=lines)',
        'sorted(find_files("*.py"), key=lambda p: len(read_file(p).splitlines()))',
    ),
    ("inline_helpers", 'def size(p):\n    return len(read_file(p))\nsize("README.md") + size(p="a.txt")', 'len(read_file("README.md")) + len(read_file("a.txt"))'),
    ("map_filter_to_comprehension", 'list(map(lambda f: f.upper(), find_files("*.py")))', '[f.upper() for f in find_files("*.py")]'),
    ("map_filter_to_comprehension", 'list(filter(lambda f: "test" in f, find_files("*.py")))', '[f for f in find_files("*.py") if "test" in f]'),
    ("map_filter_to_comprehension", 'def big(f):\n    return len(read_file(f)) > 9\nsorted(filter(big, find_files("*")))', 'sorted((item for item in find_files("*") if len(read_file(item)) > 9))'),
    ("while_to_for", "n = 0\ni = 0\nwhile i < 10:\n    n += i\n    i += 1\nn", "n = 0\nfor i in range(10):\n    n += i\nn"),
    ("while_to_for", "n = 0\ni = 2\nwhile 10 >= i:\n    n += i\n    i = i + 2\nn", "n = 0\nfor i in range(2, 11, 2):\n    n += i\nn"),
    (
        "while_to_for",
        'lines = read_file("a").splitlines()\ni = 0\nout = []\nwhile i < len(lines):\n    out.append(lines[i])\n    i += 1\nout',
        'lines = read_file("a").splitlines()\nout = []\nfor i in range(len(lines)):\n    out.append(lines[i])\nout',
    ),
    ("drop_global", 'global n\nn = len(find_files("*.py"))\nn', 'n = len(find_files("*.py"))\nn'),
    ("format_to_fstring", 'n = 2\n"{} of {total}: {!r}".format(n, "x", total=3)', 'n = 2\nf"{n} of {3}: {\'x\'!r}"'),
    (
        "unwrap_main",
        'def main():\n    """Count TODOs."""\n    text = read_file("README.md")\n    return text.count("TODO")\n\nmain()',
        'text = read_file("README.md")\ntext.count("TODO")',
    ),
    ("unwrap_main", 'def main():\n    return len(find_files("*.py"))\nprint(main())', 'len(find_files("*.py"))'),
    (
        "unwrap_main",
        'def run():\n    files = find_files("*.py")\n    return len(files)\nresult = main_result = run()\nresult',
        'files = find_files("*.py")\nresult = main_result = len(files)\nresult',
    ),
    (
        "unwrap_main",
        'def main():\n    return len(find_files("*.py"))\n\nif __name__ == "__main__":\n    main()',
        'len(find_files("*.py"))',
    ),
    ("unwrap_main", 'def main():\n    write_file("a.txt", "x")\nmain()', 'write_file("a.txt", "x")'),
    ("unwrap_main", 'def main():\n    global n\n    n = 1\nmain()\nn', "n = 1\nn"),
    ("unwrap_main", 'def helper():\n    return 1\ndef main():\n    x = helper()\n    return x\nmain()', "x = 1\nx"),
    ("final_print_to_result", 'n = len(find_files("*.py"))\nprint(n)', 'n = len(find_files("*.py"))\nn'),
    ("final_print_to_result", 'print(f"{len(find_files(\'*.py\'))} files")', 'f"{len(find_files(\'*.py\'))} files"'),
    ("final_print_to_result", 'n = 2\nprint("Total:", n, "files")', 'n = 2\nf"Total: {n} files"'),
    ("final_print_to_result", 'n = 2\nprint("a", n, sep=", ", end="")', 'n = 2\nf"a, {n}"'),
    ("final_display_to_result", 'n = len(find_files("*.py"))\ndisplay(n)', 'n = len(find_files("*.py"))\nn'),
    ("strip_main_guard", 'if __name__ == "__main__":\n    n = len(find_files("*.py"))\n    n', 'n = len(find_files("*.py"))\nn'),
    ("strip_main_guard", 'x = 1\nif "__main__" == __name__:\n    x += 1\nx', "x = 1\nx += 1\nx"),
]


@pytest.mark.parametrize(("name", "before", "after"), FIXES)
def test_repair_rewrites_and_result_validates(name, before, after):
    """The repair applies, the program becomes the expected one, and the validator accepts it.

    Only a final print is valid before its repair: it moves the answer from the printed text to the result.
    ``after`` None: the result is checked by running, below.
    """
    assert validate(before, KIT).valid == (name == "final_print_to_result")
    program, applied = repaired(before)
    assert name in applied
    if after is not None:
        assert same_program(program, after), program
    assert validate(program, KIT).valid, validate(program, KIT).errors


def test_format_to_fstring_keeps_a_repeated_argument_evaluated_once_and_the_value():
    """A call argument used twice is not copied into two fields: the repair refuses, and the value is unchanged."""
    program, applied = repaired('"{0:>5}|{0}".format(len(find_files("*")))')
    assert "format_to_fstring" not in applied
    program, applied = repaired('n = 3\n"{0:>5}|{0}".format(n)')
    assert applied == ["format_to_fstring"]
    assert eval(compile(ast.parse(program.split("\n")[1], mode="eval"), "<t>", "eval"), {"n": 3}) == "{0:>5}|{0}".format(3)


# Each case: (repair that must not apply, program, kit names).
REFUSALS = [
    ("open_to_read_file", 'open("README.md").read()', KIT - {"read_file"}),
    ("open_to_read_file", 'open("out.txt", "w").write("x")', KIT - {"write_file"}),
    ("open_to_read_file", 'open("out.txt", "a").write("x")', KIT),  # appending has no tool
    ("open_to_read_file", 'open("data.bin", "rb").read()', KIT),  # bytes, not text
    ("open_to_read_file", 'open("README.md").read(10)', KIT),
    ("open_to_read_file", 'with open("README.md") as f:\n    a = f.read()\n    b = f.read()', KIT),
    ("open_to_read_file", 'with open("out.txt", "w") as f:\n    f.write("a")\n    f.write("b")', KIT),
    ("open_to_read_file", 'with open("README.md") as f:\n    first = f.readline()', KIT),
    ("drop_imports", 'import os\nos.getcwd()', KIT),
    ("drop_imports", 'from os import *\nx = 1', KIT),
    ("stdlib_to_tools", 'import glob\nglob.glob("*.py")', KIT - {"find_files"}),
    ("stdlib_to_tools", 'import glob\nglob.glob("*.py", recursive=False)', KIT),
    ("stdlib_to_tools", 'import glob\nglob.glob("*.py", root_dir="src")', KIT),
    ("stdlib_to_tools", 'import os\nos.listdir("src")', KIT - {"list_dir"}),
    ("stdlib_to_tools", 'import os\np = "a"\nos.path.exists(p)', KIT),  # a variable may hold glob characters
    ("stdlib_to_tools", 'import os\nos.path.exists("src/*.py")', KIT),
    ("stdlib_to_tools", 'import os\nos.path.exists(".")', KIT),
    ("stdlib_to_tools", 'import os\nos.path.splitext("a.py")[1]', KIT),
    ("stdlib_to_tools", 'import os\nos.path.getsize("a.py")', KIT),
    ("stdlib_to_tools", 'from pathlib import Path\n[str(p) for p in Path("src").rglob("*.py")]', KIT),
    ("stdlib_to_tools", 'from pathlib import Path\nPath("a.txt").read_text(encoding="latin-1")', KIT),
    ("stdlib_to_tools", 'import os\nfor root, dirs, files in os.walk("."):\n    for f in files:\n        print(root, len(dirs))', KIT),
    ("stdlib_to_tools", 'import os\nfor root, dirs, files in os.walk("."):\n    n = len(files)', KIT),
    ("stdlib_to_tools", 'import os\nPath = 1\nos = 2\nos.listdir("src")', KIT),  # os is a variable here
    ("inline_helpers", 'f = lambda p: read_file(p)\ng = f\ng("a")', KIT),  # used as a value
    ("inline_helpers", 'f = lambda p: read_file(p) + read_file(p)\nf(find_files("*")[0])', KIT),  # a call argument used twice
    ("inline_helpers", 'f = lambda a, b: a + b\nf(read_file("x"), read_file("y"))', KIT),  # two call arguments
    ("inline_helpers", 'f = lambda p: p and read_file(p)\nf(find_files("*")[0])', KIT),  # argument in a condition
    ("inline_helpers", 'f = lambda: x\n[f() for x in range(3)]', KIT),  # x would be captured
    ("inline_helpers", 'f = lambda p: [p for x in y]\nf(x)', KIT),  # x would be captured
    ("inline_helpers", 'n = f(1)\nf = lambda x: x + 1\nn', KIT),  # called before it exists
    ("inline_helpers", 'f = lambda x: x\nf = lambda x: x + 1\nf(1)', KIT),  # bound twice
    ("inline_helpers", 'def f(x, y=1):\n    return x + y\nf(1)', KIT),
    ("inline_helpers", 'def f(x):\n    return f(x - 1) if x else 0\nf(3)', KIT),
    ("map_filter_to_comprehension", 'map = 1\nlist(map(lambda x: x, [1]))', KIT),
    ("map_filter_to_comprehension", 'list(map(lambda x, y: x + y, [1], [2]))', KIT),
    ("while_to_for", "i = 0\nwhile i < 3:\n    i += 1\ni", KIT),  # the counter is read after the loop
    ("while_to_for", "i = 0\nn = 0\nwhile i < 3:\n    if n:\n        continue\n    i += 1\nn", KIT),
    ("while_to_for", "xs = [1]\ni = 0\nwhile i < len(xs):\n    xs.append(i)\n    i += 1\nxs", KIT),  # stop changes
    ("while_to_for", "n = 3\ni = 0\nwhile i < n:\n    n -= 1\n    i += 1\nn", KIT),
    ("while_to_for", "i = 0\nwhile i < 3:\n    i += 1\nelse:\n    x = 1\nx", KIT),
    ("while_to_for", "i = 0.5\nn = 0\nwhile i < 3:\n    n += 1\n    i += 1\nn", KIT),
    ("while_to_for", "i = 0\nn = 0\nwhile i < 3:\n    n += 1\n    i += n\nn", KIT),  # a step that is not a constant
    ("while_to_for", "i = 0\nn = 0\nwhile i < 3:\n    i += 1\n    n += i\nn", KIT),  # the increment is not last
    ("while_to_for", "i = 0\nprint(i)\nwhile i < 3:\n    i += 1\n3", KIT),
    ("format_to_fstring", '"{0.name}".format(x)', KIT),
    ("format_to_fstring", '"{a[0]}".format(a=[1])', KIT),
    ("format_to_fstring", '"{}".format(*xs)', KIT),
    ("format_to_fstring", '"{1}{0}".format(read_file("a"), read_file("b"))', KIT),  # the reads would swap order
    ("unwrap_main", 'def main(path):\n    return read_file(path)\nmain("a")', KIT),
    ("unwrap_main", 'def main():\n    if find_files("*.py"):\n        return 1\n    return 0\nmain()', KIT),
    ("unwrap_main", 'def main():\n    if True:\n        global n\n    n = 1\nmain()', KIT),
    ("unwrap_main", 'def main():\n    for f in find_files("*"):\n        yield f\nmain()', KIT),
    ("unwrap_main", 'def helper():\n    return files\ndef main():\n    files = 1\n    return helper()\nmain()', KIT),
    ("unwrap_main", 'def main():\n    return 1\nmain()\nmain()', KIT),
    ("unwrap_main", '@cache\ndef main():\n    return 1\nmain()', KIT),
    ("final_print_to_result", 'print(*xs)', KIT),
    ("final_print_to_result", 'print(x, file=out)', KIT),
    ("final_print_to_result", 'print(x, sep=s)', KIT),
    ("final_print_to_result", "print()", KIT),
    ("final_print_to_result", 'print("a")\nx = 1', KIT),
    ("strip_main_guard", 'if __name__ == "__main__":\n    x = 1\nelse:\n    x = 2', KIT),
    ("strip_main_guard", 'if name == "__main__":\n    x = 1', KIT),
]


@pytest.mark.parametrize(("name", "program", "names"), REFUSALS)
def test_repair_does_not_apply(name, program, names):
    """The repair leaves programs it cannot translate faithfully (or whose tool is missing) alone."""
    _, applied = repaired(program, names)
    assert name not in applied


def test_nothing_to_repair_returns_the_program_unchanged():
    """A valid program comes back character for character, comments included, with no repairs named."""
    program = "# count the Python files\nfiles = find_files('**/*.py')  # all of them\nlen(files)\n"
    assert repaired(program) == (program, [])


def test_unparsable_program_is_returned_unchanged():
    """A program that does not parse is left for the validator to report."""
    program = "x = open('a').read(\n"
    assert repaired(program) == (program, [])


def test_repairs_chain_across_rounds_in_table_order():
    """unwrap_main exposes open() and os.listdir; later repairs and drop_imports finish the job."""
    program = (
        "import os\n\n"
        "def main():\n"
        "    names = os.listdir('src')\n"
        "    text = open('README.md').read()\n"
        "    return {'names': names, 'lines': len(text.splitlines())}\n\n"
        "if __name__ == '__main__':\n"
        "    print(main())\n"
    )
    fixed, applied = repaired(program)
    assert applied == ["unwrap_main", "open_to_read_file", "stdlib_to_tools", "drop_imports"]
    assert same_program(
        fixed,
        "names = [e['name'] for e in list_dir('src')]\ntext = read_file('README.md')\n{'names': names, 'lines': len(text.splitlines())}",
    )
    assert validate(fixed, KIT).valid


def test_import_stays_while_its_module_is_used():
    """drop_imports keeps 'import os' when os is still used, so the validator names the real problem."""
    fixed, applied = repaired("import os\nfrom tools import read_file\nos.getcwd()")
    assert applied == ["drop_imports"]
    assert same_program(fixed, "import os\nos.getcwd()")


def test_every_repair_is_named_and_described():
    """Every repair has a description and the failure mode it fixes; drop_imports follows the rewrites that free imports."""
    names = [r.name for r in REPAIRS]
    assert sorted(names) == sorted(
        [
            "unwrap_main", "strip_main_guard", "drop_global", "map_filter_to_comprehension", "inline_helpers", "while_to_for",
            "open_to_read_file", "stdlib_to_tools", "format_to_fstring", "drop_imports", "final_print_to_result",
            "final_display_to_result",
        ]
    )
    assert names.index("drop_imports") > max(names.index("open_to_read_file"), names.index("stdlib_to_tools"))
    assert names.index("map_filter_to_comprehension") < names.index("inline_helpers")
    assert all(r.description and callable(r.apply) for r in (*REPAIRS, *TEXT_REPAIRS))
    assert set(REPAIR_MODES.values()) <= set(MODES)


def test_fstring_quotes_is_a_text_repair():
    """A Python 3.12 f-string that does not parse here is requoted before the tree repairs run."""
    program, applied = repaired('hits = grep("TODO")\nprint(f"{hits[0]["path"]}")')
    assert applied == ["fstring_quotes", "final_print_to_result"]
    assert program == "hits = grep('TODO')\nf\"{hits[0]['path']}\""


def test_inlined_helper_keeps_the_scope_of_the_function_it_is_called_in():
    """A helper called inside another function whose locals would hide the helper's global names is left alone."""
    program = "def f(p):\n    return read_file(p + ext)\ndef g():\n    ext = '.md'\n    return f('a')\nx = 1"
    _, applied = repaired(program)
    assert "inline_helpers" not in applied
