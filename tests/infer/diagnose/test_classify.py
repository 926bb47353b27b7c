"""Failure modes from real diagnostics and real runs, and the feedback a model gets for each."""

from __future__ import annotations

from pathlib import Path

import pytest

import lackpy.plugins
from lackpy.infer.diagnose.classify import (
    DOC_HEADING,
    HINTS,
    IMPLEMENT_NOT_ORCHESTRATE,
    INVALID,
    JUPYTER_CONFUSION,
    KEY_HALLUCINATION,
    LIMIT,
    MODES,
    PATH_PREFIX,
    RUNTIME_ERROR,
    SECTIONS,
    STDLIB_LEAK,
    SYNTAX_ARTIFACT,
    TRUNCATED,
    UNKNOWN_TOOL,
    WRONG_OUTPUT,
    Failure,
    GUIDE_HEADING,
    classify_answer,
    classify_runtime,
    classify_validation,
    feedback,
)
from lackpy.kit.docs import resolve_doc
from lackpy.kit.resolve import ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.validator import validate
from lackpy.run.runner import run_program

READ_FILE_SIGNATURE = "Signature: read_file(path: str, offset: int | None = None, limit: int | None = None) -> str"
REPLY = "Reply with only the corrected program in one ```python block."


@pytest.fixture
def toolbox(workspace: Path) -> Toolbox:
    tb = Toolbox(str(workspace))
    lackpy.plugins.populate(tb)
    return tb


@pytest.fixture
def kit(toolbox: Toolbox) -> ResolvedKit:
    return resolve_kit("filesystem", toolbox)


@pytest.fixture
def read_doc(workspace: Path):
    return lambda path: resolve_doc(path, workspace)


def invalid(program: str, kit: ResolvedKit) -> Failure:
    errors = validate(program, kit.names).errors
    assert errors, "the program was meant to be invalid"
    return classify_validation(program, errors, kit)


def ran(program: str, kit: ResolvedKit) -> Failure | None:
    return classify_runtime(program, run_program(program, kit, mode="inprocess"), kit)


# -- validation -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("program", "mode", "tool"),
    [
        ('import os\nnames = os.listdir("src")\nlen(names)', STDLIB_LEAK, "list_dir"),
        ('text = open("README.md").read()\ntext.count("TODO")', STDLIB_LEAK, "read_file"),
        ('open("out.txt", "w").write("done")', STDLIB_LEAK, "write_file"),
        ('f = open("out.txt")\nf.write("done")', STDLIB_LEAK, "write_file"),
        ('import glob\nglob.glob("**/*.py")', STDLIB_LEAK, "find_files"),
        ('Path("README.md").read_text()', STDLIB_LEAK, "read_file"),
        ('from pathlib import Path\nlist(Path("src").rglob("*.py"))', STDLIB_LEAK, "find_files"),
        ('re.findall("TODO", read_file("README.md"))', STDLIB_LEAK, "grep"),
        ('os = __import__("os")\nos.listdir(".")', STDLIB_LEAK, "list_dir"),
        ('subprocess.run(["ls"])', STDLIB_LEAK, None),  # the filesystem kit has no run_command
        ('def main():\n    text = read_file("README.md")\n    return len(text)\n\nmain()', IMPLEMENT_NOT_ORCHESTRATE, "read_file"),
        ('n = 0\nwhile n < 3:\n    n += 1\nn', IMPLEMENT_NOT_ORCHESTRATE, None),
        ('try:\n    x = read_file("a")\nexcept Exception:\n    x = ""\nx', IMPLEMENT_NOT_ORCHESTRATE, "read_file"),
        ('class Counter:\n    pass\nCounter', IMPLEMENT_NOT_ORCHESTRATE, None),
        ('text = readfile("README.md")\nlen(text)', UNKNOWN_TOOL, "read_file"),
        ('len(list_directory("src"))', UNKNOWN_TOOL, "list_dir"),
        ("x = findfiles", UNKNOWN_TOOL, "find_files"),
        ('Here is the program:\ntext = read_file("README.md")\nlen(text)', SYNTAX_ARTIFACT, None),
        ("", SYNTAX_ARTIFACT, None),
        ("len(files)", INVALID, None),  # a forgotten variable, not a misspelt find_files
        ('x = eval("1")', INVALID, None),
        ('files = find_files("*.py")\nlen(files', TRUNCATED, None),
        ('for f in find_files("*.py"):', TRUNCATED, None),
        ('>>> x = 1\n>>> x', JUPYTER_CONFUSION, None),
        ('!ls\nx = 1', JUPYTER_CONFUSION, None),
        ('x = 1\ndisplay(x)', JUPYTER_CONFUSION, None),
        ('f = lambda p: read_file(p)\nf = 1', IMPLEMENT_NOT_ORCHESTRATE, "read_file"),
        ('map(lambda p: p, find_files("*"))', IMPLEMENT_NOT_ORCHESTRATE, "find_files"),
        ('def f():\n    global x\nx = 1', IMPLEMENT_NOT_ORCHESTRATE, None),
        ("return 1", IMPLEMENT_NOT_ORCHESTRATE, None),
        ('import numpy\nnumpy.zeros(3)', STDLIB_LEAK, None),
        ('"{}".format(1)', INVALID, None),
    ],
)
def test_validation_modes(kit, program, mode, tool):
    """Real diagnostics of typical model mistakes map to their mode and to the tool to use."""
    failure = invalid(program, kit)
    assert (failure.mode, failure.tool) == (mode, tool)


