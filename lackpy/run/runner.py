"""The runner: validate, compile and run a program with its kit's tools, traced.

Two modes share everything but where the program executes: ``inprocess``
runs it on the calling thread; ``isolated`` (the default) runs it in a worker
process forked from a fork server, where every tool call comes back to this
process over a channel. Either way the tools run here, with the real
workspace, their writes staged in the run's context until the program
succeeds.
"""

from __future__ import annotations

import dataclasses
import json
import time
from contextlib import contextmanager
from time import perf_counter
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from lackpy.errors import CommitError, ConflictError, ErrorKind, LackpyError, ParamError
from lackpy.kit.call import ASKING, DEADLINE, PROGRESS, RESULT_BUDGET, Listener
from lackpy.kit.context import ToolContext
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import ALLOWED_BUILTINS
from lackpy.lang.names import RULE, bindable, shown
from lackpy.lang.validator import Check
from lackpy.approvals.gatekeeper import Gatekeeper
from lackpy.approvals.policy import ApprovalPolicy
from lackpy.run.cancel import Cancel
from lackpy.run.claims import Claims
from lackpy.run.compiler import prepare
from lackpy.run.dryrun import holding
from lackpy.run.execute import (
    CANCELLED, MAX_RESULT_DEPTH, Cancelled, Ending, assigned, execute, give_back_spare, nesting, paused, plain_variables, thread_deadline, value_size,
)
from lackpy.run.modes import MODES
from lackpy.run.limits import Limits, layered
from lackpy.run.result import ExecutionResult
from lackpy.run.settings import RunSettings
from lackpy.run.slots import set_aside
from lackpy.run.guardrails import guarded
from lackpy.run.trace import HeldCall, Recorder
from lackpy.schema import to_jsonable
from lackpy.tools import workspace
from lackpy.host.budget import clamp


def run_program(program: str, kit: ResolvedKit, params: Mapping[str, Any] | None = None, *, cancel: Cancel | None = None, **settings: Any) -> ExecutionResult:
    """Run ``program`` with ``kit``'s tools: the keyword form of ``run_with``.

    ``settings`` are the other fields of ``RunSettings`` (checks, limits,
    mode, dry_run, ...); a name that is none of them raises TypeError.
    """
    return run_with(program, RunSettings(kit, params, **settings), cancel)


def run_with(program: str, settings: RunSettings, cancel: Cancel | None = None, begun: Any = None) -> ExecutionResult:
    """Validate (cached), compile (cached) and run ``program`` as ``settings`` say, traced.

    Never raises for anything the program does: invalid programs, tool
    errors, exceptions and limits come back as a failed result. Writes are
    committed only when the program succeeds; with ``dry_run`` they are
    returned as a diff instead. ``cancel`` lets another thread stop the run:
    it ends as ``cancelled``, with what it had done, and nothing is written. A program above the
    ceiling, or one a person did not approve, is refused before it runs
    (``denied``); a refused commit writes nothing. ``begun``: the worker
    ``begin_early`` already sent this run's job (its caller ends it).
    """
    start, checked_at = perf_counter(), None
    try:
        checked = _checked(program, settings, start)
        checked_at = perf_counter()
        if cancel is not None and cancel.cancelled:  # stopped before its turn came: nothing ran, no one is asked
            return _failed(start, settings.kit, "cancelled: the run was stopped before it started; nothing ran", ErrorKind.CANCELLED, notices=settings.notices,
                           program_grade=checked.own, clock=(start, checked_at))
        gatekeeper = _program_approved(program, settings, checked, start)
    except _Refused as refused:  # refused by a check (which ends now) or by a person (the checks ended before)
        return dataclasses.replace(refused.result, clock=(start, checked_at or perf_counter()))
    kit, limits = settings.kit, checked.limits
    context = _context_for(settings.context, kit, limits, settings.state, settings.dry_run)
    context.tools, context.skill = kit.tools, settings.skill
    recorder = Recorder(limits.max_tool_calls, settings.on_call, lambda: (context.bytes_read, context.bytes_written))
    held: list[HeldCall] = []
    claims = Claims(context) if context.staging and not settings.dry_run else None
    tools = _wrapped_tools(settings, checked, context, recorder, gatekeeper, held, claims)
    ran = _run_traced(checked, tools, settings, context, cancel or Cancel(), gatekeeper, begun)
    if claims is not None and ran.stage is None:
        output, printed = claims.amend(recorder.calls, ran.output, ran.printed, ran.writes.unwritten, ran.writes.pending)
        ran = ran._replace(output=output, printed=printed)
    decisions = gatekeeper.decisions if gatekeeper is not None else ()
    if ran.stage is not None:  # the exception is gone, and with it what filled the memory
        return _failed(
            start, kit, _OUT_OF_MEMORY[ran.stage], ErrorKind.LIMIT, notices=settings.notices, program_grade=checked.own, decisions=decisions,
            limit="memory", limit_value=limits.memory_bytes, trace=recorder.entries(decisions),
            held_back=held, dry_run=settings.dry_run, mode=settings.mode, limits=limits, clock=(start, checked_at),
        )
    return _result(start, settings, checked, ran, context, recorder.entries(decisions), held, decisions, checked_at)


