"""Web tools: ``fetch_url`` reads a web page as text, ``web_search`` asks a search engine.

Standard library only. Both tools read the network and change nothing, and
every failure (a refused scheme, an HTTP error status, an unreachable host, a
timeout, binary content) becomes a one-line ``ToolError``.

Settings read from ``ctx.settings``:

- ``web_timeout_s`` (15): seconds for connecting and for each read; the body
  must also arrive within this many seconds in total.
- ``fetch_max_bytes`` (512 KiB): how much of a body ``fetch_url`` reads when
  the program does not say; never more than 10 MiB.
- ``web_search_url`` ("https://html.duckduckgo.com/html/?q={query}"): a
  DuckDuckGo-HTML-compatible endpoint; ``{query}`` is replaced by the
  URL-encoded query.

The tools are not registered here; ``SPECS`` and ``IMPLEMENTATIONS`` are for
the provider that integrates them.
"""

from __future__ import annotations

import codecs
import http.client
import re
import socket
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from http import HTTPStatus
from typing import Any, Callable
from urllib.parse import parse_qs, quote, quote_plus, urljoin, urlsplit, urlunsplit

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec

USER_AGENT = "lackpy"
DEFAULT_TIMEOUT_S = 15
DEFAULT_MAX_BYTES = 512 * 1024
MAX_BYTES_CEILING = 10 * 1024 * 1024
MAX_REDIRECTS = 5
DEFAULT_SEARCH_URL = "https://html.duckduckgo.com/html/?q={query}"
SEARCH_MAX_BYTES = 2 * 1024 * 1024
SEARCH_LIMIT_MAX = 20

_SCHEMES = ("http", "https")
_CHUNK = 64 * 1024
_WS = re.compile(r"\s+")
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~"
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE)
# Browsers read these labels as windows-1252 (WHATWG encoding standard).
_CHARSET_ALIASES = {"iso-8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252"}
_TEXT_TYPES = {
    "application/json", "application/xml", "application/javascript", "application/ecmascript",
    "application/x-javascript", "application/x-sh", "application/x-yaml", "application/yaml",
    "application/toml", "application/sql", "application/graphql", "application/x-ndjson",
}
_HTML_TYPES = {"text/html", "application/xhtml+xml"}


# --------------------------------------------------------------------------- tools


@uses_context
def fetch_url(ctx: ToolContext, url: str, max_bytes: int | None = None) -> str:
    """Return the text of an http(s) URL; HTML is simplified to plain text."""
    limit = _max_bytes(ctx, max_bytes)
    page = _get(ctx, _http_url(url, "fetch_url"), url, limit)
    text = page.text()
    if page.is_html:
        text = html_to_text(text, page.url)
    if page.truncated:
        text += f"\n[truncated after {page.limit} bytes]"
    return text


@uses_context
def web_search(ctx: ToolContext, query: str, limit: int = 5) -> list[dict]:
    """Return up to ``limit`` results ``{"title", "url", "snippet"}`` for ``query``."""
    if not isinstance(query, str):
        raise ToolError(f"web_search: query must be a str, not {type(query).__name__}")
    if not query.strip():
        raise ToolError("web_search: query is empty; give some search words")
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ToolError(f"web_search: limit must be an integer, not {limit!r}")
    limit = min(max(limit, 1), SEARCH_LIMIT_MAX)
    template = ctx.settings.get("web_search_url", DEFAULT_SEARCH_URL)
    if not isinstance(template, str) or "{query}" not in template:
        raise ToolError(f"the tool setting web_search_url must be a URL containing {{query}}, not {template!r}")
    address = template.replace("{query}", quote_plus(query.strip()))
    page = _get(ctx, _http_url(address, "web_search"), address, SEARCH_MAX_BYTES)
    parser = _ResultsParser(page.url)
    _feed(parser, page.text())
    results = _clean_results(parser.results)
    if not results and (page.status == 202 or any("anomaly" in name for name in parser.classes_seen)):
        raise ToolError(
            f"web_search: the search engine answered HTTP {page.status} without results "
            "(it is probably rate limiting or asking for a CAPTCHA); try again later"
        )
    return results[:limit]


