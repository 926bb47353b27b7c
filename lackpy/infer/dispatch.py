"""The dispatcher: tiers in order, each candidate sanitized, repaired, validated, run.

For each tier, cheapest first:

1. An unavailable tier is skipped with its reason.
2. A deterministic tier proposes at most one program; a model tier answers the
   prompt, and its answer is mended (``mend``: sanitized, given the
   deterministic repairs, checked for being cut off or a notebook session).
3. The program is validated against the kit. A model tier that fails is told
   what failed, with the doc sections of the tool it should have used, and
   asked again, ``max_retries`` times; then the next tier has its turn.
4. With a runner, a valid program runs. A model's program that fails at run
   time, or runs but is likely wrong (returns nothing, a glob that found
   nothing where files exist deeper, a key its tool never returns, an empty
   answer to "which files"), gets ``runtime_repairs`` rounds of the same
   feedback; if none does better, the run that succeeded is kept. A
   deterministic tier's valid program is final either way: its failure is a
   fact about the workspace, not a wrong guess.

Every step is logged as an Attempt, which is what callers and the final
error show.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from lackpy.errors import ErrorKind, GenerationError, LackpyError
from lackpy.infer.base import Availability, Message, Tier, Request
from lackpy.infer.diagnose.classify import Failure, classify_answer, classify_runtime, classify_validation, feedback
from lackpy.infer.mend.answer import mend
from lackpy.infer.prompt import build_messages
from lackpy.infer.settings import MODEL_SNIPPET, InferenceSettings
from lackpy.lang.diagnostics import Diagnostic
from lackpy.lang.validator import Check, validate
from lackpy.run.result import ExecutionResult
from lackpy.schema import Contract

#: Receives progress events: {"event": "tier", "tier", "model"}, {"event": "attempt", "tier", "attempt"} (each
#: request to a model, repairs included), {"event": "text", "text"}, {"event": "done", "tier"}.
OnEvent = Callable[[dict], None]
Runner = Callable[[str], ExecutionResult]


@dataclass
class Attempt(Contract):
    """One step of the attempt log.

    ``stage`` is where it ended: ``available`` (the tier could not serve),
    ``generate`` (no program, or the tier failed), ``validate`` or ``run``;
    ``ok`` says whether it passed that stage.
    """

    tier: str
    stage: str
    ok: bool = False
    program: str | None = None
    detail: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    failure_mode: str | None = None
    repairs: list[str] = field(default_factory=list)
    error: str | None = None
    duration_ms: float = 0.0

    def summary(self) -> str:
        what = self.error or "; ".join(str(d) for d in self.diagnostics[:2]) or self.stage
        mode = f" [{self.failure_mode}]" if self.failure_mode else ""
        return f"{self.tier}: {what}{mode}"


@dataclass
class Outcome:
    """What the dispatcher ends with: the program, who wrote it, the log, and the run if there was one."""

    program: str
    provider: str
    detail: str
    attempts: list[Attempt]
    generation_ms: float
    execution: ExecutionResult | None = None
    execution_ms: float = 0.0


class Dispatcher:
    """Runs the tiers for one request. ``read_doc`` reads a tool's doc for feedback."""

    def __init__(
        self,
        tiers: Sequence[Tier],
        settings: InferenceSettings,
        *,
        checks: Sequence[Check] = (),
        read_doc: Callable[[str], str] | None = None,
        on_event: OnEvent | None = None,
    ) -> None:
        self.tiers = list(tiers)
        self.settings = settings
        self.checks = tuple(checks)
        self.read_doc = read_doc
        self.on_event = on_event or (lambda event: None)

    # -- the loop -------------------------------------------------------------

    def dispatch(self, request: Request, run: Runner | None = None) -> Outcome:
        """The first program a tier gets through validation (and, with ``run``, the run).

        Raises GenerationError with the attempt log when no tier could serve.
        """
        attempts: list[Attempt] = []
        clock = _Clock()
        for tier in self.tiers:
            started = time.perf_counter()
            availability = _safely(tier.available)
            if not availability.ok:
                attempts.append(Attempt(tier.name, "available", error=availability.reason or "not available"))
                continue
            self.on_event({"event": "tier", "tier": tier.name, "model": tier.model})
            try:
                serve = self._model if tier.model else self._deterministic
                outcome = serve(tier, request, attempts, run, clock)
            except Exception as exc:  # a tier that breaks hands over; its error goes in the log, not a traceback
                error = str(exc) if isinstance(exc, LackpyError) else f"the tier failed: {type(exc).__name__}: {exc}"
                attempts.append(Attempt(tier.name, "generate", error=error, duration_ms=_ms(started)))
                outcome = None
            finally:
                self.on_event({"event": "done", "tier": tier.name})
            if outcome is not None:
                return outcome
        raise GenerationError(self._explain(request, attempts), attempts)

    def _deterministic(self, tier: Tier, request: Request, attempts: list[Attempt], run: Runner | None, clock: "_Clock"):
        started = time.perf_counter()
        proposal = tier.propose(request)
        if proposal is None:
            attempts.append(Attempt(tier.name, "generate", error="no match for this intent", duration_ms=_ms(started)))
            return None
        attempt, _ = self._check(tier.name, proposal.program, request, started, detail=proposal.detail)
        attempts.append(attempt)
        if not attempt.ok:
            tier.record(proposal, False)
            return None
        if run is None:
            return clock.outcome(attempt, tier, attempts)
        result = clock.run(run, attempt.program)
        attempts.append(_run_attempt(tier.name, attempt.program, result, attempt.detail))
        tier.record(proposal, result.success)
        return clock.outcome(attempt, tier, attempts, result)

    def _model(self, tier: Tier, request: Request, attempts: list[Attempt], run: Runner | None, clock: "_Clock"):
        messages: list[Message] = build_messages(request.intent, request.kit, request.params, request.guide)
        retries, repairs_left = self.settings.max_retries, self.settings.runtime_repairs
        asked = 0
        kept = None  # (attempt, result) of a run that succeeded but looked wrong: better than no program
        while True:
            started = time.perf_counter()
            asked += 1
            self.on_event({"event": "attempt", "tier": tier.name, "attempt": asked})
            answer = tier.complete(messages, lambda text: self.on_event({"event": "text", "text": text}))
            attempt, failure = self._check(tier.name, answer, request, started, detail=tier.describe(), model=True)
            attempts.append(attempt)
            if attempt.ok:
                if run is None:
                    return clock.outcome(attempt, tier, attempts)
                result = clock.run(run, attempt.program)
                if result.error_kind == ErrorKind.CANCELLED:  # stopped: the delegation ends with what the run had done
                    attempts.append(_run_attempt(tier.name, attempt.program, result))
                    return clock.outcome(attempt, tier, attempts, result)
                failure = classify_runtime(attempt.program, result, request.kit, intent=request.intent, read_doc=self.read_doc)
                attempts.append(_run_attempt(tier.name, attempt.program, result, failure=failure))
                if result.success and failure is not None and kept is None:
                    kept = (attempt, result)
                if failure is None or repairs_left == 0:
                    if failure is not None and not result.success and kept is not None:
                        return clock.outcome(kept[0], tier, attempts, kept[1])
                    return clock.outcome(attempt, tier, attempts, result)
                repairs_left -= 1
            elif retries == 0:
                return clock.outcome(kept[0], tier, attempts, kept[1]) if kept is not None else None
            else:
                retries -= 1
            note = feedback(failure, attempt.program or answer, request.kit, self.read_doc)
            messages = messages + [{"role": "assistant", "content": answer}, {"role": "user", "content": note}]

    def _check(
        self, tier: str, text: str, request: Request, started: float, *, detail: str = "", model: bool = False
    ) -> tuple[Attempt, Failure | None]:
        """Mend a model's answer, then validate and classify what fails.

        A deterministic program is validated as it is. An answer whose server
        said the model stopped at its length limit (``Completion.cut``) is cut
        off, however finished its text looks.
        """
        mended = mend(text, request.kit.names) if model else None
        program = mended.program if mended else text
        result = validate(program, request.kit.names, self.checks, params=list(request.params))
        if mended is not None:
            failure = classify_answer(mended, result.errors, request.kit, cut=getattr(text, "cut", False))
        else:
            failure = None if result.valid else classify_validation(program, result.errors, request.kit)
        attempt = Attempt(
            tier,
            "validate",
            ok=failure is None,
            program=program,
            detail=detail,
            diagnostics=result.errors,
            repairs=list(mended.repairs) if mended else [],
        )
        attempt.failure_mode = failure.mode if failure else None
        attempt.duration_ms = _ms(started)
        return attempt, failure

    # -- the message when nothing could serve ------------------------------------

    def _explain(self, request: Request, attempts: list[Attempt]) -> str:
        lines = [f"no tier could write a valid program for {request.intent!r}; what each tier tried:"]
        lines += [f"  - {a.summary()}" for a in attempts] or ["  - no tiers are configured ([inference] order)"]
        understood = [i for tier in self.tiers for i in _safely(tier.understands, [])]
        if understood:
            lines.append("The rules and templates understand intents such as: " + "; ".join(repr(i) for i in understood[:12]))
        if not any(tier.model for tier in self.tiers):
            lines.append("To let a model write programs, add one to .lackpy/config.toml:")
            lines += ["  " + line for line in MODEL_SNIPPET.splitlines()]
        return "\n".join(lines)


