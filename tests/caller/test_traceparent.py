"""The caller's W3C trace context: read strictly, ignored whole when it is not the format, never an error."""

from __future__ import annotations

import pytest

from lackpy.caller.traceparent import CALLER, TraceParent, current_trace_id, from_meta, parse

TRACE, SPAN = "0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7"


def test_a_valid_traceparent_gives_its_ids_and_flags():
    assert parse(f"00-{TRACE}-{SPAN}-01") == TraceParent(TRACE, SPAN, 1)
    assert parse(f"00-{TRACE}-{SPAN}-00").sampled is False
    assert parse(f"01-{TRACE}-{SPAN}-01-what-a-later-version-adds") == TraceParent(TRACE, SPAN, 1)  # W3C: parse what is known


@pytest.mark.parametrize("value", [
    f"00-{TRACE.upper()}-{SPAN}-01",  # uppercase hex
    f"00-{'0' * 32}-{SPAN}-01",  # all-zero trace id
    f"00-{TRACE}-{'0' * 16}-01",  # all-zero parent id
    f"ff-{TRACE}-{SPAN}-01",  # the forbidden version
    f"00-{TRACE}-{SPAN}-01-more",  # version 00 has exactly four fields
    f"01-{TRACE}-{SPAN}-01more",  # a later version's extra fields start with a dash
    f"00-{TRACE[:-1]}-{SPAN}-01",
    f"00-{TRACE}-{SPAN}-1",
    f" 00-{TRACE}-{SPAN}-01",
    f"00-{TRACE}-{SPAN}-01\n",
    f"00_{TRACE}_{SPAN}_01",
    "", None, 42, ["00"], "00-" + "a" * 600,
])
def test_anything_else_is_no_trace_context(value):
    assert parse(value) is None
    assert from_meta({"traceparent": value}) is None


def test_tracestate_is_kept_only_whole_and_well_formed_beside_a_valid_traceparent():
    parent = f"00-{TRACE}-{SPAN}-01"
    assert parse(parent, "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7").state == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
    assert parse(parent, "tenant@vendor=abc").state == "tenant@vendor=abc"
    for bad in ("Congo=x", "congo=", "congo=a,congo=b", "congo=a=b", ",".join(f"k{i}=v" for i in range(33)), "k=" + "v" * 600, 7):
        assert parse(parent, bad) == TraceParent(TRACE, SPAN, 1), bad
    assert parse("garbage", "congo=t61rcWkgMzE") is None


def test_meta_is_read_only_when_it_is_a_mapping():
    assert from_meta({"traceparent": f"00-{TRACE}-{SPAN}-01", "tracestate": "a=b"}) == TraceParent(TRACE, SPAN, 1, "a=b")
    assert from_meta(None) is None and from_meta({}) is None and from_meta(["traceparent"]) is None


def test_the_callers_trace_id_is_read_from_the_context():
    assert current_trace_id() is None
    token = CALLER.set(TraceParent(TRACE, SPAN, 1))
    try:
        assert current_trace_id() == TRACE
    finally:
        CALLER.reset(token)
