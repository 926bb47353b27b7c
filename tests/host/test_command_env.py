"""Commands do not inherit lackpy's secrets: they get a small environment and what ``[tools] command_env`` names.

Real commands (``env``) through the real tools, with the supervisor and
without it, confined and not, and through ``lackpy run`` in a subprocess;
the secrets are set in the environment of the process that runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lackpy.config import Config, load_config
from lackpy.errors import ConfigError, ToolError
from lackpy.host import confine, local_shell
from lackpy.tools.shell import poll_process, run_command, start_process

SECRETS = {"LACKPY_TOKEN": "lackpy-token-5f1e", "NOTES_TOKEN": "notes-token-77ab", "AWS_SECRET_ACCESS_KEY": "aws-key-90c3"}
KEPT = {"PATH", "HOME", "LANG", "LC_ALL", "LC_TIME", "TERM", "TZ", "USER", "SHELL"}


@pytest.fixture(autouse=True)
def secrets(monkeypatch) -> None:
    """lackpy's environment holds secrets, and a value of each name commands keep."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    for name in KEPT - {"PATH", "HOME"}:
        monkeypatch.setenv(name, {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "LC_TIME": "C"}.get(name, f"kept-{name.lower()}"))


@pytest.fixture(params=["supervised", "preexec", "unconfined", "no-pidns"])
def way(request, monkeypatch) -> str:
    """Every way a command starts: under the supervisor, without it, unconfined, and without a pid namespace."""
    if request.param == "preexec":
        monkeypatch.setattr(local_shell, "_tracking", False)
    if request.param == "unconfined":
        monkeypatch.setattr(confine, "unavailable", lambda: "no Landlock in this test")
    if request.param == "no-pidns":
        monkeypatch.setattr(local_shell, "_probed", ["no pid namespace: none in this test"])
    return request.param


def _environment(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _assert_no_secrets(text: str) -> None:
    for name, value in SECRETS.items():
        assert name not in text and value not in text, name


def test_a_command_sees_a_small_environment(make_ctx, way: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("TMP", raising=False)
    monkeypatch.delenv("TEMP", raising=False)
    result = run_command(make_ctx(), "env")
    assert result["code"] == 0, result
    _assert_no_secrets(result["stdout"])
    seen = _environment(result["stdout"])
    for name in KEPT:
        assert seen[name] == os.environ[name], name
    if way == "unconfined":  # no private TMPDIR: lackpy's
        assert set(seen) - {"PWD"} == KEPT | {"TMPDIR"} and seen["TMPDIR"] == str(tmp_path)
    else:
        assert set(seen) - {"PWD"} == KEPT | {"TMPDIR", "TMP", "TEMP"}
        assert seen["TMPDIR"] == seen["TMP"] == seen["TEMP"] != str(tmp_path)


def test_a_background_command_sees_the_same(make_ctx, way: str) -> None:
    ctx = make_ctx()
    id = start_process(ctx, "env; echo END")
    out = []
    for _ in range(500):
        state = poll_process(ctx, id)
        out.append(state["stdout"])
        if not state["running"] and "END" in "".join(out):
            break
        time.sleep(0.01)
    text = "".join(out)
    assert "END" in text
    _assert_no_secrets(text)
    assert "PATH" in _environment(text)


def test_command_env_passes_the_names_it_lists(make_ctx, way: str) -> None:
    result = run_command(make_ctx(command_env=["NOTES_TOKEN", "UNSET_NAME"]), "env")
    seen = _environment(result["stdout"])
    assert seen["NOTES_TOKEN"] == SECRETS["NOTES_TOKEN"] and "UNSET_NAME" not in seen
    assert "LACKPY_TOKEN" not in seen and SECRETS["LACKPY_TOKEN"] not in result["stdout"]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("NOTES_TOKEN", "must be a list of environment variable names"),
        (["NOTES TOKEN"], "must list environment variable names (letters, digits and _), not 'NOTES TOKEN'"),
        (["1ABC"], "not '1ABC'"),
        ([3], "not 3"),
        (["LACKPY_CONFINE"], "cannot pass LACKPY_CONFINE"),
    ],
)
def test_command_env_must_list_names(make_ctx, tmp_path: Path, value, says: str) -> None:
    with pytest.raises(ToolError) as info:
        run_command(make_ctx(command_env=value), "true")
    assert str(info.value).startswith("the tool setting command_env ") and says in str(info.value)
    with pytest.raises(ConfigError) as info:
        Config.from_dict({"tools": {"command_env": value}}, tmp_path / "config.toml")
    assert str(info.value).startswith(f"{tmp_path / 'config.toml'}: [tools] command_env ") and says in str(info.value)
    assert "\n" not in str(info.value)


def _config(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_only_a_trusted_workspace_and_the_users_config_pass_variables(workspace: Path, own_trust_record: Path) -> None:
    _config(workspace / ".lackpy" / "config.toml", '[tools]\ncommand_env = ["NOTES_TOKEN"]\n')
    untrusted = load_config(workspace, trusted=False)
    assert "command_env" not in untrusted.tools
    assert any(note.startswith("[tools] command_env (") for note in untrusted.ignored)
    assert load_config(workspace, trusted=True).tools["command_env"] == ["NOTES_TOKEN"]
    _config(own_trust_record / "lackpy" / "config.toml", '[tools]\ncommand_env = ["CARGO_HOME", "NOTES_TOKEN"]\n')
    assert load_config(workspace, trusted=False).tools["command_env"] == ["CARGO_HOME", "NOTES_TOKEN"]
    assert load_config(workspace, trusted=True).tools["command_env"] == ["CARGO_HOME", "NOTES_TOKEN"]
    _config(own_trust_record / "lackpy" / "config.toml", '[tools]\ncommand_env = "CARGO_HOME"\n')
    with pytest.raises(ConfigError, match=r"lackpy/config\.toml: \[tools\] command_env must be a list"):
        load_config(workspace, trusted=False)


def _cli(workspace: Path, program: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lackpy", "run", "--kit", "coding", "--yes", "--workspace", str(workspace), "-"],
        input=program, capture_output=True, text=True, timeout=60,
    )


def test_lackpy_run_keeps_its_secrets_from_commands(workspace: Path, trusted) -> None:
    done = _cli(workspace, 'run_command("env")["stdout"]')
    assert done.returncode == 0, done.stderr
    assert "PATH=" in done.stdout
    _assert_no_secrets(done.stdout + done.stderr)
    _config(workspace / ".lackpy" / "config.toml", '[tools]\ncommand_env = ["NOTES_TOKEN"]\n')
    trusted(workspace)
    done = _cli(workspace, 'run_command("env")["stdout"]')
    assert done.returncode == 0, done.stderr
    assert f"NOTES_TOKEN={SECRETS['NOTES_TOKEN']}" in done.stdout
    assert "LACKPY_TOKEN" not in done.stdout and SECRETS["LACKPY_TOKEN"] not in done.stdout


def test_lackpy_run_says_what_is_wrong_with_command_env(workspace: Path, trusted) -> None:
    _config(workspace / ".lackpy" / "config.toml", '[tools]\ncommand_env = ["NOTES TOKEN"]\n')
    trusted(workspace)
    done = _cli(workspace, 'run_command("env")')
    assert done.returncode != 0 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "[tools] command_env must list environment variable names" in line
