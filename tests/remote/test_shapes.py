"""Learned result shapes with a real server (servers.py inventory over stdio): recorded, merged, shown, checked, kept and forgotten."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.remote.test_remote_servers import server_table, serving, workspace_with

pytest.importorskip("mcp")

KIT = "inventory__find_items,inventory__get_item,inventory__list_orders,inventory__customer,inventory__hostile,inventory__stock_of"
FIND_ITEMS = (
    '{"items": list[{"sku": str, "name": str, "category": str, "price": float, "stock": int, "tags": list[str], '
    '"supplier": {"name": str, "country": str}}], "count": int}'
)


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    """The inventory server's own settings (version, variant, ttl_ms), read each time it starts; lackpy's config stays the same."""
    path = tmp_path / "inventory.json"
    path.write_text("{}")
    return path


@pytest.fixture
def root(tmp_path: Path, settings_file: Path) -> Path:
    table = server_table("inventory", "inventory", grade="[0, 0]", env=f"{{ INVENTORY_SETTINGS = {json.dumps(str(settings_file))} }}")
    return workspace_with(tmp_path / "ws", table)


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, kit=KIT, **options))


def returns(svc, tool: str) -> str:
    return svc.toolbox.get(tool).returns


def test_a_shape_is_recorded_after_a_call_and_shown_as_learned(root):
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items") == "Any"
        result = run(svc, 'inventory__find_items(category="lighting")["count"]')
        assert result.success and result.output == 2
        assert returns(svc, "inventory__find_items") == f"{FIND_ITEMS} (shape learned from 1 result, not declared)"
        assert returns(svc, "inventory__get_item") == "Any"  # never called: nothing is made up
        assert returns(svc, "inventory__stock_of") == '{"sku": str, "stock": int}'  # declared: shown as the server says, never learned


def test_shapes_merge_over_calls(root):
    with serving(root) as svc:
        assert run(svc, 'inventory__get_item("A-100")["name"]').output == "desk lamp"
        assert run(svc, 'inventory__get_item("nope")').output == {"error": "no item nope"}
        text = returns(svc, "inventory__get_item")
        assert text.startswith('{"sku"?: str, "name"?: str, "category"?: str,') and '"error"?: str}' in text
        assert text.endswith("(shape learned from 2 results, not declared)")


def test_the_shape_is_shown_wherever_the_tool_is_described(root):
    from lackpy.infer.prompt import system_prompt
    from lackpy.mcp.describe import run_program_description

    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        kit = svc.resolve_kit(KIT)
        signature = f"inventory__find_items(category: str = '') -> {FIND_ITEMS} (shape learned from 1 result, not declared)"
        assert signature in system_prompt("which lamps are in stock", kit)
        assert signature in run_program_description(kit, (KIT,))
        assert signature in [row["signature"] for row in svc.toolbox_list()]
        assert svc.docs_index(KIT)["result_shapes"]["inventory__find_items"].startswith(FIND_ITEMS)


def test_shapes_are_kept_in_the_person_s_cache_for_the_next_process(root):
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
    files = list(Path(os.environ["XDG_CACHE_HOME"], "lackpy", "shapes").iterdir())
    assert [f.name.split("-")[0] for f in files] == ["inventory"]
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert not any("shape" in p.name for p in root.rglob("*"))  # nothing in the workspace
    with serving(root) as svc:  # a new service, as a new lackpy run is
        assert returns(svc, "inventory__find_items").startswith(FIND_ITEMS)


def test_a_learned_key_miss_is_a_warning_with_the_keys_and_the_program_runs(root):
    program = 'found = inventory__find_items()\n[item["qty"] for item in found["items"]]'
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        checked = svc.validate(program, kit=KIT)
        assert checked.valid and checked.errors == []
        warning = 'warning: line 2, col 2: inventory__find_items(...)["items"][i] has had no key \'qty\' in the 1 result seen'
        assert any(n.startswith(warning) for n in checked.notices)
        assert "its keys are 'sku', 'name', 'category', 'price', 'stock', 'tags', 'supplier'" in checked.notices[-1]
        result = run(svc, program)
        assert not result.success and "KeyError" in result.error and result.notices[-1].startswith(warning)
        assert not any("qty" in n for n in run(svc, "inventory__find_items()['count']").notices)  # said for that program only


def test_a_declared_key_miss_is_an_error_before_the_run(root):
    with serving(root) as svc:
        checked = svc.validate('level = inventory__stock_of("A-100")\nlevel["qty"]', kit=KIT)
        assert not checked.valid
        [error] = checked.errors
        assert (error.code, error.line, error.col) == ("result-key", 2, 1)
        assert "has no key 'qty'" in error.message and error.hint == "its keys are 'sku', 'stock'; read one of those"
        result = run(svc, 'level = inventory__stock_of("A-100")\nlevel["qty"]')
        assert not result.success and result.error_kind == "validation" and result.trace == []
        assert run(svc, 'inventory__stock_of("A-100")["stock"]').output == 12


def test_a_shape_is_forgotten_when_the_server_s_version_changes(root, settings_file):
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
    settings_file.write_text(json.dumps({"version": "2.0.0"}))
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items") == "Any"
        [row] = svc.mcp_shapes("inventory")
        assert row["forgot"]["why"] == "the server's version changed (1.0.0 to 2.0.0)" and row["tools"] == {}


def test_a_shape_is_forgotten_when_the_server_s_tool_list_changes(root, settings_file):
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        run(svc, 'inventory__get_item("A-100")')
    settings_file.write_text(json.dumps({"variant": 2}))  # find_items takes another argument now
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items") == "Any" and returns(svc, "inventory__get_item") == "Any"
        assert svc.mcp_shapes("inventory")[0]["forgot"]["why"] == "the server's tool list changed"


def test_a_tool_list_changed_notification_forgets_them_on_the_next_call(root):
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        run(svc, "inventory__announce()", extra_tools=["inventory__announce"])
        run(svc, 'inventory__get_item("A-100")')  # lists again first: the list is another
        assert returns(svc, "inventory__find_items") == "Any"
        assert "inventory__announced" in svc.toolbox


@pytest.mark.parametrize("ttl_ms, kept", [(300, False), (600_000, True)])
def test_when_the_listing_s_ttl_ends_a_changed_list_forgets_them(root, settings_file, monkeypatch, ttl_ms, kept):
    from lackpy.remote import shapes

    monkeypatch.setattr(shapes, "RELIST_S", 0.1)
    settings_file.write_text(json.dumps({"ttl_ms": ttl_ms}))
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        run(svc, "inventory__add_tool()", extra_tools=["inventory__add_tool"])  # says nothing of it
        time.sleep(0.5)
        run(svc, 'inventory__get_item("A-100")')
        assert returns(svc, "inventory__find_items").startswith(FIND_ITEMS) is kept
        [row] = svc.mcp_shapes("inventory")
        assert row["ttl_ms"] == ttl_ms and (row["forgot"] is None) is kept


def test_the_same_listing_again_keeps_them(root, settings_file, monkeypatch):
    from lackpy.remote import shapes

    monkeypatch.setattr(shapes, "RELIST_S", 0.1)
    settings_file.write_text(json.dumps({"ttl_ms": 100}))
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        time.sleep(0.3)
        run(svc, 'inventory__get_item("A-100")')  # lists again: the same tools
        assert returns(svc, "inventory__find_items").startswith(FIND_ITEMS)


def test_a_hostile_server_s_results_are_bounded_in_what_a_model_reads(root):
    with serving(root) as svc:
        for kind in ("keys", "deep", "wide"):
            run(svc, f'inventory__hostile("{kind}")')
        text = returns(svc, "inventory__hostile")
        assert "\n" not in text and "\u202e" not in text and "ignore previous" not in text and "x" * 65 not in text
        assert len(text) <= 700 and '"fine key"?: int' in text and "..." in text


def test_a_planted_or_broken_cache_file_is_never_trusted(root):
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
        path = Path(svc.mcp_shapes("inventory")[0]["file"])
    stored = json.loads(path.read_text())
    stored["tools"]["inventory__find_items"]["node"]["keys"]["evil\nline"] = {}
    path.write_text(json.dumps(stored))
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items") == "Any"
    path.chmod(0o644)  # others may read it: refused, and said
    with serving(root) as svc:
        assert "may be read or written by others" in svc.mcp_shapes("inventory")[0]["problem"]


def test_lackpy_mcp_shapes_shows_and_clears_them(root):
    from lackpy.cli import cli

    with serving(root) as svc:
        run(svc, "inventory__find_items()")

    def lackpy(*args: str):
        return CliRunner().invoke(cli, ["mcp", "shapes", *args, "--workspace", str(root)])

    from lackpy.trust import trust

    trust(root)
    shown = lackpy()
    assert shown.exit_code == 0, shown.output
    assert "inventory: inventory 1.0.0 1 learned shape" in shown.output
    assert f"  inventory__find_items -> {FIND_ITEMS}  (from 1 result)" in shown.output
    rows = json.loads(lackpy("inventory", "--json").output)
    assert rows[0]["tools"]["inventory__find_items"]["results"] == 1
    unknown = lackpy("nope")
    assert unknown.exit_code != 0 and "no MCP server named nope is configured; the configured ones are: inventory" in unknown.output
    assert "learned shapes forgotten" in lackpy("inventory", "--clear").output
    assert "inventory: no learned shapes" in lackpy().output
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items") == "Any"


def test_lackpy_run_and_validate_say_the_warning(root, tmp_path):
    from lackpy.cli import cli
    from lackpy.trust import trust

    with serving(root) as svc:
        run(svc, "inventory__find_items()")
    trust(root)
    program = tmp_path / "prog.py"
    program.write_text('found = inventory__find_items()\nlen([item["qty"] for item in found["items"] if "qty" in item])\n')
    for command in ("validate", "run"):
        done = CliRunner().invoke(cli, [command, str(program), "--kit", KIT, "--workspace", str(root)])
        assert "lackpy: warning: line 2, col 6: inventory__find_items(...)[\"items\"][i] has had no key 'qty'" in done.output, done.output
        assert done.exit_code == 0


def test_lackpy_serve_describes_the_shape_and_a_failed_run_says_the_warning(root):
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    with serving(root) as svc:
        run(svc, "inventory__find_items()")

    async def main() -> tuple[str, object]:
        with LackpyService(root, trust=True) as svc:  # a new lackpy serve: its description shows what was learned before
            server = build_server(svc, KitPolicy.build(svc, KIT, [KIT]))
            async with Client(server) as client:
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                failed = await client.call_tool("run_program", {"program": 'inventory__find_items()["items"][0]["qty"]'})
        return tools["run_program"].description, failed

    description, failed = asyncio.run(main())
    assert f"inventory__find_items(category: str = '') -> {FIND_ITEMS} (shape learned from 1 result, not declared)" in description
    assert failed.is_error and "KeyError" in failed.content[0].text
    assert "warning: line 1, col 1: inventory__find_items(...)[\"items\"][i] has had no key 'qty'" in failed.content[0].text


def test_a_shape_learned_while_serving_is_in_run_program_s_description_when_the_tools_are_listed_again(root):
    from mcp import Client

    from lackpy import LackpyService
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server

    async def main() -> tuple[str, str]:
        with LackpyService(root, trust=True) as svc:
            server = build_server(svc, KitPolicy.build(svc, KIT, [KIT]))
            async with Client(server) as client:
                before = {tool.name: tool for tool in (await client.list_tools()).tools}["run_program"].description
                await client.call_tool("run_program", {"program": "inventory__find_items()"})
                after = {tool.name: tool for tool in (await client.list_tools()).tools}["run_program"].description
        return before, after

    before, after = asyncio.run(main())
    assert "inventory__find_items(category: str = '') -> Any" in before
    assert f"inventory__find_items(category: str = '') -> {FIND_ITEMS} (shape learned from 1 result, not declared)" in after


def test_another_workspace_s_server_of_the_same_config_learns_its_own(root, tmp_path):
    other = workspace_with(tmp_path / "other", (root / ".lackpy" / "config.toml").read_text())  # its tools/ could hold another server.py
    with serving(root) as svc:
        run(svc, "inventory__find_items()")
    with serving(other) as svc:
        assert returns(svc, "inventory__find_items") == "Any"
    with serving(root) as svc:
        assert returns(svc, "inventory__find_items").startswith(FIND_ITEMS)
