"""The [inference] table of .lackpy/config.toml."""

from __future__ import annotations

import pytest

from lackpy.config import Config
from lackpy.errors import ConfigError
from lackpy.infer.settings import InferenceSettings


def test_defaults_are_offline():
    settings = Config().inference
    assert settings.order == ["templates", "rules"]
    assert (settings.max_retries, settings.runtime_repairs) == (2, 1)


def test_model_tables_join_the_order_after_the_offline_tiers():
    settings = Config.from_dict({"inference": {"openai": {"model": "m"}, "ollama": {"model": "q"}}}).inference
    assert settings.order == ["templates", "rules", "openai", "ollama"]
    assert settings.table("ollama") == {"model": "q"}


def test_an_explicit_order_is_kept():
    settings = InferenceSettings.from_dict({"order": ["ollama", "rules"], "ollama": {"model": "q"}, "max_retries": 0})
    assert settings.order == ["ollama", "rules"] and settings.max_retries == 0


@pytest.mark.parametrize(
    "table, message",
    [
        ({"max_retries": -1}, "max_retries must be a whole number"),
        ({"runtime_repairs": True}, "runtime_repairs must be a whole number"),
        ({"order": "rules"}, "order must be a list of tier names"),
        ({"order": ["rules", "rules"]}, "names a tier twice"),
        ({"model": "x"}, "tier settings go in an [inference.model] table"),
        ("fast", "[inference] must be a table"),
    ],
)
def test_bad_settings_say_what_to_fix(table, message):
    with pytest.raises(ConfigError) as info:
        Config.from_dict({"inference": table})
    assert message in str(info.value)
