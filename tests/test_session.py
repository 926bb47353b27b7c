"""Sessions: a client's checklist, processes and kept variables, apart from every other client's; idle ones expire."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import ParamError
from lackpy.session import Session, Sessions, plain
from test_service_async import running_commands, wait_gone

MODES = ["isolated", "inprocess"]


@pytest.fixture
def svc(tmp_path: Path):
    (tmp_path / "a.py").write_text("# TODO one\n")
    service = LackpyService(tmp_path, trust=False, approve=True)
    yield service
    service.close()


def run(svc: LackpyService, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


# -- notebook: variables kept between the runs of a session ---------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_kept_run_leaves_its_plain_variables_to_the_next(svc, mode):
    session = svc.open_session()
    first = run(svc, 'files = find_files("**/*.py")\ncounts = {"a": 1}\nn = len(files)\nn', session=session, keep=True, mode=mode)
    assert first.success and first.output == 1
    assert first.session == session.id
    assert first.kept == ["counts", "files", "n"] and first.not_kept == {}
    second = run(svc, "counts['b'] = n + 1\n[files, counts]", session=session, keep=True, mode=mode)
    assert second.output == [["a.py"], {"a": 1, "b": 2}]
    assert session.variables["counts"] == {"a": 1, "b": 2}
    assert second.to_dict()["kept"] == ["counts", "files", "n"]


@pytest.mark.parametrize("mode", MODES)
def test_only_plain_data_is_kept_and_the_rest_is_named_with_the_reason(svc, mode):
    session = svc.open_session()
    result = run(svc, "pair = (1, 2)\nseen = {1, 2}\nok = [1.5, None, True, 'x']\nok", session=session, keep=True, mode=mode)
    assert result.success
    assert result.kept == ["ok"]
    assert set(result.not_kept) == {"pair", "seen"}
    assert "tuple value is not plain data" in result.not_kept["pair"]
    assert "set value is not plain data" in result.not_kept["seen"]


def test_a_session_keeps_no_more_than_its_byte_limit(tmp_path: Path):
    with LackpyService(tmp_path, trust=False) as svc:
        svc.sessions.keep_bytes = 100
        session = svc.open_session()
        result = run(svc, "small = 'x' * 10\nbig = 'y' * 500\nsmall", session=session, keep=True)
    assert result.kept == ["small"]
    assert result.not_kept == {"big": "over the 100 bytes a session keeps"}


def test_a_value_too_large_for_the_result_is_not_kept_as_its_summary(svc):
    session = svc.open_session()
    result = run(svc, "huge = 'z' * 3000000\nlen(huge)", session=session, keep=True, limits={"max_output_bytes": 100000})
    assert result.success
    assert "huge" not in session.variables
    assert result.not_kept["huge"] == "too large for the run's result, so not kept"


def test_params_override_kept_variables_and_a_failed_run_keeps_nothing_new(svc):
    session = svc.open_session()
    run(svc, "x = 1", session=session, keep=True)
    assert run(svc, "x", session=session, params={"x": 5}).output == 5
    failed = run(svc, "x = 7\ny = 1 / 0", session=session, keep=True)
    assert not failed.success
    assert session.variables == {"x": 1}
    assert failed.kept == ["x"]


def test_without_keep_a_run_reads_but_does_not_change_what_is_kept(svc):
    session = svc.open_session()
    run(svc, "x = 1", session=session, keep=True)
    result = run(svc, "x = x + 1\nx", session=session)
    assert result.output == 2 and session.variables == {"x": 1}


def test_reset_forgets_the_kept_variables(svc):
    session = svc.open_session()
    run(svc, "x = 1", session=session, keep=True)
    session.reset()
    result = run(svc, "x", session=session)
    assert result.error_kind == "validation" and "'x'" in result.error


def test_a_kept_variable_never_shadows_a_tool_of_the_kit(svc):
    session = svc.open_session()
    session.variables["read_file"] = "not a tool"
    result = run(svc, 'read_file("a.py")', session=session)
    assert result.success and result.output == "# TODO one\n"


def test_keep_needs_a_session(svc):
    with pytest.raises(ParamError, match="keep needs a session"):
        run(svc, "x = 1", keep=True)


@pytest.mark.parametrize("value, expected", [
    ({"a": [1, 2.5, None, True, "s", {"b": []}]}, True),
    ((1, 2), False),
    ({1: "int key"}, False),
    (b"bytes", False),
    ([object()], False),
])
def test_plain_data(value, expected):
    assert plain(value) is expected


def test_a_summary_is_not_plain_data():
    from lackpy.run.trace import Summary

    assert plain("text") and not plain(Summary("[1, 2, ...] (len 100000)"))


def test_nesting_past_the_result_depth_is_not_plain():
    value: list = []
    for _ in range(300):
        value = [value]
    assert not plain(value)


# -- the state tools keep: one session's is not another's ----------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_each_session_has_its_own_checklist(svc, mode):
    first, second = svc.open_session(), svc.open_session()
    kit = "todo_set,todo_read"
    run(svc, 'todo_set(["write the test"])', kit=kit, session=first, mode=mode)
    assert run(svc, "todo_read()", kit=kit, session=first, mode=mode).output == [{"id": 1, "text": "write the test", "status": "pending"}]
    assert run(svc, "todo_read()", kit=kit, session=second, mode=mode).output == []
    assert run(svc, "todo_read()", kit=kit, mode=mode).output == []


def test_each_session_has_its_own_processes_and_closing_it_stops_them(svc):
    marker = "73.2051"
    first, second = svc.open_session(), svc.open_session()
    started = run(svc, f'start_process("sleep {marker}")', kit="coding", session=first)
    assert started.success and started.output == "p1"
    assert running_commands(marker)
    assert [p["id"] for p in run(svc, "list_processes()", kit="coding", session=first).output] == ["p1"]
    assert run(svc, "list_processes()", kit="coding", session=second).output == []
    assert svc.sessions.close(first.id) == 1
    assert wait_gone(marker) == []
    with pytest.raises(ParamError, match="no session"):
        svc.sessions.get(first.id)


# -- the table: ids, expiry, the limit ---------------------------------------------------------


def test_an_idle_session_expires_and_its_processes_stop(svc):
    marker = "79.1113"
    session = svc.open_session()
    pinned = svc.open_session(pinned=True)
    assert run(svc, f'start_process("sleep {marker}")', kit="coding", session=session).success
    assert svc.sessions.expire(now=session.used + svc.sessions.idle_s + 1) == 1
    assert wait_gone(marker) == []
    assert session.closed and session.state == {}
    with pytest.raises(ParamError, match="expired after 1800 s idle"):
        svc.sessions.get(session.id)
    assert svc.sessions.get(pinned.id) is pinned


def test_use_keeps_a_session_alive():
    sessions = Sessions(idle_s=60)
    session = sessions.open()
    used = session.used
    assert sessions.get(session.id) is session and session.used >= used
    assert sessions.expire(now=session.used + 30) == 0
    assert sessions.expire(now=session.used + 61) == 1


def test_a_full_table_closes_the_least_recently_used_unpinned_session():
    sessions = Sessions(most=3)
    pinned = sessions.open(pinned=True)
    old, recent = sessions.open(), sessions.open()
    sessions.get(old.id)  # now the most recently used
    newest = sessions.open()
    assert recent.closed and not old.closed and not pinned.closed
    assert {s.id for s in sessions} == {pinned.id, old.id, newest.id}


def test_session_ids_are_unguessable_and_unknown_ids_are_refused():
    sessions = Sessions()
    ids = {sessions.open().id for _ in range(50)}
    assert len(ids) == 50 and all(len(id) >= 16 for id in ids)
    for wrong in ["", "nope", None, 3]:
        with pytest.raises(ParamError, match="leave session out to start a new one"):
            sessions.get(wrong)


def test_closing_the_service_closes_every_session(tmp_path: Path):
    marker = "83.7137"
    svc = LackpyService(tmp_path, trust=False, approve=True)
    session = svc.open_session()
    assert run(svc, f'start_process("sleep {marker}")', kit="coding", session=session).success
    svc.close()
    assert wait_gone(marker) == []
    assert len(svc.sessions) == 0 and session.closed


def test_a_session_alone_is_plain_state():
    session = Session()
    assert session.inputs({"b": 2}, frozenset()) == {"b": 2}
    session.variables = {"a": 1, "read_file": 0}
    assert session.inputs({"a": 3}, frozenset({"read_file"})) == {"a": 3}
