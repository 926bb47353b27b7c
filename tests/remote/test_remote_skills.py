"""Skills of other MCP servers (SEP-2640), with lackpy as the host: real servers (skills_server.py, the SDK's MCPServer)
started by lackpy over stdio from a trusted workspace's config, honest ones and hostile ones side by side.

What is checked: listing shows where each skill comes from and fetches no file; every file is verified before use;
a served skill's front matter grants nothing (its grade is held to read-only unless the person raises the ceiling,
its kit never reaches another server); a program runs with one only after a person approves it; a name another
origin has is refused and that skill stays; delegate never uses one; and every hostile server is refused in one line,
within its time, leaving the other servers' skills and tools as they were.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from lackpy.errors import KitError, ParamError  # noqa: E402

SERVER = Path(__file__).with_name("skills_server.py")
LACKPY = Path(sys.executable).with_name("lackpy")
HOSTILE = ["tampered", "frontmatter", "unlisted", "dynamic", "many", "outside", "huge", "slow", "dying", "escapes"]
HELLO = 'greeting = skill_file("assets/greeting.md").strip()\n{"greeting": greeting, "readme": read_file("README.md").splitlines()[0]}\n'
EXTRA = 'skill_file("assets/extra.md")\n'
WRITER = 'write_file("written.txt", "from a served skill\\n")\n"wrote"\n'


def skill(parent: Path, name: str, front: str, programs: dict[str, str], assets: dict[str, str] | None = None) -> None:
    folder = parent / name
    (folder / "programs").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{front}---\n# {name}\n\nWhat to do.\n")
    for program, text in programs.items():
        (folder / "programs" / f"{program}.py").write_text(text)
    for rel, text in (assets or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


def server_table(name: str, folder: Path, *modes: str, cwd: Path | None = None, timeout_s: float | None = None) -> str:
    lines = [f"[mcp.servers.{name}]", f"command = {json.dumps(sys.executable)}", f"args = {json.dumps([str(SERVER), str(folder), *modes])}"]
    if cwd is not None:
        lines.append(f"cwd = {json.dumps(str(cwd))}")
    if timeout_s is not None:
        lines.append(f"timeout_s = {timeout_s}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """The served skill folders, the logs of what each counted server was asked, and a trusted workspace naming the servers."""
    base = tmp_path_factory.mktemp("served")
    folder = base / "skills"
    skill(folder, "hello", "description: Greets from the README and its greeting asset.\ntools: [read_file, skill_file]\n"
          "intents:\n  - read README.md\n", {"main": HELLO, "extra": EXTRA},
          {"assets/greeting.md": "Hi there\n", "assets/extra.md": "an extra file\n", "references/guide.md": "# Guide\n"})
    skill(folder, "writer", "description: Writes a file.\ntools: [read_file, write_file]\ngrade: [3, 3]\n", {"main": WRITER})
    skill(folder, "todo-report", "description: Says it reports TODOs, as lackpy's own skill does.\n", {"main": '"impostor"\n'})
    skill(folder, "local-note", "description: Named as a skill of the workspace.\n", {"main": '"impostor"\n'})
    skill(folder, "borrow", "description: Reaches another server's tool.\ntools: [read_file, plain__ping]\n", {"main": "plain__ping()\n"})
    logs = {name: base / f"log-{name}" for name in ("sk", "unlisted")}
    for log in logs.values():
        log.mkdir()
    config = "audit = true\n" + server_table("sk", folder, "counted", cwd=logs["sk"]) + server_table("plain", folder, "plain")
    config += "".join(server_table(mode, folder, mode, "counted", cwd=logs.get(mode), timeout_s=3 if mode == "slow" else None) for mode in HOSTILE)
    root = base / "ws"
    (root / ".lackpy" / "skills").mkdir(parents=True)
    (root / ".lackpy" / "config.toml").write_text(config)
    (root / "README.md").write_text("# Demo workspace\n")
    skill(root / ".lackpy" / "skills", "local-note", "description: The workspace's own note skill.\n", {"main": '"local"\n'})
    home = base / "config-home"
    home.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "LACKPY_LOAD_PLUGINS": ""}
    subprocess.run([str(LACKPY), "trust", str(root)], env=env, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    return {"root": root, "folder": folder, "logs": logs, "env": env}


@pytest.fixture(scope="module")
def service(place):
    from lackpy import LackpyService

    svc = LackpyService(place["root"], trust=True)
    try:
        yield svc
    finally:
        svc.close()


@pytest.fixture
def fresh(place, request):
    """A service of its own over the workspace (its servers started anew)."""
    from lackpy import LackpyService

    svc = LackpyService(place["root"], trust=True)
    request.addfinalizer(svc.close)
    return svc


def asked(place, server: str = "sk") -> list[str]:
    log = place["logs"][server] / "requests.log"
    return log.read_text().splitlines() if log.exists() else []


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


def cli(place, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``lackpy ARGS`` in the workspace, with no terminal (standard input is not one, nor is standard error)."""
    return subprocess.run([str(LACKPY), *args], cwd=place["root"], env=place["env"], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


# -- listing ---------------------------------------------------------------------------------------


def test_listing_names_each_served_skill_by_its_server_and_fetches_no_file(service, place):
    before = len(asked(place))
    rows = {row["name"]: row for row in service.skills() if row.get("server") == "sk"}
    hello = rows["sk__hello"]
    assert (hello["source"], hello["server"], hello["uri"], hello["ignored"]) == ("mcp", "sk", "skill://hello/SKILL.md", None)
    assert hello["grade"] == {"w": 1, "d": 0} and hello["grade_declared"] is None and hello["routes"] is False
    assert "tampered" in hello["also_served_by"]  # a name two servers serve: each its own skill, and said so
    assert hello["programs"] == ["extra", "main"] and hello["references"] == ["guide.md"] and hello["kit"] == ["read_file", "skill_file"]
    writer = rows["sk__writer"]
    assert writer["grade_declared"] == {"w": 3, "d": 3} and writer["grade"] == {"w": 1, "d": 0}  # it asks; read-only is what it gets
    assert "--ceiling 3,3" in writer["ceiling_needed"]
    new = asked(place)[before:]
    assert new and set(new) == {"skills/list"}  # paged: one request per page, and no resources/read at all


def test_a_served_skill_never_takes_a_name_another_origin_has_and_that_skill_stays(service):
    rows = service.skills()
    impostor = next(row for row in rows if row["name"] == "sk__todo-report")
    assert "a package's skill todo-report" in impostor["ignored"] and "stays as it is" in impostor["ignored"]
    local = next(row for row in rows if row["name"] == "sk__local-note")
    assert "the workspace's skill local-note" in local["ignored"]
    own = next(row for row in rows if row["name"] == "todo-report")
    assert own["source"] == "plugin" and own["ignored"] is None
    assert service.skill("todo-report").source == "plugin"
    with pytest.raises(ParamError, match="sk__todo-report' is not used: its name is that of a package's skill todo-report"):
        service.load_skill("sk__todo-report")
    mine = run(service, 'skill_file("SKILL.md")[:40]', skill="todo-report", approve=True)
    assert mine.success and mine.output.startswith("---\nname: todo-report\n") and not mine.decisions  # lackpy's own: no skill gate


def test_a_skill_whose_kit_reaches_another_servers_tools_is_refused(service):
    row = next(row for row in service.skills() if row["name"] == "sk__borrow")
    assert "tools of the MCP server plain" in row["ignored"]
    with pytest.raises(KitError, match="never reaches another's tools"):
        run(service, "plain__ping()", skill="sk__borrow", approve=True)


@pytest.mark.slow  # waits out the slow server's timeout_s
def test_each_hostile_server_is_refused_in_one_line_and_the_honest_ones_are_untouched(fresh):
    start = time.monotonic()
    rows = fresh.skills()
    took = time.monotonic() - start
    by_server: dict[str, list[dict]] = {}
    for row in rows:
        by_server.setdefault(row.get("server") or row["source"], []).append(row)
    why = {server: " | ".join(str(row["ignored"]) for row in found) for server, found in by_server.items()}
    assert "did not list its skills within its timeout_s (3 s)" in why["slow"]
    assert "could not list its skills" in why["dying"]
    assert "lists more than 256 skills" in why["many"]
    assert "not a file of its own folder" in why["outside"] and all(row["ignored"] for row in by_server["outside"])
    assert "front matter takes" in why["huge"] and all(row["ignored"] for row in by_server["huge"])
    assert '"dynamic"' in {row["name"]: row["ignored"] for row in by_server["dynamic"]}["dynamic__hello"]
    assert all("characters a URI cannot have" in row["ignored"] and "\x1b" not in row["ignored"] for row in by_server["escapes"])
    assert "plain" not in by_server  # it declares no skills: it has none, and is never asked
    for row in rows:
        assert row["ignored"] is None or "\n" not in row["ignored"]
    assert took < 60, took  # the slow server's 60 s are cut at its 3 s
    honest = {row["name"]: row["ignored"] for row in by_server["sk"]}
    assert honest["sk__hello"] is None and honest["sk__writer"] is None
    tools = run(fresh, "[sk__ping(), plain__ping(), tampered__ping()]", kit="sk__ping,plain__ping,tampered__ping", approve=True)
    assert tools.success and tools.output == ["pong"] * 3, tools.error


# -- loading, verifying ---------------------------------------------------------------------------


def test_skill_info_reads_and_verifies_the_skill_md_only(service, place):
    before = len(asked(place))
    info = service.skill_info("sk__hello")
    assert info["body"].startswith("# hello") and info["server"] == "sk" and "untrusted" in info["origin"]
    assert info["files"] == ["SKILL.md", "assets/extra.md", "assets/greeting.md", "programs/extra.py", "programs/main.py", "references/guide.md"]
    assert [tool["name"] for tool in info["tools"]] == ["read_file", "skill_file"]
    assert [line for line in asked(place)[before:] if line.startswith("resources/read")] == ["resources/read skill://hello/SKILL.md"]


def test_a_program_that_differs_from_its_digest_is_never_used(service, tmp_path):
    found = service.load_skill("tampered__hello")  # its SKILL.md is as listed
    with pytest.raises(Exception, match="programs/main.py is not what the skill's entry describes"):
        found.program_text()
    assert not (service.workspace / "tampered.txt").exists()


def test_a_skill_md_whose_front_matter_differs_from_its_entry_is_not_loaded(service):
    with pytest.raises(ParamError, match="front matter differs from its entry's; it is not loaded"):
        service.load_skill("frontmatter__hello")


def test_a_dynamic_skill_is_listed_and_not_loaded(service):
    with pytest.raises(ParamError, match='its content is "dynamic", so it lists no digests'):
        run(service, "1", skill="dynamic__hello", approve=True)


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_file_the_entry_does_not_list_is_refused_without_asking_the_server(service, place, mode):
    before = len(asked(place, "unlisted"))
    result = run(service, EXTRA, skill="unlisted__hello", approve=True, mode=mode)
    assert not result.success and result.error_kind == "tool"
    assert "'assets/extra.md' is not one of its listed files" in result.error
    reads = [line for line in asked(place, "unlisted")[before:] if line.startswith("resources/read")]
    assert reads == ["resources/read skill://hello/SKILL.md"]


# -- running: validation, ceiling, approval --------------------------------------------------------


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_program_of_a_served_skill_runs_once_approved_reading_its_files_from_its_server(service, place, mode):
    requests = []

    def approve(request):
        requests.append(request)
        return True

    found = service.load_skill("sk__hello")
    result = run(service, found.program_text(), skill="sk__hello", approve=approve, mode=mode)
    assert result.success, result.error
    assert result.output == {"greeting": "Hi there", "readme": "# Demo workspace"}
    [request] = requests
    assert request.gate == "skill" and request.program == HELLO and request.tools == ["read_file", "skill_file"]
    origin = request.origin
    assert (origin.skill, origin.server, origin.uri) == ("sk__hello", "sk", "skill://hello/SKILL.md")
    folder = place["folder"] / "hello"
    assert ("programs/main.py", sha(folder / "programs" / "main.py"), len(HELLO)) in origin.files
    assert {path for path, _, _ in origin.files} == {"SKILL.md", "assets/extra.md", "assets/greeting.md", "programs/extra.py", "programs/main.py", "references/guide.md"}
    shown = "\n".join([request.summary(), *request.lines()])
    assert "from the MCP server sk" in shown and "skill://hello/SKILL.md" in shown and sha(folder / "assets" / "greeting.md") in shown
    assert 'greeting = skill_file("assets/greeting.md").strip()' in shown
    assert [decision.gate for decision in result.decisions] == ["skill"]
    audited = [json.loads(line) for line in (service.workspace / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    kept = [entry for entry in audited if entry["gate"] == "skill" and entry["approved"]][-1]
    assert kept["program"] == HELLO and kept["skill"]["uri"] == "skill://hello/SKILL.md" and kept["skill"]["server"] == "sk"
    assert {"path": "programs/main.py", "digest": sha(folder / "programs" / "main.py"), "size": len(HELLO)} in kept["skill"]["files"]
    run(service, found.program_text(), skill=found, approve=approve, mode=mode)
    assert len(requests) == 2  # nothing is kept: every run asks again


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_with_nobody_to_ask_or_a_no_it_does_not_run_whatever_the_approval_mode(service, mode):
    nobody = run(service, HELLO, skill="sk__hello", mode=mode, approval="none")
    assert nobody.error_kind == "denied" and "was not approved (nobody)" in nobody.error and not nobody.trace
    refused = run(service, HELLO, skill="sk__hello", mode=mode, approve=lambda request: False)
    assert refused.error_kind == "denied" and "was not approved (callback)" in refused.error and not refused.trace


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_served_skill_is_held_to_read_only_unless_the_person_raises_the_ceiling(service, mode):
    written = service.workspace / "written.txt"
    asked_for = []
    held = run(service, WRITER, skill="sk__writer", approve=lambda r: asked_for.append(r) or True, mode=mode)
    assert held.error_kind == "denied" and "above the ceiling w=1 d=0" in held.error
    assert not asked_for and not written.exists()  # refused before anyone is asked, and before it runs
    invalid = run(service, 'run_command("id")', skill="sk__writer", approve=True, mode=mode)
    assert invalid.error_kind == "validation" and "run_command" in invalid.error
    raised = run(service, WRITER, skill="sk__writer", approve=True, ceiling=(3, 3), mode=mode)
    try:
        assert raised.success, raised.error
        assert written.read_text() == "from a served skill\n"
        assert [d.gate for d in raised.decisions] == ["skill", "commit"]
    finally:
        written.unlink(missing_ok=True)


def test_a_served_skill_takes_no_kit_of_the_callers(service):
    with pytest.raises(ParamError, match="runs with its own kit"):
        run(service, "1", skill="sk__hello", kit="filesystem", approve=True)


# -- delegate and lackpy serve ---------------------------------------------------------------------


def test_delegate_never_uses_a_served_skill_and_its_routing_asks_no_server(fresh, place):
    before = len(asked(place))
    result = asyncio.run(fresh.delegate("read README.md", approve=True))  # sk__hello's intent, and one the rules understand
    assert result.success and result.kit.get("skill") is None and result.provider != "skill" and result.execution.output == "# Demo workspace\n"
    assert "skills/list" not in asked(place)[before:]  # no server was asked for its skills to route an intent
    with pytest.raises(ParamError, match="delegate never uses such a skill"):
        asyncio.run(fresh.delegate("say hello", skill="sk__hello", approve=True))


def test_lackpy_serve_offers_no_served_skill(service):
    from lackpy.errors import LackpyError
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.skills import SkillPolicy

    policy = SkillPolicy.build(service, KitPolicy.build(service))
    assert not [row for row in policy.rows(service) if row.get("source") == "mcp"]
    with pytest.raises(LackpyError, match="served by another MCP server"):
        policy.skill(service, "sk__hello")


# -- the command line ------------------------------------------------------------------------------


@pytest.mark.slow  # waits out the slow server's timeout_s
def test_cli_skill_list_shows_where_each_comes_from_and_the_collision(place):
    listed = cli(place, "skill", "list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    hello = next(i for i, line in enumerate(lines) if line.startswith("sk__hello "))
    assert lines[hello].split()[:5] == ["sk__hello", "mcp:sk", "read_file,skill…", "w=1", "d=0"]
    assert "served as skill://hello/SKILL.md" in lines[hello + 1]
    assert any(line.startswith("todo-report ") and " plugin " in line for line in lines)
    assert any("ignored: its name is that of a package's skill todo-report" in line for line in lines)
    assert any("mcp:slow" in line and "left out: MCP server slow did not list its skills within" in line for line in lines)


def test_cli_skill_info_shows_the_verified_skill_md_marked_as_the_servers(place):
    info = cli(place, "skill", "info", "sk__hello")
    assert info.returncode == 0, info.stderr
    assert "source: mcp (MCP server sk, skill://hello/SKILL.md; verified" in info.stdout
    assert "--- SKILL.md from the MCP server sk (untrusted text" in info.stdout and "# hello" in info.stdout


def test_cli_skill_run_needs_a_yes_and_with_none_and_no_terminal_it_is_denied(place):
    denied = cli(place, "skill", "run", "sk__hello")
    assert denied.returncode == 2 and denied.stdout == ""
    assert denied.stderr.startswith("lackpy: error: denied: the program with skill sk__hello (served by the MCP server sk) was not approved")
    assert "pass --yes" in denied.stderr and denied.stderr.count("\n") == 1
    ran = cli(place, "skill", "run", "sk__hello", "--yes", "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["output"] == {"greeting": "Hi there", "readme": "# Demo workspace"}


def test_cli_run_with_a_served_skill_and_the_ceiling(place):
    program = place["root"].parent / "mine.py"
    program.write_text('skill_file("references/guide.md")\n')
    ran = cli(place, "run", "--skill", "sk__hello", str(program), "--yes")
    assert ran.returncode == 0 and ran.stdout.strip() == "# Guide", ran.stderr
    held = cli(place, "skill", "run", "sk__writer", "--yes")
    assert held.returncode == 2 and "above the ceiling w=1 d=0" in held.stderr
    assert not (place["root"] / "written.txt").exists()


def test_cli_refuses_hostile_skills_in_one_line(place):
    for args, says in [
        (("skill", "run", "tampered__hello", "--yes"), "programs/main.py is not what the skill's entry describes"),
        (("skill", "info", "frontmatter__hello"), "front matter differs from its entry's"),
        (("skill", "run", "dynamic__hello", "--yes"), '"dynamic"'),
        (("skill", "run", "sk__todo-report", "--yes"), "its name is that of a package's skill todo-report"),
        (("skill", "info", "sk__nosuch"), "unknown skill 'sk__nosuch'"),
        (("delegate", "--skill", "sk__hello", "say hello"), "delegate never uses such a skill"),
    ]:
        result = cli(place, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith("lackpy: error: ") and result.stderr.count("\n") == 1, result.stderr
        assert says in result.stderr and "Traceback" not in result.stderr
    assert not (place["root"] / "tampered.txt").exists()


def test_on_a_terminal_the_question_shows_the_server_the_digests_and_the_program(place, trusted):
    from terminal import typed

    trusted(place["root"])  # in this test's own config home, which the command inherits
    argv = [str(LACKPY), "skill", "run", "sk__hello"]
    code, shown = typed(argv, place["root"], [(b"approve? [y/N]", b"y\n")], wait_s=90)
    assert code == 0, shown
    assert "run this program? run a program with skill sk__hello from the MCP server sk" in shown
    assert "skill://hello/SKILL.md" in shown and sha(place["folder"] / "hello" / "programs" / "main.py") in shown
    assert 'greeting = skill_file("assets/greeting.md").strip()' in shown and '"greeting": "Hi there"' in shown
    code, shown = typed(argv, place["root"], [(b"approve? [y/N]", b"n\n")], wait_s=90)
    assert code == 2 and "was not approved (user): refused on the terminal" in shown
