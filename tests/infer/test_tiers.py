"""Tiers come from the register_inference_providers hook, built-in and plugin alike."""

from __future__ import annotations

import asyncio

import pytest

from lackpy import LackpyService, hookimpl
from lackpy.errors import ConfigError
from lackpy.infer.base import Proposal, Tier
from lackpy.infer.settings import InferenceSettings
from lackpy.infer.tiers import build_tiers
from lackpy.plugins import PluginWarning, get_plugin_manager, inference_factories


class Canned(Tier):
    """A plugin's deterministic tier: one fixed program for any intent."""

    name = "canned"

    def propose(self, request):
        return Proposal(self.settings.get("program", "1 + 1"), detail="canned answer")


class CannedPlugin:
    @staticmethod
    @hookimpl
    def register_inference_providers(register):
        register("canned", Canned)
        register("rules", Canned)  # a name the built-ins own


@pytest.fixture
def plugin():
    manager = get_plugin_manager()
    manager.register(CannedPlugin, name="canned-plugin")
    yield
    manager.unregister(name="canned-plugin")


def test_the_builtin_tiers_are_registered_through_the_hook():
    assert list(inference_factories()) == ["templates", "rules", "ollama", "openai", "anthropic", "llama-cpp"]


def test_a_plugin_tier_serves_delegate_and_cannot_replace_a_builtin(workspace, plugin):
    with pytest.warns(PluginWarning, match="inference tier 'rules' from plugin 'canned-plugin' is already registered"):
        service = LackpyService(
            workspace, {"inference": {"order": ["canned", "rules"], "canned": {"program": 'len(find_files("**/*.py"))'}}}
        )
        tiers = service.tiers()
    assert [type(t).__name__ for t in tiers] == ["Canned", "RulesTier"]
    result = asyncio.run(service.delegate("anything at all", kit="readonly", mode="inprocess"))
    assert (result.provider, result.detail, result.output) == ("canned", "canned answer", 2)


def test_an_unknown_tier_is_a_config_error_naming_the_tiers(tmp_path):
    with pytest.raises(ConfigError, match="unknown inference tier 'gpt' in \\[inference\\]; the tiers are: anthropic, llama-cpp"):
        build_tiers(InferenceSettings.from_dict({"order": ["rules", "gpt"]}), tmp_path)


def test_a_tier_table_without_a_place_in_an_explicit_order_is_still_checked(tmp_path):
    with pytest.raises(ConfigError, match="unknown inference tier 'olama'"):
        build_tiers(InferenceSettings.from_dict({"order": ["rules"], "olama": {"model": "x"}}), tmp_path)


class Broken(Tier):
    """A plugin tier with a bug."""

    name = "broken"

    def propose(self, request):
        raise TypeError("unexpected keyword 'kit'")


def test_a_tier_that_raises_hands_over_and_its_error_is_logged(workspace):
    from lackpy.infer.dispatch import Dispatcher
    from lackpy.infer.base import Request
    from lackpy.infer.rules import RulesTier

    service = LackpyService(workspace)
    request = Request("count TODOs", service.resolve_kit("readonly"), {}, workspace)
    outcome = Dispatcher([Broken(), RulesTier()], InferenceSettings()).dispatch(request)
    assert outcome.provider == "rules"
    assert outcome.attempts[0].error == "the tier failed: TypeError: unexpected keyword 'kit'"


class Half(Tier):
    """A plugin tier that claims to be a model but implements nothing."""

    name = "half"
    model = True


class Empty(Tier):
    """A plugin tier that implements nothing at all."""

    name = "empty"


def test_a_tier_missing_its_method_is_logged_with_what_to_define(workspace):
    from lackpy.infer.base import Request
    from lackpy.infer.dispatch import Dispatcher
    from lackpy.infer.rules import RulesTier

    service = LackpyService(workspace)
    request = Request("count TODOs", service.resolve_kit("readonly"), {}, workspace)
    outcome = Dispatcher([Half(), RulesTier()], InferenceSettings()).dispatch(request)
    assert outcome.provider == "rules"
    assert outcome.attempts[0].error == "tier 'half' sets model = True but does not define complete(messages, on_text)"
    outcome = Dispatcher([Empty(), RulesTier()], InferenceSettings()).dispatch(request)
    assert outcome.attempts[0].error == "tier 'empty' must define propose(request), or set model = True and define complete(messages, on_text)"
