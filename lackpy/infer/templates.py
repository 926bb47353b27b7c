"""The templates tier: programs that worked, saved for reuse and served with no model.

This is the ratchet: ``delegate --save-as NAME`` turns a program a model wrote
into a template, and the next intent that matches its pattern is answered from
the file. A template is ``.lackpy/templates/NAME.tmpl`` in the workspace::

    ---
    name: count-word
    pattern: count {word} in python files
    kit: readonly            # a kit name or a list of tool names; optional
    success_count: 3
    fail_count: 0
    ---
    sum(read_file(f).count({word}) for f in find_files("**/*.py"))

Placeholders are filled by ``lackpy.infer.fill.render``, so a captured value
is always one string literal in the program, never code. One malformed file
must not take the tier down: it is skipped with a warning, and
``list_templates`` shows what is wrong with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml

from lackpy.errors import ConfigError, LackpyError, TemplateError
from lackpy.host.ownfiles import MAX_FILE_BYTES, listed, open_state, read_own, write_own
from lackpy.infer.base import Proposal, Tier, Request
from lackpy.infer.fill import body_placeholders, captured, generalize, placeholders, render
from lackpy.kit.frontmatter import split_frontmatter
from lackpy.kit.kitfile import find_kit, read_kit
from lackpy.lang.grade import Grade, compute_grade
from lackpy.lang.validator import validate

TEMPLATES_DIR = Path(".lackpy") / "templates"
SUFFIX = ".tmpl"
TEMPLATE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
COUNTS = ("success_count", "fail_count")
#: The most bytes of a template file lackpy reads (1 MiB); a larger one is skipped with its error.
MAX_TEMPLATE_BYTES = MAX_FILE_BYTES


class TemplateWarning(UserWarning):
    """A template file was skipped or its counts could not be updated."""


@dataclass
class Template:
    """One saved program: its ``pattern`` says which intents it answers, ``body`` how."""

    name: str
    pattern: str
    body: str
    kit: str | list[str] | None = None
    success_count: int = 0
    fail_count: int = 0
    path: Path | None = None

    def match(self, intent: str) -> dict[str, str] | None:
        """The placeholder values ``intent`` gives, or None; ConfigError when the pattern is malformed."""
        try:
            return captured(self.pattern, intent)
        except TemplateError as exc:
            raise ConfigError(f"template '{self.name}': {exc}") from None


# -- reading and writing files ------------------------------------------------


def parse_template(text: str, path: Path) -> Template:
    """A template from a file's text; ConfigError names the file and the fix."""
    meta, body = _split(text, path)
    return _checked(meta, body, path)


def _split(text: str, path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) with the body exactly as written."""
    meta, body, _ = split_frontmatter(
        text, str(path), ConfigError, yaml_hint=" (quote a pattern that starts with '{': pattern: \"{word} count\")"
    )
    if meta is None:
        raise ConfigError(f"{path}: a template starts with a '---' line, then its name and pattern, '---', and the program")
    return meta, body


def _checked(meta: dict[str, Any], body: str, path: Path) -> Template:
    """Validate a template's parts; every problem is a ConfigError saying what to change."""
    pattern = meta.get("pattern")
    if pattern is None:
        raise ConfigError(f"{path}: missing 'pattern' in frontmatter; add e.g. 'pattern: count {{word}} in python files'")
    if not isinstance(pattern, str) or not pattern.strip():
        raise ConfigError(f"{path}: 'pattern' must be non-empty text; quote it when it starts with '{{': pattern: \"{{word}} count\"")
    try:
        names = placeholders(pattern)
    except TemplateError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or len(name) > 100 or not TEMPLATE_NAME.fullmatch(name):
        raise ConfigError(f"{path}: name {name!r:.60} must be at most 100 characters, start with a letter or digit and use only letters, digits, '_', '.' and '-'")
    kit = meta.get("kit")
    if not (kit is None or isinstance(kit, str) or (isinstance(kit, list) and all(isinstance(t, str) for t in kit))):
        raise ConfigError(f"{path}: 'kit' must be a kit name or a list of tool names, e.g. kit: [read_file, find_files]")
    for key in COUNTS:
        count = meta.get(key, 0)
        if type(count) is not int or count < 0:
            raise ConfigError(f"{path}: '{key}' must be a whole number of at least 0, not {count!r}")
    if not body.strip():
        raise ConfigError(f"{path}: the program after the closing '---' is empty; write the program there")
    try:
        used = body_placeholders(body)
        render(body, dict.fromkeys(names, "x"))
    except TemplateError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    unknown = [n for n in used if n not in names]
    if unknown:
        raise ConfigError(
            f"{path}: the program uses {', '.join('{' + n + '}' for n in unknown)}, which the pattern lacks; "
            "add it to the pattern or rename it (a one-name set literal {x} reads as a placeholder: write set([x]))"
        )
    unused = [n for n in names if n not in used]
    if unused:
        raise ConfigError(
            f"{path}: the pattern captures {', '.join('{' + n + '}' for n in unused)}, which the program never uses; "
            "put the placeholder where the value belongs, or drop it from the pattern "
            "(when saving a run, each value must appear in a string of the program)"
        )
    return Template(name, pattern.strip(), body, kit, meta.get("success_count", 0), meta.get("fail_count", 0), path)


