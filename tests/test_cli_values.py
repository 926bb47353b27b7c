"""Arbitrary values in every option and config key: one clear line, no traceback, the right exit status."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lackpy.cli import cli
from lackpy.run.limits import MAXIMUM
from lackpy.trust import trust

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])

texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["inf", "-inf", "nan", "1e300", "1e999", "0", "-1", "0.0001", "9223372036854775807", "", " ", "\x00", "\ud800", "a" * 5000]),
)
numbers = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([2**63 - 1, -(2**63)]))
toml_values = st.recursive(
    st.one_of(st.booleans(), numbers.filter(lambda n: not isinstance(n, int) or -(2**63) <= n < 2**63), st.text(max_size=20)),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=5,
)


def check(result, json_: bool) -> None:
    """What every outcome must look like: a clean exit status, and one document or one error line."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.exit_code
    assert "Traceback" not in result.output
    if json_:
        json.loads(result.stdout)
    elif result.exit_code == 2:
        assert result.stderr.strip(), "a refusal says why on stderr"


def invoke(args: list[str], workspace: Path):
    return CliRunner().invoke(cli, [*args, "-w", str(workspace)], input="1 + 1\n")


@SETTINGS
@given(
    timeout=st.none() | texts,
    limit=st.none() | st.tuples(st.sampled_from([*MAXIMUM, "nosuch", ""]), texts),
    param=st.none() | st.tuples(st.one_of(st.text(max_size=12), st.sampled_from(["for", "_x", "len", "read_file", "x"])), texts),
    kit=st.none() | texts,
    mode=st.none() | texts,
    json_=st.booleans(),
)
@example(timeout="inf", limit=None, param=None, kit=None, mode=None, json_=False)
@example(timeout="1e300", limit=None, param=None, kit=None, mode=None, json_=True)
@example(timeout=None, limit=("memory_bytes", "1e999"), param=None, kit=None, mode=None, json_=False)
@example(timeout=None, limit=None, param=("for", "1"), kit=None, mode=None, json_=False)
@example(timeout=None, limit=None, param=("x", "[" * 60000 + "]" * 60000), kit=None, mode=None, json_=True)
@example(timeout=None, limit=None, param=None, kit="k" * 5000, mode=None, json_=False)
@example(timeout=None, limit=None, param=None, kit=None, mode="fast", json_=True)
def test_run_options_take_any_value(timeout, limit, param, kit, mode, json_):
    args = ["run", "-"]
    if timeout is not None:
        args += ["--timeout", timeout]
    if limit is not None:
        args += ["--limit", f"{limit[0]}={limit[1]}"]
    if param is not None:
        args += ["--param", f"{param[0]}={param[1]}"]
    if kit is not None:
        args += ["--kit", kit]
    if mode is not None:
        args += ["--mode", mode]
    if json_:
        args.append("--json")
    args = [a.replace("\x00", "") for a in args]  # an argv cannot hold NUL
    with tempfile.TemporaryDirectory() as tmp:
        check(invoke(args, Path(tmp)), json_)


KEYS = [
    "default_kit", "checks", "rules", "mode", "sandbox", "max_concurrent_runs",
    *[f"limits.{name}" for name in MAXIMUM], "limits.nosuch",
    "tools.deny", "tools.allow_private_addresses", "tools.command_output_bytes", "tools.process_buffer_bytes",
    "tools.max_processes", "tools.web_timeout_s", "tools.fetch_max_bytes", "tools.web_search_url",
    "inference.order", "inference.max_retries", "inference.runtime_repairs", "inference.openai.base_url", "inference.ollama.model",
]


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


