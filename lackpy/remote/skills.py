"""Skills over MCP on the wire (SEP-2640, the ``io.modelcontextprotocol/skills`` extension): one reading for both sides.

A server that declares the extension answers ``skills/list`` and
``skills/get`` with entries: the ``skill://`` URI of a skill's ``SKILL.md``,
its front matter verbatim, and a complete manifest of its files, each with
the SHA-256 digest and size of its bytes (or ``"dynamic"``). Its files are
read with ``resources/read``. ``lackpy serve`` builds entries here
(``manifest_entry``); lackpy's client parses what a server sends
(``parse_entry``) and checks every byte it reads against it (``verify``),
and the front matter of the ``SKILL.md`` it read against the entry's
(``verify_frontmatter``).

A digest proves only that the entry and the content agree: both come from
the same server, so nothing here makes a remote skill trusted; that is the
caller's policy (``lackpy.skills``). What fails a check is a
``RemoteSkillError``, whose message names the server, the file and what was
wrong.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from lackpy.errors import ToolError
from lackpy.kit.frontmatter import split_frontmatter
from lackpy.schema import to_jsonable

#: The extension's identifier, under ``capabilities.extensions``.
EXTENSION = "io.modelcontextprotocol/skills"
#: The methods it adds.
LIST_METHOD, GET_METHOD = "skills/list", "skills/get"
#: The URI scheme of served skill files.
SCHEME = "skill://"
#: The file every skill has at its root.
SKILL_FILE = "SKILL.md"
#: The limits every host must accept (and lackpy holds a server to): files per skill, bytes per skill.
MOST_RESOURCES = 512
MOST_BYTES = 16 * 1024 * 1024
#: The ``_meta`` key lackpy adds to an entry it serves: the grade the skill's programs may reach.
GRADE_META = "lackpy/grade"
#: The ``_meta`` key lackpy adds to an entry it serves: the kit its programs run with (a kit's name or a list of tools).
KIT_META = "lackpy/kit"
#: How deep ``_plain`` goes before ``to_jsonable``'s bound takes over.
_DEEPEST = 64
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")
_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$")


class RemoteSkillError(ToolError):
    """A served skill's entry or content is not what SEP-2640 allows, or not what its entry describes: it is not used."""


def digest(data: bytes) -> str:
    """``sha256:`` and the 64 lower-case hex digits of ``data``'s SHA-256."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_uri(skill_path: str, rel: str) -> str:
    """The ``skill://`` URI of file ``rel`` of the skill at ``skill_path`` (``todo-report``, ``acme/billing/refunds``)."""
    return f"{SCHEME}{skill_path}/{rel}"


def frontmatter_of(text: str, where: str) -> dict[str, Any]:
    """A SKILL.md's YAML front matter as a JSON object (what an entry's ``frontmatter`` carries); RemoteSkillError when it has none."""
    meta, _, _ = split_frontmatter(text, where, RemoteSkillError)
    if not meta:
        raise RemoteSkillError(f"{where}: a SKILL.md must start with front matter naming the skill and saying what it is for")
    return _plain(meta)


def _plain(value: Any, depth: int = 0) -> Any:
    """YAML's values as JSON's: a date or a time as its ISO text, a key that is not text as JSON writes it, the rest as ``to_jsonable``."""
    if isinstance(value, (datetime.date, datetime.time)):  # a datetime is a date
        return value.isoformat()
    if depth > _DEEPEST:
        return to_jsonable(value, depth)
    if isinstance(value, dict):
        return {_key(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item, depth + 1) for item in value]
    return to_jsonable(value, depth)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, (bool, int, float)) or key is None:
        return json.dumps(key)
    return str(_plain(key))


def manifest_entry(skill_path: str, skill_md: bytes, files: Mapping[str, bytes], meta: Mapping[str, Any] | None = None) -> dict:
    """The ``Skill`` entry of a skill at ``skill_path`` whose files (``SKILL.md`` among them, by relative path) are ``files``."""
    entry: dict[str, Any] = {
        "uri": file_uri(skill_path, SKILL_FILE),
        "frontmatter": frontmatter_of(skill_md.decode("utf-8"), file_uri(skill_path, SKILL_FILE)),
        "resources": [{"uri": file_uri(skill_path, rel), "digest": digest(data), "size": len(data)} for rel, data in sorted(files.items())],
    }
    if meta:
        entry["_meta"] = dict(meta)
    return entry


