"""The check before a run: keys a program reads from tool results that the results' known shape lacks.

A tool's provider may know what its results look like: ``provider_config["shape"]``
is ``{"node": shape, "source": "declared" | "learned", "results": n}``
(``lackpy.kit.shape``). A remote tool whose server declares an
``outputSchema`` has a declared shape; one whose server declares none may
have a shape lackpy learned from ``n`` of its results (``lackpy.remote.shapes``).

The two are told apart because they are not equally true. A declared shape
is the server's promise, so a key it lacks is an error before the program
runs (``result-key``, with the line, the column and the keys there are).
A learned shape is only what lackpy has seen: a key it lacks may come in a
result not seen yet, so it is a warning, with the keys the shape has and
how many results it was learned from, and the program runs.
"""

from __future__ import annotations

import ast
import json
from typing import Any, Iterator, Sequence

from lackpy.kit.keyflow import Miss, misses
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.diagnostics import Diagnostic

#: The code of the error a declared shape gives.
CODE = "result-key"
#: The most warnings one program gets (the first ones by line).
MOST_WARNINGS = 5


def spec_shapes(kit: ResolvedKit, source: str | None = None) -> dict[str, dict]:
    """``{alias: shape node}`` of the kit's tools whose provider knows a shape (only of ``source`` when given)."""
    out = {}
    for alias, spec in kit.tools.items():
        shape = spec.provider_config.get("shape") if isinstance(spec.provider_config, dict) else None
        if isinstance(shape, dict) and shape.get("node") and (source is None or shape.get("source") == source):
            out[alias] = shape["node"]
    return out


def _keys(miss: Miss) -> str:
    if not miss.known:
        return f"it is {' or '.join(miss.types)}, which has no keys"
    return "its keys are " + ", ".join(repr(key) for key in miss.known)


class DeclaredKeys:
    """A validator check: each constant key a program reads that a declared result shape lacks is a ``result-key`` error.

    Equal checks (the same declared shapes under the same names) are equal
    and hash alike, so a program checked before its run is not checked again.
    """

    __name__ = "declared result shapes"

    def __init__(self, shapes: dict[str, dict]) -> None:
        self.shapes = shapes
        self._key = json.dumps(shapes, sort_keys=True)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeclaredKeys) and other._key == self._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __call__(self, tree: ast.Module) -> list[Diagnostic]:
        return [
            Diagnostic(
                CODE,
                f"{miss.where} has no key {miss.key!r}: the server declares what it returns",
                miss.line,
                miss.col,
                f"{_keys(miss)}; read one of those",
            )
            for miss in misses(tree, self.shapes)
        ]


def declared_checks(kit: ResolvedKit) -> tuple[DeclaredKeys, ...]:
    """The kit's check of declared result shapes (none when no tool of the kit declares one)."""
    shapes = spec_shapes(kit, "declared")
    return (DeclaredKeys(shapes),) if shapes else ()


def learned_warnings(program: str, kit: ResolvedKit) -> list[str]:
    """One line for each key ``program`` reads that a learned result shape lacks (at most ``MOST_WARNINGS``)."""
    shapes = spec_shapes(kit, "learned")
    if not shapes:
        return []
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return []  # the validator says what is wrong with it
    out = []
    for miss in misses(tree, shapes)[:MOST_WARNINGS]:
        results = kit.tools[miss.tool].provider_config["shape"].get("results", 0)
        out.append(
            f"warning: line {miss.line}, col {miss.col}: {miss.where} has had no key {miss.key!r} in the {results} "
            f"result{'s' if results != 1 else ''} seen (a learned shape; the server declares none); {_keys(miss)} [{CODE}]"
        )
    return out


class WithWarnings(Sequence[str]):
    """A run's notices: the service's, read when the result is made (so what is added meanwhile is in it), then the program's warnings."""

    def __init__(self, notices: Sequence[str], warnings: list[str]) -> None:
        self.notices, self.warnings = notices, warnings

    def _all(self) -> list[str]:
        return [*self.notices, *self.warnings]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self.notices) + len(self.warnings)

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]


__all__ = ["CODE", "DeclaredKeys", "WithWarnings", "declared_checks", "learned_warnings", "spec_shapes"]
