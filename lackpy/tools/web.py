"""Web tools: ``fetch_url`` reads a web page as text, ``web_search`` asks a search engine.

Both need the ``web`` extra (``pip install 'lackpy[web]'``): httpx speaks HTTP
and markdownify turns HTML into Markdown-like text. They are imported only when
a tool runs, so importing this module stays cheap and works without them. Both
tools read the network and change nothing, and every failure (a missing
package, a refused scheme, an HTTP error status, an unreachable host, a
timeout, binary content) becomes a one-line ``ToolError``.

Settings read from ``ctx.settings``:

- ``web_timeout_s`` (15): seconds for connecting and for each read; the body
  must also arrive within this many seconds in total.
- ``fetch_max_bytes`` (512 KiB): how much of a body ``fetch_url`` reads when
  the program does not say; never more than 10 MiB.
- ``web_search_url`` ("https://html.duckduckgo.com/html/?q={query}"): a
  DuckDuckGo-HTML-compatible endpoint; ``{query}`` is replaced by the
  URL-encoded query.
- ``allow_private_addresses`` (false): fetch from loopback, private,
  link-local and other non-global addresses too (see below); true or false.

Neither tool reaches the user's own machine or network unless
``allow_private_addresses`` is true: a host whose name resolves to any
address that is not global (``address_refusal``) is refused, for the first
request and for every redirect. A direct connection resolves the name once,
checks every address and connects to a checked address (``_CheckedBackend``),
so a name that resolves differently the second time (DNS rebinding) cannot
slip through; TLS and the Host header still use the name. Through a proxy
from the environment the proxy, which is the user's own choice, is not
checked; the target is, by resolving its name here. The proxy resolves the
name again itself, so there a name that changes its addresses between the two
lookups, or that only the proxy can resolve, is not caught. Nor is a global
address that leads back inside: this machine's own public address, or a
router's port forwarding.

The tools are not registered here; ``SPECS`` and ``IMPLEMENTATIONS`` are for
the provider that integrates them.
"""

from __future__ import annotations

import codecs
import importlib
import ipaddress
import re
import socket
import ssl
import time
from contextlib import closing
from dataclasses import dataclass
from email.message import Message
from functools import partial
from html.parser import HTMLParser
from http import HTTPStatus
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote, quote_plus, urljoin, urlsplit, urlunsplit

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools import shipped

if TYPE_CHECKING:
    import httpx

USER_AGENT = "lackpy"
DEFAULT_TIMEOUT_S = 15
DEFAULT_MAX_BYTES = 512 * 1024
MAX_BYTES_CEILING = 10 * 1024 * 1024
MAX_REDIRECTS = 5
DEFAULT_SEARCH_URL = "https://html.duckduckgo.com/html/?q={query}"
SEARCH_MAX_BYTES = 2 * 1024 * 1024
SEARCH_LIMIT_MAX = 20

_SCHEMES = ("http", "https")
_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "text/html,text/*;q=0.9,*/*;q=0.5",
    # An unencoded body is what max_bytes counts, and cannot inflate past it.
    "Accept-Encoding": "identity",
}
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
_PRIVATE_HELP = "lackpy does not fetch private or local addresses unless [tools] allow_private_addresses = true in .lackpy/config.toml"


# --------------------------------------------------------------------------- tools


_TAGS = ["web", "internet"]


@shipped(
    grade=(2, 0),
    docs="docs/tools/fetch_url.md",
    examples=[
        'text = fetch_url("https://docs.python.org/3/library/json.html")\ntext.splitlines()[:20]',
        'page = fetch_url(web_search("PEP 8 line length")[0]["url"], max_bytes=100000)\n"79" in page',
    ],
    tags=_TAGS + ["http", "https", "url", "fetch", "download", "page", "read", "website", "html", "retrieve"],
    category="research",
    approval="call",
    dry_run="run",
)
def fetch_url(ctx: ToolContext, url: str, max_bytes: int | None = None) -> str:
    """Fetch an http(s) URL and return its text; HTML pages become Markdown-like text with links as 'text (url)'. Reads at most max_bytes (default 512 KiB, at most 10 MiB).

    Args:
        url: An http:// or https:// URL.
        max_bytes: Read at most this many bytes of the body (at most 10 MiB).
    """
    limit = _max_bytes(ctx, max_bytes)
    page = _get(ctx, "fetch_url", _http_url(url, "fetch_url"), url, limit)
    text = page.text()
    if page.is_html:
        text = html_to_text(text, page.url)
    if page.truncated:
        text += f"\n[truncated after {page.limit} bytes]"
    return text


