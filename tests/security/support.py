"""Shared helpers for the adversarial suite: running programs, canaries and outcome checks."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any, Iterator

from lackpy import run_program
from lackpy.run import compiler
from lackpy.run.execute import Ending, execute, thread_deadline
from lackpy.run.limits import Limits
from lackpy.run.trace import Recorder

MODES = ("inprocess", "isolated")
SECRET = "CANARY-SECRET"
DEFAULT_TIMEOUT_S = 3
README = "# Demo\n\nStatus: draft\n"
TRIVIAL_PROGRAM = 'len(read_file("README.md"))'


def run(program: str, kit, mode: str = "isolated", params: dict | None = None, **limits: Any):
    """Run ``program`` with small limits (timeout 3 s unless given) in ``mode``."""
    merged = {"timeout_s": DEFAULT_TIMEOUT_S, **limits}
    return run_program(program, kit, params, limits=merged, mode=mode)


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def assert_refused(result, code: str) -> None:
    """The program was refused before running, first with diagnostic ``code``."""
    assert not result.success, result
    assert result.error_kind == "validation", result.error
    assert result.diagnostics, result.error
    assert result.diagnostics[0].code == code, [str(d) for d in result.diagnostics]
    assert result.trace == [] and result.files_read == [] and result.printed == ""


def assert_limit(result, limit: str, line: Any = ...) -> None:
    """The program was stopped by ``limit`` (and on ``line``, when given; None means no line)."""
    assert not result.success, result.output
    assert result.error_kind == "limit", (result.error_kind, result.error)
    assert result.limit == limit, result.error
    assert f"limit exceeded: {limit}" in result.error
    if line is not ...:
        assert result.error_line == line, result.error


def exposed_texts(result) -> Iterator[str]:
    """Every piece of text a result exposes to its caller."""
    yield repr(result.output)
    yield result.printed or ""
    yield result.error or ""
    yield repr(result.variables)
    yield result.diff or ""
    yield repr(result.files_read)
    for entry in result.trace:
        yield repr(entry.args)
        yield entry.result or ""
        yield entry.error or ""


def assert_no_secret(result) -> None:
    """The canary's content appears nowhere in the result."""
    for text in exposed_texts(result):
        assert SECRET not in text, text


class Canary:
    """The canary outside the workspace, snapshotted: content, mtime and what lies around it."""

    def __init__(self, path: Path, tmp_root: Path) -> None:
        self.path = path
        self.tmp_root = tmp_root
        self.content = path.read_bytes()
        self.mtime = os.stat(path).st_mtime_ns
        self.siblings = sorted(p.name for p in path.parent.iterdir())
        self.around = sorted(p.name for p in tmp_root.iterdir())

    def assert_untouched(self, *results) -> None:
        """Unchanged on disk, nothing created beside it, and its content in no result."""
        assert self.path.read_bytes() == self.content
        assert os.stat(self.path).st_mtime_ns == self.mtime
        assert sorted(p.name for p in self.path.parent.iterdir()) == self.siblings
        assert sorted(p.name for p in self.tmp_root.iterdir()) == self.around
        for result in results:
            assert_no_secret(result)


def assert_host_ok(kit, mode: str = "isolated") -> None:
    """A trivial program still runs afterwards: the host (and fork server) survived."""
    result = run(TRIVIAL_PROGRAM, kit, mode)
    assert result.success, result.error
    assert result.output == len(README)


def run_unvalidated(program: str, kit, mode: str, **limits: Any) -> Ending:
    """Second line of defence: compile with the guarded compiler only (NO validator) and run.

    The tools are the kit's, bound and traced exactly as ``run_program`` does;
    in isolated mode the program runs in a real worker with tool proxies.
    """
    code = compiler._compile(ast.parse(program), ())
    settings = Limits().merged({"timeout_s": DEFAULT_TIMEOUT_S, **limits})
    context = kit.context.fresh(staging=True, max_write_bytes=settings.max_write_bytes)
    recorder = Recorder(settings.max_tool_calls)
    tools = {alias: recorder.wrap(alias, fn, [a.name for a in kit.tools[alias].args]) for alias, fn in kit.bind(context).items()}
    if mode == "isolated":
        from lackpy.run.isolated import run_isolated

        outcome = run_isolated(code, tools, {}, settings)
    else:
        outcome = execute(code, tools, {}, settings, thread_deadline)
    assert not getattr(context.fs, "staged", None), "an unvalidated probe staged writes"
    return outcome


def compile_refusals(program: str) -> list[str]:
    """What RestrictedPython's transformer refuses in ``program`` (no validator), or []."""
    try:
        compiler._compile(ast.parse(program), ())
    except compiler._Refused as exc:
        return list(exc.args[0])
    return []
