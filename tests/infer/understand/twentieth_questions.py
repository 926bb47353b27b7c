"""A twentieth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a scratch directory, walked it with find/wc and a small ast dump, and then wrote down what a maintainer about to refactor the ``shop`` package would want to know first: where the bulk of the code and tests sits, which files and classes are the big ones, what is still marked TODO/FIXME, how the modules import one another, how well things are documented, and a few quick sanity checks phrased as yes/no. Each question is typed as a person would type it into a chat box, and each answer is computed below from the generated files with the standard library only; rankings assert that the places asked about are not tied, and fair second readings are recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for d, dirs, fs in os.walk(R):
        dirs[:] = sorted(x for x in dirs if x != '__pycache__')
        for f in sorted(fs):
            if f.endswith('.pyc'):
                continue
            full = os.path.join(d, f)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as h:
                files[rel] = h.read()

    size = {p: len(t.encode()) for p, t in files.items()}
    lines = {p: t.splitlines() for p, t in files.items()}
    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    def all_defs(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def n_params(fn, skip_self=False, varargs=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if varargs:
            names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        if skip_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return len(names)

    def comment_tags(p, tag):
        return [l for l in lines[p] if re.search(r'#.*\b' + tag + r'\b', l)]

    def imported_modules(p):
        mods = []
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                mods += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                mods.append('.' * n.level + (n.module or ''))
        return mods

    def top_ranked(scores, k):
        """The item at place k (1-based), asserting no tie at places 1..k."""
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        for i in range(k):
            assert ranked[i][1] != ranked[i + 1][1], ranked[:k + 1]
        return ranked[k - 1][0]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    q('count', 'number', "How many markdown files are there in the repo, README included?",
      sum(1 for p in files if p.endswith('.md')))

    # 2
    q('size', 'number', "what's the total size of the config folder in bytes?",
      sum(size[p] for p in files if under(p, 'config')))

    # 3
    q('rank', 'path', "Which file is the 3rd biggest in the whole project, by bytes?",
      top_ranked(size, 3))

    # 4
    q('lines', 'number', "How many blank lines are there across the test files?",
      sum(1 for p in py if under(p, 'tests') for l in lines[p] if not l.strip()))

    # 5: every file of any type; ALT counts Python files only
    long_all = [(p, l) for p in files for l in lines[p] if len(l) > 100]
    q('lines', 'number', "Line length check: how many lines anywhere in the repo go past 100 chars?",
      len(long_all))

    # 6
    longest = {p: max((len(l) for l in lines[p]), default=0) for p in files}
    q('lines', 'path', "Which file has the single longest line in it?",
      top_ranked(longest, 1))

    # 7
    q('todo', 'number', "How many TODO comments are left in the shop package?",
      sum(len(comment_tags(p, 'TODO')) for p in files if under(p, 'shop')))

    # 8
    tagged = {p: len(comment_tags(p, 'TODO')) + len(comment_tags(p, 'FIXME')) for p in files}
    q('todo', 'path', "which file's got the most TODOs and FIXMEs put together?",
      top_ranked(tagged, 1))

    # 9
    q('todo', 'bool', "Are there any TODOs sitting outside of shop/?",
      any(comment_tags(p, 'TODO') for p in files if not under(p, 'shop')))

    # 10: module-level defs only; ALT counts every def in the file (methods and nested ones too)
    q('functions', 'number', "How many top-level functions are in shop/api/routes.py?",
      len(top_defs('shop/api/routes.py')))

    # 11
    q('functions', 'number', "How many test functions do we have in total?",
      sum(1 for p in py if under(p, 'tests') for n in all_defs(p) if n.name.startswith('test_')))

    # 12
    meth_count = {c.name: len(methods(c)) for p in py for c in classes(p)}
    assert len(meth_count) == sum(len(classes(p)) for p in py)  # class names are unique
    q('methods', 'name', "Which class has the most methods?",
      top_ranked(meth_count, 1))

    # 13
    cart = [c for c in classes('shop/models/cart.py') if c.name == 'Cart'][0]
    q('methods', 'name', "What's the last method defined in the Cart class?",
      methods(cart)[-1].name)

    # 14: every def in shop/, methods and nested functions included
    name_len = {n.name: len(n.name) for p in py if under(p, 'shop') for n in all_defs(p)}
    q('functions', 'name', "What's the longest function name anywhere in shop/?",
      top_ranked(name_len, 1))

    # 15: every def in shop/ whose name begins with get_
    q('functions', 'list of names', "Which functions in the shop package have names starting with get_?",
      sorted({n.name for p in py if under(p, 'shop') for n in all_defs(p) if n.name.startswith('get_')}))

    # 16: module-level functions of shop/utils/, counting *args as a parameter; ALT leaves *args/**kwargs out
    utils_fns = [n for p in py if under(p, 'shop/utils') for n in top_defs(p)]
    q('params', 'number', "On average how many params does a top-level function in shop/utils take?",
      statistics.mean(n_params(n) for n in utils_fns))

    # 17: self not counted; ALT counts it
    cart_add = [m for m in methods(cart) if m.name == 'add'][0]
    q('params', 'number', "How many arguments does Cart.add accept, not counting self?",
      n_params(cart_add, skip_self=True))

    # 18
    q('imports', 'number', "How many different modules does routes.py import from?",
      len(set(imported_modules('shop/api/routes.py'))))

    # 19
    q('imports', 'path', "Which module pulls in the requests library?",
      [p for p in py if any(m.split('.')[0] == 'requests' for m in imported_modules(p))][0])
    assert sum(1 for p in py if any(m.split('.')[0] == 'requests' for m in imported_modules(p))) == 1

    # 20
    q('lines', 'number', "How many lines of Python do we have altogether?",
      sum(len(lines[p]) for p in py))

    # 21
    def imports_models(p):
        for m in imported_modules(p):
            if m.startswith('shop.models') or m.startswith('..models') or m == '..models':
                return True
        return False
    q('imports', 'bool', "does anything in shop/utils import from the models package?",
      any(imports_models(p) for p in py if under(p, 'shop/utils')))

    # 22
    q('imports', 'list of paths', "Which files use relative imports?",
      sorted(p for p in py if any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in ast.walk(trees[p]))))

    # 23: every .py file, empty ones included; ALT leaves the empty files out
    no_doc = [p for p in py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many Python files are missing a module docstring?",
      len(no_doc))

    # 24: classes anywhere under shop/
    shop_classes = [c for p in py if under(p, 'shop') for c in classes(p)]
    q('docstrings', 'share', "What percentage of the classes in shop/ have a docstring?",
      100 * sum(1 for c in shop_classes if ast.get_docstring(c)) / len(shop_classes))

    # 25
    order_cls = [c for c in classes('shop/models/order.py') if c.name == 'Order'][0]
    q('docstrings', 'number', "How many of Order's methods have docstrings?",
      sum(1 for m in methods(order_cls) if ast.get_docstring(m)))

    # 26: every .py file under shop/, the empty __init__.py files included; ALT leaves them out
    shop_py = [p for p in py if under(p, 'shop')]
    q('stats', 'number', "what's the median line count for python files in shop?",
      statistics.median(len(lines[p]) for p in shop_py))

    # 27
    q('stats', 'number', "What's the average file size in docs/, in bytes?",
      statistics.mean(size[p] for p in files if under(p, 'docs')))

    # 28: lines of every file in the repo
    q('stats', 'share', "What share of all the lines in the repo live in tests/?",
      100 * sum(len(lines[p]) for p in files if under(p, 'tests')) / sum(len(v) for v in lines.values()))

    # 29
    q('compare', 'bool', "Is shop/api/routes.py over 250 lines long?",
      len(lines['shop/api/routes.py']) > 250)

    # 30
    q('compare', 'bool', "Is the tests folder bigger than shop/models in bytes?",
      sum(size[p] for p in files if under(p, 'tests')) > sum(size[p] for p in files if under(p, 'shop/models')))

    # 31
    sub_lines = collections.Counter()
    for p in files:
        parts = p.split('/')
        if parts[0] == 'shop' and len(parts) > 2:
            sub_lines['shop/' + parts[1]] += len(lines[p])
    q('folders', 'folder', "Which subpackage of shop has the most lines?",
      top_ranked(dict(sub_lines), 1))

    # 32
    q('classes', 'number', "How many classes are defined under shop/services?",
      sum(len(classes(p)) for p in py if under(p, 'shop/services')))

    # 33
    q('classes', 'list of names', "Which classes inherit straight from ApiError?",
      sorted(c.name for p in py for c in classes(p)
             if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in c.bases)))

    # 34
    where = [p for p in py for c in classes(p) if c.name == 'InvalidTransition']
    assert len(where) == 1
    q('where', 'path', "Where's InvalidTransition defined?", where[0])

    # 35: module-level functions; ALT is the first def of any kind (a method of Money)
    q('functions', 'name', "What's the first top-level function in shop/utils/money.py?",
      top_defs('shop/utils/money.py')[0].name)

    # 36
    tests_per_file = {p: sum(1 for n in all_defs(p) if n.name.startswith('test_')) for p in py if under(p, 'tests')}
    q('rank', 'path', "Which test file has the most tests in it?",
      top_ranked(tests_per_file, 1))

    ALT = {
        5: sum(1 for p in py for l in lines[p] if len(l) > 100),
        10: len(all_defs('shop/api/routes.py')),
        16: statistics.mean(n_params(n, varargs=False) for n in utils_fns),
        17: n_params(cart_add),
        23: len([p for p in no_doc if files[p].strip()]),
        26: statistics.median(len(lines[p]) for p in shop_py if files[p].strip()),
        35: [n for n in ast.walk(trees['shop/utils/money.py'])
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.lineno == min(m.lineno for m in all_defs('shop/utils/money.py'))][0].name,
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
