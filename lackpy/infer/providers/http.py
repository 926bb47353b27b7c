"""The JSON-over-HTTP client of the model tiers, on httpx.

Model servers speak JSON (Ollama, OpenAI-compatible servers) and stream either
NDJSON or server-sent events. This module is all the HTTP those tiers need.
httpx is an optional package (the ``ollama`` and ``openai`` extras), imported
only when a request is made: a tier calls ``require_httpx`` first, so that a
missing package says how to install it. Every failure becomes an
``InferenceError`` that names the URL: ``UnreachableError`` when nothing
answers, ``HTTPStatusError`` (with ``status``) when the server answers with an
error; providers catch those two to say what to do in their own terms.

Loopback URLs bypass any proxy from the environment: a proxy cannot reach the
user's own 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import ssl
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

from lackpy.errors import InferenceError

if TYPE_CHECKING:
    import httpx

#: How much of an error body a message quotes.
EXCERPT = 200

_LOOPBACK = ("localhost", "127.0.0.1", "::1")


class UnreachableError(InferenceError):
    """No usable answer from ``url``; ``reason`` is ``refused``, ``timeout``, ``unresolved``, ``invalid`` or ``broken``.

    Providers rephrase ``refused`` in their own terms ("start it with ...").
    """

    def __init__(self, url: str, message: str, reason: str = "broken") -> None:
        self.url = url
        self.reason = reason
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


def require_httpx(extra: str) -> None:
    """An InferenceError saying ``pip install 'lackpy[extra]'`` when httpx is not installed."""
    try:
        import httpx  # noqa: F401
    except ImportError:
        raise InferenceError(f"the httpx package is not installed (pip install 'lackpy[{extra}]')") from None


def get_json(url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 10.0) -> Any:
    """GET ``url`` and return its JSON answer."""
    with _open("GET", url, None, headers, timeout) as response:
        return loads(response.read(), url)


def post_json(url: str, body: Any, *, headers: Mapping[str, str] | None = None, timeout: float = 120.0) -> Any:
    """POST ``body`` as JSON to ``url`` and return its JSON answer."""
    with _open("POST", url, body, headers, timeout) as response:
        return loads(response.read(), url)


def stream_lines(url: str, body: Any, *, headers: Mapping[str, str] | None = None, timeout: float = 120.0) -> Iterator[str]:
    """POST ``body`` as JSON to ``url`` and yield its answer line by line, as it arrives.

    Lines come without their line ending. ``timeout`` bounds each wait for
    data, not the whole answer, so a long answer that keeps streaming is fine.
    """
    with _open("POST", url, body, headers, timeout) as response:
        yield from _lines(response.iter_bytes())


def _lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The lines of a byte stream, split at ``\\n`` only.

    Not ``str.splitlines``: JSON strings may hold U+2028 or U+0085 unescaped,
    and a line break there would cut a JSON line in two.
    """
    pending = b""
    for chunk in chunks:
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            yield line.decode("utf-8", "replace").rstrip("\r")
    if pending:
        yield pending.decode("utf-8", "replace").rstrip("\r")


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


@contextmanager
def _open(method: str, url: str, body: Any, headers: Mapping[str, str] | None, timeout: float) -> Iterator[httpx.Response]:
    """The streamed response to a request; a failure while sending or while reading as the InferenceError that says why."""
    import httpx

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InferenceError(f"{url!r} is not an http:// or https:// URL; fix the tier's host or base_url setting")
    all_headers = {"Accept": "application/json", "User-Agent": "lackpy"}
    content = None
    if body is not None:
        content = json.dumps(body).encode("utf-8")
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    try:
        with _client(parts.hostname, timeout) as client:
            with client.stream(method, url, content=content, headers=all_headers) as response:
                if not response.is_success:
                    raise HTTPStatusError(url, response.status_code, _error_body(response))
                yield response
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise _unreachable(url, exc, timeout) from None


def _client(host: str, timeout: float) -> httpx.Client:
    """A client that waits ``timeout`` seconds for each step; proxies from the environment, except for loopback hosts."""
    import httpx

    loopback = host in _LOOPBACK or host.startswith("127.")
    try:
        return httpx.Client(timeout=timeout, follow_redirects=True, trust_env=not loopback, verify=ssl.create_default_context())
    except (ImportError, ValueError) as exc:  # a SOCKS proxy without socksio, a proxy URL of another scheme
        raise InferenceError(f"cannot use the proxy set in the environment: {excerpt(str(exc))}") from None


def _error_body(response: httpx.Response) -> str:
    """The body of an error answer, for the message; empty when it cannot be read."""
    import httpx

    try:
        return response.read().decode("utf-8", "replace")
    except httpx.HTTPError:
        return ""


def _unreachable(url: str, exc: Exception, timeout: float) -> UnreachableError:
    """The error for a request that got no usable answer; ``exc`` is what httpx raised."""
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        message = f"{url} did not answer within {timeout:g} s; check the server or raise the tier's timeout setting"
        return UnreachableError(url, message, "timeout")
    if isinstance(exc, httpx.InvalidURL):  # a bad port or host
        message = f"{url!r} is not a valid URL ({excerpt(str(exc))}); fix the tier's host or base_url setting"
        return UnreachableError(url, message, "invalid")
    cause = _root_cause(exc)
    if isinstance(cause, ConnectionRefusedError):
        message = f"no server answers at {url} (connection refused); start the server or fix the URL"
        return UnreachableError(url, message, "refused")
    if isinstance(cause, socket.gaierror):
        return UnreachableError(url, f"cannot resolve the host of {url}; fix the URL", "unresolved")
    if isinstance(cause, OSError):
        detail = cause.strerror or str(cause) or type(cause).__name__
        return UnreachableError(url, f"cannot talk to {url}: {excerpt(detail)}; check the server and the URL")
    return UnreachableError(url, f"{url} sent a broken answer ({type(exc).__name__}: {excerpt(str(exc))}); check the server")


def _root_cause(exc: BaseException) -> BaseException:
    """The error at the bottom of a chain of wrapped errors: the socket's, when there is one."""
    while (inner := exc.__cause__ or exc.__context__) is not None:
        exc = inner
    return exc


__all__ = [
    "HTTPStatusError",
    "UnreachableError",
    "error_detail",
    "excerpt",
    "get_json",
    "loads",
    "post_json",
    "require_httpx",
    "sse_data",
    "stream_lines",
]
