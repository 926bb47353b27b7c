"""A repository someone else wrote whose kit files name workspace files as their docs (the CLI and serve tests plant it)."""

from __future__ import annotations

from pathlib import Path

CANARY = "CANARY-SECRET"


def plant(root: Path) -> Path:
    """``root`` as the repository: a secret at its top; read-only kit x whose ``docs:`` names it; kit y above
    read-only with a doc beside it; team (a doc beside it) and old (``docs/kits/old.md``), whose docs belong to them.
    Returns its ``.lackpy/kits``."""
    kits = root / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (root / "secrets.txt").write_text(f"{CANARY} token\n")
    (kits / "x.kit").write_text("---\nname: x\ndocs: secrets.txt\n---\nread_file\n")
    (kits / "y.kit").write_text("---\nname: y\ndocs: y.md\n---\nwrite_file\n")
    (kits / "y.md").write_text("# y: writes notes\n")
    (kits / "team.kit").write_text("---\nname: team\ndocs: team.md\n---\nread_file\n")
    (kits / "team.md").write_text("# team: reads notes\n")
    (kits / "old.kit").write_text("---\nname: old\ndocs: docs/kits/old.md\n---\ngrep\n")
    (root / "docs" / "kits").mkdir(parents=True)
    (root / "docs" / "kits" / "old.md").write_text("# old: greps\n")
    return kits
