"""Security grades: how far a kit reaches into the world and what it can change."""

from __future__ import annotations

from typing import Mapping, NamedTuple


class Grade(NamedTuple):
    """``w`` is world coupling (0-3), ``d`` the effects ceiling (0-3)."""

    w: int = 0
    d: int = 0

    def to_dict(self) -> dict:
        return {"w": self.w, "d": self.d}

    def __str__(self) -> str:
        return f"w={self.w} d={self.d}"

    @property
    def risk(self) -> str:
        """The trust ladder's rung: ``safe`` (reads the workspace, keeps session state at most), ``sensitive``
        (reaches the network, changes nothing) or ``critical`` (changes files or processes, or runs commands)."""
        if self.d >= 2 or self.w >= 3:
            return "critical"
        return "sensitive" if self.w >= 2 else "safe"

    @classmethod
    def parse(cls, value: object) -> "Grade | None":
        """The grade ``value`` writes: ``"W,D"`` (``"1,0"``), ``[w, d]`` or a Grade, each part a whole number from 0 to 3;
        None when it is not one (a kit name, say). The one reading of a grade for the config, the CLI and the API."""
        if isinstance(value, Grade):
            return value
        if isinstance(value, str):
            parts = [part.strip() for part in value.split(",")]
            if len(parts) != 2 or not all(len(part) == 1 and part in "0123" for part in parts):
                return None
            value = [int(part) for part in parts]
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(type(v) is int and 0 <= v <= 3 for v in value):
            return cls(*value)
        return None

    def within(self, ceiling: "Grade") -> bool:
        """Whether this grade reaches no further than ``ceiling`` on either axis."""
        return self.w <= ceiling.w and self.d <= ceiling.d

    def meet(self, other: "Grade") -> "Grade":
        """The grade within both this and ``other``: the lower of the two on each axis."""
        return Grade(min(self.w, other.w), min(self.d, other.d))

    @staticmethod
    def __json_schema__() -> dict:
        level = {"type": "integer", "minimum": 0, "maximum": 3}
        return {"type": "object", "properties": {"w": level, "d": level}, "required": ["w", "d"], "additionalProperties": False}


#: The rungs of the trust ladder, lowest first (``Grade.risk``).
RISKS = ("safe", "sensitive", "critical")


def compute_grade(tools: Mapping[str, Mapping[str, int]]) -> Grade:
    """Element-wise maximum of ``{name: {"grade_w", "effects_ceiling"}}``.

    An empty mapping is ``Grade(0, 0)``.
    """
    w = d = 0
    for info in tools.values():
        w = max(w, int(info.get("grade_w", 0)))
        d = max(d, int(info.get("effects_ceiling", 0)))
    return Grade(w, d)
