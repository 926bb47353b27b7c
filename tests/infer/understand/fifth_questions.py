"""A fifth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a scratch directory, looked through it the way a newcomer would (file sizes with wc, the package layout, the models, the API routes and errors, the tests, docs, config and scripts, grep for TODO and FIXME), and then wrote down the questions they actually wanted answered on a first day, in their own casual words: which files are big, the 2nd and 3rd of a ranking, per-folder totals, averages, medians and percentages, thresholds, yes/no questions (several of which come out "no"), what imports what, docstrings, functions, parameters, classes and methods. Every answer is computed below from the generated files with the standard library alone; rankings assert that there is no tie at the place asked, and where a careful reader could fairly take a question a second way, that reading is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for d, dirs, names in os.walk(R):
        dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x != '__pycache__')
        for n in sorted(names):
            full = os.path.join(d, n)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as fh:
                files[rel] = fh.read()
    py = {p: t for p, t in files.items() if p.endswith('.py')}
    trees = {p: ast.parse(t) for p, t in py.items()}
    nbytes = {p: len(t.encode()) for p, t in files.items()}
    nlines = {p: len(t.splitlines()) for p, t in files.items()}

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    def ranked(paths, key):
        """Paths sorted by key, largest first."""
        return sorted(paths, key=lambda p: (-key(p), p))

    def no_tie(order, key, upto):
        vals = [key(p) for p in order[:upto + 1]]
        assert len(set(vals[:upto])) == upto and (len(vals) <= upto or vals[upto] != vals[upto - 1]), vals

    def all_defs(tree):
        return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def params(fn):
        a = fn.args
        out = [x.arg for x in a.posonlyargs + a.args]
        if a.vararg:
            out.append(a.vararg.arg)
        out += [x.arg for x in a.kwonlyargs]
        if a.kwarg:
            out.append(a.kwarg.arg)
        return out

    def classes(tree):
        return [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def imported_modules(path):
        """Absolute dotted names of the modules a .py file imports (relative imports resolved)."""
        pkg = path.split('/')[:-1]
        out = set()
        for n in ast.walk(trees[path]):
            if isinstance(n, ast.Import):
                out.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg[:len(pkg) - (n.level - 1)]
                    mod = '.'.join(base + ([n.module] if n.module else []))
                else:
                    mod = n.module
                out.add(mod)
                for a in n.names:  # "from shop.utils import money" imports a module too
                    cand = mod + '.' + a.name
                    if cand.replace('.', '/') + '.py' in py:
                        out.add(cand)
        return out

    comment_re = lambda tag: re.compile(r'#\s*' + tag + r'\b')
    todo = {p: len(comment_re('TODO').findall(t)) for p, t in files.items()}
    fixme = {p: len(comment_re('FIXME').findall(t)) for p, t in files.items()}

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1 biggest .py file by bytes
    order = ranked(py, nbytes.get)
    no_tie(order, nbytes.get, 1)
    q('rank', 'path', "What's the biggest Python file in the code base?", order[0])

    # 2 the 3rd longest module by line count
    order = ranked(py, nlines.get)
    no_tie(order, nlines.get, 3)
    q('rank', 'path', "Which module is the 3rd longest, counting lines?", order[2])

    # 3 top three in shop/models, largest first (bytes)
    models = [p for p in py if under(p, 'shop/models')]
    order = ranked(models, nbytes.get)
    no_tie(order, nbytes.get, 3)
    exp3 = order[:3]
    assert exp3 != sorted(exp3)  # judged in order
    q('rank', 'list of paths', "Give me the three largest files in shop/models, biggest first.", exp3)

    # 4 README sections (## headings)
    readme = files['README.md']
    h2 = [l for l in readme.splitlines() if re.match(r'##\s', l)]
    allh = [l for l in readme.splitlines() if re.match(r'#{1,6}\s', l)]
    q('count', 'number', "How many sections does the README have?", len(h2))
    ALT[4] = len(allh)  # counting the top-level "# shop" title as well

    # 5 total lines of python in tests/
    q('sum', 'number', "How many lines of Python are in the tests folder altogether?",
      sum(nlines[p] for p in py if under(p, 'tests')))

    # 6 average lines per module in shop/models (every .py there, __init__ included)
    q('average', 'number', "On average how long is a module in shop/models, in lines?",
      statistics.mean(nlines[p] for p in models))

    # 7 median bytes of .py files outside tests
    outside = [p for p in py if not under(p, 'tests')]
    q('median', 'number', "What's the median size in bytes of the Python files outside tests?",
      statistics.median(nbytes[p] for p in outside))

    # 8 share of .py files with a module docstring
    with_doc = [p for p in py if ast.get_docstring(trees[p]) is not None]
    q('share', 'share', "What percentage of the .py files start with a module docstring?",
      100.0 * len(with_doc) / len(py))

    # 9 any .py over 300 lines? (no)
    q('yes/no', 'bool', "Are any of the Python files over 300 lines long?",
      any(nlines[p] > 300 for p in py))

    # 10 does shop/cli.py have a module docstring? (no)
    q('yes/no', 'bool', "does shop/cli.py have a docstring at the top?",
      ast.get_docstring(trees['shop/cli.py']) is not None)

    # 11 empty modules
    q('filter', 'list of paths', "Which modules are completely empty?",
      sorted(p for p in py if files[p].strip() == ''))

    # 12 class with the most methods (defs directly in the class body)
    cls_names = [c.name for p in py for c in classes(trees[p])]
    assert len(cls_names) == len(set(cls_names))  # no two classes share a name
    cls_methods = collections.Counter()
    for p in py:
        for c in classes(trees[p]):
            cls_methods[c.name] += len(methods(c))
    top = cls_methods.most_common(2)
    assert top[0][1] > top[1][1]
    q('rank', 'name', "Which class has the most methods?", top[0][0])

    # 13 module-level functions in the shop package that take no parameters
    zero = sorted(n.name for p in py if under(p, 'shop') for n in trees[p].body
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not params(n))
    q('filter', 'list of names', "Which top-level functions in the shop package don't take any arguments?", zero)

    # 14 TODO comments in the whole repo (all files, shell scripts too)
    q('count', 'number', "How many TODO comments are there in the code base?", sum(todo.values()))
    ALT[14] = sum(v for p, v in todo.items() if p.endswith('.py'))  # Python files only

    # 15 file with the most TODOs
    order = ranked([p for p in files if todo[p]], todo.get)
    no_tie(order, todo.get, 1)
    q('rank', 'path', "Which file has the most TODOs?", order[0])

    # 16 files with a FIXME
    q('filter', 'list of paths', "Where are the FIXMEs? Which files have one?",
      sorted(p for p in files if fixme[p]))

    # 17 any TODO/FIXME under tests? (no)
    q('yes/no', 'bool', "Are there any TODOs or FIXMEs left in the tests?",
      any(todo[p] or fixme[p] for p in files if under(p, 'tests')))

    # 18 lines over 100 chars in .py files
    q('count', 'number', "How many lines in the .py files are longer than 100 characters?",
      sum(1 for p in py for l in files[p].splitlines() if len(l) > 100))

    # 19 file holding the single longest line (any file)
    longest = {p: max((len(l) for l in t.splitlines()), default=0) for p, t in files.items()}
    order = ranked(files, longest.get)
    no_tie(order, longest.get, 1)
    q('rank', 'path', "Which file has the longest line in the whole repo?", order[0])

    # 20 blank lines in routes.py
    q('count', 'number', "How many blank lines are in shop/api/routes.py?",
      sum(1 for l in files['shop/api/routes.py'].splitlines() if not l.strip()))

    # 21 who imports shop.utils.money (absolute or relative)
    q('imports', 'list of paths', "Which modules import shop.utils.money (relative imports count too)?",
      sorted(p for p in py if 'shop.utils.money' in imported_modules(p)))

    # 22 .py files outside tests over 100 lines
    q('filter', 'list of paths', "Outside of tests, which Python files are over 100 lines?",
      sorted(p for p in outside if nlines[p] > 100))

    # 23 what routes.py imports from inside the package
    q('imports', 'list of names', "What shop modules does shop/api/routes.py pull in? Dotted names please.",
      sorted(m for m in imported_modules('shop/api/routes.py') if m == 'shop' or m.startswith('shop.')))

    # 24 module docstring of inventory.py
    q('docstring', 'text', "What's the module docstring of shop/services/inventory.py?",
      ast.get_docstring(trees['shop/services/inventory.py']))

    # 25 parameters of verify_token
    vt = [n for p in py for n in all_defs(trees[p]) if n.name == 'verify_token']
    assert len(vt) == 1
    q('signature', 'list of names', "what params does verify_token take?", params(vt[0]))

    # 26 subpackage of shop with the most lines of Python
    subs = sorted({'/'.join(p.split('/')[:2]) for p in py if p.count('/') >= 2 and under(p, 'shop')})
    sub_lines = {s: sum(nlines[p] for p in py if under(p, s)) for s in subs}
    order = ranked(subs, sub_lines.get)
    no_tie(order, sub_lines.get, 1)
    q('per-folder', 'folder', "Which subpackage of shop has the most lines of code?", order[0])

    # 27 module in shop/services with the most functions (every def, methods included)
    svc = [p for p in py if under(p, 'shop/services')]
    nd = {p: len(all_defs(trees[p])) for p in svc}
    order = ranked(svc, nd.get)
    no_tie(order, nd.get, 1)
    q('per-folder', 'path', "Which module in shop/services has the most functions?", order[0])
    top_level = {p: sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in trees[p].body) for p in svc}
    alt = ranked(svc, top_level.get)
    no_tie(alt, top_level.get, 1)
    ALT[27] = alt[0]  # module-level functions only, methods not counted

    # 28 subclasses of ApiError
    q('classes', 'list of names', "Which exceptions subclass ApiError?",
      sorted(c.name for p in py for c in classes(trees[p])
             if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in c.bases)))

    # 29 2nd biggest file in docs (bytes)
    docs = [p for p in files if under(p, 'docs')]
    order = ranked(docs, nbytes.get)
    no_tie(order, nbytes.get, 2)
    q('rank', 'path', "What's the second biggest page in docs?", order[1])

    # 30 largest config file (bytes; lines agree)
    conf = [p for p in files if under(p, 'config')]
    order = ranked(conf, nbytes.get)
    no_tie(order, nbytes.get, 1)
    assert ranked(conf, nlines.get)[0] == order[0]
    q('rank', 'path', "Which config file is the largest?", order[0])

    # 31 number of test functions (def test_* under tests)
    q('count', 'number', "How many test functions are there under tests?",
      sum(1 for p in py if under(p, 'tests') for n in all_defs(trees[p]) if n.name.startswith('test_')))

    # 32 share of all python lines that live under tests
    q('share', 'share', "Roughly what percentage of all the Python lines are in tests?",
      100.0 * sum(nlines[p] for p in py if under(p, 'tests')) / sum(nlines[p] for p in py))

    # 33 average length of the .py files in tests/ above 50? (every .py in tests/, __init__ and conftest included)
    q('compare', 'bool', "On average, are the .py files in the tests folder more than 50 lines long?",
      statistics.mean(nlines[p] for p in py if under(p, 'tests')) > 50)

    # 34 longest function (every def, methods and nested ones included; def line to last line)
    fl = [(n.end_lineno - n.lineno + 1, n.name) for p in py for n in all_defs(trees[p])]
    fl.sort(reverse=True)
    assert fl[0][0] > fl[1][0]
    q('rank', 'name', "What's the longest function in the project?", fl[0][1])

    # 35 methods of Cart
    carts = [c for p in py for c in classes(trees[p]) if c.name == 'Cart']
    assert len(carts) == 1
    q('classes', 'list of names', "What methods does the Cart class have?", sorted(m.name for m in methods(carts[0])))

    # 36 how many handlers are registered with @route(...)
    n_routes = 0
    for p in py:
        for n in all_defs(trees[p]):
            for d in n.decorator_list:
                if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == 'route':
                    n_routes += 1
    q('count', 'number', "How many endpoints are registered with the @route decorator?", n_routes)

    assert len(Q) == 36, len(Q)
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
