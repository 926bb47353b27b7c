"""The local shell backend: the only code in lackpy's tools that starts or signals processes.

Every command runs as ``/bin/sh -c command`` in a new session (so in its own
process group), with stdin from /dev/null, in a directory the workspace path
policy allowed. Output is read incrementally and kept within a fixed size per
stream, so a command that prints gigabytes costs no memory. A command's whole
process group is killed when it times out, and also when its shell exits; the
group leader is not reaped until its group has been killed, so the group id
cannot have been reused by an unrelated process when the signal is sent.
"""

from __future__ import annotations

import codecs
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import Any

# After a kill, how long output still in the pipes is drained before giving up
# on processes that left the group (setsid) and keep the pipes open.
DRAIN_GRACE_S = 1.0
_CHUNK = 64 * 1024
_TICK_S = 0.05


def _notice(dropped: int) -> str:
    return f"\n[... {dropped} bytes dropped ...]\n"


# --------------------------------------------------------------------------- the seam


class _HeadTail:
    """The first half and the last half of a stream, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.head_limit = self.limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        keep = self.limit - self.head_limit
        if len(chunk) >= keep:
            self.dropped += len(self.tail) + len(chunk) - keep
            self.tail = bytearray(chunk[len(chunk) - keep:]) if keep else bytearray()
            return
        self.tail += chunk
        excess = len(self.tail) - keep
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        if not self.dropped:
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        return (
            bytes(self.head).decode("utf-8", errors="replace")
            + _notice(self.dropped)
            + bytes(self.tail).decode("utf-8", errors="replace")
        )


class _Unread:
    """Output not yet read, at most ``limit`` bytes: the oldest is dropped first, and counted."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.data = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, chunk: bytes) -> None:
        with self.lock:
            self.data += chunk
            excess = len(self.data) - self.limit
            if excess > 0:
                del self.data[:excess]
                self.dropped += excess

    def take(self, final: bool = False) -> str:
        with self.lock:
            data, dropped = bytes(self.data), self.dropped
            self.data.clear()
            self.dropped = 0
            if dropped:
                self.decoder.reset()  # a character split before the gap cannot be completed
            text = self.decoder.decode(data, final=final)
        return _notice(dropped) + text if dropped else text


def _leader_exited(popen: subprocess.Popen) -> bool:
    """Whether the shell has exited, without reaping it (its pid keeps the group id reserved)."""
    if popen.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # already reaped elsewhere
            pass
    return popen.poll() is not None


def _kill_group(popen: subprocess.Popen) -> None:
    """SIGKILL the command's process group (leader included), then reap the leader."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    popen.wait()


def _popen(command: str, cwd: str) -> subprocess.Popen:
    return subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        start_new_session=True,
        close_fds=True,
    )


class Process:
    """A background command: bounded output buffers filled by reader threads."""

    def __init__(self, popen: subprocess.Popen, command: str, cwd: str, max_buffer_bytes: int) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.command = command
        self.cwd = cwd
        self.stdout = _Unread(max_buffer_bytes)
        self.stderr = _Unread(max_buffer_bytes)
        self.code: int | None = None
        self.finished = False
        self._lock = threading.Lock()
        self._readers = [
            threading.Thread(target=self._read, args=(popen.stdout, self.stdout), name=f"lackpy-out-{self.pid}", daemon=True),
            threading.Thread(target=self._read, args=(popen.stderr, self.stderr), name=f"lackpy-err-{self.pid}", daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(pipe: Any, buffer: _Unread) -> None:
        try:
            while True:
                chunk = pipe.read(_CHUNK)
                if not chunk:
                    break
                buffer.add(chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    def _finish(self) -> None:
        _kill_group(self.popen)  # leftovers of an exited shell too
        self.code = self.popen.returncode
        self.finished = True
        deadline = time.monotonic() + DRAIN_GRACE_S
        for reader in self._readers:
            reader.join(max(0.0, deadline - time.monotonic()))

    def poll(self) -> int | None:
        """The exit code once the command has finished (its group is then killed), else None."""
        with self._lock:
            if not self.finished and _leader_exited(self.popen):
                self._finish()
            return self.code

    @property
    def running(self) -> bool:
        return self.poll() is None

    def read_new(self) -> tuple[str, str]:
        """(stdout, stderr) produced since the previous read."""
        final = self.finished and not any(reader.is_alive() for reader in self._readers)
        return self.stdout.take(final), self.stderr.take(final)

    def kill(self) -> int | None:
        """Kill the whole process group and reap it; nothing happens if it already finished."""
        with self._lock:
            if not self.finished:
                self._finish()
            return self.code


class LocalShell:
    """Runs commands with /bin/sh on this machine."""

    def run(self, command: str, cwd: str, timeout_s: float, max_output_bytes: int) -> dict:
        popen = _popen(command, cwd)
        out, err = _HeadTail(max_output_bytes), _HeadTail(max_output_bytes)
        sinks = {popen.stdout: out, popen.stderr: err}
        selector = selectors.DefaultSelector()
        for pipe in sinks:
            selector.register(pipe, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        timed_out = killed = False
        nap = 0.001
        try:
            while True:
                now = time.monotonic()
                if not killed:
                    timed_out = now >= deadline
                    if timed_out or _leader_exited(popen):
                        _kill_group(popen)  # on timeout, and leftovers of an exited shell
                        killed = True
                        deadline = time.monotonic() + DRAIN_GRACE_S
                        continue
                elif now >= deadline or not selector.get_map():
                    break  # drained, or a process that left the group still holds the pipes
                wait = max(0.0, min(_TICK_S, deadline - now))
                if not selector.get_map():  # both pipes closed; the shell is about to exit
                    time.sleep(min(nap, wait))
                    nap = min(nap * 2, _TICK_S)
                    continue
                for key, _ in selector.select(wait):
                    chunk = os.read(key.fd, _CHUNK)
                    if chunk:
                        sinks[key.fileobj].add(chunk)
                    else:
                        selector.unregister(key.fileobj)
        finally:
            selector.close()
            for pipe in sinks:
                pipe.close()
            if not killed:  # an exception escaped the loop: leave nothing running
                _kill_group(popen)
        return {
            "code": None if timed_out else popen.returncode,
            "stdout": out.text(),
            "stderr": err.text(),
            "timed_out": timed_out,
        }

    def spawn(self, command: str, cwd: str, max_buffer_bytes: int) -> Process:
        return Process(_popen(command, cwd), command, cwd, max_buffer_bytes)


DEFAULT_SHELL = LocalShell()


