"""A kit file read as data only, to be shown while it is not in force (a kit an untrusted workspace wrote).

Nothing of the kit runs or loads: the file is parsed (``read_kit``), and each
tool it names is looked up among the tools registered now
(``Toolbox.registered``: no MCP server is started, no provider resolves
anything, no module is imported). A name that is none of them is shown as
such: it may be a tool the workspace's own config would add once trusted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from lackpy.kit.kitfile import read_kit
from lackpy.kit.spec import ToolSpec
from lackpy.kit.toolbox import Toolbox
from lackpy.lang.grade import compute_grade

#: What a tool row says of a name no registered tool has.
UNKNOWN = "no tool of this name is registered here (it may come from a config this workspace may not use yet)"


def preview(path: Path, toolbox: Toolbox, approval: Callable[[ToolSpec], str], ignored: str) -> dict:
    """The kit file at ``path`` as ``kit info`` shows a kit, with ``ignored`` saying why it is not in force.

    Its grade is that of the tools it names that are registered (what it
    would reach); ``unknown`` lists the names that are not.
    """
    parsed = read_kit(path)
    specs = {spec.name: spec for spec in toolbox.registered()}
    known = {name: specs[name] for name in parsed.tools if name in specs}
    rows = [known[name].row(approval(known[name])) if name in known else _unknown(name) for name in parsed.tools]
    return {
        "name": parsed.name,
        "description": parsed.description,
        "source": "workspace",
        "path": str(path),
        "grade": compute_grade({n: {"grade_w": s.grade_w, "effects_ceiling": s.effects_ceiling} for n, s in known.items()}).to_dict(),
        "tools": rows,
        "docs": [parsed.docs] if parsed.docs else [],
        "extra": dict(parsed.extra),
        "ignored": ignored,
        "unknown": [name for name in parsed.tools if name not in known],
    }


def _unknown(name: str) -> dict:
    return {"name": name, "signature": name, "description": UNKNOWN, "provider": None, "grade": None, "category": None, "approval": None, "docs": None}


__all__ = ["UNKNOWN", "preview"]
