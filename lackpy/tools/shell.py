"""Shell commands and background processes: run_command and the *_process tools.

``LocalShell`` is the seam: the only code here that starts or signals
processes. Every command runs as ``/bin/sh -c command`` in a new session (so
in its own process group), with stdin from /dev/null, in a directory the
workspace path policy allowed. Output is read incrementally and kept within a
fixed size per stream, so a command that prints gigabytes costs no memory.

A command's whole process group is killed when it times out, and also when
its shell exits: ``run_command`` never leaves processes behind (use
``start_process`` for anything meant to keep running). The group leader is
not reaped until its group has been killed, so the group id cannot have been
reused by an unrelated process when the signal is sent.

Background processes live in ``ctx.session["processes"]`` (id -> Process),
so every run of one service instance sees them and ``stop_all(session)``
ends them at shutdown. A session may hold a different shell object under
``ctx.session["shell"]`` (anything with ``run`` and ``spawn`` like
``LocalShell``), e.g. a sandboxed one or a fake in tests.

Commands touch the real disk: writes they make are not staged with the run's
file edits, and they do not see the run's staged (uncommitted) writes.
"""

from __future__ import annotations

import codecs
import itertools
import math
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import Any, Callable

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.tools import workspace

MAX_TIMEOUT_S = 600.0
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_COMMAND_OUTPUT_BYTES = 64 * 1024
DEFAULT_PROCESS_BUFFER_BYTES = 256 * 1024
DEFAULT_MAX_PROCESSES = 16
# After a kill, how long output still in the pipes is drained before giving up
# on processes that left the group (setsid) and keep the pipes open.
DRAIN_GRACE_S = 1.0
_CHUNK = 64 * 1024
_TICK_S = 0.05


def _notice(dropped: int) -> str:
    return f"\n[... {dropped} bytes dropped ...]\n"


# --------------------------------------------------------------------------- the seam


class _HeadTail:
    """The first half and the last half of a stream, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.head_limit = self.limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        keep = self.limit - self.head_limit
        if len(chunk) >= keep:
            self.dropped += len(self.tail) + len(chunk) - keep
            self.tail = bytearray(chunk[len(chunk) - keep:]) if keep else bytearray()
            return
        self.tail += chunk
        excess = len(self.tail) - keep
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        if not self.dropped:
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        return (
            bytes(self.head).decode("utf-8", errors="replace")
            + _notice(self.dropped)
            + bytes(self.tail).decode("utf-8", errors="replace")
        )


class _Unread:
    """Output not yet read, at most ``limit`` bytes: the oldest is dropped first, and counted."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.data = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, chunk: bytes) -> None:
        with self.lock:
            self.data += chunk
            excess = len(self.data) - self.limit
            if excess > 0:
                del self.data[:excess]
                self.dropped += excess

    def take(self, final: bool = False) -> str:
        with self.lock:
            data, dropped = bytes(self.data), self.dropped
            self.data.clear()
            self.dropped = 0
            if dropped:
                self.decoder.reset()  # a character split before the gap cannot be completed
            text = self.decoder.decode(data, final=final)
        return _notice(dropped) + text if dropped else text


def _leader_exited(popen: subprocess.Popen) -> bool:
    """Whether the shell has exited, without reaping it (its pid keeps the group id reserved)."""
    if popen.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # already reaped elsewhere
            pass
    return popen.poll() is not None


