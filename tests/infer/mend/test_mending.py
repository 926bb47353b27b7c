"""Mending a model's broken answers, with no second model call: the table, then the run-time checks end to end.

Each row of the table is an answer a small model gives, the failure mode it
shows, and either the exact program mending turns it into (which then runs
cleanly in the test workspace) or REFUSED: the answer is refused with that
mode, by validation or by the checks on its run, so the model is asked
again with the hint and the doc sections for that mode.

The run-time checks (path_prefix, key_hallucination, wrong_output) are then
driven through the real dispatcher and a fake model server whose first
answer is wrong; the retry message must carry the right doc section.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import lackpy.plugins
from lackpy import LackpyService
from lackpy.infer.diagnose.classify import DOC_HEADING, GUIDE_HEADING, HINTS, classify_answer, classify_runtime, feedback
from lackpy.infer.mend.answer import Mended, mend
from lackpy.infer.mend.failures import (
    IMPLEMENT_NOT_ORCHESTRATE as IMPLEMENT,
    INVALID,
    JUPYTER_CONFUSION,
    KEY_HALLUCINATION,
    MODES,
    PATH_PREFIX,
    STDLIB_LEAK,
    SYNTAX_ARTIFACT,
    TRUNCATED,
    WRONG_OUTPUT,
)
from lackpy.kit.docs import resolve_doc
from lackpy.kit.resolve import ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.validator import validate
from lackpy.run.runner import run_program

from ..llm_server import FakeLLM

#: The expected program of a row whose answer is refused.
REFUSED = None


def row(name: str, answer: str, mode: str | None, program: str | None, intent: str = ""):
    return pytest.param(answer, mode, program, intent, id=name)


# (answer, failure mode, repaired program or REFUSED, intent when the check needs one)
TABLE = [
    # -- fences, markup, prose and prompt echo: syntax_artifact, the program kept whole
    row('fence', '```python\nfiles = find_files("**/*.py")\nlen(files)\n```', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('fence_with_prose', 'Sure! Here is the program:\n\n```python\nfiles = find_files("**/*.py")\nlen(files)\n```\n\nIt counts the Python files.', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('code_tags', '<code>len(find_files("**/*.py"))</code>', SYNTAX_ARTIFACT, 'len(find_files("**/*.py"))'),
    row('language_line', 'python\nlen(find_files("**/*.py"))', SYNTAX_ARTIFACT, 'len(find_files("**/*.py"))'),
    row('blocks_in_steps', 'First find the files:\n```python\nfiles = find_files("**/*.py")\n```\nThen count them:\n```python\nlen(files)\n```', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('block_then_output', '```python\nlen(find_files("**/*.py"))\n```\nOutput:\n```\n2\n```', SYNTAX_ARTIFACT, 'len(find_files("**/*.py"))'),
    row('prose_between_code', 'files = find_files("**/*.py")\nNow we count the files we found.\nlen(files)', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('prose_all_around', 'Here is how:\nfiles = find_files("**/*.py")\nThis keeps only the packages:\npkg = [f for f in files if "/pkg/" in f]\nFinally the count:\nlen(pkg)\nThat is all.', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\npkg = [f for f in files if "/pkg/" in f]\nlen(pkg)'),
    row('output_label', 'files = find_files("**/*.py")\nlen(files)\nOutput: 2', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('prompt_echo', 'Tools:\n  find_files(pattern: str, kind: str | None = None) -> list[str]\nRules:\n- Write top-level statements only.\nfiles = find_files("**/*.py")\nlen(files)', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),
    row('intent_echo', 'count the python files\nlen(find_files("**/*.py"))', SYNTAX_ARTIFACT, 'len(find_files("**/*.py"))'),
    row('arrow_marks', 'files = find_files("**/*.py")\n-> len(files)', SYNTAX_ARTIFACT, 'files = find_files("**/*.py")\nlen(files)'),

    # -- REPL and notebook transcripts: jupyter_confusion; prompts and echoed outputs go, code stays
    row('repl_echo', '>>> files = find_files("**/*.py")\n>>> files\n[\'src/app.py\', \'src/pkg/util.py\']\n>>> len(files)\n2', JUPYTER_CONFUSION, 'files = find_files("**/*.py")\nfiles\nlen(files)'),
    row('repl_continuation', ">>> total = 0\n>>> for f in find_files('**/*.py'):\n...     total += 1\n...\n>>> print(total)\n2", JUPYTER_CONFUSION, "total = 0\nfor f in find_files('**/*.py'):\n    total += 1\ntotal"),
    row('repl_then_plain_code', '>>> files = find_files("**/*.py")\nlen(files)', JUPYTER_CONFUSION, 'files = find_files("**/*.py")\nlen(files)'),
    row('notebook_cells', 'In [1]: files = find_files("**/*.py")\n\nIn [2]: len(files)\nOut[2]: 2', JUPYTER_CONFUSION, 'files = find_files("**/*.py")\n\nlen(files)'),
    row('notebook_continuation', "In [1]: for f in find_files('**/*.py'):\n   ...:     print(f)\n   ...:\nsrc/app.py\nsrc/pkg/util.py", JUPYTER_CONFUSION, "for f in find_files('**/*.py'):\n    print(f)"),
    row('time_magic', '%time n = len(find_files("**/*.py"))\nn', JUPYTER_CONFUSION, 'n = len(find_files("**/*.py"))\nn'),
    row('setup_magics', '%matplotlib inline\n!pip install lackpy\nlen(find_files("**/*.py"))', JUPYTER_CONFUSION, 'len(find_files("**/*.py"))'),
    row('shell_line', '!ls src\nlen(find_files("**/*.py"))', JUPYTER_CONFUSION, REFUSED),
    row('shell_assignment', 'files = !ls src\nlen(files)', JUPYTER_CONFUSION, REFUSED),
    row('working_magic', '%cd src\nlen(find_files("*.py"))', JUPYTER_CONFUSION, REFUSED),
    row('display_last', 'n = len(find_files("**/*.py"))\ndisplay(n)', JUPYTER_CONFUSION, "n = len(find_files('**/*.py'))\nn"),

    # -- imports of what the kit provides, in every form: stdlib_leak, rewritten to tools or refused
    row('import_glob', 'import glob\nlen(glob.glob("**/*.py", recursive=True))', STDLIB_LEAK, "len(find_files('**/*.py'))"),
    row('from_glob_import_glob', 'from glob import glob\nlen(glob("**/*.py"))', STDLIB_LEAK, "len(find_files('**/*.py'))"),
    row('import_glob_as', 'import glob as g\nsorted(g.glob("src/*.py"))', STDLIB_LEAK, "sorted(find_files('src/*.py'))"),
    row('from_os_import_listdir', 'from os import listdir\nlistdir("src")', STDLIB_LEAK, "[e['name'] for e in list_dir('src')]"),
    row('import_os_listdir', 'import os\n[n for n in os.listdir(".") if n.endswith(".md")]', STDLIB_LEAK, "[n for n in [e['name'] for e in list_dir('.')] if n.endswith('.md')]"),
    row('import_os_path_exists', 'import os.path\nos.path.exists("README.md")', STDLIB_LEAK, "bool(find_files('README.md', kind='any'))"),
    row('from_os_path_join', 'from os.path import join\nlen(read_file(join("src", "app.py")).splitlines())', STDLIB_LEAK, "len(read_file('src/app.py').splitlines())"),
    row('os_walk', 'import os\nfound = []\nfor root, dirs, files in os.walk("src"):\n    for name in files:\n        if name.endswith(".py"):\n            found.append(os.path.join(root, name))\nfound', STDLIB_LEAK, "found = []\nfor path in find_files('src/**/*'):\n    name = path.rsplit('/', 1)[-1]\n    if name.endswith('.py'):\n        found.append(path)\nfound"),
    row('pathlib_read_text', 'from pathlib import Path\nPath("README.md").read_text().splitlines()[0]', STDLIB_LEAK, "read_file('README.md').splitlines()[0]"),
    row('open_read', 'text = open("README.md").read()\nlen(text.splitlines())', STDLIB_LEAK, "text = read_file('README.md')\nlen(text.splitlines())"),
    row('with_open_lines', 'n = 0\nwith open("src/app.py") as f:\n    for line in f:\n        if "TODO" in line:\n            n += 1\nn', STDLIB_LEAK, "n = 0\nfor line in read_file('src/app.py').splitlines(keepends=True):\n    if 'TODO' in line:\n        n += 1\nn"),
    row('tools_import', 'from tools import find_files\nlen(find_files("**/*.py"))', STDLIB_LEAK, "len(find_files('**/*.py'))"),
    row('pathlib_rglob', 'from pathlib import Path\n[str(p) for p in Path("src").rglob("*.py")]', STDLIB_LEAK, REFUSED),
    row('exists_of_variable', 'import os\npath = "README.md"\nos.path.exists(path)', STDLIB_LEAK, REFUSED),
    row('subprocess', 'import subprocess\nsubprocess.run(["ls"], capture_output=True).stdout', STDLIB_LEAK, REFUSED),
    row('numpy', 'import numpy as np\nnp.mean([len(read_file(f)) for f in find_files("**/*.py")])', STDLIB_LEAK, REFUSED),

    # -- def main(): implement_not_orchestrate, unwrapped when simple
    row('def_main', 'def main():\n    files = find_files("**/*.py")\n    return len(files)\n\nmain()', IMPLEMENT, "files = find_files('**/*.py')\nlen(files)"),
    row('def_main_guard_print', 'def main():\n    return len(find_files("**/*.py"))\n\nif __name__ == "__main__":\n    print(main())', IMPLEMENT, "len(find_files('**/*.py'))"),
    row('def_main_with_helper', 'def count_lines(path):\n    return len(read_file(path).splitlines())\n\ndef main():\n    files = find_files("**/*.py")\n    return sum(count_lines(f) for f in files)\n\nmain()', IMPLEMENT, "files = find_files('**/*.py')\nsum((len(read_file(f).splitlines()) for f in files))"),
    row('def_main_global', 'def main():\n    global total\n    total = len(find_files("**/*.py"))\n\nmain()\ntotal', IMPLEMENT, "total = len(find_files('**/*.py'))\ntotal"),
    row('def_main_early_return', 'def main():\n    files = find_files("**/*.py")\n    if not files:\n        return 0\n    return len(files)\n\nmain()', IMPLEMENT, REFUSED),

    # -- print as the output: wrong_output, the value becomes the result
    row('final_print', 'n = len(find_files("**/*.py"))\nprint(n)', WRONG_OUTPUT, "n = len(find_files('**/*.py'))\nn"),
    row('final_print_many', 'n = len(find_files("**/*.py"))\nprint("Python files:", n)', WRONG_OUTPUT, "n = len(find_files('**/*.py'))\nf'Python files: {n}'"),

    # -- cut-off answers: truncated, never validated as what is left
    row('cut_mid_call', 'files = find_files("**/*.py")\ntotal = sum(len(read_file(f).splitlines()) for f in fi', TRUNCATED, REFUSED),
    row('cut_in_string', 'hits = grep("TODO", glob="**/*.py', TRUNCATED, REFUSED),
    row('cut_in_open_fence', '```python\nfiles = find_files("**/*.py")\ncounts = {f: len(read_file(f)) for f in files}\nsorted(counts, key=counts.get,', TRUNCATED, REFUSED),
    row('cut_in_block_header', 'for f in find_files("**/*.py"):', TRUNCATED, REFUSED),
    row('cut_mid_sentence', 'files = find_files("**/*.py")\nlen(files)\nThis program counts the Python files in the', TRUNCATED, REFUSED),
    row('cut_prose_only', 'To count the Python files we first need to', TRUNCATED, REFUSED),
    row('one_word', 'Sure', TRUNCATED, REFUSED),

    # -- assigned lambdas, map, while over a counter: implement_not_orchestrate
    row('assigned_lambda', 'count = lambda p: len(read_file(p).splitlines())\n{f: count(f) for f in find_files("**/*.py")}', IMPLEMENT, "{f: len(read_file(f).splitlines()) for f in find_files('**/*.py')}"),
    row('lambda_key', 'def size(p):\n    return len(read_file(p))\n\nmax(find_files("**/*.py"), key=size)', IMPLEMENT, "max(find_files('**/*.py'), key=lambda p: len(read_file(p)))"),
    row('map_lambda', 'list(map(lambda f: f.upper(), find_files("**/*.py")))', IMPLEMENT, "[f.upper() for f in find_files('**/*.py')]"),
    row('lambda_as_value', 'pick = lambda files: files[0]\nchoose = pick\nchoose(find_files("**/*.py"))', IMPLEMENT, REFUSED),
    row('while_counter', 'files = find_files("**/*.py")\ni = 0\nsizes = []\nwhile i < len(files):\n    sizes.append(len(read_file(files[i])))\n    i += 1\nsizes', IMPLEMENT, "files = find_files('**/*.py')\nsizes = []\nfor i in range(len(files)):\n    sizes.append(len(read_file(files[i])))\nsizes"),
    row('while_counter_read_after', 'i = 0\nwhile i < 3:\n    i += 1\ni', IMPLEMENT, REFUSED),
    row('while_true', 'n = 0\nwhile True:\n    n += 1\n    if n > 3:\n        break\nn', IMPLEMENT, REFUSED),

    # -- other near-misses of the grammar
    row('try_except', 'try:\n    text = read_file("missing.txt")\nexcept Exception:\n    text = ""\nlen(text)', IMPLEMENT, REFUSED),
    row('top_level_global', 'global n\nn = len(find_files("**/*.py"))\nn', IMPLEMENT, "n = len(find_files('**/*.py'))\nn"),
    row('str_format', '"{} python files".format(len(find_files("**/*.py")))', INVALID, 'f"{len(find_files(\'**/*.py\'))} python files"'),
    row('fstring_312_quotes', 'hits = grep("TODO", glob="**/*.py")\n[f"{h["path"]}:{h["line"]}" for h in hits]', SYNTAX_ARTIFACT, 'hits = grep("TODO", glob="**/*.py")\n[f"{h[\'path\']}:{h[\'line\']}" for h in hits]'),
    row('class_def', 'class Counter:\n    total = 0\nCounter.total', IMPLEMENT, REFUSED),
    row('top_level_return', 'files = find_files("**/*.py")\nreturn len(files)', IMPLEMENT, REFUSED),

    # -- keys the tool never returns: key_hallucination (a KeyError, or a silent .get)
    row('grep_wrong_key', 'hits = grep("TODO", glob="**/*.py")\nsorted({h["file"] for h in hits})', KEY_HALLUCINATION, REFUSED),
    row('grep_wrong_key_get', '[h.get("filename") for h in grep("TODO", glob="**/*.py")]', KEY_HALLUCINATION, REFUSED),
    row('list_dir_wrong_key', 'sorted(list_dir("src"), key=lambda e: e["size_bytes"])[-1]["name"]', KEY_HALLUCINATION, REFUSED),
    row('find_files_key', '[f["path"] for f in find_files("**/*.py")]', KEY_HALLUCINATION, REFUSED),

    # -- paths and globs that find nothing where the files are: path_prefix
    row('glob_too_shallow', 'len(find_files("*.py"))', PATH_PREFIX, REFUSED),
    row('grep_glob_too_shallow', 'len(grep("TODO", glob="*.py"))', PATH_PREFIX, REFUSED),
    row('path_from_wrong_dir', 'len(read_file("app.py").splitlines())', PATH_PREFIX, REFUSED),
    row('absolute_path', 'read_file("/workspace/README.md")', PATH_PREFIX, REFUSED),

    # -- runs that answer nothing: wrong_output
    row('no_result', 'files = find_files("**/*.py")', WRONG_OUTPUT, REFUSED),
    row('empty_listing', '[f for f in find_files("**/*.py") if "todo" in read_file(f)]', WRONG_OUTPUT, REFUSED, 'which files contain todo markers'),

    # -- an answer with nothing to mend
    row('clean', 'files = find_files("**/*.py")\nlen(files)', None, 'files = find_files("**/*.py")\nlen(files)'),]


@pytest.fixture
def kit(workspace: Path) -> ResolvedKit:
    toolbox = Toolbox(str(workspace))
    lackpy.plugins.populate(toolbox)
    return resolve_kit("filesystem", toolbox)


@pytest.fixture
def read_doc(workspace: Path):
    return lambda path: resolve_doc(path, workspace)


def outcome(answer: str, kit: ResolvedKit, read_doc, intent: str = ""):
    """What the dispatcher does with an answer, without a model: mend, validate, classify, run, check the run."""
    mended = mend(answer, kit.names)
    failure = classify_answer(mended, validate(mended.program, kit.names).errors, kit)
    result = None
    if failure is None:
        result = run_program(mended.program, kit, mode="inprocess")
        failure = classify_runtime(mended.program, result, kit, intent=intent, read_doc=read_doc)
    return mended, failure, result


@pytest.mark.parametrize(("answer", "mode", "program", "intent"), TABLE)
def test_broken_answer(kit, read_doc, answer, mode, program, intent):
    """The answer shows its failure mode; mending gives exactly the program, or the answer is refused with that mode."""
    mended, failure, result = outcome(answer, kit, read_doc, intent)
    if program is REFUSED:
        assert failure is not None, f"expected a refusal, got {mended.program!r}"
        assert failure.mode == mode, failure.message
    else:
        assert failure is None, f"{failure.mode}: {failure.message}"
        assert mended.program == program
        assert mended.mode == mode
        assert result.success


def test_the_table_is_broad():
    """Enough rows, and every mode an answer can show before a run is in it, each both repaired and refused where it can be."""
    params = TABLE
    assert len(params) >= 40
    modes = {p.values[1] for p in params}
    assert modes >= {TRUNCATED, JUPYTER_CONFUSION, SYNTAX_ARTIFACT, STDLIB_LEAK, IMPLEMENT, INVALID, PATH_PREFIX, KEY_HALLUCINATION, WRONG_OUTPUT}
    for mode in (JUPYTER_CONFUSION, STDLIB_LEAK, IMPLEMENT):
        outcomes = {p.values[2] is REFUSED for p in params if p.values[1] == mode}
        assert outcomes == {True, False}, mode


# -- precedence between modes -----------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "mode"),
    [
        ('```python\nimport glob\nlen(glob.glob("**/*.py"))\n```', SYNTAX_ARTIFACT),  # fence outranks the import it held
        ('>>> import glob\n>>> len(glob.glob("**/*.py"))\n2', JUPYTER_CONFUSION),
        ('>>> def main():\n...     return len(find_files("**/*.py"))\n...\n>>> main()\n2', JUPYTER_CONFUSION),
        ('import glob\ndef main():\n    return len(glob.glob("**/*.py"))\nprint(main())', STDLIB_LEAK),
        ('def main():\n    return len(find_files("**/*.py"))\nprint(main())', IMPLEMENT),
    ],
)
def test_a_mended_answer_reports_its_highest_mode(kit, answer, mode):
    """An answer repaired of several habits names the one of highest precedence (MODES order)."""
    mended = mend(answer, kit.names)
    assert validate(mended.program, kit.names).valid
    assert mended.mode == mode
    assert mended.modes == sorted(mended.modes, key=MODES.index)


@pytest.mark.parametrize(
    ("answer", "mode"),
    [
        ('>>> import glob\n>>> x = len(glob.glob("**/*.py"', JUPYTER_CONFUSION),  # a cut session: the session came first
        ('import glob\nx = len(glob.glob("**/*.py"', TRUNCATED),  # cut off: nothing else about it is reliable
        ('!ls\nimport subprocess\nsubprocess.run(["ls"])', JUPYTER_CONFUSION),  # the session, before its import
        ('import subprocess\ndef main():\n    return subprocess.run(["ls"])\nmain()', STDLIB_LEAK),
        ('def main():\n    if x:\n        return 1\n    return readfile("a")\nmain()', IMPLEMENT),  # shape before the misspelt tool
    ],
)
def test_a_refused_answer_reports_its_highest_mode(kit, answer, mode):
    """Where several modes apply to a refused answer, the reported one is the highest in MODES."""
    mended = mend(answer, kit.names)
    failure = classify_answer(mended, validate(mended.program, kit.names).errors, kit)
    assert failure.mode == mode


# -- hints and doc sections for the refusals ------------------------------------------


@pytest.mark.parametrize(
    ("answer", "hint_part", "sections"),
    [
        ("n = 0\nwhile n < 3:\n    n += 1\nn", "for i in range(start, stop)", [(GUIDE_HEADING, "Loops:")]),
        ("f = lambda x: x\nf = 2\nf", "comprehension", [(GUIDE_HEADING, "Functions:")]),
        ('try:\n    x = read_file("a")\nexcept Exception:\n    x = ""\nx', "check values with if", [(GUIDE_HEADING, "Errors:")]),
        ('import numpy\nnumpy.mean([1])', "numpy included", [(GUIDE_HEADING, "Imports:")]),
        ('!ls src\nlen(find_files("*.py"))', "not a session", [(GUIDE_HEADING, "Transcripts:")]),
        ('files = find_files("**/*.py")\nlen(fi', "cut off", [(GUIDE_HEADING, "Complete answers:")]),
        (
            'import os\np = "README.md"\nos.path.exists(p)',
            "standard library",
            [(DOC_HEADING, "Signature: find_files("), (DOC_HEADING, "Notes:"), (GUIDE_HEADING, "Imports:")],
        ),
        ('"{0.name}".format(x)', "f-string", [(GUIDE_HEADING, "Results:")]),
    ],
)
def test_refusals_get_the_hint_and_sections_that_fix_them(kit, read_doc, answer, hint_part, sections):
    """Each near-miss is told what to write instead, with the guide's (and the tool doc's) section for it."""
    mended = mend(answer, kit.names)
    failure = classify_answer(mended, validate(mended.program, kit.names).errors, kit)
    text = feedback(failure, mended.program, kit, read_doc)
    assert hint_part in text
    for heading, section in sections:
        assert section in text.split(heading, 1)[1], (heading, section)


def test_the_program_guide_has_a_section_for_every_quoted_title(read_doc):
    """Every guide section a mode or a construct asks for exists in docs/guide/answers.md."""
    from lackpy.infer.diagnose.classify import CONSTRUCT_MODES, GUIDE, GUIDE_SECTIONS, NODE_MODES
    from lackpy.kit.docs import doc_sections

    sections = doc_sections(read_doc(GUIDE))
    wanted = {t for titles in GUIDE_SECTIONS.values() for t in titles}
    wanted |= {t for _, _, titles in [*NODE_MODES.values(), *CONSTRUCT_MODES.values()] for t in titles}
    assert wanted <= set(sections)
    assert all(len(sections[t]) <= 600 for t in wanted), "a quoted section is capped at 600 characters"


def test_a_clean_answer_is_not_mended():
    """A program with nothing to fix comes through with no repairs and no mode."""
    assert mend('len(find_files("**/*.py"))', {"find_files"}) == Mended('len(find_files("**/*.py"))', [])


# -- the run-time checks through the dispatcher and a fake model --------------------------


def delegate(service: LackpyService, intent: str, **kw):
    kw.setdefault("mode", "inprocess")
    kw.setdefault("kit", "readonly")
    return asyncio.run(service.delegate(intent, **kw))


def with_model(workspace: Path, server: FakeLLM, **inference) -> LackpyService:
    inference.setdefault("order", ["ollama"])
    return LackpyService(workspace, {"inference": {"ollama": {"model": server.model, "host": server.url}, **inference}})


def retry_note(server: FakeLLM, index: int = 1) -> str:
    """The feedback the model got before its answer number ``index`` (0-based)."""
    return server.requests[index][1]["messages"][-1]["content"]


def failed_runs(result) -> list:
    return [a for a in result.attempts if a.stage == "run" and not a.ok]


def test_a_glob_that_misses_deeper_files_is_path_prefix_with_the_notes(workspace):
    """find_files('*.py') runs and finds nothing while src/ holds .py files: retried with find_files' Parameters and Notes."""
    answers = ['len(find_files("*.py"))', 'len(find_files("**/*.py"))']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "how many python files")
    assert result.success and result.output == 2
    [run] = failed_runs(result)
    assert run.failure_mode == PATH_PREFIX
    note = retry_note(server)
    assert "'**/*.py' matches 2: src/app.py, src/pkg/util.py" in note
    docs = note.split(DOC_HEADING, 1)[1]
    assert "Notes:" in docs and "Parameters:" in docs and "`**` any number of" in docs


