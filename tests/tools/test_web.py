"""fetch_url and web_search against a real HTTP server on 127.0.0.1 (no mocked client).

Every request goes to a ThreadingHTTPServer started by the ``server`` fixture;
proxies are switched off so nothing leaves the machine. The tests that fetch
set ``allow_private_addresses`` (``LOCAL``), since the server is on 127.0.0.1;
the tests of the address check resolve and connect through ``fake_dns``, which
never connects anywhere but 127.0.0.1.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import parse_qs, quote, urlsplit

import httpcore
import pytest

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext, bind, takes_context
from lackpy.kit.spec import ToolSpec
from lackpy.kit.call import checked
from lackpy.tools import web
from lackpy.tools.web import TOOLS, address_refusal, fetch_url, html_to_text, web_search

SPECS = [fn.lackpy_tool for fn in TOOLS]
IMPLEMENTATIONS = {fn.__name__: fn for fn in TOOLS}

# --------------------------------------------------------------------------- the server

PAGE = """<!DOCTYPE html>
<html>
<head>
  <title>Test Page</title>
  <style>body { color: red; }</style>
  <script>var x = "<p>not text</p>";</script>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/docs/">Docs</a></nav>
  <h1>Main   Title</h1>
  <script>document.write("hidden");</script>
  <noscript>Enable JavaScript</noscript>
  <p>First paragraph with <b>bold</b> and
     <a href="https://example.org/more">a link</a>.</p>
  <p>Second&nbsp;paragraph &amp; entities<br>after break</p>
  <div>A div <a href="#top">anchor</a> <a href="javascript:void(0)">js</a>
    <a href="https://example.org/same">https://example.org/same</a></div>
  <ul>
    <li>one</li>
    <li>two <a href="page2.html">relative</a>
      <ul><li>nested</li></ul>
    </li>
  </ul>
  <ol><li>first</li><li>second</li></ol>
  <pre>
def f():
    return  1
</pre>
  <table><tr><th>Name</th><th>Value</th></tr>
         <tr><td>a</td> <td>1</td></tr></table>
  <style>.x { display: none }</style>
</body>
</html>
"""

PAGE_TEXT = """Home ({base}/) | Docs ({base}/docs/)

# Main Title

