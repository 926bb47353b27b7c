"""A program's own grade, its rung of the trust ladder, and the ceiling that refuses it before anything runs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lackpy import LackpyService

CANARY = 'run_command("touch canary.txt")\nread_file("a.txt")'


@pytest.fixture
def svc(tmp_path: Path):
    (tmp_path / "a.txt").write_text("alpha\n")
    service = LackpyService(tmp_path, trust=False)
    yield service
    service.close()


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_the_programs_own_grade_is_of_the_tools_it_calls(svc, mode):
    result = run(svc, 'read_file("a.txt")', kit="coding", mode=mode)
    assert result.grade.to_dict() == {"w": 3, "d": 3}  # the kit's
    assert result.program_grade.to_dict() == {"w": 1, "d": 0} and result.risk == "safe"
    assert run(svc, "1 + 1", kit="coding", mode=mode).program_grade.to_dict() == {"w": 0, "d": 0}
    assert run(svc, 'web_search("x") if False else 0', kit="all", mode=mode).risk == "sensitive"


@pytest.mark.parametrize("ceiling", ["readonly", "1,0", (1, 0)])
def test_a_ceiling_refuses_before_anything_runs(svc, tmp_path, ceiling):
    result = run(svc, CANARY, kit="coding", ceiling=ceiling)
    assert not result.success and result.error_kind == "denied"
    assert result.error == (
        "denied: the program calls run_command (w=3 d=3), above the ceiling w=1 d=0; "
        "run it under a higher ceiling (--ceiling KIT or W,D) if you mean it"
    )
    assert result.trace == [] and result.program_grade.to_dict() == {"w": 3, "d": 3} and result.risk == "critical"
    assert not (tmp_path / "canary.txt").exists()
    assert run(svc, 'read_file("a.txt")', kit="coding", ceiling=ceiling).output == "alpha\n"  # within it: runs


def test_the_config_sets_a_ceiling_and_an_argument_replaces_it(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    with LackpyService(tmp_path, {"ceiling": "readonly"}, approve=True) as svc:
        assert run(svc, CANARY, kit="coding").error_kind == "denied"
        assert not (tmp_path / "canary.txt").exists()
        assert run(svc, CANARY, kit="coding", ceiling="coding").success
    assert (tmp_path / "canary.txt").exists()


def test_a_wrong_ceiling_in_the_config_is_one_line():
    from lackpy.config import Config
    from lackpy.errors import ConfigError

    with pytest.raises(ConfigError, match=r"ceiling must be a kit name such as \"readonly\" or \[w, d\]"):
        Config.from_dict({"ceiling": [4, 0]})


def test_validate_gives_the_programs_own_grade(svc):
    result = svc.validate(CANARY, "coding")
    assert result.grade.to_dict() == {"w": 3, "d": 3} and result.risk == "critical"
    assert svc.validate('read_file("a.txt")', "coding").to_dict()["grade"] == {"w": 1, "d": 0}


def test_delegate_runs_under_the_ceiling_too(svc):
    result = asyncio.run(svc.delegate("count TODOs", kit="readonly", ceiling="readonly"))
    assert result.success and result.execution.risk == "safe"


def test_the_cli_refuses_with_exit_2_and_lists_tools_by_risk(tmp_path):
    (tmp_path / "p.py").write_text(CANARY)
    (tmp_path / "a.txt").write_text("alpha\n")
    lackpy = lambda *args: subprocess.run([sys.executable, "-m", "lackpy", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)  # noqa: E731
    refused = lackpy("run", "--kit", "coding", "--ceiling", "readonly", "p.py")
    assert refused.returncode == 2 and "denied: the program calls run_command (w=3 d=3)" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "canary.txt").exists()
    critical = json.loads(lackpy("tools", "--risk", "critical", "--json").stdout)
    names = {tool["name"] for tool in critical}
    assert {"run_command", "write_file", "edit_file", "start_process"} <= names and "read_file" not in names
    safe = {tool["name"] for tool in json.loads(lackpy("tools", "--risk", "safe", "--json").stdout)}
    assert "read_file" in safe and "run_command" not in safe
    checked = json.loads(lackpy("validate", "--kit", "coding", "--json", "p.py").stdout)
    assert checked["grade"] == {"w": 3, "d": 3} and checked["risk"] == "critical"
