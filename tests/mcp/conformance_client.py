"""lackpy as the client under test of the MCP conformance suite: ``python conformance_client.py SERVER_URL``.

The suite starts a server for one of its client scenarios and runs this with
the server's URL. lackpy reaches it the way it reaches any server a workspace
names (``[mcp.servers.suite] url = ...``), and calls each of the server's
tools once, each in a program of its own, through ``LackpyService``: a
required argument gets a plain value of its type. A question the server asks
(elicitation) is accepted with nothing filled in, so the server receives only
what lackpy fills in by itself: the form's defaults (SEP-1034); a required
field without a default gets a plain value. Where a scenario says what its
client does, this does that: the calls the suite passes in
``MCP_CONFORMANCE_CONTEXT`` (``toolCalls``), or only listing the tools
(LIST_ONLY). Exit status 0 when every call ran.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

PLAIN = {"number": 2, "integer": 2, "string": "x", "boolean": True, "array": [], "object": {}}
#: Scenarios whose client only lists the server's tools (their server answers nothing else).
LIST_ONLY = {"json-schema-ref-no-deref"}


def answer(form: dict) -> dict:
    """A form accepted as shown: a plain value for each required field without a default, nothing else (defaults: lackpy's)."""
    properties, required = form.get("properties", {}), form.get("required", [])
    return {name: PLAIN.get(spec.get("type"), "x") for name, spec in properties.items() if name in required and "default" not in spec}


def call(name: str, spec) -> str:
    """``name(arg=value, ...)`` with a plain value for each required argument of ``spec``."""
    values = []
    for arg in spec.args:
        if arg.required:
            kind = arg.json_schema().get("type")
            values.append(f"{arg.name}={PLAIN.get(kind if isinstance(kind, str) else 'string', 'x')!r}")
    return f"{name}({', '.join(values)})"


async def main(url: str) -> int:
    from lackpy import LackpyService
    from lackpy.approvals.decision import Decision

    async def approve(request):
        if request.gate == "elicit":
            return Decision(True, "callback", "accepted as shown", content=answer(request.form or {}))
        return True

    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")

    with tempfile.TemporaryDirectory(prefix="lackpy-conformance-") as tmp:
        root = Path(tmp)
        (root / ".lackpy").mkdir()
        (root / ".lackpy" / "config.toml").write_text(f"[mcp.servers.suite]\nurl = {json.dumps(url)}\ngrade = [1, 1]\n")
        async with LackpyService(root, trust=True, approve=approve) as service:
            tools = {spec.name: spec for spec in service.toolbox.list_tools() if spec.name.startswith("suite__")}
            if not tools:  # connected (a server that failed to connect is a notice) and nothing to call
                failed = [notice for notice in service.notices if "suite" in notice]
                print(json.dumps({"tools": 0, "notices": failed}))
                return 1 if failed else 0
            if scenario in LIST_ONLY:
                print(json.dumps({"tools": sorted(tools)}))
                return 0
            given = context.get("toolCalls") if isinstance(context, dict) else None
            if given:
                programs = [f"suite__{c['name']}(" + ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items()) + ")" for c in given]
            else:
                programs = [call(name, spec) for name, spec in sorted(tools.items())]
            failed = 0
            for program in programs:  # one run per call: a call that fails does not keep the others from the server
                result = await service.run_program(program, kit=sorted(tools))
                print(json.dumps({"program": program, "success": result.success, "error": result.error}))
                failed += not result.success
            return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
