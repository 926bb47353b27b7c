"""Shell commands and background processes: run_command and the *_process tools.

They run through a shell backend, ``LocalShell`` (``lackpy.tools.local_shell``)
unless a session holds another under ``ctx.session["shell"]`` (anything with
``run`` and ``spawn``, e.g. a sandboxed one or a fake in tests). Background
processes live in ``ctx.session["processes"]`` (id -> Process), so every run
of one service instance sees them and ``stop_all(session)`` ends them at
shutdown. ``run_command`` never leaves processes behind: use ``start_process``
for anything meant to keep running.

Commands touch the real disk: writes they make are not staged with the run's
file edits, and they do not see the run's staged (uncommitted) writes.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.tools import workspace
from lackpy.tools.local_shell import DEFAULT_SHELL, LocalShell, Process

__all__ = ["DEFAULT_SHELL", "IMPLEMENTATIONS", "LocalShell", "Process", "SPECS", "stop_all"]

MAX_TIMEOUT_S = 600.0
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_COMMAND_OUTPUT_BYTES = 64 * 1024
DEFAULT_PROCESS_BUFFER_BYTES = 256 * 1024
DEFAULT_MAX_PROCESSES = 16
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
