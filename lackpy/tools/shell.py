"""Shell commands and background processes: run_command and the *_process tools.

They run through a shell backend, ``LocalShell`` (``lackpy.host.local_shell``)
unless a session holds another under ``ctx.state["shell"]`` (anything with
``run`` and ``spawn``, e.g. a sandboxed one or a fake in tests). Background
processes live in ``ctx.state["processes"]`` (id -> Process), so every run
of one service instance sees them and ``stop_all(session)`` ends them at
shutdown. ``run_command`` never leaves processes behind: use ``start_process``
for anything meant to keep running. On Linux "a command" means everything it
started, ``setsid`` and double-forked processes included (``LocalShell`` runs
each command under a supervisor that tracks them); elsewhere, its process group.

Commands touch the real disk: writes they make are not staged with the run's
file edits, and they do not see the run's staged (uncommitted) writes.

Through ``LocalShell`` they run confined where the kernel has Landlock
(``lackpy.host.confine``): they read the system but not the ``[tools] deny``
paths, write only in the workspace (never in its ``.lackpy/``) and a private
TMPDIR, reach no network unless ``[tools] command_network = true``, and
cannot signal their supervisor, lackpy, or any process they did not start.
They get a small environment (``confine.command_env``: PATH, HOME, LANG,
LC_*, TERM, TZ, USER, SHELL, TMPDIR, and the names ``[tools] command_env``
lists), never lackpy's secrets. Where the kernel cannot confine
them, run_command's result and poll_process/stop_process's state carry
``"unconfined": why`` (the key is absent when confined, so existing keys and
results are unchanged), and ``"hard_links": what`` where lackpy could not
check every other name of a denied file (``confine.find_holes``); where
confining fails, the command does not run.
"""

from __future__ import annotations

import itertools
import math
import os
from typing import Any, Callable

from lackpy.errors import LackpyError, ToolError, resource_error
from lackpy.host import confine
from lackpy.host.confine import ConfinementError
from lackpy.host.local_shell import DEFAULT_SHELL, LocalShell, Process
from lackpy.kit.call import PROGRESS, Listener, progress
from lackpy.kit.context import ToolContext
from lackpy.tools import shipped, workspace

__all__ = ["DEFAULT_SHELL", "LocalShell", "Process", "TOOLS", "stop_all"]

MAX_TIMEOUT_S = 600.0
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_COMMAND_OUTPUT_BYTES = 64 * 1024
DEFAULT_PROCESS_BUFFER_BYTES = 256 * 1024
DEFAULT_MAX_PROCESSES = 16
# --------------------------------------------------------------------------- the tools


def _shell(ctx: ToolContext) -> Any:
    return ctx.state.get("shell") or DEFAULT_SHELL


def _confined(ctx: ToolContext, shell: Any) -> dict:
    """The confinement argument for the local backend; another backend (a session's own) confines as it does."""
    return {"confinement": _confinement(ctx)} if isinstance(shell, LocalShell) else {}


def _flag(ctx: ToolContext, name: str) -> bool:
    value = ctx.settings.get(name, False)
    if not isinstance(value, bool):
        raise ToolError(f"the tool setting {name} must be true or false (unquoted in .lackpy/config.toml), not {value!r}")
    return value


def _env_names(ctx: ToolContext) -> tuple[str, ...]:
    """``[tools] command_env``: the names of lackpy's environment variables commands get besides the few they all get."""
    names = ctx.settings.get("command_env", [])
    problem = confine.env_names_problem(names)
    if problem:
        raise ToolError(f"the tool setting command_env {problem}")
    return tuple(names)


def _confinement(ctx: ToolContext) -> confine.Confinement:
    """The confinement the context's settings ask for: ``deny``, ``command_network``, ``require_command_confinement``, ``command_env``."""
    deny = ctx.settings.get("deny") or ()
    if isinstance(deny, str) or not all(isinstance(p, str) for p in deny):
        raise ToolError(f"the tool setting deny must be a list of patterns such as \"secrets/\", not {deny!r}")
    return confine.Confinement(
        root=os.path.realpath(ctx.root),
        deny=tuple(deny),
        network=_flag(ctx, "command_network"),
        required=_flag(ctx, "require_command_confinement"),
        env=_env_names(ctx),
        readonly=tuple(ctx.protected),
    )


