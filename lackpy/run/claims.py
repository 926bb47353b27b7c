"""What a run's tools said they wrote, taken back when nothing was written.

A program's writes are staged: ``write_file`` answers ``wrote 5 bytes to
a.txt`` at once, and the file is written only when the run commits. When the
commit does not happen (a person refused it, the program failed, the run was
cancelled, the file changed on disk meanwhile) or leaves a file out (a later
call put its content back), that answer would tell the program's reader, and a
model reading the trace, that something happened that did not. ``Claims``
notes each call that wrote, and after the commit rewrites its trace entry, and
the run's output and printed text where they repeat its answer, to say it was
not written, and why.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from lackpy.kit.context import ToolContext
from lackpy.run.trace import summarize

#: Why a file a call wrote is left out of a commit that went ahead.
PUT_BACK = "a later call put back the content it had, so there was nothing to write"


class Claim(NamedTuple):
    """One call that wrote: its tool, its answer (and that answer's trace summary), and the paths it wrote."""

    tool: str
    answer: Any
    summary: str
    paths: tuple[str, ...]


class Claims:
    """The calls of a run that wrote to ``context``, and how to take their answers back."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.made: list[Claim] = []

    def wrap(self, alias: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` noting, when a call of it writes, what it answered and which paths it wrote."""
        context, made = self.context, self.made

        def noted(*args: Any, **kwargs: Any) -> Any:
            before = len(context.written)
            result = fn(*args, **kwargs)
            if len(context.written) != before:
                paths = tuple(dict.fromkeys(context.written[before:]))
                made.append(Claim(alias, result, "None" if result is None else summarize(result), paths))
            return result

        noted.__name__ = alias
        return noted

    def taken_back(self, why: str | None, pending: set[str]) -> dict[tuple[str, str], str]:
        """The new answer of each claim that did not come true, by its (tool, trace summary).

        ``why``: why nothing was written (None: the commit went ahead, and a
        claim is taken back only if none of its paths was in it, ``pending``).
        """
        out: dict[tuple[str, str], str] = {}
        for claim in self.made:
            reason = why if why is not None else (PUT_BACK if not pending.intersection(claim.paths) else None)
            if reason is not None:
                out[(claim.tool, claim.summary)] = f"not written to {', '.join(claim.paths)}: {reason}"
        return out

    def amend(self, records: list[tuple], output: Any, printed: str, why: str | None, pending: set[str]) -> tuple[Any, str]:
        """Rewrite ``records`` (the recorder's calls) in place; returns the output and printed text, their claims taken back."""
        back = self.taken_back(why, pending)
        if not back:
            return output, printed
        for index, record in enumerate(records):
            new = back.get((record[0], record[1])) if record[3] is None else None
            if new is not None:
                records[index] = (record[0], summarize(new), *record[2:])
        answers = {claim.answer: back[(claim.tool, claim.summary)] for claim in self.made
                   if (claim.tool, claim.summary) in back and isinstance(claim.answer, str) and claim.answer}
        for answer, new in answers.items():
            printed = printed.replace(answer, new)
        return _replaced(output, answers), printed


def _replaced(value: Any, answers: dict[str, str]) -> Any:
    """``value`` with each string that is a taken-back answer replaced, in it or in the list or dict it is (one level)."""
    if isinstance(value, str):
        return answers.get(value, value)
    if isinstance(value, list):
        return [answers.get(item, item) if isinstance(item, str) else item for item in value]
    if isinstance(value, dict):
        return {key: answers.get(item, item) if isinstance(item, str) else item for key, item in value.items()}
    return value


__all__ = ["Claims", "PUT_BACK"]
