"""Output budgets: bound a tool result's text to a number of UTF-8 bytes.

A tool that prints a huge file or a runaway log must not flood a model's
context. :func:`clamp` keeps the head, the tail, or both ends of a text within
a byte budget and splices a notice such as ``"\\n[... 12345 bytes cut ...]\\n"``
where bytes were dropped. Sizes are measured in UTF-8 with ``surrogatepass``,
so any ``str`` (astral characters, lone surrogates) can be measured and cut,
and cuts always fall on a character boundary.
"""

from __future__ import annotations

__all__ = ["DEFAULT_BUDGET", "KEEP_MODES", "SHORT_NOTICE", "clamp", "cut_notice"]

DEFAULT_BUDGET = 64 * 1024
"""The default output budget, in UTF-8 bytes."""

KEEP_MODES = ("head", "tail", "middle")
"""The accepted values of ``clamp``'s ``keep`` argument."""

SHORT_NOTICE = "[...]"
"""The marker returned alone when the budget cannot hold a full notice."""

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"


def cut_notice(dropped: int) -> str:
    """The notice spliced in where ``dropped`` bytes were cut (ASCII, one byte per char)."""
    return f"\n[... {dropped} bytes cut ...]\n"


def _head_end(data: bytes, limit: int) -> int:
    """The largest character boundary ``<= limit`` in ``data`` (``limit < len(data)``)."""
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:  # continuation byte 0b10xxxxxx
        end -= 1
    return end


def _tail_start(data: bytes, limit: int) -> int:
    """The smallest character boundary ``i`` with ``len(data) - i <= limit``."""
    start = len(data) - limit
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return start


def clamp(text: str, budget: int, keep: str = "middle") -> tuple[str, int]:
    """Bound ``text`` to ``budget`` UTF-8 bytes; return (clamped text, bytes dropped).

    ``keep`` chooses what survives: ``"head"`` keeps the start (notice at the
    end), ``"tail"`` keeps the end (notice at the start) and ``"middle"`` keeps
    both ends with the notice between them, the remaining budget split evenly
    (any bytes the head cannot use at a character boundary go to the tail).

    A text that fits is returned unchanged with 0 dropped. Otherwise the
    result, notice included, is at most ``budget`` bytes, and ``dropped`` is
    exactly the original's byte count minus the kept text's (the notice is not
    counted). The head part is a prefix and the tail part a suffix of
    ``text``; cuts never split a character.

    If ``budget`` cannot hold even a full notice, no text is kept: the result
    is :data:`SHORT_NOTICE` when it fits in ``budget``, else ``""``, and
    ``dropped`` is the whole text's size. Since the text did not fit, the
    result is then always shorter than the text.

    Raises ``ValueError`` for an unknown ``keep`` or a negative ``budget``.
    """
    if keep not in KEEP_MODES:
        raise ValueError(f"keep must be one of 'head', 'tail' or 'middle', not {keep!r}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0 bytes, not {budget!r}")
    if len(text) <= budget and text.isascii():
        return text, 0  # fast path: one byte per character, no encoding needed
    data = text.encode(_ENCODING, _ERRORS)
    total = len(data)
    if total <= budget:
        return text, 0

    # dropped <= total, so a notice sized for ``total`` is at least as long as
    # the final one: reserving it guarantees the result fits.
    avail = budget - len(cut_notice(total))
    if avail < 0:
        return (SHORT_NOTICE if len(SHORT_NOTICE) <= budget else ""), total

    head = tail = b""
    if keep == "head":
        head = data[: _head_end(data, avail)]
    elif keep == "tail":
        tail = data[_tail_start(data, avail) :]
    else:
        head = data[: _head_end(data, avail // 2)]
        tail = data[_tail_start(data, avail - len(head)) :]
    dropped = total - len(head) - len(tail)
    return (
        head.decode(_ENCODING, _ERRORS) + cut_notice(dropped) + tail.decode(_ENCODING, _ERRORS),
        dropped,
    )
