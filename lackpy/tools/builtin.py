"""The ``builtin`` provider's file tools: read_file, find_files, list_dir, grep, write_file, edit_file.

Each works on the run's workspace through the path policy of
``lackpy.tools.workspace``, and registers through lackpy's own hooks exactly
as a third-party plugin would.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable, Literal

from lackpy.errors import LimitExceeded, ProviderError, ToolError
from lackpy.hookspecs import hookimpl
from lackpy.kit import call
from lackpy.kit.context import ToolContext
from lackpy.kit.spec import ToolSpec
from lackpy.tools import shipped, workspace
from lackpy.host.regex import compile_lines


@shipped(
    grade=(1, 0),
    docs="docs/tools/read_file.md",
    examples=['text = read_file("README.md")\nlen(text.splitlines())'],
    tags=["file", "read", "text", "content", "open", "cat", "view", "load", "display"],
    category="system",
)
def read_file(ctx: ToolContext, path: str, offset: int | None = None, limit: int | None = None) -> str:
    """Read a text file in the workspace and return its contents.

    Args:
        path: File path, relative to the workspace.
        offset: First line to return, 1-based.
        limit: How many lines to return.
    """
    text = workspace.read_text(ctx, path)
    if offset is None and limit is None:
        return text
    start = _positive(offset, "offset", 1) - 1
    lines = text.splitlines(True)
    stop = len(lines) if limit is None else start + _positive(limit, "limit", 1)
    return "".join(lines[start:stop])


def _positive(value: int | None, name: str, default: int) -> int:
    if value is None:
        return default
    if value < 1:
        raise ToolError(f"{name} must be at least 1, not {value!r}")
    return value


FIND_KINDS = {None: frozenset({"file"}), "file": frozenset({"file"}), "dir": frozenset({"dir"}), "any": frozenset({"file", "dir"})}


@shipped(
    grade=(1, 0),
    docs="docs/tools/find_files.md",
    examples=['files = find_files("**/*.py")\nlen(files)'],
    tags=["file", "find", "glob", "list", "search", "locate", "path", "pattern"],
    category="system",
)
def find_files(ctx: ToolContext, pattern: str, kind: Literal["file", "dir", "any", "text"] | None = None) -> list[str]:
    """List workspace files matching a glob pattern such as '**/*.py'.

    Args:
        pattern: Glob relative to the workspace; ** spans directories.
        kind: 'file' (the default), 'dir', 'any', or 'text' (files read_file can read: not binary, at most 16 MiB).
    """
    if kind == "text":
        return [path for path in workspace.glob(ctx, pattern, FIND_KINDS["file"]) if _text_file(ctx, path)]
    return workspace.glob(ctx, pattern, FIND_KINDS[kind])


def _text_file(ctx: ToolContext, path: str) -> bool:
    try:
        return not workspace.is_binary(workspace.read_bytes(ctx, path, max_bytes=GREP_MAX_FILE_BYTES))
    except ToolError:
        return False  # unreadable or too large: skipped, as grep skips it


@shipped(
    grade=(1, 0),
    docs="docs/tools/list_dir.md",
    examples=['[e["name"] for e in list_dir("src") if e["kind"] == "dir"]'],
    tags=["directory", "list", "ls", "files", "dir", "folder", "browse", "entries"],
    category="system",
)
def list_dir(ctx: ToolContext, path: str = ".") -> list[dict]:
    """List a workspace directory: name, kind ('file', 'dir', 'other') and size of each entry.

    Args:
        path: Directory, relative to the workspace.
    """
    return workspace.list_dir(ctx, path)


GREP_MAX_HITS = 1000
GREP_LINE_CHARS = 500
GREP_MAX_FILE_BYTES = 16 * 1024 * 1024


@shipped(
    grade=(1, 0),
    docs="docs/tools/grep.md",
    examples=['hits = grep(r"^import |^from ", glob="**/*.py")\nsorted({h["path"] for h in hits})'],
    tags=["search", "grep", "regex", "content", "find", "text", "contains", "mention", "lines", "code"],
    category="system",
)
def grep(ctx: ToolContext, pattern: str, glob: str = "**/*", ignore_case: bool = False, max_hits: int = GREP_MAX_HITS) -> list[dict]:
    """Search file contents with a regex: [{'path', 'line', 'text'}] for each matching line.

    Binary files and files over 16 MiB are skipped. When more lines match than
    max_hits, the list ends with one more entry whose "truncated" is True.
    Patterns run in linear time (RE2): backreferences and lookarounds are refused.

    Args:
        pattern: Regular expression (Python syntax, as far as RE2 shares it).
        glob: Which files to search.
        ignore_case: Match case-insensitively.
        max_hits: Stop after this many matching lines.
    """
    if not pattern:
        raise ToolError("grep: pattern must be a non-empty regular expression")
    max_hits = _positive(max_hits, "max_hits", GREP_MAX_HITS)
    regex = compile_lines(pattern, ignore_case, "grep")
    budget = call.remaining()
    hits: list[dict] = []
    for path in workspace.glob(ctx, glob):
        if call.remaining() <= 0:
            raise LimitExceeded("timeout", round(budget, 3), "grep ran past the run's deadline")
        try:
            data = workspace.read_bytes(ctx, path, max_bytes=GREP_MAX_FILE_BYTES)
        except ToolError:
            continue  # unreadable or too large: skipped, as binary files are
        if workspace.is_binary(data):
            continue
        for number, line in regex.matching_lines(data):
            if len(hits) == max_hits:
                hits.append({"path": "", "line": 0, "text": f"[grep stopped at {max_hits} hits; pass max_hits to see more]", "truncated": True})
                return hits
            hits.append({"path": path, "line": number, "text": line[:GREP_LINE_CHARS]})
    return hits


@shipped(
    grade=(3, 3),
    docs="docs/tools/write_file.md",
    examples=['write_file("notes/summary.txt", "done\\n")'],
    tags=["file", "write", "create", "save", "store", "overwrite", "new"],
    category="system",
    dry_run="run",
)
def write_file(ctx: ToolContext, path: str, content: str) -> str:
    """Create or overwrite a workspace file with the given text.

    Parent directories are created.

    Args:
        path: File path, relative to the workspace.
        content: The complete new text.
    """
    written = workspace.write(ctx, path, content)
    if not written.changed:
        return unchanged(path)
    amount = f"{written.size} byte{'' if written.size == 1 else 's'}"
    if ctx.dry_run:
        return f"would write {amount} to {path} (dry run: nothing written)"
    return f"wrote {amount} to {path}"


def unchanged(path: str) -> str:
    """What a write tool answers for a write that changes nothing: nothing is asked about it, nor written."""
    return f"{path} already has this content; nothing written"


@shipped(
    grade=(3, 3),
    docs="docs/tools/edit_file.md",
    examples=['edit_file("README.md", "Status: draft", "Status: final")'],
    tags=["file", "edit", "replace", "modify", "change", "patch", "update", "substitute"],
    category="system",
    dry_run="run",
)
def edit_file(ctx: ToolContext, path: str, old_str: str, new_str: str, replace_all: bool = False) -> str:
    """Replace old_str with new_str in a file (exact, else ignoring whitespace); returns the diff.

    The exact text is looked for first; if it does not occur, a match that
    differs only in whitespace within lines is accepted.

    Args:
        path: File path, relative to the workspace.
        old_str: Text to replace; must occur once unless replace_all.
        new_str: Replacement text.
        replace_all: Replace every occurrence.
    """
    if not old_str:
        raise ToolError("edit_file: old_str is empty; give the exact text to replace")
    try:
        before = workspace.read_bytes(ctx, path).decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"edit_file: {path} is not UTF-8 text; it was left unchanged") from None
    count = _occurrences(before, old_str)
    if count:
        if count > 1 and not replace_all:
            raise ToolError(
                f"edit_file: old_str occurs {count} times in {path}; include more surrounding text, or pass replace_all=True"
            )
        after = before.replace(old_str, new_str) if replace_all else before.replace(old_str, new_str, 1)
    else:
        after = _replace_loosely(before, old_str, new_str, replace_all, path)
    if after == before:
        return unchanged(path)
    workspace.write(ctx, path, after)
    diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}"))
    return f"would edit {path} (dry run: nothing written)\n{diff}" if ctx.dry_run else diff


def _canonical(line: str) -> str:
    return " ".join(line.split())


def _replace_loosely(text: str, old_str: str, new_str: str, replace_all: bool, path: str) -> str:
    """Replace whole lines that match ``old_str``'s lines up to whitespace."""
    wanted = [_canonical(line) for line in old_str.strip("\n").splitlines()]
    lines = text.splitlines(True)
    size = len(wanted)
    starts = [
        i for i in range(len(lines) - size + 1)
        if all(_canonical(lines[i + k]) == wanted[k] for k in range(size))
    ]
    if not starts or not any(wanted):
        raise ToolError(f"edit_file: old_str not found in {path}{_closest_line(text, old_str)}")
    if len(starts) > 1 and not replace_all:
        raise ToolError(
            f"edit_file: old_str matches {len(starts)} places in {path} (ignoring whitespace); "
            "include more surrounding text, or pass replace_all=True"
        )
    replacement = new_str if new_str.endswith("\n") or not new_str else new_str + "\n"
    out, position = [], 0
    for start in starts:
        if start < position:
            continue  # overlaps the previous match
        out.extend(lines[position:start])
        ending = lines[start + size - 1]
        out.append(replacement if ending.endswith("\n") else replacement.rstrip("\n"))
        position = start + size
    out.extend(lines[position:])
    return "".join(out)


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


