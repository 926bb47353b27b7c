"""An eighteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The questions were written after generating the fixture into a scratch directory and reading its files the way a newcomer doing a quick health check would: first the layout and sizes, then the code (classes, functions, parameters, imports, docstrings), then the loose ends (TODO/FIXME comments, long lines). Each question is phrased as it might be typed into a chat box, and each answer is computed below from the generated files with the standard library only (ast for code structure, plain string handling for lines and bytes); rankings assert that the place asked has no tie, and a fair second reading of a question is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for root, dirs, names in os.walk(R):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                files[rel] = handle.read()
    size = {p: len(t.encode()) for p, t in files.items()}
    lines = {p: t.splitlines() for p, t in files.items()}
    py = {p: t for p, t in files.items() if p.endswith('.py')}
    trees = {p: ast.parse(t) for p, t in py.items()}

    def unique_top(scores, place=1):
        """The key at ``place`` (1-based) when ranked by score, descending; asserts no tie at that place."""
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        value = ranked[place - 1][1]
        assert sum(1 for _, v in ranked if v == value) == 1, (place, ranked[:place + 2])
        return ranked[place - 1][0]

    def all_defs(tree):
        return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def module_defs(tree):
        return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(tree):
        return [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(fn):
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def under(folder):
        return {p: t for p, t in files.items() if p.startswith(folder + '/')}

    def comment_lines(path, tag):
        return [l for l in lines[path] if re.search(r'#\s*' + tag + r'\b', l)]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1 largest file by bytes, whole repo
    q('rank', 'path', "What's the biggest file in this repo, size-wise?", unique_top(size))

    # 2 second-longest Python file by line count
    q('rank', 'path', "which .py file is the 2nd longest by number of lines?",
      unique_top({p: len(lines[p]) for p in py}, 2))

    # 3 Markdown files anywhere
    q('count', 'number', "How many markdown files do we have in total?",
      sum(1 for p in files if p.endswith('.md')))

    # 4 bytes in docs/
    q('size', 'number', "Roughly how much does the docs folder weigh? Give me total bytes.",
      sum(size[p] for p in under('docs')))

    # 5 total lines of Python
    q('lines', 'number', "What's the total line count across all the Python files?",
      sum(len(lines[p]) for p in py))

    # 6 no setup.py anywhere
    q('yesno', 'bool', "Is there a setup.py anywhere in here?",
      any(p == 'setup.py' or p.endswith('/setup.py') for p in files))

    # 7 lines strictly over 100 characters, every file
    over = sum(1 for p in files for l in lines[p] if len(l) > 100)
    q('lines', 'number', "How many lines go past 100 chars, across the whole project?", over)
    at_least = sum(1 for p in files for l in lines[p] if len(l) >= 100)
    if at_least != over:
        ALT[7] = at_least

    # 8 file holding the single longest line
    longest_in = {p: max((len(l) for l in lines[p]), default=0) for p in files}
    q('lines', 'path', "Which file has the longest single line in it?", unique_top(longest_in))

    # 9 TODO comments inside the shop package
    q('todo', 'number', "How many TODO comments are there in the shop package?",
      sum(len(comment_lines(p, 'TODO')) for p in under('shop')))

    # 10 file with the most TODOs
    q('todo', 'path', "Which file's got the most TODOs?",
      unique_top({p: len(comment_lines(p, 'TODO')) for p in files}))

    # 11 FIXMEs in tests/
    q('yesno', 'bool', "Are there any FIXMEs lurking in the tests?",
      any(comment_lines(p, 'FIXME') for p in under('tests')))

    # 12 methods of Cart (every def in the class body, dunders included)
    cart = [c for c in classes(trees['shop/models/cart.py']) if c.name == 'Cart'][0]
    q('methods', 'number', "How many methods does the Cart class have?", len(methods(cart)))
    ALT[12] = sum(1 for m in methods(cart) if not (m.name.startswith('__') and m.name.endswith('__')))

    # 13 longest function name in shop/ (every def, methods and nested ones included)
    shop_defs = {n.name for p in under('shop') if p in py for n in all_defs(trees[p])}
    by_len = {n: len(n) for n in shop_defs}
    q('names', 'name', "What's the longest function name in the shop package?", unique_top(by_len))
    shop_mod = {n.name: len(n.name) for p in under('shop') if p in py for n in module_defs(trees[p])}
    alt13 = unique_top(shop_mod)
    if alt13 != unique_top(by_len):
        ALT[13] = alt13

    # 14 defs whose name starts with get_ (every def, whole project)
    q('names', 'list of names', "Which functions start with get_ ?",
      sorted({n.name for t in trees.values() for n in all_defs(t) if n.name.startswith('get_')}))

    # 15 where business_days_after is defined
    q('where', 'path', "where is business_days_after defined?",
      [p for p, t in trees.items() if any(n.name == 'business_days_after' for n in all_defs(t))][0])

    # 16 last module-level function in routes.py
    q('order', 'name', "What's the last function in shop/api/routes.py?",
      module_defs(trees['shop/api/routes.py'])[-1].name)

    # 17 first class in errors.py
    q('order', 'name', "First class you hit in shop/api/errors.py?",
      [n for n in trees['shop/api/errors.py'].body if isinstance(n, ast.ClassDef)][0].name)

    # 18 parameters of User.add_address (self not counted)
    user_cls = [c for c in classes(trees['shop/models/user.py']) if c.name == 'User'][0]
    add_address = [m for m in methods(user_cls) if m.name == 'add_address'][0]
    q('params', 'number', "How many params does User.add_address take?", nparams(add_address) - 1)
    ALT[18] = nparams(add_address)

    # 19 module-level functions in shop/ that take no parameters at all
    q('params', 'number', "How many top-level functions in shop/ take zero arguments?",
      sum(1 for p in under('shop') if p in py for n in module_defs(trees[p]) if nparams(n) == 0))

    # 20 files importing logging
    def imported_modules(tree):
        mods = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                mods.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                mods.add(n.module)
        return mods
    q('imports', 'number', "How many files import logging?",
      sum(1 for t in trees.values() if any(m == 'logging' or m.startswith('logging.') for m in imported_modules(t))))

    # 21 standard-library module imported by the most files
    stdlib = {'abc', 'argparse', 'base64', 'collections', 'dataclasses', 'datetime', 'decimal', 'email',
              'enum', 'functools', 'hashlib', 'hmac', 'itertools', 'json', 'logging', 'os', 'pathlib',
              'random', 're', 'smtplib', 'sys', 'threading', 'time', 'typing', 'unicodedata', 'uuid'}
    tops = collections.Counter()
    for t in trees.values():
        found = {m.split('.')[0] for m in imported_modules(t)}
        assert found - stdlib <= {'shop', 'pytest', 'requests'}, found - stdlib
        tops.update(found & stdlib)
    q('imports', 'name', "Which stdlib module gets imported by the most files?", unique_top(dict(tops)))

    # 22 non-empty .py files without a module docstring
    q('docstrings', 'number', "How many (non-empty) Python files are missing a module docstring?",
      sum(1 for p, t in trees.items() if py[p].strip() and ast.get_docstring(t) is None))

    # 23 share of classes with a docstring
    all_classes = [c for t in trees.values() for c in classes(t)]
    q('docstrings', 'share', "What % of the classes have a docstring?",
      100 * sum(1 for c in all_classes if ast.get_docstring(c)) / len(all_classes))

    # 24 average lines per .py file in shop/ (empty __init__ files included)
    q('stats', 'number', "Average number of lines per python file under shop/?",
      statistics.mean(len(lines[p]) for p in under('shop') if p in py))

    # 25 median bytes of tests/test_*.py
    q('stats', 'number', "What's the median size in bytes of the test_*.py files?",
      statistics.median(size[p] for p in under('tests') if os.path.basename(p).startswith('test_') and p.endswith('.py')))

    # 26 share of blank lines, every file
    total = sum(len(v) for v in lines.values())
    blank = sum(1 for v in lines.values() for l in v if not l.strip())
    q('share', 'share', "what percentage of all the lines in the repo are blank?", 100 * blank / total)

    # 27 Python files over 50 lines
    q('compare', 'number', "How many Python files are over 50 lines long?",
      sum(1 for p in py if len(lines[p]) > 50))

    # 28 routes.py over 250 lines
    q('yesno', 'bool', "Is routes.py more than 250 lines?", len(lines['shop/api/routes.py']) > 250)

    # 29 any test module over 200 lines
    q('yesno', 'bool', "Does any of the test modules go over 200 lines?",
      any(len(lines[p]) > 200 for p in under('tests') if p in py))

    # 30 subpackage of shop with the most lines
    sub_lines = collections.Counter()
    for p in under('shop'):
        parts = p.split('/')
        if len(parts) > 2:
            sub_lines['shop/' + parts[1]] += len(lines[p])
    q('folders', 'folder', "Which subpackage of shop has the most lines of code in total?",
      unique_top(dict(sub_lines)))

    # 31 classes in shop/models
    q('folders', 'number', "How many classes are defined in shop/models?",
      sum(len(classes(trees[p])) for p in under('shop/models') if p in py))

    # 32 test functions in test_api.py (module-level defs named test_*)
    q('tests', 'number', "how many test functions are in tests/test_api.py?",
      sum(1 for n in module_defs(trees['tests/test_api.py']) if n.name.startswith('test_')))

    # 33 top-level folder holding the most files
    top_files = collections.Counter(p.split('/')[0] for p in files if '/' in p)
    q('folders', 'folder', "Which top-level directory has the most files in it?", unique_top(dict(top_files)))

    # 34 longest line of order.py
    order_lines = lines['shop/models/order.py']
    longest = max(len(l) for l in order_lines)
    assert sum(1 for l in order_lines if len(l) == longest) == 1
    q('lines', 'text', "Can you paste me the longest line in shop/models/order.py?",
      [l for l in order_lines if len(l) == longest][0])

    # 35 class with the most methods (defs directly in the class body)
    q('methods', 'name', "Which class has the most methods?",
      unique_top({c.name: len(methods(c)) for c in all_classes}))

    # 36 route handlers decorated with @require_auth
    def decorator_names(fn):
        out = []
        for d in fn.decorator_list:
            d = d.func if isinstance(d, ast.Call) else d
            out.append(d.id if isinstance(d, ast.Name) else getattr(d, 'attr', None))
        return out
    q('decorators', 'number', "How many of the handlers in routes.py are behind @require_auth?",
      sum(1 for n in module_defs(trees['shop/api/routes.py']) if 'require_auth' in decorator_names(n)))
    # second reading: @require_staff wraps its handler in require_auth too, so the staff routes count as well
    ALT[36] = sum(1 for n in module_defs(trees['shop/api/routes.py'])
                  if {'require_auth', 'require_staff'} & set(decorator_names(n)))

    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
