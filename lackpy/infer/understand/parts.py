"""The parts of Python code a question names besides definitions: a module's docstring and what it imports.

"What's the docstring of src/app.py", "modules without a docstring",
"which modules import os", "how many distinct modules are imported": each is
read here, in a pass that runs before the filters so that "docstring" and
"import" are understood as parts of code and never searched for as words
(quoted, they still are: ``files containing "docstring"``).

The programs read these parts from the text as Python lays it out, with the
tools of the kit and no parser: a module's docstring is the string that
opens it (after blank and comment lines), and a module imports the names on
its ``import`` and ``from ... import`` lines. A docstring is cleaned as
``inspect.cleandoc`` cleans one; escapes in it are shown as written.
"""

from __future__ import annotations

import re

from lackpy.infer.understand.phrases import LEXICON, STRUCTURE, TYPE, W, Hit, Sentence, State, rx
from lackpy.infer.understand.words import is_file, type_of

_STARTS = rx(r"(?<=lines )(?:(?:in|of|from|under) (?:the )?" + W + r" )*(?P<cue>(?:that |which )?(?:start|starts|starting|begin|begins|beginning) with) "
             r"(?P<t>" + W + ")")
_PLACED = rx(r"(?<=lines )(?P<cue>(?:that |which )?(?:are|live|sit|lie) (?:in|under|inside|within)) (?:the )?(?P<d>" + W + r")(?: (?:folder|directory|dir))?")
_THRESHOLD = rx(r"(?:(?<=are there )|(?<=is there ))(?P<op>more than|fewer than|less than|at least|at most|over|under) (?P<n>\d+)(?= [a-z])")
_OPS = {"more than": ">", "over": ">", "fewer than": "<", "less than": "<", "under": "<", "at least": ">=", "at most": "<="}
_OF_TYPE = rx(r"(?:(?<=files )|(?<=bytes ))(?P<cue>(?:that |which )?(?:are|is)) (?P<t>" + TYPE + r")(?: files?)?")  # "what share of the files are .py files"
_ORIGIN = rx(r"(?P<o>standard library|standard-library|stdlib|std-lib|built-in|builtin|third-party|third party|external|non-stdlib|non-standard)"
             r"(?= (?:imported |python )?(?:modules|packages|imports|libraries|dependencies|deps))")
_DECORATED = rx(r"(?P<cue>(?:that are |which are |are |get |is |that get )?(?:decorated|registered|wrapped|marked|locked down|protected)) (?:with|by) "
                r"(?:the )?(?P<d>" + W + r")(?: decorator)?")
_EVERY_DEF = rx(r"(?P<cue>(?:where|in which|whose|with|that have|which have) (?:every|each|all(?: of)?(?: the| its| their)?)) "
                r"(?P<k>functions?|methods?|defs?|definitions?)(?: in (?:it|them))? (?:has|have|contain|contains|mention|mentions|with) "
                r"(?:an? )?(?P<w>" + W + ")")
_DOC = r"(?:module |file )?doc-?strings?"
_DOC_FILTER = rx(
    r"(?:(?:that|which) )?(?:(?P<neg>without|with no|lacking|lacks?|missing|(?:do|does) not have|(?:have|has|having) no|not having)"
    r"|with|having|have|has) (?:an? |any |the )?" + _DOC
)
_DOC_READ = rx(r"(?:the )?" + _DOC + r"(?: (?:of|for|on) (?:the )?(?:class |function |method )?(?P<n>" + W + r")(?: class| function| method)?)?")
_IMPORTS_FILTER = rx(r"(?:(?:that|which) )?(?P<neg>(?:do|does) not |never )?(?:import|imports|importing) (?P<m>" + W + ")"
                     r"(?: (?P<conj>and|or|nor) (?P<m2>" + W + "))?")
