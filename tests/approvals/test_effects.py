"""approve = "effects": a program's calls that can act, listed from its syntax tree, approved once; the run held to that list."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.approvals.decision import Decision
from lackpy.approvals.effects import Holding, effects_of
from lackpy.approvals.gatekeeper import Gatekeeper
from lackpy.approvals.policy import policy_from
from lackpy.approvals.request import ApprovalRequest
from lackpy.errors import DeniedError
from lackpy.kit.context import ToolContext

MODES = ["isolated", "inprocess"]
EFFECTS = {"approve": "effects"}
#: The measure: three literal-path writes and one command.
FOUR = "write_file('a.txt', 'A')\nwrite_file('b.txt', 'B')\nwrite_file('c.txt', 'C')\nrun_command('touch canary.txt')['code']"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "keep.txt").write_text("as it was\n")
    return tmp_path


class Counting:
    """An approve callback that answers each question in turn (then yes), and keeps every question it was asked."""

    def __init__(self, *answers) -> None:
        self.answers, self.requests = list(answers), []

    def __call__(self, request: ApprovalRequest):
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else True


def run(ws: Path, program: str, approve, config: dict | None = None, **options):
    async def main():
        async with LackpyService(ws, {**EFFECTS, **(config or {})}) as svc:
            return await svc.run_program(program, approve=approve, **options)

    return asyncio.run(main())


# -- the measure --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_three_writes_and_a_command_ask_one_question_naming_all_four_and_none_while_it_runs(ws, mode):
    asked = Counting()
    result = run(ws, FOUR, asked, kit="coding", mode=mode)
    assert result.success, result.error
    [question, commit] = asked.requests  # the commit keeps its own question, with its diff, once the run is over
    assert question.gate == "effects" and question.ask == "block"
    assert commit.gate == "commit" and commit.files == ["a.txt", "b.txt", "c.txt"] and "+A" in commit.diff
    assert [(e.tool, e.line, [a.shown for a in e.arguments]) for e in question.effects] == [
        ("write_file", 1, ["'a.txt'", "'A'"]), ("write_file", 2, ["'b.txt'", "'B'"]), ("write_file", 3, ["'c.txt'", "'C'"]),
        ("run_command", 4, ["'touch canary.txt'"]),
    ]
    lines = question.lines()
    assert lines[0] == "1. line 1  write_file(path='a.txt', content='A')  w=3 d=3, acts after the run, at most once"
    assert lines[3] == "4. line 4  run_command(command='touch canary.txt')  w=3 d=3, acts at once, at most once"
    assert "write_file \u00d73, run_command \u00d71" in question.summary()
    assert (ws / "canary.txt").exists() and [(ws / f"{n}.txt").read_text() for n in "abc"] == ["A", "B", "C"]
    assert [(d.gate, d.by) for d in result.decisions] == [("effects", "callback"), ("call", "effects"), ("commit", "callback")]
    assert result.decisions[2].step is None  # asked after the run, not during it
    assert result.decisions[0].effects[3].tool == "run_command" and result.trace[3].decision.by == "effects"


def test_with_approve_calls_the_same_program_asks_at_its_call_as_before(ws):
    asked = Counting()
    with LackpyService(ws, {"approve": "calls"}) as svc:
        result = asyncio.run(svc.run_program(FOUR, kit="coding", approve=asked))
    assert result.success and [r.gate for r in asked.requests] == ["call", "commit"]


@pytest.mark.parametrize("mode", MODES)
def test_by_default_the_list_is_asked_once_up_front(ws, mode):
    """With nothing configured, a program that can act asks its list of effects."""
    asked = Counting()
    with LackpyService(ws) as svc:
        result = asyncio.run(svc.run_program(FOUR, kit="coding", approve=asked, mode=mode))
    assert result.success and [r.gate for r in asked.requests] == ["effects", "commit"]
    assert [e.tool for e in asked.requests[0].effects] == ["write_file"] * 3 + ["run_command"]


@pytest.mark.parametrize("mode", MODES)
def test_by_default_a_computed_value_is_on_the_list_and_asked_again_at_its_call_unless_any_value_was_allowed(ws, mode):
    asked = Counting()
    with LackpyService(ws) as svc:
        result = asyncio.run(svc.run_program(LOOP, kit="coding", approve=asked, mode=mode))
    assert result.success and [r.gate for r in asked.requests] == ["effects", "call", "call", "call"]
    assert [r.arguments for r in asked.requests[1:]] == [{"command": f"touch {n}.out"} for n in "xyz"]


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_list_runs_nothing_at_all(ws, mode):
    asked = Counting(False)
    result = run(ws, FOUR, asked, kit="coding", mode=mode)
    assert result.error_kind == "denied" and "the list of the program's effects was not approved" in result.error and result.trace == []
    assert not (ws / "canary.txt").exists() and not (ws / "a.txt").exists() and len(asked.requests) == 1


def test_a_program_with_no_effects_asks_nothing(ws):
    asked = Counting()
    result = run(ws, "read_file('keep.txt')", asked, kit="coding")
    assert result.success and asked.requests == [] and result.decisions == []


def test_a_dry_run_asks_nothing_and_changes_nothing_at_all(ws):
    asked = Counting()
    result = run(ws, FOUR, asked, kit="coding", dry_run=True)
    assert asked.requests == [] and not (ws / "canary.txt").exists() and not (ws / "a.txt").exists()
    assert result.dry_run and "a.txt" in (result.diff or "")


def test_with_nobody_to_ask_the_list_is_refused_and_says_how_to_allow_it(ws):
    result = run(ws, FOUR, None, kit="coding")
    assert result.error_kind == "denied" and "run_command, write_file" in result.error and not (ws / "canary.txt").exists()


# -- computed values, loops and parameters --------------------------------------------------------

LOOP = "names = ['x', 'y', 'z']\nfor n in names:\n    run_command('touch ' + n + '.out')\nlen(list_dir('.'))"


@pytest.mark.parametrize("mode", MODES)
def test_a_computed_value_allowed_any_value_asks_nothing_more_though_its_loop_runs_three_times(ws, mode):
    asked = Counting(Decision(True, "callback", "ok", any_value=[1]))
    result = run(ws, LOOP, asked, kit="coding", mode=mode)
    assert result.success and len(asked.requests) == 1 and all((ws / f"{n}.out").exists() for n in "xyz")
    [effect] = asked.requests[0].effects
    assert effect.repeated and effect.arguments[0].kind == "computed" and effect.arguments[0].ref == 1
    assert "run_command(command=<computed #1: 'touch ' + n + '.out'>)  w=3 d=3, acts at once, may run many times" in asked.requests[0].lines()[0]
    assert result.decisions[0].any_value == [1] and result.decisions[0].effects[0].arguments[0].any_value


@pytest.mark.parametrize("mode", MODES)
def test_a_computed_value_not_allowed_any_value_asks_at_each_call_with_the_value_it_has(ws, mode):
    asked = Counting(True, True, True, False)
    result = run(ws, LOOP, asked, kit="coding", mode=mode)
    assert [r.gate for r in asked.requests] == ["effects", "call", "call", "call"]
    assert [r.arguments for r in asked.requests[1:]] == [{"command": f"touch {n}.out"} for n in "xyz"]
    assert "on the approved list at line 3; asked now for its computed #1" in asked.requests[1].lines()
    assert result.error_kind == "denied" and (ws / "x.out").exists() and (ws / "y.out").exists() and not (ws / "z.out").exists()


def test_a_literal_site_in_a_loop_may_run_many_times_and_one_outside_a_loop_once(ws):
    asked = Counting()
    result = run(ws, "for i in range(3):\n    run_command('echo hi')\nrun_command('echo once')['stdout']", asked, kit="coding")
    assert result.success and result.output == "once\n" and len(asked.requests) == 1 and len(result.trace) == 4


@pytest.mark.parametrize("mode", MODES)
def test_a_parameter_is_shown_with_its_value_and_must_pass_that_value(ws, mode):
    asked = Counting()
    result = run(ws, "write_file(target, 'x')\nrun_command(cmd)['code']", asked, kit="coding", mode=mode,
                 params={"target": "p.txt", "cmd": "touch canary.txt"})
    assert result.success and (ws / "p.txt").read_text() == "x" and (ws / "canary.txt").exists()
    question = asked.requests[0]
    assert question.lines()[0] == "1. line 1  write_file(path=<parameter target = 'p.txt'>, content='x')  w=3 d=3, acts after the run, at most once"
    assert [d.gate for d in result.decisions] == ["effects", "call", "commit"]


def test_writes_alone_ask_only_their_commit_with_the_diff(ws):
    """Staged writes are asked about once, with their diff, when the run is over: what the list cannot show (a computed
    path or content, what a write replaces)."""
    asked = Counting(True)
    result = run(ws, "name = 'keep' + '.txt'\nwrite_file(name, 'new\\n')", asked, kit="coding")
    assert result.success and [r.gate for r in asked.requests] == ["commit"]
    assert "-as it was" in asked.requests[0].diff and (ws / "keep.txt").read_text() == "new\n"


def test_an_answer_allowing_a_number_not_on_the_list_approves_nothing(ws):
    result = run(ws, LOOP, Counting(Decision(True, "callback", "ok", any_value=[7])), kit="coding")
    assert result.error_kind == "denied" and "#7, which is not a computed argument on the list" in result.error
    assert not (ws / "x.out").exists()


# -- held to the list, whatever the process that runs the program says ----------------------------


def held_tools(ws: Path, program: str, params: dict | None = None, any_value=()) -> tuple[Gatekeeper, dict]:
    """The host side of a run: the coding kit's run_command and write_file, bound to a staging context and held to
    ``program``'s approved list, as the runner wraps what a worker's calls reach."""
    with LackpyService(ws) as svc:
        kit = svc.resolve_kit("coding")
    gatekeeper = Gatekeeper(policy_from(EFFECTS), lambda request: Decision(True, "callback", "ok", any_value=list(any_value)))
    decision = gatekeeper.effects(program, kit.grade_of(["run_command", "write_file"]), ["run_command", "write_file"], kit, params or {}, True)
    assert decision.approved
    context = (kit.context or ToolContext(str(ws))).fresh(staging=True)
    bound = kit.bind(context, ["run_command", "write_file"])
    return gatekeeper, {alias: gatekeeper.gate(alias, kit.tools[alias], fn) for alias, fn in bound.items()}


def test_a_call_with_a_literal_value_not_on_the_list_never_runs(ws):
    gatekeeper, tools = held_tools(ws, "run_command('echo approved')")
    with pytest.raises(DeniedError, match="not on the approved list"):
        tools["run_command"]("touch canary.txt")
    with pytest.raises(DeniedError, match="not on the approved list"):
        tools["run_command"]("echo approved", timeout=5)  # an argument the site does not pass is not on the list either
    assert not (ws / "canary.txt").exists()
    assert [(d.gate, d.approved, d.by) for d in gatekeeper.decisions] == [("effects", True, "callback"), ("call", False, "effects"), ("call", False, "effects")]


def test_the_worker_that_serves_a_call_cannot_claim_a_site_it_is_not(ws):
    """The isolated worker sends only a tool and its arguments; the host matches them itself, so a worker that lies
    (a call of another command, or the one approved call made twice) is refused where the tool is served."""
    from lackpy.run import wire
    from lackpy.run.isolated import _call

    _, tools = held_tools(ws, "x = run_command('echo one')['stdout']\nx")
    first, again, other = (
        wire.decode_reply(_call({"tool": "run_command", "args": [command], "kwargs": {}}, tools)[4:])
        for command in ("echo one", "echo one", "touch canary.txt")
    )
    assert first.get("t") != "err" and again["kind"] == "denied" and "runs at most once, and has run" in again["message"]
    assert other["kind"] == "denied" and not (ws / "canary.txt").exists()


def test_a_keyword_that_would_hide_a_position_is_refused(ws):
    _, tools = held_tools(ws, "run_command('echo ok')")
    with pytest.raises(DeniedError, match="a keyword repeats a position"):
        tools["run_command"]("echo ok", command="touch canary.txt")
    assert not (ws / "canary.txt").exists()


def test_calls_are_matched_so_every_site_keeps_its_own_call(ws):
    """Two sites that could both take a call: the first call is moved to the site it alone could not otherwise have."""
    program = "run_command(cmd)\nrun_command('echo b')"
    _, tools = held_tools(ws, program, {"cmd": "echo b"})
    tools["run_command"]("echo b")
    tools["run_command"]("echo b")
    with pytest.raises(DeniedError, match="runs at most once"):
        tools["run_command"]("echo b")


def test_an_earlier_call_moves_to_another_site_it_matches_to_make_room(ws):
    """'x' could be either site's; the first takes the computed one, so 'y', which only that one allows, moves it."""
    _, tools = held_tools(ws, "c = 'echo ' + 'y'\nrun_command(c)\nrun_command('echo x')", any_value=[1])
    assert tools["run_command"]("echo x")["stdout"] == "x\n"
    assert tools["run_command"]("echo y")["stdout"] == "y\n"
    with pytest.raises(DeniedError, match="runs at most once"):
        tools["run_command"]("echo x")