def test_validation_message_lists_the_diagnostics(kit):
    """The message is the diagnostics as str(d) lines, in the validator's order."""
    program = 'import os\nos.listdir("src")'
    errors = validate(program, kit.names).errors
    assert classify_validation(program, errors, kit).message == "\n".join(str(d) for d in errors)


def test_stdlib_outranks_implementing(kit):
    """def main() reaching for os: the standard library is the mistake reported, with the tool it needs."""
    failure = invalid('import os\ndef main():\n    return os.listdir("src")\nmain()', kit)
    assert (failure.mode, failure.tool) == (STDLIB_LEAK, "list_dir")


def test_very_long_program_is_implementing(kit):
    """A program of many lines with an ordinary error counts as implementing, not orchestrating."""
    program = "\n".join(f"x{i} = {i}" for i in range(80)) + "\nlen(files)"
    assert invalid(program, kit).mode == IMPLEMENT_NOT_ORCHESTRATE


def test_aliased_kit_names_the_alias(toolbox):
    """In a kit that renames read_file to cat, open() points at cat."""
    kit = resolve_kit({"cat": "read_file"}, toolbox)
    assert invalid('open("README.md").read()', kit).tool == "cat"
    assert invalid('kat("README.md")', kit).tool == "cat"


def test_stdlib_tool_picked_from_the_kit(toolbox):
    """subprocess points at run_command when the kit has it."""
    kit = resolve_kit(["read_file", "run_command"], toolbox)
    assert invalid('import subprocess\nsubprocess.run(["ls"])', kit).tool == "run_command"


# -- runtime ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/srv/project/src/app.py", "./src/missing.py", "~/src/missing.py", "../outside/canary.txt", "workspace/src/missing.py", "ws/src/app.py"],
)
def test_path_prefix(kit, path):
    """A PathError on an absolute, ./, ~, .. or workspace-prefixed path is path_prefix, naming the tool."""
    failure = ran(f"read_file({path!r})", kit)
    assert (failure.mode, failure.tool) == (PATH_PREFIX, "read_file")
    assert "PathError in read_file" in failure.message


def test_missing_relative_file_is_a_runtime_error(kit):
    """A missing file at a plain relative path is an ordinary runtime error, still naming the tool."""
    failure = ran('read_file("src/missing.py")', kit)
    assert (failure.mode, failure.tool) == (RUNTIME_ERROR, "read_file")
    assert failure.message == "line 1: PathError in read_file: no such file: src/missing.py"


