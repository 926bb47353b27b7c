"""Hard links of denied files: a file the ``[tools] deny`` patterns cover stays denied under every name it has.

The patterns judge names, but the kernel grants access to inodes: a hard
link of ``app/.env`` at ``app/notes.txt`` is the same file, so reading the
allowed name reads the secret, and a Landlock rule granted on it grants
the denied name too (rules attach to inodes). Nothing stops a person's own
tools, or a repository's checkout script, from making such a link; a
confined command cannot (Landlock refuses to link a file it may not reach
into a place it may, and gives no right to add entries beside a denied one).

So lackpy decides by identity where the kernel tells it, and by link count
where it cannot see every name:

* ``survey`` walks the workspace once, as the confinement of commands always
  did (``scandir`` only, no symlink followed, a directory opened beneath the
  root with no symlink on its path), and records the inode number of every
  denied file (``d_ino``, which ``getdents`` returns for free), those inside
  denied directories too: up to as many entries as the rest of the
  workspace has, and at least ``DENIED_WALK_MIN``, so that denying a huge
  directory still keeps commands cheap.
* A name whose inode number is a denied file's is a candidate, confirmed
  with ``lstat`` of both names (``st_dev`` and ``st_ino``): an alias.
* Where the survey could not see every denied file (a denied directory past
  its budget, a directory that cannot be listed), ``link_counts`` looks at
  the files of the allowed part instead (``lstat`` of each): a file with one
  name cannot be an alias, and one whose every name (``st_nlink``) lies in
  the allowed part is none either. Any other is *unchecked*: the file tools
  refuse it, and a command refuses to run, or runs and says so, as
  ``[tools] require_command_confinement`` asks (``lackpy.host.confine``).

``Guard`` is the file tools' side: it judges a file lackpy has opened
(``fstat`` of its descriptor), and pays nothing unless the file has more than
one name; only then is the survey made, once per run (the guard lives on the
run's ``LocalFilesystem``). A survey can go stale while a run goes on, so a
file whose inode changed (its ``st_ctime``, which ``link``, ``unlink`` and
``rename`` set and no one can set back) since shortly before the survey began
is judged by a new one: a link made during a run is seen when the file is next
opened. A per-run survey rather than one per process: the ctime of a file
does not change when a directory above one of its names is renamed (into a
denied directory, or out of one), so a survey goes stale in ways no file
shows; kept for a run (seconds), it costs one walk per run that meets a file
with several names, and is never hours old.

Names outside the workspace are outside what ``[tools] deny`` covers: a link
someone made there is readable by commands (which read the system) as a copy
would be; a command cannot write it. It never opens the denied name itself:
where lackpy grants files one by one (beside the directories on the way to
the workspace), a file that ``Survey.bans`` gets no rule. ``d_ino`` is taken as the inode number
``lstat`` gives, as it is on ext4, xfs, btrfs, tmpfs and overlayfs with its
layers on one filesystem.
"""

from __future__ import annotations

import os
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

from lackpy.errors import PathError
from lackpy.host.beneath import open_beneath
from lackpy.host.deny import deny_spec

#: Most workspace entries outside the denied directories walked to find the denied files; past it the walk gives up.
MAX_WALK_ENTRIES = 200_000
#: The fewest entries of the denied directories walked for their inodes; more while the rest of the workspace has more.
DENIED_WALK_MIN = 10_000
#: How long before a survey began a change to a file's names may be stamped: coarse kernel clocks, 1 s and 2 s timestamps.
CTIME_SLACK_NS = 2_000_000_000
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK
_PATH = getattr(os, "O_PATH", os.O_RDONLY)


