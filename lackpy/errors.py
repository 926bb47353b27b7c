"""The one error tree of lackpy, and the one vocabulary of error kinds.

Every failure a user can cause has its own class, and every message says what
to do next. Each class has a ``kind`` from ``ErrorKind``: the same word in a
run's result, the CLI's error document and (later) an MCP tool error, in every
run mode. Callers catch at the level they care about::

    LackpyError                runtime    the base; a program's own exceptions have this kind too
    ├── ConfigError            config     .lackpy/config.toml is malformed
    ├── WorkspaceError         workspace  the workspace does not exist or is not a directory
    ├── KitError               kit        a kit cannot be resolved
    │   ├── UnknownKitError    kit        no kit of that name (names the closest kits)
    │   └── KitFileError       kit        a .kit file is malformed or names unknown tools
    ├── ToolboxError           toolbox    a tool cannot be registered or resolved
    │   ├── UnknownToolError   toolbox    no tool of that name (names the closest tools)
    │   ├── ProviderError      toolbox    a provider is missing or cannot build the tool
    │   └── SpecError          toolbox    a tool declaration (ToolSpec, @tool) is malformed
    ├── DocsError              docs       a doc reference is refused or missing
    ├── ParamError             param      a program parameter, a limit or an option is malformed
    │   ├── LimitsError        param      a limit setting is unknown or has a bad value
    │   └── TemplateError      param      a template pattern or body is malformed
    ├── UsageError             usage      a command was called wrongly (CLI)
    ├── ValidationError        validation a program breaks the language or the kit's namespace
    ├── GuardError             guard      a running program touched something the guards refuse
    ├── LimitExceeded          limit      a program hit a limit (time, memory, output, tool calls, work)
    ├── ConflictError          conflict   a file changed on disk while the program ran; nothing was written
    ├── CommitError            commit     the changes of a successful run could not be written
    ├── WorkerError            crash      the isolated worker crashed or broke the protocol
    │   └── ForkServerBroken   crash      the fork server exited or hung; it is replaced (lackpy.run.forkserver)
    ├── SandboxUnavailable     sandbox    a requested confinement layer is not supported here
    ├── ResourceError          resources  the machine ran out of something a run needs (descriptors, processes, memory)
    ├── StoreError             store      the state store is unreachable or refused a value; the call did nothing
    ├── LostError              lost       a run or process was lost with the replica that held it; nothing of it was committed
    ├── AuthError              auth       an MCP server wants authorization lackpy does not have (lackpy mcp login NAME gets it)
    ├── InferenceError         inference  an inference tier is misconfigured or its model failed to answer
    │   ├── NotUnderstood      inference  the rules tier understood only part of an intent, or none it serves (lackpy.infer.understand.intent)
    │   ├── UnreachableError   inference  no usable answer from a model server (lackpy.infer.providers.http)
    │   └── HTTPStatusError    inference  a model server answered with an HTTP error (lackpy.infer.providers.http)
    ├── GenerationError        generation no tier could write a valid program for an intent
    ├── DeniedError            denied     a person or a policy refused what a program asked to do
    └── ToolError              tool       a tool refused or failed while a program ran
        ├── ArgumentError      argument   a tool call's arguments do not fit the tool's schema
        ├── PathError          tool       a path breaks the workspace policy or is missing
        └── RemoteSkillError   tool       a served skill's entry or content is not what SEP-2640 and its entry say (lackpy.remote.skills)
"""

from __future__ import annotations

import difflib
from enum import StrEnum
from typing import Iterable


class ErrorKind(StrEnum):
    """Every ``error_kind`` lackpy reports; the value is the word in JSON."""

    CONFIG = "config"
    WORKSPACE = "workspace"
    KIT = "kit"
    TOOLBOX = "toolbox"
    DOCS = "docs"
    PARAM = "param"
    USAGE = "usage"
    VALIDATION = "validation"
    GUARD = "guard"
    LIMIT = "limit"
    CONFLICT = "conflict"
    COMMIT = "commit"
    CRASH = "crash"
    SANDBOX = "sandbox"
    INFERENCE = "inference"
    GENERATION = "generation"
    DENIED = "denied"
    TOOL = "tool"
    ARGUMENT = "argument"
    RESOURCES = "resources"
    STORE = "store"
    LOST = "lost"
    AUTH = "auth"
    CANCELLED = "cancelled"
    RUNTIME = "runtime"

    @classmethod
    def parse(cls, value: object, default: "ErrorKind" = None) -> "ErrorKind":  # type: ignore[assignment]
        """The kind named ``value``, or ``default`` (``runtime``) for anything else."""
        try:
            return cls(value)
        except ValueError:
            return default or cls.RUNTIME


