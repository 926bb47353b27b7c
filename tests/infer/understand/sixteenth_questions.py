"""A sixteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a temporary directory, read every file in it the way a student would when handed the code, and then wrote down the questions they would put to a tutor-like assistant while learning it: how big things are, where things live, what is left to do, how the classes and functions are shaped, and a few yes/no checks. Each question is typed casually, one per message, with its wording varied on purpose. Every expected answer is computed below from the generated files with the standard library only (ast for the Python structure, plain string work for lines and sizes); nothing is typed by hand. Rankings assert that the places asked about are not tied, and where a careful reader could fairly take a question another way the second reading is computed into ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(R):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                files[rel] = handle.read()

    def nbytes(p):
        return len(files[p].encode())

    def lines(p):
        return files[p].splitlines()

    def under(folder, ext=None):
        return sorted(p for p in files if p.startswith(folder.rstrip('/') + '/') and (ext is None or p.endswith(ext)))

    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}
    FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)

    def all_defs(p):
        """Every def in the file: module-level functions, methods and nested functions."""
        return [n for n in ast.walk(trees[p]) if isinstance(n, FUNC)]

    def top_defs(p):
        """Module-level functions only, in file order."""
        return [n for n in trees[p].body if isinstance(n, FUNC)]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(cls):
        """Defs directly in a class body, in order."""
        return [n for n in cls.body if isinstance(n, FUNC)]

    def find_class(name):
        found = [(p, c) for p in py for c in classes(p) if c.name == name]
        assert len(found) == 1, name
        return found[0][1]

    def nparams(fn, drop_self=False, count_star=True):
        a = fn.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if count_star:
            names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        if drop_self and names and names[0] in ('self', 'cls'):
            names = names[1:]
        return len(names)

    def unique_top(pairs, k=1, reverse=True):
        """The item at place k (1-based) of pairs (item, value) ranked by value, asserting no ties at places 1..k (and k+1)."""
        ranked = sorted(pairs, key=lambda kv: kv[1], reverse=reverse)
        vals = [v for _, v in ranked]
        for i in range(min(k + 1, len(vals)) - 1):
            assert vals[i] != vals[i + 1], (ranked[:k + 1])
        return ranked[k - 1][0]

    shop_py = [p for p in py if p.startswith('shop/')]
    tests_py = [p for p in py if p.startswith('tests/')]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1: size ranking over every file in the project
    q('rank', 'path', "What's the second biggest file in the whole project, size-wise?",
      unique_top([(p, nbytes(p)) for p in files], k=2))

    # 2: ordinal by line count inside the package
    q('ordinal', 'path', "which module under shop/ comes third if I rank them by number of lines?",
      unique_top([(p, len(lines(p))) for p in shop_py], k=3))

    # 3: count by type and folder
    q('count', 'number', "How many YAML files are sitting in the config folder?",
      len([p for p in under('config') if p.endswith(('.yaml', '.yml'))]))

    # 4: folder size in bytes
    q('size', 'number', "How many bytes does the config directory take up in total?",
      sum(nbytes(p) for p in under('config')))

    # 5: total lines in a folder
    q('lines', 'number', "If I add up every line in the tests/ folder, what do I get?",
      sum(len(lines(p)) for p in under('tests')))

    # 6: blank lines in one file
    q('lines', 'number', "how many blank lines are there in shop/models/order.py?",
      sum(1 for l in lines('shop/models/order.py') if not l.strip()))

    # 7: long lines in the package
    q('lines', 'number', "Are there many lines in the shop package that go over 100 characters? How many exactly?",
      sum(1 for p in under('shop') for l in lines(p) if len(l) > 100))

    # 8: the file with the longest line, scoped to tests/
    q('longest', 'path', "In tests/, which file has the longest line?",
      unique_top([(p, max((len(l) for l in lines(p)), default=0)) for p in under('tests')]))

    # 9: the longest line itself
    rl = lines('shop/api/routes.py')
    longest_routes = unique_top([(l, len(l)) for l in rl])
    q('longest', 'text', "Can you show me the longest line in shop/api/routes.py?", longest_routes)

    # 10: TODO count in the package (TODO only, not FIXME)
    todo_re = re.compile(r'#.*\bTODO\b')
    fixme_re = re.compile(r'#.*\bFIXME\b')
    q('todo', 'number', "How many TODO comments are left in the shop package?",
      sum(1 for p in under('shop') for l in lines(p) if todo_re.search(l)))

    # 11: files with a FIXME
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(p for p in files if any(fixme_re.search(l) for l in lines(p))))

    # 12: the most TODO + FIXME
    q('todo', 'path', "which file's got the most TODOs and FIXMEs put together?",
      unique_top([(p, sum(1 for l in lines(p) if todo_re.search(l) or fixme_re.search(l))) for p in files]))

    # 13: yes/no, true
    q('bool', 'bool', "Are there any TODOs outside of the shop package?",
      any(todo_re.search(l) for p in files if not p.startswith('shop/') for l in lines(p)))

    # 14: functions counted as every def (methods and nested helpers too)
    q('functions', 'number', "Count the functions in shop/utils for me, methods included.",
      sum(len(all_defs(p)) for p in under('shop/utils', '.py')))

    # 15: last function in a file (module-level)
    q('functions', 'name', "What's the last function in shop/utils/text.py?",
      top_defs('shop/utils/text.py')[-1].name)

    # 16: first method of a class
    q('methods', 'name', "what's the very first method the Order class defines?",
      methods(find_class('Order'))[0].name)

    # 17: longest function name in the package (every def, methods included)
    q('names', 'name', "Which function in shop has the longest name?",
      unique_top([(n.name, len(n.name)) for p in shop_py for n in all_defs(p)]))

    # 18: names starting with is_ (every def in shop, methods included)
    q('names', 'list of names', "Which functions or methods in shop start with is_ ?",
      sorted({n.name for p in shop_py for n in all_defs(p) if n.name.startswith('is_')}))

    # 19: where is a function defined
    where = [p for p in py for n in all_defs(p) if n.name == 'business_days_after']
    assert len(where) == 1
    q('where', 'path', "Where's business_days_after defined?", where[0])

    # 20: parameters of a method, self not counted
    cart_add = [m for m in methods(find_class('Cart')) if m.name == 'add'][0]
    q('params', 'number', "How many parameters does Cart.add take, not counting self?",
      nparams(cart_add, drop_self=True))

    # 21: module-level function with the most parameters in shop/api
    api_top = [(n.name, nparams(n)) for p in under('shop/api', '.py') for n in top_defs(p)]
    most_api = unique_top(api_top)
    assert most_api == unique_top([(n.name, nparams(n, count_star=False)) for p in under('shop/api', '.py') for n in top_defs(p)])
    q('params', 'name', "Which top-level function in shop/api takes the most arguments?", most_api)

    # 22: average parameters of the module-level functions in text.py (*args / **kwargs counted)
    text_top = top_defs('shop/utils/text.py')
    q('params', 'number', "On average, how many params do the top-level functions in shop/utils/text.py have?",
      statistics.mean(nparams(n) for n in text_top))

    # 23: which modules import threading
    def imports_module(p, mod):
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import) and any(a.name == mod or a.name.startswith(mod + '.') for a in n.names):
                return True
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and (n.module == mod or n.module.startswith(mod + '.')):
                return True
        return False
    q('imports', 'list of paths', "Which modules in the shop package import threading?",
      sorted(p for p in shop_py if imports_module(p, 'threading')))

    # 24: yes/no, false
    def imports_own_package(p):
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.ImportFrom) and (n.level > 0 or (n.module or '').split('.')[0] == 'shop'):
                return True
            if isinstance(n, ast.Import) and any(a.name.split('.')[0] == 'shop' for a in n.names):
                return True
        return False
    q('imports', 'bool', "Does shop/utils/text.py pull in anything from the shop package itself?",
      imports_own_package('shop/utils/text.py'))

    # 25: files without a module docstring (empty files count as lacking one)
    no_doc = [p for p in shop_py if ast.get_docstring(trees[p]) is None]
    q('docstrings', 'number', "How many of the .py files under shop/ don't have a module docstring?", len(no_doc))

    # 26: percentage of functions with docstrings (every def, methods included)
    models_defs = [n for p in under('shop/models', '.py') for n in all_defs(p)]
    q('docstrings', 'share', "What percentage of the functions in shop/models have a docstring?",
      100 * sum(1 for n in models_defs if ast.get_docstring(n)) / len(models_defs))

    # 27: mean lines of the test_*.py files
    test_mods = [p for p in tests_py if os.path.basename(p).startswith('test_')]
    q('stats', 'number', "What's the average length, in lines, of the test_*.py files?",
      statistics.mean(len(lines(p)) for p in test_mods))

    # 28: median byte size of the docs pages
    q('stats', 'number', "what's the median file size of the pages in docs/ (bytes)?",
      statistics.median(nbytes(p) for p in under('docs')))

    # 29: share of all lines that live in shop/
    total_lines = sum(len(lines(p)) for p in files)
    q('share', 'share', "What percent of all the lines in the project are inside the shop package?",
      100 * sum(len(lines(p)) for p in under('shop')) / total_lines)

    # 30: comparison against a number
    assert all(len(lines(p)) != 50 for p in py)
    q('compare', 'number', "Got any idea how many .py files run past 50 lines?",
      sum(1 for p in py if len(lines(p)) > 50))

    # 31: yes/no, false
    assert all(nbytes(p) != 1024 and nbytes(p) != 1000 for p in under('scripts'))
    q('bool', 'bool', "Is any of the scripts over 1 KB?", any(nbytes(p) > 1024 for p in under('scripts')))

    # 32: per-folder class count, as a ranking of the subpackages
    subpkgs = sorted({p.split('/')[1] for p in shop_py if p.count('/') == 2})
    q('folder', 'folder', "Which subpackage of shop defines the most classes?",
      'shop/' + unique_top([(s, sum(len(classes(p)) for p in under('shop/' + s, '.py'))) for s in subpkgs]))

    # 33: classes in one folder
    q('per-folder', 'number', "shop/services - how many classes does it have?",
      sum(len(classes(p)) for p in under('shop/services', '.py')))

    # 34: class with the most methods (defs directly in the class body)
    q('methods', 'name', "Which class has the most methods?",
      unique_top([(c.name, len(methods(c))) for p in py for c in classes(p)]))

    # 35: decorator most used in routes.py
    deco = collections.Counter()
    for n in all_defs('shop/api/routes.py'):
        for d in n.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            deco[target.id if isinstance(target, ast.Name) else ast.unparse(target)] += 1
    q('decorators', 'name', "What's the decorator that shows up most often in routes.py?",
      unique_top(list(deco.items())))

    # 36: shortest test module, leaving out the empty __init__.py
    q('rank', 'path', "Which test file is the shortest? Ignore the empty __init__ one.",
      unique_top([(p, len(lines(p))) for p in tests_py if files[p].strip()], reverse=False))

    ALT = {
        # 14: leave out functions nested inside other functions
        14: sum(1 for p in under('shop/utils', '.py') for n in ast.walk(trees[p])
                if isinstance(n, (ast.Module, ast.ClassDef)) for n2 in n.body if isinstance(n2, FUNC)),
        # 20: counting self as a parameter
        20: nparams(cart_add),
        # 22: *words not counted as a parameter
        22: statistics.mean(nparams(n, count_star=False) for n in text_top),
        # 25: leaving out the empty files, which have nothing to document
        25: len([p for p in no_doc if files[p].strip()]),
        # 26: module-level functions only
        26: 100 * sum(1 for p in under('shop/models', '.py') for n in top_defs(p) if ast.get_docstring(n))
            / sum(len(top_defs(p)) for p in under('shop/models', '.py')),
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
