"""ToolContext and uses_context: the workspace root and the per-run record of files."""

from __future__ import annotations

import os
from pathlib import Path

from lackpy.kit.context import ToolContext, takes_context, uses_context


def test_root_is_resolved(tmp_path: Path):
    """The context root is the real path, with symlinks and '..' resolved."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    ctx = ToolContext(tmp_path / "link" / ".." / "link")
    assert ctx.root == os.path.realpath(real)
    assert ctx.workspace == Path(os.path.realpath(real))


def test_notes_are_recorded_in_order_without_duplicates(tmp_path: Path):
    """note_read and note_modified keep each path once, in first-seen order."""
    ctx = ToolContext(tmp_path)
    for p in ("b", "a", "b"):
        ctx.note_read(p)
    ctx.note_modified("c")
    assert list(ctx.files_read) == ["b", "a"]
    assert list(ctx.files_modified) == ["c"]


def test_fresh_has_same_root_and_nothing_recorded(tmp_path: Path):
    """fresh() gives a new context over the same root with empty records."""
    ctx = ToolContext(tmp_path)
    ctx.note_read("x")
    new = ctx.fresh()
    assert new is not ctx
    assert new.root == ctx.root
    assert new.files_read == {} and new.files_modified == {}
    assert ctx.files_read == {"x": None}


def test_uses_context_marks_function():
    """uses_context marks a function so takes_context is true; unmarked ones are false."""

    def plain(x):
        return x

    @uses_context
    def marked(ctx, x):
        return x

    assert takes_context(marked) is True
    assert takes_context(plain) is False
    assert marked(None, 5) == 5
