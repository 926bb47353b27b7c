"""Confining shell commands to the workspace, with Landlock where the kernel allows it.

A command (``run_command``, ``start_process``) runs ``/bin/sh``, which can
do anything its user can; the path policy in ``workspace.py`` guards only the
file tools. Here lackpy builds, for each command, a Landlock ruleset that the
command's child applies before it runs the shell (``landlock.enter``), and
which everything the command starts inherits:

* **Reads**: the whole system, except the paths the ``[tools] deny`` patterns
  cover. Landlock only grants, so the ruleset is built around the holes: no
  directory on the way to a denied path (``/``, ..., the workspace, ...) gets
  more than the right to list it; each of its other entries gets its own
  rule. So the names in a denied directory can be listed, never read.
* **Writes**: the workspace, and a private temporary directory created for
  the command, exported as TMPDIR, TMP and TEMP and removed when it ends
  (compilers, test runners and ``mktemp`` need one, and a shared /tmp would
  be a write outside the workspace), plus /dev/null, /dev/zero, /dev/full and
  /dev/tty (shells redirect to them). Nothing else: not $HOME, not /dev/shm,
  not /tmp. A directory on the way to a denied path cannot be granted the
  rights to create, remove or rename entries (they would reach the denied
  entry too), so there a command can change existing files but not add,
  delete or rename entries: with ``deny = ["secrets/"]`` a command cannot
  create a new file at the workspace root, only in its subdirectories.
  Device nodes cannot be made anywhere.
* **Network**: none unless ``[tools] command_network = true``. Landlock (ABI
  >= 4) refuses TCP bind and connect, loopback included; the seccomp filter
  of ``sockfilter.py`` refuses the sockets Landlock does not see (UDP, raw,
  ...), and on ABI 6 abstract UNIX sockets outside the command are refused.
  Path-named UNIX sockets stay reachable (Landlock has no right for them).

The denied paths are found by walking the workspace when the command starts
(not into denied directories nor through symlinks; Landlock checks resolved
paths, so rules on real paths cover every way of naming them). A file the
patterns deny that appears later is hidden only from later commands, and a
denied path that does not exist yet can be created. More than
``MAX_WALK_ENTRIES`` entries to walk fails closed, with an error that says
to deny the large directories (a denied directory is not walked).

Where the kernel has no Landlock, commands run unconfined and say so: the
tools add ``"unconfined": why`` to their result and ``status()`` (printed by
``lackpy tools``) says it; ``[tools] require_command_confinement = true``
refuses to run them instead. Where Landlock exists but confining fails, the
command does not run: failing closed is a ``ConfinementError`` (a one-line
message the tools turn into a ToolError). The ruleset also sets no_new_privs,
so setuid programs (sudo, ping) do not gain privileges.
"""

from __future__ import annotations

import errno
import os
import platform
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

from lackpy.host import landlock, sockfilter
from lackpy.host.deny import deny_spec  # the patterns compiled as the file tools compile them
from lackpy.host.landlock import (
    ACCESS_FS_FILE,
    ACCESS_FS_IOCTL_DEV,
    ACCESS_FS_REFER,
    ACCESS_FS_TRUNCATE,
    FS_EXECUTE,
    FS_MAKE_DIR,
    FS_MAKE_FIFO,
    FS_MAKE_REG,
    FS_MAKE_SOCK,
    FS_MAKE_SYM,
    FS_READ_DIR,
    FS_READ_FILE,
    FS_REMOVE_DIR,
    FS_REMOVE_FILE,
    FS_WRITE_FILE,
    SCOPE_ABSTRACT_UNIX_SOCKET,
)

#: The environment variable that hands the supervisor its ruleset fd and filter ("FD HEX").
ENV_VAR = "LACKPY_CONFINE"
#: Most workspace entries walked to find the denied paths; past it a command does not run.
MAX_WALK_ENTRIES = 200_000
#: Devices a command may write (and ioctl); reading the rest of /dev is allowed.
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")

READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
# Everything in the workspace but making device nodes (a block device would bypass all of this).
WRITE = (
    READ | FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK
    | FS_MAKE_FIFO | FS_MAKE_SYM | ACCESS_FS_REFER | ACCESS_FS_TRUNCATE
)
DEVICE = FS_READ_FILE | FS_WRITE_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV

_REPORT = "the command did not run; `lackpy tools` says whether commands can be confined here: if they can, report this message"


class ConfinementError(Exception):
    """A command cannot be confined as it must be, so it must not run; the message says what to do."""


def failed(why: str) -> ConfinementError:
    """The error for a confinement that the kernel should allow and that failed: nothing ran."""
    return ConfinementError(f"could not confine the command ({why}); {_REPORT}")


