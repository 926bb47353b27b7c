"""Why a model's program failed, and the feedback most likely to fix it on the next try.

Repeating the validator's messages teaches a small model little. Naming the
kind of mistake (a failure mode), saying what to do instead, and quoting the
part of the right tool's documentation that answers it does. Each mode maps
to one instruction (``HINTS``, replaced by a sharper one when the construct
is known: a ``while`` over a counter, an assigned lambda), to the tool doc
sections worth quoting (``SECTIONS``) and to the sections of the program
guide (``docs/guide/answers.md``, ``GUIDE_SECTIONS``); the tool is inferred
from what the program reached for.

Precedence. An answer can show several modes at once (a transcript that
imports ``os``, a cut-off ``def main()``); the one reported, and so the hint
the model gets, is the first cause, the highest in this table, which is
``MODES``' order:

====  =========================  ===============================================================
rank  mode                       why it outranks the ones below
====  =========================  ===============================================================
1     jupyter_confusion          a session (prompts, echoed outputs, %magic, !shell, display)
                                 whose program still fails or was cut: its prompts and echoes
                                 cause the errors after them and make the answer long enough to
                                 be cut; "write a program, not a session" fixes them at their
                                 source. A session mending turned into a valid program is no
                                 failure at all
2     syntax_artifact            text that is not code (prose, markup, a missing colon, a 3.12
                                 f-string) that no ending would complete: it came before any
                                 cut, so it is the first cause, and nothing about the program's
                                 content is reliable yet
3     truncated                  the answer stops mid-way (its text shows it, or its server said
                                 so: ``cut``) and the text before the cut is otherwise clean:
                                 every finding below is about a fragment and may be an artifact
                                 of the cut
4     stdlib_leak                the program reaches past the kit; the tool's doc that replaces
                                 the import also removes the helper code built around it
5     implement_not_orchestrate  def / while / try / lambda / class: the shape is wrong even
                                 when every name is right; fixing the shape comes before names
6     unknown_tool               a call of a function that is no tool, builtin or module: one
                                 word to fix (the nearest tool is named when one is close)
7     invalid                    any other validator refusal, reported with its own hint
8     path_prefix                (run) a path or glob that finds nothing explains an empty,
                                 wrong or failed run (an IndexError on its empty result
                                 included), so it is named before what it causes
9     key_hallucination          (run) a key the tool never returns explains None values,
                                 KeyErrors and AttributeErrors on None downstream
10    wrong_output               (run) no result, an empty one the tools' data contradicts, or
                                 a failure on the empty value the program's own filter left:
                                 the symptom of a wrong program, when no cause above was found
11    runtime_error              (run) any other exception
12    limit                      (run) too much work; the program may be right, only too big
====  =========================  ===============================================================

Validation modes (1-7) come from the answer and the validator; run modes
(8-12) from a run, and a run only happens once validation passes, so the two
groups never compete. Mending (``mend``) fixes many answers of modes 1-7 (and
a final ``print``, a ``wrong_output``) before they are ever reported; a mode
mending fixed is not reported for an answer that fails for another reason,
except a session's, which is the cause of what follows it. ``Mended.mode``
still names what was wrong, by the same order.
"""

from __future__ import annotations

import ast
import difflib
import re
import sys
from dataclasses import replace
from typing import Callable, Iterable

from lackpy.infer.diagnose.keys import wrong_keys
from lackpy.infer.diagnose.suspect import check_success, empty_filter, empty_glob, missing_path, unknown_key
from lackpy.infer.mend.answer import Mended
from lackpy.infer.mend.asttools import parse_quietly
from lackpy.infer.mend.failures import (
    IMPLEMENT_NOT_ORCHESTRATE,
    INVALID,
    JUPYTER_CONFUSION,
    KEY_HALLUCINATION,
    LIMIT,
    MODES,
    PATH_PREFIX,
    RUNTIME_ERROR,
    STDLIB_LEAK,
    SYNTAX_ARTIFACT,
    TRUNCATED,
    UNKNOWN_TOOL,
    WRONG_OUTPUT,
    Failure,
)
from lackpy.infer.mend.transcript import leftover_line
from lackpy.infer.mend.truncation import completable
from lackpy.kit.docs import doc_sections
from lackpy.kit.resolve import ResolvedKit
from lackpy.lang.diagnostics import Diagnostic
from lackpy.run.result import ExecutionResult
from lackpy.run.trace import TraceEntry