@shipped(
    grade=(2, 0),
    docs="docs/tools/web_search.md",
    examples=['hits = web_search("python asyncio timeout", limit=3)\n[h["url"] for h in hits]'],
    tags=_TAGS + ["search", "find", "lookup", "query", "documentation", "google", "research", "results"],
    category="research",
    approval="call",
    dry_run="run",
)
def web_search(ctx: ToolContext, query: str, limit: int = 5) -> list[dict]:
    """Search the web; returns up to limit (1-20) results as {title, url, snippet}.

    Args:
        query: Search words, e.g. 'python asyncio wait_for timeout'.
        limit: How many results to return (1 to 20).
    """
    if not query.strip():
        raise ToolError("web_search: query is empty; give some search words")
    limit = min(max(limit, 1), SEARCH_LIMIT_MAX)
    template = ctx.settings.get("web_search_url", DEFAULT_SEARCH_URL)
    if not isinstance(template, str) or "{query}" not in template:
        raise ToolError(f"the tool setting web_search_url must be a URL containing {{query}}, not {template!r}")
    address = template.replace("{query}", quote_plus(query.strip()))
    page = _get(ctx, "web_search", _http_url(address, "web_search"), address, SEARCH_MAX_BYTES)
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


def _http_url(url: str, tool: str) -> str:
    """The request form of an http(s) URL, or a ToolError for anything else."""
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


def _allow_private(ctx: ToolContext) -> bool:
    value = ctx.settings.get("allow_private_addresses", False)
    if not isinstance(value, bool):
        raise ToolError(f"the tool setting allow_private_addresses must be true or false (unquoted in .lackpy/config.toml), not {value!r}")
    return value


def _max_bytes(ctx: ToolContext, max_bytes: Any) -> int:
    if max_bytes is None:
        value = ctx.settings.get("fetch_max_bytes", DEFAULT_MAX_BYTES)
        value = _positive(value, "the tool setting fetch_max_bytes", integer=True)
    else:
        value = _positive(max_bytes, "fetch_url: max_bytes", integer=True)
    return int(min(value, MAX_BYTES_CEILING))


