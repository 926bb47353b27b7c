"""The status line's cost: tool calls a `lackpy run` makes in the same time with its status line drawn and without.

usage: python bench/status.py [--repeat R] [--seconds S]

The program calls ``read_file`` in a loop until flag.txt stops saying go,
which this script makes happen ``--seconds`` after the command starts; it
returns how many calls it made. The same command runs with stderr on a
pseudo-terminal (the status line drawn four times a second, the run's tool
events heard), on a pseudo-terminal with ``--quiet`` (nothing drawn, no
events), and with stderr on a pipe. The three alternate, R times each;
medians, and the ratio of calls with the line to calls without. On a
shared machine the calls in a fixed time vary by a third from run to run, so
the CPU time of the command and its processes per call is shown too. Then
what the program's thread pays per call for the run's tool events to be
heard at all (the ``Recorder`` telling ``tool_events``, which passes one on
at most every 0.1 s), against a call nobody hears: the part of the cost that
does not drown in the noise.
"""

from __future__ import annotations

import argparse
import os
import pty
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

LOOP = 'n = 0\nfor i in range(10000000):\n    if read_file("flag.txt") != "go\\n":\n        break\n    n += 1\nn\n'
ARGS = ("--timeout", "120", "--limit", "max_tool_calls=10000000", "loop.py")


def calls(workspace: Path, seconds: float, how: str) -> tuple[int, int, float]:
    """(calls the program made in about ``seconds``, status lines drawn, CPU µs per call) with stderr ``how``: pty, quiet or pipe."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    (workspace / "flag.txt").write_text("go\n")
    argv = [sys.executable, "-m", "lackpy", "run", *(["-q"] if how == "quiet" else []), *ARGS]
    timer = threading.Timer(seconds, (workspace / "flag.txt").write_text, ("stop\n",))
    env = {**os.environ, "TERM": "xterm"}
    env.pop("LACKPY_QUIET", None)
    with tempfile.TemporaryFile() as out:
        if how == "pipe":
            timer.start()
            done = subprocess.run(argv, cwd=workspace, stdout=out, stderr=subprocess.PIPE, env=env, timeout=120)
            drawn = done.stderr
        else:
            primary, secondary = pty.openpty()
            timer.start()
            process = subprocess.Popen(argv, cwd=workspace, stdout=out, stderr=secondary, stdin=subprocess.DEVNULL, env=env)
            os.close(secondary)
            drawn = _read_all(primary)
            process.wait(timeout=120)
        timer.cancel()
        out.seek(0)
        made = int(out.read())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return made, drawn.count(b"tool call"), cpu / max(made, 1) * 1e6


def per_call(heard: bool, n: int = 300_000) -> float:
    """µs per call of a traced tool that returns at once, with the run's tool events heard or not."""
    from lackpy.run.scheduler import tool_events
    from lackpy.run.trace import Recorder

    events: list = []
    traced = Recorder(10**9, tool_events(events.append) if heard else None).wrap("read_file", lambda path: "x", ("path",))
    began = time.perf_counter()
    for _ in range(n):
        traced("a.txt")
    return (time.perf_counter() - began) / n * 1e6


def _read_all(fd: int) -> bytes:
    drawn = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    os.close(fd)
    return drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    options = parser.parse_args()
    rows: dict[str, list[tuple[int, int, float]]] = {"pty": [], "quiet": [], "pipe": []}
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        (workspace / "loop.py").write_text(LOOP)
        calls(workspace, 0.5, "pipe")  # the first run warms the caches
        for _ in range(options.repeat):
            for how in rows:
                row = calls(workspace, options.seconds, how)
                if row[0]:  # a start slower than the window (a busy machine) made no call: not a sample
                    rows[how].append(row)
    names = {"pty": "stderr a terminal: status line drawn", "quiet": "stderr a terminal, --quiet", "pipe": "stderr a pipe"}
    base = statistics.median(r[0] for r in rows["quiet"])
    base_cpu = statistics.median(r[2] for r in rows["quiet"])
    print(f"| `lackpy run`, {options.seconds:g} s of read_file calls | calls (median of {options.repeat}) | of --quiet's | CPU per call | of --quiet's | status lines drawn |")
    print("|---|---|---|---|---|---|")
    for how, found in rows.items():
        made, cpu = statistics.median(r[0] for r in found), statistics.median(r[2] for r in found)
        print(f"| {names[how]} | {made:,.0f} | {made / base:.3f} | {cpu:.1f} µs | {cpu / base_cpu:.3f} | {statistics.median(r[1] for r in found):.0f} |")
    plain = statistics.median(per_call(False) for _ in range(options.repeat))
    heard = statistics.median(per_call(True) for _ in range(options.repeat))
    print(f"\nper traced call on the program's thread: {plain:.2f} µs unheard, {heard:.2f} µs with its events heard (+{heard - plain:.2f} µs, "
          f"{(heard - plain) / base_cpu * 100:.1f}% of a call's CPU in the run above)")
    if os.environ.get("BENCH_ALL"):
        print({how: [(r[0], round(r[2], 1)) for r in found] for how, found in rows.items()})


if __name__ == "__main__":
    main()
