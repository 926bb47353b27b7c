"""An eighth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a scratch directory, read its files (and the generator) as a tech lead would read a repository they had just inherited, and wrote down the questions they would type to a code assistant while sizing it up: how big things are, where the weight sits, what is left to do, what the classes and functions are called, what imports what, what is documented. Every expected answer is computed below from the generated files with the standard library alone; rankings assert that the places asked are not tied, and where a careful reader could fairly take a question another way, that second reading is computed too and recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    T = {}
    for dirpath, dirnames, filenames in os.walk(R):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                T[rel] = handle.read()
    size = {p: len(t.encode()) for p, t in T.items()}
    lines = {p: t.splitlines() for p, t in T.items()}
    py = sorted(p for p in T if p.endswith('.py'))
    trees = {p: ast.parse(T[p]) for p in py}

    def under(folder, paths=None):
        return sorted(p for p in (T if paths is None else paths) if p.startswith(folder.rstrip('/') + '/'))

    def defs(tree):
        return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(tree):
        return [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        return [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def find_class(name):
        found = [(p, c) for p in py for c in classes(trees[p]) if c.name == name]
        assert len(found) == 1, (name, found)
        return found[0]

    def top(scores, places=1):
        """The keys ranked by score, highest first, asserting no tie at the places asked."""
        ranked = sorted(scores, key=lambda k: -scores[k])
        for i in range(places):
            if i + 1 < len(ranked):
                assert scores[ranked[i]] != scores[ranked[i + 1]], (ranked[i], ranked[i + 1])
            if i > 0:
                assert scores[ranked[i - 1]] != scores[ranked[i]], (ranked[i - 1], ranked[i])
        return ranked

    def module_of(p):
        parts = p[:-3].split('/')
        if parts[-1] == '__init__':
            parts = parts[:-1]
        return parts

    def imported_modules(p):
        """Fully qualified modules imported by file p (relative imports resolved), anywhere in the file."""
        out = set()
        package = module_of(p) if p.endswith('__init__.py') else module_of(p)[:-1]
        for node in ast.walk(trees[p]):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    mod = '.'.join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module
                out.add(mod)
        return out

    def absolute_imports(p):
        out = set()
        for node in ast.walk(trees[p]):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                out.add(node.module)
        return out

    def nparams(fn):
        a = fn.args
        return (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                + (a.vararg is not None) + (a.kwarg is not None))

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1: third biggest file by bytes (lines give the same file; checked)
    by_bytes = top(size, 3)
    by_lines = top({p: len(lines[p]) for p in T}, 3)
    assert by_bytes[2] == by_lines[2]
    q('rank', 'path', "What's the third biggest file in the repo?", by_bytes[2])

    # 2
    q('count', 'number', "How many Markdown files are there?", sum(p.endswith('.md') for p in T))

    # 3
    q('lines', 'number', "How many lines of Python does the code base have in total, tests included?",
      sum(len(lines[p]) for p in py))

    # 4: every file under shop/models is a .py file
    q('lines', 'number', "how many blank lines are there in the models package?",
      sum(1 for p in under('shop/models') for l in lines[p] if not l.strip()))

    # 5
    q('lines', 'number', "How many lines in the Python files are longer than 100 characters?",
      sum(1 for p in py for l in lines[p] if len(l) > 100))

    # 6
    longest_line = {p: max((len(l) for l in lines[p]), default=0) for p in T}
    q('lines', 'path', "Which file has the single longest line?", top(longest_line)[0])

    # 7
    q('todo', 'number', "How many TODOs are left in the Python code?",
      sum(1 for p in py for l in lines[p] if re.search(r'#.*\bTODO\b', l)))

    # 8
    q('todo', 'list of paths', "Which modules have FIXME comments in them?",
      sorted(p for p in py if any(re.search(r'#.*\bFIXME\b', l) for l in lines[p])))

    # 9: TODO comments in any file (the shell scripts too); counting FIXMEs as well gives the same file
    todos = {p: sum(1 for l in lines[p] if re.search(r'#.*\bTODO\b', l)) for p in T}
    both = {p: sum(1 for l in lines[p] if re.search(r'#.*\b(TODO|FIXME)\b', l)) for p in T}
    assert top(todos)[0] == top(both)[0]
    q('todo', 'path', "Which file has the most TODO comments?", top(todos)[0])

    # 10: every class statement in shop/, nested ones included (there are none nested)
    q('classes', 'number', "How many classes are defined in the shop package?",
      sum(len(classes(trees[p])) for p in under('shop', py)))

    # 11: every def in every .py file, methods and tests included
    all_names = {n.name for p in py for n in defs(trees[p])}
    q('functions', 'name', "What's the longest function name anywhere in the project?",
      top({n: len(n) for n in all_names})[0])

    # 12
    q('functions', 'list of names', "Are there any functions whose names start with serialize_? Which ones?",
      sorted({n for n in all_names if n.startswith('serialize_')}))

    # 13
    q('where', 'path', "Where's the Inventory class defined?", find_class('Inventory')[0])

    # 14
    q('order', 'name', "What's the last method defined in the Order class?", methods(find_class('Order')[1])[-1].name)

    # 15: the first def in the file, top level
    q('order', 'name', "What's the first function in shop/utils/dates.py?",
      [n for n in trees['shop/utils/dates.py'].body if isinstance(n, ast.FunctionDef)][0].name)

    # 16: every def in the class body, dunders and the private one included; ALT without the dunders
    money_methods = methods(find_class('Money')[1])
    q('methods', 'number', "How many methods does Money have?", len(money_methods))
    ALT[16] = sum(1 for m in money_methods if not (m.name.startswith('__') and m.name.endswith('__')))

    # 17
    per_class = {c.name: len(methods(c)) for p in py for c in classes(trees[p])}
    assert len(per_class) == sum(len(classes(trees[p])) for p in py)
    q('rank', 'name', "Which class has the most methods?", top(per_class)[0])

    # 18: the parameters after self
    add_address = [n for n in methods(find_class('User')[1]) if n.name == 'add_address'][0]
    assert add_address.args.args[0].arg == 'self'
    q('params', 'number', "How many parameters does User.add_address take, not counting self?", nparams(add_address) - 1)

    # 19: the top-level modules imported, leaving out the shop package itself
    auth_imports = sorted({m.split('.')[0] for m in imported_modules('shop/api/auth.py')} - {'shop'})
    q('imports', 'list of names', "Apart from its own package, what modules does shop/api/auth.py import?", auth_imports)

    # 20: relative imports resolved; ALT counts only the spelled-out absolute imports
    q('imports', 'list of paths', "Which files import shop.utils.money?",
      sorted(p for p in py if 'shop.utils.money' in imported_modules(p)))
    ALT[20] = sorted(p for p in py if 'shop.utils.money' in absolute_imports(p))

    # 21: classes that are exceptions, through any chain of bases; ALT only those subclassing Exception directly
    bases = {c.name: [b.id for b in c.bases if isinstance(b, ast.Name)] for p in py for c in classes(trees[p])}

    def is_exc(name, seen=()):
        if name in ('Exception', 'BaseException'):
            return True
        return any(is_exc(b, seen + (name,)) for b in bases.get(name, []) if b not in seen)
    q('classes', 'list of names', "What exception classes does the code base define?",
      sorted(n for n in bases if is_exc(n) and n not in ('Exception', 'BaseException')))
    ALT[21] = sorted(n for n in bases if 'Exception' in bases[n])

    # 22: no module docstring; ALT leaves out the empty files
    shop_py = under('shop', py)
    q('docstrings', 'list of paths', "Which modules in the shop package are missing a module docstring?",
      sorted(p for p in shop_py if ast.get_docstring(trees[p]) is None))
    ALT[22] = sorted(p for p in shop_py if ast.get_docstring(trees[p]) is None and T[p].strip())

    # 23
    q('docstrings', 'text', "What's the module docstring of shop/utils/money.py?",
      ast.get_docstring(trees['shop/utils/money.py']))

    # 24: over every .py file, the empty ones included
    q('stats', 'number', "What's the average Python file size in bytes?", statistics.mean(size[p] for p in py))

    # 25: tests/test_*.py only; ALT over every .py file in tests/
    test_modules = sorted(p for p in under('tests', py) if os.path.basename(p).startswith('test_'))
    q('stats', 'number', "What's the median length, in lines, of the test_*.py modules?",
      statistics.median(len(lines[p]) for p in test_modules))
    ALT[25] = statistics.median(len(lines[p]) for p in under('tests', py))

    # 26
    q('stats', 'share', "What percentage of all the lines in the repo are in the tests folder?",
      100 * sum(len(lines[p]) for p in under('tests')) / sum(len(lines[p]) for p in T))

    # 27: by lines; ALT by bytes
    q('stats', 'share', "Roughly what share of the package's Python lines live under shop/api?",
      100 * sum(len(lines[p]) for p in under('shop/api', py)) / sum(len(lines[p]) for p in shop_py))
    ALT[27] = 100 * sum(size[p] for p in under('shop/api', py)) / sum(size[p] for p in shop_py)

    # 28
    q('compare', 'bool', "Is routes.py longer than 250 lines?", len(lines['shop/api/routes.py']) > 250)

    # 29
    q('compare', 'bool', "Does the repo have more than 50 files?", len(T) > 50)

    # 30
    q('compare', 'bool', "Does every test module import pytest?",
      all('pytest' in absolute_imports(p) for p in test_modules))

    # 31: by lines of .py code in each direct subpackage (bytes agree; checked)
    subpackages = sorted({p.split('/')[1] for p in shop_py if p.count('/') >= 2})
    sub_lines = {'shop/' + s: sum(len(lines[p]) for p in under('shop/' + s, py)) for s in subpackages}
    sub_bytes = {'shop/' + s: sum(size[p] for p in under('shop/' + s, py)) for s in subpackages}
    assert top(sub_lines)[0] == top(sub_bytes)[0]
    q('folder', 'folder', "Which subpackage of shop has the most code?", top(sub_lines)[0])

    # 32
    q('folder', 'number', "How many bytes do the docs take up altogether?", sum(size[p] for p in under('docs')))

    # 33: by lines; the second place must not be tied
    doc_lines = {p: len(lines[p]) for p in under('docs')}
    q('rank', 'path', "What's the second-longest page in docs/?", top(doc_lines, 2)[1])

    # 34: every def in shop/, methods and nested closures included; ALT leaves out defs nested in functions
    def shallow(tree):
        out = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(node)
            elif isinstance(node, ast.ClassDef):
                out.extend(methods(node))
        return out
    q('count', 'number', "How many functions and methods are there in the shop package altogether?",
      sum(len(defs(trees[p])) for p in shop_py))
    ALT[34] = sum(len(shallow(trees[p])) for p in shop_py)

    # 35: module-level defs named test_*
    q('count', 'number', "How many tests are in test_api.py?",
      sum(1 for n in trees['tests/test_api.py'].body if isinstance(n, ast.FunctionDef) and n.name.startswith('test_')))

    # 36: by lines spanned (decorators not counted)
    routes_len = {n.name: n.end_lineno - n.lineno + 1 for n in defs(trees['shop/api/routes.py'])}
    assert len(routes_len) == len(defs(trees['shop/api/routes.py']))
    q('rank', 'name', "What's the longest function in routes.py?", top(routes_len)[0])

    assert len(Q) == 36
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