def _kill_group(popen: subprocess.Popen) -> None:
    """SIGKILL the command's process group (leader included), then reap the leader."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    popen.wait()


def _popen(command: str, cwd: str) -> subprocess.Popen:
    return subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        start_new_session=True,
        close_fds=True,
    )


class Process:
    """A background command: bounded output buffers filled by reader threads."""

    def __init__(self, popen: subprocess.Popen, command: str, cwd: str, max_buffer_bytes: int) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.command = command
        self.cwd = cwd
        self.stdout = _Unread(max_buffer_bytes)
        self.stderr = _Unread(max_buffer_bytes)
        self.code: int | None = None
        self.finished = False
        self._lock = threading.Lock()
        self._readers = [
            threading.Thread(target=self._read, args=(popen.stdout, self.stdout), name=f"lackpy-out-{self.pid}", daemon=True),
            threading.Thread(target=self._read, args=(popen.stderr, self.stderr), name=f"lackpy-err-{self.pid}", daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(pipe: Any, buffer: _Unread) -> None:
        try:
            while True:
                chunk = pipe.read(_CHUNK)
                if not chunk:
                    break
                buffer.add(chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    def _finish(self) -> None:
        _kill_group(self.popen)  # leftovers of an exited shell too
        self.code = self.popen.returncode
        self.finished = True
        deadline = time.monotonic() + DRAIN_GRACE_S
        for reader in self._readers:
            reader.join(max(0.0, deadline - time.monotonic()))

    def poll(self) -> int | None:
        """The exit code once the command has finished (its group is then killed), else None."""
        with self._lock:
            if not self.finished and _leader_exited(self.popen):
                self._finish()
            return self.code

    @property
    def running(self) -> bool:
        return self.poll() is None

    def read_new(self) -> tuple[str, str]:
        """(stdout, stderr) produced since the previous read."""
        final = self.finished and not any(reader.is_alive() for reader in self._readers)
        return self.stdout.take(final), self.stderr.take(final)

    def kill(self) -> int | None:
        """Kill the whole process group and reap it; nothing happens if it already finished."""
        with self._lock:
            if not self.finished:
                self._finish()
            return self.code


class LocalShell:
    """Runs commands with /bin/sh on this machine."""

    def run(self, command: str, cwd: str, timeout_s: float, max_output_bytes: int) -> dict:
        popen = _popen(command, cwd)
        out, err = _HeadTail(max_output_bytes), _HeadTail(max_output_bytes)
        sinks = {popen.stdout: out, popen.stderr: err}
        selector = selectors.DefaultSelector()
        for pipe in sinks:
            selector.register(pipe, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        timed_out = killed = False
        nap = 0.001
        try:
            while True:
                now = time.monotonic()
                if not killed:
                    timed_out = now >= deadline
                    if timed_out or _leader_exited(popen):
                        _kill_group(popen)  # on timeout, and leftovers of an exited shell
                        killed = True
                        deadline = time.monotonic() + DRAIN_GRACE_S
                        continue
                elif now >= deadline or not selector.get_map():
                    break  # drained, or a process that left the group still holds the pipes
                wait = max(0.0, min(_TICK_S, deadline - now))
                if not selector.get_map():  # both pipes closed; the shell is about to exit
                    time.sleep(min(nap, wait))
                    nap = min(nap * 2, _TICK_S)
                    continue
                for key, _ in selector.select(wait):
                    chunk = os.read(key.fd, _CHUNK)
                    if chunk:
                        sinks[key.fileobj].add(chunk)
                    else:
                        selector.unregister(key.fileobj)
        finally:
            selector.close()
            for pipe in sinks:
                pipe.close()
            if not killed:  # an exception escaped the loop: leave nothing running
                _kill_group(popen)
        return {
            "code": None if timed_out else popen.returncode,
            "stdout": out.text(),
            "stderr": err.text(),
            "timed_out": timed_out,
        }

    def spawn(self, command: str, cwd: str, max_buffer_bytes: int) -> Process:
        return Process(_popen(command, cwd), command, cwd, max_buffer_bytes)


DEFAULT_SHELL = LocalShell()


# --------------------------------------------------------------------------- the tools


def _shell(ctx: ToolContext) -> Any:
    return ctx.session.get("shell") or DEFAULT_SHELL


def _command(tool: str, command: object) -> str:
    if not isinstance(command, str):
        raise ToolError(f"{tool}: command must be a str, not {type(command).__name__}")
    if not command.strip():
        raise ToolError(f"{tool}: command is empty; give a shell command such as 'ls -la'")
    if "\x00" in command:
        raise ToolError(f"{tool}: command contains a NUL character")
    return command


def _directory(ctx: ToolContext, cwd: object) -> str:
    return workspace.os_directory(ctx, cwd)


def _timeout(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout):
        raise ToolError(f"run_command: timeout must be a number of seconds, not {timeout!r}")
    if timeout <= 0:
        raise ToolError(f"run_command: timeout must be positive, not {timeout!r}")
    return float(min(timeout, MAX_TIMEOUT_S))


def _setting(ctx: ToolContext, name: str, default: int) -> int:
    value = ctx.settings.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolError(f"the tool setting {name} must be a non-negative integer, not {value!r}")
    return value


def _start_error(tool: str, exc: OSError) -> ToolError:
    return ToolError(f"{tool}: could not start /bin/sh: {exc.strerror or exc}")


@uses_context
def run_command(ctx: ToolContext, command: str, timeout: float = DEFAULT_TIMEOUT_S, cwd: str = ".") -> dict:
    """Run a shell command to completion; return its exit code, output and whether it timed out."""
    command = _command("run_command", command)
    seconds = _timeout(timeout)
    real = _directory(ctx, cwd)
    limit = _setting(ctx, "command_output_bytes", DEFAULT_COMMAND_OUTPUT_BYTES)
    try:
        return _shell(ctx).run(command, real, seconds, limit)
    except OSError as exc:
        raise _start_error("run_command", exc) from None


def _processes(ctx_or_session: ToolContext | dict) -> dict[str, Any]:
    session = ctx_or_session.session if isinstance(ctx_or_session, ToolContext) else ctx_or_session
    return session.setdefault("processes", {})


def _lookup(ctx: ToolContext, tool: str, id: object) -> Any:
    processes = _processes(ctx)
    process = processes.get(id) if isinstance(id, str) else None
    if process is None:
        known = ", ".join(processes) if processes else "none; start one with start_process"
        raise ToolError(f"{tool}: no process {id!r} (known ids: {known})")
    return process


@uses_context
def start_process(ctx: ToolContext, command: str, cwd: str = ".") -> str:
    """Start a shell command in the background; return its id ("p1", "p2", ...)."""
    command = _command("start_process", command)
    real = _directory(ctx, cwd)
    limit = _setting(ctx, "process_buffer_bytes", DEFAULT_PROCESS_BUFFER_BYTES)
    most = _setting(ctx, "max_processes", DEFAULT_MAX_PROCESSES)
    processes = _processes(ctx)
    running = [pid for pid, process in list(processes.items()) if process.poll() is None]
    if len(running) >= most:
        raise ToolError(
            f"start_process: {len(running)} processes are already running ({', '.join(running)}); "
            "stop one with stop_process first"
        )
    counter = ctx.session.setdefault("process_ids", itertools.count(1))
    try:
        process = _shell(ctx).spawn(command, real, limit)
    except OSError as exc:
        raise _start_error("start_process", exc) from None
    id = f"p{next(counter)}"
    processes[id] = process
    return id


def _state(process: Any) -> dict:
    code = process.poll()
    stdout, stderr = process.read_new()
    return {"running": code is None, "code": code, "stdout": stdout, "stderr": stderr}


@uses_context
def poll_process(ctx: ToolContext, id: str) -> dict:
    """Whether a background process runs, its exit code, and the output since the last poll."""
    return _state(_lookup(ctx, "poll_process", id))


@uses_context
def stop_process(ctx: ToolContext, id: str) -> dict:
    """Kill a background process and everything it started; return its final state."""
    process = _lookup(ctx, "stop_process", id)
    process.kill()
    return _state(process)


@uses_context
def list_processes(ctx: ToolContext) -> list[dict]:
    """The session's background processes: id, command, running, code."""
    listed = []
    for id, process in list(_processes(ctx).items()):
        code = process.poll()
        listed.append({"id": id, "command": process.command, "running": code is None, "code": code})
    return listed