@dataclass(frozen=True)
class Confinement:
    """What one command may reach: the workspace (a real path), the deny patterns, the network."""

    root: str
    deny: tuple[str, ...] = ()
    network: bool = False
    required: bool = False


# --------------------------------------------------------------------------- what the kernel allows


def unavailable() -> str | None:
    """Why commands cannot be confined here, or None when they can."""
    if not sys.platform.startswith("linux"):
        return f"Landlock needs Linux, this is {sys.platform}"
    if platform.machine() not in landlock.LANDLOCK_SYSCALLS or not sockfilter.supported():
        return f"lackpy calls Landlock on {' and '.join(landlock.LANDLOCK_SYSCALLS)} only, this is {platform.machine()}"
    if landlock.landlock_abi() == 0:
        return "the kernel has no Landlock (it needs Linux >= 5.13 with landlock in its lsm= list)"
    return None


def status(settings: dict | None = None) -> str:
    """One line on how commands run here, for ``lackpy tools``; ``settings`` are the ``[tools]`` ones."""
    why = unavailable()
    if why:
        return (
            f"commands NOT confined: {why}; they can read the [tools] deny paths, "
            "write anywhere you can and reach the network"
        )
    network = (settings or {}).get("command_network") is True
    net = "network allowed ([tools] command_network = true)" if network else "no network"
    return (
        f"commands confined (Landlock ABI {landlock.landlock_abi()}): writes in the workspace and a private "
        f"TMPDIR only, [tools] deny paths unreadable, {net}"
    )


# --------------------------------------------------------------------------- the denied paths


def _join(base: str, name: str) -> str:
    return base + name if base.endswith("/") else f"{base}/{name}"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def denied_paths(root: str, patterns: tuple[str, ...], limit: int | None = None) -> list[str]:
    """The real paths in the workspace the deny patterns cover (nothing below a denied directory).

    The same rules as ``workspace.denied``: a directory is matched as
    ``name/`` and one that matches is not entered. Symlinks are skipped (the
    path they resolve to is what Landlock checks). A directory that cannot be
    listed counts as denied, since what it holds is unknown.
    """
    if not patterns:
        return []
    limit = MAX_WALK_ENTRIES if limit is None else limit
    spec = deny_spec(patterns)
    found: list[str] = []
    walked = 0
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(_join(root, rel) if rel else root) as listing:
                entries = list(listing)
        except OSError:
            if not rel:
                raise failed(f"cannot list the workspace {root} to find the [tools] deny paths") from None
            found.append(_join(root, rel))
            continue
        walked += len(entries)
        if walked > limit:
            raise ConfinementError(
                f"cannot confine the command: the workspace has more than {limit} files and directories to check "
                "against [tools] deny; deny the large directories commands need not read (a denied directory is not "
                "walked), or use a smaller workspace; the command did not run"
            )
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if spec.match_file(child + "/" if is_dir else child):
                found.append(_join(root, child))
            elif is_dir:
                pending.append(child)
    return found


# --------------------------------------------------------------------------- the ruleset


def _rule(ruleset: int, path: str, access: int, optional: bool = False) -> None:
    """Grant ``access`` on ``path`` (only the file rights if it is not a directory); symlinks get nothing.

    An ``optional`` path that is gone, cannot be opened, or lies on a kernel-internal
    filesystem Landlock refuses (EBADFD) gets no rule: it stays unreachable.
    """
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
    except (FileNotFoundError, PermissionError):
        if optional:
            return
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode):
            return
        landlock.add_path_rule(ruleset, fd, access if stat.S_ISDIR(mode) else access & ACCESS_FS_FILE)
    except OSError as exc:
        if not (optional and exc.errno == errno.EBADFD):
            raise
    finally:
        os.close(fd)


def _ancestors(paths: list[str]) -> set[str]:
    """Every directory strictly above each path, up to and including /."""
    above: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in above:
            above.add(parent)
            if parent == "/":
                break
            parent = os.path.dirname(parent)
    return above


def _around_holes(ruleset: int, confinement: Confinement, holes: list[str], fs: int) -> None:
    """Rules for everything but the holes: list-only on their ancestors, one rule per other entry."""
    spec = deny_spec(confinement.deny)
    root, hidden = confinement.root, set(holes)
    ancestors = _ancestors(holes)
    for directory in sorted(ancestors):
        _rule(ruleset, directory, FS_READ_DIR & fs)
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue  # its entries stay unreachable: denying more, never less
        for entry in entries:
            path = _join(directory, entry.name)
            if path in ancestors or path in hidden or entry.is_symlink():
                continue
            if _inside(path, root):
                rel = os.path.relpath(path, root)
                if spec.match_file(rel + "/" if entry.is_dir(follow_symlinks=False) else rel):
                    continue  # appeared since the walk
                _rule(ruleset, path, WRITE & fs, optional=True)
            else:
                _rule(ruleset, path, READ & fs, optional=True)


