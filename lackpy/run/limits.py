"""Limits: how long a program may run, how much it may allocate, print and call.

Layers, later ones winning: the defaults, ``[limits]`` in
``.lackpy/config.toml``, ``limits:`` in a kit's frontmatter, the call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from lackpy.errors import LimitsError

MiB = 1024 * 1024
GiB = 1024 * MiB

#: The largest value each limit may be set to: every limit stays finite, and a value past
#: these is a mistake (``lackpy spec`` lists them).
MAXIMUM = {
    "timeout_s": 24 * 3600.0,
    "memory_bytes": 64 * GiB,
    "max_output_bytes": 1 * GiB,
    "max_tool_calls": 10_000_000,
    "max_items": 1_000_000_000,
    "max_int_bits": 100_000_000,
    "max_write_bytes": 16 * GiB,
    "budget_bytes": 1 * GiB,
}



@dataclass(frozen=True)
class Limits:
    """Every limit of a run, with its unit in its name."""

    timeout_s: float = 10.0
    """Wall-clock time for the whole run, tool calls included."""
    memory_bytes: int = 512 * MiB
    """Memory the program may allocate (hard in the isolated worker, through its guards in-process)."""
    max_output_bytes: int = 1 * MiB
    """UTF-8 bytes of printed text, and separately of the result."""
    max_tool_calls: int = 10_000
    """Tool calls per run."""
    max_items: int = 10_000_000
    """Largest sequence one operation may build (repetition, range)."""
    max_int_bits: int = 1_000_000
    """Largest integer one operation may build, in bits."""
    max_write_bytes: int = 64 * MiB
    """Bytes a run may stage for writing, all files together."""
    budget_bytes: int = 64 * 1024
    """Printed text and the result are cut to this many UTF-8 bytes (a budget: it stops nothing)."""

    def merged(self, overrides: Mapping[str, Any] | "Limits" | None, source: str = "limits") -> "Limits":
        """These limits with ``overrides`` applied; unknown names or bad values raise LimitsError."""
        if overrides is None:
            return self
        if isinstance(overrides, Limits):
            return overrides
        if not isinstance(overrides, Mapping):
            raise LimitsError(f"{source}: limits must be a table of name = value")
        known = {f.name: f.type for f in fields(self)}
        changes = {}
        for name, value in overrides.items():
            if name not in known:
                raise LimitsError(f"{source}: unknown limit '{name}'; known limits: {', '.join(known)}")
            number = _number(value)
            if number is None or not math.isfinite(number) or number <= 0:
                raise LimitsError(f"{source}: limit '{name}' must be a positive number, not {_shown(value)}")
            if number > MAXIMUM[name]:
                raise LimitsError(f"{source}: limit '{name}' is at most {MAXIMUM[name]:.0f}, not {_shown(value)}")
            changes[name] = float(number) if name == "timeout_s" else int(number)
            if changes[name] <= 0:
                raise LimitsError(f"{source}: limit '{name}' must be at least 1, not {_shown(value)}")
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """The limits as a dict of numbers (every field is a number: no deep copy as ``asdict`` makes; a run sends this to its worker)."""
        return {name: getattr(self, name) for name in _NAMES}


_NAMES = tuple(f.name for f in fields(Limits))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def spec() -> dict:
    """Every limit (its unit is in its name) with its default and its maximum: part of ``lackpy spec``."""
    return {f.name: {"default": getattr(DEFAULT_LIMITS, f.name), "maximum": MAXIMUM[f.name]} for f in fields(Limits)}


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        if len(value) > 40:
            return None
        try:
            return float(value) if "." in value or "e" in value.lower() or "n" in value.lower() else int(value)
        except ValueError:
            return None
    return None


DEFAULT_LIMITS = Limits()


def layered(
    config: Mapping[str, Any] | Limits | None,
    kit: Mapping[str, Any] | None,
    call: Mapping[str, Any] | Limits | None,
) -> Limits:
    """The one place limits merge: the defaults, then the config's, the kit's, the call's.

    A ``Limits`` given for the call is final, as it was built on purpose.
    """
    if isinstance(call, Limits):
        return call
    base = config if isinstance(config, Limits) else DEFAULT_LIMITS.merged(config, "config [limits]")
    return base.merged(kit, "kit limits").merged(call)