class LackpyWarning(UserWarning):
    """A registration that works but is likely a mistake, or a protection this machine cannot give."""


class LackpyError(Exception):
    """Base of every error lackpy raises on purpose; its message is for users."""

    kind = ErrorKind.RUNTIME


class ConfigError(LackpyError):
    """The workspace's .lackpy/config.toml cannot be read or has a wrong value."""

    kind = ErrorKind.CONFIG


class WorkspaceError(LackpyError):
    """The workspace directory does not exist or is not a directory."""

    kind = ErrorKind.WORKSPACE


class KitError(LackpyError):
    """A kit cannot be resolved into tools."""

    kind = ErrorKind.KIT


class UnknownKitError(KitError):
    """No kit of that name exists in the workspace or the package."""


class KitFileError(KitError):
    """A .kit file is malformed: bad frontmatter, unknown tool, duplicate name."""


class ToolboxError(LackpyError):
    """A tool cannot be registered or resolved."""

    kind = ErrorKind.TOOLBOX


class UnknownToolError(ToolboxError):
    """No tool of that name is registered in the toolbox."""


class ProviderError(ToolboxError):
    """The tool's provider is not registered or cannot build the tool."""


class SpecError(ToolboxError):
    """A tool declaration is malformed: a bad grade, an annotation with no schema, a bad docstring."""


class DocsError(LackpyError):
    """A doc reference points outside the allowed roots or does not exist."""

    kind = ErrorKind.DOCS


class ParamError(LackpyError):
    """A program parameter, a limit or an option has a bad name or value."""

    kind = ErrorKind.PARAM


class LimitsError(ParamError):
    """A limit setting is unknown or has a bad value."""


class TemplateError(ParamError):
    """A template's pattern, values or body cannot be used."""


class UsageError(LackpyError):
    """A command was called with missing or malformed arguments."""

    kind = ErrorKind.USAGE


class ValidationError(LackpyError):
    """A program breaks the language or calls a name outside its kit; ``diagnostics`` say where."""

    kind = ErrorKind.VALIDATION

    def __init__(self, message: str, diagnostics: list | None = None) -> None:
        self.diagnostics = list(diagnostics or [])
        super().__init__(message)


class GuardError(LackpyError):
    """A running program reached for something the run-time guards refuse.

    The validator refuses the same things statically; this is the second line.
    """

    kind = ErrorKind.GUARD


class LimitExceeded(LackpyError):
    """A program hit one of its limits; ``limit`` names it and ``value`` is its setting.

    ``message`` says only what happened: the run's ending adds the
    ``limit exceeded: <limit>:`` prefix, so a message that carried it too
    would read twice.
    """

    kind = ErrorKind.LIMIT

    def __init__(self, limit: str, value: object, message: str) -> None:
        self.limit = limit
        self.value = value
        super().__init__(message)


class ConflictError(LackpyError):
    """A file the program changed was changed on disk too; the commit wrote nothing."""

    kind = ErrorKind.CONFLICT


class CommitError(LackpyError):
    """The changes of a successful run could not be written (permissions, a full disk)."""

    kind = ErrorKind.COMMIT


class WorkerError(LackpyError):
    """The isolated worker died, was killed, or sent something other than plain data."""

    kind = ErrorKind.CRASH


class SandboxUnavailable(LackpyError):
    """The requested sandbox layer is not supported on this system."""

    kind = ErrorKind.SANDBOX


class ResourceError(LackpyError):
    """The machine ran out of something a run needs: file descriptors, processes, memory; the message names it."""

    kind = ErrorKind.RESOURCES


class StoreError(LackpyError):
    """The state store (``lackpy.store``) cannot be reached or refused a value; what the call would have kept was not."""

    kind = ErrorKind.STORE


class LostError(LackpyError):
    """A run, an approval it waited for, or a process went away with the replica that held it; nothing of it was committed."""

    kind = ErrorKind.LOST


class AuthError(LackpyError):
    """An MCP server wants authorization lackpy does not have, or its authorization server refused it."""

    kind = ErrorKind.AUTH


class InferenceError(LackpyError):
    """An inference tier cannot answer: bad settings, no server, a malformed reply."""

    kind = ErrorKind.INFERENCE


