"""The approval policy: which gates ask, and how each asks.

Each gate asks in one of four ways (``Ask``): ``block`` waits for a yes (a
no, or no answer within the wait, denies), ``auto`` waits and then goes on,
``notify`` tells and goes on, ``none`` does not ask. The config's
``approve``, ``approval_timeout_s`` and ``[approvals]`` table make the
policy (``policy_from``); a kit's ``approvals`` may change it (``with_kit``;
an untrusted workspace's kit may only ask more).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from lackpy.errors import ConfigError
from lackpy.kit.spec import ToolSpec

#: The ways a gate asks, least asking first.
ASKS = ("none", "notify", "auto", "block")
#: Where a program is asked about.
GATES = ("program", "call", "commit")
#: How long a person has to answer unless configured (``approval_timeout_s``).
DEFAULT_WAIT_S = 120.0
#: The ways that wait for an answer (their wait is part of how much they ask).
WAITING = ("block", "auto")


@dataclass(frozen=True)
class Ask:
    """How a gate asks (``block``, ``auto``, ``notify``, ``none``; the config calls it the approval mode) and, when it waits, for how long (None: ``approval_timeout_s``)."""

    kind: str = "none"
    wait_s: float | None = None

    @classmethod
    def parse(cls, text: Any, where: str = "approvals") -> "Ask":
        """``block``, ``auto``, ``notify`` or ``none``; ``block:30`` / ``auto:30`` wait that many seconds."""
        if isinstance(text, Ask):
            return text
        kind, _, seconds = str(text).strip().lower().partition(":") if isinstance(text, str) else ("", "", "")
        if kind not in ASKS or (seconds and kind not in ("block", "auto")):
            raise ConfigError(f"{where}: {text!r} is not an approval mode; use block, auto, notify or none (block:30 / auto:30 wait 30 s)")
        wait = None
        if seconds:
            try:
                wait = float(seconds)
            except ValueError:
                wait = -1.0
            if not 0 < wait <= 86_400:
                raise ConfigError(f"{where}: {text!r}: the wait must be a number of seconds from 1 to 86400")
        return cls(kind, wait)

    @property
    def rank(self) -> int:
        return ASKS.index(self.kind)

    def __str__(self) -> str:
        return self.kind if self.wait_s is None else f"{self.kind}:{self.wait_s:g}"


NONE, NOTIFY, AUTO, BLOCK = (Ask(kind) for kind in ASKS)


def _most(a: Ask, wait_a: float, b: Ask, wait_b: float) -> Ask:
    """The Ask that asks more in every part: the kind that asks more and, of the modes that wait, the longest wait.

    ``wait_a`` and ``wait_b`` are what ``a`` and ``b`` wait when they name no
    wait (their policy's ``approval_timeout_s``); the Ask returned names its
    wait unless it is ``wait_a``. So a workspace's ``auto:1`` under the
    user's ``auto:600`` is ``auto:600``, and its ``block:1`` under
    ``auto:600`` is ``block:600``: whatever it says, it can only ask more.
    """
    kind = (a if a.rank >= b.rank else b).kind
    if kind not in WAITING:
        return Ask(kind)
    waits = [wait if ask.wait_s is None else ask.wait_s for ask, wait in ((a, wait_a), (b, wait_b)) if ask.kind in WAITING]
    longest = max(waits)
    return Ask(kind, None if longest == wait_a else longest)


def default_call_ask(spec: ToolSpec) -> Ask:
    """Whether a call of ``spec`` is approved before it runs unless configured otherwise.

    A tool that declares ``approval = "call"`` (commands, processes, web
    requests) is; so is a remote tool lackpy grades as able to change things
    (d >= 2: the config's grade, or the highest when nothing trusted says
    less), since its server's own hints are not trusted. Staged file writes
    are approved at commit instead.
    """
    if spec.approval == "call":
        return BLOCK
    if spec.provider == "mcp" and spec.effects_ceiling >= 2:
        return BLOCK
    return NONE


@dataclass(frozen=True)
class ApprovalPolicy:
    """Which gates ask, and how: ``program``, ``commit``, ``calls`` by tool name, ``every`` over all."""

    program: Ask = NONE
    commit: Ask = BLOCK
    calls: Mapping[str, Ask] = field(default_factory=dict)
    wait_s: float = DEFAULT_WAIT_S
    every: Ask | None = None
    defaults: bool = True
    """Whether a tool not named in ``calls`` gets its default (``default_call_ask``), or none."""
    floor: "ApprovalPolicy | None" = None
    """A policy this one never asks less than (a trusted one under an untrusted workspace's)."""
    effects: bool = True
    """Whether a program's effects are listed and approved once, up front (``lackpy.approvals.effects``): the default,
    and ``approve = "effects"``; ``approve = "calls"`` or ``"program"`` ask at each call instead. Only the user's own or
    a trusted workspace's config says so: an untrusted one's (the ``floor``) is never read for it."""

    def for_call(self, spec: ToolSpec) -> Ask:
        if self.every is not None:
            return self.every
        ask = self.calls.get(spec.name) or self.calls.get("*") or (default_call_ask(spec) if self.defaults else NONE)
        return _most(ask, self.wait_s, self.floor.for_call(spec), self.floor.wait_s) if self.floor is not None else ask

    def for_gate(self, gate: str) -> Ask:
        if self.every is not None:
            return self.every
        ask = self.program if gate == "program" else self.commit
        return _most(ask, self.wait_s, self.floor.for_gate(gate), self.floor.wait_s) if self.floor is not None else ask

    def for_effects(self, specs: Iterable[ToolSpec]) -> Ask:
        """How the ``effects`` gate asks about a list with calls of ``specs``: as the most asking of the gates it stands
        in for (the program gate and each tool's calls), so it asks only when one of them would, and waits as long as
        the longest of them. The commit is not one of them: it asks with its diff, as its own gate says."""
        ask = self.for_gate("program")
        for other in (self.for_call(spec) for spec in specs):
            ask = _most(ask, self.wait_s, other, self.wait_s)
        return ask



def policy_from(settings: Mapping[str, Any], where: str = "config", *, defaults: bool = True) -> ApprovalPolicy:
    """An ApprovalPolicy from config keys: ``approve``, ``approval_timeout_s`` and the ``[approvals]`` table.

    ``approve = "effects"`` (the default) lists a program's effects and asks
    about them once, up front, instead of about each call
    (``lackpy.approvals.effects``); ``approve = "calls"`` asks about each
    call as it comes, ``approve = "program"`` about the whole program up
    front and then each call.
    ``[approvals]`` takes ``program``, ``commit``, ``"*"`` (every call) and
    tool names, each a mode. Without ``defaults``, only what is named asks
    (an untrusted workspace's settings, which may add to a policy, never
    take from it).
    """
    table = dict(settings.get("approvals") or {})
    approve = settings.get("approve")
    if approve is not None and approve not in ("program", "calls", "effects"):
        raise ConfigError(
            f"{where}: approve must be \"effects\" (the default: list the program's effects and ask once, up front), "
            "\"calls\" (ask at each call) or \"program\" (ask about the program up front, then at each call)"
        )
    wait = settings.get("approval_timeout_s", DEFAULT_WAIT_S)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 < wait <= 86_400:
        raise ConfigError(f"{where}: approval_timeout_s must be a number of seconds from 1 to 86400")
    asks = {name: Ask.parse(value, f"{where} [approvals] {name}") for name, value in table.items()}
    program = asks.pop("program", BLOCK if approve == "program" else NONE)
    commit = asks.pop("commit", BLOCK if defaults else NONE)
    every = asks.pop("*", None)
    calls = {name: ask for name, ask in asks.items()}
    if every is not None:
        calls["*"] = every
    effects = approve in (None, "effects")
    return ApprovalPolicy(program=program, commit=commit, calls=calls, wait_s=float(wait), defaults=defaults, effects=effects)


def with_kit(policy: ApprovalPolicy, table: Any, names: Mapping[str, str], where: str, *, only_more: bool) -> ApprovalPolicy:
    """``policy`` with a kit's ``approvals`` (gates and tools, tools by alias or name): the kit's modes replace the
    config's for what it names, or, ``only_more`` (a kit an untrusted workspace wrote), may only ask more."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: approvals must be 'name: mode' lines, e.g. run_command: none")
    asks = {str(name): Ask.parse(value, f"{where} approvals {name}") for name, value in table.items()}
    program, commit, every = asks.pop("program", None), asks.pop("commit", None), asks.pop("*", None)
    calls = {names.get(name, name): ask for name, ask in asks.items()}
    if every is not None:
        calls["*"] = every
    if only_more:
        return ApprovalPolicy(program or NONE, commit or NONE, calls, policy.wait_s, defaults=False, floor=policy, effects=policy.effects)
    merged = {**policy.calls, **calls}
    return dataclasses.replace(policy, program=program or policy.program, commit=commit or policy.commit, calls=merged)


__all__ = ["ASKS", "AUTO", "BLOCK", "DEFAULT_WAIT_S", "GATES", "NONE", "NOTIFY", "ApprovalPolicy", "Ask", "default_call_ask", "policy_from", "with_kit"]