_SCALARS = frozenset({type(None), bool, int, float})


def begin_early(program: str, settings: RunSettings) -> Any:
    """An isolated run's worker sent its job at once, on the caller's thread, when nothing has to come first; else None.

    Only a worker held ready is taken (nothing is waited for), and only for
    a run that passes its checks and whose program gate asks nobody (no
    program reaches a worker before it may run), with no parameters but
    numbers and short strings. The worker then starts
    while the run thread wakes up and gets the run's tools ready; the run
    thread's own checks find the same answers in prepare's cache.
    """
    gatekeeper = settings.gatekeeper
    if settings.mode != "isolated" or settings.origin is not None:
        return None
    if settings.params and not all(type(v) in _SCALARS or (type(v) is str and len(v) <= 4096) for v in settings.params.values()):
        return None  # checking and sending large data would hold up the loop: the run thread does that
    try:
        checked = _checked(program, settings, perf_counter())
    except _Refused:
        return None
    if gatekeeper is not None and gatekeeper.asks_first(checked.called, settings.kit):
        return None  # a question may come first
    from lackpy.run.isolated import Begun, begin

    begun = begin(checked.code, checked.called, checked.params, checked.limits, settings.sandbox, held_only=True, session_worker=settings.session_worker)
    return begun if isinstance(begun, Begun) else None  # a failure is met again, and reported, on the run thread


class _Refused(Exception):
    """A run refused before it starts, with its failed result."""

    def __init__(self, result: ExecutionResult) -> None:
        super().__init__(result.error)
        self.result = result


class _Checked(NamedTuple):
    """What the checks before a run settled: the parameters, the limits, the code, the tools it calls and its grade."""

    params: dict
    limits: Limits
    code: Any
    called: list[str]
    own: Grade


def _checked(program: str, settings: RunSettings, start: float) -> _Checked:
    """The checks before a run: limits, mode and parameters, then the program (validated and compiled), then the ceiling.

    Raises ``_Refused`` with the failed result of the first check that fails.
    """
    kit, params = settings.kit, dict(settings.params or {})
    try:
        limits = layered(kit.config_limits, kit.limits, settings.limits)
        if settings.mode not in MODES:
            raise ParamError(f"unknown mode '{settings.mode}'; use one of: {', '.join(MODES)}")
        check_params(params, kit.names)
    except LackpyError as exc:
        raise _Refused(_failed(start, kit, str(exc), ErrorKind.parse(exc.kind), notices=settings.notices)) from None
    prepared = prepared_for(program, kit, params, settings.checks)
    if prepared.code is None:
        errors = prepared.validation.errors
        failed = _failed(start, kit, f"invalid program: {errors[0]}", ErrorKind.VALIDATION, diagnostics=list(errors), notices=settings.notices)
        raise _Refused(failed)
    called = [alias for alias in prepared.validation.calls if alias in kit.names]  # validation proved it calls no other tool
    own = kit.grade_of(called)
    ceiling = settings.ceiling
    if ceiling is not None and not own.within(ceiling):
        above = ", ".join(kit.above(called, ceiling))
        message = f"denied: the program calls {above}, above the ceiling {ceiling}; run it under a higher ceiling (--ceiling KIT or W,D) if you mean it"
        raise _Refused(_failed(start, kit, message, ErrorKind.DENIED, notices=settings.notices, program_grade=own))
    return _Checked(params, limits, prepared.code, called, own)


