"""Why a model's program failed, and the feedback most likely to fix it on the next try.

Repeating the validator's messages teaches a small model little. Naming the
kind of mistake (a failure mode), saying what to do instead, and quoting the
part of the right tool's documentation that answers it does. Each mode maps
to one instruction (``HINTS``) and to the doc sections worth quoting
(``SECTIONS``); the tool is inferred from what the program reached for.
"""

from __future__ import annotations

import ast
import difflib
import re
import sys
from dataclasses import dataclass
from typing import Callable, Iterable

from lackpy.infer.repairs import parse_quietly
from lackpy.kit.docs import doc_sections
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.diagnostics import Diagnostic
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import TraceEntry

SYNTAX_ARTIFACT = "syntax_artifact"
STDLIB_LEAK = "stdlib_leak"
IMPLEMENT_NOT_ORCHESTRATE = "implement_not_orchestrate"
UNKNOWN_TOOL = "unknown_tool"
INVALID = "invalid"
PATH_PREFIX = "path_prefix"
KEY_HALLUCINATION = "key_hallucination"
WRONG_OUTPUT = "wrong_output"
RUNTIME_ERROR = "runtime_error"
LIMIT = "limit"

#: Every mode. The validation modes come first, most telling first: when a
#: program's diagnostics suggest several, the earliest is the one reported.
MODES = (
    SYNTAX_ARTIFACT,
    STDLIB_LEAK,
    IMPLEMENT_NOT_ORCHESTRATE,
    UNKNOWN_TOOL,
    INVALID,
    PATH_PREFIX,
    KEY_HALLUCINATION,
    WRONG_OUTPUT,
    RUNTIME_ERROR,
    LIMIT,
)

#: One instruction per mode, said as what to do.
HINTS: dict[str, str] = {
    SYNTAX_ARTIFACT: "Reply with the program alone: plain Python statements inside one ```python block.",
    STDLIB_LEAK: "Call the kit's tools instead of the standard library: every tool is already in scope by its bare name, "
    "so the program needs no imports and no open().",
    IMPLEMENT_NOT_ORCHESTRATE: "Write a few top-level statements that call the kit's tools and end with the answer; "
    "no functions, classes, while loops or try blocks.",
    UNKNOWN_TOOL: "Call only the kit's tools, spelled exactly as listed, and the allowed builtins.",
    INVALID: "Follow each hint above; a program is assignments, if, for, comprehensions, f-strings and calls of tools and builtins.",
    PATH_PREFIX: "Use paths relative to the workspace, such as 'src/app.py'.",
    KEY_HALLUCINATION: "Use only the keys and types the tool's documentation says its result has.",
    WRONG_OUTPUT: "End the program with an expression whose value is the answer.",
    RUNTIME_ERROR: "Check values with if before using them, so every step gets what it expects.",
    LIMIT: "Do less work: narrow patterns and paths to what the task needs and build smaller values.",
}

#: The tool doc sections quoted for each mode.
SECTIONS: dict[str, tuple[str, ...]] = {
    STDLIB_LEAK: ("Signature", "Parameters", "Notes"),
    IMPLEMENT_NOT_ORCHESTRATE: ("Signature", "Examples"),
    KEY_HALLUCINATION: ("Signature", "Returns", "Notes"),
    PATH_PREFIX: ("Notes", "Parameters"),
    WRONG_OUTPUT: ("Signature", "Returns", "Examples"),
    UNKNOWN_TOOL: ("Signature", "Examples"),
}
DEFAULT_SECTIONS = ("Signature",)

#: What a program reached for instead of a tool, and the tools that do that job, best first.
#: Keys are dotted names (``os.path.join`` is also looked up as ``os.path`` and ``os``), ".method"
#: for a method of any value, and "open:write" for open() in a writing mode.
STDLIB_TOOLS: dict[str, tuple[str, ...]] = {
    "open": ("read_file",),
    "open:write": ("write_file", "edit_file"),
    "os.listdir": ("list_dir", "find_files"),
    "os.scandir": ("list_dir", "find_files"),
    "os.walk": ("find_files",),
    "glob": ("find_files",),
    "pathlib": ("find_files",),
    "Path": ("find_files",),
    ".read_text": ("read_file",),
    ".write_text": ("write_file",),
    ".iterdir": ("list_dir", "find_files"),
    "re": ("grep",),
    "subprocess": ("run_command",),
    "os.system": ("run_command",),
    "os.popen": ("run_command",),
    "urllib": ("fetch_url",),
    "requests": ("fetch_url",),
    "http": ("fetch_url",),
}

