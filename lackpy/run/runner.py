"""The guarded runner: run a validated program with its kit's tools, traced."""

from __future__ import annotations

import types
from time import perf_counter
from typing import Any, Mapping, Sequence

from lackpy.errors import LackpyError, ParamError, ToolError
from lackpy.kit.context import ToolContext
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grammar import ALLOWED_BUILTINS, FORBIDDEN_NAMES, PROGRAM_FILENAME
from lackpy.lang.validator import Rule
from lackpy.run.compiler import prepare
from lackpy.run.guards import BASE_GLOBALS, make_print, operation_guards
from lackpy.run.limits import DEFAULT_LIMITS
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import Recorder, describe_exception


def run_program(
    program: str,
    kit: ResolvedKit,
    params: Mapping[str, Any] | None = None,
    *,
    rules: Sequence[Rule] = (),
    context: ToolContext | None = None,
) -> ExecutionResult:
    """Validate (cached), compile (cached) and run ``program`` with ``kit``'s tools.

    Never raises for anything the program does: invalid programs, tool errors
    and exceptions come back as a failed result. ``context`` is the run's tool
    context (default: a fresh one over the kit's workspace).
    """
    start = perf_counter()
    params = dict(params or {})
    names = kit.names
    try:
        check_params(params, names)
    except ParamError as exc:
        return _failed(start, kit, str(exc), "invalid")
    prepared = prepare(program, names, tuple(sorted(params)), tuple(rules))
    if prepared.code is None:
        errors = prepared.validation.errors
        result = _failed(start, kit, f"invalid program: {errors[0]}", "invalid")
        result.diagnostics = list(errors)
        result.error_line = errors[0].line or None
        return result

    context = context or (kit.context.fresh() if kit.context else ToolContext("."))
    recorder = Recorder()
    namespace = dict(BASE_GLOBALS)
    namespace.update(operation_guards(DEFAULT_LIMITS))
    for alias, fn in kit.bind(context).items():
        namespace[alias] = recorder.wrap(alias, fn)
    printed: list[str] = []
    namespace["print"] = make_print(printed)
    function = types.FunctionType(prepared.code, namespace)
    try:
        output, variables = function(**params)
    except Exception as exc:  # MemoryError and RecursionError included
        result = _runtime_failure(exc, recorder)
    else:
        result = ExecutionResult(success=True, output=output, variables=_public(variables))
    result.trace = recorder.entries(kit.tools)
    result.printed = "".join(printed)
    result.files_read = list(context.files_read)
    result.files_modified = list(context.files_modified)
    result.grade = kit.grade
    result.duration_ms = round((perf_counter() - start) * 1000, 4)
    return result


def check_params(params: Mapping[str, Any], tools: frozenset[str]) -> None:
    """Parameter names must be plain identifiers that hide nothing."""
    for name in params:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ParamError(f"parameter name {name!r} is not a valid variable name (letters, digits, '_'; no leading '_')")
        if name in tools or name in ALLOWED_BUILTINS or name in FORBIDDEN_NAMES:
            raise ParamError(f"parameter '{name}' would hide a tool or builtin of that name; rename it")


def _runtime_failure(exc: BaseException, recorder: Recorder) -> ExecutionResult:
    line, variables = _program_frame(exc)
    tool = recorder.failed_tool(exc)
    if isinstance(exc, ToolError) or (tool and not isinstance(exc, LackpyError)):
        kind = "tool"
    elif isinstance(exc, LackpyError):
        kind = exc.kind
    else:
        kind = "runtime"
    where = f"line {line}: " if line else ""
    inside = f" in {tool}" if tool else ""
    message = describe_exception(exc)
    if inside:
        name, _, text = message.partition(": ")
        message = f"{name}{inside}: {text}"
    return ExecutionResult(
        success=False,
        error=where + message,
        error_kind=kind,
        error_line=line,
        variables=_public(variables),
    )


def _program_frame(exc: BaseException) -> tuple[int | None, dict]:
    """The line the program was on and its variables, from the traceback."""
    line, variables = None, {}
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == PROGRAM_FILENAME:
            line = tb.tb_lineno
            if code.co_name == "program":
                variables = dict(tb.tb_frame.f_locals)
        tb = tb.tb_next
    return line, variables


def _public(variables: dict) -> dict:
    return {k: v for k, v in variables.items() if k[:1] != "_"}


def _failed(start: float, kit: ResolvedKit, error: str, kind: str) -> ExecutionResult:
    return ExecutionResult(
        success=False,
        error=error,
        error_kind=kind,
        grade=kit.grade,
        duration_ms=round((perf_counter() - start) * 1000, 4),
    )
