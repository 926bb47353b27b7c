"""One failure, one result: every way a run can fail gives the same kind, text and exit status in both modes."""

from __future__ import annotations

import asyncio
import time

import pytest

from lackpy import LackpyService, tool
from lackpy.cli import exit_status
from lackpy.errors import (
    ArgumentError,
    CommitError,
    ConflictError,
    DeniedError,
    DocsError,
    ErrorKind,
    GuardError,
    KitError,
    LackpyError,
    LimitExceeded,
    ParamError,
    PathError,
    ToolError,
)

MODES = ["inprocess", "isolated"]


def raiser(error: BaseException):
    @tool(name="fail", grade=(0, 0))
    def fail(x: int = 0) -> str:
        """Raise the error under test."""
        raise error

    return fail


@tool(grade=(0, 0))
def echo(text: str, times: int = 1) -> str:
    """Repeat a text.

    Args:
        text: What to repeat.
        times: How often.
    """
    return text * times


@tool(grade=(0, 0))
async def later(text: str, delay: float = 0.0) -> str:
    """Answer after a delay, as an async tool."""
    await asyncio.sleep(delay)
    return text.upper()


@tool(grade=(0, 0))
def stubborn(seconds: float) -> str:
    """Keep working for ``seconds`` whatever happens, swallowing every Exception."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            time.sleep(0.01)
        except Exception:  # what a careless tool does; the deadline must get through anyway
            pass
    return "finished"


ERRORS = [
    pytest.param(ParamError("bad parameter"), "param", id="ParamError"),
    pytest.param(PathError("no such file: x"), "tool", id="PathError"),
    pytest.param(ToolError("it broke"), "tool", id="ToolError"),
    pytest.param(ArgumentError("fail: argument 'x' expects an int"), "argument", id="ArgumentError"),
    pytest.param(ConflictError("a.txt changed on disk"), "conflict", id="ConflictError"),
    pytest.param(CommitError("disk full"), "commit", id="CommitError"),
    pytest.param(KitError("no kit"), "kit", id="KitError"),
    pytest.param(DocsError("no docs"), "docs", id="DocsError"),
    pytest.param(GuardError("refused"), "guard", id="GuardError"),
    pytest.param(DeniedError("a person said no"), "denied", id="DeniedError"),
    pytest.param(LimitExceeded("max_items", 5, "too many"), "limit", id="LimitExceeded"),
    pytest.param(ValueError("plain Python error"), "tool", id="ValueError"),
    pytest.param(KeyError("missing"), "tool", id="KeyError"),
]


@pytest.fixture
def service(tmp_path):
    svc = LackpyService(tmp_path, approve=True)
    svc.toolbox.register(echo)
    svc.toolbox.register(later)
    svc.toolbox.register(stubborn)
    yield svc
    svc.close()


def run_both(svc: LackpyService, program: str, kit, **options):
    return {mode: asyncio.run(svc.run_program(program, kit, mode=mode, **options)) for mode in MODES}


def same(results: dict) -> tuple:
    inprocess, isolated = results["inprocess"], results["isolated"]
    fields = lambda r: (r.success, r.error_kind, r.error, r.error_line, r.limit, exit_status(r))  # noqa: E731
    assert fields(inprocess) == fields(isolated), (inprocess.error, isolated.error)
    return fields(inprocess)


@pytest.mark.parametrize("error, kind", ERRORS)
def test_a_tool_raising_any_error_gives_one_result_in_both_modes(service, error, kind):
    service.toolbox.register(raiser(error))
    success, error_kind, message, line, _, status = same(run_both(service, "x = 1\nfail()", ["fail"]))
    assert (success, error_kind, line, status) == (False, kind, 2, 1)
    assert isinstance(error_kind, ErrorKind)
    if kind == "limit":
        assert message == "line 2: limit exceeded: max_items: too many"
    else:
        assert message.startswith(f"line 2: {type(error).__name__} in fail: ")


PROGRAM_FAILURES = [
    pytest.param('echo(3)', "argument", "line 1: ArgumentError in echo: echo: argument 'text' expects a str, got 3 (int)", id="wrong-type"),
    pytest.param('echo()', "argument", "line 1: ArgumentError in echo: echo: missing required argument 'text'; call it as echo(text: str, times: int = 1)", id="missing"),
    pytest.param('echo("a", colour=1)', "argument", "line 1: ArgumentError in echo: echo: unknown argument 'colour'; its arguments are text, times", id="unknown-keyword"),
    pytest.param('echo("a", True)', "argument", "line 1: ArgumentError in echo: echo: argument 'times' expects an int, got True (bool)", id="bool-for-int"),
    pytest.param('echo("a", 1, 2)', "argument", "line 1: ArgumentError in echo: echo: takes at most 2 positional arguments, got 3; call it as echo(text: str, times: int = 1)", id="too-many"),
    pytest.param('x = 0\n1 / x', "runtime", "line 2: ZeroDivisionError: division by zero", id="runtime"),
    pytest.param('{"a": 1}["b"]', "runtime", "line 1: KeyError: 'b'", id="key-error"),
    pytest.param('[echo("a") for i in range(5)]', "limit", "line 1: limit exceeded: max_tool_calls: made more than 3 tool calls", id="tool-calls"),
    pytest.param('x = []\nfor i in range(300):\n    x = [x]\nx', "limit", "limit exceeded: recursion: the result is nested more than 200 levels deep; return flatter data", id="deep-result"),
]


@pytest.mark.parametrize("program, kind, message", PROGRAM_FAILURES)
def test_a_program_failure_gives_one_result_in_both_modes(service, program, kind, message):
    results = run_both(service, program, ["echo"], limits={"max_tool_calls": 3})
    success, error_kind, error, _, _, status = same(results)
    assert (success, error_kind, error, status) == (False, kind, message, 1)


def test_a_tool_with_a_wrong_argument_never_runs(service):
    calls = []

    @tool(grade=(0, 0))
    def record(n: int) -> int:
        """Record a call."""
        calls.append(n)
        return n

    service.toolbox.register(record)
    results = run_both(service, 'record("seven")', ["record"])
    same(results)
    assert calls == [] and results["isolated"].trace[0].success is False


def test_a_conflict_on_commit_has_the_same_kind_in_both_modes(service, tmp_path):
    (tmp_path / "a.txt").write_text("old\n")

    @tool(grade=(0, 0))
    def meddle() -> str:
        """Change a.txt behind the program's back."""
        (tmp_path / "a.txt").write_text("someone else\n")
        return "done"

    service.toolbox.register(meddle)
    for mode in MODES:
        (tmp_path / "a.txt").write_text("old\n")
        result = asyncio.run(service.run_program('t = read_file("a.txt")\nwrite_file("a.txt", "mine\\n")\nmeddle()', ["read_file", "write_file", "meddle"], mode=mode))
        assert (result.success, result.error_kind, exit_status(result)) == (False, "conflict", 1), mode
        assert (tmp_path / "a.txt").read_text() == "someone else\n"


