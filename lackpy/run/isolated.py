"""The host side of an isolated run: serve the worker's tool calls until it is done.

The worker gets the compiled program and sends back tool calls and, at the
end, its outcome. Everything it sends is checked as plain data of the
expected shape; anything else, a crash, or running past the deadline ends
the run with the worker killed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import socket
import threading
import time
import types
from typing import Any, Callable, Mapping

from lackpy.errors import ErrorKind, LackpyError, LimitExceeded, ResourceError, WorkerError, resource_error
from lackpy.run import wire
from lackpy.run.cancel import Cancel
from lackpy.run.execute import CANCELLED, PAUSE_HOOKS, Cancelled, DeadlineReached, Ending, thread_deadline
from lackpy.run.forkserver import held_worker, start_worker
from lackpy.run.limits import Limits
from lackpy.run.placement import apart
from lackpy.run.sessionworker import SessionWorker, let_go
from lackpy.run.trace import describe_exception
from lackpy.summary import Summary

# The worker's own timer reports the line it was on; the host kills it this much later.
GRACE_S = 0.5
#: How long a worker asked to stop (a cancel) has to report what it did before it is killed.
STOP_GRACE_S = 1.0
# A run that has made this many calls has its worker kept off the CPU of the thread serving it (``placement.apart``).
APART_AFTER_CALLS = 16


class Begun:
    """A worker that has its job: the run's side of it until ``end``."""

    def __init__(
        self, server, pid: int, channel: socket.socket, limits: Limits, session_worker: SessionWorker | None = None, cap: int | None = None
    ) -> None:
        self.server, self.pid, self.channel, self.session_worker = server, pid, channel, session_worker
        #: A worker the session kept from an earlier run (``cap`` given): it may answer this job with ``stale``.
        self.kept = cap is not None
        #: The most memory the worker can give a run: its first run's limit (its hard limit, set then; ``SessionWorker.take``).
        self.cap = limits.memory_bytes if cap is None else cap
        self.max_frame = max(16 * 1024 * 1024, 2 * limits.max_output_bytes + 1024 * 1024, limits.max_write_bytes + 1024 * 1024)
        self.reply_frame = max(self.max_frame, limits.memory_bytes)  # the worker accepts replies up to its memory
        self.clock = _Clock(time.monotonic() + limits.timeout_s + GRACE_S)
        #: What the caller's loop heard first (``heard``): the run's end, another message, or why it could not be read.
        self.first: Ending | dict | WorkerError | None = None
        #: Whether the program names a tool it may call (``_sent``): its calls are served on a run thread from the start.
        self.calls = True
        self._ended = False

    def end(self, keep: bool = False) -> None:
        """Let the worker go, or with ``keep`` give it back to its session; once. A worker let go is killed and the next run's asked for."""
        if self._ended:
            return
        self._ended = True
        if not (keep and self.session_worker is not None and self.session_worker.give(self.server, self.pid, self.channel, self.cap)):
            let_go((self.server, self.pid, self.channel))
        self.server.hold()  # the next run's worker, forked and waiting before it is asked for (none if one is)


async def heard(begun: Begun) -> bool:
    """Wait on the caller's event loop, never blocking it, for the worker's first message; True when the program has ended.

    For a program that names no tool (``begun.calls`` is false): it ends
    without a call, its first message is its outcome, and it then needs no
    run thread at all: two thread switches were most of such a run's time. A
    program that may call tools goes to its run thread at once instead, so
    that thread wakes while the worker starts, not after its first call.
    The message is kept in ``begun.first`` for ``run_isolated``. A frame not
    yet whole, a worker gone, the deadline passed, or a loop that cannot
    watch a socket: nothing is read and the run thread takes the channel as
    it is.
    """
    loop = asyncio.get_running_loop()
    fd = begun.channel.fileno()
    readable = loop.create_future()

    def wake() -> None:
        if not readable.done():
            readable.set_result(None)

    try:
        loop.add_reader(fd, wake)
    except (NotImplementedError, RuntimeError, ValueError, OSError):
        return False
    timer = loop.call_at(loop.time() + max(begun.clock.at - time.monotonic(), 0.0), wake)
    try:
        await readable
    finally:
        timer.cancel()
        loop.remove_reader(fd)
    body = wire.whole_frame(begun.channel, begun.max_frame)
    if body is None:
        return False  # nothing yet (the deadline came first), a frame not whole, a broken channel: the run thread finds out
    try:
        message = wire.decode(body)
        begun.first = _ending(message.get("outcome")) if message["t"] == "done" else message
    except WorkerError as exc:
        begun.first = exc
    return isinstance(begun.first, Ending)


