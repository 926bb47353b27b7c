"""The rules tier: everyday intents about files, answered from a table with no model.

Each rule is data: regexes with named groups that ``fullmatch`` the
normalized intent, and one program per set of tools that can serve it. The
groups are turned into placeholder values by the normalizers in ``GROUPS``
(a kind word becomes a glob, a search word also gets an escaped regex, since
programs have no ``re``), and ``fill.render`` puts them in the program as
string literals, so an intent can never inject code.

Results are plain data: a count is an int (for one file or many: a total),
a listing is a list of paths or names, a ranking is a list of
``{"path", "chars" | "lines"}``, and matching lines are ``"path:line: text"``.
The rules run in order and the first that matches and fits the kit wins, so
specific rules (line counts) come before general ones (counting a word).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping

from lackpy.infer.base import Proposal, Tier, Request
from lackpy.infer.fill import normalize_intent, render

# -- vocabulary -----------------------------------------------------------------

#: Words for kinds of files, and the file-name glob each stands for.
KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("python", "py"), "*.py"),
    (("markdown", "md"), "*.md"),
    (("javascript", "js"), "*.js"),
    (("typescript", "ts"), "*.ts"),
    (("rust", "rs"), "*.rs"),
    (("go", "golang"), "*.go"),
    (("java",), "*.java"),
    (("c",), "*.[ch]"),
    (("c++", "cpp"), "*.cpp"),
    (("ruby", "rb"), "*.rb"),
    (("yaml", "yml"), "*.y*ml"),
    (("json",), "*.json"),
    (("toml",), "*.toml"),
    (("html",), "*.html"),
    (("css",), "*.css"),
    (("text", "txt"), "*.txt"),
    (("shell", "sh", "bash"), "*.sh"),
)
KIND_GLOBS: dict[str, str] = {word: glob for words, glob in KINDS for word in words}

#: Words that name the current directory.
HERE = frozenset({".", "./", "current", "this", "working", "root", "top-level", "top"})

#: Units a count can be of; as search words they mean a different question ("count lines").
UNITS = frozenset({"line", "lines", "word", "words", "character", "characters", "chars", "byte", "bytes",
                   "file", "files", "directories", "dirs", "folders"})

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "twenty": 20,
}

#: Extensionless file names a path may be.
BARE_FILES = ("Makefile", "Dockerfile", "LICENSE", "README", "Procfile", "Gemfile", "Rakefile", "Justfile")

#: Longer intents are not the one-line requests rules serve; skipping them keeps the tier fast.
MAX_INTENT_CHARS = 300

#: How many matching lines a grep-based program asks for before the tool stops.
GREP_MAX_HITS = 100_000

_QUOTED = re.compile(r"([\"'`])(.+)\1", re.DOTALL)
_PLURAL = re.compile(r"([A-Z][A-Z0-9_]+)s")  # TODOs -> TODO; "bugs" stays
_PATH = re.compile(r"[\w.\-/]*[\w-]\.[\w-]+|(?:[\w.\-/]*/)?(?:" + "|".join(BARE_FILES) + ")", re.IGNORECASE)
_DIR = re.compile(r"[\w.\-/]+")

# -- file sets: "python files in src", "*.md", "src/**/*.py", "README.md", "docs" ---------

_ARTICLE = r"(?:(?:all(?: of)?(?: the)?|every|any|the) )?"
_WHERE = r"(?: (?:in|under|inside|within|below|from) (?:the )?(?P<dir>[\w.\-/]+?)/?(?: (?:directory|folder|dir|tree))?)?"


def _glob(name: str, directory: str | None) -> str:
    """Files named like ``name`` anywhere under ``directory`` (default: the workspace)."""
    prefix = "" if directory is None or directory.lower() in HERE else directory.rstrip("/") + "/"
    return prefix + (name if "/" in name else "**/" + name)


def _kind(groups: Mapping[str, str | None]) -> str | None:
    name = KIND_GLOBS.get(groups["kind"].lower()) if groups["kind"] else "*"
    return _glob(name, groups.get("dir")) if name else None


#: A phrase that names files, and how to turn it into a glob (None: not a file set).
FILE_SETS: tuple[tuple[re.Pattern[str], Callable[[Mapping[str, str | None]], str | None]], ...] = tuple(
    (re.compile(regex, re.IGNORECASE), build) for regex, build in (
        (_ARTICLE + r"(?:(?P<kind>[\w+-]+) )?files?" + _WHERE, _kind),
        (_ARTICLE + r"(?P<ext>\*?\.[\w+-]+)(?: files?)?" + _WHERE, lambda g: _glob("*." + g["ext"].lstrip("*."), g["dir"])),
        (_ARTICLE + r"(?:files? (?:matching|like|named|called) )?(?P<glob>\S*[*?\[]\S*)" + _WHERE, lambda g: _glob(g["glob"], g["dir"])),
    )
)

#: Scopes ("count TODO in ...") also take a bare kind, one file or a directory.
SCOPES = FILE_SETS + tuple(
    (re.compile(regex, re.IGNORECASE), build) for regex, build in (
        (_ARTICLE + r"(?P<kind>[\w+-]+)(?: (?:code|sources?|source files))?", _kind),
        (r"(?P<path>" + _PATH.pattern + ")", lambda g: g["path"]),
        (_ARTICLE + r"(?P<dir>[\w.\-/]+?)/?(?: (?:directory|folder|dir|tree))?", lambda g: _glob("*", g["dir"])),
    )
)


def _parse_files(text: str, forms: tuple) -> dict[str, str] | None:
    for regex, build in forms:
        found = regex.fullmatch(text)
        if found:
            glob = build({k: v or None for k, v in found.groupdict().items()})
            if glob:
                return {"glob": glob}
    return None


# -- group normalizers: a captured group -> placeholder values, or None to refuse the match --


def _unquote(text: str) -> str | None:
    quoted = _QUOTED.fullmatch(text)
    return quoted[2] if quoted else None


def _term(text: str) -> dict[str, str] | None:
    """A search word: literal text, so grep gets it escaped. ``TODOs`` means ``TODO``."""
    word = _unquote(text)
    if word is None:
        if text.lower() in UNITS:
            return None
        plural = _PLURAL.fullmatch(text)
        word = plural[1] if plural else text
    return {"word": word, "regex": re.escape(word)}


def _file(text: str) -> dict[str, str] | None:
    """A file: quoted, or a path that ends in an extension or a well-known name."""
    path = _unquote(text)
    if path is None and _PATH.fullmatch(text):
        path = text
    return {"path": path} if path else None


def _directory(text: str) -> dict[str, str] | None:
    path = _unquote(text)
    if path is None and _DIR.fullmatch(text):
        path = text
    if not path:
        return None
    return {"dir": "." if path.lower() in HERE else path.rstrip("/") or path}


def _count(text: str) -> dict[str, str] | None:
    number = NUMBER_WORDS.get(text.lower()) or (int(text) if text.isdigit() else 0)
    return {"n": number} if number > 0 else None


#: Which normalizer turns each regex group into values.
GROUPS: dict[str, Callable[[str], dict[str, str] | None]] = {
    "word": _term,
    "file": _file,
    "dir": _directory,
    "files": lambda text: _parse_files(text, FILE_SETS),
    "scope": lambda text: _parse_files(text, SCOPES),
    "n": _count,
}

# -- rules ------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """An intent shape and the programs that answer it.

    ``patterns`` fullmatch the normalized intent, case-insensitively; their
    named groups are keys of ``GROUPS``. ``variants`` are (tools needed,
    program body), preferred first. ``defaults`` fill values for groups an
    intent left out.
    """

    name: str
    patterns: tuple[str, ...]
    variants: tuple[tuple[tuple[str, ...], str], ...]
    example: str
    defaults: Mapping[str, str | int] = field(default_factory=dict)
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns)
        for regex in compiled:
            unknown = set(regex.groupindex) - set(GROUPS)
            if unknown:
                raise ValueError(f"rule {self.name}: groups {sorted(unknown)} have no normalizer; add them to GROUPS")
        object.__setattr__(self, "compiled", compiled)

    def values(self, text: str) -> dict[str, str] | None:
        """Placeholder values for a normalized intent, or None when no pattern takes it."""
        for regex in self.compiled:
            found = regex.fullmatch(text)
            if found is None:
                continue
            values = dict(self.defaults)
            for group, captured in found.groupdict().items():
                derived = GROUPS[group](captured) if captured is not None else {}
                if derived is None:
                    break
                values.update(derived)
            else:
                return values
        return None


_FILE_ARG = r"(?P<file>\"[^\"]+\"|'[^']+'|\S+)"
_TERM = r"(?P<word>\"[^\"]+\"|'[^']+'|`[^`]+`|\S+)"  # one word, or a quoted phrase
_PHRASE = r"(?P<word>.+?)"  # words up to " in ..."
_IN = r"(?: in (?P<scope>.+))?"
_IN_LAZY = r"(?: in (?P<scope>.+?))?"
_NUMBERS = r"(?: (?:with|showing|and show|and) line numbers)?"
_LEAD = r"(?:(?:list|show|find|get|print|which are|what are)(?: me)? )?(?:the )?(?:top )?"
_N = r"(?P<n>\d+|" + "|".join(NUMBER_WORDS) + ")"
_HOW_MANY_LINES = (
    r"count(?: the)?(?: number of)? lines(?: of code)? (?:in|of) {target}",
    r"how many lines(?: of code)?(?: are there)? (?:in|of) {target}",
    r"how many lines (?:does|do) {target} (?:have|contain)",
    r"(?:line count|number of lines|lines of code|loc) (?:in|of|for) {target}",
)


def _ranked(adjectives: str) -> tuple[str, ...]:
    """"5 largest python files", "the largest 5 files", "largest files in src"."""
    return (
        _LEAD + rf"(?:{_N} )?(?:{adjectives}) (?P<files>.+)",
        _LEAD + rf"(?:{adjectives}) {_N} (?P<files>.+)",
    )


_SIZES = '''sizes = [{{"path": f, "{unit}": {measure}}} for f in find_files({{glob}}, kind="text")]
sorted(sizes, key=lambda s: s["{unit}"], reverse=True)[:{{n}}]'''

RULES: tuple[Rule, ...] = (
    Rule(
        "read-file",
        (
            r"(?:read|cat|open|print|show|display|view|dump)(?: me)?(?: the)?(?: (?:contents?|text) of)?(?: the)?(?: file)? " + _FILE_ARG,
            r"what(?:'s| is) in(?: the file)? " + _FILE_ARG,
            r"what does " + _FILE_ARG + " say",
        ),
        ((("read_file",), "read_file({path})"),),
        "read README.md",
    ),
    Rule(
        "list-files",
        (
            r"(?:list|find|show|get|locate)(?: me)? (?P<files>.+)",
            r"(?:which|what) (?P<files>.+?) (?:are there|exist|do we have|do i have)",
        ),
        ((("find_files",), "find_files({glob})"),),
        "list python files",
    ),
    Rule(
        "count-files",
        (
            r"count(?: the)?(?: number of)? (?P<files>.+)",
            r"how many (?P<files>.+?)(?: (?:are there|do we have|exist))?",
            r"(?:number|count) of (?P<files>.+)",
        ),
        ((("find_files",), "len(find_files({glob}))"),),
        "how many python files are there",
    ),
    Rule(
        "count-lines-file",
        tuple(p.format(target=_FILE_ARG) for p in _HOW_MANY_LINES),
        ((("read_file",), "len(read_file({path}).splitlines())"),),
        "how many lines in README.md",
    ),
    Rule(
        "count-lines",
        tuple(p.format(target="(?P<scope>.+?)") for p in _HOW_MANY_LINES)
        + (r"(?:count(?: the)?(?: number of)?|how many) lines(?: of code)?(?: are there)?",),
        ((("find_files", "read_file"), "sum(len(read_file(f).splitlines()) for f in find_files({glob}, kind='text'))"),),
        "count lines in python files",
        defaults={"glob": "**/*"},
    ),
    Rule(
        "largest-files",
        _ranked("largest|biggest"),
        ((("find_files", "read_file"), _SIZES.format(unit="chars", measure="len(read_file(f))")),),
        "5 largest python files",
        defaults={"n": 10},
    ),
    Rule(
        "longest-files",
        _ranked("longest"),
        ((("find_files", "read_file"), _SIZES.format(unit="lines", measure="len(read_file(f).splitlines())")),),
        "longest files in src",
        defaults={"n": 10},
    ),
    Rule(
        "files-containing",
        (
            rf"(?:which|what) files (?:contain|mention|include|reference|use|have)s? {_PHRASE}{_IN}",
            rf"(?:(?:find|list|show|get)(?: me)?(?: all)?(?: the)? )?files (?:that|which) (?:contain|mention|include|reference|use|have)s? {_PHRASE}{_IN}",
            rf"(?:(?:find|list|show|get)(?: me)?(?: all)?(?: the)? )?files (?:containing|mentioning|including|referencing|using|with) {_PHRASE}{_IN}",
        ),
        (
            (("grep",), f'sorted({{h["path"] for h in grep({{regex}}, glob={{glob}}, max_hits={GREP_MAX_HITS}) if not h.get("truncated")}})'),
            (("find_files", "read_file"), "[f for f in find_files({glob}, kind='text') if {word} in read_file(f)]"),
        ),
        "which files contain TODO",
        defaults={"glob": "**/*"},
    ),
    Rule(
        "grep-lines",
        (
            rf"grep(?: for)? {_PHRASE}{_IN_LAZY}{_NUMBERS}",
            rf"search(?! the web| online| google)(?: for)? {_PHRASE}{_IN_LAZY}{_NUMBERS}",
            rf"(?:(?:show|find|list|print|get)(?: me)?(?: all)?(?: the)? )?lines (?:matching|containing|with|mentioning|including|that (?:match|contain|mention)) {_PHRASE}{_IN_LAZY}{_NUMBERS}",
            rf"where (?:is|are) {_TERM} (?:used|mentioned|referenced){_IN}",
        ),
        (
            (("grep",), '[h["text"] if h.get("truncated") else f\'{h["path"]}:{h["line"]}: {h["text"]}\' for h in grep({regex}, glob={glob})]'),
            (("find_files", "read_file"), '[f"{f}:{number}: {line}" for f in find_files({glob}, kind="text") for number, line in enumerate(read_file(f).splitlines(), 1) if {word} in line]'),
        ),
        "grep TODO",
        defaults={"glob": "**/*"},
    ),
    Rule(
        "count-occurrences",
        (
            rf"count(?: the)?(?: number of)? (?:occurrences|instances|mentions|uses|appearances) of {_PHRASE}{_IN}",
            rf"count {_TERM}{_IN}",
            rf"how many times (?:does|do|is|are) {_TERM} (?:appear|occur|show up|used|mentioned){_IN}",
            rf"how many {_TERM}(?: (?:are|is) there)?{_IN_LAZY}(?: (?:are|is) there)?",
        ),
        (
            (("find_files", "read_file"), "sum(read_file(f).count({word}) for f in find_files({glob}, kind='text'))"),
            (("grep",), f'sum(h["text"].count({{word}}) for h in grep({{regex}}, glob={{glob}}, max_hits={GREP_MAX_HITS}) if not h.get("truncated"))'),
        ),
        "count TODOs",
        defaults={"glob": "**/*"},
    ),
    Rule(
        "list-dir",
        (
            r"ls(?: (?P<dir>\S+))?",
            r"(?:list|show)(?: me)?(?: the)? (?:contents|entries) of(?: the)? (?P<dir>\S+?)(?: (?:directory|folder|dir))?",
            r"(?:list|show)(?: me)?(?: the)?(?: current| working)? (?:directory|folder|dir)",
            r"list(?: the)?(?: (?:directory|folder|dir))? (?P<dir>\S+?)(?: (?:directory|folder|dir))?",
            r"what(?:'s| is| are)(?: the (?:files|contents))? in(?: the)? (?P<dir>\S+?)(?: (?:directory|folder|dir))?",
        ),
        ((("list_dir",), '[e["name"] for e in list_dir({dir})]'),),
        "list src",
        defaults={"dir": "."},
    ),
)


def normalize(intent: str) -> str:
    """The intent as rules see it: trimmed, one space between words, plain apostrophes."""
    return " ".join(normalize_intent(intent.replace("\u2019", "'")).split())


def match(intent: str) -> tuple[Rule, dict[str, str]] | None:
    """The first rule that takes ``intent``, with its values; the kit is not considered."""
    text = normalize(intent)
    if len(text) > MAX_INTENT_CHARS:
        return None
    for rule in RULES:
        values = rule.values(text)
        if values is not None:
            return rule, values
    return None


def needs(intent: str) -> tuple[str, ...] | None:
    """The tools of the smallest program that answers ``intent`` (for choosing a kit), or None."""
    found = match(intent)
    if found is None:
        return None
    return min((tools for tools, _body in found[0].variants), key=len)


class RulesTier(Tier):
    """Serves the intents in ``RULES`` with the tools the kit has, under the kit's aliases."""

    name = "rules"
    model = False

    def propose(self, request: Request) -> Proposal | None:
        aliases: dict[str, list[str]] = {}  # tool name -> the names programs may call it by
        for alias, tool in request.kit.aliases().items():
            aliases.setdefault(tool, []).append(alias)
        text = normalize(request.intent)
        if len(text) > MAX_INTENT_CHARS:
            return None
        for rule in RULES:
            values = rule.values(text)
            if values is None:
                continue
            for tools, body in rule.variants:
                if all(tool in aliases for tool in tools) and not (_names(body) - set(tools)) & request.kit.names:
                    renames = tuple((tool, aliases[tool][0]) for tool in tools if tool not in aliases[tool])
                    program = render(_renamed(body, renames) if renames else body, values)
                    return Proposal(program=program, detail=f"rule {rule.name}", source=rule.name)
        return None

    def understands(self) -> list[str]:
        return [rule.example for rule in RULES]

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


__all__ = ["GROUPS", "KINDS", "RULES", "Rule", "RulesTier", "match", "needs", "normalize"]
