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
  delete or rename entries: with ``deny = ["secrets/src/"]`` a command
  cannot create a new file in ``src/``, only in its other subdirectories.
  Device nodes cannot be made anywhere.
* **The person's secrets**: the folders of lackpy's own that hold them
  (``lackpy.host.private``: OAuth tokens, under ``$XDG_CONFIG_HOME/lackpy``)
  are holes of the read rules too, when they exist as the command starts:
  a command can name their files, never read them.
* **lackpy's own state**, ``.lackpy/`` (config, kits, templates, the commit
  journal, the audit log), and the folders skills load from
  (``Confinement.readonly``, always holes of the write rules): read, never
  changed. Where the supervisor has a
  mount namespace (``prepare(..., mount_state=True)``), it mounts ``.lackpy``
  read-only over itself there (``mountable_state`` makes an empty one first
  if the workspace has none) and the ruleset leaves it alone. Elsewhere, or
  where that cannot hold it (a symlink; a workspace another mount also
  shows, whose other name the mount would not cover), ``.lackpy`` is a hole
  of the write rules (read rules still cover it), whether or not it exists,
  so a command can neither change, add, delete nor rename anything in it,
  nor rename, replace or make ``.lackpy`` itself; where it is a symlink to a
  directory of the workspace, that directory is read-only too. The price is
  the one above: the workspace root is on the way to ``.lackpy``, so at the
  top of the workspace a command can change existing files in place but not
  add, delete or rename entries (it can in every subdirectory). Landlock has
  no right for metadata, so a command can still change the mode and times of
  files in ``.lackpy/`` (lackpy then fails to read them, with an error).
* **Signals**: on ABI >= 6 the ruleset scopes signals, so a command can
  signal (or ptrace) only processes it started: not its supervisor, not
  lackpy, not another command's, not the user's others.
* **Network**: none unless ``[tools] command_network = true``. Landlock (ABI
  >= 4) refuses TCP bind and connect, loopback included; the seccomp filter
  of ``sockfilter.py`` refuses the sockets Landlock does not see (UDP, raw,
  ...), and on ABI 6 abstract UNIX sockets outside the command are refused.
  Path-named UNIX sockets stay reachable (Landlock has no right for them).

The denied paths are found by walking the workspace when the command starts
(not through symlinks; Landlock checks resolved paths, so rules on real
paths cover every way of naming them). A file the patterns deny that
appears later is hidden only from later commands, and a denied path that
does not exist yet can be created. More than ``MAX_WALK_ENTRIES`` entries
to walk outside the denied directories fails closed, with an error that
says to deny the large directories.

Landlock rules attach to inodes, so a rule on another name of a denied file
(a hard link) would grant the denied file itself, by its own name too. The
walk notes the inode of every denied file, in denied directories as far as
its budget goes (``lackpy.host.hardlinks``), and the other names of those
files are holes like the denied paths; no file whose inode number is a
denied file's gets a rule, judged on the descriptor the rule is made from.
Past the budget, link counts decide: a file of the workspace with other
names lackpy cannot find may be a denied file, and then a command that
requires confinement does not run and any other says ``"hard_links": what``
in its result. A link made while a command runs, in a directory it was
granted whole, is readable by that command (as a denied file made then).

Commands get a small environment (``command_env``), confined or not: PATH,
HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR/TMP/TEMP, and the names
``[tools] command_env`` lists (which only a trusted workspace and the user's
own config can set): never lackpy's own secrets (LACKPY_TOKEN, the
credentials of remote servers, cloud keys).

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
import re
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

from lackpy.host import beneath, hardlinks, landlock, sockfilter
from lackpy.host.deny import deny_spec  # the patterns compiled as the file tools compile them
from lackpy.host.private import private_folders
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
    SCOPE_SIGNAL,
)

#: The environment variable that hands the supervisor its ruleset fd, filter, scopes and the directory to mount read-only ("FD HEX SCOPED STATE").
ENV_VAR = "LACKPY_CONFINE"
#: lackpy's own state in a workspace: commands may read it, never change it.
STATE_DIR = ".lackpy"
#: What every command gets of lackpy's environment (and every ``LC_*``), besides ``[tools] command_env``.
COMMAND_ENV = ("PATH", "HOME", "LANG", "TERM", "TZ", "USER", "SHELL")
#: The names of a command's temporary directory: its private one where it is confined, else lackpy's.
TMP_ENV = ("TMPDIR", "TMP", "TEMP")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Most workspace entries walked to find the denied paths; past it a command does not run.
MAX_WALK_ENTRIES = hardlinks.MAX_WALK_ENTRIES
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
    """What one command may reach: the workspace (a real path), the deny patterns, the network, the environment."""

    root: str
    deny: tuple[str, ...] = ()
    network: bool = False
    required: bool = False
    env: tuple[str, ...] = ()
    """Names of lackpy's environment variables the command gets besides ``COMMAND_ENV`` (``[tools] command_env``)."""
    readonly: tuple[str, ...] = ()
    """Workspace-relative folders a command may read but not change, besides ``.lackpy`` (where skills load from)."""


