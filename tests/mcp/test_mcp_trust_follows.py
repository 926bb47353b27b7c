"""`lackpy serve` keeps trusting only the files it was trusted with: a change while it runs loses trust at the next call.

Through the MCP SDK's own client over stdio, against `lackpy serve --trust`:
the test changes .lackpy/config.toml while the server runs, and the next
run_program already runs as in an untrusted workspace, with the notice.
"""

from __future__ import annotations

import sys

from mcp import Client, StdioServerParameters

from mcp_support import run


def test_a_changed_config_loses_trust_at_the_next_call(tmp_path, server_env):
    repo = tmp_path / "repo"
    (repo / ".lackpy").mkdir(parents=True)
    config = repo / ".lackpy" / "config.toml"
    config.write_text('mode = "inprocess"\n')
    params = StdioServerParameters(command=sys.executable, args=["-m", "lackpy", "serve", "--trust", "-w", str(repo)], env=server_env)

    async def session() -> tuple[dict, dict, dict]:
        async with Client(params) as client:
            before = await client.call_tool("run_program", {"program": "1", "kit": "readonly"})
            config.write_text('mode = "inprocess"\nsandbox = false\n')
            after = await client.call_tool("run_program", {"program": "2", "kit": "readonly"})
            again = await client.call_tool("run_program", {"program": "3", "kit": "readonly"})
            return before.structured_content, after.structured_content, again.structured_content

    before, after, again = run(session())
    assert (before["output"], before["mode"]) == (1, "inprocess")
    assert (after["output"], after["mode"]) == (2, "isolated")  # the untrusted config: no in-process runs
    changed = [n for n in after["notices"] if "changed since you trusted it; lackpy now treats it as untrusted" in n]
    assert len(changed) == 1 and f"lackpy trust {repo.resolve()}" in changed[0]
    assert again["mode"] == "isolated" and again["notices"].count(changed[0]) == 1
