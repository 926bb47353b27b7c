"""Shell commands run confined to the workspace (Landlock): real commands, real kernel, canaries in tmp dirs.

Every command here runs through the tools (``run_command``, ``start_process``)
with the real supervisor, and again without it (the ``preexec_fn`` path),
against files in pytest's temporary directories: a denied ``secrets/key`` in
the workspace, a canary beside the workspace, and a TCP server this test
starts on 127.0.0.1. Nothing replaces a system call: the tests of what
lackpy says where the kernel cannot confine replace lackpy's own availability
check, and the test of failing closed hands the real child an fd that is not
a ruleset, so the real landlock_restrict_self fails.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lackpy.errors import LackpyWarning, ToolError
from lackpy.kit.context import ToolContext
from lackpy.host import confine, hardlinks, local_shell
from lackpy.host.landlock import landlock_abi
from lackpy.tools.shell import poll_process, run_command, start_process
from lackpy.tools.workspace import denied

ABI = landlock_abi()
needs_landlock = pytest.mark.skipif(ABI == 0, reason="the kernel has no Landlock (ABI 0): commands cannot be confined here")

SECRET = "TOP-SECRET-KEY"
CLIENT = """\
import socket, sys
port = int(sys.argv[1])
def attempt(what, fn):
    try:
        fn()
        print(what, "ok")
    except OSError as exc:
        print(what, "refused", exc.errno)
def tcp():
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"TCP")
def fast_open():
    with socket.socket() as s:
        s.sendto(b"TFO", socket.MSG_FASTOPEN, ("127.0.0.1", port))
def udp():
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
def bind():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
attempt("tcp", tcp)
attempt("tfo", fast_open)
attempt("udp", udp)
attempt("bind", bind)
"""


NO_PIDNS = "no pid namespace: none in this test"
MOUNTS = not local_shell._namespaces()  # the supervisor can hold .lackpy read-only in a mount namespace here


@pytest.fixture(params=["supervised", "holes", "preexec"])
def path(request, monkeypatch) -> str:
    """Each test runs with the supervisor (in a pid and mount namespace where it can), without the namespaces, and without it.

    "supervised" keeps .lackpy read-only with a mount where pid namespaces
    work; "holes" and "preexec" (the child confines itself in preexec_fn)
    with the Landlock ruleset alone.
    """
    if request.param == "supervised" and not MOUNTS:
        pytest.skip(f"no pid and mount namespaces here ({local_shell._namespaces()}): 'holes' covers it")
    if request.param == "holes":
        monkeypatch.setattr(local_shell, "_probed", [NO_PIDNS])
    if request.param == "preexec":
        monkeypatch.setattr(local_shell, "_tracking", False)
    return request.param


@pytest.fixture
def make_ctx(make_ctx, workspace: Path):
    """The shared contexts (tests/tools/conftest.py), over a workspace that also holds ``secrets/key`` and a ``.pem``."""
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key").write_text(SECRET + "\n")
    (workspace / "src" / "pkg" / "id.pem").write_text(SECRET + "\n")
    return make_ctx


@pytest.fixture
def server():
    """A TCP server on 127.0.0.1: (port, what each accepted connection sent)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    received.append(conn.recv(100))
                except OSError:
                    received.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    stop.set()
    thread.join()
    listener.close()


def finished(ctx: ToolContext, id: str, timeout: float = 20.0) -> dict:
    """Poll a background process until it ends; its whole output."""
    out, err = [], []
    deadline = time.monotonic() + timeout
    while True:
        state = poll_process(ctx, id)
        out.append(state["stdout"])
        err.append(state["stderr"])
        if not state["running"]:
            break
        assert time.monotonic() < deadline, "the process never finished"
        time.sleep(0.02)
    tail = poll_process(ctx, id)
    return {**state, "stdout": "".join(out) + tail["stdout"], "stderr": "".join(err) + tail["stderr"]}


# --------------------------------------------------------------------------- deny paths


@needs_landlock
def test_a_denied_file_cannot_be_read(make_ctx, workspace: Path, path: str) -> None:
    ctx = make_ctx(deny=["secrets/", "*.pem"])
    (workspace / "src" / "link").symlink_to("../secrets/key")
    for command in (
        "cat secrets/key",
        "cat ./src/../secrets/key",
        "cat src/link",
        f"cat {workspace}/secrets/key",
        "cat src/pkg/id.pem",
        "cp secrets/key src/copy; cat src/copy",
        "python3 -c 'print(open(\"secrets/key\").read())'",
    ):
        result = run_command(ctx, command)
        assert SECRET not in result["stdout"], command
        assert result["code"] != 0, command
        assert "unconfined" not in result
    assert "Permission denied" in run_command(ctx, "cat secrets/key")["stderr"]
    assert run_command(ctx, "cat src/pkg/util.py")["stdout"] == "def f():\n    return 1  # TODO: three\n"