# --------------------------------------------------------------------------- the environment


def env_names_problem(value: object) -> str | None:
    """What is wrong with a ``[tools] command_env`` value (a list of variable names), or None."""
    if not isinstance(value, (list, tuple)):
        return f"must be a list of environment variable names such as [\"CARGO_HOME\"], not {value!r}"
    for name in value:
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            return f"must list environment variable names (letters, digits and _), not {name!r}"
        if name == ENV_VAR:
            return f"cannot pass {ENV_VAR}: lackpy sets it for its own use"
    return None


def command_env(names: tuple[str, ...] = (), tmpdir: str | None = None) -> dict[str, str]:
    """A command's environment: the few variables of lackpy's every command needs, and the ``names`` asked for.

    Nothing else of lackpy's environment reaches a command: not LACKPY_TOKEN,
    not the secrets of remote servers lackpy starts, not cloud credentials.
    TMPDIR, TMP and TEMP are the command's private directory where it has
    one; elsewhere they are lackpy's (a temporary directory is no secret).
    """
    env = {
        name: value for name, value in os.environ.items()
        if name in COMMAND_ENV or name.startswith("LC_") or name in names or (tmpdir is None and name in TMP_ENV)
    }
    env.pop(ENV_VAR, None)
    if tmpdir is not None:
        env.update(dict.fromkeys(TMP_ENV, tmpdir))
    return env


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


def scopes_signals() -> bool:
    """Whether a confined command's ruleset keeps it from signalling processes outside it (Landlock ABI >= 6)."""
    return bool(landlock.handled_access(landlock.landlock_abi())[2] & SCOPE_SIGNAL)


