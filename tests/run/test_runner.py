"""The guarded runner: results, errors, parameters, print capture and caching."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from lackpy import ArgSpec, ToolSpec, Toolbox, resolve_kit, run_program
from lackpy.plugins import populate
from lackpy.run import compiler


@pytest.fixture
def toolbox(workspace: Path, tmp_path: Path, monkeypatch) -> Toolbox:
    """The built-ins plus python-provider tools from a module written for the test."""
    module = tmp_path / "mods" / "runner_tools.py"
    module.parent.mkdir()
    module.write_text(
        textwrap.dedent(
            """
            import os

            def boom():
                raise MemoryError()

            def fail(message):
                raise ValueError(message)

            def give_function():
                return len

            def give_module():
                return os

            def give_tuple():
                return (1, 2)

            def noop():
                return None

            def listing():
                return ["a", "b"]
            """
        )
    )
    monkeypatch.syspath_prepend(str(module.parent))
    box = Toolbox(str(workspace))
    populate(box)
    for name in ("boom", "fail", "give_function", "give_module", "give_tuple", "noop", "listing"):
        args = [ArgSpec("message", "str")] if name == "fail" else []
        box.register_tool(ToolSpec(name, "python", {"module": "runner_tools", "function": name}, args=args))
    return box


@pytest.fixture
def kit(toolbox: Toolbox):
    return resolve_kit(
        ["read_file", "find_files", "write_file", "edit_file", "boom", "fail", "give_function", "give_module", "give_tuple", "noop", "listing"],
        toolbox,
    )


def run(program: str, kit, **params):
    return run_program(textwrap.dedent(program).strip() + "\n", kit, params)


def test_last_expression_is_the_output(kit):
    """The value of the final expression statement is the result."""
    result = run("x = 20\nx + 22", kit)
    assert result.success and result.output == 42
    assert result.variables == {"x": 20}
    assert result.error is None and result.error_kind is None


def test_program_ending_in_a_statement_has_no_output(kit):
    """A program whose last statement is not an expression returns None."""
    result = run("total = 0\nfor i in range(3):\n    total += i", kit)
    assert result.success and result.output is None
    assert result.variables["total"] == 3


def test_count_todos_over_the_workspace(kit):
    """Tools compose: find, read and count across files."""
    result = run(
        """
        counts = {}
        for f in find_files("**/*.py"):
            n = read_file(f).count("TODO")
            if n:
                counts[f] = n
        counts
        """,
        kit,
    )
    assert result.success, result.error
    assert result.output == {"src/app.py": 2, "src/pkg/util.py": 1}
    assert result.files_read == ["src/app.py", "src/pkg/util.py"]
    assert result.files_modified == []


def test_trace_records_every_call_with_named_arguments(kit):
    """Each tool call is traced with its step, named args, result summary and timing."""
    result = run('files = find_files("src/*.py")\ntext = read_file(path=files[0])\nlen(text)', kit)
    assert [e.tool for e in result.trace] == ["find_files", "read_file"]
    first, second = result.trace
    assert first.step == 1 and first.args == {"pattern": "'src/*.py'"} and first.result == "['src/app.py']"
    assert second.step == 2 and second.args == {"path": "'src/app.py'"} and second.success
    assert "# TODO: one" in second.result and type(second.result) is str
    assert all(e.duration_ms >= 0 for e in result.trace)


def test_trace_summary_is_bounded_and_taken_at_call_time(kit, workspace):
    """Long results are cut with their length; later mutation does not rewrite the trace."""
    (workspace / "big.txt").write_text("x" * 10_000)
    result = run('big = read_file("big.txt")\nitems = listing()\nitems.append("c")\nlen(big)', kit)
    assert result.output == 10_000
    read, listing = result.trace
    assert len(read.result) < 300 and read.result.endswith("(len 10000)")
    assert listing.result == "['a', 'b']"


@pytest.mark.slow
def test_trace_of_ten_thousand_calls(kit):
    """A no-op tool called 10,000 times yields 10,000 numbered trace entries."""
    result = run("for i in range(10000):\n    noop()\n'done'", kit)
    assert result.success and len(result.trace) == 10_000
    assert result.trace[-1].step == 10_000 and result.trace[-1].tool == "noop"


def test_tool_error_names_line_tool_and_message(kit):
    """A tool failure stops the program with the line, type, tool and message."""
    result = run('x = 1\ntext = read_file("missing.txt")\ntext', kit)
    assert not result.success and result.error_kind == "tool"
    assert result.error == "line 2: PathError in read_file: no such file: missing.txt"
    assert result.error_line == 2
    assert result.variables == {"x": 1}
    assert result.trace[-1].success is False and result.trace[-1].error == "PathError: no such file: missing.txt"


def test_exception_from_a_python_tool_is_a_tool_error(kit):
    """Exceptions raised by tools are reported as tool failures, with their type."""
    result = run('fail("bad input")', kit)
    assert result.error == "line 1: ValueError in fail: bad input"
    assert result.error_kind == "tool"


def test_memory_error_has_a_message(kit):
    """An exception without a message still gets a non-empty error."""
    result = run("y = 2\nboom()", kit)
    assert result.error == "line 2: MemoryError in boom: out of memory"


def test_runtime_error_in_the_program(kit):
    """Python errors in the program name the line and the exception."""
    result = run("items = [1, 2]\nitems[5]", kit)
    assert result.error == "line 2: IndexError: list index out of range"
    assert result.error_kind == "runtime"


def test_error_inside_a_lambda_names_the_program_line(kit):
    """Errors raised inside a key= lambda point at the line of the lambda."""
    result = run('rows = [{"a": 1}, {"b": 2}]\nsorted(rows, key=lambda r: r["a"])', kit)
    assert result.error == "line 2: KeyError: 'a'"


def test_invalid_program_is_not_run(kit, workspace):
    """A program that fails validation is refused with its diagnostics and touches nothing."""
    result = run('write_file("new.txt", "x")\nimport os', kit)
    assert not result.success and result.error_kind == "validation"
    assert result.diagnostics[0].code == "forbidden-node" and result.error_line == 2
    assert result.error.startswith("invalid program: line 2")
    assert result.trace == [] and not (workspace / "new.txt").exists()


def test_params_are_variables(kit):
    """Parameters are injected as variables and may be rebound."""
    result = run_program("n = n + 1\nf'{name}: {n}'", kit, {"n": 41, "name": "answer"})
    assert result.output == "answer: 42"


@pytest.mark.parametrize("name", ["_x", "read_file", "len", "open", "not-valid", "1x"])
def test_bad_param_names_are_refused(kit, name):
    """Parameters cannot shadow tools or builtins or be private."""
    result = run_program("1", kit, {name: 1})
    assert not result.success and result.error_kind == "param"
    if name in ("read_file", "len"):  # names a program could bind, were they free
        assert result.error == f"parameter '{name}' would hide a tool or builtin of that name; rename it"
    else:
        assert result.error.startswith(f"parameter name '{name}' is not a valid variable name")
    assert result.trace == [] and result.diagnostics == []


def test_print_is_captured(kit, capsys):
    """print writes into the result's printed text, not to the process's stdout."""
    result = run('print("a", 1, sep="-")\nprint("b", end="")\n3', kit)
    assert result.printed == "a-1\nb" and result.output == 3
    assert capsys.readouterr().out == ""


def test_print_refuses_file_argument(kit):
    """print cannot be pointed at another stream."""
    result = run('print("x", file=None)', kit)
    assert not result.success and "file" in result.error


def test_item_augmented_assignment(kit):
    """d[k] += v works on dicts and lists and evaluates the key once."""
    result = run('d = {"a": 1}\nd["a"] += 2\nxs = [1, 2]\nxs[1] *= 5\n[d, xs]', kit)
    assert result.output == [{"a": 3}, [1, 10]]


def test_unpacking_and_comprehensions(kit):
    """Tuple unpacking in assignments, loops and comprehensions goes through the guards."""
    result = run(
        """
        first, *rest = [1, 2, 3]
        pairs = {k: v for k, v in [("a", 1), ("b", 2)]}
        total = 0
        for k, v in pairs.items():
            total += v
        [first, rest, total, sorted(pairs, key=lambda k: -pairs[k])]
        """,
        kit,
    )
    assert result.output == [1, [2, 3], 3, ["b", "a"]]


def test_edit_and_read_back(kit, workspace):
    """Writes are visible to later reads and listed as modified."""
    result = run('edit_file("README.md", "Status: draft", "Status: final")\nread_file("README.md").count("final")', kit)
    assert result.output == 1
    assert result.files_modified == ["README.md"] and result.files_read == ["README.md"]
    assert "Status: final" in (workspace / "README.md").read_text()


def test_runs_have_separate_contexts(kit):
    """Each run records only its own files."""
    first = run('read_file("README.md")', kit)
    second = run('read_file("src/app.py")', kit)
    assert first.files_read == ["README.md"] and second.files_read == ["src/app.py"]


def test_grade_and_duration_are_reported(kit):
    """The result carries the kit's grade and a duration."""
    result = run("1 + 1", kit)
    assert tuple(result.grade) == (3, 3) and result.duration_ms > 0


