"""A run's settings travel as one frozen object; the keyword form builds it; the run path stays in short steps."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
from pathlib import Path

import pytest

import lackpy
from lackpy import Cancel, Toolbox, resolve_kit, run_program
from lackpy.kit.call import ASKING, DEADLINE, PROGRESS, RESULT_BUDGET
from lackpy.plugins import populate
from lackpy.run import compiler
from lackpy.run.runner import run_with
from lackpy.run.settings import RunSettings

ROOT = Path(lackpy.__file__).parent


@pytest.fixture
def kit(workspace: Path):
    box = Toolbox(str(workspace))
    populate(box)
    return resolve_kit(["read_file", "write_file", "find_files"], box)


def test_settings_are_frozen(kit):
    """A run cannot change the settings it was given (a delegate runs several programs with one)."""
    settings = RunSettings(kit, {"n": 1}, mode="inprocess")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.mode = "isolated"  # type: ignore[misc]
    assert settings.mode == "inprocess" and settings.dry_run is False and settings.sandbox is True


def test_keyword_form_and_settings_form_agree(kit):
    """run_program(program, kit, params, **settings) is run_with(program, RunSettings(kit, params, **settings))."""
    program = "text = read_file('README.md')\nlen(text) + n\n"
    by_keywords = run_program(program, kit, {"n": 2}, mode="inprocess", notices=["note"])
    by_settings = run_with(program, RunSettings(kit, {"n": 2}, mode="inprocess", notices=["note"]))
    for result in (by_keywords, by_settings):
        assert result.success, result.error
        assert result.output == len("# Demo\n\nStatus: draft\n") + 2
        assert [entry.tool for entry in result.trace] == ["read_file"]
        assert result.files_read == ["README.md"] and result.notices == ["note"] and result.mode == "inprocess"


def test_an_unknown_setting_is_refused_by_name(kit):
    """A misspelt keyword is a TypeError that names it, as before the settings were one object."""
    with pytest.raises(TypeError, match="moed"):
        run_program("1\n", kit, moed="inprocess")


def test_one_settings_runs_several_programs_each_on_its_own(kit, workspace: Path):
    """Two dry runs with one settings: each holds its own writes, and nothing reaches the workspace."""
    settings = RunSettings(kit, mode="inprocess", dry_run=True)
    first = run_with("write_file('a.txt', 'one')\n", settings)
    second = run_with("write_file('b.txt', 'two')\n", settings)
    assert first.success and second.success
    assert first.files_created == ["a.txt"] and second.files_created == ["b.txt"]
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()


def test_context_variables_are_reset_after_every_run(kit):
    """DEADLINE, PROGRESS, RESULT_BUDGET and ASKING are back to what they were after a run that succeeds, fails or is cancelled."""
    seen = lambda: (DEADLINE.get(None), PROGRESS.get(None), RESULT_BUDGET.get(None), ASKING.get(None))  # noqa: E731
    before = seen()
    heard: list[dict] = []
    settings = RunSettings(kit, mode="inprocess", on_progress=heard.append)
    assert run_with("find_files('*.md')\n", settings).success
    assert seen() == before
    failed = run_with("1 / 0\n", settings)
    assert not failed.success and failed.error_kind == "runtime"
    assert seen() == before
    cancel = Cancel()
    cancel.cancel()
    stopped = run_with("find_files('*.md')\n", settings, cancel)
    assert (stopped.success, stopped.complete, stopped.error_kind, stopped.trace) == (False, False, "cancelled", [])
    assert seen() == before


def _lengths(path: Path, names: set[str] | None = None) -> dict[str, int]:
    tree = ast.parse(path.read_text())
    return {
        node.name: node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (names is None or node.name in names)
    }


def test_no_function_of_lackpy_is_over_80_lines():
    """Short functions with one job: none in the package is over 80 lines (the runner's and the service's run path included)."""
    lengths = {f"{path.relative_to(ROOT)}:{name}": n for path in sorted(ROOT.rglob("*.py")) for name, n in _lengths(path).items()}
    assert "run/runner.py:run_with" in lengths and "service/__init__.py:run_program" in lengths  # the walk sees them (so an empty one cannot pass)
    assert {name: n for name, n in lengths.items() if n > 80} == {}


def test_the_service_facade_stays_under_500_lines():
    """The facade the CLI, the MCP server and the Python API share delegates: its work lives in the modules of ``lackpy/service/``."""
    facade = ROOT / "service" / "__init__.py"
    lines = len(facade.read_text(encoding="utf-8").splitlines())
    assert "async def run_program(" in facade.read_text(encoding="utf-8")  # the facade is this file (so a moved one cannot pass)
    assert lines < 500, f"lackpy/service/__init__.py has {lines} lines; move a cohesive group of its work into a module of lackpy/service/"


def test_the_service_validates_a_program_once_per_call(workspace: Path):
    """The service checks a program before queuing its run; the run's own check is a hit in prepare's cache, not a second validation."""
    program = f"# {workspace}\nlen(find_files('**/*.md'))\n"  # a text no other test prepares
    before = compiler._prepare_cached.cache_info()
    result = asyncio.run(lackpy.LackpyService(workspace).run_program(program, "readonly"))
    after = compiler._prepare_cached.cache_info()
    assert result.success and result.output == 1, result.error
    assert result.mode == "isolated"  # the path that checks before queuing
    assert after.misses - before.misses == 1 and after.hits - before.hits >= 1


def test_an_isolated_run_cancelled_from_another_thread_ends_cancelled_and_writes_nothing(kit, workspace: Path):
    """Cancelling stops the worker, whether the program runs there or a tool runs here; the run ends as cancelled with what it did, never a crash."""
    import threading

    spin = "x = 0\nfor i in range(9000000):\n    for j in range(9000000):\n        x = x + 1\nx"
    for program in (spin, "write_file('never.txt', 'x')\n" + spin):
        cancel = Cancel()
        threading.Timer(0.4, cancel.cancel).start()
        result = run_with(program, RunSettings(kit, limits={"timeout_s": 30}), cancel)
        assert (result.success, result.complete, result.error_kind) == (False, False, "cancelled")
        assert result.assigned["x"] > 0 and result.files_created == []
    assert not (workspace / "never.txt").exists()
    assert run_with("1 + 1", RunSettings(kit)).output == 2  # the fork server and its locks are as they were

