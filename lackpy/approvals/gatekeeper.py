"""The gatekeeper: the gates of one run, which ask the approver as the policy says and keep every decision.

lackpy sees a program before it runs and stages its writes, so it can ask at
three gates: the whole ``program`` up front (its own grade and the tools it
can reach), each ``call`` of a tool that acts on the world at once (a shell
command, a process, a web request, a destructive remote tool), before it
runs, and the ``commit`` of the staged writes, with their unified diff. A
fourth, ``elicit``, carries an MCP server's question to the person; a
fifth, ``skill``, asks a person, always, before a program runs with a skill
another MCP server serves (its server, URI and digests, and the program).
By default (``approve = "effects"``), a sixth, ``effects``, stands in for the
program gate and the call gates: the program's calls that can act are
listed from its text and approved once, up front, and the run is held to
that list (``lackpy.approvals.effects``). The commit keeps its own question,
with its diff.

Who answers is the approver the caller gives (``lackpy.approvals.approver``:
the terminal, an MCP client, a Python callback); with none, a blocking gate
denies and says how to allow it. A wait for a person is held in the
context the run gives (``Gatekeeper.waiting``): the run hands the time back
(``lackpy.run.execute.paused``), so it never counts against ``timeout_s``,
and lends its slot to another run meanwhile. Every
decision is kept (``Decision``, in the result and its trace) and given to
``record`` (the audit file).

The gates act inside a run, but this package sits below the run's layer:
the runner imports the gatekeeper and gives it what it needs of the run (the
count of calls so far, ``steps``, and the context of a wait, ``waiting``);
the gatekeeper imports nothing of the run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from lackpy.approvals import forms
from lackpy.approvals.approver import ApproveSpec, Approver, Audit, approve_all, approver_for
from lackpy.approvals.decision import Decision
from lackpy.approvals.effects import Holding, Placed, allowing, arguments_of, effects_of, listed, refs
from lackpy.approvals.policy import NONE, Ask, ApprovalPolicy, with_kit
from lackpy.approvals.request import ApprovalRequest, SkillOrigin, file_changes
from lackpy.errors import ConfigError, DeniedError, KitError, ParamError
from lackpy.kit.resolve import ResolvedKit
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade
from lackpy.summary import summarize

#: Gatekeepers a service keeps for reuse before its table starts again.
MOST_KEPT = 64
#: Who answers a call's approvals: (``approve``, an ``approval`` mode for every gate or None, the caller's event loop or None).
Answering = tuple[ApproveSpec, str | None, asyncio.AbstractEventLoop | None]
#: The context a wait for a person is held in: it yields None, or why the wait cannot be allowed (the question is then refused).
Waiting = Callable[[], AbstractContextManager[str | None]]


@contextmanager
def unhindered() -> Iterator[None]:
    """The wait of a gatekeeper outside a run: nothing to hand back or lend, and nothing refuses it."""
    yield None


class Gatekeeper:
    """The gates of one run: asks ``approver`` as ``policy`` says and keeps every decision.

    ``nobody`` is the sentence a blocking gate's denial carries when there is
    no one to ask (how to allow it in this channel); ``record`` hears each
    decision (the audit file). The run sets ``steps``, the count of the
    calls made so far, so a call's decision names its trace step, and
    ``waiting``, the context a wait for a person is held in (``Waiting``).
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        approver: Approver | None,
        *,
        nobody: str = "nobody can be asked here",
        record: Callable[[Decision, ApprovalRequest], None] | None = None,
        workspace: str = "",
    ) -> None:
        self.policy, self.approver, self.nobody, self.record, self.workspace = policy, approver, nobody, record, workspace
        self.decisions: list[Decision] = []
        self.steps: Callable[[], int] = lambda: 0
        self.waiting: Waiting = unhindered
        #: The approved list this run is held to (``effects``), and how its gate asked (a call it did not cover asks so).
        self.holding: Holding | None = None
        self.effects_ask: Ask = NONE

    def fresh(self) -> "Gatekeeper":
        """The same gates for another run, with no decisions yet."""
        return Gatekeeper(self.policy, self.approver, nobody=self.nobody, record=self.record, workspace=self.workspace)

    def program(self, program: str, grade: Grade, tools: Sequence[str]) -> Decision | None:
        """The up-front gate (None when it does not ask)."""
        ask = self.policy.for_gate("program")
        request = self._request("program", ask, program=program, grade=grade, risk=grade.risk, tools=sorted(tools))
        return None if request is None else self._decide(request, ask)

    def effects(
        self, program: str, grade: Grade, tools: Sequence[str], kit: ResolvedKit, params: Mapping[str, Any], staging: bool
    ) -> Decision | None:
        """The up-front gate of a run: the list of the program's calls that can act, asked once (unless
        ``policy.effects`` is off); else, or when it lists nothing, the program gate (None when it does not ask).

        The list asks as the most asking of the gates it stands in for, so it asks only when one of them would. Once
        approved, the run is held to it (``gate``). A yes from ``--yes`` allows any value for every computed argument
        (it would approve each call anyway); a yes that names a number not on the list approves nothing.
        """
        specs = {alias: kit.tools[alias] for alias in tools if alias in kit.tools}
        specs = {alias: spec for alias, spec in specs.items() if listed(spec, self.policy.for_call(spec).kind != "none")}
        if not self.policy.effects or not specs:
            return self.program(program, grade, tools)
        quiet = [alias for alias, spec in specs.items() if self.policy.for_call(spec).kind == "none"]
        found = effects_of(program, specs, params, staging, quiet)
        ask = self.policy.for_effects(specs.values())
        request = self._request("effects", ask, program=program, grade=grade, risk=grade.risk, tools=sorted(tools), effects=found)
        if request is None:
            return None
        asked_at, start = _now(), time.monotonic()
        decision = self._ask(request, ask)
        numbers = refs(found) if self.approver is approve_all else list(decision.any_value)
        unknown = sorted(set(numbers) - set(refs(found)))
        if decision.approved and unknown:
            decision = Decision(False, decision.by, f"the answer allows any value for #{unknown[0]}, which is not a computed argument on the list")
        chosen = sorted(set(numbers)) if decision.approved else []
        approved = allowing(found, chosen)
        kept = self._keep(request, ask, dataclasses.replace(decision, any_value=chosen, effects=list(approved)), asked_at, start)
        if kept.approved:
            self.holding, self.effects_ask = Holding(approved), ask
        return kept

    def asks_first(self, tools: Sequence[str], kit: ResolvedKit) -> bool:
        """Whether a question may come before a program calling ``tools`` runs (the program gate, or a list of its effects)."""
        if self.policy.for_gate("program").kind != "none":
            return True
        if not self.policy.effects:
            return False
        specs = [kit.tools[alias] for alias in tools if alias in kit.tools]
        specs = [spec for spec in specs if listed(spec, self.policy.for_call(spec).kind != "none")]
        return bool(specs) and self.policy.for_effects(specs).kind != "none"

    def skill(self, program: str, grade: Grade, tools: Sequence[str], origin: SkillOrigin) -> Decision:
        """The gate of a program run with a skill another MCP server serves: always asked, and waited for (``block``),
        whatever the policy and ``approval`` say; with nobody to ask, denied. Its content is the server's (untrusted):
        only a person may let it run, once, for this run."""
        ask = Ask("block", self.policy.wait_s)
        request = self._request("skill", ask, program=program, grade=grade, risk=grade.risk, tools=sorted(tools), origin=origin)
        return self._decide(request, ask)

    def commit(self, changes: Any, diff: Callable[[], str]) -> Decision | None:
        """The gate before staged writes are applied (None when it does not ask).

        ``changes`` has the ``created``, ``modified`` and ``deleted`` paths;
        the question names every one, with the lines ``diff()`` adds and removes in it.
        """
        ask = self.policy.for_gate("commit")
        if ask.kind == "none":
            return None
        text = diff()
        files = [*changes.created, *changes.modified, *changes.deleted]
        request = self._request("commit", ask, files=files, diff=text, changes=file_changes(changes, text))
        return self._decide(request, ask)

    def gate(self, alias: str, spec: ToolSpec, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` asked about before each call, when its mode asks; else ``fn`` itself. A tool on an approved list of
        effects is held to that list instead (``held``)."""
        if self.holding is not None and alias in self.holding.tools:
            return self.held(alias, spec, fn)
        ask = self.policy.for_call(spec)
        if ask.kind == "none":
            return fn
        names = [arg.name for arg in spec.args]

        def gated(*args: Any, **kwargs: Any) -> Any:
            arguments = dict(zip(names, args))
            arguments.update((f"#{at}", value) for at, value in enumerate(args[len(names):], len(names) + 1))  # never dropped unseen
            arguments.update(kwargs)
            request = self._request("call", ask, tool=alias, arguments=arguments)
            decision = self._decide(request, ask, step=self.steps() + 1)
            if not decision.approved:
                raise DeniedError(f"{alias}: not approved ({decision.by}): {decision.reason}")
            return fn(*args, **kwargs)

        gated.__name__ = alias
        return gated

    def held(self, alias: str, spec: ToolSpec, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` held to the approved list: each call is placed among the list's entries of ``alias`` before it runs.

        A call the list covers goes ahead (kept as a decision ``by`` ``effects``
        when the policy would have asked about it); one with a computed value
        the approval did not allow any value for is asked about on its own;
        anything else is refused and never runs. This runs where the tool is
        served, in lackpy's process, from the call's own arguments.
        """
        holding, names, asks = self.holding, [arg.name for arg in spec.args], self.policy.for_call(spec).kind != "none"
        assert holding is not None

        def gated(*args: Any, **kwargs: Any) -> Any:
            arguments = arguments_of(names, args, kwargs)
            if arguments is None:
                placed = Placed("refused", why="a keyword repeats a position, or names an argument only lackpy names")
                arguments = {**{f"#{at}": value for at, value in enumerate(args, 1)}, **kwargs}
            else:
                placed = holding.place(alias, arguments)
            lines = ", ".join(str(holding.effects[at].line) for at in placed.entries)
            if placed.verdict == "covered":
                if asks:
                    self._keep(self._shown(alias, arguments), self.effects_ask, Decision(True, "effects", f"on the approved list (line {lines})"),
                               _now(), time.monotonic(), self.steps() + 1)
                return fn(*args, **kwargs)
            if placed.verdict == "ask":
                entries = tuple(holding.effects[at] for at in placed.entries)
                request = ApprovalRequest(gate="call", ask=self.effects_ask.kind, wait_s=self._wait(self.effects_ask), workspace=self.workspace,
                                          tool=alias, arguments=arguments, effects=entries)
                decision = self._decide(request, self.effects_ask, step=self.steps() + 1)
                if decision.approved and holding.take(placed):
                    return fn(*args, **kwargs)
                why = decision.reason if not decision.approved else "it no longer fits the approved list"
                raise DeniedError(f"{alias}: not approved ({decision.by}): {why}")
            refused = Decision(False, "effects", placed.why)
            self._keep(self._shown(alias, arguments), self.effects_ask, refused, _now(), time.monotonic(), self.steps() + 1)
            raise DeniedError(f"{alias}: not approved (effects): {placed.why}; nothing outside the approved list can run")

        gated.__name__ = alias
        return gated

    def _shown(self, alias: str, arguments: dict[str, Any]) -> ApprovalRequest:
        """A call's record, for a decision the approved list made without asking."""
        return ApprovalRequest(gate="call", ask=self.effects_ask.kind, wait_s=0.0, workspace=self.workspace, tool=alias, arguments=arguments)

    def elicit(self, server: str, tool: str, question: str, form: dict[str, Any]) -> Decision:
        """An MCP server's question to the person during ``tool``'s call, asked as a blocking gate; the answer fills ``form``.

        Nobody is asked when there is nobody, or only ``--yes`` (it approves
        lackpy's gates; a server's question needs a person's answer). An
        answer that does not fill in the form as asked is a refusal: the
        server never sees it. Fields left out that have a default are sent
        with it (``forms.filled``). The decision is kept without what was typed.
        """
        ask = Ask("block", self.policy.wait_s)
        asked_at, start = _now(), time.monotonic()
        try:
            forms.fields(form)
        except ValueError as exc:
            request = self._request("elicit", ask, tool=tool, server=server, question=question)
            return self._keep(request, ask, Decision(False, "lackpy", f"the server's form cannot be asked: {exc}"), asked_at, start)
        request = self._request("elicit", ask, tool=tool, server=server, question=question, form=form)
        if self.approver is approve_all:
            decision = Decision(False, "yes", "--yes approves lackpy's own gates; a server's question needs a person's answer")
        else:
            decision = self._ask(request, ask)
            content = forms.filled(form, decision.content or {}) if decision.approved else {}
            wrong = forms.problem(form, content) if decision.approved else None
            if wrong is not None:
                decision = Decision(False, decision.by, f"the answer was not sent: {wrong}")
        self._keep(request, ask, decision, asked_at, start)
        return decision if not decision.approved else dataclasses.replace(decision, content=content)

    def _request(self, gate: str, ask: Ask, **fields: Any) -> ApprovalRequest | None:
        if ask.kind == "none":
            return None
        return ApprovalRequest(gate=gate, ask=ask.kind, wait_s=self._wait(ask), workspace=self.workspace, **fields)

    def _wait(self, ask: Ask) -> float:
        return ask.wait_s if ask.wait_s is not None else self.policy.wait_s

    def _decide(self, request: ApprovalRequest, ask: Ask, step: int | None = None) -> Decision:
        asked_at, start = _now(), time.monotonic()
        return self._keep(request, ask, self._ask(request, ask), asked_at, start, step)

    def _ask(self, request: ApprovalRequest, ask: Ask) -> Decision:
        """The approver's answer to ``request`` (the run's clock stopped meanwhile), or what no answer means for ``ask``."""
        if ask.kind == "notify":
            if self.approver is not None:
                self.approver(request)  # news only: the approver does not wait, and its answer does not count
            return Decision(True, "notify", "notify mode goes on without waiting")
        waits = self.approver is not None and not getattr(self.approver, "instant", False)
        with self.waiting() if waits else nullcontext() as busy:  # only someone who takes time stops the run's clock and lends its slot
            answer = Decision(False, "busy", busy) if busy else self.approver(request) if self.approver is not None else None
        return answer if answer is not None else self._unanswered(request, ask)

    def _keep(self, request: ApprovalRequest, ask: Ask, decision: Decision, asked_at: str, start: float, step: int | None = None) -> Decision:
        """``decision`` kept with what was asked (in the result and the audit), never with what a person typed into a form."""
        kept = dataclasses.replace(
            decision,
            gate=request.gate,
            ask=str(ask),
            tool=request.tool,
            arguments={name: summarize(value) for name, value in request.arguments.items()},
            files=list(request.files),
            step=step,
            asked_at=asked_at,
            waited_ms=round((time.monotonic() - start) * 1000, 3),
            content=None,
            any_value=list(decision.any_value) if request.gate == "effects" else [],
            effects=list(decision.effects) if request.gate == "effects" else [],
        )
        self.decisions.append(kept)
        if self.record is not None:
            self.record(kept, request)
        return kept

    def _unanswered(self, request: ApprovalRequest, ask: Ask) -> Decision:
        if self.approver is None and request.gate in ("elicit", "skill"):  # no setting turns these gates off
            return Decision(False, "nobody", self.nobody)
        if self.approver is None:
            if ask.kind == "auto":
                return Decision(True, "auto", "nobody to ask; auto mode goes on")
            if request.gate == "effects":
                tools = ", ".join(sorted({effect.tool for effect in request.effects}))
                return Decision(False, "nobody", f"{self.nobody}; or set [approvals] TOOL = \"none\" in .lackpy/config.toml for each tool it lists ({tools}), and commit = \"none\" for its writes")
            name = request.tool if request.gate == "call" else request.gate
            return Decision(False, "nobody", f"{self.nobody}; or set [approvals] {name} = \"none\" in .lackpy/config.toml")
        if ask.kind == "auto" and not request.showing.whole:
            return Decision(False, "timeout", f"no answer within {request.wait_s:g} s, and {request.showing.why}; auto mode goes on only after a question shown whole")
        if ask.kind == "auto":
            return Decision(True, "timeout", f"no answer within {request.wait_s:g} s; auto mode goes on")
        return Decision(False, "timeout", f"no answer within {request.wait_s:g} s")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Gatekeepers:
    """The gatekeepers of one service's calls, each built once per kit, answerer, ``approval`` and loop.

    A run takes its own copy (``Gatekeeper.fresh``). ``clear`` forgets them
    all (the service's trust or config changed). With ``audit``, every
    decision is appended to ``.lackpy/audit.jsonl`` through one ``Audit``,
    whose failure to write is said once in ``notices``.
    """

    def __init__(self, workspace: str, notices: list[str]) -> None:
        self.workspace, self.notices = workspace, notices
        self._kept: dict[tuple, tuple[ResolvedKit, Gatekeeper]] = {}
        self._audit: Audit | None = None

    def clear(self) -> None:
        self._kept.clear()

    def get(self, kit: ResolvedKit, policy: ApprovalPolicy, answering: Answering, *, trusted: bool, audit: bool) -> Gatekeeper:
        """The gates of a call with ``kit``: ``policy``, with the kit's ``approvals`` (a kit an untrusted workspace wrote may
        only ask more), every gate asking as ``approval`` says when given; answered by ``approve``."""
        approve, approval, loop = answering
        try:
            key = (id(kit), approve, approval, loop, audit)
            kept = self._kept.get(key)
        except TypeError:  # an answerer that cannot be a key: built each time
            key, kept = None, None
        if kept is not None and kept[0] is kit:
            return kept[1]
        gatekeeper = self._build(kit, policy, answering, trusted, audit)
        if key is not None:
            if len(self._kept) >= MOST_KEPT:
                self._kept.clear()
            self._kept[key] = (kit, gatekeeper)  # the kit is kept too, so its id is never another kit's
        return gatekeeper

    def _build(self, kit: ResolvedKit, policy: ApprovalPolicy, answering: Answering, trusted: bool, audit: bool) -> Gatekeeper:
        approve, approval, loop = answering
        if kit.extra.get("approvals") is not None:
            names = {alias: spec.name for alias, spec in kit.tools.items()}
            own = trusted or kit.source != "workspace"
            try:
                policy = with_kit(policy, kit.extra["approvals"], names, f"kit '{kit.name}'", only_more=not own)
            except ConfigError as exc:
                raise KitError(str(exc)) from None
        if approval is not None:
            try:
                policy = dataclasses.replace(policy, every=Ask.parse(approval, "approval"))
            except ConfigError as exc:
                raise ParamError(str(exc)) from None
        approver, nobody = approver_for(approve, loop)
        if audit and self._audit is None:
            self._audit = Audit(Path(self.workspace), self.notices)
        return Gatekeeper(policy, approver, nobody=nobody, record=self._audit if audit else None, workspace=self.workspace)


__all__ = ["Answering", "Gatekeeper", "Gatekeepers", "Waiting", "unhindered"]
