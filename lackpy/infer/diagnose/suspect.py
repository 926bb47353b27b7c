"""Signals that a run went wrong even though nothing raised, or that a failure was about a path or a key.

A model's program can run to the end and still be wrong in ways the run
itself shows, cheaply and deterministically:

- a glob that matched nothing (``find_files("src/*.py")``, grep's ``glob=``)
  while the same name pattern matches files deeper in the workspace: the
  model forgot ``**`` or wrote the path from the wrong directory
  (``path_prefix``). A missing file or directory whose name exists
  elsewhere is the same mistake (``path_prefix``).
- a key read from a tool's items that its doc says they never have, even
  through ``.get`` (``key_hallucination``, see ``keys``).
- an empty result for a request that asks which files (or paths, or
  directories), when the tools did return data: the program's filter threw
  everything away (``wrong_output``). A run that failed on the empty value
  such a filter left (``[...][0]``, ``max([])``) is the same mistake.

The glob and key checks also explain a failed run: the IndexError on an
empty glob's result, or the AttributeError on the None a wrong key gave, is
their symptom.

Each check reads only the trace, the program and, for paths, one glob of the
workspace through the tools' own path rules. None of them changes anything.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable

from lackpy.infer.diagnose.keys import wrong_keys
from lackpy.infer.mend.failures import KEY_HALLUCINATION, PATH_PREFIX, WRONG_OUTPUT, Failure
from lackpy.kit.resolve import ResolvedKit
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import TraceEntry
from lackpy.tools import workspace

#: A request for a listing: "which files mention X", "list the python files", "find paths ...".
LISTING_INTENT = re.compile(
    r"\b(?:which|what|list|find|show|name|locate|get)\b.*\b(?:files?|paths?|director(?:y|ies)|folders?|modules?|scripts?)\b"
    r"|\b(?:files?|paths?|director(?:y|ies)|folders?)\s+(?:that|which|with|containing|where|matching|named)\b",
    re.IGNORECASE,
)

#: Trace summaries of results that hold nothing.
EMPTY_SUMMARIES = frozenset({"[]", "()", "{}", "set()", "''", '""', "None", "0", "False"})

#: Tool (by its toolbox name) -> the parameter holding a glob, and its default when not given.
GLOB_PARAMETERS = {"find_files": ("pattern", None), "grep": ("glob", "**/*")}
#: find_files' kind argument -> the entries it lists.
FIND_KINDS = {None: frozenset({"file"}), "file": frozenset({"file"}), "text": frozenset({"file"}), "dir": frozenset({"dir"}), "any": frozenset({"file", "dir"})}
#: Tool -> the parameter holding a path that must exist.
PATH_PARAMETERS = {"read_file": "path", "list_dir": "path", "edit_file": "path"}
MISSING = re.compile(r"\bno such (?:file|directory)\b")

#: What an empty value raises: indexing it, max() or min() of it, dividing by its length.
EMPTY_VALUE_ERROR = re.compile(
    r"\bIndexError: list index out of range|\b(?:max|min)\(\) (?:arg is an empty sequence|iterable argument is empty)|\bZeroDivisionError\b"
)
FILTER_HINT = (
    "The tools found data but the result is empty: check the program's filter (letter case, the form of "
    "the paths, the keys it compares) against what the tool returns."
)

#: Examples of where the files are, at most this many in a message.
SHOWN = 3

_MAGIC = re.compile(r"[*?\[]")
_LITERAL = re.compile(r"[A-Za-z0-9]")

def check_success(
    program: str, result: ExecutionResult, kit: ResolvedKit, *, intent: str = "", read_doc: Callable[[str], str] | None = None
) -> Failure | None:
    """The first sign, in order of precedence, that a successful run is wrong; None when there is none."""
    return empty_glob(result.trace, kit) or unknown_key(program, kit, read_doc) or empty_listing(result, intent)


def empty_glob(trace: list[TraceEntry], kit: ResolvedKit) -> Failure | None:
    """path_prefix: a glob matched no file, but its last part matches files deeper in the workspace."""
    for index, entry in enumerate(trace):
        name = _tool_name(entry.tool, kit)
        if not entry.success or name not in GLOB_PARAMETERS:
            continue
        if any(e.tool == entry.tool and e.success and e.result.strip() not in EMPTY_SUMMARIES for e in trace[index + 1:]):
            continue  # the program tried again and found something: the empty glob did no harm
        parameter, default = GLOB_PARAMETERS[name]
        pattern = _argument(entry, parameter, default)
        if not isinstance(pattern, str):
            continue
        if name == "find_files" and entry.result.strip() not in EMPTY_SUMMARIES:
            continue
        if name == "grep" and (entry.result.strip() not in EMPTY_SUMMARIES or _glob(kit, pattern)):
            continue  # grep found nothing in files the glob did match: no sign about the path
        deeper = _deeper(pattern)
        kind = _argument(entry, "kind", None) if name == "find_files" else None
        found = _glob(kit, deeper, FIND_KINDS.get(kind, FIND_KINDS[None])) if deeper else []
        if found:
            message = (
                f"{entry.tool}({parameter}={pattern!r}) matched no file, but {deeper!r} matches {len(found)}: "
                + ", ".join(found[:SHOWN])
                + (", ..." if len(found) > SHOWN else "")
            )
            hint = (
                "A glob's * stays within one directory: write the pattern from the workspace root, "
                "with ** where files may be deeper (such as 'src/**/*.py' or '**/*.py')."
            )
            return Failure(PATH_PREFIX, message, entry.tool, hint)
    return None


def missing_path(error: str, failed: list[TraceEntry], kit: ResolvedKit) -> Failure | None:
    """path_prefix: a missing file or directory whose name exists elsewhere in the workspace."""
    if not failed or not MISSING.search(error):
        return None
    entry = failed[-1]
    name = _tool_name(entry.tool, kit)
    path = _argument(entry, PATH_PARAMETERS.get(name, ""), None)
    if not isinstance(path, str) or _MAGIC.search(path):
        return None
    base = path.rstrip("/").rsplit("/", 1)[-1]
    if not base or base in (".", ".."):
        return None
    found = [p for p in _glob(kit, f"**/{base}", kinds=frozenset({"file", "dir"})) if p != path]
    if not found:
        return None
    message = f"{error}\n{base!r} is in the workspace at " + ", ".join(repr(p) for p in found[:SHOWN]) + (", ..." if len(found) > SHOWN else "")
    return Failure(PATH_PREFIX, message, entry.tool, f"Write paths from the workspace root, as listed: {found[0]!r}.")


def unknown_key(program: str, kit: ResolvedKit, read_doc: Callable[[str], str] | None) -> Failure | None:
    """key_hallucination: the program reads a key the tool's items do not have."""
    wrong = wrong_keys(program, kit, read_doc)
    if not wrong:
        return None
    return Failure(KEY_HALLUCINATION, "\n".join(w.describe() for w in wrong[:SHOWN]), wrong[0].tool)


