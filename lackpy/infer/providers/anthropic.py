"""The Anthropic tier: Claude through the official ``anthropic`` SDK (``pip install 'lackpy[anthropic]'``).

::

    [inference.anthropic]
    model = "claude-haiku-4-5"          # required
    api_key_env = "ANTHROPIC_API_KEY"   # default: the variable that holds the key
    # base_url = "https://..."          # a gateway or proxy; default: the SDK's
    max_tokens = 1024
    timeout = 120                       # seconds for the whole request
    max_retries = 2                     # the SDK's retries of overloaded or failed requests
    # temperature = 0                   # sent only when set: current models refuse it

The SDK is imported inside the methods, so lackpy works without it until this
tier is used. Unlike the other tiers, temperature has no default: the current
Messages API (and SDK 2.x, which dropped the argument) refuses sampling
settings, so it is sent, as an extra body field, only to servers that the user
says take it.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Iterator, Mapping

from lackpy.errors import InferenceError
from lackpy.infer.base import CUT, Availability, Completion, Message, OnText, Tier, gather
from lackpy.infer.providers.http import excerpt

DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
MISSING_PACKAGE = "the anthropic package is not installed (pip install 'lackpy[anthropic]')"


class AnthropicTier(Tier):
    """A Claude model, asked through ``client.messages.stream`` (or ``create`` when ``stream = false``)."""

    name = "anthropic"
    model = True

    def __init__(self, settings: Mapping[str, Any] | None = None, workspace=None) -> None:
        super().__init__(settings, workspace)
        self._client: Any = None

    # -- settings -----------------------------------------------------------

    @property
    def model_name(self) -> str:
        model = self.settings.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InferenceError('set model = "..." under [inference.anthropic] (for example "claude-haiku-4-5")')
        return model.strip()

    def _key_env(self) -> str:
        return str(self.settings.get("api_key_env") or DEFAULT_KEY_ENV)

    def _api_key(self) -> str:
        key = self.settings.get("api_key") or os.environ.get(self._key_env())
        if not key:
            raise InferenceError(f"{self._key_env()} is not set; export your Anthropic API key in it")
        return str(key)

    def _request(self, messages: list[Message]) -> dict[str, Any]:
        """The keyword arguments of ``messages.stream``/``create``: system prompts go to ``system=``."""
        s = self.settings
        system = [m["content"] for m in messages if m.get("role") == "system"]
        kwargs: dict[str, Any] = {
            "model": self.model_name,
            "max_tokens": int(self.number("max_tokens", 1024, positive=True)),
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages if m.get("role") != "system"],
        }
        if system:
            kwargs["system"] = "\n\n".join(system)
        if s.get("temperature") is not None:
            kwargs["extra_body"] = {"temperature": self.number("temperature", 0)}
        return kwargs

    def client(self) -> Any:
        """The SDK client, made once; InferenceError when the package or the key is missing."""
        if self._client is None:
            try:
                import anthropic
            except ImportError:
                raise InferenceError(MISSING_PACKAGE) from None
            s = self.settings
            kwargs: dict[str, Any] = {
                "api_key": self._api_key(),
                "timeout": self.number("timeout", 120, positive=True),
                "max_retries": int(self.number("max_retries", 2)),
            }
            if s.get("base_url"):
                kwargs["base_url"] = str(s["base_url"])
            self._client = anthropic.Anthropic(**kwargs)
        return self._client

    # -- the tier -----------------------------------------------------------

    def available(self) -> Availability:
        try:
            if importlib.util.find_spec("anthropic") is None:
                return Availability(False, MISSING_PACKAGE)
        except (ImportError, ValueError):
            return Availability(False, MISSING_PACKAGE)
        if not (self.settings.get("api_key") or os.environ.get(self._key_env())):
            return Availability(False, f"{self._key_env()} is not set")
        try:
            self.model_name
        except InferenceError as exc:
            return Availability(False, str(exc))
        return Availability(True)

    def complete(self, messages: list[Message], on_text: OnText | None = None) -> Completion:
        kwargs = self._request(messages)
        stream = self.settings.get("stream", True)
        if not isinstance(stream, bool):
            raise InferenceError("[inference.anthropic] stream must be true or false")
        return gather(self._pieces(kwargs, stream), on_text)

    def describe(self) -> str:
        where = f" at {self.settings['base_url']}" if self.settings.get("base_url") else ""
        return f"anthropic {self.settings.get('model') or '(no model set)'}{where}"

    def _pieces(self, kwargs: dict[str, Any], stream: bool) -> Iterator[Any]:
        """The answer's text as the SDK yields it, then ``CUT`` if it stopped at ``max_tokens``; SDK errors become InferenceError."""
        client = self.client()
        import anthropic

        try:
            if not stream:
                message = client.messages.create(**kwargs)
                yield "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
            else:
                with client.messages.stream(**kwargs) as events:
                    yield from events.text_stream
                    message = events.get_final_message()
            if getattr(message, "stop_reason", None) == "max_tokens":
                yield CUT
        except anthropic.AuthenticationError:
            raise InferenceError(f"the Anthropic API refused the key in {self._key_env()}; check it") from None
        except anthropic.NotFoundError as exc:
            raise InferenceError(
                f"the Anthropic API has no {kwargs['model']!r} ({_detail(exc)}); fix model under [inference.anthropic]"
            ) from None
        except anthropic.APIStatusError as exc:
            raise InferenceError(
                f"the Anthropic API at {client.base_url} answered HTTP {exc.status_code}: {_detail(exc)}; "
                "try again later or check the request"
            ) from None
        except anthropic.APITimeoutError:
            raise InferenceError(
                f"the Anthropic API at {client.base_url} did not answer in time; raise timeout under [inference.anthropic]"
            ) from None
        except anthropic.APIConnectionError as exc:
            raise InferenceError(
                f"cannot reach the Anthropic API at {client.base_url} ({_detail(exc)}); check the network or base_url"
            ) from None
        except Exception as exc:  # anything else the SDK raises: still one line, never its traceback
            raise InferenceError(f"the anthropic SDK failed: {type(exc).__name__}: {excerpt(str(exc))}; check [inference.anthropic]") from None


def _detail(exc: Any) -> str:
    """The API's own message in an SDK error, else the error's text, on one line."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return excerpt(error["message"])
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause):
        return excerpt(str(cause))
    return excerpt(getattr(exc, "message", None) or str(exc) or type(exc).__name__)


__all__ = ["AnthropicTier"]