def build_ruleset(confinement: Confinement, abi: int, tmpdir: str) -> int:
    """The command's ruleset as an fd (close-on-exec); raises OSError or ConfinementError."""
    holes = denied_paths(confinement.root, confinement.deny)
    if any(_inside(tmpdir, hole) for hole in holes):
        raise ConfinementError(f"the temporary directory {tmpdir} is inside a [tools] deny path; start lackpy with TMPDIR elsewhere; the command did not run")
    fs, net, scoped = landlock.handled_access(abi)
    if confinement.network:
        net, scoped = 0, 0
    scoped &= SCOPE_ABSTRACT_UNIX_SOCKET  # signals stay allowed: a command may stop another command's process
    ruleset = landlock.create_ruleset(fs, net, scoped, abi)
    try:
        if holes:
            _around_holes(ruleset, confinement, holes, fs)
        else:
            _rule(ruleset, "/", READ & fs)
            _rule(ruleset, confinement.root, WRITE & fs)
        _rule(ruleset, tmpdir, WRITE & fs)
        for device in WRITABLE_DEVICES:
            if not any(_inside(device, hole) for hole in holes):
                _rule(ruleset, device, DEVICE & fs, optional=True)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


# --------------------------------------------------------------------------- one command's confinement


class Prepared:
    """One command's confinement, built in lackpy: the ruleset fd, the socket filter, the private TMPDIR.

    ``unconfined`` says why the command runs unconfined (no Landlock here);
    then nothing else is set. The shell backend starts the child with
    ``env``, ``pass_fds`` and ``supervisor_env`` (or ``preexec``), calls
    ``started()`` once it has forked and ``cleanup()`` once the command ended.
    """

    def __init__(self, ruleset: int | None = None, program: bytes = b"", tmpdir: str | None = None, unconfined: str | None = None) -> None:
        self.ruleset = ruleset
        self.program = program
        self.tmpdir = tmpdir
        self.unconfined = unconfined

    def env(self) -> dict[str, str] | None:
        """The command's environment: lackpy's, with TMPDIR/TMP/TEMP its own directory (None: unchanged)."""
        if self.tmpdir is None:
            return None
        env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
        env.update(TMPDIR=self.tmpdir, TMP=self.tmpdir, TEMP=self.tmpdir)
        return env

    def supervisor_env(self) -> dict[str, str] | None:
        """The environment for the supervisor, which applies the ruleset itself and drops ENV_VAR."""
        env = self.env()
        if env is not None and self.ruleset is not None:
            env[ENV_VAR] = f"{self.ruleset} {self.program.hex()}"
        return env

    def pass_fds(self) -> tuple[int, ...]:
        return () if self.ruleset is None else (self.ruleset,)

    def preexec(self) -> Callable[[], None] | None:
        """For a child started without the supervisor: apply it between fork and exec.

        preexec_fn runs in a child forked from a threaded process, so it only
        makes syscalls through functions resolved beforehand (``landlock.warm``).
        """
        if self.ruleset is None:
            return None
        ruleset, program = self.ruleset, self.program
        return lambda: landlock.enter(ruleset, program)

    def started(self) -> None:
        """The child has its copy of the ruleset (or never will): close lackpy's."""
        if self.ruleset is not None:
            os.close(self.ruleset)
            self.ruleset = None

    def cleanup(self) -> None:
        """Close what is open and remove the private TMPDIR with whatever the command left in it."""
        self.started()
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


def prepare(confinement: Confinement) -> Prepared:
    """Build the command's confinement now, in lackpy; raises ConfinementError when it must not run."""
    why = unavailable()
    if why:
        if confinement.required:
            raise ConfinementError(
                f"commands cannot be confined here ({why}) and [tools] require_command_confinement is true; "
                "the command did not run"
            )
        return Prepared(unconfined=(
            f"not confined: {why}; this command could read the [tools] deny paths, write outside the workspace "
            "and reach the network"
        ))
    abi = landlock.landlock_abi()
    tmpdir = os.path.realpath(tempfile.mkdtemp(prefix="lackpy-command-"))
    try:
        ruleset = build_ruleset(confinement, abi, tmpdir)
        program = b"" if confinement.network else sockfilter.program(allow_tcp=abi >= 4)
        landlock.warm()
    except ConfinementError:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(tmpdir, ignore_errors=True)
        what = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror or str(exc)
        raise failed(what) from None
    return Prepared(ruleset, program, tmpdir)


__all__ = [
    "Confinement",
    "ConfinementError",
    "ENV_VAR",
    "MAX_WALK_ENTRIES",
    "Prepared",
    "build_ruleset",
    "denied_paths",
    "failed",
    "prepare",
    "status",
    "unavailable",
]
