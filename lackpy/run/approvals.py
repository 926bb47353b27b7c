"""Approvals: a person says yes before a program does what they asked to be asked about.

lackpy sees a program before it runs and stages its writes, so it can ask at
three gates: the whole ``program`` up front (its own grade and the tools it
can reach), each ``call`` of a tool that acts on the world at once (a shell
command, a process, a web request, a destructive remote tool), before it
runs, and the ``commit`` of the staged writes, with their unified diff.

Each gate has a mode: ``block`` waits for a yes (a no, or no answer within
the wait, denies), ``auto`` waits and then goes on, ``notify`` tells and goes
on, ``none`` does not ask. Who answers is the ``Approver`` the caller gives
(the terminal, an MCP client, a Python callback); with none, a blocking gate
denies and says how to allow it. Time spent waiting is handed back to the
run (``execute.paused``), so it never counts against ``timeout_s``. Every
decision is kept as an ``Approval`` (in the result and its trace) and given
to ``record`` (the audit file).
"""

from __future__ import annotations

import dataclasses
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Protocol, Sequence

from lackpy.errors import ConfigError, DeniedError
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade
from lackpy.run.execute import paused
from lackpy.run.trace import Approval, summarize

#: The modes, least asking first.
MODES = ("none", "notify", "auto", "block")
#: Where a program is asked about.
GATES = ("program", "call", "commit")
#: How long a person has to answer unless configured (``approval_timeout_s``).
DEFAULT_WAIT_S = 120.0


@dataclass(frozen=True)
class Mode:
    """A gate's mode and, when it waits, for how long (None: ``approval_timeout_s``)."""

    kind: str = "none"
    wait_s: float | None = None

    @classmethod
    def parse(cls, text: Any, where: str = "approvals") -> "Mode":
        """``block``, ``auto``, ``notify`` or ``none``; ``block:30`` / ``auto:30`` wait that many seconds."""
        if isinstance(text, Mode):
            return text
        kind, _, seconds = str(text).strip().lower().partition(":") if isinstance(text, str) else ("", "", "")
        if kind not in MODES or (seconds and kind not in ("block", "auto")):
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
        return MODES.index(self.kind)

    def __str__(self) -> str:
        return self.kind if self.wait_s is None else f"{self.kind}:{self.wait_s:g}"


NONE, NOTIFY, AUTO, BLOCK = (Mode(kind) for kind in MODES)


def _most(a: Mode, b: Mode) -> Mode:
    """The mode that asks more."""
    return a if a.rank >= b.rank else b


def default_call_mode(spec: ToolSpec) -> Mode:
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

    program: Mode = NONE
    commit: Mode = BLOCK
    calls: Mapping[str, Mode] = field(default_factory=dict)
    wait_s: float = DEFAULT_WAIT_S
    every: Mode | None = None
    defaults: bool = True
    """Whether a tool not named in ``calls`` gets its default mode (``default_call_mode``), or none."""
    floor: "ApprovalPolicy | None" = None
    """A policy this one never asks less than (a trusted one under an untrusted workspace's)."""

    def for_call(self, spec: ToolSpec) -> Mode:
        if self.every is not None:
            return self.every
        mode = self.calls.get(spec.name) or self.calls.get("*") or (default_call_mode(spec) if self.defaults else NONE)
        return _most(mode, self.floor.for_call(spec)) if self.floor is not None else mode

    def for_gate(self, gate: str) -> Mode:
        if self.every is not None:
            return self.every
        mode = self.program if gate == "program" else self.commit
        return _most(mode, self.floor.for_gate(gate)) if self.floor is not None else mode


@dataclass(frozen=True)
class ApprovalRequest:
    """What a person is asked to approve: one gate of one run.

    ``program`` gate: the ``program``, its own ``grade`` and ``risk`` and the
    ``tools`` it can reach. ``call``: the ``tool`` and its ``arguments``.
    ``commit``: the ``files`` the writes change and their unified ``diff``.
    ``mode`` says whether the answer is waited for (``block``, ``auto``) or
    this is only news (``notify``); ``wait_s`` how long an answer may take.
    """

    gate: str
    mode: str
    wait_s: float
    workspace: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    program: str | None = None
    grade: Grade | None = None
    risk: str | None = None
    tools: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    diff: str | None = None

    def summary(self) -> str:
        """One line: what would happen."""
        if self.gate == "call":
            shown = ", ".join(f"{name}={summarize(value)}" for name, value in self.arguments.items())
            return f"{self.tool}({shown})"
        if self.gate == "commit":
            return f"write {len(self.files)} file{'s' if len(self.files) != 1 else ''}: {', '.join(self.files[:8])}{' ...' if len(self.files) > 8 else ''}"
        return f"run a program ({self.risk}, {self.grade}) that can call {', '.join(self.tools) or 'no tools'}"

    def details(self) -> str:
        """What a person reads before answering: the program, the arguments or the diff."""
        if self.gate == "program":
            return self.program or ""
        if self.gate == "commit":
            return self.diff or ""
        return "\n".join(f"{name} = {summarize(value)}" for name, value in self.arguments.items())