def begin(
    code: types.CodeType, names: list[str], params: Mapping[str, Any], limits: Limits, sandbox: bool = True, held_only: bool = False,
    session_worker: SessionWorker | None = None,
) -> Begun | Ending | None:
    """A worker sent its job (the code, ``params``, the ``names`` of the tools it calls), or how that failed.

    The worker is the one ``session_worker`` keeps, if it keeps one, else a fresh one.
    With ``held_only``, only a worker ready now is taken and nothing is
    waited for: None when there is none.
    """
    kept = session_worker.take(limits.memory_bytes) if session_worker is not None else None
    if kept is not None:
        server, pid, channel, cap = kept
        begun = _sent(Begun(server, pid, channel, limits, session_worker, cap), code, names, params, limits)
        if isinstance(begun, Begun) or begun.error_kind == ErrorKind.PARAM:
            return begun
        # The kept worker is gone (a crash between runs): the run goes to a fresh one.
    if held_only:
        found = held_worker(sandbox)
        if found is None:
            return None
        server, pid, channel = found
    else:
        try:
            server, pid, channel = start_worker(sandbox, time.monotonic() + limits.timeout_s)
        except TimeoutError:
            return _timed_out(limits, f"no isolated worker started within {limits.timeout_s:g} s")
        except ResourceError as exc:
            return Ending(False, error=str(exc), error_kind=ErrorKind.RESOURCES)
        except (WorkerError, OSError) as exc:
            out_of = resource_error(exc, "cannot start the isolated worker", processes=True)
            if out_of is not None:
                return Ending(False, error=str(out_of), error_kind=ErrorKind.RESOURCES)
            return Ending(False, error=f"cannot start the isolated worker: {exc}", error_kind=ErrorKind.CRASH)
    return _sent(Begun(server, pid, channel, limits, session_worker), code, names, params, limits)


def _sent(begun: Begun, code: types.CodeType, names: list[str], params: Mapping[str, Any], limits: Limits) -> Begun | Ending:
    """``begun`` once its worker has the job, or how sending it failed (the worker let go)."""
    server, pid, channel = begun.server, begun.pid, begun.channel
    begun.calls = bool(names)
    try:
        job = wire.encode_job(code, dict(params), names, limits.to_dict(), begun.max_frame, begun.reply_frame, begun.session_worker is not None)
        channel.setblocking(False)  # every wait on the channel is bounded by the run's deadline
        wire.send_bytes(channel, job, deadline=begun.clock.at)
        return begun
    except wire.NotPlainData as exc:
        begun.end(keep=True)  # nothing was sent: a session's worker stays its own
        return Ending(False, error=f"parameters must be plain data: {exc}", error_kind=ErrorKind.PARAM)
    except socket.timeout:
        failed = _timed_out(limits, f"ran longer than {limits.timeout_s:g} s")
    except (WorkerError, OSError) as exc:
        failed = _crashed(server, pid, exc)
    except BaseException:
        begun.end()
        raise
    begun.end()
    return failed