First paragraph with **bold** and a link (https://example.org/more).

Second\u00a0paragraph & entities
after break

A div anchor js https://example.org/same

- one
- two relative ({base}/page2.html)
  - nested

1. first
2. second

```
def f():
    return  1
```

| Name | Value |
| --- | --- |
| a | 1 |"""

PLAIN = "just some text\nsecond line\n"
BIG = b"0123456789abcdef" * (2 * 1024 * 1024 // 16)  # 2 MiB
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64
SEARCH_RESULTS = 8


def _search_page() -> str:
    """A page shaped like html.duckduckgo.com results: one ad, then 8 results."""
    blocks = [
        '<div class="result results_links results_links_deep result--ad"><div class="links_main result__body">'
        '<h2 class="result__title"><a rel="nofollow" class="result__a" '
        'href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy <b>things</b></a></h2>'
        '<a class="result__snippet" href="https://duckduckgo.com/y.js?u3=x">An advert</a></div></div>'
    ]
    for i in range(1, SEARCH_RESULTS + 1):
        target = f"https://site{i}.example/page?a=1&b={i}"
        href = "https://direct.example/eight" if i == 8 else f"//duckduckgo.com/l/?uddg={quote(target, safe='')}&amp;rut=r{i}"
        if i % 2:
            snippet = f'<a class="result__snippet" href="{href}">Snippet <b>{i}</b> about   things &amp; stuff</a>'
        else:
            snippet = f'<div class="result__snippet">Snippet {i}<br>on two lines</div>'
        blocks.append(
            f'<div class="result results_links results_links_deep web-result">'
            f'<div class="links_main links_deep result__body">'
            f'<h2 class="result__title"><a rel="nofollow" class="result__a" href="{href}">Result <b>{i}</b> &amp; more</a></h2>'
            f'<div class="result__extras"><a class="result__url" href="{href}">site{i}.example</a></div>'
            f"{snippet}</div></div>"
        )
    return "<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body>" + "\n".join(blocks) + "</body></html>"


def _expected_result(i: int) -> dict:
    url = "https://direct.example/eight" if i == 8 else f"https://site{i}.example/page?a=1&b={i}"
    snippet = f"Snippet {i} about things & stuff" if i % 2 else f"Snippet {i} on two lines"
    return {"title": f"Result {i} & more", "url": url, "snippet": snippet}


class Handler(BaseHTTPRequestHandler):
    """Routes for the tests; HTTP/1.0, so a body without Content-Length ends at close."""

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def send(self, code: int, body: bytes, content_type: str | None = "text/plain; charset=utf-8", length: bool = True, **headers) -> None:
        self.send_response(code)
        if content_type:
            self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:  # the client stopped reading: expected for truncated reads
            pass

    def redirect(self, location: str, code: int = 302) -> None:
        self.send(code, b"", Location=location)

    def do_GET(self) -> None:  # noqa: C901 - one route table
        self.server.seen.append((self.path, self.headers.get("User-Agent")))
        path, _, query = self.path.partition("?")
        stop: threading.Event = self.server.stop
        if path.startswith("http://"):  # asked as a proxy: answer for the target instead of forwarding
            self.send(200, f"proxied {self.path}".encode())
        elif path == "/page.html":
            self.send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/plain.txt":
            self.send(200, PLAIN.encode())
        elif path == "/data.json":
            self.send(200, b'{"a": [1, 2]}', "application/json")
        elif path == "/big.txt":
            self.send(200, BIG)
        elif path == "/accents.txt":
            self.send(200, "é".encode() * 1000)
        elif path == "/stream.txt":  # no Content-Length: the body ends when the server closes
            self.send(200, b"x" * 300_000, length=False)
        elif path.startswith("/hop/"):
            n = int(path.rsplit("/", 1)[1])
            code = (301, 302, 303, 307, 308)[n % 5]
            if n:
                self.redirect(f"/hop/{n - 1}", code)
            else:
                self.send(200, b"arrived")
        elif path == "/to-file":
            self.redirect("file:///etc/passwd")
        elif path == "/to-ftp":
            self.redirect("ftp://127.0.0.1/secret")
        elif path == "/to-bad":
            self.redirect("http://[bad/")
        elif path == "/redirect":  # /redirect?code=307&to=<location>
            params = parse_qs(query)
            self.redirect(params["to"][0], int(params["code"][0]))
        elif path == "/loop":
            self.redirect("/loop")
        elif path == "/redirect-endless-body":  # a redirect whose body never ends
            self.send_response(302)
            self.send_header("Location", "/plain.txt")
            self.send_header("Content-Length", str(10**9))
            self.end_headers()
            self.wfile.write(b"x" * 1000)
            self.wfile.flush()
            stop.wait(3)
        elif path == "/gzip":
            self.send(200, b"\x1f\x8b\x08\x00", "text/plain", Content_Encoding="gzip")
        elif path == "/to-missing":
            self.redirect("/missing", 301)
        elif path == "/missing":
            self.send_error(404)
        elif path == "/boom":
            self.send_error(500)
        elif path == "/image.png":
            self.send(200, PNG, "image/png")
        elif path == "/blob":
            self.send(200, b"\x00\x01\x02", "application/octet-stream")
        elif path == "/untyped":
            self.send(200, b"\x00\x01binary\x00", None)
        elif path == "/latin1.txt":
            self.send(200, "café naïve – ok".encode("cp1252"), "text/plain; charset=ISO-8859-1")
        elif path == "/meta-charset.html":
            body = '<html><head><meta charset="windows-1252"></head><body><p>caf\xe9 cr\xe8me</p></body></html>'
            self.send(200, body.encode("cp1252"), "text/html")
        elif path == "/slow":
            stop.wait(3)  # longer than the 0.5 s timeout the test sets
            self.send(200, b"too late")
        elif path == "/drip":  # headers at once, then the body a little at a time
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(50):
                    if stop.wait(0.1):
                        break
                    self.wfile.write(b"." * 100)
                    self.wfile.flush()
            except OSError:
                pass
        elif path == "/search":
            self.send(200, _search_page().encode(), "text/html; charset=utf-8")
        elif path == "/search-none":
            page = '<html><body><div class="no-results">No results.</div></body></html>'
            self.send(200, page.encode(), "text/html")
        elif path == "/search-202":
            page = '<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div></body></html>'
            self.send(202, page.encode(), "text/html")
        else:
            self.send_error(404)


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch):
    """Requests must go straight to 127.0.0.1, never through a proxy from the environment."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")