def empty_listing(result: ExecutionResult, intent: str) -> Failure | None:
    """wrong_output: asked which files, answered with nothing, although the tools returned data."""
    if not intent or not LISTING_INTENT.search(intent) or not _is_empty(result.output) or result.printed.strip():
        return None
    fed = _fed(result.trace)
    if not fed:
        return None  # every tool came back empty: the workspace's answer may well be nothing
    message = f"the result is {result.output!r}, though {fed[0].tool}(...) returned {fed[0].result[:120]}"
    return Failure(WRONG_OUTPUT, message, fed[0].tool, FILTER_HINT)


def empty_filter(program: str, result: ExecutionResult) -> Failure | None:
    """wrong_output: the run failed on an empty value its own filter left (``[...][0]``, ``max([])``), though the tools returned data.

    The exception is the symptom; the filter that threw everything away is
    what the model must fix, and an IndexError hint would not say so.
    """
    if not EMPTY_VALUE_ERROR.search(result.error or "") or not _filters(program):
        return None
    fed = _fed(result.trace)
    if not fed:
        return None  # the tools found nothing either: not checking for that is an ordinary runtime error
    message = f"the program's filter left nothing, though {fed[0].tool}(...) returned {fed[0].result[:120]}"
    return Failure(WRONG_OUTPUT, message, fed[0].tool, FILTER_HINT)


def _fed(trace: list[TraceEntry]) -> list[TraceEntry]:
    """The tool calls that succeeded and returned something."""
    return [e for e in trace if e.success and e.result.strip() not in EMPTY_SUMMARIES]


def _filters(program: str) -> bool:
    """Whether the program filters with a comprehension's ``if``, the usual place a wrong test empties a list."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, ast.comprehension) and node.ifs for node in ast.walk(tree))


def _is_empty(value: Any) -> bool:
    return isinstance(value, (list, tuple, set, frozenset, dict, str)) and not value


def _tool_name(alias: str, kit: ResolvedKit) -> str | None:
    spec = kit.tools.get(alias)
    return spec.name if spec else None


def _argument(entry: TraceEntry, parameter: str, default: Any) -> Any:
    summary = entry.args.get(parameter)
    if summary is None:
        return default
    try:
        return ast.literal_eval(summary)
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return None


def _deeper(pattern: str) -> str | None:
    """``**/<last part>``: where files named like the pattern's last part are anywhere; None when that says nothing new."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    if not _LITERAL.search(last) or last in (".", ".."):
        return None
    deeper = f"**/{last}"
    return None if deeper == pattern.removeprefix("./") else deeper


def _glob(kit: ResolvedKit, pattern: str, kinds: frozenset[str] = frozenset({"file"})) -> list[str]:
    """The workspace paths matching ``pattern`` under the tools' own rules; [] when there is no workspace or it fails."""
    context = kit.context
    if context is None:
        return []
    try:
        return workspace.glob(context, pattern, kinds)
    except Exception:  # a refused pattern or an unreadable tree is no signal
        return []


__all__ = ["check_success", "empty_filter", "empty_glob", "empty_listing", "missing_path", "unknown_key"]
