"""The isolated worker: plain data across the channel, crashes, and the fork server."""

from __future__ import annotations

import json
import marshal
import socket
import sys
from pathlib import Path

import pytest

from lackpy import ArgSpec, ToolSpec, Toolbox, WorkerError, resolve_kit, run_program
from lackpy.errors import ErrorKind
from lackpy.plugins import populate
from lackpy.run import wire
from lackpy.run.forkserver import get_fork_server


@pytest.fixture
def kit(workspace: Path, tmp_path: Path, monkeypatch):
    module = tmp_path / "mods" / "iso_tools.py"
    module.parent.mkdir()
    module.write_text("import os\ndef echo(value):\n    return value\ndef module():\n    return os\ndef pid():\n    return os.getpid()\n")
    monkeypatch.syspath_prepend(str(module.parent))
    monkeypatch.delitem(sys.modules, "iso_tools", raising=False)
    box = Toolbox(str(workspace))
    populate(box)
    box.register_tool(ToolSpec("echo", "python", {"module": "iso_tools"}, args=[ArgSpec("value")]))
    box.register_tool(ToolSpec("module", "python", {"module": "iso_tools"}))
    box.register_tool(ToolSpec("pid", "python", {"module": "iso_tools"}))
    return resolve_kit(["read_file", "echo", "module", "pid"], box)


def test_plain_data_survives_the_trip(kit):
    """Tuples, sets, bytes, big ints, floats and non-string keys keep their types both ways."""
    program = 'v = echo((1, {2, 3}, b"\\x00\\xff", 2**80, -1.5, {4: "x"}, None, True))\n[v, echo({"$tuple": [1]})]'
    result = run_program(program, kit, mode="isolated")
    assert result.success, result.error
    assert result.output == [(1, {2, 3}, b"\x00\xff", 2**80, -1.5, {4: "x"}, None, True), {"$tuple": [1]}]
    assert result.trace[0].args == {"value": "(1, {2, 3}, b'\\x00\\xff', 1208925819614629174706176, -1.5, {4: 'x'}, None, True)"}


def test_tools_run_in_the_host(kit):
    """The worker has no tools of its own: each call runs in the host process."""
    import os

    result = run_program("pid()", kit, mode="isolated")
    assert result.output == os.getpid()


def test_objects_that_are_not_data_do_not_cross(kit):
    """A tool result that is not plain data is refused instead of sent to the worker."""
    result = run_program("m = module()", kit, mode="isolated")
    assert result.error == "line 1: ToolError in module: returned a module, which an isolated program cannot receive"


def test_a_crash_is_reported_and_contained(kit):
    """CPython crashing inside the worker is a crash result, not a dead host."""
    result = run_program("t = ()\nfor i in range(10**6):\n    t = (t,)\nd = {t: 1}", kit, mode="isolated", limits={"timeout_s": 5})
    assert result.error_kind == "crash" and "SIGSEGV" in result.error
    assert run_program("1 + 1", kit).output == 2


def test_fork_server_restarts_after_dying(kit):
    """If the fork server is killed, the next run starts a new one."""
    server = get_fork_server()
    server.process.kill()
    server.process.wait()
    assert run_program('len(read_file("README.md"))', kit).success
    assert get_fork_server() is not server


@pytest.mark.parametrize(
    "frame",
    [b"not json", b"[1, 2]", b'{"no": "type"}', b'{"t": "call", "x": {"$evil": 1}}', b"[" * 100_000 + b"]" * 100_000],
    ids=["garbage", "not-an-object", "no-type", "unknown-tag", "deep"],
)
def test_the_host_accepts_only_well_formed_plain_data(frame):
    """Malformed frames from a worker raise WorkerError, never anything else."""
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire.HEADER.pack(len(frame)) + frame)
        with pytest.raises(WorkerError):
            wire.recv(b, 10**7)


def test_oversized_frames_are_refused():
    """A frame larger than the limit is refused before it is read."""
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire.HEADER.pack(10**9))
        with pytest.raises(WorkerError, match="limit is 1000"):
            wire.recv(b, 1000)


def test_pack_refuses_objects_unless_lenient():
    """Only plain data is packed; leniently, other objects become their repr."""
    with pytest.raises(wire.NotPlainData):
        wire.pack(object())
    assert json.dumps(wire.pack({"x": object()}, lenient=True)).startswith('{"x": {"$repr": "<object object')


def test_a_worker_that_cannot_start_is_a_failed_result(kit, monkeypatch):
    """If no worker can be started, run_program returns a crash result instead of raising."""
    from lackpy.run import isolated

    def broken(sandbox, deadline):
        raise WorkerError("the isolated worker's fork server did not start")

    monkeypatch.setattr(isolated, "start_worker", broken)
    result = run_program("1 + 1", kit, mode="isolated")
    assert not result.success and result.error_kind == "crash"
    assert result.error == "cannot start the isolated worker: the isolated worker's fork server did not start"
    assert run_program("1 + 1", kit, mode="inprocess").output == 2