def test_compiled_programs_are_cached(kit, monkeypatch):
    """The same text and kit names are validated and compiled once."""
    compiler.cache_clear()
    calls = []
    original = compiler.analyze
    monkeypatch.setattr(compiler, "analyze", lambda *a, **k: calls.append(1) or original(*a, **k))
    for _ in range(3):
        assert run_program("1 + 1", kit).output == 2
    assert len(calls) == 1
    run_program("1 + 2", kit)
    assert len(calls) == 2


def test_cache_key_includes_kit_names(toolbox):
    """A program valid for one kit is still refused by a kit without the tool."""
    with_read = resolve_kit(["read_file"], toolbox)
    without = resolve_kit(["find_files"], toolbox)
    assert run_program('read_file("README.md")', with_read).success
    refused = run_program('read_file("README.md")', without)
    assert refused.error_kind == "validation" and refused.diagnostics[0].code == "unknown-function"


def test_to_dict_is_json_ready(kit):
    """ExecutionResult.to_dict holds only JSON types."""
    import json

    result = run('{"s": {3, 1}, "t": (1, 2), 4: read_file("README.md")[:6]}', kit)
    data = result.to_dict()
    json.dumps(data)
    assert data["output"] == {"s": [1, 3], "t": [1, 2], "4": "# Demo"}
    assert set(data) >= {"success", "output", "error", "trace", "grade", "printed", "duration_ms"}
    assert data["grade"] == {"w": 3, "d": 3}


