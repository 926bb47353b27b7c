"""The skills a server publishes as SEP-2640 (``io.modelcontextprotocol/skills``): their entries, pages of them, and their files.

Exactly the skills the server's SkillPolicy allows now, found and judged
on each request, as ``prompts/list`` and ``lackpy://skills`` show them. A
skill's path is its name (one segment), so its ``SKILL.md`` is
``skill://NAME/SKILL.md`` and each of its files ``skill://NAME/PATH``.

What is published of a skill is what ``Skill.files()`` lists (hidden files,
links and files the workspace's ``[tools] deny`` refuses are left out, and
so is a skill past 512 files or 16 MiB) whose path needs no
percent-encoding in a URI (RFC 3986 path characters, no ``%``): a file
named with a space, ``#``, ``?`` or a letter outside ASCII is not
published, so a URI always names one file as it is written. Nothing else
is ever read: ``read`` serves a file only when the skill is allowed now,
its path is one ``files()`` lists now, and the file opened passes the deny
rules again.

An entry is built from one reading of each file: the digests, the sizes and
the front matter all come from the same bytes. A file that changes after
that is served as it is then; the client finds that its digest differs
from the entry's and lists again, as SEP-2640 intends. A skill whose files
cannot be read whole, or whose SKILL.md changed into something that does not
name it, is left out of the page (and ``get`` says why); every entry is
checked with ``parse_entry``, the reading lackpy's own client applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lackpy.errors import LackpyError, ParamError, PathError
from lackpy.lang.names import shown
from lackpy.mcp.skills import SkillPolicy
from lackpy.remote.skills import GRADE_META, KIT_META, MOST_BYTES, SCHEME, SKILL_FILE, manifest_entry, parse_entry
from lackpy.service import LackpyService
from lackpy.skills.catalog import skill_grade
from lackpy.skills.skill import SKILL_NAME, Skill

#: The most entries in one page of ``skills/list``, and the most bytes read for one page (a skill is never split, so a page
#: holds at least one entry whatever its size).
PAGE_SKILLS = 20
PAGE_BYTES = 32 * 1024 * 1024
#: The longest cursor or URI a client may send; a longer one is not one this server gave.
MOST_PARAM_CHARS = 2048
#: What a cursor starts with: the rest is the name of the last skill of the page before.
_AFTER = "after:"
#: One segment of a published path: RFC 3986 path characters without ``%``, not starting with a dot.
_SEGMENT = re.compile(r"[A-Za-z0-9_~!$&'()*+,;=:@-][A-Za-z0-9._~!$&'()*+,;=:@-]*\Z")


@dataclass(frozen=True)
class SkillFile:
    """One published file as ``resources/read`` serves it."""

    data: bytes
    mime_type: str
    text: str | None
    """Its text when it is served as text (UTF-8, and not a type that is binary), else None: then it goes as a base64 blob."""


class Shelf:
    """The skills one server publishes, read on each call (each call blocks on the disk: call it off the event loop)."""

    def __init__(self, service: LackpyService, skills: SkillPolicy) -> None:
        self.service, self.skills = service, skills

    def page(self, cursor: Any = None) -> dict:
        """One page of entries, by name, after the skill ``cursor`` names; ``nextCursor`` when more may follow."""
        after = _after(cursor)
        pending = sorted((skill for _, skill in self.skills.allowed(self.service) if after is None or skill.name > after), key=lambda s: s.name)
        entries: list[dict] = []
        spent = 0
        for skill in pending:
            if len(entries) >= PAGE_SKILLS or (entries and spent >= PAGE_BYTES):
                return {"skills": entries, "nextCursor": _AFTER + entries[-1]["frontmatter"]["name"]}
            try:
                entry, size = self._entry(skill)
            except LackpyError:
                continue  # not publishable now (get says why); the listing goes on without it
            entries.append(entry)
            spent += size
        return {"skills": entries}

    def get(self, uri: Any) -> dict:
        """The entry of the skill whose ``SKILL.md`` is ``uri``; ParamError when this server does not serve it."""
        name, rel = _split(uri, "skills/get")
        if rel != SKILL_FILE:
            raise ParamError(f"skills/get: {_shown(uri)} is not the URI of a skill's {SKILL_FILE}; give skill://NAME/{SKILL_FILE} (skills/list lists them)")
        return self._entry(self.skills.skill(self.service, name))[0]

    def read(self, uri: Any) -> SkillFile:
        """The file ``uri`` names, as published now; ParamError when it is not a file this server serves."""
        name, rel = _split(uri, "resources/read")
        skill = self.skills.skill(self.service, name)
        if not _published(rel) or rel not in skill.files():
            raise ParamError(f"{_shown(uri)} is not a file of skill '{name}' this server serves; skills/get lists its files")
        data = skill.read_bytes(rel, MOST_BYTES, follow=False)
        return SkillFile(data, *content_of(rel, data))

    def _entry(self, skill: Skill) -> tuple[dict, int]:
        """The skill's entry, made from one reading of each of its files, and the bytes read; a LackpyError saying why not."""
        files: dict[str, bytes] = {}
        total = 0
        for rel in skill.files():
            if not _published(rel):
                continue
            try:
                data = skill.read_bytes(rel, MOST_BYTES, follow=False)
            except PathError:
                continue  # went away or refused since the walk: not a file of the skill now
            total += len(data)
            if total > MOST_BYTES:
                raise PathError(f"skill '{skill.name}' holds more than {MOST_BYTES} bytes; it is not published")
            files[rel] = data
        if SKILL_FILE not in files:
            raise PathError(f"skill '{skill.name}': its {SKILL_FILE} cannot be read now; it is not published")
        meta = {GRADE_META: skill_grade(skill, self.service.read_only_grade).to_dict(), KIT_META: skill.kit}
        try:
            entry = manifest_entry(skill.name, files[SKILL_FILE], files, meta)
        except UnicodeDecodeError:
            raise PathError(f"skill '{skill.name}': its {SKILL_FILE} is not UTF-8 text now; it is not published") from None
        front = entry["frontmatter"]
        if front.get("name") != skill.name or not isinstance(front.get("description"), str):
            raise PathError(f"skill '{skill.name}': its {SKILL_FILE} changed and no longer names it; it is not published until it does")
        parse_entry(entry, "lackpy")  # what any client of lackpy's checks: an entry that fails it is never sent
        return entry, total


