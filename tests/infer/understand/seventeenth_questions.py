"""A seventeenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a temporary directory, read the generated files the way a newcomer would (the Python package, its tests, the docs, the config files and the scripts), and then wrote down the kind of questions a developer types to an assistant on a first day with a code base: how big things are, which file is largest or longest, where the TODOs and FIXMEs are, what a class or a function looks like, what is imported, how much is documented, and a few yes/no checks. Each question is typed casually, one per message, with its own wording. Every answer is computed below from the files with the standard library (os, ast, re, statistics, collections), never typed by hand; rankings assert that the places asked have no ties, and where a careful reader could fairly read a question another way the second answer is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for root, dirs, names in os.walk(R):
        dirs[:] = sorted(d for d in dirs if not d.startswith('.') and d != '__pycache__')
        for name in sorted(names):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as fh:
                files[rel] = fh.read()
    size = {p: len(t.encode()) for p, t in files.items()}
    lines = {p: t.splitlines() for p, t in files.items()}
    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}

    def under(folder, paths):
        return [p for p in paths if p.startswith(folder.rstrip('/') + '/')]

    # every def (functions, methods, nested ones) with its file and, for methods, the class it sits in
    defs = []  # (path, node, class name or None, module-level?)
    for p in py:
        def walk(node, cls, top):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.append((p, child, cls, top))
                    walk(child, None, False)
                elif isinstance(child, ast.ClassDef):
                    walk(child, child.name, False)
                else:
                    walk(child, cls, top)
        walk(trees[p], None, True)
    classes = [(p, n) for p in py for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods_of(cname):
        (node,) = [n for p, n in classes if n.name == cname]
        return [b for b in node.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(fn, drop_self=True):
        a = fn.args
        ps = a.posonlyargs + a.args + a.kwonlyargs + ([a.vararg] if a.vararg else []) + ([a.kwarg] if a.kwarg else [])
        if drop_self and ps and ps[0].arg in ('self', 'cls'):
            ps = ps[1:]
        return len(ps)

    def top_rank(d, k):
        """The keys of d ordered by value, largest first, asserting no ties among the first k places."""
        order = sorted(d, key=lambda x: -d[x])
        vals = [d[x] for x in order]
        for i in range(min(k, len(vals))):
            assert vals.count(vals[i]) == 1, (order[:k + 1], vals[:k + 1])
        return order

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1 second biggest file anywhere, by bytes
    q('rank', 'path', "what's the 2nd biggest file in the whole repo?", top_rank(size, 2)[1])

    # 2 total bytes under docs/
    q('size', 'number', "How many bytes do the docs take up altogether?", sum(size[p] for p in under('docs', files)))

    # 3 largest Markdown file, by bytes; ALT: by lines
    md = {p: size[p] for p in files if p.endswith('.md')}
    q('rank', 'path', "Which markdown file is the largest one?", top_rank(md, 1)[0])
    ALT[3] = top_rank({p: len(lines[p]) for p in md}, 1)[0]  # largest by lines rather than bytes

    # 4 second largest .py file inside shop/
    shop_py = {p: size[p] for p in under('shop', py)}
    q('rank', 'path', "Inside the shop package, which python file is second largest?", top_rank(shop_py, 2)[1])

    # 5 blank lines across all .py files
    q('lines', 'number', "How many blank lines are there across all the Python files?",
      sum(1 for p in py for l in lines[p] if not l.strip()))

    # 6 lines of Python longer than 100 characters
    q('lines', 'number', "how many lines of python go over 100 characters?",
      sum(1 for p in py for l in lines[p] if len(l) > 100))

    # 7 file holding the longest line (any file type)
    longest = {p: max((len(l) for l in lines[p]), default=0) for p in files}
    q('lines', 'path', "Which file has the longest line in it?", top_rank(longest, 1)[0])

    # 8 TODO comments in the whole project (any file); ALT: Python files only
    todo = re.compile(r'#\s*TODO\b')
    todos = {p: sum(1 for l in lines[p] if todo.search(l)) for p in files}
    q('todo', 'number', "How many TODO comments are there in total?", sum(todos.values()))
    ALT[8] = sum(todos[p] for p in py)

    # 9 file with the most TODOs
    q('todo', 'path', "which file's got the most TODOs?", top_rank(todos, 1)[0])

    # 10 files with a FIXME comment
    fixme = re.compile(r'#\s*FIXME\b')
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(p for p in files if any(fixme.search(l) for l in lines[p])))

    # 11 any FIXME in shop/api?
    q('yesno', 'bool', "Is there a FIXME anywhere in shop/api?",
      any(fixme.search(l) for p in under('shop/api', files) for l in lines[p]))

    # 12 subclasses of ApiError
    q('classes', 'list of names', "What classes inherit from ApiError?",
      sorted(n.name for p, n in classes if any(isinstance(b, ast.Name) and b.id == 'ApiError' for b in n.bases)))

    # 13 last module-level function in routes.py
    rdefs = [n for p, n, c, top in defs if p == 'shop/api/routes.py' and top]
    q('functions', 'name', "What's the last function defined in routes.py?", max(rdefs, key=lambda n: n.lineno).name)

    # 14 first method of Order
    q('methods', 'name', "what's the first method in the Order class?", methods_of('Order')[0].name)

    # 15 longest function name, counting every def (methods and tests too)
    namelen = {}
    for p, n, c, top in defs:
        namelen[n.name] = len(n.name)
    q('functions', 'name', "Which function has the longest name?", top_rank(namelen, 1)[0])

    # 16 every def (methods included) whose name starts with is_; ALT: module-level functions only
    q('functions', 'list of names', "which functions start with is_ ?",
      sorted({n.name for p, n, c, top in defs if n.name.startswith('is_')}))
    ALT[16] = sorted({n.name for p, n, c, top in defs if top and n.name.startswith('is_')})

    # 17 where split_evenly is defined
    (where,) = [p for p, n, c, top in defs if n.name == 'split_evenly']
    q('where', 'path', "Where's split_evenly defined?", where)

    # 18 parameters of Cart.add, not counting self; ALT with self
    (cart_add,) = [m for m in methods_of('Cart') if m.name == 'add']
    q('params', 'number', "how many arguments does Cart.add() take?", nparams(cart_add))
    ALT[18] = nparams(cart_add, drop_self=False)

    # 19 module-level functions in shop/ that take no parameters at all
    q('params', 'number', "In the shop package, how many module-level functions take zero arguments?",
      sum(1 for p, n, c, top in defs if top and p.startswith('shop/') and nparams(n, False) == 0))

    # 20 mean parameter count of the functions in dates.py (all module-level, none has self)
    dparams = [nparams(n, False) for p, n, c, top in defs if p == 'shop/utils/dates.py']
    q('params', 'number', "What's the average number of parameters for the functions in shop/utils/dates.py?",
      statistics.mean(dparams))

    # 21 file with the most import statements (import and from-import nodes anywhere in the file)
    nimports = {p: sum(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(trees[p])) for p in py}
    q('imports', 'path', "Which file has the most import statements?", top_rank(nimports, 1)[0])

    # 22 requests imported anywhere?
    def imported(mod):
        for p in py:
            for n in ast.walk(trees[p]):
                if isinstance(n, ast.Import) and any(a.name.split('.')[0] == mod for a in n.names):
                    return True
                if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and n.module.split('.')[0] == mod:
                    return True
        return False
    q('imports', 'bool', "does anything in the code actually import requests?", imported('requests'))

    # 23 yaml imported anywhere?
    q('imports', 'bool', "Is yaml imported anywhere in the Python code?", imported('yaml'))

    # 24 .py files without a module docstring (empty files included); ALT: non-empty files only
    nodoc = [p for p in py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many .py files are missing a module docstring?", len(nodoc))
    ALT[24] = sum(1 for p in nodoc if files[p].strip())

    # 25 share of every def (methods included) with a docstring; ALT: module-level functions only
    withdoc = [ast.get_docstring(n) is not None for p, n, c, top in defs]
    q('docstrings', 'share', "What percent of functions have docstrings?", 100 * sum(withdoc) / len(withdoc))
    topdoc = [ast.get_docstring(n) is not None for p, n, c, top in defs if top]
    ALT[25] = 100 * sum(topdoc) / len(topdoc)

    # 26 median bytes of the test_*.py files; ALT: every .py file in tests/
    tfiles = [p for p in under('tests', py) if os.path.basename(p).startswith('test_')]
    q('stats', 'number', "what's the median size in bytes of the test files?", statistics.median(size[p] for p in tfiles))
    ALT[26] = statistics.median(size[p] for p in under('tests', py))

    # 27 the subpackage of shop with the most lines of Python
    subs = collections.Counter()
    for p in under('shop', py):
        parts = p.split('/')
        if len(parts) > 2:
            subs['/'.join(parts[:2])] += len(lines[p])
    q('folder', 'folder', "Which subpackage of shop has the most lines of code?", top_rank(subs, 1)[0])

    # 28 methods of Cart (every def in its body, dunders included); ALT: without dunders
    cm = methods_of('Cart')
    q('methods', 'number', "How many methods does Cart have?", len(cm))
    ALT[28] = sum(1 for m in cm if not (m.name.startswith('__') and m.name.endswith('__')))

    # 29 class with the most methods
    q('methods', 'name', "Which class has the most methods?",
      top_rank({n.name: len(methods_of(n.name)) for p, n in classes}, 1)[0])

    # 30 test functions in tests/
    q('count', 'number', "How many test functions are there in total?",
      sum(1 for p, n, c, top in defs if p.startswith('tests/') and n.name.startswith('test_')))

    # 31 .py files over 50 lines
    q('compare', 'number', "how many python files are over 50 lines?", sum(1 for p in py if len(lines[p]) > 50))

    # 32 every file in docs/ Markdown?
    q('yesno', 'bool', "Is every file in docs/ a Markdown file?", all(p.endswith('.md') for p in under('docs', files)))

    # 33 longest line of cart.py
    cl = lines['shop/models/cart.py']
    top_rank({i: len(l) for i, l in enumerate(cl)}, 1)
    q('lines', 'text', "Show me the longest line in shop/models/cart.py", max(cl, key=len).strip())

    # 34 handlers registered with the @route decorator
    def decorated_with(n, name):
        for d in n.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            if isinstance(f, ast.Name) and f.id == name:
                return True
        return False
    q('decorators', 'number', "How many handlers get registered with @route?",
      sum(1 for p, n, c, top in defs if decorated_with(n, 'route')))

    # 35 share of files that are Python
    q('share', 'share', "What share of the project's files are Python?", 100 * len(py) / len(files))

    # 36 non-blank lines of Python under shop/services
    q('folder', 'number', "How many non-blank lines of python are under shop/services?",
      sum(1 for p in under('shop/services', py) for l in lines[p] if l.strip()))

    assert len(Q) == 36, len(Q)
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
