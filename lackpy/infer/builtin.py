"""The tiers lackpy ships, registered through the same hook a plugin uses.

Each factory imports its module only when a tier is built, so listing the
tiers costs nothing and a model tier's package is loaded only when configured.
"""

from __future__ import annotations

from importlib import import_module

from lackpy.hookspecs import hookimpl

#: tier name -> "module:class"; the order is the order of ``lackpy tiers``.
BUILTIN_TIERS = {
    "templates": "lackpy.infer.templates:TemplateTier",
    "rules": "lackpy.infer.rules:RulesTier",
    "ollama": "lackpy.infer.providers.ollama:OllamaTier",
    "openai": "lackpy.infer.providers.openai:OpenAITier",
    "anthropic": "lackpy.infer.providers.anthropic:AnthropicTier",
    "llama-cpp": "lackpy.infer.providers.llamacpp:LlamaCppTier",
}


def _factory(target: str):
    module_name, _, class_name = target.partition(":")

    def build(settings, workspace):
        return getattr(import_module(module_name), class_name)(settings, workspace)

    build.__qualname__ = f"build[{class_name}]"
    return build


@hookimpl
def register_inference_providers(register):
    for name, target in BUILTIN_TIERS.items():
        register(name, _factory(target))
