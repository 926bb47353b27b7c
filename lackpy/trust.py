"""Workspace trust: what a cloned repository's ``.lackpy/`` may change, and who said so.

A workspace is untrusted until its user runs ``lackpy trust [DIR]``, as git,
direnv and editors treat a repository someone else wrote. Until then the
parts of ``.lackpy/`` that could raise privileges or run code are ignored
(``lackpy.service`` says which, once, and how to trust): a kit or template
above the read-only grade, a default kit above it, custom checks (they import
modules), ``mode = "inprocess"``, ``sandbox = false``, inference tiers (they
send the workspace and API keys to a URL), MCP server tables (they launch
commands) and tool settings that widen access. Limits, deny patterns and
read-only kits and templates take effect either way.

The record lives outside the workspace (``$XDG_CONFIG_HOME/lackpy/trust.json``,
else ``~/.config/lackpy/trust.json``), keyed by the workspace's real path and
a hash of those files: changing one of them needs trust again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from lackpy.errors import ConfigError
from lackpy.host.ownfiles import STATE_DIR, listed, open_state, read_own, read_path

#: Config keys that take effect only in a trusted workspace, and why.
PRIVILEGED_KEYS = {
    "checks": "custom checks import modules",
    "rules": "custom checks import modules (the old name of checks)",
    "mode": "mode = \"inprocess\" runs programs without the isolated worker",
    "sandbox": "sandbox = false drops the worker's confinement",
    "inference": "inference tiers send the workspace and API keys to a URL",
    "mcp": "MCP server tables launch commands",
}
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
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lackpy" / "trust.json"


def workspace_hash(workspace: Path) -> str:
    """A hash of everything in ``.lackpy/`` that trust covers: the config, kit files and templates.

    A template's use counts are left out, so serving it does not undo trust.
    The files are read as lackpy reads its own (``lackpy.host.ownfiles``):
    one that is not a regular file, is larger than 1 MiB or is a symlink
    leading out is a ConfigError naming it, never a hang.
    """
    return _hashed(Path(workspace), _covered(Path(workspace)))


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


def _hashed(workspace: Path, files: list[str]) -> str:
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
    state = workspace / STATE_DIR
    paths = (str(state), str(state / "kits"), str(state / "templates"), *(str(workspace / rel) for rel in files), *extra)
    stats = _stats(paths)
    return Stamp(workspace, paths, stats, _hashed(workspace, files), tuple(extra))


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


__all__ = [
    "PRIVILEGED_KEYS", "PRIVILEGED_TOOL_SETTINGS", "Record", "Stamp", "is_trusted", "recorded_hash", "revoke", "stamp", "store_path", "trust",
    "trusted", "workspace_hash",
]