@needs_landlock
def test_a_denied_path_cannot_be_changed(make_ctx, workspace: Path, path: str) -> None:
    ctx = make_ctx(deny=["secrets/"])
    for command in ("echo x > secrets/key", "echo x >> secrets/key", "rm -f secrets/key", "mv secrets public",
                    "rm -rf secrets", "echo x > secrets/new", "ln secrets/key src/hard", "chmod 777 secrets/key"):
        run_command(ctx, command)
    assert (workspace / "secrets" / "key").read_text() == SECRET + "\n"
    assert sorted(os.listdir(workspace / "secrets")) == ["key"]
    assert not (workspace / "public").exists() and not (workspace / "src" / "hard").exists()


@needs_landlock
def test_paths_matching_no_pattern_stay_readable(make_ctx, workspace: Path, path: str) -> None:
    """`secrets/` denies directories only: a file named secrets elsewhere is not denied, as for read_file."""
    (workspace / "src" / "secrets").write_text("not a directory\n")
    ctx = make_ctx(deny=["secrets/"])
    assert run_command(ctx, "cat src/secrets")["stdout"] == "not a directory\n"


@needs_landlock
def test_a_workspace_reached_through_a_symlink(make_ctx, workspace: Path, tmp_path: Path, path: str) -> None:
    link = tmp_path / "link"
    link.symlink_to(workspace, target_is_directory=True)
    ctx = make_ctx(root=link, deny=["secrets/"])
    assert SECRET not in run_command(ctx, "cat secrets/key")["stdout"]
    assert run_command(ctx, "echo made > src/made.txt")["code"] == 0
    assert (workspace / "src" / "made.txt").read_text() == "made\n"


