"""The layer table: every module of lackpy imports only its own layer and the layers below.

errors/schema/summary/caller < lang < host < kit < tools < approvals < run <
infer/remote < policy (session, trust, skills) < config < service < cli/mcp.
The approval gates act inside a run, but below it: the runner imports the
gatekeeper and hands it what it needs of the run, and ``approvals`` imports
nothing of ``run``. Imports inside functions count as much as those at the
top: a lazy import upward is still a cycle in the design. No module reaches
itself through the modules it imports (a cycle within one layer), and no
top-level package or module of lackpy reaches itself through the others
(two packages of one layer that import each other). ``lackpy.host`` (the
machine under the tools) imports nothing of lackpy but ``lackpy.errors`` and itself.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable

import lackpy

PACKAGE = Path(lackpy.__file__).parent

#: Each top-level module or package of lackpy and its layer, lowest first.
LAYER = {
    "errors": 0, "schema": 0, "hookspecs": 0, "summary": 0, "caller": 0,
    "lang": 1,
    "host": 2, "store": 2,
    "kit": 3,
    "tools": 4,
    "approvals": 5,
    "run": 6,
    "infer": 7, "remote": 7, "plugins": 7,
    "session": 8, "trust": 8, "trust_notice": 8, "skills": 8, "report": 8,
    "config": 9, "workspace": 9,
    "service": 10,
    "cli": 11, "cli_progress": 11, "mcp": 11, "__main__": 11,
}


def _is_module(name: str) -> bool:
    """Whether dotted ``name`` is a module or package of lackpy."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, lackpy module) of every import in a file, ``from lackpy import x`` as ``lackpy.x``, and ``from lackpy.a import b``
    as ``lackpy.a.b`` when ``b`` is a module (a package importing its own module is an edge too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "lackpy"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "lackpy":
            if node.module == "lackpy":
                found += [(node.lineno, f"lackpy.{alias.name}") for alias in node.names]
                continue
            modules = [f"{node.module}.{alias.name}" for alias in node.names if _is_module(f"{node.module}.{alias.name}")]
            found += [(node.lineno, module) for module in modules]
            if len(modules) < len(node.names):
                found.append((node.lineno, node.module))
    return found


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts != ("__init__",):  # lackpy/__init__.py re-exports the public names of every layer
            out.append((parts[0], path))
    return out


def test_every_module_has_a_layer():
    assert {top for top, _ in _modules()} <= set(LAYER)


def test_layers_import_downward_only():
    upward = []
    for top, path in _modules():
        for line, module in _imports(path):
            target = module.split(".")[1] if "." in module else None
            if target in LAYER and LAYER[target] > LAYER[top]:
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert upward == []


def test_host_imports_only_errors():
    reached = {
        f"{path.name}:{line} {module}"
        for top, path in _modules() if top == "host"
        for line, module in _imports(path)
        if module.split(".")[1] not in ("errors", "host")
    }
    assert reached == set()


def _module_graph() -> dict[str, set[str]]:
    """``{module: the lackpy modules it imports}``, each import taken to the longest module it names (a package's ``__init__`` as the package)."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in names.items():
        targets = set()
        for _, module in _imports(path):
            parts = module.split(".")
            while parts and ".".join(parts) not in names:
                parts.pop()
            target = ".".join(parts)
            if target not in ("", "lackpy", name):
                targets.add(target)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (strongly connected, more than one), by Tarjan's walk."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_round_a_cycle():
    graph = _module_graph()
    assert graph["lackpy.run.runner"] and graph["lackpy.service"]  # the graph sees imports (so an empty one cannot pass)
    assert "lackpy.service.servers" in graph["lackpy.service"]  # and a module a package imports from itself by name
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _package_edges(imports: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], str]:
    """``{(package, package it imports): where first}`` from ``(top-level package, where, lackpy module imported)``.

    A package is a top-level module or package of lackpy (``run``, ``approvals``,
    ``service``, ...); an import within one package, or of a name of
    ``lackpy/__init__.py`` that is no package, is no edge.
    """
    edges: dict[tuple[str, str], str] = {}
    for top, where, module in imports:
        parts = module.split(".")
        target = parts[1] if len(parts) > 1 else None
        if target in LAYER and target != top:
            edges.setdefault((top, target), f"{where} imports {module}")
    return edges


def _package_cycles(edges: dict[tuple[str, str], str]) -> list[str]:
    """Each cycle among packages, with the imports that close it, one line per cycle (empty: none)."""
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
    found = []
    for group in _cycles(graph):
        inside = [edges[pair] for pair in sorted(edges) if pair[0] in group and pair[1] in group]
        found.append(f"{' <-> '.join(group)}: {'; '.join(inside)}")
    return found


def _lackpy_imports() -> list[tuple[str, str, str]]:
    return [
        (top, f"{path.relative_to(PACKAGE.parent)}:{line}", module)
        for top, path in _modules()
        for line, module in _imports(path)
    ]


def test_no_package_imports_another_round_a_cycle():
    edges = _package_edges(_lackpy_imports())
    assert ("run", "approvals") in edges and ("service", "run") in edges  # the graph sees imports (so an empty one cannot pass)
    cycles = _package_cycles(edges)
    assert cycles == [], "packages that import each other:\n" + "\n".join(cycles)


def test_the_package_cycle_check_finds_a_cycle():
    imports = [
        ("run", "lackpy/run/runner.py:27", "lackpy.approvals.gatekeeper"),
        ("approvals", "lackpy/approvals/gatekeeper.py:50", "lackpy.run.slots"),
        ("approvals", "lackpy/approvals/decision.py:3", "lackpy.approvals.request"),  # within one package: no edge
        ("service", "lackpy/service.py:30", "lackpy.run.runner"),
        ("service", "lackpy/service.py:31", "lackpy.LackpyService"),  # a name of lackpy/__init__.py: no edge
    ]
    edges = _package_edges(imports)
    assert set(edges) == {("run", "approvals"), ("approvals", "run"), ("service", "run")}
    assert _package_cycles(edges) == [
        "approvals <-> run: lackpy/approvals/gatekeeper.py:50 imports lackpy.run.slots; lackpy/run/runner.py:27 imports lackpy.approvals.gatekeeper"
    ]
    assert _package_cycles({pair: where for pair, where in edges.items() if pair != ("approvals", "run")}) == []


#: The wings of ``lackpy.infer`` and the other wings each may import. The core
#: (``lackpy/infer/*.py`` and ``providers/``) may import every wing; a wing
#: imports no module of the core, so each wing can be read and tested on its own.
INFER_WINGS = {"understand": set(), "mend": set(), "diagnose": {"mend"}}


def _infer_part(module: str) -> str | None:
    """The part of ``lackpy.infer`` a dotted module name belongs to: a wing, ``"core"``, or None outside infer."""
    parts = module.split(".")
    if parts[:2] != ["lackpy", "infer"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in INFER_WINGS else "core"


def _wing_edges_not_allowed(name: str, imports: list[tuple[int, str]]) -> list[str]:
    """The imports of module ``name`` that cross from its wing to the core or to a wing it may not import."""
    source = _infer_part(name)
    if source in (None, "core"):
        return []
    return [
        f"{name}:{line} imports {module}"
        for line, module in imports
        if _infer_part(module) not in (None, source, *INFER_WINGS[source])
    ]


def test_infer_wings_import_only_downward():
    infer = sorted((PACKAGE / "infer").rglob("*.py"))
    assert {path.parent.name for path in infer} >= set(INFER_WINGS)  # every wing is there (so an empty walk cannot pass)
    crossing, relative = [], []
    for path in infer:
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        crossing += _wing_edges_not_allowed(name, _imports(path))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        relative += [f"{name}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    assert relative == []  # a relative import would hide an edge from this test
    assert crossing == []


def test_the_wing_check_finds_a_forbidden_edge():
    allowed = [(1, "lackpy.errors"), (2, "lackpy.infer.mend.failures"), (3, "lackpy.infer.diagnose.keys")]
    assert _wing_edges_not_allowed("lackpy.infer.diagnose.classify", allowed) == []
    assert _wing_edges_not_allowed("lackpy.infer.dispatch", [(1, "lackpy.infer.diagnose.classify")]) == []
    assert _wing_edges_not_allowed("lackpy.infer.mend.answer", [(7, "lackpy.infer.diagnose.classify")]) == [
        "lackpy.infer.mend.answer:7 imports lackpy.infer.diagnose.classify"
    ]
    assert _wing_edges_not_allowed("lackpy.infer.understand.words", [(3, "lackpy.infer.fill"), (4, "lackpy.infer")]) == [
        "lackpy.infer.understand.words:3 imports lackpy.infer.fill",
        "lackpy.infer.understand.words:4 imports lackpy.infer",
    ]
    assert _wing_edges_not_allowed("lackpy.infer.understand.terms", [(5, "lackpy.infer.mend.failures")]) == [
        "lackpy.infer.understand.terms:5 imports lackpy.infer.mend.failures"
    ]