def _program_approved(program: str, settings: RunSettings, checked: _Checked, start: float) -> Gatekeeper | None:
    """The run's own gatekeeper (a delegate runs several programs), once the program gate approved; None without approvals.

    The list of the program's effects is the question when the policy says
    (``Gatekeeper.effects``), but not in a dry run, which acts on nothing.
    A program run with a skill another MCP server serves (``settings.origin``)
    passes the ``skill`` gate instead, which always asks (it shows the program
    too); with no gatekeeper, nobody is asked and it is denied. Raises
    ``_Refused`` when the program is not approved.
    """
    if settings.gatekeeper is None and settings.origin is None:
        return None
    gatekeeper = settings.gatekeeper.fresh() if settings.gatekeeper is not None else Gatekeeper(ApprovalPolicy(), None)
    gatekeeper.waiting = _waiting
    if settings.origin is not None:  # a skill another MCP server serves: a person approves this program with it, always
        answer = gatekeeper.skill(program, checked.own, checked.called, settings.origin)
        what = f"the program with skill {settings.origin.skill} (served by the MCP server {settings.origin.server})"
    elif settings.dry_run:  # a dry run acts on nothing: there are no effects to approve
        answer = gatekeeper.program(program, checked.own, checked.called)
        what = "the program"
    else:
        staging = settings.context is None or settings.context.staging
        answer = gatekeeper.effects(program, checked.own, checked.called, settings.kit, checked.params, staging)
        what = "the program" if answer is None or answer.gate == "program" else "the list of the program's effects"
    if answer is not None and not answer.approved:
        message = f"denied: {what} was not approved ({answer.by}): {answer.reason}"
        failed = _failed(start, settings.kit, message, ErrorKind.DENIED, notices=settings.notices, program_grade=checked.own, decisions=gatekeeper.decisions)
        raise _Refused(failed)
    return gatekeeper


@contextmanager
def _waiting() -> Iterator[str | None]:
    """A wait for a person during this run: its clock stops (``paused``) and its slot goes to another run (``set_aside``).

    Yields None, or why the wait cannot be allowed (too many runs waiting already).
    """
    with paused(), set_aside() as refused:
        yield refused


def _wrapped_tools(
    settings: RunSettings, checked: _Checked, context: ToolContext, recorder: Recorder, gatekeeper: Gatekeeper | None, held: list[HeldCall],
    claims: Claims | None = None,
) -> dict[str, Callable[..., Any]]:
    """The tools the program calls, bound to ``context`` and wrapped, innermost first: what they wrote, approval gates, guardrails, dry-run holding, the trace.

    A dry run holds outermost, so a held call reaches no guardrail, no
    approval and no tool; the recorder is outermost of all, so it sees every call.
    """
    kit = settings.kit
    bound = kit.bind(context, checked.called)
    if claims is not None:
        bound = {alias: claims.wrap(alias, fn) for alias, fn in bound.items()}
    if gatekeeper is not None:
        gatekeeper.steps = lambda: len(recorder.calls)
        bound = {alias: gatekeeper.gate(alias, kit.tools[alias], fn) for alias, fn in bound.items()}
    if settings.guardrails is not None:
        bound = {alias: guarded(alias, kit.tools[alias], fn, *settings.guardrails) for alias, fn in bound.items()}
    if settings.dry_run:
        bound = {alias: holding(alias, kit.tools[alias], fn, held, lambda: len(recorder.calls)) for alias, fn in bound.items()}
    return {alias: recorder.wrap(alias, fn, [a.name for a in kit.tools[alias].args]) for alias, fn in bound.items()}


