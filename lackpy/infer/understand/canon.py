"""The canonical form of a question: everyday ways of saying a thing brought to the one the grammar reads.

People ask the same question many ways ("modules" for Python files,
"TODO-free" for "without TODO", "everything under src", "largest first"
after a ranking that already puts the largest first). Each such way is one
entry of ``TABLE``: a pattern, what it becomes, and when it applies (an
entry may need a word elsewhere in the question, or its absence), so a new
wording is a line here, never a new rule in the passes of
``lackpy.infer.understand.phrases``.

An entry only rewrites what has one everyday reading. A word with two
(``modules`` is the code base's Python files, but in "which modules does it
import" the modules it imports) is rewritten only where the other reading
is ruled out, and left for the parser, which refuses what it cannot place,
otherwise: a refusal is always better than a confident wrong answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lackpy.infer.understand.words import QUOTED_PHRASE


@dataclass(frozen=True)
class Entry:
    """One way of saying a thing: ``pattern`` (a regex, matched case-insensitively on word boundaries) becomes ``becomes``,
    when every ``needs`` pattern is found in the question and no ``unless`` pattern is."""

    pattern: str
    becomes: str
    needs: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    why: str = ""
    quotes: bool = False
    """Whether the pattern reads quoted text too (a name said in quotes: "where is `parse_x` defined")."""


#: A ranking said before ("the 3 largest files"): its order is already the one "largest first" asks for.
_RANKED = r"\b(largest|biggest|smallest|longest|shortest|most|fewest|least|top|bottom)\b(?!\s+first\b)"
_IMPORTS = r"\bimport(s|ed|ing)?\b"
#: An order said already ("sorted by size, largest first"): "largest first" then says its direction, as the grammar reads it.
_SORTED = r"\b(?:sorted|ordered|ranked|sort|order|rank)\b|\bby (?:size|length|lines)\b"
#: Modules that are imported ("which modules does it import", "imported modules"), not the code base's own: never its files.
_IMPORTED_MODULES = (r"\bmodules? (?:(?:does|do|did|are|is|were|get|gets|got)\b|that [\w./ -]+ imports?\b)(?=.*" + _IMPORTS + r")"
                     r"|" + _IMPORTS + r" (?:\w+ )?modules?\b|\bmodules? imported\b")
#: The whole of what is being asked about, said as a whole.
_CODE_BASE = r"(?:the |this |our |my |your )(?:code ?base|repo|repository|project|source tree)"
#: A word searched for ("files containing module", "how many times does module appear"): the word, never its meaning.
_SEARCHED = r"\b(contain|contains|containing|mention|mentions|mentioning|say|says|saying|word|words|does|do|match|matching|appear|appears)\s+(the\s+)?"

#: Every everyday wording the canonical form knows, in the order they apply.
TABLE: tuple[Entry, ...] = (
    Entry(r"\b(\d{1,3}),(\d{3})\b", r"\1\2", why="'2,000 bytes': the number 2000"),
    Entry(r"^\s*(?:\w+ ){0,3}check:\s*", "", why="'line length check: how many lines ...': the question after the colon"),
    Entry(r"[.?!]?\s*\bmethods count too\b", "", why="the functions counted include methods"),
    Entry(r"\b(?-i:([A-Z]\w*))'s methods\b", r"methods of class \1", why="'Order's methods': the methods of the class Order"),
    Entry(r"^\s*(?:got|have you got|do you have) any idea,? ", "", why="'got any idea how many': how many"),
    Entry(r"\bfor me\b", "", why="asked for the person: the answer is the same"),
    Entry(r",?\s*\bmethods included\b", "", why="the functions counted include methods"),
    Entry(r"\s*\(in (lines|bytes|words|characters)\)", r" in \1", why="'(in lines)': in lines"),
    Entry(r"\bhow long in lines (is|are)\b", r"how many lines \1", why="how long in lines: how many lines"),
    Entry(r"[.?!]?\s*\b(bytes|lines|words) please\b", r" in \1", why="'bytes please': the figure in bytes"),
    Entry(r"\b(?:actually|really|still|ever)\s+(?=import|use|define|contain|mention|have|has)", "", why="'actually imports': imports"),
    Entry(r"\bare behind (@[\w.]+)", r"are decorated with \1", why="handlers behind @require_auth are decorated with it"),
    Entry(r"\bwhats\b", "what is", why="'whats' without its apostrophe"),
    Entry(r"\b(?:that |which )?(?:is not|isn't|aren't|are not) (?:completely |entirely |totally )?empty\b", "with more than 0 bytes",
          needs=(r"\bfiles?\b|\bmodules?\b|\bscripts?\b",), why="a file that isn't empty has something in it"),
    Entry(r"\s*\(?\bnot counting (?:self|cls)\)?", "", why="a method's self is never counted among its parameters"),
    Entry(r"\bthe (most|fewest) import statements\b", r"the \1 imports", why="files ranked by their import statements"),
    Entry(r"\bpulls? in\b", "import", needs=(r"\b(?:modules?|packages?|libraries|dependencies|something|anything)\b|\bpulls? in [\w.]+\s*\??\s*$",),
          why="what a file pulls in is what it imports"),
    Entry(r"\b(?:distinct |unique |different )?modules (?:are|were|get|is) imported\b", "imported modules",
          why="the modules that are imported: what the code imports, each once"),
    Entry(r"\b(?:distinct |unique |different )?(?:modules|packages|libraries) (?:does|do) (?:the code|it|the files|the python files|the modules|we|our code"
          r"|the code ?base|the repo|the project) (?:import|use|depend on)\b", "imported modules", why="the modules the code imports"),
    Entry(r"\b(?:distinct |unique |different )?(?:modules|packages|libraries) (?:does|do) ([\w./-]+\.py) import(?: from)?\b", r"imported modules in \1",
          why="the modules one file imports"),
    Entry(r"\b(?:distinct|unique|different) (?=imported modules\b)", "", why="the imported modules are counted once each already"),
    Entry(r"\b(import|imports|importing) from\b", r"\1", why="a module that imports from X imports X"),
    Entry(r"\b(?:do|does) (any of )?the tests (have|contain|mention|include|import|use)\b", r"do \1files in tests \2",
          why="the tests, said as a whole, are the files of the tests folder"),
    Entry(r"\btest (functions|methods)\b", r"\1 named test_*", why="test functions are those pytest collects: named test_..."),
    Entry(r"\b(?:don't|do not|doesn't|does not) (?:take|accept|have) any (arguments|parameters|args|params)\b", r"take no \1",
          why="functions that don't take any arguments take none"),
    Entry(r"\b(?:sub-?packages?|packages?) (?:of|in|under|inside) ([\w./-]+)", r"package under \1",
          why="a subpackage of shop is a package under shop"),
    Entry(r"\b([\w.-]+)'s sub-?packages\b", r"packages under \1", why="shop's subpackages are the packages under it"),
    Entry(r"\b(?:the |our |its )?test ?suite\b", "tests", why="the test suite is the tests folder"),
    Entry(r"\b(functions|methods|classes) ((?:in|under|inside|within) [\w./-]+) (?:that |which )?(start|begin|end)s? with ([`'\"]?\w+[`'\"]?)",
          r"\1 that \3 with \4 \2", why="'functions in X start with get_': the names, then where"),
    Entry(r",?\s*\b(?:counting|measured in|in terms of) (lines|words|characters|bytes)\b", r" by \1",
          why="'the 3rd longest, counting lines': ranked by lines"),
    Entry(r"\b(?:completely|entirely|totally|fully|still|currently)\s+", "", why="'completely empty', 'still there': the word adds no condition"),
    Entry(r"\b(?-i:([A-Z][A-Z_]+s?))( comments| notes| markers)? (are |is )?left\b", r"\1\2 \3", why="'TODOs left' are the TODOs there are"),
    Entry(r"\bempty (files?|modules?|python files?)\b", r"\1 with exactly 0 bytes", why="an empty file has nothing in it"),
    Entry(r"\b(files?|modules?|python files?) (?:that |which )?(?:are|is) empty\b", r"\1 with exactly 0 bytes", why="an empty file has nothing in it"),
    Entry(r"\b(?:are there|is there) any (?-i:([A-Z][A-Z_]+s?)) or (?-i:([A-Z][A-Z_]+s?))\b", r"are there any files containing \1 or \2",
          why="'any TODOs or FIXMEs': files holding either marker"),
    Entry(r"\b(\d+|one|two|three|four|five|ten|twenty|fifty|hundred) (lines|characters|chars) (?:long|in length)\b", r"\1 \2",
          why="'over 300 lines long' is over 300 lines"),
    Entry(r"\bhow long (is|are) (.+?),? in (lines|characters|words|bytes)\b", r"how many \3 \1 \2",
          why="'how long is a module, in lines': its lines"),
    Entry(r"\b(?:start|starts|begin|begins|open|opens) with (?:a |an )?((?:module )?docstring)\b", r"have a \1",
          why="a file that starts with a docstring has one: a docstring is always at the top"),
    Entry(r"\b(docstrings?) at the (?:top|start|beginning)\b", r"\1", why="a module's docstring is at its top"),
    Entry(r"\bany single\b", "any", why="'any single file': any file"),
    Entry(r"\bwhat(?:'s| is) the (most|fewest) ([A-Za-z_]\w*) (?:that )?(?:any|a|one) (file|module|python file) (?:has|contains|holds)\b",
          r"how many \2 does the \3 with the \1 \2 have", why="'the most TODOs any file has': that file's count"),
    Entry(r"\bpages\b", "markdown files", needs=(r"\bdocs?\b|\bdocumentation\b",), unless=(_SEARCHED + r"pages\b",),
          why="the pages of the docs are its markdown files"),
    Entry(r"\bpage\b", "markdown file", needs=(r"\bdocs?\b|\bdocumentation\b",), unless=(_SEARCHED + r"page\b",), why="one of them"),
    Entry(r"\bper (test|python|markdown|yaml|json|toml) (?:files?|modules?)\b", r"per file in \1 files",
          why="'lines per test file': per file, of the test files"),
    Entry(r"\b(mentions?|contains?|uses?|has|have) ([`'\"]?[A-Za-z_][\w.]*[`'\"]?) the most\b", r"\1 the most \2",
          why="'which file mentions FIXME the most': the file with the most FIXMEs"),
    Entry(r"\b(functions|methods) (?:that |which )?(?:call|calls|invoke|invokes) ([A-Za-z_][\w.]*)\b", r'\1 containing "\2("',
          why="a function that calls print holds print( in its code"),
    Entry(r"\bhow (?:big|large|heavy) (?:is|are) (?:the )?([\w./-]+)(?: (?:folder|directory|dir))?(?: altogether| in total| all together)?(?:,? in bytes)?(?=\s*\??\s*$)",
          r"how many bytes are in \1", unless=(r"\b(largest|biggest|smallest|longest|shortest)\b",),
          why="how big a file or a folder is: its size, in bytes"),
    Entry(r"\bwhat (?:modules |packages )?(?:does|do) ([\w./-]+\.py) import\b", r"which imported modules in \1",
          why="what a file imports: the modules it imports"),
    Entry(r"^\s*where(?: is|'s) (?=.*\b(?:function|class|method)\b)(?:the )?(?:(?:function|class|method) )?[`'\"]?([A-Za-z_]\w*)[`'\"]?"
          r"(?: (?:function|class|method))?(?=\s*\??\s*$)", r'which files contain "def \1(" or "class \1(" or "class \1:"',
          why="where the Cart class is: the files holding its class line", quotes=True),
    Entry(r"\b(which|what) (files?|modules?|python files?) (?:define|defines|declare|declares) [`'\"]?((?!(?:a|an|the|any|no|more|fewer|less|at|exactly|functions?|classes?|methods?)\b)[A-Za-z_]\w*)[`'\"]?(?=\s*\??\s*$)",
          r'\1 \2 contain "def \3(" or "class \3(" or "class \3:"', why="the files that define a name: those holding its def or class line", quotes=True),
    Entry(r"\b(function|class|method) names (?:that |which )?(start|begin|end)s? with\b", r"\1s \2ing with",
          why="'function names that start with get' are the functions whose names start with it"),
    Entry(r"\baverage (module|file|python file) size in (lines|bytes|words|characters)\b", r"average number of \2 per \1",
          why="the average module size in lines: lines per module"),
    Entry(r"\bwhat does (the (?:first|last|top|final) (?:\d+ )?lines? of [\w./-]+) say\b", r"what is \1", why="what a line says is its text"),
    Entry(r",?\s*\b(?:tests|docs|everything|the readme|readme|every file|all files|every file counted) included\b", "",
          why="'tests included': every file, as said without it"),
    Entry(r",?\s*\bnot counting (?:self|cls)\b", "", why="a method's self is never counted among its parameters"),
    Entry(r"\bthe single (longest|largest|biggest|smallest|shortest|widest)\b", r"the \1", why="'the single longest line': the longest"),
    Entry(r"^\s*are there any (.+?)\?\s*which ones\??\s*$", r"which \1", why="'are there any X? which ones?' asks for them"),
    Entry(r"\b(median|average|mean) length,? in lines,? of\b", r"\1 number of lines of", why="a length in lines is a number of lines"),
    Entry(r"\bthe (most|least|fewest) code\b", r"the \1 lines", why="the most code is the most lines"),
    Entry(r"\b(?:do|does) (?:the )?([\w./-]+) take up\b", r"are in \1", why="'how many bytes do the docs take up': the bytes in docs"),
    Entry(r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)-(longest|largest|biggest|smallest|shortest)\b", r"\1 \2",
          why="'the second-longest': the second longest"),
    Entry(r"\bfunctions and methods\b|\bmethods and functions\b", "functions", why="the functions counted include methods"),
    Entry(r"\bhow many tests (are|does|do|in)\b", r"how many functions named test_* \1", why="the tests of a test file are its test functions"),
    Entry(r",?\s*\b(?:going|judging|measured|counting|ranked) by (?:the )?number of (lines|words|bytes|characters)\b", r" by \1",
          why="'going by number of lines': ranked by lines"),
    Entry(r",?\s*\b(?:going|judging|measured|counting|ranked) by (line count|lines|size|bytes|words)\b", r" by \1",
          why="'the 3rd longest, going by line count': ranked by lines"),
    Entry(r"\b(json|yaml|yml|toml|ini) (?:configs|config files|configuration files|configurations)\b", r"\1 files",
          why="the JSON configs are the JSON files"),
    Entry(r"\b(?:do|does) (?:the )?(\w+ files) take up\b", r"are in \1", why="the bytes the JSON files take up: the bytes in them"),
    Entry(r"\bimport (?:something|anything|stuff|names?|things) from\b", "import", why="a file that imports something from X imports X"),
    Entry(r"\bwhat does the ((?:module )?docstring) of ([\w./-]+) say\b", r"what is the \1 of \2", why="what a docstring says is its text"),
    Entry(r"\bfunctions or methods\b|\bmethods or functions\b", "functions", why="the functions counted include methods"),
    Entry(r"\b(\w+)'s got\b", r"\1 has", why="'which file's got the most TODOs': which file has"),
    Entry(r"\b(\w+)'ve got\b", r"\1 have", why="as said"),
    Entry(r"\b(?:go|goes|run|runs|are|is) (?:over|past|beyond) (\d+) (characters|chars|columns)\b", r"are longer than \1 characters",
          why="lines that go over 100 characters are longer than that"),
    Entry(r"\bwhich (function|class|method) ((?:in|under) (?:the )?[\w./-]+(?: package| folder)? )?has the (longest|shortest) name\b",
          r"what is the \3 \1 name \2", why="which function has the longest name: the longest function name"),
    Entry(r"\bon average,? how (?:big|large) is an? ((?:\w+ )?(?:file|module|page|script))\b", r"average number of bytes per \1",
          why="how big a file is on average: its bytes, averaged"),
    Entry(r"\b(?:do|does) (?:the )?([\w./-]+) (?:folder|directory|dir|package) take up\b", r"are in \1",
          why="the bytes a folder takes up: the bytes in it"),
    Entry(r"\s*\b(?:sitting|placed|that are|which are)? ?directly in (?:it|them)\b", "", needs=(r"\b(?:folders?|directory|directories|packages?)\b",),
          why="the files in a folder are those directly in it, as counted"),
    Entry(r"\b(?:error|exception) (classes)(?= (?:that |which )?(?:inherit|derive|subclass|extend|descend))", r"\1",
          why="the error classes that inherit from X are the classes that do"),
    Entry(r"\b(inherit|derive|descend)s? (?:straight|directly|immediately) from\b", r"\1 from", why="the direct subclasses are what is counted"),
    Entry(r"\b(inherit from|derive from|extend|subclass) ([A-Za-z_][\w.]*) (?:directly|straight|immediately)\b", r"\1 \2",
          why="the direct subclasses are what is counted"),
    Entry(r"\s*\((?:the )?[#\w]+ ones\)", "", why="'(the ## ones)': said again, already said"),
    Entry(r"\bsecond-level (?:headings|headers|sections|titles)\b", 'lines starting with "## "', why="a second-level heading is a ## line"),
    Entry(r"\b(?:top-level|first-level) (?:headings|headers|sections|titles)\b", 'lines starting with "# "', why="a top heading is a # line"),
    Entry(r"\b(?:section )?(?:headings|headers|sections)\b", 'lines starting with "#"', needs=(r"\b(?:readme|docs?|markdown|\.md|pages?)\b",),
          unless=(_SEARCHED + r"(?:headings|headers|sections)\b",), why="the headings of a markdown file are its # lines"),
    Entry(r"\bwhat do (?:the )?(.+?) add up to,? in (bytes|lines|words)\b", r"how many \2 are in \1", why="what files add up to: their total"),
    Entry(r",?\s*\b(?:all together|altogether|in all|combined)\b", "", needs=(r"\b(?:how many|total|add up|sum)\b",), why="a total is of all of them"),
    Entry(r"\b(have|has) got\b", r"\1", why="'which files have got FIXMEs': which files have"),
    Entry(r"\b(?:that |which )?(?:actually )?(?:has|have) (?:something|anything) in (?:it|them)\b", "with more than 0 bytes",
          why="a file with something in it is not empty"),
    Entry(r"\bwhich (class|function|method) comes (first|last) in\b", r"what is the \2 \1 in", why="the class that comes first in a file"),
    Entry(r",?\s*\b(?:every|each|all) files? counted\b", "", why="every file, as said without it"),
    Entry(r",?\s*\bnot counting (?:sub-?folders|sub-?directories|subdirs|nested folders)\b", "",
          why="the files of a folder are counted directly in it, never in its subfolders"),
    Entry(r"[.?!]?\s*\b(?:just|please) (?:paste|show|give|print|quote) (?:it|them|me)\b", "", why="asked to show it: the answer is shown"),
    Entry(r",?\s*\bif you (?:count|go by|measure by|measure in) (lines|words|bytes|characters|size)\b", r" by \1",
          why="'the 3rd longest if you count lines': ranked by lines, no count asked"),
    Entry(r",?\s*\bsize-wise\b", " by size", why="'the second biggest, size-wise': ranked by size"),
    Entry(r",?\s*\b(byte|line|word)-wise\b", r" by \1s", why="'byte-wise': ranked by bytes"),
    Entry(r",?\s*\ball told\b", "", why="a total is of all of them"),
    Entry(r"^\s*(?:are there )?(?:any )?(.+?)\?\s*which ones\??\s*$", r"which \1", why="'any X? which ones?' asks for them"),
    Entry(r"\b(does|do) ([A-Za-z_][\w.]*)\(\)", r"\1 \2", why="'what params does truncate() take': the function truncate"),
    Entry(r"[.?!]?\s*(?:just )?(?:the )?(?:module |dotted )?names,? please\.?", "", why="the names are the answer"),
    Entry(r"\bdoes the ([A-Za-z_]\w*) class have an? ([A-Za-z_]\w*) method\b", r"are there any methods named \2 of class \1",
          why="whether a class has a method of a name"),
    Entry(r"\bdoes the ([A-Za-z_]\w*) class have an? docstring\b", r"are there any classes named \1 with a docstring",
          why="whether a class has a docstring"),
    Entry(r"\bdoes the ([A-Za-z_]\w*) function have an? docstring\b", r"are there any functions named \1 with a docstring",
          why="whether a function has a docstring"),
    Entry(r"\b(?:have|has) (?:we|you|they|it|i) got\b", "are there", why="'how many yaml files have we got': how many there are"),
    Entry(r"\bhow long are (?:the )?(.+?) on average,? in lines\b", r"average number of lines of \1", why="how long files are on average"),
    Entry(r"\b(?:the )?docs (markdown files|pages|files)\b", r"the \1 in docs", why="the docs pages are the files in docs"),
    Entry(r"\b(?:live|lives|sit|sits|reside|resides) in\b", "are in", unless=(r"\blines?\b",), why="the classes that live in a folder are in it"),
    Entry(r"\b(?:sitting|lying|kept) (in|outside)(?: of)?\b", r"are \1", unless=(r"\blines?\b",), why="the files sitting in a folder are in it"),
    Entry(r"\bthe combined size of\b", "the total size of", why="a combined size is the total"),
    Entry(r"\bthe very (first|last)\b", r"the \1", why="the very first is the first"),
    Entry(r"\s*\((?:but )?not (?:in )?(?:the )?([\w./-]+)\)", r" outside \1", why="'(not the tests)': outside them"),
    Entry(r",?\s*\bcounting methods(?: too| as well)?\b", "", why="the functions counted include methods"),
    Entry(r"\b(?:use|uses|using|pull in|pulls in) the ([A-Za-z_][\w.]*) (?:library|package|module)\b", r"import \1",
          why="a file that uses the requests library imports it"),
    Entry(r"\b(import|imports|importing) the ([A-Za-z_][\w.]*) (?:library|package|module)\b", r"\1 \2", why="importing the requests library"),
    Entry(r"^\s*(?:does|do) anything in ([\w./-]+) (import|use)", r"do any files in \1 \2", why="'does anything in shop/utils import': any file in it"),
    Entry(r"^\s*(?:does|do) anything(?: in (?:the )?(?:project|repo|code ?base|code))? (import|use)", r"do any files \1",
          why="'does anything import requests': do any files"),
    Entry(r"[.?!]?\s*\b(bytes|lines|words), I mean\b", "", why="said again after the question"),
    Entry(r",?\s*\bin lines\b", "", needs=(r"\b(?:longest|shortest)\b",), why="the longest is measured in lines already"),
    Entry(r"\bhas the most lines(?: of code)?(?: in it)?\b", "is the longest", needs=(r"\b(?:function|class|method)\b",),
          why="the function with the most lines is the longest"),
    Entry(r"\boutside ([\w./-]+) and (?!outside\b)([\w./-]+)\b", r"outside \1 and outside \2", why="outside two folders: outside each"),
    Entry(r"\bby (?:the )?number of (?:function definitions|function defs|defs)\b", "by number of functions", why="as said"),
    Entry(r"\btakes? up the (most|least|fewest) (?:bytes|space|room|disk space)\b", r"has the \1 bytes", why="the folder that takes up the most"),
    Entry(r"\b(?:live|lives) outside\b", "are outside", why="the files that live outside a folder are outside it"),
    Entry(r"\bhow (?:big|large) are (?:the )?((?:\w+ )?files)((?: in| under) [\w./-]+)?(?:,? in bytes)?(?=\s*\??\s*$)", r"how many bytes are in \1\2",
          why="how big files are, together: their bytes"),
    Entry(r"\b(?:do|does) (?:the )?(files (?:in|under) [\w./-]+) take up\b", r"are in \1", why="the bytes the files in a folder take up"),
    Entry(r"\bdataclasses\b", "classes decorated with @dataclass", why="a dataclass is a class decorated with @dataclass"),
    Entry(r"(?<![/\w.-])(?:route handlers|handlers|endpoints|routes|views)(?![\w./-])(?=.*\b(?:decorated|registered|wrapped|marked|locked down|protected) (?:with|by) (?:the )?@)",
          "functions", why="the handlers decorated with @route are functions"),
    Entry(r"\b(methods|functions) per class\b", r"\1 in a class", needs=(r"\b(?:average|mean|median)\b",), why="methods per class: in a class, averaged"),
    Entry(r"\bwhat (percentage|percent|fraction|share|proportion|%) of (?:all )?(?:the )?(?:repo|repository|project|code ?base)(?:'s)? "
          r"\(?by (?:bytes|size)\)? (?:is|are) (python|markdown|yaml|json|toml|\.\w+)(?: code| files)?\b",
          r"what \1 of the bytes are \2 files", why="the share of the repo, by bytes, that is Python: of its bytes, those of Python files"),
    Entry(r"\bwhat (percentage|percent|fraction|share|proportion|%) of (?:all )?(?:the )?(?:repo|repository|project|code ?base)'s (?:total )?"
          r"(?:bytes|size) (?:is|are) (python|markdown|yaml|json|toml|\.\w+)(?: code| files)?\b",
          r"what \1 of the bytes are \2 files", why="as said"),
    Entry(r"^\s*(?:is|are) ([A-Za-z_][\w.]*) imported (?:anywhere|somewhere|at all)?\s*(?:in (?:the )?(python code|code|code ?base|repo|project|[\w./-]+))?",
          r"do any python files import \1", why="'is yaml imported anywhere': do any files import it"),
    Entry(r"\bhow much does (?:the )?([\w./-]+)(?: folder| directory)? weigh\b", r"how many bytes are in \1", why="how much a folder weighs"),
    Entry(r"[.?!]?\s*give me (?:the )?total bytes\.?", "", why="said again after the question"),
    Entry(r"\bthe longest single line\b", "the longest line", why="the longest single line is the longest line"),
    Entry(r"\s*\b(?:lurking|hiding|sitting|left over)\b(?= in\b)", "", why="'FIXMEs lurking in the tests': FIXMEs in the tests"),
    Entry(r"^\s*first (class|function|method) you (?:hit|see|find|meet) in\b", r"what is the first \1 in", why="the first class in a file"),
    Entry(r"\s*\(non-empty\)", " with more than 0 bytes", why="non-empty files have something in them"),
    Entry(r"\b(?:go|goes|run|runs) (?:over|past|beyond) (\d+) (lines|bytes|words)\b", r"have more than \1 \2", why="a file that goes over 200 lines"),
    Entry(r"^\s*can you (?:paste|show|give|print) me\b", "show me", why="asked to show it: the answer is shown"),
    Entry(r"\bcomes in (\w+) for (?:size|bytes)\b", r"is the \1 largest", why="'comes in 3rd for size': the 3rd largest"),
    Entry(r"\bcomes in (\w+) for lines\b", r"is the \1 longest", why="'comes in 3rd for lines': the 3rd longest"),
    Entry(r"\bcomes (first|second|third|fourth|fifth|2nd|3rd|4th|5th) if (?:i|you|we) rank (?:them|it|the files|the modules) by "
          r"(?:the )?(?:number of )?(lines|size|bytes|words)\b", r"is the \1 largest by \2", why="the one that comes third, ranked by lines"),
    Entry(r"^\s*is there an? (?-i:([A-Z]\w*)) class\b(?:\s+(?:somewhere|anywhere))?", r"are there any classes named \1",
          why="'is there an Invoice class': a class of that name"),
    Entry(r"\b(?:run|runs) to (more|fewer|less) than\b", r"have \1 than", why="'run to more than 250 lines': have more"),
    Entry(r"^\s*([\w./-]+)\s+[-:]\s+how many (\w+) does it (?:have|define|hold|contain)\b", r"how many \2 are in \1",
          why="'shop/services - how many classes does it have': how many are in it"),
    Entry(r"\bmodules\b", "python files", unless=(_IMPORTED_MODULES, _SEARCHED + r"modules\b"), why="a code base's modules are its Python files"),
    Entry(r"\bmodule\b(?!-level)", "python file", unless=(_IMPORTED_MODULES, r"\bmodule docstring\b", _SEARCHED + r"module\b", r"\bmodule\s+(appear|occur)"),
          why="one of them"),
    Entry(r"\bsource files\b", "python files", needs=(r"\.py\b|\bpython\b|\bmodules?\b",), why="where the code is Python"),
    Entry(r"\b([A-Za-z_][\w]*)-free ((?:python |markdown |text )?(?:files?|modules?))\b", r"\2 without \1",
          why="'TODO-free modules' are modules without TODO: the noun first, as the grammar reads it"),
    Entry(r"\b([A-Za-z_][\w]*)-free\b", r"without \1", why="'files that are TODO-free' are files without TODO"),
    Entry(r"\beverything (under|in|inside|within) ", r"all files \1 ", why="everything under a folder is its files"),
    Entry(r",?\s*\b(largest|biggest|longest|most) first\b", "", needs=(r"\b(largest|biggest|longest|most|top)\b(?!\s+first\b)",),
          why="a ranking of the largest already lists the largest first"),
    Entry(r",?\s*\b(smallest|shortest|fewest) first\b", "", needs=(r"\b(smallest|shortest|fewest|least|bottom)\b(?!\s+first\b)",),
          why="a ranking of the smallest already lists the smallest first"),
    Entry(r",?\s*\b(?:largest|biggest) first\b", " sorted by size descending", unless=(_RANKED, _SORTED),
          why="'largest first' with no ranking said before: every file, sorted by size"),
    Entry(r",?\s*\bsmallest first\b", " sorted by size ascending", unless=(_RANKED, _SORTED), why="'smallest first': every file, by size"),
    Entry(r",?\s*\blongest first\b", " sorted by length descending", unless=(_RANKED, _SORTED), why="'longest first': sorted by lines"),
    Entry(r",?\s*\bshortest first\b", " sorted by length ascending", unless=(_RANKED, _SORTED), why="'shortest first': sorted by lines"),
    Entry(r"\b(?:module|top|file)-level (functions?|defs?)\b", r"top-level \1", why="module-level functions are those at the top of a file"),
    Entry(r",?\s*\bin order\b", "", needs=(_RANKED,), why="a ranking is in order"),
    Entry(r"^\s*where(?: is|'s| are)? (?:the )?(?:(?:function|class|method) )?[`'\"]?([A-Za-z_]\w*)[`'\"]?(?: (?:function|class|method))? (?:defined|declared)\b",
          r'which files contain "def \1(" or "class \1(" or "class \1:"',
          why="where a name is defined: the files holding its def or class line, whole (def parse_x( is not def parse_x2()",
          quotes=True),
    Entry(r"\b(which|what) (files?|modules?|python files?) (?:define|defines|declare|declares) (?:a |the )?function (?:called|named) [`'\"]?([A-Za-z_]\w*)[`'\"]?",
          r'\1 \2 contain "def \3("', why="the files that define a function: those holding its def line, the name whole", quotes=True),
    Entry(r"\b(which|what) (files?|modules?|python files?) (?:define|defines|declare|declares) (?:a |the )?class (?:called|named) [`'\"]?([A-Za-z_]\w*)[`'\"]?",
          r'\1 \2 contain "class \3(" or "class \3:"', why="the files that define a class: those holding its class line", quotes=True),
    Entry(r"\b(?:does|do) (?:the |this |our |my )?(?:repo|repository|project|code ?base|package|it) (?:have|contain|define) "
          r"(more than|fewer than|less than|at least|at most|over|under) ", r"are there \1 ",
          why="'does the repo have more than 50 files': are there more than 50"),
    Entry(r"\b(?:does|do) " + _CODE_BASE + r" (?:have|contain|hold|define)\b(?=\s*\??\s*$)", "are there",
          why="'how many python files does the code base have' asks how many there are"),
    Entry(r"\b(?:does|do) " + _CODE_BASE + r"\b", "do the files", why="'how many times does the code base mention X': its files do"),
    Entry(r"\bhow many times (?:does|do) (.+?) (?:mention|contain|say|use|include)s? ((?:\"[^\"]+\"|'[^']+'|`[^`]+`|[^\s?]+))\s*(\??)\s*$",
          r"how many times is \2 mentioned in \1\3", why="how many times a file mentions a word: the word's occurrences in it", quotes=True),
    Entry(r"\b(?:(?:in|across|throughout|within|of|from) )?" + _CODE_BASE + r"\b(?:'s)?", "",
          unless=(r"\b(contain|contains|containing|mention|mentions|mentioning|say|says|saying|word|words|match|matching) " + _CODE_BASE,),
          why="the code base is every file: the question is about all of them"),
    Entry(r"\b(?:roughly|approximately|approx\.?|about|around) (?=how\b|what\b|\d)", "", why="roughly how many: the figure itself, exact"),
    Entry(r"\bput together\b|\badded up\b|\bcombined\b", "", needs=(r"\b(how many|total|count|number)\b",), why="a total is already all of them"),
    Entry(r"\b(how many (?:lines|words|characters|bytes)) (?:long|big|large)\b", r"\1", why="'how many lines long is a module': its lines"),
    Entry(r"\b(?:don't|do not|doesn't|does not) (?:have|contain|define|hold) any (functions|classes|methods|definitions)(?: in (?:them|it))?",
          r"with exactly 0 \1", needs=(r"\b(files?|python files?)\b",), why="files that have no functions: their count of functions is 0"),
    Entry(r"\b(?:have|has|with|define|defines|contain|contains) no (functions|classes|methods|definitions)\b", r"with exactly 0 \1",
          needs=(r"\b(files?|python files?)\b",), why="files with no functions: their count of functions is 0"),
    Entry(r"\b(?:takes?|taking|accepts?|accepting|with|having|(?:has|have)) (?:no|zero|0) (arguments|parameters|args|params)\b", r"with exactly 0 \1",
          why="a function that takes no arguments takes 0 of them"),
    Entry(r"\b(?:takes?|taking|accepts?|accepting|with|having|(?:has|have)) (?:just |only )?(?:a single|only one|just one|exactly one) (argument|parameter|arg|param)\b",
          r"with exactly 1 \1", why="a single argument is exactly one"),
    Entry(r"\b(which|what) (?:files?|python files?) (?:that )?(?:define|defines|declare|declares|contain|contains|have|has) (?:a|any|at least one) "
          r"(function|class|method)(?:es|s)?\b(?! (?:called|named)\b)", r"\1 python files with at least 1 \2",
          why="the files that define a class: those with at least one class line, whatever its name"),
    Entry(r"\bhow long (is|was)\b", r"how many characters \1", needs=(r"\b(longest|shortest) (?:(?:function|class|method) )?name\b",),
          why="how long the longest name is: its length, in characters"),
    Entry(r"\bhow long (is|was)\b", r"how many characters \1", needs=(r"\b(longest|shortest) line\b",),
          why="how long the longest line is: its length, in characters"),
    Entry(r"\bhow (big|large|heavy) (is|was)\b", r"how many bytes \2", needs=(r"\b(largest|biggest|smallest|longest|shortest|heaviest|lightest|tiniest)\b",),
          why="how big the largest file is: its size, a number of bytes"),
)

_COMPILED = tuple(
    (re.compile(entry.pattern, re.I), entry.becomes, tuple(re.compile(p, re.I) for p in entry.needs), tuple(re.compile(p, re.I) for p in entry.unless),
     entry.quotes)
    for entry in TABLE
)


#: A quoted phrase: searched for as written, never rewritten.
_QUOTED = re.compile(QUOTED_PHRASE)


def canonical(question: str) -> str:
    """``question`` with every everyday wording of ``TABLE`` that applies brought to its canonical form; spaces made single.

    What is quoted is left as written (unless the entry reads quotes); an entry's conditions are read on the whole question.
    """
    text = question
    for pattern, becomes, needs, unless, quotes in _COMPILED:
        if all(p.search(text) for p in needs) and not any(p.search(text) for p in unless):
            rewrite = lambda piece: pattern.sub(becomes, piece)  # noqa: E731
            text = rewrite(text) if quotes else _outside_quotes(text, rewrite)
    return " ".join(text.split())


def _outside_quotes(text: str, rewrite) -> str:
    pieces, at = [], 0
    for quoted in _QUOTED.finditer(text):
        pieces += [rewrite(text[at:quoted.start()]), quoted.group(0)]
        at = quoted.end()
    return "".join(pieces + [rewrite(text[at:])])


__all__ = ["Entry", "TABLE", "canonical"]