def run_isolated(
    code: types.CodeType,
    tools: Mapping[str, Callable[..., Any]],
    params: Mapping[str, Any],
    limits: Limits,
    sandbox: bool = True,
    cancel: Cancel | None = None,
    begun: Begun | None = None,
    session_worker: SessionWorker | None = None,
) -> Ending:
    """Run ``code`` in a worker (``begun``'s, already sent its job, or else ``session_worker``'s or a fresh one); ``tools`` (traced, bound) run here on its behalf.

    Cancelling ``cancel`` kills the worker at once, and raises ``Cancelled``
    into this thread only while the worker's calls are served: never into the
    worker's bookkeeping (the fork server's locks, the session's worker),
    where an exception from outside could leave a lock held or a record half
    made.
    """
    if begun is None:
        begun = begin(code, list(tools), params, limits, sandbox, session_worker=session_worker)
        if not isinstance(begun, Begun):
            return begun
    try:
        return _run(begun, tools, limits, cancel)
    except Stale:
        # The session's kept worker found, before it read this job, that its last run had changed it: nothing of
        # the job ran (no tool was called), and a fresh worker runs it, to be the session's next, in the time left.
        left = begun.clock.at - GRACE_S - time.monotonic()
        if left <= 0:
            return _timed_out(limits, f"ran longer than {limits.timeout_s:g} s")
        fresh = begin(code, list(tools), params, dataclasses.replace(limits, timeout_s=left), sandbox, session_worker=session_worker)
        return _run(fresh, tools, limits, cancel) if isinstance(fresh, Begun) else fresh


class Stale(Exception):
    """A session's kept worker said its last run changed it (``stale``), before it read the job sent to it."""


def _run(begun: Begun, tools: Mapping[str, Callable[..., Any]], limits: Limits, cancel: Cancel | None) -> Ending:
    """``run_isolated`` on a worker that has its job: serve its calls until its outcome, then let it go or give it back."""
    server, pid = begun.server, begun.pid
    stopping, serving = _Stopping(server, pid), _Serving()
    if cancel is not None:
        cancel.on_cancel(stopping.start)
    hooks = PAUSE_HOOKS.set(PAUSE_HOOKS.get() + (begun.clock.pause,))
    keep = False
    try:
        first, begun.first = begun.first, None
        if isinstance(first, Ending):  # the caller's loop heard the end: nothing to wait for, no deadline to arm
            ending = first
        else:
            # The watchdog also stops a tool that runs past the deadline here in the host; a cancel stops the
            # tool the worker is waiting for (``_call``), and the worker itself by its stop signal.
            with thread_deadline(max(begun.clock.at - time.monotonic(), 0.001)):
                ending = _serve(begun.channel, tools, begun.clock, begun.max_frame, begun.reply_frame, pid, first, begun.kept, cancel, serving)
        keep = ending.limit is None and not ending.spent  # a worker that hit a limit, crashed, was cancelled or changed is never kept
        return ending
    except (socket.timeout, DeadlineReached):
        return _told_time_is_up(begun, limits, serving) or _timed_out(limits, f"ran longer than {limits.timeout_s:g} s")
    except (WorkerError, OSError) as exc:
        if cancel is not None and cancel.cancelled:  # the worker did not stop when asked, and was killed
            return Ending(False, error=f"{CANCELLED}; its worker did not stop in time, so what it printed and assigned is lost", error_kind=ErrorKind.CANCELLED)
        return _crashed(server, pid, exc)
    finally:
        stopping.done()
        PAUSE_HOOKS.reset(hooks)
        begun.end(keep)


class _Serving:
    """Where serving a worker is: ``calling`` while a tool runs for it and no byte of the reply has been sent."""

    __slots__ = ("calling",)

    def __init__(self) -> None:
        self.calling = False


def _told_time_is_up(begun: Begun, limits: Limits, serving: _Serving) -> Ending | None:
    """The worker's own report when its time ran out while a tool ran here: it is answered that time is up, and says what it had done.

    Only a worker waiting for the answer to its call can be told (its own
    timer is due, and fires as the answer comes); one still computing, or
    one whose answer was being sent, is killed, and its report is lost.
    """
    if not serving.calling:
        return None
    answer = {"t": "err", "kind": "limit", "limit": "timeout", "value": limits.timeout_s, "message": f"ran longer than {limits.timeout_s:g} s"}
    try:
        wire.send(begun.channel, answer, deadline=time.monotonic() + GRACE_S)
        final = wire.recv(begun.channel, begun.max_frame, time.monotonic() + GRACE_S)
        return _ending(final.get("outcome")) if final is not None and final.get("t") == "done" else None
    except (OSError, WorkerError, ValueError):
        return None


