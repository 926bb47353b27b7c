"""lackpy.kit.call: every tool call is checked against the tool's schema before the tool runs; async tools are awaited."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Literal

import pytest

from lackpy import Toolbox, resolve_kit, run_program, tool
from lackpy.errors import ArgumentError, ErrorKind, LimitExceeded, ToolError
from lackpy.kit.call import DEADLINE, awaited, checked, remaining
from lackpy.kit.context import ToolContext, takes_context, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec

README = "# Demo\n\nStatus: draft\n"

BAD_CALLS = [
    pytest.param(
        "read_file", (3,), {},
        "read_file: argument 'path' expects a str, got 3 (int)",
        id="wrong-type",
    ),
    pytest.param(
        "write_file", ("notes.txt",), {},
        "write_file: missing required argument 'content'; call it as write_file(path: str, content: str)",
        id="missing-required",
    ),
    pytest.param(
        "read_file", ("README.md",), {"lines": 3},
        "read_file: unknown argument 'lines'; its arguments are path, offset, limit",
        id="unknown-keyword",
    ),
    pytest.param(
        "list_dir", (".", "src"), {},
        "list_dir: takes at most 1 positional arguments, got 2; call it as list_dir(path: str = '.')",
        id="too-many-positional",
    ),
    pytest.param(
        "find_files", ("*",), {"kind": "folder"},
        "find_files: argument 'kind' expects one of 'file', 'dir', 'any', 'text' or None, got 'folder' (str)",
        id="outside-enum",
    ),
    pytest.param(
        "grep", ("TODO",), {"max_hits": True},
        "grep: argument 'max_hits' expects an int, got True (bool)",
        id="bool-for-int",
    ),
    pytest.param(
        "read_file", ("README.md",), {"path": "src/app.py"},
        "read_file: argument 'path' is given twice (by position and by name)",
        id="given-twice",
    ),
    pytest.param(
        "edit_file", ("README.md", "draft", None), {},
        "edit_file: argument 'new_str' expects a str, got None (NoneType)",
        id="none-for-required",
    ),
    pytest.param(
        "grep", ("TODO",), {"glob": None},
        "grep: argument 'glob' expects a str, got None (NoneType)",
        id="none-where-default-is-not-none",
    ),
    pytest.param(
        "write_file", ("notes.txt", b"bytes"), {},
        "write_file: argument 'content' expects a str, got b'bytes' (bytes)",
        id="bytes-for-str",
    ),
    pytest.param(
        "todo_set", ([{"text": "a"}, 7],), {},
        "todo_set: argument 'items' expects a list of a str or a dict, got [{'text': 'a'}, 7] (list)",
        id="bad-list-item",
    ),
]


@pytest.mark.parametrize("name, args, kwargs, message", BAD_CALLS)
def test_bad_calls_to_builtin_tools_are_refused(toolbox, workspace: Path, name, args, kwargs, message):
    """A call that does not fit the built-in tool's schema raises ArgumentError naming tool, argument, value and expectation."""
    with pytest.raises(ArgumentError) as info:
        toolbox.bound(name)(*args, **kwargs)
    assert str(info.value) == message
    assert info.value.kind == ErrorKind.ARGUMENT == "argument"
    assert isinstance(info.value, ToolError)
    # nothing was read, written or listed: the tool did not run
    assert toolbox.context.files_read == {} and toolbox.context.files_modified == {}
    assert not (workspace / "notes.txt").exists()
    assert (workspace / "README.md").read_text() == README
    assert toolbox.context.state.get("todo") is None


def make_recorder():
    """A tool of the test's own that records every call it gets, and the list of calls."""
    calls: list[tuple] = []

    @tool(grade=(0, 0))
    def record(path: str, mode: Literal["r", "w"] = "r", count: int | None = None, ratio: float = 1.0) -> str:
        """Record a call."""
        calls.append((path, mode, count, ratio))
        return path

    return record, calls


