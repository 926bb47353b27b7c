"""The prompt a model tier sees: the kit, the language, and a few relevant examples.

Small on purpose: a model needs each tool's signature, what it returns, the
builtins it may use, the parameters it receives and the rules, phrased as
what to do. For a ten-tool kit this stays under about 1,500 tokens.
"""

from __future__ import annotations

from typing import Any, Mapping

from lackpy.infer.base import Message
from lackpy.infer.understand.terms import terms
from lackpy.kit.resolve import REMOTE_TAG, SEARCH_TOOL, ResolvedKit
from lackpy.lang.grammar import ALLOWED_BUILTINS

MAX_EXAMPLES = 3
CHARS_PER_TOKEN = 4

RULES = (
    "Write top-level statements only. The value of the last line, an expression, is the answer.",
    "Get every piece of data by calling the tools above by name; paths are relative to the workspace, like 'src/app.py'.",
    "Use variables, for loops over a call or a name, if/else, comprehensions, f-strings and string methods.",
    "Use lambda only as the key= of sorted, min or max.",
    "Answer with the program alone, in one ```python block.",
)


def tool_lines(kit: ResolvedKit, most: int | None = None) -> list[str]:
    """Each tool's signature and description; past ``most`` tools (default the kit's ``list_up_to``), remote tools by server only, to find with search_tools."""
    most = kit.list_up_to if most is None else most
    collapse = len(kit.tools) > most and SEARCH_TOOL in kit.tools
    lines = []
    servers: dict[str, list[str]] = {}
    for alias, spec in kit.tools.items():
        if collapse and REMOTE_TAG in spec.tags:
            servers.setdefault(spec.tags[1] if len(spec.tags) > 1 else "remote", []).append(alias)
            continue
        lines.append(f"  {spec.signature(alias)}")
        if spec.description:
            lines.append(f"      {spec.description}")
    for server, names in servers.items():
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        lines.append(f"  {len(names)} tools of the MCP server {server} ({shown}): get their signatures with search_tools(\"{server} <words>\") first")
    return lines


def _param_lines(params: Mapping[str, Any]) -> list[str]:
    return [f"  {name} = {value!r}" for name, value in params.items()]


def choose_examples(intent: str, kit: ResolvedKit, limit: int = MAX_EXAMPLES) -> list[str]:
    """The tools' examples that share the most words with the intent, one per tool, best first.

    An example written for a tool the kit renames is shown under the kit's name.
    """
    wanted = terms(intent)
    scored = []
    for position, (alias, spec) in enumerate(kit.tools.items()):
        vocabulary = terms(" ".join([spec.name, spec.description, *spec.tags]))
        for example in spec.examples:
            score = len(wanted & (vocabulary | terms(example)))
            text = example if alias == spec.name else example.replace(f"{spec.name}(", f"{alias}(")
            scored.append((-score, position, text))
            break  # one example per tool keeps the prompt small
    scored.sort()
    return [text for _, _, text in scored[:limit]]


def system_prompt(intent: str, kit: ResolvedKit, params: Mapping[str, Any] | None = None, guide: str | None = None) -> str:
    """The system message: the skill's guide when a skill was chosen, tools, builtins, parameters, rules and examples."""
    parts = ["You write one small Python program that answers a request by calling tools. lackpy runs it.", ""]
    if guide:
        parts += ["Do it as this skill says (skill_file(path) reads the skill's own files):", guide.strip(), ""]
    if kit.tools:
        parts += ["Tools:", *tool_lines(kit), ""]
    parts += ["Builtins: " + ", ".join(sorted(ALLOWED_BUILTINS)), ""]
    if params:
        parts += ["Parameters, already set as variables:", *_param_lines(params), ""]
    parts += ["Rules:", *(f"- {rule}" for rule in RULES)]
    examples = choose_examples(intent, kit)
    if examples:
        parts += ["", "Examples:"]
        for example in examples:
            parts += ["```python", example, "```"]
    return "\n".join(parts)


def build_messages(intent: str, kit: ResolvedKit, params: Mapping[str, Any] | None = None, guide: str | None = None) -> list[Message]:
    """The opening conversation for a model tier (``guide``: the chosen skill's SKILL.md body)."""
    return [
        {"role": "system", "content": system_prompt(intent, kit, params, guide)},
        {"role": "user", "content": intent.strip()},
    ]


def estimate_tokens(text: str) -> int:
    """Tokens in ``text``, estimated at four characters each (the usual figure for English and code)."""
    return -(-len(text) // CHARS_PER_TOKEN)


__all__ = ["build_messages", "choose_examples", "estimate_tokens", "system_prompt"]
