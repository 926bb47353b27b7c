"""A fifteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets.

The engineer generated the fixture into a temporary directory, walked it with
find, wc and grep, read its Python files through ``ast``, and then wrote down
the questions a developer new to the project would plausibly type into a chat
box: how big things are, where something lives, what is left to do, what
imports what, how well things are documented, and a few yes/no checks. Each
question is phrased once, in a casual voice, with no shared template. Every
answer below is recomputed from the files under ``R`` with the standard
library only; nothing is typed in by hand except names used to pick a file,
class or function the question itself mentions. Rankings assert that the
places asked about are not tied. Where a careful reader could fairly count
something another way (methods as functions or not, ``self`` as a parameter
or not, empty files or not), the other reading is given in ``ALT``.
"""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for d, dirs, fs in os.walk(R):
        dirs.sort()
        for f in sorted(fs):
            full = os.path.join(d, f)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as h:
                files[rel] = h.read()

    size = {p: len(t.encode()) for p, t in files.items()}
    lines = {p: t.splitlines() for p, t in files.items()}
    py = {p: t for p, t in files.items() if p.endswith('.py')}
    trees = {p: ast.parse(t) for p, t in py.items()}

    def folder(p):
        return p.rsplit('/', 1)[0] if '/' in p else '.'

    def under(p, d):
        return p.startswith(d.rstrip('/') + '/')

    def all_defs(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(fn):
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def imported(p):
        mods = set()
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                mods |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom):
                mods.add('.' * n.level + (n.module or ''))
        return mods

    def comments(p, word):
        return [l for l in lines[p] if re.search(r'#\s*' + word + r'\b', l)]

    def base_names(c):
        out = []
        for b in c.bases:
            out.append(b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else '')
        return out

    def top(ranked, k):
        """the k-th (from 1) key of ranked [(value, key)], sorted descending; asserts no tie at k"""
        ranked = sorted(ranked, reverse=True)
        assert len(ranked) >= k
        if k < len(ranked):
            assert ranked[k - 1][0] != ranked[k][0], ranked[k - 1:k + 1]
        if k > 1:
            assert ranked[k - 2][0] != ranked[k - 1][0], ranked[k - 2:k]
        return ranked[k - 1][1]

    def bottom(ranked):
        ranked = sorted(ranked)
        assert ranked[0][0] != ranked[1][0]
        return ranked[0][1]

    shop_py = sorted(p for p in py if under(p, 'shop'))
    tests_py = sorted(p for p in py if under(p, 'tests'))

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1 biggest file of all, by bytes
    q('rank', 'path', "what's the biggest file in this repo?",
      top([(size[p], p) for p in files], 1))

    # 2 third largest file, by bytes
    q('rank', 'path', "Which file comes in 3rd for size?",
      top([(size[p], p) for p in files], 3))

    # 3 Markdown files anywhere
    q('count', 'number', "How many markdown files have we got?",
      sum(p.endswith('.md') for p in files))

    # 4 files directly in config/
    q('count', 'number', "how many files are sitting in the config folder",
      sum(folder(p) == 'config' for p in files))

    # 5 all lines of all .py files in shop/
    q('lines', 'number', "If I add up every line of every .py file under shop/, what do I get?",
      sum(len(lines[p]) for p in shop_py))

    # 6 blank lines in one test file
    q('lines', 'number', "How many empty lines are in tests/test_api.py?",
      sum(1 for l in lines['tests/test_api.py'] if not l.strip()))

    # 7 Python lines longer than 100 characters
    q('lines', 'number', "How many lines in the Python code go past 100 chars?",
      sum(1 for p in py for l in lines[p] if len(l) > 100))

    # 8 file holding the single longest line
    q('lines', 'path', "Which file has the longest line in the whole project?",
      top([(max((len(l) for l in lines[p]), default=0), p) for p in files], 1))

    # 9 the longest line of order.py, as text
    longest = max(lines['shop/models/order.py'], key=len)
    assert sum(len(l) == len(longest) for l in lines['shop/models/order.py']) == 1
    q('lines', 'text', "Can you show me the longest line in shop/models/order.py?",
      longest.strip())

    # 10 TODO comments in the shop package
    q('todo', 'number', "How many TODOs are left in the shop package?",
      sum(len(comments(p, 'TODO')) for p in files if under(p, 'shop')))

    # 11 files with a FIXME
    q('todo', 'list of paths', "Which files have got FIXME comments in them?",
      sorted(p for p in files if comments(p, 'FIXME')))

    # 12 file with the most TODO + FIXME together
    q('todo', 'path', "what file has the most TODO/FIXME notes combined?",
      top([(len(comments(p, 'TODO')) + len(comments(p, 'FIXME')), p) for p in files], 1))

    # 13 any FIXME under scripts/ (no)
    q('todo', 'bool', "Is there any FIXME in the scripts dir?",
      any(comments(p, 'FIXME') for p in files if under(p, 'scripts')))

    # 14 functions in shop/utils: every def, methods and nested ones included
    q('functions', 'number', "How many functions does shop/utils define?",
      sum(len(all_defs(p)) for p in py if under(p, 'shop/utils')))
    ALT[14] = sum(len(top_defs(p)) for p in py if under(p, 'shop/utils'))

    # 15 where a function is defined
    q('functions', 'path', "Where's split_evenly defined?",
      [p for p in py if any(n.name == 'split_evenly' for n in all_defs(p))][0])
    assert sum(any(n.name == 'split_evenly' for n in all_defs(p)) for p in py) == 1

    # 16 classes in the shop package
    q('classes', 'number', "how many classes are there in the shop package",
      sum(len(classes(p)) for p in shop_py))

    # 17 first function (in source order) of dates.py
    q('functions', 'name', "What's the very first function in shop/utils/dates.py?",
      min(all_defs('shop/utils/dates.py'), key=lambda n: n.lineno).name)

    # 18 last method of Order
    order_cls = [c for c in classes('shop/models/order.py') if c.name == 'Order'][0]
    q('functions', 'name', "What's the last method on the Order class?",
      methods(order_cls)[-1].name)

    # 19 longest function name in shop/ (every def)
    q('functions', 'name', "Which function in shop/ has the longest name?",
      top([(len(n.name), n.name) for p in shop_py for n in all_defs(p)], 1))

    # 20 functions in shop/ whose name starts with is_
    q('functions', 'list of names', "Are there functions starting with is_ in shop? which ones",
      sorted({n.name for p in shop_py for n in all_defs(p) if n.name.startswith('is_')}))

    # 21 parameters of User.add_address, not counting self
    user_cls = [c for c in classes('shop/models/user.py') if c.name == 'User'][0]
    add_address = [m for m in methods(user_cls) if m.name == 'add_address'][0]
    q('params', 'number', "How many params does User.add_address take?",
      nparams(add_address) - 1)
    ALT[21] = nparams(add_address)

    # 22 module-level function with the most parameters, whole project
    q('params', 'name', "Which top-level function takes the most arguments?",
      top([(nparams(n), n.name) for p in py for n in top_defs(p)], 1))

    # 23 module-level functions in shop/ taking no arguments
    q('params', 'number', "how many module-level functions in shop/ don't take any arguments at all?",
      sum(1 for p in shop_py for n in top_defs(p) if nparams(n) == 0))

    # 24 what cache.py imports
    q('imports', 'list of names', "What modules does shop/utils/cache.py import?",
      sorted(imported('shop/utils/cache.py')))

    # 25 files importing threading
    q('imports', 'list of paths', "Which files use threading?",
      sorted(p for p in py if 'threading' in imported(p)))

    # 26 files in tests/ importing shop.utils.money
    q('imports', 'number', "How many files in tests/ import shop.utils.money?",
      sum('shop.utils.money' in imported(p) for p in tests_py))

    # 27 .py files without a module docstring (empty files count as lacking one)
    q('docstrings', 'number', "how many .py files are missing a module docstring?",
      sum(ast.get_docstring(trees[p]) is None for p in py))
    ALT[27] = sum(ast.get_docstring(trees[p]) is None for p in py if files[p].strip())

    # 28 share of shop/ functions with a docstring (every def)
    shop_defs = [n for p in shop_py for n in all_defs(p)]
    q('docstrings', 'share', "What percent of the functions in shop/ have docstrings?",
      100 * sum(ast.get_docstring(n) is not None for n in shop_defs) / len(shop_defs))
    shop_top = [n for p in shop_py for n in top_defs(p)]
    ALT[28] = 100 * sum(ast.get_docstring(n) is not None for n in shop_top) / len(shop_top)

    # 29 mean lines per .py file in tests/ (the empty __init__.py included)
    q('stats', 'number', "On average how long (in lines) is a Python file in tests?",
      statistics.mean(len(lines[p]) for p in tests_py))
    ALT[29] = statistics.mean(len(lines[p]) for p in tests_py if files[p].strip())

    # 30 median bytes of the docs files
    q('stats', 'number', "What's the median file size in docs/, in bytes?",
      statistics.median(size[p] for p in files if under(p, 'docs')))

    # 31 total bytes of config/
    q('size', 'number', "Total size of everything in config? bytes please",
      sum(size[p] for p in files if under(p, 'config')))

    # 32 any file in shop/ over 250 lines (yes)
    q('compare', 'bool', "Does any file in shop/ run to more than 250 lines?",
      any(len(lines[p]) > 250 for p in files if under(p, 'shop')))

    # 33 a class called Invoice (no)
    q('compare', 'bool', "Is there an Invoice class somewhere?",
      any(c.name == 'Invoice' for p in py for c in classes(p)))

    # 34 subpackage of shop with the most lines
    sub_lines = collections.Counter()
    for p in files:
        if under(p, 'shop') and p.count('/') >= 2:
            sub_lines[p.split('/')[1]] += len(lines[p])
    q('folders', 'folder', "Which subpackage of shop is the biggest in terms of lines?",
      'shop/' + top([(v, k) for k, v in sub_lines.items()], 1))

    # 35 class with the most methods, whole project
    q('classes', 'name', "Which class has the most methods?",
      top([(len(methods(c)), c.name) for p in py for c in classes(p)], 1))

    # 36 share of all bytes that are in .py files
    q('stats', 'share', "what percentage of the repo (by bytes) is python?",
      100 * sum(size[p] for p in py) / sum(size.values()))

    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