RECORDER_BAD_CALLS = [
    pytest.param((3,), {}, "record: argument 'path' expects a str, got 3 (int)", id="wrong-type"),
    pytest.param((), {"mode": "w"}, "record: missing required argument 'path'", id="missing-required"),
    pytest.param(("a",), {"colour": "red"}, "record: unknown argument 'colour'; its arguments are path, mode, count, ratio", id="unknown-keyword"),
    pytest.param(("a", "r", 1, 1.0, "extra"), {}, "record: takes at most 4 positional arguments, got 5", id="too-many-positional"),
    pytest.param(("a",), {"mode": "x"}, "record: argument 'mode' expects one of 'r', 'w', got 'x' (str)", id="outside-enum"),
    pytest.param(("a",), {"count": True}, "record: argument 'count' expects an int or None, got True (bool)", id="bool-for-int"),
    pytest.param(("a",), {"count": 2.0}, "record: argument 'count' expects an int or None, got 2.0 (float)", id="float-for-int"),
    pytest.param(("a",), {"ratio": False}, "record: argument 'ratio' expects a number, got False (bool)", id="bool-for-number"),
    pytest.param(("a",), {"ratio": None}, "record: argument 'ratio' expects a number, got None (NoneType)", id="none-for-number"),
    pytest.param(("a",), {"path": "b"}, "record: argument 'path' is given twice (by position and by name)", id="given-twice"),
]


@pytest.mark.parametrize("args, kwargs, message", RECORDER_BAD_CALLS)
def test_a_refused_call_never_reaches_the_tool(tmp_path: Path, args, kwargs, message):
    """The check runs before the tool: a refused call leaves the recorder empty; the same tool then records a good call."""
    record, calls = make_recorder()
    box = Toolbox(str(tmp_path))
    box.register(record)
    with pytest.raises(ArgumentError) as info:
        box.bound("record")(*args, **kwargs)
    assert str(info.value).startswith(message)
    assert calls == []
    assert box.bound("record")("ok") == "ok"
    assert calls == [("ok", "r", None, 1.0)]


def test_none_for_an_optional_argument_defaulting_to_none_is_accepted(toolbox):
    """Passing None where the default is None is always fine, even where the schema alone would refuse it."""
    assert toolbox.bound("read_file")("README.md", offset=None, limit=None) == README
    assert toolbox.bound("read_file")("README.md", None, None) == README
    assert toolbox.bound("find_files")("*.md", kind=None) == ["README.md"]
    record, calls = make_recorder()
    toolbox.register(record)
    assert toolbox.bound("record")("a", "w", None) == "a"
    assert toolbox.bound("record")(path="b", count=None) == "b"
    assert calls == [("a", "w", None, 1.0), ("b", "r", None, 1.0)]


def test_a_hand_written_spec_with_a_none_default_accepts_none():
    """An optional ArgSpec of type int with default None accepts None, and still refuses a str."""
    spec = ToolSpec("fetch", "p", args=[ArgSpec("url", "str"), ArgSpec("max_bytes", "int", required=False, default=None)])
    seen = []
    call = checked(spec, lambda url, max_bytes=None: seen.append((url, max_bytes)))
    call("http://x", max_bytes=None)
    call("http://x", 5)
    with pytest.raises(ArgumentError, match=r"^fetch: argument 'max_bytes' expects an int, got '5' \(str\)$"):
        call("http://x", "5")
    assert seen == [("http://x", None), ("http://x", 5)]


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_a_bad_call_in_a_program_is_an_argument_error_and_writes_nothing(toolbox, workspace: Path, mode):
    """In a program, a built-in tool called with a wrong type stops the run as 'argument' on its line; nothing is written."""
    kit = resolve_kit(["write_file", "read_file"], toolbox)
    result = run_program('text = read_file("README.md")\nwrite_file("out.txt", len(text))', kit, mode=mode)
    assert (result.success, result.error_kind, result.error_line) == (False, "argument", 2)
    assert result.error == "line 2: ArgumentError in write_file: write_file: argument 'content' expects a str, got 22 (int)"
    assert [(t.tool, t.success) for t in result.trace] == [("read_file", True), ("write_file", False)]
    assert not (workspace / "out.txt").exists()


