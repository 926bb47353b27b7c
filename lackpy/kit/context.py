"""The context a tool receives: the workspace it works in, and what it touched.

Tools marked with ``uses_context`` take a ``ToolContext`` as their first
argument. The runner binds a fresh context to every run, so the files a run
read and modified are recorded per run.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable)


class ToolContext:
    """The workspace root (resolved) and the files a run has read and modified."""

    __slots__ = ("root", "files_read", "files_modified")

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = os.path.realpath(root)
        self.files_read: dict[str, None] = {}
        self.files_modified: dict[str, None] = {}

    @property
    def workspace(self) -> Path:
        return Path(self.root)

    def fresh(self) -> "ToolContext":
        """A new context over the same (already resolved) workspace, nothing recorded."""
        context = ToolContext.__new__(ToolContext)
        context.root = self.root
        context.files_read = {}
        context.files_modified = {}
        return context

    def note_read(self, path: str) -> None:
        self.files_read[path] = None

    def note_modified(self, path: str) -> None:
        self.files_modified[path] = None


def uses_context(fn: F) -> F:
    """Mark a tool implementation that takes a ``ToolContext`` first."""
    fn.lackpy_context = True  # type: ignore[attr-defined]
    return fn


def takes_context(fn: Callable) -> bool:
    return getattr(fn, "lackpy_context", False) is True


def bind(impl: Callable[..., Any], context: ToolContext) -> Callable[..., Any]:
    """The tool as a program calls it: ``context`` bound first when the tool takes one."""
    return partial(impl, context) if takes_context(impl) else impl