def content_of(rel: str, data: bytes) -> tuple[str, str | None]:
    """The MIME type of file ``rel`` whose bytes are ``data``, and its text when it goes as text (None: as a base64 blob).

    Known binary types go as blobs; any other file goes as text when it is
    UTF-8, typed by its suffix (``text/plain`` when it has no known one),
    else as a blob of ``application/octet-stream``.
    """
    base = rel.rsplit("/", 1)[-1]
    suffix = base.rpartition(".")[2].lower() if "." in base else ""
    if suffix in BINARY_TYPES:
        return BINARY_TYPES[suffix], None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream", None
    return TEXT_TYPES.get(suffix, "text/plain"), text


#: The types of text files by suffix (a suffix not listed: ``text/plain``).
TEXT_TYPES = {
    "md": "text/markdown", "markdown": "text/markdown", "txt": "text/plain", "py": "text/x-python", "json": "application/json",
    "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml", "csv": "text/csv", "tsv": "text/tab-separated-values",
    "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript", "mjs": "text/javascript", "xml": "application/xml",
    "svg": "image/svg+xml", "sh": "application/x-sh", "kit": "text/plain",
}
#: The types of binary files by suffix: always blobs.
BINARY_TYPES = {
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "ico": "image/vnd.microsoft.icon",
    "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar", "woff": "font/woff",
    "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf", "wasm": "application/wasm", "bin": "application/octet-stream",
}


def _split(uri: Any, method: str) -> tuple[str, str]:
    """(skill name, file path) of a ``skill://NAME/PATH`` URI; ParamError for anything else."""
    if uri is None:
        raise ParamError(f"{method}: give params.uri, a skill:// URI (skills/list lists them)")
    if not isinstance(uri, str) or len(uri) > MOST_PARAM_CHARS or not uri.startswith(SCHEME):
        raise ParamError(f"{method}: {_shown(uri)} is not a skill:// URI this server serves; skills/list lists them")
    name, _, rel = uri[len(SCHEME):].partition("/")
    if not SKILL_NAME.match(name) or not rel:
        raise ParamError(f"{method}: {_shown(uri)} names no skill this server serves; skills/list lists them")
    return name, rel


def _published(rel: str) -> bool:
    """Whether a file at ``rel`` (relative to its skill's folder) is published: each segment a URI writes as it is."""
    return all(_SEGMENT.match(segment) for segment in rel.split("/"))


def _after(cursor: Any) -> str | None:
    """The name a cursor this server gave points after; ParamError for one it did not give."""
    if cursor is None:
        return None
    if isinstance(cursor, str) and len(cursor) <= MOST_PARAM_CHARS and cursor.startswith(_AFTER) and SKILL_NAME.match(cursor[len(_AFTER):]):
        return cursor[len(_AFTER):]
    raise ParamError(f"skills/list: cursor {_shown(cursor)} is not one this server gave; list again without a cursor")


def _shown(value: Any) -> str:
    return shown(value, 120)


__all__ = ["BINARY_TYPES", "MOST_PARAM_CHARS", "PAGE_BYTES", "PAGE_SKILLS", "TEXT_TYPES", "Shelf", "SkillFile", "content_of"]
