"""A tenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a temporary directory, looked at it the way a reviewer would (a file listing with sizes and line counts, the Python files' classes, functions, imports and docstrings, the TODO/FIXME comments, the long lines, the docs' headings), and then wrote down the questions they would type to an assistant while putting together a review summary, one per message, each in its own casual wording. Every answer below is computed from the generated files with ast, re, os, statistics and collections, never typed in by hand; rankings assert that the place asked has no tie, and where a careful reader could fairly take a question another way the second reading is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for dp, dn, fn in os.walk(R):
        dn.sort()
        for f in sorted(fn):
            p = os.path.join(dp, f)
            rel = os.path.relpath(p, R).replace(os.sep, '/')
            with open(p, encoding='utf-8') as fh:
                files[rel] = fh.read()
    size = {p: len(t.encode()) for p, t in files.items()}
    lines = {p: t.splitlines() for p, t in files.items()}
    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}
    DEF = (ast.FunctionDef, ast.AsyncFunctionDef)

    def folder(p):
        return p.rsplit('/', 1)[0] if '/' in p else '.'

    def under(p, d):
        return p.startswith(d.rstrip('/') + '/')

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, DEF)]

    def all_defs(p):
        return sorted((n for n in ast.walk(trees[p]) if isinstance(n, DEF)), key=lambda n: (n.lineno, n.col_offset))

    def classes(p):
        return sorted((n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)), key=lambda n: n.lineno)

    def methods(c):
        return [n for n in c.body if isinstance(n, DEF)]

    def nparams(fn):
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def comments(p, word):
        # comment lines carrying the marker (as '# TODO' / '# FIXME')
        return [l for l in lines[p] if re.search(r'#\s*' + word + r'\b', l)]

    def module_of(p):
        m = p[:-3].split('/')
        if m[-1] == '__init__':
            m = m[:-1]
        return m

    def imported_modules(p):
        # absolute module names a file imports from, relative imports resolved
        out = []
        pkg = module_of(p) if p.endswith('__init__.py') else module_of(p)[:-1]
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                out += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg[:len(pkg) - (n.level - 1)]
                    mod = '.'.join(base + ([n.module] if n.module else []))
                else:
                    mod = n.module
                out.append(mod)
                out += [mod + '.' + a.name for a in n.names]
        return out

    def strictly_first(pairs, place=1):
        """pairs: (item, value), higher is better; the item at `place`, asserting no tie there."""
        s = sorted(pairs, key=lambda kv: -kv[1])
        v = s[place - 1][1]
        assert sum(1 for _, x in s if x == v) == 1, (place, s[:place + 2])
        return s[place - 1][0]

    shop_py = [p for p in py if under(p, 'shop')]
    test_py = [p for p in py if under(p, 'tests')]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    models = [p for p in py if folder(p) == 'shop/models']
    q('rank', 'path', "Which module in shop/models is the second biggest, in bytes?",
      strictly_first([(p, size[p]) for p in models], 2))

    # 2
    h2 = sum(1 for p in files if p.startswith('docs/') and p.endswith('.md')
             for l in lines[p] if re.match(r'##\s', l))
    q('docs', 'number', "how many second-level headings (the ## ones) are there across all the docs pages?", h2)

    # 3
    q('size', 'number', "What do the shell scripts add up to in bytes, all together?",
      sum(size[p] for p in files if p.endswith('.sh')))

    # 4
    q('lines', 'number', "How many blank lines are in shop/api/routes.py?",
      sum(1 for l in lines['shop/api/routes.py'] if not l.strip()))

    # 5
    q('lines', 'number', "How many lines of Python code run past 100 characters?",
      sum(1 for p in py for l in lines[p] if len(l) > 100))

    # 6
    q('longest', 'path', "Which file in the repo has the single longest line?",
      strictly_first([(p, max((len(l) for l in lines[p]), default=0)) for p in files]))

    # 7
    q('todo', 'number', "how many TODOs are left in the shop package?",
      sum(len(comments(p, 'TODO')) for p in files if under(p, 'shop')))

    # 8
    q('fixme', 'list of paths', "Which files have got FIXME comments in them?",
      sorted(p for p in files if comments(p, 'FIXME')))

    # 9
    q('todo', 'path', "Which file has the most TODO + FIXME comments combined?",
      strictly_first([(p, len(comments(p, 'TODO')) + len(comments(p, 'FIXME'))) for p in files]))

    # 10
    nonempty = [(p, -size[p]) for p in files if size[p] > 0]
    q('rank', 'path', "What's the smallest file that actually has something in it?", strictly_first(nonempty))

    # 11 (ClassDef nodes anywhere in the package's .py files)
    q('classes', 'number', "How many classes does the shop package define?",
      sum(len(classes(p)) for p in shop_py))

    # 12 (methods = defs directly in a class body)
    allc = [(f"{c.name}", len(methods(c))) for p in py for c in classes(p)]
    q('methods', 'name', "Which class has the most methods?", strictly_first(allc))

    # 13 (test functions = defs named test_* in tests/)
    tests_fns = [n.name for p in test_py for n in all_defs(p) if n.name.startswith('test_')]
    q('names', 'name', "what's the longest test function name?",
      strictly_first([(n, len(n)) for n in set(tests_fns)]))

    # 14 (every def, methods included, under shop/)
    q('names', 'list of names', "Can you list every function in shop/ whose name starts with get_?",
      sorted({n.name for p in shop_py for n in all_defs(p) if n.name.startswith('get_')}))

    # 15
    q('order', 'name', "What's the last function defined in shop/api/routes.py?",
      all_defs('shop/api/routes.py')[-1].name)

    # 16
    q('order', 'name', "Which class comes first in shop/services/payment.py?",
      classes('shop/services/payment.py')[0].name)

    # 17
    where = sorted({p for p in py for n in all_defs(p) if n.name == 'split_evenly'})
    assert len(where) == 1
    q('where', 'path', "Where's split_evenly defined?", where[0])

    # 18 (module-level defs only; every kind of parameter counts)
    q('params', 'number', "How many top-level functions in the shop package take no arguments at all?",
      sum(1 for p in shop_py for n in top_defs(p) if nparams(n) == 0))

    # 19
    bda = [n for p in py for n in all_defs(p) if n.name == 'business_days_after']
    assert len(bda) == 1
    a = bda[0].args
    q('params', 'list of names', "What parameters does business_days_after take?",
      [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
      + ([a.vararg.arg] if a.vararg else []) + ([a.kwarg.arg] if a.kwarg else []))

    # 20
    q('imports', 'list of paths', "Which files import from shop.config?",
      sorted(p for p in py if any(m == 'shop.config' or m.startswith('shop.config.') for m in imported_modules(p))))

    # 21
    q('imports', 'bool', "Do any of the tests import anything from shop.services?",
      any(m == 'shop.services' or m.startswith('shop.services.') for p in test_py for m in imported_modules(p)))

    # 22 (import statements = Import / ImportFrom nodes)
    q('imports', 'path', "Which Python file has the most import statements?",
      strictly_first([(p, sum(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(trees[p]))) for p in py]))

    # 23
    nodoc = [p for p in shop_py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many of the Python files in shop/ don't have a module docstring?", len(nodoc))
    alt23 = sum(1 for p in nodoc if files[p].strip())  # leaving the empty __init__.py files out

    # 24 (methods = defs directly in a class body)
    mm = [m for p in py if under(p, 'shop/models') for c in classes(p) for m in methods(c)]
    q('docstrings', 'share', "What percentage of the methods in shop/models have docstrings?",
      100.0 * sum(ast.get_docstring(m) is not None for m in mm) / len(mm))

    # 25
    tf = [p for p in test_py if p.rsplit('/', 1)[-1].startswith('test_')]
    q('stats', 'number', "What's the average number of lines in the test_*.py files?",
      statistics.mean(len(lines[p]) for p in tf))

    # 26
    q('stats', 'number', "what's the median size in bytes of the .py files under shop/?",
      statistics.median(size[p] for p in shop_py))

    # 27
    q('total', 'number', "How many lines are there in the whole project, every file counted?",
      sum(len(l) for l in lines.values()))

    # 28
    q('share', 'share', "What share of the project's total bytes is Python?",
      100.0 * sum(size[p] for p in py) / sum(size.values()))

    # 29
    q('compare', 'bool', "Is shop/models/order.py under 150 lines?", len(lines['shop/models/order.py']) < 150)

    # 30
    q('compare', 'bool', "Are there fewer than 50 test functions in tests/?", len(tests_fns) < 50)

    # 31
    subs = sorted({folder(p) for p in files if folder(p).startswith('shop/')})
    q('folders', 'folder', "Which subpackage of shop has the most lines of code?",
      strictly_first([(d, sum(len(lines[p]) for p in files if under(p, d))) for d in subs]))

    # 32
    direct = collections.Counter(folder(p) for p in files)
    q('folders', 'folder', "Which directory has the most files sitting directly in it, not counting subfolders?",
      strictly_first(direct.items()))

    # 33
    q('classes', 'number', "How many classes subclass ApiError?",
      sum(1 for p in py for c in classes(p) if any(ast.unparse(b).split('.')[-1] == 'ApiError' for b in c.bases)))

    # 34
    q('decorators', 'number', "How many route handlers are locked down with @require_staff?",
      sum(1 for p in py for n in all_defs(p) if any(ast.unparse(d) == 'require_staff' for d in n.decorator_list)))

    # 35
    q('rank', 'path', "What's the third longest Python file by line count?",
      strictly_first([(p, len(lines[p])) for p in py], 3))

    # 36
    rl = lines['shop/api/routes.py']
    longest = max(len(l) for l in rl)
    assert sum(len(l) == longest for l in rl) == 1
    q('lines', 'text', "What's the longest line in routes.py? just paste it", next(l for l in rl if len(l) == longest).strip())

    ALT = {
        23: alt23,
    }
    assert len(Q) == 36, len(Q)
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
