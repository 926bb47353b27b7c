"""Workspace trust: what a cloned repository's ``.lackpy/`` may change, and who said so.

A workspace is untrusted until its user runs ``lackpy trust [DIR]``, as git,
direnv and editors treat a repository someone else wrote. Until then the
parts of ``.lackpy/`` that could raise privileges or run code are ignored
(``lackpy.service`` says which, once, and how to trust): a kit or template
above the read-only grade, a default kit above it, custom checks (they import
modules), ``mode = "inprocess"``, ``sandbox = false``, inference tiers (they
send the workspace and API keys to a URL), MCP server tables (they launch
commands), ``[kits] docs`` folders (kits would serve their files as docs)
and tool settings that widen access. Limits, deny patterns and
read-only kits and templates take effect either way.

The record lives outside the workspace (``$XDG_CONFIG_HOME/lackpy/trust.json``,
else ``~/.config/lackpy/trust.json``), keyed by the workspace's real path and
a hash of those files: changing one of them needs trust again.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from lackpy.errors import ConfigError, KitError, LackpyError, UnknownKitError
from lackpy.kit.kitfile import list_kit_files
from lackpy.kit.resolve import KitSpec, ResolvedKit, resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import Grade
from lackpy.host.ownfiles import STATE_DIR, listed, open_state, read_own, read_path
from lackpy.host.places import user_dir
from lackpy.skills.covered import folders, walk

#: Config keys that take effect only in a trusted workspace, and why.
PRIVILEGED_KEYS = {
    "checks": "custom checks import modules",
    "rules": "custom checks import modules (the old name of checks)",
    "mode": "mode = \"inprocess\" runs programs without the isolated worker",
    "sandbox": "sandbox = false drops the worker's confinement",
    "inference": "inference tiers send the workspace and API keys to a URL",
    "mcp": "MCP server tables launch commands",
    "skills": "[skills] paths make more of the workspace's folders skills",
    "kits": "[kits] docs lets kits serve the files of those folders as docs",
    "serve": "[serve] store and deployment say where lackpy serve keeps its clients' sessions and waiting runs",
}
#: Privileged keys set to their safe default, which an untrusted workspace may say all the same.
PRIVILEGED_DEFAULTS = {"sandbox": True}
#: Tool settings that widen what tools reach, taken only from a trusted workspace.
PRIVILEGED_TOOL_SETTINGS = {
    "allow_private_addresses": "lets the web tools reach the local network",
    "web_search_url": "sends search queries to another server",
    "command_network": "lets shell commands reach the network",
    "command_env": "passes lackpy's environment variables (secrets included) to shell commands",
}
#: The most bytes of the trust record lackpy reads (8 MiB: tens of thousands of workspaces).
MAX_STORE_BYTES = 8 << 20


def store_path() -> Path:
    """Where trust is recorded: outside every workspace."""
    return user_dir() / "trust.json"


def workspace_hash(workspace: Path) -> str:
    """A hash of everything of the workspace that trust covers: the config, kit files, templates and skills.

    A template's use counts are left out, so serving it does not undo trust.
    The files are read as lackpy reads its own (``lackpy.host.ownfiles``):
    one that is not a regular file, is larger than 1 MiB or is a symlink
    leading out is a ConfigError naming it, never a hang. The skills are
    every entry beneath ``.lackpy/skills`` and the ``[skills] paths``
    folders (``lackpy.skills.covered``).
    """
    workspace = Path(workspace)
    return _hashed(workspace, _covered(workspace), _skill_entries(workspace))


def _skill_entries(workspace: Path, tops: list[str] | None = None) -> list:
    """What trust covers of the workspace's skills (``lackpy.skills.covered``), in ``tops`` (default: the folders its config names now)."""
    return walk(workspace, folders(workspace) if tops is None else tops)


