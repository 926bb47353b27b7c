"""The runner: validate, compile and run a program with its kit's tools, traced.

Two modes share everything but where the program executes: ``inprocess``
runs it on the calling thread; ``isolated`` (the default) runs it in a worker
process forked from a fork server, where every tool call comes back to this
process over a channel. Either way the tools run here, with the real
workspace, their writes staged in the run's context until the program
succeeds.
"""

from __future__ import annotations

import json
import time
from time import perf_counter
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from lackpy.errors import CommitError, ConflictError, ErrorKind, LackpyError, ParamError
from lackpy.kit.call import ASKING, DEADLINE, PROGRESS, RESULT_BUDGET, Listener
from lackpy.kit.context import ToolContext
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grade import Grade
from lackpy.lang.grammar import ALLOWED_BUILTINS
from lackpy.lang.names import RULE, bindable, shown
from lackpy.lang.validator import Check
from lackpy.run.approvals import Gatekeeper
from lackpy.run.cancel import Cancel
from lackpy.run.compiler import prepare
from lackpy.run.dryrun import holding
from lackpy.run.execute import MAX_RESULT_DEPTH, Ending, execute, give_back_spare, nesting, plain_variables, thread_deadline, value_size
from lackpy.run.modes import MODES
from lackpy.run.limits import Limits, layered
from lackpy.run.result import ExecutionResult
from lackpy.run.guardrails import guarded
from lackpy.run.trace import HeldCall, Recorder
from lackpy.schema import to_jsonable
from lackpy.tools import workspace
from lackpy.host.budget import clamp



