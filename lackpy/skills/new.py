"""``lackpy skill new``: a skill folder to start from, in the workspace's ``.lackpy/skills``.

It is a working skill at once: ``SKILL.md`` (its name, description, kit,
the grade its kit reaches, and one intent) and ``programs/main.py``, which lists the workspace's markdown
files; the person edits both. Files are written beneath the workspace and
renamed into place, never through a link (``own_dir``).
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from lackpy.errors import ParamError
from lackpy.host.ownfiles import STATE_DIR, exists, open_state, own_dir, write_own
from lackpy.lang.grade import Grade
from lackpy.skills.skill import MAX_DESCRIPTION, SKILL_FILE, SKILL_NAME

MAIN = 'sorted(find_files("**/*.md"))\n'


def write_skill(
    workspace: Path, name: str, description: str, tools: str | list[str] | None = None, force: bool = False, grade: Grade | None = None
) -> Path:
    """Write ``.lackpy/skills/NAME/`` (SKILL.md and programs/main.py); its folder. ParamError saying what to fix.

    ``grade``: what it declares its programs may reach (its kit's grade, said up front); None declares none (read-only).
    """
    if not isinstance(name, str) or not SKILL_NAME.match(name):
        raise ParamError(f"skill name {name!r} is not valid; use lower case letters, digits and hyphens, e.g. todo-report")
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_DESCRIPTION:
        raise ParamError(f"give the skill a description (what it is for and when to use it) of 1 to {MAX_DESCRIPTION} characters")
    meta = {"name": name, "description": " ".join(description.split()), "tools": tools or "readonly", "intents": [name.replace("-", " ")]}
    if grade is not None:
        meta["grade"] = [grade.w, grade.d]
    text = "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n\n" + f"# {name}\n\nWhat this skill does, step by step, and when to use it.\n"
    skills = open_state(workspace, "skills", ParamError, create=True)
    try:
        if exists(skills, name) and not force:
            raise ParamError(f"skill '{name}' already exists in {STATE_DIR}/skills/{name}; pass --force to write its files again")
        folder = own_dir(skills, name, f"{STATE_DIR}/skills/{name}", ParamError)
        try:
            write_own(folder, SKILL_FILE, text.encode("utf-8"))
            programs = own_dir(folder, "programs", f"{STATE_DIR}/skills/{name}/programs", ParamError)
            try:
                write_own(programs, "main.py", MAIN.encode("utf-8"))
            finally:
                os.close(programs)
        finally:
            os.close(folder)
    finally:
        os.close(skills)
    return Path(workspace) / STATE_DIR / "skills" / name


__all__ = ["write_skill"]
