"""What an inference tier is: the contract between the dispatcher and a provider.

A tier turns an intent into program text. Deterministic tiers (templates,
rules) answer ``propose`` once, from data; model tiers answer ``complete`` on a
chat conversation and may be asked again with feedback. Providers are created
from their ``[inference.NAME]`` settings by factories registered through the
``register_inference_providers`` hook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lackpy.errors import InferenceError
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grade import Grade

#: A chat message as every chat API takes it: {"role": "system"|"user"|"assistant", "content": str}.
Message = dict[str, str]

#: Called with each piece of text a model streams, as it arrives.
OnText = Callable[[str], None]


@dataclass(frozen=True)
class Availability:
    """Whether a tier can serve now; ``reason`` says why not (and what to do)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass
class Request:
    """One intent to serve with one kit.

    ``params`` are the program's parameters (name -> value); a program may use
    them as variables. ``workspace`` is the service's root. An untrusted
    workspace sets ``program_ceiling`` to the read-only grade.
    """

    intent: str
    kit: ResolvedKit
    params: Mapping[str, Any] = field(default_factory=dict)
    workspace: Path = field(default_factory=Path.cwd)
    program_ceiling: Grade | None = None
    """The grade programs from the workspace's own files (templates) may reach; None: the kit's."""
    guide: str | None = None
    """How to do the job, when a skill was chosen (its SKILL.md body): model tiers are shown it."""


@dataclass
class Proposal:
    """A program a deterministic tier proposes for a request.

    ``detail`` names what produced it (``"template count-word"``; a rule
    adds what it understood the intent as: ``"rule count-markers: the number
    of TODO markers (lines with the word TODO) in files"``); ``source`` is the
    provider's own handle, given back to ``record``.
    """

    program: str
    detail: str = ""
    source: Any = None


class Tier:
    """Base of every inference tier (exported as ``lackpy.Tier``; ``InferenceProvider`` is its old name).

    Subclasses set ``name``, and ``model = True`` when they talk to a model.
    A deterministic tier implements ``propose``; a model tier ``complete``.
    """

    name: str = ""
    model: bool = False

    def __init__(self, settings: Mapping[str, Any] | None = None, workspace: Path | None = None) -> None:
        self.settings = dict(settings or {})
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()

    def available(self) -> Availability:
        """Can this tier serve now? Cheap; never raises."""
        return Availability(True)

    def propose(self, request: Request) -> Proposal | None:
        """A deterministic tier's program for ``request``, or None when it has none."""
        raise InferenceError(f"tier '{self.name}' must define propose(request), or set model = True and define complete(messages, on_text)")

    def complete(self, messages: list[Message], on_text: OnText | None = None) -> str:
        """A model tier's raw answer to ``messages``; raises InferenceError when it cannot.

        Plain text, or a ``Completion`` (``gather`` makes one) whose ``cut``
        says the server stopped the model at its length limit.
        """
        raise InferenceError(f"tier '{self.name}' sets model = True but does not define complete(messages, on_text)")

    def record(self, proposal: Proposal, success: bool) -> None:
        """Learn whether ``proposal`` ran successfully (templates count their uses)."""

    def needs(self, intent: str) -> Any:
        """The kit (a name or tool names) this tier would serve ``intent`` with, or None.

        Used to choose tools when the caller names no kit.
        """
        return None

    def understands(self) -> list[str]:
        """Example intents this tier serves, for the message when nothing could serve."""
        return []

    def number(self, key: str, default: float, *, positive: bool = False) -> float:
        """A numeric setting of this tier's table, checked; the error names the table and the key."""
        value = self.settings.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (positive and value <= 0):
            kind = "a positive number" if positive else "a number"
            raise InferenceError(f"[inference.{self.name}] {key} must be {kind}, not {value!r}")
        return value

    def describe(self) -> str:
        """One line for listings, e.g. ``ollama qwen2.5-coder:1.5b at http://127.0.0.1:11434``."""
        return self.name


class Completion(str):
    """A model's answer text; ``cut`` when its server said the model stopped at its length limit.

    A ``str``, so a tier's ``complete`` may return either: plain text means
    only the text can tell whether the answer was cut off.
    """

    cut: bool

    def __new__(cls, text: str, cut: bool = False) -> "Completion":
        answer = super().__new__(cls, text)
        answer.cut = cut
        return answer


class _Cut:
    """The marker type of ``CUT``."""

    def __repr__(self) -> str:
        return "CUT"


#: What a provider's pieces end with when its server says the model stopped at its length limit
#: (OpenAI ``finish_reason: "length"``, Anthropic ``stop_reason: "max_tokens"``, Ollama ``done_reason: "length"``).
CUT = _Cut()


def gather(pieces: Iterable[str | _Cut], on_text: OnText | None) -> Completion:
    """Join a model's streamed pieces, handing each to ``on_text`` as it arrives; ``CUT`` among them marks the answer cut."""
    collected = []
    cut = False
    for piece in pieces:
        if piece is CUT:
            cut = True
            continue
        collected.append(piece)
        if on_text is not None:
            on_text(piece)
    return Completion("".join(collected), cut)



#: A factory builds a provider from its settings table and the workspace.
Factory = Callable[[Mapping[str, Any], Path], "Tier"]



#: The tier base's names before 0.2, kept for plugins that import them.
Provider = InferenceProvider = Tier

__all__ = ["CUT", "Availability", "Completion", "Factory", "InferenceProvider", "Message", "OnText", "Proposal", "Provider", "Request", "Tier", "gather"]
