"""A seventh blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets.

How they were written: the fixture was generated into a scratch directory and
browsed the way a newcomer would (a file listing with sizes, then the modules
themselves), and the questions were jotted down as someone getting oriented
might type them into a code-search box: lower case or capitals, contractions,
"altogether", "anywhere", "just", and so on, each in its own wording. Every
expected answer below is computed from the generated files with the standard
library only (os, ast, re, statistics, collections); none is typed by hand.
"Functions" means every ``def`` that ``ast`` finds, methods and nested
functions included, unless a question says otherwise; where a second reading
is fair (module-level only, empty ``__init__`` files left out, another notion
of a word) it is computed too and recorded in ``ALT``. Rankings assert that
there is no tie at the place asked. Counts were re-checked with grep and wc.
"""

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
    TREE = {p: ast.parse(t) for p, t in PY.items()}
    FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)

    def size(p):
        return len(F[p].encode())

    def lines(p):
        return F[p].splitlines()

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    def all_defs(p):
        """Every def in the file, in source order (methods and nested ones included)."""
        return sorted((n for n in ast.walk(TREE[p]) if isinstance(n, FUNC)), key=lambda n: (n.lineno, n.col_offset))

    def top_defs(p):
        return [n for n in TREE[p].body if isinstance(n, FUNC)]

    def classes(p):
        return sorted((n for n in ast.walk(TREE[p]) if isinstance(n, ast.ClassDef)), key=lambda n: n.lineno)

    def methods(cls):
        return [n for n in cls.body if isinstance(n, FUNC)]

    def n_params(fn):
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def imported_modules(p):
        """Absolute names of the modules a file imports (relative imports resolved; 'from X import y' gives X and X.y)."""
        parts = p[:-3].split('/')
        package = parts[:-1]  # a module's package; for __init__.py, the package itself
        out = set()
        for n in ast.walk(TREE[p]):
            if isinstance(n, ast.Import):
                for a in n.names:
                    out.add(a.name)
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = package[:len(package) - (n.level - 1)]
                    mod = '.'.join(base + ([n.module] if n.module else []))
                else:
                    mod = n.module
                out.add(mod)
                for a in n.names:
                    out.add(mod + '.' + a.name)
        return out

    def top_level_imports(p):
        """Top-level names of absolute imports (the ones that are not the project's own 'shop')."""
        out = set()
        for n in ast.walk(TREE[p]):
            if isinstance(n, ast.Import):
                out.update(a.name.split('.')[0] for a in n.names)
            elif isinstance(n, ast.ImportFrom) and not n.level:
                out.add(n.module.split('.')[0])
        return out - {'shop'}

    def ranked(items, key, place, reverse=True):
        """The item at 1-based ``place`` when sorted by ``key``; asserts no tie there."""
        s = sorted(items, key=key, reverse=reverse)
        k = key(s[place - 1])
        assert sum(1 for x in s if key(x) == k) == 1, (place, k)
        return s[place - 1]

    def unique_max(items, key):
        return ranked(items, key, 1)

    shop_py = [p for p in PY if under(p, 'shop')]
    tests_py = [p for p in PY if under(p, 'tests')]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    q('rank', 'path', "what's the 3rd longest python file under shop/, going by line count?",
      ranked(shop_py, lambda p: len(lines(p)), 3))
    # 2
    q('size', 'number', "How many bytes do the JSON configs take up altogether?",
      sum(size(p) for p in F if under(p, 'config') and p.endswith('.json')))
    # 3
    todo = lambda p: len(re.findall(r'#\s*TODO\b', F[p]))
    q('todo', 'number', "How many TODO comments are there in Python files outside the tests folder?",
      sum(todo(p) for p in PY if not under(p, 'tests')))
    # 4
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(p for p in F if re.search(r'\bFIXME\b', F[p])))
    # 5  (methods: defs directly in the class body)
    order_cls = [c for c in classes('shop/models/order.py') if c.name == 'Order']
    assert len(order_cls) == 1
    q('methods', 'number', "how many methods does the Order class have?", len(methods(order_cls[0])))
    # 6
    q('functions', 'name', "What's the last function defined in shop/utils/dates.py?",
      all_defs('shop/utils/dates.py')[-1].name)
    # 7  (every def in the package, methods included; ALT: module-level functions only)
    shop_defs = {n.name for p in shop_py for n in all_defs(p)}
    shop_top = {n.name for p in shop_py for n in top_defs(p)}
    longest = unique_max(shop_defs, len)
    longest_top = unique_max(shop_top, len)
    q('functions', 'name', "What's the longest function name anywhere in the shop package?", longest)
    # 8
    q('functions', 'list of names', "which functions in shop/api/routes.py have names starting with get_?",
      sorted({n.name for n in all_defs('shop/api/routes.py') if n.name.startswith('get_')}))
    # 9
    q('params', 'list of names', "Which functions in shop/utils/text.py take just a single parameter?",
      sorted(n.name for n in all_defs('shop/utils/text.py') if n_params(n) == 1))
    # 10
    q('imports', 'list of paths', "Which modules import threading?",
      sorted(p for p in PY if 'threading' in imported_modules(p)))
    # 11
    q('imports', 'list of names', "What standard library modules does shop/api/auth.py pull in?",
      sorted(top_level_imports('shop/api/auth.py')))
    # 12
    q('imports', 'number', "How many files under tests/ import something from shop.models?",
      sum(1 for p in tests_py if any(m == 'shop.models' or m.startswith('shop.models.') for m in imported_modules(p))))
    # 13  (ALT: leaving out the empty __init__.py files)
    nodoc = sorted(p for p in shop_py if ast.get_docstring(TREE[p]) is None)
    q('docstrings', 'list of paths', "Which modules in shop/ don't have a module docstring?", nodoc)
    alt13 = [p for p in nodoc if F[p].strip()]
    # 14
    q('docstrings', 'text', "What does the docstring at the top of shop/utils/cache.py say?",
      ast.get_docstring(TREE['shop/utils/cache.py']))
    # 15
    q('stats', 'number', "What's the median file size, in bytes, in the docs folder?",
      statistics.median(size(p) for p in F if under(p, 'docs')))
    # 16
    q('stats', 'share', "What percentage of all the files in the repo are .py files?",
      100 * len(PY) / len(F))
    # 17
    q('yes/no', 'bool', "Is any single file in the project over 10 KB?",
      any(size(p) > 10000 for p in F))
    # 18
    q('lines', 'path', "Which file has the longest line in the whole repo?",
      unique_max(F, lambda p: max((len(l) for l in lines(p)), default=0)))
    # 19
    q('lines', 'number', "How many lines longer than 100 characters are there in the shop package?",
      sum(1 for p in F if under(p, 'shop') for l in lines(p) if len(l) > 100))
    # 20  (words: whitespace-separated; ALT: runs of letters, digits and underscores)
    md = F['docs/models.md']
    q('words', 'number', "how many words are in docs/models.md?", len(md.split()))
    alt20 = len(re.findall(r'\w+', md))
    # 21
    subpkgs = sorted({p.split('/')[1] for p in shop_py if p.count('/') == 2})
    sub_lines = {s: sum(len(lines(p)) for p in shop_py if under(p, 'shop/' + s)) for s in subpkgs}
    sub_code = {s: sum(1 for p in shop_py if under(p, 'shop/' + s) for l in lines(p) if l.strip()) for s in subpkgs}
    best = unique_max(subpkgs, lambda s: sub_lines[s])
    assert best == unique_max(subpkgs, lambda s: sub_code[s])
    q('folders', 'folder', "Which subpackage of shop has the most lines of code?", 'shop/' + best)
    # 22
    q('yes/no', 'bool', "Do any of the shell scripts have a TODO in them?",
      any(re.search(r'\bTODO\b', F[p]) for p in F if p.endswith('.sh')))
    # 23
    q('classes', 'list of names', "Which classes inherit from ApiError?",
      sorted(c.name for p in PY for c in classes(p)
             if any(isinstance(b, ast.Name) and b.id == 'ApiError' or isinstance(b, ast.Attribute) and b.attr == 'ApiError' for b in c.bases)))
    # 24
    where = [p for p in PY if any(c.name == 'Inventory' for c in classes(p))]
    assert len(where) == 1
    q('where', 'path', "where's the Inventory class defined?", where[0])
    # 25  (bigger: in bytes; lines agree)
    a, b = 'tests/test_api.py', 'shop/models/order.py'
    assert (size(a) > size(b)) == (len(lines(a)) > len(lines(b)))
    q('compare', 'bool', "Is tests/test_api.py bigger than shop/models/order.py?", size(a) > size(b))
    # 26
    q('functions', 'name', "What's the 3rd function in shop/api/auth.py?", all_defs('shop/api/auth.py')[2].name)
    # 27
    q('tests', 'number', "How many test functions are there altogether?",
      sum(1 for p in tests_py for n in all_defs(p) if n.name.startswith('test_')))
    # 28
    q('functions', 'list of names', "Are there any functions or methods whose names start with is_? which ones?",
      sorted({n.name for p in PY for n in all_defs(p) if n.name.startswith('is_')}))
    # 29
    assert not any(len(lines(p)) == 50 for p in PY)
    q('compare', 'number', "How many Python files are more than 50 lines long?",
      sum(1 for p in PY if len(lines(p)) > 50))
    # 30
    q('lines', 'number', "how many blank lines are there under tests?",
      sum(1 for p in F if under(p, 'tests') for l in lines(p) if not l.strip()))
    # 31
    q('lines', 'number', "What's the total line count of all the Python code outside the tests folder?",
      sum(len(lines(p)) for p in PY if not under(p, 'tests')))
    # 32
    def is_dataclass(c):
        for d in c.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            if isinstance(f, ast.Name) and f.id == 'dataclass' or isinstance(f, ast.Attribute) and f.attr == 'dataclass':
                return True
        return False
    q('classes', 'number', "How many dataclasses are defined in shop?",
      sum(1 for p in shop_py for c in classes(p) if is_dataclass(c)))
    # 33
    q('docstrings', 'bool', "Does shop/cli.py have a module docstring?", ast.get_docstring(TREE['shop/cli.py']) is not None)
    # 34  (every def in shop/models; methods = defs directly in a class body)
    models_py = [p for p in shop_py if under(p, 'shop/models')]
    m_all = sum(len(all_defs(p)) for p in models_py)
    m_meth = sum(len(methods(c)) for p in models_py for c in classes(p))
    q('stats', 'share', "What % of the functions in shop/models are methods on a class?", 100 * m_meth / m_all)
    # 35
    svc = [c for p in shop_py if under(p, 'shop/services') for c in classes(p)]
    q('stats', 'number', "On average, how many methods does a class in shop/services have?",
      statistics.mean(len(methods(c)) for c in svc))
    # 36
    q('rank', 'path', "Which file's got the most TODOs?", unique_max(F, lambda p: len(re.findall(r'\bTODO\b', F[p]))))

    assert len(Q) == 36
    ALT = {7: longest_top, 13: alt13, 20: alt20}
    ALT = {k: v for k, v in ALT.items() if v != Q[k - 1][3]}
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
