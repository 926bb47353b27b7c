"""LackpyService: workspace, config, validate and run_program."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from lackpy import Config, ConfigError, LackpyService, ParamError, UnknownKitError, WorkspaceError


def test_missing_workspace_is_refused(tmp_path: Path):
    """A workspace that does not exist is a WorkspaceError naming it."""
    with pytest.raises(WorkspaceError, match="does not exist"):
        LackpyService(tmp_path / "nope")


def test_run_program_is_async_and_traced(service):
    """run_program awaits the run and returns the traced result with the kit grade."""
    result = asyncio.run(service.run_program('len(find_files("**/*.py"))', kit="readonly"))
    assert result.success and result.output == 2
    assert [e.tool for e in result.trace] == ["find_files"]
    assert tuple(result.grade) == (1, 0)


def test_concurrent_runs_keep_separate_traces(service):
    """Two programs run concurrently each get their own trace and files."""

    async def both():
        return await asyncio.gather(
            service.run_program('read_file("README.md")', kit="readonly"),
            service.run_program('read_file("src/app.py")', kit="readonly"),
        )

    first, second = asyncio.run(both())
    assert first.files_read == ["README.md"] and second.files_read == ["src/app.py"]


def test_default_kit_comes_from_config(workspace: Path):
    """default_kit in .lackpy/config.toml is used when no kit is given."""
    assert LackpyService(workspace).resolve_kit().name == "readonly"
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('default_kit = "filesystem"\n')
    assert LackpyService(workspace).resolve_kit().name == "readonly"  # above read-only: only once trusted
    assert LackpyService(workspace, trust=True).resolve_kit().name == "filesystem"


def test_config_dict_overrides_file(workspace: Path):
    """A config passed to the service wins over the workspace file."""
    svc = LackpyService(workspace, config={"default_kit": "none"})
    assert svc.resolve_kit().tools == {}


@pytest.mark.parametrize(
    "text, message",
    [("default_kit = [", "invalid TOML"), ("default_kit = 3", "default_kit"), ('rules = ["a:b"]', "the key rules is now checks"), ('checks = ["nocolon"]', "checks")],
    ids=["syntax", "type", "rules", "checks"],
)
def test_bad_config_is_a_clear_error(workspace: Path, text: str, message: str):
    """A malformed config file raises ConfigError naming the problem, on first use (it is read off the event loop)."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text(text)
    svc = LackpyService(workspace, trust=True)
    with pytest.raises(ConfigError, match=message):
        asyncio.run(svc.run_program("1"))
    with pytest.raises(ConfigError, match=message):
        svc.validate("1")


def test_configured_checks_apply(workspace: Path, tmp_path: Path, monkeypatch):
    """Checks named in the config are imported and applied to every validation."""
    (tmp_path / "my_rules.py").write_text(
        textwrap.dedent(
            """
            import ast

            def no_print(tree):
                return ["do not print" for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "print"]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('checks = ["my_rules:no_print"]\n')
    svc = LackpyService(workspace, trust=True)
    result = svc.validate("print(1)")
    assert not result.valid and result.errors[0].code == "custom-check" and result.errors[0].message == "do not print"
    run = asyncio.run(svc.run_program("print(1)"))
    assert not run.success and run.error_kind == "validation"


def test_an_unloadable_check_is_a_config_error(workspace: Path):
    """A check that cannot be imported is reported when checks are first needed."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('checks = ["no_such_module_xyz:rule"]\n')
    svc = LackpyService(workspace, trust=True)
    with pytest.raises(ConfigError, match="no_such_module_xyz"):
        svc.validate("1")


def test_per_call_checks(service):
    """Checks passed per call are applied in addition to the configured ones."""
    result = service.validate("x = 1\nx", checks=[lambda tree: ["no x"]])
    assert [e.message for e in result.errors] == ["no x"]


def test_validate_uses_kit_and_params(service):
    """validate checks calls against the kit and knows parameter names."""
    assert service.validate('read_file(path)', kit="readonly", params=["path"]).valid
    refused = service.validate('write_file("a", "b")', kit="readonly")
    assert refused.errors[0].code == "unknown-function"
    with pytest.raises(ParamError):
        service.validate("1", params=["read_file"])


def test_unknown_kit(service):
    """An unknown kit names the closest kits."""
    with pytest.raises(UnknownKitError, match="did you mean: readonly"):
        service.resolve_kit("readonli")


def test_language_spec(service):
    """language_spec lists the grammar tables."""
    spec = service.language_spec()
    assert "len" in spec["allowed_builtins"] and "Import" in spec["forbidden_nodes"]


def test_tool_settings_come_from_config(workspace: Path):
    """[tools] in the config reaches the tools: deny globs refuse paths."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text('[tools]\ndeny = ["src/**"]\n')
    svc = LackpyService(workspace)
    result = asyncio.run(svc.run_program('read_file("src/app.py")', kit="readonly", mode="inprocess"))
    assert result.error == "line 1: PathError in read_file: denied by the workspace policy: src/app.py"
    with pytest.raises(ConfigError, match="deny must be a list"):
        Config.from_dict({"tools": {"deny": ".git"}})


def test_close_stops_background_processes(workspace: Path):
    """Closing the service stops the processes its programs started."""
    with LackpyService(workspace, approve=True) as svc:
        started = asyncio.run(svc.run_program('start_process("sleep 30")', kit="coding", mode="inprocess"))
        assert started.output == "p1"
        listed = asyncio.run(svc.run_program("list_processes()", kit="coding", mode="inprocess"))
        assert listed.output[0]["running"] is True
        process = svc.toolbox.context.state["processes"]["p1"]
    assert process.poll() is not None


def test_run_program_called_directly_keeps_the_configured_limits(workspace: Path):
    """Limits merge in one place: config, then kit, then call, whichever entry point runs the program."""
    import lackpy

    (workspace / ".lackpy").mkdir(exist_ok=True)
    (workspace / ".lackpy" / "config.toml").write_text("[limits]\nmax_tool_calls = 2\n")
    svc = LackpyService(workspace)
    program = "[read_file('README.md') for i in range(3)]"
    direct = lackpy.run_program(program, svc.resolve_kit("readonly"), mode="inprocess")
    served = asyncio.run(svc.run_program(program, "readonly", mode="inprocess"))
    for result in (direct, served):
        assert (result.success, result.limit, result.limits.max_tool_calls) == (False, "max_tool_calls", 2)
    raised = lackpy.run_program(program, svc.resolve_kit("readonly"), mode="inprocess", limits={"max_tool_calls": 5})
    assert raised.success and raised.limits.max_tool_calls == 5
