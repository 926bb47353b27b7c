"""The Ollama tier: a local model served by ``ollama serve``, through its native chat API (``pip install 'lackpy[ollama]'``).

::

    [inference.ollama]
    model = "qwen2.5-coder:1.5b"      # required; pull it first: ollama pull qwen2.5-coder:1.5b
    host = "http://127.0.0.1:11434"   # default; else $OLLAMA_HOST
    temperature = 0                   # deterministic by default: programs, not prose
    timeout = 120                     # seconds to wait for each piece of the answer
    stream = true                     # show the answer as it is written
    options = { num_ctx = 8192 }      # merged into Ollama's "options"
    keep_alive = "10m"                # how long Ollama keeps the model loaded

The native API (``/api/chat``) rather than Ollama's OpenAI endpoint, because it
takes Ollama's own ``options`` and ``keep_alive`` and says plainly when a model
is not pulled.
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Mapping
from urllib.parse import urlsplit

from lackpy.errors import InferenceError
from lackpy.infer.base import CUT, Availability, Completion, Message, OnText, Tier, gather
from lackpy.infer.providers import http

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
#: Seconds ``available()`` waits for the server: it must stay cheap.
PROBE_TIMEOUT = 2.0


def normalize_host(value: str) -> str:
    """An Ollama host as users write it (``0.0.0.0``, ``:11434``, ``host:port``) as a base URL.

    Follows the ``ollama`` command's reading of OLLAMA_HOST: no scheme means
    http, no port means 11434, and a bind-all address means this machine.
    """
    value = value.strip().rstrip("/")
    if "://" not in value:
        value = "http://" + value
    parts = urlsplit(value)
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise InferenceError(f"Ollama host {value!r} has a bad port; write it like \"http://127.0.0.1:11434\"") from None
    return f"{parts.scheme}://{host}:{port}{parts.path}"


def has_model(tags: Any, model: str) -> bool:
    """Whether ``model`` is in an ``/api/tags`` answer; a name without a tag means ``:latest``."""
    wanted = {model, model + ":latest"} if ":" not in model else {model}
    if model.endswith(":latest"):
        wanted.add(model[: -len(":latest")])
    entries = tags.get("models") if isinstance(tags, dict) else None
    for entry in entries or []:
        if isinstance(entry, dict) and ({entry.get("name"), entry.get("model")} & wanted):
            return True
    return False


class OllamaTier(Tier):
    """A model on an Ollama server, asked through ``POST /api/chat``."""

    name = "ollama"
    model = True

    def __init__(self, settings: Mapping[str, Any] | None = None, workspace=None) -> None:
        super().__init__(settings, workspace)
        host = self.settings.get("host") or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
        self._host_setting = str(host)

    # -- settings -----------------------------------------------------------

    @property
    def host(self) -> str:
        return normalize_host(self._host_setting)

    @property
    def model_name(self) -> str:
        model = self.settings.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InferenceError('set model = "..." under [inference.ollama] (for example "qwen2.5-coder:1.5b")')
        return model.strip()

    def _request(self) -> tuple[dict[str, Any], float]:
        """The chat request body (without messages) and the timeout, from the settings."""
        s = self.settings
        temperature = self.number("temperature", 0)
        timeout = self.number("timeout", 120, positive=True)
        stream = s.get("stream", True)
        if not isinstance(stream, bool):
            raise InferenceError("[inference.ollama] stream must be true or false")
        options = s.get("options", {})
        if not isinstance(options, dict):
            raise InferenceError("[inference.ollama] options must be a table, e.g. options = { num_ctx = 8192 }")
        body: dict[str, Any] = {
            "model": self.model_name,
            "stream": stream,
            "options": {"temperature": temperature, **options},
        }
        if s.get("keep_alive") is not None:
            body["keep_alive"] = s["keep_alive"]
        return body, timeout

    # -- the tier -----------------------------------------------------------

    def available(self) -> Availability:
        try:
            http.require_httpx("ollama")
            model, host = self.model_name, self.host
            tags = http.get_json(host + "/api/tags", timeout=PROBE_TIMEOUT)
        except http.UnreachableError as exc:
            if exc.reason != "refused":
                return Availability(False, str(exc))
            return Availability(False, f"no Ollama server at {self.host} (start it with 'ollama serve')")
        except InferenceError as exc:
            return Availability(False, str(exc))
        if not has_model(tags, model):
            return Availability(False, f"model {model} is not pulled (run 'ollama pull {model}')")
        return Availability(True)

    def complete(self, messages: list[Message], on_text: OnText | None = None) -> Completion:
        http.require_httpx("ollama")
        body, timeout = self._request()
        body["messages"] = list(messages)
        return gather(self._pieces(body, timeout), on_text)

    def describe(self) -> str:
        model = self.settings.get("model") or "(no model set)"
        try:
            host = self.host
        except InferenceError:
            host = self._host_setting
        return f"ollama {model} at {host}"

    def _pieces(self, body: dict[str, Any], timeout: float) -> Iterator[Any]:
        """The answer's text in the pieces Ollama sends (one when not streaming), then ``CUT`` if it stopped at ``num_predict``."""
        url = self.host + "/api/chat"
        try:
            if not body["stream"]:
                answer = http.post_json(url, body, timeout=timeout)
                yield _content(answer, url)
                if answer.get("done_reason") == "length":
                    yield CUT
                return
            for line in http.stream_lines(url, body, timeout=timeout):
                if not line.strip():
                    continue
                chunk = http.loads(line, url)
                piece = _content(chunk, url)
                if piece:
                    yield piece
                if chunk.get("done"):
                    if chunk.get("done_reason") == "length":
                        yield CUT
                    return
            raise InferenceError(f"the answer from {url} stopped before it was done; check the Ollama server's log")
        except http.UnreachableError as exc:
            if exc.reason != "refused":
                raise
            raise InferenceError(f"no Ollama server at {self.host} (start it with 'ollama serve')") from None
        except http.HTTPStatusError as exc:
            if exc.status == 404 and "not found" in exc.body:
                model = body["model"]
                raise InferenceError(f"model {model} is not pulled (run 'ollama pull {model}')") from None
            raise


def _content(chunk: Any, url: str) -> str:
    """The text of one Ollama answer object; its ``error`` as an InferenceError."""
    if not isinstance(chunk, dict):
        raise InferenceError(f"{url} answered {http.excerpt(repr(chunk))}, not a chat object; is it an Ollama server?")
    if chunk.get("error"):
        raise InferenceError(f"Ollama at {url} failed: {http.excerpt(str(chunk['error']))}")
    message = chunk.get("message")
    if not isinstance(message, dict):
        if chunk.get("done"):
            return ""
        raise InferenceError(f"{url} answered without a message: {http.excerpt(repr(chunk))}; is it an Ollama server?")
    content = message.get("content") or ""
    return content if isinstance(content, str) else str(content)


__all__ = ["DEFAULT_HOST", "OllamaTier", "has_model", "normalize_host"]