def coding():
    with LackpyService(".") as svc:
        return svc.resolve_kit("coding")


def test_a_parameter_is_held_to_the_value_it_had_when_it_was_approved():
    kit = coding()
    given = {"cmd": ["echo", "a"]}
    [effect] = effects_of("run_command(cmd)", {"run_command": kit.tools["run_command"]}, given, True)
    given["cmd"].append("; touch canary.txt")  # a program that changes the list it was given
    assert Holding([effect]).place("run_command", {"command": given["cmd"]}).verdict == "refused"
    assert Holding([effect]).place("run_command", {"command": ["echo", "a"]}).verdict == "covered"


@pytest.mark.parametrize("value", [True, 1.0, ("a",), b"a"])
def test_a_literal_must_match_its_type_too(value):
    kit = coding()
    program = {True: "run_command(1)", 1.0: "run_command(1)", ("a",): "run_command(['a'])", b"a": "run_command('a')"}[value]
    [effect] = effects_of(program, {"run_command": kit.tools["run_command"]}, {}, True)
    assert Holding([effect]).place("run_command", {"command": value}).verdict == "refused"


# -- where the policy comes from, and the record ---------------------------------------------------


def test_an_untrusted_workspace_cannot_turn_its_questions_into_one(ws, own_trust_record):
    (own_trust_record / "lackpy").mkdir(exist_ok=True)
    (own_trust_record / "lackpy" / "config.toml").write_text('approve = "calls"\n')  # the person's own choice
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('approve = "effects"\n')
    asked = Counting()
    with LackpyService(ws, trust=False) as svc:
        result = asyncio.run(svc.run_program(LOOP, kit="coding", approve=asked))
    assert result.success and [r.gate for r in asked.requests] == ["call"] * 3  # not one list with "any value" offered


