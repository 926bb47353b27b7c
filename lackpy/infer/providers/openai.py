"""The OpenAI-compatible tier: any server with a chat-completions endpoint (``pip install 'lackpy[openai]'``).

vLLM, the llama.cpp server, LM Studio, Ollama's ``/v1`` and hosted APIs all
take the same request, so one tier serves them all::

    [inference.openai]
    base_url = "http://127.0.0.1:8000/v1"   # default; used as written, so include the /v1
    model = "Qwen/Qwen2.5-Coder-1.5B-Instruct"   # required
    api_key_env = "OPENAI_API_KEY"          # default; sent only when that variable is set
    # api_key = "sk-..."                    # a literal key instead (prefer the variable)
    temperature = 0
    max_tokens = 1024
    timeout = 120                           # seconds to wait for each piece of the answer
    stream = true

``base_url`` is used as given (less a trailing slash) rather than guessed at,
because servers mount the API at different paths; a 404 says to check it.
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Mapping

from lackpy.errors import InferenceError
from lackpy.infer.base import CUT, Availability, Completion, Message, OnText, Tier, gather
from lackpy.infer.providers import http

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: Seconds ``available()`` waits for the server: it must stay cheap.
PROBE_TIMEOUT = 2.0


class OpenAITier(Tier):
    """A model behind an OpenAI-compatible ``POST {base_url}/chat/completions``."""

    name = "openai"
    model = True

    def __init__(self, settings: Mapping[str, Any] | None = None, workspace=None) -> None:
        super().__init__(settings, workspace)
        self.base_url = str(self.settings.get("base_url") or DEFAULT_BASE_URL).strip().rstrip("/")

    # -- settings -----------------------------------------------------------

    @property
    def model_name(self) -> str:
        model = self.settings.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InferenceError('set model = "..." under [inference.openai] (the name the server serves)')
        return model.strip()

    def _key_env(self) -> str:
        return str(self.settings.get("api_key_env") or DEFAULT_KEY_ENV)

    def _headers(self) -> dict[str, str]:
        key = self.settings.get("api_key") or os.environ.get(self._key_env())
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _request(self) -> tuple[dict[str, Any], float]:
        """The chat request body (without messages) and the timeout, from the settings."""
        s = self.settings
        stream = s.get("stream", True)
        if not isinstance(stream, bool):
            raise InferenceError("[inference.openai] stream must be true or false")
        body = {
            "model": self.model_name,
            "temperature": self.number("temperature", 0),
            "max_tokens": int(self.number("max_tokens", 1024, positive=True)),
            "stream": stream,
        }
        return body, self.number("timeout", 120, positive=True)

    # -- the tier -----------------------------------------------------------

    def available(self) -> Availability:
        try:
            http.require_httpx("openai")
            self.model_name
            http.get_json(self.base_url + "/models", headers=self._headers(), timeout=PROBE_TIMEOUT)
        except http.UnreachableError as exc:
            if exc.reason == "refused":
                return Availability(False, f"no server at {self.base_url} (start it, or fix base_url under [inference.openai])")
            return Availability(False, str(exc))
        except http.HTTPStatusError as exc:
            if exc.status in (401, 403):
                return Availability(False, self._refused_key())
            if exc.status == 404:
                return Availability(False, f"{exc.url} answered 404; check base_url (it usually ends in /v1)")
            return Availability(False, str(exc))
        except InferenceError as exc:
            return Availability(False, str(exc))
        return Availability(True)

    def complete(self, messages: list[Message], on_text: OnText | None = None) -> Completion:
        http.require_httpx("openai")
        body, timeout = self._request()
        body["messages"] = list(messages)
        return gather(self._pieces(body, timeout), on_text)

    def describe(self) -> str:
        return f"openai {self.settings.get('model') or '(no model set)'} at {self.base_url}"

    def _refused_key(self) -> str:
        return f"the server refused the API key (set {self._key_env()} or api_key_env under [inference.openai])"

    def _pieces(self, body: dict[str, Any], timeout: float) -> Iterator[Any]:
        """The answer's text in the pieces the server streams (one when not streaming), then ``CUT`` if it stopped at ``max_tokens``."""
        url = self.base_url + "/chat/completions"
        headers = self._headers()
        try:
            if not body["stream"]:
                answer = http.post_json(url, body, headers=headers, timeout=timeout)
                yield _message_content(answer, url)
                if _finish_reason(answer) == "length":
                    yield CUT
                return
            for data in http.sse_data(http.stream_lines(url, body, headers=headers, timeout=timeout)):
                if data.strip() == "[DONE]":
                    return
                chunk = http.loads(data, url)
                piece = _delta_content(chunk, url)
                if piece:
                    yield piece
                if _finish_reason(chunk) == "length":
                    yield CUT
            raise InferenceError(f"the answer from {url} stopped before [DONE]; check the server's log")
        except http.UnreachableError as exc:
            if exc.reason != "refused":
                raise
            raise InferenceError(f"no server at {self.base_url} (start it, or fix base_url under [inference.openai])") from None
        except http.HTTPStatusError as exc:
            if exc.status in (401, 403):
                raise InferenceError(self._refused_key()) from None
            if exc.status == 404:
                raise InferenceError(
                    f"{url} answered 404 ({http.error_detail(exc.body)}); check base_url (it usually ends in /v1) "
                    f"and that the server serves model {body['model']}"
                ) from None
            raise


def _error_of(obj: Any, url: str) -> None:
    if isinstance(obj, dict) and obj.get("error"):
        error = obj["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise InferenceError(f"{url} failed: {http.excerpt(str(message))}")


def _message_content(obj: Any, url: str) -> str:
    """``choices[0].message.content`` of a chat.completion."""
    _error_of(obj, url)
    try:
        content = obj["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise InferenceError(
            f"{url} answered without choices[0].message.content: {http.excerpt(repr(obj))}; is it OpenAI-compatible?"
        ) from None
    return content or ""


def _finish_reason(obj: Any) -> Any:
    """``choices[0].finish_reason`` of a completion or a chunk (``"length"``: the model reached ``max_tokens``); None if absent."""
    choices = obj.get("choices") if isinstance(obj, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return first.get("finish_reason") if isinstance(first, dict) else None


def _delta_content(obj: Any, url: str) -> str:
    """``choices[0].delta.content`` of a chat.completion.chunk; empty for role-only and usage chunks."""
    _error_of(obj, url)
    if not isinstance(obj, dict):
        raise InferenceError(f"{url} streamed {http.excerpt(repr(obj))}, not a chunk; is it OpenAI-compatible?")
    choices = obj.get("choices") or []
    if not choices:
        return ""
    delta = choices[0].get("delta") if isinstance(choices[0], dict) else None
    content = delta.get("content") if isinstance(delta, dict) else None
    return content if isinstance(content, str) else ""


__all__ = ["DEFAULT_BASE_URL", "OpenAITier"]
