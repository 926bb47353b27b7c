"""Limits: defaults, layering (config < kit < call), and how a stopped program reports."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy import LackpyService, Limits, resolve_kit, run_program
from lackpy.config import Config
from lackpy.errors import ConfigError
from lackpy.run.limits import LimitsError


def test_defaults_are_generous():
    """The defaults let normal programs run: 10 s, 512 MiB, 1 MiB output, 10,000 calls."""
    limits = Limits()
    assert (limits.timeout_s, limits.memory_bytes, limits.max_output_bytes, limits.max_tool_calls) == (10.0, 512 * 2**20, 2**20, 10_000)


def test_merge_checks_names_and_values():
    """Unknown limits and non-positive values are refused with the known names."""
    assert Limits().merged({"timeout_s": "2.5", "max_tool_calls": 5}).timeout_s == 2.5
    with pytest.raises(LimitsError, match="unknown limit 'timeout'; known limits: timeout_s"):
        Limits().merged({"timeout": 1})
    with pytest.raises(LimitsError, match="positive number"):
        Limits().merged({"max_items": -1})
    with pytest.raises(LimitsError, match="positive number"):
        Limits().merged({"timeout_s": True})


def test_config_kit_and_call_layers(workspace: Path):
    """A call's limits beat the kit's, which beat the config's."""
    kits = workspace / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "tight.kit").write_text("---\nlimits:\n  max_tool_calls: 2\n---\nread_file\n")
    (workspace / ".lackpy" / "config.toml").write_text("[limits]\nmax_tool_calls = 5\ntimeout_s = 7\n")
    svc = LackpyService(workspace)
    program = 'for i in range(4):\n    read_file("README.md")\n"ok"'
    from_kit = asyncio.run(svc.run_program(program, kit="tight", mode="inprocess"))
    assert from_kit.limit == "max_tool_calls" and from_kit.limit_value == 2
    assert from_kit.limits.timeout_s == 7.0
    from_config = asyncio.run(svc.run_program(program, kit="read_file,", mode="inprocess"))
    assert from_config.success and from_config.limits.max_tool_calls == 5
    from_call = asyncio.run(svc.run_program(program, kit="tight", mode="inprocess", limits={"max_tool_calls": 10}))
    assert from_call.success and len(from_call.trace) == 4


def test_bad_limits_in_config_and_kit(workspace: Path, service):
    """Bad limit settings are one clear error each."""
    with pytest.raises(ConfigError, match="unknown limit 'speed'"):
        Config.from_dict({"limits": {"speed": 3}})
    kits = workspace / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "bad.kit").write_text("---\nlimits: 5\n---\nread_file\n")
    from lackpy.errors import KitFileError

    with pytest.raises(KitFileError, match="'limits' must be"):
        service.resolve_kit("bad")


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
@pytest.mark.parametrize(
    "program, limits, limit, line",
    [
        ("x = 1\nfor i in range(10**5):\n    for j in range(10**5):\n        x = x + 1", {"timeout_s": 0.5}, "timeout", 4),
        ('for i in range(50):\n    print("x" * 100)', {"max_output_bytes": 1000}, "max_output_bytes", 2),
        ('"a" * 10**9', {}, "max_items", 1),
        ("n = 3\nn ** 10**7", {}, "max_int_bits", 2),
        ("1 << 10**8", {}, "max_int_bits", 1),
        ("total = 0\nfor i in range(10**12):\n    total += i", {}, "max_items", 2),
        ('["x" * 1000] * 2000', {"max_output_bytes": 100_000}, "max_output_bytes", None),
        ('for i in range(5):\n    read_file("README.md")', {"max_tool_calls": 3}, "max_tool_calls", 2),
        ('write_file("a.txt", "x" * 5000)', {"max_write_bytes": 1000}, "max_write_bytes", 1),
    ],
    ids=["timeout", "printed", "repetition", "power", "shift", "range", "result", "tool-calls", "writes"],
)
def test_each_limit_names_itself(kit_for, program, limits, limit, line, mode):
    """A program stopped by a limit reports which one, its value and the line."""
    result = run_program(program, kit_for("filesystem"), limits=limits, mode=mode)
    assert not result.success and result.error_kind == "limit", result.error
    assert result.limit == limit
    assert result.error_line == line
    assert f"limit exceeded: {limit}" in result.error
    if limit in limits:
        assert result.limit_value == limits[limit] or result.limit_value == float(limits[limit])


def test_tool_call_limit_keeps_the_allowed_calls(kit_for):
    """Exactly max_tool_calls calls run; the next one stops the program."""
    result = run_program('for i in range(5):\n    read_file("README.md")', kit_for("readonly"), limits={"max_tool_calls": 3}, mode="inprocess")
    assert len(result.trace) == 3 and all(e.success for e in result.trace)


