"""Where skills come from, first found first: the workspace, its ``[skills] paths``, the person's own, and packages.

1. ``.lackpy/skills/NAME/`` in the workspace;
2. the folders ``[skills] paths`` names (``paths = [".claude/skills"]``),
   each a folder of skill folders, always beneath the workspace: a path that
   leads out of it is refused, so a workspace cannot make lackpy read the
   person's other files as a skill's;
3. ``$XDG_CONFIG_HOME/lackpy/skills/`` (else ``~/.config/lackpy/skills``),
   the person's own;
4. folders that installed packages register (``register_skill_dirs``).

A skill of a name found before is left out as shadowed; a folder that is
not a valid skill is left out with what to fix. Both are listed, so a
person never wonders where a skill went. The first two sources are the
workspace's, and trust governs them (``lackpy.skills.catalog``).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from lackpy.errors import ConfigError, LackpyError
from lackpy.host.beneath import open_beneath, open_dir
from lackpy.host.ownfiles import MAX_ENTRIES, STATE_DIR
from lackpy.host.places import user_dir
from lackpy.skills.skill import SKILL_FILE, SKILL_NAME, Skill, read_skill

#: The most skill folders lackpy reads from one source.
MOST_SKILLS = 256
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


@dataclass(frozen=True)
class LeftOut:
    """A folder that is not among the skills, and why."""

    name: str
    source: str
    where: str
    reason: str

    def row(self) -> dict:
        return {"name": self.name, "source": self.source, "path": self.where, "ignored": self.reason}


@dataclass(frozen=True)
class Found:
    """The skills of a workspace in order, and the folders left out."""

    skills: tuple[Skill, ...]
    left_out: tuple[LeftOut, ...]


def find_skills(workspace: Path, paths: Sequence[str] = (), package_dirs: Iterable[str] = ()) -> Found:
    """Every skill of ``workspace``, from the four sources in order (see the module's docstring)."""
    skills: dict[str, Skill] = {}
    left_out: list[LeftOut] = []
    sources = [("workspace", f"{STATE_DIR}/skills", _beneath(workspace, f"{STATE_DIR}/skills"))]
    sources += [("paths", path, _beneath(workspace, path)) for path in paths]
    sources.append(("user", str(user_dir() / "skills"), _own(user_dir() / "skills")))
    sources += [("plugin", str(path), _own(Path(path))) for path in package_dirs]
    for source, where, opener in sources:
        for found in _read_source(source, where, opener, left_out):
            if found.name in skills:
                first = skills[found.name]
                left_out.append(LeftOut(found.name, source, found.where, f"shadowed by the skill of that name in {first.where}"))
            else:
                skills[found.name] = found
    return Found(tuple(skills.values()), tuple(left_out))


def _read_source(source: str, where: str, opener: Callable[[], int], left_out: list[LeftOut]) -> list[Skill]:
    """The skills in one source folder; a folder that fails to read is left out with its reason."""
    try:
        folder = opener()
    except FileNotFoundError:
        return []
    except (OSError, LackpyError) as exc:
        left_out.append(LeftOut("", source, where, f"cannot be read: {getattr(exc, 'strerror', None) or exc}"))
        return []
    try:
        names = _folders(folder)
    finally:
        os.close(folder)
    found = []
    for name in names[:MOST_SKILLS]:
        shown = f"{where}/{name}"
        try:
            found.append(read_skill(name, _child(opener, name), source, shown))
        except FileNotFoundError:
            left_out.append(LeftOut(name, source, shown, f"has no {SKILL_FILE}"))
        except LackpyError as exc:
            left_out.append(LeftOut(name, source, shown, str(exc)))
    if len(names) > MOST_SKILLS:
        left_out.append(LeftOut("", source, where, f"holds more than {MOST_SKILLS} skills; lackpy read the first {MOST_SKILLS} by name"))
    return found


def _folders(folder: int) -> list[str]:
    """The names of the subfolders that could be skills (a skill's name, not hidden), sorted; at most MAX_ENTRIES entries are looked at."""
    names = []
    with os.scandir(folder) as entries:
        for count, entry in enumerate(entries, start=1):
            if count > MAX_ENTRIES:
                break
            if entry.is_dir(follow_symlinks=False) and SKILL_NAME.match(entry.name):
                names.append(entry.name)
    return sorted(names)


def _beneath(workspace: Path, rel: str) -> Callable[[], int]:
    """An opener of ``rel`` beneath the workspace: the kernel refuses a path or link that leads out of it."""

    def opener() -> int:
        if os.path.isabs(rel):
            raise ConfigError(f"[skills] paths: {rel!r} is not inside the workspace; give a path relative to it")
        root = open_dir(str(workspace))
        try:
            return open_beneath(root, rel, _FOLDER)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise ConfigError(f"{rel}: {'leads out of the workspace' if exc.errno == errno.EXDEV else exc.strerror}") from None
        finally:
            os.close(root)

    return opener


def _own(path: Path) -> Callable[[], int]:
    """An opener of a folder the person owns (their config's, a package's): links in its path are theirs to make."""
    return lambda: os.open(path, _FOLDER)


def _child(opener: Callable[[], int], name: str) -> Callable[[], int]:
    """An opener of skill folder ``name`` beneath its source folder, never through a link."""

    def child() -> int:
        parent = opener()
        try:
            return open_beneath(parent, name, _FOLDER, follow=False)
        finally:
            os.close(parent)

    return child


__all__ = ["Found", "LeftOut", "find_skills"]