@SETTINGS
@given(key=st.sampled_from(KEYS), value=toml_values, json_=st.booleans())
@example(key="limits.timeout_s", value=math.inf, json_=False)
@example(key="limits.timeout_s", value=math.nan, json_=True)
@example(key="limits.memory_bytes", value=2**63 - 1, json_=False)
@example(key="default_kit", value="k" * 5000, json_=True)
@example(key="tools.allow_private_addresses", value="yes", json_=False)
def test_config_keys_take_any_value(key, value, json_):
    *tables, name = key.split(".")
    text = (f"[{'.'.join(tables)}]\n" if tables else "") + f"{name} = {toml_value(value)}\n"
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        (workspace / ".lackpy").mkdir()
        (workspace / ".lackpy" / "config.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
        trust(workspace)  # so every key takes effect
        args = ["run", "-", "--mode", "inprocess"] + (["--json"] if json_ else [])
        check(invoke(args, workspace), json_)


REPRODUCED = [
    (["--timeout", "inf"], None, 2, "limit 'timeout_s' must be a positive number, not inf"),
    (["--timeout", "1e300"], None, 2, "limit 'timeout_s' is at most 86400, not 1e+300"),
    (["--limit", "memory_bytes=1e999"], None, 2, "limit 'memory_bytes' must be a positive number, not '1e999'"),
    ([], "[limits]\ntimeout_s = inf\n", 2, "limit 'timeout_s' must be a positive number, not inf"),
    ([], "[limits]\ntimeout_s = nan\n", 2, "limit 'timeout_s' must be a positive number, not nan"),
    ([], "[limits]\nmemory_bytes = 9223372036854775807\n", 2, "limit 'memory_bytes' is at most 68719476736"),
    (["--kit", "k" * 5000], None, 2, "a kit name has at most 100 characters"),
    (["--param", "x=" + "[" * 60000 + "]" * 60000], None, 2, "the value is nested too deeply; pass flatter data"),
    (["--param", "for=1"], None, 2, "parameter name 'for' is not a valid variable name"),
    (["--workspace", ""], None, 2, "--workspace (or LACKPY_WORKSPACE) is empty"),
]


import pytest  # noqa: E402


@pytest.mark.parametrize("args, config, status, message", REPRODUCED)
def test_values_that_broke_the_parser(tmp_path, args, config, status, message):
    if config is not None:
        (tmp_path / ".lackpy").mkdir()
        (tmp_path / ".lackpy" / "config.toml").write_text(config)
    where = [] if "--workspace" in args else ["-w", str(tmp_path)]
    result = CliRunner().invoke(cli, ["run", "-", *args, *where], input="1 + 1\n")
    assert result.exit_code == status and message in result.stderr, result.stderr
    assert "Traceback" not in result.output
    as_json = CliRunner().invoke(cli, ["run", "-", "--json", *args, *where], input="1 + 1\n")
    document = json.loads(as_json.stdout)
    error = document["error"]  # an error document's {"kind", "message"}, or a failed run's error text
    assert message in (error["message"] if isinstance(error, dict) else error), as_json.stdout


def test_a_result_with_a_lone_surrogate_prints(tmp_path):
    plain = CliRunner().invoke(cli, ["run", "-", "-w", str(tmp_path)], input='"a\\ud800b"\n')
    assert plain.exit_code == 0 and plain.stdout.strip() == "a\\ud800b"
    document = CliRunner().invoke(cli, ["run", "-", "--json", "-w", str(tmp_path)], input='"a\\ud800b"\n')
    assert json.loads(document.stdout)["output"] == "a\ud800b"


def test_a_program_saved_with_a_byte_order_mark_runs(tmp_path):
    program = tmp_path / "prog.py"
    program.write_bytes(b"\xef\xbb\xbf1 + 1\n")
    result = CliRunner().invoke(cli, ["run", str(program), "-w", str(tmp_path)])
    assert (result.exit_code, result.stdout.strip()) == (0, "2")


def test_a_kit_file_of_yaml_aliases_is_refused_before_it_expands(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    (tmp_path / ".lackpy" / "kits").mkdir(parents=True)
    (tmp_path / ".lackpy" / "kits" / "bomb.kit").write_text("---\n" + "\n".join(lines) + "\n---\nread_file\n")
    result = CliRunner().invoke(cli, ["kit", "info", "bomb", "-w", str(tmp_path)])
    assert result.exit_code == 2 and "YAML anchors are not allowed in frontmatter at line 2" in result.stderr


def test_limit_maximums_are_in_the_spec():
    spec = json.loads(CliRunner().invoke(cli, ["spec"]).stdout)
    assert spec["limits"]["timeout_s"] == {"default": 10.0, "maximum": 86400.0}
    assert set(spec["limits"]) == set(MAXIMUM)


COMMANDS = [
    ["delegate", "{text}"],
    ["delegate", "count TODOs", "--kit", "{text}"],
    ["delegate", "count TODOs", "--ceiling", "{text}"],
    ["generate", "{text}"],
    ["validate", "-", "--kit", "{text}"],
    ["validate", "-", "--param", "{text}"],
    ["kit", "info", "{text}"],
    ["kit", "create", "{text}", "--tools", "read_file"],
    ["kit", "create", "k", "--tools", "{text}"],
    ["docs", "show", "{text}"],
    ["docs", "index", "--kit", "{text}"],
    ["tools", "--kit", "{text}"],
    ["tools", "--format", "{text}"],
    ["template", "save", "-", "--name", "{text}", "--pattern", "count {{word}}"],
    ["template", "save", "-", "--name", "t", "--pattern", "{text}"],
    ["schema", "{text}"],
    ["trust", "{text}"],
]


@SETTINGS
@given(command=st.sampled_from(COMMANDS), text=texts.map(lambda t: t.replace("\x00", "")), json_=st.booleans())
def test_every_command_takes_any_value(command, text, json_):
    args = [part.replace("{text}", text).replace("{{word}}", "{word}") for part in command]
    if json_ and args[0] not in ("trust", "schema"):
        args.append("--json")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        where = [] if args[0] in ("schema", "trust") else ["-w", str(workspace)]
        result = CliRunner().invoke(cli, [*args, *where], input="len(read_file('x'))\n")
        check(result, json_ and args[0] not in ("trust", "schema"))
