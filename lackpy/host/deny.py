"""The ``[tools] deny`` patterns: which workspace paths no tool and no command may reach.

Matched here once for the file tools (``lackpy.tools.workspace``, on the path
as resolved) and for commands (``lackpy.host.confine``, which builds its
Landlock ruleset around the paths they cover).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from pathspec import GitIgnoreSpec

from lackpy.errors import ToolError


def denied(rel: str, patterns: Iterable[str], is_dir: bool = False) -> bool:
    """Whether the ``[tools] deny`` patterns cover a workspace-relative POSIX path.

    The patterns follow gitignore's rules, matched case-sensitively on every
    platform (``*.PEM`` does not deny ``id.pem``):

    - wildcards match names starting with '.' too: ``*.env`` denies ``.env``;
    - a pattern without a '/' matches at any depth (``secrets`` denies
      ``a/secrets/key``); one with a leading or inner '/' is anchored at the
      workspace root (``/build``, ``docs/*.md``); ``**`` spans directories;
    - a trailing '/' matches directories only (``secrets/``), and ``dir/**``
      denies the directory itself as well as everything in it;
    - a denied directory denies everything below it;
    - ``!pattern`` allows again a path an earlier pattern denied, but never
      one inside a denied directory (``secrets/`` then ``!secrets/a`` still
      denies ``secrets/a``).

    The workspace itself (``"."``) is never denied.
    """
    if rel in ("", "."):
        return False
    key = patterns if type(patterns) is tuple else tuple(patterns)
    parent = rel.rpartition("/")[0]
    if parent and _directory_denied(key, parent):
        return True
    return deny_spec(key).match_file(rel + "/" if is_dir else rel)


@lru_cache(maxsize=4096)
def _directory_denied(patterns: tuple[str, ...], rel_dir: str) -> bool:
    """Whether the directory ``rel_dir`` or one above it is denied: worked out once per directory, as files share them."""
    parts = rel_dir.split("/")
    return any(_one_directory(patterns, "/".join(parts[:depth])) for depth in range(1, len(parts) + 1))


@lru_cache(maxsize=4096)
def _one_directory(patterns: tuple[str, ...], rel_dir: str) -> bool:
    return deny_spec(patterns).match_file(rel_dir + "/")


@lru_cache(maxsize=32)
def deny_spec(patterns: tuple[str, ...]) -> GitIgnoreSpec:
    """The deny patterns compiled once per distinct setting."""
    try:
        return GitIgnoreSpec.from_lines(patterns)
    except ValueError as exc:
        raise ToolError(f"[tools] deny: {exc}; fix the pattern in .lackpy/config.toml") from None
