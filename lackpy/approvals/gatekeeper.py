"""The gatekeeper: the gates of one run, which ask the approver as the policy says and keep every decision.

lackpy sees a program before it runs and stages its writes, so it can ask at
three gates: the whole ``program`` up front (its own grade and the tools it
can reach), each ``call`` of a tool that acts on the world at once (a shell
command, a process, a web request, a destructive remote tool), before it
runs, and the ``commit`` of the staged writes, with their unified diff. A
fourth, ``elicit``, carries an MCP server's question to the person; a
fifth, ``skill``, asks a person, always, before a program runs with a skill
another MCP server serves (its server, URI and digests, and the program).

Who answers is the approver the caller gives (``lackpy.approvals.approver``:
the terminal, an MCP client, a Python callback); with none, a blocking gate
denies and says how to allow it. Time spent waiting is handed back to the
run (``execute.paused``), so it never counts against ``timeout_s``. Every
decision is kept (``Decision``, in the result and its trace) and given to
``record`` (the audit file).

The gates act inside a run, so this package sits at the run's layer: the
runner imports the gatekeeper, and the gatekeeper imports only the run's
clock, slots and trace summaries, never the runner.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from contextlib import nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from lackpy.approvals import forms
from lackpy.approvals.approver import ApproveSpec, Approver, Audit, approve_all, approver_for
from lackpy.approvals.decision import Decision
from lackpy.approvals.policy import Ask, ApprovalPolicy, with_kit
from lackpy.approvals.request import ApprovalRequest, SkillOrigin, file_changes
from lackpy.errors import ConfigError, DeniedError, KitError, ParamError
from lackpy.kit.resolve import ResolvedKit
from lackpy.kit.spec import ToolSpec
from lackpy.lang.grade import Grade
from lackpy.run.execute import paused
from lackpy.run.slots import set_aside
from lackpy.run.trace import summarize

#: Gatekeepers a service keeps for reuse before its table starts again.
MOST_KEPT = 64
#: Who answers a call's approvals: (``approve``, an ``approval`` mode for every gate or None, the caller's event loop or None).
Answering = tuple[ApproveSpec, str | None, asyncio.AbstractEventLoop | None]

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
        record: Callable[[Decision, ApprovalRequest], None] | None = None,
        workspace: str = "",
    ) -> None:
        self.policy, self.approver, self.nobody, self.record, self.workspace = policy, approver, nobody, record, workspace
        self.decisions: list[Decision] = []
        self.steps: Callable[[], int] = lambda: 0

    def fresh(self) -> "Gatekeeper":
        """The same gates for another run, with no decisions yet."""
        return Gatekeeper(self.policy, self.approver, nobody=self.nobody, record=self.record, workspace=self.workspace)

    def program(self, program: str, grade: Grade, tools: Sequence[str]) -> Decision | None:
        """The up-front gate (None when it does not ask)."""
        ask = self.policy.for_gate("program")
        request = self._request("program", ask, program=program, grade=grade, risk=grade.risk, tools=sorted(tools))
        return None if request is None else self._decide(request, ask)

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
        """``fn`` asked about before each call, when its mode asks; else ``fn`` itself."""
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
        wait = ask.wait_s if ask.wait_s is not None else self.policy.wait_s
        return ApprovalRequest(gate=gate, ask=ask.kind, wait_s=wait, workspace=self.workspace, **fields)

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
        with paused() if waits else nullcontext():  # the run's clock stops only for someone who takes time
            with set_aside() if waits else nullcontext() as busy:  # and its run slot goes to another run meanwhile
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


__all__ = ["Answering", "Gatekeeper", "Gatekeepers"]
