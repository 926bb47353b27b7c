"""Standard-library calls the kit already provides, in every import form, rewritten as tool calls.

A model reaches for ``glob.glob``, ``os.listdir``, ``os.path.join``,
``os.walk`` or ``pathlib.Path(p).read_text()`` whichever way it imported them:
``import glob``, ``from glob import glob``, ``import os.path as osp``,
``from os import listdir``, ``from pathlib import Path``, or no import at all.
So calls are matched by what they name once the program's imports are
resolved (``qualified``), not by how they are spelled.

Only calls with a faithful translation are rewritten:

- ``glob.glob(p)`` / ``glob.iglob(p)`` (``recursive=True`` allowed): ``find_files(p)``.
- ``os.listdir(p)``: the names of ``list_dir(p)``, in list_dir's (sorted) order.
- ``os.path.join(a, b, ...)``: the path as text; constants are joined now, the
  rest with ``/`` (the tools normalize ``a//b``, so only an empty first part,
  which lackpy paths never are, would differ).
- ``os.path.basename(p)`` / ``os.path.dirname(p)``: the string operations
  that compute them for ``/``-separated paths.
- ``os.path.exists`` / ``isfile`` / ``isdir`` and ``Path(p).exists()`` /
  ``is_file()`` / ``is_dir()`` of a constant path with no glob characters:
  whether ``find_files(p, kind=...)`` finds it.
- ``Path(p).read_text()`` / ``.write_text(s)``: ``read_file`` / ``write_file``.
- ``for root, dirs, files in os.walk(top): for name in files: ...`` whose body
  uses ``root`` only in ``os.path.join(root, name)``: a loop over
  ``find_files("top/**/*")``, the joined path being the loop variable. Like
  every glob in the kit it skips hidden directories (``.git``), and its
  paths have no ``./`` prefix.

Everything else (``os.walk`` used otherwise, ``Path.glob`` yielding Path
objects, ``os.path.splitext``, ``os.scandir``, ``subprocess``) is left as it
is: the validator refuses it and the classifier names it ``stdlib_leak``
with the doc of the tool to use.
"""

from __future__ import annotations

import ast
import copy
import posixpath
import re
from typing import Callable

from lackpy.infer.mend.asttools import call, fresh_name, method, names_in, stored, unparsed

#: Modules a model often uses without importing them; their names mean the module unless the program assigns them.
UNIMPORTED = {"os": "os", "glob": "glob", "pathlib": "pathlib", "Path": "pathlib.Path"}

#: Glob characters: a path holding one is a pattern to find_files, not a path.
GLOB_MAGIC = re.compile(r"[*?\[]")

#: Text encodings read_file and write_file use (UTF-8); another encoding has no tool.
UTF8 = frozenset({"utf-8", "utf8", "UTF-8", "UTF8"})


def qualified_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from the program's imports.

    ``import os.path`` binds ``os`` to ``os``; ``import os.path as p`` binds
    ``p`` to ``os.path``; ``from glob import glob as g`` binds ``g`` to
    ``glob.glob``. A name imported two ways, or also assigned, means nothing
    certain and is left out.
    """
    bindings: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                bindings.setdefault(local, set()).add(alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    bindings.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")
    assigned = set(stored(tree)) | {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names = {local: next(iter(targets)) for local, targets in bindings.items() if len(targets) == 1 and local not in assigned}
    for local, target in UNIMPORTED.items():
        if local not in bindings and local not in assigned:
            names[local] = target
    return names


def qualified(node: ast.AST, names: dict[str, str]) -> str | None:
    """The dotted name an expression stands for (``osp.join`` -> ``os.path.join``), or None."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        base = qualified(node.value, names)
        return f"{base}.{node.attr}" if base else None
    return None


# -- the translations -----------------------------------------------------------------


def _plain(node: ast.Call, positional: range, keywords: dict[str, object] | None = None) -> bool:
    """The call has an allowed number of positional arguments, none starred, and only the allowed constant keywords."""
    keywords = keywords or {}
    if len(node.args) not in positional or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    return all(kw.arg in keywords and isinstance(kw.value, ast.Constant) and kw.value.value in _as_set(keywords[kw.arg]) for kw in node.keywords)


def _as_set(value: object) -> frozenset:
    return value if isinstance(value, frozenset) else frozenset({value})


def _glob(node: ast.Call) -> ast.expr | None:
    return call("find_files", *node.args) if _plain(node, range(1, 2), {"recursive": True}) else None


def _listdir(node: ast.Call) -> ast.expr | None:
    """``[e["name"] for e in list_dir(p)]``: the names os.listdir would give."""
    if not _plain(node, range(0, 2)):
        return None
    entry = ast.Subscript(ast.Name("e", ast.Load()), ast.Constant("name"), ast.Load())
    loop = ast.comprehension(ast.Name("e", ast.Store()), call("list_dir", *node.args), [], 0)
    return ast.ListComp(entry, [loop])


