"""Resolved kits, kept while the toolbox and the kit file stay as they were.

A server resolves the kit of every request; resolving reads the kit file
and checks every tool, so the service keeps what it resolved. A kit is
resolved again when the toolbox changed (a tool registered, a remote server
enrolled) or, for a named kit the workspace may define, when its file's
stat changed. The package's own kit files do not change while lackpy runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lackpy.kit.kitfile import KIT_NAME
from lackpy.kit.resolve import KitSpec, ResolvedKit
from lackpy.kit.toolbox import Toolbox

#: Kits kept before the table starts again.
MOST_KITS = 256


class KitCache:
    """The resolved kits of one service; ``own_kits``: whether its workspace can have kit files of its own."""

    def __init__(self, kits_dir: Path, own_kits: bool) -> None:
        self.kits_dir, self.own_kits = kits_dir, own_kits
        self._kept: dict[Any, tuple[tuple, ResolvedKit]] = {}

    def get(self, kit: KitSpec, extra_tools: Iterable[str] | None, toolbox: Toolbox, resolve: Callable[[], ResolvedKit]) -> ResolvedKit:
        """The kept kit for ``kit`` and ``extra_tools``, else ``resolve()``'s, kept."""
        key = _key(kit, extra_tools)
        if key is None:
            return resolve()
        stamp = self._stamp(kit, toolbox)
        kept = self._kept.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        resolved = resolve()
        if len(self._kept) > MOST_KITS:
            self._kept.clear()
        self._kept[key] = (stamp, resolved)
        return resolved

    def clear(self) -> None:
        self._kept.clear()

    def _stamp(self, kit: KitSpec, toolbox: Toolbox) -> tuple:
        """What a resolved kit depends on: the toolbox's version and, for a named kit, the workspace's file (which shadows the package's)."""
        version = toolbox.version
        if isinstance(kit, str) and self.own_kits and KIT_NAME.match(kit):
            try:
                info = os.stat(f"{self.kits_dir}/{kit}.kit")
            except OSError:
                return (version, None)
            return (version, info.st_mtime_ns, info.st_size, info.st_ino)
        return (version,)


def _key(kit: KitSpec, extra_tools: Iterable[str] | None) -> Any:
    """A hashable key for a kit form, or None when it has none."""
    try:
        extra = tuple(extra_tools or ())
        if isinstance(kit, str):
            return ("s", kit, extra)
        if isinstance(kit, Mapping):
            return ("m", tuple((k, v if isinstance(v, str) else tuple(sorted(v.items()))) for k, v in kit.items()), extra)
        return ("l", tuple(kit), extra)
    except TypeError:
        return None


__all__ = ["KitCache"]