def test_a_file_named_from_the_wrong_directory_is_path_prefix(workspace):
    """read_file('app.py') fails, but src/app.py exists: the retry names the path from the workspace root."""
    answers = ['read_file("app.py").splitlines()[0]', 'read_file("src/app.py").splitlines()[0]']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "first line of app.py")
    assert result.output == "# TODO: one"
    assert failed_runs(result)[0].failure_mode == PATH_PREFIX
    note = retry_note(server)
    assert "'app.py' is in the workspace at 'src/app.py'" in note
    assert "Write paths from the workspace root, as listed: 'src/app.py'." in note
    assert "Notes:" in note.split(DOC_HEADING, 1)[1]


def test_a_silent_wrong_key_is_key_hallucination_with_the_returns_section(workspace):
    """h.get('file') on grep's results runs and gives Nones; the retry quotes grep's Returns with its real keys."""
    answers = ['sorted({h.get("file") for h in grep("TODO", glob="**/*.py")})', 'sorted({h["path"] for h in grep("TODO", glob="**/*.py")})']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "files with TODOs")
    assert result.output == ["src/app.py", "src/pkg/util.py"]
    [run] = failed_runs(result)
    assert run.failure_mode == KEY_HALLUCINATION and "no key 'file'" in run.error
    note = retry_note(server)
    assert "grep(...) results have no key 'file'; their keys are 'path', 'line', 'text', 'truncated'" in note
    assert 'Returns:\nA list of `{"path": str, "line": int, "text": str}`' in note.split(DOC_HEADING, 1)[1]


