"""The one error tree: every error class is drawn in errors.py's docstring, with its kind."""

from __future__ import annotations

import importlib
import pkgutil
import re

import lackpy
from lackpy import errors
from lackpy.errors import ErrorKind, LackpyError


def all_error_classes() -> list[type]:
    for module in pkgutil.walk_packages(lackpy.__path__, "lackpy."):
        if module.name == "lackpy.__main__":
            continue
        importlib.import_module(module.name)
    found, pending = [], [LackpyError]
    while pending:
        cls = pending.pop()
        if cls.__module__.startswith("lackpy."):
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


def test_every_error_class_is_in_the_tree_with_its_kind():
    tree = {m.group(1): m.group(2) for m in re.finditer(r"[├└]── (\w+)\s+(\w+)", errors.__doc__)}
    assert re.search(r"^    LackpyError\s+runtime", errors.__doc__, re.M)
    for cls in all_error_classes():
        if cls is LackpyError:
            continue
        assert cls.__name__ in tree, f"{cls.__module__}.{cls.__name__} is not drawn in lackpy/errors.py"
        assert tree[cls.__name__] == cls.kind, cls.__name__
        assert isinstance(cls.kind, ErrorKind), cls.__name__


def test_kinds_parse_back():
    assert ErrorKind.parse("tool") is ErrorKind.TOOL
    assert ErrorKind.parse("no-such-kind") is ErrorKind.RUNTIME
    assert ErrorKind.parse("no-such-kind", ErrorKind.TOOL) is ErrorKind.TOOL
    assert f"{ErrorKind.LIMIT}" == "limit" and ErrorKind.LIMIT == "limit"