_IMPORTS_NOUN = rx(r"(?<!most )(?<!fewest )(?:the )?(?:(?P<modules>imported (?:modules|packages|libraries)|dependencies)|(?P<statements>import (?:statements|lines))|imports)")
#: Words after "import" that are the sentence's, never a module's name ("import each other", "import the most").
NOT_MODULES = STRUCTURE | {"each", "other", "most", "fewest", "anything", "something", "nothing", "everything", "more", "less"}
#: A module's name as an import line gives it: dotted identifiers.
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def parse_conditions(s: Sentence, st: State) -> None:
    """Conditions said in words the other passes would misread: decorators, a count against a number, lines starting with a
    word, and what a share of lines or files is of (a folder, a type)."""

    def decorated(hit: Hit) -> bool:
        """"functions decorated with @route": definitions whose decorators name it."""
        name = hit.token("d").raw.lstrip("@")
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            return False
        st.decorators.add(len(st.filters))
        st.filters.append((name, False, hit.index("cue")))
        st.note(f"decorated with @{name}")
        return hit.claim("filter")

    def threshold(hit: Hit) -> bool:
        """"are there more than 50 files": the count of what follows, compared with the number."""
        st.threshold = (_OPS[hit.form("op")], int(hit.form("n")))
        st.asks.add("count")
        st.note(f"{hit.form('op')} {hit.form('n')}")
        return hit.claim("compare")

    def starts(hit: Hit) -> bool:
        """"lines starting with #": lines whose text, indentation aside, begins with the word."""
        token = hit.token("t")
        st.starts.add(len(st.filters))
        st.filters.append((token.raw, False, hit.index("cue")))
        st.note(f"lines starting with {token.raw!r}")
        return hit.claim("filter", *hit.span("cue"), *hit.span("t"))

    def placed(hit: Hit) -> bool:
        """"what percentage of the lines are in tests": the lines of the files under a folder, counted among all."""
        token = hit.token("d")
        if token.quoted or not re.fullmatch(r"[\w.-]+(?:/[\w.-]+)*/?", token.raw) or not st.aggregate_share \
                or type_of(token.form) or token.form in LEXICON and token.form not in ("tests", "test"):
            return False  # "live in Python files": a kind of file, not a folder named Python
        st.places.add(len(st.filters))
        st.filters.append((token.raw.rstrip("/"), False, hit.index("cue")))
        st.note(f"lines in {token.raw}")
        return hit.claim("filter", *range(hit.index("cue"), hit.span(0)[-1] + 1))

    def of_type(hit: Hit) -> bool:
        """"what percentage of the files are .py files": the files of a type, counted among all."""
        glob = type_of(hit.form("t"))
        if glob is None or not re.fullmatch(r"\*\.\w+", glob) or not st.aggregate_share:
            return False
        st.types_counted.add(len(st.filters))
        st.filters.append((glob[1:], False, hit.index("cue")))
        st.note(f"{glob} files")
        return hit.claim("filter")

    def every_def(hit: Hit) -> bool:
        """"files where every function has a docstring": a file kept when each of its definitions passes the condition."""
        token = hit.token("w")
        word = "docstring" if token.form.startswith("docstring") and not token.quoted else token.raw
        if not token.quoted and token.form in LEXICON and word != "docstring":
            return False
        st.every_def.add(len(st.filters))
        st.filters.append((word, False, hit.index("cue")))
        st.note(f"every definition {'with a docstring' if word == 'docstring' else 'containing ' + repr(word)}")
        return hit.claim("filter")

    s.scan(_EVERY_DEF, every_def)
    s.scan(_DECORATED, decorated)
    s.scan(_THRESHOLD, threshold)
    s.scan(_STARTS, starts)
    if re.search(r"\b(?:percentage|percent|fraction|share|proportion)\b|%", " ".join(t.form for t in s.tokens)):
        st.aggregate_share = True
        s.scan(_PLACED, placed)
        s.scan(_OF_TYPE, of_type)


