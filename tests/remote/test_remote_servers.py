"""Remote tools from real MCP servers (built with the SDK in servers.py): over stdio and HTTP, composed with built-in tools."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

SERVERS = Path(__file__).with_name("servers.py")
SECRET = "sekret-4417-value"
NOTES_KIT = "notes__add_note,notes__list_notes,notes__word_count,notes__refuse,notes__slow,crashy__ping,find_files,read_file"


def server_table(name: str, *extra: str, **options) -> str:
    lines = [f"[mcp.servers.{name}]", f"command = {json.dumps(sys.executable)}", f"args = {json.dumps([str(SERVERS), *extra])}"]
    lines += [f"{key} = {value}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


def workspace_with(root: Path, config: str) -> Path:
    (root / ".lackpy").mkdir(parents=True)
    (root / ".lackpy" / "config.toml").write_text(config)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('app')\n")
    return root


@contextlib.contextmanager
def serving(root: Path):
    """A trusted service on ``root``, loaded (its servers known), closed at the end."""
    from lackpy import LackpyService

    svc = LackpyService(root, trust=True)
    try:
        svc.load()
        yield svc
    finally:
        svc.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    config = (
        server_table("notes", "notes", grade="[0, 1]", env='{ LACKPY_NOTES_TOKEN = "${LACKPY_T_NOTES_SECRET}" }')
        + server_table("crashy", "crashy", grade="[0, 0]")
        + server_table("broken", "broken")
    )
    root = workspace_with(tmp_path_factory.mktemp("remote") / "ws", config)
    os.environ["LACKPY_T_NOTES_SECRET"] = SECRET
    try:
        with serving(root) as svc:
            yield svc
    finally:
        os.environ.pop("LACKPY_T_NOTES_SECRET", None)


def run(svc, program: str, kit: str = NOTES_KIT, **options):
    return asyncio.run(svc.run_program(program, kit=kit, **options))


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_program_composes_two_servers_and_built_in_tools(service, mode):
    program = (
        'n = notes__add_note("first " + mode)\n'
        'pong = crashy__ping()\n'
        '{"n": n, "mine": notes__list_notes(prefix="first " + mode), "pong": pong[:4], '
        '"words": notes__word_count(read_file("src/app.py"))["words"], "files": find_files("**/*.py")}'
    )
    result = run(service, program, mode=mode, params={"mode": mode})
    assert result.success, result.error
    assert result.output["mine"] == [f"first {mode}"] and result.output["pong"] == "pong"
    assert result.output["words"] == 1 and result.output["files"] == ["src/app.py"]
    assert [entry.tool for entry in result.trace] == ["notes__add_note", "crashy__ping", "notes__list_notes", "read_file", "notes__word_count", "find_files"]


def test_a_server_keeps_one_session_across_runs(service):
    first = run(service, 'notes__add_note("kept across runs")')
    later = run(service, 'notes__list_notes(prefix="kept")')
    assert first.success and later.output == ["kept across runs"]


def test_signatures_and_grades_are_the_configs(service):
    spec = service.toolbox.get("notes__list_notes")
    assert spec.signature() == "notes__list_notes(prefix: str = '') -> list[str]"
    assert (spec.grade_w, spec.effects_ceiling) == (0, 1)
    assert service.resolve_kit("notes__list_notes,crashy__ping").grade.to_dict() == {"w": 0, "d": 1}


def test_arguments_are_checked_before_anything_is_sent(service):
    result = run(service, "notes__add_note(3)")
    assert result.error_kind == "argument" and "argument 'text' expects a str, got 3 (int)" in result.error


def test_an_error_from_the_server_is_a_tool_error_with_its_message(service):
    result = run(service, 'notes__refuse("not today")')
    assert result.error_kind == "tool"
    assert result.error.endswith("ToolError in notes__refuse: Error executing tool refuse: refused: not today")


def test_a_server_that_never_starts_is_reported_and_the_rest_serve(service):
    rows = {row["name"]: row for row in service.remote_status()}
    assert rows["broken"]["state"] == "failed" and "Connection closed" in rows["broken"]["reason"]
    assert rows["notes"]["state"] == "connected" and "notes__add_note" in rows["notes"]["tools"]
    assert any(notice.startswith("MCP server broken is not available") for notice in service.notices)
    assert "broken__" not in " ".join(spec.name for spec in service.toolbox.list_tools())


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_slow_remote_call_ends_with_the_runs_deadline(service, mode):
    start = time.monotonic()
    result = run(service, "notes__slow(30)", limits={"timeout_s": 1}, mode=mode)
    took = time.monotonic() - start
    assert not result.success and took < 5
    assert result.error_kind == "limit" and result.limit == "timeout", result.error
    assert result.error.startswith("line 1: limit exceeded: timeout: ") and result.error.count("limit exceeded") == 1, result.error
    assert run(service, 'notes__list_notes(prefix="zzz")').output == []  # the server still serves


@pytest.mark.slow
def test_a_remote_calls_timeout_reads_once_on_the_cli(tmp_path):
    root = workspace_with(tmp_path / "ws", server_table("notes", "notes", grade="[0, 0]"))
    (root / "slow.py").write_text("notes__slow(30)\n")
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], check=True, capture_output=True, timeout=60)
    done = subprocess.run(
        [sys.executable, "-m", "lackpy", "run", "--kit", "notes__slow", "--timeout", "1", "slow.py"],
        cwd=root, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.count("limit exceeded") == 1, done.stderr
    assert "limit exceeded: timeout: the run's time ran out waiting for the MCP server notes" in done.stderr


def test_a_server_that_dies_fails_that_call_and_the_next_reconnects(tmp_path):
    from lackpy import LackpyService

    root = workspace_with(tmp_path / "ws", server_table("crashy", "crashy", grade="[0, 0]"))
    with LackpyService(root, trust=True) as svc:
        answers = [run(svc, "crashy__ping()", kit="crashy__ping") for _ in range(4)]
        keys = svc._workspace.loaded.remotes.live()
    assert [a.output for a in answers[:2]] == ["pong 1", "pong 2"]
    assert not answers[2].success and "the MCP server crashy failed" in answers[2].error and "reconnects" in answers[2].error
    assert answers[3].output == "pong 1"  # a new session
    assert list(keys) == ["crashy__ping"]  # reconnecting enrolled nothing twice


def test_secrets_reach_the_server_but_never_a_trace_an_error_or_the_listing(service, tmp_path):
    result = run(service, 'notes__secret_env("LACKPY_NOTES_TOKEN")', kit="notes__secret_env")
    assert result.output == SECRET  # the server got it, through env
    assert run(service, 'notes__secret_env("LACKPY_T_NOTES_SECRET")', kit="notes__secret_env").output == ""  # nothing the config does not name
    listing = json.dumps(service.remote_status())
    assert SECRET not in listing and "${LACKPY_T_NOTES_SECRET}" not in listing
    assert SECRET not in json.dumps([e.to_dict() for e in run(service, 'notes__refuse("x")').trace])


def test_an_untrusted_workspace_starts_no_server(tmp_path):
    from lackpy import LackpyService

    marker = tmp_path / "started"
    root = workspace_with(tmp_path / "ws", server_table("notes", "notes") + f'cwd = {json.dumps(str(marker))}\n')
    with LackpyService(root, trust=False) as svc:
        svc.load()
        assert [(r["name"], r["state"], r["tools"]) for r in svc.remote_status()] == [("notes", "ignored", [])]  # listed, not started
        assert "notes__add_note" not in svc.toolbox
        assert any("MCP server tables launch commands" in notice for notice in svc.notices)


@pytest.mark.slow
def test_mcp_list_over_the_cli(service):
    env = dict(os.environ, LACKPY_T_NOTES_SECRET=SECRET)
    untrusted = subprocess.run([sys.executable, "-m", "lackpy", "mcp", "status", "-w", str(service.workspace)], capture_output=True, text=True, timeout=60, env=env)
    assert untrusted.returncode == 0 and "no MCP servers configured" not in untrusted.stdout
    assert untrusted.stdout.count("ignored: this workspace is not trusted") == 3 and f"lackpy trust {service.workspace} starts them" in untrusted.stdout
    assert "MCP server tables launch commands" in untrusted.stderr
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(service.workspace)], check=True, capture_output=True, timeout=60, env=env)
    out = subprocess.run(
        [sys.executable, "-m", "lackpy", "mcp", "status", "--json", "-w", str(service.workspace)],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert set(rows) == {"notes", "crashy", "broken"}
    assert rows["notes"]["transport"] == "stdio" and rows["broken"]["state"] == "failed"
    assert SECRET not in out.stdout


@pytest.mark.slow
def test_mcp_status_in_an_untrusted_workspace_lists_what_was_added_as_ignored_until_trusted(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    env = dict(os.environ)

    def lackpy(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "lackpy", *args], capture_output=True, text=True, timeout=60, env=env, cwd=root)

    added = lackpy("mcp", "add", "notes", "--grade", "0,0", "--", sys.executable, str(SERVERS), "notes")
    assert added.returncode == 0 and f"it starts only after: lackpy trust {root}" in added.stdout, added.stdout + added.stderr
    text = lackpy("mcp", "status")
    assert text.returncode == 0 and "no MCP servers configured" not in text.stdout
    assert f"notes          stdio  ignored: this workspace is not trusted, so its servers do not start; lackpy trust {root} starts them" in text.stdout
    rows = json.loads(lackpy("mcp", "status", "--json").stdout)
    assert [(r["name"], r["state"], r["tools"]) for r in rows] == [("notes", "ignored", [])]
    assert f"lackpy trust {root}" in rows[0]["reason"]
    assert lackpy("trust", str(root)).returncode == 0
    rows = json.loads(lackpy("mcp", "status", "--json").stdout)
    assert [(r["name"], r["state"]) for r in rows] == [("notes", "connected")] and "notes__add_note" in rows[0]["tools"]


def test_an_http_server(tmp_path):
    from lackpy import LackpyService

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, str(SERVERS), "notes", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        config = f'[mcp.servers.web_notes]\nurl = "http://127.0.0.1:{port}/mcp"\nheaders = {{ X-Token = "${{LACKPY_T_HTTP_SECRET}}" }}\ngrade = [1, 1]\n'
        root = workspace_with(tmp_path / "ws", config)
        os.environ["LACKPY_T_HTTP_SECRET"] = SECRET
        with LackpyService(root, trust=True) as svc:
            added = run(svc, 'web_notes__add_note("over http")\nweb_notes__list_notes()', kit="web_notes__add_note,web_notes__list_notes")
            rows = svc.remote_status()
        assert added.output == ["over http"], added.error
        assert rows[0]["transport"] == "http" and rows[0]["state"] == "connected" and SECRET not in json.dumps(rows)
    finally:
        os.environ.pop("LACKPY_T_HTTP_SECRET", None)
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.slow
def test_mcp_add_writes_a_server_table_that_then_serves(tmp_path):
    from lackpy import LackpyService

    root = tmp_path / "ws"
    root.mkdir()
    (root / ".lackpy").mkdir()
    (root / ".lackpy" / "config.toml").write_text('default_kit = "readonly"\n')
    env = dict(os.environ)

    def lackpy(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "lackpy", *args], capture_output=True, text=True, timeout=60, env=env, cwd=root)

    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], check=True, capture_output=True, timeout=60, env=env)
    added = lackpy("mcp", "add", "notes", "--grade", "0,1", "--", sys.executable, str(SERVERS), "notes")
    assert added.returncode == 0, added.stderr
    again = lackpy("mcp", "add", "notes", "--", "x")
    assert again.returncode == 2 and "configured already" in again.stderr and "Traceback" not in again.stderr
    neither = lackpy("mcp", "add", "other")
    assert neither.returncode == 2 and 'give either command = "..."' in neither.stderr
    listed = lackpy("mcp", "status", "--json")
    assert listed.returncode == 0 and "not trusted" not in listed.stderr  # lackpy's own write kept the trust
    (row,) = json.loads(listed.stdout)
    assert row["name"] == "notes" and row["state"] == "connected"
    with LackpyService(root) as svc:
        assert svc.config.default_kit == "readonly"  # the rest of the file kept
        assert (svc.toolbox.get("notes__add_note").grade_w, svc.toolbox.get("notes__add_note").effects_ceiling) == (0, 1)


@pytest.mark.parametrize("mode", ["isolated", "inprocess"])
def test_a_remote_tools_progress_is_passed_on_apart_from_the_result(service, mode):
    events = []

    async def main():
        result = await service.run_program("notes__slow(0.4)", kit="notes__slow", mode=mode, on_event=events.append)
        await asyncio.sleep(0.1)
        return result

    result = asyncio.run(main())
    assert result.success and result.output == "done"
    progress = [e for e in events if e["event"] == "progress"]
    assert [e["message"] for e in progress] == ["step 0", "step 1", "step 2", "step 3"]
    assert all(e["tool"] == "notes__slow" and e["total"] == 4 for e in progress)


def test_a_server_that_floods_progress_is_passed_on_at_most_every_50_ms_and_its_last_word_kept(service):
    events = []

    async def main():
        return await service.run_program("notes__flood(3000)", kit="notes__flood", on_event=events.append)

    result = asyncio.run(main())
    progress = [e for e in events if e["event"] == "progress"]
    assert result.success and result.output == "flooded"
    assert 1 <= len(progress) < 300, len(progress)  # 3001 sent, each within well under 50 ms of the last
    assert progress[-1]["message"] == "all done" and progress[-1]["progress"] == 3000
    assert all(len(e["message"]) <= 1000 for e in progress)


def test_lackpy_serve_passes_remote_progress_to_its_client(service):
    from mcp import Client

    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    received = []

    async def on_progress(progress, total, message):
        received.append(message)

    async def main():
        server = build_server(service, KitPolicy.build(service, "notes__slow", ["notes__slow"]))
        async with Client(server) as client:
            answer = await client.call_tool("run_program", {"program": "notes__slow(0.4)"}, progress_callback=on_progress)
            await asyncio.sleep(0.1)
            return answer

    answer = asyncio.run(main())
    assert not answer.is_error and answer.structured_content["output"] == "done"
    assert _steps(received)
    assert "step" not in answer.content[0].text


def _steps(received: list[str]) -> bool:
    """Whether the server's progress (steps 0 to 3, 0.1 s apart) came through in order, its first at once.

    lackpy passes on at most one remote notification every ``PROGRESS_EVERY_S`` (the newest is what counts), so a
    machine that delivers two of them together drops the older: some steps, in order, not every step.
    """
    steps = [int(m.rsplit(" ", 1)[1]) for m in received if m.startswith("notes__slow: step ")]
    return len(steps) >= 2 and steps[0] == 0 and steps == sorted(set(steps)) and set(steps) <= {0, 1, 2, 3}


@pytest.mark.slow
@pytest.mark.parametrize("transport, era", [("stdio", "legacy"), ("stdio", "auto"), ("http", "auto")])
def test_remote_progress_reaches_the_client_after_it_approved_the_call(tmp_path, transport, era):
    """On 2026-07-28 (``auto``) the approval ends the first request: the progress after it goes to the retry that answered."""
    import mcp_types
    from mcp import Client, StdioServerParameters

    sys.path.insert(0, str(Path(__file__).parents[1] / "mcp"))
    from mcp_support import start_http, stop

    root = workspace_with(tmp_path / "ws", server_table("notes", "notes", grade="[0, 1]") + '[approvals]\nnotes__slow = "block"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), LACKPY_LOAD_PLUGINS="")
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], env=env, check=True, capture_output=True, timeout=60)
    options = ["--allow-kits", "mcp:notes", "--kit", "mcp:notes"]
    received, asked = [], []

    async def on_progress(progress, total, message):
        received.append(message)

    async def answer(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={})

    async def main(target):
        async with Client(target, mode=era, elicitation_callback=answer) as client:
            # A computed argument: the call itself is asked about too, in the middle of the run, with its value.
            return await client.call_tool("run_program", {"program": "s = 0.2 * 2\nnotes__slow(s)"}, progress_callback=on_progress)

    if transport == "stdio":
        answered = asyncio.run(main(StdioServerParameters(command=sys.executable, args=["-m", "lackpy", "serve", "-w", str(root), *options], env=env)))
    else:
        process, port = start_http(root, env, *options)
        try:
            answered = asyncio.run(main(f"http://127.0.0.1:{port}/mcp"))
        finally:
            stop(process)
    assert not answered.is_error and answered.structured_content["output"] == "done"
    assert len(asked) == 2 and asked[0].startswith("lackpy: Run this program with these effects?")  # the list, then the call
    assert asked[1].startswith("lackpy: Make this call? notes__slow(seconds=0.4)\non the approved list at line 2; asked now for its computed #1")
    assert _steps(received)
    assert received[0] == "running the program with kit mcp:notes" and received[-1] == "done: 1 tool call"


def test_a_result_over_the_runs_output_budget_is_cut_with_a_notice(service):
    program = "text = notes__big(size)\n[len(text.encode()), text[:3], text[-3:], text[len(text) // 2 - 300:len(text) // 2 + 300]]"
    for budget in (200_000, 1_000_000):
        result = run(service, program, kit="notes__big", params={"size": 3_000_000}, limits={"max_output_bytes": budget})
        assert result.success, result.error
        size, head, tail, middle = result.output
        assert budget - 1000 < size <= budget and head == "xxx" and tail == "xxx" and "bytes" in middle
    whole = run(service, program, kit="notes__big", params={"size": 100_000}, limits={"max_output_bytes": 200_000})
    assert whole.output[0] == 100_000


def test_a_tool_whose_schema_changed_on_reconnect_is_reenrolled_once(tmp_path):
    from lackpy import LackpyService

    count = tmp_path / "starts"
    config = server_table("shifty", "shifty", grade="[0, 0]") + f'env = {{ SHIFTY_COUNT_FILE = {json.dumps(str(count))} }}\n'
    root = workspace_with(tmp_path / "ws", config)
    with LackpyService(root, trust=True) as svc:
        first = run(svc, 'shifty__lookup("a")', kit="shifty__lookup")
        died = run(svc, "shifty__die()", kit="shifty__die")
        assert svc.toolbox.get("shifty__lookup").signature() == "shifty__lookup(key: str) -> str"
        second = run(svc, 'shifty__lookup("b")', kit="shifty__lookup")  # reconnects: the tool has a new schema
        changed = run(svc, 'shifty__lookup("c", exact=True)', kit="shifty__lookup")
        ledger = [(e.op, e.tool) for e in svc._workspace.loaded.remotes.ledger]
        live = svc._workspace.loaded.remotes.live()
        signature = svc.toolbox.get("shifty__lookup").signature()
        status = svc.remote_status()
    assert first.output == "a (start 1)" and not died.success
    assert second.output == "b exact=False (start 2)"
    assert changed.output == "c exact=True (start 2)", changed.error
    assert signature == "shifty__lookup(key: str, exact: bool = False) -> str"
    assert ledger == [("enroll", "shifty__lookup"), ("enroll", "shifty__die"), ("retire", "shifty__lookup"), ("enroll", "shifty__lookup")]
    assert [(e["op"], e["tool"]) for e in status[0]["joined_and_left"]] == ledger
    assert sorted(live) == ["shifty__die", "shifty__lookup"]  # one of each, the lookup under its new key


def test_what_a_model_sees_of_remote_tools(service):
    from lackpy.mcp.describe import run_program_description

    text = run_program_description(service.resolve_kit("notes__list_notes,notes__add_note,find_files"), ("readonly",))
    assert "notes__list_notes(prefix: str = '') -> list[str]" in text
    assert "notes__add_note(text: str) -> int" in text and "Keep a note" in text


def test_a_kit_of_remote_tools_holds_search_tools_and_long_lists_collapse(service):
    from lackpy.infer.prompt import tool_lines

    kit = service.resolve_kit("notes__add_note,notes__list_notes,notes__big,notes__refuse,notes__slow,notes__word_count,read_file")
    assert "search_tools" in kit.tools and "search_tools" not in service.resolve_kit("read_file,grep").tools
    assert kit.list_up_to == 30  # [mcp] list_tools_up_to, unset
    full, short = "\n".join(tool_lines(kit)), "\n".join(tool_lines(kit, most=4))
    assert "notes__list_notes(prefix: str = '') -> list[str]" in full
    assert "notes__list_notes(prefix" not in short and "read_file(path: str" in short
    assert "6 tools of the MCP server notes (notes__add_note, notes__list_notes, notes__big, notes__refuse, ...)" in short
    found = run(service, 'search_tools("list notes", limit=2)', kit="notes__add_note,notes__list_notes,read_file")
    assert found.output[0] == {
        "name": "notes__list_notes",
        "signature": "notes__list_notes(prefix: str = '') -> list[str]",
        "description": "The notes kept so far, those starting with prefix.",
    }
    assert len(found.output) == 2 and {t["name"] for t in found.output} <= {"notes__list_notes", "notes__add_note", "read_file"}
    assert run(service, 'search_tools("")', kit="notes__add_note").error_kind == "tool"


@pytest.mark.slow
def test_a_server_whose_traffic_is_not_mcp_is_reported_and_the_rest_serve(tmp_path):
    from lackpy import LackpyService

    config = server_table("garbage", "garbage", start_timeout_s="3") + server_table("notes", "notes", grade="[0, 1]")
    root = workspace_with(tmp_path / "ws", config)
    start = time.monotonic()
    with LackpyService(root, trust=True) as svc:
        rows = {row["name"]: row for row in svc.remote_status()}
        works = run(svc, 'notes__add_note("still here")', kit="notes__add_note")
    assert time.monotonic() - start < 15
    assert rows["garbage"]["state"] == "failed" and rows["garbage"]["reason"] == "it did not start and list its tools within 3 s"
    assert rows["notes"]["state"] == "connected" and works.output == 1


def test_the_users_own_servers_serve_in_any_workspace_and_a_trusted_one_may_replace_them(tmp_path):
    from lackpy import LackpyService
    from lackpy.config import user_config_path

    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('default_kit = "coding"\n' + server_table("notes", "notes", grade="[0, 1]"))
    try:
        root = workspace_with(tmp_path / "ws", server_table("notes", "crashy", grade="[0, 0]"))
        with LackpyService(root, trust=False) as untrusted:
            assert "notes__add_note" in untrusted.toolbox and untrusted.config.default_kit == "readonly"
            assert any("MCP server tables launch commands" in n for n in untrusted.notices)  # the workspace's own table
        with LackpyService(root, trust=True) as trusted:
            assert "notes__ping" in trusted.toolbox and "notes__add_note" not in trusted.toolbox
    finally:
        user.unlink()


def test_a_server_starts_on_the_first_use_of_its_tools_only(tmp_path):
    from lackpy import LackpyService

    count = tmp_path / "starts"
    config = server_table("shifty", "shifty", grade="[0, 0]") + f'env = {{ SHIFTY_COUNT_FILE = {json.dumps(str(count))} }}\n' + server_table("broken", "broken")
    root = workspace_with(tmp_path / "ws", config)
    with LackpyService(root, trust=True) as svc:
        assert run(svc, "1 + 1", kit="readonly").output == 2
        assert not count.exists()  # nothing asked for its tools: it never started
        assert run(svc, 'shifty__lookup("k")', kit="shifty__lookup").output == "k (start 1)"
        assert count.read_text() == "1"
        from lackpy.errors import UnknownToolError

        with pytest.raises(UnknownToolError, match=r"unknown tool 'broken__anything': the MCP server broken is not available \(.*Connection closed\); see lackpy mcp status"):
            run(svc, "broken__anything()", kit="broken__anything,read_file")
        assert any(n.startswith("MCP server broken is not available") for n in svc.notices)
    assert count.read_text() == "1"  # started once


@pytest.mark.slow
def test_lackpy_run_shows_remote_progress_on_a_terminal(tmp_path):
    from terminal import on_terminal

    root = workspace_with(tmp_path / "ws", server_table("notes", "notes", grade="[0, 0]"))
    (root / "slow.py").write_text("notes__slow(0.8)\n")
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], check=True, capture_output=True, timeout=60)
    code, out, text = on_terminal([sys.executable, "-m", "lackpy", "run", "--kit", "notes__slow", "slow.py"], root)
    assert code == 0 and out.strip() == "done"
    steps = [int(step) for step in re.findall(r"notes__slow: step (\d+)\x1b\[K", text)]  # the server's own progress, as it came
    assert steps and steps == sorted(steps) and text.endswith("\r\x1b[K"), text  # drawn, then wiped before the result


def test_kit_files_name_remote_tools_and_closing_the_service_stops_its_servers(tmp_path):
    import uuid

    from lackpy import LackpyService
    from test_service_async import running_commands, wait_gone

    marker = f"marker-{uuid.uuid4().hex[:12]}"
    root = workspace_with(tmp_path / "ws", server_table("notes", "notes", marker, grade="[0, 1]"))
    (root / ".lackpy" / "kits").mkdir()
    (root / ".lackpy" / "kits" / "notebook.kit").write_text("---\nname: notebook\ndescription: Notes and files\n---\nnotes__add_note\nnotes__list_notes\nread_file\n")

    async def main() -> tuple:
        async with LackpyService(root, trust=True) as svc:
            info = svc.kit_info("notebook")
            result = await svc.run_program('notes__add_note("from a kit file")\nnotes__list_notes()', kit="notebook")
            extra = await svc.run_program("notes__list_notes()", kit="readonly", extra_tools=["notes__list_notes"])
            assert running_commands(marker)
            return info, result, extra

    info, result, extra = asyncio.run(main())
    signatures = {tool["name"]: tool["signature"] for tool in info["tools"]}
    assert signatures["notes__add_note"] == "notes__add_note(text: str) -> int" and "search_tools" in signatures
    assert info["grade"] == {"w": 1, "d": 1}
    assert result.output == ["from a kit file"] and extra.output == ["from a kit file"]
    assert wait_gone(marker) == []  # aclose stopped the server


def test_a_servers_error_message_never_carries_its_secrets(service):
    result = run(service, 'notes__refuse("the token is " + notes__secret_env("LACKPY_NOTES_TOKEN"))', kit="notes__refuse,notes__secret_env")
    assert result.error_kind == "tool" and SECRET not in result.error and "the token is ***" in result.error


def test_a_tools_own_timeout_fails_the_call_not_the_run(tmp_path):
    from lackpy import LackpyService

    config = server_table("notes", "notes", grade="[0, 0]") + "[mcp.servers.notes.tools.slow]\ntimeout_s = 0.5\n"
    root = workspace_with(tmp_path / "ws", config)
    with LackpyService(root, trust=True) as svc:
        slow = run(svc, "notes__slow(5)", kit="notes__slow", limits={"timeout_s": 30})
        fine = run(svc, "notes__add_note('after')", kit="notes__add_note")
    assert slow.error_kind == "tool" and "did not answer within the tool's timeout_s (0.5 s)" in slow.error
    assert fine.output == 1


def test_mcp_status_connects_and_mcp_list_shows_what_it_listed_last_starting_nothing(tmp_path):
    """``mcp status`` starts the one trusted stdio server and lists it connected with its tools; ``mcp list`` then shows that
    listing and when, from the config and the cache alone: a server started by it would leave its canary, and none is left."""
    canary = tmp_path / "started"
    starter = tmp_path / "starter.py"  # the server's command: a canary, then the fixture server
    starter.write_text(f"import pathlib, runpy, sys\npathlib.Path({str(canary)!r}).touch()\nsys.argv = [{str(SERVERS)!r}, 'notes']\n"
                       f"runpy.run_path({str(SERVERS)!r}, run_name='__main__')\n")
    root = workspace_with(tmp_path / "ws", f"[mcp.servers.notes]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(starter))}]\n")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("LACKPY_WORKSPACE", None)
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(root)], check=True, capture_output=True, timeout=60, env=env)

    def lackpy(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "lackpy", "mcp", *args, "-w", str(root)], capture_output=True, text=True, timeout=60, env=env)

    never = lackpy("list")
    assert (never.returncode, never.stderr, not canary.exists()) == (0, "", True)
    assert never.stdout.splitlines()[0] == f"{'notes':<14} {'stdio':<6} not listed yet: lackpy mcp status connects to it"
    out = lackpy("status")
    assert out.returncode == 0 and canary.exists(), out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"{'notes':<14} {'stdio':<6} connected"
    assert lines[1].strip() == f"{sys.executable} {starter}"
    assert "notes__add_note" in lines[2] and "notes__list_notes" in lines[2]
    assert out.stderr == ""
    canary.unlink()
    listed = lackpy("list")
    assert listed.returncode == 0 and listed.stderr == "" and not canary.exists()
    assert re.fullmatch(rf"{'notes':<14} {'stdio':<6} listed \d+ s ago \(notes\); lackpy mcp status connects now", listed.stdout.splitlines()[0])
    assert listed.stdout.splitlines()[2] == lines[2]  # the tools as status listed them
    (row,) = json.loads(lackpy("list", "--json").stdout)
    assert (row["state"], row["info"]["name"]) == ("listed", "notes")
    assert row["tools"] == [name.strip() for name in lines[2].split(",")] and not canary.exists()
