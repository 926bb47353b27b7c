"""A person authorizes lackpy in their browser: the ``Authorizer`` of ``lackpy mcp login`` (``lackpy.remote.oauth``).

The authorization URL is shown on stderr and opened in the browser when
there is one. The authorization server sends the browser back to the
loopback address in the URL's ``redirect_uri`` (``127.0.0.1``, RFC 8252),
where a one-request listener takes the answer. When the browser runs on
another machine, the person pastes the address it was sent to (it fails to
load there) into the terminal instead; whichever comes first is taken.
The answer's ``state`` and ``iss`` are checked by the SDK's flow, so a
stray request to the listener cannot log anyone in.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import webbrowser
from typing import Callable
from urllib.parse import parse_qs, urlsplit

from lackpy.errors import AuthError

#: How long the listener waits for one request's head, in seconds.
HEAD_S = 10.0
_PAGE = b"<!doctype html><title>lackpy</title><p>lackpy has your answer. You can close this tab and go back to the terminal.</p>"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def in_browser(open_browser: bool = True, paste: bool | None = None, say: Callable[[str], None] = _say):
    """An ``Authorizer``: the browser (``open_browser``), the loopback listener, and a pasted address (``paste``: stdin is a terminal)."""

    async def authorize(url: str) -> str:
        if not url.isprintable() or urlsplit(url).scheme not in ("https", "http"):
            raise AuthError("the authorization server's address is not a plain http(s) URL; lackpy does not show or open it")
        redirect = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
        target = urlsplit(redirect)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future = loop.create_future()
        server = await _listen(target, redirect, answer) if target.hostname == "127.0.0.1" and target.port else None
        try:
            say(f"lackpy: to log in, open this address in a browser:\n\n  {url}\n")
            if open_browser:
                await loop.run_in_executor(None, webbrowser.open, url)
            if paste if paste is not None else sys.stdin.isatty():
                say("lackpy: waiting for the browser; or paste here the address it was sent to, then Enter:")
                threading.Thread(target=_read_line, args=(loop, answer), daemon=True).start()
            elif server is None:
                raise AuthError("the authorization server's answer cannot be taken here: no loopback redirect and no terminal to paste it in")
            return await answer
        finally:
            if server is not None:
                server.close()

    return authorize


async def _listen(target, redirect: str, answer: asyncio.Future) -> asyncio.AbstractServer:
    """Listen on the redirect's loopback port; the first GET of its path answers ``answer``."""
    base = redirect.split("?", 1)[0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), HEAD_S)
            while (await asyncio.wait_for(reader.readline(), HEAD_S)).strip():
                pass
            method, _, rest = line.decode("latin-1").partition(" ")
            path = urlsplit(rest.split(" ", 1)[0])
            if method == "GET" and path.path == target.path and path.query:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(_PAGE) + _PAGE)
                if not answer.done():
                    answer.set_result(f"{base}?{path.query}")
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
        except (OSError, ValueError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()

    try:
        return await asyncio.start_server(handle, "127.0.0.1", target.port)
    except OSError as exc:
        raise AuthError(
            f"lackpy cannot listen on 127.0.0.1:{target.port} for the browser's answer ({exc.strerror}); "
            "set another redirect_port in the server's oauth table"
        ) from None


def _read_line(loop: asyncio.AbstractEventLoop, answer: asyncio.Future) -> None:
    try:
        line = sys.stdin.readline()
    except (OSError, ValueError):
        return
    if line.strip():
        loop.call_soon_threadsafe(lambda: answer.done() or answer.set_result(line.strip()))


__all__ = ["in_browser"]
