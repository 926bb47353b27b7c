"""The ``[inference]`` part of ``.lackpy/config.toml``.

::

    [inference]
    order = ["templates", "rules", "ollama"]  # default: templates, rules, then each model table below
    max_retries = 2                           # model answers re-asked with feedback after the first
    runtime_repairs = 1                       # rounds of repair after a program fails at run time

    [inference.ollama]
    model = "qwen2.5-coder:1.5b"

With no model table, delegate works offline through templates and rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lackpy.errors import ConfigError

DETERMINISTIC_TIERS = ("templates", "rules")
MAX_ROUNDS = 10

#: What the error shows when no tier could serve: the smallest config that adds a model.
MODEL_SNIPPET = """\
# .lackpy/config.toml
[inference.ollama]                # a local Ollama server (ollama serve; ollama pull qwen2.5-coder:1.5b)
model = "qwen2.5-coder:1.5b"

# or any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio):
# [inference.openai]
# base_url = "http://127.0.0.1:8000/v1"
# model = "your-model\""""


@dataclass
class InferenceSettings:
    """Which tiers run, in which order, with how many retries."""

    order: list[str] = field(default_factory=lambda: list(DETERMINISTIC_TIERS))
    max_retries: int = 2
    runtime_repairs: int = 1
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, where: str = "config") -> "InferenceSettings":
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: [inference] must be a table")
        data = dict(data)
        counts = {}
        for key, default in (("max_retries", 2), ("runtime_repairs", 1)):
            value = data.pop(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ROUNDS:
                raise ConfigError(f"{where}: [inference] {key} must be a whole number from 0 to {MAX_ROUNDS}")
            counts[key] = value
        order = data.pop("order", None)
        tiers = {}
        for name, table in data.items():
            if not isinstance(table, dict):
                raise ConfigError(
                    f"{where}: [inference] {name} = {table!r} is not a setting; tier settings go in an [inference.{name}] table"
                )
            tiers[name] = table
        if order is None:
            order = list(DETERMINISTIC_TIERS) + [name for name in tiers if name not in DETERMINISTIC_TIERS]
        elif not isinstance(order, list) or not order or not all(isinstance(n, str) and n for n in order):
            raise ConfigError(f'{where}: [inference] order must be a list of tier names such as ["templates", "rules", "ollama"]')
        elif len(set(order)) != len(order):
            raise ConfigError(f"{where}: [inference] order names a tier twice; list each tier once")
        return cls(order=list(order), tiers=tiers, **counts)

    def table(self, name: str) -> dict[str, Any]:
        return dict(self.tiers.get(name, {}))


__all__ = ["DETERMINISTIC_TIERS", "InferenceSettings", "MODEL_SNIPPET"]
