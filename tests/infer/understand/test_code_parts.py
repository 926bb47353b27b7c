"""Questions about the parts of code the rules tier reads from text: what a definition's code holds, docstrings and imports.

Each answer is checked against a workspace written here, whose truth is
plain: every expectation below can be read off the files by eye.
"""

from __future__ import annotations

import asyncio

from lackpy import LackpyService
from lackpy.infer.understand.intent import parse

CODE = '''\
import os
from json import loads


def alpha(x):
    # TODO: the empty case
    return x


@cached
def beta(x, y):
    def inner(z):
        return z  # TODO inner
    return inner(x) + y

# TODO: a comment between two definitions is the first one's


class Gamma:
    def method(self):
        return 1


def delta():
    return 0
'''


def _answer(root, question: str):
    async def main():
        async with LackpyService(root, trust=False) as svc:
            return await svc.delegate(question, kit="readonly")

    return asyncio.run(main())


def _workspace(tmp_path):
    (tmp_path / "a.py").write_text(CODE)
    (tmp_path / "b.py").write_text('"""B."""\n\ndef only(x):\n    return x\n')
    return tmp_path


def test_definitions_kept_by_what_their_code_holds(tmp_path):
    root = _workspace(tmp_path)
    # alpha (its own TODO), beta (its inner function's TODO, and the comment after it), inner
    assert _answer(root, "which functions contain TODO").output == ["alpha", "beta", "inner"]
    assert _answer(root, "How many functions have a TODO in them?").output == 3
    assert _answer(root, "which functions don't mention TODO").output == ["method", "delta", "only"]
    assert _answer(root, "are there any classes containing TODO").output is False
    assert _answer(root, "which functions in a.py mention return").output == ["alpha", "beta", "inner", "method", "delta"]


def test_the_share_of_the_definitions_whose_code_holds_a_word(tmp_path):
    root = _workspace(tmp_path)
    assert _answer(root, "What percentage of the functions have a TODO comment?").output == 50.0  # 3 of 6
    assert _answer(root, "what fraction of functions mention TODO").output == 0.5


def test_files_kept_first_then_their_definitions(tmp_path):
    root = _workspace(tmp_path)
    assert _answer(root, "how many functions in files containing B. contain return").output == 1  # b.py's only


def test_definitions_containing_a_word_with_another_question_about_them_is_refused():
    assert parse("the longest name of the functions containing TODO").intent is None
    assert parse("how many functions containing TODO per file").intent is None


DOCSTRINGS = {
    "one.py": '"""One line."""\n\nx = 1\n',
    "many.py": '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\n"""Summary.\n\n    Indented body\n      deeper\n    """\nimport os\n',
    "raw.py": "r'''Raw and single-quoted.'''\n",
    "short.py": "'short'\n",
    "none.py": "import os\n'''not a docstring: not the first statement'''\n",
    "fstring.py": 'f"""{1} is not a docstring"""\n',
    "empty.py": "",
}


def test_a_modules_docstring_is_the_one_python_reads(tmp_path):
    import ast

    for name, text in DOCSTRINGS.items():
        (tmp_path / name).write_text(text)
    for name, text in DOCSTRINGS.items():
        truth = ast.get_docstring(ast.parse(text))
        assert _answer(tmp_path, f"What's the docstring of {name}?").output == truth, name
    has = sorted(name for name, text in DOCSTRINGS.items() if ast.get_docstring(ast.parse(text)) is not None)
    assert _answer(tmp_path, "which modules have a docstring").output == has
    assert _answer(tmp_path, "Are there any modules without a docstring?").output is True
    assert _answer(tmp_path, "how many python files have no docstring").output == len(DOCSTRINGS) - len(has)


IMPORTS = {
    "a.py": "import os, sys as system\nfrom json import loads\nimport os.path\n",
    "b.py": "from . import sibling\nfrom collections.abc import Mapping\n# import commented_out\n",
    "c.py": "x = 'import nothing'\n",
}


def test_the_modules_the_code_imports_are_the_ones_python_reads(tmp_path):
    import ast

    for name, text in IMPORTS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "notes.md").write_text("import markdown\n")  # not code: never counted
    truth = set()
    for text in IMPORTS.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                truth |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                truth.add("." * node.level + (node.module or ""))
    assert _answer(tmp_path, "which modules does the code import").output == sorted(truth)
    assert _answer(tmp_path, "How many distinct modules are imported across the code base?").output == len(truth)
    assert _answer(tmp_path, "which modules import os?").output == ["a.py"]
    assert _answer(tmp_path, "Do any of the files import collections?").output is True  # collections.abc is beneath it
    assert _answer(tmp_path, "which python files don't import json").output == ["b.py", "c.py"]
    assert _answer(tmp_path, "how many modules import markdown").output == 0