def _serve():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen = []
    httpd.stop = threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    httpd.port = httpd.server_address[1]
    httpd.base = f"http://127.0.0.1:{httpd.port}"
    yield httpd
    httpd.stop.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


@pytest.fixture(scope="module")
def server():
    yield from _serve()


@pytest.fixture
def own_server():
    """A server for one test: its request log starts empty."""
    yield from _serve()

# The test server is on 127.0.0.1, which lackpy refuses unless told otherwise.
LOCAL = {"allow_private_addresses": True}


@pytest.fixture
def base(server) -> str:
    return server.base


@pytest.fixture
def ctx(tmp_path) -> ToolContext:
    return ToolContext(tmp_path, settings={**LOCAL, "web_timeout_s": 5})


def _error(call, *args, **kwargs) -> str:
    with pytest.raises(ToolError) as info:
        call(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- specs


def test_specs_and_implementations():
    assert [s.name for s in SPECS] == ["fetch_url", "web_search"]
    assert set(IMPLEMENTATIONS) == {"fetch_url", "web_search"}
    for spec in SPECS:
        assert isinstance(spec, ToolSpec)
        assert (spec.provider, spec.grade_w, spec.effects_ceiling) == ("builtin", 2, 0)
        assert spec.docs == f"docs/tools/{spec.name}.md"
        assert spec.examples and spec.tags and spec.description
        assert takes_context(IMPLEMENTATIONS[spec.name])
    assert SPECS[0].signature() == "fetch_url(url: str, max_bytes: int | None = None) -> str"
    assert SPECS[1].signature() == "web_search(query: str, limit: int = 5) -> list[dict]"


def test_bound_tool_runs_as_a_program_would_call_it(ctx, base):
    assert bind(fetch_url, ctx)(f"{base}/plain.txt") == PLAIN


# --------------------------------------------------------------------------- fetch_url: content


def test_html_page_is_simplified_to_text(ctx, base, server):
    assert fetch_url(ctx, f"{base}/page.html") == PAGE_TEXT.format(base=base)
    assert ("/page.html", "lackpy") in server.seen  # our User-Agent


def test_plain_text_and_json_are_returned_as_is(ctx, base):
    assert fetch_url(ctx, f"{base}/plain.txt") == PLAIN
    assert fetch_url(ctx, f"{base}/data.json") == '{"a": [1, 2]}'


def test_large_body_is_truncated_at_the_default_limit(ctx, base):
    text = fetch_url(ctx, f"{base}/big.txt")
    body, notice = text.rsplit("\n", 1)
    assert notice == f"[truncated after {512 * 1024} bytes]"
    assert body.encode() == BIG[: 512 * 1024]


def test_max_bytes_argument_and_setting_bound_the_read(tmp_path, base):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "fetch_max_bytes": 1000})
    assert fetch_url(ctx, f"{base}/big.txt") == BIG[:1000].decode() + "\n[truncated after 1000 bytes]"
    assert fetch_url(ctx, f"{base}/big.txt", max_bytes=37) == BIG[:37].decode() + "\n[truncated after 37 bytes]"
    # exactly the size of the body: nothing was left unread, so no notice
    assert fetch_url(ctx, f"{base}/plain.txt", max_bytes=len(PLAIN)) == PLAIN


def test_max_bytes_above_the_ceiling_is_clamped_to_10_mib(ctx, base):
    text = fetch_url(ctx, f"{base}/big.txt", max_bytes=50 * 1024 * 1024)
    assert text.encode() == BIG  # 2 MiB fits under the 10 MiB ceiling; no notice


def test_truncation_never_splits_a_character(ctx, base):
    # 101 bytes end in the middle of the 51st "é": it is left out, not mangled
    assert fetch_url(ctx, f"{base}/accents.txt", max_bytes=101) == "é" * 50 + "\n[truncated after 101 bytes]"


def test_body_without_content_length(ctx, base):
    assert fetch_url(ctx, f"{base}/stream.txt", max_bytes=1000) == "x" * 1000 + "\n[truncated after 1000 bytes]"
    assert fetch_url(ctx, f"{base}/stream.txt", max_bytes=400_000) == "x" * 300_000


@pytest.mark.parametrize("bad", [0, -5, True, "100", 1.5])
def test_bad_max_bytes_is_refused(ctx, base, bad):
    assert _error(fetch_url, ctx, f"{base}/plain.txt", max_bytes=bad) == f"fetch_url: max_bytes must be a positive integer, not {bad!r}"


