"""What skills cost a service, beside plain CPython doing the same reading: listing, trust followed, a page of SEP-2640 entries.

usage: python bench/skills.py [--repeat N] [--skills N]

One process, in alternation, median of ``--repeat`` samples each, over a
generated workspace with ``--skills`` skills in ``.lackpy/skills`` (each a
SKILL.md with lackpy's keys, two programs, an asset and a reference),
trusted for this service (``trust=True``), and lackpy's own ``todo-report``.

Rows and their floors:

list     ``svc.skills()``: every skill found, read through descriptors beneath
         the workspace, judged by deny, its kit resolved and its programs'
         grades checked. Floor: ``open`` + ``yaml.safe_load`` of each
         SKILL.md's front matter (what any skill host must do to list).
follow   ``svc.resolve_kit("readonly")`` in the trusted workspace, cached:
         what every request pays to follow trust, one ``stat`` per file trust
         covers (the skills' files now among them). Floor: ``os.stat`` of the
         same paths.
page     ``Shelf.page()``: one page of ``skills/list`` entries as ``lackpy
         serve`` sends them (every file read and hashed, front matter parsed,
         each entry checked). Floor: the ``list`` floor, and ``read`` +
         ``hashlib.sha256`` of every file of the skills.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lackpy import LackpyService  # noqa: E402

SKILL = """---
name: {name}
description: Reports what skill {name} finds in a folder. Use it before a review.
tools: [grep, read_file]
intents:
  - report {name} for {{folder}}
arguments:
  - name: folder
    description: where to look
---
# {name}

Grep the folder, then read what it found.
"""
PROGRAM = 'hits = grep("TODO", (folder or ".") + "/**/*")\n[h["path"] for h in hits] + [skill_file("assets/tag.txt")]\n'


def make_workspace(root: Path, skills: int) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("# TODO: one\n")
    for index in range(skills):
        folder = root / ".lackpy" / "skills" / f"skill-{index}"
        for sub in ("programs", "assets", "references"):
            (folder / sub).mkdir(parents=True)
        (folder / "SKILL.md").write_text(SKILL.format(name=f"skill-{index}"))
        (folder / "programs" / "main.py").write_text(PROGRAM)
        (folder / "programs" / "count.py").write_text('len(grep("TODO", "**/*"))\n')
        (folder / "assets" / "tag.txt").write_text("tagged\n")
        (folder / "references" / "guide.md").write_text("# Guide\n\nHow to read the report.\n")


def timed(work, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=101)
    parser.add_argument("--skills", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        make_workspace(root, args.skills)
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        svc = LackpyService(root, trust=True)
        from lackpy.mcp.policy import KitPolicy
        from lackpy.mcp.skill_shelf import Shelf
        from lackpy.mcp.skills import SkillPolicy

        shelf = Shelf(svc, SkillPolicy.build(svc, KitPolicy.build(svc)))
        svc.skills(), svc.resolve_kit("readonly"), shelf.page()
        skill_md = sorted((root / ".lackpy" / "skills").glob("*/SKILL.md"))
        every = sorted(p for p in (root / ".lackpy" / "skills").rglob("*") if p.is_file())
        covered = [str(p) for p in (root / ".lackpy").rglob("*")]

        def floor_list() -> None:
            for path in skill_md:
                yaml.safe_load(path.read_text().split("---\n")[1])

        def floor_follow() -> None:
            for path in covered:
                os.stat(path)

        def floor_page() -> None:
            floor_list()
            for path in every:
                hashlib.sha256(path.read_bytes()).hexdigest()

        rows = [
            ("list", lambda: svc.skills(), floor_list),
            ("follow", lambda: svc.resolve_kit("readonly"), floor_follow),
            ("page", lambda: shelf.page(), floor_page),
        ]
        print(f"| skills ({args.skills} in the workspace, {len(every)} files; median of {args.repeat}) | lackpy | floor | ratio |")
        print("|---|---|---|---|")
        for name, work, floor in rows:
            ours, base = [], []
            for _ in range(5):  # alternate, so machine noise falls on both alike
                ours.append(timed(work, args.repeat // 5 or 1))
                base.append(timed(floor, args.repeat // 5 or 1))
            a, b = statistics.median(ours), statistics.median(base)
            print(f"| {name} | {a * 1e3:.2f} ms | {b * 1e3:.3f} ms | {a / b:.1f}x |")
        svc.close()


if __name__ == "__main__":
    main()
