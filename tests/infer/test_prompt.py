"""The prompt a model sees: small, complete, and examples chosen by relevance."""

from __future__ import annotations

import pytest

from lackpy.infer.prompt import build_messages, choose_examples, estimate_tokens, system_prompt
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate


@pytest.fixture
def toolbox(tmp_path):
    box = Toolbox(str(tmp_path))
    populate(box)
    return box


def test_the_prompt_names_every_tool_signature_builtin_and_parameter(toolbox):
    kit = resolve_kit("filesystem", toolbox)
    text = system_prompt("count TODOs", kit, {"word": "TODO"})
    for alias, spec in kit.tools.items():
        assert spec.signature(alias) in text
        assert spec.description in text
    assert "sorted" in text and "enumerate" in text
    assert "word = 'TODO'" in text
    assert "The value of the last line, an expression, is the answer." in text


def test_the_prompt_is_phrased_positively(toolbox):
    text = system_prompt("count TODOs", resolve_kit("all", toolbox))
    rules = text.split("Rules:")[1].split("Examples:")[0]
    for negative in ("Do not", "Don't", "Never", "not allowed", "forbidden"):
        assert negative not in rules


@pytest.mark.parametrize("kit", ["readonly", "filesystem", "coding", "web", "all"])
def test_the_prompt_stays_small_for_every_shipped_kit(toolbox, kit):
    resolved = resolve_kit(kit, toolbox)
    tokens = estimate_tokens(system_prompt("count TODOs in python files", resolved))
    assert tokens <= 1500
    assert tokens <= 260 + 60 * len(resolved.tools)  # a fixed preamble, then each tool


def test_examples_are_the_ones_that_share_words_with_the_intent(toolbox):
    kit = resolve_kit("coding", toolbox)
    chosen = choose_examples("run the test suite with pytest", kit)
    assert "run_command(" in chosen[0]
    chosen = choose_examples("which files import something", kit, limit=1)
    assert chosen == ['hits = grep(r"^import |^from ", glob="**/*.py")\nsorted({h["path"] for h in hits})']


def test_examples_follow_a_kits_aliases(toolbox):
    kit = resolve_kit({"cat": "read_file"}, toolbox)
    assert choose_examples("read a file", kit) == ['text = cat("README.md")\nlen(text.splitlines())']


def test_messages_are_system_then_the_intent(toolbox):
    kit = resolve_kit("readonly", toolbox)
    messages = build_messages("  count TODOs  ", kit)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "count TODOs"


def test_tokens_are_estimated_at_four_characters():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