def test_a_key_error_names_the_documented_keys(workspace):
    """hit['file'] raises a KeyError at run time; the message adds the keys grep's doc lists."""
    answers = ['hits = grep("TODO", glob="**/*.py")\nlen({h["file"] for h in hits})', 'hits = grep("TODO", glob="**/*.py")\nlen({h["path"] for h in hits})']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "how many files have TODOs")
    assert result.output == 2
    run = failed_runs(result)[0]
    assert run.failure_mode == KEY_HALLUCINATION and "KeyError: 'file'" in run.error
    note = retry_note(server)
    assert "their keys are 'path', 'line', 'text', 'truncated'" in note and "Returns:" in note


def test_an_empty_answer_to_which_files_is_wrong_output(workspace):
    """Asked which files, the program filters everything away although find_files returned files: retried with Returns."""
    answers = [
        '[f for f in find_files("**/*.py") if "todo" in read_file(f)]',
        '[f for f in find_files("**/*.py") if "TODO" in read_file(f)]',
    ]
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "which files contain todo markers")
    assert result.output == ["src/app.py", "src/pkg/util.py"]
    [run] = failed_runs(result)
    assert run.failure_mode == WRONG_OUTPUT
    note = retry_note(server)
    assert "the result is [], though find_files(...) returned" in note
    docs = note.split(DOC_HEADING, 1)[1]
    assert "Signature: find_files(" in docs and "Returns:" in docs and "Examples:" in docs


