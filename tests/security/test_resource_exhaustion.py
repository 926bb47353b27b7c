"""Resource exhaustion: CPU, memory, output, tool calls and recursion.

Each program must be stopped by the limit that names the resource (with the
line it was on where that is meaningful), and the host must be fine
afterwards: the next trivial run succeeds. Memory is a hard limit only in the
isolated worker; in-process it is enforced through the operation guards.
"""

from __future__ import annotations

import time

import pytest

from .support import MODES, README, assert_host_ok, assert_limit, run

MiB = 2**20

# -- snippets -----------------------------------------------------------------

CPU_NESTED_LOOPS = "n = 0\nfor i in range(10**7):\n    for j in range(10**7):\n        n = n + 1"
CPU_SORTED_LOOP = "xs = list(range(10**6))\nfor i in range(10**6):\n    ys = sorted(xs, key=lambda v: -v)"
CPU_NESTED_GENERATORS = "sum(i * j for i in range(10**7) for j in range(10**7))"

CONCAT_DOUBLING = 's = "a" * 10**6\nfor i in range(40):\n    s = s + s'
CONCAT_PAST_MAX_ITEMS = 's = "a" * 1000\ns = s + s\nlen(s)'
LIST_CONCAT_PAST_MAX_ITEMS = "xs = [0] * 1000\nxs = xs + xs\nlen(xs)"
AUGMENTED_CONCAT_PAST_MAX_ITEMS = 's = "a" * 1000\ns += s\nlen(s)'
REPEAT_LIST = "[0] * 10**9"
REPEAT_CHAINED = '"ab" * 10**6 * 10**6'
REPEAT_IN_PLACE = "xs = [0] * 10**6\nxs *= 10**6"
POWER_HUGE = "10 ** 10**8"
POWER_IN_PLACE = "n = 10\nn **= 10**8"
SHIFT_HUGE = "1 << 10**9"
RANGE_HUGE = "range(10**18)"
RANGE_OF_PRODUCT = "n = 10**9\nfor i in range(n * n):\n    pass"
DICT_GROWTH = "d = {}\nfor i in range(10**7):\n    d[i] = str(i) * 10"
LJUST_HUGE = 's = "x".ljust(10**9)'
PERCENT_WIDTH_HUGE = 's = "%*d" % (10**9, 1)'
FSTRING_WIDTH_HUGE = 'n = 10**9\ns = f"{1:>{n}}"'
JOIN_HUGE = 's = "-".join(["abc"] * 10**7)'

PRINT_FLOOD = 'for i in range(100):\n    print("x" * 10**5)'
RESULT_HUGE = '"x" * 10**5'
RESULT_HUGE_NESTED = '[["x" * 1000] * 100] * 100'

TOOL_CALL_FLOOD = 'for i in range(100):\n    read_file("README.md")'

DEEP_LIST_TO_STR = "t = []\nfor i in range(10**5):\n    t = [t]\ns = str(t)"
DEEP_LIST_COMPARE = "a = []\nb = []\nfor i in range(10**5):\n    a = [a]\n    b = [b]\na == b"
SELF_RECURSIVE_KEY = 'd = dict(key=lambda v: sorted([v], key=d["key"]))\nsorted([1], key=d["key"])'
DEEP_RESULT = "t = []\nfor i in range(10**5):\n    t = [t]\nt"
DEEP_TUPLE_DICT_KEY = "t = ()\nfor i in range(10**6):\n    t = (t,)\nd = {t: 1}"
WRITE_THEN_DEEP_TUPLE_KEY = 'write_file("planted.txt", "x")\nt = ()\nfor i in range(10**6):\n    t = (t,)\nd = {t: 1}'


def timed(program: str, kit, mode: str, **limits):
    start = time.monotonic()
    result = run(program, kit, mode, **limits)
    return result, time.monotonic() - start


# -- CPU ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, lines",
    [(CPU_NESTED_LOOPS, {3, 4}), (CPU_SORTED_LOOP, {3}), (CPU_NESTED_GENERATORS, {1})],
    ids=["nested-loops", "sorted-loop", "nested-generators"],
)
@pytest.mark.slow
def test_cpu_work_stops_at_the_timeout(kit, mode, program, lines):
    """CPU-bound work without while (nested loops, sorts, generators) stops with limit timeout on its line."""
    result, elapsed = timed(program, kit, mode, timeout_s=1)
    assert_limit(result, "timeout")
    assert result.error_line in lines, result.error
    assert result.limit_value == 1.0
    assert elapsed < 2.5, f"took {elapsed:.2f} s for a 1 s timeout"
    assert_host_ok(kit, mode)


# -- memory and operation size ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, limit, line",
    [
        (REPEAT_LIST, "max_items", 1),
        (REPEAT_CHAINED, "max_items", 1),
        (REPEAT_IN_PLACE, "max_items", 2),
        (POWER_HUGE, "max_int_bits", 1),
        (POWER_IN_PLACE, "max_int_bits", 2),
        (SHIFT_HUGE, "max_int_bits", 1),
        (RANGE_HUGE, "max_items", 1),
        (RANGE_OF_PRODUCT, "max_items", 2),
    ],
    ids=["repeat", "repeat-chained", "repeat-in-place", "power", "power-in-place", "shift", "range",
         "range-of-product"],
)
def test_oversized_operations_are_refused_before_building(kit, mode, program, limit, line):
    """Repetition, powers, shifts and ranges past their limit stop at once, before allocating."""
    result, elapsed = timed(program, kit, mode)
    assert_limit(result, limit, line)
    assert elapsed < 1.5
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program",
    [AUGMENTED_CONCAT_PAST_MAX_ITEMS, CONCAT_PAST_MAX_ITEMS, LIST_CONCAT_PAST_MAX_ITEMS],
    ids=["augmented-str", "str", "list"],
)
def test_concatenation_is_bounded_like_augmented_concatenation(kit, mode, program):
    """s = s + s past max_items stops with max_items, exactly as s += s does (so doubling cannot run away in-process)."""
    result = run(program, kit, mode, max_items=1500)
    assert not result.success, f"built {result.output} items with max_items=1500"
    assert_limit(result, "max_items", 2)
    assert_host_ok(kit, mode)


