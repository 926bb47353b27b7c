"""Skills from Python: found in each source, judged by trust, run with their own kit and files, routed by their intents."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import ConfigError, ParamError
from lackpy.hookspecs import hookimpl
from lackpy.plugins import get_plugin_manager

SKILL = """---
name: {name}
description: Lists the notes of a folder. Use it before a review.
tools: {tools}
intents:
  - notes of {{folder}}
arguments:
  - name: folder
    description: where to look
    required: {required}
---
# Notes

Grep the folder for NOTE.
"""
PROGRAM = 'hits = grep("NOTE", folder + "/**/*")\n[h["path"] for h in hits] + [skill_file("assets/tag.txt").strip()]\n'


def write_skill(
    parent: Path, name: str = "notes", tools: str = "[grep]", required: str = "false", program: str = PROGRAM, grade: str | None = None
) -> Path:
    """A skill folder ``name`` in ``parent``; ``grade`` ("[3, 3]") is the grade it declares (none: read-only)."""
    folder = parent / name
    (folder / "programs").mkdir(parents=True)
    (folder / "assets").mkdir()
    text = SKILL.format(name=name, tools=tools, required=required)
    (folder / "SKILL.md").write_text(text.replace(f"tools: {tools}\n", f"tools: {tools}\ngrade: {grade}\n") if grade else text)
    (folder / "programs" / "main.py").write_text(program)
    (folder / "assets" / "tag.txt").write_text("tagged\n")
    return folder


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("NOTE: check this\n")
    (root / "b.md").write_text("NOTE: elsewhere\n")
    return root


def run(svc: LackpyService, program: str, **options):
    return asyncio.run(svc.run_program(program, **options))


def names(svc: LackpyService) -> dict[str, str | None]:
    return {row["name"]: row["ignored"] for row in svc.skills() if row["source"] != "plugin"}


def test_a_workspace_skill_is_listed_and_runs_with_its_kit_and_its_files(ws):
    write_skill(ws / ".lackpy" / "skills")
    svc = LackpyService(ws)
    (row,) = [r for r in svc.skills() if r["name"] == "notes"]
    assert row["source"] == "workspace" and row["kit"] == ["grep"] and row["programs"] == ["main"] and row["ignored"] is None
    skill = svc.skill("notes")
    assert skill.body() == "# Notes\n\nGrep the folder for NOTE.\n"
    result = run(svc, skill.program_text(), skill="notes", params={"folder": "docs"})
    assert result.success, result.error
    assert result.output == ["docs/a.md", "tagged"]
    assert sorted(svc.skill_kit("notes").tools) == ["grep", "skill_file"]
    info = svc.skill_info("notes")
    assert [t["name"] for t in info["tools"]] == ["grep", "skill_file"] and info["body"] == skill.body() and info["grade"] == {"w": 1, "d": 0}


def test_a_skill_runs_only_its_kit(ws):
    write_skill(ws / ".lackpy" / "skills")
    result = run(LackpyService(ws), 'read_file("b.md")', skill="notes", params={"folder": "docs"})
    assert not result.success and result.error_kind == "validation" and "read_file" in result.error


def test_skill_file_stays_inside_the_skills_folder(ws, outside):
    folder = write_skill(ws / ".lackpy" / "skills")
    (folder / "assets" / "out.txt").symlink_to(outside)
    svc = LackpyService(ws)
    for path in ["../../config.toml", "/etc/passwd", "assets/out.txt", "assets"]:
        result = run(svc, f"skill_file({path!r})", skill="notes", params={"folder": "docs"})
        assert not result.success and "CANARY" not in str(result.output), path
    assert outside.read_text() == "CANARY-SECRET\n"


def test_skill_file_without_a_skill_says_how_to_give_one(ws):
    result = run(LackpyService(ws), 'skill_file("x")', kit=["skill_file"])
    assert not result.success and "run the program with a skill" in result.error


def test_a_skill_and_a_kit_together_are_refused_but_its_own_kit_resolved_is_taken(ws):
    write_skill(ws / ".lackpy" / "skills")
    svc = LackpyService(ws)
    with pytest.raises(ParamError, match="runs with its own kit"):
        run(svc, "1", kit="readonly", skill="notes")
    checked = svc.skill_kit("notes")  # as a server resolves and checks it once, then runs with it
    assert run(svc, 'skill_file("assets/tag.txt")', kit=checked, skill="notes").output == "tagged\n"


def test_an_agent_skills_folder_is_a_read_only_skill(ws):
    folder = ws / ".lackpy" / "skills" / "plain"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: plain\ndescription: Only words, as Agent Skills write them.\n---\nDo it by hand.\n")
    svc = LackpyService(ws)
    assert svc.skill("plain").kit == "readonly" and svc.skill("plain").programs == ()
    assert run(svc, 'len(find_files("**/*.md"))', skill="plain").output == 2


def test_an_untrusted_workspaces_skill_that_declares_a_grade_above_read_only_is_ignored_and_does_not_run(ws, trusted):
    write_skill(ws / ".lackpy" / "skills", tools="coding", grade="[3, 3]")
    svc = LackpyService(ws)
    assert "declares grade w=3 d=3, above read-only" in names(svc)["notes"] and "lackpy trust" in names(svc)["notes"]
    with pytest.raises(ParamError, match="does not run: it declares grade w=3 d=3"):
        run(svc, "1", skill="notes")
    trusted(ws)
    assert names(LackpyService(ws))["notes"] is None


def test_a_skill_that_declares_no_grade_runs_read_only_whatever_its_kit(ws):
    write_skill(ws / ".lackpy" / "skills", tools="coding")
    svc = LackpyService(ws)
    (row,) = [r for r in svc.skills() if r["name"] == "notes"]
    assert row["ignored"] is None and row["grade"] == {"w": 1, "d": 0} and row["grade_declared"] is None and row["kit_grade"]["d"] == 3
    result = run(svc, 'run_command("echo hi")', skill="notes", params={"folder": "docs"})
    assert not result.success and result.error_kind == "denied" and "w=1 d=0" in result.error


def test_a_skill_whose_own_program_reaches_past_its_grade_does_not_run(ws, trusted):
    write_skill(ws / ".lackpy" / "skills", tools="coding", program='run_command("echo hi")\n')
    trusted(ws)
    svc = LackpyService(ws)
    why = names(svc)["notes"]
    assert "its program main reaches w=3 d=3, above read-only (w=1 d=0), as it declares no grade" in why and "grade: [3, 3]" in why
    with pytest.raises(ParamError, match="its program main reaches"):
        svc.skill("notes")


def test_the_persons_own_skills_come_first_and_a_workspace_skill_of_their_name_is_shadowed(ws, own_trust_record, trusted):
    write_skill(own_trust_record / "lackpy" / "skills", "mine")
    write_skill(own_trust_record / "lackpy" / "skills", "notes", tools="coding")
    write_skill(ws / ".lackpy" / "skills")
    write_skill(ws / ".claude" / "skills", "claude")
    (ws / ".lackpy" / "config.toml").write_text('[skills]\npaths = [".claude/skills"]\n')
    rows = {(r["name"], r["source"]): r for r in LackpyService(ws).skills()}
    assert ("claude", "paths") not in rows  # an untrusted config's paths are no skill folders
    trusted(ws)
    rows = {(r["name"], r["source"]): r for r in LackpyService(ws).skills()}
    assert rows["mine", "user"]["ignored"] is None and rows["claude", "paths"]["ignored"] is None
    assert rows["notes", "user"]["ignored"] is None
    assert "shadowed by your own skill notes" in rows["notes", "workspace"]["ignored"]


def test_a_skill_path_that_leads_out_of_the_workspace_or_through_a_link_is_refused(ws, tmp_path, trusted):
    write_skill(tmp_path / "elsewhere" / "skills", "outsider")
    (ws / "linked").symlink_to(tmp_path / "elsewhere" / "skills")
    (ws / ".lackpy").mkdir()
    (ws / ".lackpy" / "config.toml").write_text('[skills]\npaths = ["linked"]\n')
    trusted(ws)
    rows = LackpyService(ws).skills()
    assert "outsider" not in [r["name"] for r in rows if not r.get("ignored")]
    assert sum("symlink" in (r.get("ignored") or "") for r in rows) == 1
    (ws / ".lackpy" / "config.toml").write_text('[skills]\npaths = ["../elsewhere/skills"]\n')
    with pytest.raises(ConfigError, match="not a folder inside the workspace"):
        LackpyService(ws, trust=True).skills()


def test_a_folder_that_is_not_a_skill_is_listed_with_what_to_fix(ws):
    folder = ws / ".lackpy" / "skills" / "broken"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: other\ndescription: x\n---\n")
    (ws / ".lackpy" / "skills" / "empty").mkdir()
    rows = {r["name"]: r["ignored"] for r in LackpyService(ws).skills()}
    assert "its folder is 'broken'" in rows["broken"] and "has no SKILL.md" in rows["empty"]


def test_a_package_offers_skills_through_register_skill_dirs(ws, tmp_path):
    write_skill(tmp_path / "package" / "skills", "packaged")

    class Package:
        @hookimpl
        def register_skill_dirs(self, register):
            register(tmp_path / "package" / "skills")

    manager = get_plugin_manager()
    plugin = Package()
    manager.register(plugin)
    try:
        rows = {r["name"]: r for r in LackpyService(ws).skills()}
    finally:
        manager.unregister(plugin)
    assert rows["packaged"]["source"] == "plugin" and rows["packaged"]["ignored"] is None


def test_an_intent_a_skill_names_runs_its_program_offline_with_the_captured_value(ws, trusted):
    write_skill(ws / ".lackpy" / "skills")
    trusted(ws)
    result = asyncio.run(LackpyService(ws).delegate("notes of docs", mode="inprocess"))
    assert result.success and result.provider == "skill" and result.detail == "skill notes (main.py)"
    assert result.output == ["docs/a.md", "tagged"] and result.kit["skill"] == "notes"


def test_a_captured_value_is_a_parameter_never_code(ws, outside, trusted):
    write_skill(ws / ".lackpy" / "skills")
    trusted(ws)
    hostile = 'docs" + read_file("' + str(outside) + '") + "'
    result = asyncio.run(LackpyService(ws).delegate(f"notes of {hostile}", mode="inprocess"))
    assert "CANARY" not in repr(result.to_dict())


def test_a_required_argument_must_be_given(ws):
    write_skill(ws / ".lackpy" / "skills", required="true")
    svc = LackpyService(ws)
    with pytest.raises(ParamError, match="needs folder"):
        run(svc, svc.skill("notes").program_text(), skill="notes")


def test_skill_create_writes_a_skill_that_runs(ws):
    svc = LackpyService(ws)
    folder = svc.skill_create("release-notes", "Collects what changed. Use it before a release.")
    assert (folder / "SKILL.md").is_file() and os.path.isfile(folder / "programs" / "main.py")
    skill = svc.skill("release-notes")
    assert run(svc, skill.program_text(), skill="release-notes").output == ["b.md", "docs/a.md"]
    with pytest.raises(ParamError, match="already exists"):
        svc.skill_create("release-notes", "again")
