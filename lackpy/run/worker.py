"""The isolated worker: a forked child that has only the program and a channel.

A spare worker closes every descriptor but its hand-off socket, warms up and
confines itself (Landlock, seccomp) while it waits. When it is handed a
run's channel it limits what no job changes (file size, open files,
processes), then waits for its job (compiled program, parameters, tool
names, limits), limits its address space and CPU time, and runs the
program. Each tool is a proxy that sends the call to the host and waits for
the result; the host runs the real tool.
"""

from __future__ import annotations

import math
import os
import resource
import select
import signal
import socket
import traceback
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Iterator

from lackpy.errors import ErrorKind, LackpyError, LimitExceeded, ToolError, error_classes
from lackpy.run import sandbox as _sandbox
from lackpy.run import wire
from lackpy.run.execute import Cancelled, DeadlineReached, Ending, execute, plain_variables
from lackpy.run.limits import Limits
from lackpy.run.reuse import GROWTH_BYTES, AddressSpace, Snapshot
from lackpy.summary import Summary, summarize

JOB_MAX_BYTES = 64 * 1024 * 1024
HANG_UP_S = 5.0  # how long a worker that reported waits for the host to let go
EXIT_FAILED = 70


def preload() -> None:
    """Import and warm up everything a child needs: after confinement it can import nothing."""
    import reprlib  # noqa: F401

    global _warm_code
    from lackpy.run.compiler import prepare

    _warm_code = prepare("x = [1, 2]\ny = {'a': x}\nf'{len(x)}'", frozenset()).code
    _sandbox.status()  # loads pyseccomp and compiles the filter before any child is confined
    for codec in ("utf-8", "ascii", "latin-1", "utf-16", "utf-32"):
        "x".encode(codec).decode(codec)
    summarize([("x", 1.5, None, b"", {1})])


def spare_main(handoff: socket.socket, sandbox: bool) -> None:
    """A spare worker: close, warm up and confine itself while idle, then run the job that arrives."""
    try:
        signal.signal(signal.SIGUSR1, _stop)  # a stop that comes before its job is noted, never fatal
        _close_other_fds(handoff.fileno())
        _warm_up()
        space = AddressSpace()  # opened before Landlock takes /proc away
        if sandbox:
            _sandbox.confine()  # needs no job: every worker is confined the same way
        _, fds, _, _ = socket.recv_fds(handoff, 16, 1)
    except BaseException:
        if os.environ.get("LACKPY_DEBUG_WORKER"):
            traceback.print_exc()
        os._exit(EXIT_FAILED)
    if not fds:
        os._exit(0)
    handoff.close()
    for extra in fds[1:]:
        os.close(extra)
    child_main(fds[0], space)


_warm_code = None


def _warm_up() -> None:
    """Run a small program now, so the pages a run touches are copied before the clock starts."""
    if _warm_code is not None:
        job = wire.decode_job(wire.encode_job(_warm_code, {"p": (1,)}, ["x"], Limits().to_dict(), 1, 1)[wire.HEADER.size :])
        limits = Limits(**job["limits"])
        execute(job["code"], {"x": _proxy("x", None, 1, 1, limits)}, job["params"], limits, lambda seconds: nullcontext())
        wire.encode({"t": "done", "outcome": {"output": ("x", 1, None)}})
        for which, _ in _FIXED_LIMITS:
            resource.getrlimit(which)


def child_main(fd: int, space: AddressSpace) -> None:
    """Run the jobs that come on channel ``fd`` and exit; never returns.

    A job of a session (``job["session"]``) may be followed by the session's
    next, but only while the worker is as it was before its first job
    (``lackpy.run.reuse``): a run that hit a limit says in its report that
    the worker is spent; one that changed the worker answers the next job, unrun, with
    ``stale`` (the check comes after the report, so the host's answer never
    waits for it). Either way it exits.
    ``space`` reads the worker's address space.
    """
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGUSR1, _stop)  # the host's stop (``ForkServer.interrupt``): noted until a program runs
        channel = socket.socket(fileno=fd)
        _set_rlimits(_FIXED_LIMITS + [(resource.RLIMIT_NOFILE, fd + 1)])  # what no job changes, set before it comes
        baseline = space.now() or 0  # the address space the worker already uses (its share of the fork server)
        snapshot = Snapshot(space, fd + 1)  # while it waits: what a session's runs must leave as it is
        frame = wire.recv_frame(channel, JOB_MAX_BYTES)
        if frame is not None:
            os.setsid()  # a worker that holds a run leads its own session
        while frame is not None:
            job = wire.decode_job(frame)
            if not _run_job(channel, job, baseline, snapshot if job["session"] else None):
                # Exit once the host has the report and lets go (it kills this worker then): an exit
                # now would tear down this address space on the CPU the host was just woken on.
                select.select([channel], [], [], HANG_UP_S)
                break
            frame = wire.recv_frame(channel, JOB_MAX_BYTES)  # the session's next job, or None once the host lets go
    except BaseException:  # anything here is the worker's own failure; the host reports a crash
        if os.environ.get("LACKPY_DEBUG_WORKER"):
            traceback.print_exc()
        status = EXIT_FAILED
    os._exit(status)