FILE_TOOLS = [read_file, find_files, write_file, edit_file, list_dir, grep]


def _suite() -> tuple[list[ToolSpec], dict[str, Callable[..., Any]]]:
    """Every tool lackpy ships: these file tools, then shell, processes, the checklist, the web, the tool search and a skill's files."""
    from lackpy.tools import catalog, shell, skills, todo, web

    functions = FILE_TOOLS + shell.TOOLS + todo.TOOLS + web.TOOLS + catalog.TOOLS + skills.TOOLS
    return [fn.lackpy_tool for fn in functions], {fn.__name__: fn for fn in functions}


SUITE_SPECS, SUITE_IMPLEMENTATIONS = _suite()


class BuiltinProvider:
    """Resolves the tools implemented inside lackpy."""

    name = "builtin"

    def resolve(self, spec: ToolSpec) -> Callable[..., Any]:
        function = spec.provider_config.get("function", spec.name)
        try:
            return SUITE_IMPLEMENTATIONS[function]
        except KeyError:
            known = ", ".join(sorted(SUITE_IMPLEMENTATIONS))
            raise ProviderError(f"the builtin provider has no tool '{function}' (it has: {known})") from None


PROVIDER = BuiltinProvider()


@hookimpl
def register_tool_providers(register):
    register(PROVIDER)


@hookimpl
def register_tools(register):
    for spec in SUITE_SPECS:
        register(spec)