@pytest.mark.parametrize(
    ("program", "tool"),
    [
        ('list_dir(".")[0]["size_bytes"]', "list_dir"),
        ('entries = list_dir("src")\nfiles = find_files("**/*.py")\nentries[0]["path"]', "find_files"),
        ('files = find_files("**/*.py")\nfiles[0]["name"]', "find_files"),
        ('list_dir(".")[0].size', "list_dir"),
    ],
)
def test_key_hallucination(kit, program, tool):
    """Subscripting a tool's result with a key it lacks is key_hallucination; the tool is the last one called."""
    failure = ran(program, kit)
    assert (failure.mode, failure.tool) == (KEY_HALLUCINATION, tool)


def test_key_error_without_tools_is_a_runtime_error(kit):
    """A KeyError on the program's own dict is not blamed on a tool."""
    failure = ran('d = {"a": 1}\nd["b"]', kit)
    assert (failure.mode, failure.tool) == (RUNTIME_ERROR, None)
    assert failure.message == "line 2: KeyError: 'b'"


@pytest.mark.parametrize("program", ['files = find_files("**/*.py")', 'print()\nx = len(read_file("README.md"))'])
def test_wrong_output(kit, program):
    """A run with no result, no printed text and no file changes is wrong_output."""
    failure = ran(program, kit)
    assert failure.mode == WRONG_OUTPUT
    assert failure.tool in ("find_files", "read_file")


@pytest.mark.parametrize(
    "program", ['len(find_files("**/*.py"))', 'print(len(find_files("**/*.py")))', 'write_file("notes.txt", "hi")', "0"]
)
def test_useful_runs_are_not_failures(kit, program):
    """A result (even 0), printed text or a written file is an outcome worth keeping."""
    assert ran(program, kit) is None


def test_limit(kit):
    """A program that exceeds a limit is limit."""
    result = run_program("x = 0\nfor i in range(10 ** 9):\n    x += i\nx", kit, mode="inprocess", limits={"timeout_s": 0.5})
    assert classify_runtime("", result, kit).mode == LIMIT


def test_invalid_run_is_classified_like_validation(kit):
    """run_program refuses an invalid program; classify_runtime reports it like classify_validation."""
    failure = ran('import os\nos.listdir("src")', kit)
    assert (failure.mode, failure.tool) == (STDLIB_LEAK, "list_dir")


# -- feedback ---------------------------------------------------------------------


def test_feedback_quotes_the_mode_sections_of_the_tool_doc(kit, read_doc):
    """stdlib_leak: message, hint, the program in a fence, then Signature, Parameters and Notes of read_file."""
    program = 'text = open("README.md").read()\nlen(text)'
    failure = invalid(program, kit)
    text = feedback(failure, program, kit, read_doc)
    assert text.startswith("Your program did not work:\n" + failure.message)
    assert HINTS[STDLIB_LEAK] in text
    assert f"```python\n{program}\n```" in text
    doc = text.split(DOC_HEADING + "\n", 1)[1]
    assert doc.startswith(READ_FILE_SIGNATURE + "\nParameters:\n- `path` (str)")
    assert "\nNotes:\n- A missing file" in doc
    assert "Examples:" not in doc and "Returns:" not in doc
    assert text.endswith(REPLY)


@pytest.mark.parametrize(
    ("program", "present", "absent"),
    [
        ('list_dir(".")[0]["size_bytes"]', ["Signature:", "Returns:", "Notes:"], ["Examples:", "Parameters:"]),
        ('read_file("./README.md.bak")', ["Notes:", "Parameters:"], ["Signature:", "Returns:"]),
        ('files = find_files("*.md")', ["Signature:", "Returns:", "Examples:"], ["Notes:", "Parameters:"]),
    ],
)
def test_feedback_sections_follow_the_mode(kit, read_doc, program, present, absent):
    """key_hallucination, path_prefix and wrong_output each quote their own sections."""
    failure = ran(program, kit)
    doc = feedback(failure, program, kit, read_doc).split(DOC_HEADING, 1)[1]
    assert all(f"\n{title}" in doc for title in present)
    assert not any(f"\n{title}" in doc for title in absent)


