"""The OS sandbox takes files, sockets, exec and other processes away from a child.

Every confinement runs in a fresh subprocess, never in the test runner: the
child script does its setup, confines itself, then asserts what still works
and what is refused, and prints ``PASS``. Canaries live in ``tmp_path``; the
only network address used is 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lackpy import LackpyError
from lackpy.run import sandbox
from lackpy.run.sandbox import SandboxUnavailable, landlock_abi, seccomp_available, status

ABI = landlock_abi()
SECCOMP, SECCOMP_REASON = seccomp_available()

needs_landlock = pytest.mark.skipif(ABI == 0, reason="kernel has no Landlock (ABI 0)")
needs_seccomp = pytest.mark.skipif(not SECCOMP, reason=SECCOMP_REASON or "seccomp unavailable")

# Imported by every child before it confines itself: nothing can be imported after.
PRELUDE = """\
import errno, json, os, signal, socket, subprocess, sys, threading, time
from pathlib import Path
from lackpy.run import sandbox
tmp = Path(sys.argv[1])
canary = tmp / "canary.txt"

def refused(fn, *args, exc=OSError, code=None):
    try:
        fn(*args)
    except exc as e:
        assert code is None or getattr(e, "errno", None) == code, (fn, e)
        return
    raise AssertionError(f"{fn!r}{args!r} was not refused")
