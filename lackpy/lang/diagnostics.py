"""Diagnostics: one problem in a program, where it is, and what to do."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from lackpy.schema import Contract
from lackpy.lang.grade import Grade


@dataclass(frozen=True)
class Diagnostic:
    """A validation error with a stable ``code`` and a ``hint`` a model can act on.

    ``line`` and ``col`` are 1-based; 0 means the whole program.
    """

    code: str
    message: str
    line: int = 0
    col: int = 0
    hint: str = ""

    def __str__(self) -> str:
        where = f"line {self.line}, col {self.col}: " if self.line else ""
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{where}{self.message} [{self.code}]{hint}"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ValidationResult(Contract):
    """What ``validate`` found: ``valid`` is true when ``errors`` is empty.

    ``calls`` lists the bare names the program calls (tools and builtins) in
    order of first use; ``variables`` the names it assigns.
    """

    valid: bool
    errors: list[Diagnostic] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """What lackpy wants the user to know about this workspace (e.g. what an untrusted one did not get)."""
    grade: Grade | None = None
    """The program's own grade: the highest of the tools it calls (not of the whole kit); set when a kit is known."""
    risk: str | None = None
    """That grade's rung of the trust ladder: safe, sensitive or critical."""
