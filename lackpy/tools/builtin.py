"""The ``builtin`` provider: read_file, find_files, write_file and edit_file.

Each works on the run's workspace through the path policy of
``lackpy.tools.workspace``, and registers through lackpy's own hooks exactly
as a third-party plugin would.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable

from lackpy.errors import ProviderError, ToolError
from lackpy.hookspecs import hookimpl
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.tools import workspace


@uses_context
def read_file(ctx: ToolContext, path: str) -> str:
    """Return the text of a workspace file."""
    return workspace.read_text(ctx, path)


@uses_context
def find_files(ctx: ToolContext, pattern: str) -> list[str]:
    """Return the sorted workspace-relative paths of files matching a glob."""
    return workspace.glob(ctx, pattern)


@uses_context
def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or replace a workspace file; parent directories are created."""
    if not isinstance(content, str):
        raise ToolError(f"write_file: content must be a str, not {type(content).__name__}")
    size = workspace.write_text(ctx, path, content)
    return f"wrote {size} bytes to {path}"


@uses_context
def edit_file(ctx: ToolContext, path: str, old_str: str, new_str: str) -> str:
    """Replace the one occurrence of ``old_str`` and return the unified diff."""
    if not isinstance(old_str, str) or not isinstance(new_str, str):
        raise ToolError("edit_file: old_str and new_str must be strings")
    if not old_str:
        raise ToolError("edit_file: old_str is empty; give the exact text to replace")
    try:
        before = workspace.read_bytes(ctx, path).decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"edit_file: {path} is not UTF-8 text; it was left unchanged") from None
    count = _occurrences(before, old_str)
    if count == 0:
        raise ToolError(f"edit_file: old_str not found in {path}{_closest_line(before, old_str)}")
    if count > 1:
        raise ToolError(f"edit_file: old_str occurs {count} times in {path}; include more surrounding text to make it unique")
    after = before.replace(old_str, new_str, 1)
    if after != before:
        workspace.write_text(ctx, path, after)
    return "".join(
        difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}")
    )


def _occurrences(text: str, needle: str) -> int:
    """How many times ``needle`` starts in ``text``, overlapping matches included."""
    count, start = 0, text.find(needle)
    while start != -1:
        count += 1
        start = text.find(needle, start + 1)
    return count


def _closest_line(text: str, needle: str) -> str:
    first = needle.strip().splitlines()[0] if needle.strip() else needle
    match = difflib.get_close_matches(first.strip(), [line.strip() for line in text.splitlines()], n=1, cutoff=0.5)
    return f"; the closest line is: {match[0]!r}" if match else ""


def _path(description: str) -> ArgSpec:
    return ArgSpec("path", "str", description)


SPECS = [
    ToolSpec(
        name="read_file",
        provider="builtin",
        description="Read a text file in the workspace and return its contents",
        args=[_path("File path, relative to the workspace")],
        returns="str",
        grade_w=1,
        effects_ceiling=0,
        docs="docs/tools/read_file.md",
        examples=['text = read_file("README.md")\nlen(text.splitlines())'],
        tags=["file", "read", "text", "content"],
    ),
    ToolSpec(
        name="find_files",
        provider="builtin",
        description="List workspace files matching a glob pattern such as '**/*.py'",
        args=[ArgSpec("pattern", "str", "Glob relative to the workspace; ** spans directories")],
        returns="list[str]",
        grade_w=1,
        effects_ceiling=0,
        docs="docs/tools/find_files.md",
        examples=['files = find_files("**/*.py")\nlen(files)'],
        tags=["file", "find", "glob", "list", "search"],
    ),
    ToolSpec(
        name="write_file",
        provider="builtin",
        description="Create or overwrite a workspace file with the given text",
        args=[_path("File path, relative to the workspace"), ArgSpec("content", "str", "The complete new text")],
        returns="str",
        grade_w=3,
        effects_ceiling=3,
        docs="docs/tools/write_file.md",
        examples=['write_file("notes/summary.txt", "done\\n")'],
        tags=["file", "write", "create"],
    ),
    ToolSpec(
        name="edit_file",
        provider="builtin",
        description="Replace one exact occurrence of old_str with new_str in a file; returns the diff",
        args=[
            _path("File path, relative to the workspace"),
            ArgSpec("old_str", "str", "Exact text to replace; must occur once"),
            ArgSpec("new_str", "str", "Replacement text"),
        ],
        returns="str",
        grade_w=3,
        effects_ceiling=3,
        docs="docs/tools/edit_file.md",
        examples=['edit_file("README.md", "Status: draft", "Status: final")'],
        tags=["file", "edit", "replace", "modify"],
    ),
]

IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "read_file": read_file,
    "find_files": find_files,
    "write_file": write_file,
    "edit_file": edit_file,
}


class BuiltinProvider:
    """Resolves the tools implemented inside lackpy."""

    name = "builtin"

    def resolve(self, spec: ToolSpec) -> Callable[..., Any]:
        function = spec.provider_config.get("function", spec.name)
        try:
            return IMPLEMENTATIONS[function]
        except KeyError:
            known = ", ".join(sorted(IMPLEMENTATIONS))
            raise ProviderError(f"the builtin provider has no tool '{function}' (it has: {known})") from None


PROVIDER = BuiltinProvider()


@hookimpl
def register_tool_providers(register):
    register(PROVIDER)


@hookimpl
def register_tools(register):
    for spec in SPECS:
        register(spec)