def test_charset_from_content_type_and_from_meta(ctx, base):
    # ISO-8859-1 is read as windows-1252, as browsers do: 0x96 is an en dash
    assert fetch_url(ctx, f"{base}/latin1.txt") == "café naïve – ok"
    assert fetch_url(ctx, f"{base}/meta-charset.html") == "café crème"


@pytest.mark.parametrize(
    "path, message",
    [
        ("/image.png", "not text: image/png"),
        ("/blob", "not text: application/octet-stream"),
        ("/untyped", "not text: the response has no content type and looks binary"),
    ],
)
def test_binary_content_is_refused(ctx, base, path, message):
    assert _error(fetch_url, ctx, base + path) == message


# --------------------------------------------------------------------------- fetch_url: redirects and errors


def test_redirect_chain_is_followed(ctx, base):
    assert fetch_url(ctx, f"{base}/hop/3") == "arrived"
    assert fetch_url(ctx, f"{base}/hop/5") == "arrived"  # five redirects: the most allowed


def test_too_many_redirects(ctx, base):
    assert _error(fetch_url, ctx, f"{base}/hop/7") == f"too many redirects (more than 5): {base}/hop/7"
    assert _error(fetch_url, ctx, f"{base}/hop/6") == f"too many redirects (more than 5): {base}/hop/6"


def test_the_body_of_a_redirect_is_not_read(ctx, base):
    start = time.monotonic()
    assert fetch_url(ctx, f"{base}/redirect-endless-body") == PLAIN
    assert time.monotonic() - start < 2


def test_redirect_loop_is_cut_short(ctx, base, server):
    before = len(server.seen)
    assert _error(fetch_url, ctx, f"{base}/loop") == f"too many redirects (more than 5): {base}/loop"
    assert [path for path, _ in server.seen[before:]] == ["/loop"] * 6  # the first request and five redirects


@pytest.mark.parametrize("path, target", [("/to-file", "file:///etc/passwd"), ("/to-ftp", "ftp://127.0.0.1/secret")])
def test_redirect_to_another_scheme_is_refused(ctx, base, path, target):
    assert _error(fetch_url, ctx, base + path) == f"only http and https URLs can be fetched: {target} (redirected from {base}{path})"


@pytest.mark.parametrize(
    "code, location, target",
    [
        (301, "file:///etc/passwd", "file:///etc/passwd"),
        (303, "FILE:///etc/passwd", "FILE:///etc/passwd"),
        (307, "  ftp://127.0.0.1/secret", "ftp://127.0.0.1/secret"),
        (308, "data:text/plain,hello", "data:text/plain,hello"),
        (302, "javascript:alert(1)", "javascript:alert(1)"),
    ],
)
def test_redirect_to_another_scheme_is_refused_whatever_the_status(ctx, base, server, code, location, target):
    address = f"{base}/redirect?code={code}&to={quote(location, safe='')}"
    before = len(server.seen)
    assert _error(fetch_url, ctx, address) == f"only http and https URLs can be fetched: {target} (redirected from {address})"
    assert len(server.seen) == before + 1  # nothing was requested after the redirect


def test_http_errors(ctx, base):
    assert _error(fetch_url, ctx, f"{base}/missing") == f"HTTP 404 Not Found: {base}/missing"
    assert _error(fetch_url, ctx, f"{base}/boom") == f"HTTP 500 Internal Server Error: {base}/boom"
    # the error names the URL that failed, after the redirect
    assert _error(fetch_url, ctx, f"{base}/to-missing") == f"HTTP 404 Not Found: {base}/missing"
    assert _error(fetch_url, ctx, f"{base}/to-bad") == f"bad redirect location 'http://[bad/' from {base}/to-bad"


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hello", "javascript:alert(1)", "127.0.0.1/page", "", "gopher://127.0.0.1/"],
)
def test_non_http_schemes_are_refused(ctx, url, server):
    before = len(server.seen)
    assert _error(fetch_url, ctx, url) == f"only http and https URLs can be fetched: {url}"
    assert len(server.seen) == before


def test_bad_urls(ctx):
    assert _error(checked(fetch_url.lackpy_tool, fetch_url), ctx, None) == "fetch_url: argument 'url' expects a str, got None (NoneType)"
    assert _error(fetch_url, ctx, "http:///no-host") == "not a valid URL (it has no host): http:///no-host"
    assert _error(fetch_url, ctx, "http://127.0.0.1:port/").startswith("not a valid URL: http://127.0.0.1:port/ (")


