"""The tasks of ``lackpy serve`` (SEP-2663, ``io.modelcontextprotocol/tasks``): runs a client polls, kept in the state store.

A task is one ``tools/call`` that goes on after its request ended. Its
record (``task:{key}`` in the store the sessions use, ``lackpy.store``) is
what ``tasks/get`` answers from any replica and after the connection that
made it closed: its status (``working``, ``input_required``, ``completed``,
``failed``, ``cancelled``), its progress (``statusMessage``: the run's last
progress message, written at most every PROGRESS_EVERY_S), its times, and
when it ended its result (a tool
result, failed or not) or its error (the JSON-RPC error of a protocol
failure). The run itself lives in the replica that started it (``Run``):
what it waits for (``inputRequests``, answered through ``tasks/update``) and
its asyncio task (ended by ``tasks/cancel``).

Who may see a task: the caller that made it (the digest of its
Authorization header, ``lackpy.mcp.cluster.caller``), and only with its id,
``<replica>.<32 random characters>``: a task of another caller is answered
exactly as a task that does not exist.

The record is written before the ``CreateTaskResult`` goes out and at every
change of status, one write at a time per task, so a ``tasks/get`` right
after any answer sees what that answer did.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import hmac
import itertools
import logging
import secrets
from typing import Any, Awaitable

from pydantic import BaseModel

from lackpy.errors import LackpyError
from lackpy.mcp.cluster import Cluster

#: How long a task's record is kept, in milliseconds: its ttlMs (from its last change; never less than from its creation).
TTL_MS = 3_600_000
#: How often a client is told to poll, in milliseconds.
POLL_INTERVAL_MS = 500
#: The statuses after which nothing changes.
TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: The JSON-RPC code of a task that failed inside the server.
INTERNAL_ERROR = -32603
#: The shortest time between two writes of a running task's progress (its ``statusMessage``), in seconds; the longest message.
PROGRESS_EVERY_S = 0.5
PROGRESS_CHARS = 500

_CURRENT: contextvars.ContextVar["Run | None"] = contextvars.ContextVar("lackpy_task", default=None)
_log = logging.getLogger(__name__)


def current() -> "Run | None":
    """The task the code running now belongs to (the tool call a task runs), else None."""
    return _CURRENT.get()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def public(record: dict) -> dict:
    """What a client sees of a task's record: the wire fields of a DetailedTask."""
    return {key: value for key, value in record.items() if key not in _PRIVATE}


_PRIVATE = frozenset({"caller", "tool", "replica"})


class Run:
    """One task running in this replica: its record, the inputs it waits for, its asyncio task."""

    def __init__(self, book: "TaskBook", task_id: str, record: dict) -> None:
        self.book, self.id, self.record = book, task_id, record
        self.task: asyncio.Task | None = None
        self.lock = asyncio.Lock()
        self.pending: dict[str, asyncio.Future] = {}
        self.keys = itertools.count(1)
        self._progress: asyncio.TimerHandle | None = None
        self._writes: set[asyncio.Task] = set()

    def progress(self, message: str) -> None:
        """The run's progress as the task's ``statusMessage``: kept at once, written at most every PROGRESS_EVERY_S
        (the last message wins; the record written when the task ends has the last one)."""
        self.record["statusMessage"] = message[:PROGRESS_CHARS]
        if self._progress is None and self.record["status"] not in TERMINAL:
            self._progress = asyncio.get_running_loop().call_later(PROGRESS_EVERY_S, self._write_progress)

    def _write_progress(self) -> None:
        self._progress = None
        if self.record["status"] in TERMINAL:
            return

        async def write() -> None:
            try:
                await self.book.change(self, self.record["status"])
            except LackpyError:  # the store is away: the next write, or the task's end, says it
                pass

        job = asyncio.get_running_loop().create_task(write())
        self._writes.add(job)
        job.add_done_callback(self._writes.discard)

    async def ask(self, request: dict, prefix: str = "input") -> Any:
        """Wait for the client's answer to ``request`` (an ``elicitation/create`` or other input request, as on the wire).

        The task is ``input_required`` while any question waits; the answer
        is what the client sent through ``tasks/update`` for its key, as it
        came (the caller judges it).
        """
        key = f"{prefix}-{next(self.keys)}"
        answered: asyncio.Future = asyncio.get_running_loop().create_future()
        self.pending[key] = answered
        self.record.setdefault("inputRequests", {})[key] = request
        await self.book.change(self, "input_required")
        try:
            return await answered
        finally:
            self.pending.pop(key, None)
            asked = self.record.get("inputRequests", {})
            if key in asked:  # cancelled or timed out rather than answered: the question is no longer asked
                del asked[key]
                await self.book.change(self, "input_required" if asked else "working")

    def answer(self, responses: dict) -> bool:
        """Hand each answer to the question of its key (keys nobody waits for are ignored); whether anything changed."""
        asked, changed = self.record.get("inputRequests", {}), False
        for key, response in responses.items():
            future = self.pending.get(key)
            if future is None or future.done():
                continue
            future.set_result(response)
            asked.pop(key, None)
            changed = True
        return changed