@pytest.mark.parametrize(
    "program, line",
    [
        (DICT_GROWTH, 3),
        (LJUST_HUGE, 1),
        (PERCENT_WIDTH_HUGE, 1),
        (FSTRING_WIDTH_HUGE, 2),
        (JOIN_HUGE, 1),
    ],
    ids=["dict-growth", "ljust", "percent-width", "fstring-width", "join"],
)
def test_unguarded_allocation_hits_the_worker_memory_limit(kit, program, line):
    """Allocation the operation guards do not see is stopped by the isolated worker's memory limit."""
    result, elapsed = timed(program, kit, "isolated", memory_bytes=64 * MiB)
    assert_limit(result, "memory", line)
    assert result.limit_value == 64 * MiB
    assert result.variables == {}
    assert elapsed < 3.0
    assert_host_ok(kit, "isolated")


# -- output ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_print_flood_stops_at_the_output_limit(kit, mode):
    """Printing past max_output_bytes stops the program on the print line, keeping at most the limit."""
    result = run(PRINT_FLOOD, kit, mode, max_output_bytes=10_000)
    assert_limit(result, "max_output_bytes", 2)
    assert len(result.printed.encode()) <= 10_000
    assert_host_ok(kit, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("program", [RESULT_HUGE, RESULT_HUGE_NESTED], ids=["flat", "nested"])
def test_huge_result_stops_at_the_output_limit(kit, mode, program):
    """A result larger than max_output_bytes is refused, not returned."""
    result = run(program, kit, mode, max_output_bytes=10_000)
    assert_limit(result, "max_output_bytes", None)
    assert result.output is None
    assert_host_ok(kit, mode)


# -- tool calls -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_tool_call_flood_stops_after_exactly_the_allowed_calls(kit, mode):
    """With max_tool_calls=10, ten calls succeed and the eleventh stops the program."""
    result = run(TOOL_CALL_FLOOD, kit, mode, max_tool_calls=10)
    assert_limit(result, "max_tool_calls", 2)
    assert result.limit_value == 10
    assert len(result.trace) == 10
    assert all(entry.success and entry.tool == "read_file" for entry in result.trace)
    assert_host_ok(kit, mode)


# -- recursion and crashes ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "program, line",
    [(DEEP_LIST_TO_STR, 4), (DEEP_LIST_COMPARE, 6), (SELF_RECURSIVE_KEY, 1)],
    ids=["str", "compare", "self-recursive-key"],
)
def test_deep_recursion_stops_with_the_recursion_limit(kit, mode, program, line):
    """Deep data given to str()/==, or a key function that calls itself, stops with limit recursion."""
    result = run(program, kit, mode)
    assert_limit(result, "recursion", line)
    assert_host_ok(kit, mode)


def test_deep_result_from_the_worker_is_refused_not_crashed(kit):
    """A result nested too deeply to send back is reported as the recursion limit."""
    result = run(DEEP_RESULT, kit, "isolated")
    assert_limit(result, "recursion")
    assert_host_ok(kit, "isolated")


def test_deep_tuple_hash_crashes_only_the_worker(kit, workspace):
    """Hashing a 10**6-deep tuple overflows the C stack: the worker dies (crash), the host lives on."""
    result = run(DEEP_TUPLE_DICT_KEY, kit, "isolated")
    assert not result.success
    assert result.error_kind == "crash", result.error
    assert "the program crashed its isolated worker" in result.error
    assert_host_ok(kit, "isolated")
    after = run(WRITE_THEN_DEEP_TUPLE_KEY, kit, "isolated")
    assert after.error_kind == "crash"
    assert not (workspace / "planted.txt").exists() and after.files_created == []
    assert_host_ok(kit, "isolated")
    assert_host_ok(kit, "inprocess")


@pytest.mark.slow
def test_host_survives_a_barrage(kit, workspace):
    """After timeouts, memory exhaustion, output floods and a worker crash, both modes still run."""
    run(CPU_NESTED_LOOPS, kit, "isolated", timeout_s=0.5)
    run(DICT_GROWTH, kit, "isolated", memory_bytes=64 * MiB)
    run(PRINT_FLOOD, kit, "isolated", max_output_bytes=1000)
    run(DEEP_TUPLE_DICT_KEY, kit, "isolated")
    run(CPU_NESTED_LOOPS, kit, "inprocess", timeout_s=0.5)
    for mode in MODES:
        result = run('read_file("README.md")', kit, mode)
        assert result.success and result.output == README


@pytest.mark.parametrize("mode", MODES)
def test_concatenation_doubling_stops_at_max_items(kit, mode):
    """Doubling a string with s = s + s is stopped by the + guard before memory runs out."""
    result, elapsed = timed(CONCAT_DOUBLING, kit, mode)
    assert_limit(result, "max_items", 3)
    assert elapsed < 3.0
    assert_host_ok(kit, mode)
