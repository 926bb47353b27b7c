"""ExecutionResult: what a run returns, in Python and as JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from lackpy.lang.diagnostics import Diagnostic
from lackpy.lang.grade import Grade
from lackpy.run.trace import TraceEntry


@dataclass
class ExecutionResult:
    """The outcome of one program run.

    ``output`` is the value of the last expression; ``printed`` the text the
    program printed; ``error`` names the line, the exception type and its
    message when ``success`` is false. ``error_kind`` is ``invalid`` (the
    program failed validation; see ``diagnostics``), ``tool``, ``guard``,
    ``runtime``, ``limit`` (``limit`` names it, ``limit_value`` its setting),
    ``conflict`` (a file changed on disk; nothing was written) or ``crash``.
    Writes are committed only on success and listed in ``files_created``,
    ``files_modified`` and ``files_deleted``; a dry run lists them and puts
    their unified ``diff`` here instead.
    """

    success: bool
    output: Any = None
    error: str | None = None
    trace: list[TraceEntry] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)
    printed: str = ""
    duration_ms: float = 0.0
    files_read: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    error_kind: str | None = None
    error_line: int | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    grade: Grade | None = None
    limit: str | None = None
    limit_value: Any = None
    files_created: list[str] = field(default_factory=list)
    files_deleted: list[str] = field(default_factory=list)
    dry_run: bool = False
    diff: str | None = None
    mode: str | None = None
    limits: Any = None
    output_truncated: bool = False
    printed_truncated: bool = False

    def to_dict(self) -> dict:
        return {
            "success": self.success,
            "output": to_jsonable(self.output),
            "error": self.error,
            "error_kind": self.error_kind,
            "error_line": self.error_line,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "trace": [entry.to_dict() for entry in self.trace],
            "limit": self.limit,
            "limit_value": to_jsonable(self.limit_value),
            "files_read": list(self.files_read),
            "files_created": list(self.files_created),
            "files_modified": list(self.files_modified),
            "files_deleted": list(self.files_deleted),
            "dry_run": self.dry_run,
            "diff": self.diff,
            "mode": self.mode,
            "grade": self.grade.to_dict() if self.grade is not None else None,
            "printed": self.printed,
            "output_truncated": self.output_truncated,
            "printed_truncated": self.printed_truncated,
            "duration_ms": self.duration_ms,
        }


def to_jsonable(value: Any, depth: int = 0) -> Any:
    """Plain JSON data for any result: tuples and sets become lists, others their repr."""
    if depth > 50:
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): to_jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v, depth + 1) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return repr(value)