def test_denied_paths_are_what_the_file_tools_deny(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for rel in ("a/secrets/k", "a/b/x.pem", "build/out", "src/build/keep", "keep.pem", "docs/a.md", "docs/b.txt",
                ".env", "deep/er/.env"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    patterns = ("secrets/", "*.pem", "!keep.pem", "/build", "docs/*.md", ".env")
    found = sorted(os.path.relpath(p, root) for p in confine.denied_paths(str(root), patterns))
    assert found == [".env", "a/b/x.pem", "a/secrets", "build", "deep/er/.env", "docs/a.md"]
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            hidden = any(rel == f or rel.startswith(f + "/") for f in found)
            assert denied(rel, patterns, name in dirnames) == hidden, rel


# --------------------------------------------------------------------------- hard links of denied files


@pytest.fixture
def linked(make_ctx, workspace: Path) -> Path:
    """``app/.env`` (denied by ``*.env``) with aliases beside it, in a subdirectory, and of ``secrets/key`` in ``src/``."""
    (workspace / "app" / "sub").mkdir(parents=True)
    (workspace / "app" / ".env").write_text(SECRET + "\n")
    (workspace / "app" / "main.py").write_text("print('main')\n")
    os.link(workspace / "app" / ".env", workspace / "app" / "notes.txt")
    os.link(workspace / "app" / ".env", workspace / "app" / "sub" / "deep.txt")
    os.link(workspace / "secrets" / "key", workspace / "src" / "key.txt")
    return workspace


@needs_landlock
def test_an_alias_of_a_denied_file_cannot_be_read_nor_the_denied_name(make_ctx, linked: Path, path: str) -> None:
    """Rules attach to inodes: a rule granted on app/notes.txt would grant app/.env itself. No such rule is granted."""
    ctx = make_ctx(deny=["*.env", "secrets/", "*.pem"])
    for command in ("cat app/notes.txt", "cat app/.env", "cat app/sub/deep.txt", "cat src/key.txt", "cat secrets/key",
                    "cp app/notes.txt /dev/stdout", "grep -r TOP-SECRET ."):
        result = run_command(ctx, command)
        assert SECRET not in result["stdout"] + result["stderr"], command
        assert "hard_links" not in result and "unconfined" not in result
    assert "Permission denied" in run_command(ctx, "cat app/notes.txt")["stderr"]
    assert run_command(ctx, "cat app/main.py && cat src/app.py | head -1")["stdout"] == "print('main')\n# TODO: one\n"


@needs_landlock
def test_no_write_reaches_a_denied_file_through_an_alias(make_ctx, linked: Path, path: str) -> None:
    ctx = make_ctx(deny=["*.env", "secrets/"])
    for command in ("echo pwned >> app/notes.txt", "echo pwned > app/sub/deep.txt", "echo pwned >> src/key.txt",
                    "truncate -s 0 app/notes.txt", "echo pwned >> app/.env"):
        run_command(ctx, command)
    assert (linked / "app" / ".env").read_text() == SECRET + "\n"
    assert (linked / "secrets" / "key").read_text() == SECRET + "\n"
    assert run_command(ctx, "echo more >> app/main.py")["code"] == 0  # beside them, files still change


@needs_landlock
def test_a_confined_command_cannot_make_an_alias(make_ctx, workspace: Path, path: str) -> None:
    """The links of this issue come from outside lackpy: Landlock refuses a command's own."""
    (workspace / "app" / "sub").mkdir(parents=True)
    (workspace / "app" / ".env").write_text(SECRET + "\n")
    ctx = make_ctx(deny=["*.env", "secrets/"])
    for command in ("ln app/.env app/x.txt", "ln app/.env app/sub/x.txt", "ln app/.env src/x.txt", "ln secrets/key src/k.txt",
                    "python3 -c 'import os; os.link(\"app/.env\", \"src/y.txt\")'"):
        assert run_command(ctx, command)["code"] != 0, command
    assert sorted(p.name for p in (workspace / "src").iterdir()) == ["app.py", "pkg"]
    assert os.stat(workspace / "app" / ".env").st_nlink == 1


@needs_landlock
def test_a_denied_directorys_link_to_an_allowed_file_hides_that_file_only(make_ctx, workspace: Path, path: str) -> None:
    os.link(workspace / "src" / "app.py", workspace / "secrets" / "copy")
    ctx = make_ctx(deny=["secrets/"])
    assert "TODO" not in run_command(ctx, "cat src/app.py")["stdout"]
    assert run_command(ctx, "cat src/pkg/util.py")["stdout"] == "def f():\n    return 1  # TODO: three\n"


@needs_landlock
def test_a_file_whose_names_are_all_allowed_stays_readable(make_ctx, workspace: Path, path: str) -> None:
    os.link(workspace / "src" / "app.py", workspace / "src" / "pkg" / "again.py")
    result = run_command(make_ctx(deny=["secrets/"]), "cat src/pkg/again.py | head -1")
    assert result["stdout"] == "# TODO: one\n" and "hard_links" not in result


@needs_landlock
def test_an_alias_made_between_the_walk_and_the_rules_gets_no_rule(make_ctx, workspace: Path, monkeypatch) -> None:
    """The rule is judged on the descriptor it is made from: a link that appeared after the walk is seen there."""
    (workspace / "app").mkdir()
    (workspace / "app" / ".env").write_text(SECRET + "\n")
    walk = confine.find_holes

    def walked_then_linked(confinement):
        found = walk(confinement)
        os.link(workspace / "app" / ".env", workspace / "app" / "late.txt")
        return found

    monkeypatch.setattr(confine, "find_holes", walked_then_linked)
    result = run_command(make_ctx(deny=["*.env"]), "cat app/late.txt; cat app/.env")
    assert SECRET not in result["stdout"] and result["stderr"].count("Permission denied") == 2


@needs_landlock
def test_an_alias_beside_the_workspace_gets_no_rule_that_would_open_the_denied_name(make_ctx, workspace: Path, path: str) -> None:
    """A file beside the workspace gets a rule of its own (its directory is on the way to the holes): not this one."""
    (workspace / "app").mkdir()
    (workspace / "app" / ".env").write_text(SECRET + "\n")
    os.link(workspace / "app" / ".env", workspace.parent / "beside.txt")
    (workspace.parent / "plain.txt").write_text("plain\n")
    result = run_command(make_ctx(deny=["*.env"]), "cat app/.env; cat ../beside.txt; cat ../plain.txt")
    assert result["stdout"] == "plain\n" and result["stderr"].count("Permission denied") == 2


@pytest.fixture
def crowded(make_ctx, workspace: Path, monkeypatch) -> Path:
    """``secrets/`` with more entries than the rest of the workspace and than a small budget: link counts decide."""
    for index in range(40):
        (workspace / "secrets" / f"k{index:02}").write_text(SECRET + "\n")
    (workspace / "secrets" / "deep").mkdir()  # never reached: the budget runs out in secrets/ itself
    (workspace / "secrets" / "deep" / "k").write_text(SECRET + "\n")
    monkeypatch.setattr(hardlinks, "DENIED_WALK_MIN", 5)
    return workspace


@needs_landlock
def test_past_the_budget_link_counts_clear_files_with_one_name(make_ctx, crowded: Path) -> None:
    os.link(crowded / "src" / "app.py", crowded / "src" / "pkg" / "again.py")  # two names, both allowed
    result = run_command(make_ctx(deny=["secrets/"], require_command_confinement=True), "cat src/pkg/again.py | head -1")
    assert result == {"code": 0, "stdout": "# TODO: one\n", "stderr": "", "timed_out": False}


@needs_landlock
def test_past_the_budget_a_file_with_a_name_lackpy_cannot_find_is_said_or_refused(make_ctx, crowded: Path) -> None:
    os.link(crowded / "secrets" / "deep" / "k", crowded / "src" / "notes.txt")
    result = run_command(make_ctx(deny=["secrets/"]), "echo ran")
    assert result["stdout"] == "ran\n"
    assert result["hard_links"] == (
        "not checked for hard links: 1 file(s) with hard links whose other names lackpy could not find (src/notes.txt); "
        "if one is a [tools] deny file under another name (the denied directories hold more than 9 entries), this "
        "command can read it"
    )
    with pytest.raises(ToolError) as info:
        run_command(make_ctx(deny=["secrets/"], require_command_confinement=True), "echo ran > src/ran.txt")
    message = str(info.value)
    assert message.startswith("run_command: cannot confine the command: 1 file(s) with hard links") and "\n" not in message
    assert message.endswith("require_command_confinement is true; deny a smaller directory, or replace such files with "
                            "copies of their own; the command did not run")
    assert not (crowded / "src" / "ran.txt").exists()
    ctx = make_ctx(deny=["secrets/"])
    id = start_process(ctx, "echo ran")
    assert finished(ctx, id)["hard_links"] == result["hard_links"]


# --------------------------------------------------------------------------- writes


@needs_landlock
def test_writes_outside_the_workspace_are_refused(make_ctx, workspace: Path, outside: Path, canary, path: str) -> None:
    for settings in ({}, {"deny": ["secrets/"]}):
        ctx = make_ctx(**settings)
        for command in (
            f"echo x > {outside.parent}/made.txt",
            "echo x > ../outside/made.txt",
            "echo x >> ../outside/canary.txt",
            "rm -f ../outside/canary.txt",
            "mkdir ../made",
            "ln -s /etc/passwd ../outside/link",
            f"python3 -c 'open(\"{outside.parent}/made.txt\", \"w\")'",
        ):
            result = run_command(ctx, command)
            assert result["code"] != 0, command
        canary.assert_untouched()
        assert not (outside.parent / "made.txt").exists()
        assert not (workspace.parent / "made").exists()


@needs_landlock
def test_writes_inside_the_workspace_and_tmpdir_work(make_ctx, workspace: Path, path: str) -> None:
    ctx = make_ctx()
    move = "mv d/e/f d/g" if ABI >= 2 else "mv d/e/f d/e/g && cp d/e/g d/g"  # ABI 1 refuses every move across directories
    command = (
        f"cd src && echo a > new.txt && mkdir -p d/e && echo b > d/e/f && {move} && rm new.txt"
        " && echo c > $TMPDIR/t && cat $TMPDIR/t && mktemp && echo $TMPDIR $TMP $TEMP && echo z > /dev/null"
        " && echo more >> ../README.md"
    )
    result = run_command(ctx, command)
    assert result["code"] == 0, result
    lines = result["stdout"].splitlines()
    assert lines[0] == "c"
    tmpdir = lines[2].split()[0]
    assert lines[2] == f"{tmpdir} {tmpdir} {tmpdir}" and lines[1].startswith(tmpdir + "/")
    assert not _inside(tmpdir, workspace) and not os.path.exists(tmpdir)  # removed once the command ended
    assert (workspace / "src" / "d" / "g").read_text() == "b\n" and not (workspace / "src" / "new.txt").exists()
    assert (workspace / "README.md").read_text().endswith("draft\nmore\n")


@needs_landlock
def test_each_command_gets_its_own_tmpdir(make_ctx, path: str) -> None:
    ctx = make_ctx()
    first = run_command(ctx, "echo $TMPDIR")["stdout"]
    assert first != run_command(ctx, "echo $TMPDIR")["stdout"]


@needs_landlock
def test_beside_a_denied_path_only_existing_entries_change(make_ctx, workspace: Path, path: str) -> None:
    """Landlock cannot grant creating entries in a directory without granting it on the denied entry too."""
    (workspace / "src" / "pkg" / "secrets").mkdir()
    (workspace / "lib").mkdir()
    ctx = make_ctx(deny=["secrets/"])
    assert run_command(ctx, "echo more >> src/pkg/util.py && echo made > lib/new.txt")["code"] == 0
    assert (workspace / "src" / "pkg" / "util.py").read_text().endswith("more\n")
    assert (workspace / "lib" / "new.txt").read_text() == "made\n"
    assert run_command(ctx, "echo x > src/pkg/new.py")["code"] != 0
    assert not (workspace / "src" / "pkg" / "new.py").exists()


# --------------------------------------------------------------------------- lackpy's own state

STATE = {"config.toml": "[tools]\ndeny = [\"secrets/\"]\n", "kits/readonly.kit": "---\nname: readonly\n---\nread_file\n"}


def _state(workspace: Path) -> dict[str, str]:
    """Every entry under .lackpy/ (directories as '/'), with the content of each file."""
    found = {}
    for entry in sorted((workspace / ".lackpy").rglob("*")):
        rel = str(entry.relative_to(workspace))
        found[rel] = "/" if entry.is_dir() and not entry.is_symlink() else entry.read_text()
    return found


@needs_landlock
def test_a_command_cannot_change_lackpys_state(make_ctx, workspace: Path, path: str) -> None:
    for rel, text in STATE.items():
        (workspace / ".lackpy" / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / ".lackpy" / rel).write_text(text)
    before = _state(workspace)
    ctx = make_ctx()
    for command in (
        "echo x > .lackpy/kits/readonly.kit", "echo x >> .lackpy/config.toml", ": > .lackpy/config.toml",
        "rm .lackpy/config.toml", "rm -rf .lackpy", "mv .lackpy .l2", "mv .lackpy/kits .lackpy/k2",
        "mv .lackpy/kits/readonly.kit src/", "touch .lackpy/new", "mkdir .lackpy/kits/sub", "ln -s /etc .lackpy/link",
        "ln .lackpy/config.toml src/hard", "cd .lackpy/kits && echo x > coding.kit",
    ):
        assert run_command(ctx, command)["code"] != 0, command
    id = start_process(ctx, "echo x > .lackpy/kits/readonly.kit; rm -rf .lackpy; echo done > src/done.txt")
    assert re.search("Permission denied|Read-only file system", finished(ctx, id)["stderr"])
    assert _state(workspace) == before
    assert not (workspace / ".l2").exists() and not (workspace / "src" / "hard").exists()
    assert run_command(ctx, "cat .lackpy/kits/readonly.kit")["stdout"] == STATE["kits/readonly.kit"]
    assert run_command(ctx, "echo made > src/made.txt && mkdir -p src/a/b && mv src/made.txt src/a/b/")["code"] == 0
    assert (workspace / "src" / "a" / "b" / "made.txt").read_text() == "made\n"
    assert (workspace / "src" / "done.txt").read_text() == "done\n"


@needs_landlock
def test_a_command_cannot_make_lackpys_state(make_ctx, workspace: Path, path: str) -> None:
    ctx = make_ctx()
    for command in ("mkdir .lackpy", "mkdir -p .lackpy/kits", "touch .lackpy", "ln -s src .lackpy", "mv src .lackpy",
                    "mkfifo .lackpy", "cd src && mkdir ../.lackpy", "mkdir -p .lackpy/kits && echo x > .lackpy/kits/a.kit"):
        assert run_command(ctx, command)["code"] != 0, command
        if path == "supervised":  # lackpy made it, empty, to mount it read-only
            assert (workspace / ".lackpy").is_dir() and not (workspace / ".lackpy").is_symlink(), command
            assert os.listdir(workspace / ".lackpy") == [], command
        else:
            assert not os.path.lexists(workspace / ".lackpy"), command
    assert (workspace / "src" / "app.py").exists()


@needs_landlock
def test_where_a_symlinked_state_leads_is_read_only_too(make_ctx, workspace: Path, path: str) -> None:
    """A repository may ship .lackpy as a symlink to a directory of its own; lackpy reads its state there."""
    (workspace / "conf" / "kits").mkdir(parents=True)
    (workspace / "conf" / "config.toml").write_text(STATE["config.toml"])
    (workspace / ".lackpy").symlink_to("conf")
    ctx = make_ctx()
    for command in ("echo x > conf/config.toml", "echo x > .lackpy/config.toml", "touch conf/kits/new.kit",
                    "rm .lackpy", "rm -rf conf", "mv conf c2"):
        assert run_command(ctx, command)["code"] != 0, command
    assert (workspace / "conf" / "config.toml").read_text() == STATE["config.toml"]
    assert os.listdir(workspace / "conf" / "kits") == [] and os.readlink(workspace / ".lackpy") == "conf"


@needs_landlock
@pytest.mark.parametrize("path", ["holes", "preexec"], indirect=True)  # with a mount: the test that follows
def test_at_the_workspace_top_only_existing_files_change(make_ctx, workspace: Path, path: str) -> None:
    """Landlock cannot grant making entries at the top without granting it in .lackpy/ too."""
    ctx = make_ctx()
    for command in ("echo x > at_top.txt", "mkdir build", "rm README.md", "mv README.md README", "mv src source"):
        assert run_command(ctx, command)["code"] != 0, command
    assert sorted(os.listdir(workspace)) == ["README.md", "secrets", "src"]
    assert run_command(ctx, "echo more >> README.md && mkdir src/build && mv src/app.py src/build/")["code"] == 0
    assert (workspace / "README.md").read_text().endswith("draft\nmore\n")
    assert (workspace / "src" / "build" / "app.py").exists()


needs_mounts = pytest.mark.skipif(not MOUNTS, reason="no pid and mount namespaces here")


@needs_landlock
@needs_mounts
def test_with_a_mount_namespace_the_top_stays_writable(make_ctx, workspace: Path) -> None:
    (workspace / ".lackpy" / "kits").mkdir(parents=True)
    (workspace / ".lackpy" / "kits" / "readonly.kit").write_text(STATE["kits/readonly.kit"])
    ctx = make_ctx()  # no deny paths: every directory on the way to one could not get new entries
    command = "echo x > at_top.txt && mkdir build && mv at_top.txt build/ && rm README.md && mv src source && echo ok"
    result = run_command(ctx, command)
    assert result["stdout"] == "ok\n", result
    assert sorted(os.listdir(workspace)) == [".lackpy", "build", "secrets", "source"]
    assert run_command(ctx, "echo x > .lackpy/kits/readonly.kit")["stderr"].endswith("Read-only file system\n")
    assert (workspace / ".lackpy" / "kits" / "readonly.kit").read_text() == STATE["kits/readonly.kit"]
    assert not any(".lackpy" in line for line in Path("/proc/self/mountinfo").read_text().splitlines())


@needs_landlock
@needs_mounts
def test_a_mount_that_cannot_be_made_runs_nothing(make_ctx, workspace: Path, monkeypatch) -> None:
    """The ruleset left .lackpy writable for the mount to hold: a mount that fails must run nothing."""
    monkeypatch.setattr(confine, "mountable_state", lambda root: os.path.join(root, "no-such-directory"))
    with pytest.raises(ToolError, match=r"^run_command: could not confine the command \(bind-mounting .*no-such-directory"):
        run_command(make_ctx(), "echo ran > src/ran.txt")
    assert not (workspace / "src" / "ran.txt").exists()


@needs_landlock
@needs_mounts
def test_without_its_supervisor_a_command_gets_the_ruleset_that_holds_lackpy(make_ctx, workspace: Path, monkeypatch) -> None:
    """The supervisor cannot start, so no mount: the command falls back to a child that applies the holes ruleset."""
    monkeypatch.setattr(local_shell, "_tracking", True)  # restored after: the failed start turns tracking off
    monkeypatch.setattr(local_shell, "_supervisor_argv", lambda fd, hold, command: [sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.warns(LackpyWarning, match="did not start"):
        result = run_command(make_ctx(), "echo x > .lackpy/new; echo y > at_top.txt; echo z > src/made.txt")
    assert "Permission denied" in result["stderr"]
    assert os.listdir(workspace / ".lackpy") == [] and not (workspace / "at_top.txt").exists()
    assert (workspace / "src" / "made.txt").read_text() == "z\n"


@needs_landlock
def test_another_mount_of_the_workspace_keeps_lackpy_to_the_ruleset(workspace: Path, tmp_path: Path) -> None:
    """A mount on .lackpy would not cover another name for it: there lackpy relies on the ruleset alone."""
    unshare = ["unshare", "-m", "--propagation", "private"] if os.geteuid() == 0 else ["unshare", "-Urm"]
    (workspace / ".lackpy").mkdir()
    (tmp_path / "alt").mkdir()
    script = (
        f"mount --bind {tmp_path} {tmp_path / 'alt'} && {sys.executable} -c '"
        "import sys; from lackpy.host import confine; from lackpy.kit.context import ToolContext; "
        "from lackpy.tools.shell import run_command; "
        "print(confine.mountable_state(sys.argv[1]), confine.mountable_state(sys.argv[2]), flush=True); "
        "print(run_command(ToolContext(sys.argv[1]), \"echo x > ../alt/ws/.lackpy/new; echo y > ../alt/ws/top\")[\"stderr\"].count(\"Permission denied\"))"
        f"' {workspace} {tmp_path / 'alt'}"
    )
    done = subprocess.run([*unshare, "sh", "-c", script], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"cannot make a mount namespace for the test: {done.stderr.strip()}")
    assert done.stdout.splitlines() == ["None None", "2"], done.stderr
    assert os.listdir(workspace / ".lackpy") == [] and not (workspace / "top").exists()


# --------------------------------------------------------------------------- network


def _client(ctx: ToolContext, workspace: Path, port: int) -> dict[str, str]:
    (workspace / "src" / "client.py").write_text(CLIENT)
    result = run_command(ctx, f"{sys.executable} src/client.py {port}")
    assert result["code"] == 0, result
    return dict(line.split(" ", 1) for line in result["stdout"].splitlines())


@needs_landlock
def test_no_network_by_default(make_ctx, workspace: Path, server, path: str) -> None:
    port, received = server
    outcome = _client(make_ctx(), workspace, port)
    assert outcome == {"tcp": "refused 13", "tfo": "refused 1", "udp": "refused 1", "bind": "refused 13"} if ABI >= 4 else \
        all(v.startswith("refused") for v in outcome.values())
    time.sleep(0.2)
    assert received == []


@needs_landlock
def test_the_network_when_the_setting_allows_it(make_ctx, workspace: Path, server, path: str) -> None:
    port, received = server
    outcome = _client(make_ctx(command_network=True, deny=["secrets/"]), workspace, port)
    assert outcome["tcp"] == "ok" and outcome["udp"] == "ok" and outcome["bind"] == "ok"
    deadline = time.monotonic() + 5
    while b"TCP" not in received and time.monotonic() < deadline:
        time.sleep(0.02)
    assert b"TCP" in received


def test_the_network_setting_must_be_true_or_false(make_ctx) -> None:
    with pytest.raises(ToolError, match="command_network must be true or false"):
        run_command(make_ctx(command_network="yes"), "true")


# --------------------------------------------------------------------------- background processes


@needs_landlock
def test_start_process_is_confined_the_same_way(make_ctx, workspace: Path, outside: Path, canary, server, path: str) -> None:
    port, received = server
    (workspace / "src" / "client.py").write_text(CLIENT)
    ctx = make_ctx(deny=["secrets/"])
    id = start_process(ctx, f"cat secrets/key; echo x > ../outside/made.txt; echo y > src/made.txt; "
                            f"echo $TMPDIR; {sys.executable} src/client.py {port}")
    state = finished(ctx, id)
    assert SECRET not in state["stdout"] and "unconfined" not in state
    tmpdir = state["stdout"].splitlines()[0]
    assert "tcp refused" in state["stdout"] and "udp refused" in state["stdout"]
    assert not (outside.parent / "made.txt").exists()
    canary.assert_untouched()
    assert (workspace / "src" / "made.txt").read_text() == "y\n"
    assert not os.path.exists(tmpdir)
    assert received == []


# --------------------------------------------------------------------------- ordinary commands


@needs_landlock
def test_ordinary_commands_still_work(make_ctx, workspace: Path, path: str) -> None:
    ctx = make_ctx(deny=["secrets/"])
    assert run_command(ctx, "ls")["stdout"].split() == ["README.md", "secrets", "src"]
    assert run_command(ctx, "python3 -c 'print(6 * 7)'")["stdout"] == "42\n"
    assert run_command(ctx, "git --version")["stdout"].startswith("git version")
    result = run_command(ctx, "pwd; ls; echo oops >&2; echo gone > /dev/stderr", cwd="src/pkg")
    assert os.path.realpath(result["stdout"].splitlines()[0]) == os.path.realpath(workspace / "src" / "pkg")
    assert result["stderr"] == "oops\ngone\n"
    assert run_command(ctx, "git init -q src/repo && git -C src/repo status --short")["code"] == 0


# --------------------------------------------------------------------------- failing closed


@needs_landlock
def test_a_ruleset_that_cannot_be_applied_runs_nothing(make_ctx, workspace: Path, monkeypatch, path: str) -> None:
    """An fd that is no ruleset: landlock_restrict_self fails in the child, which then runs nothing."""
    monkeypatch.setattr(confine, "build_ruleset", lambda *args, **kwargs: os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
    ctx = make_ctx()
    with pytest.raises(ToolError) as info:
        run_command(ctx, "echo ran > ran.txt")
    assert str(info.value).startswith("run_command: could not confine the command") and "\n" not in str(info.value)
    with pytest.raises(ToolError, match="^start_process: could not confine the command"):
        start_process(ctx, "echo ran > ran.txt")
    time.sleep(0.2)
    assert not (workspace / "ran.txt").exists()


@needs_landlock
def test_too_large_a_workspace_fails_closed(make_ctx, workspace: Path, monkeypatch) -> None:
    monkeypatch.setattr(confine, "MAX_WALK_ENTRIES", 3)
    with pytest.raises(ToolError) as info:
        run_command(make_ctx(deny=["secrets/"]), "echo ran > src/ran.txt")
    message = str(info.value)
    assert message.startswith("run_command: cannot confine the command: the workspace has more than 3 files") and "\n" not in message
    assert "deny the large directories" in message
    assert not (workspace / "src" / "ran.txt").exists()
    assert run_command(make_ctx(), "echo ran > src/ran.txt")["code"] == 0  # nothing to walk without deny patterns


# --------------------------------------------------------------------------- saying what is confined


@needs_landlock
def test_status_says_what_commands_may_do() -> None:
    assert confine.status(state_mounted=True).startswith(
        f"commands confined (Landlock ABI {ABI}): writes in the workspace (not its .lackpy/) and a private TMPDIR only"
    )
    line = confine.status()
    assert line == (
        f"commands confined (Landlock ABI {ABI}): writes in the workspace (not its .lackpy/, nor new entries at its "
        "top) and a private TMPDIR only, [tools] deny paths unreadable under any name (hard links refused by inode, "
        "by the file tools too; past the walk of large denied directories by link count, and a command says "
        '"hard_links" in its result where that cannot tell), no network'
    )
    assert confine.status({"command_network": True}).endswith("network allowed ([tools] command_network = true)")
    assert "and a command refuses to run where that cannot tell" in confine.status({"require_command_confinement": True})


def test_where_the_kernel_cannot_confine_the_results_say_so(make_ctx, monkeypatch) -> None:
    monkeypatch.setattr(confine, "unavailable", lambda: "the kernel has no Landlock")
    assert confine.status() == (
        "commands NOT confined: the kernel has no Landlock; they can read the [tools] deny paths, "
        "write anywhere you can (lackpy's .lackpy/ included) and reach the network; the file tools refuse the deny "
        "paths under any name (hard links by inode)"
    )
    ctx = make_ctx()
    result = run_command(ctx, "echo hi")
    assert result["stdout"] == "hi\n" and result["code"] == 0
    assert result["unconfined"].startswith("not confined: the kernel has no Landlock; this command could read")
    id = start_process(ctx, "echo hi")
    assert finished(ctx, id)["unconfined"] == result["unconfined"]
    with pytest.raises(ToolError, match="^run_command: commands cannot be confined here .*require_command_confinement"):
        run_command(make_ctx(require_command_confinement=True), "echo hi")


def _inside(path: str, root: Path) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(root) + "/")


@needs_landlock
def test_a_command_cannot_read_the_persons_oauth_tokens(make_ctx, tmp_path: Path, monkeypatch, path: str) -> None:
    from lackpy.host.private import write_private

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    write_private("oauth", "forge-0.json", b'{"tokens": {"access_token": "canary-token-7f3"}}')
    token = tmp_path / "config" / "lackpy" / "oauth" / "forge-0.json"
    ctx = make_ctx()
    for command in (f"cat {token}", f"python3 -c 'print(open(\"{token}\").read())'", f"cat {tmp_path}/config/lackpy/oauth/*"):
        result = run_command(ctx, command)
        assert result["code"] != 0 and "canary-token-7f3" not in result["stdout"] + result["stderr"], (command, result)
    (tmp_path / "config" / "lackpy" / "config.toml").write_text("# readable\n")
    assert run_command(ctx, f"cat {tmp_path}/config/lackpy/config.toml")["stdout"] == "# readable\n"  # the rest of the folder stays readable