#: Names whose mention means the program reaches outside the kit.
LEAK_NAMES = frozenset(sys.stdlib_module_names) | {"open", "__import__"} | {
    key.split(".")[0].split(":")[0] for key in STDLIB_TOOLS if not key.startswith(".")
}

#: Refused statements (as the validator names them) and the mode they reveal.
NODE_MODES = {
    "import": STDLIB_LEAK,
    "from ... import": STDLIB_LEAK,
    "def": IMPLEMENT_NOT_ORCHESTRATE,
    "async def": IMPLEMENT_NOT_ORCHESTRATE,
    "class": IMPLEMENT_NOT_ORCHESTRATE,
    "while": IMPLEMENT_NOT_ORCHESTRATE,
    "try": IMPLEMENT_NOT_ORCHESTRATE,
    "try/except*": IMPLEMENT_NOT_ORCHESTRATE,
}

#: Diagnostic codes whose mode does not depend on the name they report.
CODE_MODES = {
    "parse-error": SYNTAX_ARTIFACT,
    "empty-program": SYNTAX_ARTIFACT,
    "too-large": IMPLEMENT_NOT_ORCHESTRATE,
}

#: How close (difflib ratio) an unknown name must be to a tool to count as a misspelt tool. A called
#: name (``readfile(p)``) is surely meant as a tool; an undefined value (``files``) is more often a
#: variable the program forgot to assign, so it must be closer.
TOOL_CUTOFFS = {"unknown-function": 0.6, "undefined-name": 0.8}

#: More non-blank lines than this is implementing, not composing tools.
LONG_PROGRAM_LINES = 60

#: Paths that break the workspace rules: absolute, ./, ~, .., a drive letter.
BAD_PATH = re.compile(r"^(?:/[^/\s]|\./|~|[A-Za-z]:[\\/])|(?:^|[\\/])\.\.(?:[\\/]|$)")

PATH_ERROR = re.compile(r"\b(?:PathError|FileNotFoundError)\b")
KEY_ERROR = re.compile(
    r"\bKeyError\b|\bTypeError\b.*(?:indices must be|not subscriptable)|\bAttributeError: 'dict' object has no attribute"
)
ERROR_TOOL = re.compile(r"^(?:line \d+: )?\w+ in (\w+): ")

MAX_DIAGNOSTICS = 6
SECTION_CHARS = 600
MESSAGE_CHARS = 1200
PROGRAM_CHARS = 4000
DOC_HEADING = "--- From tool documentation ---"


@dataclass
class Failure:
    """A failed attempt: its ``mode``, a compact ``message``, and the ``tool`` (kit alias) it concerns."""

    mode: str
    message: str
    tool: str | None = None


def classify_validation(program: str, errors: list[Diagnostic], kit: ResolvedKit) -> Failure:
    """The failure mode of a program the validator refused with ``errors``."""
    found = [_diagnostic_mode(d, kit) for d in errors] or [(INVALID, None)]
    if sum(1 for line in program.splitlines() if line.strip()) > LONG_PROGRAM_LINES:
        found.append((IMPLEMENT_NOT_ORCHESTRATE, None))
    mode = min((m for m, _ in found), key=MODES.index)
    tool = next((t for m, t in found if m == mode and t), None) or _program_tool(program, kit)
    lines = [str(d) for d in errors[:MAX_DIAGNOSTICS]]
    if len(errors) > MAX_DIAGNOSTICS:
        lines.append(f"(and {len(errors) - MAX_DIAGNOSTICS} more)")
    return Failure(mode, "\n".join(lines) or "the program is not valid", tool)