#: One instruction per mode, said as what to do.
HINTS: dict[str, str] = {
    TRUNCATED: "Your answer was cut off. Reply with a shorter one: the complete program first, every bracket and string closed, "
    "and nothing after it.",
    JUPYTER_CONFUSION: "Write the program as a file, not a session: no >>> or In [1]: prompts, no printed outputs, "
    "no %magic or !shell lines.",
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

#: The program guide, whose sections explain the modes no tool doc covers.
GUIDE = "docs/guide/answers.md"
GUIDE_HEADING = "--- From the program guide ---"

#: The guide sections quoted for each mode (a failure's own ``guide`` replaces them).
GUIDE_SECTIONS: dict[str, tuple[str, ...]] = {
    TRUNCATED: ("Complete answers",),
    JUPYTER_CONFUSION: ("Transcripts",),
    SYNTAX_ARTIFACT: ("Answer format",),
    STDLIB_LEAK: ("Imports",),
    IMPLEMENT_NOT_ORCHESTRATE: ("Functions",),
    WRONG_OUTPUT: ("Results",),
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
    "os.path.exists": ("find_files",),
    "os.path.isfile": ("find_files",),
    "os.path.isdir": ("find_files",),
    "os.path.getsize": ("list_dir",),
    "fnmatch": ("find_files",),
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

#: Refused statements (as the validator names them): the mode they reveal, the instruction that fixes them, the guide section.
NODE_MODES: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "import": (STDLIB_LEAK, None, ("Imports",)),
    "from ... import": (STDLIB_LEAK, None, ("Imports",)),
    "def": (IMPLEMENT_NOT_ORCHESTRATE, "Write the function's steps at the top level, or its expression where it is used; define no functions.", ("Functions",)),
    "async def": (IMPLEMENT_NOT_ORCHESTRATE, "Write the steps at the top level; define no functions.", ("Functions",)),
    "class": (IMPLEMENT_NOT_ORCHESTRATE, "Use dicts and lists instead of a class, and write the steps at the top level.", ("Functions",)),
    "while": (
        IMPLEMENT_NOT_ORCHESTRATE,
        "Loop with for instead of while: for i in range(start, stop) to count, for item in items over data.",
        ("Loops",),
    ),
    "try": (IMPLEMENT_NOT_ORCHESTRATE, "Drop try/except: check values with if before using them, as in if find_files(p): ...", ("Errors",)),
    "try/except*": (IMPLEMENT_NOT_ORCHESTRATE, "Drop try/except: check values with if before using them.", ("Errors",)),
    "global": (IMPLEMENT_NOT_ORCHESTRATE, "Drop global: every name is already shared at the top level.", ("Functions",)),
    "nonlocal": (IMPLEMENT_NOT_ORCHESTRATE, "Drop nonlocal: every name is already shared at the top level.", ("Functions",)),
    "return": (IMPLEMENT_NOT_ORCHESTRATE, "End the program with the value as an expression on its last line instead of return.", ("Results",)),
    "yield": (IMPLEMENT_NOT_ORCHESTRATE, "Build a list instead of yielding.", ("Functions",)),
    "yield from": (IMPLEMENT_NOT_ORCHESTRATE, "Build a list instead of yielding.", ("Functions",)),
}

#: Other diagnostics whose construct says exactly what to write instead: (code, quoted name or None) -> as NODE_MODES.
CONSTRUCT_MODES: dict[tuple[str, str | None], tuple[str, str | None, tuple[str, ...]]] = {
    ("lambda-position", None): (
        IMPLEMENT_NOT_ORCHESTRATE,
        "Write the lambda's expression where it is used, or build the values with a comprehension; "
        "lambda is allowed only as the key= of sorted, min or max.",
        ("Functions",),
    ),
    ("forbidden-attribute", "format"): (INVALID, 'Build text with an f-string: f"{n} files" instead of "{} files".format(n).', ("Results",)),
    ("unknown-function", "display"): (JUPYTER_CONFUSION, "End with the value itself instead of display(value).", ("Transcripts",)),
    ("unknown-function", "get_ipython"): (JUPYTER_CONFUSION, None, ("Transcripts",)),
    ("undefined-name", "get_ipython"): (JUPYTER_CONFUSION, None, ("Transcripts",)),
    ("unknown-function", "map"): (IMPLEMENT_NOT_ORCHESTRATE, "Use a comprehension instead of map: [f(x) for x in items].", ("Functions",)),
    ("unknown-function", "filter"): (IMPLEMENT_NOT_ORCHESTRATE, "Use a comprehension instead of filter: [x for x in items if test].", ("Functions",)),
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

#: A Python 3.12 f-string on an older Python: its fields reuse the f-string's quote.
FSTRING_QUOTES = re.compile(r"f-string: (?:unmatched|expecting)")
FSTRING_HINT = "Inside an f-string, quote with the other quote: f\"{h['path']}\" instead of f\"{h[\"path\"]}\"."

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


def classify_validation(program: str, errors: list[Diagnostic], kit: ResolvedKit) -> Failure:
    """The failure mode of a program the validator refused with ``errors``, with the instruction for its construct."""
    found = [_diagnostic_mode(d, kit, program) for d in errors] or [_Found(INVALID)]
    if sum(1 for line in program.splitlines() if line.strip()) > LONG_PROGRAM_LINES:
        found.append(_Found(IMPLEMENT_NOT_ORCHESTRATE))
    mode = min((f.mode for f in found), key=MODES.index)
    chosen = [f for f in found if f.mode == mode]
    tool = next((f.tool for f in chosen if f.tool), None) or _program_tool(program, kit)
    hint = next((f.hint for f in chosen if f.hint), None)
    guide = next((f.guide for f in chosen if f.guide), ())
    if mode == STDLIB_LEAK and hint is None:
        hint = _module_hint(program)
    return Failure(mode, _listed(errors) or "the program is not valid", tool, hint, guide)


def _listed(errors: list[Diagnostic]) -> str:
    """The first diagnostics, one a line, and how many more there are: enough to act on, short enough to read."""
    lines = [str(d) for d in errors[:MAX_DIAGNOSTICS]]
    if len(errors) > MAX_DIAGNOSTICS:
        lines.append(f"(and {len(errors) - MAX_DIAGNOSTICS} more)")
    return "\n".join(lines)


def classify_answer(mended: Mended, errors: list[Diagnostic], kit: ResolvedKit, *, cut: bool = False) -> Failure | None:
    """The failure of a mended answer, first cause first: a session, text that is not code, a cut, what the validator refused.

    ``cut`` is the server's word that it stopped the answer at its length
    limit (OpenAI's finish_reason "length", Anthropic's stop_reason
    "max_tokens", Ollama's done_reason "length"): the answer is then cut off
    however finished its text looks. False, the default, leaves that to the
    text (``Mended.truncated``). A cut is named only when the text before it
    is otherwise clean: a session, or a syntax error no ending completes, came
    first and is the cause. None when the answer is complete and its program
    valid.
    """
    truncated = cut or mended.truncated
    session = _session(mended, errors, truncated, kit)
    if session is not None:
        return session
    if truncated and not _error_before_cut(mended.program, errors):
        return Failure(TRUNCATED, "the answer stops before its end: " + _cut_where(mended))
    return classify_validation(mended.program, errors, kit) if errors else None


def _session(mended: Mended, errors: list[Diagnostic], truncated: bool, kit: ResolvedKit) -> Failure | None:
    """jupyter_confusion: a transcript line no program holds, or a session whose program still fails or was cut.

    Mending turns most sessions into programs; one that is still refused or
    cut gets the session's hint, since its prompts and echoed outputs are
    what broke it (or made it long enough to be cut).
    """
    if mended.leftover:
        message = f"the answer is a notebook or REPL session: {mended.leftover!r} is a shell command or magic, which no program can run"
        return Failure(JUPYTER_CONFUSION, message, _program_tool(mended.program, kit))
    if JUPYTER_CONFUSION not in mended.modes or not (errors or truncated):
        return None
    problem = _listed(errors) or "it stops before its end: " + _cut_where(mended)
    message = "the answer is a notebook or REPL session, and the program in it fails:\n" + problem
    return Failure(JUPYTER_CONFUSION, message, _program_tool(mended.program, kit))


def _cut_where(mended: Mended) -> str:
    """Where the text shows the cut, or that only the server said so (its text may look finished)."""
    return _cut_description(mended.program) if mended.truncated else "the model's server stopped it at its length limit"


def _error_before_cut(program: str, errors: list[Diagnostic]) -> bool:
    """A syntax error that no ending completes: it is in the text before the cut, not the cut itself."""
    return any(d.code == "parse-error" for d in errors) and not completable(program)


def classify_runtime(
    program: str, result: ExecutionResult, kit: ResolvedKit, *, intent: str = "", read_doc: Callable[[str], str] | None = None
) -> Failure | None:
    """The failure mode of a run, or None when it succeeded with something to show for it.

    A successful run is still checked (``suspect``): a glob that matched
    nothing where files of its kind exist deeper, a key the tool's doc does
    not list (with ``read_doc``), an empty answer to a request for files
    (with ``intent``) when the tools did return data.
    """
    if result.success:
        suspect = check_success(program, result, kit, intent=intent, read_doc=read_doc)
        if suspect is not None and suspect.mode != WRONG_OUTPUT:
            return suspect
        if result.output is not None or result.printed.strip() or result.files_created or result.files_modified or result.files_deleted:
            return suspect
        last = result.trace[-1].tool if result.trace else None
        return Failure(WRONG_OUTPUT, "the program ran, but its result is None, it printed nothing and it changed no files", last)
    error = result.error or "the program failed without a message"
    if result.error_kind == "validation":
        return classify_validation(program, result.diagnostics, kit) if result.diagnostics else Failure(INVALID, error)
    if result.error_kind == "limit":
        return Failure(LIMIT, error)
    return _failed_run(program, result, error, kit, read_doc)


def _failed_run(program: str, result: ExecutionResult, error: str, kit: ResolvedKit, read_doc: Callable[[str], str] | None) -> Failure:
    """Why a run raised, cause before symptom: a wrong path or glob, a key the tool never returns, a filter that left nothing.

    An IndexError on an empty glob's result, or an AttributeError on the None
    a wrong key gave, is only the symptom: the cause's hint is what fixes it.
    Any other exception is a runtime_error.
    """
    failed = [entry for entry in result.trace if not entry.success]
    named = ERROR_TOOL.match(error)
    tool = named.group(1) if named and named.group(1) in kit.names else (failed[-1].tool if failed else None)
    if PATH_ERROR.search(error):
        if any(_is_outside_path(p, kit) for p in _paths_used(program, failed)):
            return Failure(PATH_PREFIX, error, tool)
        elsewhere = missing_path(error, failed, kit)
        if elsewhere is not None:
            return elsewhere
    if KEY_ERROR.search(error) and result.trace:
        wrong = wrong_keys(program, kit, read_doc)
        message = "\n".join([error, *(w.describe() for w in wrong[:3])])
        return Failure(KEY_HALLUCINATION, message, (wrong[0].tool if wrong else None) or tool or result.trace[-1].tool)
    cause = empty_glob(result.trace, kit) or unknown_key(program, kit, read_doc) or empty_filter(program, result)
    if cause is not None:
        return replace(cause, message=f"{error}\n{cause.message}")
    return Failure(RUNTIME_ERROR, error, tool)


def feedback(failure: Failure, program: str, kit: ResolvedKit, read_doc: Callable[[str], str] | None = None) -> str:
    """The user message asking a model to retry: what failed, what to do, the tool's doc and the guide's section."""
    parts = [
        "Your program did not work:",
        _cap(failure.message, MESSAGE_CHARS),
        "",
        failure.hint or HINTS.get(failure.mode, HINTS[INVALID]),
        "",
        "Your program was:",
        _fenced(_cap(program, PROGRAM_CHARS)),
    ]
    docs = _doc_lines(failure, kit, read_doc)
    if docs:
        parts += ["", DOC_HEADING, *docs]
    guide = _guide_lines(failure, read_doc)
    if guide:
        parts += ["", GUIDE_HEADING, *guide]
    if kit.names:
        parts += ["", "The kit's tools: " + ", ".join(sorted(kit.names))]
    parts += ["", "Reply with only the corrected program in one ```python block."]
    return "\n".join(parts)


# -- validation: one mode per diagnostic -------------------------------------------

_QUOTED = re.compile(r"'([^']+)'")


class _Found:
    """What one diagnostic says: its mode, the tool it names, and the construct's own instruction and guide section."""

    __slots__ = ("mode", "tool", "hint", "guide")

    def __init__(self, mode: str, tool: str | None = None, hint: str | None = None, guide: tuple[str, ...] = ()) -> None:
        self.mode, self.tool, self.hint, self.guide = mode, tool, hint, guide


def _diagnostic_mode(diagnostic: Diagnostic, kit: ResolvedKit, program: str = "") -> _Found:
    """The mode one diagnostic suggests, the tool it names (only for a misspelt tool), and its construct's hint."""
    if diagnostic.code == "parse-error":
        return _parse_error_mode(diagnostic, program)
    if diagnostic.code in CODE_MODES:
        return _Found(CODE_MODES[diagnostic.code])
    quoted = _QUOTED.search(diagnostic.message)
    name = quoted.group(1) if quoted else ""
    if diagnostic.code == "forbidden-node":
        if name not in NODE_MODES:
            return _Found(INVALID)
        mode, hint, guide = NODE_MODES[name]
        return _Found(mode, None, hint, guide)
    construct = CONSTRUCT_MODES.get((diagnostic.code, name)) or CONSTRUCT_MODES.get((diagnostic.code, None))
    if construct is not None:
        return _Found(construct[0], None, construct[1], construct[2])
    if diagnostic.code in ("forbidden-name", "undefined-name", "unknown-function") and name in LEAK_NAMES:
        return _Found(STDLIB_LEAK, guide=("Imports",))
    if diagnostic.code in TOOL_CUTOFFS:
        near = _closest_tool(name, kit.names, TOOL_CUTOFFS[diagnostic.code])
        if near:
            return _Found(UNKNOWN_TOOL, near)
    if diagnostic.code == "unknown-function":
        return _Found(UNKNOWN_TOOL)  # a called name is meant as a tool even when none is close (search for grep)
    return _Found(INVALID)


def _parse_error_mode(diagnostic: Diagnostic, program: str) -> _Found:
    """A syntax error is a transcript's prompt, a cut-off answer, a 3.12 f-string, or some other artifact, in the order of ``MODES``."""
    if leftover_line(program):
        return _Found(JUPYTER_CONFUSION)
    if completable(program):
        return _Found(TRUNCATED)
    if FSTRING_QUOTES.search(diagnostic.message):
        return _Found(SYNTAX_ARTIFACT, hint=FSTRING_HINT)
    return _Found(SYNTAX_ARTIFACT)


def _cut_description(program: str) -> str:
    """Where the cut is: inside the program (its unfinished last line), or in the words after it."""
    last = next((line.strip() for line in reversed(program.splitlines()) if line.strip()), "")
    if not last:
        return "it holds no program"
    if completable(program):
        return f"its last line {last!r} is unfinished"
    return "it ends in the middle of a sentence or a word, so more may have been meant to follow"


def _module_hint(program: str) -> str | None:
    """For imports of modules that are not the standard library (numpy, requests, ...): that no module can be imported."""
    tree = parse_quietly(program)
    if tree is None:
        return None
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [a.name.partition(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module.partition(".")[0])
    unknown = sorted({m for m in modules if m not in sys.stdlib_module_names})
    if not unknown:
        return None
    return (
        f"No module can be imported, {', '.join(unknown)} included: the kit's tools are already in scope by their bare names, "
        "and the rest is computed with the builtins."
    )


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


def _guide_lines(failure: Failure, read_doc: Callable[[str], str] | None) -> list[str]:
    """The program guide's sections for the failure (its own, else its mode's); none without a readable guide."""
    wanted = failure.guide or GUIDE_SECTIONS.get(failure.mode, ())
    if not wanted or read_doc is None:
        return []
    try:
        sections = doc_sections(read_doc(GUIDE))
    except Exception:  # a missing guide leaves the hint alone
        return []
    return [_section(title, sections[title]) for title in wanted if sections.get(title)]


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
    "GUIDE",
    "GUIDE_HEADING",
    "GUIDE_SECTIONS",
    "HINTS",
    "IMPLEMENT_NOT_ORCHESTRATE",
    "INVALID",
    "JUPYTER_CONFUSION",
    "KEY_HALLUCINATION",
    "LIMIT",
    "MODES",
    "PATH_PREFIX",
    "RUNTIME_ERROR",
    "SECTIONS",
    "STDLIB_LEAK",
    "STDLIB_TOOLS",
    "SYNTAX_ARTIFACT",
    "TRUNCATED",
    "UNKNOWN_TOOL",
    "WRONG_OUTPUT",
    "classify_answer",
    "classify_runtime",
    "classify_validation",
    "feedback",
]
