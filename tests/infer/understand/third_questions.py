"""A third blind set of 36 everyday questions about the project fixture (bench/workloads/make_project.py), written on 2026-11-29 by an engineer who had not read the parser, its tests or its README paragraph.

The engineer wrote the fixture first, a small online-shop library with a
package, tests, docs, config and scripts, then sat down as a developer who had
just been handed it and typed the questions they would ask in a chat box,
spreading them over rankings, counts, existence checks, statistics,
comparisons, names, lines, reading, imports, docstrings, file types, folders and
scopes, with varied, casual wording. Every answer is computed below from the
generated files with the standard library (``ast`` for functions, classes,
docstrings and imports; bytes are ``len(text.encode())``; lines are
``text.splitlines()``), never typed in; rankings assert that there is no tie at
the places asked, and where a second reading of a question is fair its answer
is recorded in ``ALT``.
"""

import ast, collections, os, re, statistics


def questions(R):
    """(kind, answer type, question, expected) for each question, and the alternatives by question number (from 1)."""
    texts = {}
    for dirpath, dirnames, filenames in os.walk(R):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, R).replace(os.sep, '/')
            with open(full, encoding='utf-8') as handle:
                texts[rel] = handle.read()
    paths = sorted(texts)
    size = {p: len(texts[p].encode()) for p in paths}
    lines = {p: texts[p].splitlines() for p in paths}
    py = [p for p in paths if p.endswith('.py')]
    trees = {p: ast.parse(texts[p]) for p in py}

    def under(p, folder):
        return p.startswith(folder.rstrip('/') + '/')

    def defs(p, top_only=False):
        """The function definitions in ``p``: every ``def`` (methods and nested ones too), or only the module-level ones."""
        nodes = trees[p].body if top_only else ast.walk(trees[p])
        return [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def classes(p):
        return [n for n in ast.walk(trees[p]) if isinstance(n, ast.ClassDef)]

    def methods(c):
        return [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def nparams(f):
        a = f.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)

    def top(ranked, key, k):
        """The first ``k`` of ``ranked`` (sorted by ``key``, largest first), asserting no tie at those places."""
        for i in range(min(k, len(ranked) - 1)):
            assert key(ranked[i]) != key(ranked[i + 1]), (ranked[i], ranked[i + 1])
        return ranked[:k]

    def resolved_imports(p, top_level_only=False):
        """(module, imported name or None) for every import in ``p``, relative imports made absolute."""
        package = p[:-3].split('/')
        package = package[:-1] if package[-1] != '__init__' else package[:-1]
        nodes = trees[p].body if top_level_only else ast.walk(trees[p])
        out = []
        for n in nodes:
            if isinstance(n, ast.Import):
                out += [(a.name, None) for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = package[:len(package) - (n.level - 1)]
                    module = '.'.join(base + ([n.module] if n.module else []))
                else:
                    module = n.module
                out += [(module, a.name) for a in n.names]
        return out

    def todos(p):
        return sum(1 for line in lines[p] if re.search(r'#\s*TODO\b', line))

    def fixmes(p):
        return sum(1 for line in lines[p] if re.search(r'#\s*FIXME\b', line))

    tests = [p for p in py if re.fullmatch(r'tests/test_\w+\.py', p)]
    ntests = {p: sum(1 for f in defs(p) if f.name.startswith('test_')) for p in tests}

    Q = []
    def q(kind, typ, text, exp): Q.append((kind, typ, text, exp))
    ALT = {}

    # 1: by bytes; the biggest by lines is the same file
    by_bytes = top(sorted(py, key=lambda p: -size[p]), lambda p: size[p], 1)
    assert by_bytes == top(sorted(py, key=lambda p: -len(lines[p])), lambda p: len(lines[p]), 1)
    q('rank', 'path', "What's the biggest Python file in the code base?", by_bytes[0])

    # 2: longest = most lines; the top three by bytes are the same three in the same order
    shop_files = [p for p in paths if under(p, 'shop')]
    longest = top(sorted(shop_files, key=lambda p: -len(lines[p])), lambda p: len(lines[p]), 3)
    assert longest == top(sorted(shop_files, key=lambda p: -size[p]), lambda p: size[p], 3)
    q('rank', 'list of paths', "Which are the 3 longest files in the shop package? Largest first please.", longest)

    # 3: largest = bytes; by lines it would be another file
    config = [p for p in paths if under(p, 'config')]
    q('rank', 'path', "what's the 2nd largest file in the config folder?",
      top(sorted(config, key=lambda p: -size[p]), lambda p: size[p], 2)[1])
    ALT[3] = top(sorted(config, key=lambda p: -len(lines[p])), lambda p: len(lines[p]), 2)[1]

    # 4: tests = top-level test_* functions of the tests/test_*.py files
    q('rank', 'path', "Which test file has the second most tests in it?",
      top(sorted(tests, key=lambda p: -ntests[p]), lambda p: ntests[p], 2)[1])

    # 5: every '# TODO' comment in any file (Python and shell); ALT: Python files only
    q('count', 'number', "How many TODO comments are there in the project?", sum(todos(p) for p in paths))
    ALT[5] = sum(todos(p) for p in py)

    # 6
    q('exists', 'bool', "Do the tests have any FIXMEs?", any(fixmes(p) for p in paths if under(p, 'tests')))

    # 7: every class statement in the files under shop/models
    q('count', 'number', "How many classes are defined in shop/models?",
      sum(len(classes(p)) for p in py if under(p, 'shop/models')))

    # 8: every def named test_* under tests/
    q('count', 'number', "How many test functions are there in total?",
      sum(1 for p in py if under(p, 'tests') for f in defs(p) if f.name.startswith('test_')))

    # 9: methods = defs directly in class bodies (properties included), distinct names
    q('names', 'number', "How many different method names are there across the classes in shop/models?",
      len({m.name for p in py if under(p, 'shop/models') for c in classes(p) for m in methods(c)}))

    # 10: '# TODO' comments per file, any file type
    q('count', 'number', "What's the most TODOs any single file has?", max(todos(p) for p in paths))

    # 11: test files = tests/test_*.py; ALT: every .py file under tests/ (conftest and the empty __init__ too)
    q('stat', 'number', "What's the average number of lines in the test files?",
      statistics.mean(len(lines[p]) for p in tests))
    ALT[11] = statistics.mean(len(lines[p]) for p in py if under(p, 'tests'))

    # 12: all .md files, README included
    q('stat', 'number', "What's the median size of the markdown files, in bytes?",
      statistics.median(size[p] for p in paths if p.endswith('.md')))

    # 13
    with_doc = [p for p in py if ast.get_docstring(trees[p]) is not None]
    q('stat', 'share', "What percentage of the Python files have a module docstring?", 100 * len(with_doc) / len(py))

    # 14: every def under shop/ (methods and nested ones too); ALT: module-level functions only
    shop_py = [p for p in py if under(p, 'shop')]
    all_defs = [f for p in shop_py for f in defs(p)]
    q('stat', 'share', "Roughly what fraction of the functions in the shop package have a docstring?",
      100 * sum(ast.get_docstring(f) is not None for f in all_defs) / len(all_defs))
    top_defs = [f for p in shop_py for f in defs(p, top_only=True)]
    ALT[14] = 100 * sum(ast.get_docstring(f) is not None for f in top_defs) / len(top_defs)

    # 15
    q('compare', 'bool', "Is any file in shop/api longer than 300 lines?",
      any(len(lines[p]) > 300 for p in paths if under(p, 'shop/api')))

    # 16: 5 KB read as 5000 bytes; 5120 gives the same files
    assert not any(5000 < size[p] <= 5120 for p in py)
    q('compare', 'list of paths', "Which Python files are over 5 KB?", sorted(p for p in py if size[p] > 5000))

    # 17: every def (methods and nested ones too) in .py files outside tests/
    outside = [f.name for p in py if not under(p, 'tests') for f in defs(p)]
    q('names', 'name', "What's the longest function name outside the tests?",
      top(sorted(set(outside), key=lambda n: -len(n)), len, 1)[0])

    # 18: the last module-level def; it is also the last def of any kind in the file
    money = 'shop/utils/money.py'
    last = defs(money, top_only=True)[-1]
    assert last is max(defs(money), key=lambda f: f.lineno)
    q('names', 'name', "What's the last function defined in shop/utils/money.py?", last.name)

    # 19
    where = [p for p in py for c in classes(p) if c.name == 'Catalogue']
    assert len(where) == 1
    q('names', 'path', "Where's the Catalogue class defined?", where[0])

    # 20: every def in every .py file; counting module-level ones only gives the same number
    q('names', 'number', "How many functions start with get_?",
      sum(1 for p in py for f in defs(p) if f.name.startswith('get_')))
    assert Q[-1][3] == sum(1 for p in py for f in defs(p, top_only=True) if f.name.startswith('get_'))

    # 21: methods = defs directly in the class body
    cls = [(c.name, len(methods(c))) for p in py for c in classes(p)]
    q('names', 'name', "Which class has the most methods?",
      top(sorted(cls, key=lambda t: -t[1]), lambda t: t[1], 1)[0][0])

    # 22
    q('names', 'list of names', "Which functions in shop/utils/dates.py don't take any arguments?",
      sorted(f.name for f in defs('shop/utils/dates.py') if nparams(f) == 0))

    # 23: the line as written, compared after strip
    routes = 'shop/api/routes.py'
    q('lines', 'text', "Show me the longest line in shop/api/routes.py",
      top(sorted(lines[routes], key=lambda s: -len(s)), len, 1)[0].strip())

    # 24
    q('lines', 'number', "How many lines in the Python code are longer than 100 characters?",
      sum(1 for p in py for line in lines[p] if len(line) > 100))

    # 25
    q('read', 'text', "What are the first three lines of scripts/deploy.sh?", '\n'.join(lines['scripts/deploy.sh'][:3]))

    # 26: the text between that heading and the next one
    readme = lines['README.md']
    start = readme.index('## Running the tests') + 1
    end = next(i for i in range(start, len(readme)) if readme[i].startswith('#'))
    q('read', 'text', "What does the README say under 'Running the tests'?", '\n'.join(readme[start:end]).strip())

    # 27
    q('docstrings', 'text', "what's the module docstring of shop/utils/money.py?", ast.get_docstring(trees[money]))

    # 28: empty files count as lacking one; ALT: only the files with some content
    nodoc = sorted(p for p in shop_py if ast.get_docstring(trees[p]) is None)
    q('docstrings', 'list of paths', "Which modules in shop/ don't have a docstring?", nodoc)
    ALT[28] = [p for p in nodoc if texts[p].strip()]

    # 29: modules named by every import statement in the file, nested ones too; ALT: the module-level imports only
    auth = 'shop/api/auth.py'
    q('imports', 'list of names', "Which modules does shop/api/auth.py import?",
      sorted({m for m, _ in resolved_imports(auth)}))
    ALT[29] = sorted({m for m, _ in resolved_imports(auth, top_level_only=True)})

    # 30: absolute and relative imports both count, resolved against the importing module's package
    target = 'shop.models.user'
    importers = sorted(p for p in py if any(m == target or (n and f'{m}.{n}' == target) for m, n in resolved_imports(p)))
    q('imports', 'list of paths', "Which modules import shop.models.user?", importers)

    # 31: the top-level names of absolute imports that are not the project's own (all of them standard library here)
    std = sorted({m.split('.')[0] for p in py if under(p, 'shop/utils')
                  for m, _ in resolved_imports(p) if m.split('.')[0] != 'shop'})
    assert not set(std) & {'requests', 'pytest', 'yaml'}
    q('imports', 'list of names', "What stdlib modules get imported in the utils package?", std)

    # 32: .yaml and .yml
    q('filetypes', 'number', "How many YAML files are there?", sum(1 for p in paths if p.endswith(('.yaml', '.yml'))))

    # 33: largest = bytes; ALT: most lines
    md = [p for p in paths if p.endswith('.md')]
    q('filetypes', 'path', "Which is the largest markdown file?", top(sorted(md, key=lambda p: -size[p]), lambda p: size[p], 1)[0])
    ALT[33] = top(sorted(md, key=lambda p: -len(lines[p])), lambda p: len(lines[p]), 1)[0]

    # 34: lines of all files beneath each shop/<sub>/; the non-blank lines give the same winner
    subs = sorted({p.split('/')[1] for p in shop_py if p.count('/') >= 2})
    loc = {s: sum(len(lines[p]) for p in paths if under(p, 'shop/' + s)) for s in subs}
    nonblank = {s: sum(1 for p in paths if under(p, 'shop/' + s) for line in lines[p] if line.strip()) for s in subs}
    best = top(sorted(subs, key=lambda s: -loc[s]), lambda s: loc[s], 1)[0]
    assert best == top(sorted(subs, key=lambda s: -nonblank[s]), lambda s: nonblank[s], 1)[0]
    q('group', 'folder', "Which subpackage of shop has the most lines of code?", 'shop/' + best)

    # 35
    per_sub = collections.Counter({s: sum(todos(p) for p in paths if under(p, 'shop/' + s)) for s in subs})
    q('group', 'folder', "Which of shop's subpackages has the most TODOs?",
      'shop/' + top(sorted(subs, key=lambda s: -per_sub[s]), lambda s: per_sub[s], 1)[0])

    # 36: whitespace-separated words of every file under docs/
    q('scope', 'number', "How many words are in the docs folder altogether?",
      sum(len(texts[p].split()) for p in paths if under(p, 'docs')))

    assert len(Q) == 36, len(Q)
    return Q, ALT


if __name__ == '__main__':
    import sys
    Q, ALT = questions(sys.argv[1])
    for i, (kind, typ, text, exp) in enumerate(Q, 1):
        print(f"{i:2} [{kind}/{typ}] {text}\n     -> {exp!r}" + (f"   (alt {ALT[i]!r})" if i in ALT else ''))