class GenerationError(LackpyError):
    """Every tier was tried and none wrote a program that validates.

    ``attempts`` is the attempt log (what each tier tried and why it failed).
    """

    kind = ErrorKind.GENERATION

    def __init__(self, message: str, attempts: list | None = None) -> None:
        self.attempts = list(attempts or [])
        super().__init__(message)


class DeniedError(LackpyError):
    """A person or a policy refused what the program asked to do."""

    kind = ErrorKind.DENIED


class ToolError(LackpyError):
    """A tool refused its arguments or failed; the program that called it stops."""

    kind = ErrorKind.TOOL


class ArgumentError(ToolError):
    """A tool was called with arguments that do not fit its schema; the tool did not run."""

    kind = ErrorKind.ARGUMENT


class PathError(ToolError):
    """A path is outside the workspace, escapes through a symlink, or is missing."""


#: What each errno of exhaustion says ran out, and what to do about it; ``{limit}`` is filled from the process's own limit.
_RAN_OUT = {
    "EMFILE": ("lackpy ran out of file descriptors (EMFILE: all {limit} this process may open are open)", "close connections or raise ulimit -n", "NOFILE"),
    "ENFILE": ("the system ran out of file descriptors (ENFILE: the limit of the whole system, fs.file-max, is reached)",
               "stop other programs or raise fs.file-max", None),
    "EAGAIN": ("lackpy could not start a process (EAGAIN: the {limit} processes this user may have, or the system's, are running)",
               "wait for runs and commands to end or raise ulimit -u", "NPROC"),
    "ENOMEM": ("the machine ran out of memory (ENOMEM)", "free memory, or run fewer things at once", None),
    "ENOBUFS": ("the system ran out of buffer space for sockets (ENOBUFS)", "close connections or wait", None),
}


def resource_error(exc: BaseException, doing: str = "", processes: bool = False) -> ResourceError | None:
    """The ``ResourceError`` an ``OSError`` means when the machine ran out of something, or None for any other error.

    The one place that turns an errno of exhaustion into a message saying
    what ran out and what to do. ``EAGAIN`` means "no more processes" only
    where a process was being started (``processes``): elsewhere it is a
    non-blocking call that would wait. ``doing`` (e.g. "cannot start the
    isolated worker") opens the message.
    """
    import errno

    if not isinstance(exc, OSError) or exc.errno is None:
        return None
    name = errno.errorcode.get(exc.errno, "")
    if name not in _RAN_OUT or (name == "EAGAIN" and not processes):
        return None
    said, advice, limit = _RAN_OUT[name]
    message = said.format(limit=_limit(limit) if limit else "")
    return ResourceError(f"{doing}: {message}; {advice}" if doing else f"{message}; {advice}")


def _limit(name: str) -> str:
    """This process's soft limit ``RLIMIT_<name>`` as a number, or "the allowed" when it has none or cannot be read."""
    try:
        import resource

        soft = resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))[0]
    except (ImportError, AttributeError, OSError, ValueError):
        return "the allowed"
    return "the allowed" if soft == resource.RLIM_INFINITY else str(soft)


def closest(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """Return ``" (did you mean: a, b?)"`` for near misses, or ``""``."""
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=n, cutoff=0.6)
    return f" (did you mean: {', '.join(matches)}?)" if matches else ""


def error_classes() -> dict[str, type[LackpyError]]:
    """Every error class of the tree by name (how a kind and type cross the worker's channel)."""
    found: dict[str, type[LackpyError]] = {}
    pending = [LackpyError]
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending.extend(cls.__subclasses__())
    return {name: cls for name, cls in found.items() if cls.__module__ == __name__}


__all__ = [
    "LackpyWarning",
    "ArgumentError",
    "AuthError",
    "CommitError",
    "ConfigError",
    "ConflictError",
    "DeniedError",
    "DocsError",
    "ErrorKind",
    "GenerationError",
    "GuardError",
    "InferenceError",
    "KitError",
    "KitFileError",
    "LackpyError",
    "LimitExceeded",
    "LimitsError",
    "LostError",
    "ParamError",
    "PathError",
    "ProviderError",
    "ResourceError",
    "SandboxUnavailable",
    "StoreError",
    "SpecError",
    "TemplateError",
    "ToolError",
    "ToolboxError",
    "UnknownKitError",
    "UnknownToolError",
    "UsageError",
    "ValidationError",
    "WorkerError",
    "WorkspaceError",
    "closest",
    "error_classes",
    "resource_error",
]