def _command(tool: str, command: str) -> str:
    if not command.strip():
        raise ToolError(f"{tool}: command is empty; give a shell command such as 'ls -la'")
    if "\x00" in command:
        raise ToolError(f"{tool}: command contains a NUL character")
    return command


def _directory(ctx: ToolContext, cwd: object) -> str:
    return workspace.os_directory(ctx, cwd)


def _timeout(timeout: float) -> float:
    if math.isnan(timeout) or timeout <= 0:
        raise ToolError(f"run_command: timeout must be positive, not {timeout!r}")
    return float(min(timeout, MAX_TIMEOUT_S))


def _setting(ctx: ToolContext, name: str, default: int) -> int:
    value = ctx.settings.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolError(f"the tool setting {name} must be a non-negative integer, not {value!r}")
    return value


def _start_error(tool: str, exc: OSError) -> LackpyError:
    """Why ``tool`` could not start its command: the machine ran out of something (kind ``resources``), or another failure."""
    return resource_error(exc, f"{tool}: could not start /bin/sh", processes=True) or ToolError(f"{tool}: could not start /bin/sh: {exc.strerror or exc}")


_TAGS = ["shell", "process", "command"]


@shipped(
    grade=(3, 3),
    docs="docs/tools/run_command.md",
    examples=['result = run_command("python -m pytest -q", timeout=300)\nresult["code"] == 0'],
    tags=_TAGS + ["run", "execute", "exec", "terminal", "bash", "script", "cli", "test", "build"],
    category="development/execution",
    approval="call",
    dry_run="refuse",
)
def run_command(ctx: ToolContext, command: str, timeout: float = DEFAULT_TIMEOUT_S, cwd: str = ".") -> dict:
    """Run a shell command (/bin/sh -c) in the workspace and wait for it; returns {code, stdout, stderr, timed_out}. The timeout is capped at 600 s; output is truncated in the middle.

    Args:
        command: Shell command line, e.g. 'pytest -q tests'.
        timeout: Seconds before the command and everything it started are killed (at most 600).
        cwd: Working directory, relative to the workspace.
    """
    command = _command("run_command", command)
    seconds = _timeout(timeout)
    real = _directory(ctx, cwd)
    limit = _setting(ctx, "command_output_bytes", DEFAULT_COMMAND_OUTPUT_BYTES)
    shell = _shell(ctx)
    options = _confined(ctx, shell)
    if PROGRESS.get() is not None and isinstance(shell, LocalShell):
        options["on_output"] = _streamed
    try:
        return shell.run(command, real, seconds, limit, **options)
    except ConfinementError as exc:
        raise ToolError(f"run_command: {exc}") from None
    except OSError as exc:
        raise _start_error("run_command", exc) from None


def _streamed(stream: str, text: str) -> None:
    """A running command's new output, as progress of the call (``lackpy.progress``); it never enters the result."""
    progress(text if stream == "stdout" else f"[stderr] {text}")


#: The mark ``stop_all`` leaves on a session's state: no process of it may run any more.
CLOSED = "processes_closed"


def _processes(ctx_or_state: ToolContext | dict) -> dict[str, Any]:
    state = ctx_or_state.state if isinstance(ctx_or_state, ToolContext) else ctx_or_state
    return state.setdefault("processes", {})


def _lookup(ctx: ToolContext, tool: str, id: object) -> Any:
    processes = _processes(ctx)
    process = processes.get(id) if isinstance(id, str) else None
    if process is None:
        known = ", ".join(processes) if processes else "none; start one with start_process"
        raise ToolError(f"{tool}: no process {id!r} (known ids: {known})")
    return process


