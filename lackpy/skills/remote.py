"""Skills other MCP servers serve (SEP-2640): named by their server, checked by their digests, and treated as untrusted text.

lackpy is the host here. A server's skill is named ``SERVER__name``, as its
tools are ``SERVER__tool``: the server's name is the config's (the host's
label, never what the server calls itself) and a skill's name has no ``_``,
so the split is unambiguous. Its identity is (server, URI); two servers may
serve skills of one name, and each stays its own.

What lackpy does with one, and why:

- Listing (``lackpy skill list``) connects the configured servers, as
  ``lackpy mcp list`` does, and reads each one's ``skills/list``
  (``lackpy.remote.fetch``); it fetches no file. A row says where the skill
  comes from (``source: mcp``, the server, the URI), the grade it declares
  and the grade it may reach here.
- A served skill never takes a name another origin has: one named as the
  person's own skill, a package's (lackpy's ``todo-report``) or the
  workspace's is listed as refused, with whose name it is, and the other
  stays as it was. Nothing is substituted for anything: the served one could
  only ever be reached as ``SERVER__name`` anyway, and refusing it keeps a
  person from mistaking one for the other.
- It never routes ``delegate``: its intents are the server's words, and a
  program runs only when a person names the skill (``lackpy skill run``,
  ``run --skill``, ``run_program(skill=)``). ``delegate`` and ``generate``
  refuse it, and so does ``lackpy serve`` (its clients are not the person
  who configured the server; it neither publishes nor runs these skills).
- Loading it (``skill info``, a run) reads its ``SKILL.md`` and checks it
  against the entry (size, digest, and the front matter field by field);
  a ``"dynamic"`` skill, whose content nothing can check, is not loaded.
  ``skill_file`` in a run reads only the files its entry lists, from its own
  server, each checked before the program sees it.
- Its front matter asks; it grants nothing. Its ``tools`` are resolved
  against the local toolbox, never reaching another MCP server's tools; its
  ``grade`` is held to read-only unless the person raises the ceiling for
  the run (``--ceiling``, ``ceiling=``), so a program of it that reaches
  further is refused before it runs; and the run's own ceiling applies too.
- Every program run with it waits for a person's yes at the ``skill`` gate
  (``lackpy.approvals``), which shows the server, the URI, every file's
  digest and the program; with nobody to ask, it is denied. The yes is for
  that run only: nothing is kept that a changed skill could reuse.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from lackpy.approvals.request import SkillOrigin
from lackpy.errors import ConfigError, KitError, LackpyError, ParamError, PathError, closest
from lackpy.lang.grade import Grade
from lackpy.remote.fetch import Listing, list_skills, loadable, read_skill_md, read_verified
from lackpy.remote.skills import Manifest, RemoteSkillError
from lackpy.skills.skill import MAX_FILE_BYTES, MAX_SKILL_BYTES, PROGRAM_NAME, PROGRAMS, REFERENCES, SKILL_FILE, SKILL_NAME, Skill, skill_from
from lackpy.skills.sources import whose

#: What a served skill's name is: its server's name, this, and its own name.
SEPARATOR = "__"
#: Its ``source``, in rows and on the Skill.
SOURCE = "mcp"


def split_name(name: Any) -> tuple[str, str] | None:
    """``(server, skill)`` when ``name`` names a skill another MCP server serves (``SERVER__name``), else None."""
    if not isinstance(name, str) or SEPARATOR not in name:
        return None
    server, _, bare = name.rpartition(SEPARATOR)
    return (server, bare) if server and SKILL_NAME.match(bare) else None


def not_here(name: str, where: str) -> str:
    """Why a served skill is not used by ``where`` (``delegate``, ``lackpy serve``): one line saying what to do instead."""
    return (
        f"skill '{name}' is served by another MCP server; {where} never uses such a skill on its own: run a program with it "
        f"by name, asked before it runs (lackpy skill run {name}, lackpy run --skill {name} FILE)"
    )


@dataclass(frozen=True)
class RemoteSkill(Skill):
    """A skill another MCP server serves: its entry (``manifest``), and, once loaded, its verified ``SKILL.md``.

    Its ``name`` is ``SERVER__name``; every file is read from its server and
    checked against the entry (``read_bytes``); it has no folder here.
    """

    server: str = ""
    uri: str = ""
    manifest: Manifest | None = field(default=None, compare=False, repr=False)
    text: str | None = field(default=None, compare=False, repr=False)
    """Its SKILL.md as read and verified (None: listed only, not loaded)."""
    reader: Callable[[str], bytes] | None = field(default=None, compare=False, repr=False)

    @property
    def bare(self) -> str:
        """Its name as its server gives it."""
        return self.name.rpartition(SEPARATOR)[2]

    @property
    def origin(self) -> SkillOrigin:
        """What the ``skill`` gate shows: the server, the URI and each listed file's digest and size."""
        files = tuple((rel, *self.manifest.files[self.manifest.uri_of(rel)]) for rel in self.manifest.listed()) if self.manifest.files else ()
        return SkillOrigin(self.name, self.server, self.uri, files)

    def body(self) -> str:
        if self.text is None:
            raise ParamError(f"skill '{self.name}' is listed, not loaded; lackpy skill info {self.name} reads and checks it")
        return super().body()

    def read_bytes(self, rel: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
        """A file its entry lists, read from its own server and verified; PathError for a path outside its folder."""
        if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/") or ".." in rel.split("/"):
            raise PathError(f"{rel!r}: give a path inside the skill's folder, e.g. assets/template.md")
        if rel == SKILL_FILE and self.text is not None:
            return self.text.encode("utf-8")
        if self.reader is None:
            raise ParamError(f"skill '{self.name}' is listed, not loaded; lackpy skill info {self.name} reads and checks it")
        _within(self.manifest, rel, max_bytes, self.name)
        return self.reader(rel)

    def files(self) -> list[str]:
        return self.manifest.listed() if self.manifest is not None else []

    def row(self) -> dict:
        return {**super().row(), "server": self.server, "uri": self.uri, "path": self.uri, "routes": False}


def described(manifest: Manifest) -> RemoteSkill:
    """The skill its entry describes (front matter and file list), not loaded; ConfigError when lackpy cannot read it as one."""
    listed = manifest.listed()
    programs = tuple(sorted(rel[len(PROGRAMS) + 1:-3] for rel in listed if _directly_in(rel, PROGRAMS) and rel.endswith(".py") and PROGRAM_NAME.match(rel.rsplit("/", 1)[1])))
    references = tuple(sorted(rel[len(REFERENCES) + 1:] for rel in listed if _directly_in(rel, REFERENCES)))
    skill = skill_from(
        dict(manifest.frontmatter), manifest.name, _no_folder, SOURCE, manifest.root, programs, references,
        kind=RemoteSkill, server=manifest.server, uri=manifest.uri, manifest=manifest,
    )
    return replace(skill, name=f"{manifest.server}{SEPARATOR}{manifest.name}")


def _directly_in(rel: str, folder: str) -> bool:
    return rel.startswith(folder + "/") and "/" not in rel[len(folder) + 1:]


def _no_folder() -> int:
    raise PathError("a skill another MCP server serves has no folder here; its files are read from its server")


def _within(manifest: Manifest, rel: str, max_bytes: int, name: str) -> None:
    """PathError, before anything is fetched, when the entry lists file ``rel`` as larger than ``max_bytes``."""
    listed = (manifest.files or {}).get(manifest.uri_of(rel))
    if listed is not None and listed[1] > max_bytes:
        raise PathError(f"{name}/{rel}: its entry lists {listed[1]} bytes, more than the {max_bytes} lackpy reads of a skill's file")


def loaded(remotes: Any, manifest: Manifest) -> RemoteSkill:
    """The skill of ``manifest`` with its SKILL.md read and verified; RemoteSkillError (or ConfigError, PathError) when it cannot be."""
    loadable(manifest)
    skill = described(manifest)
    _within(manifest, SKILL_FILE, MAX_SKILL_BYTES, skill.name)
    text = read_skill_md(remotes, manifest)
    return replace(skill, text=text, reader=lambda rel: read_verified(remotes, manifest, rel))


def taken_names(rows: list[dict]) -> dict[str, str]:
    """Each name a skill of another origin has (the person's, a package's, the workspace's), with whose it is, as a sentence says it."""
    return {row["name"]: f"{whose(row['source'])} skill {row['name']} ({row['path']})" for row in rows if row.get("name") and row.get("source") != SOURCE}


def collision(manifest: Manifest, taken: Mapping[str, str]) -> str | None:
    """Why a served skill is refused for its name, or None: it never takes the name of another origin's skill."""
    if manifest.name not in taken:
        return None
    return (
        f"its name is that of {taken[manifest.name]}, which stays as it is; lackpy uses no skill of another MCP server "
        f"that has the name of a skill of yours, a package's or the workspace's"
    )


def rows(listings: list[Listing], taken: Mapping[str, str], read_only: Grade, kit_of: Callable[[RemoteSkill], Any]) -> list[dict]:
    """The rows of the served skills, as ``lackpy skill list`` shows them: each one's origin, declared grade and the grade
    it may reach here (read-only unless a run's ceiling raises it), why one is refused, and which servers share a name."""
    served: dict[str, list[str]] = {}
    for listing in listings:
        for manifest in listing.skills:
            served.setdefault(manifest.name, []).append(listing.server)
    found: list[dict] = []
    for listing in listings:
        if listing.error is not None:
            found.append(_left_out(listing.server, "", listing.error))
        for called, why in listing.refused:
            found.append(_left_out(listing.server, called, why))
        for manifest in listing.skills:
            found.append(_row(manifest, taken, read_only, kit_of, [s for s in served[manifest.name] if s != listing.server]))
    return found


def _row(manifest: Manifest, taken: Mapping[str, str], read_only: Grade, kit_of: Callable[[RemoteSkill], Any], others: list[str]) -> dict:
    try:
        loadable(manifest)  # first: a dynamic skill lists no files, so nothing more of it can be read
        skill = described(manifest)
    except RemoteSkillError as exc:
        return _left_out(manifest.server, manifest.name, str(exc))
    except ConfigError as exc:
        return _left_out(manifest.server, manifest.name, f"MCP server {manifest.server}: {exc}")
    declared = skill.grade if skill.grade is not None else read_only
    row = {**skill.row(), "grade": declared.meet(read_only).to_dict(), "also_served_by": others}
    if not declared.within(read_only):
        row["ceiling_needed"] = f"it asks for grade {declared}, above read-only: its programs run only under --ceiling {declared.w},{declared.d}"
    why = collision(manifest, taken)
    if why is None:
        try:
            row["kit_grade"] = kit_of(skill).grade.to_dict()
        except LackpyError as exc:
            why = str(exc)
    row["ignored"] = why
    return row


def _left_out(server: str, called: str, why: str) -> dict:
    return {"name": f"{server}{SEPARATOR}{called}" if called else "", "source": SOURCE, "server": server, "path": f"MCP server {server}", "ignored": why}


def named_servers(kit: str | list[str], servers: list[str]) -> set[str]:
    """The configured MCP servers a kit spec names tools of (``SERVER__tool``, ``mcp:SERVER``), read without resolving it."""
    names = [part.strip() for part in kit.split(",")] if isinstance(kit, str) else list(kit)
    return {server for server in servers for name in names if name == f"mcp:{server}" or name.startswith(server + SEPARATOR)}


def own_server_only(skill: RemoteSkill, servers: set[Any]) -> None:
    """KitError when a served skill's kit has tools of ``servers`` other than its own: a skill one server serves never
    makes lackpy call another server."""
    others = sorted(str(server) for server in servers - {skill.server})
    if others:
        raise KitError(
            f"skill '{skill.name}' asks for tools of the MCP server {', '.join(others)}; a skill one server serves never "
            f"reaches another's tools (only its own server's, {skill.server}, and lackpy's)"
        )


def find(remotes: Any, name: str, taken: Mapping[str, str]) -> RemoteSkill:
    """The served skill ``name`` (``SERVER__name``), listed by its server now and loaded (its SKILL.md verified);
    ParamError saying why not in one line."""
    split = split_name(name)
    if split is None:
        raise ParamError(f"'{name}' is not the name of a skill another MCP server serves (SERVER__name); lackpy skill list shows them")
    server, bare = split
    if remotes is None or server not in remotes.servers:
        raise ParamError(f"skill '{name}': no MCP server named {server} is configured and trusted here; lackpy mcp list shows the servers")
    listing = list_skills(remotes, server)
    if listing.error is not None:
        raise ParamError(listing.error)
    if not listing.offered:
        raise ParamError(f"skill '{name}': the MCP server {server} serves no skills (it does not declare the skills extension)")
    for called, why in listing.refused:
        if called == bare:
            raise ParamError(f"skill '{name}' is not used: {why}")
    manifest = next((m for m in listing.skills if m.name == bare), None)
    if manifest is None:
        names = [f"{server}{SEPARATOR}{m.name}" for m in listing.skills]
        raise ParamError(f"unknown skill '{name}'{closest(name, names)}; the MCP server {server} lists: {', '.join(names[:20]) or 'no skills'}")
    why = collision(manifest, taken)
    if why is not None:
        raise ParamError(f"skill '{name}' is not used: {why}")
    try:
        return loaded(remotes, manifest)
    except LackpyError as exc:
        raise ParamError(f"skill '{name}' is not used: {exc}") from None


__all__ = [
    "SEPARATOR", "SOURCE", "RemoteSkill", "collision", "described", "find", "loaded", "named_servers", "not_here", "own_server_only", "rows",
    "split_name", "taken_names",
]