def _format(meta: dict[str, Any], body: str) -> str:
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n" + body


def _read(path: Path) -> str:
    """The text of the template file ``path`` (in a workspace's TEMPLATES_DIR), line endings as written.

    Read as lackpy reads its own files (``lackpy.host.ownfiles``):
    beneath the workspace's templates directory (which leads nowhere out of
    the workspace), a regular file only, never blocking, at most
    ``MAX_TEMPLATE_BYTES``; anything else is a ConfigError naming the file.
    """
    directory = _open_dir(path.parent.parent.parent)
    try:
        return _text(read_own(directory, path.name, str(path), ConfigError, MAX_TEMPLATE_BYTES), path)
    finally:
        os.close(directory)


def _open_dir(workspace: str | Path) -> int:
    """A descriptor for the workspace's templates directory; FileNotFoundError when there is none."""
    return open_state(workspace, TEMPLATES_DIR.name, ConfigError)


def _text(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the template as UTF-8") from None


def _write(path: Path, text: str) -> None:
    """Replace the template file ``path`` (in a workspace's TEMPLATES_DIR) with ``text``, as ``ownfiles.write_own`` does.

    The directory is made when missing and resolved beneath the workspace;
    the new file is renamed over the old, so readers never see half a file
    and a FIFO or a link planted there is replaced, never opened.
    """
    directory = open_state(path.parent.parent.parent, TEMPLATES_DIR.name, ConfigError, create=True)
    try:
        write_own(directory, path.name, text.encode("utf-8"))
    finally:
        os.close(directory)


# -- loading, with a cache keyed by the files' stat --------------------------

_Loaded = list[tuple[Path, "Template | ConfigError"]]
_cache: dict[Path, tuple[tuple, _Loaded]] = {}


def _load_all(workspace: str | Path) -> _Loaded:
    """Every template file, sorted by name, parsed or with the error that stopped it.

    The files are re-read only when one is added, removed or changed (name,
    size, mtime, inode and ctime), so serving an intent costs one directory
    scan. A file lackpy cannot read as a template (not a regular file, too
    large, a symlink that leads out) is kept with its error like a malformed one.
    """
    directory = Path(workspace) / TEMPLATES_DIR
    try:
        fd = _open_dir(workspace)
    except FileNotFoundError:
        return []
    try:
        names = listed(fd, SUFFIX, str(directory), ConfigError)
        key = tuple((name, *_stamp(fd, name)) for name in names)
        cached = _cache.get(directory)
        if cached is not None and cached[0] == key:
            return cached[1]
        loaded: _Loaded = []
        for name in names:
            path = directory / name
            try:
                loaded.append((path, parse_template(_text(read_own(fd, name, str(path), ConfigError, MAX_TEMPLATE_BYTES), path), path)))
            except ConfigError as exc:
                loaded.append((path, exc))
            except OSError as exc:
                loaded.append((path, ConfigError(f"{path}: cannot read the template ({exc.strerror or exc}); save it as UTF-8 text")))
    finally:
        os.close(fd)
    for path, result in loaded:
        if isinstance(result, ConfigError):
            warnings.warn(f"template skipped: {result}", TemplateWarning, stacklevel=3)
    _cache[directory] = (key, loaded)
    return loaded


def _stamp(dir_fd: int, name: str) -> tuple:
    """What a changed template file changes: size, mtime, inode and ctime (a FIFO or a device is stat-ed, never opened)."""
    try:
        info = os.stat(name, dir_fd=dir_fd)
    except OSError:
        return (None,)
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def identity(path: Path, raw: bytes) -> str:
    """What a template file says (its bytes ``raw``), without its use counts (which change on every use)."""
    try:
        template = parse_template(_text(raw, path), path)
    except ConfigError:
        return hashlib.sha256(raw).hexdigest()
    return json.dumps([template.name, template.pattern, template.kit, template.body])


def load_templates(workspace: str | Path) -> list[Template]:
    """The workspace's valid templates, sorted by file name; malformed files are skipped with a warning."""
    return [result for _path, result in _load_all(workspace) if isinstance(result, Template)]


def list_templates(workspace: str | Path) -> list[dict[str, Any]]:
    """One row per template file; ``error`` says what is wrong with a malformed one (else None)."""
    rows = []
    for path, result in _load_all(workspace):
        if isinstance(result, Template):
            row = {k: getattr(result, k) for k in ("name", "pattern", "kit", "success_count", "fail_count")}
            rows.append({**row, "path": str(path), "error": None})
        else:
            rows.append({"name": path.stem, "pattern": None, "kit": None, "success_count": None,
                         "fail_count": None, "path": str(path), "error": str(result)})
    return rows


def save_template(
    workspace: str | Path,
    name: str,
    pattern: str,
    program: str,
    kit: str | Iterable[str] | None = None,
    *,
    values: dict[str, str] | None = None,
    force: bool = False,
) -> Path:
    """Save ``program`` as template ``name`` answering ``pattern``; return the file's path.

    With ``values`` (placeholder -> the text it had in this run), the program
    is generalized first: ``"TODO"`` becomes ``{word}``. The caller validates
    the program against the kit. ConfigError for a bad name, pattern or body,
    or an existing template when ``force`` is false.
    """
    if not isinstance(name, str) or len(name) > 100 or not TEMPLATE_NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:60] + "..."
        raise ConfigError(f"template name {shown} must be at most 100 characters, start with a letter or digit and use only letters, digits, '_', '.' and '-'")
    path = Path(workspace) / TEMPLATES_DIR / f"{name}{SUFFIX}"
    if not force and os.path.lexists(path):
        raise ConfigError(f"template '{name}' already exists at {path}; pass --force to replace it")
    body = program
    if values:
        try:
            names = placeholders(pattern)
            extra = [n for n in values if n not in names]
            if extra:
                raise TemplateError(f"values name {', '.join(extra)}, which pattern {pattern!r} does not capture; add them to the pattern")
            body = generalize(program, values)
        except TemplateError as exc:
            raise ConfigError(f"template '{name}': {exc}") from None
    if not body.endswith("\n"):
        body += "\n"
    kit = list(kit) if kit is not None and not isinstance(kit, str) else kit
    meta = {"name": name, "pattern": pattern, **({"kit": kit} if kit is not None else {}), "success_count": 0, "fail_count": 0}
    _checked(meta, body, path)
    _write(path, _format(meta, body))
    return path


