"""ToolSpec and ArgSpec: the metadata a kit, a model and the runner see of a tool."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ArgSpec:
    """One parameter of a tool: its name, type annotation string and meaning.

    An optional parameter has ``required=False`` and its ``default``.
    """

    name: str
    type: str = "Any"
    description: str = ""
    required: bool = True
    default: Any = None

    def signature(self) -> str:
        text = f"{self.name}: {self.type}"
        return text if self.required else f"{text} = {self.default!r}"


@dataclass
class ToolSpec:
    """The metadata record of one tool.

    ``grade_w`` is world coupling (0-3) and ``effects_ceiling`` the worst
    effect (0-3). ``docs`` is a path, relative to the workspace or the package,
    to a markdown file read only when asked. ``examples`` are short programs.
    """

    name: str
    provider: str
    provider_config: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    args: list[ArgSpec] = field(default_factory=list)
    returns: str = "Any"
    grade_w: int = 0
    effects_ceiling: int = 0
    docs: str | None = None
    examples: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.args = [a if isinstance(a, ArgSpec) else ArgSpec(**a) for a in self.args]
        for label in ("grade_w", "effects_ceiling"):
            value = getattr(self, label)
            if not isinstance(value, int) or not 0 <= value <= 3:
                raise ValueError(f"tool {self.name!r}: {label} must be an integer from 0 to 3, not {value!r}")

    def signature(self, alias: str | None = None) -> str:
        """``read_file(path: str) -> str``, under ``alias`` when the kit renames the tool."""
        params = ", ".join(a.signature() for a in self.args)
        return f"{alias or self.name}({params}) -> {self.returns}"

    def to_dict(self) -> dict:
        return asdict(self)
