"""A fourteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a temporary directory, read its files the way a newcomer would (the package, the tests, the docs, the config and the scripts), and then typed the questions a product engineer who rarely writes Python might put to a helpful assistant: sizes and counts by file type and folder, rankings and ordinals, lines (blank, long, longest), TODO and FIXME comments, functions, classes and methods, parameters, imports, docstrings, a few statistics and percentages, comparisons against numbers, yes/no questions that come out both ways, and questions scoped to one folder. Every expected answer is computed below from the generated files with the standard library only; rankings assert that the places asked have no ties, and where a careful reader could fairly take a question another way, that second reading is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    F = {}
    for d, _, fs in os.walk(R):
        for f in fs:
            full = os.path.join(d, f)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as h:
                F[rel] = h.read()
    PY = {p: t for p, t in F.items() if p.endswith('.py')}
    TREES = {p: ast.parse(t) for p, t in PY.items()}

    def nbytes(p):
        return len(F[p].encode())

    def lines(p):
        return F[p].splitlines()

    def folder(p):
        return p.rsplit('/', 1)[0] if '/' in p else '.'

    def under(p, d):
        return p.startswith(d.rstrip('/') + '/')

    # Every def found by ast (methods and nested functions included), with its class when it is a method.
    DEFS = []

    def walk(node, path, cls, top):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                DEFS.append({'path': path, 'node': ch, 'name': ch.name, 'cls': cls, 'top': top})
                walk(ch, path, None, False)
            elif isinstance(ch, ast.ClassDef):
                walk(ch, path, ch.name, False)
            else:
                walk(ch, path, cls, top)

    for p in sorted(TREES):
        walk(TREES[p], p, None, True)

    CLASSES = [(p, n) for p in sorted(TREES) for n in ast.walk(TREES[p]) if isinstance(n, ast.ClassDef)]

    def nparams(fn, with_self=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        names += [x.arg for x in (a.vararg, a.kwarg) if x]
        if not with_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return len(names)

    def methods_of(cname):
        return [d for d in DEFS if d['cls'] == cname]

    def top_unique(pairs, k=1):
        """pairs: (value, item); the item at place k (1-based) in descending order, asserting no tie around it."""
        s = sorted(pairs, key=lambda x: -x[0])
        assert s[k - 1][0] != s[k][0], s[:k + 1]
        if k > 1:
            assert s[k - 2][0] != s[k - 1][0], s[:k + 1]
        return s[k - 1][1]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1
    q('rank', 'path', "Which python file is the second longest, going by number of lines?",
      top_unique([(len(lines(p)), p) for p in PY], 2))
    # 2
    q('count', 'number', "how many markdown files are sitting in the docs folder?",
      sum(1 for p in F if under(p, 'docs') and p.endswith('.md')))
    # 3
    q('size', 'number', "What's the combined size of everything under config/, in bytes?",
      sum(nbytes(p) for p in F if under(p, 'config')))
    # 4
    q('lines', 'number', "How many blank lines are in shop/models/order.py?",
      sum(1 for l in lines('shop/models/order.py') if not l.strip()))
    # 5  over 100 = strictly more than 100 characters; ALT: 100 or more
    q('long lines', 'number', "How many lines of Python code go over 100 characters?",
      sum(1 for p in PY for l in lines(p) if len(l) > 100))
    ALT[5] = sum(1 for p in PY for l in lines(p) if len(l) >= 100)
    # 6
    q('rank', 'path', "Which file has the single longest line in the whole repo?",
      top_unique([(max((len(l) for l in lines(p)), default=0), p) for p in F]))
    # 7  every TODO comment in any file; ALT: only in Python files
    todo = lambda p: sum(1 for l in lines(p) if re.search(r'#\s*TODO\b', l))
    q('todo', 'number', "How many TODO comments are there across the entire project?",
      sum(todo(p) for p in F))
    ALT[7] = sum(todo(p) for p in PY)
    # 8
    q('fixme', 'list of paths', "which files have a FIXME in them?",
      sorted(p for p in F if re.search(r'#\s*FIXME\b', F[p])))
    # 9  every def in the class body, dunders included; ALT: without the __dunder__ ones
    q('methods', 'number', "How many methods does the Cart class have?",
      len(methods_of('Cart')))
    ALT[9] = len([d for d in methods_of('Cart') if not (d['name'].startswith('__') and d['name'].endswith('__'))])
    # 10
    where = [d['path'] for d in DEFS if d['name'] == 'split_evenly']
    assert len(where) == 1
    q('where', 'path', "Where's split_evenly defined?", where[0])
    # 11
    first = [d for d in DEFS if d['path'] == 'shop/utils/dates.py']
    q('first', 'name', "What's the very first function in shop/utils/dates.py?",
      min(first, key=lambda d: d['node'].lineno)['name'])
    # 12
    q('last', 'name', "what's the last method defined on the Order class?",
      max(methods_of('Order'), key=lambda d: d['node'].lineno)['name'])
    # 13  every def (methods included) in files under shop/
    q('names', 'name', "In the shop package (not the tests), which function has the longest name?",
      top_unique([(len(d['name']), d['name']) for d in DEFS if under(d['path'], 'shop')]))
    # 14
    q('prefix', 'list of names', "Which functions in routes.py have names starting with get_?",
      sorted({d['name'] for d in DEFS if d['path'] == 'shop/api/routes.py' and d['name'].startswith('get_')}))
    # 15  self not counted (the winner is the same either way)
    q('params', 'name', "Which method on User takes the most arguments?",
      top_unique([(nparams(d['node'], False), d['name']) for d in methods_of('User')]))
    assert top_unique([(nparams(d['node'], True), d['name']) for d in methods_of('User')]) == Q[-1][3]
    # 16  files directly inside the folder; ALT: counting everything below it
    direct = collections.Counter(folder(p) for p in F)
    q('folders', 'folder', "Which folder has the most files in it?", top_unique([(c, d) for d, c in direct.items()]))
    allf = set(direct) | {d.rsplit('/', 1)[0] for d in direct if '/' in d}
    ALT[16] = top_unique([(sum(1 for p in F if under(p, d)), d) for d in allf if d != '.'])
    # 17
    imp = []
    for p, tree in TREES.items():
        for n in ast.walk(tree):
            if isinstance(n, ast.Import) and any(a.name.split('.')[0] == 'requests' for a in n.names):
                imp.append(p)
            elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and n.module.split('.')[0] == 'requests':
                imp.append(p)
    imp = sorted(set(imp))
    assert len(imp) == 1
    q('imports', 'path', "Which file pulls in the requests library?", imp[0])
    # 18  non-empty Python files without a module docstring; ALT: empty files counted too
    q('docstrings', 'number', "How many python files don't have a docstring at the top? Skip the empty ones.",
      sum(1 for p in PY if F[p].strip() and ast.get_docstring(TREES[p]) is None))
    ALT[18] = sum(1 for p in PY if ast.get_docstring(TREES[p]) is None)
    # 19  all .py files under shop/, empty ones included; ALT: empty ones left out
    shop_py = [p for p in PY if under(p, 'shop')]
    q('stats', 'number', "On average, how many lines long is a python file in the shop package?",
      statistics.mean(len(lines(p)) for p in shop_py))
    ALT[19] = statistics.mean(len(lines(p)) for p in shop_py if F[p].strip())
    # 20  test_*.py files in tests/; ALT: every .py in tests/
    test_files = [p for p in PY if under(p, 'tests') and p.rsplit('/', 1)[1].startswith('test_')]
    q('stats', 'number', "what's the median size of the test files, in bytes?",
      statistics.median(nbytes(p) for p in test_files))
    ALT[20] = statistics.median(nbytes(p) for p in PY if under(p, 'tests'))
    # 21
    q('share', 'share', "Roughly what percentage of all the lines in the repo live in Python files?",
      100 * sum(len(lines(p)) for p in PY) / sum(len(lines(p)) for p in F))
    # 22
    q('compare', 'number', "How many .py files are bigger than 2000 bytes?",
      sum(1 for p in PY if nbytes(p) > 2000))
    # 23
    q('yesno', 'bool', "Is there a class called Inventory anywhere in the code?",
      any(n.name == 'Inventory' for _, n in CLASSES))
    # 24
    q('yesno', 'bool', "Do any of the files in tests/ define a class?",
      any(under(p, 'tests') for p, _ in CLASSES))
    # 25
    subs = sorted({folder(p) for p in PY if under(p, 'shop') and folder(p) != 'shop'})
    q('per folder', 'folder', "Which subpackage of shop has the most lines of Python?",
      top_unique([(sum(len(lines(p)) for p in PY if folder(p) == s), s) for s in subs]))
    # 26  every def including methods, as the question asks
    q('scope', 'number', "How many functions are defined in shop/services, counting methods too?",
      sum(1 for d in DEFS if under(d['path'], 'shop/services')))
    # 27
    others = len(F) - len(PY)
    q('yesno', 'bool', "Are there more Python files than all the other kinds of files put together?",
      len(PY) > others)
    # 28  methods = defs directly in the class body
    cnames = collections.Counter(n.name for _, n in CLASSES)
    assert all(c == 1 for c in cnames.values())
    q('rank', 'name', "Which class has the most methods?",
      top_unique([(len(methods_of(n.name)), n.name) for _, n in CLASSES]))
    # 29
    q('tests', 'number', "how many test functions are there in total?",
      sum(1 for d in DEFS if under(d['path'], 'tests') and d['name'].startswith('test_')))
    # 30
    nonempty = [(nbytes(p), p) for p in F if nbytes(p) > 0]
    s = sorted(nonempty)
    assert s[0][0] != s[1][0]
    q('rank', 'path', "What's the smallest file that isn't completely empty?", s[0][1])
    # 31
    routes = 0
    for d in DEFS:
        if d['path'] == 'shop/api/routes.py':
            for dec in d['node'].decorator_list:
                if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id == 'route':
                    routes += 1
    q('decorators', 'number', "How many endpoints get registered with @route in routes.py?", routes)
    # 32
    q('rank', 'path', "What's the 3rd biggest file in the project by size?",
      top_unique([(nbytes(p), p) for p in F], 3))
    # 33  length of a def = its lines from `def` to its last line; every def counted
    q('rank', 'name', "Which function has the most lines of code in it?",
      top_unique([(d['node'].end_lineno - d['node'].lineno + 1, d['name']) for d in DEFS]))
    assert top_unique([(d['node'].end_lineno - min([d['node'].lineno] + [x.lineno for x in d['node'].decorator_list]) + 1, d['name']) for d in DEFS]) == Q[-1][3]
    # 34
    q('names', 'list of names', "What classes are in shop/api/errors.py?",
      sorted(n.name for p, n in CLASSES if p == 'shop/api/errors.py'))
    # 35
    q('yesno', 'bool', "Is routes.py under 250 lines?", len(lines('shop/api/routes.py')) < 250)
    # 36  every def including methods; ALT: module-level functions only
    q('share', 'share', "What percent of the functions have a docstring?",
      100 * sum(1 for d in DEFS if ast.get_docstring(d['node']) is not None) / len(DEFS))
    tops = [d for d in DEFS if d['top']]
    ALT[36] = 100 * sum(1 for d in tops if ast.get_docstring(d['node']) is not None) / len(tops)

    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