def _run_job(channel: socket.socket, job: dict, baseline: int, snapshot: Snapshot | None) -> bool:
    """Run one job under its limits and report how it ended; whether the worker may run another (a session's next).

    A session's worker (``snapshot`` given) sets its limits as soft limits
    only, each run's counted from where the worker is when it starts: its
    CPU time from what it used so far, its memory from what it holds.
    """
    limits = Limits(**job["limits"])
    cpu = math.ceil(limits.timeout_s) + 1
    if snapshot is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        held = snapshot.space.now() or baseline
        if not snapshot.capped:
            # The session's first job: a hard limit its later jobs share, which nothing in the worker can raise (the host
            # gives a job that asks for more memory to a fresh worker). CPU time is bounded by the host's deadline.
            snapshot.capped = True
            _set_rlimits([(resource.RLIMIT_AS, held + GROWTH_BYTES + limits.memory_bytes)])
        _set_soft_limits([(resource.RLIMIT_AS, held + limits.memory_bytes), (resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu)])
    else:
        _set_rlimits([(resource.RLIMIT_AS, baseline + limits.memory_bytes), (resource.RLIMIT_CPU, cpu)])
    tools = {alias: _proxy(alias, channel, job["max_frame"], job["reply_frame"], limits) for alias in job["tools"]}
    outcome = execute(job["code"], tools, job["params"], limits, _alarm_deadline)
    if outcome.limit == "memory":
        outcome.variables = {}  # free what exhausted the memory before reporting
    # A limit hit leaves the worker spent whatever it looks like: the host lets it go.
    again = snapshot is not None and outcome.limit is None and not _Alarm.stopped
    try:
        _report(channel, outcome, limits, again)
    except MemoryError:
        outcome.variables, outcome.output = {}, None
        _report(channel, outcome, limits, False)
        return False
    # A session's worker looks at itself after its report, off the host's path. One its run changed runs
    # nothing more: it answers the next job, unread, with ``stale`` (one frame in flight each way, as ever),
    # and the host gives that job to a fresh worker.
    if again and (why := snapshot.changed()) is not None:
        if wire.recv_frame(channel, JOB_MAX_BYTES) is not None:
            wire.send(channel, {"t": "stale", "why": why})
        return False
    return again


def _report(channel: socket.socket, outcome: Ending, limits: Limits, again: bool = False) -> None:
    """Send how the program ended; ``again``: the worker may run the session's next program (else the host lets it go)."""
    fields = {
        "spent": not again,
        "success": outcome.success,
        "output": outcome.output,
        "printed": outcome.printed,
        "error": outcome.error,
        "error_kind": None if outcome.error_kind is None else str(outcome.error_kind),
        "error_line": outcome.error_line,
        "limit": outcome.limit,
        "limit_value": outcome.limit_value,
    }
    fields["variables"] = variables = plain_variables(outcome.variables, limits.max_output_bytes)
    fields["summarized"] = [name for name, value in variables.items() if type(value) is Summary]
    try:
        wire.send(channel, {"t": "done", "outcome": fields}, lenient=True)
        return
    except RecursionError:  # too deep to send: variables go as summaries
        fields["variables"] = {name: summarize(value) for name, value in outcome.variables.items()}
        fields["summarized"] = list(fields["variables"])
    try:
        wire.send(channel, {"t": "done", "outcome": fields}, lenient=True)
    except RecursionError:
        fields.update(
            success=False,
            output=None,
            error="limit exceeded: recursion: the result is nested too deeply to return",
            error_kind=ErrorKind.LIMIT.value,
            limit="recursion",
        )
        wire.send(channel, {"t": "done", "outcome": fields}, lenient=True)


_remote_types: dict[tuple[str, ErrorKind], type] = {}