def parse_parts(s: Sentence, st: State) -> None:
    """Docstrings (had or not, or read) and imports (a module imported, or the modules imported, of an origin)."""

    def origin(hit: Hit) -> bool:
        """"the standard library modules it imports", "third-party imports": the imported modules of one origin."""
        said = hit.form("o")
        st.imports_origin = "stdlib" if said.replace("-", " ") in ("standard library", "stdlib", "std lib", "built in", "builtin") else "external"
        st.note(f"{'standard library' if st.imports_origin == 'stdlib' else 'third-party'} modules")
        return hit.claim("filter")

    def doc_filter(hit: Hit) -> bool:
        st.docstrings.add(len(st.filters))
        st.filters.append(("", hit.has("neg"), hit.index(0)))
        st.note(("without" if hit.has("neg") else "with") + " a docstring")
        return hit.claim("filter")

    def doc_read(hit: Hit) -> bool:
        st.part = "docstring"
        st.note("the docstring")
        if hit.has("n"):
            token = hit.token("n")
            if is_file(token.raw) or token.quoted or not re.fullmatch(r"[A-Za-z_]\w*", token.raw) or token.form in LEXICON:
                return hit.claim("part", *range(hit.index(0), hit.index("n") - 1))  # "of src/app.py": a file, for the scope to read
            st.part_of = token.raw  # "the docstring of Catalogue": a class's or a function's
        return hit.claim("part")

    def imported(hit: Hit) -> bool:
        """The modules imported (each once), the import statements, or "imports", which can be either."""
        st.imports_said = "modules" if hit.has("modules") else "statements" if hit.has("statements") else "imports"
        st.units.append(("imports", hit.index(0), True))
        st.note("the import statements" if st.imports_said == "statements" else "the imported modules")
        return hit.claim("unit")

    def imports(hit: Hit) -> bool:
        """"import os", "import os and sys" (both), "import os or sys" (either), "do not import os or sys" (neither)."""
        names = [hit.token(group).raw for group in ("m", "m2") if hit.has(group)]
        if not all(MODULE_NAME.fullmatch(name) and name.lower() not in NOT_MODULES for name in names):
            return False  # "import each other", "import the most": not a module's name
        negated = hit.has("neg")
        either = hit.has("conj") and hit.form("conj") == "or" and not negated
        st.imports.add(len(st.filters))
        st.filters.append((names[0], negated, hit.index(0)))
        if either:
            st.alternatives[len(st.filters) - 1] = names[1:]
        for name in [] if either else names[1:]:
            st.imports.add(len(st.filters))
            st.filters.append((name, negated, hit.index("m2")))
        st.note(f"{'not ' if negated else ''}importing {(' or ' if either else ' and ').join(names)}")
        return hit.claim("filter")

    s.scan(_ORIGIN, origin)
    s.scan(_DOC_FILTER, doc_filter)
    s.scan(_DOC_READ, doc_read)
    s.scan(_IMPORTS_NOUN, imported)
    s.scan(_IMPORTS_FILTER, imports)


# -- how a program reads them (program text; ``TEXT`` is the expression of a file's text) ------------------

def opens_with_string(lines: str) -> str:
    """Whether the first of ``lines`` (an expression of a list of lines) that is neither blank nor a comment opens a string:
    a docstring (a prefix r or u allowed; b and f strings are not docstrings)."""
    first = f'([line.strip() for line in {lines} if line.strip() and not line.strip().startswith("#")] + [""])[0]'
    return first + '.lstrip("rRuU")[:1] in ("\'", \'"\')'


#: Whether a text opens with a string: a module's docstring.
HAS_DOCSTRING = opens_with_string("TEXT.splitlines()")
#: The stripped lines of a text.
_CODE = "code in [line.strip() for line in TEXT.splitlines()]"
#: The module of a ``from`` line, made absolute from the package of the file at ``PATH`` when it is relative (``from .user``);
#: as written when the file has no package to be relative to.
_FROM = (
    '((".".join(PATH.split("/")[:len(PATH.split("/")) - dots] + ([mod.lstrip(".")] if mod.lstrip(".") else [])) or mod) if dots else mod)'
)
_FROM_LINES = (f'for {_CODE} if code.startswith("from ") and " import " in code'
               ' for mod in [code[5:].split(" import ")[0].strip()] for dots in [len(mod) - len(mod.lstrip("."))]')
