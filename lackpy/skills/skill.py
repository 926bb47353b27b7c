"""A skill: a folder with a ``SKILL.md`` that says what a job is for and how to do it, with the programs that do it.

::

    todo-report/
      SKILL.md          # frontmatter: name, description; lackpy's own keys: tools, intents, arguments, program
      programs/*.py     # lackpy programs: the skill's steps, run with the skill's kit
      assets/           # files its programs read (skill_file)
      references/       # docs, served to a model or a host on demand

The folder follows the Agent Skills convention hosts share: ``name`` (lower
case letters, digits and hyphens, as its folder is named) and
``description`` are required, the body is markdown, and a folder with only
those is a skill too, whose kit is ``readonly``. lackpy adds ``tools`` (a
kit: a kit name or a list of tools), ``intents`` (patterns, as templates'
patterns, that route ``delegate`` to a program: a pattern, or ``{pattern,
program}``), ``arguments`` (``{name, description, required}``: what its
programs and its prompt take) and ``program`` (the one intents run unless
they name another; default: ``main``, or the only program) and ``grade``
(``[w, d]``: how far its programs may reach; read-only when it says
nothing, and no program of it, nor any program run with it, goes further).
Keys lackpy does not use (``license``, ``allowed-tools``, ``metadata``) are
kept; ``allowed-tools`` grants nothing.

Every file of a skill is read through the descriptor of its folder, beneath
it (``lackpy.host.beneath``): regular files only, bounded, never through a
link out of the folder, and judged on the file actually opened (``judge``:
the workspace's ``[tools] deny``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from lackpy.errors import ConfigError, ParamError, PathError
from lackpy.host.beneath import open_beneath, read_regular
from lackpy.host.ownfiles import listed
from lackpy.infer.fill import placeholders
from lackpy.kit.frontmatter import split_frontmatter
from lackpy.lang.grade import Grade

SKILL_FILE = "SKILL.md"
#: A skill's name, as Agent Skills write it: lower case letters, digits and single hyphens, at most 64 characters.
SKILL_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$")
#: The most bytes of a SKILL.md lackpy reads.
MAX_SKILL_BYTES = 256 * 1024
#: The most bytes of a skill's program, asset or reference lackpy reads.
MAX_FILE_BYTES = 1024 * 1024
#: The longest description Agent Skills allow.
MAX_DESCRIPTION = 1024
#: The kit of a skill that names none: what an Agent Skills folder can do.
DEFAULT_KIT = "readonly"
#: The folder of a skill's programs and its references.
PROGRAMS, REFERENCES = "programs", "references"
#: The most entries lackpy lists in one of a skill's folders, and the most files one skill may have (SEP-2640's limit).
MOST_ENTRIES = 512
#: The most bytes all the files of one skill may hold together (SEP-2640's limit, 16 MiB).
MOST_SKILL_BYTES = 16 * 1024 * 1024
#: The keys of a SKILL.md's front matter that lackpy reads itself.
OWN_KEYS = ("name", "description", "tools", "intents", "arguments", "program", "grade")
PROGRAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Argument:
    """One value a skill takes: its programs read it as a name, its prompt as an argument."""

    name: str
    description: str = ""
    required: bool = False

    def to_dict(self) -> dict:
        return {"name": self.name, "description": self.description, "required": self.required}


@dataclass(frozen=True)
class Intent:
    """A pattern (as a template's: ``todo report for {path}``) and the program an intent it matches runs."""

    pattern: str
    program: str


@dataclass(frozen=True)
class Skill:
    """One skill, as its SKILL.md declares it; ``opener()`` gives a descriptor of its folder (the caller closes it)."""

    name: str
    description: str
    source: str
    """Where it was found: ``workspace``, ``paths`` (a ``[skills] paths`` folder), ``user`` or ``plugin``."""
    where: str
    """Its folder, as shown to the person."""
    opener: Callable[[], int] = field(compare=False, repr=False)
    tools: str | list[str] | None = None
    intents: tuple[Intent, ...] = ()
    arguments: tuple[Argument, ...] = ()
    programs: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    program: str | None = None
    """The program its intents run unless they name another."""
    grade: Grade | None = None
    """The grade it declares (``grade: [w, d]``), None when it declares none (then read-only)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    judge: Callable[[int], None] | None = field(default=None, compare=False, repr=False)
    """Refuses a file it opens (the workspace's ``[tools] deny``), by raising PathError; None judges nothing."""

    @property
    def kit(self) -> str | list[str]:
        """The kit its programs run with: its ``tools``, else ``readonly``."""
        return self.tools if self.tools is not None else DEFAULT_KIT

    @property
    def from_workspace(self) -> bool:
        """Whether the workspace wrote it (so trust governs it), rather than the person or a package they installed."""
        return self.source in ("workspace", "paths")

    def guide(self) -> str:
        """What a model is shown of the skill once it is chosen: its body, and the files it may read with ``skill_file``."""
        files = [f"{REFERENCES}/{name}" for name in self.references] + [f"{PROGRAMS}/{name}.py" for name in self.programs]
        shown = f"\nIts files (read them with skill_file(path)): {', '.join(files)}\n" if files else ""
        return self.body() + shown

    def inputs(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parameters a program of this skill runs with: ``given``, and None for each optional argument not given.

        ParamError names a required argument that is missing.
        """
        inputs = dict(given or {})
        missing = [a.name for a in self.arguments if a.required and inputs.get(a.name) is None]
        if missing:
            raise ParamError(f"skill '{self.name}' needs {', '.join(missing)}; give it as --param {missing[0]}=VALUE (params in Python and MCP)")
        return {**{a.name: None for a in self.arguments}, **inputs}

    def body(self) -> str:
        """The markdown after the frontmatter: how to do the job (read now, so an edit shows at once)."""
        _, body, _ = split_frontmatter(self.read_text(SKILL_FILE, MAX_SKILL_BYTES), f"{self.where}/{SKILL_FILE}", ConfigError)
        return body.strip("\n") + "\n"

    def program_text(self, name: str | None = None) -> str:
        """The text of ``programs/NAME.py`` (default: the skill's ``program``); ParamError naming the programs it has."""
        name = name if name is not None else self.program
        if name is None:
            raise ParamError(f"skill '{self.name}' has no programs; write one in {self.where}/{PROGRAMS}/main.py")
        name = name.removesuffix(".py")
        if name not in self.programs:
            have = ", ".join(self.programs) or "none"
            raise ParamError(f"skill '{self.name}' has no program '{name}' (it has: {have}); lackpy skill info {self.name} lists them")
        return self.read_text(f"{PROGRAMS}/{name}.py")

    def read_text(self, rel: str, max_bytes: int = MAX_FILE_BYTES) -> str:
        """A file of the skill's folder as text; PathError when it is not a readable UTF-8 file beneath the folder."""
        raw = self.read_bytes(rel, max_bytes)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PathError(f"{self.name}/{rel}: not UTF-8 text") from None

    def read_bytes(self, rel: str, max_bytes: int = MAX_FILE_BYTES, *, follow: bool = True) -> bytes:
        """A file of the skill's folder, judged on the file opened; PathError when it is not a regular file beneath the folder.

        ``follow=False``: through no symlink at all, as ``files()`` lists them (what is served is then what was listed,
        whatever a link put at that name since)."""
        if not isinstance(rel, str) or not rel or "\0" in rel or os.path.isabs(rel) or ".." in rel.split("/"):
            raise PathError(f"{rel!r}: give a path inside the skill's folder, e.g. assets/template.md (the kernel refuses any way out of it)")
        folder = self.opener()
        try:
            return read_regular(folder, rel, max_bytes, follow=follow, what=f"{self.name}/{rel}", judge=self.judge)
        except FileNotFoundError:
            raise PathError(f"{self.name}/{rel}: no such file in the skill's folder") from None
        finally:
            os.close(folder)

    def files(self) -> list[str]:
        """Every file of the skill, relative to its folder, sorted: SKILL.md and each regular file below, hidden names and
        links left out, and so is a file the ``judge`` refuses. PathError past MOST_ENTRIES files or MOST_SKILL_BYTES."""
        folder = self.opener()
        try:
            return _files(folder, self.judge, f"skill '{self.name}'")
        finally:
            os.close(folder)

    def row(self) -> dict:
        """The skill as ``lackpy skill list`` shows it."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "path": self.where,
            "kit": self.kit,
            "programs": list(self.programs),
            "program": self.program,
            "intents": [{"pattern": i.pattern, "program": i.program} for i in self.intents],
            "arguments": [a.to_dict() for a in self.arguments],
            "references": list(self.references),
            "grade_declared": self.grade.to_dict() if self.grade is not None else None,
        }


def read_skill(folder_name: str, opener: Callable[[], int], source: str, where: str, judge: Callable[[int], None] | None = None) -> Skill:
    """The skill in the folder ``opener()`` opens, named ``folder_name``; ConfigError saying what to fix when it is not one.

    ``judge`` refuses files the skill may not read (its SKILL.md among them).
    """
    folder = opener()
    try:
        text = _text(read_regular(folder, SKILL_FILE, MAX_SKILL_BYTES, what=f"{where}/{SKILL_FILE}", judge=judge), where)
        programs = tuple(sorted(n.removesuffix(".py") for n in _names(folder, PROGRAMS) if n.endswith(".py") and PROGRAM_NAME.match(n)))
        references = tuple(sorted(_names(folder, REFERENCES)))
    except PathError as exc:
        raise ConfigError(str(exc)) from None
    finally:
        os.close(folder)
    meta, _, _ = split_frontmatter(text, f"{where}/{SKILL_FILE}", ConfigError)
    return skill_from(meta or {}, folder_name, opener, source, where, programs, references, judge)


def skill_from(
    meta: dict, folder_name: str, opener: Callable[[], int], source: str, where: str, programs: tuple, references: tuple,
    judge: Callable[[int], None] | None = None, kind: type["Skill"] | None = None, **more: Any,
) -> "Skill":
    """The skill a SKILL.md's front matter ``meta`` declares, its folder named ``folder_name`` and holding ``programs`` and
    ``references``; ConfigError saying what to fix. ``kind`` (a subclass of Skill) is built with ``more`` fields."""
    shown = f"{where}/{SKILL_FILE}"
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not SKILL_NAME.match(name):
        raise ConfigError(f"{shown}: 'name' must be lower case letters, digits and hyphens (at most 64), e.g. name: {folder_name.lower()}")
    if name != folder_name:
        raise ConfigError(f"{shown}: the skill is named '{name}' but its folder is '{folder_name}'; name them alike")
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_DESCRIPTION:
        raise ConfigError(f"{shown}: 'description' must say what the skill is for and when to use it, in 1 to {MAX_DESCRIPTION} characters")
    tools = _tools(meta.get("tools"), shown)
    program = meta.get("program")
    if program is not None and (not isinstance(program, str) or program.removesuffix(".py") not in programs):
        raise ConfigError(f"{shown}: 'program' must name one of its programs ({', '.join(programs) or 'none'}) in {PROGRAMS}/")
    default = program.removesuffix(".py") if program else "main" if "main" in programs else programs[0] if len(programs) == 1 else None
    return (kind or Skill)(
        name=name,
        description=" ".join(description.split()),
        source=source,
        where=where,
        opener=opener,
        tools=tools,
        intents=_intents(meta.get("intents"), default, programs, shown),
        arguments=_arguments(meta.get("arguments"), shown),
        programs=programs,
        references=references,
        program=default,
        grade=_grade(meta.get("grade"), shown),
        extra={k: v for k, v in meta.items() if k not in OWN_KEYS},
        judge=judge,
        **more,
    )


def _grade(value: Any, shown: str) -> Grade | None:
    if value is None:
        return None
    grade = Grade.parse(value)
    if grade is None:
        raise ConfigError(f"{shown}: 'grade' must be how far its programs reach, [w, d] with each 0 to 3, e.g. grade: [1, 0]")
    return grade


def _tools(value: Any, shown: str) -> str | list[str] | None:
    if value is None or (isinstance(value, str) and value.strip()):
        return value.strip() if isinstance(value, str) else None
    if isinstance(value, list) and value and all(isinstance(t, str) and t.isidentifier() for t in value):
        return list(dict.fromkeys(value))
    raise ConfigError(f"{shown}: 'tools' must be a kit name (tools: filesystem) or a list of tool names (tools: [read_file, grep])")


def _intents(value: Any, default: str | None, programs: tuple, shown: str) -> tuple[Intent, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ConfigError(f"{shown}: 'intents' must be a list of patterns, e.g. - todo report for {{path}}")
    found = []
    for entry in value:
        pattern, program = (entry, default) if isinstance(entry, str) else (entry.get("pattern"), entry.get("program", default)) if isinstance(entry, dict) else (None, None)
        if not isinstance(pattern, str) or not pattern.strip():
            raise ConfigError(f"{shown}: each intent is a pattern, or pattern: and program:, not {entry!r}")
        if not isinstance(program, str) or program.removesuffix(".py") not in programs:
            raise ConfigError(f"{shown}: intent {pattern!r} runs no program of the skill; add program: NAME (one of: {', '.join(programs) or 'none'})")
        try:
            placeholders(pattern)
        except ParamError as exc:
            raise ConfigError(f"{shown}: intent {pattern!r}: {exc}") from None
        found.append(Intent(pattern.strip(), program.removesuffix(".py")))
    return tuple(found)


def _arguments(value: Any, shown: str) -> tuple[Argument, ...]:
    if value is None:
        return ()
    items = [{"name": k, **(v if isinstance(v, dict) else {"description": v})} for k, v in value.items()] if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ConfigError(f"{shown}: 'arguments' must be a list of name:, description:, required:")
    found: list[Argument] = []
    for item in items:
        item = {"name": item} if isinstance(item, str) else item
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name.isidentifier() or any(a.name == name for a in found):
            raise ConfigError(f"{shown}: each argument needs a name a program can read (a Python identifier, once): {item!r}")
        description = item.get("description", "")
        found.append(Argument(name, description if isinstance(description, str) else str(description), item.get("required") is True))
    return tuple(found)


def _names(folder: int, sub: str) -> list[str]:
    """The regular files directly in ``sub`` of the skill's folder (none when it has no such folder)."""
    try:
        fd = open_beneath(folder, sub, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise PathError(f"{sub}/: {exc.strerror}") from None
    try:
        return [name for name in listed(fd, "", f"{sub}/", PathError, kind="file", most=MOST_ENTRIES) if not name.startswith(".")]
    finally:
        os.close(fd)


def _files(folder: int, judge: Callable[[int], None] | None, shown: str) -> list[str]:
    """The regular files beneath ``folder`` (relative, sorted), walked through descriptors and never through a link."""
    found: list[str] = []
    total = 0
    pending = [""]
    while pending:
        rel = pending.pop()
        fd = folder if not rel else open_beneath(folder, rel, os.O_RDONLY | os.O_DIRECTORY, follow=False)
        try:
            with os.scandir(fd) as entries:
                listed_here = sorted((entry.name, entry.is_dir(follow_symlinks=False), entry.is_file(follow_symlinks=False)) for entry in entries)
            for name, is_dir, is_file in listed_here:
                path = f"{rel}/{name}" if rel else name
                if name.startswith("."):
                    continue
                if is_dir:
                    pending.append(path)
                elif is_file:
                    size = _judged_size(fd, name, judge)
                    if size is None:
                        continue
                    found.append(path)
                    total += size
                    if len(found) > MOST_ENTRIES or total > MOST_SKILL_BYTES:
                        raise PathError(f"{shown} has more than {MOST_ENTRIES} files or {MOST_SKILL_BYTES} bytes; make it smaller")
        finally:
            if fd != folder:
                os.close(fd)
    return sorted(found)


def _judged_size(dir_fd: int, name: str, judge: Callable[[int], None] | None) -> int | None:
    """The size of regular file ``name`` in ``dir_fd``, or None when the judge refuses it (or it went away)."""
    try:
        fd = open_beneath(dir_fd, name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, follow=False)
    except OSError:
        return None
    try:
        if judge is not None:
            judge(fd)
        return os.fstat(fd).st_size
    except PathError:
        return None
    finally:
        os.close(fd)


def _text(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{where}/{SKILL_FILE}: not UTF-8 text; save it as UTF-8") from None


__all__ = [
    "DEFAULT_KIT", "MOST_ENTRIES", "MOST_SKILL_BYTES", "OWN_KEYS", "PROGRAM_NAME", "SKILL_FILE", "SKILL_NAME", "Argument", "Intent", "Skill", "read_skill",
    "skill_from",
]
