"""A result never crashes the host: a program that fills the memory ends as a limit, and sizing a value copies nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

from lackpy.run.execute import nesting, value_size

#: The program of the report: it appends to the list it walks until the memory runs out.
RUNAWAY = "x = [0]\nfor v in x:\n    x.append(v + 1)\nlen(x)"

#: Runs RUNAWAY in-process under an address-space limit a little above what the process already uses,
#: then one more program, and prints both outcomes as JSON.
HOST = textwrap.dedent(
    """
    import json, resource, sys
    from lackpy import Toolbox, resolve_kit, run_program

    kit = resolve_kit("none", Toolbox(sys.argv[1]))
    run_program("1", kit, mode="inprocess")  # everything a run imports is loaded before the limit
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    limit = used + int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    first = run_program(sys.argv[3], kit, mode="inprocess", limits={"timeout_s": 30})
    again = run_program("sum(range(10))", kit, mode="inprocess")
    print(json.dumps({"first": first.to_dict(), "summary": str(first.variables.get("x")), "again": again.output}))
    """
)


def test_a_program_that_fills_the_memory_ends_as_a_limit_in_process(tmp_path: Path):
    """Under RLIMIT_AS (in a child process), the runaway list ends as a memory limit naming its line, and the host runs on."""
    room = 256 * 1024 * 1024
    done = subprocess.run([sys.executable, "-c", HOST, str(tmp_path), str(room), RUNAWAY], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    report = json.loads(done.stdout)
    first = report["first"]
    assert (first["success"], first["error_kind"], first["limit"], first["error_line"]) == (False, "limit", "memory", 3)
    assert first["error"].startswith("line 3: limit exceeded: memory: ran out of memory")
    assert report["summary"].startswith("[0, 1, 2, 3, 4, 5, 6, 7, ...] (len ")
    assert report["again"] == 45


def test_sizing_a_huge_value_stops_at_the_budget_without_copying_it():
    """value_size and nesting walk lazily: a list of ten million items is sized past a small budget with almost no memory."""
    huge = list(range(10_000_000))
    nested = [huge, {"k": huge}, (huge,)]
    wide = "é" * 5_000_000
    tracemalloc.start()
    try:
        assert value_size(huge, 1024) > 1024
        assert value_size(nested, 1024) > 1024
        assert nesting([[[huge]]], 200) == 4
        assert value_size(wide, 1024) > 1024  # its UTF-8 is never made
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024  # a copy of the list's pointers alone would be 80 MB


def test_sizing_counts_as_before():
    """The lazy walk counts what the eager one did: text in UTF-8, containers by their items, each level's brackets."""
    assert value_size("héllo", 100) == 6 and value_size(b"abc", 100) == 3
    assert value_size({"ab": [1, "cd"]}, 100) == (2 + 1) + 2 + (2 + 2) + 1 + 2
    assert value_size([[], (), set(), {}], 100) == 2 + 4 + 4 * 2
    assert value_size(2**100, 100) == 101 // 3 + 1 and value_size(1.5, 100) == 16
    assert nesting(1, 5) == 0 and nesting([1, [2, {"a": (3,)}]], 5) == 4
    deep: list = []
    for _ in range(500):
        deep = [deep]
    assert nesting(deep, 200) == 201  # stops one past the most it counts
    looped: list = [1]
    looped.append(looped)
    assert value_size(looped, 1000) > 1000 and nesting(looped, 50) == 51


def test_a_memory_error_in_lackpy_after_the_program_ends_as_a_limit_result(workspace: Path):
    """Out of memory while the run finishes (here: answering the commit question), the run fails as a limit; nothing is written."""
    from lackpy import Toolbox, resolve_kit, run_program
    from lackpy.plugins import populate
    from lackpy.approvals.gatekeeper import Gatekeeper
    from lackpy.approvals.policy import ApprovalPolicy

    def out_of_memory(request):
        raise MemoryError

    box = Toolbox(str(workspace))
    populate(box)
    kit = resolve_kit("filesystem", box)
    result = run_program('write_file("new.txt", "x")\n"done"', kit, mode="inprocess", gatekeeper=Gatekeeper(ApprovalPolicy(), out_of_memory))
    assert (result.success, result.error_kind, result.limit) == (False, "limit", "memory")
    assert result.error.startswith("limit exceeded: memory: lackpy ran out of memory while finishing the writes")
    assert [entry.tool for entry in result.trace] == ["write_file"] and result.mode == "inprocess"
    assert not (workspace / "new.txt").exists()
