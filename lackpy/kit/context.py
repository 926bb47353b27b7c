"""The context a tool receives: the workspace it works in, and what it touched.

Tools marked with ``uses_context`` take a ``ToolContext`` as their first
argument. The runner binds a fresh context to every run, so the files a run
read and modified are recorded per run.
"""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable)


class ToolContext:
    """The workspace root (resolved), its filesystem backend and what a run has touched.

    ``fs`` is the backend tools reach files through (``lackpy.host.fs``);
    left None, the tools use the local disk, staged when ``staging`` is set
    (every program run stages, so its writes are all-or-nothing).
    ``state`` is the tool state that outlives a run (processes, checklists) and
    ``settings`` the tool settings from the service's config; both are shared
    by the contexts ``fresh`` makes. ``tools`` is the run's tools (their specs) by the names its program calls them.
    """

    __slots__ = (
        "root", "files_read", "files_modified", "staging", "max_write_bytes", "fs", "state", "settings", "tools", "skill", "started_ns", "protected",
        "dry_run", "written", "bytes_read", "bytes_written",
    )

    def __init__(
        self,
        root: str | os.PathLike,
        staging: bool = False,
        max_write_bytes: int = 64 * 1024 * 1024,
        settings: dict | None = None,
        fs: Any = None,
    ) -> None:
        self.root = os.path.realpath(root)
        self.staging = staging
        self.max_write_bytes = max_write_bytes
        self.fs = fs
        self.files_read: dict[str, None] = {}
        self.files_modified: dict[str, None] = {}
        #: The tool state of the session the run belongs to (a checklist, processes): shared by its runs.
        self.state: dict = {}
        self.settings: dict = dict(settings or {})
        #: When the run began (``time.time_ns()``): staged writes refuse files changed since that they never read.
        self.started_ns = time.time_ns()
        #: The run's tools by the names its program calls them (set by the runner; empty outside a run).
        self.tools: dict = {}
        #: The skill the run's program runs with (``lackpy.skills.skill.Skill``: ``skill_file`` reads its files), if any.
        self.skill: Any = None
        #: Workspace folders no program and no command may change, as ``.lackpy/`` (the ``[skills] paths``: skills load from them).
        self.protected: tuple[str, ...] = ()
        #: Whether the run is a dry run: its staged writes are shown, never made (a tool's answer says "would").
        self.dry_run = False
        #: The path of each write the run's tools made (staged or not), in order: a call that added one wrote something.
        self.written: list[str] = []
        #: The bytes the run's tools read from files and wrote to them so far (what a status line says).
        self.bytes_read = self.bytes_written = 0

    @property
    def workspace(self) -> Path:
        return Path(self.root)

    def fresh(self, staging: bool = True, max_write_bytes: int = 64 * 1024 * 1024, state: dict | None = None) -> "ToolContext":
        """A new context over the same (already resolved) workspace, nothing recorded.

        A staging context over a custom backend stages over that backend.
        ``state`` replaces the shared tool state (a client session's own).
        """
        context = ToolContext.__new__(ToolContext)
        context.root = self.root
        context.started_ns = time.time_ns()
        context.staging = staging
        context.max_write_bytes = max_write_bytes
        context.fs = None
        if self.fs is not None:
            from lackpy.host.fs import StagedFilesystem

            context.fs = StagedFilesystem(self.fs, max_write_bytes, context.started_ns) if staging else self.fs
        context.files_read = {}
        context.files_modified = {}
        context.state = self.state if state is None else state
        context.settings = self.settings
        context.protected = self.protected
        context.tools = {}
        context.skill = None
        context.dry_run = False
        context.written = []
        context.bytes_read = context.bytes_written = 0
        return context

    def note_read(self, path: str) -> None:
        self.files_read[path] = None

    def note_modified(self, path: str) -> None:
        self.files_modified[path] = None
        self.written.append(path)


def uses_context(fn: F) -> F:
    """Mark a tool implementation that takes a ``ToolContext`` first."""
    fn.lackpy_context = True  # type: ignore[attr-defined]
    return fn


def takes_context(fn: Callable) -> bool:
    return getattr(fn, "lackpy_context", False) is True


def bind(impl: Callable[..., Any], context: ToolContext) -> Callable[..., Any]:
    """The tool as a program calls it: ``context`` bound first when the tool takes one."""
    return partial(impl, context) if takes_context(impl) else impl
