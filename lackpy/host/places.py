"""Where lackpy keeps its own folders: ``.lackpy`` in a workspace, and the person's own, outside every workspace."""

from __future__ import annotations

import os
from pathlib import Path

#: lackpy's folder in a workspace: its config, kits, templates, skills and the commit journal.
LACKPY_DIR = ".lackpy"


def user_dir() -> Path:
    """The person's own lackpy folder: ``$XDG_CONFIG_HOME/lackpy``, else ``~/.config/lackpy`` (config, trust, key, skills)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "lackpy"


def cache_dir() -> Path:
    """The person's own lackpy cache: ``$XDG_CACHE_HOME/lackpy``, else ``~/.cache/lackpy`` (what lackpy can learn again, such as result shapes)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lackpy"


__all__ = ["LACKPY_DIR", "cache_dir", "user_dir"]
