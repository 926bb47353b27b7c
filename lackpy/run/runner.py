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
from time import perf_counter
from typing import Any, Mapping, Sequence

from lackpy.errors import ConflictError, LackpyError, ParamError
from lackpy.kit.context import ToolContext
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grammar import ALLOWED_BUILTINS, FORBIDDEN_NAMES
from lackpy.lang.validator import Rule
from lackpy.run.compiler import prepare
from lackpy.run.execute import Outcome, execute, thread_deadline, value_size
from lackpy.run.limits import DEFAULT_LIMITS, Limits
from lackpy.run.result import ExecutionResult, to_jsonable
from lackpy.run.trace import Recorder
from lackpy.tools import workspace
from lackpy.tools.budget import clamp

MODES = ("isolated", "inprocess")


def run_program(
    program: str,
    kit: ResolvedKit,
    params: Mapping[str, Any] | None = None,
    *,
    rules: Sequence[Rule] = (),
    context: ToolContext | None = None,
    limits: Limits | Mapping[str, Any] | None = None,
    mode: str = "isolated",
    dry_run: bool = False,
    sandbox: bool = True,
) -> ExecutionResult:
    """Validate (cached), compile (cached) and run ``program`` with ``kit``'s tools.

    Never raises for anything the program does: invalid programs, tool
    errors, exceptions and limits come back as a failed result. Writes are
    committed only when the program succeeds; with ``dry_run`` they are
    returned as a diff instead.
    """
    start = perf_counter()
    params = dict(params or {})
    names = kit.names
    try:
        if not isinstance(limits, Limits):  # explicit Limits are final; a dict adds to the kit's
            limits = DEFAULT_LIMITS.merged(kit.limits, "kit limits").merged(limits)
        if mode not in MODES:
            raise ParamError(f"unknown mode '{mode}'; use one of: {', '.join(MODES)}")
        check_params(params, names)
    except LackpyError as exc:
        return _failed(start, kit, str(exc), "invalid")
    prepared = prepare(program, names, tuple(sorted(params)), tuple(rules))
    if prepared.code is None:
        errors = prepared.validation.errors
        result = _failed(start, kit, f"invalid program: {errors[0]}", "invalid")
        result.diagnostics = list(errors)
        result.error_line = errors[0].line or None
        return result

    context = context or (kit.context or ToolContext(".")).fresh(staging=True, max_write_bytes=limits.max_write_bytes)
    recorder = Recorder(limits.max_tool_calls)
    tools = {alias: recorder.wrap(alias, fn) for alias, fn in kit.bind(context).items()}
    if mode == "isolated":
        from lackpy.run.isolated import run_isolated  # the worker machinery loads on first use

        outcome = run_isolated(prepared.code, tools, params, limits, sandbox)
    else:
        outcome = execute(prepared.code, tools, params, limits, thread_deadline)
    result = _result(outcome)
    _apply_budget(result, limits.budget_bytes)
    result.trace = recorder.entries(kit.tools)
    result.files_read = list(context.files_read)
    result.grade = kit.grade
    result.limits = limits
    result.mode = mode
    _finish_writes(result, context, dry_run)
    result.duration_ms = round((perf_counter() - start) * 1000, 4)
    return result


def _result(outcome: Outcome) -> ExecutionResult:
    return ExecutionResult(
        success=outcome.success,
        output=outcome.output,
        error=outcome.error,
        variables=outcome.variables,
        printed=outcome.printed,
        error_kind=outcome.error_kind,
        error_line=outcome.error_line,
        limit=outcome.limit,
        limit_value=outcome.limit_value,
    )


def _apply_budget(result: ExecutionResult, budget: int) -> None:
    """Cut printed text and the result to the budget (keeping both ends), flagging what was cut.

    A result that is not text and too large becomes its JSON text, cut.
    """
    if result.printed:
        result.printed, dropped = clamp(result.printed, budget)
        result.printed_truncated = dropped > 0
    output = result.output
    if isinstance(output, str):
        result.output, dropped = clamp(output, budget)
        result.output_truncated = dropped > 0
    elif output is not None and value_size(output, budget) > budget:
        text = json.dumps(to_jsonable(output), ensure_ascii=False)
        result.output, dropped = clamp(text, budget)
        result.output_truncated = dropped > 0


def _finish_writes(result: ExecutionResult, context: ToolContext, dry_run: bool) -> None:
    """Commit staged writes of a successful run, or describe them for a dry run."""
    store = workspace.staged(context)
    if store is None:
        result.files_modified = list(context.files_modified)
        return
    result.dry_run = dry_run
    if not store.staged:
        return
    planned = store.changes()
    if dry_run:
        result.diff = store.diff()
    elif result.success:
        try:
            store.commit()
        except (ConflictError, OSError) as exc:
            result.success = False
            result.error = str(exc) if isinstance(exc, ConflictError) else f"could not write the changes: {exc}"
            result.error_kind = "conflict" if isinstance(exc, ConflictError) else "commit"
            return
    elif not result.success:
        return  # a failed run changes nothing, and reports nothing as changed
    result.files_created, result.files_modified, result.files_deleted = planned.created, planned.modified, planned.deleted


def check_params(params: Mapping[str, Any], tools: frozenset[str]) -> None:
    """Parameter names must be plain identifiers that hide nothing."""
    for name in params:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ParamError(f"parameter name {name!r} is not a valid variable name (letters, digits, '_'; no leading '_')")
        if name in tools or name in ALLOWED_BUILTINS or name in FORBIDDEN_NAMES:
            raise ParamError(f"parameter '{name}' would hide a tool or builtin of that name; rename it")


def _failed(start: float, kit: ResolvedKit, error: str, kind: str) -> ExecutionResult:
    return ExecutionResult(
        success=False,
        error=error,
        error_kind=kind,
        grade=kit.grade,
        duration_ms=round((perf_counter() - start) * 1000, 4),
    )