def test_compressed_body_is_refused(ctx, base):
    message = f"cannot read {base}/gzip: the server sent a gzip-compressed body although none was asked for"
    assert _error(fetch_url, ctx, f"{base}/gzip") == message


def test_connection_refused(ctx):
    with socket.socket() as sock:  # a port that was free a moment ago and nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    assert _error(fetch_url, ctx, url) == f"cannot reach {url}: connection refused"


def test_timeout_waiting_for_the_response(tmp_path, base):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_timeout_s": 0.5})
    start = time.monotonic()
    assert _error(fetch_url, ctx, f"{base}/slow") == f"cannot reach {base}/slow: timed out after 0.5 s"
    assert time.monotonic() - start < 2


def test_timeout_for_a_body_that_trickles_in(tmp_path, base):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_timeout_s": 0.5})
    start = time.monotonic()
    assert _error(fetch_url, ctx, f"{base}/drip") == f"cannot read {base}/drip: the body did not arrive within 0.5 s"
    assert time.monotonic() - start < 2


def test_unusable_proxy_setting(ctx, base, monkeypatch):
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("HTTP_PROXY", "ftp://127.0.0.1:1")
    message = _error(fetch_url, ctx, f"{base}/plain.txt")
    assert message == "cannot use the proxy set in the environment: Unknown scheme for proxy URL URL('ftp://127.0.0.1:1')"


@pytest.mark.parametrize("value", ["fast", 0, -1, True])
def test_bad_timeout_setting(tmp_path, base, value):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_timeout_s": value})
    assert _error(fetch_url, ctx, f"{base}/plain.txt") == f"the tool setting web_timeout_s must be a positive number, not {value!r}"


def test_html_to_text_edge_cases():
    assert html_to_text("<h2></h2><p>no prefix left behind</p>") == "no prefix left behind"
    assert html_to_text("<head><title>t</title><p>unclosed head</p><body><p>body</p>") == "unclosed head\n\nbody"
    assert html_to_text("<p>a<p>b<ul><li>c") == "a\n\nb\n\n- c"
    assert html_to_text('<base href="https://docs.example/v1/"><a href="x.html">X</a>') == "X (https://docs.example/v1/x.html)"
    assert html_to_text("<pre>\n  keep\n\n  spaces  </pre>") == "```\n  keep\n\n  spaces\n```"
    assert html_to_text("<p>broken <b>markup <a href='https://e.example/'>link") == "broken **markup link (https://e.example/)**"
    assert html_to_text("") == ""
    assert html_to_text('<p>a <a href="http://[bad">malformed</a> href</p><p>goes on</p>') == "a malformed href\n\ngoes on"
    assert html_to_text("<table><tr><td></td><td>x</td></tr></table>") == "|  |  |\n| --- | --- |\n|  | x |"
    assert html_to_text("<p>snake_case and 2*3</p>") == "snake_case and 2*3"  # no Markdown escapes
    message = "cannot turn this HTML page into text: Python's HTML parser rejects its markup"
    assert _error(html_to_text, "<p>a</p><![x]><p>b</p>") == message


def test_html_to_text_drops_scripts_styles_and_other_unread_parts():
    page = """<html><head><style>p { color: red }</style><script>var s = "<p>not text</p>";</script></head>
    <body><p>before <script>document.write("hidden")</script>after</p><style>.x { display: none }</style>
    <noscript>Enable JavaScript</noscript><template><p>later</p></template><svg><text>drawn</text></svg>
    <p>end</p></body></html>"""
    assert html_to_text(page) == "before after\n\nend"


# --------------------------------------------------------------------------- without the web extra


def test_importing_the_module_loads_no_web_package():
    code = "import sys, lackpy.tools.web; print(sorted({'httpx', 'markdownify', 'bs4'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_without_httpx_the_tools_say_how_to_install_it(monkeypatch, search_ctx, base, server):
    monkeypatch.setitem(sys.modules, "httpx", None)
    message = "the web tools need the httpx package, which is not installed: pip install 'lackpy[web]'"
    before = len(server.seen)
    assert _error(fetch_url, search_ctx, f"{base}/plain.txt") == message
    assert _error(web_search, search_ctx, "q") == message
    assert len(server.seen) == before


