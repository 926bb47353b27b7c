"""Placement: a call-heavy run's worker is kept off the CPU of the thread serving it; a short run is left alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lackpy import Toolbox, resolve_kit, run_program
from lackpy.plugins import populate
from lackpy.run import isolated


@pytest.fixture
def kit(workspace: Path):
    box = Toolbox(str(workspace))
    populate(box)
    return resolve_kit("readonly", box)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs and CPU affinity")
def test_a_call_heavy_run_keeps_its_worker_off_the_serving_threads_cpu(kit, monkeypatch):
    """After APART_AFTER_CALLS calls the worker may run anywhere but on the CPU of the thread serving it; a short run is left alone."""
    seen: list[tuple[int, set[int], int]] = []
    real = isolated.apart

    def watched(pid: int, widen: bool = False) -> None:
        real(pid, widen)
        cpu = int(Path("/proc/thread-self/stat").read_bytes().rpartition(b")")[2].split()[36])
        seen.append((pid, os.sched_getaffinity(pid), cpu))

    monkeypatch.setattr(isolated, "apart", watched)
    assert run_program("n = 0\nfor i in range(3):\n    n += len(list_dir('src'))\nn", kit, mode="isolated").output == 6  # two entries in src/, three times
    assert seen == []
    many = isolated.APART_AFTER_CALLS + 4
    assert run_program(f"n = 0\nfor i in range({many}):\n    n += len(list_dir('src'))\nn", kit, mode="isolated").output == 2 * many
    [(pid, allowed, cpu)] = seen
    assert allowed == os.sched_getaffinity(0) - {cpu} and pid > 0
