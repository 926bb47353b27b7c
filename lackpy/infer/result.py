"""What ``generate`` and ``delegate`` return, in Python and as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lackpy.infer.dispatch import Attempt
from lackpy.lang.grade import Grade
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import TraceEntry


@dataclass
class GenerationResult:
    """A program for an intent, who wrote it, and how.

    ``provider`` is the tier that wrote it and ``detail`` which rule, template
    or model; ``kit`` names the kit and its tools, with ``chosen`` true when
    lackpy picked the tools from the intent; ``attempts`` is the whole log.
    """

    intent: str
    program: str
    provider: str
    detail: str
    grade: Grade
    kit: dict[str, Any]
    attempts: list[Attempt] = field(default_factory=list)
    generation_ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "intent": self.intent,
            "program": self.program,
            "provider": self.provider,
            "detail": self.detail,
            "grade": self.grade.to_dict(),
            "kit": dict(self.kit),
            "attempts": [a.to_dict() for a in self.attempts],
            "generation_ms": round(self.generation_ms, 3),
        }


@dataclass
class DelegateResult(GenerationResult):
    """A generated program and its run.

    ``success``, ``output``, ``error``, ``error_kind`` and ``trace`` are the
    run's; ``execution`` is the whole ExecutionResult (printed text, files
    changed, the diff of a dry run, limits).
    """

    execution: ExecutionResult | None = None
    execution_ms: float = 0.0

    @property
    def success(self) -> bool:
        return self.execution is not None and self.execution.success

    @property
    def output(self) -> Any:
        return self.execution.output if self.execution else None

    @property
    def error(self) -> str | None:
        return self.execution.error if self.execution else None

    @property
    def error_kind(self) -> str | None:
        return self.execution.error_kind if self.execution else None

    @property
    def trace(self) -> list[TraceEntry]:
        return self.execution.trace if self.execution else []

    def to_dict(self) -> dict:
        run = self.execution.to_dict() if self.execution else {"success": False}
        return {**run, **super().to_dict(), "execution_ms": round(self.execution_ms, 3)}


__all__ = ["DelegateResult", "GenerationResult"]