#: The modules a text (of the file at ``PATH``) imports: each module of an ``import`` line (without ``as``), and the module
#: of a ``from ... import`` line, relative ones made absolute.
IMPORTED = (
    f'[name.split(" as ")[0].strip() for {_CODE} if code.startswith("import ") for name in code[7:].split("#")[0].split(",")]'
    f' + [{_FROM} {_FROM_LINES}]'
)
#: ``IMPORTED`` and, for each name a ``from`` line imports, module.name: ``from shop.models import user`` imports shop.models.user.
IMPORTED_NAMES = (
    IMPORTED + f' + [{_FROM} + "." + name.split(" as ")[0].strip(" ()") {_FROM_LINES}'
    ' for name in code.split(" import ", 1)[1].split("#")[0].split(",") if name.strip(" ()")]'
)
#: Whether a stripped line ``code`` begins an import statement.
STATEMENT = 'code.startswith("import ") or code.startswith("from ") and " import " in code'
#: A program that leaves one file's docstring, cleaned as ``inspect.cleandoc`` cleans it, as its value (None when it has none).
DOCSTRING = """\
lines = read_file({file}).splitlines()
at = ([k for k, line in enumerate(lines) if line.strip() and not line.strip().startswith("#")] + [len(lines)])[0]
start = "\\n".join(lines[at:]).lstrip().lstrip("rRuU")
quote = ([q for q in ('\"\"\"', "\'\'\'", '"', "'") if start.startswith(q)] + [None])[0]
doc = start[len(quote):].split(quote, 1)[0].expandtabs().splitlines() if quote else None
if doc:
    margin = min([len(line) - len(line.lstrip()) for line in doc[1:] if line.strip()], default=0)
    doc = [doc[0].strip()] + [line[margin:] for line in doc[1:]]
"\\n".join(doc).strip() if doc is not None else None"""


def imported(text: str, path: str) -> str:
    """The expression of the modules ``text`` (the text of the file at ``path``) imports."""
    return IMPORTED.replace("TEXT", text).replace("PATH", path)


def imports_name(keys: list[str], subject: str, path: str, negated: bool) -> str:
    """Whether ``subject`` (the text of the file at ``path``) imports any module of the filter's ``keys``, or one beneath it
    (``import os.path`` imports os), or a module a ``from`` line names (``from shop.models import user``); a module is named
    by its whole dotted path or a whole part of it ("the models package" for shop.models)."""
    one = " or ".join(f"(\".\" + name + \".\").find(\".\" + {{{key}}} + \".\") >= 0" for key in keys)
    test = f"any({one} for name in {IMPORTED_NAMES.replace('TEXT', subject).replace('PATH', path)})"
    return f"not {test}" if negated else test


#: Over a text ``TEXT``'s lines ``L``: each definition line ``k`` (``line``), with ``j`` the line that ends its signature and
#: ``e`` the end of its block (the next line, not blank nor a comment, indented no deeper), as comprehension clauses.
_EACH_DEF = ('for L in [TEXT.splitlines()] for k, line in enumerate(L) if line.strip().startswith(("def ", "async def ")) '
             'for j in [([m for m in range(k, len(L)) if L[m].split("#")[0].rstrip().endswith(":")] + [k])[0]] '
             'for e in [([m for m in range(j + 1, len(L)) if L[m].strip() and not L[m].strip().startswith("#") '
             'and len(L[m]) - len(L[m].lstrip()) <= len(line) - len(line.lstrip())] + [len(L)])[0]]')
#: Whether the definition at ``j`` (its signature's last line) opens its body with a string.
_DEF_DOC = opens_with_string("L[j + 1:e]")


def every_definition(index: int, word: str, subject: str, negated: bool) -> str:
    """Whether every function of ``subject`` (a text) has a docstring (``word`` "docstring") or holds filter ``index``'s word."""
    test = _DEF_DOC if word == "docstring" else f'{{w{index}}} in "\\n".join(L[k:e])'
    every = f"all({test} {_EACH_DEF.replace('TEXT', subject)})"
    return f"not {every}" if negated else every


def has_docstring(subject: str, negated: bool) -> str:
    return f"{'not ' if negated else ''}{HAS_DOCSTRING.replace('TEXT', subject)}"


__all__ = ["DOCSTRING", "MODULE_NAME", "STATEMENT", "every_definition", "opens_with_string", "parse_conditions", "has_docstring", "imported", "imports_name", "parse_parts"]
