"""The channel between the host and an isolated worker: framed JSON, plain data only.

Each message is a 4-byte big-endian length and a JSON document. Values that
JSON lacks travel as one-key tagged objects (``{"$tuple": [...]}``), so
tuples, sets, bytes, big integers and non-string keys survive the trip. The
host decodes what a worker sends with ``json.loads`` and these tags only:
nothing a worker sends can become code or an object other than plain data.

Two frames go host to worker only, as ``marshal``: the job, holding the
compiled program itself (``encode_job``), and a tool's answer made of plain
types only (``encode_reply``), which marshal writes in a tenth of JSON's
time. The worker trusts its host; the host never unmarshals anything
(``decode`` knows only JSON and the two compact forms; the worker reads
answers with ``decode_reply``).
"""

from __future__ import annotations

import base64
import json
import marshal
import math
import os
import select
import socket
import struct
import time
from typing import Any

from lackpy.errors import WorkerError

HEADER = struct.Struct("!I")
SPIN_S = 500e-6  # how long a reader polls before it sleeps in select
SMALL_FRAME = 64 * 1024  # read this much at once: most messages arrive whole
JSON_SAFE_INT = 2**53


class NotPlainData(TypeError):
    """A value that cannot travel between host and worker."""


def pack(value: Any, lenient: bool = False) -> Any:
    """A JSON-ready form of plain data; other objects raise, or become their repr if ``lenient``."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is int:
        return value if -JSON_SAFE_INT < value < JSON_SAFE_INT else {"$int": hex(value)}
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if kind is list:
        return [pack(item, lenient) for item in value]
    if kind is dict:
        if all(type(k) is str for k in value) and not (len(value) == 1 and next(iter(value))[:1] == "$"):
            return {k: pack(v, lenient) for k, v in value.items()}
        return {"$dict": [[pack(k, lenient), pack(v, lenient)] for k, v in value.items()]}
    if kind is tuple:
        return {"$tuple": [pack(item, lenient) for item in value]}
    if kind is set or kind is frozenset:
        return {"$set": [pack(item, lenient) for item in value]}
    if kind is bytes or kind is bytearray:
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, str):  # str subclasses (trace summaries)
        return str(value)
    if isinstance(value, int):
        return pack(int(value))
    if lenient:
        return {"$repr": repr(value)[:10_000]}
    raise NotPlainData(f"a {kind.__name__} cannot be passed to a tool; pass str, numbers, lists, tuples or dicts")


def _unpack_tag(obj: dict) -> Any:
    if len(obj) != 1:
        return obj
    tag, value = next(iter(obj.items()))
    if tag[:1] != "$":
        return obj
    if tag == "$tuple" and type(value) is list:
        return tuple(value)
    if tag == "$set" and type(value) is list:
        return set(value)
    if tag == "$dict" and type(value) is list:
        return {_hashable(pair[0]): pair[1] for pair in value if type(pair) is list and len(pair) == 2}
    if tag == "$int" and type(value) is str:
        return int(value, 16)
    if tag == "$float" and value in ("inf", "-inf", "nan"):
        return float(value)
    if tag == "$bytes" and type(value) is str:
        return base64.b64decode(value, validate=True)
    if tag == "$repr" and type(value) is str:
        return value
    raise WorkerError(f"unknown value tag {tag!r} from the worker")


def _hashable(key: Any) -> Any:
    if type(key) is list:
        return tuple(_hashable(k) for k in key)
    if type(key) in (dict, set):
        raise WorkerError("a dict key from the worker is not hashable")
    return key


def encode(message: dict, lenient: bool = False) -> bytes:
    data = json.dumps(pack(message, lenient), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(data)) + data


# The two commonest messages also have a compact form: a call whose arguments
# are all strings (``C`` tool NUL arg NUL arg...) and a reply that is one
# string (``S`` text). JSON bodies always start with ``{``.


def encode_call(tool: str, args: tuple, kwargs: dict) -> bytes:
    if not kwargs and all(type(a) is str and "\x00" not in a for a in args):
        data = b"C" + "\x00".join((tool, *args)).encode("utf-8", "surrogatepass")
        return HEADER.pack(len(data)) + data
    return encode({"t": "call", "tool": tool, "args": list(args), "kwargs": kwargs})


def encode_reply(value: Any) -> bytes:
    """A tool's answer: ``S`` text, ``M`` marshal of plain types only, else JSON (which turns other plain values into tags, or refuses)."""
    if type(value) is str:
        data = b"S" + value.encode("utf-8", "surrogatepass")
        return HEADER.pack(len(data)) + data
    if _marshalled(value, 0):
        data = b"M" + marshal.dumps(value)
        return HEADER.pack(len(data)) + data
    return encode({"t": "ok", "value": value})