def _join(node: ast.Call) -> ast.expr | None:
    """The joined path: a constant when every part is one, else an f-string with ``/`` between parts."""
    if not node.args or not _plain(node, range(1, 64)):
        return None
    parts = node.args
    if any(isinstance(p, ast.Constant) and not isinstance(p.value, str) for p in parts):
        return None
    if any(isinstance(p, ast.Constant) and p.value.startswith("/") for p in parts[1:]):
        return None  # an absolute part restarts the path: not a workspace path anyway
    if all(isinstance(p, ast.Constant) for p in parts):
        return ast.Constant(posixpath.join(*(p.value for p in parts)))
    pieces: list[ast.expr] = []
    for index, part in enumerate(parts):
        if index and not (isinstance(pieces[-1], ast.Constant) and (pieces[-1].value == "" or pieces[-1].value.endswith("/"))):
            pieces.append(ast.Constant("/"))
        pieces.append(part)
    return _fstring(pieces)


def _fstring(pieces: list[ast.expr]) -> ast.JoinedStr:
    """An f-string of constants and values, adjacent constants merged."""
    values: list[ast.expr] = []
    for piece in pieces:
        if isinstance(piece, ast.Constant):
            if values and isinstance(values[-1], ast.Constant):
                values[-1] = ast.Constant(values[-1].value + piece.value)
            elif piece.value:
                values.append(ast.Constant(piece.value))
        else:
            values.append(ast.FormattedValue(piece, -1, None))
    return ast.JoinedStr(values)


def _basename(node: ast.Call) -> ast.expr | None:
    """``p.rsplit("/", 1)[-1]``: posixpath.basename exactly."""
    if not _plain(node, range(1, 2)):
        return None
    split = ast.Call(ast.Attribute(node.args[0], "rsplit", ast.Load()), [ast.Constant("/"), ast.Constant(1)], [])
    return ast.Subscript(split, ast.UnaryOp(ast.USub(), ast.Constant(1)), ast.Load())


def _dirname(node: ast.Call) -> ast.expr | None:
    """``p.rpartition("/")[0]``: posixpath.dirname for paths without repeated slashes (what the tools return)."""
    if not _plain(node, range(1, 2)):
        return None
    return ast.Subscript(method(node.args[0], "rpartition", ast.Constant("/")), ast.Constant(0), ast.Load())


def _checkable_path(node: ast.expr) -> bool:
    """A constant workspace path find_files would match literally: no glob characters, not the root, not outside."""
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return False
    path = posixpath.normpath(node.value) if node.value else ""
    return bool(path) and path != "." and not path.startswith(("/", "..")) and not GLOB_MAGIC.search(path)


def _exists(kind: str) -> Callable[[ast.Call], ast.expr | None]:
    def rewrite(node: ast.Call) -> ast.expr | None:
        if not _plain(node, range(1, 2)) or not _checkable_path(node.args[0]):
            return None
        return call("bool", call("find_files", node.args[0], kind=ast.Constant(kind)))

    return rewrite


#: Dotted function name -> (the tool it needs, or None for pure string work; the translation).
CALLS: dict[str, tuple[str | None, Callable[[ast.Call], ast.expr | None]]] = {
    "glob.glob": ("find_files", _glob),
    "glob.iglob": ("find_files", _glob),
    "os.listdir": ("list_dir", _listdir),
    "os.path.join": (None, _join),
    "os.path.basename": (None, _basename),
    "os.path.dirname": (None, _dirname),
    "os.path.exists": ("find_files", _exists("any")),
    "os.path.isfile": ("find_files", _exists("file")),
    "os.path.isdir": ("find_files", _exists("dir")),
}


def _read_text(path: ast.expr, node: ast.Call) -> ast.expr | None:
    return call("read_file", path) if _plain(node, range(0, 1), {"encoding": UTF8}) else None


def _write_text(path: ast.expr, node: ast.Call) -> ast.expr | None:
    return call("write_file", path, *node.args) if _plain(node, range(1, 2), {"encoding": UTF8}) else None


def _path_exists(kind: str) -> Callable[[ast.expr, ast.Call], ast.expr | None]:
    def rewrite(path: ast.expr, node: ast.Call) -> ast.expr | None:
        if node.args or node.keywords or not _checkable_path(path):
            return None
        return call("bool", call("find_files", path, kind=ast.Constant(kind)))

    return rewrite


#: Methods of ``pathlib.Path(p)`` -> (the tool they need, the translation given p and the method call).
PATH_METHODS: dict[str, tuple[str, Callable[[ast.expr, ast.Call], ast.expr | None]]] = {
    "read_text": ("read_file", _read_text),
    "write_text": ("write_file", _write_text),
    "exists": ("find_files", _path_exists("any")),
    "is_file": ("find_files", _path_exists("file")),
    "is_dir": ("find_files", _path_exists("dir")),
}


