"""``skill_file``: a program run with a skill reads the skill's own files (its assets, references and programs).

The run's context holds the skill (``ToolContext.skill``, set by the runner
from ``RunSettings.skill``); the file is read through the descriptor of the
skill's folder, beneath it: regular UTF-8 files only, bounded, never through
a link out of the folder, and never written.
"""

from __future__ import annotations

from lackpy.errors import ToolError
from lackpy.kit.context import ToolContext
from lackpy.tools import shipped


@shipped(
    grade=(1, 0),
    docs="docs/tools/skill_file.md",
    examples=['template = skill_file("assets/report.md")'],
    tags=["skill", "asset", "reference", "workflow", "instructions"],
    category="system",
)
def skill_file(ctx: ToolContext, path: str) -> str:
    """A file of this program's skill, as text (e.g. "assets/report.md"); read-only, inside the skill's folder.

    Args:
        path: The file's path inside the skill's folder.
    """
    if ctx.skill is None:
        raise ToolError("skill_file reads the files of the skill a program runs with; run the program with a skill (--skill NAME, skill=NAME)")
    return ctx.skill.read_text(path)


TOOLS = [skill_file]