def _remote_error(reply: dict, alias: str) -> BaseException:
    """The host's tool error as the program sees it: same type name, kind and message as in-process."""
    if reply.get("kind") == ErrorKind.LIMIT:
        return LimitExceeded(str(reply.get("limit")), reply.get("value"), str(reply.get("message")))
    if reply.get("kind") == ErrorKind.CANCELLED:  # the host stopped the call: the run ends here, as it does in-process
        _Alarm.stopped = True
        return Cancelled()
    name = str(reply.get("type") or "ToolError")
    if not name.isidentifier():
        name = "ToolError"
    kind = ErrorKind.parse(reply.get("kind"), ErrorKind.TOOL)
    cls = error_classes().get(name)
    if cls is None or cls.kind != kind:
        cls = _remote_types.get((name, kind))
        if cls is None:
            base = ToolError if kind == ErrorKind.TOOL else LackpyError
            cls = _remote_types[(name, kind)] = type(name, (base,), {"kind": kind})
    error = cls(str(reply.get("message", "")))
    error.lackpy_tool = alias  # type: ignore[attr-defined]
    return error


def _proxy(alias: str, channel: socket.socket, max_frame: int, reply_frame: int, limits: Limits) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            frame = wire.encode_call(alias, args, kwargs)
        except wire.NotPlainData as exc:
            raise TypeError(str(exc)) from None
        if len(frame) > max_frame:  # the host would refuse it: it is the write limit that matters
            raise LimitExceeded(
                "max_write_bytes", limits.max_write_bytes, f"a call to {alias} carries {len(frame)} bytes, more than a run may write"
            )
        # The deadline's SIGALRM must not cut a frame in half: while this call
        # is on the channel it only notes that it is due, and the call raises it when done.
        _Alarm.calling = True
        try:
            wire.send_bytes(channel, frame)
            reply = wire.recv(channel, reply_frame, decoder=wire.decode_reply)
            while reply is not None and reply.get("t") == "paused":
                _postpone_alarm(reply.get("s"))
                wire.send(channel, {"t": "resumed"})
                reply = wire.recv(channel, reply_frame, decoder=wire.decode_reply)
        finally:
            _Alarm.calling = False
        if _Alarm.stopped:
            raise Cancelled()
        if _Alarm.due:
            _Alarm.due = False
            raise DeadlineReached()
        if reply is None:  # the host is gone
            os._exit(EXIT_FAILED)
        if reply["t"] == "ok":
            return reply.get("value")
        raise _remote_error(reply, alias)

    call.__name__ = call.__qualname__ = alias
    return call


def _postpone_alarm(seconds: Any) -> None:
    """Move the deadline's timer by the time the host spent waiting for a person (a call is on the channel).

    A timer that ran out meanwhile is due: that is taken back, and the timer
    set to the time waited.
    """
    if type(seconds) not in (int, float) or not 0 < seconds < 1e7:
        return
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    if left == 0.0:
        _Alarm.due = False
    signal.setitimer(signal.ITIMER_REAL, left + seconds)


class _Alarm:
    """The run's deadline as SIGALRM and the host's stop as SIGUSR1: each raises in the program, or, while a call is on the channel, becomes due.

    ``stopped`` stays set once the host asked: a worker that was asked to
    stop runs nothing more (its report says it is spent).
    """

    calling = False
    running = False
    due = False
    stopped = False


def _stop(signum: int, frame: Any) -> None:
    """SIGUSR1: the host stops the run; the program ends as ``cancelled`` where it is, or when its call on the channel returns."""
    _Alarm.stopped = True
    if _Alarm.running and not _Alarm.calling:
        raise Cancelled()


@contextmanager
def _alarm_deadline(seconds: float) -> Iterator[None]:
    """The worker's deadline (``execute``'s ``deadline``): SIGALRM after ``seconds`` interrupts the program."""

    def expire(signum: int, frame: Any) -> None:
        if _Alarm.calling:
            _Alarm.due = True
            return
        raise DeadlineReached()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        _Alarm.running = True
        if _Alarm.stopped:  # the stop came before the program started
            raise Cancelled()
        yield
    finally:
        _Alarm.running = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _Alarm.due = False


def _close_other_fds(keep: int) -> None:
    os.closerange(3, keep)
    os.closerange(keep + 1, _max_fd())


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


#: The worker's limits that no job changes: it writes no file (not even a core) and starts no process.
_FIXED_LIMITS = [(resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 0)]


def _set_soft_limits(settings: list[tuple[int, int]]) -> None:
    """Set each soft limit, never above its hard limit, which stays as it is (a later job may need more)."""
    for which, soft in settings:
        _, hard = resource.getrlimit(which)
        resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _set_rlimits(settings: list[tuple[int, int]]) -> None:
    """Lower each limit to ``soft`` (CPU time: SIGXCPU at ``soft``, SIGKILL a second later), never above a hard limit already set."""
    for which, soft in settings:
        hard = soft + 1 if which == resource.RLIMIT_CPU else soft
        _, hard_now = resource.getrlimit(which)
        if hard_now != resource.RLIM_INFINITY:
            hard = min(hard, hard_now)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
