"""All-or-nothing writes of a run: what it staged, its diff, and the commit.

The work is done by ``StagedFilesystem`` (``lackpy.tools.fs``), the backend a
run's context uses; these helpers find it on a context.
"""

from __future__ import annotations

from lackpy.kit.context import ToolContext
from lackpy.tools.fs import Changes, StagedFilesystem
from lackpy.tools.workspace import filesystem

__all__ = ["Changes", "changes", "commit", "diff", "staged"]


def staged(ctx: ToolContext) -> StagedFilesystem | None:
    """The context's staged backend, or None when it writes straight through."""
    fs = filesystem(ctx)
    return fs if isinstance(fs, StagedFilesystem) else None


def changes(ctx: ToolContext) -> Changes:
    fs = staged(ctx)
    return fs.changes() if fs else Changes()


def diff(ctx: ToolContext) -> str:
    fs = staged(ctx)
    return fs.diff() if fs else ""


def commit(ctx: ToolContext) -> Changes:
    """Write every staged change, or nothing if any file changed on disk since the run read it."""
    fs = staged(ctx)
    return fs.commit() if fs else Changes()