def test_a_nested_result_is_a_limit_and_one_json_document(service):
    """200,000 levels deep: a limit in both modes, never a RecursionError."""
    results = run_both(service, "x = []\nfor i in range(200000):\n    x = [x]\nx", "none")
    _, kind, _, _, limit, _ = same(results)
    assert (kind, limit) == ("limit", "recursion")
    for result in results.values():
        assert result.to_dict()["error_kind"] == "limit"


@pytest.mark.parametrize("mode", MODES)
def test_an_async_tool_is_awaited(service, mode):
    result = asyncio.run(service.run_program('later("hi")', ["later"], mode=mode))
    assert (result.success, result.output) == (True, "HI")


@pytest.mark.parametrize("mode", MODES)
def test_an_async_tool_past_the_deadline_is_a_timeout(service, mode):
    started = time.monotonic()
    result = asyncio.run(service.run_program('later("hi", 5.0)', ["later"], mode=mode, limits={"timeout_s": 0.5}))
    assert (result.success, result.error_kind, result.limit) == (False, "limit", "timeout")
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_cannot_swallow_the_deadline(service, mode):
    """A tool catching Exception around its work still stops at the deadline (it used to run on and succeed)."""
    started = time.monotonic()
    result = asyncio.run(service.run_program("stubborn(1.9)", ["stubborn"], mode=mode, limits={"timeout_s": 0.5}))
    elapsed = time.monotonic() - started
    assert (result.success, result.error_kind, result.limit) == (False, "limit", "timeout")
    assert elapsed < 1.5


def test_the_deadline_is_not_an_exception_a_tool_catches():
    from lackpy.run.execute import DeadlineReached

    assert not issubclass(DeadlineReached, Exception)


def test_every_error_class_has_a_kind_of_the_vocabulary():
    from lackpy.errors import error_classes

    for name, cls in error_classes().items():
        assert isinstance(cls.kind, ErrorKind), name
        assert issubclass(cls, LackpyError)
