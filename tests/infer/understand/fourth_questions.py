"""A fourth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a scratch folder, walked it as a newcomer would (listing the folders, opening the modules, the tests, the docs, the config files and the scripts) and wrote down the questions they would actually type into a chat box while getting to know it: sizes and rankings, counts of TODOs and FIXMEs, where things are defined, what a module imports, what a function takes, docstrings, long and blank lines, file types, totals per subpackage and a few yes/no checks, some of whose honest answer is no or nothing. Each expected answer is computed below from the generated files with the standard library only (ast for definitions, docstrings and imports; plain text for lines, words and bytes), never typed in by hand; where a careful reader could fairly take a question another way, the second reading is computed too and kept in ALT. Rankings assert that the place asked for is not tied."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for folder, dirs, names in os.walk(R):
        dirs[:] = sorted(d for d in dirs if d not in ('.git', '__pycache__'))
        for name in sorted(names):
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                files[rel] = handle.read()

    def lines(p):
        return files[p].splitlines()

    def size(p):
        return len(files[p].encode())

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    py = {p: t for p, t in files.items() if p.endswith('.py')}
    trees = {p: ast.parse(t) for p, t in py.items()}
    FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)

    def all_defs(p):
        # every def in the file: module-level functions, methods and nested functions
        return [n for n in ast.walk(trees[p]) if isinstance(n, FUNC)]

    def top_defs(p):
        # module-level functions only
        return [n for n in trees[p].body if isinstance(n, FUNC)]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, FUNC)]

    def params(fn):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if a.vararg:
            names.append(a.vararg.arg)
        if a.kwarg:
            names.append(a.kwarg.arg)
        return names

    def package_of(p):
        parts = p.split('/')
        mod = parts[:-1] + ([] if parts[-1] == '__init__.py' else [parts[-1][:-3]])
        pkg = parts[:-1]
        return mod, pkg

    def imported_modules(p):
        """Every module the file imports, relative imports resolved to absolute dotted names."""
        _, pkg = package_of(p)
        out = set()
        for n in ast.walk(trees[p]):
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
                    out.add(mod + '.' + a.name)
        return out

    def unique_top(ranked, k):
        """Assert the k-th place (1-based) of a (value, item) list sorted best first is not tied with its neighbours."""
        v = ranked[k - 1][0]
        assert sum(1 for x, _ in ranked if x == v) == 1, ranked[:k + 2]
        return ranked[k - 1][1]

    Q = []

    def q(kind, typ, text, exp):
        Q.append((kind, typ, text, exp))

    ALT = {}

    # 1 rank by bytes over all .py files; the 2nd place is not tied (and by lines it is the same file)
    by_size = sorted(((size(p), p) for p in py), reverse=True)
    second = unique_top(by_size, 2)
    assert sorted(((len(lines(p)), p) for p in py), reverse=True)[1][1] == second
    q('rank', 'path', "What's the 2nd biggest Python file in the code base?", second)

    # 2 share of all Python lines that sit under tests/
    total_py_lines = sum(len(lines(p)) for p in py)
    test_py_lines = sum(len(lines(p)) for p in py if under(p, 'tests'))
    q('share', 'share', "What percentage of the Python lines live in the tests folder?",
      100 * test_py_lines / total_py_lines)

    # 3 mean line count over every .py file under shop/ (the empty __init__.py files count as 0)
    shop_py = [p for p in py if under(p, 'shop')]
    q('stat', 'number', "Roughly how many lines long is a module in the shop package, on average?",
      statistics.mean(len(lines(p)) for p in shop_py))
    ALT[3] = statistics.mean(len(lines(p)) for p in shop_py if files[p].strip())

    # 4 median byte size of the markdown pages in docs/
    docs_md = [p for p in files if under(p, 'docs') and p.endswith('.md')]
    q('stat', 'number', "What's the median size in bytes of the markdown files in the docs folder?",
      statistics.median(size(p) for p in docs_md))

    # 5 TODO comments in .py files (the shell scripts hold one more; that reading is the ALT)
    todo = re.compile(r'#\s*TODO\b')
    q('count', 'number', "How many TODO comments are there in the Python code?",
      sum(len(todo.findall(files[p])) for p in py))
    ALT[5] = sum(len(todo.findall(t)) for t in files.values())

    # 6 a ranking in full, by bytes (ALT by lines); every size differs so the order is well defined
    docs_ranked = sorted(((size(p), p) for p in docs_md), reverse=True)
    assert len({v for v, _ in docs_ranked}) == len(docs_ranked)
    q('rank', 'list of paths', "List the markdown files in the docs folder, largest first.",
      [p for _, p in docs_ranked])
    by_lines = sorted(((len(lines(p)), p) for p in docs_md), reverse=True)
    assert len({v for v, _ in by_lines}) == len(by_lines)
    ALT[6] = [p for _, p in by_lines]  # "largest" read as most lines

    # 7 existence, true answer is no
    fixme = re.compile(r'\bFIXME\b')
    q('exist', 'bool', "Is there a FIXME anywhere under tests?",
      any(fixme.search(files[p]) for p in files if under(p, 'tests')))

    # 8 every def (methods and nested included); the winner is a module-level test function either way
    by_len = sorted({(len(n.name), n.name) for p in py for n in all_defs(p)}, reverse=True)
    q('names', 'name', "What's the longest function name in the project?", unique_top(by_len, 1))

    # 9 methods = defs directly in the class body (dunders and properties included)
    by_methods = sorted(((len(methods(c)), c.name) for p in py for c in classes(p)), reverse=True)
    q('rank', 'name', "Which class has the most methods?", unique_top(by_methods, 1))

    # 10 where a class is defined
    where = [p for p in py for c in classes(p) if c.name == 'Catalogue']
    assert len(where) == 1
    q('where', 'path', "Where's the Catalogue class defined?", where[0])

    # 11 which files import a third-party package
    q('imports', 'list of paths', "Which files import requests?",
      sorted(p for p in py if any(m == 'requests' or m.startswith('requests.') for m in imported_modules(p))))

    # 12 imports of auth.py outside the project's own package (all of them standard library)
    auth = 'shop/api/auth.py'
    outside = {m.split('.')[0] for m in imported_modules(auth) if m.split('.')[0] != 'shop'}
    stdlib_here = {'base64', 'functools', 'hashlib', 'hmac', 'os', 'time', 'typing', 'collections', 'json',
                   're', 'sys', 'datetime', 'dataclasses', 'logging', 'threading', 'abc', 'uuid'}
    assert outside <= stdlib_here, outside
    q('imports', 'list of names', "What standard library modules does shop/api/auth.py import?", sorted(outside))

    # 13 a module docstring
    q('docstring', 'text', "What's the docstring of shop/services/inventory.py?",
      ast.get_docstring(trees['shop/services/inventory.py']))

    # 14 reading the top of a file
    q('reading', 'text', "Can you show me the first 3 lines of scripts/deploy.sh?",
      '\n'.join(lines('scripts/deploy.sh')[:3]))

    # 15 arguments of a function
    fns = [n for p in py for n in all_defs(p) if n.name == 'split_evenly']
    assert len(fns) == 1
    q('args', 'list of names', "What arguments does split_evenly take?", params(fns[0]))

    # 16 file type count
    q('filetype', 'number', "How many YAML files does the project have?",
      sum(1 for p in files if p.endswith(('.yaml', '.yml'))))

    # 17 largest markdown file by bytes; by lines it is another file (ALT)
    md = [p for p in files if p.endswith('.md')]
    md_bytes = sorted(((size(p), p) for p in md), reverse=True)
    md_lines = sorted(((len(lines(p)), p) for p in md), reverse=True)
    q('filetype', 'path', "What's the largest markdown file?", unique_top(md_bytes, 1))
    ALT[17] = unique_top(md_lines, 1)

    # 18 lines of Python per direct subpackage of shop/ (same winner counting non-blank lines only)
    sub_lines = collections.Counter()
    sub_code = collections.Counter()
    for p in shop_py:
        parts = p.split('/')
        if len(parts) >= 3:
            sub_lines['/'.join(parts[:2])] += len(lines(p))
            sub_code['/'.join(parts[:2])] += sum(1 for l in lines(p) if l.strip())
    top_sub = unique_top(sorted(((v, k) for k, v in sub_lines.items()), reverse=True), 1)
    assert top_sub == unique_top(sorted(((v, k) for k, v in sub_code.items()), reverse=True), 1)
    q('group', 'folder', "Which subpackage of shop has the most lines of code?", top_sub)

    # 19 lines longer than 100 characters over the .py files not under tests/
    q('lines', 'number', "How many lines of Python outside the tests are longer than 100 characters?",
      sum(1 for p in py if not under(p, 'tests') for l in lines(p) if len(l) > 100))

    # 20 the longest line of one file (compared after strip)
    routes = 'shop/api/routes.py'
    longest = sorted(((len(l), l) for l in lines(routes)), reverse=True)
    assert longest[0][0] > longest[1][0]
    q('lines', 'text', "What's the longest line in shop/api/routes.py?", longest[0][1])

    # 21 blank lines of one file
    q('lines', 'number', "How many blank lines does shop/models/order.py have?",
      sum(1 for l in lines('shop/models/order.py') if not l.strip()))

    # 22 every .py file counts (empty ones have no docstring); ALT leaves the empty files out
    with_doc = [p for p in py if ast.get_docstring(trees[p]) is not None]
    q('share', 'share', "What percentage of the Python modules have a docstring?", 100 * len(with_doc) / len(py))
    nonempty = [p for p in py if files[p].strip()]
    ALT[22] = 100 * len(with_doc) / len(nonempty)

    # 23 module-level functions only; *args/**kwargs count as arguments (the answer does not change without them)
    q('compare', 'bool', "Does any module-level function take more than four arguments?",
      any(len(params(n)) > 4 for p in py for n in top_defs(p)))

    # 24 functions (every def) in one file starting with a prefix
    q('names', 'number', "How many functions in shop/api/routes.py start with get_?",
      sum(1 for n in all_defs(routes) if n.name.startswith('get_')))

    # 25 methods of one class, dunders included; ALT without __init__ and other dunders
    inv = [c for p in py for c in classes(p) if c.name == 'Inventory']
    assert len(inv) == 1
    q('count', 'number', "How many methods does the Inventory class have?", len(methods(inv[0])))
    ALT[25] = sum(1 for m in methods(inv[0]) if not (m.name.startswith('__') and m.name.endswith('__')))

    # 26 last module-level function in a file (it has no classes or nested defs)
    q('names', 'name', "What's the last function defined in shop/utils/text.py?",
      top_defs('shop/utils/text.py')[-1].name)

    # 27 test functions = defs named test_* in files under tests/
    q('count', 'number', "How many test functions are in the test suite?",
      sum(1 for p in py if under(p, 'tests') for n in all_defs(p) if n.name.startswith('test_')))

    # 28 words = whitespace-separated tokens of the whole file, code blocks included
    q('count', 'number', "How many words are in the README?", len(files['README.md'].split()))

    # 29 comparison of a size against a number
    q('compare', 'bool', "Is there a JSON file bigger than 300 bytes?",
      any(size(p) > 300 for p in files if p.endswith('.json')))

    # 30 a superlative asked for its value
    q('lines', 'number', "How many characters is the longest line in the Python files?",
      max(len(l) for p in py for l in lines(p)))

    # 31 modules under shop/ with no module docstring (the empty __init__.py files have none); ALT without them
    no_doc = sorted(p for p in shop_py if ast.get_docstring(trees[p]) is None)
    q('docstring', 'list of paths', "Which modules in shop don't have a docstring?", no_doc)
    ALT[31] = [p for p in no_doc if files[p].strip()]

    # 32 ranking within a folder by bytes; ALT by lines
    config = sorted(((size(p), p) for p in files if under(p, 'config')), reverse=True)
    q('rank', 'path', "What's the 3rd largest file in config?", unique_top(config, 3))
    ALT[32] = unique_top(sorted(((len(lines(p)), p) for p in files if under(p, 'config')), reverse=True), 3)

    # 33 files importing one module, relative imports resolved (one of them imports it as ..utils.money)
    q('imports', 'number', "How many modules import shop.utils.money?",
      sum(1 for p in py if 'shop.utils.money' in imported_modules(p)))

    # 34 mean parameter count over the (module-level) functions of one file; it has no classes
    dates = 'shop/utils/dates.py'
    assert not classes(dates) and len(all_defs(dates)) == len(top_defs(dates))
    q('stat', 'number', "On average, how many parameters do the functions in shop/utils/dates.py take?",
      statistics.mean(len(params(n)) for n in top_defs(dates)))

    # 35 existence whose true answer is empty
    q('exist', 'list of paths', "Which files import numpy?",
      sorted(p for p in py if any(m == 'numpy' or m.startswith('numpy.') for m in imported_modules(p))))

    # 36 distinct names over every def in shop/api (methods and nested wrappers included; the nested
    # wrappers and __init__ repeat); ALT: module-level functions only
    api = [p for p in py if under(p, 'shop/api')]
    q('names', 'number', "How many distinct function names are there in shop/api?",
      len({n.name for p in api for n in all_defs(p)}))
    ALT[36] = len({n.name for p in api for n in top_defs(p)})

    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