def _covered(workspace: Path) -> list[str]:
    """The files trust covers, relative to the workspace: the config, then kits and templates by name."""
    from lackpy.infer.templates import SUFFIX

    files = [f"{STATE_DIR}/config.toml"]
    for sub, suffix in (("kits", ".kit"), ("templates", SUFFIX)):
        try:
            fd = open_state(workspace, sub, ConfigError)
        except FileNotFoundError:
            continue
        try:
            files += [f"{STATE_DIR}/{sub}/{name}" for name in listed(fd, suffix, str(workspace / STATE_DIR / sub), ConfigError)]
        finally:
            os.close(fd)
    return files


def _hashed(workspace: Path, files: list[str], skills: list = ()) -> str:
    from lackpy.infer.templates import SUFFIX, identity  # templates know their own format

    digest = hashlib.sha256()
    for rel in files:
        sub, _, name = rel[len(STATE_DIR) + 1:].rpartition("/")
        try:
            fd = open_state(workspace, sub, ConfigError)
        except FileNotFoundError:
            continue
        try:
            raw = read_own(fd, name, str(workspace / rel), ConfigError)
        except FileNotFoundError:
            continue
        finally:
            os.close(fd)
        if sub == "templates" and name.endswith(SUFFIX):
            digest.update(f"{rel}\0{identity(workspace / rel, raw)}\0".encode())
        else:
            digest.update(f"{rel}\0".encode() + raw + b"\0")
    for entry in skills:  # none in a workspace without skills: its hash is what it was before skills were covered
        digest.update(f"{entry.rel}{'/' if entry.directory else ''}\0".encode() + entry.content + b"\0")
    global hashes
    hashes += 1
    return digest.hexdigest()


#: How many times this process hashed a workspace's trusted files (a stamp that still matches hashes nothing).
hashes = 0


@dataclass(frozen=True)
class Stamp:
    """A workspace's trust hash and what it was computed from: one stat per covered file and directory.

    ``changed()`` compares the stats again (no file is read), so a long-running
    service can tell at every request, cheaply, whether it must hash again.
    ``extra`` paths (the trust record) are stat-ed alongside.
    """

    workspace: Path
    paths: tuple[str, ...]
    stats: tuple
    hash: str
    extra: tuple[str, ...] = ()

    def changed(self) -> bool:
        """Whether a covered file or directory (or an ``extra`` path) changed, appeared or went since the stamp."""
        return _stats(self.paths) != self.stats

    def again(self) -> "Stamp":
        """A new stamp of the same workspace and extra paths: the files listed, stat-ed and hashed again."""
        return stamp(self.workspace, self.extra)


def stamp(workspace: Path, extra: tuple[str, ...] = ()) -> Stamp:
    """The workspace's trust hash, with the stats it was computed from (taken first, so a change while hashing shows later)."""
    workspace = Path(workspace)
    files = _covered(workspace)
    tops = folders(workspace)
    skills = _skill_entries(workspace, tops)
    state = workspace / STATE_DIR
    paths = (
        str(state), str(state / "kits"), str(state / "templates"), *(str(workspace / top) for top in tops), *(str(workspace / rel) for rel in files),
        *(str(workspace / entry.rel) for entry in skills), *extra,
    )
    stats = _stats(paths)
    return Stamp(workspace, paths, stats, _hashed(workspace, files, skills), tuple(extra))


def _stats(paths: tuple[str, ...]) -> tuple:
    """(mtime, size, inode, ctime) of each path, links followed (a link retargeted changes the inode); None when missing."""
    out = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            out.append(None)
        else:
            out.append((info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns))
    return tuple(out)


@dataclass(frozen=True)
class Record:
    """One trusted workspace: its path, the hash trust was given for, and when."""

    path: str
    hash: str
    trusted_at: float


def _load() -> dict[str, dict]:
    path = store_path()
    try:
        data = json.loads(read_path(path, str(path), ConfigError, MAX_STORE_BYTES))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the trust record ({exc}); fix or remove the file") from None
    return data.get("workspaces", {}) if isinstance(data, dict) else {}


