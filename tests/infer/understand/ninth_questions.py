"""A ninth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a scratch directory, read its files the way a new team member would on a first day, and jotted down the things they would actually want to ask in a chat box: how big things are, where something lives, what the tests cover, what is left to do, what the code imports and documents. Each question was then given an answer computed here with the standard library alone (os, ast, re, statistics, collections) from the files under R, never typed in; rankings assert that the places asked about are not tied, and where a careful reader could fairly take a question another way, the answer under that reading is recorded in ALT."""

import ast, collections, os, re, statistics

def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    F = {}
    for d, _, fs in os.walk(R):
        for f in fs:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, R).replace(os.sep, '/')
            with open(p, encoding='utf-8') as h:
                F[rel] = h.read()
    PY = {k: ast.parse(v) for k, v in F.items() if k.endswith('.py')}
    FN = (ast.FunctionDef, ast.AsyncFunctionDef)

    def lines(k): return F[k].splitlines()
    def size(k): return len(F[k].encode())
    def alldefs(t): return [n for n in ast.walk(t) if isinstance(n, FN)]
    def topdefs(t): return [n for n in t.body if isinstance(n, FN)]
    def classes(t): return [n for n in ast.walk(t) if isinstance(n, ast.ClassDef)]
    def methods(c): return [n for n in c.body if isinstance(n, FN)]
    def nparams(n):
        a = n.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    def imported(t, top_only=False):
        nodes = t.body if top_only else list(ast.walk(t))
        out = []
        for n in nodes:
            if isinstance(n, ast.Import):
                out += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                out.append('.' * n.level + (n.module or ''))
        return out
    def under(prefix): return [k for k in F if k.startswith(prefix + '/')]
    def top_unique(pairs, place=1):
        """pairs of (score, item), ranked high to low; the item at ``place``, asserting no tie there."""
        s = sorted(pairs, key=lambda x: -x[0])
        assert s[place - 1][0] != (s[place][0] if len(s) > place else None), s[:place + 1]
        if place > 1:
            assert s[place - 2][0] != s[place - 1][0], s[:place + 1]
        return s[place - 1][1]
    def bottom_unique(pairs):
        s = sorted(pairs, key=lambda x: x[0])
        assert s[0][0] != s[1][0], s[:2]
        return s[0][1]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1 biggest file in shop/services, by bytes
    q('rank', 'path', "Which file in shop/services is the biggest?",
      top_unique([(size(k), k) for k in under('shop/services')]))

    # 2 YAML files in config/
    q('count', 'number', "how many yaml files are there in config?",
      sum(1 for k in under('config') if k.endswith(('.yaml', '.yml'))))

    # 3 blank lines in routes.py
    q('lines', 'number', "How many blank lines does routes.py have?",
      sum(1 for l in lines('shop/api/routes.py') if not l.strip()))

    # 4 lines over 100 characters, whole project (strictly more than 100)
    over = sum(1 for k in F for l in lines(k) if len(l) > 100)
    q('lines', 'number', "How many lines in the whole repo go over 100 characters?", over)
    alt_over = sum(1 for k in F for l in lines(k) if len(l) >= 100)

    # 5 file holding the single longest line
    q('rank', 'path', "Which file has the single longest line in it?",
      top_unique([(max((len(l) for l in lines(k)), default=0), k) for k in F]))

    # 6 words in the deployment doc
    q('words', 'number', "What's the word count of docs/deployment.md?", len(F['docs/deployment.md'].split()))

    # 7 TODO comments inside the shop package
    q('todo', 'number', "how many TODOs are left in the shop package?",
      sum(1 for k in under('shop') for l in lines(k) if re.search(r'#\s*TODO\b', l)))

    # 8 files with a FIXME, anywhere
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(k for k in F if re.search(r'#\s*FIXME\b', F[k])))

    # 9 last function in text.py (all module-level there)
    q('def', 'name', "What's the last function defined in shop/utils/text.py?",
      topdefs(PY['shop/utils/text.py'])[-1].name)

    # 10 first method of Cart
    carts = [c for t in PY.values() for c in classes(t) if c.name == 'Cart']
    assert len(carts) == 1
    q('def', 'name', "what's the first method on the Cart class?", methods(carts[0])[0].name)

    # 11 longest function name in shop/ (every def including methods; the module-level reading agrees)
    shop_defs = [(k, n) for k in under('shop') if k.endswith('.py') for n in alldefs(PY[k])]
    longest_name = top_unique([(len(n.name), n.name) for _, n in shop_defs])
    assert longest_name == top_unique([(len(n.name), n.name) for k in under('shop') if k.endswith('.py') for n in topdefs(PY[k])])
    q('def', 'name', "Which function in the shop package has the longest name?", longest_name)

    # 12 functions/methods whose names start with is_ (every def, whole project)
    q('def', 'list of names', "Which functions have names starting with is_?",
      sorted({n.name for t in PY.values() for n in alldefs(t) if n.name.startswith('is_')}))

    # 13 parameters of paginate
    pag = [n for t in PY.values() for n in alldefs(t) if n.name == 'paginate']
    assert len(pag) == 1
    q('param', 'number', "How many parameters does paginate take?", nparams(pag[0]))

    # 14 defs in shop/ taking no parameters at all (every def; methods all have self/cls)
    q('param', 'number', "How many functions in shop/ don't take any arguments at all?",
      sum(1 for _, n in shop_defs if nparams(n) == 0))

    # 15 files importing logging
    q('import', 'list of paths', "Which files import logging?",
      sorted(k for k, t in PY.items() if 'logging' in imported(t)))

    # 16 modules imported by auth.py (every import statement, including the one inside a function)
    q('import', 'list of names', "What modules does shop/api/auth.py pull in?",
      sorted(set(imported(PY['shop/api/auth.py']))))
    alt_auth = sorted(set(imported(PY['shop/api/auth.py'], top_only=True)))

    # 17 Python files without a module docstring (empty files count as lacking one)
    nodoc = [k for k, t in PY.items() if ast.get_docstring(t) is None]
    q('docstring', 'number', "How many python files are missing a module docstring?", len(nodoc))
    alt_nodoc = sum(1 for k in nodoc if F[k].strip())

    # 18 share of shop/ functions with a docstring (every def including methods)
    q('docstring', 'share', "What percentage of the functions in shop/ have a docstring?",
      100 * sum(ast.get_docstring(n) is not None for _, n in shop_defs) / len(shop_defs))
    shop_top = [n for k in under('shop') if k.endswith('.py') for n in topdefs(PY[k])]
    alt_doc_share = 100 * sum(ast.get_docstring(n) is not None for n in shop_top) / len(shop_top)

    # 19 Catalogue's docstring
    cats = [c for t in PY.values() for c in classes(t) if c.name == 'Catalogue']
    assert len(cats) == 1
    q('docstring', 'text', "What does the docstring of Catalogue say?", ast.get_docstring(cats[0]))

    # 20 mean size of the docs pages
    q('stats', 'number', "On average how big is a page in docs/, in bytes?",
      statistics.mean(size(k) for k in under('docs')))

    # 21 median line count of the test files (test_*.py)
    test_files = [k for k in under('tests') if os.path.basename(k).startswith('test_') and k.endswith('.py')]
    q('stats', 'number', "what's the median length in lines of the test files?",
      statistics.median(len(lines(k)) for k in test_files))
    alt_median = statistics.median(len(lines(k)) for k in under('tests'))

    # 22 total size of config/
    q('size', 'number', "How many bytes does the config folder take up altogether?",
      sum(size(k) for k in under('config')))

    # 23 comparison: order.py over 150 lines
    q('compare', 'bool', "Is shop/models/order.py more than 150 lines long?", len(lines('shop/models/order.py')) > 150)

    # 24 do tests import from shop.services
    q('yesno', 'bool', "Do any of the tests import anything from shop.services?",
      any(m.startswith('shop.services') for k in under('tests') if k.endswith('.py') for m in imported(PY[k])))

    # 25 is slugify used outside its own module
    q('yesno', 'bool', "Is slugify used anywhere other than shop/utils/text.py?",
      any(re.search(r'\bslugify\b', F[k]) for k in F if k != 'shop/utils/text.py'))

    # 26 comparison: more than 200 functions in the whole project (false under both readings)
    n_all = sum(len(alldefs(t)) for t in PY.values())
    n_top = sum(len(topdefs(t)) for t in PY.values())
    assert (n_all > 200) == (n_top > 200)
    q('compare', 'bool', "Are there more than 200 functions in the project?", n_all > 200)

    # 27 subpackage of shop with the most lines
    sub = collections.Counter()
    for k in under('shop'):
        if k.count('/') >= 2:
            sub['/'.join(k.split('/')[:2])] += len(lines(k))
    q('folder', 'folder', "Which subpackage of shop has the most lines of code?", top_unique([(v, k) for k, v in sub.items()]))

    # 28 folder with the most files directly in it
    direct = collections.Counter(os.path.dirname(k) or '.' for k in F)
    q('folder', 'folder', "Which folder has the most files sitting directly in it?", top_unique([(v, k) for k, v in direct.items()]))
    deep = collections.Counter()
    for k in F:
        parts = k.split('/')[:-1]
        for i in range(1, len(parts) + 1):
            deep['/'.join(parts[:i])] += 1
    alt_folder = top_unique([(v, k) for k, v in deep.items()])

    # 29 where verify_token is defined
    vt = [k for k, t in PY.items() for n in alldefs(t) if n.name == 'verify_token']
    assert len(vt) == 1
    q('def', 'path', "where's verify_token defined?", vt[0])

    # 30 test functions altogether (module-level test_* defs under tests/)
    q('count', 'number', "How many test functions do we have altogether?",
      sum(1 for k in under('tests') if k.endswith('.py') for n in topdefs(PY[k]) if n.name.startswith('test')))

    # 31 third largest file by bytes
    q('rank', 'path', "What's the 3rd largest file in the repo?", top_unique([(size(k), k) for k in F], place=3))

    # 32 class with the most methods (defs directly in the class body)
    q('rank', 'name', "Which class has the most methods?",
      top_unique([(len(methods(c)), c.name) for t in PY.values() for c in classes(t)]))

    # 33 percentage of files that are Python
    q('share', 'share', "What percent of the files in the project are Python?",
      100 * sum(k.endswith('.py') for k in F) / len(F))

    # 34 longest function by lines (every def, def line to last line)
    q('rank', 'name', "What's the longest function in the codebase?",
      top_unique([(n.end_lineno - n.lineno + 1, n.name) for t in PY.values() for n in alldefs(t)]))

    # 35 direct subclasses of ApiError
    q('def', 'list of names', "Which error classes inherit straight from ApiError?",
      sorted(c.name for t in PY.values() for c in classes(t)
             if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in c.bases)))

    # 36 functions in shop/utils (every def including methods and nested ones)
    utils_py = [k for k in under('shop/utils') if k.endswith('.py')]
    q('scope', 'number', "how many functions are there in shop/utils?", sum(len(alldefs(PY[k])) for k in utils_py))
    alt_utils = sum(len(topdefs(PY[k])) for k in utils_py)

    ALT = {4: alt_over, 16: alt_auth, 17: alt_nodoc, 18: alt_doc_share, 21: alt_median, 28: alt_folder, 36: alt_utils}
    assert len(Q) == 36
    return Q, ALT

if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