class _Ran(NamedTuple):
    """How a run went: ``stage`` is where it ran out of memory (``run`` or ``writes``), None when it did not."""

    stage: str | None
    ending: Ending | None = None
    output: Any = None
    output_cut: bool = False
    printed: str = ""
    printed_cut: bool = False
    writes: _Writes | None = None


def _run_traced(
    checked: _Checked, tools: dict, settings: RunSettings, context: ToolContext, cancel: Cancel, gatekeeper: Gatekeeper | None, begun: Any = None
) -> _Ran:
    """Run the program and finish its writes with the run's context variables set, and reset, in this order.

    DEADLINE (the run's end), PROGRESS (who hears tools' progress),
    RESULT_BUDGET (the bytes a result may take), ASKING (the gatekeeper a
    tool asks). A ``MemoryError`` in lackpy's own process becomes the stage
    it happened at; what filled the memory is gone when this frame returns.
    """
    limits = checked.limits
    token = DEADLINE.set(time.monotonic() + limits.timeout_s)
    listening = Listener(settings.on_progress) if settings.on_progress is not None else None
    progress_token = PROGRESS.set(listening)
    budget_token = RESULT_BUDGET.set(limits.max_output_bytes)
    asking_token = ASKING.set(gatekeeper)
    stage: str | None = "run"
    try:
        try:
            ending = _ended(checked.code, tools, checked.params, limits, settings, cancel, begun)
            output, output_cut, printed, printed_cut = _budgeted(ending, limits.budget_bytes)
            stage = "writes"
            writes = _finish_writes(ending, context, settings.dry_run, cancel, gatekeeper)
            stage = None
        except MemoryError:
            give_back_spare()  # first, before anything here needs memory
    finally:
        DEADLINE.reset(token)
        PROGRESS.reset(progress_token)
        if listening is not None:
            listening.close()
        RESULT_BUDGET.reset(budget_token)
        ASKING.reset(asking_token)
    if stage is not None:
        return _Ran(stage)
    return _Ran(None, ending, output, output_cut, printed, printed_cut, writes)


def _result(
    start: float, settings: RunSettings, checked: _Checked, ran: _Ran, context: ToolContext, trace: list, held: list[HeldCall], decisions: Sequence[Any],
    checked_at: float,
) -> ExecutionResult:
    """The result of a run that ended (well or not) without running out of memory; its checks ended at ``checked_at``."""
    ending, writes, own = ran.ending, ran.writes, checked.own
    whole, cut = ({}, {}) if ending.success else assigned(ending.variables, checked.params, checked.limits.budget_bytes)
    return ExecutionResult(
        success=writes.success,
        complete=ending.success,
        output=ran.output,
        error=writes.error,
        error_kind=writes.error_kind,
        error_line=ending.error_line,
        trace=trace,
        limit=ending.limit,
        limit_value=ending.limit_value,
        files_read=list(context.files_read),
        files_created=writes.created,
        files_modified=writes.modified,
        files_deleted=writes.deleted,
        dry_run=writes.dry_run,
        diff=writes.diff,
        held_back=held,
        mode=settings.mode,
        grade=settings.kit.grade,
        program_grade=own,
        risk=own.risk,
        printed=ran.printed,
        output_truncated=ran.output_cut,
        printed_truncated=ran.printed_cut,
        duration_ms=round((perf_counter() - start) * 1000, 4),
        notices=list(settings.notices),
        assigned=whole,
        assigned_cut=cut,
        variables=ending.variables,
        limits=checked.limits,
        decisions=list(decisions),
        clock=(start, checked_at),
    )


#: What a run that ran out of memory in lackpy's own process says, by the stage it was at.
_OUT_OF_MEMORY = {
    "run": "limit exceeded: memory: the run ran out of memory; nothing was written",
    "writes": "limit exceeded: memory: lackpy ran out of memory while finishing the writes; `lackpy doctor` shows whether a commit was left to recover",
}


