"""Whether a session's isolated worker may run the session's next program: as it was before its first run.

A session keeps its worker between its runs (``lackpy.run.sessionworker``).
Each run gets a namespace of its own, so nothing a program binds is there
for the next; and the language gives a program no way to change anything
else (no import, ``def``, ``class``, attribute assignment or private
name). This module is the check behind that: after each run, before its
report, the worker compares what a way around the language could change
with what it was before its first job, and a worker that differs in any of
it is let go, never given another job (the host forks a fresh one).
Compared: the builtins a program sees and the interpreter's own, the
modules loaded, the names bound in the modules a run's own path goes
through (the worker's, the guards', the channel's; ``WATCHED``), the
environment, the working directory, signal handlers and mask, interval
timers, threads, open descriptors, the resource limits no job sets, the
recursion limit, and memory: a worker whose address space grew more than
``GROWTH_BYTES`` past where it started is let go, so an earlier run never
takes from a later run's memory limit more than that, and each run's limit
counts from what the worker holds when it starts. Not compared: the
contents of mutable objects those modules hold (a cache's entries), and
state below Python (what C code keeps); a way around the language that
reached those would reach the session's later runs, and only those.

Each comparison runs at C speed (dicts compared value by value, identity
first): about 20 µs a run, on the report's path, so the host never gives a
job to a worker that is about to leave.
"""

from __future__ import annotations

import _signal  # the handlers as set, without signal.getsignal's conversion to enums
import os
import resource
import signal
import sys

from lackpy.run.guards import BASE_GLOBALS, SAFE_BUILTINS

#: How much a kept worker's address space may grow past where it started before it is let go.
GROWTH_BYTES = 16 * 1024 * 1024

#: The resource limits no job changes: all but address space and CPU time, which each job sets for itself.
FIXED_LIMITS = tuple(sorted({getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")} - {resource.RLIMIT_AS, resource.RLIMIT_CPU}))
#: The modules whose names a run's own path goes through: a binding of theirs that changed is a worker let go.
WATCHED = (
    "builtins", "json", "json.decoder", "json.encoder", "marshal", "math", "os", "resource", "select", "signal", "types",
    "lackpy.errors", "lackpy.run.execute", "lackpy.run.guards", "lackpy.run.limits", "lackpy.run.reuse", "lackpy.run.trace",
    "lackpy.run.wire", "lackpy.run.worker", "RestrictedPython.Guards",
)
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
_SIGNALS = tuple(sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}))


class AddressSpace:
    """The worker's address space in bytes, read from ``/proc/self/statm`` through a descriptor opened before confinement.

    Landlock takes ``/proc`` away from a confined worker; a descriptor opened
    before stays readable (each read at offset 0 reads it anew).
    """

    def __init__(self) -> None:
        try:
            self.fd: int | None = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.fd = None

    def now(self) -> int | None:
        """The bytes mapped now; None when they cannot be read (then no worker is kept)."""
        if self.fd is None:
            return None
        try:
            return int(os.pread(self.fd, 128, 0).split()[0]) * resource.getpagesize()
        except (OSError, ValueError, IndexError):
            return None


class Snapshot:
    """What a worker was before its first job, and ``changed``: what differs now (None when nothing does)."""

    def __init__(self, space: AddressSpace, limit_fds: int) -> None:
        self.space = space
        self.limit_fds = limit_fds
        watched = [vars(sys.modules[name]) for name in WATCHED if name in sys.modules]
        self.namespaces = [(names, dict(names)) for names in (SAFE_BUILTINS, BASE_GLOBALS, *watched)]
        self.modules = dict(sys.modules)
        self.environ = dict(os.environ._data)  # type: ignore[attr-defined]  (the bytes the process has)
        self.cwd = os.getcwd()
        self.handlers = list(map(_signal.getsignal, _SIGNALS))
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
        self.fds = open_fds(limit_fds)
        self.limits = list(map(resource.getrlimit, FIXED_LIMITS))
        self.recursion = sys.getrecursionlimit()
        self.threads = len(sys._current_frames())
        self.start = space.now()
        #: Whether the worker's hard memory limit is set (by the session's first job, for every later one).
        self.capped = False

    def changed(self) -> str | None:
        """What the last run left different from before the first (a few words), or None: the worker may run the next."""
        for names, before in self.namespaces:
            if names != before:  # C speed: each value is compared by identity first, by equality only when rebound
                return "bindings"
        if sys.modules != self.modules:  # a module compares by identity
            return "modules"
        if os.environ._data != self.environ:  # type: ignore[attr-defined]
            return "environment"
        if os.getcwd() != self.cwd:
            return "working directory"
        if list(map(_signal.getsignal, _SIGNALS)) != self.handlers:
            return "signal handlers"
        if signal.pthread_sigmask(signal.SIG_BLOCK, ()) != self.mask or any(signal.getitimer(which) != (0.0, 0.0) for which in _TIMERS):
            return "signals"
        if open_fds(self.limit_fds) != self.fds:
            return "descriptors"
        if list(map(resource.getrlimit, FIXED_LIMITS)) != self.limits or sys.getrecursionlimit() != self.recursion:
            return "limits"
        if len(sys._current_frames()) != self.threads:
            return "threads"
        now = self.space.now()
        if now is None or self.start is None or now > self.start + GROWTH_BYTES:
            return "memory"
        return None


def open_fds(below: int) -> frozenset[int]:
    """The descriptors open below ``below`` (the worker's descriptor limit: none can be opened at or above it)."""
    found = set()
    for fd in range(below):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.add(fd)
    return frozenset(found)


__all__ = ["AddressSpace", "GROWTH_BYTES", "Snapshot", "open_fds"]
