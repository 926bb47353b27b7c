"""A labelled corpus of raw model answers, to measure how often the named failure mode is the right one.

Each case is an answer as a model sent it (fences, prose, transcripts, cut
ends and all), the intent it answered when that matters, whether the server
reported a cut (``cut``), and the mode the documented precedence gives it,
written down before the classifier was asked: ``none`` for an answer that
mends into a program that validates and runs to a useful result. The styles
are those of small local models: notebook and REPL sessions, ``def main()``,
prose around and inside the code, answers stopped at a token limit, the
standard library, helpers instead of tool calls, misspelt tools, and
programs that run but answer wrongly. The workspace is the shared fixture's:
src/app.py (two TODOs), src/pkg/util.py (one), README.md.

The first 128 cases were labelled before the classifier was run on them;
five of their labels were then corrected to ``none`` where mending turns the
answer into a working program (by the rule below a mode mending fixed is not
reported). The last twelve were labelled before the changed classifier saw
them.

How each label follows the precedence, first cause first:

- a session (prompts, ``Out[n]``, echoed values, magics, ``!shell``,
  ``display``) whose program fails or was cut is ``jupyter_confusion``;
- text that is not code and that no ending would complete, before any cut,
  is ``syntax_artifact``;
- an answer cut with clean text before the cut is ``truncated``;
- then ``stdlib_leak``, ``implement_not_orchestrate``, ``unknown_tool``,
  ``invalid`` for what the validator refuses of a complete answer;
- after a run, a glob or path that found nothing (``path_prefix``) or a key
  the tool never returns (``key_hallucination``) even when the run then
  failed on the missing values; a result the tools' data contradicts, or a
  run that failed because the program's own filter left nothing
  (``wrong_output``); any other exception (``runtime_error``); ``limit``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One raw answer, the intent it answered, whether its server cut it, and its right label."""

    label: str
    answer: str
    intent: str = "count the TODO comments in the python files"
    cut: bool = False


F = "```"