"""


def run_child(tmp_path: Path, body: str) -> str:
    """Run PRELUDE + ``body`` in a new interpreter; assert it printed PASS; return stdout."""
    code = PRELUDE + textwrap.dedent(body) + "\nprint('PASS')\n"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0 and "PASS" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text("CANARY-SECRET\n")
    return path


# --- Landlock ---------------------------------------------------------------


@needs_landlock
def test_landlock_denies_paths(tmp_path, canary):
    run_child(tmp_path, """
        sandbox.deny_filesystem()
        refused(open, canary, exc=PermissionError)                 # read
        refused(open, canary, "a", exc=PermissionError)            # append
        refused(open, tmp / "new.txt", "w", exc=PermissionError)   # create
        refused(os.listdir, tmp, exc=PermissionError)              # list
        refused(os.mkdir, tmp / "d", exc=PermissionError)
        refused(os.unlink, canary, exc=PermissionError)
        refused(os.rename, canary, tmp / "moved.txt", exc=PermissionError)
        refused(os.symlink, canary, tmp / "link", exc=PermissionError)
        refused(open, "/proc/self/status", exc=PermissionError)     # reopening via /proc too
    """)
    assert canary.read_text() == "CANARY-SECRET\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["canary.txt"]


@needs_landlock
def test_landlock_keeps_fds_opened_before_and_computation(tmp_path, canary):
    run_child(tmp_path, """
        r, w = os.pipe()
        a, b = socket.socketpair()
        before = open(canary)
        sandbox.deny_filesystem()
        os.write(w, b"pipe"); assert os.read(r, 4) == b"pipe"
        a.sendall(b"ping"); assert b.recv(4) == b"ping"
        b.sendall(b"pong"); assert a.recv(4) == b"pong"
        assert before.read() == "CANARY-SECRET\\n"
        assert sum(range(10**6)) == 499999500000
        assert len("".join(str(i) for i in range(10**5))) == 488890
        assert sorted({i % 7: i for i in range(100)}) == list(range(7))
        try:
            bytearray(1 << 60)
        except MemoryError:
            pass
        else:
            raise AssertionError("no MemoryError")
        assert [x * 2 for x in range(3)] == [0, 2, 4]
    """)


@needs_landlock
def test_landlock_runtime_needs_everything_imported_first(tmp_path):
    # A caveat for the worker, pinned: imports after confinement fail.
    run_child(tmp_path, """
        sandbox.deny_filesystem()
        try:
            import colorsys  # noqa: F401  (stdlib, not imported by the prelude)
        except (ImportError, OSError):
            pass
        else:
            raise AssertionError("import after confinement worked")
    """)


@needs_landlock
@pytest.mark.skipif(ABI < 4, reason="Landlock ABI < 4 has no network rights")
def test_landlock_denies_tcp_bind_and_connect(tmp_path):
    run_child(tmp_path, """
        server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
        port = server.getsockname()[1]
        sandbox.deny_filesystem()
        refused(socket.socket().connect, ("127.0.0.1", port), exc=PermissionError)
        refused(socket.socket().bind, ("127.0.0.1", 0), exc=PermissionError)
    """)


@needs_landlock
@pytest.mark.skipif(ABI < 6, reason="Landlock ABI < 6 has no signal scoping")
def test_landlock_scopes_signals_to_the_sandbox(tmp_path):
    run_child(tmp_path, """
        sandbox.deny_filesystem()
        os.kill(os.getpid(), 0)                                  # itself: allowed
        refused(os.kill, os.getppid(), 0, exc=PermissionError)   # the test runner: not
    """)


def test_deny_filesystem_without_landlock_raises(tmp_path):
    run_child(tmp_path, """
        sandbox.landlock_abi = lambda: 0
        try:
            sandbox.deny_filesystem()
        except sandbox.SandboxUnavailable as e:
            assert e.kind == "sandbox" and "Landlock" in str(e) and "\\n" not in str(e)
        else:
            raise AssertionError("no SandboxUnavailable")
        os.listdir(tmp)   # nothing was applied
    """)


def test_landlock_abi_is_zero_on_unknown_machines(monkeypatch):
    monkeypatch.setattr(sandbox.platform, "machine", lambda: "pdp11")
    assert landlock_abi() == 0


# --- seccomp ----------------------------------------------------------------


@needs_seccomp
def test_seccomp_denies_sockets_processes_and_signals(tmp_path, canary):
    run_child(tmp_path, """
        import resource
        sandbox.deny_syscalls()
        refused(socket.socket, exc=PermissionError, code=errno.EPERM)
        refused(socket.socketpair, exc=PermissionError, code=errno.EPERM)
        refused(os.fork, code=errno.EPERM)
        refused(subprocess.run, ["true"])
        refused(os.kill, os.getpid(), 0, code=errno.EPERM)
        refused(os.kill, os.getppid(), 0, code=errno.EPERM)
        refused(threading.Thread(target=print).start, exc=RuntimeError)
        refused(resource.prlimit, os.getppid(), resource.RLIMIT_NOFILE, code=errno.EPERM)
        resource.getrlimit(resource.RLIMIT_NOFILE)   # its own limits: allowed
        assert canary.read_text() == "CANARY-SECRET\\n"   # files are Landlock's job
    """)


@needs_seccomp
def test_seccomp_keeps_existing_socket_and_sigalrm(tmp_path):
    run_child(tmp_path, """
        a, b = socket.socketpair()
        sandbox.deny_syscalls()
        a.sendall(b"ping"); assert b.recv(4) == b"ping"
        a.sendmsg([b"msg"]); assert b.recvmsg(3)[0] == b"msg"

        class Alarm(Exception):
            pass

        def on_alarm(signum, frame):
            raise Alarm

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        deadline = time.monotonic() + 10
        try:
            while time.monotonic() < deadline:
                sum(range(1000))
        except Alarm:
            pass
        else:
            raise AssertionError("SIGALRM did not fire")
        time.sleep(0.01)
        assert os.getpid() > 0
    """)


def test_deny_syscalls_without_pyseccomp_raises(tmp_path):
    run_child(tmp_path, """
        sys.modules["pyseccomp"] = None   # makes `import pyseccomp` fail
        assert sandbox.seccomp_available() == (False, "pip install 'lackpy[sandbox]'")
        try:
            sandbox.deny_syscalls()
        except sandbox.SandboxUnavailable as e:
            assert "lackpy[sandbox]" in str(e)
        else:
            raise AssertionError("no SandboxUnavailable")
        socket.socket().close()   # nothing was applied
    """)


# --- confine() and status() ---------------------------------------------------


def test_confine_applies_what_status_reports(tmp_path):
    out = run_child(tmp_path, """
        before = sandbox.status()
        print(json.dumps({"status": before, "applied": sandbox.confine()}))
    """)
    report = json.loads(out.splitlines()[0])
    expected = ["landlock"] * (report["status"]["landlock"] > 0)
    expected += ["seccomp"] if report["status"]["seccomp"] else ["sockets"]
    assert report["applied"] == expected


@needs_landlock
@needs_seccomp
def test_confine_both_layers(tmp_path, canary):
    run_child(tmp_path, """
        a, b = socket.socketpair()
        assert sandbox.confine() == ["landlock", "seccomp"]
        refused(open, canary, exc=PermissionError)
        refused(socket.socket, exc=PermissionError)
        refused(os.fork)
        a.sendall(b"ok"); assert b.recv(2) == b"ok"
    """)


def test_confine_nothing_requested_applies_nothing(tmp_path, canary):
    run_child(tmp_path, """
        assert sandbox.confine(filesystem=False, syscalls=False) == []
        assert canary.read_text() == "CANARY-SECRET\\n"
        socket.socket().close()
        os.kill(os.getpid(), 0)
    """)


def test_without_pyseccomp_the_socket_filter_still_refuses_network_sockets(tmp_path, canary):
    """Landlock alone leaves UDP, raw sockets and TCP Fast Open; the library-free filter of shell commands closes them."""
    run_child(tmp_path, """
        a, b = socket.socketpair()
        sandbox.landlock_abi = lambda: 0
        sandbox.seccomp_available = lambda: (False, "libseccomp not found")
        assert sandbox.confine() == ["sockets"]
        assert canary.read_text() == "CANARY-SECRET\\n"   # no Landlock: files stay as they were
        refused(socket.socket, socket.AF_INET, socket.SOCK_DGRAM, exc=PermissionError)
        refused(socket.socket, socket.AF_INET6, socket.SOCK_STREAM, exc=PermissionError)
        socket.socket(socket.AF_UNIX).close()
        a.sendall(b"ok"); assert b.recv(2) == b"ok"
        os.kill(os.getpid(), 0)
    """)


@needs_seccomp
def test_confine_only_syscalls(tmp_path, canary):
    run_child(tmp_path, """
        assert sandbox.confine(filesystem=False) == ["seccomp"]
        assert canary.read_text() == "CANARY-SECRET\\n"
        refused(socket.socket, exc=PermissionError)
    """)


@needs_landlock
def test_confine_raises_when_an_available_layer_fails(tmp_path):
    run_child(tmp_path, """
        sandbox._ruleset_attr = lambda abi: (sandbox._RulesetAttr(1 << 63, 0, 0), 8)
        try:
            sandbox.confine(syscalls=False)
        except OSError as e:
            assert "landlock_create_ruleset" in str(e), e
        else:
            raise AssertionError("a failing layer was skipped silently")
    """)


def test_status_shape():
    report = status()
    assert set(report) == {"landlock", "seccomp", "seccomp_reason"}
    assert isinstance(report["landlock"], int) and report["landlock"] >= 0
    assert isinstance(report["seccomp"], bool)
    assert isinstance(report["seccomp_reason"], str)
    assert (report["seccomp_reason"] == "") == report["seccomp"]


def test_sandbox_unavailable_is_a_lackpy_error():
    assert issubclass(SandboxUnavailable, LackpyError)
    assert SandboxUnavailable.kind == "sandbox"
