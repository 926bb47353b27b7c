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
    """The workspace root (resolved) and what a run has read and written.

    A staging context (every program run gets one) keeps writes in ``staged``
    (real path -> new bytes) instead of on disk; ``baseline`` remembers how
    each file looked on disk when the run first touched it, so a commit can
    refuse to overwrite a file that changed meanwhile.
    """

    __slots__ = (
        "root", "files_read", "files_modified", "staging", "staged", "baseline", "staged_bytes", "max_write_bytes",
        "session", "settings",
    )

    def __init__(
        self,
        root: str | os.PathLike,
        staging: bool = False,
        max_write_bytes: int = 64 * 1024 * 1024,
        settings: dict | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        self.session: dict = {}  # state that outlives a run (processes, checklists), shared by fresh()
        self.settings: dict = dict(settings or {})  # tool settings from the service's config
        self.staging = staging
        self.max_write_bytes = max_write_bytes
        self.files_read: dict[str, None] = {}
        self.files_modified: dict[str, None] = {}
        self.staged: dict[str, bytes | None] = {}
        self.baseline: dict[str, tuple | None] = {}
        self.staged_bytes = 0

    @property
    def workspace(self) -> Path:
        return Path(self.root)

    def fresh(self, staging: bool = True, max_write_bytes: int = 64 * 1024 * 1024) -> "ToolContext":
        """A new context over the same (already resolved) workspace, nothing recorded."""
        context = ToolContext.__new__(ToolContext)
        context.root = self.root
        context.staging = staging
        context.max_write_bytes = max_write_bytes
        context.files_read = {}
        context.files_modified = {}
        context.staged = {}
        context.baseline = {}
        context.staged_bytes = 0
        context.session = self.session
        context.settings = self.settings
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