def _web_package(name: str) -> ModuleType:
    """Import ``name``, a package of the ``web`` extra; a ToolError that says how to install it when it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ToolError(f"the web tools need the {name} package, which is not installed: pip install 'lackpy[web]'") from None


# --------------------------------------------------------------------------- HTTP


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


def _get(ctx: ToolContext, tool: str, address: str, shown: Any, limit: int) -> _Page:
    """GET ``address`` and read at most ``limit`` bytes of a text body."""
    httpx = _web_package("httpx")
    timeout = _timeout(ctx)
    checked = not _allow_private(ctx)
    shown = _show(shown)
    deadline = time.monotonic() + timeout
    with (
        _client(httpx, timeout, address, checked) as client,
        closing(_open(client, tool, address, shown, timeout, checked)) as response,
    ):
        _check_status(response)
        content_type, charset = _media_type(response.headers.get("Content-Type"))
        if content_type is not None and not _is_text(content_type):
            raise ToolError(f"not text: {content_type}")
        _check_unencoded(response, shown)
        body, truncated = _read(response, limit, deadline, shown, timeout)
    if content_type is None and b"\x00" in body[:8192]:
        raise ToolError("not text: the response has no content type and looks binary")
    return _Page(str(response.url), response.status_code, content_type, charset, body, truncated, limit)


def _client(httpx: ModuleType, timeout: float, origin: str, checked: bool) -> httpx.Client:
    """A client with lackpy's headers and timeout that vets each redirect; proxies come from the environment.

    When ``checked``, its direct connections go only to global addresses.
    """
    try:
        client = httpx.Client(
            headers=_HEADERS,
            timeout=timeout,
            verify=ssl.create_default_context(),
            event_hooks={"response": [partial(_check_redirect, origin=origin)]},
        )
    except (ImportError, ValueError) as exc:  # a SOCKS proxy without socksio, a proxy URL of another scheme
        raise ToolError(f"cannot use the proxy set in the environment: {exc}") from None
    if checked:
        _check_connections(client)
    return client


def _check_connections(client: httpx.Client) -> None:
    """Make every direct connection of ``client`` go through ``_CheckedBackend``.

    Direct connections (no proxy, or a host NO_PROXY names) come from the
    connection pool of the client's own transport. httpx offers no public way
    to give that pool a network backend while keeping the environment's
    proxies (a ``transport=`` argument turns them off), so lackpy sets the
    pool's backend itself, and refuses to go on unchecked when an httpx
    version lays the pool out differently.
    """
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not hasattr(pool, "_network_backend"):
        client.close()
        raise ToolError(
            "this httpx version does not let lackpy check the addresses it connects to; "
            "install httpx 0.27 or 0.28, or set [tools] allow_private_addresses = true in .lackpy/config.toml"
        )
    pool._network_backend = _CheckedBackend(pool._network_backend)


def _open(client: httpx.Client, tool: str, address: str, shown: str, timeout: float, checked: bool) -> httpx.Response:
    """The response to GET ``address`` after at most MAX_REDIRECTS redirects, its body not read yet.

    Redirects are followed here rather than by httpx, which would read the
    whole body of each redirect however large; ``_check_redirect`` has vetted
    each one before it is followed. When ``checked``, the host of every
    request is checked before it is sent (what a proxy connects to is checked
    only here), and again as a direct connection is made.
    """
    import httpx

    target, redirected = shown, ""
    try:
        request = client.build_request("GET", address)
        for _ in range(MAX_REDIRECTS + 1):
            if checked:
                _check_host(request.url.raw_host.decode("ascii"))
            response = client.send(request, stream=True)
            if response.next_request is None:
                return response
            response.close()
            request = response.next_request
            target, redirected = _show(request.url), f" (redirected from {_show(address)})"
    except _Refused as refused:
        raise ToolError(f"{tool}: {target} resolves to {refused.address}, {refused.kind}{redirected}; {_PRIVATE_HELP}") from None
    except httpx.InvalidURL as exc:
        raise ToolError(f"not a valid URL: {shown} ({exc})") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"cannot reach {shown}: {_reason(exc, timeout)}") from None
    raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}): {_show(address)}")


def _check_redirect(response: httpx.Response, origin: str) -> None:
    """Refuse a redirect whose Location is malformed or not an http or https URL.

    A response hook: it runs before httpx reads the Location to build the next
    request (whose transport speaks only http and https besides).
    """
    if not response.has_redirect_location:
        return
    location = response.headers["Location"]
    try:
        target = urljoin(str(response.url), location.strip())
        scheme = urlsplit(target).scheme.lower()
    except ValueError:
        raise ToolError(f"bad redirect location {_show(location)!r} from {_show(response.url)}") from None
    if scheme not in _SCHEMES:
        raise ToolError(f"only http and https URLs can be fetched: {_show(target)} (redirected from {_show(origin)})")


def _check_status(response: httpx.Response) -> None:
    """A ToolError naming the status and the final URL unless the answer is a success (2xx)."""
    if response.is_success:
        return
    try:
        phrase = HTTPStatus(response.status_code).phrase
    except ValueError:
        phrase = response.reason_phrase.strip() or "error"
    raise ToolError(f"HTTP {response.status_code} {phrase}: {_show(response.url)}")


def _check_unencoded(response: httpx.Response, shown: str) -> None:
    """Refuse a compressed body: lackpy asks for none, and reads the bytes as they come."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ToolError(f"cannot read {shown}: the server sent a {encoding}-compressed body although none was asked for")


def _media_type(header: str | None) -> tuple[str | None, str | None]:
    """The media type (``text/html``) and charset of a Content-Type header, both lower case; None for what is missing."""
    if not header:
        return None, None
    message = Message()
    message["Content-Type"] = header
    return message.get_content_type(), message.get_content_charset()


