"""Where skills come from, in the order a name is claimed: the person's own, packages, then the workspace.

1. ``$XDG_CONFIG_HOME/lackpy/skills/`` (else ``~/.config/lackpy/skills``),
   the person's own;
2. folders that installed packages register (``register_skill_dirs``):
   lackpy's own ``todo-report`` comes this way;
3. ``.lackpy/skills/NAME/`` in the workspace;
4. the folders a trusted workspace's ``[skills] paths`` names
   (``paths = [".claude/skills"]``).

The person's and their packages' skills come first, so a repository's skill
never takes the name of one they already have: a workspace skill of a name
found before is left out as shadowed, saying by which, and ``lackpy skill
list`` shows both (as a browser extension store never lets a newcomer take
a published extension's name). A folder that is not a valid skill is left
out with what to fix.

The last two sources are the workspace's, and the workspace chooses what
they hold, so they are read with no symlink anywhere on the way
(``.lackpy/skills`` that is a link to ``..`` would make every top-level
folder with a SKILL.md a skill), never from a folder the ``[tools] deny``
patterns cover, and each skill's every file is judged by those patterns on
the file actually opened (``Skill.read_bytes``), as ``read_file`` is. Trust
governs what they may do (``lackpy.skills.catalog``) and covers their files
(``lackpy.trust``); programs cannot write them (``protected``).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from lackpy.errors import ConfigError, LackpyError, PathError
from lackpy.host.beneath import open_beneath, open_dir
from lackpy.host.deny import denied
from lackpy.host.hardlinks import Guard, multiple
from lackpy.host.ownfiles import MAX_ENTRIES, STATE_DIR
from lackpy.host.places import user_dir
from lackpy.skills.skill import SKILL_FILE, SKILL_NAME, Skill, read_skill

#: The most skill folders lackpy reads from one source.
MOST_SKILLS = 256
#: The workspace's own folder of skills.
WORKSPACE_SKILLS = f"{STATE_DIR}/skills"
#: The sources a workspace writes, which trust governs.
WORKSPACE_SOURCES = ("workspace", "paths")
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


@dataclass(frozen=True)
class _Source:
    """One folder of skill folders: who wrote it, how it is shown, how it is opened, and its path in the workspace (if it is the workspace's)."""

    kind: str
    where: str
    opener: Callable[[], int]
    rel: str | None = None


def skill_paths(table: Any, where: str) -> list[str]:
    """``[skills] paths``: folders of skill folders, relative to the workspace; ConfigError saying what to write otherwise.

    Each must be a folder of its own: not the workspace itself, not above
    it, not absolute (programs cannot write where skills are loaded from, so
    ``.`` would make the whole workspace read-only to them).
    """
    if table is None:
        return []
    paths = table.get("paths", []) if isinstance(table, dict) and set(table) <= {"paths"} else None
    if not isinstance(paths, list) or not all(isinstance(p, str) and p.strip() for p in paths):
        raise ConfigError(f"{where}: [skills] takes paths = [\".claude/skills\", ...]: folders of skills, relative to the workspace")
    found = []
    for path in dict.fromkeys(p.strip() for p in paths):
        normal = os.path.normpath(path)
        if os.path.isabs(path) or normal == "." or normal == ".." or normal.startswith("../"):
            raise ConfigError(f"{where}: [skills] paths: {path!r} is not a folder inside the workspace; name one such as \".claude/skills\"")
        found.append(normal)
    return found


def find_skills(workspace: Path, paths: Sequence[str] = (), package_dirs: Iterable[str] = (), deny: Sequence[str] = ()) -> Found:
    """Every skill of ``workspace``, from the four sources in order (see the module's docstring).

    ``paths`` are the trusted config's ``[skills] paths``; ``deny`` the ``[tools] deny`` patterns.
    """
    root = os.path.realpath(workspace)
    deny = tuple(deny)
    sources = [_Source("user", str(user_dir() / "skills"), _own(user_dir() / "skills"))]
    sources += [_Source("plugin", str(path), _own(Path(path))) for path in package_dirs]
    sources += [_Source("workspace", WORKSPACE_SKILLS, _beneath(root, WORKSPACE_SKILLS), WORKSPACE_SKILLS)]
    sources += [_Source("paths", path, _beneath(root, path), path) for path in paths]
    judge = _judge(root, deny) if deny else None
    skills: dict[str, Skill] = {}
    left_out: list[LeftOut] = []
    for source in sources:
        for found in _read_source(source, deny, judge, left_out):
            first = skills.get(found.name)
            if first is None:
                skills[found.name] = found
            else:
                left_out.append(LeftOut(found.name, source.kind, found.where, f"shadowed by {whose(first.source)} skill {found.name} ({first.where}); rename it to use it"))
    return Found(tuple(skills.values()), tuple(left_out))


def whose(source: str) -> str:
    """Who wrote a skill of ``source``, as a sentence says it: ``your own``, ``a package's``, ``the workspace's``."""
    return {"user": "your own", "plugin": "a package's", "workspace": "the workspace's", "paths": "the workspace's"}.get(source, source)


def _read_source(source: _Source, deny: tuple[str, ...], judge: Callable[[int], None] | None, left_out: list[LeftOut]) -> list[Skill]:
    """The skills in one source folder; a folder that fails to read, or is denied, is left out with its reason."""
    if source.rel is not None and deny and denied(source.rel, deny, is_dir=True):
        left_out.append(LeftOut("", source.kind, source.where, "is denied by [tools] deny; skills are never read from a denied folder"))
        return []
    try:
        folder = source.opener()
    except FileNotFoundError:
        return []
    except (OSError, LackpyError) as exc:
        left_out.append(LeftOut("", source.kind, source.where, f"cannot be read: {getattr(exc, 'strerror', None) or exc}"))
        return []
    try:
        names = _folders(folder)
    finally:
        os.close(folder)
    found = []
    for name in names[:MOST_SKILLS]:
        shown = f"{source.where}/{name}"
        if source.rel is not None and deny and denied(f"{source.rel}/{name}", deny, is_dir=True):
            left_out.append(LeftOut(name, source.kind, shown, "is denied by [tools] deny; a denied folder is never a skill"))
            continue
        try:
            found.append(read_skill(name, _child(source.opener, name), source.kind, shown, judge))
        except FileNotFoundError:
            left_out.append(LeftOut(name, source.kind, shown, f"has no {SKILL_FILE}"))
        except LackpyError as exc:
            left_out.append(LeftOut(name, source.kind, shown, str(exc)))
    if len(names) > MOST_SKILLS:
        left_out.append(LeftOut("", source.kind, source.where, f"holds more than {MOST_SKILLS} skills; lackpy read the first {MOST_SKILLS} by name"))
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


def _beneath(root: str, rel: str) -> Callable[[], int]:
    """An opener of the workspace's folder ``rel``: beneath the workspace, through no symlink at all (the kernel refuses one)."""

    def opener() -> int:
        top = open_dir(root)
        try:
            return open_beneath(top, rel, _FOLDER, follow=False)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            if exc.errno == errno.ELOOP:
                raise ConfigError(f"{rel} is or passes through a symlink; lackpy reads a workspace's skills only from a real folder") from None
            raise ConfigError(f"{rel}: {'leads out of the workspace' if exc.errno == errno.EXDEV else exc.strerror}") from None
        finally:
            os.close(top)

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


def _judge(root: str, deny: tuple[str, ...]) -> Callable[[int], None]:
    """What judges each file a skill opens: PathError when it is a workspace file the ``deny`` patterns cover.

    The file is judged where it actually is (``/proc/self/fd``), whatever
    name led there, and by its inode when it has other names (a hard link of
    a denied file is denied, ``lackpy.host.hardlinks``); a skill folder
    outside the workspace (the person's, a package's) holds no workspace
    file unless a link leads into it.
    """
    prefix = root.rstrip("/") + "/"

    def judge(fd: int) -> None:
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            raise PathError("lackpy needs /proc to tell where a skill's file lies; mount /proc") from None
        if not real.startswith(prefix):
            return
        rel = real[len(prefix):]
        if denied(rel, deny):
            raise PathError(f"{rel} is denied by the workspace policy ([tools] deny); a skill cannot read it")
        info = os.fstat(fd)
        if multiple(info):  # another name of a denied file (a hard link) is denied too
            top = open_dir(root)
            try:
                Guard(top, deny).check(info, rel)
            finally:
                os.close(top)

    return judge


__all__ = ["WORKSPACE_SKILLS", "WORKSPACE_SOURCES", "Found", "LeftOut", "find_skills", "skill_paths", "whose"]
