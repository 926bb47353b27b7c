"""Sessions: what one client's runs share, and the bounded table of them a server keeps.

A ``Session`` holds the state tools keep between runs (the checklist, the
background processes) and, for runs made with ``keep=True``, the plain-data
variables a run leaves, which the next run of the session receives as
variables: a program is a notebook cell. Only plain data crosses (None,
bools, numbers, strings, lists and dicts with string keys), within
``keep_bytes``; nothing else, so a session never holds a program's objects.

``Sessions`` is the table a server keeps. Ids are unguessable, so a session
is reachable only by whoever was given its id. What clients can make a
server hold is bounded, and one client cannot take what another holds:

- A call's session enters the table only when, at the end of the call, it
  holds something (``Session.holds``: kept variables, a process, a
  checklist). A call that keeps nothing leaves only its id in a bounded
  record, so the id still works for the next call (as a new, empty session).
- A session that holds something is never evicted to make room: when the
  table is full of them, the new one is refused (``LimitExceeded``) and the
  ones in use stay. Only a session holding nothing may be evicted.
- The table holds at most ``most`` sessions (a connection's count too), all
  of them together keep at most ``kept_bytes`` of variables, and run at most
  ``processes`` background processes; a session unused for ``idle_s``
  expires (a connection's too) and its processes stop.
- A session that went away is remembered with why (closed, expired,
  evicted, refused), so a client that names it is told what happened.
- A session keeps its isolated worker between its runs (``session_worker``,
  on by default). When a call that named a session by its id ends and the
  session holds nothing, the session leaves the table but its worker is
  parked under its id, for the id's next call (a client of the 2026-07-28
  revision carries only the id); it ends with the session's record, when
  the id is closed, or after ``PARK_S`` unused. A session no call named (a
  connection's, or a call's own) keeps its worker as long as it lives. A
  worker is only ever its own session's.

Replicas that share a state store (``Sessions.share``) share their sessions
through it: when a call ends, what a session holds that is plain data (its
kept variables, its checklist) is written to ``session:{id}`` for ``idle_s``,
and a call naming a session this replica does not hold, or holds an older
version of, reads it there. Background processes are not plain data: they
run on the replica that started them, the session's ``home``, which every
call about them must reach (``lackpy.mcp.forward`` takes them there). When
the home is gone, the processes went with it: the next call is told so
(``LostError``), and the kept values and checklist go on. Each record has a
version; two calls of one session on two replicas at once both run, and the
one that ends second finds the version moved: its own changes to the
session are not kept, and its result says so (``ConflictError``), rather
than one silently undoing the other. A store that does not answer fails
the call (``StoreError``): never a new, empty session in place of one it
could not read.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import secrets
import threading
import time
import weakref
from typing import Any, Iterator, Mapping

from lackpy.errors import ConflictError, LackpyError, LimitExceeded, LostError, ParamError, StoreError, ToolError
from lackpy.run.execute import MAX_RESULT_DEPTH, nesting, value_size
from lackpy.run.result import ExecutionResult
from lackpy.store.contract import version
from lackpy.store.replicas import Replicas
from lackpy.summary import Summary
from lackpy.tools.shell import CLOSED

#: How much a session keeps of the variables its runs leave, in bytes (as JSON would count them).
KEEP_BYTES = 1024 * 1024
#: How much all the sessions of a table keep together, in bytes (as JSON would count them).
KEPT_BYTES = 64 * 1024 * 1024
#: How long a session may stay unused before it expires, in seconds.
IDLE_S = 30 * 60.0
#: How long the worker of a session that held nothing stays parked for its id's next call, in seconds: a client that
#: carries its session id calls again within seconds; one that does not would leave a process behind for nothing.
PARK_S = 120.0
#: How many sessions that hold something a table keeps; past it, a new one is refused.
MOST_SESSIONS = 256
#: How many background processes all the sessions of a table run together.
MOST_PROCESSES = 64
#: How many sessions that went away (or hold nothing) a table remembers, with why.
REMEMBERED = 4096
#: The key of a session's tool state where ``start_process`` finds the server's bound on processes.
PROCESS_ROOM = "process_room"

_SCALARS = (type(None), bool, int, float, str)
#: Tool state that is bookkeeping, not something a client would lose.
_BOOKKEEPING = frozenset({"process_ids", "shell", PROCESS_ROOM, CLOSED})
#: Why a remembered session is gone when it held nothing: its id starts a new, empty session.
_HELD_NOTHING = "held nothing"
#: Tool state that is not the client's data: never written to a shared store (processes are the home's).
_NOT_SHARED = _BOOKKEEPING | {"processes"}
#: The longest session id a call may name (ids made here are 16 characters).
_MOST_ID_CHARS = 64


class Session:
    """One client's state: ``state`` for the tools, ``variables`` kept between runs."""

    def __init__(self, id: str | None = None, keep_bytes: int = KEEP_BYTES, table: "Sessions | None" = None) -> None:
        self.id = id or secrets.token_urlsafe(12)
        self.keep_bytes = keep_bytes
        self.state: dict = {}
        self.variables: dict[str, Any] = {}
        #: The size of ``variables``, as ``keep`` counted it.
        self.kept_bytes = 0
        self.used = time.monotonic()
        self.closed = False
        #: A pinned session lives as long as what holds it (a stdio server) and never expires idle.
        self.pinned = False
        #: How many calls are running in the session now.
        self.runs = 0
        #: Whether a call named the session by its id (``Sessions.get``): its client carries the id, so may come back by it.
        self.named = False
        #: The keeper of the isolated worker the session's runs reuse (``session_worker``, on by default).
        self._worker: Any = None
        #: The version of the session's record in a shared store this replica last read or wrote (0: none yet).
        self.version = 0
        #: Held while the session is written to a shared store, so two of its calls ending here write in turn.
        self.saving = threading.Lock()
        self.table = table
        if table is not None:
            self.state[PROCESS_ROOM] = table.process_room

    def inputs(self, params: Mapping[str, Any] | None, tools: frozenset[str]) -> dict[str, Any]:
        """The variables a run of this session receives: the kept ones, then ``params`` over them.

        A kept variable the kit names as a tool is left out: there the name is the tool.
        """
        inputs = {name: value for name, value in self.variables.items() if name not in tools}
        inputs.update(params or {})
        return inputs

    def keep(self, variables: Mapping[str, Any]) -> dict[str, str]:
        """Keep the plain-data ``variables`` of a run that succeeded, in place of those kept before.

        Returns the variables not kept, each with the reason. In a table, what
        all its sessions keep together stays within the table's ``kept_bytes``.
        """
        if self.table is None:
            return self._keep(variables, None)
        with self.table.keeping:
            return self._keep(variables, self.table.kept_room(self))

    def answered(self, result: ExecutionResult, keep: bool) -> ExecutionResult:
        """``result`` naming this session and the variables it keeps (updated first from a successful ``keep`` run)."""
        not_kept = self.keep(result.variables) if keep and result.success else {}
        return dataclasses.replace(result, session=self.id, kept=sorted(self.variables), not_kept=not_kept)

    def _keep(self, variables: Mapping[str, Any], room: int | None) -> dict[str, str]:
        kept: dict[str, Any] = {}
        left = self.keep_bytes
        refused: dict[str, str] = {}
        for name, value in variables.items():
            if type(value) is Summary:
                refused[name] = "too large for the run's result, so not kept"
                continue
            if not plain(value):
                refused[name] = f"a {type(value).__name__} value is not plain data (keep numbers, strings, lists, dicts)"
                continue
            size = value_size(value, left if room is None else min(left, room))
            if size > left:
                refused[name] = f"over the {self.keep_bytes} bytes a session keeps"
            elif room is not None and size > room:
                refused[name] = f"over the {self.table.kept_bytes} bytes this server keeps for all its sessions together"
            else:
                kept[name] = value
                left -= size
                room = None if room is None else room - size
        self.variables, self.kept_bytes = kept, self.keep_bytes - left
        return refused

    def load(self, record: dict) -> None:
        """Take the kept variables and plain tool state of ``record`` (from a shared store) in place of this copy's.

        What is not the client's data stays as it is here (processes, bookkeeping).
        StoreError when the record is not what ``Sessions`` writes.
        """
        variables, state = record.get("variables") or {}, record.get("state") or {}
        if type(variables) is not dict or type(state) is not dict or not plain(variables) or not plain(state):
            raise StoreError(f"the state store holds a record of session {self.id} that lackpy did not write (check the deployment name)")
        for key in [key for key in self.state if key not in _NOT_SHARED]:
            del self.state[key]
        self.state.update((key, value) for key, value in state.items() if key not in _NOT_SHARED)
        self.variables, self.kept_bytes = variables, value_size(variables, KEPT_BYTES)
        self.version = record["v"]

    def reset(self) -> None:
        """Forget the kept variables, and end the worker the session kept: its next run starts clean."""
        self.variables, self.kept_bytes = {}, 0
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()

    def worker(self) -> Any:
        """The session's own isolated worker keeper (``lackpy.run.sessionworker.SessionWorker``): the one its table parked
        for its id when a call of it last ended, else a new one; None once closed."""
        if self._worker is None and not self.closed:
            parked = self.table.unpark(self.id) if self.table is not None else None
            if parked is None:
                from lackpy.run.sessionworker import SessionWorker  # the worker machinery loads on first use

                parked = SessionWorker()
            self._worker = parked
        return self._worker

    def let_worker_go(self) -> Any:
        """The session's worker keeper if it keeps a worker now, no longer the session's (for its table to park); else None."""
        worker = self._worker
        if worker is None or worker.pid is None:
            return None
        self._worker = None
        return worker

    def holds(self) -> bool:
        """Whether the session holds what its client would lose: a run under way, kept variables, a process
        (running, or ended with output to read), a checklist or other tool state."""
        if self.runs or self.variables:
            return True
        return any(value for key, value in self.state.items() if key not in _BOOKKEEPING)

    def running(self) -> int:
        """How many of the session's background processes are running."""
        return sum(1 for process in list(self.state.get("processes", {}).values()) if process.poll() is None)

    def close(self) -> int:
        """Stop the session's background processes and forget its state; how many processes were running."""
        from lackpy.tools.shell import stop_all

        self.closed = True
        stopped = stop_all(self.state)
        self.state.clear()
        self.state[CLOSED] = True  # still closed: a start_process under way stops what it started
        self.reset()
        return stopped


