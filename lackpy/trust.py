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

#: Config keys that take effect only in a trusted workspace, and why.
PRIVILEGED_KEYS = {
    "checks": "custom checks import modules",
    "rules": "custom checks import modules",
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
}


def store_path() -> Path:
    """Where trust is recorded: outside every workspace."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lackpy" / "trust.json"


def workspace_hash(workspace: Path) -> str:
    """A hash of everything in ``.lackpy/`` that trust covers: the config, kit files and templates.

    A template's use counts are left out, so serving it does not undo trust.
    """
    from lackpy.infer.templates import SUFFIX, TEMPLATES_DIR, identity  # templates know their own format

    digest = hashlib.sha256()
    state = workspace / ".lackpy"
    files = [state / "config.toml", *sorted((state / "kits").glob("*.kit"))]
    for path in files:
        if path.is_file():
            digest.update(f"{path.relative_to(workspace)}\0".encode() + path.read_bytes() + b"\0")
    for path in sorted((workspace / TEMPLATES_DIR).glob(f"*{SUFFIX}")):
        if path.is_file():
            digest.update(f"{path.relative_to(workspace)}\0{identity(path)}\0".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Record:
    """One trusted workspace: its path, the hash trust was given for, and when."""

    path: str
    hash: str
    trusted_at: float


def _load() -> dict[str, dict]:
    path = store_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
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
    record = _load().get(str(Path(workspace).resolve()))
    return bool(record) and record.get("hash") == workspace_hash(Path(workspace).resolve())


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


__all__ = ["PRIVILEGED_KEYS", "PRIVILEGED_TOOL_SETTINGS", "Record", "is_trusted", "revoke", "store_path", "trust", "trusted", "workspace_hash"]
