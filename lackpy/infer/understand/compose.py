"""From an understood intent to the programs that answer it, one per set of tools that can.

``build(intent)`` returns variants, preferred first: (tools, body, values).
The body is program text with ``{name}`` placeholders; ``values`` are what
the user's words became (a search word, a glob, a path, a number), and
``lackpy.infer.fill.render`` puts each in as one string or int literal. The
code itself comes only from the structure, so no intent can inject code.

The programs are what a person would write with the kit's tools:

- grep where a question is about matching lines or which files match
  (one call, the tool's own binary and size rules);
- find_files and read_file where the answer needs whole texts (counting
  occurrences, sizes, words, ranking), or the exact file list (filters that
  say "not");
- read_file alone for one file, so a missing file is an error, not a 0.

Results are plain data: a count is an int (one per file, with ``each``: a
dict), a list of files is sorted paths, matching lines are
``"path:line: text"``, a ranking is ``{"path", measure}`` rows (one row for a
singular question), a yes/no is a bool, definitions are names.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from textwrap import indent

from lackpy.infer.understand.common import commonest
from lackpy.infer.understand.intent import Compare, Filter, Intent
from lackpy.infer.understand.parts import DOCSTRING, STATEMENT, every_definition, has_docstring, imported, imports_name, opens_with_string

#: How many matching lines a grep that must see every hit asks for before the tool stops.
GREP_MAX_HITS = 100_000

#: How a definition line starts once stripped, and grep's regex for the same lines.
DEFINITION_STARTS = {"function": '("def ", "async def ")', "class": '"class "', "any": '("def ", "async def ", "class ")'}
DEFINITION_REGEX = {"function": r'r"^\s*(async )?def "', "class": r'r"^\s*class "', "any": r'r"^\s*(async def|def|class) "'}
#: A text's size in bytes, as the file holds it (UTF-8).
BYTES = 'len(TEXT.encode("utf-8"))'
#: The key a ranking row names its measure by.
MEASURE_KEYS = {"chars": "chars", "bytes": "bytes", "lines": "lines", "words": "words", "matches": "matches", "width": "longest line",
                "imports": "import statements"}
DEFINITION_KEYS = {"function": "functions", "class": "classes", "any": "definitions"}

Variant = tuple[tuple[str, ...], str, dict[str, str | int]]

FIND_READ = ("find_files", "read_file")
GREP = ("grep",)
READ = ("read_file",)


def escape(word: str) -> str:
    """``word`` as a regex that matches it literally (grep takes a regex; programs have no ``re``)."""
    return re.escape(word)


class _Program:
    """The parts every variant of one intent shares: which files, and the filters as conditions."""

    def __init__(self, intent: Intent) -> None:
        self.intent = intent
        self.values: dict[str, str | int] = {}
        globs = intent.files.globs()
        self.values["glob"] = globs[0]
        if len(globs) > 1:
            self.values["glob2"] = globs[1]
        if intent.files.path:
            self.values["file"] = intent.files.path
        if intent.word is not None:
            self.values["word"] = intent.word.lower() if intent.ignore_case else intent.word
            self.values["regex"] = escape(intent.word)
        if intent.n is not None:
            self.values["n"] = intent.n
        for index, f in enumerate(intent.filters):
            self.values[f"w{index}"] = f.word.lower() if intent.ignore_case else f.word
            self.values[f"r{index}"] = escape(f.word)
            for other, word in enumerate(f.alternatives, 1):
                self.values[f"w{index}x{other}"] = word.lower() if intent.ignore_case else word
        for index, c in enumerate(intent.where):
            self.values[f"c{index}"] = c.value
            if c.word is not None:
                self.values[f"cw{index}"] = c.word
        for index, d in enumerate(intent.outside):
            self.values[f"o{index}"] = d + "/" if "/" in d else "/" + d + "/"

    @property
    def restricted(self) -> bool:
        """Whether files or lines are kept by more than a glob and one word: then grep, which takes a glob and one pattern, cannot serve."""
        return bool(self.intent.where or self.intent.outside
                    or any(f.alternatives or f.blank or f.docstring or f.imports or f.start or f.place or f.suffix or f.every for f in self.intent.filters))

    def files(self, kind: str | None = "text") -> str:
        """The expression listing the files (``kind="text"``: the ones read_file can read), less those a condition leaves out."""
        if self.intent.where:
            kind = "text"
        arg = f", kind='{kind}'" if kind else ""
        if "glob2" in self.values:
            found = f"sorted(set(find_files({{glob}}{arg}) + find_files({{glob2}}{arg})))"
        else:
            found = f"find_files({{glob}}{arg})"
        keep = [self.left_out(index, d) for index, d in enumerate(self.intent.outside)]
        keep += [f"{measure_of(c, index, 'text')} {c.op} {{c{index}}}" for index, c in enumerate(self.intent.where)
                 if not c.lines and c.measure != "params"]
        return kept(found, keep)

    def left_out(self, index: int, directory: str) -> str:
        """The condition that keeps a file out of ``directory``: a path from the top, or a directory of that name anywhere."""
        if "/" in directory:
            return f"not f.startswith({{o{index}}})"
        return f'{{o{index}}} not in "/" + f'

    def lower(self, text: str) -> str:
        return text + ".lower()" if self.intent.ignore_case else text

    def condition(self, filters: list[tuple[int, Filter]], text: str) -> str:
        """``{w0} in text and {w1} not in text``: the filters on one text (a file's or a line's)."""
        subject = self.lower(text)
        path = "{file}" if self.intent.files.path else "f"  # the file the text is of
        return " and ".join(self.one_of(i, f, subject, path) for i, f in filters)

    @staticmethod
    def one_of(index: int, f: Filter, subject: str, path: str = "f") -> str:
        """Filter ``index`` on ``subject``: its word in it (or not), or any of its words (``TODO or FIXME``)."""
        if f.blank:
            return f"{subject}.strip() {'!=' if f.negated else '=='} \"\""
        if f.every:
            return every_definition(index, f.word, subject, f.negated)
        if f.suffix:
            return f"{'not ' if f.negated else ''}{path}.endswith({{w{index}}})"
        if f.start:
            return f"{'not ' if f.negated else ''}{subject}.lstrip().startswith({{w{index}}})"
        if f.place:  # the file the line is of is under the folder: a path from the top, or a folder of that name anywhere
            test = f"{path}.startswith({{w{index}}} + \"/\")" if "/" in f.word else f"(\"/\" + {path}).find(\"/\" + {{w{index}}} + \"/\") >= 0"
            return f"not {test}" if f.negated else test
        if f.docstring:
            return has_docstring(subject, f.negated)
        keys = [f"w{index}"] + [f"w{index}x{other}" for other in range(1, len(f.alternatives) + 1)]
        if f.imports:
            return imports_name(keys, subject, path, f.negated)
        if not f.alternatives:
            return f"{{w{index}}} {'not in' if f.negated else 'in'} {subject}"
        return "(" + " or ".join(f"{{{key}}} in {subject}" for key in keys) + ")"

    def grep(self, index: int | None = None, regex: str | None = None, max_hits: int | None = GREP_MAX_HITS) -> str:
        """A grep call for filter ``index`` (or the intent's word, or a fixed regex) over the files."""
        pattern = regex or ("{regex}" if index is None else f"{{r{index}}}")
        glob = "{file}" if self.intent.files.path else "{glob}"
        args = [pattern, f"glob={glob}"]
        if self.intent.ignore_case and regex is None:
            args.append("ignore_case=True")
        if max_hits is not None:
            args.append(f"max_hits={max_hits}")
        return f"grep({', '.join(args)})"

    def variant(self, tools: tuple[str, ...], body: str) -> Variant:
        used = set(re.findall(r"\{(\w+)\}", body))
        values = {k: v for k, v in self.values.items() if k in used}
        return (tools, *_without_dunder_literals(body, values))


#: The variable a value is given when it must be built (see ``_without_dunder_literals``).
VARIABLES = {"word": "word", "regex": "pattern", "glob": "glob", "glob2": "glob2", "file": "file", "dir": "directory"}


def _without_dunder_literals(body: str, values: dict[str, str | int]) -> tuple[str, dict[str, str | int]]:
    """Values containing ``__`` become variables built from pieces: ``word = "_" * 2 + 'init' + "_" * 2``.

    The language refuses a string literal containing ``__`` (it keeps
    programs away from internals), yet ``__init__`` is an everyday word to
    search for. As data built at run time it is only text: the guards still
    refuse any ``__`` attribute. Each piece is still a placeholder, filled by
    ``render`` as a literal.
    """
    prelude = []
    for key, value in list(values.items()):
        if not isinstance(value, str) or "__" not in value:
            continue
        name = VARIABLES.get(key) or {"w": "word", "r": "pattern"}.get(key[0], "value_" + key[0]) + key[1:]
        parts = []
        for index, piece in enumerate(value.split("__")):
            if index:
                parts.append('"_" * 2')
            if piece:
                values[f"{key}_{index}"] = piece
                parts.append(f"{{{key}_{index}}}")
        prelude.append(f"{name} = {' + '.join(parts)}")
        body = body.replace(f"{{{key}}}", name)
        del values[key]
    return "\n".join(prelude + [body]), values


def _compared(body: str, op: str) -> str:
    """``body`` with its last line (its value) compared with the ``{limit}`` placeholder by ``op``."""
    head, _, last = body.rpartition("\n")
    return (head + "\n" if head else "") + f"({last}) {op} {{limit}}"


def _loop(files: str) -> str:
    """The head of a statement loop over ``files``: the language loops over a call or a name, so a list is named first."""
    return f"files = {files}\nfor f in files:" if files.startswith("[") else f"for f in {files}:"


def kept(files: str, conditions: list[str]) -> str:
    """``files`` less those failing ``conditions``; conditions on ``text`` see each file's text, read once."""
    if not conditions:
        return files
    joined = " and ".join(conditions)
    reads = " for text in [read_file(f)]" if re.search(r"\btext\b", joined) else ""
    return f"[f for f in {files}{reads} if {joined}]"


def measure(what: str, text: str, kind: str | None = None, word: str = "{word}") -> str:
    """The expression measuring ``text``: its lines, words, chars, bytes, matches of ``word`` (a placeholder) or definitions of ``kind``."""
    if what == "matches":
        return f"{text}.count({word})"
    if what == "definitions":
        return f"len([code for code in {text}.splitlines() if code.strip().startswith({DEFINITION_STARTS[kind or 'function']})])"
    return {"lines": "len(TEXT.splitlines())", "words": "len(TEXT.split())", "chars": "len(TEXT)", "bytes": BYTES,
            "width": "max([len(line) for line in TEXT.splitlines()] + [0])",
            "imports": f"len([code for code in [line.strip() for line in TEXT.splitlines()] if {STATEMENT}])"}[what].replace("TEXT", text)


def measure_of(c: Compare, index: int, text: str) -> str:
    """The expression measuring ``text`` as condition ``index`` (``c``) counts it."""
    return measure(c.measure, text, c.kind, f"{{cw{index}}}")


def build(intent: Intent) -> list[Variant]:
    """Every program that answers ``intent``, preferred first; [] when none can."""
    p = _Program(intent)
    builder = {
        "read": _read, "ls": _ls, "versus": _versus,
    }.get(intent.ask) or {
        "files": _files, "lines": _lines, "matches": _matches, "words": _sizes, "chars": _sizes, "bytes": _sizes,
        "definitions": _definitions, "dirs": _dirs, "imports": _imports, "params": _definition_code, "bases": _definition_code,
    }[intent.of]
    if intent.ask == "top":
        builder = _top_line if intent.of == "lines" else _top
    if any(c.lines for c in intent.where):
        builder = _long_lines
    if intent.aggregate:
        builder = _average if intent.aggregate in ("average", "median") else _share
    if intent.name_length:
        builder = _name_lengths
    if intent.of == "definitions" and (any(f.defs for f in intent.filters) or any(c.measure == "params" for c in intent.where)
                                       or intent.kind in ("method", "toplevel") or intent.class_rank is not None
                                       or intent.ask == "top" or intent.base) or intent.of in ("params", "bases"):
        builder = _definition_code
    if intent.of == "lines" and intent.aggregate in ("fraction", "percentage"):
        builder = _line_share
    if intent.of in ("bytes", "chars") and intent.aggregate in ("fraction", "percentage"):
        builder = _byte_share
    if intent.group:
        builder = _grouped
    variants = []
    if intent.threshold is not None:  # a count compared with a number: the program's last line, compared
        op, value = intent.threshold
        p.values["limit"] = value
        counted = builder
        builder = lambda p: ((tools, _compared(body, op)) for tools, body in counted(p))  # noqa: E731
    for tools, body in builder(p):
        if p.restricted and "grep(" in body and not intent.marker:  # a marker's lines are kept by their path in the program
            continue  # grep takes a glob only; the conditions need the file list
        if p.intent.where and "read_file" not in tools:
            tools = (*tools, "read_file")  # the conditions read each file
        variants.append(p.variant(tools, body))
    return variants


# -- one builder per kind of question ----------------------------------------------------------


def _read(p: _Program):
    if p.intent.of == "docstring" and p.intent.def_names:  # a class's or a function's: the body under its signature
        p.values["d0"] = p.intent.def_names[0]
        scan = "defs = []\n" + f"{_loop(p.files())}\n    text = read_file(f)\n" + indent(BLOCKS.format(
            lines="text.splitlines()", starts=DEFINITION_STARTS["any"], name=f'({_NAME_OF["function"]} if not code.startswith("class ") else {_NAME_OF["class"]})'), "    ")
        body = ('found = [d for d in defs if d[0] == {d0}]\n'
                'lines = found[0][2][([k for k, line in enumerate(found[0][2]) if line.split("#")[0].rstrip().endswith(":")] + [0])[0] + 1:] if found else []\n')
        yield FIND_READ, scan + body + DOCSTRING.split("\n", 1)[1]
        return
    if p.intent.of == "docstring":
        yield READ, DOCSTRING
        return
    if p.intent.position is None:
        yield READ, "read_file({file})"
        return
    end, n = p.intent.position
    if n is None:
        yield READ, f"lines = read_file({{file}}).splitlines()\nlines[{0 if end == 'first' else -1}] if lines else None"
        return
    p.values["n"] = n
    yield READ, "read_file({file}).splitlines()" + ("[:{n}]" if end == "first" else "[-{n}:]")


def _versus(p: _Program):
    """Whether the first file's measure is more (or less) than the second's."""
    i = p.intent
    p.values["other"] = i.other
    yield READ, f"{measure(i.order, 'read_file({file})')} {'>' if i.largest else '<'} {measure(i.order, 'read_file({other})')}"


def _ls(p: _Program):
    p.values["dir"] = p.intent.files.dir or "."
    yield ("list_dir",), '[e["name"] for e in list_dir({dir})]'


def _files(p: _Program):
    i = p.intent
    filters = list(enumerate(i.filters))
    if i.ask == "all" and i.where and not i.files.path:  # "are all the modules under 500 lines": every file passes the comparison
        everything = _Program(replace(i, where=())).files()
        tests = [f"{measure_of(c, index, 'text')} {c.op} {{c{index}}}" for index, c in enumerate(i.where)]
        tests += [p.condition(filters, "text")] if filters else []
        yield FIND_READ, f"all({' and '.join(tests)} for f in {everything} for text in [read_file(f)])"
        return
    if not filters:
        found = p.files(kind=None)
        yield ("find_files",), {"count": f"len({found})", "list": found, "exists": f"len({found}) > 0"}[i.ask]
        return
    if i.files.path and i.ask in ("exists", "all") and i.where:  # "is routes.py longer than 250 lines"
        tests = [f"{measure_of(c, index, 'text')} {c.op} {{c{index}}}" for index, c in enumerate(i.where)]
        tests += [p.condition(filters, "text")] if filters else []
        yield READ, f"text = read_file({{file}})\n{' and '.join(tests)}"
        return
    if i.files.path and i.ask in ("exists", "all"):
        if len(filters) == 1:
            yield READ, p.condition(filters, "read_file({file})")
        else:
            yield READ, f"text = read_file({{file}})\n{p.condition(filters, 'text')}"
        return
    positive = len(filters) == 1 and not filters[0][1].negated and "glob2" not in p.values
    if positive and i.ask != "all":
        paths = f'{{hit["path"] for hit in {p.grep(0)} if not hit.get("truncated")}}'
        yield GREP, {
            "list": f"sorted({paths})",
            "count": f"len({paths})",
            "exists": f"len({p.grep(0, max_hits=1)}) > 0",
        }[i.ask]
    files = p.files()
    if len(filters) == 1 and not filters[0][1].alternatives:  # an "or" tests the text more than once: the loop below reads it once
        keep = p.condition(filters, "read_file(f)")
        yield FIND_READ, {
            "list": f"[f for f in {files} if {keep}]",
            "count": f"len([f for f in {files} if {keep}])",
            "exists": f"any({keep} for f in {files})",
            "all": f"all({keep} for f in {files})",
        }[i.ask]
        return
    keep = p.condition(filters, "text")
    loop = f"found = []\nfor f in files:\n    text = read_file(f)\n    if {keep}:\n        found.append(f)\n"
    result = {"list": "found", "count": "len(found)", "exists": "len(found) > 0", "all": "len(found) == len(files)"}[i.ask]
    yield FIND_READ, f"files = {files}\n" + loop + result


def _line_filters(p: _Program) -> tuple[list[tuple[int, Filter]], list[tuple[int, Filter]]]:
    """The intent's filters split into those on each line and those on each file."""
    on_lines = [(k, f) for k, f in enumerate(p.intent.filters) if f.lines]
    on_files = [(k, f) for k, f in enumerate(p.intent.filters) if not f.lines]
    return on_lines, on_files


def _lines(p: _Program):
    i = p.intent
    on_lines, on_files = _line_filters(p)
    files = p.files()
    if i.files.path and not on_files:
        lines = "read_file({file}).splitlines()"
        if not on_lines:
            yield READ, f"len({lines})"
            return
        keep = p.condition(on_lines, "line")
        if i.ask == "list":
            yield READ, f'path = {{file}}\n[f"{{path}}:{{number}}: {{line}}" for number, line in enumerate(read_file(path).splitlines(), 1) if {keep}]'
        elif i.ask == "count":
            yield READ, f"len([line for line in {lines} if {keep}])"
        else:
            yield READ, f"any({keep} for line in {lines})"
        if len(on_lines) == 1 and not on_lines[0][1].negated:
            yield from _grep_lines(p, on_lines[0][0])
        return
    if on_files:
        keep_file = p.condition(on_files, "text")
        if on_lines:
            measure = f"len([line for line in text.splitlines() if {p.condition(on_lines, 'line')}])"
        else:
            measure = "len(text.splitlines())"
        if i.ask != "count" or i.each:
            return
        yield FIND_READ, f"total = 0\n{_loop(files)}\n    text = read_file(f)\n    if {keep_file}:\n        total += {measure}\ntotal"
        return
    if not on_lines:
        if i.each:
            yield FIND_READ, f"{{f: len(read_file(f).splitlines()) for f in {files}}}"
        elif i.ask == "count":
            yield FIND_READ, f"sum(len(read_file(f).splitlines()) for f in {files})"
        return
    if i.each:
        return
    if len(on_lines) == 1 and not on_lines[0][1].negated and "glob2" not in p.values:
        yield from _grep_lines(p, on_lines[0][0])
    keep = p.condition(on_lines, "line")
    yield FIND_READ, {
        "count": f"len([line for f in {files} for line in read_file(f).splitlines() if {keep}])",
        "list": f'[f"{{f}}:{{number}}: {{line}}" for f in {files} for number, line in enumerate(read_file(f).splitlines(), 1) if {keep}]',
        "exists": f"any({keep} for f in {files} for line in read_file(f).splitlines())",
    }[i.ask]


def _grep_lines(p: _Program, index: int):
    ask = p.intent.ask
    if ask == "list":
        hits = p.grep(index, max_hits=None)
        yield GREP, f'[hit["text"] if hit.get("truncated") else f\'{{hit["path"]}}:{{hit["line"]}}: {{hit["text"]}}\' for hit in {hits}]'
    elif ask == "count":
        yield GREP, f'len([hit for hit in {p.grep(index)} if not hit.get("truncated")])'
    elif ask == "exists":
        yield GREP, f"len({p.grep(index, max_hits=1)}) > 0"


def _each_file(p: _Program, measure: str, body_of_total: str):
    """One measure per file, or the total; with file filters, a loop."""
    i = p.intent
    files = p.files()
    on_lines, on_files = _line_filters(p)
    if on_lines or i.ask != "count":
        return
    if i.files.path:
        if not on_files:
            yield READ, measure.replace("TEXT", "read_file({file})")
        return
    if on_files:
        if i.each:
            return
        keep = p.condition(on_files, "text")
        yield FIND_READ, f"total = 0\n{_loop(files)}\n    text = read_file(f)\n    if {keep}:\n        total += {measure.replace('TEXT', 'text')}\ntotal"
        return
    one = measure.replace("TEXT", "read_file(f)")
    if i.each:
        yield FIND_READ, f"{{f: {one} for f in {files}}}"
    else:
        yield FIND_READ, body_of_total.replace("ONE", one).replace("FILES", files)


def _matches(p: _Program):
    """Occurrences of a word: read_file and str.count (grep sees lines cut at 500 characters); a marker's, grep's lines."""
    if p.intent.marker:
        yield from _marked(p)
        return
    yield from _each_file(p, p.lower("TEXT") + ".count({word})", "sum(ONE for f in FILES)")


def _marked(p: _Program):
    """The lines marked with a word ("TODO"), found by grep as a whole word: in all, or per file (0 for a file with none)."""
    i = p.intent
    p.values["regex"] = rf"\b{escape(i.word)}\b"
    keep = ["not hit.get(\"truncated\")"] + [p.left_out(index, d) for index, d in enumerate(i.outside)]
    hits = f'[hit for hit in {p.grep()} for f in [hit["path"]] if {" and ".join(keep)}]'
    if not i.each:
        yield GREP, f"len({hits})"
    elif not i.files.path:
        yield ("find_files", "grep"), (f"hits = {hits}\ncounts = {{f: 0 for f in {p.files()}}}\nfor hit in hits:\n"
                                       '    counts[hit["path"]] = counts.get(hit["path"], 0) + 1\ncounts')


def _sizes(p: _Program):
    yield from _each_file(p, measure(p.intent.of, "TEXT"), "sum(ONE for f in FILES)")


def _definitions(p: _Program):
    i = p.intent
    kind = i.kind or "function"
    starts = DEFINITION_STARTS[kind]
    files = p.files()
    if i.filters:
        return
    lines = "read_file({file}).splitlines()" if i.files.path else "read_file(f).splitlines()"
    if i.def_names:
        if kind == "any":
            return
        for index, pattern in enumerate(i.def_names):
            p.values[f"d{index}"] = pattern.strip("*")
        keep = " and ".join(_name_test(index, pattern) for index, pattern in enumerate(i.def_names))
        listed = f"[name for name in names if {keep}]"
        if i.distinct:
            listed = f"sorted(set({listed}))"
        scan = _definition_names(p, kind, lines, files)
        yield (READ if i.files.path else FIND_READ), scan + {"list": listed, "exists": f"len({listed}) > 0"}.get(i.ask, f"len({listed})")
        return
    if i.common:  # the commonest name (or first word), by definitions or by files
        scan = _definition_names(p, kind, lines, files, where=True)
        yield (READ if i.files.path else FIND_READ), scan + commonest(i.first_word, i.common == "files")
        return
    if i.name_rank is not None and i.name_where:  # the longest name with the file it is in; every one that ties
        best = f"best = {'max' if i.name_rank else 'min'}((len(name) for f, name in found), default=None)\n"
        rows = 'rows = [{"name": name, "path": f} for f, name in found if len(name) == best]\n'
        yield (READ if i.files.path else FIND_READ), _definition_names(p, kind, lines, files, where=True) + best + rows + (
            "(rows[0] if len(rows) == 1 else rows) if rows else None")
        return
    if i.name_rank is not None:  # the longest (or shortest) name; every name of that length when several tie
        best = f"best = {'max' if i.name_rank else 'min'}((len(name) for name in names), default=None)\n"
        tied = "tied = sorted(set(name for name in names if len(name) == best))\n"
        answer = "best" if i.value == "chars" else "(tied[0] if len(tied) == 1 else tied) if names else None"  # its length, or the name(s)
        yield (READ if i.files.path else FIND_READ), _definition_names(p, kind, lines, files) + best + tied + answer
        return
    if i.def_end:  # the first, last or nth definition of one file, by its name
        at = {"first": "0", "last": "-1"}.get(i.def_end) or str(int(i.def_end) - 1)
        enough = "names" if at in ("0", "-1") else f"len(names) > {at}"
        yield READ, _definition_names(p, kind, lines, files) + f"names[{at}] if {enough} else None"
        return
    if i.distinct:  # each name once
        yield (READ if i.files.path else FIND_READ), _definition_names(p, kind, lines, files) + (
            "sorted(set(names))" if i.ask == "list" else "len(set(names))")
        return
    if i.ask == "list":
        yield (READ if i.files.path else FIND_READ), _definition_names(p, kind, lines, files) + "names"
        return
    keep = f"line.strip().startswith({starts})"
    if i.files.path:
        if i.ask == "count":
            yield READ, f"len([line for line in {lines} if {keep}])"
        elif i.ask == "exists":
            yield READ, f"any({keep} for line in {lines})"
        return
    if i.each:
        yield FIND_READ, f"{{f: len([line for line in read_file(f).splitlines() if {keep}]) for f in {files}}}"
        return
    regex = DEFINITION_REGEX[kind]
    if i.ask == "count":
        yield FIND_READ, f"len([line for f in {files} for line in read_file(f).splitlines() if {keep}])"
        if "glob2" not in p.values:
            yield GREP, f'len([hit for hit in {p.grep(regex=regex)} if not hit.get("truncated")])'
    elif i.ask == "exists":
        if "glob2" not in p.values:
            yield GREP, f"len({p.grep(regex=regex, max_hits=1)}) > 0"
        yield FIND_READ, f"any({keep} for f in {files} for line in read_file(f).splitlines())"


def _definition_code(p: _Program):
    """Definitions kept by what their code holds ("functions containing TODO"): counted, listed by name, looked for, or their share.

    A definition's code is its line and the block beneath it, as Python
    reads a block: every line down to the next one that is not blank, not a
    comment and not indented deeper than the definition. A comment between
    two definitions is the first one's ("a TODO above the next function"
    belongs to the function it follows), and a nested definition is in its
    parent's code and has its own. Filters on the files ("in files
    containing X") keep the files first.
    """
    i = p.intent
    tools = READ if i.files.path else FIND_READ
    scan = "defs = []\n" + _definition_scan(p)
    if i.class_rank is not None:  # the class (by file and name) with the most methods; every one that ties
        yield tools, scan + CLASS_RANK.format(best="max" if i.class_rank else "min")
        return
    if i.per_class:  # "on average, how many methods does a class have": the methods of each class, averaged
        yield tools, scan + CLASS_COUNTS + "values = list(counts.values())\n" + _aggregated(i.aggregate, "values")
        return
    if i.kind == "method":
        if i.owner:
            p.values["owner"] = i.owner
        scan += f"defs = [d[:3] for d in defs if d[4] is not None and not d[3]{' and d[4] == {owner}' if i.owner else ''}]\n"
    elif i.kind == "toplevel":
        scan += "defs = [d[:3] for d in defs if d[1] == 0 and not d[3]]\n"
    if i.ask == "top":  # definitions ranked by their lines (trailing blank and comment lines aside), or by their parameters
        yield tools, scan + (ARGUMENTS if i.order == "params" else "") + _longest(i)
    elif i.of == "bases":  # the bases a class line names: "class Missing(errors.ApiError, Mixin):" -> ["errors.ApiError", "Mixin"]
        p.values["d0"] = i.def_names[0]
        found = ('found = [[b.strip() for b in d[2][0].split("(", 1)[1].split(")")[0].split(",") if b.strip() and "=" not in b] '
                 'if "(" in d[2][0].split(":")[0] else [] for d in defs if d[3] and d[0] == {d0}]\n')
        yield tools, scan + found + "(found[0] if len(found) == 1 else found) if found else None"
    elif i.of == "params":
        yield tools, scan + _parameters(p)
    else:
        last = _kept(p)
        if last is not None:
            yield tools, scan + (ARGUMENTS if any(c.measure == "params" for c in i.where) else "") + last


def _definition_scan(p: _Program) -> str:
    """The loop that leaves the definitions of the files in ``defs`` (see ``BLOCKS``), with what the question needs of each."""
    i = p.intent
    kind = i.kind or "function"
    any_name = f'({_NAME_OF["function"]} if not code.startswith("class ") else {_NAME_OF["class"]})'
    on_files = [(k, f) for k, f in enumerate(i.filters) if not f.defs]
    decorated = [(k, f) for k, f in enumerate(i.filters) if f.decorator]
    lines = "read_file({file}).splitlines()" if i.files.path else "text.splitlines()"
    every = kind in ("method", "toplevel") or i.class_rank is not None or i.per_class or i.of == "params" and i.owner is not None
    every = every or i.of == "bases"  # every definition is scanned, and then the ones asked kept
    name = any_name if kind == "any" or every else _NAME_OF[kind]
    scan = BLOCKS.format(lines=lines, starts=DEFINITION_STARTS["any" if every else kind], name=name)
    if decorated:  # each definition keeps the names of the decorators just above it, last in its tuple
        scan = _with_decorators(scan)
    if every:  # each definition knows whether it is a class, and the class holding it
        scan = scan.replace(", depth, [])", ', depth, [], code.startswith("class "), inside[-1][0] if len(inside) > 0 and inside[-1][3] else None)')
    if not i.files.path:
        keep = f"    if not ({p.condition(on_files, 'text')}):\n        continue\n" if on_files else ""
        scan = f"{_loop(p.files())}\n    text = read_file(f)\n{keep}" + indent(scan, "    ")
    for k, f in decorated:  # the decorators' names, the last part of a dotted one ("app.route" for route) or whole
        test = f"any(name == {{w{k}}} or name.endswith(\".\" + {{w{k}}}) for name in d[-1])"
        scan += f"defs = [d for d in defs if {'not ' if f.negated else ''}{test}]\n"
    return scan


def _parameters(p: _Program) -> str:
    """The lines after the scan that answer with a function's parameters (``Cart.add``: a method of that class), or their average."""
    i = p.intent
    scan = ""
    if i.owner:
        p.values["owner"] = i.owner
        scan += "defs = [d[:3] for d in defs if d[4] == {owner} and not d[3]]\n"
    scan += ARGUMENTS
    if not i.def_names:
        return scan + "values = [d[3] for d in defs]\n" + _aggregated(i.aggregate, "values")
    p.values["d0"] = i.def_names[0]
    last = ("(found[0] if len(found) == 1 else found) if found else None" if i.ask == "list" else
            "(len(found[0]) if len(found) == 1 else [len(names) for names in found]) if found else None")
    return scan + "found = [d[4] for d in defs if d[0] == {d0}]\n" + last


def _kept(p: _Program) -> str | None:
    """The last line over ``defs``: the definitions the conditions keep, counted, listed, looked for, placed or as a share."""
    i = p.intent
    on_code = [(k, f) for k, f in enumerate(i.filters) if f.defs and not f.docstring and not f.decorator]
    tests = [p.condition(on_code, CODE)] if on_code else []
    tests += [("not " if f.negated else "") + DEF_DOCSTRING for f in i.filters if f.defs and f.docstring]
    for index, pattern in enumerate(i.def_names):
        p.values[f"d{index}"] = pattern.strip("*")
        tests.append(_name_test(index, pattern, "d[0]"))
    tests += [f"d[3] {c.op} {{c{index}}}" for index, c in enumerate(i.where) if c.measure == "params"]
    if i.base:  # a class naming the base among its own: "class Missing(ApiError):", "class X(errors.ApiError, Mixin):"
        p.values["base"] = i.base
        tests.append('{base} in [b.strip().split(".")[-1] for b in (d[2][0].split("(", 1)[1].split(")")[0].split(",") '
                     'if "(" in d[2][0].split(":")[0] else [])]')
    kept = f"[d[0] for d in defs if {' and '.join(tests)}]" if tests else "[d[0] for d in defs]"
    if i.distinct:  # each name once
        kept = f"sorted(set({kept}))"
    if i.def_end:  # "the last method of the Order class": that place, in the order they are written
        at = {"first": "0", "last": "-1"}.get(i.def_end) or str(int(i.def_end) - 1)
        kept = f"([name for name in {kept}] or [None])[{at}]" if at in ("0", "-1") else f"([name for name in {kept}] + [None] * {at})[{at}]"
    if i.aggregate == "percentage":
        return f"round(100 * len({kept}) / len(defs), 2) if defs else None"
    if i.aggregate == "fraction":
        return f"round(len({kept}) / len(defs), 4) if defs else None"
    return {"count": f"len({kept})", "list": kept, "exists": f"len({kept}) > 0"}.get(i.ask)


#: A program's loop over ``lines`` that leaves in ``defs`` a (name, indentation, lines) for each definition, its block's lines included.
#: A line inside open brackets (a signature or a call over several lines) continues the one before, whatever its indentation.
BLOCKS = """\
inside = []
open_brackets = 0
for line in {lines}:
    code = line.strip()
    depth = len(line) - len(line.lstrip())
    if code and not code.startswith("#") and open_brackets <= 0:
        inside = [d for d in inside if d[1] < depth]
    if code.startswith({starts}) and open_brackets <= 0:
        d = ({name}, depth, [])
        inside.append(d)
        defs.append(d)
    for d in inside:
        d[2].append(line)
    said = code.split("#")[0]
    open_brackets += said.count("(") + said.count("[") + said.count("{{") - said.count(")") - said.count("]") - said.count("}}")
"""
#: A program's loop that gives each definition of ``BLOCKS`` its number of arguments as ``d[3]`` and their names as ``d[4]``: the names between the
#: parentheses of its signature at depth 0 (outside brackets and strings), without ``*`` and ``/`` markers and without a
#: first ``self`` or ``cls``; ``*args`` and ``**kwargs`` are arguments. A class's bases are not arguments.
ARGUMENTS = """\
counted = []
for d in defs:
    signature = "\\n".join(d[2]).split("(", 1)[1] if "(" in d[2][0] and not d[2][0].strip().startswith("class ") else ")"
    depth = 0
    quote = None
    names = []
    current = ""
    for ch in signature:
        if quote is not None:
            quote = None if ch == quote else quote
        elif ch in "\\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0 and quote is None:
            names.append(current.strip())
            current = ""
        else:
            current += ch
    names = [n.split(":")[0].split("=")[0].strip().lstrip("*") for n in names + [current.strip()] if n.strip() and n.strip() not in ("*", "/")]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    counted.append((d[0], d[1], d[2], len(names), names))
defs = counted
"""
def _with_decorators(scan: str) -> str:
    """``BLOCKS`` (as ``scan``) with each definition's decorators, the ``@`` lines right above it, added last to its tuple."""
    scan = scan.replace("inside = []\n", "inside = []\npending = []\n", 1)
    at = re.search(r"^    if code\.startswith\(", scan, re.M).start()  # the branch that finds a definition
    head, rest = scan[:at], scan[at:]
    body, _, tail = rest.partition("    for d in inside:\n")
    body = body.replace("        inside.append(d)\n", "        d = d + (pending,)\n        pending = []\n        inside.append(d)\n", 1)
    collect = ('    if code.startswith("@") and open_brackets <= 0:\n        pending.append(code[1:].split("(")[0].strip())\n'
               '    elif code and not code.startswith("#") and not code.startswith(("def ", "async def ", "class ")) and open_brackets <= 0:\n'
               '        pending = []\n')
    return head + collect + body + "    for d in inside:\n" + tail


def _longest(i: Intent) -> str:
    """The program's last lines: the definition at the place asked of a ranking by lines (its name), or the top ``n`` names."""
    sizes = ("sizes = []\nfor d in defs:\n    kept = [line for line in d[2]]\n"
             "    for line in reversed(d[2]):\n        if line.strip() and not line.strip().startswith(\"#\"):\n            break\n"
             "        kept = kept[:-1]\n    sizes.append((d[0], len(kept)))\n")
    if i.order == "params":
        sizes = "sizes = [(d[0], d[3]) for d in defs]\n"
    ranked = f"ranked = sorted(sizes, key=lambda s: s[1]{', reverse=True' if i.largest else ''})\n"
    if i.single:
        place = (i.nth or 1) - 1
        return sizes + ranked + f"ranked[{place}][0] if len(ranked) > {place} else None"
    return sizes + ranked + f"[s[0] for s in ranked[:{i.n or 10}]]"


#: The program's last lines: the class with the most (``max``) or fewest (``min``) methods; every one that ties, sorted.
CLASS_COUNTS = """\
counts = {}
for d in defs:
    if d[3]:
        counts[d[0]] = counts.get(d[0], 0)
    elif d[4] is not None:
        counts[d[4]] = counts.get(d[4], 0) + 1
"""
CLASS_RANK = CLASS_COUNTS.replace("{", "{{").replace("}", "}}") + """\
best = {best}(counts.values(), default=0)
tied = sorted(name for name in counts if counts[name] == best)
(tied[0] if len(tied) == 1 else tied) if counts else None"""
#: Whether definition ``d`` of ``BLOCKS`` has a docstring: the first line of its body (after the line that ends its
#: signature with ":"; blank and comment lines aside) opens a string.
DEF_DOCSTRING = opens_with_string('d[2][([k for k, line in enumerate(d[2]) if line.split("#")[0].rstrip().endswith(":")] + [len(d[2])])[0] + 1:]')
#: The code of definition ``d`` of ``BLOCKS``, one text.
CODE = '"\\n".join(d[2])'


def _imports(p: _Program):
    """The modules the files import, each once (sorted), how many, or whether there are any."""
    i = p.intent
    _on_lines, on_files = _line_filters(p)
    keep = f" if {p.condition(on_files, 'text')}" if on_files else ""
    source = "for f in [{file}] for text in [read_file(f)]" if i.files.path else f"for f in {p.files()} for text in [read_file(f)]"
    if not i.distinct:  # the import statements: the lines that begin one
        lines = f"[code {source}{keep} for code in [line.strip() for line in text.splitlines()] if {STATEMENT}]"
        yield (READ if i.files.path else FIND_READ), {"count": f"len({lines})", "exists": f"len({lines}) > 0"}[i.ask]
        return
    found = f"names = sorted(set(name {source}{keep} for name in {imported('text', 'f')}))\n"
    if i.origin:  # the standard library's modules are Python's own list; the project's own are its top folders and modules
        p.values["stdlib"] = " " + " ".join(sorted(n for n in sys.stdlib_module_names if not n.startswith("_") or n == "__future__")) + " "
        stdlib = '(" " + name.split(".")[0] + " ") in {stdlib}'
        if i.origin == "stdlib":
            found += f"names = [name for name in names if {stdlib}]\n"
        else:
            p.values["pyglob"] = "**/*.py"
            found += ('own = set(path.split("/")[0].split(".")[0] for path in find_files({pyglob}))\n'
                      f'names = [name for name in names if not name.startswith(".") and not {stdlib} and name.split(".")[0] not in own]\n')
    yield (READ if i.files.path else FIND_READ), found + {"list": "names", "count": "len(names)", "exists": "len(names) > 0"}[i.ask]


def _dirs(p: _Program):
    found = p.files(kind="dir")
    yield ("find_files",), {"count": f"len({found})", "list": found, "exists": f"len({found}) > 0"}[p.intent.ask]


def _average(p: _Program):
    """A measure per file, averaged (or its median taken) over the files (None when there are none)."""
    i = p.intent
    _on_lines, on_files = _line_filters(p)
    each = measure(i.of, p.lower("text") if i.of == "matches" else "text", i.kind)
    keep = f" if {p.condition(on_files, 'text')}" if on_files else ""
    values = f"values = [{each} for f in {p.files()} for text in [read_file(f)]{keep}]\n"
    yield FIND_READ, values + _aggregated(i.aggregate, "values")


def _aggregated(aggregate: str, values: str) -> str:
    """The program's last lines: the average (to 2 places) or the median of the list ``values`` names; None when it is empty."""
    if aggregate == "median":
        middle = f"{values}[n // 2] if n % 2 else ({values}[n // 2 - 1] + {values}[n // 2]) / 2"
        return f"{values} = sorted({values})\nn = len({values})\n({middle}) if {values} else None"
    return f"round(sum({values}) / len({values}), 2) if {values} else None"


def _share(p: _Program):
    """The fraction (or percentage) of the files that pass the conditions, of the files asked about (None when there are none).

    The files asked about are those of the glob and scope, kept further by
    the conditions in ``among`` ("python files with more than 10
    functions"); the others say which of them are counted ("mention TODO").
    """
    i = p.intent
    everything = _Program(replace(i, where=())).files()
    base = [_share_condition(p, role, k) for role, k in i.among]
    counted = [_share_condition(p, "filter", k) for k in range(len(i.filters)) if ("filter", k) not in i.among]
    counted += [_share_condition(p, "where", k) for k in range(len(i.where)) if ("where", k) not in i.among]
    among = f" if {' and '.join(base)}" if base else ""
    ratio = "100 * sum(counted) / len(counted), 2" if i.aggregate == "percentage" else "sum(counted) / len(counted), 4"
    yield FIND_READ, (f"counted = [{' and '.join(counted)} for f in {everything} for text in [read_file(f)]{among}]\n"
                      f"round({ratio}) if counted else None")


def _byte_share(p: _Program):
    """The fraction (or percentage) of the bytes of the files that are in the files of a type (None when there are none)."""
    i = p.intent
    ratio = "100 * part / whole, 2" if i.aggregate == "percentage" else "part / whole, 4"
    size = measure(i.of, "read_file(f)")
    yield FIND_READ, (f"sizes = [({size}, {p.condition(list(enumerate(i.filters)), 'f')}) for f in {p.files()}]\n"
                      "whole = sum(size for size, counted in sizes)\npart = sum(size for size, counted in sizes if counted)\n"
                      f"round({ratio}) if whole else None")


def _line_share(p: _Program):
    """The fraction (or percentage) of the lines that pass the line filters, of every line of the files (None when there are none)."""
    i = p.intent
    on_lines, on_files = _line_filters(p)
    keep = f" if {p.condition(on_files, 'text')}" if on_files else ""
    ratio = "100 * sum(counted) / len(counted), 2" if i.aggregate == "percentage" else "sum(counted) / len(counted), 4"
    yield FIND_READ, (f"counted = [{p.condition(on_lines, 'line')} for f in {p.files()} for text in [read_file(f)]{keep} for line in text.splitlines()]\n"
                      f"round({ratio}) if counted else None")


def _share_condition(p: _Program, role: str, index: int) -> str:
    """Condition ``index`` of the intent's filters (``role`` "filter") or its comparisons ("where") on a file's ``text``."""
    if role == "filter":
        return p.condition([(index, p.intent.filters[index])], "text")
    c = p.intent.where[index]
    return f"{measure_of(c, index, 'text')} {c.op} {{c{index}}}"


def _name_test(index: int, pattern: str, name: str = "name") -> str:
    """``name`` against pattern ``index``: X, X* (starts), *X (ends) or *X* (contains)."""
    if pattern.startswith("*") and pattern.endswith("*"):
        return f"{{d{index}}} in {name}"
    if pattern.endswith("*"):
        return f"{name}.startswith({{d{index}}})"
    if pattern.startswith("*"):
        return f"{name}.endswith({{d{index}}})"
    return f"{name} == {{d{index}}}"


#: The name of a definition of a kind, from its stripped line ``code``.
_NAME_OF = {"function": 'code.split("def ", 1)[1].split("(")[0].strip()', "class": 'code[6:].split("(")[0].split(":")[0].strip()'}


def _definition_names(p: _Program, kind: str, lines: str, files: str, where: bool = False) -> str:
    """A program prefix that leaves the names of the ``kind`` definitions (function, class or any) in ``names``.

    With ``where``, it leaves (file, name) pairs in ``found`` instead.
    """
    collect = ("found", "({file}, {name})" if p.intent.files.path else "(f, {name})") if where else ("names", "{name}")
    found = {kind: f"{collect[0]}.append({collect[1].replace('{name}', name)})" for kind, name in _NAME_OF.items()}
    if kind == "any":
        test = (f'if code.startswith({DEFINITION_STARTS["function"]}):\n    {found["function"]}\n'
                f'elif code.startswith("class "):\n    {found["class"]}\n')
    else:
        test = f"if code.startswith({DEFINITION_STARTS[kind]}):\n    {found[kind]}\n"
    scan = f"for line in {lines}:\n    code = line.strip()\n" + indent(test, "    ")
    if not p.intent.files.path:
        scan = f"{_loop(files)}\n" + indent(scan, "    ")
    return f"{collect[0]} = []\n" + scan


def _grouped(p: _Program):
    """One figure per directory (the parent of each file): every count, or the directories ranked by it.

    Every directory of the files asked about is counted, with 0 where none
    of its files passes the conditions, so "the fewest" sees them too.
    """
    i = p.intent
    what = i.order if i.ask == "top" else i.of
    everything = _Program(replace(i, where=())).files()
    keep = [p.condition(list(enumerate(i.filters)), "text")] if i.filters else []
    keep += [f"{measure_of(c, index, 'text')} {c.op} {{c{index}}}" for index, c in enumerate(i.where)]
    each = "1" if what == "files" else measure(what, p.lower("text") if what == "matches" else "text", i.kind)
    add = f"({each} if {' and '.join(keep)} else 0)" if keep else each
    reads = "    text = read_file(f)\n" if "text" in add else ""
    body = (f"totals = {{}}\n{_loop(everything)}\n{reads}"
            f'    folder = f.rsplit("/", 1)[0] if "/" in f else "."\n'
            f"    totals[folder] = totals.get(folder, 0) + {add}\n")
    scope = (i.files.dir or "").removeprefix("./").strip("/")
    if i.ask == "top" and scope and scope != ".":  # "which package inside shop": the folders in it, not shop itself
        p.values["scope"] = scope
        body += ("inner = {d: totals[d] for d in totals if d != {scope} and not d.endswith(\"/\" + {scope})}\n"
                 "totals = inner if inner else totals\n")
    if i.ask == "count":
        yield FIND_READ, body + "totals"
        return
    key = {"files": "files", "definitions": DEFINITION_KEYS[i.kind or "function"]}.get(what) or MEASURE_KEYS[what]
    order = f"sorted(totals, key=lambda d: ({'-' if i.largest else ''}totals[d], d))"
    if i.single:
        yield FIND_READ, body + f'best = {order}[0] if totals else None\n{{"folder": best, "{key}": totals[best]}} if best is not None else None'
    else:
        limit = "[:{n}]" if i.n is not None else ""
        yield FIND_READ, body + f'[{{"folder": d, "{key}": totals[d]}} for d in {order}{limit}]'


def _name_lengths(p: _Program):
    """The average (or median) length of the names of definitions (None when there are none)."""
    i = p.intent
    if i.filters or i.def_names or i.where or i.each or i.group:
        return
    kind = i.kind or "function"
    lines = "read_file({file}).splitlines()" if i.files.path else "read_file(f).splitlines()"
    sizes = "sizes = [len(name) for name in names]\n"
    yield (READ if i.files.path else FIND_READ), _definition_names(p, kind, lines, p.files()) + sizes + _aggregated(i.aggregate, "sizes")


def _long_lines(p: _Program):
    """Lines kept by their length ("is any line longer than 80 characters"), or the files with such a line."""
    i = p.intent
    if i.filters or i.aggregate or i.each or i.of not in ("lines", "files") or i.files.path and i.of == "files":
        return
    test = " and ".join(f"len(line) {c.op} {{c{index}}}" for index, c in enumerate(i.where) if c.lines)
    if i.files.path:
        lines = f"[line for line in read_file({{file}}).splitlines() if {test}]"
    elif i.of == "lines":
        lines = f"[line for f in {p.files()} for line in read_file(f).splitlines() if {test}]"
    else:
        kept = f"[f for f in {p.files()} if any({test} for line in read_file(f).splitlines())]"
        yield FIND_READ, {"list": kept, "count": f"len({kept})", "exists": f"len({kept}) > 0"}.get(i.ask, kept)
        return
    if i.ask not in ("exists", "count"):
        return  # which lines: a listing of lines by length is not offered
    yield (READ if i.files.path else FIND_READ), f"len({lines})" + (" > 0" if i.ask == "exists" else "")


def _top_line(p: _Program):
    """The longest (or shortest) line of one file or of the files, or its length (None when there is no line)."""
    i = p.intent
    lines = "read_file({file}).splitlines()" if i.files.path else f"[line for f in {p.files()} for line in read_file(f).splitlines()]"
    ranked = f"sorted(lines, key=len{', reverse=True' if i.largest else ''})"
    place = (i.nth or 1) - 1
    top = f"top = {ranked}[{place}] if len(lines) > {place} else None\n"
    yield FIND_READ, f"lines = {lines}\n" + top + ("len(top) if top is not None else None" if i.value else "top")


def _top(p: _Program):
    """Files ranked by a measure: the top n rows, or the single first for a singular question."""
    i = p.intent
    order = i.order or "chars"
    key = DEFINITION_KEYS[i.kind or "function"] if order == "definitions" else MEASURE_KEYS[order]
    size = measure(order, p.lower("TEXT") if order == "matches" else "TEXT", i.kind)
    files = p.files()
    _on_lines, on_files = _line_filters(p)
    if on_files:
        keep = p.condition(on_files, "text")
        rows = (f"sizes = []\n{_loop(files)}\n    text = read_file(f)\n    if {keep}:\n"
                f'        sizes.append({{"path": f, "{key}": {size.replace("TEXT", "text")}}})\n')
    else:
        rows = f'sizes = [{{"path": f, "{key}": {size.replace("TEXT", "read_file(f)")}}} for f in {files}]\n'
    if i.single and i.nth:  # "the second largest": that place of the ranking (None when there are fewer files)
        reverse = ", reverse=True" if i.largest else ""
        pick = f'ranked = sorted(sizes, key=lambda s: s["{key}"]{reverse})\nplace = ranked[{i.nth - 1}] if len(ranked) >= {i.nth} else None\nplace'
    elif i.single:
        pick = f'{"max" if i.largest else "min"}(sizes, key=lambda s: s["{key}"], default=None)'
    else:
        reverse = ", reverse=True" if i.largest else ""
        pick = f'sorted(sizes, key=lambda s: s["{key}"]{reverse})' + ("[:{n}]" if i.n is not None else "")
    if i.value:  # a measure of the file ranked there, not the file: "how many lines does the shortest file have"
        figure = measure(i.value, 'read_file(top["path"])', None)
        head, _, last = pick.rpartition("\n")  # the ranking's lines, then the expression of the file ranked there
        pick = f"{head}\ntop = {last}\n{figure} if top else None".lstrip("\n")
    yield FIND_READ, rows + pick


__all__ = ["GREP_MAX_HITS", "Variant", "build", "escape"]
