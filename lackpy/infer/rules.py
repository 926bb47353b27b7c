"""The rules tier: everyday questions about files, understood and answered with no model.

The intent is parsed into a structure (``lackpy.infer.understand.intent``:
what is asked, of what, in which files, with which filters and ordering) and
the structure becomes programs (``lackpy.infer.understand.compose``), one per
set of tools that can answer it. This tier proposes the first the kit can
run, calling each tool by the kit's name for it.

When the intent is about files but some part of it is not understood, the
tier proposes nothing and raises ``NotUnderstood``: the attempt log then says
what was understood, what was not, and up to three questions the tier does
understand that are nearest the one asked (``lackpy.infer.understand.nearest``),
with the user's own file, directory or word in them, ready to paste back. An intent with nothing about files in it ("compose a haiku") is
simply not a match. A wrong answer served with confidence is the failure
this tier avoids; a refusal lets the next tier (a model, if configured) try.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from lackpy.errors import InferenceError
from lackpy.infer.base import Proposal, Request, Tier
from lackpy.infer.fill import render
from lackpy.infer.understand.compose import Variant, build
from lackpy.infer.stems import files_named, files_of_stem, with_paths
from lackpy.infer.understand.intent import Files, Intent, NotUnderstood, Parsed, offered, parse
from lackpy.infer.understand.nearest import nearest
from lackpy.infer.understand.words import BARE_FILES, normalize_intent

#: Intents the tier serves, shown when no tier could serve (a refusal offers the nearest questions of ``nearest.CATALOGUE``).
EXAMPLES = (
    "count TODOs",
    "how many python files are there",
    "which files contain TODO",
    "python files without TODO in src",
    "count lines in python files",
    "how many lines in README.md",
    "5 largest python files",
    "which file has the most TODOs",
    "how many functions are defined in src",
    "does README.md mention draft",
    "grep TODO in src",
    "read README.md",
    "list src",
)


def normalize(intent: str) -> str:
    """The intent as the parser sees it: trimmed, one space between words, plain apostrophes."""
    return " ".join(normalize_intent(intent.replace("\u2019", "'")).split())


def understand(intent: str) -> Parsed:
    return parse(normalize(intent))


def programs(intent: str) -> list[Variant]:
    """Every program for ``intent``, preferred first; [] when it is not understood."""
    parsed = understand(intent)
    return build(parsed.intent) if parsed.intent is not None else []


def needs(intent: str) -> tuple[str, ...] | None:
    """The tools of the smallest program that answers ``intent`` (for choosing a kit), or None."""
    variants = programs(intent)
    return min((tools for tools, _body, _values in variants), key=len) if variants else None


def anchored(intent: Intent, workspace: Path) -> Intent:
    """``intent`` with a directory given by a bare name ("in src") anchored at the workspace when it is there.

    People name a top-level directory by its name ("in src", "under docs")
    and a nested one by its name too ("in pkg1" for src/pkg1). A bare name
    therefore means the directory at the top when the workspace has one, so
    nested directories of the same name (node_modules/x/src) are not
    counted; otherwise any directory of that name. The program shows which.
    """
    name = intent.files.dir
    if not name or intent.ask == "ls" or not re.fullmatch(r"[\w-]+", name):
        return intent
    try:
        here = (Path(workspace) / name).is_dir()
    except OSError:
        here = False
    return replace(intent, files=replace(intent.files, dir="./" + name)) if here else intent


#: How many entries of the workspace's top ``named_file`` looks at for "the README".
MAX_TOP_ENTRIES = 10_000


def named_file(intent: Intent, workspace: Path) -> Intent:
    """``intent`` with a conventional file named without its extension ("the README") made the one the workspace has.

    People say "the README" for README.md or README.rst. When the workspace
    has no file of exactly the name said and exactly one at its top of that
    name with an extension, that is the one meant; with several, which one is
    asked (NotUnderstood names them); with none, the name stays as said.
    """
    path = intent.files.path
    if not path or "/" in path or "." in path or path.lower() not in BARE_FILES:
        return intent
    root = Path(workspace)
    try:
        if (root / path).is_file():
            return intent
        with os.scandir(root) as entries:
            found = sorted(e.name for _, e in zip(range(MAX_TOP_ENTRIES), entries)
                           if e.name.lower().startswith(path.lower() + ".") and e.is_file(follow_symlinks=False))
    except OSError:
        return intent
    if len(found) > 1:
        raise NotUnderstood(f"understood {intent.describe()}, but the workspace has {' and '.join(found)}: name the one you mean")
    return replace(intent, files=replace(intent.files, path=found[0])) if found else intent


#: How many directories ``has_dir`` looks at before it stops and assumes the one named may be there.
MAX_DIRS_SEEN = 20_000


def has_dir(workspace: Path, name: str) -> bool:
    """Whether the workspace may have the directory a question names: the path, or any directory of a bare name.

    A question about a directory that is nowhere ("in bytes", a typo) would
    be answered 0 with confidence; the tier refuses it instead. Links are
    not followed; past ``MAX_DIRS_SEEN`` directories the answer is yes.
    """
    root = Path(workspace)
    if name.startswith("/") or ".." in name.split("/"):
        return False  # never a directory of the workspace
    if "/" in name.strip("/") or name.startswith("."):
        try:
            return (root / name.strip("/").removeprefix("./")).is_dir()
        except OSError:
            return True
    seen = 0
    for _folder, subfolders, _files in os.walk(root):
        if name in subfolders:
            return True
        seen += len(subfolders)
        if seen > MAX_DIRS_SEEN:
            return True
    return False


def name_of(intent: Intent) -> str:
    """A short name for the kind of question, for ``detail`` ("rule count-occurrences")."""
    if intent.ask in ("read", "ls", "versus"):
        return {"read": "read-file", "ls": "list-dir", "versus": "two-files-compared"}[intent.ask]
    if intent.ask == "top":
        order = intent.order or "chars"
        return {("chars", True): "largest-files", ("chars", False): "smallest-files", ("lines", True): "longest-files",
                ("lines", False): "shortest-files"}.get((order, intent.largest), f"files-by-{order}")
    of = {"matches": "markers" if intent.marker else "occurrences", "chars": "characters"}.get(intent.of, intent.of)
    if intent.of == "files" and intent.filters:
        negated = all(f.negated for f in intent.filters)
        of = "files-without" if negated else "files-containing"
        return {"list": of, "count": "count-" + of, "exists": "any-" + of, "all": "all-" + of}[intent.ask]
    if intent.of == "lines" and intent.filters:
        return "grep-lines" if intent.ask == "list" else f"{intent.ask}-matching-lines"
    if intent.ask == "count" and intent.of == "lines" and intent.files.path:
        return "count-lines-file"
    prefix = {"count": "count", "list": "list", "exists": "any", "all": "all"}[intent.ask]
    return f"{prefix}-{of}" + ("-per-file" if intent.each else "")


def closest(intent: str, parsed: Parsed, limit: int = 3) -> tuple[str, ...]:
    """Up to ``limit`` questions this tier serves that are nearest ``intent`` (its word not understood searched for first), or examples."""
    return nearest(normalize(intent), parsed, limit) or EXAMPLES[:limit]


def _which_one(name: str, paths: list[str]) -> NotUnderstood:
    """The refusal when a name the question gives is the name (or the stem) of several files: which one is meant."""
    shown = ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "")
    return NotUnderstood(f"{name} is the name of {len(paths)} files ({shown}): name the one you mean")


def _located(intent: Intent, root: Path) -> Intent:
    """``intent`` with a file named without its folder ("routes.py") made the one file of that name, when it is not at the top.

    "mod42's docstring" names a module by its stem, as "Catalogue's docstring"
    names a class: the one file of that stem, when there is one, is meant.
    """
    if intent.of == "docstring" and intent.def_names:
        stem = files_of_stem(Path(root), intent.def_names[0])
        if len(stem) == 1:
            return replace(intent, files=Files(path=stem[0]), def_names=())
    path = _one_named(intent.files.path, root)
    intent = replace(intent, files=replace(intent.files, path=path)) if path != intent.files.path else intent
    other = _one_named(intent.other, root)
    return replace(intent, other=other) if other != intent.other else intent


def _one_named(path: str | None, root: Path) -> str | None:
    """``path``, or the one file of that name beneath the workspace when it names none at the top; several are a question."""
    if not path or "/" in path or (Path(root) / path).exists():
        return path
    found = files_named(Path(root), path)
    if len(found) > 1:
        raise _which_one(path, found)
    return found[0] if found else path


def _with_stems(question: str, parsed: Parsed, root: Path) -> Parsed:
    """``parsed``, or the question with its files named by their stems ("in mod100") when only that is understood."""
    missing = parsed.intent is not None and parsed.intent.files.dir and not has_dir(root, parsed.intent.files.dir)
    if parsed.intent is not None and not missing:
        return parsed
    asked, several = with_paths(question, root)
    for stem, paths in several.items():  # a stem of several files, where one of them would be understood: which one?
        if understand(re.sub(rf"\b{re.escape(stem)}\b", paths[0], asked)).intent is None:
            continue
        raise _which_one(stem, paths)
    renamed = understand(asked) if asked != question else parsed
    return renamed if renamed.intent is not None else parsed


class RulesTier(Tier):
    """Serves the questions ``lackpy.infer.understand.intent`` understands, with the tools the kit has, under its aliases."""

    name = "rules"
    model = False

    def propose(self, request: Request) -> Proposal | None:
        root = Path(request.kit.context.root) if request.kit.context is not None else request.workspace  # where the tools look
        parsed = _with_stems(request.intent, understand(request.intent), root)
        if parsed.intent is None:
            if not parsed.relevant:
                return None
            raise NotUnderstood(parsed.explain(closest(request.intent, parsed)))
        aliases: dict[str, list[str]] = {}  # tool name -> the names programs may call it by
        for alias, tool in request.kit.aliases().items():
            aliases.setdefault(tool, []).append(alias)
        intent = named_file(anchored(parsed.intent, root), root)
        intent = _located(intent, root)
        where = intent.files.dir
        for where in filter(None, (intent.files.dir, *intent.outside)):
            if where not in (".", "./") and not has_dir(root, where):
                raise NotUnderstood(f"understood {intent.describe()}, but the workspace has no directory {where.removeprefix('./')}; name one it has")
        variants = build(intent)
        if not variants:
            raise NotUnderstood(
                f"understood {parsed.intent.describe()}, but I have no program for that combination; " + offered(closest(request.intent, parsed))
            )
        for tools, body, values in variants:
            if all(tool in aliases for tool in tools) and not (_names(body) - set(tools)) & request.kit.names:
                renames = tuple((tool, aliases[tool][0]) for tool in tools if tool not in aliases[tool])
                program = render(_renamed(body, renames) if renames else body, values)
                name = name_of(parsed.intent)
                return Proposal(program=program, detail=f"rule {name}: {intent.describe()}", source=name)
        missing = sorted({tool for tools, _b, _v in variants for tool in tools if tool not in aliases})
        raise InferenceError(
            f"understood {parsed.intent.describe()}, but this kit cannot answer it: it needs "
            + " or ".join(" and ".join(tools) for tools, _b, _v in variants)
            + (f" (it has no {', '.join(missing)})" if missing else " (a variable of the program is a tool's name here)")
        )

    def understands(self) -> list[str]:
        return list(EXAMPLES)

    def needs(self, intent: str) -> tuple[str, ...] | None:
        return needs(intent)


@lru_cache(maxsize=64)
def _names(body: str) -> frozenset[str]:
    """Every bare name in ``body``: its tools, builtins and variables.

    A variant whose variables are names in the kit cannot run there: the
    validator refuses a tool name used as a variable.
    """
    return frozenset(node.id for node in ast.walk(ast.parse(body)) if isinstance(node, ast.Name))


@lru_cache(maxsize=128)
def _renamed(body: str, renames: tuple[tuple[str, str], ...]) -> str:
    """``body`` calling each tool by the kit's alias for it (bodies use tool names only in calls)."""
    mapping = dict(renames)
    lines = io.StringIO(body).readlines()
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(body).readline) if t.type == tokenize.NAME and t.string in mapping]
    for token in reversed(tokens):  # from the end, so earlier positions stay valid
        row, col = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + mapping[token.string] + line[col + len(token.string):]
    return "".join(lines)


__all__ = ["EXAMPLES", "RulesTier", "closest", "name_of", "needs", "normalize", "programs", "understand"]
