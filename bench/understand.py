"""How long delegate takes to understand and answer an everyday question offline, beside plain Python answering it.

usage: python bench/understand.py [--repeat N]

For each everyday set of ``tests/infer/understand/*_questions.py`` (the
questions written blind, each with its answer computed by plain Python),
on the fixture the set was written for (``bench/workloads/make_workspace.py``
or ``make_project.py``, generated afresh in a temporary directory):

- **delegate, served**: the median time of ``LackpyService.delegate(q,
  kit="readonly", mode="inprocess")`` over the questions the rules tier
  serves: understanding the question, building its program, validating it
  and running it;
- **delegate, refused**: the same over the questions it refuses, which
  includes finding the three nearest questions it understands;
- **plain Python**: the set's own ``questions(root)`` (which reads every file
  and computes every answer with the standard library) divided by the number
  of questions: the floor, a program written by hand for each question;
- **ratio**: delegate served over plain Python.

The sets are read as data; nothing here judges the answers (the tests do).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETS = REPO / "tests" / "infer" / "understand"
#: The fixture each set was written for: the benchmark workspace unless the set says it is about the project fixture.
PROJECT_SETS = ("third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth",
                "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth")


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture(kind: str, into: Path) -> Path:
    root = into / kind
    root.mkdir()
    script = REPO / "bench" / "workloads" / ("make_project.py" if kind == "project" else "make_workspace.py")
    subprocess.run([sys.executable, str(script), str(root), *([] if kind == "project" else ["200"])], check=True, capture_output=True)
    return root


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(path: Path, root: Path, repeat: int) -> tuple[int, int, float | None, float | None, float]:
    from lackpy import LackpyService

    module = load(path)
    floor = median_ms(lambda: module.questions(str(root)), max(3, repeat // 3))
    asked, _alternatives = module.questions(str(root))
    svc = LackpyService(root, trust=False)
    loop = asyncio.new_event_loop()
    served, refused = [], []

    def ask(text: str):
        return loop.run_until_complete(svc.delegate(text, kit="readonly", mode="inprocess"))

    for _kind, _type, text, _expected in asked:
        try:
            ask(text)
        except Exception:  # refused by every tier: timed as a refusal
            refused.append(median_ms(lambda: _quietly(ask, text), repeat))
        else:
            served.append(median_ms(lambda: ask(text), repeat))
    loop.close()
    per_question = floor / len(asked)
    return (len(served), len(refused), statistics.median(served) if served else None,
            statistics.median(refused) if refused else None, per_question)


def _quietly(ask, text: str) -> None:
    try:
        ask(text)
    except Exception:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"workspace": fixture("workspace", Path(tmp)), "project": fixture("project", Path(tmp))}
        print("| set | fixture | served | refused | delegate, served (median) | delegate, refused (median) | plain Python per question | served / plain |")
        print("|---|---|---|---|---|---|---|---|")
        for path in sorted(SETS.glob("*_questions.py")):
            if path.stem in ("blind_questions",):
                continue
            kind = "project" if path.stem.split("_")[0] in PROJECT_SETS else "workspace"
            n_served, n_refused, served, refused, floor = measure(path, roots[kind], args.repeat)
            ratio = f"{served / floor:.1f}x" if served else "-"
            print(f"| {path.stem} | {kind} | {n_served} | {n_refused} | {served or 0:.2f} ms | {refused or 0:.2f} ms | {floor:.2f} ms | {ratio} |")


if __name__ == "__main__":
    main()