@pytest.mark.parametrize(
    "frame, message",
    [
        (wire.encode_call("read_file", ("a.txt",), {}), {"t": "call", "tool": "read_file", "args": ["a.txt"], "kwargs": {}}),
        (wire.encode_call("echo", ("a\x00b",), {}), {"t": "call", "tool": "echo", "args": ["a\x00b"], "kwargs": {}}),
        (wire.encode_call("echo", (1,), {"k": "v"}), {"t": "call", "tool": "echo", "args": [1], "kwargs": {"k": "v"}}),
        (wire.encode_reply("héllo"), {"t": "ok", "value": "héllo"}),
        (wire.encode({"t": "ok", "value": ("x", 1)}), {"t": "ok", "value": ("x", 1)}),
    ],
    ids=["compact-call", "nul-falls-back", "kwargs-fall-back", "compact-reply", "json-reply"],
)
def test_compact_and_json_frames_decode_to_the_same_messages(frame, message):
    """Both frame forms decode to the same plain messages."""
    assert wire.decode(frame[wire.HEADER.size :]) == message


@pytest.mark.parametrize(
    "value",
    [None, 7, -(2**70), 1.5, b"\x00bytes", ["a", 1, None], ("x", [1, {"k": (2, 3)}]), {"a": {1, 2}, (1, "t"): frozenset({"f"})}],
    ids=["none", "int", "big-int", "float", "bytes", "list", "nested", "odd-keys"],
)
def test_a_plain_answer_reaches_the_worker_as_it_was(value):
    """Plain answers go host to worker as marshal (``M``) and arrive equal, type for type."""
    frame = wire.encode_reply(value)[wire.HEADER.size :]
    assert frame[:1] == b"M"
    answer = wire.decode_reply(frame)["value"]
    assert answer == value and type(answer) is type(value)


def test_only_plain_types_are_marshalled_and_the_host_never_unmarshals():
    """A subclass, an enum or a code object never takes the marshal form; a worker's ``M`` frame is refused by the host."""
    from lackpy.summary import Summary

    assert wire.decode(wire.encode_reply(Summary("s"))[wire.HEADER.size :]) == {"t": "ok", "value": "s"}
    assert wire.encode_reply([ErrorKind.TOOL])[wire.HEADER.size :][:1] == b"{"
    with pytest.raises(wire.NotPlainData):
        wire.encode_reply([compile("1", "<x>", "eval")])
    with pytest.raises(WorkerError, match="malformed"):
        wire.decode(b"M" + marshal.dumps({"t": "done"}))


def test_compact_frames_must_be_utf8():
    """A compact frame that is not UTF-8 is refused."""
    with pytest.raises(WorkerError, match="not UTF-8"):
        wire.decode(b"S\xff\xfe")


ESCAPED_READ = '''
def program(path):
    def subclasses(cls):
        for sub in cls.__class__.__subclasses__(cls):  # works for type itself too
            yield sub
            yield from subclasses(sub)
    for file_io in subclasses(().__class__.__base__):  # object, without any builtin
        if file_io.__name__ == "FileIO":
            return (file_io(path).read().decode(), {})
'''


def _raw_program_code():
    """Code that escaped every lackpy check: compiled directly, no validator, no guards."""
    module = compile(ESCAPED_READ, "<program>", "exec")
    return next(c for c in module.co_consts if hasattr(c, "co_code"))


def test_the_worker_itself_cannot_read_files(outside):
    """Even code that got past the validator and the guards cannot open a file in the worker.

    The open-files rlimit refuses any new descriptor, and Landlock (where the
    kernel has it; see test_sandbox.py) refuses any path on its own.
    """
    from lackpy.run.execute import execute, thread_deadline
    from lackpy.run.isolated import run_isolated
    from lackpy.run.limits import Limits

    code = _raw_program_code()
    escaped = execute(code, {}, {"path": str(outside)}, Limits(), thread_deadline)
    assert escaped.output == "CANARY-SECRET\n"  # in this process, nothing stops it
    confined = run_isolated(code, {}, {"path": str(outside)}, Limits(timeout_s=5))
    assert not confined.success and confined.error_kind == "runtime"
    assert "Too many open files" in confined.error or "PermissionError" in confined.error
    assert "CANARY-SECRET" not in repr(confined)


@pytest.mark.slow
def test_the_deadline_never_cuts_a_frame_in_half(kit):
    """Timeouts that fire while big tool calls are on the channel end as timeouts, never as crashes."""
    program = 's = "x" * 9000000\nfor i in range(10**4):\n    n = echo([s, i])[1]'
    for step in range(24):  # deadlines spread over the cycle of a call, so some land mid-send
        result = run_program(program, kit, mode="isolated", limits={"timeout_s": 0.2 + step * 0.011})
        assert result.error_kind == "limit" and result.limit == "timeout", result.error