@shipped(
    grade=(3, 3),
    docs="docs/tools/start_process.md",
    examples=['tests = start_process("python -m pytest -q")\npoll_process(tests)["running"]'],
    tags=_TAGS + ["background", "start", "server", "spawn", "launch", "daemon", "service", "watch"],
    category="development/execution",
    approval="call",
    dry_run="refuse",
)
def start_process(ctx: ToolContext, command: str, cwd: str = ".") -> str:
    """Start a shell command in the background (e.g. a server or a watcher); returns its id.

    Args:
        command: Shell command line, e.g. 'python -m pytest -q'.
        cwd: Working directory, relative to the workspace.
    """
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
    server_room = ctx.state.get("process_room")
    if server_room is not None:
        server_room()  # a server's bound on every session's processes together (lackpy.session); raises ToolError
    counter = ctx.state.setdefault("process_ids", itertools.count(1))
    if ctx.state.get(CLOSED):
        raise ToolError("start_process: the session is closed; nothing was started")
    shell = _shell(ctx)
    id = f"p{next(counter)}"
    options = _confined(ctx, shell)
    listening = PROGRESS.get()
    if isinstance(listening, Listener) and isinstance(shell, LocalShell):
        options.update(on_output=_reporter(listening, id), watcher=listening)
    try:
        process = shell.spawn(command, real, limit, **options)
    except ConfinementError as exc:
        raise ToolError(f"start_process: {exc}") from None
    except OSError as exc:
        raise _start_error("start_process", exc) from None
    processes[id] = process
    if ctx.state.get(CLOSED):  # the session closed while it started: stop_all may have missed it
        process.kill()
        raise ToolError("start_process: the session closed while the process started; it was stopped")
    if "on_output" in options:
        listening.closing(lambda: process.unwatch(by=listening))
    return id


def _reporter(listening: Listener, id: str) -> Callable[[str, str], None]:
    """A background process's new output as progress of the run, named ``start_process`` and marked ``[id]``."""

    def report(stream: str, text: str) -> None:
        mark = f"[{id} stderr]" if stream == "stderr" else f"[{id}]"
        listening({"event": "progress", "tool": "start_process", "progress": None, "total": None, "message": f"{mark} {text}"})

    return report


def _watched(process: Any, id: str) -> None:
    """While this run goes on, ``process``'s new output is progress of the run too (``poll_process`` still returns all of it).

    When the run ends, what the watcher holds is passed on and it falls
    silent; a later run's ``poll_process`` watches again, for that run.
    """
    listening = PROGRESS.get()
    if isinstance(listening, Listener) and isinstance(process, Process) and process.watch(_reporter(listening, id), by=listening):
        listening.closing(lambda: process.unwatch(by=listening))


def _state(process: Any) -> dict:
    code = process.poll()
    stdout, stderr = process.read_new()
    state = {"running": code is None, "code": code, "stdout": stdout, "stderr": stderr}
    state.update(getattr(process, "notes", None) or {})
    return state


@shipped(
    grade=(3, 1),
    docs="docs/tools/poll_process.md",
    examples=['state = poll_process("p1")\nstate["stdout"]'],
    tags=_TAGS + ["background", "poll", "status", "output", "check", "logs"],
    category="development/execution",
    dry_run="refuse",
)
def poll_process(ctx: ToolContext, id: str) -> dict:
    """Check a background process: {running, code, stdout, stderr} with only the output since the last poll.

    Args:
        id: A process id returned by start_process, such as "p1".
    """
    process = _lookup(ctx, "poll_process", id)
    _watched(process, id)
    return _state(process)


@shipped(
    grade=(3, 2),
    docs="docs/tools/stop_process.md",
    examples=['final = stop_process("p1")\nfinal["code"]'],
    tags=_TAGS + ["background", "stop", "kill", "terminate", "end"],
    category="development/execution",
    dry_run="refuse",
)
def stop_process(ctx: ToolContext, id: str) -> dict:
    """Kill a background process and everything it started; returns its final state.

    Args:
        id: A process id returned by start_process, such as "p1".
    """
    process = _lookup(ctx, "stop_process", id)
    process.kill()
    return _state(process)


@shipped(
    grade=(3, 0),
    docs="docs/tools/list_processes.md",
    examples=['[p["id"] for p in list_processes() if p["running"]]'],
    tags=_TAGS + ["background", "list", "status", "running", "jobs"],
    category="development/execution",
)
def list_processes(ctx: ToolContext) -> list[dict]:
    """List this session's background processes: [{id, command, running, code}]."""
    listed = []
    for id, process in list(_processes(ctx).items()):
        code = process.poll()
        listed.append({"id": id, "command": process.command, "running": code is None, "code": code})
    return listed


def stop_all(state: dict) -> int:
    """Kill every background process of a session's tool ``state`` and all they started (for shutdown); return how many were running.

    The state is marked closed first, so a ``start_process`` that spawns
    meanwhile on another thread stops its process itself (it registers, then looks).
    """
    state[CLOSED] = True
    stopped = 0
    for process in list(state.get("processes", {}).values()):
        if process.poll() is None:
            stopped += 1
        process.kill()
    return stopped


TOOLS = [run_command, start_process, poll_process, stop_process, list_processes]
