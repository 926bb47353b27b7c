"""A blind set of 40 everyday questions about the benchmark code base, written on 2026-11-29 by an engineer who had not read the parser, its tests or its README paragraph.

The questions are phrased the way a developer types them about a code base
they have just been handed: capitals and question marks, contractions,
"largest first", ordinals, "modules", "the README", "everything under
src", "TODO-free", and existence questions whose true answer is no or 0.
Every answer was computed by plain Python (standard library only) over the
fixture that ``bench/workloads/make_workspace.py`` writes, and the questions,
their answers and the acceptable second readings of a few of them
(``alternatives``) were recorded here before any question was asked of
lackpy.
"""

import ast
import collections
import os
import re
import statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for d, _, fs in os.walk(R):
        for f in fs:
            p = os.path.relpath(os.path.join(d, f), R)
            with open(os.path.join(d, f)) as fh:
                files[p] = fh.read()
    L = {p: t.splitlines() for p, t in files.items()}
    B = {p: len(t.encode()) for p, t in files.items()}
    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}
    pkg = lambda p: os.path.dirname(p)
    pkgs = collections.defaultdict(list)
    for p in py:
        pkgs[pkg(p)].append(p)

    def top(d, n=1, rev=True):
        """The first ``n`` keys of ``d`` by value, with no tie at any of the first ``n`` places."""
        s = sorted(d.items(), key=lambda kv: kv[1], reverse=rev)
        for i in range(min(n, len(s) - 1)):
            assert s[i][1] != s[i + 1][1], ('tie', s[:n + 1])
        return [k for k, _ in s[:n]]

    def funcs(p):
        """The functions a module defines, in the order they appear."""
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    names = lambda p: [f.name for f in funcs(p)]
    allnames = [f for p in py for f in names(p)]
    has = lambda p, w: any(w in l for l in L[p])
    ntodo = lambda p: sum('TODO' in l for l in L[p])

    # functions that carry a TODO: a TODO line between a def and the next def belongs to that def
    todo_funcs = []
    for p in py:
        current = None
        for l in L[p]:
            m = re.match(r'\s*def (\w+)', l)
            if m:
                current = (p, m.group(1))
            elif 'TODO' in l and current and current not in todo_funcs:
                todo_funcs.append(current)
    nfuncs = len(allnames)

    imported = set()
    classes = []
    for p in py:
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                imported |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom):
                imported.add(n.module or '.')
            elif isinstance(n, ast.ClassDef):
                classes.append(p)

    name_files = collections.Counter(f for p in py for f in set(names(p)))
    most = max(name_files.values())
    longest_name = top({f: len(f) for f in set(allnames)})[0]
    longest_line = max(len(l) for p in files for l in L[p])

    Q = []  # (kind, answer-type, question, expected)
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # rankings
    q('rank', 'path', "What's the biggest file?", top(B)[0])                                                   # 1
    q('rank', 'number', "How big is the largest module?", max(B[p] for p in py))                               # 2
    q('rank', 'path', "Which is the second largest file?", top(B, 2)[1])                                       # 3
    q('rank', 'list of paths', "Show me the 4 biggest Python files, largest first.", top({p: B[p] for p in py}, 4))  # 4
    q('rank', 'path', "What's the third largest module in src/pkg5?", top({p: B[p] for p in pkgs['src/pkg5']}, 3)[2])  # 5
    q('rank', 'folder', "Which package defines the most functions?", top({k: sum(len(funcs(p)) for p in v) for k, v in pkgs.items()})[0])  # 6
    q('rank', 'number', "How many lines does the shortest module have?", min(len(L[p]) for p in py))           # 7
    q('rank', 'folder', "Which package has the most TODO-free modules?", top({k: sum(not has(p, 'TODO') for p in v) for k, v in pkgs.items()})[0])  # 8
    # definitions and names
    where = [p for p in py if 'parse_order_7' in names(p)]
    assert len(where) == 1, where
    q('name', 'path', "Where is `parse_order_7` defined?", where[0])                                           # 9
    q('name', 'list of paths', "Which files define a function called delta_cache_3?", sorted(p for p in py if 'delta_cache_3' in names(p)))  # 10
    q('name', 'name', "What's the longest function name?", longest_name)                                       # 11
    q('name', 'number', "How many distinct function names are there?", len(set(allnames)))                    # 12
    q('name', 'name', "What's the first function in src/pkg3/mod13.py?", names('src/pkg3/mod13.py')[0])       # 13
    q('name', 'name', "What's the last function defined in src/pkg2/mod12.py?", names('src/pkg2/mod12.py')[-1])  # 14
    q('name', 'text', "What's the docstring of src/pkg4/mod84.py?", ast.get_docstring(trees['src/pkg4/mod84.py']))  # 15
    q('name', 'number', "How many distinct modules are imported across the code base?", len(imported))        # 16
    q('name', 'list of paths', "Which files define a class?", sorted(set(classes)))                            # 17
    q('name', 'list of names', "Which function names show up in the most modules?", sorted(f for f, n in name_files.items() if n == most))  # 18
    q('name', 'number', "How many functions start with retry_?", sum(1 for f in allnames if f.startswith('retry_')))  # 19
    q('name', 'number', "What's the average length of a function name?", sum(len(f) for f in allnames) / nfuncs)  # 20
    # lines
    l13 = L['src/pkg3/mod13.py']
    assert sum(len(l) == max(map(len, l13)) for l in l13) == 1
    q('lines', 'text', "What's the longest line in src/pkg3/mod13.py?", max(l13, key=len))                    # 21
    q('lines', 'number', "How long is the longest line in the code base?", longest_line)                       # 22
    q('lines', 'bool', "Is any line longer than 80 characters?", any(len(l) > 80 for p in files for l in L[p]))  # 23
    q('lines', 'list of paths', "Which modules in src/pkg4 have lines longer than 30 characters?", sorted(p for p in pkgs['src/pkg4'] if any(len(l) > 30 for l in L[p])))  # 24
    rl = L['README.md']
    assert sum(len(l) == max(map(len, rl)) for l in rl) == 1
    q('lines', 'text', "What's the longest line in the README?", max(rl, key=len))                            # 25
    q('lines', 'number', "How many lines does the README have?", len(rl))                                      # 26
    # statistics
    src = [p for p in files if p.startswith('src/')]
    q('stats', 'number', "What's the median file size under src, in bytes?", float(statistics.median(B[p] for p in src)))  # 27
    q('stats', 'share', "What percentage of the functions have a TODO comment?", 100 * len(todo_funcs) / nfuncs)  # 28
    q('stats', 'number', "What's the average module size in bytes?", sum(B[p] for p in py) / len(py))         # 29
    q('aggregate', 'number', "What's the total size of everything under src/pkg3?", sum(B[p] for p in files if p.startswith('src/pkg3/')))  # 30
    q('stats', 'number', "What's the median number of functions per module?", float(statistics.median(len(funcs(p)) for p in py)))  # 31
    q('stats', 'share', "What share of the modules define more than 10 functions?", 100 * sum(len(funcs(p)) > 10 for p in py) / len(py))  # 32
    q('stats', 'number', "On average, how many TODOs does a module have?", sum(ntodo(p) for p in py) / len(py))  # 33
    # existence
    q('exists', 'bool', "Is there a file called mod42.py in src/pkg2?", 'src/pkg2/mod42.py' in files)         # 34
    q('exists', 'bool', "Is there a file called utils.py anywhere under src?", any(os.path.basename(p) == 'utils.py' for p in src))  # 35
    q('exists', 'bool', "Do any of the files import os?", 'os' in imported or any(re.match(r'\s*(import os\b|from os\b)', l) for p in files for l in L[p]))  # 36
    q('exists', 'bool', "Are there any modules without a docstring?", any(ast.get_docstring(trees[p]) is None for p in py))  # 37
    q('exists', 'number', "How many modules are TODO-free?", sum(1 for p in py if not has(p, 'TODO')))        # 38
    q('exists', 'bool', "Do any of the functions take more than one argument?", any(len(f.args.args) + len(f.args.kwonlyargs) + len(f.args.posonlyargs) + bool(f.args.vararg) + bool(f.args.kwarg) > 1 for p in py for f in funcs(p)))  # 39
    # comparison
    q('compare', 'list of paths', "Which modules in src/pkg0 are bigger than 600 bytes?", sorted(p for p in pkgs['src/pkg0'] if B[p] > 600))  # 40

    # Alternatives recorded BEFORE asking (acceptable second readings):
    biggest = top({p: B[p] for p in py})[0]
    ALT = {
        2: len(L[biggest]),                                  # "how big" read as lines, not bytes
        21: max(l13, key=len).strip(),                       # the line without its indentation
        28: len(todo_funcs) / nfuncs,                        # a fraction rather than a percentage
        32: sum(len(funcs(p)) > 10 for p in py) / len(py),   # a fraction rather than a percentage
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