def test_a_part_of_code_said_of_something_else_is_refused():
    assert parse("the docstring of python files").intent is None  # of which file?
    assert parse("lines without a docstring").intent is None
    assert parse("the average number of imports per file").intent is None
    assert parse('files containing "docstring"').intent.filters[0].word == "docstring"  # quoted: the word


def test_two_modules_imported_both_either_or_neither(tmp_path):
    for name, text in IMPORTS.items():
        (tmp_path / name).write_text(text)
    assert _answer(tmp_path, "which files import os and json").output == ["a.py"]
    assert _answer(tmp_path, "which files import json or collections").output == ["a.py", "b.py"]
    assert _answer(tmp_path, "which python files do not import os or collections").output == ["c.py"]


def test_the_share_of_the_lines_that_are_blank_or_hold_a_word(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n\n# TODO\n\n")  # 4 lines: 2 blank, 1 TODO
    (tmp_path / "b.md").write_text("TODO\ntext\n")  # 2 lines: 1 TODO
    assert _answer(tmp_path, "What percentage of the lines in the Python files are blank?").output == 50.0
    assert _answer(tmp_path, "what fraction of lines contain TODO").output == round(2 / 6, 4)
    assert _answer(tmp_path, "what percentage of lines are not empty").output == round(100 * 4 / 6, 2)
    assert _answer(tmp_path, "how many lines are blank").output == 2


SIGNATURES = '''\
def none():
    pass


def one(x):
    pass


def defaults(a, sep=",", pair=(1, 2), *, key: "dict[str, int]" = None):
    pass


def spread(*args, **kwargs):
    pass


def markers(a, /, b, *, c):
    pass


def wrapped(
    first,
    second: int = 2,
):
    pass


class Thing(Base, metaclass=Meta):
    def method(self, x, y):
        pass

    @classmethod
    def build(cls):
        pass
'''


def _arguments(node) -> int:
    """What a developer counts: every parameter, less a method's self or cls."""
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs] + [p.arg for p in (a.vararg, a.kwarg) if p]
    return len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)


def test_definitions_by_the_arguments_they_take(tmp_path):
    import ast

    (tmp_path / "sig.py").write_text(SIGNATURES)
    taken = {node.name: _arguments(node) for node in ast.walk(ast.parse(SIGNATURES)) if isinstance(node, ast.FunctionDef)}
    order = list(taken)  # the order of ast.walk is not the file's: compare as sets where order is not asked
    assert set(_answer(tmp_path, "which functions take more than one argument").output) == {n for n in order if taken[n] > 1}
    assert set(_answer(tmp_path, "which functions take no arguments").output) == {n for n in order if taken[n] == 0}
    assert _answer(tmp_path, "how many functions have at least 3 parameters").output == sum(1 for n in order if taken[n] >= 3)
    assert _answer(tmp_path, "Do any of the functions take more than four arguments?").output is (max(taken.values()) > 4)
    assert _answer(tmp_path, "what percentage of functions take exactly 2 arguments").output == round(
        100 * sum(1 for n in order if taken[n] == 2) / len(order), 2)
    assert parse("python files with more than 2 arguments").intent is None  # arguments are a function's


def test_imports_said_alone_have_two_readings_and_both_are_offered(tmp_path):
    for name, text in IMPORTS.items():
        (tmp_path / name).write_text(text)
    refused = parse("how many imports are there")
    assert refused.intent is None
    assert "'how many modules are imported'" in refused.problems[0] and "'how many import statements are there'" in refused.problems[0]
    assert _answer(tmp_path, "how many import statements are there").output == 5  # a.py's three lines, b.py's two
    assert _answer(tmp_path, "how many modules are imported").output == 6
    assert _answer(tmp_path, "list the imports").output == sorted(["os", "sys", "json", "os.path", ".", "collections.abc"])