def _save(records: dict[str, dict]) -> None:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"workspaces": records}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def is_trusted(workspace: Path) -> bool:
    """Whether the user trusted this workspace as its ``.lackpy/`` is now."""
    recorded = recorded_hash(workspace)
    return recorded is not None and recorded == workspace_hash(Path(workspace).resolve())


def recorded_hash(workspace: Path) -> str | None:
    """The hash the user trusted this workspace for, or None when they never did (or revoked it)."""
    record = _load().get(str(Path(workspace).resolve()))
    return record.get("hash") if isinstance(record, dict) else None


def trust(workspace: Path) -> Record:
    """Record trust in ``workspace`` as its ``.lackpy/`` is now."""
    root = Path(workspace).resolve()
    records = _load()
    record = Record(str(root), workspace_hash(root), time.time())
    records[record.path] = {"hash": record.hash, "trusted_at": record.trusted_at}
    _save(records)
    return record


def revoke(workspace: Path) -> bool:
    """Forget trust in ``workspace``; False when it was not trusted."""
    records = _load()
    found = records.pop(str(Path(workspace).resolve()), None) is not None
    if found:
        _save(records)
    return found


def trusted() -> list[Record]:
    """Every trusted workspace, by path."""
    return [Record(path, r.get("hash", ""), r.get("trusted_at", 0.0)) for path, r in sorted(_load().items())]


class WorkspaceTrust:
    """Whether one workspace is trusted now: judged when a service loads, followed at every request.

    ``given`` is the service's ``trust``: None asks the trust record (``lackpy
    trust``); True trusts the files as they are when judged, for that service
    only (``lackpy serve --trust``); False never trusts. ``lock`` is the
    service's load lock: a change is judged, and trust lost, under it, so no
    request sees a half-rebuilt service.
    """

    def __init__(self, workspace: Path, given: bool | None, lock: threading.Lock) -> None:
        self.workspace, self.given, self.lock = workspace, given, lock
        #: The stats and hash of the trusted files as trusted (None: not trusted); every request compares the stats.
        self._stamp: Stamp | None = None
        #: With ``given=True``: the hash of the files this service trusts (its own writes move it along).
        self._pinned: str | None = None

    def judge(self) -> bool:
        """Whether the workspace is trusted now; keeps the stamp later requests compare against.

        A workspace never trusted is not hashed.
        """
        self._stamp = None
        if self.given is False or (self.given is None and recorded_hash(self.workspace) is None):
            return False
        record = (str(store_path()),) if self.given is None else ()  # a revoked or renewed record counts too
        judged = stamp(self.workspace, record)
        if self.given is None and recorded_hash(self.workspace) != judged.hash:
            return False
        self._stamp, self._pinned = judged, judged.hash
        return True

    def follow(self, lose: Callable[[str], None]) -> None:
        """Where requests enter: a trusted workspace whose trusted files changed is judged again; ``lose(why)`` when it fails.

        Costs one ``stat`` per covered file and directory (and the trust
        record) while nothing changed; only a changed stat hashes the files
        again. A hash the person trusted (the record, which ``lackpy kit
        create`` and ``lackpy trust`` renew; with ``given=True`` the files as
        the service started, moved along by its own writes) keeps trust;
        anything else loses it for the rest of the service's life.
        """
        judged = self._stamp
        if judged is None or not judged.changed():
            return
        with self.lock:
            if self._stamp is not judged:
                return  # another request judged this change already
            why = self._changed(judged)
            if why is not None:
                self.given, self._stamp = False, None
                lose(why)

    def _changed(self, judged: Stamp) -> str | None:
        """Why the changed files are no longer trusted, or None when they still are (the stamp renewed)."""
        try:
            fresh = judged.again()
        except LackpyError as exc:
            return f"its .lackpy/ changed since you trusted it and cannot be read ({exc})"
        expected = self._pinned if self.given is True else recorded_hash(self.workspace)
        if expected is None:
            return "its trust was revoked (lackpy trust --revoke)"
        if fresh.hash != expected:
            return "its .lackpy/ changed since you trusted it"
        self._stamp = fresh
        return None

    @contextmanager
    def keeping(self) -> Iterator[None]:
        """A workspace the person trusted stays trusted while lackpy itself writes its kits, templates and config.

        Around the write: the record (or, with ``given=True``, the pinned
        hash) moves along with lackpy's own change. Follow trust first, so a
        change someone else made is judged before.
        """
        recorded = self.given is None and is_trusted(self.workspace)
        yield
        if recorded:
            trust(self.workspace)
        with self.lock:
            if self._stamp is not None and (recorded or self.given is True):
                self._stamp = self._stamp.again()
                self._pinned = self._stamp.hash