class _Rewriter(ast.NodeTransformer):
    """Applies CALLS, PATH_METHODS and the os.walk loop wherever the kit has the tool."""

    def __init__(self, names: frozenset[str], imports: dict[str, str], taken: set[str]) -> None:
        self.names = names
        self.imports = imports
        self.taken = taken
        self.changed = False

    def visit_For(self, node: ast.For) -> ast.AST:
        walked = _walk_loop(node, self.imports, self.taken) if "find_files" in self.names else None
        if walked is not None:
            self.changed = True
            node = walked
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        new = self._path_method(node) or self._function(node)
        if new is None:
            return node
        self.changed = True
        return new

    def _function(self, node: ast.Call) -> ast.expr | None:
        entry = CALLS.get(qualified(node.func, self.imports) or "")
        if entry is None or (entry[0] is not None and entry[0] not in self.names):
            return None
        return entry[1](node)

    def _path_method(self, node: ast.Call) -> ast.expr | None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in PATH_METHODS:
            return None
        made = func.value
        if not (isinstance(made, ast.Call) and qualified(made.func, self.imports) == "pathlib.Path" and _plain(made, range(1, 2))):
            return None
        tool, rewrite = PATH_METHODS[func.attr]
        return rewrite(made.args[0], node) if tool in self.names else None


def _walk_loop(node: ast.For, imports: dict[str, str], taken: set[str]) -> ast.For | None:
    """``for root, dirs, files in os.walk(top): for name in files: BODY`` as a loop over find_files, or None."""
    target, walk = node.target, node.iter
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 3 and all(isinstance(e, ast.Name) for e in target.elts)):
        return None
    if not (isinstance(walk, ast.Call) and qualified(walk.func, imports) == "os.walk" and _plain(walk, range(1, 2))):
        return None
    root, dirs, files = (e.id for e in target.elts)
    if node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.For):
        return None
    inner = node.body[0]
    if inner.orelse or not isinstance(inner.target, ast.Name) or not (isinstance(inner.iter, ast.Name) and inner.iter.id == files):
        return None
    name = inner.target.id
    if len({root, dirs, files, name}) != 4 or name in stored(ast.Module(inner.body, [])):
        return None
    pattern = _walk_pattern(walk.args[0])
    if pattern is None:
        return None
    path = fresh_name(taken, "path")
    joins = _JoinedPaths(imports, root, name, path)
    body = [joins.visit(stmt) for stmt in copy.deepcopy(inner.body)]
    rest = [n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)]
    if {root, dirs, files} & set(rest):
        return None  # the body uses the walk's own lists or the directory: no faithful loop over files
    if name in rest:
        basename = ast.Subscript(
            ast.Call(ast.Attribute(ast.Name(path, ast.Load()), "rsplit", ast.Load()), [ast.Constant("/"), ast.Constant(1)], []),
            ast.UnaryOp(ast.USub(), ast.Constant(1)),
            ast.Load(),
        )
        body.insert(0, ast.Assign([ast.Name(name, ast.Store())], basename))
    return ast.For(ast.Name(path, ast.Store()), call("find_files", pattern), body, [])


def _walk_pattern(top: ast.expr) -> ast.expr | None:
    """The glob of every file below ``top``: ``**/*`` for the workspace, ``top/**/*`` below it."""
    if isinstance(top, ast.Constant):
        if not isinstance(top.value, str) or top.value.startswith("/") or GLOB_MAGIC.search(top.value):
            return None
        path = posixpath.normpath(top.value) if top.value else "."
        return None if path.startswith("..") else ast.Constant("**/*" if path == "." else f"{path}/**/*")
    return _fstring([top, ast.Constant("/**/*")])


class _JoinedPaths(ast.NodeTransformer):
    """``os.path.join(root, name)`` (or its f-string form) becomes the loop's path variable."""

    def __init__(self, imports: dict[str, str], root: str, name: str, path: str) -> None:
        self.imports, self.root, self.name, self.path = imports, root, name, path

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if qualified(node.func, self.imports) == "os.path.join" and not node.keywords and [_id(a) for a in node.args] == [self.root, self.name]:
            return ast.Name(self.path, ast.Load())
        return node


def _id(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def stdlib_to_tools(tree: ast.Module, names: frozenset[str]) -> str | None:
    """Rewrite the standard-library calls the kit provides; see the module docstring for which."""
    rewriter = _Rewriter(names, qualified_names(tree), names_in(tree))
    rewriter.visit(tree)
    return unparsed(tree, rewriter.changed)


__all__ = ["CALLS", "PATH_METHODS", "qualified", "qualified_names", "stdlib_to_tools"]
