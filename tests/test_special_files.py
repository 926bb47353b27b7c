"""Special files never hang lackpy: what a workspace's .lackpy/ holds is read as a regular file or refused in one line.

A cloned repository chooses what its .lackpy/ holds, and git keeps symlinks:
a FIFO, a link to /dev/stdin or to a file outside, a huge sparse file. The
real CLI runs in a subprocess whose standard input is a pipe nobody writes
(kept open), under a timeout: each case must end promptly with a one-line
error that names the file, a non-zero exit and no traceback. The same cases
go through LackpyService in a thread that must finish.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import pytest

from lackpy import LackpyService
from lackpy.errors import ConfigError, KitFileError, LackpyError
from lackpy.trust import trust

#: How long a case may take before it counts as a hang (a run takes about a second).
PROMPTLY_S = 20
HUGE = 4 << 30  # sparse: no disk is used, but reading it would take minutes


def cli(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``lackpy ARGS -w REPO`` with stdin a pipe nobody writes and nobody closes until it ends."""
    program = repo.parent / "program.py"
    program.write_text("1\n")
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "lackpy", *[str(program) if a == "PROGRAM" else a for a in args], "-w", str(repo)],
            stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
        )
        os.close(read_end)
        try:
            out, err = process.communicate(timeout=PROMPTLY_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"lackpy {' '.join(args)} hung for {PROMPTLY_S} s")
    finally:
        os.close(write_end)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def promptly(work: Callable[[], object]) -> object:
    """``work()`` on a thread that must end within PROMPTLY_S; its result, or the exception it raised."""
    outcome: list = []

    def attempt() -> None:
        try:
            outcome.append(work())
        except Exception as exc:  # checked by the caller
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(PROMPTLY_S)
    if worker.is_alive():
        pytest.fail("lackpy hung on a special file")
    return outcome[0]


def state(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".lackpy" / "kits").mkdir(parents=True)
    return repo, repo / ".lackpy"


def outside_config(tmp_path: Path) -> Path:
    """A canary config outside the workspace: were it read, lackpy would run under the coding kit."""
    canary = tmp_path / "outside" / "config.toml"
    canary.parent.mkdir(exist_ok=True)
    canary.write_text('default_kit = "coding"\n')
    return canary


def sparse(path: Path, size: int = HUGE) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)


