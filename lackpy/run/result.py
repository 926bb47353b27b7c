"""ExecutionResult: what a run returns, in Python and as JSON.

Built once, when the run is over, and frozen: ``to_dict()`` and
``ExecutionResult.json_schema()`` come from the same fields, so the CLI's
``--json``, the Python API and MCP's structured output have one shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lackpy.errors import ErrorKind
from lackpy.lang.diagnostics import Diagnostic
from lackpy.lang.grade import Grade
from lackpy.approvals.decision import Decision
from lackpy.run.trace import HeldCall, TraceEntry
from lackpy.schema import Contract, to_jsonable

_PRIVATE = {"json": False}


@dataclass(frozen=True)
class ExecutionResult(Contract):
    """The outcome of one program run.

    ``output`` is the value of the last expression; ``printed`` the text the
    program printed; ``error`` names the line, the exception type and its
    message when ``success`` is false, and ``error_kind`` says which kind of
    failure it was (an ``ErrorKind``: ``validation`` with ``diagnostics``,
    ``param``, ``argument``, ``tool``, ``guard``, ``runtime``, ``limit`` with
    ``limit`` and ``limit_value``, ``cancelled``, ``denied``, ``conflict``,
    ``commit`` or ``crash``). ``complete`` says whether the program ran to its
    end; a run that did not returns what it had done (``trace``, ``printed``,
    ``assigned``) and never writes anything.
    Writes are committed only on success and listed in ``files_created``,
    ``files_modified`` and ``files_deleted``; a dry run lists them and puts
    their unified ``diff`` here instead, and lists in ``held_back`` the calls
    it did not make (what lackpy cannot stage: commands, processes, remote
    tools that change things).
    """

    success: bool
    complete: bool = False
    """Whether the program ran to its end. A run stopped before it (a limit, a cancel, a failing tool, an error; or never
    started) is not complete: ``output`` is then no answer, and what it had done is in ``trace``, ``printed`` and ``assigned``.
    A complete run can still fail after its end (its writes denied or in conflict): ``output`` is then whole, and nothing was written."""
    output: Any = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    error_line: int | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    trace: Sequence[TraceEntry] = field(default_factory=list)
    """One entry per tool call, in order (a ``Trace``, whose entries are made when first looked at)."""
    limit: str | None = None
    limit_value: Any = None
    files_read: list[str] = field(default_factory=list)
    files_created: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    files_deleted: list[str] = field(default_factory=list)
    dry_run: bool = False
    diff: str | None = None
    held_back: list[HeldCall] = field(default_factory=list)
    """The calls a dry run did not make, in order: refused as ``denied``, or answered with the tool's placeholder."""
    mode: str | None = None
    grade: Grade | None = None
    """The kit's grade: the highest of all its tools."""
    program_grade: Grade | None = None
    """The program's own grade: the highest of the tools it can call, known before it runs."""
    risk: str | None = None
    """The program grade's rung of the trust ladder: safe, sensitive or critical."""
    printed: str = ""
    output_truncated: bool = False
    printed_truncated: bool = False
    duration_ms: float = 0.0
    notices: list[str] = field(default_factory=list)
    """What lackpy wants the user to know about this workspace (e.g. what an untrusted one did not get)."""
    session: str | None = None
    """The session the run belongs to (its checklist, processes and kept variables), if any."""
    kept: list[str] = field(default_factory=list)
    """The variables the session keeps for its next run (runs with ``keep``)."""
    not_kept: dict[str, str] = field(default_factory=dict)
    """Variables of a ``keep`` run that the session did not keep, each with the reason."""
    decisions: list[Decision] = field(default_factory=list)
    """Every approval asked for and its decision, in order (program, calls, commit, a server's questions)."""
    assigned: dict[str, Any] = field(default_factory=dict)
    """A run that was not complete: the names it had assigned when it stopped and their values (plain data, bounded;
    a value too large or not plain data is in ``assigned_cut`` instead). Empty for a complete run, whose answer is ``output``."""
    assigned_cut: dict[str, str] = field(default_factory=dict)
    """Names of ``assigned`` whose values are not returned whole, each with a bounded description of its value."""
    variables: dict[str, Any] = field(default_factory=dict, metadata=_PRIVATE)
    limits: Any = field(default=None, metadata=_PRIVATE)
    clock: tuple[float, float] | None = field(default=None, metadata=_PRIVATE)
    """When the run began and when its checks (validation, parameters, ceiling) ended, as ``time.perf_counter()``
    readings: where a tracer places the run's validation span (``lackpy.mcp.tracing``); never in the JSON."""


__all__ = ["ExecutionResult", "to_jsonable"]
