"""A twenty-second blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer read only the fixture generator, generated the project into a temporary directory, looked over its files, and then wrote the questions the way a reviewer glancing around a pull request would type them into a chat box: casual, one per message, with varied wording. Every expected answer is computed below from the generated files with the standard library only (os, ast, re, statistics, collections); rankings assert that the places asked about are not tied, and where a careful reader could fairly take a question another way, that second reading is computed too and recorded in ALT."""

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
    T = {p: ast.parse(t) for p, t in PY.items()}
    lines = {p: t.splitlines() for p, t in F.items()}
    size = {p: len(t.encode()) for p, t in F.items()}

    def under(folder, paths):
        return sorted(p for p in paths if p.startswith(folder.rstrip('/') + '/'))

    def defs(p):  # every def, methods included
        return [n for n in ast.walk(T[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def toplevel(p):
        return [n for n in T[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(T[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [m for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(fn):
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def imported(p):
        mods = set()
        for n in ast.walk(T[p]):
            if isinstance(n, ast.Import):
                mods.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                mods.add('.' * n.level + (n.module or ''))
        return mods

    def ranked(d, k, reverse=True):
        items = sorted(d.items(), key=lambda kv: kv[1], reverse=reverse)
        assert items[k - 1][1] != items[k][1], (items[k - 1], items[k])
        if k > 1:
            assert items[k - 2][1] != items[k - 1][1]
        return items[k - 1][0]

    TODO = re.compile(r'#\s*TODO\b')
    FIXME = re.compile(r'#\s*FIXME\b')
    shop_py = under('shop', PY)
    test_named = sorted(p for p in PY if p.startswith('tests/') and os.path.basename(p).startswith('test_'))
    tests_all = under('tests', F)
    cls_by_name = {c.name: (p, c) for p in PY for c in classes(p)}

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1
    q('rank', 'path', "Which Python file inside shop/ has the most lines?",
      ranked({p: len(lines[p]) for p in shop_py}, 1))
    # 2
    q('count', 'number', "how many markdown files does the repo have?",
      sum(p.endswith('.md') for p in F))
    # 3
    q('size', 'number', "What's the combined size of everything in config/, in bytes?",
      sum(size[p] for p in under('config', F)))
    # 4
    q('rank', 'path', "What's the second biggest file in the whole project by bytes?",
      ranked(size, 2))
    # 5
    q('lines', 'number', "How many blank lines are there across the tests folder?",
      sum(1 for p in tests_all for l in lines[p] if not l.strip()))
    # 6
    q('lines', 'number', "How many lines in the .py files go past 100 characters?",
      sum(1 for p in PY for l in lines[p] if len(l) > 100))
    # 7
    longest = {p: max((len(l) for l in lines[p]), default=0) for p in F}
    q('rank', 'path', "Which file contains the single longest line?", ranked(longest, 1))
    # 8  whole repo, any file type; ALT: Python files only
    q('todo', 'number', "How many TODO comments are there in the repo altogether?",
      sum(len(TODO.findall(t)) for t in F.values()))
    todo_alt_8 = sum(len(TODO.findall(t)) for t in PY.values())
    # 9
    q('todo', 'list of paths', "which files have a FIXME in them?",
      sorted(p for p, t in F.items() if FIXME.search(t)))
    # 10  every def incl. methods; ALT: module-level only
    utils_py = under('shop/utils', PY)
    q('functions', 'number', "How many functions are defined in shop/utils, methods included?",
      sum(len(defs(p)) for p in utils_py))
    # 11
    q('methods', 'name', "What's the last method in the Order class?",
      methods(cls_by_name['Order'][1])[-1].name)
    # 12
    q('where', 'path', "Where's `paginate` defined?",
      [p for p in PY if any(n.name == 'paginate' for n in defs(p))][0])
    # 13  every def incl. methods in the shop package
    names13 = {n.name for p in shop_py for n in defs(p)}
    q('names', 'name', "What's the longest function name in the shop package?",
      ranked({n: len(n) for n in names13}, 1))
    # 14
    q('names', 'list of names', "Are there any functions whose names start with 'serialize'? Which ones?",
      sorted({n.name for p in PY for n in defs(p) if n.name.startswith('serialize')}))
    # 15  not counting self; ALT: with self
    add_addr = [m for m in methods(cls_by_name['User'][1]) if m.name == 'add_address'][0]
    q('params', 'number', "How many args does User.add_address take, not counting self?",
      nparams(add_addr) - 1)
    # 16
    q('imports', 'number', "How many modules import pytest?",
      sum('pytest' in imported(p) for p in PY))
    # 17
    q('imports', 'bool', "Does anything in the shop package use requests?",
      any('requests' in imported(p) or any(m.startswith('requests.') for m in imported(p)) for p in shop_py))
    # 18
    q('functions', 'bool', "Is there any async def anywhere in the codebase?",
      any(isinstance(n, ast.AsyncFunctionDef) for p in PY for n in ast.walk(T[p])))
    # 19  every .py file, empty ones included; ALT: non-empty files only
    q('docstrings', 'share', "What percentage of the Python files have a module docstring?",
      100 * sum(ast.get_docstring(T[p]) is not None for p in PY) / len(PY))
    nonempty = [p for p in PY if PY[p].strip()]
    alt19 = 100 * sum(ast.get_docstring(T[p]) is not None for p in nonempty) / len(nonempty)
    # 20  includes the empty __init__.py files; ALT: non-empty only
    nodoc = sorted(p for p in shop_py if ast.get_docstring(T[p]) is None)
    q('docstrings', 'list of paths', "Which modules under shop/ are missing a module docstring?", nodoc)
    # 21  test_*.py files; ALT: every file in tests/
    q('stats', 'number', "On average how many lines long is a test file?",
      statistics.mean(len(lines[p]) for p in test_named))
    alt21 = statistics.mean(len(lines[p]) for p in tests_all)
    # 22
    q('stats', 'number', "What's the median size in bytes of the .py files under shop?",
      statistics.median(size[p] for p in shop_py))
    # 23
    q('classes', 'number', "how many classes are there in shop/models?",
      sum(len(classes(p)) for p in under('shop/models', PY)))
    # 24
    q('rank', 'name', "Which class has the most methods?",
      ranked({c.name: len(methods(c)) for p in PY for c in classes(p)}, 1))
    # 25
    subs = collections.Counter()
    for p in shop_py:
        parts = p.split('/')
        if len(parts) > 2:
            subs['/'.join(parts[:2])] += len(lines[p])
    q('folders', 'folder', "Which subpackage of shop has the most lines of code in total?", ranked(subs, 1))
    # 26
    q('compare', 'bool', "Is routes.py over 250 lines?", len(lines['shop/api/routes.py']) > 250)
    # 27  test functions = defs whose name starts with test_ anywhere in tests/
    ntests = sum(1 for p in under('tests', PY) for n in defs(p) if n.name.startswith('test_'))
    q('compare', 'bool', "Do we have more than 50 test functions in tests/?", ntests > 50)
    # 28
    q('count', 'number', "How many shell scripts are there?", sum(p.endswith('.sh') for p in F))
    # 29
    todo_line = [l for l in lines['scripts/deploy.sh'] if TODO.search(l)][0]
    q('todo', 'text', "What does the TODO in deploy.sh say?",
      re.sub(r'^.*#\s*TODO:?\s*', '', todo_line).strip())
    # 30
    q('functions', 'name', "What's the first function defined in shop/utils/dates.py?",
      toplevel('shop/utils/dates.py')[0].name)
    # 31
    q('imports', 'number', "How many different modules does shop/models/order.py pull in?",
      len(imported('shop/models/order.py')))
    # 32  __init__ counted; ALT: without __init__
    inv = methods(cls_by_name['Inventory'][1])
    q('methods', 'number', "how many methods has the Inventory class got?", len(inv))
    # 33
    q('rank', 'path', "Third longest Python file in the repo by line count?",
      ranked({p: len(lines[p]) for p in PY}, 3))
    # 34
    q('lines', 'number', "What's the total line count of the docs folder?",
      sum(len(lines[p]) for p in under('docs', F)))
    # 35
    rl = lines['shop/api/routes.py']
    q('share', 'share', "What share of routes.py's lines are blank?",
      100 * sum(1 for l in rl if not l.strip()) / len(rl))
    # 36
    q('count', 'number', "How many files are in the project, all told?", len(F))

    ALT = {
        8: todo_alt_8,
        10: sum(len(toplevel(p)) for p in utils_py),
        15: nparams(add_addr),
        19: alt19,
        20: [p for p in nodoc if PY[p].strip()],
        21: alt21,
        32: len([m for m in inv if m.name != '__init__']),
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
