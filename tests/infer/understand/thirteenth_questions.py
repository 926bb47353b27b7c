"""A thirteenth blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests, its README paragraph or the earlier sets. They generated the fixture into a temporary directory, walked it with find, wc, grep and a throwaway ast dump, and then wrote down the questions a developer newly handed the project might type to an assistant: how big things are, where things live, what imports what, what is still marked TODO or FIXME, which parts lack docstrings, and a few yes/no checks. Every expected answer below is computed from the files with the standard library only; rankings assert that the places asked about are not tied, and where a careful reader could fairly take a question another way, the second reading is recorded in ALT."""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    files = {}
    for dp, dns, fns in os.walk(R):
        dns[:] = sorted(d for d in dns if not d.startswith('.') and d != '__pycache__')
        for fn in sorted(fns):
            full = os.path.join(dp, fn)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as fh:
                files[rel] = fh.read()

    def size(p): return len(files[p].encode())
    def lines(p): return files[p].splitlines()
    def folder(p): return p.rsplit('/', 1)[0] if '/' in p else '.'

    py = sorted(p for p in files if p.endswith('.py'))
    trees = {p: ast.parse(files[p]) for p in py}
    FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)

    def all_defs(p):
        """Every def in a file: module-level, methods and nested ones."""
        return [n for n in ast.walk(trees[p]) if isinstance(n, FUNC)]

    def top_defs(p):
        return [n for n in trees[p].body if isinstance(n, FUNC)]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [n for n in c.body if isinstance(n, FUNC)]

    def params(fn):
        a = fn.args
        ps = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if a.vararg: ps.append(a.vararg.arg)
        if a.kwarg: ps.append(a.kwarg.arg)
        return ps

    def ranked(items, key, place, reverse=True):
        """The item at 1-based `place` when sorted by key; asserts no tie there."""
        s = sorted(items, key=key, reverse=reverse)
        k = key(s[place - 1])
        assert sum(1 for x in s if key(x) == k) == 1, (place, k)
        return s[place - 1]

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))

    # 1 second biggest .py file by bytes
    q('rank', 'path', "What's the second biggest Python file, going by bytes?",
      ranked(py, size, 2))

    # 2 markdown files directly in docs/
    q('count', 'number', "how many markdown files are in docs/?",
      sum(1 for p in files if p.startswith('docs/') and p.endswith('.md')))

    # 3 total lines of Python in the shop package
    q('lines', 'number', "How many lines of Python are there in the shop package altogether?",
      sum(len(lines(p)) for p in py if p.startswith('shop/')))

    # 4 lines over 100 characters in .py files
    long_py = sum(1 for p in py for l in lines(p) if len(l) > 100)
    q('lines', 'number', "How many lines in the Python code go past 100 characters?", long_py)

    # 5 file holding the longest line (any file)
    q('rank', 'path', "Which file has the single longest line in it?",
      ranked(list(files), lambda p: max([len(l) for l in lines(p)] or [0]), 1))

    # 6 TODO comments anywhere, shell scripts included
    todo_re = re.compile(r'#\s*TODO\b')
    fixme_re = re.compile(r'#\s*FIXME\b')
    todos = {p: sum(1 for l in lines(p) if todo_re.search(l)) for p in files}
    q('todo', 'number', "How many # TODO comments are there in the whole repo? Shell scripts count too.",
      sum(todos.values()))

    # 7 files containing a FIXME
    q('todo', 'list of paths', "Which files have a FIXME in them?",
      sorted(p for p in files if any(fixme_re.search(l) for l in lines(p))))

    # 8 file with the most TODOs
    q('todo', 'path', "which file has the most TODOs?",
      ranked(list(files), lambda p: todos[p], 1))

    # 9 where a function is defined
    q('where', 'path', "Where's business_days_after defined?",
      [p for p in py if any(n.name == 'business_days_after' for n in top_defs(p))][0])

    # 10 class with the most methods (defs directly in the class body)
    all_classes = [(p, c) for p in py for c in classes(p)]
    q('rank', 'name', "Which class has the most methods?",
      ranked(all_classes, lambda pc: len(methods(pc[1])), 1)[1].name)

    # 11 last function in shop/cli.py (module-level defs; cli.py has no classes)
    q('def', 'name', "What's the last function in cli.py?", top_defs('shop/cli.py')[-1].name)

    # 12 longest function name (every def incl. methods and nested ones)
    names = sorted({n.name for p in py for n in all_defs(p)})
    q('name', 'name', "what's the longest function name anywhere in the project?",
      ranked(names, len, 1))

    # 13 functions in shop/ starting with get_ (every def incl. methods)
    q('def', 'list of names', "List the functions in shop/ whose names begin with get_",
      sorted({n.name for p in py if p.startswith('shop/') for n in all_defs(p) if n.name.startswith('get_')}))

    # 14 parameters of User.add_address, self not counted (ALT counts self)
    user_cls = [c for c in classes('shop/models/user.py') if c.name == 'User'][0]
    add_address = [m for m in methods(user_cls) if m.name == 'add_address'][0]
    q('params', 'number', "How many params does User.add_address take, not counting self?",
      len([x for x in params(add_address) if x not in ('self', 'cls')]))

    # 15 mean parameter count of the functions in dates.py (all module-level, no self)
    dates_defs = all_defs('shop/utils/dates.py')
    q('stats', 'number', "what's the average number of parameters for the functions in shop/utils/dates.py?",
      statistics.mean(len(params(n)) for n in dates_defs))

    # 16 modules imported by shop/cli.py
    def imported_modules(p, resolve=True):
        mods = set()
        pkg = folder(p).replace('/', '.')
        for n in ast.walk(trees[p]):
            if isinstance(n, ast.Import):
                mods.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    if not resolve: continue
                    base = pkg.split('.')
                    base = base[:len(base) - (n.level - 1)]
                    mods.add('.'.join(base + ([n.module] if n.module else [])))
                else:
                    mods.add(n.module)
        return mods
    q('imports', 'list of names', "What modules does shop/cli.py import?",
      sorted(imported_modules('shop/cli.py')))

    # 17 files importing pytest
    q('imports', 'number', "How many files import pytest?",
      sum(1 for p in py if 'pytest' in imported_modules(p)))

    # 18 files importing from shop.utils.money, relative imports resolved (ALT: absolute only)
    q('imports', 'list of paths', "Which files pull in something from shop.utils.money?",
      sorted(p for p in py if 'shop.utils.money' in imported_modules(p)))

    # 19 anything importing requests
    q('bool', 'bool', "Does anything in the project use the requests library?",
      any('requests' in imported_modules(p) for p in py))

    # 20 .py files without a module docstring, empty files included (ALT: non-empty only)
    nodoc = [p for p in py if ast.get_docstring(trees[p]) is None]
    q('docstring', 'number', "How many python files don't have a module docstring?", len(nodoc))

    # 21 share of functions in shop/ with a docstring (every def incl. methods and nested; ALT module-level only)
    shop_defs = [n for p in py if p.startswith('shop/') for n in all_defs(p)]
    q('docstring', 'share', "What percentage of functions in the shop package have a docstring?",
      100 * sum(1 for n in shop_defs if ast.get_docstring(n)) / len(shop_defs))

    # 22 median .py size in shop/models
    q('stats', 'number', "Median size in bytes of the .py files in shop/models?",
      statistics.median(size(p) for p in py if folder(p) == 'shop/models'))

    # 23 total bytes in config/
    q('stats', 'number', "what's the total size of everything in config/, in bytes?",
      sum(size(p) for p in files if p.startswith('config/')))

    # 24 .py files longer than 50 lines
    q('compare', 'number', "How many Python files are over 50 lines long?",
      sum(1 for p in py if len(lines(p)) > 50))

    # 25 any file over 10 KB (false under either 10,000 or 10,240)
    assert max(size(p) for p in files) < 10000
    q('bool', 'bool', "Are any of the files bigger than 10 KB?", any(size(p) > 10240 for p in files))

    # 26 README vs LICENSE
    q('bool', 'bool', "Is the README bigger than the LICENSE file? bytes, I mean", size('README.md') > size('LICENSE'))

    # 27 subpackage of shop with the most lines (the same under non-blank lines)
    subs = sorted({folder(p) for p in py if folder(p).count('/') == 1 and p.startswith('shop/')})
    tot = lambda d: sum(len(lines(p)) for p in py if folder(p) == d)
    nonblank = lambda d: sum(1 for p in py if folder(p) == d for l in lines(p) if l.strip())
    top_sub = ranked(subs, tot, 1)
    assert top_sub == ranked(subs, nonblank, 1)
    q('folder', 'folder', "Which subpackage of shop has the most lines of code?", top_sub)

    # 28 directory with the most files directly in it
    per_dir = collections.Counter(folder(p) for p in files)
    q('folder', 'folder', "which directory has the most files sitting directly in it?",
      ranked(list(per_dir), lambda d: per_dir[d], 1))

    # 29 third longest .py by line count
    q('rank', 'path', "What's the 3rd longest python file by line count?",
      ranked(py, lambda p: len(lines(p)), 3))

    # 30 smallest non-empty file
    q('rank', 'path', "What's the smallest file that isn't empty?",
      ranked([p for p in files if size(p) > 0], size, 1, reverse=False))

    # 31 test functions in tests/
    q('count', 'number', "How many test functions are there in total?",
      sum(1 for p in py if p.startswith('tests/') for n in all_defs(p) if n.name.startswith('test_')))

    # 32 share of blank lines under tests/
    tl = [l for p in files if p.startswith('tests/') for l in lines(p)]
    q('lines', 'share', "What percentage of the lines under tests/ are blank?",
      100 * sum(1 for l in tl if not l.strip()) / len(tl))

    # 33 classes in shop/models without a docstring
    q('docstring', 'list of names', "Which classes in shop/models don't have a docstring?",
      sorted(c.name for p in py if folder(p) == 'shop/models' for c in classes(p) if ast.get_docstring(c) is None))

    # 34 longest class by lines
    q('rank', 'name', "Which class is the longest, in lines?",
      ranked(all_classes, lambda pc: pc[1].end_lineno - pc[1].lineno + 1, 1)[1].name)

    # 35 file in shop/utils defining the most functions and methods (every def incl. nested ones;
    #    module-level defs alone would tie dates.py with text.py, so the question names methods)
    utils = [p for p in py if folder(p) == 'shop/utils']
    q('rank', 'path', "In utils, which file has the most functions + methods?",
      ranked(utils, lambda p: len(all_defs(p)), 1))

    # 36 longest line of shop/utils/text.py
    q('text', 'text', "Can you show me the longest line in shop/utils/text.py?",
      ranked(lines('shop/utils/text.py'), len, 1))

    ALT = {
        14: len(params(add_address)),
        18: sorted(p for p in py if 'shop.utils.money' in imported_modules(p, resolve=False)),
        20: len([p for p in nodoc if files[p].strip()]),
        21: (lambda ds: 100 * sum(1 for n in ds if ast.get_docstring(n)) / len(ds))(
            [n for p in py if p.startswith('shop/') for n in top_defs(p)]),
    }
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