def test_feedback_for_a_misspelt_tool(kit, read_doc):
    """unknown_tool quotes the right tool's signature and examples and lists the kit's tools."""
    program = 'readfile("README.md")'
    text = feedback(invalid(program, kit), program, kit, read_doc)
    assert READ_FILE_SIGNATURE in text
    assert "Examples:\n```python\ntext = read_file(" in text
    assert "The kit's tools: edit_file, find_files, grep, list_dir, read_file, write_file" in text


@pytest.mark.parametrize("read_doc", [None, lambda path: (_ for _ in ()).throw(OSError("gone"))])
def test_feedback_falls_back_to_the_tool_spec(kit, read_doc):
    """Without a readable doc the signature and description come from the ToolSpec."""
    program = 'open("README.md").read()'
    text = feedback(invalid(program, kit), program, kit, read_doc)
    spec = kit.tools["read_file"]
    assert f"{DOC_HEADING}\nSignature: {spec.signature('read_file')}\nDescription: {spec.description}" in text


def test_feedback_without_a_tool_has_no_doc_section(kit, read_doc):
    """A failure naming no tool quotes no documentation."""
    text = feedback(Failure(SYNTAX_ARTIFACT, "line 1: syntax error"), "Here it is", kit, read_doc)
    assert DOC_HEADING not in text
    assert HINTS[SYNTAX_ARTIFACT] in text


def test_feedback_names_an_alias(toolbox, read_doc):
    """In an aliased kit the doc is quoted as is, with a line saying what the tool is called here."""
    kit = resolve_kit({"cat": "read_file"}, toolbox)
    text = feedback(invalid('open("a").read()', kit), 'open("a").read()', kit, read_doc)
    assert READ_FILE_SIGNATURE in text
    assert "In this kit the tool is called cat; the documentation names it read_file." in text


def test_feedback_stays_compact(kit):
    """Long sections, messages and programs are capped; a program with backticks gets a longer fence."""
    huge_doc = "## Signature\n\n`read_file(path)`\n\n## Notes\n\n" + "x" * 5000 + "\n"
    program = "s = '```'\n" + "y = 1\n" * 2000
    failure = Failure(STDLIB_LEAK, "m" * 5000, "read_file")
    text = feedback(failure, program, kit, lambda path: huge_doc)
    notes = next(line for line in text.splitlines() if line.startswith("Notes:"))
    assert len(notes) <= len("Notes: ") + 600 + 4
    assert len(text) < 7000
    assert "````python\ns = '```'" in text


def test_every_mode_has_a_hint_and_modes_are_unique():
    """HINTS covers MODES exactly and SECTIONS only names modes; every hint is one instruction."""
    assert len(set(MODES)) == len(MODES) == 12
    assert MODES[:3] == (JUPYTER_CONFUSION, SYNTAX_ARTIFACT, TRUNCATED)
    assert set(HINTS) == set(MODES)
    assert set(SECTIONS) <= set(MODES)
    assert HINTS[PATH_PREFIX] == "Use paths relative to the workspace, such as 'src/app.py'."
    assert HINTS[WRONG_OUTPUT] == "End the program with an expression whose value is the answer."


def test_deep_attribute_chain_does_not_break_classification(kit):
    """A program the validator finds too deep is classified quickly, without recursing through it."""
    import time

    program = "x = os" + ".b" * 2000
    started = time.perf_counter()
    assert invalid(program, kit).mode == INVALID
    assert time.perf_counter() - started < 5


# -- constructs, answers and the checks on successful runs ------------------------------


@pytest.mark.parametrize(
    ("program", "hint"),
    [
        ("n = 0\nwhile n < 3:\n    n += 1\nn", "Loop with for instead of while: for i in range(start, stop) to count, for item in items over data."),
        ("f = lambda x: x\nf = 1", "Write the lambda's expression where it is used"),
        ('try:\n    x = 1\nexcept Exception:\n    x = 2\nx', "Drop try/except"),
        ("def f():\n    return 1\nf = 2", "define no functions"),
        ('"{}".format(1)', "f-string"),
        ('import requests\nrequests.get("u")', "No module can be imported, requests included"),
    ],
)
def test_constructs_get_their_own_instruction(kit, program, hint):
    """A known construct replaces the mode's general hint with what to write instead."""
    failure = invalid(program, kit)
    assert hint in failure.hint
    assert hint in feedback(failure, program, kit)