# -- checked itself --------------------------------------------------------------------------


def test_checked_wraps_the_implementation():
    """checked keeps the implementation's name and marks the wrapper; resolve hands out the checked callable."""
    spec = ToolSpec("double", "p", args=[ArgSpec("n", "int")])

    def double(n):
        return 2 * n

    wrapper = checked(spec, double)
    assert wrapper(4) == 8
    assert wrapper.__name__ == "double" and wrapper.__wrapped__ is double
    assert wrapper.lackpy_checked is True
    assert takes_context(wrapper) is False


def test_checked_keeps_the_context_out_of_the_check(tmp_path: Path):
    """A uses_context implementation stays one; the context is not counted as an argument."""
    spec = ToolSpec("where", "p", args=[ArgSpec("suffix", "str")])

    @uses_context
    def where(ctx, suffix):
        return ctx.root + suffix

    wrapper = checked(spec, where)
    assert takes_context(wrapper) is True
    context = ToolContext(tmp_path)
    assert wrapper(context, "!") == context.root + "!"
    with pytest.raises(ArgumentError, match=r"^where: argument 'suffix' expects a str, got 1 \(int\)$"):
        wrapper(context, 1)


def test_resolve_returns_the_checked_tool(toolbox):
    """Toolbox.resolve gives the checked wrapper, cached."""
    resolved = toolbox.resolve("read_file")
    assert resolved.lackpy_checked is True
    assert toolbox.resolve("read_file") is resolved


# -- async tools and the deadline ----------------------------------------------------------


async def _upper(text: str, delay: float = 0.0) -> str:
    await asyncio.sleep(delay)
    return text.upper()


UPPER = ToolSpec("upper", "p", args=[ArgSpec("text", "str"), ArgSpec("delay", "float", required=False, default=0.0)])


def test_remaining_outside_and_inside_a_run():
    """remaining() is the default outside a run, and the time left before DEADLINE inside one (never negative)."""
    assert remaining() == 3600.0
    assert remaining(5.0) == 5.0
    token = DEADLINE.set(time.monotonic() + 2.0)
    try:
        assert 1.0 < remaining() <= 2.0
    finally:
        DEADLINE.reset(token)
    token = DEADLINE.set(time.monotonic() - 10)
    try:
        assert remaining() == 0.0
    finally:
        DEADLINE.reset(token)


def test_an_async_tool_is_awaited_without_a_loop():
    """Called from plain code, a checked async tool gives its value."""
    assert checked(UPPER, _upper)("abc") == "ABC"


def test_an_async_tool_is_awaited_while_a_loop_runs():
    """Called from code running on an event loop, the tool runs on a loop of its own and gives its value."""
    call = checked(UPPER, _upper)

    async def main():
        return call("abc")

    assert asyncio.run(main()) == "ABC"


def test_an_async_tool_past_the_deadline_is_a_timeout():
    """An async tool still running at the deadline raises LimitExceeded('timeout') naming the tool, soon after."""
    call = checked(UPPER, _upper)
    token = DEADLINE.set(time.monotonic() + 0.2)
    started = time.monotonic()
    try:
        with pytest.raises(LimitExceeded) as info:
            call("abc", 30)
    finally:
        DEADLINE.reset(token)
    assert time.monotonic() - started < 3
    assert info.value.limit == "timeout"
    assert info.value.kind == "limit"
    assert str(info.value) == "upper ran past the run's deadline"


def test_awaited_passes_the_tool_error_on():
    """An async tool's own error reaches the caller as it was raised."""

    async def refuse():
        raise ToolError("nope")

    with pytest.raises(ToolError, match="^nope$"):
        awaited(refuse(), "refuse")
