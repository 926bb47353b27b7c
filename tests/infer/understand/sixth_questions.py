"""A sixth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a temporary directory, walked it as a newcomer would (listing files with their sizes, reading the modules, dumping each module's imports, classes, methods, parameters and docstrings with ast, grepping for TODO/FIXME and long lines), then wrote down the questions they would type into a chat box while reviewing the code for a colleague, in their own casual words and without a shared template. Every answer is computed below from the generated files with the standard library; rankings assert that the places asked have no ties, and where a second reading of a question is fair its answer is kept in ALT. Unless a comment says otherwise, "functions" means every def ast finds (methods and nested defs included), parameters count every kind (positional, *args, keyword-only, **kwargs) but not self/cls, lines are text.splitlines() and bytes are len(text.encode())."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    import sys

    files = {}
    for dirpath, dirnames, filenames in os.walk(R):
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                files[rel] = handle.read()

    def nbytes(p):
        return len(files[p].encode())

    def nlines(p):
        return len(files[p].splitlines())

    def folder(p):
        return p.rsplit('/', 1)[0] if '/' in p else ''

    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}

    def defs(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def class_named(name):
        found = [(p, c) for p in py for c in classes(p) if c.name == name]
        assert len(found) == 1, (name, found)
        return found[0]

    def methods(c):
        return [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def params(fn, drop_self=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args]
        if a.vararg:
            names.append(a.vararg.arg)
        names += [x.arg for x in a.kwonlyargs]
        if a.kwarg:
            names.append(a.kwarg.arg)
        if drop_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return names

    def span(n):
        return n.end_lineno - n.lineno + 1

    def imported_modules(p):
        """Absolute names of the modules p imports from (relative imports resolved)."""
        pkg = folder(p).split('/') if folder(p) else []
        out = []
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                out += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg[:len(pkg) - (n.level - 1)]
                    out.append('.'.join(base + ([n.module] if n.module else [])))
                else:
                    out.append(n.module)
        return out

    def todo_count(p):
        return len(re.findall(r'#\s*TODO\b', files[p]))

    def strictly_ranked(items, key, places, reverse=True):
        ranked = sorted(items, key=key, reverse=reverse)
        for i in range(places):
            assert key(ranked[i]) != key(ranked[i + 1]), ('tie', i, ranked[i], ranked[i + 1])
        return ranked

    shop_py = [p for p in py if p.startswith('shop/')]
    subpkgs = sorted({p.split('/')[1] for p in shop_py if p.count('/') >= 2})
    subpkgs = ['shop/' + s for s in subpkgs]

    Q = []
    ALT = {}

    def q(kind, typ, text, exp):
        Q.append((kind, typ, text, exp))

    # 1: second biggest module in shop/models by lines (bytes agree, asserted)
    models = [p for p in py if folder(p) == 'shop/models']
    by_lines = strictly_ranked(models, nlines, 2)
    by_bytes = strictly_ranked(models, nbytes, 2)
    assert by_lines[1] == by_bytes[1]
    q('rank', 'path', "Which module under shop/models is the second biggest by line count?", by_lines[1])

    # 2
    q('count', 'number', "How many .py files are there in the tests folder?",
      sum(1 for p in py if p.startswith('tests/')))

    # 3
    q('where', 'path', "Where's TTLCache defined?", class_named('TTLCache')[0])

    # 4: TODO comments in every file of the project; ALT: Python files only
    q('count', 'number', "how many TODO comments are there across the code base?",
      sum(todo_count(p) for p in files))
    ALT[4] = sum(todo_count(p) for p in py)

    # 5: every def in shop/utils, methods included; with or without self the answer is the same
    utils_defs = [fn for p in py if p.startswith('shop/utils/') for fn in defs(p)]
    a5 = any(len(params(fn)) > 3 for fn in utils_defs)
    assert a5 == any(len(params(fn, drop_self=False)) > 3 for fn in utils_defs)
    q('bool', 'bool', "Does any function in shop/utils take more than three parameters?", a5)

    # 6: every def (methods included), length in lines from def to end; module-level only agrees
    all_defs = [(p, fn) for p in py for fn in defs(p)]
    ranked = strictly_ranked(all_defs, lambda t: span(t[1]), 1)
    top_level = [(p, fn) for p in py for fn in top_defs(p)]
    assert strictly_ranked(top_level, lambda t: span(t[1]), 1)[0][1].name == ranked[0][1].name
    q('rank', 'name', "What's the longest function in the whole project?", ranked[0][1].name)

    # 7
    subs = sorted({c.name for p in py for c in classes(p)
                   if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in c.bases)})
    q('list', 'list of names', "Which classes inherit from ApiError?", subs)

    # 8
    q('count', 'number', "how many methods does the Order class have?",
      len(methods(class_named('Order')[1])))

    # 9
    q('docstring', 'text', "What's the module docstring of shop/models/base.py?",
      ast.get_docstring(trees['shop/models/base.py']))

    # 10: ALT leaves out the empty files
    nodoc = sorted(p for p in shop_py if ast.get_docstring(trees[p]) is None)
    q('docstring', 'list of paths', "Which modules in the shop package don't have a docstring?", nodoc)
    ALT[10] = sorted(p for p in nodoc if files[p].strip())

    # 11: every file in the repo; ALT: Python files only
    q('count', 'number', "How many lines in the repo are longer than 100 characters?",
      sum(1 for p in files for l in files[p].splitlines() if len(l) > 100))
    ALT[11] = sum(1 for p in py for l in files[p].splitlines() if len(l) > 100)

    # 12: lines of Python per subpackage of shop (non-blank lines agree, asserted)
    loc = {s: sum(nlines(p) for p in shop_py if p.startswith(s + '/')) for s in subpkgs}
    nonblank = {s: sum(1 for p in shop_py if p.startswith(s + '/') for l in files[p].splitlines() if l.strip())
                for s in subpkgs}
    r12 = strictly_ranked(subpkgs, loc.get, 1)
    assert strictly_ranked(subpkgs, nonblank.get, 1)[0] == r12[0]
    q('folder', 'folder', "which subpackage of shop has the most lines of code?", r12[0])

    # 13
    tests_named = [p for p in py if re.match(r'test_.*\.py$', p.rsplit('/', 1)[-1])]
    q('share', 'share', "What percentage of the Python files are test_*.py files?",
      100 * len(tests_named) / len(py))

    # 14: all modules in shop/utils (the empty __init__.py included); ALT leaves empty files out
    utils_mods = [p for p in py if folder(p) == 'shop/utils']
    q('stats', 'number', "What's the average line count of the modules in shop/utils?",
      statistics.mean(nlines(p) for p in utils_mods))
    ALT[14] = statistics.mean(nlines(p) for p in utils_mods if files[p].strip())

    # 15
    md = [p for p in files if p.endswith('.md')]
    q('stats', 'number', "What's the median size in bytes of the Markdown files?",
      statistics.median(nbytes(p) for p in md))

    # 16
    stdlib = set(getattr(sys, 'stdlib_module_names', ()))
    cache_mods = sorted({m.split('.')[0] for m in imported_modules('shop/utils/cache.py')})
    assert not stdlib or all(m in stdlib for m in cache_mods)
    q('imports', 'list of names', "Which standard library modules does shop/utils/cache.py import?", cache_mods)

    # 17: without self; ALT with it
    cart_add = [m for m in methods(class_named('Cart')[1]) if m.name == 'add'][0]
    q('params', 'list of names', "What parameters does Cart.add take?", params(cart_add))
    ALT[17] = params(cart_add, drop_self=False)

    # 18
    q('bool', 'bool', "Does the shop package import requests anywhere?",
      any(m.split('.')[0] == 'requests' for p in shop_py for m in imported_modules(p)))

    # 19
    q('bool', 'bool', "Do any of the tests import from shop.services?",
      any(m == 'shop.services' or m.startswith('shop.services.')
          for p in py if p.startswith('tests/') for m in imported_modules(p)))

    # 20
    q('count', 'number', "How many blank lines does shop/api/routes.py have?",
      sum(1 for l in files['shop/api/routes.py'].splitlines() if not l.strip()))

    # 21
    q('imports', 'list of paths', "which modules import from shop.config?",
      sorted(p for p in py if 'shop.config' in imported_modules(p)))

    # 22
    r22 = strictly_ranked(list(files), todo_count, 1)
    q('rank', 'path', "Which file has the most TODOs in it?", r22[0])

    # 23: every class statement in the shop package
    q('count', 'number', "How many classes are defined in the shop package?",
      sum(len(classes(p)) for p in shop_py))

    # 24: largest first, so judged in order
    cfg = [p for p in files if folder(p) == 'config']
    r24 = strictly_ranked(cfg, nbytes, 3)[:3]
    q('rank', 'list of paths', "What are the three biggest files in the config folder, largest first?", r24)

    # 25: handlers registered with the @route(...) decorator
    def route_handlers():
        out = []
        for fn in top_defs('shop/api/routes.py'):
            decos = [d for d in fn.decorator_list
                     if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == 'route']
            if decos:
                out.append(fn)
        return out
    handlers = route_handlers()
    q('count', 'number', "How many routes does the API register?", len(handlers))

    # 26: module-level defs in source order
    q('ordinal', 'name', "What's the 3rd function defined in shop/utils/dates.py?",
      top_defs('shop/utils/dates.py')[2].name)

    # 27
    q('count', 'number', "Roughly how many lines of Python are in the code base?",
      sum(nlines(p) for p in py))

    # 28
    staff = [fn for fn in handlers
             if any(isinstance(d, ast.Name) and d.id == 'require_staff' for d in fn.decorator_list)]
    q('share', 'share', "What percentage of the API routes are staff-only?", 100 * len(staff) / len(handlers))

    # 29
    ttl = [n.value.value for n in trees['shop/config.py'].body
           if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == 'SESSION_TTL_SECONDS'
                                                for t in n.targets)]
    assert len(ttl) == 1
    q('compare', 'bool', "Is the session TTL in config.py longer than an hour?", ttl[0] > 3600)

    # 30
    hp = class_named('HttpProvider')[1]
    assert len(hp.bases) == 1
    q('where', 'name', "what does HttpProvider inherit from?", ast.unparse(hp.bases[0]))

    # 31: defs named test_* in the file
    q('count', 'number', "How many test functions are in tests/test_api.py?",
      sum(1 for fn in defs('tests/test_api.py') if fn.name.startswith('test_')))

    # 32: all files under each subpackage of shop
    size = {s: sum(nbytes(p) for p in files if p.startswith(s + '/')) for s in subpkgs}
    r32 = strictly_ranked(subpkgs, size.get, 1, reverse=False)
    q('folder', 'folder', "Which package inside shop is the smallest, in bytes?", r32[0])

    # 33
    all_ = [ast.literal_eval(n.value) for n in trees['shop/__init__.py'].body
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == '__all__' for t in n.targets)]
    assert len(all_) == 1
    q('names', 'list of names', "What's listed in __all__ in shop/__init__.py?", sorted(all_[0]))

    # 34
    ver = re.findall(r'(?m)^version\s*=\s*"([^"]+)"', files['pyproject.toml'])
    assert len(ver) == 1
    q('config', 'name', "What version does pyproject.toml say the project is at?", ver[0])

    # 35: 5 KB read as 5000 or as 5120 bytes gives the same files (asserted)
    big = sorted(p for p in py if nbytes(p) > 5000)
    assert big == sorted(p for p in py if nbytes(p) > 5120)
    q('compare', 'list of paths', "Which Python files are bigger than 5 KB?", big)

    # 36
    q('count', 'number', "How many lines does the README have?", nlines('README.md'))

    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
