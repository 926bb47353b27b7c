"""Tool results: a lackpy result or error as an MCP CallToolResult.

A success carries the result's ``to_dict()`` as structured content. Its
text, what a model reads, is that document as JSON, except for runs: there
it is the part a model acts on (``brief``): the output, what was printed and
written, how many tool calls were made; the trace, one entry per call, stays
in the structured content, where a host can show it without it filling the
model's context. A run that stopped before its end (``complete`` false)
after doing something says first, in words, that its result is partial,
then what it had printed and assigned; its structured content keeps the
trace, the results of the calls that finished. A failure (a run that did not succeed, a lackpy error of
any kind) is a result with ``isError`` set, one line of text saying what
failed, and the structured document: the result's for a failed run, the
ErrorReport's for an error. Never a protocol error.

So every tool declares both shapes (``output_schema``): hosts built on the
TypeScript SDK check structured content against the output schema even when
``isError`` is set, and would show a schema mismatch instead of lackpy's line.
The error document stays the one a failed command prints with ``--json``
(``lackpy schema error``), so an error reads the same whatever was called.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from lackpy.errors import LackpyError
from lackpy.report import ErrorReport


def output_schema(document: dict) -> dict:
    """The output schema of a served tool whose result is ``document``: that document, or lackpy's error document.

    A tool that could not do its work (wrong arguments, a kit the server
    refuses, an unknown kit, a generation no tier could make) answers with
    the ErrorReport; a run that failed answers with its own document.
    """
    return {
        "$schema": _DRAFT, "type": "object",
        "description": "The tool's result document; when the call could not be made (isError), lackpy's error document.",
        "anyOf": [_bare(document), _bare(ErrorReport.json_schema())],
    }


def success(document: dict, text: str | None = None) -> CallToolResult:
    """A successful tool result: ``document`` structured, and as text (or ``text``)."""
    return CallToolResult(content=[_text(text if text is not None else _json(document))], structured_content=document)


def failure(message: str, document: dict) -> CallToolResult:
    """A failed tool result: one line for the model, the document for a program."""
    return CallToolResult(content=[_text(_one_line(message))], structured_content=document, is_error=True)


def of_error(exc: LackpyError, notices: list[str] | None = None) -> CallToolResult:
    """A lackpy error as a failed tool result carrying its error document."""
    report = ErrorReport.of(exc, notices).to_dict()
    return failure(f"{report['error']['kind']} error: {exc}", report)


#: What a run's text keeps when it has a value: the fields a model acts on.
BRIEF_FIELDS = (
    "output", "output_truncated", "printed", "printed_truncated", "files_created", "files_modified", "files_deleted",
    "dry_run", "diff", "held_back", "session", "kept", "not_kept", "notices",
)


def brief(document: dict) -> dict:
    """The part of a run's (or a delegation's) document a model acts on; the number of tool calls for the trace."""
    execution = document.get("execution") if "execution" in document else document
    shown = {"program": document.get("program"), "provider": document.get("provider")} if execution is not document else {}
    execution = execution or {}
    shown.update((name, execution[name]) for name in BRIEF_FIELDS if name == "output" or execution.get(name))
    shown["tool_calls"] = len(execution.get("trace") or ())
    return shown


def of_run(document: dict, trace: bool = False) -> CallToolResult:
    """A run's (or a delegation's) document: success with its brief as text, or a failure saying what failed.

    The structured document carries the trace only when ``trace`` is set (``without_trace``).
    """
    execution = document.get("execution") or document
    partial = _partial(execution)
    shown = document if trace or partial else without_trace(document)
    if document.get("success"):
        return success(shown, _json(brief(document)))
    kind = execution.get("error_kind") or "runtime"
    line = execution.get("error_line")
    where = f" (line {line})" if line else ""
    # the check before the run may have said why (a key a learned result shape lacks): the model reads it with the error
    warned = "".join(f"; {notice}" for notice in execution.get("notices") or () if notice.startswith("warning: "))
    message = f"the program failed, {kind} error{where}: {execution.get('error') or 'no result'}{warned}"
    if not partial:
        return failure(message, shown)
    calls = len(execution.get("trace") or ())
    said = (f"PARTIAL RESULT: the program did not finish, so this is not its answer. {_one_line(message)}. "
            f"{calls} tool call{'' if calls == 1 else 's'} had been made (their results are in the trace); nothing was written. What it had:")
    had = {name: execution[name] for name in PARTIAL_FIELDS if execution.get(name)}
    return CallToolResult(content=[_text(said + " " + _json(had))], structured_content=shown, is_error=True)  # one line, as every failure


#: What the text of a run that did not finish shows of what it had done (its trace is in the structured content).
PARTIAL_FIELDS = ("printed", "printed_truncated", "assigned", "assigned_cut")


def _partial(execution: dict) -> bool:
    """Whether a run stopped before its end after doing something: its result is partial, and says so."""
    if execution.get("complete") is not False:
        return False
    finished = any(isinstance(entry, dict) and entry.get("success") for entry in execution.get("trace") or ())
    return finished or any(execution.get(name) for name in PARTIAL_FIELDS)


#: What a structured run leaves out unless a client asks (``trace: true``): the record of how the run got there.
TRACE_FIELDS = ("trace", "files_read")


def without_trace(document: dict) -> dict:
    """A run's (or a delegation's) document without its trace and files read, unless a client asks (``trace: true``).

    The trace (one entry per tool call, with its arguments and result) and
    the files read (every path a search or read touched: 200 for one grep
    over 200 files) are most of a run's bytes, and many hosts hand
    structured content to their model: by default both are left out, so
    structured content stays about as small as the answer. What the run
    changed (files created, modified, deleted) always stays. The keys are
    removed, not emptied: an empty list would say no tool was called and no
    file read. The text's ``tool_calls`` still counts the calls.
    """
    execution = document.get("execution")
    if isinstance(execution, dict):
        return {**document, "execution": _drop(execution, TRACE_FIELDS)}
    return _drop(document, TRACE_FIELDS)


def optional_trace(schema: dict) -> dict:
    """A run's (or a delegation's) schema with the ``TRACE_FIELDS`` optional, where they appear: what ``without_trace`` makes."""
    if isinstance(schema, dict):
        schema = {k: optional_trace(v) for k, v in schema.items()}
        if "trace" in schema.get("properties", {}) and "required" in schema:
            schema["required"] = [name for name in schema["required"] if name not in TRACE_FIELDS]
        return schema
    if isinstance(schema, list):
        return [optional_trace(item) for item in schema]
    return schema


def _drop(document: dict, names: tuple[str, ...]) -> dict:
    return {key: value for key, value in document.items() if key not in names}


_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _bare(schema: dict) -> dict:
    """``schema`` without its ``$schema`` key, to sit inside another schema."""
    return {key: value for key, value in schema.items() if key != "$schema"}


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


def _json(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False)


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


__all__ = ["BRIEF_FIELDS", "PARTIAL_FIELDS", "TRACE_FIELDS", "brief", "optional_trace", "without_trace", "failure", "of_error", "of_run", "output_schema", "success"]
