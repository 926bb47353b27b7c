"""lackpy: validate and run tiny Python programs that compose a kit's tools.

Public names are imported on first use, so ``import lackpy`` (and the CLI)
stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # service
    "LackpyService": "lackpy.service",
    "Config": "lackpy.config",
    "Session": "lackpy.session",
    # language
    "validate": "lackpy.lang.validator",
    "Check": "lackpy.lang.validator",
    "ValidationResult": "lackpy.lang.diagnostics",
    "Diagnostic": "lackpy.lang.diagnostics",
    "Grade": "lackpy.lang.grade",
    "compute_grade": "lackpy.lang.grade",
    "language_spec": "lackpy.lang.grammar",
    # kits and toolbox
    "tool": "lackpy.kit.decorator",
    "ToolSpec": "lackpy.kit.spec",
    "ArgSpec": "lackpy.kit.spec",
    "Toolbox": "lackpy.kit.toolbox",
    "ToolMatch": "lackpy.kit.search",
    "ToolProvider": "lackpy.kit.toolbox",
    "LackpyWarning": "lackpy.errors",
    "ToolContext": "lackpy.kit.context",
    "uses_context": "lackpy.kit.context",
    "resolve_kit": "lackpy.kit.resolve",
    "ResolvedKit": "lackpy.kit.resolve",
    "resolve_doc": "lackpy.kit.docs",
    "progress": "lackpy.kit.call",
    # running
    "run_program": "lackpy.run.runner",
    "run_with": "lackpy.run.runner",
    "RunSettings": "lackpy.run.settings",
    "Cancel": "lackpy.run.cancel",
    "ExecutionResult": "lackpy.run.result",
    "Trace": "lackpy.run.trace",
    "TraceEntry": "lackpy.run.trace",
    # approvals and guardrails
    "ApprovalRequest": "lackpy.approvals.request",
    "ApprovalPolicy": "lackpy.approvals.policy",
    "Gatekeeper": "lackpy.approvals.gatekeeper",
    "Decision": "lackpy.approvals.decision",
    "Unattended": "lackpy.approvals.approver",
    "ToolCall": "lackpy.run.guardrails",
    "Deny": "lackpy.run.guardrails",
    # plugins
    "hookimpl": "lackpy.hookspecs",
    # inference: intents to programs
    "DelegateResult": "lackpy.infer.result",
    "GenerationResult": "lackpy.infer.result",
    "Attempt": "lackpy.infer.dispatch",
    "Tier": "lackpy.infer.base",
    "Completion": "lackpy.infer.base",
    "InferenceProvider": "lackpy.infer.base",
    "Proposal": "lackpy.infer.base",
    "Availability": "lackpy.infer.base",
    "InferenceSettings": "lackpy.infer.settings",
    # errors
    "ErrorKind": "lackpy.errors",
    "ErrorReport": "lackpy.report",
    "LackpyError": "lackpy.errors",
    "ArgumentError": "lackpy.errors",
    "CommitError": "lackpy.errors",
    "DeniedError": "lackpy.errors",
    "LimitsError": "lackpy.errors",
    "SpecError": "lackpy.errors",
    "TemplateError": "lackpy.errors",
    "UsageError": "lackpy.errors",
    "ValidationError": "lackpy.errors",
    "ConfigError": "lackpy.errors",
    "WorkspaceError": "lackpy.errors",
    "KitError": "lackpy.errors",
    "UnknownKitError": "lackpy.errors",
    "KitFileError": "lackpy.errors",
    "ToolboxError": "lackpy.errors",
    "UnknownToolError": "lackpy.errors",
    "ProviderError": "lackpy.errors",
    "DocsError": "lackpy.errors",
    "ParamError": "lackpy.errors",
    "GuardError": "lackpy.errors",
    "LimitExceeded": "lackpy.errors",
    "ConflictError": "lackpy.errors",
    "WorkerError": "lackpy.errors",
    "ResourceError": "lackpy.errors",
    "StoreError": "lackpy.errors",
    "LostError": "lackpy.errors",
    "AuthError": "lackpy.errors",
    "InferenceError": "lackpy.errors",
    "GenerationError": "lackpy.errors",
    "Limits": "lackpy.run.limits",
    "ToolError": "lackpy.errors",
    "PathError": "lackpy.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lackpy' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
