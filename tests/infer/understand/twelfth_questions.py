"""A twelfth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a scratch directory, read every file in it as a newcomer would, and then wrote down the questions they would actually type into a chat window while finding their way around on call: sizes and counts by file type and folder, rankings with ordinals, line counts and long lines, TODO/FIXME hunting, where classes and functions live, parameters, imports, docstrings, a few averages and medians, comparisons against round numbers, yes/no checks (some true, some false) and per-folder figures. Every expected answer is computed below from the generated files with the standard library only; rankings assert that the places asked have no ties, and where a careful reader could fairly take a question another way the second reading is given in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    texts = {}
    for root, dirs, files in os.walk(R):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                texts[rel] = handle.read()
    paths = sorted(texts)
    size = {p: len(texts[p].encode()) for p in paths}
    lines = {p: texts[p].splitlines() for p in paths}
    py = [p for p in paths if p.endswith('.py')]
    trees = {p: ast.parse(texts[p]) for p in py}

    def under(folder, items):
        return [p for p in items if p.startswith(folder.rstrip('/') + '/')]

    def defs(p):
        """Every def in a file (module-level functions, methods and nested defs), by position."""
        found = [n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(fn, drop_self=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if a.vararg:
            names.append(a.vararg.arg)
        if a.kwarg:
            names.append(a.kwarg.arg)
        if drop_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return len(names)

    def ranked(items, key, places):
        """items sorted by key, largest first, asserting the first `places` places are not tied."""
        order = sorted(items, key=key, reverse=True)
        for i in range(places):
            if i + 1 < len(order):
                assert key(order[i]) != key(order[i + 1]), (order[i], order[i + 1])
            if i > 0:
                assert key(order[i - 1]) != key(order[i]), (order[i - 1], order[i])
        return order

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    q('count', 'number', "how many yaml files have we got in config?",
      len([p for p in under('config', paths) if p.endswith(('.yaml', '.yml'))]))
    # 2
    q('size', 'number', "What's the total size of the docs folder in bytes?",
      sum(size[p] for p in under('docs', paths)))
    # 3  ("test files" = tests/test_*.py; conftest.py is far smaller, so including it changes nothing)
    test_files = [p for p in under('tests', py) if p.split('/')[-1].startswith('test_')]
    order3 = ranked(test_files, lambda p: size[p], 2)
    assert ranked(under('tests', py), lambda p: size[p], 2)[1] == order3[1]
    q('rank', 'path', "Which test file is the second biggest, byte-wise?", order3[1])
    # 4
    order4 = ranked(under('shop', py), lambda p: len(lines[p]), 3)
    q('rank', 'path', "what's the 3rd longest module under shop/ if you count lines?", order4[2])
    # 5
    nonempty = [p for p in py if size[p] > 0]
    order5 = ranked(nonempty, lambda p: -size[p], 1)
    q('rank', 'path', "Smallest python file that isn't completely empty?", order5[0])
    # 6
    q('lines', 'number', "How many lines of Python are there across the whole repo?",
      sum(len(lines[p]) for p in py))
    # 7
    q('lines', 'number', "how many blank lines are in shop/models/order.py",
      sum(1 for line in lines['shop/models/order.py'] if not line.strip()))
    # 8
    q('lines', 'number', "How many lines in the shop package go past 100 characters?",
      sum(1 for p in under('shop', py) for line in lines[p] if len(line) > 100))
    # 9
    longest = {p: max((len(line) for line in lines[p]), default=0) for p in paths}
    order9 = ranked(paths, lambda p: longest[p], 1)
    q('lines', 'path', "Which file has the single longest line in the project?", order9[0])
    # 10
    q('lines', 'bool', "Are there any lines over 100 chars in the tests?",
      any(len(line) > 100 for p in under('tests', paths) for line in lines[p]))
    # 11
    order_lines = lines['shop/models/order.py']
    top_len = max(len(line) for line in order_lines)
    assert sum(1 for line in order_lines if len(line) == top_len) == 1
    q('lines', 'text', "what's the longest line in shop/models/order.py?",
      next(line for line in order_lines if len(line) == top_len).strip())
    # 12
    q('todo', 'number', "How many FIXMEs are there in total?",
      sum(len(re.findall(r'FIXME', texts[p])) for p in paths))
    # 13
    q('todo', 'list of paths', "Which python files have a TODO comment in them?",
      sorted(p for p in py if re.search(r'#\s*TODO', texts[p])))
    # 14
    todos = {p: len(re.findall(r'TODO', texts[p])) for p in paths}
    order14 = ranked(paths, lambda p: todos[p], 1)
    assert todos[order14[0]] > 0
    q('todo', 'path', "which file's got the most TODOs?", order14[0])
    # 15
    order_cls = next(c for c in classes('shop/models/order.py') if c.name == 'Order')
    q('func', 'number', "How many methods does the Order class have?", len(methods(order_cls)))
    # 16
    q('func', 'path', "Where's the Catalogue class defined?",
      next(p for p in py for c in classes(p) if c.name == 'Catalogue'))
    # 17  (every def; routes.py has no nested defs after its last handler, so both readings agree)
    assert defs('shop/api/routes.py')[-1].name == top_defs('shop/api/routes.py')[-1].name
    q('func', 'name', "What's the last function in routes.py?", defs('shop/api/routes.py')[-1].name)
    # 18
    cart_cls = next(c for c in classes('shop/models/cart.py') if c.name == 'Cart')
    q('func', 'name', "whats the first method on the Cart class", methods(cart_cls)[0].name)
    # 19  (every def in shop/, methods and nested defs included; module-level only agrees)
    shop_defs = [n for p in under('shop', py) for n in defs(p)]
    names19 = sorted({n.name for n in shop_defs}, key=len, reverse=True)
    assert len(names19[0]) > len(names19[1])
    shop_top = sorted({n.name for p in under('shop', py) for n in top_defs(p)}, key=len, reverse=True)
    assert shop_top[0] == names19[0]
    q('func', 'name', "Which function in the shop package has the longest name?", names19[0])
    # 20  (every def in the project)
    q('func', 'list of names', "any functions that start with serialize? which ones?",
      sorted({n.name for p in py for n in defs(p) if n.name.startswith('serialize')}))
    # 21
    q('func', 'number', "How many test functions do we have altogether?",
      sum(1 for p in under('tests', py) for n in defs(p) if n.name.startswith('test_')))
    # 22
    def is_route(fn):
        return any(isinstance(d, ast.Call) and getattr(d.func, 'id', None) == 'route' for d in fn.decorator_list)
    q('func', 'number', "How many handlers are registered with @route in the routes module?",
      sum(1 for n in defs('shop/api/routes.py') if is_route(n)))
    # 23  (self/cls not counted; counting them gives the same winner, checked)
    models_defs = [n for p in under('shop/models', py) for n in defs(p)]
    order23 = ranked(models_defs, lambda n: nparams(n), 1)
    assert ranked(models_defs, lambda n: nparams(n, False), 1)[0] is order23[0]
    q('params', 'name', "In shop/models, which function takes the most parameters (not counting self)?", order23[0].name)
    # 24
    dates_fns = defs('shop/utils/dates.py')
    q('params', 'number', "On average how many params do the functions in shop/utils/dates.py take?",
      statistics.mean(nparams(n) for n in dates_fns))
    # 25
    def imported_modules(p, nested=True):
        nodes = ast.walk(trees[p]) if nested else trees[p].body
        mods = set()
        for n in nodes:
            if isinstance(n, ast.Import):
                mods.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                mods.add('.' * n.level + (n.module or ''))
        return mods
    q('imports', 'list of paths', "Which files import logging?",
      sorted(p for p in py if 'logging' in imported_modules(p)))
    # 26  (every import statement, including the one inside a function)
    q('imports', 'list of names', "What modules does shop/api/auth.py import?",
      sorted(imported_modules('shop/api/auth.py')))
    # 27
    q('imports', 'bool', "Do any of the tests import the payment service?",
      any(any(m.startswith('shop.services.payment') or m.endswith('services.payment')
              for m in imported_modules(p)) for p in under('tests', py)))
    # 28  (empty files count as having no docstring)
    no_doc = [p for p in under('shop', py) if ast.get_docstring(trees[p]) is None]
    q('doc', 'number', "How many .py files in shop are missing a module docstring?", len(no_doc))
    # 29
    inv = next(c for c in classes('shop/services/inventory.py') if c.name == 'Inventory')
    q('doc', 'bool', "does the Inventory class have a docstring?", ast.get_docstring(inv) is not None)
    # 30
    shop_classes = [c for p in under('shop', py) for c in classes(p)]
    q('doc', 'share', "What percentage of the classes in shop/ have a docstring?",
      100 * sum(1 for c in shop_classes if ast.get_docstring(c) is not None) / len(shop_classes))
    # 31
    q('stats', 'number', "What's the median size in bytes of the test_*.py files?",
      statistics.median(size[p] for p in test_files))
    # 32
    q('stats', 'number', "How long are the docs pages on average, in lines?",
      statistics.mean(len(lines[p]) for p in under('docs', paths) if p.endswith('.md')))
    # 33  (2 KB read as 2000 bytes; 2048 gives the same count, checked)
    big = [p for p in py if size[p] > 2000]
    assert big == [p for p in py if size[p] > 2048]
    q('compare', 'number', "How many python files are bigger than 2KB?", len(big))
    # 34
    q('compare', 'bool', "Is any config file longer than 40 lines?",
      any(len(lines[p]) > 40 for p in under('config', paths)))
    # 35
    subs = sorted({p.split('/')[1] for p in under('shop', paths) if p.count('/') >= 2})
    sub_lines = {s: sum(len(lines[p]) for p in under('shop/' + s, paths)) for s in subs}
    order36 = ranked(subs, lambda s: sub_lines[s], 1)
    q('folder', 'folder', "which subpackage of shop has the most code, by lines?", 'shop/' + order36[0])
    # 36
    q('folder', 'number', "how many classes live in shop/models?",
      sum(len(classes(p)) for p in under('shop/models', py)))

    ALT = {
        # 26: only the module-level imports, leaving out the lazy import inside require_auth's wrapper
        26: sorted(imported_modules('shop/api/auth.py', nested=False)),
        # 28: not counting the empty __init__.py files
        28: len([p for p in no_doc if size[p] > 0]),
        # 32: counting README.md as a docs page too
        32: statistics.mean(len(lines[p]) for p in under('docs', paths) + ['README.md'] if p.endswith('.md')),
    }
    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
