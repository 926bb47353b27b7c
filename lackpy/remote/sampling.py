"""Sampling: a server's ``sampling/createMessage``, answered by the inference tier the user's config names for it.

Sampling spends the person's model budget on text a server chose, so it is
refused unless ``[mcp.servers.NAME] sampling = "TIER"`` says which tier may
answer. Only such a server is told that lackpy samples (the SDK declares the
capability exactly when a ``sampling_callback`` is given). A server without
the key is not told, and the SDK's client answers a request it sends anyway
with its own "Sampling not supported": the SDK offers no public way to answer
with lackpy's sentence without declaring the capability, and a server must
not be invited to send what lackpy will refuse.

Where the key can come from: the user's own config, or a trusted
workspace's. An untrusted workspace's ``[mcp]`` and ``[inference]`` are
withheld (``lackpy.trust.PRIVILEGED_KEYS``), so it can neither enable
sampling nor point a tier elsewhere.

Whether the tier exists is checked when the server starts, not when the
config loads: the tiers come from the workspace's ``[inference]`` while the
server may come from the user's own config, which serves every workspace;
so a workspace without that tier (an untrusted one has no model tier) fails
that one server's start with a one-line reason, not every lackpy command.

What is answered: text only (a request with images, audio, tool use or
tools is refused: lackpy's tiers take text), and only while a call of the
server's tools is in flight (a server cannot spend the budget on its own
time). One request at a time per server. The tier runs in a thread
(``asyncio.to_thread``) so the remotes' loop keeps serving every other
server, within the server's ``timeout_s``. ``maxTokens`` cannot be passed
on: a tier's ``complete`` takes messages only, so the tier's own settings
bound the answer (``max_tokens`` for openai, anthropic and llamacpp,
``options = { num_predict = N }`` for ollama); ``stopReason`` is always
``endTurn``, as a tier does not say why it stopped.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from lackpy.errors import ConfigError, LackpyError
from lackpy.remote.settings import ServerSettings

#: ``tier_named(name)``: the service's model tier of that name; raises ConfigError when there is none.
TierNamed = Callable[[str], Any]
#: The longest reason a failed tier's error carries back to the server, in characters.
REASON_CHARS = 300


def hooks(settings: ServerSettings, tier_named: TierNamed | None, inflight: Any) -> dict[str, Any]:
    """The client's ``sampling_callback`` for a server whose config sets ``sampling``; none (nothing declared) otherwise.

    Raises ConfigError when the tier is not one this service has: the server does not start.
    """
    if settings.sampling is None:
        return {}
    if tier_named is None:
        raise ConfigError(f"[mcp.servers.{settings.name}] sampling = {settings.sampling!r}: this lackpy has no inference tiers to answer with")
    try:
        tier = tier_named(settings.sampling)
    except LackpyError as exc:  # a tier's own settings may be wrong too: one line, naming the server's key
        raise ConfigError(f"[mcp.servers.{settings.name}] {exc}") from None
    return {"sampling_callback": Sampler(settings, tier, inflight)}


def tier_named(name: str, tiers: list[tuple[str, Any]]) -> Any:
    """The model tier ``name`` among ``tiers`` (``[(name, tier)]`` in the config's order); ConfigError naming the ones there are."""
    models = [(named, tier) for named, tier in tiers if getattr(tier, "model", False)]
    for named, tier in models:
        if named == name:
            return tier
    there = ", ".join(named for named, _ in models) or "none"
    raise ConfigError(
        f"sampling = {name!r} names no model tier of this workspace's [inference] (its model tiers: {there}); "
        f"add [inference.{name}] to the config of a trusted workspace, or name one of them"
    )


class Sampler:
    """One server's ``sampling_callback``: its requests answered by one tier, one at a time."""

    def __init__(self, settings: ServerSettings, tier: Any, inflight: Any) -> None:
        self.settings, self.tier, self.inflight = settings, tier, inflight
        self._one = asyncio.Lock()
        self._thread: asyncio.Future | None = None

    async def __call__(self, context: Any, params: Any) -> Any:
        from mcp.types import INVALID_REQUEST, ErrorData

        problem = self._refusal(params)
        if problem:
            return ErrorData(code=INVALID_REQUEST, message=problem)
        return await self._answer(chat_messages(params))

    def _refusal(self, params: Any) -> str | None:
        """Why lackpy does not answer this request, or None."""
        name = self.settings.name
        if not getattr(self.inflight, "askers", None):
            return f"lackpy answers sampling for the MCP server {name} only during a call of its tools"
        if getattr(params, "tools", None) or getattr(params, "tool_choice", None):
            return f"lackpy's inference tiers answer text only; the MCP server {name} asked for tool use"
        for message in params.messages:
            kinds = {getattr(block, "type", "?") for block in _blocks(message.content)} - {"text"}
            if kinds:
                return f"lackpy's inference tiers answer text only; the MCP server {name} sent {', '.join(sorted(kinds))} content"
        return None

    async def _answer(self, messages: list[dict[str, str]]) -> Any:
        """The tier's answer as a ``CreateMessageResult``, or ErrorData with a one-line reason (never a secret)."""
        from mcp.types import INTERNAL_ERROR, CreateMessageResult, ErrorData, TextContent

        timeout = self.settings.timeout_s
        try:
            text = await asyncio.wait_for(self._completed(messages), timeout)
        except (asyncio.TimeoutError, TimeoutError):
            return ErrorData(code=INTERNAL_ERROR, message=f"lackpy's tier {self.settings.sampling} did not answer within {timeout:g} s")
        except Exception as exc:
            return ErrorData(code=INTERNAL_ERROR, message=f"lackpy's tier {self.settings.sampling} could not answer: {_reason(exc)}")
        model = str(getattr(self.tier, "model_name", "") or self.settings.sampling)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=str(text)), model=model, stop_reason="endTurn")


    async def _completed(self, messages: list[dict[str, str]]) -> str:
        """The tier's text, from a thread of its own; one thread per server at a time, waiting counting in the request's time.

        A thread cannot be stopped: one past its time runs on to the tier's own
        timeout, its answer dropped, and the next request waits for it to end.
        """
        async with self._one:
            if self._thread is not None:
                await asyncio.wait({self._thread})
            self._thread = asyncio.ensure_future(asyncio.to_thread(self.tier.complete, messages))
            self._thread.add_done_callback(_settled)
            return await asyncio.shield(self._thread)


def _settled(thread: asyncio.Future) -> None:
    """Take a late thread's outcome, so an error nobody waits for any more is not logged as lost."""
    if not thread.cancelled():
        thread.exception()


def chat_messages(params: Any) -> list[dict[str, str]]:
    """The request as the chat messages a tier takes: its ``systemPrompt`` first, then each message's text."""
    messages = [{"role": "system", "content": params.system_prompt}] if params.system_prompt else []
    for message in params.messages:
        text = "\n".join(block.text for block in _blocks(message.content))
        messages.append({"role": message.role, "content": text})
    return messages


def _blocks(content: Any) -> list[Any]:
    return list(content) if isinstance(content, list) else [content]


def _reason(exc: BaseException) -> str:
    """One line: lackpy's own errors say what happened; any other only its kind (its text may carry what it was sent)."""
    if isinstance(exc, LackpyError):
        return " ".join(str(exc).split())[:REASON_CHARS]
    return type(exc).__name__


__all__ = ["Sampler", "TierNamed", "chat_messages", "hooks", "tier_named"]