def test_the_most_common_name_by_definitions_or_by_files_and_its_first_word(tmp_path):
    (tmp_path / "a.py").write_text("def load(x):\n    pass\n\ndef load(x):\n    pass\n\ndef save_all(x):\n    pass\n")
    (tmp_path / "b.py").write_text("def save(x):\n    pass\n\ndef save_one(x):\n    pass\n")
    (tmp_path / "c.py").write_text("def save(x):\n    pass\n\ndef _load_it(x):\n    pass\n")
    assert _answer(tmp_path, "what is the most common function name").output == ["load", "save"]  # two each: a tie, both
    assert _answer(tmp_path, "Which function names show up in the most modules?").output == "save"  # b.py and c.py
    assert _answer(tmp_path, "the commonest first word of function names").output == "save"  # save, save_all, save_one, save
    assert parse("the most common function name containing TODO").intent is None


def test_methods_are_the_functions_a_class_holds(tmp_path):
    (tmp_path / "sig.py").write_text(SIGNATURES)
    (tmp_path / "nested.py").write_text("def outer(x):\n    def inner(y):\n        pass\n    class Local:\n        def m(self):\n            pass\n")
    assert _answer(tmp_path, "how many methods are there").output == 3  # method, build, m; never inner
    assert set(_answer(tmp_path, "which methods take more than 1 argument").output) == {"method"}  # self is not counted
    assert _answer(tmp_path, "list the methods named b*").output == ["build"]
    assert _answer(tmp_path, "Are there any methods containing classmethod?").output is False  # a decorator is above its method
    assert parse("the longest method name").intent is None
    assert parse("which file has the most methods").intent is None


def test_methods_said_with_their_classes(tmp_path):
    (tmp_path / "m.py").write_text("class A:\n    def get(self):\n        pass\n\n    def put(self, x):\n        pass\n\n\n"
                                   "class B:\n    def get(self):\n        pass\n")
    assert _answer(tmp_path, "How many different method names are there across the classes?").output == 2
    assert _answer(tmp_path, "how many methods do the classes have").output == 3
    assert parse("which classes have methods").intent is None  # classes by their methods: refused, not answered with methods
    assert parse("Which class has methods").intent is None


def test_a_relative_import_is_made_absolute_from_the_package_of_its_file(tmp_path):
    (tmp_path / "shop" / "models").mkdir(parents=True)
    (tmp_path / "shop" / "models" / "user.py").write_text("class User:\n    pass\n")
    (tmp_path / "shop" / "models" / "cart.py").write_text("from .user import User\n")
    (tmp_path / "shop" / "models" / "__init__.py").write_text("from . import user\n")
    (tmp_path / "shop" / "api.py").write_text("from shop.models.user import User\nfrom .models import cart\n")
    (tmp_path / "shop" / "other.py").write_text("from shop.models import cart\n")
    assert _answer(tmp_path, "Which modules import shop.models.user?").output == [
        "shop/api.py", "shop/models/__init__.py", "shop/models/cart.py"]
    assert _answer(tmp_path, "which modules does shop/api.py import").output == ["shop.models", "shop.models.user"]


DOCUMENTED = '''\
def plain(x):
    return x


def documented(x):
    """Says what it does."""
    return x


def wrapped(
    first,
    second,
):
    # a comment first
    r\'\'\'Raw, after a comment.\'\'\'


def one_liner(): return 1


class Thing:
    """A thing."""

    def method(self):
        return 1
'''


def test_definitions_with_or_without_a_docstring_as_python_reads_them(tmp_path):
    import ast

    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "d.py").write_text(DOCUMENTED)
    nodes = [n for n in ast.walk(ast.parse(DOCUMENTED)) if isinstance(n, ast.FunctionDef)]
    documented = {n.name for n in nodes if ast.get_docstring(n) is not None}
    assert set(_answer(tmp_path, "which functions have a docstring").output) == documented
    assert set(_answer(tmp_path, "which functions have no docstring").output) == {n.name for n in nodes} - documented
    assert _answer(tmp_path, "Roughly what fraction of the functions in the shop package have a docstring?").output == round(
        len(documented) / len(nodes), 4)
    assert _answer(tmp_path, "are there any classes without a docstring").output is False


def test_top_level_functions_are_those_at_the_top_of_a_file(tmp_path):
    (tmp_path / "sig.py").write_text(SIGNATURES)
    (tmp_path / "nested.py").write_text("def outer(x):\n    def inner(y):\n        pass\n")
    top = ["none", "one", "defaults", "spread", "markers", "wrapped"]
    assert _answer(tmp_path, "how many module-level functions are there").output == len(top) + 1  # and outer
    assert _answer(tmp_path, "Does any top-level function take more than four arguments?").output is False
    assert _answer(tmp_path, "which top-level functions in sig.py take more than 2 arguments").output == ["defaults", "markers"]