def record_use(path: Path, success: bool) -> None:
    """Add one to the template's success_count or fail_count, keeping everything else as written."""
    meta, body = _split(_read(path), path)
    key = COUNTS[0] if success else COUNTS[1]
    count = meta.get(key, 0)
    meta[key] = (count if type(count) is int and count >= 0 else 0) + 1
    _write(path, _format(meta, body))
    _cache.pop(path.parent, None)  # a reused inode could otherwise look unchanged


# -- the tier -----------------------------------------------------------------


class TemplateTier(Tier):
    """Answers intents that match a saved template's pattern, in file-name order."""

    name = "templates"
    model = False

    def propose(self, request: Request) -> Proposal | None:
        tools = set(request.kit.aliases().values())
        for template in load_templates(request.workspace):
            values = template.match(request.intent)
            if values is not None and self._fits(template, request, tools):
                program = render(template.body, values)
                if request.program_ceiling is not None and not _within(program, request, request.program_ceiling):
                    continue  # a template of an untrusted workspace may not reach above the ceiling
                return Proposal(program=program, detail=f"template {template.name}", source=template.path)
        return None

    def record(self, proposal: Proposal, success: bool) -> None:
        if not isinstance(proposal.source, Path):
            return
        try:
            record_use(proposal.source, success)
        except (OSError, UnicodeDecodeError, LackpyError) as exc:
            warnings.warn(f"could not count the use of template {proposal.source}: {exc}", TemplateWarning, stacklevel=2)

    def needs(self, intent: str) -> str | list[str] | None:
        """The kit saved with the first template that matches ``intent``."""
        return next((t.kit for t in load_templates(self.workspace) if t.match(intent) is not None), None)

    def understands(self) -> list[str]:
        return [template.pattern for template in load_templates(self.workspace)]

    def describe(self) -> str:
        return f"templates in {self.workspace / TEMPLATES_DIR}"

    @staticmethod
    def _fits(template: Template, request: Request, tools: set[str]) -> bool:
        """Whether the request's kit has the tools the template was saved with.

        A named kit is looked up like any kit (workspace first, then the
        package); an unknown name fits, and validation has the last word.
        """
        kit = template.kit
        if kit is None:
            return True
        if isinstance(kit, str) and "," in kit:  # "a,b" names tools, as resolve_kit reads it
            kit = [tool.strip() for tool in kit.split(",") if tool.strip()]
        if isinstance(kit, list):
            return set(kit) <= tools
        if kit == request.kit.name:
            return True
        try:
            _source, kit_path = find_kit(kit, Path(request.workspace) / ".lackpy" / "kits")
            return set(read_kit(kit_path).tools) <= tools
        except LackpyError:
            return True


def _within(program: str, request: Request, ceiling: Grade) -> bool:
    """Whether every tool ``program`` calls is within ``ceiling``."""
    calls = validate(program, request.kit.names).calls
    grade = compute_grade({c: {"grade_w": s.grade_w, "effects_ceiling": s.effects_ceiling} for c, s in request.kit.tools.items() if c in calls})
    return grade.within(ceiling)


__all__ = [
    "TEMPLATES_DIR",
    "Template",
    "TemplateTier",
    "TemplateWarning",
    "list_templates",
    "load_templates",
    "parse_template",
    "record_use",
    "save_template",
]
