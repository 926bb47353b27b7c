"""Execute a compiled program under its limits; shared by both isolation modes.

``execute`` runs the program function with the tools it is given (traced
wrappers in-process, channel proxies in the isolated worker) and turns every
way a program can end into an ``Ending``: a result, an error with its line
and its ErrorKind, or the limit it hit.
"""

from __future__ import annotations

import ctypes
import functools
import heapq
import math
import threading
import time
import types
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable, Iterator, Mapping

from lackpy.errors import ErrorKind, LackpyError, LimitExceeded
from lackpy.kit.call import DEADLINE
from lackpy.lang.grammar import PROGRAM_FILENAME
from lackpy.run.guards import BASE_GLOBALS, operation_guards
from lackpy.run.limits import Limits
from lackpy.run.trace import describe_exception
from lackpy.summary import Summary, summarize


class DeadlineReached(BaseException):
    """Raised into a running program when its wall-clock time is up.

    A BaseException, so ``except Exception`` in a tool cannot swallow it (and
    the watchdog raises it again until the run ends, in case one tries harder).
    """


class Cancelled(BaseException):
    """Raised into a running program whose caller cancelled it: the program ends there, as ``cancelled``, with what it had done."""


#: What a cancelled run's error says, after the line it was on.
CANCELLED = "cancelled: the run was stopped before it finished"

#: A result nested deeper than this is refused, in both modes alike.
MAX_RESULT_DEPTH = 200

#: The containers sizing and nesting look into (dicts apart).
_SEQUENCES = frozenset({list, tuple, set, frozenset})


@dataclass
class Ending:
    """How a program ended, before the host adds the trace, files and grade."""

    success: bool
    output: Any = None
    variables: dict[str, Any] = field(default_factory=dict)
    printed: str = ""
    error: str | None = None
    error_kind: ErrorKind | None = None
    error_line: int | None = None
    limit: str | None = None
    limit_value: Any = None
    spent: bool = False
    """The isolated worker that ran it may run no other program (``lackpy.run.reuse``): its session's next run gets a fresh one."""