CASES: list[Case] = [
    # -- none: answers that mend into a working program ------------------------------
    Case("none", f'{F}python\nfiles = find_files("**/*.py")\nlen(files)\n{F}'),
    Case("none", f'Here is the program:\n\n{F}python\nhits = grep("TODO")\nlen(hits)\n{F}\n\nThis counts every TODO.'),
    Case("none", 'def main():\n    hits = grep("TODO")\n    return len(hits)\n\nmain()'),
    Case("none", 'def main():\n    total = 0\n    for f in find_files("**/*.py"):\n        total += read_file(f).count("TODO")\n    print(total)\n\nif __name__ == "__main__":\n    main()'),
    Case("none", 'text = open("README.md").read()\ntext.count("Demo")'),
    Case("none", 'import glob\nfiles = glob.glob("**/*.py", recursive=True)\nlen(files)'),
    Case("none", '>>> hits = grep("TODO")\n>>> len(hits)\n3'),
    Case("none", 'In [1]: files = find_files("**/*.py")\n\nIn [2]: len(files)\nOut[2]: 2'),
    Case("none", 'files = find_files("**/*.py")\nprint(len(files))'),
    Case("none", f'Sure! Let me do that.\n{F}python\nfiles = find_files("**/*.py")\n{F}\nThen count them:\n{F}python\nlen(files)\n{F}'),
    Case("none", 'hits = grep("TODO")\nby_file = {}\nfor h in hits:\n    by_file[h["path"]] = by_file.get(h["path"], 0) + 1\nby_file'),
    Case("none", 'with open("README.md") as f:\n    text = f.read()\nlen(text.splitlines())', intent="count the lines of the readme"),
    Case("none", f'{F}python\nhits = grep("TODO")\nprint(f"{{len(hits)}} TODOs")\n{F}'),
    # -- truncated: cut with clean text before the cut -----------------------------------
    Case("truncated", 'files = find_files("**/*.py")\ncounts = {f: read_file(f).count("TODO") for f in fil'),
    Case("truncated", f'{F}python\nhits = grep("TODO")\nfor h in hits:\n    print(h["path"], h["te'),
    Case("truncated", 'files = find_files("**/*.py")\nfor f in files:'),
    Case("truncated", 'total = 0\nfor f in find_files("**/*.py"):\n    total += read_file(f).count("TODO")\ntotal\n\nThis program reads every Python file and adds up the'),
    Case("truncated", 'Here is'),
    Case("truncated", f'Here is the program:\n\n{F}python\nsummary = {{\n    "files": len(find_files("**/*.py")),\n    "todos": len(grep("TODO")),\n'),
    Case("truncated", 'def main():\n    hits = grep("TODO")\n    paths = sorted({h["path"] for h in hits})\n    return ", ".join(paths'),
    Case("truncated", 'import os\nfiles = os.listdir("src")\nnames = [f for f in files if f.endswith(".py'),
    Case("truncated", 'hits = grep("TODO")\nlen(hits)', cut=True),
    Case("truncated", f'{F}python\nfiles = find_files("**/*.py")\nsizes = {{f: len(read_file(f)) for f in files}}\nsizes\n{F}\n\nExplanation:\n1. find_files lists', cut=True),
    Case("truncated", 'result = []\nfor f in find_files("**/*.py"):\n    text = read_file(f)\n    if "TODO" in text:\n        result.append(f"{f}: {text.count(\'TODO\')} TO'),
    Case("truncated", 'hits = grep("TODO", glob="**/*.py")\n[h["path"] + ":" + str(h["line"]) for h in hi'),
    Case("truncated", 'while True:\n    files = find_files("**/*.py")\n    if files:\n        break\nfiles[0] +', cut=True),
    # -- jupyter_confusion: a session whose program fails or was cut -----------------------
    Case("jupyter_confusion", '!ls src\nfiles = find_files("**/*.py")\nlen(files)'),
    Case("jupyter_confusion", 'In [1]: files = !find . -name "*.py"\n\nIn [2]: len(files)\nOut[2]: 2'),
    Case("jupyter_confusion", '%cd src\nlen(find_files("**/*.py"))'),
    Case("jupyter_confusion", '>>> files = find_files("**/*.py")\n>>> files\n[\'src/app.py\', \'src/pkg/util.py\']\n>>> import os\n>>> os.path.getsize(files[0])\n40'),
    Case("none", 'In [1]: import glob\n\nIn [2]: files = glob.glob("src/**/*.py", recursive=True)\n\nIn [3]: files\nOut[3]: [\'src/app.py\']\n\nIn [4]: open(files[0]).readlines()[0]'),
    Case("jupyter_confusion", '>>> hits = grep("TODO")\n>>> for h in hits:\n...     print(h["path"], h["te'),
    Case("jupyter_confusion", 'In [1]: hits = grep("TODO")\n\nIn [2]: counts = {}\n\nIn [3]: for h in hits:\n   ...:     counts[h["path"]] = counts.get(h["path"], 0) + 1\n   ...: \n\nIn [4]: coun'),
    Case("jupyter_confusion", '>>> def count(p):\n...     return read_file(p).count("TODO")\n...\n>>> sum(count(f) for f in find_files("**/*.py"))\n3\n>>> try:\n...     read_file("x")\n... except Exception:\n...     pass'),
    Case("jupyter_confusion", 'In [1]: %time hits = grep("TODO")\nCPU times: user 2 ms, sys: 0 ns, total: 2 ms\nWall time: 1.9 ms\n\nIn [2]: %run count.py'),
    Case("jupyter_confusion", 'x = 1\ndisplay(x)\nimport os\nos.getcwd()'),
    Case("none", 'In [1]: files = find_files("**/*.py")\n\nIn [2]: files = filter(lambda f: "pkg" in f, files)\n\nIn [3]: list(files)'),
    Case("jupyter_confusion", '>>> import subprocess\n>>> subprocess.run(["grep", "-r", "TODO", "."])\nCompletedProcess(args=[...], returncode=0)'),
    Case("jupyter_confusion", '>>> files = find_files("**/*.py")\n>>> len(files)\n2\n>>> for f in files:\n...     print(f, read_file(f).count("TODO"))\n...\nsrc/app.py 2\nsrc/pkg/util.py 1\n>>> total = sum(read_file(f).count("TODO") for f in fil', cut=True),
    # -- syntax_artifact: text that is not code, before any cut ---------------------------------
    Case("syntax_artifact", ''),
    Case("syntax_artifact", 'files = find_files("**/*.py") # find all python files\ncount = 0\nfor f in files\n    count += read_file(f).count("TODO")\ncount'),
    Case("syntax_artifact", '1. files = find_files("**/*.py")\n2. todos = [read_file(f).count("TODO") for f in files]\n3. sum(todos)'),
    Case("syntax_artifact", 'files = find_files("**/*.py")  <- all python files\nsum(read_file(f).count("TODO") for f in files)'),
    Case("syntax_artifact", '`files = find_files("**/*.py")`\n`len(files)`'),
    Case("syntax_artifact", 'files = find_files("**/*.py")\n**Step 2**: count\ntotal = sum(read_file(f).count("TODO") for f in files)\ntotal\n\nThe total is computed by summing the', cut=True),
    Case("syntax_artifact", 'hits = grep("TODO")\nif len(hits) > 0\n    result = len(hits)\nelse:\n    result = 0\nresult\n\nThis first greps for TODO and then the'),
    Case("syntax_artifact", 'files = find_files("**/*.py")\nfor f in files:\nprint(f)\nlen(files)'),
    Case("syntax_artifact", 'files = find_files("**/*.py"))\nlen(files)'),
    Case("syntax_artifact", 'hits = grep("TODO")\n{h["path"] for h in hits]\n', cut=True),
    Case("syntax_artifact", 'files := find_files("**/*.py")\nlen(files)'),
    Case("syntax_artifact", 'files = find_files("**/*.py")\ncounts = [read_file(f).count("TODO") for f in files]\ncounts.sum()\n=> 3\nsum(counts) =\n'),
    # -- stdlib_leak ---------------------------------------------------------------------------
    Case("stdlib_leak", 'import os\ncount = 0\nfor root, dirs, files in os.walk("."):\n    for name in files:\n        if name.endswith(".py"):\n            count += open(os.path.join(root, name)).read().count("TODO")\nprint(count, file=sys.stderr)'),
    Case("stdlib_leak", 'import subprocess\nout = subprocess.run(["grep", "-rc", "TODO", "."], capture_output=True, text=True).stdout\nout'),
    Case("stdlib_leak", 'import re\nsum(len(re.findall(r"TODO", read_file(f))) for f in find_files("**/*.py"))'),
    Case("stdlib_leak", f'{F}python\nfrom pathlib import Path\nsum(p.read_text().count("TODO") for p in Path(".").rglob("*.py") if p.stat().st_size)\n{F}'),
    Case("stdlib_leak", 'import json\ndata = json.loads(read_file("README.md"))\ndata'),
    Case("stdlib_leak", 'import os\nos.system("grep -r TODO .")'),
    Case("stdlib_leak", 'import numpy as np\ncounts = np.array([read_file(f).count("TODO") for f in find_files("**/*.py")])\ncounts.sum()'),
    Case("stdlib_leak", 'from collections import Counter\nCounter(h["path"] for h in grep("TODO"))'),
    Case("stdlib_leak", 'import os\ndef main():\n    return os.getcwd()\nmain()'),
    Case("stdlib_leak", 'import requests\nrequests.get("https://example.com").text'),
    Case("stdlib_leak", 'Here you go:\n\n```python\nimport shutil\nshutil.copy("README.md", "README.bak")\n```'),
    Case("stdlib_leak", 'files = find_files("**/*.py")\nfor f in files:\n    with open(f, "a") as out:\n        out.write("# checked\\n")\nlen(files)'),
    # -- implement_not_orchestrate -----------------------------------------------------------------
    Case("implement_not_orchestrate", 'def count_todos(path):\n    text = read_file(path)\n    n = 0\n    for line in text.splitlines():\n        if "TODO" in line:\n            n += 1\n    return n\n\ntotal = 0\nfor f in find_files("**/*.py"):\n    total += count_todos(f)\ntotal'),
    Case("implement_not_orchestrate", 'try:\n    text = read_file("README.md")\nexcept Exception:\n    text = ""\nlen(text)'),
    Case("implement_not_orchestrate", 'class Counter:\n    def __init__(self):\n        self.n = 0\n\nc = Counter()\nfor h in grep("TODO"):\n    c.n += 1\nc.n'),
    Case("implement_not_orchestrate", 'files = find_files("**/*.py")\ni = 0\nn = 0\nwhile i < len(files) and n < 2:\n    n += read_file(files[i]).count("TODO")\n    i += 1\nn'),
    Case("implement_not_orchestrate", 'def walk(paths):\n    for p in paths:\n        yield read_file(p)\n\nsum(t.count("TODO") for t in walk(find_files("**/*.py")))'),
    Case("implement_not_orchestrate", f'{F}python\ndef main():\n    try:\n        hits = grep("TODO")\n    except Exception as e:\n        return str(e)\n    return len(hits)\n\nmain()\n{F}'),
    Case("implement_not_orchestrate", 'def todo_count(p):\n    if not p.endswith(".py"):\n        return 0\n    return read_file(p).count("TODO")\n\ndef main():\n    return sum(todo_count(f) for f in find_files("**/*"))\n\nmain()'),
    Case("implement_not_orchestrate", 'files = find_files("**/*.py")\nreturn len(files)'),
    Case("implement_not_orchestrate", 'count = lambda p: read_file(p).count("TODO")\ncount = 0\nfor f in find_files("**/*.py"):\n    count += 1\ncount'),
    Case("implement_not_orchestrate", 'async def main():\n    return len(grep("TODO"))\n\nmain()'),
    Case("implement_not_orchestrate", 'hits = grep("TODO")\ntry:\n    first = hits[0]\nexcept IndexError:\n    first = None\nfirst'),
    Case("implement_not_orchestrate", 'def main():\n    total = 0\n    for f in find_files("**/*.py"):\n        total += read_file(f).count("TODO")\n    return total\n\nresult = main()\nwhile result > 100:\n    result -= 1\nresult'),
    # -- unknown_tool -----------------------------------------------------------------------------
    Case("unknown_tool", 'files = findfiles("**/*.py")\nlen(files)'),
    Case("unknown_tool", 'text = readfile("README.md")\nlen(text)'),
    Case("unknown_tool", 'hits = search("TODO")\nlen(hits)'),
    Case("unknown_tool", f'{F}python\nentries = list_directory("src")\n[e["name"] for e in entries]\n{F}', intent="list the entries of src"),
    Case("unknown_tool", 'files = find_file("**/*.py")\nsum(read_file(f).count("TODO") for f in files)'),
    Case("unknown_tool", 'hits = grep_files("TODO")\nlen(hits)'),
    Case("unknown_tool", 'sum(read(f).count("TODO") for f in find_files("**/*.py"))'),
    Case("unknown_tool", 'write("notes.txt", "done")', intent="write done to notes.txt"),
    Case("unknown_tool", 'def main():\n    files = find_filez("**/*.py")\n    return len(files)\n\nmain()'),
    Case("unknown_tool", 'content = read_files("README.md")\ncontent.count("Demo")'),
    # -- invalid -----------------------------------------------------------------------------------
    Case("invalid", 'x = eval("1 + 1")\nx'),
    Case("invalid", 'len(files)'),
    Case("none", '"{} TODOs".format(len(grep("TODO")))'),
    Case("invalid", 'hits = grep("TODO")\nlen(result)'),
    Case("invalid", 'exec("x = 1")\nx'),
    Case("invalid", 'files = find_files("**/*.py")\nfiles.__class__'),
    Case("invalid", 'del files\nlen(grep("TODO"))'),
    Case("invalid", f'{F}python\nhits = grep("TODO")\ntotal = len(hits)\nanswer\n{F}'),
    # -- path_prefix ---------------------------------------------------------------------------------
    Case("path_prefix", 'files = find_files("*.py")\nsum(read_file(f).count("TODO") for f in files)'),
    Case("path_prefix", 'read_file("/home/user/project/README.md").count("Demo")'),
    Case("path_prefix", 'read_file("app.py").count("TODO")'),
    Case("path_prefix", 'files = find_files("*.py")\nread_file(files[0]).count("TODO")'),
    Case("path_prefix", 'hits = grep("TODO", glob="*.py")\nlen(hits)'),
    Case("path_prefix", 'read_file("./src/missing.py")'),
    Case("path_prefix", 'list_dir("pkg")', intent="list the entries of pkg"),
    Case("none", 'files = find_files("src/*.py")\nfirst = files[0]\nbiggest = max(files, key=lambda f: len(read_file(f)))\nbiggest', intent="which python file is the biggest"),
    Case("path_prefix", 'files = find_files("util.py")\nread_file(files[0])', intent="show util.py"),
    # -- key_hallucination ---------------------------------------------------------------------------
    Case("key_hallucination", 'hits = grep("TODO")\n[h["file"] for h in hits]', intent="which files have TODOs"),
    Case("key_hallucination", '[h.get("file") for h in grep("TODO")]', intent="which files have TODOs"),
    Case("key_hallucination", '[h.get("file").lower() for h in grep("TODO")]', intent="which files have TODOs"),
    Case("key_hallucination", 'entries = list_dir("src")\n[e["filename"] for e in entries]', intent="list the entries of src"),
    Case("key_hallucination", 'hits = grep("TODO")\nsorted(h["lineno"] for h in hits)'),
    Case("key_hallucination", 'hits = grep("TODO")\n{h.get("filename", "").split("/")[-1] for h in hits}', intent="which files have TODOs"),
    Case("key_hallucination", 'files = find_files("**/*.py")\n[f["path"] for f in files]', intent="list the python files"),
    # -- wrong_output ----------------------------------------------------------------------------------
    Case("wrong_output", 'files = find_files("**/*.py")'),
    Case("wrong_output", 'total = sum(read_file(f).count("TODO") for f in find_files("**/*.py"))'),
    Case("wrong_output", '[f for f in find_files("**/*.py") if "todo" in read_file(f)]', intent="which files contain TODO"),
    Case("wrong_output", '[f for f in find_files("**/*.py") if f.endswith(".js")]', intent="list the python files"),
    Case("none", 'def main():\n    hits = grep("TODO")\n    len(hits)\n\nmain()'),
    Case("wrong_output", 'files = [f for f in find_files("**/*.py") if f.startswith("/")]\nmax(files, key=lambda f: len(read_file(f)))', intent="which python file is the biggest"),
    Case("wrong_output", 'todo = [f for f in find_files("**/*.py") if "todo" in read_file(f)]\ntodo[0]', intent="which file has a TODO"),
    Case("wrong_output", 'counts = [read_file(f).count("todo") for f in find_files("**/*.py")]\nsum(counts) / len([c for c in counts if c])', intent="the average number of TODOs per file that has one"),
    Case("wrong_output", 'hits = grep("TODO")\nhits.sort(key=lambda h: h["path"])'),
    # -- runtime_error -----------------------------------------------------------------------------------
    Case("runtime_error", 'read_file("src/missing.py")'),
    Case("runtime_error", 'd = {"a": 1}\nd["b"]'),
    Case("runtime_error", 'files = find_files("**/*.rs")\nread_file(files[0])', intent="show the first rust file"),
    Case("runtime_error", 'n = len(grep("TODO"))\n"found " + n'),
    Case("runtime_error", 'int(read_file("README.md"))'),
    Case("runtime_error", 'lines = read_file("README.md").splitlines()\nlines[10]', intent="show the eleventh line of the readme"),
    Case("runtime_error", 'hits = grep("TODO")\nhits[0]["line"] / 0'),
    Case("runtime_error", 'files = find_files("**/*.go")\nmax(files, key=len)', intent="the longest go file name"),
    # -- limit -------------------------------------------------------------------------------------------------
    Case("limit", 'x = 0\nfor i in range(10 ** 9):\n    x += i\nx'),
    Case("limit", 'hits = []\nfor i in range(1000):\n    hits += grep("TODO")\nlen(hits)'),
    # -- a second batch, labelled before the changed classifier saw it ------------------------------
    Case("jupyter_confusion", '>>> files = find_files("**/*.py")\n>>> len(fiels)\n2'),
    Case("none", 'banner = ">>> start"\nlen(banner + read_file("README.md"))'),
    Case("truncated", 'def main():\n    files = find_files("**/*.py")\n    for f in files:\n        if "TODO" in read_file(f'),
    Case("jupyter_confusion", '!ls\nlen(grep("TODO"))', cut=True),
    Case("truncated", 'import os\nfor root, dirs, files in os.walk("."):\n    for f in fi'),
    Case("jupyter_confusion", '>>> files = find_files("**/*.py")\n>>> for f in files\n...     print(f)'),
    Case("runtime_error", '[f for f in find_files("**/*.rs") if "x" in f][0]', intent="the first rust file"),
    Case("runtime_error", 'files = [f for f in find_files("**/*.py") if f.endswith(".py")]\nread_file(files[0]).splitlines()[50]', intent="the 51st line of the first python file"),
    Case("key_hallucination", 'sorted(h.get("lineno") for h in grep("TODO"))'),
    Case("stdlib_leak", 'Here is a solution:\nimport glob, os\nfiles = glob.glob("**/*.py", recursive=True)\n[os.path.getmtime(f) for f in files]'),
    Case("implement_not_orchestrate", 'counts = {}\nfor h in grep("TODO"):\n    try:\n        counts[h["path"]] += 1\n    except KeyError:\n        counts[h["path"]] = 1\ncounts'),
    Case("syntax_artifact", 'files = find_files("**/*.py")\nfor f in files:\n    print(f)\n  len(files)'),
]