def classify_runtime(program: str, result: ExecutionResult, kit: ResolvedKit) -> Failure | None:
    """The failure mode of a run, or None when it succeeded with something to show for it."""
    if result.success:
        if result.output is not None or result.printed.strip() or result.files_created or result.files_modified or result.files_deleted:
            return None
        last = result.trace[-1].tool if result.trace else None
        return Failure(WRONG_OUTPUT, "the program ran, but its result is None, it printed nothing and it changed no files", last)
    error = result.error or "the program failed without a message"
    if result.error_kind == "validation":
        return classify_validation(program, result.diagnostics, kit) if result.diagnostics else Failure(INVALID, error)
    if result.error_kind == "limit":
        return Failure(LIMIT, error)
    failed = [entry for entry in result.trace if not entry.success]
    named = ERROR_TOOL.match(error)
    tool = named.group(1) if named and named.group(1) in kit.names else (failed[-1].tool if failed else None)
    if PATH_ERROR.search(error) and any(_is_outside_path(p, kit) for p in _paths_used(program, failed)):
        return Failure(PATH_PREFIX, error, tool)
    if KEY_ERROR.search(error) and result.trace:
        return Failure(KEY_HALLUCINATION, error, tool or result.trace[-1].tool)
    return Failure(RUNTIME_ERROR, error, tool)


def feedback(failure: Failure, program: str, kit: ResolvedKit, read_doc: Callable[[str], str] | None = None) -> str:
    """The user message asking a model to retry: what failed, what to do, and the tool's doc."""
    parts = [
        "Your program did not work:",
        _cap(failure.message, MESSAGE_CHARS),
        "",
        HINTS.get(failure.mode, HINTS[INVALID]),
        "",
        "Your program was:",
        _fenced(_cap(program, PROGRAM_CHARS)),
    ]
    docs = _doc_lines(failure, kit, read_doc)
    if docs:
        parts += ["", DOC_HEADING, *docs]
    if kit.names:
        parts += ["", "The kit's tools: " + ", ".join(sorted(kit.names))]
    parts += ["", "Reply with only the corrected program in one ```python block."]
    return "\n".join(parts)


# -- validation: one mode per diagnostic -------------------------------------------

_QUOTED = re.compile(r"'([^']+)'")


def _diagnostic_mode(diagnostic: Diagnostic, kit: ResolvedKit) -> tuple[str, str | None]:
    """The mode one diagnostic suggests, and the tool it names (only for a misspelt tool)."""
    if diagnostic.code in CODE_MODES:
        return CODE_MODES[diagnostic.code], None
    quoted = _QUOTED.search(diagnostic.message)
    name = quoted.group(1) if quoted else ""
    if diagnostic.code == "forbidden-node":
        return NODE_MODES.get(name, INVALID), None
    if diagnostic.code in ("forbidden-name", "undefined-name", "unknown-function") and name in LEAK_NAMES:
        return STDLIB_LEAK, None
    if diagnostic.code in TOOL_CUTOFFS:
        near = _closest_tool(name, kit.names, TOOL_CUTOFFS[diagnostic.code])
        if near:
            return UNKNOWN_TOOL, near
    return INVALID, None


def _closest_tool(name: str, tools: Iterable[str], cutoff: float) -> str | None:
    by_lower = {tool.lower(): tool for tool in tools}
    match = difflib.get_close_matches(name.lower(), sorted(by_lower), n=1, cutoff=cutoff)
    return by_lower[match[0]] if match else None


# -- which tool the program should have used ---------------------------------------


def _program_tool(program: str, kit: ResolvedKit) -> str | None:
    """The kit tool doing what the program reached for in the standard library, else the first tool it calls."""
    tree = parse_quietly(program)
    if tree is None:
        return None
    aliases = {}  # toolbox name -> the kit's alias for it; an unaliased tool keeps its name
    for alias, spec in kit.tools.items():
        if aliases.get(spec.name) != spec.name:
            aliases[spec.name] = alias
    writes = ".write(" in program
    for _, keys in sorted(_usages(tree, writes), key=lambda u: u[0]):
        for key in keys:
            tool = next((aliases[t] for t in STDLIB_TOOLS.get(key, ()) if t in aliases), None)
            if tool:
                return tool
    calls = sorted((n.lineno, n.col_offset, n.func.id) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    return next((name for _, _, name in calls if name in kit.names), None)


def _usages(tree: ast.Module, writes: bool) -> Iterable[tuple[tuple[int, int], list[str]]]:
    """Each name, attribute, import and open() call with its position and the STDLIB_TOOLS keys to look up.

    Sorted by position, a program's first reach comes first; ``ast.walk``
    yields an outer node (``Path(p).read_text``) before the names inside it
    at the same position, and the sort is stable, so the outer one wins.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            keys = [k for a in node.names for k in _prefixes(a.name)]
        elif isinstance(node, ast.ImportFrom):
            keys = [k for a in node.names for k in _prefixes(f"{node.module}.{a.name}")] if node.module else []
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            keys = ["open:write" if writes or _writing(node) else "open"]
        elif isinstance(node, ast.Attribute):  # the chain's shorter prefixes are nodes of their own
            dotted = _dotted(node)
            keys = ([dotted] if dotted else []) + ["." + node.attr]
        elif isinstance(node, ast.Name):
            keys = [node.id]
        else:
            continue
        yield (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)), keys


def _prefixes(dotted: str) -> list[str]:
    """``a.b.c``, ``a.b``, ``a``: what ``import a.b.c`` reaches for, most specific first."""
    parts = dotted.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


#: Longest dotted name worth building; the table's keys are shorter, and a deep chain must stay cheap.
MAX_DOTTED_PARTS = 4


def _dotted(node: ast.Attribute) -> str | None:
    """``os.path.join`` for a short attribute chain on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute) and len(parts) < MAX_DOTTED_PARTS - 1:
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _writing(call: ast.Call) -> bool:
    """open(..., "w" / "a" / "x" / "+")."""
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax+"))