def test_a_general_hint_stays_for_unknown_constructs(kit):
    """A diagnostic without a construct of its own keeps the mode's general instruction."""
    failure = invalid('x = eval("1")', kit)
    assert failure.hint is None
    assert HINTS[INVALID] in feedback(failure, 'x = eval("1")', kit)


def test_a_312_fstring_gets_the_quote_hint(kit):
    """A program given to the validator unmended with a Python 3.12 f-string is told how to quote inside one."""
    import sys

    program = 'd = {"a": 1}\nf"{d["a"]}"'
    errors = validate(program, kit.names).errors
    if sys.version_info >= (3, 12):
        assert not errors
        return
    failure = classify_validation(program, errors, kit)
    assert failure.mode == SYNTAX_ARTIFACT
    assert "quote with the other quote" in failure.hint


@pytest.mark.parametrize(
    ("program", "mode", "tool"),
    [
        ('len(find_files("*.py"))', PATH_PREFIX, "find_files"),
        ('grep("TODO", glob="*.py")', PATH_PREFIX, "grep"),
        ('read_file("app.py")', PATH_PREFIX, "read_file"),
        ('list_dir("pkg")', PATH_PREFIX, "list_dir"),
        ('files = find_files("*.py") or find_files("**/*.py")\nfiles', None, None),  # tried again and found them
        ('grep("NOPE", glob="src/*.py")', None, None),  # the glob matched files; nothing in them is no sign
        ('[h.get("file") for h in grep("TODO")]', KEY_HALLUCINATION, "grep"),
        ('hits = grep("TODO")\nfirst = hits[0]\nfirst.get("lineno", 0)', KEY_HALLUCINATION, "grep"),
        ('[e["name"] for e in list_dir("src") if "size" in e]', None, None),
        ('sorted(list_dir("src"), key=lambda e: e["size"])[0]["name"]', None, None),
    ],
)
def test_successful_and_failed_runs_are_checked(kit, read_doc, program, mode, tool):
    """A glob or path that missed files deeper in the workspace, or a key the doc does not list, is named."""
    failure = classify_runtime(program, run_program(program, kit, mode="inprocess"), kit, read_doc=read_doc)
    assert (failure.mode, failure.tool) == (mode, tool) if mode else failure is None


@pytest.mark.parametrize(
    ("intent", "program", "mode"),
    [
        ("which files contain todo", '[f for f in find_files("**/*.py") if "todo" in read_file(f)]', WRONG_OUTPUT),
        ("list the python files", '[f for f in find_files("**/*.py") if f.endswith(".js")]', WRONG_OUTPUT),
        ("which files contain todo", '[h["path"] for h in grep("nothing-here")]', None),  # the tools found nothing either
        ("count the lines", '[f for f in find_files("**/*.py") if "todo" in read_file(f)]', None),  # not a listing request
        ("which files contain todo", '[f for f in find_files("**/*.py") if "TODO" in read_file(f)]', None),
    ],
)
def test_an_empty_listing_is_wrong_output_only_when_the_tools_had_data(kit, intent, program, mode):
    """An empty answer to 'which files' is suspect when the tools returned something to choose from."""
    failure = classify_runtime(program, run_program(program, kit, mode="inprocess"), kit, intent=intent)
    assert (failure.mode if failure else None) == mode


def test_feedback_quotes_the_program_guide(kit, read_doc):
    """A failure whose mode has guide sections quotes them under their own heading, after the tool doc."""
    program = "n = 0\nwhile n < 3:\n    n += 1\nn"
    text = feedback(invalid(program, kit), program, kit, read_doc)
    guide = text.split(GUIDE_HEADING + "\n", 1)[1]
    assert guide.startswith("Loops:\nThere is no `while`")
    assert DOC_HEADING not in guide


