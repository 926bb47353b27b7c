"""The descriptions of the served tools: run_program's carries the default kit and the language.

A model that reads only the tool list must be able to write a valid program,
so run_program's description holds the default kit's signatures with one
line each, the builtins and the rules, built from the same pieces as the
prompt of the model tiers (``lackpy.infer.prompt``).
"""

from __future__ import annotations

from lackpy.infer.prompt import RULES, tool_lines, estimate_tokens
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.grammar import ALLOWED_BUILTINS

#: The prompt's rules that fit a tool description (the one about answering in a code block does not).
PROGRAM_RULES = tuple(rule for rule in RULES if "```" not in rule) + (
    "There is no import, def, class, while or try; no name, attribute or keyword starts with _.",
    "Parameters given in params are variables of the program; print() output is returned as printed.",
    "Commands, web requests and writes may need the user's yes; a no is error_kind 'denied'.",
)


def run_program_description(kit: ResolvedKit, allowed: tuple[str, ...]) -> str:
    """What run_program does, the default kit's tools and the language rules."""
    name = kit.name or ",".join(kit.tools)
    parts = [
        "Validate and run a small Python program that composes the kit's tools; returns its last "
        "expression as output, with the trace of every tool call. One program replaces many tool calls.",
        "",
        f"Tools of the default kit '{name}'{_others(name, allowed)}:",
        *tool_lines(kit),
        "",
        "Builtins: " + ", ".join(sorted(ALLOWED_BUILTINS)),
        "",
        "Rules:",
        *(f"- {rule}" for rule in PROGRAM_RULES),
        "",
        'Example: hits = grep(r"TODO", glob="**/*.py")\n{"files": len({h["path"] for h in hits}), "markers": len(hits)}',
    ]
    return "\n".join(parts)


def _others(name: str, allowed: tuple[str, ...]) -> str:
    others = [kit for kit in allowed if kit != name]
    return f" (or pass kit= one of: {', '.join(others)}; see kit_info)" if others else ""


TOOL_DESCRIPTIONS = {
    "validate": "Check a program against a kit without running it; returns valid, diagnostics (code, line, hint), the calls and variables.",
    "delegate": "Write a program for a plain-language intent (saved templates, rules, or a configured model), validate and run it; returns the program and its run.",
    "generate": "Write and validate a program for a plain-language intent without running it; returns the program and the attempt log.",
    "kit_list": "List the kits of the workspace and of lackpy, with their tools, and which of them this server allows.",
    "kit_info": "Show one kit: its tools with signatures, descriptions and grades, and the kit's grade.",
    "docs_index": "Show which doc file documents each tool of a kit (default: the server's default kit).",
    "resolve_doc": "Read a tool's documentation (by tool name) or a doc by the path docs_index lists.",
}


__all__ = ["PROGRAM_RULES", "TOOL_DESCRIPTIONS", "estimate_tokens", "run_program_description"]
