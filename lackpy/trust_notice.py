"""How the CLI shows an untrusted workspace's notice: in full once, then in one short line, in full again when anything changed.

Why not once and never again: the notice is a security notice. A notice
that hides itself would also hide a workspace that changed since (a pull
that adds an MCP server table or a kit that runs commands), and a person who
has stopped seeing it may not know lackpy still leaves those parts out. Why
not in full every time (as direnv repeats its "blocked" line, deliberately):
a paragraph on every command trains people to skip it, and it buries the
command's own output. So the full notice, with each reason, is shown the
first time for a workspace, and again whenever what it says or the files
trust covers (``trust.workspace_hash``: config, kits, templates, skills)
changed since it was last shown in full; in between every command still
says, in one line, that the workspace is untrusted, what is ignored, and how
to trust it. ``lackpy trust`` (and ``--revoke``) forget what was shown, so
the next notice is in full.

What was shown is recorded beside the trust record, in the person's own
lackpy folder (``notices.json``): a fingerprint per workspace path, never the
notice's text. A record that cannot be read or written only means the notice
is shown in full.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from lackpy.errors import LackpyError
from lackpy.host.ownfiles import read_path
from lackpy.host.places import user_dir
from lackpy.trust import workspace_hash

#: How the notice an untrusted workspace gets begins (``lackpy.workspace``), and how it ends.
OPENING = "this workspace is not trusted, so lackpy ignored: "
CLOSING = "; if you trust it, run: lackpy trust "
#: The most workspaces the record keeps (the oldest are forgotten: their next notice is in full), and its most bytes.
MOST_WORKSPACES = 1000
MAX_BYTES = 1 << 20


def record_path() -> Path:
    """Where the fingerprints of the notices shown in full are kept: beside the trust record."""
    return user_dir() / "notices.json"


def as_shown(workspace: Path | str, notice: str) -> str:
    """``notice`` as the CLI shows it now: the untrusted-workspace notice in full or short (see the module); any other as it is."""
    short = _short(notice)
    if short is None:
        return notice
    root = str(Path(workspace).resolve())
    try:
        fingerprint = hashlib.sha256(f"{notice}\0{workspace_hash(Path(root))}".encode()).hexdigest()
    except (LackpyError, OSError):
        return notice  # what trust covers cannot be read: nothing to compare, so all of it is said
    seen = _load()
    if seen.get(root) == fingerprint:
        return short
    seen.pop(root, None)
    seen[root] = fingerprint
    _save(seen)
    return notice


def forget(workspace: Path | str) -> None:
    """Show ``workspace``'s next notice in full (it was trusted, or trust in it revoked)."""
    seen = _load()
    if seen.pop(str(Path(workspace).resolve()), None) is not None:
        _save(seen)


def _short(notice: str) -> str | None:
    """The one-line form of the untrusted-workspace notice: what is ignored, without the reasons; None for another notice."""
    if not notice.startswith(OPENING) or CLOSING not in notice:
        return None
    listed, _, workspace = notice[len(OPENING):].rpartition(CLOSING)
    names = [item.split(" (", 1)[0] for item in listed.split("; ")]
    return f"this workspace is not trusted; still ignored (reasons shown before): {', '.join(names)}; to use them: lackpy trust {workspace}"


def _load() -> dict[str, str]:
    path = record_path()
    try:
        data = json.loads(read_path(path, str(path), LackpyError, MAX_BYTES))
    except (OSError, ValueError, LackpyError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if isinstance(key, str) and isinstance(value, str)}


def _save(seen: dict[str, str]) -> None:
    """Write the record (the newest ``MOST_WORKSPACES``), as the trust record is written; a failure is let go."""
    path = record_path()
    kept = dict(list(seen.items())[-MOST_WORKSPACES:])
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass


__all__ = ["as_shown", "forget", "record_path"]
