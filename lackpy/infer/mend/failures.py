"""Failure modes: the names of what goes wrong with a model's answer, in order of precedence.

They live apart from ``classify`` so that the modules that find a failure
(mending, the checks on a finished run) and the one that explains it can all
name it without importing each other. They live in the mend wing because
mending names them first and ``lackpy.infer.diagnose`` may import mend (never
the other way round). Why the order is what it is: see the table in
``lackpy.infer.diagnose.classify``.
"""

from __future__ import annotations

from dataclasses import dataclass

TRUNCATED = "truncated"
JUPYTER_CONFUSION = "jupyter_confusion"
SYNTAX_ARTIFACT = "syntax_artifact"
STDLIB_LEAK = "stdlib_leak"
IMPLEMENT_NOT_ORCHESTRATE = "implement_not_orchestrate"
UNKNOWN_TOOL = "unknown_tool"
INVALID = "invalid"
PATH_PREFIX = "path_prefix"
KEY_HALLUCINATION = "key_hallucination"
WRONG_OUTPUT = "wrong_output"
RUNTIME_ERROR = "runtime_error"
LIMIT = "limit"

#: Every mode, highest precedence first: when an answer shows several, the earliest is the one reported.
MODES = (
    JUPYTER_CONFUSION,
    SYNTAX_ARTIFACT,
    TRUNCATED,
    STDLIB_LEAK,
    IMPLEMENT_NOT_ORCHESTRATE,
    UNKNOWN_TOOL,
    INVALID,
    PATH_PREFIX,
    KEY_HALLUCINATION,
    WRONG_OUTPUT,
    RUNTIME_ERROR,
    LIMIT,
)


def first_mode(modes) -> str | None:
    """The mode of highest precedence among ``modes``; None when there are none."""
    known = [m for m in modes if m in MODES]
    return min(known, key=MODES.index) if known else None


@dataclass
class Failure:
    """A failed attempt: its ``mode``, a compact ``message``, and the ``tool`` (kit alias) it concerns.

    ``hint`` replaces the mode's general instruction when the failure is
    specific enough to say exactly what to write instead (a while loop over
    a counter, an assigned lambda); ``guide`` names sections of the program
    guide worth quoting beyond the mode's own.
    """

    mode: str
    message: str
    tool: str | None = None
    hint: str | None = None
    guide: tuple[str, ...] = ()


__all__ = [
    "Failure",
    "IMPLEMENT_NOT_ORCHESTRATE",
    "INVALID",
    "JUPYTER_CONFUSION",
    "KEY_HALLUCINATION",
    "LIMIT",
    "MODES",
    "PATH_PREFIX",
    "RUNTIME_ERROR",
    "STDLIB_LEAK",
    "SYNTAX_ARTIFACT",
    "TRUNCATED",
    "UNKNOWN_TOOL",
    "WRONG_OUTPUT",
    "first_mode",
]