def run_program(
    program: str,
    kit: ResolvedKit,
    params: Mapping[str, Any] | None = None,
    *,
    checks: Sequence[Check] = (),
    context: ToolContext | None = None,
    limits: Limits | Mapping[str, Any] | None = None,
    mode: str = "isolated",
    dry_run: bool = False,
    sandbox: bool = True,
    cancel: Cancel | None = None,
    notices: Sequence[str] = (),
    state: dict | None = None,
    on_call: Callable[[str, int], None] | None = None,
    on_progress: Callable[[dict], None] | None = None,
    ceiling: Grade | None = None,
    guardrails: tuple[Any, Any] | None = None,
    approvals: Gatekeeper | None = None,
) -> ExecutionResult:
    """Validate (cached), compile (cached) and run ``program`` with ``kit``'s tools.

    Never raises for anything the program does: invalid programs, tool
    errors, exceptions and limits come back as a failed result. Writes are
    committed only when the program succeeds; with ``dry_run`` they are
    returned as a diff instead. ``limits`` add to the configured and the
    kit's (a ``Limits`` is taken as it is). ``cancel`` lets another thread
    stop the run: it then raises ``Cancelled`` and nothing is written.
    ``state`` is the session state the tools keep between runs (checklist,
    processes), the toolbox's own when None; ``on_call(tool, calls)`` hears
    of every tool call when it returns, on the thread that made it, and
    ``on_progress(event)`` what a tool reports while it works (``PROGRESS``).
    A program whose own grade (of the tools it calls) is above ``ceiling``
    is refused before it runs, with ``error_kind`` ``denied``.
    ``guardrails`` is the (before, after) pair of hook callers every tool
    call goes through (``lackpy.run.guardrails``). ``approvals`` asks a
    person at the program, call and commit gates (``lackpy.run.approvals``);
    a refusal is ``denied``, and a refused commit writes nothing.
    """
    start = perf_counter()
    params = dict(params or {})
    names = kit.names
    try:
        limits = layered(kit.config_limits, kit.limits, limits)
        if mode not in MODES:
            raise ParamError(f"unknown mode '{mode}'; use one of: {', '.join(MODES)}")
        check_params(params, names)
    except LackpyError as exc:
        return _failed(start, kit, str(exc), ErrorKind.parse(exc.kind), notices=notices)
    prepared = prepared_for(program, kit, params, checks)
    if prepared.code is None:
        errors = prepared.validation.errors
        return _failed(start, kit, f"invalid program: {errors[0]}", ErrorKind.VALIDATION, diagnostics=list(errors), notices=notices)

    called = [alias for alias in prepared.validation.calls if alias in names]  # validation proved it calls no other tool
    own = kit.grade_of(called)
    if ceiling is not None and not own.within(ceiling):
        above = ", ".join(kit.above(called, ceiling))
        message = f"denied: the program calls {above}, above the ceiling {ceiling}; run it under a higher ceiling (--ceiling KIT or W,D) if you mean it"
        return _failed(start, kit, message, ErrorKind.DENIED, notices=notices, program_grade=own)
    if approvals is not None:
        approvals = approvals.fresh()  # a run's own decisions (a delegate runs several programs)
        answer = approvals.program(program, own, called)
        if answer is not None and not answer.approved:
            message = f"denied: the program was not approved ({answer.by}): {answer.reason}"
            return _failed(start, kit, message, ErrorKind.DENIED, notices=notices, program_grade=own, approvals=approvals.decisions)
    context = _context_for(context, kit, limits, state, dry_run)
    context.kit = kit.tools
    recorder = Recorder(limits.max_tool_calls, on_call)
    bound = kit.bind(context, called)
    if approvals is not None:
        approvals.steps = lambda: len(recorder.calls)
        bound = {alias: approvals.gate(alias, kit.tools[alias], fn) for alias, fn in bound.items()}
    if guardrails is not None:
        bound = {alias: guarded(alias, kit.tools[alias], fn, *guardrails) for alias, fn in bound.items()}
    held: list[HeldCall] = []
    if dry_run:  # outermost: a held call reaches no guardrail, no approval and no tool
        bound = {alias: holding(alias, kit.tools[alias], fn, held, lambda: len(recorder.calls)) for alias, fn in bound.items()}
    tools = {alias: recorder.wrap(alias, fn) for alias, fn in bound.items()}
    cancel = cancel or Cancel()
    token = DEADLINE.set(time.monotonic() + limits.timeout_s)
    listening = Listener(on_progress) if on_progress is not None else None
    progress_token = PROGRESS.set(listening)
    budget_token = RESULT_BUDGET.set(limits.max_output_bytes)
    asking_token = ASKING.set(approvals)
    stage: str | None = "run"
    try:
        try:
            ending = _ended(prepared.code, tools, params, limits, mode, sandbox, cancel)
            output, output_cut, printed, printed_cut = _budgeted(ending, limits.budget_bytes)
            stage = "writes"
            writes = _finish_writes(ending, context, dry_run, cancel, approvals)
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
    if stage is not None:  # the exception is gone, and with it what filled the memory
        ending = None
        message = _OUT_OF_MEMORY[stage]
        decisions = approvals.decisions if approvals is not None else ()
        return _failed(
            start, kit, message, ErrorKind.LIMIT, notices=notices, program_grade=own, approvals=decisions,
            limit="memory", limit_value=limits.memory_bytes, trace=recorder.entries(kit.tools, decisions),
            held_back=held, dry_run=dry_run, mode=mode, limits=limits,
        )
    return ExecutionResult(
        success=writes.success,
        output=output,
        error=writes.error,
        error_kind=writes.error_kind,
        error_line=ending.error_line,
        trace=recorder.entries(kit.tools, approvals.decisions if approvals is not None else ()),
        limit=ending.limit,
        limit_value=ending.limit_value,
        files_read=list(context.files_read),
        files_created=writes.created,
        files_modified=writes.modified,
        files_deleted=writes.deleted,
        dry_run=writes.dry_run,
        diff=writes.diff,
        held_back=held,
        mode=mode,
        grade=kit.grade,
        program_grade=own,
        risk=own.risk,
        printed=printed,
        output_truncated=output_cut,
        printed_truncated=printed_cut,
        duration_ms=round((perf_counter() - start) * 1000, 4),
        notices=list(notices),
        variables=ending.variables,
        limits=limits,
        approvals=list(approvals.decisions) if approvals is not None else [],
    )


