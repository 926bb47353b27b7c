"""Mending: a model's answer turned into the program it meant, with no second model call.

Three deterministic steps, each recording what it did: ``sanitize.extract``
finds the code (fences, prose, prompt marks, REPL and notebook transcripts)
and notices a cut-off answer; the text repairs fix what does not parse yet;
the AST repairs rewrite habits with one faithful translation. What the
answer got wrong is then known even when it was fixed: ``Mended.mode`` is
the failure mode of highest precedence among the repairs that applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection

from lackpy.infer.mend.failures import JUPYTER_CONFUSION, MODES, SYNTAX_ARTIFACT, first_mode
from lackpy.infer.mend.repairs import REPAIR_MODES, apply_repairs
from lackpy.infer.mend.sanitize import DROP_PROSE, JOIN_BLOCKS, REQUOTE_FSTRINGS, STRIP_MARKUP, STRIP_PROMPTS, STRIP_TRANSCRIPT, extract

#: The failure mode each extraction step reveals.
EXTRACTION_MODES = {
    STRIP_MARKUP: SYNTAX_ARTIFACT,
    STRIP_PROMPTS: SYNTAX_ARTIFACT,
    DROP_PROSE: SYNTAX_ARTIFACT,
    JOIN_BLOCKS: SYNTAX_ARTIFACT,
    REQUOTE_FSTRINGS: SYNTAX_ARTIFACT,
    STRIP_TRANSCRIPT: JUPYTER_CONFUSION,
}

#: Every mending step's failure mode, by the name the attempt log shows.
MENDING_MODES = {**EXTRACTION_MODES, **REPAIR_MODES}


@dataclass(frozen=True)
class Mended:
    """The program mended from an answer.

    ``repairs`` names every step that changed something, in order;
    ``truncated`` says the answer was cut off and ``leftover`` holds a
    transcript line (``!ls``) no program can hold: either way the answer is
    refused, whatever the program looks like.
    """

    program: str
    repairs: list[str] = field(default_factory=list)
    truncated: bool = False
    leftover: str | None = None

    @property
    def modes(self) -> list[str]:
        """The failure modes the repairs fixed, each once, highest precedence first."""
        found = {MENDING_MODES[name] for name in self.repairs if name in MENDING_MODES}
        return sorted(found, key=MODES.index)

    @property
    def mode(self) -> str | None:
        """The failure mode of highest precedence the answer showed and mending fixed; None for a clean answer."""
        return first_mode(self.modes)


def mend(answer: str, names: Collection[str]) -> Mended:
    """Extract the program from a model's answer and apply the deterministic repairs for a kit of ``names``."""
    found = extract(answer)
    program, repairs = apply_repairs(found.program, names)
    return Mended(program, [*found.removed, *repairs], found.truncated, found.leftover)


__all__ = ["EXTRACTION_MODES", "MENDING_MODES", "Mended", "mend"]
