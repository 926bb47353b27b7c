"""What ``generate`` and ``delegate`` return, in Python and as JSON.

Both are frozen and built once; ``to_dict()`` and ``json_schema()`` come from
their fields. A DelegateResult nests its run as ``execution`` (an
ExecutionResult) in Python and in JSON alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lackpy.errors import ErrorKind
from lackpy.infer.base import Request
from lackpy.infer.dispatch import Attempt, Outcome
from lackpy.lang.grade import Grade
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import TraceEntry
from lackpy.schema import Contract


@dataclass(frozen=True)
class GenerationResult(Contract):
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
    notices: list[str] = field(default_factory=list)
    """What lackpy wants the user to know about this workspace (e.g. what an untrusted one did not get)."""


@dataclass(frozen=True)
class DelegateResult(GenerationResult):
    """A generated program and its run.

    ``success`` is the run's; ``execution`` is the whole ExecutionResult (the
    output, the error and its kind, the trace, printed text, files changed,
    the diff of a dry run). ``output``, ``error``, ``error_kind`` and
    ``trace`` are shortcuts to it in Python.
    """

    success: bool = False
    execution: ExecutionResult | None = None
    execution_ms: float = 0.0

    @property
    def output(self) -> Any:
        return self.execution.output if self.execution else None

    @property
    def error(self) -> str | None:
        return self.execution.error if self.execution else None

    @property
    def error_kind(self) -> ErrorKind | None:
        return self.execution.error_kind if self.execution else None

    @property
    def trace(self) -> Sequence[TraceEntry]:
        return self.execution.trace if self.execution else []



def described(request: Request, kit: dict, outcome: Outcome, notices: list[str]) -> dict:
    """The fields ``GenerationResult`` and ``DelegateResult`` share, from the request, the kit as planned and the outcome."""
    return {
        "intent": request.intent,
        "program": outcome.program,
        "provider": outcome.provider,
        "detail": outcome.detail,
        "grade": request.kit.grade,
        "kit": kit,
        "attempts": outcome.attempts,
        "generation_ms": outcome.generation_ms,
        "notices": list(notices),
    }

__all__ = ["DelegateResult", "GenerationResult", "described"]
