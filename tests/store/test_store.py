"""The state store's one contract, held by both implementations: the in-memory one and a real redis-server."""

from __future__ import annotations

import pytest

from lackpy.errors import ErrorKind, StoreError, UsageError
from lackpy.store import MAX_VALUE_BYTES, MemoryStore, open_store
from tests.cluster import free_port


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.cluster)])
def store(request):
    if request.param == "memory":
        made = MemoryStore("test")
    else:
        made = open_store(request.getfixturevalue("redis_url"), "test")
    yield made
    made.close()


def test_values_round_trip_as_plain_data(store):
    store.put("session:a", {"variables": {"n": 1, "xs": [1, "two", None, True, 2.5]}}, 60)
    assert store.get("session:a") == {"variables": {"n": 1, "xs": [1, "two", None, True, 2.5]}}
    assert store.get("session:missing") is None


def test_add_keeps_only_the_first(store):
    assert store.add("approval:t", {"replica": "r1"}, 60) is True
    assert store.add("approval:t", {"replica": "r2"}, 60) is False
    assert store.get("approval:t") == {"replica": "r1"}
    store.delete("approval:t")
    assert store.get("approval:t") is None


def test_values_expire(store):
    store.put("short", {"a": 1}, 0.05)
    store.put("long", {"a": 2}, 60)
    import time

    time.sleep(0.2)
    assert store.get("short") is None
    assert store.get("long") == {"a": 2}


def test_scan_finds_a_prefix_only(store):
    store.put("replica:r1", {"url": "http://127.0.0.1:1"}, 60)
    store.put("replica:r2", {"url": "http://127.0.0.1:2"}, 60)
    store.put("replicas-not", {"x": 1}, 60)
    store.put("session:r1", {"x": 1}, 60)
    assert store.scan("replica:") == {"replica:r1": {"url": "http://127.0.0.1:1"}, "replica:r2": {"url": "http://127.0.0.1:2"}}


def test_only_plain_data_within_the_bound(store):
    with pytest.raises(StoreError, match="plain data"):
        store.put("k", {"a": object()}, 60)
    with pytest.raises(StoreError, match="plain data"):
        store.put("k", {"a": float("nan")}, 60)
    with pytest.raises(StoreError, match=f"over the {MAX_VALUE_BYTES} bytes"):
        store.put("k", {"a": "x" * MAX_VALUE_BYTES}, 60)
    assert store.get("k") is None


@pytest.mark.cluster
def test_deployments_do_not_see_each_other(redis_url):
    one, two = open_store(redis_url, "one"), open_store(redis_url, "two")
    one.put("session:s", {"who": "one"}, 60)
    assert two.get("session:s") is None
    assert one.get("session:s") == {"who": "one"}


@pytest.mark.cluster
def test_a_value_another_program_wrote_is_refused_not_run(redis_url):
    import redis

    store = open_store(redis_url, "test")
    redis.Redis.from_url(redis_url).set("lackpy:test:session:s", b"\x80\x04\x95pickle")
    with pytest.raises(StoreError, match="not JSON"):
        store.get("session:s")


def test_a_store_that_is_down_is_an_error_of_its_own_kind():
    store = open_store(f"redis://127.0.0.1:{free_port()}/0", "test")
    with pytest.raises(StoreError) as caught:
        store.get("session:s")
    assert caught.value.kind is ErrorKind.STORE
    assert "did not answer" in str(caught.value) and "127.0.0.1" in str(caught.value)
    assert store.errors["get"] == 1


def test_a_password_never_shows(monkeypatch):
    store = open_store(f"redis://:hunter2@127.0.0.1:{free_port()}/0", "test")
    with pytest.raises(StoreError) as caught:
        store.put("k", {"a": 1}, 60)
    assert "hunter2" not in str(caught.value) and "hunter2" not in store.shown


def test_bad_store_urls_and_deployment_names_are_usage_errors():
    with pytest.raises(UsageError, match="memory, or redis://"):
        open_store("postgres://x", "test")
    with pytest.raises(UsageError, match="deployment name"):
        MemoryStore("bad name!")


def test_memory_store_is_bounded():
    store = MemoryStore("test", most=3)
    for n in range(5):
        store.put(f"k{n}", {"n": n}, 60 + n)
    assert len(store) == 3
    assert store.get("k4") == {"n": 4} and store.get("k0") is None


def test_swap_keeps_a_version_only_over_the_one_expected(store):
    assert store.swap("session:s", {"v": 1, "x": 1}, 60, expected=0) is True
    assert store.swap("session:s", {"v": 2, "x": 2}, 60, expected=0) is False  # another writer came first
    assert store.swap("session:s", {"v": 2, "x": 2}, 60, expected=1) is True
    assert store.swap("session:s", {"v": 3, "x": 3}, 60, expected=1) is False
    assert store.get("session:s") == {"v": 2, "x": 2}
    store.put("session:t", {"x": "no version"}, 60)
    assert store.swap("session:t", {"v": 1}, 60, expected=0) is False  # a value without a version is never one expected
    with pytest.raises(StoreError, match="plain data"):
        store.swap("session:s", {"v": 3, "x": object()}, 60, expected=2)


def test_replicas_register_renew_and_leave(store):
    from lackpy.store.replicas import Replicas

    one, two = Replicas(store, "http://127.0.0.1:1"), Replicas(store, "http://127.0.0.1:2")
    one.register()
    two.register()
    assert one.me != two.me and one.where(two.me) == "http://127.0.0.1:2" and one.alive(two.me)
    two.deregister()
    assert one.where(two.me) is None and not one.alive(two.me) and one.alive(one.me)
    assert one.where("not-an-id") is None and one.where("../x") is None
    one.forget(one.me)  # a replica never drops itself
    assert store.get(f"replica:{one.me}") is not None
