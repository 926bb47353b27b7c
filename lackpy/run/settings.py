"""A run's settings: everything a run of a program needs besides the program and its cancel handle.

The service settles them once per call (kit, parameters, checks, limits,
mode, session state, who hears events, ceiling, guardrails, gatekeeper) and
hands them to the runner as one object, so no layer passes them on as a
row of keywords. The program text and the ``Cancel`` stay arguments: they
belong to one run, and a delegate runs several programs with one settings.

A module of its own, below the runner, so that the service and the tests
name the settings without importing the machinery that runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:
    from lackpy.kit.context import ToolContext
    from lackpy.kit.resolve import ResolvedKit
    from lackpy.lang.grade import Grade
    from lackpy.lang.validator import Check
    from lackpy.approvals.gatekeeper import Gatekeeper
    from lackpy.approvals.request import SkillOrigin
    from lackpy.run.limits import Limits

#: What hears a run's events: ``{"event": "tool", ...}`` and ``{"event": "progress", ...}`` (``lackpy.run.scheduler``).
OnEvent = Callable[[dict], None]


@dataclass(frozen=True)
class RunSettings:
    """How to run programs with ``kit``'s tools (see ``lackpy.run.runner.run_with``).

    ``params`` are the program's variables; ``checks`` the custom checks it
    must pass. ``limits`` add to the configured and the kit's (a ``Limits``
    is taken as it is). ``mode`` is where the program executes (``isolated``
    or ``inprocess``); with ``dry_run`` the writes come back as a diff;
    ``sandbox`` confines an isolated worker. ``notices`` are read when the
    result is made, so notices added during the run are in it. ``context``
    is the caller's tool context (a fresh staging one when None);
    ``state`` the session state the tools keep between runs (the
    toolbox's own when None). ``on_call(tool, calls, (read, written))`` hears
    of every tool call when it returns, with the bytes the run's tools have
    read and written so far; ``on_progress(event)`` what a tool reports while
    it works. A program whose own grade is above ``ceiling`` is refused.
    ``guardrails`` is the (before, after) pair of hook callers every tool
    call goes through; ``gatekeeper`` the one that asks a person at
    the program, call and commit gates (a run takes its own copy).
    """

    kit: ResolvedKit
    params: Mapping[str, Any] | None = None
    checks: Sequence[Check] = ()
    context: ToolContext | None = None
    limits: Limits | Mapping[str, Any] | None = None
    mode: str = "isolated"
    dry_run: bool = False
    sandbox: bool = True
    notices: Sequence[str] = ()
    state: dict | None = None
    on_call: Callable[[str, int, tuple[int, int]], None] | None = None
    on_progress: OnEvent | None = None
    ceiling: Grade | None = None
    guardrails: tuple[Any, Any] | None = None
    gatekeeper: Gatekeeper | None = None
    skill: Any = None
    """The skill the program runs with (``lackpy.skills``): ``skill_file`` reads its folder."""
    origin: SkillOrigin | None = None
    """Where the skill came from when another MCP server serves it: then a person approves the program first (the
    ``skill`` gate, always asked; with no gatekeeper, nobody is asked and it is denied)."""
    session_worker: Any = None
    """The worker a session keeps between its isolated runs (``lackpy.run.isolated.SessionWorker``); None: a fresh worker per run."""