@dataclass(frozen=True)
class Decision:
    """An answer: approved or not, ``by`` whom (``user``, ``client``, ``callback``, ``yes``), and why."""

    approved: bool
    by: str = "user"
    reason: str = ""


#: What a run's gates call to ask: a Decision, or None when nobody answered within ``request.wait_s``.
class Approver(Protocol):
    def __call__(self, request: ApprovalRequest) -> Decision | None: ...


class Gatekeeper:
    """The gates of one run: asks ``approver`` as ``policy`` says and keeps every decision.

    ``nobody`` is the sentence a blocking gate's denial carries when there is
    no one to ask (how to allow it in this channel); ``record`` hears each
    decision (the audit file); ``steps`` counts the calls made so far, so a
    call's decision names its trace step.
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        approver: Approver | None,
        *,
        nobody: str = "nobody can be asked here",
        record: Callable[[Approval, ApprovalRequest], None] | None = None,
        workspace: str = "",
    ) -> None:
        self.policy, self.approver, self.nobody, self.record, self.workspace = policy, approver, nobody, record, workspace
        self.decisions: list[Approval] = []
        self.steps: Callable[[], int] = lambda: 0

    def fresh(self) -> "Gatekeeper":
        """The same gates for another run, with no decisions yet."""
        return Gatekeeper(self.policy, self.approver, nobody=self.nobody, record=self.record, workspace=self.workspace)

    def program(self, program: str, grade: Grade, tools: Sequence[str]) -> Approval | None:
        """The up-front gate (None when it does not ask)."""
        mode = self.policy.for_gate("program")
        request = self._request("program", mode, program=program, grade=grade, risk=grade.risk, tools=sorted(tools))
        return None if request is None else self._decide(request, mode)

    def commit(self, files: Sequence[str], diff: Callable[[], str]) -> Approval | None:
        """The gate before staged writes are applied (None when it does not ask)."""
        mode = self.policy.for_gate("commit")
        request = self._request("commit", mode, files=list(files), diff=diff() if mode.kind != "none" else None)
        return None if request is None else self._decide(request, mode)

    def gate(self, alias: str, spec: ToolSpec, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` asked about before each call, when its mode asks; else ``fn`` itself."""
        mode = self.policy.for_call(spec)
        if mode.kind == "none":
            return fn
        names = [arg.name for arg in spec.args]

        def gated(*args: Any, **kwargs: Any) -> Any:
            arguments = dict(zip(names, args))
            arguments.update(kwargs)
            request = self._request("call", mode, tool=alias, arguments=arguments)
            decision = self._decide(request, mode, step=self.steps() + 1)
            if not decision.approved:
                raise DeniedError(f"{alias}: not approved ({decision.by}): {decision.reason}")
            return fn(*args, **kwargs)

        gated.__name__ = alias
        return gated

    def _request(self, gate: str, mode: Mode, **fields: Any) -> ApprovalRequest | None:
        if mode.kind == "none":
            return None
        wait = mode.wait_s if mode.wait_s is not None else self.policy.wait_s
        return ApprovalRequest(gate=gate, mode=mode.kind, wait_s=wait, workspace=self.workspace, **fields)

    def _decide(self, request: ApprovalRequest, mode: Mode, step: int | None = None) -> Approval:
        asked_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        start = time.monotonic()
        if mode.kind == "notify":
            if self.approver is not None:
                self.approver(request)  # news only: the approver does not wait, and its answer does not count
            decision = Decision(True, "notify", "notify mode goes on without waiting")
        else:
            waits = self.approver is not None and not getattr(self.approver, "instant", False)
            with paused() if waits else nullcontext():  # the run's clock stops only for someone who takes time
                answer = self.approver(request) if self.approver is not None else None
            decision = answer if answer is not None else self._unanswered(request, mode)
        approval = Approval(
            gate=request.gate,
            mode=str(mode),
            approved=decision.approved,
            by=decision.by,
            reason=decision.reason,
            tool=request.tool,
            arguments={name: summarize(value) for name, value in request.arguments.items()},
            files=list(request.files),
            step=step,
            asked_at=asked_at,
            waited_ms=round((time.monotonic() - start) * 1000, 3),
        )
        self.decisions.append(approval)
        if self.record is not None:
            self.record(approval, request)
        return approval

    def _unanswered(self, request: ApprovalRequest, mode: Mode) -> Decision:
        if self.approver is None:
            if mode.kind == "auto":
                return Decision(True, "auto", "nobody to ask; auto mode goes on")
            name = request.tool if request.gate == "call" else request.gate
            return Decision(False, "nobody", f"{self.nobody}; or set [approvals] {name} = \"none\" in .lackpy/config.toml")
        if mode.kind == "auto":
            return Decision(True, "timeout", f"no answer within {request.wait_s:g} s; auto mode goes on")
        return Decision(False, "timeout", f"no answer within {request.wait_s:g} s")


