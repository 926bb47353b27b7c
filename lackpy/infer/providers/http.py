"""A tiny JSON-over-HTTP client on the standard library, for the model tiers.

Model servers speak JSON (Ollama, OpenAI-compatible servers) and stream either
NDJSON or server-sent events. This module is all the HTTP those tiers need, so
lackpy needs no HTTP package. Every failure becomes an ``InferenceError`` that
names the URL: ``UnreachableError`` when nothing answers, ``HTTPStatusError``
(with ``status``) when the server answers with an error; providers catch those
two to say what to do in their own terms.

Loopback URLs bypass any proxy from the environment: a proxy cannot reach the
user's own 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

from lackpy.errors import InferenceError

#: How much of an error body a message quotes.
EXCERPT = 200

_LOOPBACK = ("localhost", "127.0.0.1", "::1")


class UnreachableError(InferenceError):
    """No usable answer from ``url``; ``kind`` is ``refused``, ``timeout``, ``unresolved``, ``invalid`` or ``broken``.

    Providers rephrase ``refused`` in their own terms ("start it with ...").
    """

    def __init__(self, url: str, message: str, kind: str = "broken") -> None:
        self.url = url
        self.kind = kind
        super().__init__(message)


class HTTPStatusError(InferenceError):
    """The server at ``url`` answered with HTTP ``status``; ``body`` is what it said."""

    def __init__(self, url: str, status: int, body: str) -> None:
        self.url = url
        self.status = status
        self.body = body
        super().__init__(f"{url} answered HTTP {status}: {error_detail(body) or '(empty body)'}; check the server's log")


def error_detail(body: str) -> str:
    """The message in an error body, one line: ``error.message`` or ``error`` of a JSON body, else the text."""
    try:
        obj = json.loads(body)
    except ValueError:
        return excerpt(body)
    error = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        error = error["message"]
    return excerpt(error if isinstance(error, str) else json.dumps(error))


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text`` on one line, cut to ``limit`` characters, for an error message."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def loads(text: str | bytes, url: str) -> Any:
    """Parse JSON a server sent; InferenceError naming ``url`` when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError):
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        raise InferenceError(f"{url} answered with invalid JSON: {excerpt(text)!r}; is it the right server?") from None


def get_json(url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 10.0) -> Any:
    """GET ``url`` and return its JSON answer."""
    with _open("GET", url, None, headers, timeout) as response:
        return loads(_guarded(response.read, url, timeout), url)


def post_json(url: str, body: Any, *, headers: Mapping[str, str] | None = None, timeout: float = 120.0) -> Any:
    """POST ``body`` as JSON to ``url`` and return its JSON answer."""
    with _open("POST", url, body, headers, timeout) as response:
        return loads(_guarded(response.read, url, timeout), url)


def stream_lines(url: str, body: Any, *, headers: Mapping[str, str] | None = None, timeout: float = 120.0) -> Iterator[str]:
    """POST ``body`` as JSON to ``url`` and yield its answer line by line, as it arrives.

    Lines come without their line ending. ``timeout`` bounds each wait for
    data, not the whole answer, so a long answer that keeps streaming is fine.
    """
    with _open("POST", url, body, headers, timeout) as response:
        while True:
            raw = _guarded(response.readline, url, timeout)
            if not raw:
                return
            yield raw.decode("utf-8", "replace").rstrip("\r\n")


def sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The ``data`` of each server-sent event in ``lines``.

    Comment lines (``:``, used as keep-alives) and the other fields (``event``,
    ``id``, ``retry``) are skipped; several ``data:`` lines of one event are
    joined with newlines, as the SSE standard says.
    """
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def _open(method: str, url: str, body: Any, headers: Mapping[str, str] | None, timeout: float):
    """Send the request; the open response, or the InferenceError that says why there is none."""
    import urllib.error
    import urllib.request

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InferenceError(f"{url!r} is not an http:// or https:// URL; fix the tier's host or base_url setting")
    all_headers = {"Accept": "application/json", "User-Agent": "lackpy"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    request = urllib.request.Request(url, data=data, headers=all_headers, method=method)
    if parts.hostname in _LOOPBACK or parts.hostname.startswith("127."):
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    else:
        opener = urllib.request.build_opener()
    try:
        return opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        try:
            text = exc.read().decode("utf-8", "replace")
        except Exception:  # the body is only for the message
            text = ""
        finally:
            exc.close()
        raise HTTPStatusError(url, exc.code, text) from None
    except urllib.error.URLError as exc:
        raise _unreachable(url, exc.reason, timeout) from None
    except Exception as exc:  # socket errors, a malformed answer, an invalid URL
        raise _unreachable(url, exc, timeout) from None


def _guarded(read, url: str, timeout: float) -> bytes:
    """Call ``read`` on an open response, turning socket and protocol errors into InferenceError."""
    try:
        return read()
    except Exception as exc:
        raise _unreachable(url, exc, timeout) from None


def _unreachable(url: str, reason: object, timeout: float) -> UnreachableError:
    """The error for a request that got no usable answer; ``reason`` is what urllib or the socket said."""
    if isinstance(reason, (socket.timeout, TimeoutError)):
        message = f"{url} did not answer within {timeout:g} s; check the server or raise the tier's timeout setting"
        return UnreachableError(url, message, "timeout")
    from http.client import InvalidURL

    if isinstance(reason, (ValueError, InvalidURL)):  # a bad port or host
        message = f"{url!r} is not a valid URL ({excerpt(str(reason))}); fix the tier's host or base_url setting"
        return UnreachableError(url, message, "invalid")
    if isinstance(reason, ConnectionRefusedError):
        message = f"no server answers at {url} (connection refused); start the server or fix the URL"
        return UnreachableError(url, message, "refused")
    if isinstance(reason, socket.gaierror):
        return UnreachableError(url, f"cannot resolve the host of {url}; fix the URL", "unresolved")
    if isinstance(reason, OSError):
        detail = reason.strerror or str(reason) or type(reason).__name__
        return UnreachableError(url, f"cannot talk to {url}: {excerpt(detail)}; check the server and the URL")
    return UnreachableError(url, f"{url} sent a broken answer ({type(reason).__name__}: {excerpt(str(reason))}); check the server")


__all__ = [
    "HTTPStatusError",
    "UnreachableError",
    "error_detail",
    "excerpt",
    "get_json",
    "loads",
    "post_json",
    "sse_data",
    "stream_lines",
]