class Printer:
    """``print`` for programs: text is kept, and more than the output limit stops the run."""

    def __init__(self, max_bytes: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.max_bytes = max_bytes

    def make(self) -> Callable[..., None]:
        parts, printer = self.parts, self

        def print(*args: Any, sep: str | None = " ", end: str | None = "\n") -> None:
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if type(sep) is not str or type(end) is not str:
                raise TypeError("print(): sep and end must be strings")
            text = sep.join([str(a) for a in args]) + end
            printer.size += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
            if printer.size > printer.max_bytes:
                raise LimitExceeded(
                    "max_output_bytes", printer.max_bytes, f"printed more than {printer.max_bytes} bytes"
                )
            parts.append(text)

        return print

    @property
    def text(self) -> str:
        return "".join(self.parts)


def execute(
    code: types.CodeType,
    tools: Mapping[str, Callable[..., Any]],
    params: Mapping[str, Any],
    limits: Limits,
    deadline: Callable[[float], Any],
) -> Ending:
    """Run ``code`` with ``tools`` as its namespace, interrupted by ``deadline(timeout_s)``."""
    namespace = dict(_guarded_globals(limits.max_items, limits.max_int_bits))
    namespace.update(tools)
    printer = Printer(limits.max_output_bytes)
    namespace["print"] = printer.make()
    function = types.FunctionType(code, namespace)
    hold_spare()
    try:
        with deadline(limits.timeout_s):
            output, variables = _call(function, params)
        size = value_size(output, limits.max_output_bytes)
        if size > limits.max_output_bytes:
            raise LimitExceeded("max_output_bytes", limits.max_output_bytes, f"the result is larger than {limits.max_output_bytes} bytes")
        if nesting(output, MAX_RESULT_DEPTH) > MAX_RESULT_DEPTH:
            raise LimitExceeded("recursion", MAX_RESULT_DEPTH, f"the result is nested more than {MAX_RESULT_DEPTH} levels deep; return flatter data")
    except BaseException as exc:  # everything a program can do wrong; KeyboardInterrupt is re-raised below
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        ending = failure(exc, limits)
        ending.printed = printer.text
        return ending
    return Ending(True, output, _public(variables), printer.text)


#: Address space held back while programs run, given back the moment one runs out of memory: a
#: ``MemoryError`` leaves the host nothing to report it with, and CPython 3.11 can even spin forever
#: unwinding through a ``with`` or ``except ... as`` it cannot allocate for. Untouched, it costs no RAM.
SPARE_BYTES = 16 * 1024 * 1024
_spare: list[bytes] = []


def hold_spare() -> None:
    """Hold the spare address space again (after a run gave it back), if there is room for it."""
    if not _spare:
        try:
            _spare.append(bytes(SPARE_BYTES))  # calloc'd: mapped, never written
        except MemoryError:
            pass


def give_back_spare() -> None:
    """Free the spare address space: the first thing to do on a ``MemoryError`` (the next run holds it again)."""
    _spare.clear()


def _call(function: Callable[..., Any], params: Mapping[str, Any]) -> Any:
    """Call the program; out of memory, give the spare back before anything else unwinds.

    A small frame of its own, so that its handler is the first code to run
    after the program's ``MemoryError``, and needs no memory to start.
    """
    try:
        return function(**params)
    except MemoryError:
        give_back_spare()
        raise


@functools.lru_cache(maxsize=16)
def _guarded_globals(max_items: int, max_bits: int) -> dict[str, Any]:
    """The builtins and operation guards of a run; the guards hold no state, so runs share them."""
    return {**BASE_GLOBALS, **operation_guards(Limits(max_items=max_items, max_int_bits=max_bits))}


def plain_variables(variables: dict[str, Any], budget: int) -> dict[str, Any]:
    """The program's variables as a result keeps them: plain data while they fit ``budget``, the rest as ``Summary`` text.

    A result never holds the program's own objects beyond that, in either mode:
    a host keeping many results must not keep every list its programs built.
    """
    kept: dict[str, Any] = {}
    left = budget
    for name, value in variables.items():
        size = value_size(value, left)
        if size <= left and nesting(value, MAX_RESULT_DEPTH) < MAX_RESULT_DEPTH:
            kept[name] = value
            left -= size
        else:
            kept[name] = Summary(summarize(value))
    return kept


#: How many names a run that did not finish returns (``assigned``); their values take at most the run's ``budget_bytes``.
ASSIGNED_NAMES = 200


def assigned(variables: Mapping[str, Any], params: Mapping[str, Any], budget: int) -> tuple[dict[str, Any], dict[str, str]]:
    """What an unfinished run had assigned: the values that are plain data and fit ``budget`` together, and a description of the rest.

    ``variables`` are a run's as ``plain_variables`` kept them; a parameter
    still holding the value it was given is not something the run assigned.
    """
    whole: dict[str, Any] = {}
    cut: dict[str, str] = {}
    left = budget
    for name, value in variables.items():
        if len(whole) + len(cut) >= ASSIGNED_NAMES:
            break
        if name in params and type(params[name]) is type(value) and params[name] == value:
            continue
        size = left + 1 if type(value) is Summary else value_size(value, left)
        if size <= left:
            whole[name] = value
            left -= size
        else:
            cut[name] = str(value) if type(value) is Summary else summarize(value)
    return whole, cut


def nesting(value: Any, most: int) -> int:
    """How deeply containers nest in ``value``, counting no further than past ``most``.

    Walked lazily, one iterator per level, so it copies nothing: a list of
    millions of items built in the last free memory is looked at, not copied.
    """
    deepest = 0
    levels = [iter((value,))]
    while levels:
        for item in levels[-1]:
            kind = type(item)
            if kind is dict:
                children = item.values()
            elif kind in _SEQUENCES:
                children = item
            else:
                continue
            depth = len(levels)
            if depth > deepest:
                deepest = depth
                if deepest > most:
                    return deepest
            levels.append(iter(children))
            break
        else:
            levels.pop()
    return deepest


def failure(exc: BaseException, limits: Limits) -> Ending:
    """The ending of a program stopped by ``exc``, naming its line."""
    line, variables = _program_frame(exc)
    where = f"line {line}: " if line else ""
    tool = getattr(exc, "lackpy_tool", None)
    if isinstance(exc, DeadlineReached):
        exc = LimitExceeded("timeout", limits.timeout_s, f"ran longer than {limits.timeout_s:g} s")
    elif isinstance(exc, Cancelled):
        return Ending(False, error=f"{where}{CANCELLED}", error_kind=ErrorKind.CANCELLED, error_line=line, variables=_public(variables))
    elif isinstance(exc, MemoryError):
        exc = LimitExceeded("memory", limits.memory_bytes, f"ran out of memory (limit {limits.memory_bytes} bytes)")
    elif isinstance(exc, RecursionError):
        exc = LimitExceeded("recursion", None, f"data nested too deeply ({exc})")
    if isinstance(exc, LimitExceeded):
        return Ending(
            False,
            error=f"{where}limit exceeded: {exc.limit}: {exc}",
            error_kind=ErrorKind.LIMIT,
            error_line=line,
            limit=exc.limit,
            limit_value=exc.value,
            variables=_public(variables),
        )
    if isinstance(exc, LackpyError):
        kind = ErrorKind.parse(exc.kind, ErrorKind.TOOL if tool else ErrorKind.RUNTIME)
    elif tool:
        kind = ErrorKind.TOOL
    else:
        kind = ErrorKind.RUNTIME
    message = describe_exception(exc)
    if tool:
        name, _, text = message.partition(": ")
        message = f"{name} in {tool}: {text}"
    return Ending(False, error=where + message, error_kind=kind, error_line=line, variables=_public(variables))


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


def value_size(value: Any, budget: int) -> int:
    """Approximate UTF-8 size of a result, counting no further than past ``budget``.

    Containers are walked lazily, one iterator per level, and the count stops
    as soon as it passes ``budget``: sizing never copies what it sizes, so a
    value built in the last free memory (a program stopped by ``MemoryError``)
    is sized without a single large allocation.
    """
    total = 0
    levels = [iter((value,))]
    while levels:
        for item in levels[-1]:
            kind = type(item)
            if kind is str:  # longer than what is left, its UTF-8 is too: no need to encode it to know
                fits = len(item) <= budget - total and not item.isascii()
                total += len(item.encode("utf-8", "surrogatepass")) if fits else len(item)
            elif kind is bytes or kind is bytearray:
                total += len(item)
            elif kind is int:
                total += item.bit_length() // 3 + 1
            elif kind is dict or kind in _SEQUENCES:
                total += 2 + len(item)
                if total > budget:
                    return total
                levels.append(chain.from_iterable(item.items()) if kind is dict else iter(item))
                break
            else:
                total += 16
            if total > budget:
                return total
        else:
            levels.pop()
    return total


# -- deadlines -----------------------------------------------------------------


class _Watchdog:
    """One thread for all in-process runs: raises DeadlineReached into late runs.

    ``PyThreadState_SetAsyncExc`` interrupts a program between bytecodes, so
    loops stop on time; a single long C call (a huge sort) finishes first.
    A run that is still going after its exception was raised (code that caught
    even a BaseException) gets it again every ``REFIRE_S`` until it ends.
    """

    REFIRE_S = 0.05

    def __init__(self) -> None:
        # Entered as the C lock itself, never through the Condition's Python ``__enter__``: the exceptions
        # this thread raises into others must never land between that frame's acquire and its return.
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.heap: list[tuple[float, int, int]] = []
        self.active: dict[int, int] = {}  # token -> thread id
        self.kinds: dict[int, type[BaseException]] = {}  # token -> what to raise
        self.fired: set[int] = set()
        self.dues: dict[int, float] = {}  # token -> when it fires; an entry of the heap with another time is stale
        self.counter = 0
        self.thread: threading.Thread | None = None

    def arm(self, seconds: float, exc_type: type[BaseException] = DeadlineReached, thread_id: int | None = None) -> int:
        with self.lock:
            self.counter += 1
            token = self.counter
            thread_id = thread_id or threading.get_ident()
            self.active[token] = thread_id
            self.kinds[token] = exc_type
            due = time.monotonic() + seconds
            earliest = self.heap[0][0] if self.heap else None
            self.dues[token] = due
            heapq.heappush(self.heap, (due, token, thread_id))
            if self.thread is None:
                self.thread = threading.Thread(target=self.loop, name="lackpy-watchdog", daemon=True)
                self.thread.start()
            if earliest is None or due < earliest:
                self.changed.notify()  # otherwise the watchdog wakes for the earlier entry and looks again
            return token

    def disarm(self, token: int) -> None:
        with self.lock:
            thread_id = self.active.pop(token, None)
            self.kinds.pop(token, None)
            self.dues.pop(token, None)
            thread_id = thread_id or threading.get_ident()
            if token in self.fired:  # clear an exception that has not been raised yet
                self.fired.discard(token)
                _set_async_exc(thread_id, None)

    def loop(self) -> None:
        with self.lock:
            while True:
                while self.heap and self.dues.get(self.heap[0][1]) != self.heap[0][0]:
                    heapq.heappop(self.heap)  # disarmed, held or moved
                if not self.heap:
                    self.changed.wait()
                    continue
                due, token, thread_id = self.heap[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self.changed.wait(wait)
                    continue
                heapq.heappop(self.heap)
                if token in self.active:
                    self.fired.add(token)
                    exc_type = self.kinds[token]
                    _set_async_exc(thread_id, exc_type)
                    if exc_type is DeadlineReached:
                        self.dues[token] = again = time.monotonic() + self.REFIRE_S
                        heapq.heappush(self.heap, (again, token, thread_id))
                    else:
                        self.active.pop(token, None)
                        self.dues.pop(token, None)

    def hold(self, thread_id: int) -> dict[int, float]:
        """Stop the clocks of ``thread_id``'s deadlines; returns each one's time left, for ``release``."""
        with self.lock:
            now = time.monotonic()
            held = {}
            for token, owner in self.active.items():
                if owner == thread_id and token not in self.fired and token in self.dues:
                    held[token] = max(self.dues[token] - now, 0.0)
                    self.dues[token] = math.inf
            return held

    def release(self, held: dict[int, float]) -> None:
        """Start the held clocks again, each with the time it had left."""
        with self.lock:
            now = time.monotonic()
            for token, left in held.items():
                if token in self.active:
                    self.dues[token] = due = now + left
                    heapq.heappush(self.heap, (due, token, self.active[token]))
            self.changed.notify()


def _set_async_exc(thread_id: int, exc_type: type | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc_type) if exc_type else None)


_watchdog = _Watchdog()


#: What else keeps time for the current run and must be told of a pause (``paused``): callables taking the seconds waited.
PAUSE_HOOKS: ContextVar[tuple[Callable[[float], None], ...]] = ContextVar("lackpy_pause_hooks", default=())


@contextmanager
def paused() -> Iterator[None]:
    """Give the time spent in the block (waiting for a person) back to the current run.

    The in-process deadlines of this thread stop while it waits; afterwards
    the tools' ``DEADLINE`` moves by the time waited and ``PAUSE_HOOKS`` hear
    it (an isolated run moves its own deadline and tells its worker).
    """
    held = _watchdog.hold(threading.get_ident())
    start = time.monotonic()
    try:
        yield
    finally:
        waited = time.monotonic() - start
        _watchdog.release(held)
        deadline = DEADLINE.get()
        if deadline is not None:
            DEADLINE.set(deadline + waited)
        for hook in PAUSE_HOOKS.get():
            hook(waited)


@contextmanager
def thread_deadline(seconds: float) -> Iterator[None]:
    """In-process: interrupt the current thread's program after ``seconds``."""
    token = _watchdog.arm(seconds)
    try:
        yield
    finally:
        _watchdog.disarm(token)