class TooLarge(Exception):
    """The workspace has more entries outside its denied directories than the walk may visit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the workspace has more than {limit} files and directories to check against [tools] deny")
        self.limit = limit


@dataclass
class Survey:
    """What one walk of a workspace found.

    ``holes``: the workspace-relative paths the patterns deny (not entered) and
    the directories that could not be listed. ``denied``: inode number ->
    the names of denied files with it (inside denied directories too).
    ``allowed``: inode number -> the names of the other files. ``devices``:
    the ``st_dev`` of the directories listed. ``gap``: why ``denied`` may
    lack a denied file, or None when it lacks none.
    """

    holes: list[str] = field(default_factory=list)
    denied: dict[int, list[str]] = field(default_factory=dict)
    allowed: dict[int, list[str]] = field(default_factory=dict)
    devices: set[int] = field(default_factory=set)
    gap: str | None = None
    started_ns: int = 0

    def aliases(self, root_fd: int) -> dict[str, tuple[int, int]]:
        """The allowed names whose file is a denied file, with its identity (``st_dev``, ``st_ino``, looked at now).

        A denied name of the same inode number that is gone since the walk
        may have been renamed to another denied name: then every file of that
        number with more than one name counts, denying more, never less.
        """
        found = {}
        for number in self.allowed.keys() & self.denied.keys():
            secret = {_identity(root_fd, rel) for rel in self.denied[number]}
            for rel in self.allowed[number]:
                info = _lstat(root_fd, rel)
                if info is not None and multiple(info) and ((info.st_dev, info.st_ino) in secret or None in secret):
                    found[rel] = (info.st_dev, info.st_ino)
        return found

    def bans(self, info: os.stat_result) -> bool:
        """Whether a file may be a denied file by its identity alone: more than one name, a denied file's inode number, on a device walked.

        Nothing is looked up: this judges a file already opened (a rule about
        to be granted on it), and may deny more, never less.
        """
        return info.st_ino in self.denied and info.st_dev in self.devices and multiple(info)

    def denies(self, root_fd: int, info: os.stat_result) -> bool:
        """Whether the file ``info`` describes is, now, a denied file of the survey under another name.

        As in ``aliases``, a denied name of its inode number that is gone counts.
        """
        return any(_identity(root_fd, rel) in ((info.st_dev, info.st_ino), None) for rel in self.denied.get(info.st_ino, ()))


def survey(root_fd: int, patterns: tuple[str, ...], limit: int) -> Survey:
    """Walk the workspace below ``root_fd``: its holes, and the inode numbers of its denied and other files.

    TooLarge past ``limit`` entries outside the denied directories; OSError
    when the workspace itself cannot be listed.
    """
    found = Survey(started_ns=time.time_ns())
    if not patterns:
        return found
    match = deny_spec(patterns).match_file
    holes, denied, allowed = found.holes, found.denied, found.allowed
    closed: list[str] = []

    def visit(child: str, entry: os.DirEntry) -> bool:
        if entry.is_symlink():
            return False
        if entry.is_dir(follow_symlinks=False):
            if not match(child + "/"):
                return True
            holes.append(child)
            closed.append(child)
        elif match(child):
            holes.append(child)
            denied.setdefault(entry.inode(), []).append(child)
        else:
            allowed.setdefault(entry.inode(), []).append(child)
        return False

    def unlisted(rel: str, error: OSError) -> None:
        if not rel:
            raise error
        holes.append(rel)
        found.gap = found.gap or f"{rel} cannot be listed"

    walked = _walk(root_fd, limit, visit, unlisted, found.devices)
    _inside_denied(root_fd, closed, max(DENIED_WALK_MIN, walked), found)
    return found


def _walk(
    root_fd: int, limit: int, visit: Callable[[str, os.DirEntry], bool], unlisted: Callable[[str, OSError], None], devices: set[int] | None = None
) -> int:
    """Walk the workspace below ``root_fd``: ``visit(path, entry)`` of each entry says whether to enter it (a directory);
    ``unlisted(path, error)`` hears of a directory that cannot be listed (raising there stops the walk). TooLarge past ``limit``
    entries; returns how many were walked."""
    walked = 0
    pending = [""]
    while pending:
        rel = pending.pop()
        prefix = f"{rel}/" if rel else ""
        try:
            with _opened(root_fd, rel, devices) as listing:
                for entry in listing:
                    walked += 1
                    if walked > limit:
                        raise TooLarge(limit)
                    child = prefix + entry.name
                    if visit(child, entry):
                        pending.append(child)
        except OSError as error:
            unlisted(rel, error)
    return walked


def _inside_denied(root_fd: int, pending: list[str], budget: int, found: Survey) -> None:
    """Add the inode numbers of the files in the denied directories ``pending``, up to ``budget`` entries."""
    denied = found.denied
    walked = 0
    while pending:
        rel = pending.pop()
        try:
            with _opened(root_fd, rel, found.devices) as listing:
                for entry in listing:
                    walked += 1
                    if walked > budget:
                        found.gap = found.gap or f"the denied directories hold more than {budget} entries"
                        return
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(f"{rel}/{entry.name}")
                    elif not entry.is_symlink():
                        denied.setdefault(entry.inode(), []).append(f"{rel}/{entry.name}")
        except OSError:
            found.gap = found.gap or "a denied directory cannot be listed"  # not named: the file tools show no denied name


@contextmanager
def _opened(root_fd: int, rel: str, devices: set[int] | None = None) -> Iterator[Iterator[os.DirEntry]]:
    """The entries of the directory ``rel``, opened beneath the root with no symlink on its path.

    Every entry must be looked at inside the ``with`` (a ``DirEntry`` of a
    descriptor asks the kernel through it). ``devices`` gets its ``st_dev``.
    """
    fd = open_beneath(root_fd, rel or ".", _DIRECTORY, follow=False)
    try:
        if devices is not None:
            devices.add(os.fstat(fd).st_dev)
        with os.scandir(fd) as listing:
            yield listing
    finally:
        os.close(fd)


def link_counts(root_fd: int, holes: list[str], limit: int) -> dict[tuple[int, int], list]:
    """The files of the allowed part with more than one name: (st_dev, st_ino) -> [st_nlink, their names found there].

    The allowed part is the workspace but its ``holes`` (a survey's). A file
    whose names found there are as many as its ``st_nlink`` has no name
    anywhere else, so none that is denied. TooLarge past ``limit``.
    """
    skip = set(holes)
    counts: dict[tuple[int, int], list] = {}

    def visit(child: str, entry: os.DirEntry) -> bool:
        if child in skip or entry.is_symlink():
            return False
        if entry.is_dir(follow_symlinks=False):
            return True
        info = entry.stat(follow_symlinks=False)
        if info.st_nlink > 1:
            counts.setdefault((info.st_dev, info.st_ino), [info.st_nlink]).append(child)
        return False

    _walk(root_fd, limit, visit, lambda rel, error: None)  # an unlisted directory's files are not counted: one with a name there stays unaccounted for
    return counts


def unaccounted(counts: dict[tuple[int, int], list], exclude: set[tuple[int, int]] = frozenset()) -> list[str]:
    """A name of each file of ``counts`` with names lackpy did not find (besides those in ``exclude``), sorted."""
    return sorted(names[1] for key, names in counts.items() if len(names) - 1 < names[0] and key not in exclude)


def _lstat(root_fd: int, rel: str) -> os.stat_result | None:
    """``rel`` itself (no symlink followed anywhere on it), or None when it is gone or a directory."""
    try:
        fd = open_beneath(root_fd, rel, _PATH, follow=False)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    return None if stat.S_ISDIR(info.st_mode) else info


def _identity(root_fd: int, rel: str) -> tuple[int, int] | None:
    """(st_dev, st_ino) of ``rel`` itself; None when it is gone or a directory."""
    info = _lstat(root_fd, rel)
    return None if info is None else (info.st_dev, info.st_ino)


def multiple(info: os.stat_result) -> bool:
    """Whether a file has other names a deny pattern may cover: not a directory, and more than one link."""
    return info.st_nlink > 1 and not stat.S_ISDIR(info.st_mode)


class Guard:
    """The file tools' judge of a file by its identity: refuses another name of a denied file (``check``).

    ``root_fd`` is the workspace's descriptor (kept open by its owner);
    ``limit`` bounds the walk outside the denied directories, as for commands.
    """

    def __init__(self, root_fd: int, patterns: tuple[str, ...], limit: int = MAX_WALK_ENTRIES) -> None:
        self.root_fd = root_fd
        self.patterns = patterns
        self.limit = limit
        self._survey: Survey | None = None
        self._counts: dict[tuple[int, int], list] | None = None
        self._too_large: str | None = None
        self._judged: set[tuple[int, int, int]] = set()

    def check(self, info: os.stat_result, shown: str) -> None:
        """Refuse (PathError) the opened file ``info`` if it is a denied file under the name ``shown``, or may be."""
        if not self.patterns or not multiple(info):
            return
        found = self._fresh(info)
        if found is not None and found.denies(self.root_fd, info):
            raise PathError(f"denied by the workspace policy: {shown} (another name of a file [tools] deny covers)")
        why = self._too_large or (found.gap if found is not None else None)
        if why is None:
            return
        names = self._names(info)
        if names is not None and len(names) - 1 >= info.st_nlink:
            return
        raise PathError(
            f"denied by the workspace policy: {shown} has {info.st_nlink} names (hard links) and lackpy cannot check them "
            f"all against [tools] deny ({why}); to read it, replace it with a copy of its own (cp, then mv over it)"
        )

    def _fresh(self, info: os.stat_result) -> Survey | None:
        """The survey, made now if there is none or the file's names may have changed since it began.

        A survey made while this file was judged, or later, holds for it until
        its inode changes again; a workspace too large to walk stays so.
        """
        key = (info.st_dev, info.st_ino, info.st_ctime_ns)
        found = self._survey
        stale = found is None or (key not in self._judged and info.st_ctime_ns >= found.started_ns - CTIME_SLACK_NS)
        if stale and self._too_large is None:
            self._counts = None
            try:
                found = self._survey = survey(self.root_fd, self.patterns, self.limit)
            except TooLarge as exc:
                found, self._too_large = None, f"{exc}; deny the large directories"
            except OSError as exc:
                found, self._too_large = None, f"the workspace cannot be listed: {exc.strerror or exc}"
        self._judged.add(key)
        return found

    def _names(self, info: os.stat_result) -> list | None:
        """[st_nlink, names] of the file in the allowed part, counted once per survey; None when they cannot be."""
        if self._too_large is not None:
            return None
        if self._counts is None:
            try:
                self._counts = link_counts(self.root_fd, self._survey.holes, self.limit)
            except (TooLarge, OSError):
                return None
        return self._counts.get((info.st_dev, info.st_ino))


__all__ = ["CTIME_SLACK_NS", "DENIED_WALK_MIN", "MAX_WALK_ENTRIES", "Guard", "Survey", "TooLarge", "link_counts", "multiple", "survey", "unaccounted"]
