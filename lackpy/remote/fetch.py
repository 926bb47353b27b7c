"""Skills of other MCP servers, as a host reads them (SEP-2640): listed on request, each file fetched when it is used and verified.

Only a server that declares ``capabilities.extensions["io.modelcontextprotocol/skills"]``
is asked ``skills/list``; a server that does not has no skills, and is
never probed. A listing is paged (``cursor``/``nextCursor``) and bounded: at
most ``MOST_LISTED`` entries in ``MOST_PAGES`` pages within the server's
``timeout_s``, or the listing is refused whole, in one line, and the
server's tools and other servers' skills are not touched. ``ttlMs`` and
``cacheScope`` are freshness hints: lackpy lists again whenever it is asked,
so it keeps nothing they could make stale.

Listing fetches no file. A file is read with ``resources/read`` only when it
is used (the ``SKILL.md`` when a skill is loaded, a program when it runs, an
asset when ``skill_file`` reads it), only from the server that listed the
skill (a skill never causes a read elsewhere), only when its entry lists it
(an unlisted file is refused without asking), and it is checked against the
entry (size, then SHA-256 digest) before anything uses it. A ``"dynamic"``
skill lists no digests, so nothing could be checked: lackpy lists it and
refuses to load it.

Each entry is checked as ``lackpy.remote.skills.parse_entry`` reads SEP-2640,
and beyond it here: its front matter is bounded (``MOST_FRONTMATTER_BYTES``;
the description as Agent Skills bound it), its URIs are printable ASCII
(they are shown to a person, in questions and errors), and two entries of one server with
one name are both refused, since lackpy names a served skill by its server
and name (``SERVER__name``). Whether a verified skill may do anything is not
decided here (``lackpy.skills.remote``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
from dataclasses import dataclass
from typing import Any

from lackpy.errors import LackpyError
from lackpy.kit.call import remaining
from lackpy.remote.skills import EXTENSION, LIST_METHOD, SKILL_FILE, Manifest, RemoteSkillError, parse_entry, verify, verify_frontmatter

#: The most skills lackpy takes from one server's listing, and the most pages it reads for them.
MOST_LISTED, MOST_PAGES = 256, 16
#: The most bytes an entry's front matter may take as JSON, and the longest description (Agent Skills' bound).
MOST_FRONTMATTER_BYTES, MOST_DESCRIPTION = 64 * 1024, 1024


@dataclass(frozen=True)
class Listing:
    """One server's skills: the entries that passed, the entries refused (what they were called, why), or why none was listed."""

    server: str
    skills: tuple[Manifest, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    error: str | None = None
    offered: bool = True
    """Whether the server declares the skills extension (one that does not has no skills, and no error)."""


def offers_skills(client: Any) -> bool:
    """Whether the connected server declared the skills extension at initialization."""
    capabilities = getattr(client, "server_capabilities", None)
    extensions = getattr(capabilities, "extensions", None)
    return isinstance(extensions, dict) and EXTENSION in extensions


def list_skills(remotes: Any, server: str) -> Listing:
    """Server ``server``'s skills as its ``skills/list`` pages give them, each entry checked; never raises."""
    settings = remotes.servers[server]
    try:
        offered, pages = remotes.using(server, _pages, settings.timeout_s)
    except TimeoutError:
        return Listing(server, error=f"MCP server {server} did not list its skills within its timeout_s ({settings.timeout_s:g} s); none of them is used")
    except LackpyError as exc:
        return Listing(server, error=str(exc))
    except Exception as exc:
        return Listing(server, error=f"MCP server {server} could not list its skills: {remotes.reason(exc, server)}")
    if not offered:
        return Listing(server, offered=False)
    if isinstance(pages, str):
        return Listing(server, error=f"MCP server {server} {pages}; none of its skills is used")
    return _checked(server, [entry for page in pages for entry in page])


async def _pages(client: Any) -> tuple[bool, list[list[Any]] | str]:
    """Whether the server offers skills, and its listing's pages of entries (or what was wrong with them)."""
    if not offers_skills(client):
        return False, []
    pages: list[list[Any]] = []
    cursor: str | None = None
    count = 0
    for _ in range(MOST_PAGES):
        page = await _request(client, LIST_METHOD, {"cursor": cursor} if cursor else {})
        entries = page.get("skills")
        if not isinstance(entries, list):
            return True, "answered skills/list without a list of skills"
        count += len(entries)
        if count > MOST_LISTED:
            return True, f"lists more than {MOST_LISTED} skills, more than lackpy takes from one server"
        pages.append(entries)
        cursor = page.get("nextCursor")
        if not cursor:
            return True, pages
        if not isinstance(cursor, str):
            return True, "answered skills/list with a nextCursor that is not a string"
    return True, f"still had more skills after {MOST_PAGES} pages of skills/list"


async def _request(client: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The result of ``method`` (a method the SDK does not know) as a JSON object."""
    request, result = _shapes()
    return await client.session.send_request(request(method=method, params=params), result)


@functools.cache
def _shapes() -> tuple[Any, Any]:
    """A request of any method with object params, and a result that is any JSON object (the SDK is imported on first use)."""
    from mcp_types import Request
    from pydantic import TypeAdapter

    class Extended(Request[dict[str, Any], str]):
        """A request of a method the SDK has no type for (an extension's)."""

    return Extended, TypeAdapter(dict[str, Any])


def _checked(server: str, entries: list[Any]) -> Listing:
    """The entries that pass SEP-2640 and lackpy's bounds, once each by uri, and those refused, by what they call themselves."""
    passed: list[Manifest] = []
    refused: list[tuple[str, str]] = []
    for raw in entries:
        try:
            manifest = parse_entry(raw, server)
            _bounded(manifest)
        except RemoteSkillError as exc:
            refused.append((_called(raw), str(exc)))
            continue
        if any(other.uri == manifest.uri for other in passed):
            refused.append((manifest.name, f"MCP server {server} lists {manifest.uri} twice; the second is left out"))
            continue
        passed.append(manifest)
    names = [manifest.name for manifest in passed]
    twice = {name for name in names if names.count(name) > 1}
    for name in sorted(twice):
        uris = ", ".join(manifest.uri for manifest in passed if manifest.name == name)
        refused.append((name, f"MCP server {server} lists more than one skill named {name} ({uris}); lackpy cannot tell them apart, so it uses none"))
    return Listing(server, tuple(m for m in passed if m.name not in twice), tuple(refused))


def _bounded(manifest: Manifest) -> None:
    where = f"MCP server {manifest.server}, skill {manifest.name}"
    if not all(uri.isascii() and uri.isprintable() and " " not in uri for uri in [manifest.uri, *(manifest.files or ())]):
        raise RemoteSkillError(f"{where}: a URI of it has characters a URI cannot have (spaces, control or non-ASCII characters); it is not used")
    size = len(json.dumps(manifest.frontmatter, ensure_ascii=False, default=str).encode())
    if size > MOST_FRONTMATTER_BYTES:
        raise RemoteSkillError(f"{where}: its front matter takes {size} bytes, more than the {MOST_FRONTMATTER_BYTES} lackpy reads; it is not used")
    description = manifest.frontmatter["description"]
    if not description.strip() or len(description) > MOST_DESCRIPTION:
        raise RemoteSkillError(f"{where}: its description must say what it is for in 1 to {MOST_DESCRIPTION} characters; it is not used")


def _called(raw: Any) -> str:
    """What a refused entry calls itself (a name lackpy can show), else ''."""
    front = raw.get("frontmatter") if isinstance(raw, dict) else None
    name = front.get("name") if isinstance(front, dict) else None
    return "".join(ch for ch in name[:64] if ch.isprintable()) if isinstance(name, str) else ""


def loadable(manifest: Manifest) -> None:
    """Nothing when lackpy can load the skill; RemoteSkillError when its content cannot be verified (``"dynamic"``)."""
    if manifest.files is None:
        raise RemoteSkillError(
            f"MCP server {manifest.server}, skill {manifest.name}: its content is \"dynamic\", so it lists no digests to check it "
            "against; lackpy does not load a skill it cannot verify"
        )


def read_verified(remotes: Any, manifest: Manifest, rel: str) -> bytes:
    """File ``rel`` of the skill, read from its own server and verified against its entry; RemoteSkillError otherwise.

    A file the entry does not list is refused without asking the server.
    The read takes at most the server's ``timeout_s`` (within a run's
    remaining time).
    """
    loadable(manifest)
    uri = manifest.uri_of(rel)
    listed = manifest.files.get(uri)
    if listed is None or not isinstance(rel, str) or ".." in rel.split("/"):
        raise RemoteSkillError(f"MCP server {manifest.server}, skill {manifest.name}: {_shown(rel)} is not one of its listed files ({', '.join(manifest.listed()[:20])})")
    settings = remotes.servers[manifest.server]
    timeout = min(settings.timeout_s, remaining())
    try:
        result = remotes.using(manifest.server, lambda client: client.read_resource(uri), timeout)
    except TimeoutError:
        raise RemoteSkillError(f"MCP server {manifest.server} did not send {uri} within {timeout:g} s; it is not used") from None
    except LackpyError:
        raise
    except Exception as exc:
        raise RemoteSkillError(f"MCP server {manifest.server} could not send {uri}: {remotes.reason(exc, manifest.server)}") from None
    return verify(manifest, uri, _content(result, uri, listed[1], manifest))


def read_skill_md(remotes: Any, manifest: Manifest) -> str:
    """The skill's ``SKILL.md``, verified, as text whose front matter is exactly its entry's; RemoteSkillError otherwise."""
    data = read_verified(remotes, manifest, SKILL_FILE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RemoteSkillError(f"MCP server {manifest.server}, skill {manifest.name}: its {SKILL_FILE} is not UTF-8 text") from None
    verify_frontmatter(manifest, text)
    return text


def _content(result: Any, uri: str, size: int, manifest: Manifest) -> bytes:
    """The bytes of the one content of ``result`` that is ``uri``; RemoteSkillError for anything else."""
    where = f"MCP server {manifest.server}, skill {manifest.name}"
    contents = [item for item in getattr(result, "contents", None) or [] if str(getattr(item, "uri", "")) == uri]
    if len(contents) != 1:
        raise RemoteSkillError(f"{where}: reading {uri} did not give that one file; it is not used")
    item = contents[0]
    text, blob = getattr(item, "text", None), getattr(item, "blob", None)
    if isinstance(text, str):
        return text.encode("utf-8")
    if not isinstance(blob, str) or len(blob) > 4 * (size // 3 + 1):  # past its listed size already: never decoded
        raise RemoteSkillError(f"{where}: {uri} is not what the skill's entry describes (size or sha256 digest); it is not used")
    try:
        return base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        raise RemoteSkillError(f"{where}: {uri} came as a blob that is not base64; it is not used") from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


__all__ = ["MOST_LISTED", "MOST_PAGES", "Listing", "list_skills", "loadable", "offers_skills", "read_skill_md", "read_verified"]
