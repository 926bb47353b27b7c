"""A decision: one answer at one gate, and the record of it the result, its trace and the audit file keep.

An approver answers with a ``Decision`` (approved or not, ``by`` whom, why);
the gatekeeper keeps it with what was asked: the gate, how it asks, the
tool and its arguments (summarized), the files, the trace step, when it was
asked and how long the answer took. One type for both, so an answer and its
record never drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lackpy.approvals.effects import Effect
from lackpy.schema import Contract


@dataclass(frozen=True)
class Decision(Contract):
    """One answer: approved or not, ``by`` whom (``user``, ``client``, ``callback``, ``yes``, ``nobody``, ``timeout``), and why.

    The fields after ``reason`` are filled in by the gatekeeper that kept it.
    ``content`` is what the person filled in when they answered a server's
    question (``elicit``); it goes back to that server only, never into a
    record (``json: False``). At the ``effects`` gate, ``any_value`` is the
    answer's numbers of the computed arguments any value is allowed for, and
    the kept decision's ``effects`` the list as approved (each computed
    argument saying whether any value was allowed).
    """

    approved: bool
    by: str = "user"
    reason: str = ""
    gate: str = ""
    ask: str = ""
    """How the gate asked (``block``, ``auto:30``, ``notify``; ``lackpy.approvals.policy.Ask``)."""
    tool: str | None = None
    arguments: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    step: int | None = None
    """The trace step of the call it gated."""
    asked_at: str = ""
    """When it was asked (UTC, ISO 8601)."""
    waited_ms: float = 0.0
    content: dict[str, Any] | None = field(default=None, metadata={"json": False})
    any_value: list[int] = field(default_factory=list)
    """The computed arguments (by number, ``#N`` on the list) a yes at the ``effects`` gate allows any value for."""
    effects: list[Effect] = field(default_factory=list)
    """The ``effects`` gate's list as it was answered (``lackpy.approvals.effects``)."""


def as_decision(answer: Any, by: str) -> Decision:
    """A channel's answer as a Decision: a Decision, a bool, "yes"/"no" text, or a dict (a server's form, filled in); anything else denies."""
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, dict):
        return Decision(True, by, "answered", content=answer)
    if isinstance(answer, bool):
        return Decision(answer, by, "approved" if answer else "refused")
    if isinstance(answer, str) and answer.strip().lower() in ("y", "yes", "approve", "approved"):
        return Decision(True, by, "approved")
    return Decision(False, by, "refused" if answer in (None, "", "n", "no") else f"not an approval: {str(answer)[:60]!r}")


__all__ = ["Decision", "as_decision"]