def status(settings: dict | None = None, state_mounted: bool = False) -> str:
    """One line on how commands run here, for ``lackpy tools``; ``settings`` are the ``[tools]`` ones.

    ``state_mounted``: their supervisor mounts ``.lackpy`` read-only (else the ruleset keeps it so).
    It says how hard links of denied files are handled too (``hardlinks``).
    """
    why = unavailable()
    if why:
        return (
            f"commands NOT confined: {why}; they can read the [tools] deny paths, "
            f"write anywhere you can (lackpy's {STATE_DIR}/ included) and reach the network; "
            "the file tools refuse the deny paths under any name (hard links by inode)"
        )
    settings = settings or {}
    network = settings.get("command_network") is True
    net = "network allowed ([tools] command_network = true)" if network else "no network"
    state = f"not its {STATE_DIR}/" if state_mounted else f"not its {STATE_DIR}/, nor new entries at its top"
    unsure = "refuses to run" if settings.get("require_command_confinement") is True else 'says "hard_links" in its result'
    return (
        f"commands confined (Landlock ABI {landlock.landlock_abi()}): writes in the workspace ({state}) and a "
        f"private TMPDIR only, [tools] deny paths unreadable under any name (hard links refused by inode, by the "
        f"file tools too; past the walk of large denied directories by link count, and a command {unsure} where "
        f"that cannot tell), {net}"
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
    with _workspace_fd(root) as root_fd:
        return [_join(root, rel) for rel in _walk(root_fd, root, patterns, limit).holes]


@contextmanager
def _workspace_fd(root: str) -> Iterator[int]:
    """A descriptor of the workspace's root directory, for the walk; closed after."""
    try:
        root_fd = beneath.open_dir(root)
    except OSError:
        raise failed(f"cannot list the workspace {root} to find the [tools] deny paths") from None
    try:
        yield root_fd
    finally:
        os.close(root_fd)


def _walk(root_fd: int, root: str, patterns: tuple[str, ...], limit: int | None = None) -> hardlinks.Survey:
    """The workspace's survey (``hardlinks.survey``); a ConfinementError when it cannot be made."""
    limit = MAX_WALK_ENTRIES if limit is None else limit
    try:
        return hardlinks.survey(root_fd, patterns, limit)
    except hardlinks.TooLarge:
        raise ConfinementError(
            f"cannot confine the command: the workspace has more than {limit} files and directories to check "
            "against [tools] deny; deny the large directories commands need not read (what a denied directory "
            "holds does not count), or use a smaller workspace; the command did not run"
        ) from None
    except OSError:
        raise failed(f"cannot list the workspace {root} to find the [tools] deny paths") from None


@dataclass
class Holes:
    """What a command may not reach in its workspace: real paths, and denied files by identity (``survey.bans``).

    ``unchecked`` says which files may be another name of a denied file that
    lackpy could not rule out (``hardlinks``), or is None.
    """

    paths: list[str]
    survey: hardlinks.Survey = field(default_factory=hardlinks.Survey)
    unchecked: str | None = None


def find_holes(confinement: Confinement) -> Holes:
    """The denied paths, the other names of denied files (hard links), and what could not be checked.

    Past its budget in the denied directories the survey counts links
    instead (``hardlinks.link_counts``): where files remain whose names it
    could not all find, a command that requires confinement does not run,
    and any other runs and says so (``"hard_links"`` in its result).
    """
    root, patterns = confinement.root, confinement.deny
    if not patterns:
        return Holes([])
    with _workspace_fd(root) as root_fd:
        found = _walk(root_fd, root, patterns)
        aliases = found.aliases(root_fd)
        unchecked = None
        if found.gap is not None:
            try:
                left = hardlinks.unaccounted(hardlinks.link_counts(root_fd, found.holes, MAX_WALK_ENTRIES), set(aliases.values()))
            except (hardlinks.TooLarge, OSError):
                left = None  # changed since the survey: nothing can be counted
            if left != []:
                unchecked = _unchecked(found.gap, left, confinement.required)
    return Holes([_join(root, rel) for rel in found.holes + list(aliases)], found, unchecked)


def _unchecked(gap: str, left: list[str] | None, required: bool) -> str:
    """What a command is told of files it may read under another name of a denied file; a ConfinementError if it must not run.

    ``left``: a name of each file whose names lackpy could not all find (None: it could not count them).
    """
    if left is None:
        what = "the workspace changed while lackpy counted hard links"
    else:
        shown = ", ".join(left[:3]) + (", ..." if len(left) > 3 else "")
        what = f"{len(left)} file(s) with hard links whose other names lackpy could not find ({shown})"
    if required:
        raise ConfinementError(
            f"cannot confine the command: {what}; one may be a [tools] deny file under another name ({gap}) and "
            "[tools] require_command_confinement is true; deny a smaller directory, or replace such files with copies "
            "of their own; the command did not run"
        )
    return f"not checked for hard links: {what}; if one is a [tools] deny file under another name ({gap}), this command can read it"


# --------------------------------------------------------------------------- the ruleset


def _rule(ruleset: int, path: str, access: int, optional: bool = False, banned: hardlinks.Survey | None = None) -> None:
    """Grant ``access`` on ``path`` (only the file rights if it is not a directory); symlinks get nothing.

    An ``optional`` path that is gone, cannot be opened, or lies on a kernel-internal
    filesystem Landlock refuses (EBADFD) gets no rule: it stays unreachable.
    Nor does a file that ``banned`` (a survey) says may be a denied file
    (``Survey.bans``): a rule on an inode holds under each of its names, so
    it would grant the denied one. That is judged on the descriptor the rule
    is made from, so a link made since the walk gets nothing either, nor an
    entry outside the workspace that is a denied file's other name.
    """
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
    except (FileNotFoundError, PermissionError):
        if optional:
            return
        raise
    try:
        info = os.fstat(fd)
        mode = info.st_mode
        if stat.S_ISLNK(mode) or (banned is not None and banned.bans(info)):
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


def _grant(
    ruleset: int, top: str, access: int, holes: list[str], skip: Callable[[str, bool], bool], banned: hardlinks.Survey | None = None
) -> None:
    """Grant ``access`` on ``top`` and beneath it, except on the ``holes`` and beneath them.

    Landlock only grants, and a right on a directory holds for everything
    beneath it; so a directory on the way to a hole gets only the right to
    list it, and each of its other entries a rule of its own (symlinks none:
    Landlock checks the paths they resolve to). ``skip(path, is_dir)`` names
    entries that get nothing either (a denied path that appeared since the walk),
    and no file gets a rule that ``banned`` refuses (``_rule``).
    """
    ancestors = {path for path in _ancestors(holes) if _inside(path, top)}
    if not ancestors:
        if top not in holes:
            _rule(ruleset, top, access)
        return
    for directory in sorted(ancestors):
        _rule(ruleset, directory, FS_READ_DIR & access)
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue  # its entries stay unreachable: denying more, never less
        for entry in entries:
            path = _join(directory, entry.name)
            if path in ancestors or path in holes or entry.is_symlink() or skip(path, entry.is_dir(follow_symlinks=False)):
                continue
            _rule(ruleset, path, access, optional=True, banned=banned)


def own_state(root: str) -> list[str]:
    """The paths of lackpy's own state a command may read but not change: ``ROOT/.lackpy``, and where it leads.

    The name is a hole whether or not it exists (so no command can make it);
    if it is a symlink to a directory in the workspace, that directory is
    lackpy's state as far as lackpy reads it, so it is read-only too.
    """
    name = _join(root, STATE_DIR)
    paths = [name]
    real = os.path.realpath(name)
    if real != name and _inside(real, root) and real != root and os.path.isdir(real):
        paths.append(real)
    return paths


def _unescape(field: str) -> str:
    """A path of /proc/self/mountinfo, whose spaces, tabs, newlines and backslashes are octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _views(path: str) -> int:
    """How many mounts show the directory ``path`` (a real path): the one it is reached through, and others.

    Another mount of the same filesystem whose root holds it (a bind mount of
    a home directory elsewhere) is another way to name it, which a mount on
    ``path`` alone would not cover. 0 when /proc/self/mountinfo cannot tell.
    """
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
            mounts = [line.split()[2:5] for line in handle]
    except OSError:
        return 0
    mounts = [(dev, _unescape(fs_root), _unescape(point)) for dev, fs_root, point in mounts]
    through = [m for m in mounts if _inside(path, m[2])]
    if not through:
        return 0
    dev, fs_root, point = max(reversed(through), key=lambda m: len(m[2]))  # the deepest; of mounts stacked on it, the top one
    inner = _join(fs_root, os.path.relpath(path, point)) if path != point else fs_root
    return sum(1 for d, r, _ in mounts if d == dev and _inside(inner, r))


def mountable_state(root: str) -> str | None:
    """``ROOT/.lackpy``, made if missing, where a read-only bind mount can hold it, else None.

    It must be a real directory (for a symlink, a mount on where it leads
    would not keep the name itself from being replaced) that no other mount
    shows (a mount on one name would not cover the other); else the ruleset
    keeps it read-only.
    """
    path = _join(root, STATE_DIR)
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    return path if _views(path) == 1 else None


def build_ruleset(confinement: Confinement, abi: int, tmpdir: str, state_mounted: bool = False, found: Holes | None = None) -> int:
    """The command's ruleset as an fd (close-on-exec); raises OSError or ConfinementError.

    ``state_mounted``: the supervisor mounts ``.lackpy`` read-only in the
    command's mount namespace, so the ruleset need not make it a hole.
    ``found``: the workspace's holes, if already walked (``find_holes``).
    """
    found = find_holes(confinement) if found is None else found
    banned = found.survey
    holes = found.paths
    readonly = own_state(confinement.root)
    protected = [_join(confinement.root, os.path.normpath(rel)) for rel in confinement.readonly]
    if any(_inside(tmpdir, hole) for hole in holes + readonly):
        raise ConfinementError(
            f"the temporary directory {tmpdir} is inside a [tools] deny path or lackpy's {STATE_DIR}/; start lackpy "
            "with TMPDIR elsewhere; the command did not run"
        )
    fs, net, scoped = landlock.handled_access(abi)
    if confinement.network:
        net, scoped = 0, scoped & ~SCOPE_ABSTRACT_UNIX_SOCKET
    ruleset = landlock.create_ruleset(fs, net, scoped, abi)
    spec = deny_spec(confinement.deny)
    root = confinement.root

    def appeared(path: str, is_dir: bool) -> bool:
        """A denied path the walk did not see (it appeared since): no rule, in either layer."""
        if not _inside(path, root) or path == root:
            return False
        rel = os.path.relpath(path, root)
        return bool(confinement.deny) and spec.match_file(rel + "/" if is_dir else rel)

    try:
        _grant(ruleset, "/", READ & fs, holes + private_folders(), appeared, banned)
        _grant(ruleset, root, WRITE & fs, holes + protected + ([] if state_mounted else readonly), appeared, banned)
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
    """One command's confinement, built in lackpy: the ruleset fd, the socket filter, the private TMPDIR, the environment.

    ``unconfined`` says why the command runs unconfined (no Landlock here);
    then no ruleset is set. ``scoped`` says whether the ruleset keeps the
    command from signalling processes outside it (Landlock ABI >= 6).
    ``state`` is the ``.lackpy`` directory the supervisor must mount
    read-only (the ruleset leaves it writable), or None. ``hard_links``
    says which files may be denied files under another name that lackpy
    could not check (``find_holes``), or is None. The shell backend
    starts the child with ``env``, ``pass_fds`` and ``supervisor_env`` (or
    ``preexec``, after ``unmounted()``), calls ``started()`` once it has
    forked and ``cleanup()`` once the command ended.
    """

    def __init__(
        self,
        ruleset: int | None = None,
        program: bytes = b"",
        tmpdir: str | None = None,
        unconfined: str | None = None,
        env_names: tuple[str, ...] = (),
        scoped: bool = False,
        state: str | None = None,
        remake: Callable[[], int] | None = None,
        hard_links: str | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.program = program
        self.tmpdir = tmpdir
        self.unconfined = unconfined
        self.env_names = env_names
        self.scoped = scoped
        self.state = state
        self._remake = remake
        self.hard_links = hard_links

    def notes(self) -> dict[str, str]:
        """What the command's result says of its confinement: ``"unconfined": why``, ``"hard_links": what was not checked``."""
        said = {"unconfined": self.unconfined, "hard_links": self.hard_links}
        return {key: value for key, value in said.items() if value}

    def env(self) -> dict[str, str]:
        """The command's environment (``command_env``), with its private TMPDIR where it has one."""
        return command_env(self.env_names, self.tmpdir)

    def supervisor_env(self) -> dict[str, str]:
        """The environment for the supervisor: the command's, and ENV_VAR, which it removes before the shell runs."""
        env = self.env()
        if self.ruleset is not None:
            env[ENV_VAR] = f"{self.ruleset} {self.program.hex() or '-'} {int(self.scoped)} {self.state or '-'}"
        return env

    def pass_fds(self) -> tuple[int, ...]:
        return () if self.ruleset is None else (self.ruleset,)

    def unmounted(self) -> None:
        """For a child no supervisor mounts ``.lackpy`` for: the ruleset that keeps it read-only itself."""
        if self.state is None or self._remake is None:
            return
        if self.ruleset is not None:
            os.close(self.ruleset)
            self.ruleset = None
        try:
            self.ruleset = self._remake()
        except OSError as exc:
            raise failed(exc.strerror or str(exc)) from None
        self.state = None

    def preexec(self) -> Callable[[], None] | None:
        """For a child started without the supervisor: apply it between fork and exec.

        preexec_fn runs in a child forked from a threaded process, so it only
        makes syscalls through functions resolved beforehand (``landlock.warm``).
        """
        if self.ruleset is None:
            return None
        if self.state is not None:
            raise failed(f"nothing mounts {self.state} read-only without the supervisor")
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


def prepare(confinement: Confinement, mount_state: bool = False) -> Prepared:
    """Build the command's confinement now, in lackpy; raises ConfinementError when it must not run.

    ``mount_state``: the command's supervisor can mount ``.lackpy`` read-only
    in a mount namespace of its own (``supervise.py``); then the ruleset lets
    the command add, remove and rename entries at the top of the workspace.
    """
    why = unavailable()
    if why:
        if confinement.required:
            raise ConfinementError(
                f"commands cannot be confined here ({why}) and [tools] require_command_confinement is true; "
                "the command did not run"
            )
        return Prepared(unconfined=(
            f"not confined: {why}; this command could read the [tools] deny paths, write outside the workspace "
            f"(and in {STATE_DIR}/) and reach the network"
        ), env_names=confinement.env)
    abi = landlock.landlock_abi()
    tmpdir = os.path.realpath(tempfile.mkdtemp(prefix="lackpy-command-"))
    state = mountable_state(confinement.root) if mount_state else None
    try:
        found = find_holes(confinement)
        ruleset = build_ruleset(confinement, abi, tmpdir, state_mounted=state is not None, found=found)
        program = sockfilter.program(allow_tcp=abi >= 4, network=confinement.network)
        landlock.warm()
    except ConfinementError:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(tmpdir, ignore_errors=True)
        what = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror or str(exc)
        raise failed(what) from None
    scoped = bool(landlock.handled_access(abi)[2] & SCOPE_SIGNAL)  # as build_ruleset made it
    remake = lambda: build_ruleset(confinement, abi, tmpdir, found=found)  # noqa: E731 - the ruleset without the mount
    return Prepared(
        ruleset, program, tmpdir, env_names=confinement.env, scoped=scoped, state=state, remake=remake, hard_links=found.unchecked
    )


__all__ = [
    "Confinement",
    "ConfinementError",
    "COMMAND_ENV",
    "ENV_VAR",
    "Holes",
    "MAX_WALK_ENTRIES",
    "Prepared",
    "build_ruleset",
    "command_env",
    "denied_paths",
    "env_names_problem",
    "failed",
    "find_holes",
    "mountable_state",
    "own_state",
    "prepare",
    "status",
    "unavailable",
]