def stop_all(session: dict) -> int:
    """Kill every background process of a session (for service shutdown); return how many were running."""
    stopped = 0
    for process in list(session.get("processes", {}).values()):
        if process.poll() is None:
            stopped += 1
        process.kill()
    return stopped


# --------------------------------------------------------------------------- specs

_ID = ArgSpec("id", "str", 'A process id returned by start_process, such as "p1"')
_CWD = ArgSpec("cwd", "str", "Working directory, relative to the workspace", required=False, default=".")
_TAGS = ["shell", "process", "command"]

SPECS = [
    ToolSpec(
        name="run_command",
        provider="builtin",
        description=(
            "Run a shell command (/bin/sh -c) in the workspace and wait for it; returns "
            "{code, stdout, stderr, timed_out}. The timeout is capped at 600 s; output is truncated in the middle"
        ),
        args=[
            ArgSpec("command", "str", "Shell command line, e.g. 'pytest -q tests'"),
            ArgSpec("timeout", "float", "Seconds before the command and its children are killed (at most 600)", required=False, default=DEFAULT_TIMEOUT_S),
            _CWD,
        ],
        returns="dict",
        grade_w=3,
        effects_ceiling=3,
        docs="docs/tools/run_command.md",
        examples=['result = run_command("python -m pytest -q", timeout=300)\nresult["code"] == 0'],
        tags=_TAGS + ["run", "execute", "test", "build"],
    ),
    ToolSpec(
        name="start_process",
        provider="builtin",
        description="Start a shell command in the background (e.g. a server or a watcher); returns its id",
        args=[ArgSpec("command", "str", "Shell command line, e.g. 'python -m http.server 8000'"), _CWD],
        returns="str",
        grade_w=3,
        effects_ceiling=3,
        docs="docs/tools/start_process.md",
        examples=['server = start_process("python -m http.server 8000")\npoll_process(server)["running"]'],
        tags=_TAGS + ["background", "start", "server", "spawn"],
    ),
    ToolSpec(
        name="poll_process",
        provider="builtin",
        description="Check a background process: {running, code, stdout, stderr} with only the output since the last poll",
        args=[_ID],
        returns="dict",
        grade_w=3,
        effects_ceiling=1,
        docs="docs/tools/poll_process.md",
        examples=['state = poll_process("p1")\nstate["stdout"]'],
        tags=_TAGS + ["background", "poll", "status", "output"],
    ),
    ToolSpec(
        name="stop_process",
        provider="builtin",
        description="Kill a background process and everything it started; returns its final state",
        args=[_ID],
        returns="dict",
        grade_w=3,
        effects_ceiling=2,
        docs="docs/tools/stop_process.md",
        examples=['final = stop_process("p1")\nfinal["code"]'],
        tags=_TAGS + ["background", "stop", "kill"],
    ),
    ToolSpec(
        name="list_processes",
        provider="builtin",
        description="List this session's background processes: [{id, command, running, code}]",
        args=[],
        returns="list[dict]",
        grade_w=3,
        effects_ceiling=0,
        docs="docs/tools/list_processes.md",
        examples=['[p["id"] for p in list_processes() if p["running"]]'],
        tags=_TAGS + ["background", "list", "status"],
    ),
]

IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "run_command": run_command,
    "start_process": start_process,
    "poll_process": poll_process,
    "stop_process": stop_process,
    "list_processes": list_processes,
}
