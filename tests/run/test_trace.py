"""The trace: what a call leaves behind as it returns, and the entries made from it when looked at."""

from __future__ import annotations

import gc
import json

import pytest

from lackpy import Toolbox, Trace, TraceEntry, resolve_kit, run_program
from lackpy.approvals.decision import Decision
from lackpy.errors import LimitExceeded
from lackpy.plugins import populate
from lackpy.run.trace import Recorder


@pytest.fixture
def kit(workspace):
    box = Toolbox(str(workspace))
    populate(box)
    return resolve_kit("readonly", box)


def _calls() -> Recorder:
    """A recorder over two tools: ``echo(text, times=1)`` and ``fail()``."""
    recorder = Recorder(max_calls=3)
    echo = recorder.wrap("echo", lambda text, times=1: text * times, ["text", "times"])
    fail = recorder.wrap("fail", lambda: {}["missing"])
    items = ["a"]
    assert echo(items) == ["a"]
    items.append("b")  # after the call: the trace keeps what the tool was given
    assert echo("ab", times=2) == "abab"
    with pytest.raises(KeyError):
        fail()
    with pytest.raises(LimitExceeded):
        echo("over the cap")
    return recorder


def test_each_call_is_summarised_as_it_returns_by_parameter_name():
    trace = _calls().entries()
    assert len(trace) == 3
    first, second, third = trace
    assert first == TraceEntry(1, "echo", {"text": "['a']"}, "['a']", first.duration_ms, True)
    assert second.args == {"text": "'ab'", "times": "2"} and second.result == "'abab'"
    assert third.success is False and third.error == "KeyError: 'missing'" and third.result == ""
    assert all(entry.duration_ms >= 0 for entry in trace)


def test_entries_are_made_once_and_carry_the_decision_asked_before_them():
    decision = Decision(True, by="yes", gate="call", tool="echo", step=2)
    trace = _calls().entries([decision])
    assert trace[1] is trace[1] and trace[-1] is trace[2]
    assert [entry.decision for entry in trace] == [None, decision, None]
    assert trace == list(trace) and list(trace) == trace and trace != list(trace)[:2]


def test_json_is_the_same_whether_or_not_the_entries_were_looked_at():
    decision = Decision(False, by="user", reason="no", gate="call", tool="echo", step=1)
    unseen, seen = _calls().entries([decision]), _calls().entries([decision])
    list(seen)
    data = unseen.to_dict()
    assert [d["step"] for d in data] == [1, 2, 3] and data[0]["decision"]["approved"] is False
    strip = lambda rows: [{k: v for k, v in row.items() if k != "duration_ms"} for row in rows]  # noqa: E731
    assert strip(data) == strip(seen.to_dict()) == strip([entry.to_dict() for entry in seen])
    json.dumps(data)


def test_a_run_keeps_nothing_per_call_for_the_garbage_collector_to_follow(kit):
    """A long run's calls leave plain tuples the collector stops tracking, not an object graph per call."""
    result = run_program("for i in range(500):\n    list_dir('.')\n", kit, mode="inprocess")
    assert result.success, result.error
    assert isinstance(result.trace, Trace) and len(result.trace) == 500
    gc.collect()
    assert not any(gc.is_tracked(record) for record in result.trace._records)
    assert result.trace[499].step == 500 and result.trace[499].args == {"path": "'.'"}
    assert result.to_dict()["trace"][0]["tool"] == "list_dir"


def test_the_trace_is_of_the_calls_made_before_it_was_taken():
    """A call made after the run's trace was taken (a tool still running on another thread) never changes it."""
    recorder = Recorder()
    echo = recorder.wrap("echo", lambda text: text, ["text"])
    echo("one")
    trace = recorder.entries()
    echo("two")
    assert len(trace) == 1 and [entry.args for entry in trace] == [{"text": "'one'"}]


def test_timings_give_each_call_its_start_duration_and_error_kind_without_its_values():
    """What a tracer reads: when each call started (in order), how long it took, and the kind of what it raised."""
    from time import perf_counter

    before = perf_counter()
    trace = _calls().entries()
    timings = trace.timings()
    assert [(t.tool, t.error_kind) for t in timings] == [("echo", None), ("echo", None), ("fail", "tool")]
    assert before <= timings[0].started <= timings[1].started <= timings[2].started <= perf_counter()
    assert all(t.duration_ms == entry.duration_ms for t, entry in zip(timings, trace))
    assert "'ab'" not in repr(timings)  # no argument or result reaches a span


def test_a_run_result_keeps_when_its_checks_ended_and_its_calls_kinds(kit):
    """The result's clock places the checks before the first call; a refused program's clock spans its checks only."""
    from lackpy.errors import ErrorKind

    result = run_program('list_dir(".")\nread_file("missing.txt")', kit, mode="inprocess")
    assert result.error_kind == ErrorKind.TOOL
    began, checked = result.clock
    timings = result.trace.timings()
    assert began <= checked <= timings[0].started and [t.error_kind for t in timings] == [None, "tool"]
    assert "clock" not in result.to_dict()
    refused = run_program("import os", kit, mode="inprocess")
    assert refused.error_kind == ErrorKind.VALIDATION and refused.clock[0] <= refused.clock[1]
