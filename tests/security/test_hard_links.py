"""A hard link of a denied file in an allowed folder: the reproduction, through the real CLI and over MCP.

``deny = ["*.env"]`` in the workspace's ``.lackpy/config.toml``, a canary in
``app/.env``, and ``ln app/.env app/notes.txt`` made before lackpy starts (as
a person's tool or a checkout script would). The installed ``lackpy`` command
runs programs in both modes; ``lackpy serve`` over stdio is called with the
official MCP client. The canary must appear in nothing lackpy returns, and
the denied file must keep its content.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lackpy.host.landlock import landlock_abi

CANARY = "CANARY-HARDLINK-7f3a"
needs_landlock = pytest.mark.skipif(landlock_abi() == 0, reason="the kernel has no Landlock (ABI 0): commands cannot be confined here")
#: The programs a person's agent might write; each reaches the denied file through its other name.
LOOK = (
    'found = grep("CANARY", glob="**/*")\n'
    'names = [e["name"] for e in list_dir("app")]\n'
    'texts = find_files("**/*", kind="text")\n'
    "[found, names, texts]\n"
)
READ = 'read_file("app/notes.txt")\n'
EDIT = 'edit_file("app/notes.txt", "CANARY", "gone")\n'
COMMANDS = (
    'a = run_command("cat app/notes.txt; cat app/.env; cat app/sub/deep.txt")\n'
    'b = run_command("echo pwned >> app/notes.txt; echo pwned >> app/sub/deep.txt")\n'
    "[a, b]\n"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "app" / "sub").mkdir(parents=True)
    (root / ".lackpy").mkdir()
    (root / ".lackpy" / "config.toml").write_text('[tools]\ndeny = ["*.env"]\n')
    (root / "app" / ".env").write_text(CANARY + "\n")
    (root / "app" / "main.py").write_text("print('main')\n")
    os.link(root / "app" / ".env", root / "app" / "notes.txt")
    os.link(root / "app" / ".env", root / "app" / "sub" / "deep.txt")
    return root


def lackpy_command() -> list[str]:
    """The installed ``lackpy`` script beside this interpreter, else ``python -m lackpy``."""
    script = Path(sys.executable).with_name("lackpy")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lackpy"]


def run_cli(ws: Path, program: str, mode: str, kit: str = "coding") -> tuple[dict, str]:
    """``lackpy run --kit KIT --mode MODE --yes --json prog.py`` in the workspace: (the JSON result, everything printed)."""
    path = ws.parent / "prog.py"
    path.write_text(program)
    done = subprocess.run(
        [*lackpy_command(), "run", "--kit", kit, "--mode", mode, "--yes", "--json", str(path)],
        cwd=ws, capture_output=True, text=True, timeout=120, env={**os.environ, "LACKPY_LOAD_PLUGINS": ""},
    )
    return json.loads(done.stdout), done.stdout + done.stderr


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_the_file_tools_refuse_the_alias_through_the_cli(ws: Path, mode: str) -> None:
    result, printed = run_cli(ws, READ, mode, kit="readonly")
    assert not result["success"] and result["error_kind"] == "tool"
    assert result["error"] == (
        "line 1: PathError in read_file: denied by the workspace policy: app/notes.txt "
        "(another name of a file [tools] deny covers)"
    )
    result, more = run_cli(ws, LOOK, mode, kit="readonly")
    assert result["success"] and result["output"] == [[], ["main.py", "sub"], ["app/main.py"]]
    result, edited = run_cli(ws, EDIT, mode, kit="filesystem")
    assert not result["success"] and "denied by the workspace policy: app/notes.txt" in result["error"]
    assert CANARY not in printed + more + edited
    assert (ws / "app" / ".env").read_text() == CANARY + "\n"


@needs_landlock
@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_commands_neither_read_nor_write_the_denied_file_through_the_cli(ws: Path, mode: str) -> None:
    result, printed = run_cli(ws, COMMANDS, mode)
    assert result["success"], result["error"]
    read, wrote = result["output"]
    assert read["stderr"].count("Permission denied") == 3 and read["stdout"] == ""
    assert wrote["code"] != 0 and "hard_links" not in read and "unconfined" not in read
    assert CANARY not in printed
    assert (ws / "app" / ".env").read_text() == CANARY + "\n"


def test_over_mcp_the_canary_never_appears(ws: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config-home"), "LACKPY_LOAD_PLUGINS": ""}
    env.pop("LACKPY_WORKSPACE", None)
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(ws), "--allow-kits", "readonly,coding", "--approval", "none"],
        env=env,
    )
    confined = landlock_abi() > 0
    programs = [READ, LOOK, EDIT] + ([COMMANDS] if confined else [])

    async def session() -> list:
        answers = []
        async with Client(server) as client:
            for program in programs:
                answer = await client.call_tool("run_program", {"program": program, "kit": "coding"})
                answers.append(answer)
        return answers

    answers = asyncio.run(session())
    for answer in answers:
        said = json.dumps(answer.structured_content) + "".join(getattr(block, "text", "") for block in answer.content)
        assert CANARY not in said
    read, look, edit = (answer.structured_content for answer in answers[:3])
    assert read["error_kind"] == "tool" and "denied by the workspace policy: app/notes.txt" in read["error"]
    assert look["success"] and look["output"][0] == []
    assert "denied by the workspace policy" in edit["error"]
    if confined:
        commands = answers[3].structured_content
        assert commands["success"] and commands["output"][0]["stderr"].count("Permission denied") == 3
    assert (ws / "app" / ".env").read_text() == CANARY + "\n"
    assert os.stat(ws / "app" / ".env").st_nlink == 3  # no write went through, and none replaced an alias either
