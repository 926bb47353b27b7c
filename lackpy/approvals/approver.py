"""Who answers an approval, and where the answers are written down.

The gates (``lackpy.approvals.gatekeeper``) ask a plain function on the run's
thread. Here a caller's ``approve=`` becomes that function: ``True``
approves everything (``--yes``), an ``Unattended`` means nobody can be asked
(a blocking gate denies, saying how to allow it), an async callable is asked
on the caller's event loop and waited for up to the request's ``wait_s``, and
a plain one is called on the run's thread. ``Audit`` appends every decision to ``.lackpy/audit.jsonl``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import errno
import inspect
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol, Union

from lackpy.approvals.decision import Decision, as_decision
from lackpy.approvals.request import ApprovalRequest, exact
from lackpy.caller import principal
from lackpy.caller.traceparent import current_trace_id

#: What ``approve=`` takes: None (nobody), True (everything), an Unattended, or a callable answering an ApprovalRequest.
ApproveSpec = Union[None, bool, "Unattended", Callable[[ApprovalRequest], Union[Any, Awaitable[Any]]]]

#: Where decisions are appended when ``audit = true``.
AUDIT_PATH = Path(".lackpy") / "audit.jsonl"


class Approver(Protocol):
    """What a run's gates call to ask: a Decision, or None when nobody answered within ``request.wait_s``."""

    def __call__(self, request: ApprovalRequest) -> Decision | None: ...


def approve_all(request: ApprovalRequest) -> Decision:
    """The approver of ``--yes``: everything asked is approved, and recorded as such."""
    return _YES


_YES = Decision(True, "yes", "approved in advance (--yes)")
approve_all.instant = True  # type: ignore[attr-defined]  # answers at once: no run clock to stop


@dataclass(frozen=True)
class Unattended:
    """Nobody can be asked; ``how`` tells the person reading the denial how to allow it next time."""

    how: str


#: From Python with no ``approve=``.
PYTHON = Unattended("nobody can be asked: pass approve= (an async callback, or True to approve everything) to the call or to LackpyService")


def approver_for(approve: ApproveSpec, loop: asyncio.AbstractEventLoop | None) -> tuple[Approver | None, str]:
    """The gates' approver for ``approve`` and the sentence a denial with nobody to ask carries."""
    if approve is None or approve is False:
        return None, PYTHON.how
    if isinstance(approve, Unattended):
        return None, approve.how
    if approve is True:
        return approve_all, ""
    if not callable(approve):
        raise TypeError(f"approve must be None, True, an Unattended or a callable, not {type(approve).__name__}")
    if not _is_async(approve):
        return _Plain(approve), ""
    if loop is None:
        raise TypeError("an async approve callback needs the caller's running event loop")
    return _Callback(approve, loop), ""


def asks_on_loop(approve: ApproveSpec) -> bool:
    """Whether answering needs the caller's event loop free (an async callback; so the run must not be on it)."""
    return callable(approve) and not isinstance(approve, Unattended) and _is_async(approve)


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


class _Plain:
    """A plain function as an approver: called on the run's thread; it answers within ``request.wait_s`` (None: no answer)."""

    def __init__(self, fn: Callable[[ApprovalRequest], Any]) -> None:
        self.fn = fn

    def __call__(self, request: ApprovalRequest) -> Decision | None:
        try:
            answer = self.fn(request)
        except Exception as exc:  # the function's own failure denies; it never ends the run another way
            return Decision(False, "callback", f"the approve function failed: {type(exc).__name__}: {exc}")
        return None if answer is None or request.ask == "notify" else as_decision(answer, "callback")


class _Callback:
    """A caller's async callback as an approver: run on the caller's loop, waited for up to ``wait_s``."""

    def __init__(self, fn: Callable[[ApprovalRequest], Any], loop: asyncio.AbstractEventLoop) -> None:
        self.fn, self.loop = fn, loop

    def __call__(self, request: ApprovalRequest) -> Decision | None:
        future = asyncio.run_coroutine_threadsafe(_answer(self.fn, request), self.loop)
        if request.ask == "notify":
            return None  # news only: not waited for
        try:
            return as_decision(future.result(timeout=request.wait_s), "callback")
        except (TimeoutError, concurrent.futures.TimeoutError):
            future.cancel()
            return None
        except concurrent.futures.CancelledError:
            return Decision(False, "callback", "the approval was cancelled")
        except Exception as exc:  # the callback's own failure denies; it never ends the run another way
            return Decision(False, "callback", f"the approve callback failed: {type(exc).__name__}: {exc}")


async def _answer(fn: Callable[[ApprovalRequest], Any], request: ApprovalRequest) -> Any:
    answer = fn(request)
    return await answer if inspect.isawaitable(answer) else answer


class Audit:
    """Appends each decision as one JSON line to ``.lackpy/audit.jsonl`` in ``workspace``.

    The line holds what was approved whole: a call's arguments as the
    question spelled them (``exact``), a commit's files with their counts,
    the program of a program gate, the program and the list as approved of an
    effects gate; and ``trace_id``, the W3C trace id of
    the call the run serves when it carried one (``lackpy.caller.traceparent``),
    so a decision can be found from the caller's trace and the server's logs;
    and ``caller``, who asked, when the server checked it (``lackpy.caller.principal``).

    The file is opened without following links, in a ``.lackpy`` directory
    that is not a link, so a workspace cannot point the audit at another
    file; a line is one write, so concurrent runs never interleave. A
    failure to write is said once in ``notices`` (the run goes on: the
    decision is still in its result).
    """

    def __init__(self, workspace: Path, notices: list[str] | None = None) -> None:
        self.workspace = workspace
        self.notices = notices if notices is not None else []
        self.failed: str | None = None

    def __call__(self, decision: Decision, request: ApprovalRequest) -> None:
        entry = {"workspace": str(self.workspace), **decision.to_dict()}
        trace_id, who = current_trace_id(), principal.current()
        if trace_id is not None:
            entry["trace_id"] = trace_id
        if who is not None:
            entry["caller"] = who
        if request.gate in ("program", "skill", "effects"):  # an effects decision holds the list as approved, too
            entry["program"] = request.program
            entry["grade"] = request.grade.to_dict() if request.grade is not None else None
        if request.origin is not None:  # the skill as it was approved: a changed file is another skill
            entry["skill"] = {"name": request.origin.skill, "server": request.origin.server, "uri": request.origin.uri,
                              "files": [{"path": path, "digest": digest, "size": size} for path, digest, size in request.origin.files]}
        elif request.gate == "call":  # whole, as the question showed them (the result's copy is cut to a summary)
            entry["arguments"] = {name: exact(value) for name, value in request.arguments.items()}
        elif request.changes:
            entry["changes"] = [dataclasses.asdict(change) for change in request.changes]
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode()
        try:
            self._append(line)
        except OSError as exc:
            if self.failed is None:  # said once, in every later result's notices
                self.failed = f"audit = true, but lackpy could not append to {AUDIT_PATH}: {exc.strerror or exc}"
                self.notices.append(self.failed)

    def _append(self, line: bytes) -> None:
        directory = self.workspace / AUDIT_PATH.parent
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
        folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            # O_NONBLOCK: a FIFO planted there fails at once (ENXIO) instead of waiting for a reader
            fd = os.open(AUDIT_PATH.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600, dir_fd=folder)
        finally:
            os.close(folder)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            os.write(fd, line)
        finally:
            os.close(fd)


__all__ = ["AUDIT_PATH", "ApproveSpec", "Approver", "Audit", "PYTHON", "Unattended", "approve_all", "approver_for", "asks_on_loop"]
