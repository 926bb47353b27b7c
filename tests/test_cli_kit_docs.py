"""The reproduction through the installed command: a cloned repository's kit file names a workspace file as its docs.

``lackpy docs index --kit x`` used to list ``secrets.txt`` and ``lackpy docs
show secrets.txt`` printed it, although a kit's docs are the kit's and no
file tool was asked for. Each run here is the real ``lackpy`` command in a
temporary workspace, with its own trust record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostile_kits import CANARY, plant

EXE = Path(sys.executable).parent / "lackpy"
COMMAND = [str(EXE)] if EXE.exists() else [sys.executable, "-m", "lackpy"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The hostile repository (``hostile_kits.plant``): kit x's docs: names secrets.txt, kit y is above read-only."""
    plant(tmp_path / "repo")
    return tmp_path / "repo"


def lackpy(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*COMMAND, *args, "-w", str(repo)], capture_output=True, text=True, timeout=60, env={**os.environ, "LACKPY_LOAD_PLUGINS": ""},
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """The run failed with exit 2 and one line on stderr that says so (notices aside), and the canary is nowhere."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert CANARY not in done.stdout and CANARY not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("lackpy: error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    return errors[0]


def test_the_docs_of_a_hostile_kit_are_files_beside_it_and_the_secret_is_never_shown(repo):
    index = lackpy(repo, "docs", "index", "--kit", "x", "--json")
    assert index.returncode == 0, index.stderr
    assert json.loads(index.stdout) == {"tool_docs": {"read_file": "docs/tools/read_file.md"}, "kit_docs": [".lackpy/kits/secrets.txt"]}
    assert "is not one lackpy lists here" in one_line_error(lackpy(repo, "docs", "show", "secrets.txt"))
    missing = one_line_error(lackpy(repo, "docs", "show", ".lackpy/kits/secrets.txt"))
    assert "does not exist; the kit file x.kit names it relative to its own folder" in missing
    for path in (str(repo / "secrets.txt"), "../repo/secrets.txt", "./secrets.txt", ".lackpy/kits/../../secrets.txt"):
        assert "is not one lackpy lists here" in one_line_error(lackpy(repo, "docs", "show", path))


def test_a_docs_path_that_climbs_out_makes_the_kit_an_error_naming_its_file(repo):
    (repo / ".lackpy" / "kits" / "x.kit").write_text("---\nname: x\ndocs: ../../secrets.txt\n---\nread_file\n")
    message = one_line_error(lackpy(repo, "docs", "index", "--kit", "x"))
    assert str(repo / ".lackpy" / "kits" / "x.kit") in message and "is not a path beneath the kit's folder" in message
    assert "a kit's docs live beside its file" in message


def test_an_ignored_kit_lists_and_shows_no_docs_until_trusted(repo):
    """y is above read-only in an untrusted workspace: its docs are neither listed nor read; after lackpy trust they are."""
    assert "comes from this workspace" in one_line_error(lackpy(repo, "docs", "index", "--kit", "y"))
    assert "is not one lackpy lists here" in one_line_error(lackpy(repo, "docs", "show", ".lackpy/kits/y.md"))
    assert subprocess.run([*COMMAND, "trust", str(repo)], capture_output=True, text=True, timeout=60).returncode == 0
    index = lackpy(repo, "docs", "index", "--kit", "y", "--json")
    assert index.returncode == 0 and json.loads(index.stdout)["kit_docs"] == [".lackpy/kits/y.md"], index.stderr
    shown = lackpy(repo, "docs", "show", ".lackpy/kits/y.md")
    assert shown.returncode == 0 and shown.stdout == "# y: writes notes\n", shown.stderr


def test_the_docs_that_belong_to_a_kit_and_lackpys_own_still_show(repo):
    """Beside the kit, beneath docs/kits (untrusted: neither widens anything), a tool's doc by name, kit info's list."""
    assert lackpy(repo, "docs", "show", ".lackpy/kits/team.md").stdout == "# team: reads notes\n"
    assert lackpy(repo, "docs", "show", "docs/kits/old.md").stdout == "# old: greps\n"
    assert lackpy(repo, "docs", "show", "read_file").stdout.startswith("# read_file")
    info = lackpy(repo, "kit", "info", "team", "--json")
    assert info.returncode == 0 and json.loads(info.stdout)["docs"] == [".lackpy/kits/team.md", "docs/tools/read_file.md"]