def test_without_markdownify_html_cannot_be_simplified(monkeypatch, ctx, base):
    monkeypatch.setitem(sys.modules, "markdownify", None)
    message = "the web tools need the markdownify package, which is not installed: pip install 'lackpy[web]'"
    assert _error(fetch_url, ctx, f"{base}/page.html") == message
    assert _error(html_to_text, "<p>x</p>") == message
    assert fetch_url(ctx, f"{base}/plain.txt") == PLAIN  # text needs no conversion


# --------------------------------------------------------------------------- web_search


@pytest.fixture
def search_ctx(tmp_path, base) -> ToolContext:
    return ToolContext(tmp_path, settings={**LOCAL, "web_timeout_s": 5, "web_search_url": f"{base}/search?q={{query}}&kl=wt-wt"})


def test_search_results_are_parsed_and_unwrapped(search_ctx):
    assert web_search(search_ctx, "python docs") == [_expected_result(i) for i in range(1, 6)]  # default limit 5


def test_search_limit_is_respected_and_clamped(search_ctx):
    everything = [_expected_result(i) for i in range(1, SEARCH_RESULTS + 1)]  # the advert is left out
    assert web_search(search_ctx, "q", limit=3) == everything[:3]
    assert web_search(search_ctx, "q", limit=0) == everything[:1]
    assert web_search(search_ctx, "q", limit=-4) == everything[:1]
    assert web_search(search_ctx, "q", limit=20) == everything
    assert web_search(search_ctx, "q", limit=500) == everything


def test_search_query_is_url_encoded(search_ctx, server):
    web_search(search_ctx, "  café & crème?  ")
    path, agent = server.seen[-1]
    assert agent == "lackpy"
    assert path == "/search?q=caf%C3%A9+%26+cr%C3%A8me%3F&kl=wt-wt"
    assert parse_qs(urlsplit(path).query)["q"] == ["café & crème?"]


def test_search_without_results(tmp_path, base):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": f"{base}/search-none?q={{query}}"})
    assert web_search(ctx, "nothing matches") == []


def test_search_rate_limited(tmp_path, base):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": f"{base}/search-202?q={{query}}"})
    assert _error(web_search, ctx, "q") == (
        "web_search: the search engine answered HTTP 202 without results "
        "(it is probably rate limiting or asking for a CAPTCHA); try again later"
    )


@pytest.mark.parametrize(
    "query, limit, message",
    [
        ("", 5, "web_search: query is empty; give some search words"),
        ("   ", 5, "web_search: query is empty; give some search words"),
        (None, 5, "web_search: argument 'query' expects a str, got None (NoneType)"),
        ("q", "3", "web_search: argument 'limit' expects an int, got '3' (str)"),
        ("q", True, "web_search: argument 'limit' expects an int, got True (bool)"),
    ],
)
def test_search_bad_arguments(search_ctx, server, query, limit, message):
    """Wrong types are refused by the schema check before the tool runs; an empty query by the tool."""
    before = len(server.seen)
    assert _error(checked(web_search.lackpy_tool, web_search), search_ctx, query, limit) == message
    assert len(server.seen) == before


def test_search_network_failures(tmp_path, base):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": f"http://127.0.0.1:{port}/?q={{query}}"})
    assert _error(web_search, ctx, "q") == f"cannot reach http://127.0.0.1:{port}/?q=q: connection refused"
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": f"{base}/boom?q={{query}}"})
    assert _error(web_search, ctx, "q") == f"HTTP 500 Internal Server Error: {base}/boom?q=q"
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": f"{base}/slow?q={{query}}", "web_timeout_s": 0.5})
    assert _error(web_search, ctx, "q") == f"cannot reach {base}/slow?q=q: timed out after 0.5 s"


@pytest.mark.parametrize(
    "template, message",
    [
        ("file:///etc/passwd?q={query}", "only http and https URLs can be fetched: file:///etc/passwd?q=q"),
        ("http://127.0.0.1/search", "the tool setting web_search_url must be a URL containing {query}, not 'http://127.0.0.1/search'"),
        (42, "the tool setting web_search_url must be a URL containing {query}, not 42"),
    ],
)
def test_search_bad_endpoint_setting(tmp_path, template, message):
    ctx = ToolContext(tmp_path, settings={**LOCAL, "web_search_url": template})
    assert _error(web_search, ctx, "q") == message


# --------------------------------------------------------------------------- private and local addresses

HELP = "lackpy does not fetch private or local addresses unless [tools] allow_private_addresses = true in .lackpy/config.toml"
PUBLIC_IP = "8.8.8.8"  # stands for a public host; fake_dns sends its connections to 127.0.0.1


