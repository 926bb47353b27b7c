"""The skills lackpy ships (``lackpy/skills/library``), offered through the same hook a package uses."""

from __future__ import annotations

from pathlib import Path

from lackpy.hookspecs import hookimpl

#: The folder of the skills lackpy ships.
LIBRARY = Path(__file__).resolve().parent / "library"


@hookimpl
def register_skill_dirs(register):
    register(LIBRARY)


__all__ = ["LIBRARY"]
