"""All-or-nothing writes: what a run staged, its diff, and the commit.

A run's writes wait in its ToolContext. When the program succeeds they are
committed together: every file is first checked against how it looked when
the run first touched it, and if any changed on disk meanwhile nothing at all
is written. Each file is then replaced atomically.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field

from lackpy.errors import ConflictError
from lackpy.kit.context import ToolContext
from lackpy.tools.workspace import atomic_write, fingerprint, relative


@dataclass
class Changes:
    """Workspace-relative paths a run creates, modifies and deletes."""

    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def changes(ctx: ToolContext) -> Changes:
    result = Changes()
    for real in sorted(ctx.staged):
        rel = relative(ctx, real)
        if ctx.staged[real] is None:
            result.deleted.append(rel)
        elif ctx.baseline.get(real) is None:
            result.created.append(rel)
        else:
            result.modified.append(rel)
    return result


def diff(ctx: ToolContext) -> str:
    """The unified diff of every staged change against the disk."""
    chunks = []
    for real in sorted(ctx.staged):
        rel = relative(ctx, real)
        new = ctx.staged[real]
        old = _read(real) if ctx.baseline.get(real) is not None else None
        before = [] if old is None else old.decode("utf-8", "replace").splitlines(True)
        after = [] if new is None else new.decode("utf-8", "replace").splitlines(True)
        for line in difflib.unified_diff(
            before,
            after,
            "/dev/null" if old is None else f"a/{rel}",
            "/dev/null" if new is None else f"b/{rel}",
        ):
            # as git does: a last line without a newline is marked, so the diff stays a diff
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def commit(ctx: ToolContext) -> Changes:
    """Write every staged change, or nothing if any file changed on disk since the run read it."""
    done = changes(ctx)
    conflicts = [relative(ctx, real) for real in sorted(ctx.staged) if fingerprint(real) != ctx.baseline.get(real)]
    if conflicts:
        raise ConflictError(
            f"{conflicts[0]} changed on disk while the program ran; nothing was written (run the program again)"
        )
    for real in sorted(ctx.staged):
        data = ctx.staged[real]
        if data is None:
            os.unlink(real)
        else:
            atomic_write(ctx.root, real, data)
    ctx.staged.clear()
    return done


def _read(real: str) -> bytes | None:
    try:
        with open(real, "rb") as handle:
            return handle.read()
    except OSError:
        return None