def test_memory_limit_in_the_isolated_worker(kit_for):
    """Allocating past memory_bytes stops the worker's program with the memory limit."""
    program = "xs = []\nfor i in range(10**6):\n    xs.append('x' * 1000 + str(i))"
    result = run_program(program, kit_for("none"), limits={"memory_bytes": 64 * 2**20}, mode="isolated")
    assert result.limit == "memory" and result.error_line == 3


def test_host_survives_and_keeps_working(kit_for):
    """After timeouts, memory exhaustion and a crash, the next run still works."""
    kit = kit_for("readonly")
    run_program("for i in range(10**5):\n    for j in range(10**5):\n        pass", kit, limits={"timeout_s": 0.3})
    run_program("t = ()\nfor i in range(10**6):\n    t = (t,)\n{t: 1}", kit, limits={"timeout_s": 5})
    after = run_program('len(read_file("README.md"))', kit)
    assert after.success and after.output == len("# Demo\n\nStatus: draft\n")


@pytest.fixture
def kit_for(workspace: Path):
    from lackpy import Toolbox
    from lackpy.plugins import populate

    box = Toolbox(str(workspace))
    populate(box)
    return lambda name: resolve_kit(name, box)


def test_limits_error_is_a_param_error():
    """LimitsError lives in lackpy.errors (still importable from lackpy.run.limits), is a ParamError and has kind 'param'."""
    from lackpy import errors

    assert LimitsError is errors.LimitsError
    assert issubclass(LimitsError, errors.ParamError)
    with pytest.raises(errors.ParamError) as info:
        Limits().merged({"timeout_s": 0})
    assert info.value.kind == errors.ErrorKind.PARAM == "param"
    assert str(info.value) == "limits: limit 'timeout_s' must be a positive number, not 0"


def test_layered_merges_defaults_config_kit_and_call_in_that_order():
    """layered: each later layer wins over the earlier ones for the limits it names; the others stay."""
    from lackpy.run.limits import DEFAULT_LIMITS, layered

    merged = layered({"timeout_s": 7, "max_tool_calls": 5, "max_items": 9}, {"max_tool_calls": 2, "max_items": 8}, {"max_items": 4})
    assert (merged.timeout_s, merged.max_tool_calls, merged.max_items) == (7.0, 2, 4)
    assert merged.memory_bytes == DEFAULT_LIMITS.memory_bytes
    assert layered(None, None, None) == DEFAULT_LIMITS
    assert layered(Limits(timeout_s=3), {"max_tool_calls": 2}, None) == Limits(timeout_s=3, max_tool_calls=2)


def test_layered_takes_a_call_limits_object_as_final():
    """A Limits given for the call was built on purpose: it is used as it is, ignoring config and kit."""
    from lackpy.run.limits import layered

    chosen = Limits(timeout_s=1.5)
    assert layered({"timeout_s": 7}, {"max_tool_calls": 2}, chosen) is chosen


def test_layered_names_the_layer_of_a_bad_value():
    """A bad limit in the config or the kit layer is a LimitsError saying which layer it came from."""
    from lackpy.run.limits import layered

    with pytest.raises(LimitsError, match=r"^config \[limits\]: unknown limit 'speed'"):
        layered({"speed": 1}, None, None)
    with pytest.raises(LimitsError, match=r"^kit limits: limit 'max_items' must be a positive number, not -1$"):
        layered(None, {"max_items": -1}, None)


def test_resolved_kit_carries_the_config_limits(workspace: Path):
    """A kit resolved by the service carries the config's limits; run_program called directly runs under them."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text("[limits]\nmax_tool_calls = 2\n")
    svc = LackpyService(workspace)
    try:
        kit = svc.resolve_kit("readonly")
        assert kit.config_limits == Limits(max_tool_calls=2)
        result = run_program('for i in range(3):\n    read_file("README.md")', kit, mode="inprocess")
        assert (result.success, result.limit, result.limit_value) == (False, "max_tool_calls", 2)
        assert result.limits.max_tool_calls == 2
        relaxed = run_program('for i in range(3):\n    read_file("README.md")', kit, mode="inprocess", limits={"max_tool_calls": 3})
        assert relaxed.success and len(relaxed.trace) == 3
    finally:
        svc.close()


def test_a_bad_call_limit_is_a_param_failure(kit_for):
    """run_program with a bad limit for the call fails as 'param', without running anything."""
    result = run_program('read_file("README.md")', kit_for("readonly"), limits={"max_tool_calls": 0})
    assert (result.success, result.error_kind) == (False, "param")
    assert result.error == "limits: limit 'max_tool_calls' must be a positive number, not 0"
    assert result.trace == []