def withheld(workspace: Path, kits_dir: Path, toolbox: Toolbox, read_only: Grade, default_kit: KitSpec | None) -> tuple[list[str], bool]:
    """What an untrusted workspace's kits, templates and ``default_kit`` ask above the read-only grade, and whether
    the default kit is among them (None: the config is the host's own, not the workspace's, so it stands)."""
    from lackpy.infer.templates import load_templates

    ignored = []
    for name, (source, path) in sorted(list_kit_files(kits_dir).items()):
        grade = above_read_only(name, source, toolbox, kits_dir, read_only)
        if grade is not None:
            ignored.append(f"kit '{name}' ({path.relative_to(workspace)}, {grade})")
    default = _grade_of(default_kit, toolbox, kits_dir) if default_kit is not None else None
    withhold_default = default is not None and not default.within(read_only)
    if withhold_default:
        ignored.append(f"default_kit = {default_kit!r} (above read-only)")
    for template in load_templates(workspace):
        grade = _grade_of(template.kit, toolbox, kits_dir) if template.kit is not None else None
        if grade is not None and not grade.within(read_only):
            ignored.append(f"template '{template.name}' (kit {template.kit}, {grade})")
    return ignored, withhold_default


def above_read_only(name: str, source: str, toolbox: Toolbox, kits_dir: Path, read_only: Grade) -> Grade | None:
    """The grade of a workspace's own kit file when it reaches above read-only (what trust gates), else None."""
    grade = _grade_of(name, toolbox, kits_dir) if source == "workspace" else None
    return grade if grade is not None and not grade.within(read_only) else None


def resolve_untrusted(kit: KitSpec, toolbox: Toolbox, kits_dir: Path, extra_tools: Iterable[str] | None, read_only: Grade, workspace: Path) -> ResolvedKit:
    """Resolve a kit in an untrusted workspace: its own kit file counts only up to the read-only grade.

    Above it, the package's kit of that name is used (the one the file
    shadows); with none, the kit is refused, saying how to trust.
    """
    resolved = resolve_kit(kit, toolbox, kits_dir, extra_tools)
    if resolved.source != "workspace":
        return resolved
    base = resolve_kit(kit, toolbox, kits_dir)
    if base.grade.within(read_only):
        return resolved
    try:
        return resolve_kit(kit, toolbox, extra_tools=extra_tools, workspace_kits=False)
    except UnknownKitError:
        raise KitError(
            f"kit '{kit}' comes from this workspace ({base.grade}, above read-only) and the workspace is not trusted; "
            f"if you trust it, run: lackpy trust {workspace}"
        ) from None


def _grade_of(kit: KitSpec, toolbox: Toolbox, kits_dir: Path) -> Grade | None:
    """The grade of ``kit`` as the workspace defines it, or None when it does not resolve."""
    try:
        return resolve_kit(kit, toolbox, kits_dir).grade
    except LackpyError:
        return None


__all__ = [
    "PRIVILEGED_KEYS", "PRIVILEGED_TOOL_SETTINGS", "Record", "Stamp", "WorkspaceTrust", "above_read_only", "is_trusted", "recorded_hash",
    "resolve_untrusted", "revoke", "stamp", "store_path", "trust", "trusted", "withheld", "workspace_hash",
]
