"""An eleventh blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a scratch directory, walked it with find, wc, grep and a small ast dump, and then wrote down the questions a developer newly handed this shop library would plausibly type into an assistant while finding their way around: how big things are, where things live, what is left to do, how well documented and tested it is, and a few quick yes/no checks before touching code. Each question is phrased casually and differently from the others, each answer is computed below from the files with the standard library only (nothing is typed in by hand), rankings assert that the places asked about are not tied, and where a careful reader could fairly understand a question another way the second reading is computed too and recorded in ALT. A few answers were re-derived by hand with grep and wc."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    texts = {}
    for dirpath, dirnames, filenames in os.walk(R):
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                texts[rel] = handle.read()
    size = {p: len(t.encode()) for p, t in texts.items()}
    lines = {p: t.splitlines() for p, t in texts.items()}
    py = sorted(p for p in texts if p.endswith('.py'))
    trees = {p: ast.parse(texts[p]) for p in py}

    def under(folder, paths=None):
        return sorted(p for p in (texts if paths is None else paths) if p.startswith(folder.rstrip('/') + '/'))

    def defs(p):
        """Every def in a file (module level, methods and nested), in source order."""
        return sorted((n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
                      key=lambda n: (n.lineno, n.col_offset))

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return sorted((n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)), key=lambda n: n.lineno)

    def methods(c):
        return [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def params(fn):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args]
        if a.vararg:
            names.append(a.vararg.arg)
        names += [x.arg for x in a.kwonlyargs]
        if a.kwarg:
            names.append(a.kwarg.arg)
        return names

    def imported_modules(p):
        """Modules named by import statements, relative ones resolved against the file's package."""
        pkg = p.split('/')[:-1]
        mods = []
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                mods += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg[:len(pkg) - (n.level - 1)]
                    mods.append('.'.join(base + ([n.module] if n.module else [])))
                else:
                    mods.append(n.module)
        return mods

    def top_ranked(scores, k):
        """The key at place k (1-based) of a descending ranking, asserting places 1..k are untied."""
        ordered = sorted(scores.items(), key=lambda kv: -kv[1])
        values = [v for _, v in ordered]
        for i in range(k):
            assert values.count(values[i]) == 1, (k, ordered[:k + 2])
        return ordered[k - 1][0]

    def is_blank(line):
        return line.strip() == ''

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1: by bytes, every file in the repo
    q('rank', 'path', "What's the second biggest file in the repo, size-wise?", top_ranked(size, 2))
    # 2
    q('count', 'number', "how many markdown files do we have in total?",
      sum(1 for p in texts if p.endswith('.md')))
    # 3
    q('size', 'number', "How many bytes do all the files in config/ add up to?",
      sum(size[p] for p in under('config')))
    # 4: every line, blank ones included (alt: non-blank lines only)
    tests_py = under('tests', py)
    q('lines', 'number', "How many lines of Python are in the tests folder, all told?",
      sum(len(lines[p]) for p in tests_py))
    # 5
    q('blank', 'number', "How many blank lines are there in shop/models/order.py?",
      sum(1 for l in lines['shop/models/order.py'] if is_blank(l)))
    # 6: every file, not just Python
    q('long-lines', 'number', "Across the whole project, how many lines are longer than 100 characters?",
      sum(1 for p in texts for l in lines[p] if len(l) > 100))
    # 7
    longest_line = {p: max((len(l) for l in lines[p]), default=0) for p in texts}
    q('rank', 'path', "Which file has the single longest line in it?", top_ranked(longest_line, 1))
    # 8: TODO comments anywhere under shop/
    todo = {p: sum(1 for l in lines[p] if re.search(r'#.*\bTODO\b', l)) for p in texts}
    q('todo', 'number', "how many TODOs are left in the shop package?", sum(todo[p] for p in under('shop')))
    # 9
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(p for p in texts if any(re.search(r'#.*\bFIXME\b', l) for l in lines[p])))
    # 10: module-level defs only (alt: every def, methods and nested ones included)
    utils_py = under('shop/utils', py)
    q('functions', 'number', "How many top-level functions are there in shop/utils?",
      sum(len(top_defs(p)) for p in utils_py))
    # 11: direct subclasses
    q('classes', 'number', "How many exception classes inherit from ApiError?",
      sum(1 for p in py for c in classes(p)
          if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in c.bases)))
    # 12: methods = defs directly in the class body (properties and dunders included)
    method_count = {c.name: len(methods(c)) for p in py for c in classes(p)}
    assert len(method_count) == sum(len(classes(p)) for p in py)  # class names are unique
    q('methods', 'name', "Which class has the most methods?", top_ranked(method_count, 1))
    # 13
    where = [p for p in py for n in defs(p) if n.name == 'business_days_after']
    assert len(where) == 1
    q('where', 'path', "Where's business_days_after defined?", where[0])
    # 14
    q('first-last', 'name', "What's the last function defined in shop/utils/dates.py?",
      defs('shop/utils/dates.py')[-1].name)
    # 15: test functions = defs named test_* under tests/
    test_names = {n.name for p in tests_py for n in defs(p) if n.name.startswith('test_')}
    q('names', 'name', "what's the longest test function name we've got?",
      top_ranked({n: len(n) for n in test_names}, 1))
    # 16: functions and methods alike
    q('names', 'list of names', "Any functions or methods in shop/ whose names start with is_? Which ones?",
      sorted({n.name for p in under('shop', py) for n in defs(p) if n.name.startswith('is_')}))
    # 17: self not counted (alt: counted)
    add_address = [n for p in py for n in defs(p) if n.name == 'add_address']
    assert len(add_address) == 1
    q('params', 'number', "How many arguments does User.add_address take, not counting self?",
      len(params(add_address[0])) - 1)
    # 18
    truncate = [n for p in py for n in defs(p) if n.name == 'truncate']
    assert len(truncate) == 1
    q('params', 'list of names', "What params does truncate() take?", params(truncate[0]))
    # 19: modules as written in the import statements (alt: top-level packages only)
    cli_mods = sorted(set(imported_modules('shop/cli.py')))
    q('imports', 'list of names', "What does shop/cli.py import? Just the module names please", cli_mods)
    # 20
    q('imports', 'list of paths', "Which files import pytest?",
      sorted(p for p in py if 'pytest' in imported_modules(p)))
    # 21: '# TODO' comments per file, anywhere in the repo
    q('todo', 'path', "Which file has the most TODO comments?", top_ranked(todo, 1))
    # 22: empty files count as having no docstring (alt: empty files left out)
    no_doc = [p for p in py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many .py files don't have a module docstring?", len(no_doc))
    # 23: every def in shop/models, methods included (alt: module-level functions only)
    models_defs = [n for p in under('shop/models', py) for n in defs(p)]
    q('docstrings', 'share', "What percentage of the functions in shop/models have docstrings?",
      100 * sum(1 for n in models_defs if ast.get_docstring(n)) / len(models_defs))
    # 24: includes shop/services/__init__.py
    q('stats', 'number', "What's the average line count of the Python files in shop/services?",
      statistics.mean(len(lines[p]) for p in under('shop/services', py)))
    # 25: every file, empty ones included
    q('stats', 'number', "median file size in bytes across the whole repo?",
      statistics.median(size.values()))
    # 26
    q('stats', 'share', "What % of the repo's bytes are Python code?",
      100 * sum(size[p] for p in py) / sum(size.values()))
    # 27
    q('compare', 'bool', "Are there more than 50 files in this repo?", len(texts) > 50)
    # 28
    q('compare', 'bool', "Is routes.py over 250 lines long?", len(lines['shop/api/routes.py']) > 250)
    # 29
    inventory = [c for p in py for c in classes(p) if c.name == 'Inventory']
    assert len(inventory) == 1
    q('yes-no', 'bool', "Does the Inventory class have a release method?",
      any(m.name == 'release' for m in methods(inventory[0])))
    # 30
    q('yes-no', 'bool', "does tests/test_text.py import pytest?",
      'pytest' in imported_modules('tests/test_text.py'))
    # 31: subpackages directly under shop/, classes in all their files
    subpackages = sorted({p.split('/')[1] for p in under('shop', py) if p.count('/') >= 2})
    class_by_pkg = {'shop/' + s: sum(len(classes(p)) for p in under('shop/' + s, py)) for s in subpackages}
    q('per-folder', 'folder', "Which subpackage of shop defines the most classes?", top_ranked(class_by_pkg, 1))
    # 32: every line of every file in shop/api
    q('per-folder', 'number', "What's the total line count across everything in shop/api?",
      sum(len(lines[p]) for p in under('shop/api')))
    # 33: Python files anywhere under shop/, by line count
    q('rank', 'path', "What's the third-longest Python file in shop/ by line count?",
      top_ranked({p: len(lines[p]) for p in under('shop', py)}, 3))
    # 34: defs named test_*
    q('tests', 'number', "How many test functions are in tests/test_api.py?",
      sum(1 for n in defs('tests/test_api.py') if n.name.startswith('test_')))
    # 35
    q('decorators', 'number', "how many handlers in shop/api/routes.py are decorated with @require_auth?",
      sum(1 for n in defs('shop/api/routes.py')
          if any(isinstance(d, ast.Name) and d.id == 'require_auth' for d in n.decorator_list)))
    # 36: the comment's words after 'FIXME:' (alt: the whole comment line)
    fixme_lines = [l.strip() for l in lines['shop/utils/cache.py'] if 'FIXME' in l]
    assert len(fixme_lines) == 1
    q('todo', 'text', "What does the FIXME in shop/utils/cache.py say?",
      re.sub(r'^#\s*FIXME:?\s*', '', fixme_lines[0]))

    ALT = {
        4: sum(1 for p in tests_py for l in lines[p] if not is_blank(l)),
        10: sum(len(defs(p)) for p in utils_py),
        17: len(params(add_address[0])),
        19: sorted({m.split('.')[0] for m in cli_mods}),
        22: sum(1 for p in no_doc if texts[p].strip()),
        23: (lambda fs: 100 * sum(1 for n in fs if ast.get_docstring(n)) / len(fs))(
            [n for p in under('shop/models', py) for n in top_defs(p)]),
        36: fixme_lines[0],
    }
    assert len(Q) == 36
    return Q, ALT

if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
