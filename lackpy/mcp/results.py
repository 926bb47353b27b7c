"""Tool results: a lackpy result or error as an MCP CallToolResult.

A success carries the result's ``to_dict()`` as structured content and as
JSON text. A failure (a run that did not succeed, a lackpy error of any
kind) is a result with ``isError`` set, one line of text saying what failed,
and the structured document: the result's for a failed run, the
ErrorReport's for an error. Never a protocol error.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from lackpy.errors import LackpyError
from lackpy.report import ErrorReport


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


def of_run(document: dict) -> CallToolResult:
    """A run's (or a delegation's) document: success, or a failure saying what failed."""
    if document.get("success"):
        return success(document)
    execution = document.get("execution") or document
    kind = execution.get("error_kind") or "runtime"
    line = execution.get("error_line")
    where = f" (line {line})" if line else ""
    return failure(f"the program failed, {kind} error{where}: {execution.get('error') or 'no result'}", document)


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


def _json(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False)


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


__all__ = ["failure", "of_error", "of_run", "success"]
