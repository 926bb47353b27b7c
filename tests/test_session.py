"""Sessions: a client's checklist, processes and kept variables, apart from every other client's; idle ones expire."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import LimitExceeded, ParamError
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
    from lackpy.summary import Summary

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
    assert session.closed and session.state == {"processes_closed": True}  # nothing but the mark that no process may start
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


def test_a_full_table_evicts_the_least_recently_used_session_that_holds_nothing():
    sessions = Sessions(most=3)
    pinned = sessions.open(pinned=True)
    old, recent = sessions.open(), sessions.open()
    sessions.get(old.id)  # now the most recently used
    newest = sessions.open()
    assert recent.closed and not old.closed and not pinned.closed
    assert {s.id for s in sessions} == {pinned.id, old.id, newest.id}
    with pytest.raises(ParamError, match="it was evicted to make room for a new session \\(it held nothing\\)"):
        sessions.get(recent.id)


def test_a_full_table_of_sessions_in_use_refuses_a_new_one_and_keeps_them():
    sessions = Sessions(most=2)
    first, second = sessions.open(), sessions.open()
    first.keep({"x": 1})
    second.state["todo"] = [{"id": 1, "text": "a", "status": "pending"}]
    with pytest.raises(LimitExceeded, match="this server holds 2 sessions in use .* the most it may, so it keeps no new one"):
        sessions.open()
    fresh = sessions.fresh()
    sessions.begin(fresh)
    fresh.keep({"y": 2})
    refused = sessions.end(fresh)
    assert refused is not None and "holds 2 sessions in use" in refused
    assert fresh.closed and fresh.variables == {}
    with pytest.raises(ParamError, match="it was refused: the server held 2 sessions in use"):
        sessions.get(fresh.id)
    with pytest.raises(LimitExceeded):
        sessions.ensure_room(sessions.fresh())
    assert {s.id for s in sessions} == {first.id, second.id} and not first.closed and sessions.get(first.id).variables == {"x": 1}


def test_a_call_that_keeps_nothing_takes_no_place_and_its_id_starts_the_next():
    sessions = Sessions(most=2)
    session = sessions.fresh()
    sessions.begin(session)
    assert sessions.end(session) is None
    assert len(sessions) == 0
    again = sessions.get(session.id)
    assert again.id == session.id and again.variables == {}
    sessions.begin(again)
    again.keep({"n": 3})
    assert sessions.end(again) is None
    assert [s.id for s in sessions] == [session.id] and sessions.get(session.id).variables == {"n": 3}
    sessions.begin(again)
    again.reset()
    sessions.end(again)
    assert len(sessions) == 0  # it holds nothing again, so it leaves the table


def test_a_session_with_a_call_running_is_neither_expired_nor_evicted():
    sessions = Sessions(most=1, idle_s=60)
    session = sessions.open()
    sessions.begin(session)
    assert sessions.expire(now=session.used + 120) == 0
    with pytest.raises(LimitExceeded):
        sessions.open()
    sessions.end(session)
    assert sessions.expire(now=session.used + 120) == 0  # it held nothing, so it left the table when its call ended
    assert len(sessions) == 0


def test_what_all_sessions_keep_together_is_bounded():
    sessions = Sessions(keep_bytes=1000, kept_bytes=2500)
    first, second, third = sessions.open(), sessions.open(), sessions.open()
    assert first.keep({"a": "x" * 900}) == {} and second.keep({"b": "x" * 900}) == {}
    assert third.keep({"small": "x" * 100, "c": "x" * 800}) == {"c": "over the 2500 bytes this server keeps for all its sessions together"}
    assert third.keep({"big": "x" * 1200}) == {"big": "over the 1000 bytes a session keeps"}
    assert sessions.held_bytes() == 1800
    first.reset()
    assert third.keep({"c": "x" * 900}) == {} and sessions.held_bytes() <= 2500


def test_a_gone_session_says_why():
    sessions = Sessions(idle_s=5)
    closed, expired = sessions.open(), sessions.open()
    sessions.close(closed.id, "was closed: its connection closed")
    with pytest.raises(ParamError, match=r"^no session '.*': it was closed: its connection closed; leave session out"):
        sessions.get(closed.id)
    sessions.expire(now=expired.used + 6)
    with pytest.raises(ParamError, match="it expired after 5 s idle"):
        sessions.get(expired.id)
    with pytest.raises(ParamError, match="this server never opened it, or it went away long ago"):
        sessions.get("x" * 16)
    sessions.close_all()


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


def test_the_sessions_of_a_table_run_a_bounded_number_of_processes_together(svc):
    marker = "71.3117"
    svc.sessions.processes = 1
    first, second = svc.open_session(), svc.open_session()
    assert run(svc, f'start_process("sleep {marker}")', kit="coding", session=first).success
    refused = run(svc, f'start_process("sleep {marker}")', kit="coding", session=second)
    assert not refused.success and refused.error_kind == "tool"
    assert "this server already runs 1 background processes for its sessions, the most it may" in refused.error
    assert run(svc, "list_processes()", kit="coding", session=second).output == []
    svc.sessions.close(first.id)
    assert wait_gone(marker) == []
    assert run(svc, f'start_process("sleep {marker}")', kit="coding", session=second).success
    svc.sessions.close(second.id)
    assert wait_gone(marker) == []


# -- sessions shared by replicas through a store ---------------------------------------------------


def _replica(store):
    from lackpy.store.replicas import Replicas

    sessions, replicas = Sessions(), Replicas(store, "http://127.0.0.1:1")
    replicas.register()
    sessions.share(replicas)
    return sessions


def _call(sessions: Sessions, session: Session, **kept):
    sessions.begin(session)
    if kept:
        session.keep(kept)
    sessions.end(session)
    return sessions.save(session)


def test_shared_sessions_follow_from_replica_to_replica_and_a_lost_race_is_a_conflict():
    from lackpy.errors import ConflictError
    from lackpy.store import MemoryStore

    store = MemoryStore()
    a, b = _replica(store), _replica(store)
    session = a.fresh()
    session.state["todo"] = [{"id": 1, "text": "ship it", "status": "pending"}]
    assert _call(a, session, x=1) is None and len(a) == 0  # the store keeps it; the table keeps only a session's home
    on_b, on_a = b.get(session.id), a.get(session.id)
    assert on_b is not on_a and on_b.variables == {"x": 1} and on_b.state["todo"][0]["text"] == "ship it"
    a.begin(on_a), b.begin(on_b)  # one session's calls on two replicas at once
    on_a.keep({"x": 2}), on_b.keep({"x": 3})
    a.end(on_a), b.end(on_b)
    assert a.save(on_a) is None
    lost = b.save(on_b)
    assert isinstance(lost, ConflictError) and "changed in another call meanwhile" in str(lost) and "were not kept" in str(lost)
    assert b.get(session.id).variables == {"x": 2}  # the one that ended first stands, on every replica


def test_a_shared_session_whose_home_is_gone_says_its_processes_were_lost_once_and_keeps_its_values():
    from lackpy.errors import LostError
    from lackpy.store import MemoryStore

    store = MemoryStore()
    b = _replica(store)
    store.put("session:s" + "x" * 15, {"v": 3, "variables": {"x": 5}, "state": {}, "home": "0123456789abcdef"}, 60)
    with pytest.raises(LostError, match="background processes were lost with replica 0123456789abcdef .* call again"):
        b.get("s" + "x" * 15)
    assert b.get("s" + "x" * 15).variables == {"x": 5}


def test_a_shared_session_the_store_cannot_read_is_an_error_never_a_new_session():
    from lackpy.errors import StoreError
    from lackpy.store import open_store
    from lackpy.store.replicas import Replicas

    pytest.importorskip("redis")
    sessions = Sessions()
    sessions.share(Replicas(open_store("redis://127.0.0.1:1/0")))
    with pytest.raises(StoreError, match="did not answer"):
        sessions.get("s" * 16)
    session = sessions.fresh()
    assert isinstance(_call(sessions, session, x=1), StoreError)