# --------------------------------------------------------------------------- arguments and settings


def _show(url: Any) -> str:
    text = str(url)
    return text if len(text) <= 300 else text[:300] + "..."


def _http_url(url: Any, tool: str) -> str:
    """The request form of an http(s) URL, or a ToolError for anything else."""
    if not isinstance(url, str):
        raise ToolError(f"{tool}: url must be a str, not {type(url).__name__}")
    text = url.strip()
    try:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            raise ToolError(f"only http and https URLs can be fetched: {_show(url)}")
        if not parts.hostname:
            raise ToolError(f"not a valid URL (it has no host): {_show(url)}")
        parts.port  # raises ValueError for a port that is not a number
        netloc = parts.netloc
        if not netloc.isascii():
            netloc = netloc.encode("idna").decode("ascii")
    except ValueError as exc:  # includes UnicodeError from the idna codec
        raise ToolError(f"not a valid URL: {_show(url)} ({exc})") from None
    path = quote(parts.path, safe=_URL_SAFE) or "/"
    return urlunsplit((scheme, netloc, path, quote(parts.query, safe=_URL_SAFE), ""))


def _positive(value: Any, what: str, integer: bool) -> float:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:
        kind = "integer" if integer else "number"
        raise ToolError(f"{what} must be a positive {kind}, not {value!r}")
    return value


def _timeout(ctx: ToolContext) -> float:
    value = ctx.settings.get("web_timeout_s", DEFAULT_TIMEOUT_S)
    return float(_positive(value, "the tool setting web_timeout_s", integer=False))


def _max_bytes(ctx: ToolContext, max_bytes: Any) -> int:
    if max_bytes is None:
        value = ctx.settings.get("fetch_max_bytes", DEFAULT_MAX_BYTES)
        value = _positive(value, "the tool setting fetch_max_bytes", integer=True)
    else:
        value = _positive(max_bytes, "fetch_url: max_bytes", integer=True)
    return int(min(value, MAX_BYTES_CEILING))