#: name -> (make the special file in (tmp_path, repo, .lackpy), kit to run, what the error says).
CASES: dict[str, tuple[Callable[[Path, Path, Path], None], str, str]] = {
    "config FIFO": (lambda t, r, s: os.mkfifo(s / "config.toml"), "readonly", "config.toml: not a regular file (a FIFO)"),
    "config -> /dev/stdin": (lambda t, r, s: (s / "config.toml").symlink_to("/dev/stdin"), "readonly", "config.toml: a symlink leads outside"),
    "config -> canary outside": (
        lambda t, r, s: (s / "config.toml").symlink_to(outside_config(t)), "readonly", "config.toml: a symlink leads outside"
    ),
    "config huge": (lambda t, r, s: sparse(s / "config.toml"), "readonly", "config.toml: larger than 1048576 bytes"),
    "kit FIFO": (lambda t, r, s: os.mkfifo(s / "kits" / "x.kit"), "x", "x.kit: not a regular file (a FIFO)"),
    "kit -> /dev/stdin": (lambda t, r, s: (s / "kits" / "x.kit").symlink_to("/dev/stdin"), "x", "x.kit: a symlink leads outside"),
    "kit huge": (lambda t, r, s: sparse(s / "kits" / "x.kit"), "x", "x.kit: larger than 1048576 bytes"),
    "kits dir -> outside": (
        lambda t, r, s: ((s / "kits").rmdir(), (s / "kits").symlink_to(outside_config(t).parent)), "readonly",
        ".lackpy/kits: a symlink leads out of the workspace",
    ),
    ".lackpy -> elsewhere": (
        lambda t, r, s: ((r / "real").mkdir(), os.rename(s, r / "real" / "state"), s.symlink_to("real/state")), "readonly",
        ".lackpy: a symlink; lackpy reads its own files only from a real directory",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_cli_ends_promptly_with_one_line(tmp_path, case):
    make, kit, says = CASES[case]
    repo, lackpy_dir = state(tmp_path)
    make(tmp_path, repo, lackpy_dir)
    done = cli(repo, "run", "--kit", kit, "PROGRAM")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lackpy: error: ") and says in lines[0], done.stderr
    assert ("or remove it" in lines[0]) or ("replace the link" in lines[0])


@pytest.mark.parametrize("case", list(CASES))
def test_the_service_ends_promptly_with_the_error(tmp_path, case):
    make, kit, says = CASES[case]
    repo, lackpy_dir = state(tmp_path)
    make(tmp_path, repo, lackpy_dir)
    raised = promptly(lambda: LackpyService(repo).resolve_kit(kit))
    assert isinstance(raised, (ConfigError, KitFileError)) and says in str(raised)


def test_the_trust_inputs_are_read_the_same_way(tmp_path):
    """A trusted workspace is hashed at start: a FIFO among its kits is the same one-line error, not a hang."""
    repo, lackpy_dir = state(tmp_path)
    (lackpy_dir / "kits" / "mine.kit").write_text("read_file\n")
    trust(repo)
    (lackpy_dir / "kits" / "mine.kit").unlink()
    os.mkfifo(lackpy_dir / "kits" / "mine.kit")
    done = cli(repo, "run", "--kit", "readonly", "PROGRAM")
    assert done.returncode == 2 and "mine.kit: not a regular file (a FIFO)" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    with pytest.raises(ConfigError, match="mine.kit: not a regular file"):
        trust(repo)  # lackpy trust refuses to record it


def test_a_special_template_is_skipped_with_its_error(tmp_path):
    """One template lackpy cannot read must not take the tier down: listed with its error, the rest served."""
    repo, lackpy_dir = state(tmp_path)
    (lackpy_dir / "templates").mkdir()
    os.mkfifo(lackpy_dir / "templates" / "pipe.tmpl")
    (lackpy_dir / "templates" / "link.tmpl").symlink_to("/dev/stdin")
    sparse(lackpy_dir / "templates" / "huge.tmpl")
    (lackpy_dir / "templates" / "ok.tmpl").write_text("---\nname: ok\npattern: say hi\n---\n'hi'\n")
    done = cli(repo, "template", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row["error"] for row in json.loads(done.stdout)}
    assert rows["ok"] is None
    assert "not a regular file (a FIFO)" in rows["pipe"]
    assert "a symlink leads outside" in rows["link"]
    assert "larger than 1048576 bytes" in rows["huge"]
    ran = cli(repo, "run", "--kit", "readonly", "PROGRAM")
    assert ran.returncode == 0 and ran.stdout.strip() == "1"


def test_the_users_own_config_is_read_the_same_way(tmp_path, monkeypatch):
    """~/.config/lackpy/config.toml as a FIFO or a link to /dev/stdin is refused in one line (its links are the user's, so followed)."""
    repo, _ = state(tmp_path)
    home = tmp_path / "home"
    (home / "lackpy").mkdir(parents=True)
    os.mkfifo(home / "lackpy" / "config.toml")
    done = cli(repo, "run", "--kit", "readonly", "PROGRAM", env={"XDG_CONFIG_HOME": str(home)})
    assert done.returncode == 2 and "lackpy/config.toml: not a regular file" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    (home / "lackpy" / "config.toml").unlink()
    (home / "lackpy" / "config.toml").symlink_to("/dev/stdin")
    done = cli(repo, "run", "--kit", "readonly", "PROGRAM", env={"XDG_CONFIG_HOME": str(home)})
    assert done.returncode == 2 and "lackpy/config.toml: not a regular file" in done.stderr
    mine = tmp_path / "dotfiles" / "lackpy.toml"
    mine.parent.mkdir()
    mine.write_text('[mcp.servers.notes]\ncommand = "true"\n')
    (home / "lackpy" / "config.toml").unlink()
    (home / "lackpy" / "config.toml").symlink_to(mine)  # a link of the user's own is followed
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    assert [server.name for server in LackpyService(repo).config.mcp] == ["notes"]


def test_a_link_inside_lackpy_is_followed(tmp_path):
    """Links that stay inside .lackpy/ (and a kits directory linked elsewhere in the workspace) are fine."""
    repo, lackpy_dir = state(tmp_path)
    (lackpy_dir / "base.toml").write_text('default_kit = "mine"\n')
    (lackpy_dir / "config.toml").symlink_to("base.toml")
    (lackpy_dir / "kits").rmdir()
    (repo / "common-kits").mkdir()
    (repo / "common-kits" / "mine.kit").write_text("read_file\ngrep\n")
    (lackpy_dir / "kits").symlink_to("../common-kits")
    svc = LackpyService(repo)
    assert svc.config.default_kit == "mine" and list(svc.resolve_kit().tools) == ["read_file", "grep"]


def test_errors_are_lackpy_errors_for_every_case(tmp_path):
    """Nothing a special file causes escapes as an OSError or a traceback through the API."""
    for index, (make, kit, _says) in enumerate(CASES.values()):
        base = tmp_path / str(index)
        base.mkdir()
        repo, lackpy_dir = state(base)
        make(base, repo, lackpy_dir)
        raised = promptly(lambda: LackpyService(repo).kit_list())
        assert isinstance(raised, (list, LackpyError)), raised


def test_a_fifo_audit_file_does_not_hang_the_run(tmp_path):
    """`audit = true` with .lackpy/audit.jsonl a FIFO: the decision cannot be appended, said once; the run goes on."""
    repo, lackpy_dir = state(tmp_path)
    (lackpy_dir / "config.toml").write_text('audit = true\napprove = "program"\n')
    os.mkfifo(lackpy_dir / "audit.jsonl")
    done = cli(repo, "run", "--kit", "readonly", "--yes", "--json", "PROGRAM")
    document = json.loads(done.stdout)
    assert done.returncode == 0 and document["output"] == 1
    assert document["notices"] == ["audit = true, but lackpy could not append to .lackpy/audit.jsonl: No such device or address"]


def test_serve_over_stdio_ends_promptly_with_one_line(tmp_path):
    """`lackpy serve` reads the config before it answers: a link to /dev/stdin must not swallow the client's messages."""
    repo, lackpy_dir = state(tmp_path)
    (lackpy_dir / "config.toml").symlink_to("/dev/stdin")
    done = cli(repo, "serve")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"lackpy: error: {lackpy_dir.resolve() / 'config.toml'}: a symlink leads outside where lackpy reads it: replace the link with the file itself, or remove it"
    ]


def test_the_persons_own_writes_replace_what_was_planted_never_open_it(tmp_path, outside):
    """`lackpy kit create --force` over a FIFO or a link to a file outside: the file is replaced, the canary untouched."""
    repo, lackpy_dir = state(tmp_path)
    os.mkfifo(lackpy_dir / "kits" / "pipe.kit")
    (lackpy_dir / "kits" / "link.kit").symlink_to(outside)
    for name in ("pipe", "link"):
        done = cli(repo, "kit", "create", name, "--tools", "read_file", "--force")
        assert done.returncode == 0, done.stderr
        assert (lackpy_dir / "kits" / f"{name}.kit").is_file() and not (lackpy_dir / "kits" / f"{name}.kit").is_symlink()
    assert outside.read_text() == "CANARY-SECRET\n"
    refused = cli(repo, "kit", "create", "link", "--tools", "read_file")
    assert refused.returncode != 0 and "already exists" in refused.stderr
    (lackpy_dir / "templates").mkdir()
    os.mkfifo(lackpy_dir / "templates" / "hi.tmpl")
    svc = LackpyService(repo)
    promptly(lambda: svc.template_save("hi", "say hi", "1", "readonly", force=True))
    assert [t["name"] for t in svc.template_list()] == ["hi"]
    (lackpy_dir / "config.toml").unlink(missing_ok=True)
    os.mkfifo(lackpy_dir / "config.toml")
    raised = promptly(lambda: svc.mcp_add("notes", {"command": "true"}))
    assert isinstance(raised, ConfigError) and "config.toml: not a regular file (a FIFO)" in str(raised)


def test_kits_are_not_created_through_a_link_out_of_the_workspace(tmp_path):
    repo, lackpy_dir = state(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (lackpy_dir / "kits").rmdir()
    (lackpy_dir / "kits").symlink_to(elsewhere)
    done = cli(repo, "kit", "create", "mine", "--tools", "read_file")
    assert done.returncode != 0 and ".lackpy/kits: a symlink leads out of the workspace" in done.stderr
    assert list(elsewhere.iterdir()) == []