_FLAT = frozenset({type(None), bool, int, float, str, bytes})
_NESTED = frozenset({list, tuple, dict, set, frozenset})
_MARSHAL_DEPTH = 100  # deeper answers take the JSON path, which bounds them as before


def _marshalled(value: Any, depth: int) -> bool:
    """Whether ``value`` is made of these exact types only (no subclass, so no object marshal would keep: code, a str subclass)."""
    kind = type(value)
    if kind in _FLAT:
        return True
    if kind not in _NESTED or depth > _MARSHAL_DEPTH:
        return False
    flat, depth = _FLAT, depth + 1
    if kind is dict:
        for key, item in value.items():
            if type(key) not in flat and not _marshalled(key, depth):
                return False
            if type(item) not in flat and not _marshalled(item, depth):
                return False
        return True
    for item in value:
        if type(item) not in flat and not _marshalled(item, depth):
            return False
    return True


def decode_reply(data: bytes) -> dict:
    """The worker's side of ``encode_reply`` and of the host's other messages (from its host only)."""
    if data[:1] == b"M":
        return {"t": "ok", "value": marshal.loads(data[1:])}
    return decode(data)


def encode_job(code: Any, params: dict, tools: list[str], limits: dict, max_frame: int, reply_frame: int, session: bool = False) -> bytes:
    """The job frame: the code object and its settings as one marshal; the parameters as checked JSON (NotPlainData if not plain).

    ``session``: the worker may be sent more jobs of the same session after this one.
    """
    packed = json.dumps(pack(params), ensure_ascii=False, separators=(",", ":")) if params else None
    data = marshal.dumps((code, packed, tools, limits, max_frame, reply_frame, session))
    return HEADER.pack(len(data)) + data


def decode_job(data: bytes) -> dict:
    """The worker's side of ``encode_job`` (from its host only)."""
    code, packed, tools, limits, max_frame, reply_frame, session = marshal.loads(data)
    params = json.loads(packed, object_hook=_unpack_tag) if packed else {}
    return {"code": code, "params": params, "tools": tools, "limits": limits, "max_frame": max_frame, "reply_frame": reply_frame, "session": session}


def decode(data: bytes) -> dict:
    kind = data[:1]
    if kind == b"S" or kind == b"C":
        try:
            text = data[1:].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise WorkerError("the worker sent text that is not UTF-8") from None
        if kind == b"S":
            return {"t": "ok", "value": text}
        tool, *args = text.split("\x00")
        return {"t": "call", "tool": tool, "args": args, "kwargs": {}}
    try:
        message = json.loads(data.decode("utf-8", "surrogatepass"), object_hook=_unpack_tag)
    except (ValueError, RecursionError, TypeError) as exc:
        raise WorkerError(f"the worker sent malformed data: {type(exc).__name__}") from None
    if type(message) is not dict or type(message.get("t")) is not str:
        raise WorkerError("the worker sent a message without a type")
    return message


def send(sock: socket.socket, message: dict, lenient: bool = False, deadline: float | None = None) -> None:
    """Send one message; on a non-blocking socket, wait for room until ``deadline``."""
    send_bytes(sock, encode(message, lenient), deadline)