class _Stopping:
    """How a cancel stops an isolated run: the worker is asked to stop (it reports what it did), and killed if it has not within ``STOP_GRACE_S``."""

    def __init__(self, server: Any, pid: int) -> None:
        self.server, self.pid = server, pid
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.over = False

    def start(self) -> None:
        with self.lock:
            if self.over or self.timer is not None:
                return
            self.timer = threading.Timer(STOP_GRACE_S, self.server.kill, (self.pid,))
            self.timer.daemon = True
            self.timer.start()
        self.server.interrupt(self.pid)

    def done(self) -> None:
        """The run is over: a kill still pending is not needed (and must not reach a pid used again)."""
        with self.lock:
            self.over = True
            timer, self.timer = self.timer, None
        if timer is not None:
            timer.cancel()


class _Clock:
    """An isolated run's deadline, moved by the time spent waiting for a person, which the worker is owed too."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.owed = 0.0

    def pause(self, waited: float) -> None:
        self.at += waited
        self.owed += waited


def _timed_out(limits: Limits, what: str) -> Ending:
    return Ending(False, error=f"limit exceeded: timeout: {what}", error_kind=ErrorKind.LIMIT, limit="timeout", limit_value=limits.timeout_s)


def _serve(
    channel: socket.socket, tools: Mapping[str, Callable[..., Any]], clock: _Clock, max_frame: int, reply_frame: int, pid: int,
    first: Ending | dict | WorkerError | None = None, kept: bool = False, cancel: Cancel | None = None, serving: _Serving | None = None,
) -> Ending:
    """Serve the worker's tool calls until its outcome (``first``: its first message, read already on the caller's loop).

    A ``kept`` worker's first message may be ``stale`` (raised as ``Stale``): it ran nothing of this job.
    """
    # Non-blocking, so reads can poll briefly before waiting (a socket with a
    # timeout would wait in poll first); every wait is bounded by the deadline.
    channel.setblocking(False)
    # The first message is a wake-up and the program's start away: polling for
    # it only takes a CPU from the worker that is waking (measured: 0.45 ms a run).
    spin = 0.0
    calls = 0
    while True:
        if first is not None:  # read already, on the caller's loop (``heard``)
            message, first = first, None
            if isinstance(message, WorkerError):
                raise message
        else:
            message = wire.recv(channel, max_frame, clock.at, spin)
        if message is None:
            raise WorkerError("the worker exited without a result")
        kind = message["t"]
        if kind == "call":
            calls += 1
            if calls == APART_AFTER_CALLS:
                apart(pid)
            if serving is not None:
                serving.calling = True
            reply = _call(message, tools, cancel)
            if serving is not None:
                serving.calling = False
            if len(reply) > reply_frame:
                reply = wire.encode(_too_large(len(reply), reply_frame))
            try:
                if clock.owed:  # the call waited for a person: the worker's own timer gets that time back first
                    _hand_back(channel, clock, max_frame)
                wire.send_bytes(channel, reply, clock.at)
                spin = wire.SPIN_S  # the worker polls for the answer: its next call usually follows at once
            except (BrokenPipeError, ConnectionResetError):
                # The worker stopped while the tool ran (its own timer): read its report.
                final = wire.recv(channel, max_frame, time.monotonic() + 0.5)
                if final is None or final.get("t") != "done":
                    raise
                return _ending(final.get("outcome"))
        elif kind == "done":
            return _ending(message.get("outcome"))
        elif kind == "stale" and kept and calls == 0:
            raise Stale(str(message.get("why")))
        else:
            raise WorkerError(f"the worker sent an unknown message {kind!r}")


def _hand_back(channel: socket.socket, clock: _Clock, max_frame: int) -> None:
    """Tell the worker how long the call waited for a person, and hear it moved its timer (one frame each way, never two at once)."""
    wire.send(channel, {"t": "paused", "s": clock.owed}, deadline=clock.at)
    clock.owed = 0.0
    answer = wire.recv(channel, max_frame, clock.at)
    if answer is None or answer.get("t") != "resumed":
        raise WorkerError("the worker did not take back the time a call waited for approval")


def _call(message: dict, tools: Mapping[str, Callable[..., Any]], cancel: Cancel | None = None) -> bytes:
    """Run the tool a worker asked for; the encoded reply (value or error).

    A cancel is raised into this thread only while the tool runs; the
    worker is then told its call was stopped, and ends there as ``cancelled``.
    """
    alias, args, kwargs = message.get("tool"), message.get("args"), message.get("kwargs")
    if alias not in tools or type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
        raise WorkerError("the worker sent a malformed tool call")
    try:
        if cancel is None:
            value = tools[alias](*args, **kwargs)
        else:
            try:
                cancel.attach()
                value = tools[alias](*args, **kwargs)
            finally:
                cancel.detach()
    except Cancelled:
        return wire.encode({"t": "err", "type": "Cancelled", "kind": ErrorKind.CANCELLED.value, "message": CANCELLED})
    except LimitExceeded as exc:
        return wire.encode({"t": "err", "kind": "limit", "limit": exc.limit, "value": exc.value, "message": str(exc)})
    except Exception as exc:
        kind = str(exc.kind) if isinstance(exc, LackpyError) else ErrorKind.TOOL.value
        message = describe_exception(exc).partition(": ")[2]  # never empty
        return wire.encode({"t": "err", "type": type(exc).__name__, "kind": kind, "message": message})
    try:
        return wire.encode_reply(value)
    except (wire.NotPlainData, RecursionError):
        message = f"returned a {type(value).__name__}, which an isolated program cannot receive"
        return wire.encode({"t": "err", "type": "ToolError", "kind": ErrorKind.TOOL.value, "message": message})


def _too_large(size: int, limit: int) -> dict:
    message = f"returned {size} bytes, more than an isolated program can receive ({limit}); ask for less"
    return {"t": "err", "type": "ToolError", "kind": ErrorKind.TOOL.value, "message": message}


def _ending(fields: Any) -> Ending:
    """How the worker says its program ended, accepted only as plain data of the expected types."""
    if type(fields) is not dict:
        raise WorkerError("the worker sent a malformed outcome")

    def field(name: str, *types_: type, default: Any = None) -> Any:
        value = fields.get(name, default)
        if value is not None and not isinstance(value, types_):
            raise WorkerError(f"the worker sent a malformed outcome field {name!r}")
        return value

    success = field("success", bool, default=False)
    error_kind = field("error_kind", str)
    if error_kind is not None:
        error_kind = ErrorKind.parse(error_kind)
    variables = {k: v for k, v in (field("variables", dict, default={}) or {}).items() if type(k) is str}
    for name in field("summarized", list, default=[]) or []:
        if type(variables.get(name)) is str:
            variables[name] = Summary(variables[name])
    return Ending(
        success=bool(success),
        output=fields.get("output"),
        variables=variables,
        printed=field("printed", str, default="") or "",
        error=field("error", str),
        error_kind=error_kind,
        error_line=field("error_line", int),
        limit=field("limit", str),
        limit_value=fields.get("limit_value"),
        spent=field("spent", bool, default=True) is not False,
    )


def _crashed(server, pid: int, exc: BaseException) -> Ending:
    status = server.exit_status(pid, wait_s=1.0)
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return Ending(False, error="limit exceeded: timeout: used up its CPU time", error_kind=ErrorKind.LIMIT, limit="timeout")
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        detail = f"the worker was killed by {name}"
    elif status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status):
        detail = f"the worker failed (exit status {os.WEXITSTATUS(status)})"
    else:
        detail = str(exc)
    return Ending(False, error=f"the program crashed its isolated worker: {detail}", error_kind=ErrorKind.CRASH)
