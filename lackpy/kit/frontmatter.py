"""Frontmatter: YAML metadata between ``---`` lines at the top of a kit or template file."""

from __future__ import annotations

from typing import Any

import yaml

from lackpy.errors import LackpyError


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
        loaded = yaml.safe_load("".join(lines[1:end]).rstrip("\r\n"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 2}" if mark is not None else ""
        raise error(f"{where}: frontmatter is not valid YAML{at}; fix the lines between the '---' markers{yaml_hint}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise error(f"{where}: frontmatter must be 'key: value' lines, not a {type(loaded).__name__}")
    return loaded, "".join(lines[end + 1:]), end + 2


__all__ = ["split_frontmatter"]
