"""The event streams of ``lackpy serve --http``, read as raw bytes on 127.0.0.1: in a 2025-11-25 session a POST's SSE
stream opens with a priming event (an ID, empty data, ``retry``), and a client that dropped it gets the rest with a GET
and ``Last-Event-ID``, from its own session only; earlier and later revisions get no priming event."""

from __future__ import annotations

import json
import threading
from typing import Any



#: How long a resumed stream may stay quiet before the test resumes it again, in seconds.
QUIET_S = 10.0
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
#: A program that takes a moment (it reads every file a few times), so its answer is sent after its stream dropped.
SLOW = "n = 0\nfor i in range(40):\n    for f in find_files('**/*'):\n        n = n + len(read_file(f))\nn"


def _events(raw: str) -> list[dict[str, Any]]:
    """The SSE events of ``raw``: each a dict of its fields (``data`` joined), in order; comments left out."""
    events = []
    for block in raw.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[name] = fields["data"] + "\n" + value if name == "data" and "data" in fields else value
        if fields:
            events.append(fields)
    return events


def _open(http, url: str, version: str = "2025-11-25") -> tuple[dict, list[dict]]:
    """A session of ``version`` opened with initialize: (the headers its requests carry, the events initialize answered with)."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "resume-test", "version": "1"}}
    answer = http.post(url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream"), answer.text
    headers = {**HEADERS, "mcp-session-id": answer.headers["mcp-session-id"], "mcp-protocol-version": version}
    assert http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
    return headers, _events(answer.text)


def _call(id_: int, program: str) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": "run_program", "arguments": {"program": program}}}


def _first_event_then_drop(http, url: str, headers: dict, message: dict) -> dict:
    """POST ``message`` and read its stream only up to the end of the first event, then drop the connection; that event."""
    with http.stream("POST", url, headers=headers, json=message) as answer:
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
        raw = ""
        for chunk in answer.iter_text():
            raw += chunk
            if "\n\n" in raw.replace("\r\n", "\n"):
                break
    return _events(raw)[0]


def _resume(http, url: str, headers: dict, last_event_id: str, want_id: int | None, tries: int = 3) -> list[dict]:
    """GET with ``Last-Event-ID``: the events it sends, read until the response to request ``want_id`` (None: to its end).

    As a client does, a resumed stream that stays quiet for ``QUIET_S`` is resumed again from the last event it sent:
    the SDK can miss a message sent between its replay and its live tail (a window it tracks), and the store still holds it.
    """
    got: list[dict] = []
    for _ in range(tries):
        with http.stream("GET", url, headers={**headers, "last-event-id": last_event_id}) as answer:
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
            quiet = threading.Timer(QUIET_S, answer.close)
            quiet.start()
            raw = ""
            try:
                for chunk in answer.iter_text():
                    raw += chunk
                    if want_id is not None and any(_message(e).get("id") == want_id for e in _events(raw)):
                        break
            except Exception:  # closed for quiet: resumed again below
                pass
            finally:
                quiet.cancel()
        events = _events(raw)
        got += events
        if want_id is None or any(_message(e).get("id") == want_id for e in events):
            return got
        last_event_id = next((e["id"] for e in reversed(events) if e.get("id")), last_event_id)
    return got


def _message(event: dict) -> dict:
    return json.loads(event["data"]) if event.get("data") else {}


def _client():
    import httpx2

    return httpx2.Client(timeout=httpx2.Timeout(30.0))


def test_a_post_stream_opens_with_an_id_empty_data_and_retry(url):
    with _client() as http:
        headers, opened = _open(http, url)
        answer = http.post(url, headers=headers, json=_call(2, "1 + 1"))
    assert answer.headers["content-type"].startswith("text/event-stream")
    raw = answer.text.replace("\r\n", "\n")
    first = raw.split("\n\n")[0].split("\n")
    assert sorted(line.partition(":")[0] for line in first) == ["data", "id", "retry"], raw[:300]
    for events in (opened, _events(answer.text)):
        priming, *rest = events
        assert priming["id"] and priming["data"] == "" and priming["retry"] == "1000" and "event" not in priming
        assert rest and all(event["id"] not in ("", priming["id"]) and _message(event) for event in rest)
    response = _message(_events(answer.text)[-1])
    assert response["id"] == 2 and response["result"]["structuredContent"]["output"] == 2


def test_a_dropped_stream_is_resumed_with_last_event_id_and_ends_with_its_answer(url):
    with _client() as http:
        headers, _ = _open(http, url)
        priming = _first_event_then_drop(http, url, headers, _call(2, SLOW))
        assert priming["data"] == "" and priming["retry"] == "1000"
        resumed = _resume(http, url, headers, priming["id"], want_id=2)
    answers = [_message(event) for event in resumed if _message(event).get("id") == 2]
    assert len(answers) == 1 and isinstance(answers[0]["result"]["structuredContent"]["output"], int), resumed
    assert answers[0]["result"]["isError"] is False and answers[0]["result"]["structuredContent"]["output"] > 0


def test_a_resumed_stream_holds_only_its_own_sessions_messages(url):
    with _client() as http:
        first, _ = _open(http, url)
        second, _ = _open(http, url)
        mine = _first_event_then_drop(http, url, second, _call(2, "'second session'"))
        theirs = _first_event_then_drop(http, url, first, _call(2, "'first session'"))  # the same request ID, in the other session
        resumed = _resume(http, url, second, mine["id"], want_id=2)
        resumed_theirs = _resume(http, url, first, theirs["id"], want_id=2)
        unknown = _resume(http, url, second, "987654", want_id=None)  # an ID this session never sent: nothing to replay
    said = json.dumps([_message(event) for event in resumed])
    assert "second session" in said and "first session" not in said
    said_theirs = json.dumps([_message(event) for event in resumed_theirs])
    assert "first session" in said_theirs and "second session" not in said_theirs
    assert [event for event in unknown if event.get("data")] == []


def test_2025_06_18_streams_are_not_primed(url):
    with _client() as http:
        headers, opened = _open(http, url, "2025-06-18")
        answer = http.post(url, headers=headers, json=_call(2, "1 + 1"))
    for events in (opened, _events(answer.text)):
        assert events and all(event.get("data") for event in events) and not any("retry" in event for event in events)


def test_2026_07_28_streams_have_no_event_ids(url):
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "resume-test", "version": "1"},
    }
    message = _call(7, "1 + 1")
    message["params"]["_meta"] = meta
    headers = {**HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "run_program"}
    with _client() as http:
        answer = http.post(url, headers=headers, json=message)
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        events = _events(answer.text)
        assert events and not any("id" in event or "retry" in event for event in events), events
        answer_message = _message(events[-1])
    else:
        answer_message = answer.json()
    assert answer_message["id"] == 7 and answer_message["result"]["structuredContent"]["output"] == 2


def test_each_session_keeps_its_own_events_within_bounds():
    """The store of one session: numbered IDs, a replay of one stream after an ID, and old events dropped past its bounds."""
    import asyncio

    from mcp.types import JSONRPCNotification

    from lackpy.mcp.resume import SessionEvents

    def note(text: str) -> JSONRPCNotification:
        return JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"level": "info", "data": text})

    async def main():
        store = SessionEvents(keep_events=4)
        ids = [await store.store_event("2", None), await store.store_event("2", note("a")), await store.store_event("3", note("x")),
               await store.store_event("2", note("b"))]
        sent: list = []

        async def send(event):
            sent.append((event.event_id, event.message.params["data"]))

        stream = await store.replay_events_after(ids[0], send)
        await store.store_event("2", note("c"))  # a fifth event: the first is dropped
        gone = await store.replay_events_after(ids[0], send)
        small = SessionEvents(keep_bytes=1000)
        first = await small.store_event("5", None)
        big = await small.store_event("5", note("y" * 5000))  # past the bytes kept: kept alone, as the newest
        kept = (await small.replay_events_after(first, send), await small.replay_events_after(big, send))
        await small.store_event("5", note("z"))  # a newer event: the big one goes
        return ids, stream, sent, gone, kept, await small.replay_events_after(big, send)

    ids, stream, sent, gone, kept, dropped = asyncio.run(main())
    assert ids == ["1", "2", "3", "4"] and stream == "2" and sent == [("2", "a"), ("4", "b")] and gone is None
    assert kept == (None, "5") and dropped is None  # the priming event went first, the big one when a newer came