# --------------------------------------------------------------------------- HTTP


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows at most MAX_REDIRECTS redirects, and only to http and https URLs."""

    # Our own hop count bounds the chain; switch off the standard loop checks.
    max_repeats = 100
    max_redirections = 100

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: D102 (urllib hook)
        location = headers.get("location") or headers.get("uri")
        if location:
            origin = getattr(req, "lackpy_origin", req.full_url)
            try:
                target = urljoin(req.full_url, location.strip())
                scheme = urlsplit(target).scheme.lower()
            except ValueError:
                fp.close()
                raise ToolError(f"bad redirect location {_show(location)!r} from {_show(req.full_url)}") from None
            if scheme not in _SCHEMES:
                fp.close()
                raise ToolError(f"only http and https URLs can be fetched: {_show(target)} (redirected from {_show(origin)})")
            if getattr(req, "lackpy_hops", 0) >= MAX_REDIRECTS:
                fp.close()
                raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}): {_show(origin)}")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102 (urllib hook)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            new.lackpy_hops = getattr(req, "lackpy_hops", 0) + 1
            new.lackpy_origin = getattr(req, "lackpy_origin", req.full_url)
        return new


def _opener() -> urllib.request.OpenerDirector:
    """An opener that speaks http and https only (no file:, ftp: or data: handlers)."""
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(context=ssl.create_default_context()),
        urllib.request.HTTPDefaultErrorHandler(),
        _Redirects(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    opener.addheaders = [("User-Agent", USER_AGENT)]
    return opener


def _reason(err: Any, timeout: float) -> str:
    """A short, lower-case description of why a connection or read failed."""
    if isinstance(err, TimeoutError):
        return f"timed out after {timeout:g} s"
    if isinstance(err, ConnectionRefusedError):
        return "connection refused"
    if isinstance(err, socket.gaierror):
        return f"host name not found ({err.strerror or err})"
    if isinstance(err, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({err.verify_message or err})"
    if isinstance(err, ssl.SSLError):
        return f"TLS error ({err.reason or err})"
    if isinstance(err, http.client.RemoteDisconnected):
        return "the server closed the connection without answering"
    if isinstance(err, ConnectionResetError):
        return "the connection was reset"
    if isinstance(err, http.client.IncompleteRead):
        return "the server closed the connection before sending the whole body"
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err) or type(err).__name__


def _is_text(content_type: str) -> bool:
    main, _, sub = content_type.partition("/")
    return main == "text" or content_type in _TEXT_TYPES or content_type in _HTML_TYPES or sub.endswith(("+json", "+xml"))


@dataclass
class _Page:
    url: str  # the final URL, after redirects
    status: int
    content_type: str | None
    charset: str | None
    body: bytes
    truncated: bool
    limit: int

    @property
    def is_html(self) -> bool:
        if self.content_type is not None:
            return self.content_type in _HTML_TYPES
        head = self.body[:512].lstrip().lower()
        return head.startswith((b"<!doctype html", b"<html"))

    def text(self) -> str:
        body, charset = self.body, self.charset
        if body.startswith(codecs.BOM_UTF8):
            body, charset = body[len(codecs.BOM_UTF8):], "utf-8"
        if not charset and self.is_html:
            match = _META_CHARSET.search(body[:4096])
            charset = match.group(1).decode("ascii").lower() if match else None
        charset = _CHARSET_ALIASES.get(charset or "utf-8", charset or "utf-8")
        try:
            decoder = codecs.getincrementaldecoder(charset)(errors="replace")
        except LookupError:
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        # A truncated body may end inside a multi-byte character: leave it out.
        return decoder.decode(body, final=not self.truncated)


def _get(ctx: ToolContext, address: str, shown: Any, limit: int) -> _Page:
    """GET ``address`` and read at most ``limit`` bytes of a text body."""
    timeout = _timeout(ctx)
    shown = _show(shown)
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(address, headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/*;q=0.9,*/*;q=0.5"})
    try:
        response = _opener().open(request, timeout=timeout)
    except ToolError:
        raise
    except urllib.error.HTTPError as exc:
        exc.close()
        try:
            phrase = HTTPStatus(exc.code).phrase
        except ValueError:
            phrase = str(exc.reason or "").strip() or "error"
        raise ToolError(f"HTTP {exc.code} {phrase}: {_show(exc.filename or shown)}") from None
    except urllib.error.URLError as exc:
        raise ToolError(f"cannot reach {shown}: {_reason(exc.reason, timeout)}") from None
    except (OSError, http.client.HTTPException) as exc:
        raise ToolError(f"cannot reach {shown}: {_reason(exc, timeout)}") from None
    except ValueError as exc:
        raise ToolError(f"not a valid URL: {shown} ({exc})") from None
    with response:
        final_url = getattr(response, "url", None) or address
        raw_type = response.headers.get("Content-Type")
        content_type = response.headers.get_content_type() if raw_type else None
        if content_type is not None and not _is_text(content_type):
            raise ToolError(f"not text: {content_type}")
        body, truncated = _read(response, limit, deadline, shown, timeout)
        if content_type is None and b"\x00" in body[:8192]:
            raise ToolError("not text: the response has no content type and looks binary")
        return _Page(final_url, response.status, content_type, response.headers.get_content_charset(), body, truncated, limit)


def _read(response: Any, limit: int, deadline: float, shown: str, timeout: float) -> tuple[bytes, bool]:
    """Read up to ``limit`` bytes; also say whether the body went on past them."""
    read = getattr(response, "read1", response.read)
    body = bytearray()
    try:
        while len(body) < limit:
            chunk = read(min(_CHUNK, limit - len(body)))
            if not chunk:
                return bytes(body), False
            body += chunk
            if time.monotonic() > deadline:
                raise ToolError(f"cannot read {shown}: the body did not arrive within {timeout:g} s")
    except ToolError:
        raise
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise ToolError(f"cannot read {shown}: {_reason(exc, timeout)}") from None
    remaining = getattr(response, "length", None)
    if remaining is not None:
        return bytes(body), remaining > 0
    try:
        return bytes(body), bool(read(1))
    except (OSError, http.client.HTTPException, ValueError):
        return bytes(body), True  # cannot tell; say there may be more


def _feed(parser: HTMLParser, text: str) -> None:
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # noqa: BLE001 - a broken page yields what was parsed so far
        pass


# --------------------------------------------------------------------------- HTML to text

_SKIP = {"script", "style", "head", "title", "noscript", "template", "svg", "iframe", "object", "canvas"}
_PARAGRAPH = {
    "p", "pre", "ul", "ol", "dl", "table", "blockquote", "section", "article", "header", "footer", "nav",
    "main", "aside", "figure", "form", "fieldset", "details", "address", "hr",
    "h1", "h2", "h3", "h4", "h5", "h6",
}
_LINE = {"div", "br", "li", "tr", "dt", "dd", "figcaption", "summary", "caption", "option", "center"}


class _TextExtractor(HTMLParser):
    """Collects the readable text of a page as lines; see ``html_to_text``."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base_url
        self.lines: list[str] = []
        self.cur: list[str] = []  # fragments of the line being built
        self.cur_raw = False  # the line holds <pre> text: keep its spaces
        self.cur_prefix = ""
        self.next_prefix = ""  # "- ", "1. " or "## " for the next line that gets text
        self.pending = 0  # line breaks owed before the next text: 1 newline, 2 blank line
        self.skip: dict[str, int] = {}
        self.pre = 0
        self.pre_start = False
        self.lists: list[list] = []  # [tag, items so far]
        self.cells = 0
        self.link: str | None = None  # shown href of the open <a>, "" when it is not shown
        self.link_text: list[str] = []

    # -- output

    def _end_line(self, keep_blank: bool = False) -> None:
        text = "".join(self.cur)
        text = text.rstrip() if self.cur_raw else _WS.sub(" ", text).strip()
        if text or keep_blank:
            self.lines.append(self.cur_prefix + text if text else "")
        self.cur, self.cur_raw, self.cur_prefix = [], False, ""

    def _break(self, strength: int) -> None:
        self.pending = max(self.pending, strength)

    def _write(self, text: str, raw: bool = False) -> None:
        if self.pending:
            if self.cur:
                self._end_line()
            if self.pending == 2 and self.lines and self.lines[-1] != "":
                self.lines.append("")
            self.pending = 0
        if not self.cur:
            self.cur_prefix, self.next_prefix = self.next_prefix, ""
        self.cur.append(text)
        self.cur_raw = self.cur_raw or raw

    def text(self) -> str:
        self._close_link()  # a page may end inside an unclosed <a>
        if self.cur:
            self._end_line()
        out: list[str] = []
        for line in self.lines:
            if line or (out and out[-1]):
                out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)

    # -- parser hooks

    @property
    def skipping(self) -> bool:
        return any(self.skip.values())

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "base":
            href = dict(attrs).get("href")
            if href:
                try:
                    self.base = urljoin(self.base, href.strip())
                except ValueError:
                    pass
            return
        if tag == "body":
            self.skip.pop("head", None)  # an unclosed <head> ends where <body> starts
            return
        if tag in _SKIP:
            self.skip[tag] = self.skip.get(tag, 0) + 1
            return
        if self.skipping:
            return
        if tag in ("ul", "ol"):
            self._break(1 if self.lists else 2)
            self.lists.append([tag, 0])
        elif tag == "li":
            self._break(1)
            indent = "  " * max(len(self.lists) - 1, 0)
            if self.lists and self.lists[-1][0] == "ol":
                self.lists[-1][1] += 1
                self.next_prefix = f"{indent}{self.lists[-1][1]}. "
            else:
                self.next_prefix = f"{indent}- "
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._break(2)
            self.next_prefix = "#" * int(tag[1]) + " "
        elif tag == "pre":
            self._break(2)
            self.pre += 1
            self.pre_start = True
        elif tag == "tr":
            self._break(1)
            self.cells = 0
        elif tag in ("td", "th"):
            if self.cells:
                self._write(" | ")
            self.cells += 1
        elif tag == "a":
            self._close_link()
            self.link = self._shown_href(dict(attrs).get("href"))
            self.link_text = []
        elif tag in _PARAGRAPH:
            self._break(2)
        elif tag in _LINE:
            self._break(1)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            if self.skip.get(tag):
                self.skip[tag] -= 1
            return
        if self.skipping:
            return
        if tag in ("ul", "ol"):
            if self.lists and self.lists[-1][0] == tag:
                self.lists.pop()
            self._break(1 if self.lists else 2)
        elif tag == "pre":
            self.pre = max(self.pre - 1, 0)
            self._break(2)
        elif tag == "a":
            self._close_link()
        elif tag in _PARAGRAPH:
            self._break(2)
            self.next_prefix = ""  # an empty heading leaves no prefix behind
        elif tag in _LINE and tag != "br":
            if tag == "li":
                self.next_prefix = ""
            self._break(1)

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.link is not None:
            self.link_text.append(data)
        if self.pre:
            if self.pre_start and data.startswith("\n"):
                data = data[1:]  # a newline right after <pre> is not content
            self.pre_start = False
            for i, part in enumerate(data.split("\n")):
                if i:
                    self._end_line(keep_blank=True)
                if part:
                    self._write(part, raw=True)
                elif not self.cur:
                    self.cur_raw = True
            return
        text = _WS.sub(" ", data)
        if not text.strip():
            if self.cur and not self.pending and text:
                self.cur.append(" ")
            return
        self._write(text)

    def _shown_href(self, href: str | None) -> str:
        if not href or href.strip().startswith("#"):
            return ""
        try:
            target = urljoin(self.base, href.strip())
            return target if urlsplit(target).scheme.lower() in _SCHEMES else ""
        except ValueError:  # e.g. a malformed IPv6 host
            return ""

    def _close_link(self) -> None:
        if self.link is None:
            return
        href, text = self.link, _WS.sub(" ", "".join(self.link_text)).strip()
        self.link, self.link_text = None, []
        if href and text and href not in text:
            self._write(f" ({href})")