def test_feedback_without_the_guide_still_has_the_hint(kit):
    """No read_doc (or an unreadable guide) leaves out the guide's section, never the instruction."""
    program = "n = 0\nwhile n < 3:\n    n += 1\nn"
    text = feedback(invalid(program, kit), program, kit, None)
    assert GUIDE_HEADING not in text and "for i in range(start, stop)" in text


def test_classify_answer_refuses_cut_off_and_session_answers(kit):
    """A truncated answer or a transcript line no program can hold is refused even when what is left validates."""
    from lackpy.infer.mend.answer import mend

    cut = mend('files = find_files("*.py")\nlen(files)\nThis counts the Python files in', kit.names)
    assert validate(cut.program, kit.names).valid
    assert classify_answer(cut, [], kit).mode == TRUNCATED
    session = mend('!ls\nlen(find_files("*.py"))', kit.names)
    failure = classify_answer(session, [], kit)
    assert failure.mode == JUPYTER_CONFUSION and "'!ls'" in failure.message
    assert classify_answer(mend('len(find_files("*.py"))', kit.names), [], kit) is None


@pytest.mark.parametrize(
    ("answer", "cut", "mode"),
    [
        ('hits = grep("TODO")\nlen(hits)', True, TRUNCATED),  # the server's word: cut however finished it looks
        ('hits = grep("TODO")\nlen(hits)', False, None),
        ('import os\nos.listdir("src")', True, TRUNCATED),  # the rest would judge a fragment
        ('hits = grep("TODO")\nif len(hits) > 0\n    hits\nhits', True, SYNTAX_ARTIFACT),  # an artifact before the cut
        ('x = 1\nfor f in files\n    f\nThis loops over the', False, SYNTAX_ARTIFACT),
        ('!ls\nlen(grep("TODO"))', True, JUPYTER_CONFUSION),
        ('>>> hits = grep("TODO")\n>>> for h in hits:\n...     print(h["pa', False, JUPYTER_CONFUSION),  # a cut session
        ('>>> import os\n>>> os.getcwd()', False, JUPYTER_CONFUSION),  # a session whose program still fails
        ('>>> hits = grep("TODO")\n>>> len(hits)\n3', False, None),  # a session mending made a program is no failure
    ],
)
def test_classify_answer_names_the_first_cause(kit, answer, cut, mode):
    """A session, then text no ending completes, then a cut with clean text before it, then the validator's modes."""
    from lackpy.infer.mend.answer import mend

    mended = mend(answer, kit.names)
    failure = classify_answer(mended, validate(mended.program, kit.names).errors, kit, cut=cut)
    assert (failure.mode if failure else None) == mode


def test_a_called_name_that_is_no_tool_is_an_unknown_tool(kit):
    """search("TODO") is meant as a tool, though no tool's name is close; the kit's list is the fix."""
    failure = invalid('hits = search("TODO")\nlen(hits)', kit)
    assert (failure.mode, failure.tool) == (UNKNOWN_TOOL, None)


@pytest.mark.parametrize(
    ("intent", "program", "mode", "tool"),
    [
        ("", 'files = find_files("*.py")\nread_file(files[0])', PATH_PREFIX, "find_files"),  # IndexError on an empty glob
        ("", '[h.get("file").lower() for h in grep("TODO")]', KEY_HALLUCINATION, "grep"),  # AttributeError on None
        ("which file has a todo", '[f for f in find_files("**/*.py") if "todo" in read_file(f)][0]', WRONG_OUTPUT, "find_files"),
        ("", 'counts = [c for c in [1, 2] if c > 5]\nmax(counts)', RUNTIME_ERROR, None),  # no tool returned data
        ("", 'lines = read_file("README.md").splitlines()\nlines[10]', RUNTIME_ERROR, None),  # no filter
    ],
)
def test_a_failed_run_is_named_by_its_cause(kit, read_doc, intent, program, mode, tool):
    """An exception on an empty glob's result, a wrong key's None or a filter's empty list names the cause."""
    result = run_program(program, kit, mode="inprocess")
    assert not result.success
    failure = classify_runtime(program, result, kit, intent=intent, read_doc=read_doc)
    assert (failure.mode, failure.tool) == (mode, tool)
    assert failure.message.startswith(result.error)