def _is_text(content_type: str) -> bool:
    main, _, sub = content_type.partition("/")
    return main == "text" or content_type in _TEXT_TYPES or content_type in _HTML_TYPES or sub.endswith(("+json", "+xml"))


def _read(response: httpx.Response, limit: int, deadline: float, shown: str, timeout: float) -> tuple[bytes, bool]:
    """Read up to ``limit`` bytes as they arrive; also say whether the body went on past them.

    At most one network read past ``limit`` is held in memory, and the rest is
    never read.
    """
    import httpx

    body = bytearray()
    try:
        for chunk in response.iter_raw():
            body += chunk
            if len(body) > limit:
                return bytes(body[:limit]), True
            if time.monotonic() > deadline:
                raise ToolError(f"cannot read {shown}: the body did not arrive within {timeout:g} s")
    except httpx.HTTPError as exc:
        raise ToolError(f"cannot read {shown}: {_reason(exc, timeout)}") from None
    return bytes(body), False


def _reason(exc: Exception, timeout: float) -> str:
    """A short, lower-case description of why a connection or read failed."""
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {timeout:g} s"
    cause = _root_cause(exc)
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(cause, socket.gaierror):
        return f"host name not found ({cause.strerror or cause})"
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({cause.verify_message or cause})"
    if isinstance(cause, ssl.SSLError):
        return f"TLS error ({cause.reason or cause})"
    if isinstance(cause, ConnectionResetError):
        return "the connection was reset"
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


def _root_cause(exc: BaseException) -> BaseException:
    """The error at the bottom of a chain of wrapped errors: the socket's or the TLS layer's."""
    while (inner := exc.__cause__ or exc.__context__) is not None:
        exc = inner
    return exc


# --------------------------------------------------------------------------- private addresses

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_SHARED = ipaddress.ip_network("100.64.0.0/10")


class _Refused(Exception):
    """A host resolved to an address lackpy does not connect to; ``_open`` turns it into a ToolError."""

    def __init__(self, address: str, kind: str) -> None:
        super().__init__(f"{address}, {kind}")
        self.address = address
        self.kind = kind


def address_refusal(address: str) -> str | None:
    """Why lackpy does not connect to the IP address ``address`` ("a loopback address"); None for a global address.

    An IPv4 address inside an IPv6 one (IPv4-mapped ``::ffff:a.b.c.d``, 6to4
    ``2002::/16`` and NAT64 ``64:ff9b::/96``) is judged as that IPv4 address.
    Shared addresses (100.64.0.0/10, carrier-grade NAT) are refused too: they
    are not global, and some clouds serve instance metadata from them.
    """
    ip = ipaddress.ip_address(address)
    if ip.version == 6:
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        ip = inner or ip
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip in _UNIQUE_LOCAL:
        return "a unique-local address"
    if ip in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if ip.is_private:
        return "a private address"
    if ip.version == 6 and ip.is_site_local:
        return "a site-local address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "a non-global address"
    return None


def _resolve(host: str) -> list[str]:
    """The addresses ``host`` (a name or an IP address) resolves to, in the resolver's order."""
    return list(dict.fromkeys(info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)))


def _checked_addresses(host: str) -> list[str]:
    """The addresses of ``host``; ``_Refused`` unless every one of them is global."""
    addresses = _resolve(host)
    for address in addresses:
        kind = address_refusal(address)
        if kind is not None:
            raise _Refused(address, kind)
    return addresses


def _check_host(host: str) -> None:
    """``_Refused`` when ``host`` resolves to an address that is not global.

    A name that does not resolve here passes: a direct connection reports it
    as not found, and a proxy may know it.
    """
    try:
        _checked_addresses(host)
    except (OSError, UnicodeError):
        pass


