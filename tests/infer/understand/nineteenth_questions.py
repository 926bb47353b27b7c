"""A nineteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a temporary directory, looked around it the way a newcomer would (file listing, sizes, a skim of the modules, the TODO/FIXME comments, the long lines), then typed the questions a developer might ask an assistant about it in one sitting, one per message, in their own casual words. Every expected answer is computed below from the generated files with the standard library only (os, ast, re, statistics, collections); rankings assert that there is no tie at the place asked, and where a careful reader could fairly take a question another way the second reading is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    texts = {}
    for dirpath, dirnames, filenames in os.walk(R):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                texts[rel] = handle.read()

    size = {p: len(t.encode()) for p, t in texts.items()}
    lines = {p: t.splitlines() for p, t in texts.items()}
    py = sorted(p for p in texts if p.endswith('.py'))
    trees = {p: ast.parse(texts[p]) for p in py}

    def under(path, folder):
        return path.startswith(folder.rstrip('/') + '/')

    def defs(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def params(fn, with_self=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if a.vararg:
            names.append(a.vararg.arg)
        if a.kwarg:
            names.append(a.kwarg.arg)
        if not with_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return names

    def imported_modules(p):
        mods = []
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                mods += [alias.name for alias in n.names]
            elif isinstance(n, ast.ImportFrom):
                mods.append(('.' * n.level) + (n.module or ''))
        return mods

    def top(counter_items, k=1):
        """The key at place k (1-based) of a ranking given as (key, value) pairs; asserts no tie at that place."""
        ranked = sorted(counter_items, key=lambda kv: -kv[1])
        assert ranked[k - 1][1] != ranked[k][1], ranked[:k + 1]
        if k > 1:
            assert ranked[k - 2][1] != ranked[k - 1][1], ranked[:k + 1]
        return ranked[k - 1][0]

    def comment_count(text, word):
        return len(re.findall(r'#\s*' + word + r'\b', text))

    shop_py = [p for p in py if under(p, 'shop')]
    tests_py = [p for p in py if under(p, 'tests')]
    md = [p for p in texts if p.endswith('.md')]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    q('count', 'number', "how many files are there in the whole project?", len(texts))
    # 2
    q('size', 'number', "How big is the docs folder altogether, in bytes?",
      sum(size[p] for p in texts if under(p, 'docs')))
    # 3
    q('rank', 'path', "Which python file has the most lines?",
      top([(p, len(lines[p])) for p in py]))
    # 4
    q('ordinal', 'path', "What's the 3rd biggest file in the repo by size?",
      top([(p, size[p]) for p in texts], 3))
    # 5 (README.md counts as a markdown file)
    q('ordinal', 'path', "which markdown file is the second longest, line-wise?",
      top([(p, len(lines[p])) for p in md], 2))
    # 6
    q('lines', 'number', "How many lines are there in the entire project, every file included?",
      sum(len(lines[p]) for p in texts))
    # 7
    q('lines', 'number', "How many blank lines are in the shop package's Python code?",
      sum(1 for p in shop_py for line in lines[p] if not line.strip()))
    # 8
    q('lines', 'number', "how many lines run past 100 characters? count every file, not just the python",
      sum(1 for p in texts for line in lines[p] if len(line) > 100))
    # 9
    longest_line = {p: max((len(line) for line in lines[p]), default=0) for p in texts}
    q('lines', 'path', "Where's the single longest line in the codebase? Which file?",
      top(list(longest_line.items())))
    # 10
    q('todo', 'number', "How many TODOs are in the shop package?",
      sum(comment_count(texts[p], 'TODO') for p in texts if under(p, 'shop')))
    # 11
    q('todo', 'path', "Which file has the most TODO + FIXME comments put together?",
      top([(p, comment_count(texts[p], 'TODO') + comment_count(texts[p], 'FIXME')) for p in texts]))
    # 12
    q('todo', 'bool', "Are there any FIXMEs in the tests folder?",
      any(comment_count(texts[p], 'FIXME') for p in texts if under(p, 'tests')))
    # 13 every def, methods and nested functions included (the question says so)
    q('functions', 'number', "how many functions are defined under shop/? methods count too",
      sum(len(defs(p)) for p in shop_py))
    # 14 every def in shop/, methods included (the module-level-only reading gives the same name; asserted)
    longest_name = top([(n.name, len(n.name)) for p in shop_py for n in defs(p)])
    assert longest_name == top([(n.name, len(n.name)) for p in shop_py for n in top_defs(p)])
    q('functions', 'name', "What's the longest function name in the shop package?", longest_name)
    # 15 every def in shop/ (methods included) whose name starts with get_
    q('functions', 'list of names', "which functions in shop start with get_ ?",
      sorted({n.name for p in shop_py for n in defs(p) if n.name.startswith('get_')}))
    # 16 the def that comes last in the file, by line number
    q('functions', 'name', "what's the last function in shop/utils/dates.py?",
      max(defs('shop/utils/dates.py'), key=lambda n: n.lineno).name)
    # 17 every def in the project, methods included; length from the def line to its last line
    span = [(n.name, n.end_lineno - n.lineno + 1) for p in py for n in defs(p)]
    span_with_decorators = [(n.name, n.end_lineno - min([n.lineno] + [d.lineno for d in n.decorator_list]) + 1)
                            for p in py for n in defs(p)]
    longest_fn = top(span)
    assert longest_fn == top(span_with_decorators)
    q('functions', 'name', "Which function is the longest, in lines?", longest_fn)
    # 18
    where = [p for p in py if any(n.name == 'slugify' for n in defs(p))]
    assert len(where) == 1
    q('functions', 'path', "where's slugify defined?", where[0])
    # 19
    q('classes', 'path', "Which file defines the most classes?",
      top([(p, len(classes(p))) for p in py]))
    # 20 classes listing Exception itself among their bases
    q('classes', 'number', "How many classes extend Exception directly?",
      sum(1 for p in py for c in classes(p)
          if any(isinstance(b, ast.Name) and b.id == 'Exception' for b in c.bases)))
    # 21 methods = defs directly in a class body
    q('methods', 'name', "which class has the most methods?",
      top([(c.name, len(methods(c))) for p in py for c in classes(p)]))
    # 22 self not counted; ALT counts it
    http_init = [m for p in py for c in classes(p) if c.name == 'HttpProvider'
                 for m in methods(c) if m.name == '__init__']
    assert len(http_init) == 1
    q('params', 'number', "How many params does HttpProvider's __init__ take?",
      len(params(http_init[0], with_self=False)))
    # 23 methods of classes in shop/models; same winner with or without self/cls (asserted)
    model_methods = [m for p in shop_py if under(p, 'shop/models') for c in classes(p) for m in methods(c)]
    most_args = top([(m.name, len(params(m, with_self=False))) for m in model_methods])
    assert most_args == top([(m.name, len(params(m))) for m in model_methods])
    q('params', 'name', "Which method in shop/models takes the most arguments?", most_args)
    # 24 import and from-import statements anywhere in the file
    q('imports', 'path', "What module has the most import statements?",
      top([(p, sum(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(trees[p]))) for p in py]))
    # 25
    q('imports', 'bool', "does anything actually import yaml?",
      any(m.split('.')[0] == 'yaml' for p in py for m in imported_modules(p)))
    # 26
    q('imports', 'bool', "Does the payment code use the requests library?",
      'requests' in imported_modules('shop/services/payment.py'))
    # 27 empty files count as having no docstring; ALT leaves the empty files out
    no_doc = [p for p in py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many python files don't have a module docstring?", len(no_doc))
    # 28 every def in shop/, methods included; ALT module-level functions only
    shop_defs = [n for p in shop_py for n in defs(p)]
    shop_top = [n for p in shop_py for n in top_defs(p)]
    q('docstrings', 'share', "What % of the functions in shop/ have a docstring?",
      100 * sum(ast.get_docstring(n) is not None for n in shop_defs) / len(shop_defs))
    # 29 all .py files in tests/, the empty __init__.py included; ALT leaves empty files out
    q('stats', 'number', "What's the average size of the python files in tests/, in bytes?",
      statistics.mean(size[p] for p in tests_py))
    # 30 all .py files under shop/, empty ones included
    q('stats', 'number', "median line count for the .py files under shop?",
      statistics.median(len(lines[p]) for p in shop_py))
    # 31
    q('stats', 'share', "What percentage of the project's total bytes is Python code?",
      100 * sum(size[p] for p in py) / sum(size.values()))
    # 32 (no .py file falls between 2,000 and 2,048 bytes, so 2 KB either way; asserted)
    assert not any(2000 < size[p] <= 2048 for p in py)
    q('compare', 'number', "How many .py files are bigger than 2,000 bytes?",
      sum(1 for p in py if size[p] > 2000))
    # 33 (false for 10,000 and for 10,240 bytes alike)
    assert (max(size.values()) > 10000) == (max(size.values()) > 10240)
    q('compare', 'bool', "Is any file in here larger than 10 KB?", max(size.values()) > 10000)
    # 34
    q('compare', 'bool', "is routes.py over 250 lines long?", len(lines['shop/api/routes.py']) > 250)
    # 35 lines of the .py files, summed per direct subfolder of shop/
    per_sub = collections.Counter()
    for p in shop_py:
        parts = p.split('/')
        if len(parts) > 2:
            per_sub['/'.join(parts[:2])] += len(lines[p])
    q('folder', 'folder', "Which subpackage of shop has the most lines of code?", top(list(per_sub.items())))
    # 36 defs whose name starts with test_
    q('scope', 'number', "How many test functions are in tests/test_api.py?",
      sum(1 for n in defs('tests/test_api.py') if n.name.startswith('test_')))

    ALT = {
        22: len(params(http_init[0])),
        27: len([p for p in no_doc if texts[p].strip()]),
        28: 100 * sum(ast.get_docstring(n) is not None for n in shop_top) / len(shop_top),
        29: statistics.mean(size[p] for p in tests_py if texts[p].strip()),
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