def _context_for(context: ToolContext | None, kit: ResolvedKit, limits: Limits, state: dict | None, dry_run: bool) -> ToolContext:
    """The run's tool context: a fresh staging one, or the caller's; a dry run always stages, whatever it was given, and its tools know it."""
    if context is None:
        context = (kit.context or ToolContext(".")).fresh(staging=True, max_write_bytes=limits.max_write_bytes, state=state)
    elif dry_run and not context.staging:
        context = context.fresh(staging=True, max_write_bytes=limits.max_write_bytes, state=context.state)
    context.dry_run, context.written = dry_run, []  # what this run's tools write, and whether they only would
    return context


def _ended(code: Any, tools: dict, params: dict, limits: Limits, settings: RunSettings, cancel: Cancel, begun: Any = None) -> Ending:
    """How the program ended, in ``mode``, its variables already plain data.

    A frame of its own, small, so that a ``MemoryError`` leaves it without
    needing memory (CPython 3.11 allocates to unwind a ``finally`` past the
    256th instruction of a function, and spins when it cannot).
    """
    if settings.mode == "isolated":
        from lackpy.run.isolated import run_isolated  # the worker machinery loads on first use

        # Cancelling asks the worker to stop (and kills it if it does not); ``Cancelled`` is raised into this thread only while a tool runs.
        return run_isolated(code, tools, params, limits, settings.sandbox, cancel, begun, settings.session_worker)
    try:  # a cancel that lands outside the program (before it starts, or as it returns) ends it all the same
        cancel.attach()
        try:
            ending = execute(code, tools, params, limits, thread_deadline)
        finally:
            cancel.detach()
    except Cancelled:
        return Ending(False, error=CANCELLED, error_kind=ErrorKind.CANCELLED)
    ending.variables = plain_variables(ending.variables, limits.max_output_bytes)
    return ending


def _budgeted(ending: Ending, budget: int) -> tuple[Any, bool, str, bool]:
    """Printed text and the result cut to the budget (keeping both ends), with flags for what was cut.

    A result that is not text and too large becomes its JSON text, cut.
    """
    printed, dropped = clamp(ending.printed, budget) if ending.printed else ("", 0)
    printed_cut = dropped > 0
    output, output_cut = ending.output, False
    if isinstance(output, str):
        output, dropped = clamp(output, budget)
        output_cut = dropped > 0
    elif output is not None and value_size(output, budget) > budget:
        output, dropped = clamp(json.dumps(to_jsonable(output), ensure_ascii=False), budget)
        output_cut = dropped > 0
    return output, output_cut, printed, printed_cut


class _Writes(NamedTuple):
    success: bool
    error: str | None
    error_kind: ErrorKind | None
    created: list[str]
    modified: list[str]
    deleted: list[str]
    dry_run: bool
    diff: str | None
    unwritten: str | None = None
    """Why the staged writes were not made (None: they were, or there were none, or it is a dry run)."""
    pending: frozenset = frozenset()
    """The paths the commit changed (or would have)."""


#: Why a run that did not commit wrote nothing, by how it ended.
_FAILED = "the program failed, and a failed run writes nothing"
_CANCELLED = "the run was cancelled before its writes were made"


