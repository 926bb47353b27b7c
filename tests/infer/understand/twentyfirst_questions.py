"""A twenty-first blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. The engineer generated the fixture into a temporary directory, looked over its file listing and an ast summary of its Python files (classes, methods, functions, parameters, imports, docstrings, TODO/FIXME comments, long lines), and then typed the kind of questions a developer new to the code would ask an assistant, one per message, in casual wording. Every expected answer is computed below from the generated files with the standard library only; rankings assert that there are no ties at the places asked, and fair second readings are recorded in ALT."""

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
    size = {p: len(t.encode()) for p, t in F.items()}
    nlines = {p: len(t.splitlines()) for p, t in F.items()}
    DEF = (ast.FunctionDef, ast.AsyncFunctionDef)

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    def params(fn):
        a = fn.args
        return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] + \
               [x.arg for x in (a.vararg, a.kwarg) if x is not None]

    def all_defs(p):
        return [n for n in ast.walk(T[p]) if isinstance(n, DEF)]

    def classes(p):
        return [n for n in ast.walk(T[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [n for n in c.body if isinstance(n, DEF)]

    def top_defs(p):
        return [n for n in T[p].body if isinstance(n, DEF)]

    def ranked(d, k, reverse=True):
        """Keys of d sorted by value; assert places 1..k are untied."""
        items = sorted(d.items(), key=lambda kv: kv[1], reverse=reverse)
        vals = [v for _, v in items]
        for i in range(min(k, len(vals))):
            assert vals.count(vals[i]) == 1, (items[:k + 2])
        return [kk for kk, _ in items]

    def comment_lines(text, tag):
        return [l for l in text.splitlines() if re.search(r'#\s*' + tag + r'\b', l)]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1: second-largest Python file by bytes
    q('rank', 'path', "what's the second biggest .py file in the repo, by size?", ranked({p: size[p] for p in PY}, 2)[1])

    # 2: count files in docs/
    q('count', 'number', "How many files are there in the docs folder?", sum(1 for p in F if under(p, 'docs')))

    # 3: total bytes of config/
    q('size', 'number', "how many bytes does everything in config/ add up to?", sum(size[p] for p in F if under(p, 'config')))

    # 4: total lines in Python files
    q('lines', 'number', "Total number of lines across all the Python files?", sum(nlines[p] for p in PY))

    # 5: blank lines in order.py
    q('lines', 'number', "How many blank lines are in shop/models/order.py?",
      sum(1 for l in PY['shop/models/order.py'].splitlines() if not l.strip()))

    # 6: Python lines over 100 chars (ALT: in every file)
    q('lines', 'number', "How many lines of Python go past 100 characters?",
      sum(1 for p in PY for l in PY[p].splitlines() if len(l) > 100))
    alt6 = sum(1 for p in F for l in F[p].splitlines() if len(l) > 100)

    # 7: file containing the longest line (all files)
    longest_line = {p: max((len(l) for l in t.splitlines()), default=0) for p, t in F.items()}
    q('rank', 'path', "Which file has the single longest line in it?", ranked(longest_line, 1)[0])

    # 8: TODO comments in the shop package
    q('todo', 'number', "how many TODOs are left in the shop package?",
      sum(len(comment_lines(PY[p], 'TODO')) for p in PY if under(p, 'shop')))

    # 9: FIXME anywhere in tests/ (false)
    q('todo', 'bool', "Are there any FIXMEs in the tests?",
      any(comment_lines(F[p], 'FIXME') for p in F if under(p, 'tests')))

    # 10: file with most TODO+FIXME comments
    tf = {p: len(comment_lines(t, 'TODO')) + len(comment_lines(t, 'FIXME')) for p, t in F.items()}
    q('rank', 'path', "Which file's got the most TODO/FIXME comments combined?", ranked(tf, 1)[0])

    # 11: classes in shop/ (every ClassDef)
    shop_classes = [c for p in PY if under(p, 'shop') for c in classes(p)]
    q('count', 'number', "How many classes are defined in the shop package?", len(shop_classes))

    # 12: class with the most methods (whole project)
    allc = {}
    for p in PY:
        for c in classes(p):
            allc[(p, c.name)] = len(methods(c))
    top = ranked(allc, 1)[0]
    q('rank', 'name', "which class has the most methods?", top[1])

    # 13: where is TTLCache defined
    where = [p for p in PY for c in classes(p) if c.name == 'TTLCache']
    assert len(where) == 1
    q('where', 'path', "Where's the TTLCache class defined?", where[0])

    # 14: last function in dates.py (module-level)
    q('order', 'name', "What's the last function in shop/utils/dates.py?", top_defs('shop/utils/dates.py')[-1].name)

    # 15: longest function name in shop/ (every def, methods and nested included)
    names_shop = {n.name for p in PY if under(p, 'shop') for n in all_defs(p)}
    q('rank', 'name', "What's the longest function name in the shop package?",
      ranked({n: len(n) for n in names_shop}, 1)[0])

    # 16: module-level functions in shop/ starting with get_ (ALT: methods too; same here)
    q('names', 'list of names', "list the functions in shop/ whose names start with get_",
      sorted({n.name for p in PY if under(p, 'shop') for n in top_defs(p) if n.name.startswith('get_')}))
    alt16 = sorted({n.name for p in PY if under(p, 'shop') for n in all_defs(p) if n.name.startswith('get_')})

    # 17: parameters of Cart.add, not counting self (ALT: counting self)
    cart = [c for c in classes('shop/models/cart.py') if c.name == 'Cart'][0]
    add = [m for m in methods(cart) if m.name == 'add'][0]
    q('params', 'number', "How many arguments does Cart.add take (not counting self)?", len(params(add)) - 1)

    # 18: test function with the most parameters (defs named test_* in tests/test_*.py)
    tfiles = [p for p in PY if under(p, 'tests') and os.path.basename(p).startswith('test_')]
    tfun = {n.name: len(params(n)) for p in tfiles for n in all_defs(p) if n.name.startswith('test_')}
    q('rank', 'name', "Which test function takes the most parameters?", ranked(tfun, 1)[0])

    # 19: distinct modules imported by routes.py
    mods = set()
    for n in ast.walk(T['shop/api/routes.py']):
        if isinstance(n, ast.Import):
            mods.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            mods.add('.' * n.level + (n.module or ''))
    q('imports', 'number', "how many different modules does shop/api/routes.py import from?", len(mods))

    # 20: does anything in shop import requests (true)
    def imports_of(p):
        out = set()
        for n in ast.walk(T[p]):
            if isinstance(n, ast.Import):
                out.update(a.name.split('.')[0] for a in n.names)
            elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                out.add(n.module.split('.')[0])
        return out
    q('imports', 'bool', "Does anything in the shop package use the requests library?",
      any('requests' in imports_of(p) for p in PY if under(p, 'shop')))

    # 21: Python files importing pytest
    q('imports', 'list of paths', "Which python files import pytest?", sorted(p for p in PY if 'pytest' in imports_of(p)))

    # 22: modules without a module docstring (empty files included; ALT: non-empty only)
    nodoc = [p for p in PY if ast.get_docstring(T[p]) is None]
    q('docstrings', 'number', "How many modules don't have a module docstring?", len(nodoc))
    alt22 = sum(1 for p in nodoc if PY[p].strip())

    # 23: percentage of methods in shop/models with a docstring
    mm = [m for p in PY if under(p, 'shop/models') for c in classes(p) for m in methods(c)]
    q('docstrings', 'share', "What percent of the methods in shop/models have docstrings?",
      100 * sum(1 for m in mm if ast.get_docstring(m)) / len(mm))

    # 24: mean lines per .py file in shop/ (empty __init__ counted; ALT: non-empty only)
    shop_py = [p for p in PY if under(p, 'shop')]
    q('stats', 'number', "On average how many lines long is a Python file in shop/?",
      statistics.mean(nlines[p] for p in shop_py))
    alt24 = statistics.mean(nlines[p] for p in shop_py if nlines[p])

    # 25: median size of the test files (test_*.py; ALT: every file in tests/)
    q('stats', 'number', "what's the median size in bytes of the test files?",
      statistics.median(size[p] for p in tfiles))
    alt25 = statistics.median(size[p] for p in F if under(p, 'tests'))

    # 26: number of test functions
    q('count', 'number', "How many test functions are there in total?", len(tfun))

    # 27: subpackage of shop with the most lines
    sub = collections.Counter()
    for p in shop_py:
        parts = p.split('/')
        if len(parts) > 2:
            sub['/'.join(parts[:2])] += nlines[p]
    q('rank', 'folder', "which subpackage of shop has the most lines of code?", ranked(dict(sub), 1)[0])

    # 28: is order.py over 150 lines (true)
    q('compare', 'bool', "Is shop/models/order.py longer than 150 lines?", nlines['shop/models/order.py'] > 150)

    # 29: more than 10 markdown files (false)
    q('compare', 'bool', "Do we have more than 10 markdown files?", sum(1 for p in F if p.endswith('.md')) > 10)

    # 30: files in config/ that aren't YAML
    q('count', 'number', "How many files in config aren't YAML?",
      sum(1 for p in F if under(p, 'config') and not p.endswith(('.yaml', '.yml'))))

    # 31: subclasses of ApiError (direct)
    subs = [c.name for p in PY for c in classes(p) for b in c.bases if ast.unparse(b).split('.')[-1] == 'ApiError']
    q('classes', 'number', "How many classes subclass ApiError?", len(subs))

    # 32: third-longest .py file in shop/ by lines
    q('rank', 'path', "what's the 3rd longest python file under shop/ in lines?", ranked({p: nlines[p] for p in shop_py}, 3)[2])

    # 33: decorated defs in shop/ (every def incl. nested and methods; ALT: not nested)
    dec_all = sum(1 for p in shop_py for n in all_defs(p) if n.decorator_list)
    nonnested = [n for p in shop_py for n in top_defs(p)] + [m for p in shop_py for c in classes(p) for m in methods(c)]
    q('decorators', 'number', "How many functions or methods in shop have a decorator on them?", dec_all)
    alt33 = sum(1 for n in nonnested if n.decorator_list)

    # 34: lines in the longest shell script
    sh = {p: nlines[p] for p in F if p.endswith('.sh')}
    q('lines', 'number', "How many lines does the longest shell script have?", sh[ranked(sh, 1)[0]])

    # 35: fifth-largest file in the whole project
    q('rank', 'path', "What's the 5th largest file in the project?", ranked(size, 5)[4])

    # 36: text of the FIXME in cache.py (ALT: the whole comment)
    fx = comment_lines(PY['shop/utils/cache.py'], 'FIXME')
    assert len(fx) == 1
    full = fx[0].strip()
    q('todo', 'text', "what does the FIXME in shop/utils/cache.py say?", re.sub(r'^#\s*FIXME:?\s*', '', full))

    ALT = {6: alt6, 16: alt16, 17: len(params(add)), 22: alt22, 24: alt24, 25: alt25, 33: alt33, 36: full}
    ALT = {k: v for k, v in ALT.items() if v != Q[k - 1][3]}
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