@dataclass(frozen=True)
class Manifest:
    """One served skill as its entry describes it, checked: where it is, its front matter, and each file's digest and size."""

    server: str
    """The host's name for the server (the config's), never what the server calls itself."""
    uri: str
    frontmatter: Mapping[str, Any]
    files: Mapping[str, tuple[str, int]] | None
    """Each file's URI -> (digest, size); None when the server says its content is ``"dynamic"`` (nothing to verify)."""
    meta: Mapping[str, Any]

    @property
    def name(self) -> str:
        return str(self.frontmatter["name"])

    @property
    def root(self) -> str:
        """The skill's folder as a URI: its ``SKILL.md`` URI without ``/SKILL.md``."""
        return self.uri[: -len(SKILL_FILE) - 1]

    def uri_of(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def rel(self, uri: str) -> str:
        return uri[len(self.root) + 1:]

    def listed(self) -> list[str]:
        """The skill's files, relative to its folder, as its entry lists them (none for a dynamic skill)."""
        return sorted(self.rel(uri) for uri in self.files or {})


def parse_entry(raw: Any, server: str) -> Manifest:
    """The entry ``raw`` a server sent, checked against SEP-2640; RemoteSkillError saying what is wrong.

    Checked: the ``SKILL.md`` URI and its last path segment, the skill's
    name (Agent Skills' rules) and description, a complete manifest (every
    file once, each inside the skill's folder, ``SKILL.md`` among them,
    digests of the right form, sizes) within the limits every host accepts,
    or ``"dynamic"``.
    """
    shown = f"MCP server {server}"
    if not isinstance(raw, Mapping):
        raise RemoteSkillError(f"{shown} sent a skill entry that is not an object")
    uri, front, resources = raw.get("uri"), raw.get("frontmatter"), raw.get("resources")
    if not isinstance(uri, str) or "://" not in uri or not uri.endswith("/" + SKILL_FILE):
        raise RemoteSkillError(f"{shown} sent a skill whose uri {_shown(uri)} is not the URI of a {SKILL_FILE}")
    if not isinstance(front, Mapping) or not isinstance(front.get("name"), str) or not isinstance(front.get("description"), str):
        raise RemoteSkillError(f"{shown}: skill {_shown(uri)} has no front matter with a name and a description")
    name = front["name"]
    segments = uri.split("://", 1)[1].split("/")
    if not _NAME.match(name) or len(segments) < 2 or segments[-2] != name:
        raise RemoteSkillError(f"{shown}: skill {_shown(uri)} is named {_shown(name)}; a skill's name is lower case letters, digits and hyphens, and its URI's last folder")
    meta = raw.get("_meta") if isinstance(raw.get("_meta"), Mapping) else {}
    if resources == "dynamic":
        return Manifest(server, uri, dict(front), None, dict(meta))
    if not isinstance(resources, list):
        raise RemoteSkillError(f"{shown}: skill {name} lists no resources (an array of files, or \"dynamic\"); it is not loaded")
    root = uri[: -len(SKILL_FILE) - 1] + "/"
    files: dict[str, tuple[str, int]] = {}
    total = 0
    for item in resources:
        if not isinstance(item, Mapping):
            raise RemoteSkillError(f"{shown}: skill {name} lists a resource that is not an object")
        file, sha, size = item.get("uri"), item.get("digest"), item.get("size")
        if not isinstance(file, str) or not file.startswith(root) or ".." in file[len(root):].split("/") or file in files:
            raise RemoteSkillError(f"{shown}: skill {name} lists {_shown(file)}, which is not a file of its own folder listed once")
        if not isinstance(sha, str) or not _DIGEST.match(sha) or type(size) is not int or size < 0:
            raise RemoteSkillError(f"{shown}: skill {name} lists {_shown(file)} without a sha256: digest and a size")
        files[file] = (sha, size)
        total += size
    if uri not in files:
        raise RemoteSkillError(f"{shown}: skill {name}'s resources do not list its {SKILL_FILE}; the manifest must be complete")
    if len(files) > MOST_RESOURCES or total > MOST_BYTES:
        raise RemoteSkillError(f"{shown}: skill {name} has {len(files)} files and {total} bytes, past the {MOST_RESOURCES} files and {MOST_BYTES} bytes a host must accept; it is not loaded")
    return Manifest(server, uri, dict(front), files, dict(meta))


def verify(manifest: Manifest, uri: str, data: bytes) -> bytes:
    """``data`` when it is the file ``uri`` as the manifest lists it (size, then digest); RemoteSkillError otherwise.

    A file the manifest does not list is a change to the skill, so it fails
    too. A dynamic skill has nothing to check against.
    """
    if manifest.files is None:
        return data
    listed = manifest.files.get(uri)
    if listed is None:
        raise RemoteSkillError(f"{_where(manifest)}: {uri} is not a file of the skill as listed; the skill changed: list it again")
    sha, size = listed
    if len(data) != size or digest(data) != sha:
        raise RemoteSkillError(f"{_where(manifest)}: {uri} is not what the skill's entry describes (size or sha256 digest); it is not used")
    return data


def verify_frontmatter(manifest: Manifest, text: str) -> None:
    """Nothing when the SKILL.md ``text`` has exactly the entry's front matter; RemoteSkillError otherwise."""
    if json.dumps(frontmatter_of(text, manifest.uri), sort_keys=True) != json.dumps(to_jsonable(dict(manifest.frontmatter)), sort_keys=True):
        raise RemoteSkillError(f"{_where(manifest)}: its {SKILL_FILE}'s front matter differs from its entry's; it is not loaded")


def _where(manifest: Manifest) -> str:
    return f"MCP server {manifest.server}, skill {manifest.name}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


__all__ = [
    "EXTENSION", "GET_METHOD", "GRADE_META", "KIT_META", "LIST_METHOD", "MOST_BYTES", "MOST_RESOURCES", "SCHEME", "SKILL_FILE", "Manifest",
    "RemoteSkillError", "digest", "file_uri", "frontmatter_of", "manifest_entry", "parse_entry", "verify", "verify_frontmatter",
]
