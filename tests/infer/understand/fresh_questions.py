"""A second blind set of 36 everyday questions about the benchmark code base, written on 2026-11-29 by an engineer who had not read the parser, its tests or its README paragraph. They generated the 200-module fixture with bench/workloads/make_workspace.py into a temporary folder, browsed it the way a developer who had just been handed the code would (listing the src/pkgK folders, opening a few modules and the README), and then typed the questions they would naturally ask about it in a chat box, spread over rankings, superlatives, existence checks whose answer is no/zero/empty, statistics, comparisons, counts, function names, lines, reading and per-folder grouping. Every expected answer is computed here from the files with the standard library only; rankings assert that there is no tie at the places asked, names used in the questions are asserted to be unique, and fair second readings are recorded in ALT before the set was ever run against the answerer."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for d, _, fs in os.walk(R):
        for f in fs:
            full = os.path.join(d, f)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as h:
                files[rel] = h.read()
    py = {p: t for p, t in files.items() if p.endswith('.py')}
    readme = files['README.md']

    def folder(p):
        return p.rsplit('/', 1)[0]

    trees = {p: ast.parse(t) for p, t in py.items()}
    funcs = {p: [n for n in tree.body if isinstance(n, ast.FunctionDef)] for p, tree in trees.items()}
    names = {p: [n.name for n in fs] for p, fs in funcs.items()}
    lines = {p: t.splitlines() for p, t in py.items()}
    size = {p: len(t.encode()) for p, t in py.items()}
    nlines = {p: len(ls) for p, ls in lines.items()}
    nfuncs = {p: len(ns) for p, ns in names.items()}
    todos = {p: len(re.findall(r'\bTODO\b', t)) for p, t in py.items()}
    all_names = [n for p in sorted(names) for n in names[p]]

    def per_folder(d):
        g = collections.Counter()
        for p, v in d.items():
            g[folder(p)] += v
        return g

    def top(d, n=1, rev=True):
        """The n keys with the largest (rev) or smallest values, in order; asserts no tie at those places."""
        items = sorted(d.items(), key=lambda kv: kv[1], reverse=rev)
        vals = [v for _, v in items[:n + 1]]
        assert len(set(vals)) == len(vals), ('tie', items[:n + 1])
        return [k for k, _ in items[:n]]

    def unique_max(values, key):
        best = max(key(v) for v in values)
        winners = sorted({v for v in values if key(v) == best})
        assert len(winners) == 1, winners
        return winners[0]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # --- rankings
    q('rank', 'path', "What's the biggest file in the code base?",
      top({p: len(t.encode()) for p, t in files.items()})[0])                                   # 1
    q('rank', 'list of paths', "What are the 4 biggest Python files in bytes, largest first?",
      top(size, 4))                                                                              # 2
    q('rank', 'path', "Which module has the 2nd most lines?", top(nlines, 2)[1])                 # 3
    pkg9 = {p: v for p, v in size.items() if folder(p) == 'src/pkg9'}
    q('rank', 'path', "What's the smallest module in src/pkg9?", top(pkg9, 1, rev=False)[0])    # 4
    q('rank', 'list of paths', "Top 3 packages by number of TODOs, largest first?",
      top(per_folder(todos), 3))                                                                 # 5

    # --- superlatives asked for their value
    q('superlative', 'number', "How long is the longest function name?", max(len(n) for n in all_names))  # 6
    q('superlative', 'number', "How long is the longest line in src/pkg1/mod171.py?",
      max(len(l) for l in lines['src/pkg1/mod171.py']))                                          # 7

    # --- existence (true answer no / 0 / empty)
    q('existence', 'bool', "Is there a function called main anywhere?", 'main' in all_names)     # 8
    imports_os = [p for p, tree in trees.items()
                  if any((isinstance(n, ast.Import) and any(a.name == 'os' for a in n.names))
                         or (isinstance(n, ast.ImportFrom) and n.module == 'os') for n in ast.walk(tree))]
    q('existence', 'number', "How many modules import os?", len(imports_os))                    # 9
    q('existence', 'list of paths', "Which modules don't have any functions in them?",
      sorted(p for p, k in nfuncs.items() if k == 0))                                            # 10
    has_class = any(isinstance(n, ast.ClassDef) for tree in trees.values() for n in ast.walk(tree))
    q('existence', 'bool', "Are there any classes defined in the code base?", has_class)        # 11

    # --- statistics
    q('stats', 'number', "What's the average number of functions per module?",
      statistics.mean(nfuncs.values()))                                                          # 12
    q('stats', 'number', "What's the median size of a module in bytes?",
      statistics.median(size.values()))                                                          # 13
    q('stats', 'number', "On average, roughly how many lines long is a module?",
      statistics.mean(nlines.values()))                                                          # 14

    def fn_has_todo(p, node):
        return any('TODO' in l for l in lines[p][node.lineno - 1:node.end_lineno])
    with_todo = sum(fn_has_todo(p, n) for p, fs in funcs.items() for n in fs)
    q('share', 'share', "What percentage of the functions have a TODO in them?",
      100 * with_todo / len(all_names))                                                          # 15
    q('share', 'share', "What share of the modules have at least one TODO?",
      100 * sum(1 for v in todos.values() if v) / len(py))                                       # 16
    all_lines = [l for p in sorted(lines) for l in lines[p]]
    q('share', 'share', "What percentage of the lines in the Python files are blank?",
      100 * sum(1 for l in all_lines if not l.strip()) / len(all_lines))                         # 17

    # --- comparisons against numbers
    q('compare', 'number', "How many modules are longer than 30 lines?",
      sum(1 for v in nlines.values() if v > 30))                                                 # 18
    q('compare', 'list of paths', "Which files in src/pkg4 have more than 10 functions?",
      sorted(p for p, k in nfuncs.items() if folder(p) == 'src/pkg4' and k > 10))                # 19

    # --- counting
    q('count', 'number', "How many lines are there in all the Python files put together?",
      len(all_lines))                                                                            # 20
    q('count', 'number', "How many TODOs are there in the pkg2 folder?",
      per_folder(todos)['src/pkg2'])                                                             # 21
    q('count', 'number', "How many Python files does the code base have?", len(py))             # 22
    q('count', 'number', "How many words are in the README?", len(re.findall(r'\w+', readme)))  # 23
    q('count', 'number', "How many functions are there in total?", len(all_names))              # 24

    # --- function names
    q('names', 'name', "What's the longest function name in the code base?",
      unique_max(all_names, len))                                                                # 25
    where = [p for p, ns in names.items() if 'parse_retry_10' in ns]
    assert len(where) == 1 and all_names.count('parse_retry_10') == 1, where
    q('names', 'path', "Where's parse_retry_10 defined?", where[0])                             # 26
    q('names', 'number', "How many functions start with retry_?",
      sum(1 for n in all_names if n.startswith('retry_')))                                       # 27
    q('names', 'number', "How many distinct function names are there?", len(set(all_names)))    # 28
    q('names', 'name', "What's the first function in src/pkg5/mod25.py?", names['src/pkg5/mod25.py'][0])  # 29
    mod100 = [p for p in py if p.endswith('/mod100.py')]
    assert len(mod100) == 1
    q('names', 'name', "What's the last function defined in mod100?", names[mod100[0]][-1])     # 30

    # --- lines
    q('lines', 'text', "What's the longest line in the code base?",
      unique_max([l for t in files.values() for l in t.splitlines()], len))                      # 31
    q('lines', 'number', "How many lines are longer than 25 characters?",
      sum(1 for t in files.values() for l in t.splitlines() if len(l) > 25))                     # 32

    # --- reading
    q('reading', 'text', "Show me the first 3 lines of src/pkg6/mod16.py",
      '\n'.join(lines['src/pkg6/mod16.py'][:3]))                                                 # 33
    q('reading', 'text', "What does the README say?", readme)                                   # 34
    mod42 = [p for p in py if p.endswith('/mod42.py')]
    assert len(mod42) == 1
    q('reading', 'text', "What's mod42's docstring?", ast.get_docstring(trees[mod42[0]]))       # 35

    # --- grouping per folder
    q('group', 'folder', "Which package has the most functions?", top(per_folder(nfuncs))[0])   # 36

    ALT = {
        20: len(all_lines) + len(readme.splitlines()),                   # "all the files" read as including the README
        23: len(readme.split()),                                          # whitespace-separated words, counting the '#'
        33: '\n'.join([l for l in lines['src/pkg6/mod16.py'] if l.strip()][:3]),  # the first 3 non-blank lines
        35: lines[mod42[0]][0],                                           # the docstring line with its quotes
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