def plain(value: Any) -> bool:
    """Whether ``value`` is plain data a session may keep: None, bools, numbers, strings, lists and str-keyed dicts.

    Exact types only, so a summary of a value (a ``str`` subclass) or a
    program's own object never passes as data; nesting is bounded.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind is list:
            stack.extend(item)
        elif kind is dict and all(type(key) is str for key in item):
            stack.extend(item.values())
        else:
            return False
    return nesting(value, MAX_RESULT_DEPTH) < MAX_RESULT_DEPTH


class Sessions:
    """The sessions of one service, by id, within bounds; idle ones expire and their processes stop.

    A server uses ``fresh`` (a session for a call that names none), ``get``
    (the one a call names), and ``begin``/``end`` around every call: ``end``
    puts a session that holds something in the table, or refuses it when the
    table is full of sessions in use, and takes out one that holds nothing.
    ``open`` puts a session in the table at once (the Python API, stdio).
    """

    def __init__(
        self,
        idle_s: float = IDLE_S,
        most: int = MOST_SESSIONS,
        keep_bytes: int = KEEP_BYTES,
        kept_bytes: int = KEPT_BYTES,
        processes: int = MOST_PROCESSES,
    ) -> None:
        self.idle_s, self.most, self.keep_bytes = idle_s, most, keep_bytes
        self.kept_bytes, self.processes = kept_bytes, processes
        #: The table: sessions that hold something (and those opened outright), least recently used first.
        self._open: dict[str, Session] = {}
        #: Sessions with a call running that are not in the table (yet).
        self._busy: dict[str, Session] = {}
        #: Every session of this table still held by someone (the table, a call, a connection): one object per id.
        self._live: weakref.WeakValueDictionary[str, Session] = weakref.WeakValueDictionary()
        #: Sessions gone or holding nothing: id -> (why, when), oldest first.
        self._gone: collections.OrderedDict[str, tuple[str, float]] = collections.OrderedDict()
        #: The workers of sessions that held nothing when their call ended, by id, for the id's next call: id -> (worker, when).
        self._parked: collections.OrderedDict[str, tuple[Any, float]] = collections.OrderedDict()
        self._lock = threading.RLock()
        #: Held while a session keeps variables, so two runs never count the same room.
        self.keeping = threading.Lock()
        #: The replicas whose shared store holds the sessions (``share``); None: they live in this process only.
        self.replicas: Replicas | None = None

    def share(self, replicas: Replicas) -> None:
        """Keep the sessions in ``replicas.store``, which this replica shares with the others of its deployment (module docstring)."""
        self.replicas = replicas

    # -- sessions for calls -----------------------------------------------------------

    def open(self, pinned: bool = False) -> Session:
        """A new session in the table now (making room by evicting one that holds nothing).

        A ``pinned`` session never expires idle: whatever holds it closes it.
        Raises LimitExceeded when every session of a full table holds something.
        """
        self.expire()
        session = self._new()
        session.pinned = pinned
        with self._lock:
            evicted = self._room()
            self._open[session.id] = session
        _close(evicted)
        return session

    def fresh(self, owner: str | None = None) -> Session:
        """A new session for a call; it enters the table only if it holds something when the call ends.

        ``owner`` (a checked caller's key prefix) starts its id, ``OWNER.RANDOM``, so only that caller is given it again.
        """
        return self._new(f"{owner}.{secrets.token_urlsafe(12)}" if owner else None)

    def get(self, id: str) -> Session:
        """The session ``id``, marked used: an open one, or a new empty one for an id whose session held nothing.

        Raises ParamError saying what happened to it (closed, expired,
        evicted, refused) or that this server does not know it.
        """
        self.expire()
        now = time.monotonic()
        if not isinstance(id, str):
            id = repr(id)
        if self.replicas is not None:
            return self._read(id)
        with self._lock:
            session = self._live.get(id)
            if session is not None and not session.closed:
                if self._open.get(id) is session:
                    self._open[id] = self._open.pop(id)  # most recently used last
                session.used = now
                session.named = True
                return session
            gone = self._gone.get(id)
            if gone is not None and gone[0] == _HELD_NOTHING and now - gone[1] <= self.idle_s:
                del self._gone[id]
                session = self._new(id)
                session.named = True
                return session
        raise self._unknown(id, None if gone is None else gone[0])

    def _unknown(self, id: str, why: str | None) -> ParamError:
        """The error for a call naming session ``id``, which went away ``why`` (None: it is not known)."""
        shown = str(id)[:40]
        if why is None:
            return ParamError(f"no session {shown!r}: this server never opened it, or it went away long ago; leave session out to start a new one")
        why = f"expired after {self.idle_s:g} s idle" if why == _HELD_NOTHING else why
        return ParamError(f"no session {shown!r}: it {why}; leave session out to start a new one")

    # -- sessions in a shared store -----------------------------------------------------

    def _read(self, id: str) -> Session:
        """``get`` when the sessions are shared: the store's record of ``id``, over (or into) this replica's copy."""
        replicas = self.replicas
        if not id or len(id) > _MOST_ID_CHARS:
            raise self._unknown(id, None)
        record = replicas.store.get(_key(id))  # StoreError: the call fails, never a new empty session in place of this one
        with self._lock:
            session = self._live.get(id)
        if session is not None and session.closed:
            session = None
        if record is None:
            if session is None:
                raise self._unknown(id, None)
            return self._touch(session)
        if version(record) < 1:
            raise StoreError(f"the state store holds a record of session {str(id)[:40]!r} that lackpy did not write (check the deployment name)")
        why = record.get("gone")
        if why is not None and why != _HELD_NOTHING:
            raise self._unknown(id, str(why))
        home = record.get("home")
        if home is not None and home != replicas.me:
            if replicas.alive(home):
                raise ParamError(
                    f"session {id} runs background processes on replica {home}, and this call came on a connection tied to replica "
                    f"{replicas.me} (Mcp-Session-Id): call about them on a connection to that replica, or as 2026-07-28 requests, which reach it"
                )
            with contextlib.suppress(StoreError):  # the next call goes on with what is kept; if this write fails, it is told again
                replicas.store.swap(_key(id), {**record, "v": record["v"] + 1, "home": None}, self.idle_s, record["v"])
            raise LostError(
                f"session {id}'s background processes were lost with replica {home} (it stopped); its kept variables and checklist are "
                "still there: call again to go on without them"
            )
        if session is None:
            session = self._new(id)
        if session.version != record["v"]:
            session.load(record)
        return self._touch(session)

    def _touch(self, session: Session) -> Session:
        session.named = True
        with self._lock:
            if self._open.get(session.id) is session:
                self._open[session.id] = self._open.pop(session.id)  # most recently used last
            session.used = time.monotonic()
        return session

    def save(self, session: Session) -> LackpyError | None:
        """Write what ``session`` holds to the shared store once no call of it runs here; why that failed (None: written, or not shared).

        A ConflictError when another replica wrote the session since this one
        read it (its version moved): this call's changes to it are not kept.
        """
        if self.replicas is None:
            return None
        with session.saving:
            if session.runs or session.closed:
                return None
            record = self._record(session)
            try:
                kept = self.replicas.store.swap(_key(session.id), record, self.idle_s, max(session.version, 0))
            except StoreError as exc:
                return exc
            if not kept:
                session.version = -1  # this copy is behind: the next call reads the store's
                return ConflictError(
                    f"session {session.id} changed in another call meanwhile (two calls of one session at once, on two replicas); "
                    "this run's changes to the session (kept variables, checklist) were not kept, the rest of what it did stands; "
                    "make a session's calls one after another"
                )
            session.version = record["v"]
        return None

    def _record(self, session: Session) -> dict:
        """What a shared store keeps of ``session``: its plain data and its home, or that it holds nothing; one version on."""
        v = max(session.version, 0) + 1
        if not session.holds():
            return {"v": v, "gone": _HELD_NOTHING}
        state = {key: value for key, value in session.state.items() if key not in _NOT_SHARED and plain(value)}
        home = self.replicas.me if session.state.get("processes") else None
        return {"v": v, "variables": session.variables, "state": state, "home": home}

    def _forget(self, session: Session, why: str) -> None:
        """Say in the shared store that ``session`` went away ``why`` (unless another replica wrote it since: then it lives on there)."""
        if self.replicas is not None:
            with contextlib.suppress(StoreError):  # the record expires on its own
                self.replicas.store.swap(_key(session.id), {"v": max(session.version, 0) + 1, "gone": why}, self.idle_s, max(session.version, 0))

    def unpark(self, id: str) -> Any:
        """The worker parked for session ``id`` (``end``), taken out of the table; None if there is none."""
        with self._lock:
            parked = self._parked.pop(id, None)
        return None if parked is None else parked[0]

    def why(self, id: str) -> str | None:
        """Why session ``id`` went away, if this table remembers it."""
        with self._lock:
            gone = self._gone.get(id)
        return None if gone is None else gone[0]

    def ensure_room(self, session: Session) -> None:
        """Raise LimitExceeded, before a call runs, when ``session`` is not in the table and could not enter it."""
        with self._lock:
            if session.id in self._open or len(self._open) < self.most or self._evictable() is not None:
                return
        raise self._full()

    def begin(self, session: Session) -> None:
        """A call starts in ``session``: it cannot expire or be evicted until ``end``."""
        with self._lock:
            session.runs += 1
            session.used = time.monotonic()
            if session.id not in self._open and not session.closed:
                self._busy[session.id] = session

    def end(self, session: Session) -> str | None:
        """A call in ``session`` ended: a session that holds something stays in (or enters) the table; one that
        holds nothing leaves it, remembered so its id starts a new one.

        Returns why the session was refused (a full table of sessions in use:
        it is closed, its processes stopped), else None.
        """
        evicted = None
        with self._lock:
            session.runs -= 1
            session.used = time.monotonic()
            if session.runs > 0:
                return None
            self._busy.pop(session.id, None)
            if session.closed or session.pinned:
                return None
            if not session.holds() or (self.replicas is not None and not session.state.get("processes")):
                self._open.pop(session.id, None)  # shared: the store keeps what it holds (``save``); only a home stays
                if not session.holds():
                    self._remember(session.id, _HELD_NOTHING)  # so its id still starts the next call
                # ... with the worker of its calls so far, when its client carries the id (the holder of the id is its one
                # client). A session no call named lives with what holds it (a connection) or not at all, and its worker with it.
                worker = session.let_worker_go() if session.named else None
                if worker is not None:
                    self._parked[session.id] = (worker, session.used)
                return None
            if session.id in self._open:
                self._open[session.id] = self._open.pop(session.id)  # most recently used last
                return None
            try:
                evicted = self._room()
            except LimitExceeded as exc:
                refused = str(exc)
            else:
                self._open[session.id] = session
                refused = None
        _close(evicted)
        if refused is not None:
            self._end(session, f"was refused: the server held {self.most} sessions in use, the most it may")
        return refused

    # -- ending sessions -------------------------------------------------------------

    def close(self, id: str, why: str = "was closed") -> int:
        """Close session ``id`` if it is open or running; how many of its processes were running."""
        with self._lock:
            session = self._live.get(id)
            if session is None or session.closed:
                if id in self._gone:
                    self._remember(id, why)
                return 0
        return self.close_session(session, why)

    def close_session(self, session: Session, why: str) -> int:
        """Close ``session`` (in the table or not: a connection's); how many of its processes were running."""
        with self._lock:
            self._open.pop(session.id, None)
            self._busy.pop(session.id, None)
        return self._end(session, why)

    def expire(self, now: float | None = None) -> int:
        """Close the sessions idle longer than ``idle_s`` (none with a call running), and end the workers unused longer than
        ``PARK_S``, parked or kept by a session the table holds (a worker only saves a fork: a session whose client went
        quiet keeps its values, not a process); how many sessions closed."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [s for s in self._open.values() if not s.pinned and not s.runs and now - s.used > self.idle_s]
            for session in idle:
                del self._open[session.id]
            unused = [id for id, (_, used) in self._parked.items() if now - used > min(PARK_S, self.idle_s)]
            for id in unused:
                self._parked.pop(id)[0].close()
            quiet = [s.let_worker_go() for s in self._open.values() if not s.runs and now - s.used > PARK_S]
        for worker in quiet:
            if worker is not None:
                worker.close()
        for session in idle:
            self._end(session, f"expired after {self.idle_s:g} s idle")
        return len(idle)

    def close_all(self) -> int:
        """Close every session (when the service closes); how many processes were running."""
        with self._lock:
            sessions = [*self._open.values(), *self._busy.values()]
            self._open, self._busy = {}, {}
            parked, self._parked = self._parked, collections.OrderedDict()
        for worker, _ in parked.values():
            worker.close()
        if self.replicas is not None:  # shared: the sessions go on in the store; what they ran here is lost with this replica
            return sum(session.close() for session in sessions)
        return sum(self._end(session, "was closed when the server stopped") for session in sessions)

    # -- the bounds ---------------------------------------------------------------------

    def kept_room(self, session: Session) -> int:
        """How many bytes ``session`` may keep within what all the sessions keep together."""
        with self._lock:
            others = sum(s.kept_bytes for s in self._all() if s is not session)
        return max(0, self.kept_bytes - others)

    def process_room(self) -> None:
        """Raise ToolError when the sessions together run ``processes`` background processes (``start_process`` asks)."""
        with self._lock:
            sessions = list(self._all())
        running = sum(session.running() for session in sessions)
        if running >= self.processes:
            raise ToolError(
                f"start_process: this server already runs {running} background processes for its sessions, the most it may; "
                "stop one with stop_process first"
            )

    def held_bytes(self) -> int:
        """How many bytes of variables the sessions keep now."""
        with self._lock:
            return sum(session.kept_bytes for session in self._all())

    def _all(self) -> Iterator[Session]:
        yield from self._open.values()
        yield from (s for s in self._busy.values() if s.id not in self._open)

    def _new(self, id: str | None = None) -> Session:
        session = Session(id, keep_bytes=self.keep_bytes, table=self)
        with self._lock:
            self._live[session.id] = session
        return session

    def _room(self) -> Session | None:
        """Make room for one more session (lock held): the session evicted to make it, if any.

        Raises LimitExceeded when the table is full of sessions that hold something.
        """
        if len(self._open) < self.most:
            return None
        oldest = self._evictable()
        if oldest is None:
            raise self._full()
        del self._open[oldest.id]
        self._remember(oldest.id, "was evicted to make room for a new session (it held nothing)")
        return oldest

    def _evictable(self) -> Session | None:
        """The least recently used session that may make room: not pinned, no call running, holding nothing."""
        return next((s for s in self._open.values() if not s.pinned and not s.holds()), None)

    def _full(self) -> LimitExceeded:
        return LimitExceeded(
            "sessions", self.most,
            f"this server holds {self.most} sessions in use (kept variables, processes or a checklist), the most it may, "
            f"so it keeps no new one; continue in a session you hold (pass its id), or try again when one ends "
            f"(a session ends {self.idle_s:g} s after its last use)",
        )

    def _end(self, session: Session, why: str) -> int:
        with self._lock:
            self._remember(session.id, why)
        self._forget(session, why)
        return session.close()

    def _remember(self, id: str, why: str) -> None:
        """Remember (lock held) why session ``id`` went away; the oldest record goes past REMEMBERED."""
        self._gone.pop(id, None)
        self._gone[id] = (why, time.monotonic())
        if why != _HELD_NOTHING and id in self._parked:  # the session ended: so does the worker parked for its id
            self._parked.pop(id)[0].close()
        while len(self._gone) > REMEMBERED:
            forgotten, _ = self._gone.popitem(last=False)
            if forgotten in self._parked:
                self._parked.pop(forgotten)[0].close()

    def __len__(self) -> int:
        return len(self._open)

    def __iter__(self) -> Iterator[Session]:
        with self._lock:
            return iter(list(self._open.values()))


def _key(id: str) -> str:
    """Where a shared store keeps session ``id``."""
    return f"session:{id}"


def _close(session: Session | None) -> None:
    if session is not None:
        session.close()


__all__ = ["IDLE_S", "KEEP_BYTES", "KEPT_BYTES", "MOST_PROCESSES", "MOST_SESSIONS", "PARK_S", "PROCESS_ROOM", "Session", "Sessions", "plain"]
