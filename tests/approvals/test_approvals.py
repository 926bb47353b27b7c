"""Approvals: the program, call and commit gates, their modes, who answers, the time a person takes, and the record."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import ConfigError, ParamError
from lackpy.approvals.decision import Decision
from lackpy.approvals.policy import BLOCK, NONE, Ask, policy_from
from lackpy.approvals.request import ApprovalRequest, FileChange, exact, file_changes, visible

MODES = ["isolated", "inprocess"]
#: The call gate on its own: each call asked about as it comes (the default asks a list of exact effects once, up front).
CALLS = {"approve": "calls"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "keep.txt").write_text("as it was\n")
    return tmp_path


def run(svc: LackpyService, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


def config(ws: Path, text: str) -> None:
    (ws / ".lackpy").mkdir(exist_ok=True)
    (ws / ".lackpy" / "config.toml").write_text(text)


class Answers:
    """An async approve callback that answers from a list and remembers every request."""

    def __init__(self, *answers, delay: float = 0.0) -> None:
        self.answers, self.delay, self.requests = list(answers), delay, []

    async def __call__(self, request: ApprovalRequest):
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        return self.answers.pop(0) if self.answers else True


# -- the commit gate: staged writes, with their diff ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_writes_wait_for_a_yes_to_the_diff(ws, mode):
    answers = Answers(True)
    with LackpyService(ws) as svc:
        result = run(svc, "write_file('keep.txt', 'changed\\n')\nwrite_file('new.txt', 'n')", kit="filesystem", mode=mode, approve=answers)
    assert result.success and (ws / "keep.txt").read_text() == "changed\n" and (ws / "new.txt").read_text() == "n"
    [request] = answers.requests
    assert request.gate == "commit" and request.ask == "block" and sorted(request.files) == ["keep.txt", "new.txt"]
    assert "-as it was\n+changed" in request.diff and "+++ b/new.txt" in request.diff
    [approval] = result.decisions
    assert (approval.gate, approval.approved, approval.by) == ("commit", True, "callback")


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_commit_leaves_every_file_as_it_was(ws, mode):
    with LackpyService(ws) as svc:
        result = run(svc, "write_file('keep.txt', 'changed')\nwrite_file('new.txt', 'n')\n7", kit="filesystem", mode=mode, approve=Answers(False))
    assert not result.success and result.error_kind == "denied"
    assert "not approved (callback): refused; nothing was written" in result.error
    assert (ws / "keep.txt").read_text() == "as it was\n" and not (ws / "new.txt").exists()
    assert result.files_created == [] and result.files_modified == []


def test_with_nobody_to_ask_a_commit_is_refused_and_says_how_to_allow_it(ws):
    with LackpyService(ws) as svc:
        result = run(svc, "write_file('new.txt', 'n')", kit="filesystem")
    assert result.error_kind == "denied" and not (ws / "new.txt").exists()
    assert "pass approve=" in result.error and '[approvals] commit = "none"' in result.error


def test_a_dry_run_asks_nothing_and_a_run_that_writes_nothing_asks_nothing(ws):
    answers = Answers(False)
    with LackpyService(ws) as svc:
        assert run(svc, "write_file('new.txt', 'n')", kit="filesystem", dry_run=True, approve=answers).success
        assert run(svc, "read_file('keep.txt')", kit="filesystem", approve=answers).success
    assert answers.requests == []


def test_true_approves_everything_and_says_so(ws):
    with LackpyService(ws, approve=True) as svc:
        result = run(svc, "write_file('new.txt', 'n')", kit="filesystem")
    assert result.success and [(a.gate, a.by) for a in result.decisions] == [("commit", "yes")]


# -- the call gate: commands, processes and web requests, before they run -------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_command_never_runs_and_the_program_stops_denied(ws, mode):
    answers = Answers(False)
    with LackpyService(ws, CALLS) as svc:
        result = run(svc, "x = 1\nrun_command('touch canary.txt')\nx", kit="coding", mode=mode, approve=answers)
    assert not (ws / "canary.txt").exists()
    assert result.error_kind == "denied" and result.error_line == 2 and "run_command: not approved (callback)" in result.error
    [request] = answers.requests
    assert request.gate == "call" and request.tool == "run_command" and request.arguments == {"command": "touch canary.txt"}
    assert "touch canary.txt" in request.summary()
    [entry] = result.trace
    assert entry.decision is not None and entry.decision.approved is False and entry.decision.step == 1


@pytest.mark.parametrize("mode", MODES)
def test_an_approved_command_runs_and_its_trace_entry_says_who_approved_it(ws, mode):
    with LackpyService(ws, CALLS) as svc:
        result = run(svc, "read_file('keep.txt')\nrun_command('echo hi')['stdout']", kit="coding", mode=mode, approve=Answers(True))
    assert result.success and result.output == "hi\n"
    first, second = result.trace
    assert first.decision is None and second.decision.by == "callback" and second.decision.step == 2
    assert second.decision.arguments == {"command": "'echo hi'"}


def test_a_web_request_and_a_process_are_asked_about_too(ws):
    answers = Answers(False, False)
    with LackpyService(ws, CALLS) as svc:
        run(svc, "fetch_url('http://127.0.0.1:9/x')", kit="all", approve=answers)
        run(svc, "start_process('sleep 30')", kit="all", approve=answers)
    assert [r.tool for r in answers.requests] == ["fetch_url", "start_process"]


def test_a_refusal_by_a_plain_function_and_its_failure_both_deny(ws):
    def no(request):
        return Decision(False, "reviewer", "not today")

    def broken(request):
        raise RuntimeError("boom")

    with LackpyService(ws) as svc:
        refused = run(svc, "run_command('touch canary.txt')", kit="coding", approve=no)
        failed = run(svc, "run_command('touch canary.txt')", kit="coding", approve=broken)
    assert "not approved (reviewer): not today" in refused.error
    assert "the approve function failed: RuntimeError: boom" in failed.error and not (ws / "canary.txt").exists()


# -- the program gate ---------------------------------------------------------------------------


def test_approve_program_asks_once_up_front_with_the_program_its_grade_and_tools(ws):
    config(ws, 'approve = "program"\n[approvals]\ncommit = "none"\n')
    answers = Answers(False)
    with LackpyService(ws, trust=True) as svc:
        result = run(svc, "run_command('touch canary.txt')\nread_file('keep.txt')", kit="coding", approve=answers)
    assert not (ws / "canary.txt").exists() and result.error_kind == "denied" and result.trace == []
    [request] = answers.requests
    assert request.gate == "program" and request.tools == ["read_file", "run_command"]
    assert request.grade.to_dict() == {"w": 3, "d": 3} and request.risk == "critical" and "touch canary.txt" in request.program


def test_after_the_program_is_approved_the_calls_are_still_asked_about(ws):
    config(ws, 'approve = "program"\n')
    answers = Answers(True, True)
    with LackpyService(ws, trust=True) as svc:
        result = run(svc, "run_command('echo hi')['code']", kit="coding", approve=answers)
    assert result.success and [r.gate for r in answers.requests] == ["program", "call"]
    assert [a.gate for a in result.decisions] == ["program", "call"]


# -- modes and time -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_time_spent_waiting_for_a_person_does_not_count_against_the_timeout(ws, mode):
    with LackpyService(ws, CALLS) as svc:
        result = run(svc, "run_command('echo a')\nrun_command('echo b')['stdout']", kit="coding", mode=mode, limits={"timeout_s": 1}, approve=Answers(delay=0.7))
    assert result.success and result.output == "b\n"
    assert all(a.waited_ms >= 650 for a in result.decisions)


@pytest.mark.parametrize("mode", MODES)
def test_the_timeout_still_stops_a_program_after_an_approval(ws, mode):
    with LackpyService(ws) as svc:
        result = run(svc, "run_command('echo a')\nn = 0\nfor i in range(10 ** 6):\n    for j in range(10 ** 6):\n        n += j", kit="coding", mode=mode, limits={"timeout_s": 0.5}, approve=Answers(delay=0.6))
    assert result.error_kind == "limit" and result.limit == "timeout"


def test_block_denies_and_auto_goes_on_when_no_answer_comes_in_time(ws):
    config(ws, 'approve = "calls"\n[approvals]\nrun_command = "block:0.3"\nfetch_url = "auto:0.3"\n')
    with LackpyService(ws, trust=True) as svc:
        blocked = run(svc, "run_command('touch canary.txt')", kit="all", approve=Answers(delay=5))
        auto = run(svc, "run_command('echo x') if False else fetch_url('http://127.0.0.1:9/')", kit="all", approve=Answers(delay=5))
    assert blocked.error_kind == "denied" and "no answer within 0.3 s" in blocked.error and not (ws / "canary.txt").exists()
    [approval] = auto.decisions
    assert approval.approved and approval.by == "timeout" and approval.ask == "auto:0.3"
    assert auto.error_kind != "denied"  # it went on (and the request itself failed: nothing listens on port 9)


def test_notify_tells_and_goes_on_without_waiting(ws):
    answers = Answers(False, delay=5)
    with LackpyService(ws) as svc:
        result = run(svc, "run_command('echo hi')['stdout']", kit="coding", approve=answers, approval="notify")
    assert result.success and result.output == "hi\n" and result.decisions[0].by == "notify"
    assert result.decisions[0].waited_ms < 1000
    assert answers.requests[0].ask == "notify"


def test_approval_none_asks_nothing(ws):
    with LackpyService(ws) as svc:
        result = run(svc, "run_command('echo hi')\nwrite_file('new.txt', 'n')", kit="coding", approval="none")
    assert result.success and result.decisions == [] and (ws / "new.txt").exists()


def test_a_bad_mode_is_one_clear_error():
    with pytest.raises(ConfigError, match="is not an approval mode; use block, auto, notify or none"):
        Ask.parse("sometimes")
    with pytest.raises(ConfigError, match="from 1 to 86400"):
        Ask.parse("auto:-3")
    assert Ask.parse("auto:30") == Ask("auto", 30.0) and str(Ask.parse("BLOCK")) == "block"


def test_a_bad_approval_argument_is_a_param_error(ws):
    with LackpyService(ws) as svc, pytest.raises(ParamError, match="not an approval mode"):
        run(svc, "1", approval="perhaps")


# -- the config, and what an untrusted workspace may say ----------------------------------------


def test_the_config_names_modes_per_gate_and_per_tool():
    policy = policy_from({"approve": "program", "approval_timeout_s": 30, "approvals": {"commit": "notify", "run_command": "none", "*": "auto"}})
    assert policy.program == BLOCK and policy.commit == Ask("notify") and policy.wait_s == 30
    assert policy.calls["run_command"] == NONE and policy.calls["*"] == Ask("auto")
    with pytest.raises(ConfigError, match="approve must be"):
        policy_from({"approve": "always"})


def test_an_untrusted_workspace_may_ask_more_but_never_less(ws):
    config(ws, '[approvals]\nrun_command = "none"\ncommit = "none"\nread_file = "block"\n')
    answers = Answers(False, False)
    with LackpyService(ws, trust=False) as svc:
        command = run(svc, "run_command('touch canary.txt')", kit="coding", approve=answers)
        read = run(svc, "read_file('keep.txt')", kit="coding", approve=answers)
    assert command.error_kind == "denied" and not (ws / "canary.txt").exists()  # "none" did not take the gate away
    assert read.error_kind == "denied"  # but asking about read_file was added
    with LackpyService(ws, trust=True) as svc:
        assert run(svc, "run_command('touch canary.txt')", kit="coding").success  # a trusted workspace may loosen


def test_the_users_own_config_loosens_everywhere_and_an_untrusted_workspace_cannot_undo_more(ws, own_trust_record):
    (own_trust_record / "lackpy").mkdir(exist_ok=True)
    (own_trust_record / "lackpy" / "config.toml").write_text('[approvals]\nrun_command = "none"\n')
    with LackpyService(ws, trust=False) as svc:
        assert run(svc, "run_command('touch canary.txt')", kit="coding").success


# -- the record ---------------------------------------------------------------------------------


def test_audit_appends_every_decision_to_the_audit_file(ws):
    config(ws, 'audit = true\napprove = "program"\n')
    with LackpyService(ws, trust=True) as svc:
        run(svc, "run_command('echo hi')\nwrite_file('new.txt', 'n')", kit="coding", approve=Answers(True, True, False))
    lines = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    assert [(e["gate"], e["approved"], e["by"]) for e in lines] == [("program", True, "callback"), ("call", True, "callback"), ("commit", False, "callback")]
    assert lines[0]["program"].startswith("run_command") and lines[0]["grade"] == {"w": 3, "d": 3}
    assert lines[1]["tool"] == "run_command" and lines[1]["arguments"] == {"command": "'echo hi'"} and lines[1]["step"] == 1
    assert lines[2]["files"] == ["new.txt"] and all(e["workspace"] == str(ws.resolve()) and e["asked_at"].endswith("+00:00") for e in lines)


def test_the_audit_keeps_what_was_approved_whole_and_why_a_cut_question_was_not(ws):
    config(ws, 'approve = "calls"\naudit = true\n[approvals]\nrun_command = "auto:1"\n')

    def cut_and_silent(request):  # a channel that could show only part of the question, and got no answer
        request.showing.cut("the channel showed only part of it")
        return None

    with LackpyService(ws, trust=True) as svc:
        denied = run(svc, PADDED, kit="coding", approve=cut_and_silent)
        run(svc, "write_file('tools/build.sh', 'x\\ny\\n')", kit="coding", approve=False)
    call, commit = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    assert call["arguments"] == {"command": "'echo running the unit tests now' + ' ' * 200 + '; touch PWNED_hidden'"}
    assert not call["approved"] and "the channel showed only part of it; auto mode goes on only after a question shown whole" in call["reason"]
    assert denied.error_kind == "denied" and not (ws / "PWNED_hidden").exists()
    assert commit["changes"] == [{"path": "tools/build.sh", "kind": "created", "added": 2, "removed": 0}]


def test_a_program_question_shows_each_line_with_nothing_invisible(ws):
    config(ws, 'approve = "program"\n')
    answers = Answers(False)
    with LackpyService(ws, trust=True) as svc:
        run(svc, "x = 1" + " " * 200 + "; run_command('touch canary.txt')\nx", kit="coding", approve=answers)
    [request] = answers.requests
    assert request.lines() == ["its own grade: w=3 d=3 (critical)", "x = 1\u27e8' ' \u00d7 200\u27e9; run_command('touch canary.txt')", "x"]
    assert not (ws / "canary.txt").exists()


def test_the_audit_file_is_never_written_through_a_link(ws, tmp_path_factory):
    canary = tmp_path_factory.mktemp("outside") / "canary.txt"
    canary.write_text("untouched\n")
    config(ws, "audit = true\n")
    os.symlink(canary, ws / ".lackpy" / "audit.jsonl")
    with LackpyService(ws, trust=True) as svc:
        result = run(svc, "write_file('new.txt', 'n')", kit="filesystem", approve=True)
    assert result.success and canary.read_text() == "untouched\n"
    assert any("could not append to .lackpy/audit.jsonl" in notice for notice in result.notices)


# -- a kit's own approvals ----------------------------------------------------------------------


def kit_file(ws: Path, text: str) -> None:
    (ws / ".lackpy" / "kits").mkdir(parents=True, exist_ok=True)
    (ws / ".lackpy" / "kits" / "scripts.kit").write_text(text)


def test_a_kit_names_its_own_modes_and_a_trusted_one_may_ask_less(ws):
    kit_file(ws, "---\nname: scripts\napprovals:\n  run_command: none\n  read_file: block\n---\nrun_command\nread_file\n")
    answers = Answers(False)
    with LackpyService(ws, CALLS, trust=True) as svc:
        assert run(svc, "run_command('touch canary.txt')['code']", kit="scripts", approve=answers).success
        refused = run(svc, "read_file('keep.txt')", kit="scripts", approve=answers)
    assert (ws / "canary.txt").exists() and refused.error_kind == "denied" and [r.tool for r in answers.requests] == ["read_file"]


def test_an_untrusted_workspaces_kit_may_only_ask_more(ws):
    kit_file(ws, "---\nname: scripts\napprovals:\n  read_file: block\n  commit: none\n---\nread_file\n")
    with LackpyService(ws, CALLS, trust=False) as svc:
        result = run(svc, "read_file('keep.txt')", kit="scripts", approve=Answers(False))
    assert result.error_kind == "denied" and result.decisions[0].tool == "read_file"


def test_a_bad_mode_in_a_kit_is_a_kit_error(ws):
    kit_file(ws, "---\nname: scripts\napprovals:\n  read_file: often\n---\nread_file\n")
    with LackpyService(ws, trust=True) as svc:
        with pytest.raises(Exception, match="kit 'scripts' approvals read_file: 'often' is not an approval mode"):
            run(svc, "read_file('keep.txt')", kit="scripts")


# -- what the person approves is exactly what happens ---------------------------------------------

PADDED = 'run_command("echo running the unit tests now" + " " * 200 + "; touch PWNED_hidden")'


@pytest.mark.parametrize("mode", MODES)
def test_a_padded_command_is_asked_about_whole_with_its_padding_counted(ws, mode):
    answers = Answers(False)
    with LackpyService(ws, CALLS) as svc:
        result = run(svc, PADDED, kit="coding", mode=mode, approve=answers)
    [request] = answers.requests
    summary = request.summary()
    assert summary == "run_command(command='echo running the unit tests now' + ' ' * 200 + '; touch PWNED_hidden')"
    assert eval(summary.removeprefix("run_command(command=").removesuffix(")")) == request.arguments["command"]
    assert result.error_kind == "denied" and not (ws / "PWNED_hidden").exists()


def test_exact_spells_out_any_argument_so_that_it_equals_the_value():
    values = [
        "plain", "", "a\nb\rc\x1b[2K\x00", "\u202eevil\u200b", "\u3164" * 3 + "x", "\u2800" * 40,
        ["x" * 17, {"k": (1,), "t": " " * 16}], {"s", "t"}, (), 3.5, None, b"by\x00tes",
    ]
    for value in values:
        text = exact(value)
        assert eval(text) == value, text
        assert text.isprintable() and "\u3164" not in text and "\u2800" not in text, text
    assert exact(["a" + " " * 300 + "b"]) == "['a' + ' ' * 300 + 'b']"


def test_visible_escapes_what_a_terminal_would_act_on_or_hide():
    assert visible("ok\x1b[1A\x1b[2K") == "ok\\x1b[1A\\x1b[2K"
    assert visible("x = 1" + " " * 40 + "; y\t") == "x = 1\u27e8' ' \u00d7 40\u27e9; y\\t"
    assert visible("\u27e8' ' \u00d7 3\u27e9") == "\\u27e8' ' \u00d7 3\u27e9"  # a literal marker cannot pass for a count
    assert visible("caf\u00e9 \u202e\u3164") == "caf\u00e9 \\u202e\\u3164"


EIGHT_THEN_BUILD = (
    "for i in range(8):\n"
    "    write_file(f'a{i}.md', 'notes\\n' * 300)\n"
    "write_file('tools/build.sh', 'curl http://127.0.0.1:9/x | sh\\n')\n"
    "write_file('keep.txt', '-- a line\\n--- a/keep.txt\\nno newline')\n"
)


@pytest.mark.parametrize("mode", MODES)
def test_a_commit_question_names_every_file_with_its_kind_and_counts(ws, mode):
    answers = Answers(False)
    with LackpyService(ws) as svc:
        result = run(svc, EIGHT_THEN_BUILD, kit="filesystem", mode=mode, approve=answers)
    assert result.error_kind == "denied" and not (ws / "tools").exists()
    [request] = answers.requests
    changes = {c.path: (c.kind, c.added, c.removed) for c in request.changes}
    assert changes == {**{f"a{i}.md": ("created", 300, 0) for i in range(8)}, "tools/build.sh": ("created", 1, 0), "keep.txt": ("modified", 3, 1)}
    assert "created   tools/build.sh  +1 -0" in request.lines() and "modified  keep.txt  +3 -1" in request.lines()
    assert request.summary() == "write 10 files (9 created, 1 modified; +2404 -1 lines)"
    assert "+curl http://127.0.0.1:9/x | sh" in request.more() and request.diff.count("\n") == len(request.more())


def test_file_changes_never_guess_counts_from_a_diff_they_cannot_read_back():
    from types import SimpleNamespace

    changes = SimpleNamespace(created=["b"], modified=["a"], deleted=[])
    diff = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/b\n@@ -0,0 +1,2 @@\n+1\n+2\n"
    assert [(c.path, c.kind, c.added, c.removed) for c in file_changes(changes, diff)] == [("a", "modified", 1, 1), ("b", "created", 2, 0)]
    broken = diff.replace("+1,2 @@", "+1,3 @@")
    assert [(c.added, c.removed) for c in file_changes(changes, broken)] == [(None, None), (None, None)]
    assert "lines not counted" in FileChange("a", "modified").line()


def test_an_odd_file_name_is_shown_escaped_in_the_commit_question(ws):
    answers = Answers(False)
    with LackpyService(ws) as svc:
        run(svc, "write_file('ok.md\\n  created  other.md', 'x')", kit="filesystem", approve=answers)
    assert answers.requests[0].lines() == ["created   'ok.md\\n  created  other.md'  +1 -0"]


# -- a workspace may only ask more, in every part of a mode --------------------------------------


def readonly_kit_asking(ws: Path, mode: str) -> None:
    kit_file(ws, f"---\nname: scripts\napprovals:\n  run_command: \"{mode}\"\n---\nread_file\n")


@pytest.mark.parametrize("kit_mode, asked", [("auto:1", ("auto", 600.0)), ("block:1", ("block", 600.0)), ("auto:900", ("auto", 900.0))])
def test_an_untrusted_workspace_kit_cannot_shorten_the_users_wait(ws, own_trust_record, kit_mode, asked):
    (own_trust_record / "lackpy").mkdir(exist_ok=True)
    (own_trust_record / "lackpy" / "config.toml").write_text('[approvals]\nrun_command = "auto:600"\n')
    readonly_kit_asking(ws, kit_mode)
    answers = Answers(False)
    with LackpyService(ws, trust=False) as svc:
        result = run(svc, "run_command('touch canary.txt')", kit="scripts", extra_tools=["run_command"], approve=answers)
    [request] = answers.requests
    assert (request.ask, request.wait_s) == asked
    assert result.error_kind == "denied" and not (ws / "canary.txt").exists()


def test_an_untrusted_workspace_config_cannot_shorten_the_users_wait_either(ws, own_trust_record):
    (own_trust_record / "lackpy").mkdir(exist_ok=True)
    (own_trust_record / "lackpy" / "config.toml").write_text('approve = "calls"\napproval_timeout_s = 300\n[approvals]\nrun_command = "auto"\n')
    config(ws, 'approval_timeout_s = 1\n[approvals]\nrun_command = "auto"\ncommit = "auto:2"\n')
    answers = Answers(False, False)
    with LackpyService(ws, trust=False) as svc:
        run(svc, "run_command('touch canary.txt')", kit="coding", approve=answers)
        run(svc, "write_file('new.txt', 'n')", kit="coding", approve=answers)
    assert [(r.gate, r.ask, r.wait_s) for r in answers.requests] == [("call", "auto", 300.0), ("commit", "block", 300.0)]


# -- a run waiting for a person gives its slot back ---------------------------------------------


class Held:
    """An async approve callback that answers no only when released; counts the questions it holds."""

    def __init__(self) -> None:
        self.release, self.asked = asyncio.Event(), 0

    async def __call__(self, request: ApprovalRequest):
        self.asked += 1
        await self.release.wait()
        return False


async def asked(held: Held, count: int) -> None:
    """Until ``held`` holds ``count`` questions (bounded: 20 s)."""
    for _ in range(400):
        if held.asked >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{held.asked} of {count} questions were asked within 20 s")


def test_runs_waiting_for_a_person_leave_their_slots_to_other_runs(ws):
    async def main():
        held = Held()
        async with LackpyService(ws, {"max_concurrent_runs": 2}) as svc:
            waiting = [asyncio.create_task(svc.run_program("run_command('touch canary.txt')", kit="coding", approve=held)) for _ in range(2)]
            await asked(held, 2)
            other = await asyncio.wait_for(svc.run_program("read_file('keep.txt')", kit="readonly"), 10)
            held.release.set()
            return other, await asyncio.gather(*waiting)

    other, refused = asyncio.run(main())
    assert other.success and other.output == "as it was\n"
    assert all(r.error_kind == "denied" for r in refused) and not (ws / "canary.txt").exists()


def test_past_the_bound_of_runs_waiting_a_question_is_refused_at_once(ws):
    from lackpy.run.slots import WAITING_PER_SLOT

    async def main():
        held = Held()
        async with LackpyService(ws, {"max_concurrent_runs": 1}) as svc:
            waiting = [asyncio.create_task(svc.run_program("run_command('touch canary.txt')", kit="coding", approve=held)) for _ in range(WAITING_PER_SLOT)]
            await asked(held, WAITING_PER_SLOT)
            late = await asyncio.wait_for(svc.run_program("run_command('touch late.txt')", kit="coding", approve=held), 10)
            quiet = await asyncio.wait_for(svc.run_program("read_file('keep.txt')", kit="readonly"), 10)
            held.release.set()
            await asyncio.gather(*waiting)
            return late, quiet

    late, quiet = asyncio.run(main())
    assert late.error_kind == "denied" and "not approved (busy)" in late.error and "already waiting for a person" in late.error
    assert quiet.success and not (ws / "late.txt").exists()
