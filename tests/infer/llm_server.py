"""A fake LLM server on 127.0.0.1 that speaks the Ollama, OpenAI and Anthropic wire formats.

The model tiers are tested over real HTTP against it, so what they parse is
what the real servers send: NDJSON for Ollama, server-sent events for OpenAI
and Anthropic, each with the fields and the closing chunks the real ones have.
Answers are scripted::

    with FakeLLM(["first answer", "second answer"]) as server:
        provider = OllamaTier({"host": server.url, "model": server.model})
        provider.complete([{"role": "user", "content": "hi"}])   # "first answer"
        server.requests   # [("/api/chat", {...the JSON body...})]

``answers`` is a list served in order, one per chat request (the last one
repeats), or a callable ``(messages) -> str`` that sees the conversation in
chat form (an Anthropic ``system`` comes first as a system message, and
content blocks are joined into strings) whichever API asked.

A request's own length limit is kept as the real servers keep it: past
``max_tokens`` (OpenAI, Anthropic) or ``options.num_predict`` (Ollama) tokens,
four characters each here, the answer is cut and reported so
(``finish_reason: "length"``, ``stop_reason: "max_tokens"``,
``done_reason: "length"``).

``status`` answers every request with that HTTP error, in the API's own error
format; ``delay`` waits that many seconds before answering. A chat request for
another model than ``model`` gets the 404 the real servers send.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Sequence

CHAT_PATHS = ("/api/chat", "/v1/chat/completions", "/v1/messages")

Answers = Sequence[str] | Callable[[list[dict]], str]


class FakeLLM:
    """A threaded HTTP server on 127.0.0.1 with scripted answers; use it as a context manager."""

    def __init__(
        self,
        answers: Answers,
        model: str = "test-model",
        *,
        status: int | None = None,
        delay: float = 0.0,
        chunk: int = 4,
    ) -> None:
        if not callable(answers):
            answers = list(answers)
            if not answers:
                raise ValueError("FakeLLM needs at least one answer")
        self.answers = answers
        self.model = model
        self.status = status
        self.delay = delay
        self.chunk = max(1, chunk)
        #: (path, JSON body) of each chat request, in arrival order.
        self.requests: list[tuple[str, Any]] = []
        #: The headers of each chat request (names lower-cased), aligned with ``requests``.
        self.headers: list[dict[str, str]] = []
        #: (method, path) of every request, chat or not.
        self.log: list[tuple[str, str]] = []
        self._served = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``; the OpenAI base URL is ``url + "/v1"``."""
        if self._server is None:
            raise RuntimeError("FakeLLM is not started; use it in a with block or call start()")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "FakeLLM":
        if self._server is None:
            self._stopping.clear()
            server = _Server(("127.0.0.1", 0), _Handler)
            server.fake = self
            self._server = server
            self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._stopping.set()
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the handler asks -------------------------------------------------

    def _record(self, path: str, body: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append((path, body))
            self.headers.append(headers)

    def _answer(self, messages: list[dict]) -> str:
        if callable(self.answers):
            return str(self.answers(messages))
        with self._lock:
            answer = self.answers[min(self._served, len(self.answers) - 1)]
            self._served += 1
        return answer

    def _limited(self, text: str, limit: Any) -> tuple[str, bool]:
        """``text`` cut at ``limit`` tokens of four characters (no limit when it is not a positive int), and whether it was cut."""
        if isinstance(limit, int) and not isinstance(limit, bool) and 0 < limit and len(text) > 4 * limit:
            return text[: 4 * limit], True
        return text, False

    def _pieces(self, text: str) -> list[str]:
        return [text[i : i + self.chunk] for i in range(0, len(text), self.chunk)]

    def _wait(self) -> None:
        if self.delay:
            self._stopping.wait(self.delay)

    def _serves(self, model: Any) -> bool:
        names = {self.model, self.model + ":latest"} if ":" not in self.model else {self.model}
        if self.model.endswith(":latest"):
            names.add(self.model[: -len(":latest")])
        return model in names


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLLM

    def handle_error(self, request, client_address) -> None:
        # A client that timed out and hung up is what some tests do on purpose.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- routing -------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        fake = self.server.fake
        path = self.path.split("?", 1)[0]
        with fake._lock:
            fake.log.append((method, path))
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body: Any = None
        if path in CHAT_PATHS and method == "POST":
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = raw.decode("utf-8", "replace")
            fake._record(path, body, {k.lower(): v for k, v in self.headers.items()})
        fake._wait()
        api = "ollama" if path.startswith("/api/") else "anthropic" if path == "/v1/messages" else "openai"
        if fake.status is not None:
            return self._error(api, fake.status, f"simulated failure {fake.status}")
        if api == "anthropic" and not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            return self._error(api, 401, "x-api-key header is required")
        route = {
            ("GET", "/api/tags"): self._ollama_tags,
            ("POST", "/api/chat"): self._ollama_chat,
            ("GET", "/v1/models"): self._openai_models,
            ("POST", "/v1/chat/completions"): self._openai_chat,
            ("POST", "/v1/messages"): self._anthropic_messages,
        }.get((method, path))
        if route is None:
            return self._error(api, 404, f"no route {method} {path}")
        if method == "POST" and not isinstance(body, dict):
            return self._error(api, 400, "the request body is not a JSON object")
        if method == "POST" and not fake._serves(body.get("model")):
            return self._error(api, 404, f"model {body.get('model')!r} not found")
        route(body)

    # -- writing ---------------------------------------------------------------

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _begin_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _send_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _error(self, api: str, status: int, message: str) -> None:
        if api == "ollama":
            return self._json(status, {"error": message})
        if api == "anthropic":
            kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                    404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
            return self._json(status, {"type": "error", "error": {"type": kind, "message": message}},
                              {"request-id": "req_fake"})
        kind = {401: "authentication_error", 404: "NotFoundError"}.get(status, "server_error")
        return self._json(status, {"error": {"message": message, "type": kind, "param": None, "code": status}})

    # -- Ollama ----------------------------------------------------------------

    def _ollama_tags(self, _body: Any) -> None:
        fake = self.server.fake
        name = fake.model if ":" in fake.model else fake.model + ":latest"
        self._json(200, {"models": [{
            "name": name,
            "model": name,
            "modified_at": "2025-01-01T00:00:00.000000000Z",
            "size": 986061892,
            "digest": "0" * 64,
            "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                        "parameter_size": "1.5B", "quantization_level": "Q4_K_M"},
        }]})

    def _ollama_chat(self, body: dict) -> None:
        fake = self.server.fake
        options = body.get("options") if isinstance(body.get("options"), dict) else {}
        text, cut = fake._limited(fake._answer(_chat_messages(body.get("messages"))), options.get("num_predict"))
        done_reason = "length" if cut else "stop"
        stamp = _now()
        counts = {"total_duration": 1_000_000, "load_duration": 100_000, "prompt_eval_count": 10,
                  "prompt_eval_duration": 200_000, "eval_count": max(1, len(text) // 4), "eval_duration": 700_000}
        if not body.get("stream", True):  # Ollama streams unless told not to
            return self._json(200, {"model": body["model"], "created_at": stamp,
                                    "message": {"role": "assistant", "content": text},
                                    "done_reason": done_reason, "done": True, **counts})
        self._begin_stream("application/x-ndjson")
        for piece in fake._pieces(text):
            self._send_chunk(json.dumps({"model": body["model"], "created_at": _now(),
                                         "message": {"role": "assistant", "content": piece}, "done": False}) + "\n")
        self._send_chunk(json.dumps({"model": body["model"], "created_at": _now(),
                                     "message": {"role": "assistant", "content": ""},
                                     "done_reason": done_reason, "done": True, **counts}) + "\n")
        self._end_stream()

    # -- OpenAI ----------------------------------------------------------------

    def _openai_models(self, _body: Any) -> None:
        fake = self.server.fake
        self._json(200, {"object": "list", "data": [
            {"id": fake.model, "object": "model", "created": 1700000000, "owned_by": "fake"},
        ]})

    def _openai_chat(self, body: dict) -> None:
        fake = self.server.fake
        text, cut = fake._limited(fake._answer(_chat_messages(body.get("messages"))), body.get("max_tokens"))
        finish = "length" if cut else "stop"
        ident, created = f"chatcmpl-{len(fake.requests)}", int(time.time())
        if not body.get("stream", False):
            return self._json(200, {
                "id": ident, "object": "chat.completion", "created": created, "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "logprobs": None, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": len(text) // 4,
                          "total_tokens": 10 + len(text) // 4},
            })

        def chunk(delta: dict, finish: str | None) -> str:
            return "data: " + json.dumps({
                "id": ident, "object": "chat.completion.chunk", "created": created, "model": body["model"],
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }) + "\n\n"

        self._begin_stream("text/event-stream")
        self._send_chunk(": keep-alive\n\n")
        self._send_chunk(chunk({"role": "assistant", "content": ""}, None))
        for piece in fake._pieces(text):
            self._send_chunk(chunk({"content": piece}, None))
        self._send_chunk(chunk({}, finish))
        self._send_chunk("data: [DONE]\n\n")
        self._end_stream()

    # -- Anthropic -------------------------------------------------------------

    def _anthropic_messages(self, body: dict) -> None:
        fake = self.server.fake
        messages = _chat_messages(body.get("messages"))
        system = body.get("system")
        if system:
            messages.insert(0, {"role": "system", "content": _text(system)})
        text, cut = fake._limited(fake._answer(messages), body.get("max_tokens"))
        stop = "max_tokens" if cut else "end_turn"
        ident = f"msg_fake{len(fake.requests)}"
        usage_in = {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream", False):
            return self._json(200, {
                "id": ident, "type": "message", "role": "assistant", "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "stop_reason": stop, "stop_sequence": None,
                "usage": {**usage_in, "output_tokens": max(1, len(text) // 4)},
            }, {"request-id": "req_fake"})

        def event(name: str, data: dict) -> str:
            return f"event: {name}\ndata: {json.dumps(data)}\n\n"

        self._begin_stream("text/event-stream")
        self._send_chunk(event("message_start", {"type": "message_start", "message": {
            "id": ident, "type": "message", "role": "assistant", "model": body["model"], "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {**usage_in, "output_tokens": 1}}}))
        self._send_chunk(event("content_block_start", {"type": "content_block_start", "index": 0,
                                                       "content_block": {"type": "text", "text": ""}}))
        self._send_chunk(event("ping", {"type": "ping"}))
        for piece in fake._pieces(text):
            self._send_chunk(event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                           "delta": {"type": "text_delta", "text": piece}}))
        self._send_chunk(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        self._send_chunk(event("message_delta", {"type": "message_delta",
                                                 "delta": {"stop_reason": stop, "stop_sequence": None},
                                                 "usage": {"output_tokens": max(1, len(text) // 4)}}))
        self._send_chunk(event("message_stop", {"type": "message_stop"}))
        self._end_stream()


def _text(content: Any) -> str:
    """A message's content as one string: Anthropic and OpenAI also allow a list of text blocks."""
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return "" if content is None else str(content)


def _chat_messages(messages: Any) -> list[dict]:
    return [{"role": m.get("role", ""), "content": _text(m.get("content"))}
            for m in messages or [] if isinstance(m, dict)]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


__all__ = ["FakeLLM"]
