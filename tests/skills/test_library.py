"""The skills lackpy ships: each is valid, its programs check against its kit, and todo-report reports what it says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.skills.builtin import LIBRARY


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "pkg" / "a.py").write_text('x = 1  # TODO: fix\n# FIXME later\nvalue = "TODOS"\n')
    (root / "top.py").write_text("# XXX hack\n")
    (root / "docs" / "index.md").write_text("TODO: write docs\n")
    return root


def shipped(svc: LackpyService) -> list[dict]:
    return [row for row in svc.skills() if row["source"] == "plugin"]


def test_every_shipped_skill_is_offered_and_its_programs_check(ws):
    svc = LackpyService(ws)
    rows = shipped(svc)
    assert sorted(row["name"] for row in rows) == sorted(p.name for p in LIBRARY.iterdir() if p.is_dir())
    for row in rows:
        assert row["ignored"] is None, row
        skill = svc.skill(row["name"])
        for program in skill.programs:
            checked = svc.validate(skill.program_text(program), svc.skill_kit(skill.name), [a.name for a in skill.arguments])
            assert checked.valid, (skill.name, program, checked.errors)


def test_todo_report_reports_every_note_by_file_and_only_whole_words(ws):
    svc = LackpyService(ws)
    result = asyncio.run(svc.run_program(svc.skill("todo-report").program_text(), skill="todo-report"))
    assert result.success, result.error
    assert result.output == {
        "notes": 4,
        "files": 3,
        "by_file": {"docs/index.md": ["1: TODO: write docs"], "src/pkg/a.py": ["1: x = 1  # TODO: fix", "2: # FIXME later"], "top.py": ["1: # XXX hack"]},
    }


@pytest.mark.parametrize(
    ("intent", "program", "output"),
    [
        ("todo report for src", "report.py", {"notes": 2, "files": 1, "by_file": {"src/pkg/a.py": ["1: x = 1  # TODO: fix", "2: # FIXME later"]}}),
        ("what is left to do in docs", "report.py", {"notes": 1, "files": 1, "by_file": {"docs/index.md": ["1: TODO: write docs"]}}),
        ("how many todos per folder", "count.py", {"src": 2, "docs": 1, ".": 1}),
    ],
)
def test_todo_reports_intents_route_offline(ws, intent, program, output):
    result = asyncio.run(LackpyService(ws).delegate(intent, mode="inprocess"))
    assert result.success and result.detail == f"skill todo-report ({program})" and result.output == output