@pytest.fixture
def fake_dns(monkeypatch):
    """Names resolved without DNS, and connections that never leave 127.0.0.1.

    ``answers[name]`` lists what the resolver answers in turn (the last answer
    repeats); IP addresses and localhost resolve as usual, and any other name is
    not found. Below lackpy's check, a connection to PUBLIC_IP goes to the same
    port on 127.0.0.1, one to 127.0.0.1 (a proxy) goes ahead, and any other
    fails the test. ``connected`` lists the addresses lackpy connected to.
    """
    fake = SimpleNamespace(answers={"public.example": [[PUBLIC_IP]]}, connected=[])
    resolve = web._resolve

    def fake_resolve(host):
        if host in fake.answers:
            answers = fake.answers[host]
            return answers.pop(0) if len(answers) > 1 else answers[0]
        if host == "localhost" or re.fullmatch(r"[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*", host):
            return resolve(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    connect = httpcore.SyncBackend.connect_tcp

    def fake_connect(self, host, port, *args, **kwargs):
        fake.connected.append(host)
        if host not in (PUBLIC_IP, "127.0.0.1"):
            raise AssertionError(f"a test tried to connect to {host}")
        return connect(self, "127.0.0.1", port, *args, **kwargs)

    monkeypatch.setattr(web, "_resolve", fake_resolve)
    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", fake_connect)
    return fake


@pytest.fixture
def strict(tmp_path) -> ToolContext:
    """The default settings: private and local addresses are refused."""
    return ToolContext(tmp_path, settings={"web_timeout_s": 5})


@pytest.mark.parametrize(
    "address, refusal",
    [
        ("127.0.0.1", "a loopback address"),
        ("127.8.9.10", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.1", "a private address"),
        ("172.31.255.254", "a private address"),
        ("192.168.1.1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("0.0.0.0", "an unspecified address"),
        ("100.64.0.1", "a shared (carrier-grade NAT) address"),
        ("224.0.0.1", "a multicast address"),
        ("::1", "a loopback address"),
        ("::", "an unspecified address"),
        ("fe80::1", "a link-local address"),
        ("fc00::1", "a unique-local address"),
        ("fd12:3456::1", "a unique-local address"),
        ("ff02::1", "a multicast address"),
        ("fec0::1", "a site-local address"),
        ("::ffff:127.0.0.1", "a loopback address"),  # IPv4-mapped
        ("::ffff:192.168.0.1", "a private address"),
        ("2002:7f00:1::", "a loopback address"),  # 6to4 of 127.0.0.1
        ("64:ff9b::a00:1", "a private address"),  # NAT64 of 10.0.0.1
        ("8.8.8.8", None),
        ("172.32.0.1", None),
        ("2001:4860:4860::8888", None),
        ("::ffff:8.8.8.8", None),
        ("2002:808:808::", None),
        ("64:ff9b::808:808", None),
    ],
)
def test_address_classification(address, refusal):
    assert address_refusal(address) == refusal


@pytest.mark.parametrize(
    "address", ["192.0.2.1", "198.18.0.1", "240.0.0.1", "255.255.255.255", "2001:db8::1", "2001::1", "64:ff9b:1::1", "::7f00:1"]
)
def test_other_non_global_addresses_are_refused(address):
    """Documentation, benchmarking, reserved, Teredo, local-use NAT64 and IPv4-compatible addresses; the word depends on the Python version."""
    assert address_refusal(address) is not None


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_local_addresses_are_refused_by_default(strict, own_server, host):
    url = f"http://{host}:{own_server.port}/plain.txt"
    message = _error(fetch_url, strict, url)
    assert re.fullmatch(rf"fetch_url: {re.escape(url)} resolves to (127\.0\.0\.1|::1), a loopback address; {re.escape(HELP)}", message)
    assert own_server.seen == []


def test_allow_private_addresses_false_refuses_too(tmp_path, own_server):
    ctx = ToolContext(tmp_path, settings={"allow_private_addresses": False})
    url = f"{own_server.base}/plain.txt"
    assert _error(fetch_url, ctx, url) == f"fetch_url: {url} resolves to 127.0.0.1, a loopback address; {HELP}"
    assert own_server.seen == []


@pytest.mark.parametrize("value", ["true", 1, 0, None, [True]])
def test_allow_private_addresses_must_be_true_or_false(tmp_path, own_server, value):
    ctx = ToolContext(tmp_path, settings={"allow_private_addresses": value})
    message = f"the tool setting allow_private_addresses must be true or false (unquoted in .lackpy/config.toml), not {value!r}"
    assert _error(fetch_url, ctx, f"{own_server.base}/plain.txt") == message
    assert own_server.seen == []


def test_web_search_endpoint_on_a_local_address_is_refused(tmp_path, own_server):
    ctx = ToolContext(tmp_path, settings={"web_search_url": f"{own_server.base}/search?q={{query}}"})
    assert _error(web_search, ctx, "q") == f"web_search: {own_server.base}/search?q=q resolves to 127.0.0.1, a loopback address; {HELP}"
    assert own_server.seen == []


def test_a_public_host_is_fetched(strict, own_server, fake_dns):
    assert fetch_url(strict, f"http://public.example:{own_server.port}/plain.txt") == PLAIN
    assert fake_dns.connected == [PUBLIC_IP]


@pytest.mark.parametrize(
    "location, resolved, kind",
    [
        ("http://127.0.0.1:{port}/plain.txt", "127.0.0.1", "a loopback address"),
        ("http://localhost:{port}/plain.txt", "(127.0.0.1|::1)", "a loopback address"),
        ("http://[::1]:{port}/plain.txt", "::1", "a loopback address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "a link-local address"),
        ("http://10.0.0.1/", "10.0.0.1", "a private address"),
    ],
)
def test_redirect_to_a_private_address_is_refused(strict, own_server, fake_dns, location, resolved, kind):
    """public.example passes the check and its server (the test server, really) redirects to a private address."""
    location = location.format(port=own_server.port)
    path = f"/redirect?code=302&to={quote(location, safe='')}"
    address = f"http://public.example:{own_server.port}{path}"
    message = _error(fetch_url, strict, address)
    expected = rf"fetch_url: {re.escape(location)} resolves to {resolved}, {kind} \(redirected from {re.escape(address)}\); {re.escape(HELP)}"
    assert re.fullmatch(expected, message)
    assert [seen for seen, _ in own_server.seen] == [path]  # the redirect, and nothing after it
    assert fake_dns.connected == [PUBLIC_IP]


def test_every_address_of_a_name_must_be_allowed(strict, own_server, fake_dns):
    fake_dns.answers["mixed.example"] = [[PUBLIC_IP, "10.0.0.7"]]
    url = f"http://mixed.example:{own_server.port}/plain.txt"
    assert _error(fetch_url, strict, url) == f"fetch_url: {url} resolves to 10.0.0.7, a private address; {HELP}"
    assert fake_dns.connected == [] and own_server.seen == []


def test_a_name_that_changes_its_address_is_checked_where_it_connects(strict, own_server, fake_dns):
    """DNS rebinding: public for lackpy's check before sending, loopback for the next lookup; the connection checks what it connects to."""
    fake_dns.answers["rebind.example"] = [[PUBLIC_IP], ["127.0.0.1"]]
    url = f"http://rebind.example:{own_server.port}/plain.txt"
    assert _error(fetch_url, strict, url) == f"fetch_url: {url} resolves to 127.0.0.1, a loopback address; {HELP}"
    assert fake_dns.connected == [] and own_server.seen == []


def test_a_name_that_does_not_resolve_is_not_found(strict, fake_dns):
    url = "http://missing.example/"
    assert _error(fetch_url, strict, url) == f"cannot reach {url}: host name not found (Name or service not known)"
    assert fake_dns.connected == []


def test_through_a_proxy_the_target_is_checked_and_the_proxy_is_not(strict, own_server, fake_dns, monkeypatch):
    """The proxy (the test server on 127.0.0.1) is the user's own choice; the host it is asked for must be public."""
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("HTTP_PROXY", own_server.base)
    assert fetch_url(strict, "http://public.example/plain.txt") == "proxied http://public.example/plain.txt"
    assert fake_dns.connected == ["127.0.0.1"]  # the proxy
    for url, resolved, kind in [("http://10.0.0.1/", "10.0.0.1", "a private address"), ("http://localhost:8/", "(127.0.0.1|::1)", "a loopback address")]:
        message = _error(fetch_url, strict, url)
        assert re.fullmatch(rf"fetch_url: {re.escape(url)} resolves to {resolved}, {kind}; {re.escape(HELP)}", message)
    assert len(own_server.seen) == 1 and fake_dns.connected == ["127.0.0.1"]