#: What a run that ran out of memory in lackpy's own process says, by the stage it was at.
_OUT_OF_MEMORY = {
    "run": "limit exceeded: memory: the run ran out of memory; nothing was written",
    "writes": "limit exceeded: memory: lackpy ran out of memory while finishing the writes; `lackpy doctor` shows whether a commit was left to recover",
}


def _context_for(context: ToolContext | None, kit: ResolvedKit, limits: Limits, state: dict | None, dry_run: bool) -> ToolContext:
    """The run's tool context: a fresh staging one, or the caller's; a dry run always stages, whatever it was given."""
    if context is None:
        return (kit.context or ToolContext(".")).fresh(staging=True, max_write_bytes=limits.max_write_bytes, session=state)
    if dry_run and not context.staging:
        return context.fresh(staging=True, max_write_bytes=limits.max_write_bytes, session=context.session)
    return context


def _ended(code: Any, tools: dict, params: dict, limits: Limits, mode: str, sandbox: bool, cancel: Cancel) -> Ending:
    """How the program ended, in ``mode``, its variables already plain data.

    A frame of its own, small, so that a ``MemoryError`` leaves it without
    needing memory (CPython 3.11 allocates to unwind a ``finally`` past the
    256th instruction of a function, and spins when it cannot).
    """
    cancel.attach()
    try:
        if mode == "isolated":
            from lackpy.run.isolated import run_isolated  # the worker machinery loads on first use

            return run_isolated(code, tools, params, limits, sandbox, cancel)
        ending = execute(code, tools, params, limits, thread_deadline)
        ending.variables = plain_variables(ending.variables, limits.max_output_bytes)
        return ending
    finally:
        cancel.detach()


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


def _finish_writes(ending: Ending, context: ToolContext, dry_run: bool, cancel: Cancel, approvals: Gatekeeper | None = None) -> _Writes:
    """Commit the staged writes of a successful run (once approved), or describe them for a dry run.

    A cancelled run raises Cancelled here, before anything is written. A
    commit that cannot be made (a conflict, a disk that refuses) writes
    nothing and fails the run with ``conflict`` or ``commit``.
    """
    unchanged = _Writes(ending.success, ending.error, ending.error_kind, [], [], [], False, None)
    if not context.staging:
        cancel.commit_or_raise()
        return unchanged._replace(modified=list(context.files_modified))
    unchanged = unchanged._replace(dry_run=dry_run)
    store = workspace.staged(context)
    if store is None or not store.staged:
        cancel.commit_or_raise()
        return unchanged
    planned = store.changes()
    diff = None
    if dry_run:
        cancel.commit_or_raise()
        diff = store.diff()
    elif not ending.success:
        return unchanged  # a failed run changes nothing, and reports nothing as changed
    else:
        answer = approvals.commit(planned, store.diff) if approvals is not None else None
        if answer is not None and not answer.approved:
            error = f"denied: the changes were not approved ({answer.by}): {answer.reason}; nothing was written"
            return unchanged._replace(success=False, error=error, error_kind=ErrorKind.DENIED)
        cancel.commit_or_raise()
        try:
            store.commit()  # all or nothing, crash-consistent (lackpy.host.journal)
        except (ConflictError, CommitError) as exc:
            return unchanged._replace(success=False, error=str(exc), error_kind=ErrorKind.parse(exc.kind))
        except OSError as exc:
            return unchanged._replace(success=False, error=f"could not write the changes: {exc}; nothing was written", error_kind=ErrorKind.COMMIT)
    return unchanged._replace(created=planned.created, modified=planned.modified, deleted=planned.deleted, diff=diff)


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
    approvals: Sequence[Any] = (),
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
        approvals=list(approvals),
        **fields,
    )