def test_the_audit_keeps_the_approved_list(ws, trusted):
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('approve = "effects"\naudit = true\n')
    trusted(ws)
    with LackpyService(ws, trust=True) as svc:
        asyncio.run(svc.run_program(LOOP, kit="coding", approve=Counting(Decision(True, "callback", "ok", any_value=[1]))))
    lines = [json.loads(line) for line in (ws / ".lackpy" / "audit.jsonl").read_text().splitlines()]
    assert [(e["gate"], e["by"]) for e in lines] == [("effects", "callback")] + [("call", "effects")] * 3
    [effect] = lines[0]["effects"]
    assert effect["tool"] == "run_command" and effect["repeated"] and effect["line"] == 3
    assert effect["arguments"] == [{"name": "command", "kind": "computed", "expression": "'touch ' + n + '.out'", "shown": "", "ref": 1, "any_value": True}]
    assert lines[0]["any_value"] == [1] and lines[0]["program"] == LOOP and lines[1]["arguments"] == {"command": "'touch x.out'"}


def test_the_config_takes_approve_effects():
    assert policy_from(EFFECTS).effects and policy_from({}).effects
    assert not policy_from({"approve": "program"}).effects and not policy_from({"approve": "calls"}).effects


def test_a_computed_value_of_a_tool_the_policy_never_asks_about_allows_any_value_and_asks_nothing(ws):
    """todo_set changes session state (d=1) and is never asked about per call: it is listed, but asks no more than before."""
    asked = Counting()
    result = run(ws, "items = ['a']\nfor t in items:\n    todo_set([t])\nrun_command('echo ok')['code']", asked, kit="all")
    assert result.success, result.error
    [question] = asked.requests
    assert question.lines()[0].startswith("1. line 3  todo_set(items=<computed: [t], any value>)  w=0 d=1, acts at once, may run many times")
    assert "#1" not in question.lines()[0]


def test_yes_to_everything_allows_any_value_for_every_computed_argument(ws):
    result = run(ws, LOOP, True, kit="coding")
    assert result.success and result.decisions[0].by == "yes" and result.decisions[0].any_value == [1]
    assert [d.by for d in result.decisions[1:]] == ["effects"] * 3


@pytest.mark.parametrize("program", ["f = run_command\nf('touch canary.txt')", "sorted(['touch canary.txt'], key=run_command)", "[run_command][0]('touch canary.txt')"])
def test_a_tool_reached_by_another_name_never_runs(ws, program):
    asked = Counting()
    result = run(ws, program, asked, kit="coding")
    assert result.error_kind == "validation" and asked.requests == [] and not (ws / "canary.txt").exists()
