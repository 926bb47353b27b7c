"""Guardrails: plugins that see every tool call before it runs and every result after, in both run modes.

``before_tool_call(call)`` may let a call pass, refuse it (``Deny``) or
change its arguments; ``after_tool_call(call, result)`` may replace what the
program gets. Tools run in the host in both modes (an isolated program's
calls cross to it), so one wrapper here covers both. Two ship as examples:
``RedactKeys`` and ``AllowHosts`` (``[guardrails]`` in the config).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import urlsplit

from lackpy.errors import DeniedError
from lackpy.hookspecs import hookimpl
from lackpy.kit.spec import ToolSpec


@dataclass
class ToolCall:
    """One call as a guardrail sees it."""

    tool: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Deny:
    """A guardrail's refusal, with the reason the program is told."""

    reason: str


def guarded(alias: str, spec: ToolSpec, fn: Callable[..., Any], before: Any, after: Any) -> Callable[..., Any]:
    """``fn`` behind the guardrails: ``before(call=...)`` and ``after(call=..., result=...)`` are pluggy hook callers."""
    names = [arg.name for arg in spec.args]

    def call_through(*args: Any, **kwargs: Any) -> Any:
        arguments = dict(zip(names, args))
        arguments.update(kwargs)
        extra = args[len(names):]
        call = ToolCall(alias, spec.name, arguments)
        for decision in before(call=call):
            if isinstance(decision, Deny):
                raise DeniedError(f"{alias}: a guardrail refused the call: {decision.reason}")
            if isinstance(decision, dict):
                call.arguments = dict(decision)
        result = fn(*extra, **call.arguments) if extra else fn(**call.arguments)
        for replaced in after(call=call, result=result):
            result = replaced
        return result

    call_through.__name__ = alias
    return call_through


#: What looks like an API key: a known prefix and a long token, or a long run of key-like characters after "key"/"token".
_KEYS = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})"
)


class RedactKeys:
    """Replaces what looks like an API key in any tool's result with ``[redacted]`` (strings at any depth)."""

    @hookimpl
    def after_tool_call(self, call: ToolCall, result: Any) -> Any:
        redacted = _redact(result)
        return redacted if redacted is not result else None


def _redact(value: Any) -> Any:
    if isinstance(value, str):
        cut = _KEYS.sub("[redacted]", value)
        return cut if cut != value else value
    if isinstance(value, list):
        items = [_redact(v) for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    if isinstance(value, dict):
        items = {k: _redact(v) for k, v in value.items()}
        return items if any(items[k] is not value[k] for k in value) else value
    return value


class AllowHosts:
    """Lets ``fetch_url`` reach only the listed hosts (and their subdomains)."""

    def __init__(self, hosts: Iterable[str], tools: Iterable[str] = ("fetch_url",)) -> None:
        self.hosts = tuple(h.lower().strip(".") for h in hosts)
        self.tools = frozenset(tools)

    @hookimpl
    def before_tool_call(self, call: ToolCall) -> Deny | None:
        if call.name not in self.tools:
            return None
        host = (urlsplit(str(call.arguments.get("url", ""))).hostname or "").lower()
        if any(host == allowed or host.endswith("." + allowed) for allowed in self.hosts):
            return None
        return Deny(f"{host or 'that URL'} is not an allowed host (allowed: {', '.join(self.hosts) or 'none'}); add it to [guardrails] allow_hosts")


class Guardrails:
    """The guardrails of one service: the config's ``[guardrails]``, the plugins that implement the hooks, and ``add``'s.

    ``settings`` gives the config's table and ``plugins`` the registered
    plugins, both asked once, on first use (reading them may load the config).
    """

    def __init__(self, settings: Callable[[], Mapping[str, Any]], plugins: Callable[[], Iterable[Any]]) -> None:
        self._settings, self._plugins = settings, plugins
        self._manager: Any = None

    def add(self, plugin: Any) -> None:
        """Put every tool call through ``plugin``'s ``before_tool_call`` / ``after_tool_call``."""
        self.manager().register(plugin)

    def manager(self) -> Any:
        if self._manager is None:
            import pluggy

            from lackpy import hookspecs

            manager = pluggy.PluginManager("lackpy")
            manager.add_hookspecs(hookspecs)
            for plugin in self._plugins():
                if any(hasattr(plugin, hook) for hook in ("before_tool_call", "after_tool_call")):
                    manager.register(plugin)
            settings = self._settings()
            if settings.get("redact_keys"):
                manager.register(RedactKeys())
            if settings.get("allow_hosts") is not None:
                manager.register(AllowHosts(settings["allow_hosts"]))
            self._manager = manager
        return self._manager

    def hooks(self) -> tuple[Any, Any] | None:
        """The (before, after) hook callers, or None when no guardrail is registered (calls go straight through)."""
        hook = self.manager().hook
        if not hook.before_tool_call.get_hookimpls() and not hook.after_tool_call.get_hookimpls():
            return None
        return hook.before_tool_call, hook.after_tool_call


__all__ = ["AllowHosts", "Deny", "Guardrails", "RedactKeys", "ToolCall", "guarded"]