def test_a_suspect_run_is_kept_when_the_retry_does_worse(workspace):
    """A run that succeeded but looked wrong is the outcome when the model's next answer does not even validate."""
    answers = ['[f for f in find_files("**/*.py") if "zzz" in read_file(f)]', "while True:\n    pass"]
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server, max_retries=0), "which files mention zzz")
    assert len(server.requests) == 2
    assert result.success and result.output == [] and result.provider == "ollama"
    assert result.program == answers[0]
    assert [a.failure_mode for a in result.attempts] == [None, WRONG_OUTPUT, IMPLEMENT]


def test_a_transcript_is_mended_without_asking_again(workspace):
    """A REPL session with echoed outputs becomes its code, and the echoed values do not become the result."""
    answer = '>>> files = find_files("**/*.py")\n>>> files\n[\'src/app.py\']\n>>> len(files)\n1'
    with FakeLLM([answer]) as server:
        result = delegate(with_model(workspace, server), "how many python files")
    assert len(server.requests) == 1
    assert result.output == 2
    assert "strip_transcript" in result.attempts[0].repairs


def test_a_cut_off_answer_is_retried_with_the_guide(workspace):
    """A truncated answer is never run; the retry says so and quotes the guide's section on complete answers."""
    answers = ['files = find_files("**/*.py")\nlen(fi', 'len(find_files("**/*.py"))']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "how many python files")
    assert result.output == 2
    assert result.attempts[0].failure_mode == TRUNCATED
    note = retry_note(server)
    assert HINTS[TRUNCATED] in note
    assert "Complete answers:" in note.split(GUIDE_HEADING, 1)[1]