def test_recursion_error_is_a_failed_result(kit):
    """Deep data given to str() stops the program at the recursion limit, on its line."""
    result = run("x = []\nfor i in range(100000):\n    x = [x]\nstr(x)", kit)
    assert not result.success and result.error_kind == "limit" and result.limit == "recursion"
    assert result.error.startswith("line 4: limit exceeded: recursion")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_hostile_text_never_raises(kit):
    """Arbitrary text given to run_program comes back as a failed result."""
    for text in ["", "\x00", "(" * 5000, "def f(:", b"\xff\xfe", None, "1+" * 100000 + "1"]:
        result = run_program(text, kit)
        assert not result.success and result.error_kind == "validation"


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_output_and_printed_text_are_cut_to_the_budget(kit, mode):
    """Results and printed text over budget_bytes keep both ends with a notice, flagged in the result."""
    result = run_program('print("p" * 5000)\n"a" * 3000 + "z" * 3000', kit, limits={"budget_bytes": 1000}, mode=mode)
    assert result.success and result.output_truncated and result.printed_truncated
    assert len(result.output.encode()) <= 1000 and result.output.startswith("aaa") and result.output.endswith("zzz")
    assert "bytes cut" in result.output and len(result.printed.encode()) <= 1000
    data = run_program('[{"k": "v" * 100} for i in range(100)]', kit, limits={"budget_bytes": 500}, mode=mode)
    assert data.output_truncated and data.output.startswith('[{"k": "vvv') and len(data.output.encode()) <= 500
    small = run_program('print("hi")\n[1, 2]', kit, mode=mode)
    assert small.output == [1, 2] and not small.output_truncated and not small.printed_truncated


def test_checks_refuse_a_program_before_it_runs(kit, workspace):
    """run_program(checks=...) adds custom checks: a failing one makes a 'validation' failure and nothing runs."""

    def no_writes(tree):
        import ast

        return [
            f"write_file is not allowed (line {node.lineno})"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "write_file"
        ]

    program = 'read_file("README.md")\nwrite_file("new.txt", "x")'
    result = run_program(program, kit, checks=[no_writes])
    assert (result.success, result.error_kind) == (False, "validation")
    assert [(d.code, d.message, d.hint) for d in result.diagnostics] == [
        ("custom-check", "write_file is not allowed (line 2)", "required by check no_writes")
    ]
    assert result.trace == [] and not (workspace / "new.txt").exists()
    assert run_program('read_file("README.md")[:6]', kit, checks=[no_writes]).output == "# Demo"
