"""Guardrails: before_tool_call and after_tool_call plugins see every call and result, in both run modes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy import LackpyService, hookimpl
from lackpy.errors import ConfigError
from lackpy.run.guardrails import AllowHosts, Deny, RedactKeys

MODES = ["isolated", "inprocess"]
KEY = "sk-" + "a1B2c3D4e5F6g7H8i9J0kLmN"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    (tmp_path / "keys.txt").write_text(f"OPENAI_API_KEY={KEY}\nother=1\n")
    return tmp_path


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


class NoCommands:
    @hookimpl
    def before_tool_call(self, call):
        if call.name == "run_command":
            return Deny("commands are off in this service")
        if call.name == "read_file" and call.arguments.get("path") == "a.txt":
            return {**call.arguments, "path": "b.txt"}  # a guardrail may change the arguments
        return None


class Seen:
    def __init__(self) -> None:
        self.calls = []

    @hookimpl
    def after_tool_call(self, call, result):
        self.calls.append((call.tool, call.name, dict(call.arguments), result))


@pytest.mark.parametrize("mode", MODES)
def test_a_guardrail_denies_changes_and_sees_every_call(workspace, tmp_path, mode):
    seen = Seen()
    with LackpyService(workspace, trust=False) as svc:
        svc.add_guardrail(NoCommands())
        svc.add_guardrail(seen)
        denied = run(svc, 'x = read_file("b.txt")\nrun_command("touch canary.txt")', kit="coding", mode=mode, approve=True)
        changed = run(svc, 'load("a.txt")', kit={"load": "read_file"}, mode=mode)
    assert denied.error_kind == "denied" and denied.error_line == 2
    assert "run_command: a guardrail refused the call: commands are off in this service" in denied.error
    assert not (workspace / "canary.txt").exists()
    assert changed.output == "beta\n"
    assert seen.calls[0] == ("read_file", "read_file", {"path": "b.txt"}, "beta\n")
    assert seen.calls[-1] == ("load", "read_file", {"path": "b.txt"}, "beta\n")


@pytest.mark.parametrize("mode", MODES)
def test_the_config_redacts_keys_from_every_result(workspace, mode):
    with LackpyService(workspace, {"guardrails": {"redact_keys": True}}) as svc:
        result = run(svc, 'text = read_file("keys.txt")\n[text, grep("API", glob="*.txt")[0]["text"]]', kit="readonly", mode=mode)
    text, line = result.output
    assert KEY not in text and "OPENAI_API_KEY=[redacted]" in text and "other=1" in text
    assert line == "OPENAI_API_KEY=[redacted]"
    assert KEY not in str(result.trace)


def test_allow_hosts_refuses_other_hosts_before_any_request(workspace):
    with LackpyService(workspace, {"guardrails": {"allow_hosts": ["docs.python.org", "127.0.0.1"]}}, approve=True) as svc:
        refused = run(svc, 'fetch_url("http://attacker.example/x")', kit="web")
        passed = run(svc, 'fetch_url("http://127.0.0.1:9/x")', kit="web")
    assert refused.error_kind == "denied" and "attacker.example is not an allowed host (allowed: docs.python.org, 127.0.0.1)" in refused.error
    assert passed.error_kind == "tool" and "denied" not in passed.error  # past the guardrail, the web tool's own check refuses a private address


def test_the_shipped_guardrails_alone():
    from lackpy.run.guardrails import ToolCall

    hosts = AllowHosts(["python.org"])
    assert hosts.before_tool_call(ToolCall("fetch_url", "fetch_url", {"url": "https://docs.python.org/3/"})) is None
    assert isinstance(hosts.before_tool_call(ToolCall("fetch_url", "fetch_url", {"url": "https://python.org.evil.example/"})), Deny)
    assert hosts.before_tool_call(ToolCall("read_file", "read_file", {"path": "x"})) is None
    redact = RedactKeys()
    assert redact.after_tool_call(ToolCall("t", "t"), {"a": [f"token {KEY}"], "b": 1}) == {"a": ["token [redacted]"], "b": 1}
    assert redact.after_tool_call(ToolCall("t", "t"), "nothing secret") is None


def test_a_wrong_guardrails_table_is_one_line():
    from lackpy.config import Config

    with pytest.raises(ConfigError, match=r"\[guardrails\] takes redact_keys"):
        Config.from_dict({"guardrails": {"block": True}})
    with pytest.raises(ConfigError, match=r"allow_hosts must be a list of host names"):
        Config.from_dict({"guardrails": {"allow_hosts": "python.org"}})


def test_without_guardrails_calls_go_straight_through(workspace):
    with LackpyService(workspace, trust=False) as svc:
        assert svc.guardrails.hooks() is None
        assert run(svc, 'read_file("a.txt")', kit="readonly").output == "alpha\n"
