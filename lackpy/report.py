"""ErrorReport: the one JSON document a failed command prints, whatever failed.

``{"error": {"kind": ..., "message": ..., "attempts": [...]}}``: the kind is
an ErrorKind, the message the one line a person reads, and ``attempts`` the
attempt log when no tier could write a program.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lackpy.errors import ErrorKind, LackpyError
from lackpy.infer.dispatch import Attempt
from lackpy.schema import Contract


@dataclass(frozen=True)
class ErrorDetail(Contract):
    """What failed (``kind``), what to do (``message``), and for a generation the attempt log."""

    kind: ErrorKind
    message: str
    attempts: list[Attempt] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """What lackpy wants the user to know about this workspace (e.g. what an untrusted one did not get)."""


@dataclass(frozen=True)
class ErrorReport(Contract):
    """The error document of a command that could not do its work."""

    error: ErrorDetail

    @classmethod
    def of(cls, exc: LackpyError, notices: list[str] | None = None) -> "ErrorReport":
        attempts = getattr(exc, "attempts", None) or []
        return cls(ErrorDetail(ErrorKind.parse(exc.kind), str(exc), list(attempts), list(notices or [])))

    @classmethod
    def usage(cls, message: str, notices: list[str] | None = None) -> "ErrorReport":
        return cls(ErrorDetail(ErrorKind.USAGE, message, notices=list(notices or [])))


def result_schema(name: str) -> dict:
    """The JSON Schema of a --json document: ``result``, ``delegate``, ``generate``, ``validate`` or ``error``."""
    from lackpy.errors import ParamError
    from lackpy.infer.result import DelegateResult, GenerationResult
    from lackpy.lang.diagnostics import ValidationResult
    from lackpy.run.result import ExecutionResult

    types = {"result": ExecutionResult, "delegate": DelegateResult, "generate": GenerationResult, "validate": ValidationResult, "error": ErrorReport}
    if name not in types:
        raise ParamError(f"unknown schema {name!r}; use one of: {', '.join(types)}")
    return types[name].json_schema()


__all__ = ["ErrorDetail", "ErrorReport", "result_schema"]