MEMBERS = '''\
class Inventory:
    def add(self, item):
        pass

    def remove(self, item, count=1):
        pass


class User:
    def name(self):
        pass


class Empty:
    pass


def split_evenly(total, parts, *, rounding="down"):
    pass
'''


def test_the_methods_of_a_named_class_and_the_class_with_the_most(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS)
    assert _answer(tmp_path, "How many methods does the Inventory class have?").output == 2
    assert _answer(tmp_path, "list the methods of class User").output == ["name"]
    assert _answer(tmp_path, "Which class has the most methods?").output == "Inventory"
    assert _answer(tmp_path, "which class has the fewest methods").output == "Empty"


def test_the_parameters_of_a_function_and_their_average(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS)
    assert _answer(tmp_path, "What arguments does split_evenly take?").output == ["total", "parts", "rounding"]
    assert _answer(tmp_path, "how many parameters does remove take").output == 2  # self is not one
    assert _answer(tmp_path, "On average, how many parameters do the functions in m.py take?").output == round((1 + 2 + 0 + 3) / 4, 2)


def test_definitions_ranked_by_their_lines(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS + "\n\ndef long_one(x):\n    a = 1\n    b = 2\n    return a + b\n\n# a trailing comment\n")
    assert _answer(tmp_path, "What's the longest function in the project?").output == "long_one"  # 4 lines; its comment aside
    assert _answer(tmp_path, "the 2 shortest functions").output[:1] == ["add"]  # 2 lines each: the first of a tie first