class _Clock:
    """Keeps generation and execution times apart across tiers and rounds."""

    def __init__(self) -> None:
        self.origin = time.perf_counter()
        self.execution_ms = 0.0

    def run(self, run: Runner, program: str) -> ExecutionResult:
        started = time.perf_counter()
        try:
            return run(program)
        finally:
            self.execution_ms += _ms(started)

    def outcome(self, attempt: Attempt, tier: Tier, attempts: list[Attempt], result: ExecutionResult | None = None) -> Outcome:
        total = _ms(self.origin)
        return Outcome(
            program=attempt.program or "",
            provider=tier.name,
            detail=attempt.detail,
            attempts=attempts,
            generation_ms=total - self.execution_ms,
            execution=result,
            execution_ms=self.execution_ms,
        )


def _run_attempt(tier: str, program: str, result: ExecutionResult, detail: str = "", failure: Failure | None = None) -> Attempt:
    return Attempt(
        tier,
        "run",
        ok=result.success and failure is None,
        program=program,
        detail=detail,
        failure_mode=failure.mode if failure else None,
        error=result.error or (failure.message if failure else None),
        duration_ms=result.duration_ms,
    )


def _safely(call: Callable[[], Any], default: Any = None) -> Any:
    """A tier's own report (available, understands) must never break the loop."""
    try:
        return call()
    except Exception as exc:  # a third-party tier's bug becomes a reason, not a traceback
        if default is not None:
            return default
        return Availability(False, f"the tier failed to report: {type(exc).__name__}: {exc}")


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


__all__ = ["Attempt", "Dispatcher", "OnEvent", "Outcome", "Runner"]
