"""Building the configured tiers from the registered factories."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from lackpy.errors import ConfigError, LackpyError
from lackpy.infer.base import Tier
from lackpy.infer.settings import InferenceSettings
from lackpy.plugins import inference_factories


def build_tiers(settings: InferenceSettings, workspace: Path) -> list[Tier]:
    """One provider per name in ``settings.order``, built from its table.

    An unknown name or a table a tier cannot use is a ConfigError that says
    which tiers exist; a tier's settings are checked here, before any intent.
    """
    factories = inference_factories()
    unknown = [name for name in list(settings.order) + list(settings.tiers) if name not in factories]
    if unknown:
        raise ConfigError(
            f"unknown inference tier '{unknown[0]}' in [inference]; the tiers are: {', '.join(sorted(factories))}"
        )
    tiers = []
    for name in settings.order:
        try:
            tier = factories[name](settings.table(name), workspace)
        except LackpyError as exc:
            raise ConfigError(f"[inference.{name}]: {exc}") from None
        if not isinstance(tier, Tier):
            raise ConfigError(f"inference tier '{name}' built a {type(tier).__name__}, not a lackpy.infer.base.Tier")
        tiers.append(tier)
    return tiers


def tier_rows(tiers: Sequence[Tier]) -> list[dict]:
    """Each tier as ``lackpy tiers`` lists it: whether it can serve now, and why not (each one asked now)."""
    rows = []
    for tier in tiers:
        availability = tier.available()
        rows.append({"name": tier.name, "model": tier.model, "available": availability.ok, "reason": availability.reason, "description": tier.describe()})
    return rows


__all__ = ["build_tiers", "tier_rows"]
