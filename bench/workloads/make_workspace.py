"""The benchmark and test fixture: a deterministic workspace of Python modules and a README.

usage: python bench/workloads/make_workspace.py DIR [N]     (N modules, default 200)

``N`` modules ``src/pkgK/modI.py`` (K = I mod 10), each a docstring and 3 to
12 small functions named from a ten-word list, about three in ten of them
with a ``# TODO`` line, drawn from ``random.Random(42)`` in a fixed order so
that every run writes the same bytes; and ``README.md`` with ``Status:
draft``. With 200 modules, program 02 counts 444 TODOs. Tests
(``tests/infer/understand``) and benchmarks (``bench/run.py`` and others)
generate it afresh in a temporary directory.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

WORDS = ("alpha", "beta", "gamma", "delta", "user", "order", "cache", "retry", "parse", "render")
#: The seed every fixture is drawn from.
SEED = 42
#: The share of functions that get a TODO line.
TODO_SHARE = 0.3


def module(index: int, rng: random.Random) -> str:
    """The text of module ``index``; draws from ``rng`` in the order the fixture has always used."""
    lines = [f'"""Module {index}."""', ""]
    for number in range(rng.randint(3, 12)):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{number}"
        lines.append(f"def {name}(x):")
        if rng.random() < TODO_SHARE:
            lines.append("    # TODO: handle the empty case")
        lines += [f"    return x * {number}  # {rng.choice(WORDS)}", ""]
    return "\n".join(lines)


def make(root: Path, count: int = 200) -> Path:
    """Write the fixture of ``count`` modules beneath ``root``; ``root``."""
    rng = random.Random(SEED)
    for index in range(count):
        package = root / "src" / f"pkg{index % 10}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{index}.py").write_text(module(index, rng))
    (root / "README.md").write_text("# Fixture\n\nStatus: draft\n")
    return root


if __name__ == "__main__":
    make(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 200)
    print(f"wrote {int(sys.argv[2]) if len(sys.argv) > 2 else 200} files under {sys.argv[1]}")