def test_empty_files_and_either_marker_in_a_folder(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "test_a.py").write_text("# FIXME later\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    assert _answer(tmp_path, "Which modules are completely empty?").output == ["tests/__init__.py"]
    assert _answer(tmp_path, "Are there any TODOs or FIXMEs left in the tests?").output is True


def test_the_classes_that_inherit_from_a_named_one(tmp_path):
    (tmp_path / "e.py").write_text("class ApiError(Exception):\n    pass\n\n\nclass Missing(ApiError):\n    pass\n\n\n"
                                   "class Denied(errors.ApiError, Mixin):\n    pass\n\n\nclass Other:\n    x = ApiError\n")
    assert _answer(tmp_path, "Which exceptions subclass ApiError?").output == ["Missing", "Denied"]
    assert _answer(tmp_path, "how many classes inherit from Exception").output == 1
    assert _answer(tmp_path, "are there any subclasses of Other").output is False


def test_lines_starting_with_a_word_and_the_share_of_lines_in_a_folder(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")  # 2 lines
    (tmp_path / "a.py").write_text("# one\n    # two\nx = 1  # not a start\n")  # 3 lines, 2 start with #
    (tmp_path / "README.md").write_text("# Title\n\n## Part\ntext\n")
    assert _answer(tmp_path, 'how many lines in README.md start with "#"').output == 2
    assert _answer(tmp_path, "how many lines starting with # are in a.py").output == 2
    assert _answer(tmp_path, "Roughly what percentage of all the Python lines are in tests?").output == 40.0
    assert _answer(tmp_path, "What fraction of the Python lines live in the tests folder?").output == 0.4


def test_a_method_by_its_class_a_class_by_its_bases_and_the_nth_definition(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS + "\n\nclass Cart:\n    def add(self, sku, quantity=1):\n        pass\n\n\n"
                                   "class Missing(errors.ApiError, Mixin, metaclass=Meta):\n    pass\n")
    assert _answer(tmp_path, "What parameters does Cart.add take?").output == ["sku", "quantity"]
    assert _answer(tmp_path, "What parameters does Inventory.add take?").output == ["item"]
    assert _answer(tmp_path, "what does Missing inherit from?").output == ["errors.ApiError", "Mixin"]
    assert _answer(tmp_path, "what are the base classes of User").output == []
    assert _answer(tmp_path, "What's the 3rd function defined in m.py?").output == "name"  # every def in order: add, remove, name


def test_standard_library_and_third_party_imports(tmp_path):
    import sys

    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "a.py").write_text("import os.path\nimport json\nimport requests\nfrom shop import b\nfrom . import c\nfrom yaml import safe_load\n")
    (tmp_path / "shop" / "b.py").write_text("import collections\n")
    stdlib = sorted(n for n in ["os.path", "json", "collections"] if n.split(".")[0] in sys.stdlib_module_names)
    assert _answer(tmp_path, "What standard library modules does shop/a.py import?").output == ["json", "os.path"]
    assert _answer(tmp_path, "how many stdlib modules are imported").output == len(stdlib)
    assert _answer(tmp_path, "what third-party packages does the project import").output == ["requests", "yaml"]


def test_two_files_compared(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_api.py").write_text("x = 1\n" * 3)
    (tmp_path / "order.py").write_text("y = 'a long line that is bigger'\n")
    assert _answer(tmp_path, "Is tests/test_api.py bigger than order.py?").output is False  # 18 bytes against 32
    assert _answer(tmp_path, "is test_api.py longer than order.py").output is True  # 3 lines against 1
    assert _answer(tmp_path, "does order.py have fewer lines than tests/test_api.py").output is True


def test_the_docstring_of_a_class_or_a_function_by_its_name(tmp_path):
    import ast

    (tmp_path / "d.py").write_text(DOCUMENTED)
    tree = ast.parse(DOCUMENTED)
    by_name = {n.name: ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert _answer(tmp_path, "What does the docstring of Thing say?").output == by_name["Thing"]
    assert _answer(tmp_path, "what is the docstring of wrapped").output == by_name["wrapped"]
    assert _answer(tmp_path, "what is the docstring of plain").output is None


def test_a_class_asked_about_by_name_and_definitions_ranked_by_their_parameters(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS)
    assert _answer(tmp_path, "Does the Inventory class have a remove method?").output is True
    assert _answer(tmp_path, "Does the Inventory class have a release method?").output is False
    assert _answer(tmp_path, "does the Inventory class have a docstring?").output is False
    assert _answer(tmp_path, "which function takes the most parameters (not counting self)?").output == "split_evenly"
    assert _answer(tmp_path, "What params does split_evenly() take?").output == ["total", "parts", "rounding"]


DECORATED = '''\
from dataclasses import dataclass


@dataclass
class Point:
    x: int


@app.route(
    "/orders",
    methods=["GET"],
)
@require_auth
def orders(request):
    pass


@app.route("/health")
def health(request):
    pass


x = 1


def plain(request):
    pass
'''


def test_definitions_by_their_decorators(tmp_path):
    (tmp_path / "routes.py").write_text(DECORATED)
    assert _answer(tmp_path, "How many endpoints are registered with the @route decorator?").output == 2
    assert _answer(tmp_path, "which functions are decorated with @require_auth").output == ["orders"]
    assert _answer(tmp_path, "How many dataclasses are defined?").output == 1
    assert _answer(tmp_path, "How many handlers are registered with @route in the routes module?").output == 2


def test_the_average_number_of_methods_of_a_class(tmp_path):
    (tmp_path / "m.py").write_text(MEMBERS)  # Inventory 2, User 1, Empty 0
    assert _answer(tmp_path, "On average, how many methods does a class have?").output == 1.0
    assert _answer(tmp_path, "what is the median number of methods per class").output == 1


def test_files_where_every_function_has_a_docstring_or_holds_a_word(tmp_path):
    import ast

    (tmp_path / "all.py").write_text('def a():\n    """A."""\n\n\ndef b(\n    x,\n):\n    # note\n    """B."""\n    return x\n')
    (tmp_path / "some.py").write_text('def a():\n    """A."""\n\n\ndef b():\n    return 1\n')
    (tmp_path / "none.py").write_text("x = 1\n")  # no functions: every one of none has one
    for name in ("all.py", "some.py"):
        tree = ast.parse((tmp_path / name).read_text())
        assert all(ast.get_docstring(n) for n in tree.body) == (name == "all.py")
    assert _answer(tmp_path, "modules in which all functions have a docstring").output == ["all.py", "none.py"]
    assert _answer(tmp_path, "which python files where every function contains return").output == ["none.py"]


def test_the_longest_function_name_and_where_it_is(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def parse_everything_at_once(x):\n    pass\n")
    (tmp_path / "b.py").write_text("def ab(x):\n    pass\n")
    where = {"name": "parse_everything_at_once", "path": "pkg/a.py"}
    assert _answer(tmp_path, "where is the longest function name").output == where
    assert _answer(tmp_path, "which file has the longest function name").output == where
    assert _answer(tmp_path, "what is the longest function name").output == "parse_everything_at_once"  # the name alone
