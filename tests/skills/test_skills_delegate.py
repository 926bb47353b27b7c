"""delegate with a skill and a model: the chosen skill's SKILL.md and kit shape what the model is shown.

The model tier talks real HTTP (the Ollama wire format) to the fake server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lackpy import LackpyService

from tests.infer.llm_server import FakeLLM
from .test_skills import write_skill

ANSWER = 'skill_file("assets/tag.txt").strip() + ": " + str(len(grep("NOTE", "**/*")))'


def with_model(workspace: Path, server: FakeLLM, trust: bool | None = None) -> LackpyService:
    return LackpyService(workspace, {"inference": {"order": ["ollama"], "ollama": {"model": server.model, "host": server.url}}}, trust=trust)


def test_the_chosen_skills_guide_and_kit_are_what_the_model_sees_and_uses(tmp_path):
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("NOTE: one\nNOTE: two\n")
    write_skill(ws / ".lackpy" / "skills")
    with FakeLLM([ANSWER]) as server:
        result = asyncio.run(with_model(ws, server).delegate("how many notes are there", skill="notes", mode="inprocess"))
    assert result.success and result.provider == "ollama" and result.output == "tagged: 2", result.attempts
    system = server.requests[0][1]["messages"][0]["content"]
    assert "Do it as this skill says" in system and "Grep the folder for NOTE." in system
    assert "grep(pattern: str" in system and "skill_file(path: str) -> str" in system and "read_file(" not in system
    assert "folder = None" in system  # its optional argument, set as a variable the program may read
    assert result.kit == {"name": None, "tools": ["grep", "skill_file"], "chosen": False, "skill": "notes"}


def test_without_a_skill_no_guide_is_shown(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.md").write_text("NOTE\n")
    with FakeLLM(['len(grep("NOTE", "**/*"))']) as server:
        result = asyncio.run(with_model(ws, server).delegate("how many notes are there", kit="readonly", mode="inprocess"))
    assert result.success and result.output == 1
    assert "Do it as this skill says" not in server.requests[0][1]["messages"][0]["content"]


def test_an_intent_that_asks_for_a_skill_by_name_is_guided_by_it(tmp_path):
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("NOTE: one\n")
    write_skill(ws / ".lackpy" / "skills")
    with FakeLLM([ANSWER, 'len(grep("NOTE", "**/*"))']) as server:
        asked = asyncio.run(with_model(ws, server, trust=True).delegate("use the notes skill to count what is noted", mode="inprocess"))
        plain = asyncio.run(with_model(ws, server, trust=True).delegate("count the notes in docs", mode="inprocess"))
    assert asked.success and asked.kit["skill"] == "notes" and asked.output == "tagged: 1"
    assert "Grep the folder for NOTE." in server.requests[0][1]["messages"][0]["content"]
    assert plain.success and plain.output == 1 and "skill" not in plain.kit  # a skill's name as a plain word does not choose it


def test_an_untrusted_workspaces_skill_is_not_chosen_by_name_in_an_intent(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.md").write_text("NOTE\n")
    write_skill(ws / ".lackpy" / "skills")
    with FakeLLM(['len(grep("NOTE", "**/*"))']) as server:
        result = asyncio.run(with_model(ws, server).delegate("use the notes skill to count what is noted", mode="inprocess"))
    assert result.success and "skill" not in result.kit
    assert "Grep the folder for NOTE." not in server.requests[0][1]["messages"][0]["content"]
