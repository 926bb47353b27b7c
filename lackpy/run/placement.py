"""Where a worker runs: off the CPU of the thread that serves its calls, once its run has shown it calls often.

Linux only; elsewhere, with one CPU, or where the system refuses, nothing
changes.
"""

from __future__ import annotations

import os

#: The workers ``apart`` has kept off a CPU, until they are widened again or let go.
NARROWED: set[int] = set()


def apart(pid: int, widen: bool = False) -> None:
    """Keep the worker of a run that makes many calls off the CPU of the thread serving it, where the kernel tends to put it.

    Each side polls for the other's answer; on one CPU they take turns, and a
    call costs about three times what it costs on two (program 02 isolated:
    25-28 ms instead of 10 ms in one run of five). The worker may run on
    every other CPU this process may use; with fewer than two, or where the
    system refuses, nothing changes. A fresh worker is never restricted
    before its run has shown it calls often, so short runs pay nothing.
    ``widen`` gives a session's kept worker every CPU back for its next run.
    """
    if not hasattr(os, "sched_setaffinity"):
        return  # not Linux: the worker runs where the system puts it
    try:
        allowed = os.sched_getaffinity(0)
        if len(allowed) < 2:
            return
        if widen:
            NARROWED.discard(pid)
            os.sched_setaffinity(pid, allowed)
            return
        with open("/proc/thread-self/stat", "rb") as stat:
            cpu = int(stat.read().rpartition(b")")[2].split()[36])
        os.sched_setaffinity(pid, allowed - {cpu})
        NARROWED.add(pid)
    except (OSError, ValueError, IndexError):
        return  # a CPU set that refuses it, or no /proc: the run goes on where it is


__all__ = ["NARROWED", "apart"]
