"""Deterministic repairs: each rewrites one habit of models into a valid lackpy program, and only that."""

from __future__ import annotations

import ast

import pytest

from lackpy.infer.repairs import REPAIRS, apply_repairs
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
    ("glob_to_find_files", 'import glob\nlen(glob.glob("**/*.py", recursive=True))', 'len(find_files("**/*.py"))'),
    ("glob_to_find_files", 'import glob\nglob.glob("*.md")', 'find_files("*.md")'),
    ("glob_to_find_files", 'import os\nos.listdir("src")', '[e["name"] for e in list_dir("src")]'),
    ("glob_to_find_files", "import os\nsorted(os.listdir())", 'sorted([e["name"] for e in list_dir()])'),
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
    ("final_print_to_result", 'n = len(find_files("*.py"))\nprint(n)', 'n = len(find_files("*.py"))\nn'),
    ("final_print_to_result", 'print(f"{len(find_files(\'*.py\'))} files")', 'f"{len(find_files(\'*.py\'))} files"'),
    ("strip_main_guard", 'if __name__ == "__main__":\n    n = len(find_files("*.py"))\n    n', 'n = len(find_files("*.py"))\nn'),
    ("strip_main_guard", 'x = 1\nif "__main__" == __name__:\n    x += 1\nx', "x = 1\nx += 1\nx"),
]


@pytest.mark.parametrize(("name", "before", "after"), FIXES)
def test_repair_rewrites_and_result_validates(name, before, after):
    """The repair applies, the program becomes the expected one, and the validator accepts it.

    Only a final print is valid before its repair: it moves the answer from the printed text to the result.
    """
    assert validate(before, KIT).valid == (name == "final_print_to_result")
    program, applied = repaired(before)
    assert name in applied
    assert same_program(program, after), program
    assert validate(program, KIT).valid, validate(program, KIT).errors


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
    ("glob_to_find_files", 'import glob\nglob.glob("*.py")', KIT - {"find_files"}),
    ("glob_to_find_files", 'import glob\nglob.glob("*.py", recursive=False)', KIT),
    ("glob_to_find_files", 'import os\nos.listdir("src")', KIT - {"list_dir"}),
    ("unwrap_main", 'def main(path):\n    return read_file(path)\nmain("a")', KIT),
    ("unwrap_main", 'def main():\n    if find_files("*.py"):\n        return 1\n    return 0\nmain()', KIT),
    ("unwrap_main", 'def main():\n    global n\n    n = 1\nmain()', KIT),
    ("unwrap_main", 'def main():\n    for f in find_files("*"):\n        yield f\nmain()', KIT),
    ("unwrap_main", 'def helper():\n    return 1\ndef main():\n    return helper()\nmain()', KIT),
    ("unwrap_main", 'def main():\n    return 1\nmain()\nmain()', KIT),
    ("unwrap_main", '@cache\ndef main():\n    return 1\nmain()', KIT),
    ("final_print_to_result", 'print("a", "b")', KIT),
    ("final_print_to_result", 'print(x, end="")', KIT),
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
    assert applied == ["unwrap_main", "open_to_read_file", "glob_to_find_files", "drop_imports"]
    assert same_program(
        fixed,
        "names = [e['name'] for e in list_dir('src')]\ntext = read_file('README.md')\n{'names': names, 'lines': len(text.splitlines())}",
    )
    assert validate(fixed, KIT).valid


def test_import_stays_while_its_module_is_used():
    """drop_imports keeps 'import os' when os is still used, so the validator names the real problem."""
    fixed, applied = repaired("import os\nfrom tools import read_file\nos.path.exists('a')")
    assert applied == ["drop_imports"]
    assert same_program(fixed, "import os\nos.path.exists('a')")


def test_every_repair_is_named_and_described():
    """The table holds the six repairs, drop_imports after the rewrites that free imports."""
    names = [r.name for r in REPAIRS]
    assert sorted(names) == sorted(
        ["open_to_read_file", "drop_imports", "unwrap_main", "final_print_to_result", "glob_to_find_files", "strip_main_guard"]
    )
    assert names.index("drop_imports") > max(names.index("open_to_read_file"), names.index("glob_to_find_files"))
    assert all(r.description and callable(r.apply) for r in REPAIRS)
