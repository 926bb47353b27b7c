"""How a tool is called: its arguments checked against its schema, an async tool awaited.

Every tool a program reaches goes through ``checked``: in-process the
program calls it directly, and in the isolated mode the host calls it on the
worker's behalf, so the check and the awaiting are the same in both modes.
The run's deadline (``DEADLINE``, a monotonic time set by the runner) bounds
an async tool.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
import types
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from functools import wraps
from typing import Any, Callable, Coroutine

from lackpy.errors import LimitExceeded
from lackpy.kit.context import takes_context, uses_context
from lackpy.kit.spec import ToolSpec

#: What a sync tool may return that still needs awaiting (a coroutine from a wrapped async function).
_AWAITABLES = frozenset({types.CoroutineType})

#: The monotonic time the current run must end by, or None outside a run.
DEADLINE: ContextVar[float | None] = ContextVar("lackpy_deadline", default=None)
#: The most of one result the run takes in, in bytes (its ``max_output_bytes``; set by the runner).
RESULT_BUDGET: ContextVar[int | None] = ContextVar("lackpy_result_budget", default=None)
#: Where a tool reports its progress during a run (``{"event": "progress", "tool", "progress", "total", "message"}``), if anywhere.
PROGRESS: ContextVar[Callable[[dict], None] | None] = ContextVar("lackpy_progress", default=None)
#: The run's gatekeeper (``lackpy.approvals.gatekeeper``), for a tool that carries a question from elsewhere to the person: an MCP server's elicitation.
ASKING: ContextVar[Any] = ContextVar("lackpy_asking", default=None)
#: The tool being called, while a run listens for progress (what ``progress`` names).
TOOL: ContextVar[str] = ContextVar("lackpy_tool", default="")


def progress(message: str, progress: float | None = None, total: float | None = None) -> None:
    """Tell whoever watches the run what the tool is doing now: ``lackpy.progress("3 of 10 files", 3, 10)``.

    For custom tools (``@tool``) that take a while. It reaches the CLI's
    spinner, ``on_event`` of ``LackpyService.run_program`` and an MCP
    client's progress notifications; it never enters the result or the
    trace. Outside a run, or when nobody listens, it does nothing.
    """
    sink = PROGRESS.get()
    if sink is not None:
        sink({"event": "progress", "tool": TOOL.get(), "progress": progress, "total": total, "message": str(message)})


class Listener:
    """A run's progress sink (what ``PROGRESS`` holds) that falls silent when the run ends.

    A thread that outlives the run (the reader of a background process)
    may still hold it; once ``close``d it tells nobody. ``closing(fn)``
    has ``fn()`` called first, so what such a thread still holds is passed
    on before the run's result.
    """

    def __init__(self, sink: Callable[[dict], None]) -> None:
        self.sink: Callable[[dict], None] | None = sink
        self._closing: list[Callable[[], None]] = []

    def __call__(self, event: dict) -> None:
        sink = self.sink
        if sink is not None:
            sink(event)

    def closing(self, fn: Callable[[], None]) -> None:
        self._closing.append(fn)

    def close(self) -> None:
        for fn in self._closing:
            try:
                fn()
            except Exception:  # progress is a courtesy: it never fails the run
                pass
        self._closing.clear()
        self.sink = None


def checked(spec: ToolSpec, impl: Callable[..., Any]) -> Callable[..., Any]:
    """``impl`` behind the argument check of ``spec``, awaited when it is async."""
    check = spec.check_arguments
    required = any(a.required for a in spec.args)  # a call with no arguments needs checking only then
    enums = getattr(impl, "lackpy_enums", None)
    convert = _members(enums, [a.name for a in spec.args]) if enums else None
    is_async = inspect.iscoroutinefunction(impl) or inspect.iscoroutinefunction(getattr(impl, "__call__", None))
    if takes_context(impl):

        def call_with_context(ctx: Any, *args: Any, **kwargs: Any) -> Any:
            if args or kwargs or required:
                check(args, kwargs)
                if convert:
                    args, kwargs = convert(args, kwargs)
            if PROGRESS.get() is not None:
                return _named(spec.name, impl, is_async, ctx, *args, **kwargs)
            result = impl(ctx, *args, **kwargs)
            return awaited(result, spec.name) if is_async or type(result) in _AWAITABLES else result

        wrapper = uses_context(wraps(impl)(call_with_context))
    else:

        def call(*args: Any, **kwargs: Any) -> Any:
            if args or kwargs or required:
                check(args, kwargs)
                if convert:
                    args, kwargs = convert(args, kwargs)
            if PROGRESS.get() is not None:
                return _named(spec.name, impl, is_async, *args, **kwargs)
            result = impl(*args, **kwargs)
            return awaited(result, spec.name) if is_async or type(result) in _AWAITABLES else result

        wrapper = wraps(impl)(call)
    wrapper.lackpy_checked = True  # type: ignore[attr-defined]
    return wrapper


def _named(name: str, impl: Callable[..., Any], is_async: bool, *args: Any, **kwargs: Any) -> Any:
    """``impl(*args, **kwargs)`` with ``TOOL`` set, so what it reports through ``progress`` names it."""
    token = TOOL.set(name)
    try:
        result = impl(*args, **kwargs)
        return awaited(result, name) if is_async or type(result) in _AWAITABLES else result
    finally:
        TOOL.reset(token)


def _members(enums: dict, names: list[str]) -> Callable[[tuple, dict], tuple[tuple, dict]]:
    """Turn the values given for Enum-typed parameters into members (after the check passed)."""

    def convert(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        args = tuple(enums[n](v) if n in enums and v is not None else v for n, v in zip(names, args))
        kwargs = {k: enums[k](v) if k in enums and v is not None else v for k, v in kwargs.items()}
        return args, kwargs

    return convert


def remaining(default: float = 3600.0) -> float:
    """Seconds left before the current run's deadline (``default`` outside a run)."""
    deadline = DEADLINE.get()
    return default if deadline is None else max(deadline - time.monotonic(), 0.0)


def awaited(awaitable: Any, tool: str) -> Any:
    """The value of an async tool's awaitable, within the run's remaining time."""
    timeout = remaining()

    async def bounded() -> Any:
        return await asyncio.wait_for(awaitable, timeout)

    try:
        if _loop_running():
            return _in_thread(bounded)
        return asyncio.run(bounded())
    except (asyncio.TimeoutError, TimeoutError):
        raise LimitExceeded("timeout", timeout, f"{tool} ran past the run's deadline") from None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _in_thread(make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run a coroutine on a loop of its own when this thread's loop is busy running the program."""
    context = contextvars.copy_context()  # the run's deadline, budget and progress sink go along
    with ThreadPoolExecutor(1, thread_name_prefix="lackpy-async-tool") as pool:
        return pool.submit(context.run, lambda: asyncio.run(make())).result()


__all__ = ["ASKING", "DEADLINE", "PROGRESS", "RESULT_BUDGET", "TOOL", "Listener", "awaited", "checked", "progress", "remaining"]