class _CheckedBackend:
    """An httpcore network backend that connects only to global addresses.

    It resolves the host once, refuses it unless every address is global, and
    connects to those very addresses, so the address checked is the address
    connected to. httpcore gives TLS the host name (for SNI and the
    certificate check), and the Host header comes from the URL.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Any = None
    ) -> Any:
        import httpcore

        try:
            addresses = _checked_addresses(host)
        except (OSError, UnicodeError) as exc:  # the name does not resolve
            raise httpcore.ConnectError(str(exc)) from exc
        error: Exception = httpcore.ConnectError(f"no address for {host}")
        for address in addresses:  # each in turn, as a connection to the name would
            try:
                return self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        raise error

    def __getattr__(self, name: str) -> Any:  # connect_unix_socket, sleep
        return getattr(self.inner, name)


# --------------------------------------------------------------------------- HTML to text

# Dropped with everything inside them; markdownify already drops script and style.
_DROP = ["script", "style", "title", "noscript", "template", "svg", "iframe", "object", "canvas"]
_HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]


def html_to_text(html: str, base_url: str = "") -> str:
    """Readable text of an HTML page, as Markdown (converted by markdownify).

    - script, style, title, noscript, template, svg, iframe, object and canvas
      are dropped with everything inside them, and so are headings without text;
    - headings get ``#`` prefixes, list items ``- ``, pre blocks are fenced
      with three backticks and tables become Markdown tables;
    - a link keeps its text followed by `` (absolute http(s) URL)``, resolved
      against the page (or its ``<base href>``); fragment-only, javascript:
      and mailto: links keep just their text;
    - lines lose their trailing spaces.
    """
    converter = _web_package("markdownify").MarkdownConverter(
        heading_style="ATX", bullets="-", escape_asterisks=False, escape_underscores=False, wrap=True, wrap_width=None
    )
    soup = _parse_html(html)
    _drop_unread(soup)
    _inline_links(soup, _base_url(soup, base_url))
    text = converter.convert_soup(soup)
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def _parse_html(html: str) -> Any:
    """The BeautifulSoup tree of ``html``; a ToolError for the rare markup Python's HTML parser rejects."""
    bs4 = _web_package("bs4")
    try:
        return bs4.BeautifulSoup(html, "html.parser")
    except bs4.ParserRejectedMarkup:
        raise ToolError("cannot turn this HTML page into text: Python's HTML parser rejects its markup") from None


def _drop_unread(soup: Any) -> None:
    """Remove the elements in ``_DROP`` and the headings without text, which would leave a bare ``#``."""
    for element in soup.find_all(_DROP):
        element.decompose()
    for heading in soup.find_all(_HEADINGS):
        if not heading.get_text(strip=True):
            heading.decompose()
    soup.smooth()  # merge the text left on both sides of what was removed


def _base_url(soup: Any, page_url: str) -> str:
    """The URL relative links start from: the page's, or its first ``<base href>``."""
    base = soup.find("base", href=True)
    if base is None:
        return page_url
    try:
        return urljoin(page_url, base["href"].strip())
    except ValueError:
        return page_url


def _inline_links(soup: Any, base: str) -> None:
    """Replace each ``<a>`` by its text followed by `` (URL)`` when the URL adds something."""
    for link in soup.find_all("a"):
        href = _shown_href(link.get("href"), base)
        text = _WS.sub(" ", link.get_text()).strip()
        if href and text and href not in text:
            link.append(f" ({href})")
        link.unwrap()


def _shown_href(href: str | None, base: str) -> str:
    """The absolute http(s) URL of a link, or "" for none, a fragment or another scheme."""
    if not href or href.strip().startswith("#"):
        return ""
    try:
        target = urljoin(base, href.strip())
        return target if urlsplit(target).scheme.lower() in _SCHEMES else ""
    except ValueError:  # e.g. a malformed IPv6 host
        return ""


# --------------------------------------------------------------------------- search results

_PARAGRAPH = {
    "p", "pre", "ul", "ol", "dl", "table", "blockquote", "section", "article", "header", "footer", "nav",
    "main", "aside", "figure", "form", "fieldset", "details", "address", "hr",
    "h1", "h2", "h3", "h4", "h5", "h6",
}
_LINE = {"div", "br", "li", "tr", "dt", "dd", "figcaption", "summary", "caption", "option", "center"}


def _feed(parser: HTMLParser, text: str) -> None:
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # noqa: BLE001 - a broken page yields what was parsed so far
        pass

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


TOOLS = [fetch_url, web_search]
