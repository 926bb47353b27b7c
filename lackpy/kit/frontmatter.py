"""Frontmatter: YAML metadata between ``---`` lines at the top of a kit or template file."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import yaml

from lackpy.errors import LackpyError


class _NoAliases(yaml.SafeLoader):
    """A safe loader that refuses anchors and aliases: frontmatter needs neither, and a few
    hundred bytes of nested aliases expand to gigabytes (the "billion laughs")."""

    def compose_node(self, parent, index):  # noqa: D102 (yaml hook)
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases are not allowed in frontmatter", self.peek_event().start_mark)
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.composer.ComposerError(None, None, "anchors are not allowed in frontmatter", event.start_mark)
        return super().compose_node(parent, index)


#: The longest block whose loading is remembered (skills and kits are listed on every request; their blocks are small).
_REMEMBERED_CHARS = 16 * 1024


def _loaded(block: str) -> Any:
    """The YAML of ``block``, loaded with the safe loader that refuses aliases; a block seen before is loaded once
    (a deep copy is returned, so no caller changes another's)."""
    if len(block) > _REMEMBERED_CHARS:
        return yaml.load(block, Loader=_NoAliases)  # noqa: S506 (a safe loader)
    return copy.deepcopy(_remembered(block))


@lru_cache(maxsize=512)
def _remembered(block: str) -> Any:
    return yaml.load(block, Loader=_NoAliases)  # noqa: S506 (a safe loader)


def split_frontmatter(
    text: str, where: str, error: type[LackpyError], yaml_hint: str = ""
) -> tuple[dict[str, Any] | None, str, int]:
    """``(metadata, body, first body line)``, the body exactly as written.

    ``metadata`` is None when ``text`` does not start with a ``---`` line, and
    ``{}`` when the block is empty. A block without its closing line, invalid
    YAML or anything but ``key: value`` lines raise ``error`` naming ``where``;
    ``yaml_hint`` is added to the invalid-YAML message.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise error(f"{where}: frontmatter has no closing '---' line; add one after the metadata")
    try:
        # Without its last newline, an error at the end of the block points at its last line, not past it.
        loaded = _loaded("".join(lines[1:end]).rstrip("\r\n"))
    except RecursionError:
        raise error(f"{where}: frontmatter nests too deeply to read; write plain 'key: value' lines") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", "") or ""
        if "not allowed in frontmatter" in problem:
            raise error(f"{where}: YAML {problem}{at}; write plain 'key: value' lines") from None
        raise error(f"{where}: frontmatter is not valid YAML{at}; fix the lines between the '---' markers{yaml_hint}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise error(f"{where}: frontmatter must be 'key: value' lines, not a {type(loaded).__name__}")
    return loaded, "".join(lines[end + 1:]), end + 2


__all__ = ["split_frontmatter"]