def _finish_writes(ending: Ending, context: ToolContext, dry_run: bool, cancel: Cancel, gatekeeper: Gatekeeper | None = None) -> _Writes:
    """Commit the staged writes of a successful run (once approved), or describe them for a dry run.

    A run cancelled before its commit began writes nothing and fails as
    ``cancelled`` (a program that ran to its end keeps its output). A
    commit that cannot be made (a conflict, a disk that refuses) writes
    nothing and fails the run with ``conflict`` or ``commit``.
    """
    unchanged = _Writes(ending.success, ending.error, ending.error_kind, [], [], [], False, None)
    cancelled = unchanged._replace(success=False, error=f"{CANCELLED}; nothing was written", error_kind=ErrorKind.CANCELLED)
    if not context.staging:
        return unchanged._replace(modified=list(context.files_modified)) if _committing(ending, cancel) else cancelled
    unchanged = unchanged._replace(dry_run=dry_run)
    store = workspace.staged(context)
    pending = frozenset(store.pending()) if store is not None else frozenset()
    if not pending:  # nothing staged, or only writes that change nothing: nothing to ask about or write
        if not _committing(ending, cancel):
            return cancelled._replace(unwritten=_CANCELLED)
        return unchanged if ending.success or dry_run else unchanged._replace(unwritten=_FAILED)
    unchanged, cancelled = unchanged._replace(pending=pending), cancelled._replace(pending=pending, unwritten=_CANCELLED)
    planned = store.changes()
    diff = None
    if dry_run:
        if not _committing(ending, cancel):
            return cancelled._replace(dry_run=True)
        diff = store.diff()
    elif not ending.success:
        return unchanged._replace(unwritten=_FAILED)  # a failed run changes nothing, and reports nothing as changed
    else:
        answer = gatekeeper.commit(planned, store.diff) if gatekeeper is not None else None
        if answer is not None and not answer.approved:
            refused = f"the changes were not approved ({answer.by}): {answer.reason}"
            return unchanged._replace(success=False, error=f"denied: {refused}; nothing was written", error_kind=ErrorKind.DENIED, unwritten=refused)
        if not _committing(ending, cancel):
            return cancelled
        try:
            store.commit()  # all or nothing, crash-consistent (lackpy.host.journal)
        except (ConflictError, CommitError) as exc:
            return unchanged._replace(success=False, error=str(exc), error_kind=ErrorKind.parse(exc.kind), unwritten=str(exc))
        except OSError as exc:
            error = f"could not write the changes: {exc}; nothing was written"
            return unchanged._replace(success=False, error=error, error_kind=ErrorKind.COMMIT, unwritten=error)
    return unchanged._replace(created=planned.created, modified=planned.modified, deleted=planned.deleted, diff=diff)


def _committing(ending: Ending, cancel: Cancel) -> bool:
    """Past this point the run can no longer be cancelled; False when it already was (a run that ended as ``cancelled`` says so itself)."""
    if ending.error_kind == ErrorKind.CANCELLED:
        return True
    try:
        cancel.commit_or_raise()
    except Cancelled:
        return False
    return True


def prepared_for(program: str, kit: ResolvedKit, params: Mapping[str, Any] | None, checks: Sequence[Check]) -> Any:
    """``program`` validated and compiled for ``kit`` and ``params`` (cached: what a run of it uses)."""
    return prepare(program, kit.names, tuple(sorted(params or ())), tuple(checks))


def check_params(params: Mapping[str, Any], tools: frozenset[str]) -> None:
    """Parameter names must be plain identifiers that hide nothing; values plain data of sane depth."""
    for name, value in params.items():
        if not bindable(name):
            raise ParamError(f"parameter name {shown(name)} is not a valid variable name ({RULE})")
        if name in tools or name in ALLOWED_BUILTINS:
            raise ParamError(f"parameter '{name}' would hide a tool or builtin of that name; rename it")
        if nesting(value, MAX_RESULT_DEPTH) > MAX_RESULT_DEPTH:
            raise ParamError(f"parameter '{name}' is nested more than {MAX_RESULT_DEPTH} levels deep; pass flatter data")


def _failed(
    start: float,
    kit: ResolvedKit,
    error: str,
    kind: ErrorKind,
    diagnostics: list | None = None,
    notices: Sequence[str] = (),
    program_grade: Grade | None = None,
    decisions: Sequence[Any] = (),
    **fields: Any,
) -> ExecutionResult:
    """A failed result; ``fields`` are any others it has (a run stopped late has its trace)."""
    return ExecutionResult(
        success=False,
        error=error,
        error_kind=kind,
        error_line=(diagnostics[0].line or None) if diagnostics else None,
        diagnostics=list(diagnostics or []),
        grade=kit.grade,
        program_grade=program_grade,
        risk=program_grade.risk if program_grade is not None else None,
        duration_ms=round((perf_counter() - start) * 1000, 4),
        notices=list(notices),
        decisions=list(decisions),
        **fields,
    )