def send_bytes(sock: socket.socket, frame: bytes, deadline: float | None = None) -> None:
    """Send an encoded frame; on a non-blocking socket, wait for room until ``deadline``."""
    data = memoryview(frame)
    while data:
        try:
            data = data[sock.send(data) :]
        except (BlockingIOError, InterruptedError):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise socket.timeout("timed out") from None
            _, ready, _ = select.select([], [sock], [], remaining)
            if not ready:
                raise socket.timeout("timed out") from None


def recv(sock: socket.socket, max_bytes: int, deadline: float | None = None, spin: float = SPIN_S, decoder=decode) -> dict | None:
    """The next message, or None at end of stream.

    ``deadline`` (``time.monotonic()``) bounds the wait; past it ``socket.timeout`` is raised.
    ``spin``: how long to poll before sleeping (0 when the answer cannot come soon).
    ``decoder``: ``decode`` (the host's: JSON and the compact forms) or the worker's ``decode_reply``.
    """
    body = recv_frame(sock, max_bytes, deadline, spin)
    return None if body is None else decoder(body)


def recv_frame(sock: socket.socket, max_bytes: int, deadline: float | None = None, spin: float = SPIN_S) -> bytes | None:
    """The next frame's body, undecoded, or None at end of stream (``recv``'s limits, deadline and spin)."""
    head = _read_at_least(sock, HEADER.size, SMALL_FRAME, deadline, spin)  # usually the whole frame
    if head is None:
        return None
    (size,) = HEADER.unpack_from(head)
    if size > max_bytes:
        raise WorkerError(f"the worker sent a message of {size} bytes; the limit is {max_bytes}")
    body = head[HEADER.size :]
    if len(body) > size:
        raise WorkerError("the worker sent a second message before its answer")
    if len(body) < size:
        rest = _read_at_least(sock, size - len(body), size - len(body), deadline, spin)
        if rest is None:
            return None
        body += rest
    return body


def whole_frame(sock: socket.socket, max_bytes: int) -> bytes | None:
    """The next frame's body if all of it has arrived, taken without waiting; None (nothing taken) otherwise.

    None too at end of stream, for a frame over ``max_bytes`` or for one too
    large to peek at once (``SMALL_FRAME``): ``recv_frame`` then meets it as it is.
    """
    try:
        head = sock.recv(SMALL_FRAME, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:
        return None
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack_from(head)
    if size > max_bytes or len(head) < HEADER.size + size:
        return None
    return sock.recv(HEADER.size + size, socket.MSG_DONTWAIT)[HEADER.size :]


def _read_at_least(sock: socket.socket, need: int, want: int, deadline: float | None, spin: float = SPIN_S) -> bytes | None:
    """Read ``need`` to ``want`` bytes: poll briefly (replies usually come within microseconds), then wait.

    The brief poll spares the scheduler wake-up that dominates a round trip
    between two processes; it gives up after SPIN_S and waits in select.
    Each empty poll yields the CPU: the kernel often wakes the peer on the
    CPU of the process that woke it, here the one polling, and a poll that
    kept the CPU would hold off the very answer it waits for (a cold run's
    twenty calls took 16 ms so, 3 ms yielding).
    Reading more than one frame's header at once is safe because at most one
    frame is ever in flight each way: every message waits for the other
    side's answer (``recv`` checks this).
    """
    buffer = bytearray(want)
    view = memoryview(buffer)
    got = 0
    spin_until = time.perf_counter() + spin
    while got < need:
        try:
            count = sock.recv_into(view[got:], want - got, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            if time.perf_counter() < spin_until:
                os.sched_yield()
                continue
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise socket.timeout("timed out") from None
            ready, _, _ = select.select([sock], [], [], remaining)
            if not ready:
                raise socket.timeout("timed out") from None
            continue
        if count == 0:
            return None
        got += count
    return bytes(view[:got])