class TaskBook:
    """The tasks of one server: made by ``start``, read by ``get``, answered by ``update``, ended by ``cancel``."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.runs: dict[str, Run] = {}

    async def start(self, tool: str, caller: str | None, work: Awaitable[Any]) -> dict:
        """Make a task of ``work`` (a tool call's result), record it, start it; the record (its CreateTaskResult's fields).

        Raises LackpyError when the store cannot record it (then ``work`` never runs).
        """
        task_id = f"{self.cluster.me}.{secrets.token_urlsafe(24)}"
        now = _now()
        record = {"taskId": task_id, "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttlMs": TTL_MS,
                  "pollIntervalMs": POLL_INTERVAL_MS, "caller": caller, "tool": tool, "replica": self.cluster.me}
        run = Run(self, task_id, record)
        try:
            await self._write(run)
        except LackpyError:
            if hasattr(work, "close"):
                work.close()
            raise
        self.runs[task_id] = run
        token = _CURRENT.set(run)
        try:
            run.task = asyncio.create_task(self._drive(run, work))
        finally:
            _CURRENT.reset(token)
        return dict(record)

    async def _drive(self, run: Run, work: Awaitable[Any]) -> None:
        """Run the task's work to its end and record how it ended."""
        try:
            result = await work
        except asyncio.CancelledError:
            await self.end(run, "cancelled", {})
            return
        except Exception as exc:  # a protocol failure, not the tool's: the task failed, with the JSON-RPC error
            code, message = getattr(exc, "code", None), getattr(exc, "message", None)
            if not isinstance(code, int) or not isinstance(message, str):
                _log.exception("lackpy: task %s (%s) failed inside the server", run.id, run.record.get("tool"))
                code, message = INTERNAL_ERROR, f"the tool failed inside the server ({type(exc).__name__}); see the server's log"
            await self.end(run, "failed", {"error": {"code": code, "message": message}})
            return
        await self.end(run, "completed", {"result": _result_document(result)})

    async def end(self, run: Run, status: str, fields: dict) -> None:
        """Record that ``run`` ended with ``status`` (and its result or error); nothing when it had ended already."""
        if run.record["status"] in TERMINAL:
            return
        run.record.pop("inputRequests", None)
        run.record.update(fields)
        try:
            await self.change(run, status)
        except LackpyError as exc:  # the result could not be kept (too big, or the store is down): say so in its place
            _log.warning("lackpy: task %s ended %s, but its record was not written: %s", run.id, status, exc)
            run.record.pop("result", None)
            run.record.update(status="failed", lastUpdatedAt=_now(), error={
                "code": INTERNAL_ERROR, "message": f"the task ended but its result could not be kept ({exc}); call the tool again"})
            try:
                await self._write(run)
            except LackpyError:
                pass
        finally:
            self.runs.pop(run.id, None)

    async def change(self, run: Run, status: str) -> None:
        """Set ``run``'s status and write its record."""
        if run.record["status"] in TERMINAL and status not in TERMINAL:
            return
        run.record["status"] = status
        run.record["lastUpdatedAt"] = _now()
        await self._write(run)

    async def _write(self, run: Run) -> None:
        async with run.lock:
            snapshot = {key: value for key, value in run.record.items()}
            await self._store(self.cluster.store.put, _key(run.id), snapshot, TTL_MS / 1000)

    async def find(self, task_id: Any, caller: str | None) -> tuple[dict | None, Run | None]:
        """The record of task ``task_id`` as ``caller`` may see it, and its run when it runs here; (None, None) when there is none.

        A task of another caller is not there for this one. A task that was
        running on a replica that is gone now failed with it.
        """
        if not isinstance(task_id, str) or not 0 < len(task_id) <= 128:
            return None, None
        run = self.runs.get(task_id)
        record = run.record if run is not None else await self._store(self.cluster.store.get, _key(task_id))
        if not isinstance(record, dict) or record.get("taskId") != task_id or not _same(record.get("caller"), caller):
            return None, None
        if run is None and record.get("status") not in TERMINAL:
            record = await self._lost(record)
        return record, run

    async def _lost(self, record: dict) -> dict:
        """``record`` of a task running elsewhere, unless its replica is gone: then failed, and recorded so."""
        replica = record.get("replica")
        if replica == self.cluster.me:  # this replica restarted under the same name, or lost the run
            alive = False
        else:
            alive = await self._store(self.cluster.replicas.where, replica) is not None
        if alive:
            return record
        lost = {**record, "status": "failed", "lastUpdatedAt": _now(), "error": {
            "code": INTERNAL_ERROR, "message": f"this task was lost with replica {replica} (it stopped); nothing of it was committed; call the tool again"}}
        lost.pop("inputRequests", None)
        await self._store(self.cluster.store.put, _key(record["taskId"]), lost, TTL_MS / 1000)
        return lost

    async def answer(self, run: Run, responses: dict) -> None:
        """Hand ``responses`` to the questions ``run`` waits on, and record what it waits on now."""
        if run.answer(responses) and run.record["status"] not in TERMINAL:
            await self.change(run, "input_required" if run.record.get("inputRequests") else "working")

    async def cancel(self, run: Run) -> None:
        """End ``run`` as cancelled: its status first (so the next ``tasks/get`` sees it), then its work."""
        if run.record["status"] in TERMINAL:
            return
        await self.end(run, "cancelled", {})
        if run.task is not None and not run.task.done():
            run.task.cancel()

    def under_way(self) -> int:
        """Tasks that have not ended (a drain waits for them)."""
        return sum(1 for run in self.runs.values() if run.task is not None and not run.task.done())

    async def _store(self, method: Any, *args: Any) -> Any:
        if not self.cluster.shared:
            return method(*args)
        return await asyncio.to_thread(method, *args)


def _key(task_id: str) -> str:
    return f"task:{task_id.partition('.')[2][:64]}"


def _same(recorded: Any, caller: str | None) -> bool:
    if recorded is None or caller is None:
        return recorded is None and caller is None
    return isinstance(recorded, str) and hmac.compare_digest(recorded, caller)


def _result_document(result: Any) -> dict:
    """A tool call's result as the plain dict a task keeps (its ``resultType`` and any related-task ``_meta`` left out)."""
    if isinstance(result, BaseModel):
        document = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(result, dict):
        document = dict(result)
    else:
        document = {"content": [{"type": "text", "text": str(result)}]}
    document.pop("resultType", None)
    meta = document.get("_meta")
    if isinstance(meta, dict):
        meta = {key: value for key, value in meta.items() if key != "io.modelcontextprotocol/related-task"}
        document["_meta"] = meta
        if not meta:
            del document["_meta"]
    return document


__all__ = ["POLL_INTERVAL_MS", "Run", "TERMINAL", "TTL_MS", "TaskBook", "current", "public"]