def html_to_text(html: str, base_url: str = "") -> str:
    """Readable text of an HTML page.

    - script, style, head (and title), noscript, template, svg, iframe, object
      and canvas are dropped with everything inside them;
    - paragraph-level blocks (p, h1-h6, ul, ol, table, pre, blockquote, nav,
      section, ...) are separated by a blank line; div, br, li, tr, dt, dd start
      a new line;
    - runs of whitespace collapse to one space and lines are stripped, except
      inside pre, whose lines are kept as they are;
    - headings get a markdown ``#`` prefix, list items ``- `` or ``1. ``
      (indented two spaces per nesting level), table cells are joined with
      `` | ``;
    - a link keeps its text followed by `` (absolute http(s) URL)``; fragment-only,
      javascript: and mailto: links keep just their text.
    """
    parser = _TextExtractor(base_url)
    _feed(parser, html)
    return parser.text()


# --------------------------------------------------------------------------- search results


def _classes(attrs: list) -> set[str]:
    for name, value in attrs:
        if name == "class" and value:
            return set(value.split())
    return set()


class _ResultsParser(HTMLParser):
    """Results of a DuckDuckGo HTML (or lite) page: title links, then their snippets."""

    TITLE = {"result__a", "result-link"}
    SNIPPET = {"result__snippet", "result-snippet"}

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base_url
        self.results: list[dict] = []
        self.classes_seen: set[str] = set()
        self.field: str | None = None  # "title" or "snippet" while inside one
        self.field_tag = ""
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if self.field is not None:
            if tag == self.field_tag:
                self.depth += 1
            elif tag in _PARAGRAPH or tag in _LINE:
                self.parts.append(" ")  # "a<br>b" reads "a b"
            return
        classes = _classes(attrs)
        self.classes_seen |= classes
        if tag == "a" and classes & self.TITLE:
            href = dict(attrs).get("href") or ""
            self.results.append({"title": "", "url": _unwrap(href, self.base), "snippet": ""})
            self._open("title", tag)
        elif classes & self.SNIPPET and self.results and not self.results[-1]["snippet"]:
            self._open("snippet", tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if self.field is None:
            self.classes_seen |= _classes(attrs)
        elif tag in _LINE:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self.field is None or tag != self.field_tag:
            return
        if self.depth:
            self.depth -= 1
            return
        self.results[-1][self.field] = _WS.sub(" ", "".join(self.parts)).strip()
        self.field, self.parts = None, []

    def handle_data(self, data: str) -> None:
        if self.field is not None:
            self.parts.append(data)

    def _open(self, field: str, tag: str) -> None:
        self.field, self.field_tag, self.depth, self.parts = field, tag, 0, []


def _unwrap(href: str, base: str) -> str:
    """The real target of a DuckDuckGo redirect link ``/l/?uddg=<url>``, else the link itself."""
    try:
        target = urljoin(base, href.strip())
        parts = urlsplit(target)
    except ValueError:  # e.g. a malformed IPv6 host: not a usable result
        return ""
    if parts.path in ("/l", "/l/"):
        wrapped = parse_qs(parts.query).get("uddg")
        if wrapped and wrapped[0]:
            return wrapped[0].strip()
    return target


def _clean_results(raw: list[dict]) -> list[dict]:
    """Drop ads, untitled and non-http(s) entries and repeated URLs."""
    seen: set[str] = set()
    results = []
    for item in raw:
        try:
            parts = urlsplit(item["url"])
        except ValueError:
            continue
        host = (parts.hostname or "").lower()
        is_ad = (host == "duckduckgo.com" or host.endswith(".duckduckgo.com")) and parts.path.startswith("/y.js")
        if is_ad or not item["title"] or parts.scheme.lower() not in _SCHEMES or item["url"] in seen:
            continue
        seen.add(item["url"])
        results.append({"title": item["title"], "url": item["url"], "snippet": item["snippet"]})
    return results


# --------------------------------------------------------------------------- specs

SPECS = [
    ToolSpec(
        name="fetch_url",
        provider="builtin",
        description=(
            "Fetch an http(s) URL and return its text; HTML pages are simplified to plain text "
            "with links as 'text (url)'. Reads at most max_bytes (default 512 KiB, at most 10 MiB)"
        ),
        args=[
            ArgSpec("url", "str", "An http:// or https:// URL"),
            ArgSpec("max_bytes", "int", "Read at most this many bytes of the body (at most 10 MiB)", required=False, default=None),
        ],
        returns="str",
        grade_w=2,
        effects_ceiling=0,
        docs="docs/tools/fetch_url.md",
        examples=[
            'text = fetch_url("https://docs.python.org/3/library/json.html")\ntext.splitlines()[:20]',
            'page = fetch_url(web_search("PEP 8 line length")[0]["url"], max_bytes=100000)\n"79" in page',
        ],
        tags=["web", "http", "url", "fetch", "download", "page", "read", "internet"],
    ),
    ToolSpec(
        name="web_search",
        provider="builtin",
        description="Search the web; returns up to limit (1-20) results as {title, url, snippet}",
        args=[
            ArgSpec("query", "str", "Search words, e.g. 'python asyncio wait_for timeout'"),
            ArgSpec("limit", "int", "How many results to return (1 to 20)", required=False, default=5),
        ],
        returns="list[dict]",
        grade_w=2,
        effects_ceiling=0,
        docs="docs/tools/web_search.md",
        examples=['hits = web_search("python asyncio timeout", limit=3)\n[h["url"] for h in hits]'],
        tags=["web", "search", "internet", "find", "lookup", "query", "documentation"],
    ),
]

IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "fetch_url": fetch_url,
    "web_search": web_search,
}
