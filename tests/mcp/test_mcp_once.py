"""A served call resolves its kit once and checks its program once (the policy, the service and the run share them)."""

from __future__ import annotations

import pytest

from conftest import make_workspace
from mcp_support import run


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_served_run_resolves_its_kit_once_and_checks_its_program_once(tmp_path, monkeypatch, mode):
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.kit.resolve import ResolvedKit
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server
    from lackpy.run import compiler

    service = LackpyService(make_workspace(tmp_path / "ws"), trust=False)
    server = build_server(service, KitPolicy.build(service, allow_kits=["readonly"]), approval="none")
    resolving: list = []
    original = LackpyService.resolve_kit

    def resolve_kit(self, kit=None, extra_tools=None):
        if not isinstance(kit, ResolvedKit):
            resolving.append(kit)
        return original(self, kit, extra_tools)

    monkeypatch.setattr(LackpyService, "resolve_kit", resolve_kit)
    program = f"# {tmp_path}\nlen(find_files('**/*.md'))\n"  # a text no other test prepares

    async def main():
        async with Client(server, mode=mode) as client:
            before = compiler._prepare_cached.cache_info()
            result = await client.call_tool("run_program", {"program": program, "kit": "readonly"})
            return result, before, compiler._prepare_cached.cache_info()

    try:
        result, before, after = run(main())
    finally:
        service.close()
    assert result.structured_content["success"], result.structured_content
    assert resolving == ["readonly"]  # by the server's policy; the service and the run use what it resolved
    assert after.misses - before.misses == 1  # checked once; the run's own check is a hit in the cache