# -- runtime: which paths the program used -----------------------------------------


def _paths_used(program: str, failed: list[TraceEntry]) -> list[str]:
    """The failing tool call's string arguments, else every string constant in the program."""
    if failed:
        values = []
        for summary in failed[-1].args.values():
            try:
                value = ast.literal_eval(summary)
            except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
                continue
            if isinstance(value, str):
                values.append(value)
        return values
    tree = parse_quietly(program)
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)] if tree else []


def _is_outside_path(path: str, kit: ResolvedKit) -> bool:
    """Absolute, ./, ~, .. or prefixed with the workspace's own name."""
    if BAD_PATH.search(path):
        return True
    root = getattr(kit.context, "root", None)
    prefixes = ["workspace/"] + ([root.rstrip("/").rsplit("/", 1)[-1] + "/"] if root else [])
    return any(path.startswith(prefix) for prefix in prefixes)


# -- feedback ---------------------------------------------------------------------


def _doc_lines(failure: Failure, kit: ResolvedKit, read_doc: Callable[[str], str] | None) -> list[str]:
    """The mode's sections of the tool's doc, else its signature and description from the ToolSpec."""
    spec = kit.tools.get(failure.tool) if failure.tool else None
    if spec is None:
        return []
    sections: dict[str, str] = {}
    if spec.docs and read_doc is not None:
        try:
            sections = doc_sections(read_doc(spec.docs))
        except Exception:  # a missing or refused doc falls back to the ToolSpec
            sections = {}
    wanted = SECTIONS.get(failure.mode, DEFAULT_SECTIONS)
    lines = [_section(title, sections[title]) for title in wanted if sections.get(title)]
    if not lines:
        lines = [f"Signature: {spec.signature(failure.tool)}"]
        if spec.description:
            lines.append(f"Description: {_cap(spec.description, SECTION_CHARS)}")
    if failure.tool != spec.name:
        lines.append(f"In this kit the tool is called {failure.tool}; the documentation names it {spec.name}.")
    return lines


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _section(title: str, text: str) -> str:
    """``Title: text``; a multi-line text (a list, an example) starts on its own line.

    A section that is one code span (a doc's Signature) loses its backticks,
    so it reads like the signature a ToolSpec gives when there is no doc.
    """
    span = _CODE_SPAN.fullmatch(text)
    text = span.group(1) if span else _cap(text, SECTION_CHARS)
    return f"{title}:\n{text}" if "\n" in text else f"{title}: {text}"


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + " ..."


def _fenced(program: str) -> str:
    """The program in a ```python block whose fence no backtick run in it can close."""
    longest = max((len(run) for run in re.findall(r"`+", program)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{program}\n{fence}"


__all__ = [
    "DOC_HEADING",
    "Failure",
    "HINTS",
    "IMPLEMENT_NOT_ORCHESTRATE",
    "INVALID",
    "KEY_HALLUCINATION",
    "LIMIT",
    "MODES",
    "PATH_PREFIX",
    "RUNTIME_ERROR",
    "SECTIONS",
    "STDLIB_LEAK",
    "STDLIB_TOOLS",
    "SYNTAX_ARTIFACT",
    "UNKNOWN_TOOL",
    "WRONG_OUTPUT",
    "classify_runtime",
    "classify_validation",
    "feedback",
]