def as_decision(answer: Any, by: str) -> Decision:
    """A channel's answer as a Decision: a Decision, a bool, or "yes"/"no" text; anything else denies."""
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, bool):
        return Decision(answer, by, "approved" if answer else "refused")
    if isinstance(answer, str) and answer.strip().lower() in ("y", "yes", "approve", "approved"):
        return Decision(True, by, "approved")
    return Decision(False, by, "refused" if answer in (None, "", "n", "no") else f"not an approval: {str(answer)[:60]!r}")


def approve_all(request: ApprovalRequest) -> Decision:
    """The approver of ``--yes``: everything asked is approved, and recorded as such."""
    return _YES


_YES = Decision(True, "yes", "approved in advance (--yes)")
approve_all.instant = True  # type: ignore[attr-defined]  # answers at once: no run clock to stop


def policy_from(settings: Mapping[str, Any], where: str = "config", *, defaults: bool = True) -> ApprovalPolicy:
    """An ApprovalPolicy from config keys: ``approve``, ``approval_timeout_s`` and the ``[approvals]`` table.

    ``approve = "program"`` asks about the whole program up front.
    ``[approvals]`` takes ``program``, ``commit``, ``"*"`` (every call) and
    tool names, each a mode. Without ``defaults``, only what is named asks
    (an untrusted workspace's settings, which may add to a policy, never
    take from it).
    """
    table = dict(settings.get("approvals") or {})
    approve = settings.get("approve")
    if approve is not None and approve not in ("program", "calls"):
        raise ConfigError(f"{where}: approve must be \"program\" (ask once up front, too) or \"calls\" (the default)")
    wait = settings.get("approval_timeout_s", DEFAULT_WAIT_S)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 < wait <= 86_400:
        raise ConfigError(f"{where}: approval_timeout_s must be a number of seconds from 1 to 86400")
    modes = {name: Mode.parse(value, f"{where} [approvals] {name}") for name, value in table.items()}
    program = modes.pop("program", BLOCK if approve == "program" else NONE)
    commit = modes.pop("commit", BLOCK if defaults else NONE)
    every = modes.pop("*", None)
    calls = {name: mode for name, mode in modes.items()}
    if every is not None:
        calls["*"] = every
    return ApprovalPolicy(program=program, commit=commit, calls=calls, wait_s=float(wait), defaults=defaults)


def with_kit(policy: ApprovalPolicy, table: Any, names: Mapping[str, str], where: str, *, only_more: bool) -> ApprovalPolicy:
    """``policy`` with a kit's ``approvals`` (gates and tools, tools by alias or name): the kit's modes replace the
    config's for what it names, or, ``only_more`` (a kit an untrusted workspace wrote), may only ask more."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: approvals must be 'name: mode' lines, e.g. run_command: none")
    modes = {str(name): Mode.parse(value, f"{where} approvals {name}") for name, value in table.items()}
    program, commit, every = modes.pop("program", None), modes.pop("commit", None), modes.pop("*", None)
    calls = {names.get(name, name): mode for name, mode in modes.items()}
    if every is not None:
        calls["*"] = every
    if only_more:
        return ApprovalPolicy(program or NONE, commit or NONE, calls, policy.wait_s, defaults=False, floor=policy)
    merged = {**policy.calls, **calls}
    return dataclasses.replace(policy, program=program or policy.program, commit=commit or policy.commit, calls=merged)


__all__ = [
    "AUTO",
    "BLOCK",
    "NONE",
    "NOTIFY",
    "Approval",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "Gatekeeper",
    "Mode",
    "approve_all",
    "as_decision",
    "default_call_mode",
    "policy_from",
    "with_kit",
]
