"""The one error tree of lackpy.

Every failure a user can cause has its own class, and every message says what
to do next. Callers catch at the level they care about::

    LackpyError
    ├── ConfigError            .lackpy/config.toml is malformed
    ├── WorkspaceError         the workspace does not exist or is not a directory
    ├── KitError               a kit cannot be resolved
    │   ├── UnknownKitError    no kit of that name (names the closest kits)
    │   └── KitFileError       a .kit file is malformed or names unknown tools
    ├── ToolboxError           a tool cannot be registered or resolved
    │   ├── UnknownToolError   no tool of that name (names the closest tools)
    │   └── ProviderError      a provider is missing or cannot build the tool
    ├── DocsError              a doc reference is refused or missing
    ├── ParamError             a program parameter is malformed
    ├── GuardError             a running program touched something the guards refuse
    ├── LimitExceeded          a program hit a limit (time, memory, output, tool calls, work)
    ├── ConflictError          a file changed on disk while the program ran; nothing was written
    ├── WorkerError            the isolated worker crashed or broke the protocol
    ├── InferenceError         an inference tier is misconfigured or its model failed to answer
    ├── GenerationError        no tier could write a valid program for an intent
    └── ToolError              a tool refused or failed while a program ran
        └── PathError          a path breaks the workspace policy or is missing
"""

from __future__ import annotations

import difflib
from typing import Iterable


class LackpyError(Exception):
    """Base of every error lackpy raises on purpose; its message is for users."""

    kind = "error"


class ConfigError(LackpyError):
    """The workspace's .lackpy/config.toml cannot be read or has a wrong value."""

    kind = "config"


class WorkspaceError(LackpyError):
    """The workspace directory does not exist or is not a directory."""

    kind = "workspace"


class KitError(LackpyError):
    """A kit cannot be resolved into tools."""

    kind = "kit"


class UnknownKitError(KitError):
    """No kit of that name exists in the workspace or the package."""

    kind = "unknown-kit"


class KitFileError(KitError):
    """A .kit file is malformed: bad frontmatter, unknown tool, duplicate name."""

    kind = "kit-file"


class ToolboxError(LackpyError):
    """A tool cannot be registered or resolved."""

    kind = "toolbox"


class UnknownToolError(ToolboxError):
    """No tool of that name is registered in the toolbox."""

    kind = "unknown-tool"


class ProviderError(ToolboxError):
    """The tool's provider is not registered or cannot build the tool."""

    kind = "provider"


class DocsError(LackpyError):
    """A doc reference points outside the allowed roots or does not exist."""

    kind = "docs"


class ParamError(LackpyError):
    """A program parameter has a bad name or value."""

    kind = "param"


class GuardError(LackpyError):
    """A running program reached for something the run-time guards refuse.

    The validator refuses the same things statically; this is the second line.
    """

    kind = "guard"


class LimitExceeded(LackpyError):
    """A program hit one of its limits; ``limit`` names it and ``value`` is its setting."""

    kind = "limit"

    def __init__(self, limit: str, value: object, message: str) -> None:
        self.limit = limit
        self.value = value
        super().__init__(message)


class ConflictError(LackpyError):
    """A file the program changed was changed on disk too; the commit wrote nothing."""

    kind = "conflict"


class WorkerError(LackpyError):
    """The isolated worker died, was killed, or sent something other than plain data."""

    kind = "crash"


class InferenceError(LackpyError):
    """An inference tier cannot answer: bad settings, no server, a malformed reply."""

    kind = "inference"


class GenerationError(LackpyError):
    """Every tier was tried and none wrote a program that validates.

    ``attempts`` is the attempt log (what each tier tried and why it failed).
    """

    kind = "generation"

    def __init__(self, message: str, attempts: list | None = None) -> None:
        self.attempts = list(attempts or [])
        super().__init__(message)


class ToolError(LackpyError):
    """A tool refused its arguments or failed; the program that called it stops."""

    kind = "tool"


class PathError(ToolError):
    """A path is outside the workspace, escapes through a symlink, or is missing."""

    kind = "path"


def closest(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """Return ``" (did you mean: a, b?)"`` for near misses, or ``""``."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=n, cutoff=0.6)
    return f" (did you mean: {', '.join(matches)}?)" if matches else ""


__all__ = [
    "ConfigError",
    "DocsError",
    "ConflictError",
    "GenerationError",
    "GuardError",
    "InferenceError",
    "LimitExceeded",
    "WorkerError",
    "KitError",
    "KitFileError",
    "LackpyError",
    "ParamError",
    "PathError",
    "ProviderError",
    "ToolError",
    "ToolboxError",
    "UnknownKitError",
    "UnknownToolError",
    "WorkspaceError",
    "closest",
]
