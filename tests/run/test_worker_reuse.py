"""A session's worker runs its next program only as it was before its first (``lackpy.run.reuse``).

Each attack below is what a way around the language could do in a worker
that a session keeps: the program is compiled as plain Python, past the
validator and the guards, and sent as a job like any other. After it, the
worker must be let go (its pid gone), and the session's next run must see
the worker's state as a fresh worker has it. A control run that only looks
keeps its worker, so each attack's check can fail.
"""

from __future__ import annotations

import textwrap
import time
import types
from pathlib import Path

import pytest

from lackpy.lang.grammar import PROGRAM_FILENAME
from lackpy.run.isolated import run_isolated
from lackpy.run.limits import Limits
from lackpy.run.sessionworker import SessionWorker

#: The worker's modules, reached the way a way around the language would: from a class's function's globals.
REACH = """
os = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0].__init__.__globals__
sys = os['sys']
signal, resource = sys.modules['signal'], sys.modules['resource']
"""

#: attack (changes the worker), look (what a run sees of it: a fresh worker's answer is the clean one)
ATTACKS = {
    "working directory": ("os['chdir']('/')", "os['getcwd']()"),
    "environment": ("os['environ']['LACKPY_LEFT'] = 'by an earlier run'", "os['environ'].get('LACKPY_LEFT')"),
    "signal handler": ("signal.signal(signal.SIGUSR1, lambda *a: None)", "str(signal.getsignal(signal.SIGUSR1))"),
    "signal mask": ("signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})", "sorted(signal.pthread_sigmask(signal.SIG_BLOCK, ()))"),
    "interval timer": ("signal.setitimer(signal.ITIMER_VIRTUAL, 100)", "signal.getitimer(signal.ITIMER_VIRTUAL)[0]"),
    "descriptor": ("os['close'](0)", "os['fstat'](0).st_mode"),
    "builtin the program sees": ("__builtins__['len'] = lambda x: 42", "len([1])"),
    "module binding": ("sys.modules['lackpy.run.wire'].SPIN_S = 0", "sys.modules['lackpy.run.wire'].SPIN_S"),
    "module loaded": ("sys.modules['lackpy_left'] = sys", "'lackpy_left' in sys.modules"),
    "memory kept": ("sys.modules['lackpy.run.execute']._spare.append([0] * (8 << 20))", "len(sys.modules['lackpy.run.execute']._spare)"),
    "recursion limit": ("sys.setrecursionlimit(60)", "sys.getrecursionlimit()"),
    "resource limit": ("resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, resource.getrlimit(resource.RLIMIT_MSGQUEUE)[1]))",
                       "resource.getrlimit(resource.RLIMIT_MSGQUEUE)[0]"),
}


def raw(body: str, value: str = "None") -> types.CodeType:
    """A program function compiled as plain Python (no validator, no guards), returning ``value`` and no variables."""
    source = "def program():\n" + textwrap.indent(REACH + body + f"\nreturn ({value}), {{}}\n", "    ")
    module = compile(source, PROGRAM_FILENAME, "exec")
    return next(const for const in module.co_consts if isinstance(const, types.CodeType))


def run(code: types.CodeType, worker: SessionWorker | None):
    ending = run_isolated(code, {}, {}, Limits(memory_bytes=256 << 20), sandbox=True, session_worker=worker)
    assert ending.success, ending.error
    return ending


def gone(pid: int, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_worker_a_run_changed_is_let_go_and_the_next_run_sees_it_clean(name: str):
    attack, look = ATTACKS[name]
    clean = run(raw("", look), None).output  # what a fresh worker sees
    worker = SessionWorker()
    try:
        run(raw("", "1"), worker)
        kept = worker.pid
        assert kept is not None
        assert run(raw("", look), worker).output == clean and worker.pid == kept  # looking changes nothing: the worker stays
        run(raw(attack), worker)  # the worker looks at itself after its report: the next run learns what it found
        assert run(raw("", look), worker).output == clean  # the next run has a fresh worker
        assert worker.pid not in (None, kept), f"a worker whose {name} a run changed was kept"
        assert gone(kept), "the changed worker is still running"
    finally:
        worker.close()


def test_a_runs_globals_and_builtins_mapping_are_its_own_and_the_worker_stays():
    """Each run gets a namespace of its own: what one binds there is gone for the next, in the same worker."""
    worker = SessionWorker()
    try:
        run(raw("sys._getframe().f_globals['left'] = 'by an earlier run'"), worker)
        kept = worker.pid
        seen = run(raw("", "sys._getframe().f_globals.get('left')"), worker)
        assert seen.output is None and worker.pid == kept is not None
    finally:
        worker.close()


def test_a_run_of_a_kept_worker_cannot_raise_its_own_memory_limit():
    """The session's first job set the worker's hard memory limit; soft limits are the run's own, never above it."""
    worker = SessionWorker()
    try:
        run(raw("", "1"), worker)
        ending = run_isolated(raw("resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))"), {}, {},
                              Limits(memory_bytes=256 << 20), session_worker=worker)
        assert not ending.success and "not allowed to raise maximum limit" in ending.error
    finally:
        worker.close()


def test_a_run_cannot_start_a_thread_to_outlive_it():
    """Threads count as processes, and a worker may start none: the attempt fails in the run itself."""
    worker = SessionWorker()
    try:
        ending = run_isolated(raw("sys.modules['_thread'].start_new_thread(lambda: None, ())"), {}, {}, Limits(), session_worker=worker)
        assert not ending.success and "can't start new thread" in ending.error
    finally:
        worker.close()


def test_nothing_is_kept_when_the_run_is_not_a_sessions():
    ending = run(raw("", "1"), None)
    assert ending.spent  # a worker of one job always says it is spent


def test_a_changed_workers_stale_answer_heard_on_the_loop_sends_the_job_to_a_fresh_worker():
    """The caller's loop hears ``stale`` as the job's first answer; the run thread then gives the job to a fresh worker."""
    import asyncio

    from lackpy.run.isolated import Begun, begin, heard

    worker = SessionWorker()
    try:
        attack, look = ATTACKS["environment"]
        run(raw("", "1"), worker)
        kept = worker.pid
        run(raw(attack), worker)
        limits = Limits(memory_bytes=256 << 20)
        begun = begin(raw("", look), [], {}, limits, session_worker=worker)
        assert isinstance(begun, Begun) and begun.pid == kept and begun.kept
        assert asyncio.run(heard(begun)) is False
        assert begun.first == {"t": "stale", "why": "environment"}
        ending = run_isolated(raw("", look), {}, {}, limits, begun=begun, session_worker=worker)
        assert ending.success and ending.output is None  # the fresh worker's environment: the attack's variable is not there
        assert worker.pid not in (None, kept) and gone(kept)
    finally:
        worker.close()


def test_a_dropped_sessions_worker_goes_without_the_fork_servers_lock():
    """The collector may drop a session on a thread that is sending to the fork server: its worker then goes by its channel closing."""
    import threading

    worker = SessionWorker()
    run(raw("", "1"), worker)
    pid, server = worker.pid, worker._kept[0]
    holder = {"worker": worker}
    del worker

    def drop() -> None:
        with server._send_lock:  # as in the middle of a send, where a collection can run
            holder.clear()

    dropping = threading.Thread(target=drop, daemon=True)
    dropping.start()
    dropping.join(5)
    assert not dropping.is_alive(), "dropping a session's worker waited for the fork server's lock its own thread held"
    assert gone(pid), "the dropped session's worker is still running"
