"""LackpyService's kit and toolbox views: kit_list, kit_info, kit_create and toolbox_list."""

from __future__ import annotations

from pathlib import Path

import pytest

from lackpy import LackpyService
from lackpy.errors import KitError, KitFileError, UnknownToolError
from lackpy.kit.kitfile import PACKAGE_KITS


@pytest.fixture
def ws_kits(workspace: Path) -> Path:
    """The workspace kits directory, created."""
    path = workspace / ".lackpy" / "kits"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def service(workspace: Path) -> LackpyService:
    """A service over a workspace its user trusts: these are the user's own kits."""
    return LackpyService(workspace, trust=True)


def by_name(kits: list[dict]) -> dict[str, dict]:
    """Index a kit_list by kit name."""
    return {k["name"]: k for k in kits}


def test_kit_list_package_kits(service):
    """kit_list includes filesystem and readonly from the package."""
    kits = by_name(service.kit_list())
    assert kits["filesystem"] == {
        "name": "filesystem",
        "description": "Read, search, write and edit files in the workspace",
        "tools": ["read_file", "list_dir", "find_files", "grep", "write_file", "edit_file"],
        "source": "package",
        "path": str(PACKAGE_KITS / "filesystem.kit"),
        "shadows": None,
        "ignored": None,
    }
    assert kits["readonly"]["tools"] == ["read_file", "list_dir", "find_files", "grep"]
    assert kits["readonly"]["source"] == "package"


def test_kit_list_workspace_kits(service, ws_kits):
    """Workspace kits are listed with source 'workspace', sorted, and override package kits of that name."""
    (ws_kits / "mine.kit").write_text("---\ndescription: Mine\n---\nedit_file\n")
    (ws_kits / "readonly.kit").write_text("read_file\n")
    kits = service.kit_list()
    assert [k["name"] for k in kits] == ["all", "coding", "filesystem", "mine", "readonly", "web"]
    listed = by_name(kits)
    assert listed["mine"]["source"] == "workspace"
    assert listed["mine"]["description"] == "Mine"
    assert listed["mine"]["tools"] == ["edit_file"]
    assert listed["readonly"]["source"] == "workspace"
    assert listed["readonly"]["tools"] == ["read_file"]
    assert listed["filesystem"]["source"] == "package"


def test_kit_list_reports_broken_kit(service, ws_kits):
    """A malformed workspace kit is listed with its error instead of breaking the list."""
    (ws_kits / "broken.kit").write_text("---\nname: [oops\n---\nread_file\n")
    broken = by_name(service.kit_list())["broken"]
    assert broken["tools"] == []
    assert broken["source"] == "workspace"
    assert "not valid YAML" in broken["error"]
    assert str(ws_kits / "broken.kit") in broken["error"]


def test_kit_info_named(service):
    """kit_info gives each tool's signature and grade and the kit grade."""
    info = service.kit_info("readonly")
    assert info["name"] == "readonly"
    assert info["source"] == "package"
    assert info["grade"] == {"w": 1, "d": 0}
    assert [t["name"] for t in info["tools"]] == ["read_file", "list_dir", "find_files", "grep"]
    assert [info["tools"][0], info["tools"][2]] == [
        {
            "name": "read_file",
            "tool": "read_file",
            "signature": "read_file(path: str, offset: int | None = None, limit: int | None = None) -> str",
            "description": "Read a text file in the workspace and return its contents.",
            "provider": "builtin",
            "grade": {"w": 1, "d": 0},
            "category": "system",
            "approval": "none",
            "docs": "docs/tools/read_file.md",
        },
        {
            "name": "find_files",
            "tool": "find_files",
            "signature": "find_files(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]",
            "description": "List workspace files matching a glob pattern such as '**/*.py'.",
            "provider": "builtin",
            "grade": {"w": 1, "d": 0},
            "category": "system",
            "approval": "none",
            "docs": "docs/tools/find_files.md",
        },
    ]
    assert info["docs"] == [f"docs/tools/{n}.md" for n in ["read_file", "list_dir", "find_files", "grep"]]
    assert info["extra"] == {}


def test_kit_info_filesystem_grade(service):
    """The filesystem kit's grade is w=3 d=3, and extra tools recompute it."""
    assert service.kit_info("filesystem")["grade"] == {"w": 3, "d": 3}
    assert service.kit_info("readonly", extra_tools=["edit_file"])["grade"] == {"w": 3, "d": 3}


def test_kit_info_alias(service):
    """kit_info of an alias dict renders signatures under the alias."""
    info = service.kit_info({"find": "find_files"})
    assert [(t["name"], t["tool"], t["signature"]) for t in info["tools"]] == [
        ("find", "find_files", "find(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]")
    ]


def test_kit_info_extra_frontmatter(service, ws_kits):
    """Unknown frontmatter keys of a workspace kit appear in 'extra'."""
    (ws_kits / "team.kit").write_text(
        "---\nname: team\ndescription: Team kit\ndocs: docs/kits/team.md\nowner: infra\nreview: {required: true}\n---\nread_file\n"
    )
    info = service.kit_info("team")
    assert info["extra"] == {"owner": "infra", "review": {"required": True}}
    assert info["description"] == "Team kit"
    assert info["source"] == "workspace"
    assert info["docs"] == ["docs/kits/team.md", "docs/tools/read_file.md"]


def test_kit_info_default_kit(service, workspace):
    """kit_info() without a kit describes the configured default kit (readonly, or the config's choice)."""
    assert service.kit_info()["name"] == "readonly"
    assert service.kit_info() == service.kit_info("readonly")
    configured = LackpyService(workspace, config={"default_kit": "filesystem"})
    assert configured.kit_info()["name"] == "filesystem"
    assert configured.kit_info()["grade"] == {"w": 3, "d": 3}


def test_kit_create_round_trip(service, workspace):
    """kit_create writes .lackpy/kits/NAME.kit that resolves back to the same tools."""
    path = service.kit_create("mine", ["read_file", "find_files", "edit_file"], description="My tools")
    assert path == workspace.resolve() / ".lackpy" / "kits" / "mine.kit"
    assert path.is_file()
    resolved = service.resolve_kit("mine")
    assert list(resolved.tools) == ["read_file", "find_files", "edit_file"]
    assert resolved.description == "My tools"
    assert resolved.source == "workspace"
    assert resolved.name == "mine"
    assert by_name(service.kit_list())["mine"]["source"] == "workspace"


def test_kit_create_tricky_description(service):
    """A description with YAML-significant characters survives the round trip."""
    text = "reads: files # and 'quotes' --- ünïcode"
    service.kit_create("tricky", ["read_file"], description=text)
    assert service.kit_info("tricky")["description"] == text


def test_kit_create_new_service_sees_it(service, workspace):
    """A kit created by one service is found by a new service over the same workspace."""
    service.kit_create("mine", ["write_file"])
    assert LackpyService(workspace, trust=True).kit_info("mine")["grade"] == {"w": 3, "d": 3}
    with pytest.raises(KitError, match="above read-only.*not trusted; if you trust it, run: lackpy trust"):
        LackpyService(workspace).resolve_kit("mine")
    untrusted = LackpyService(workspace).kit_info("mine")  # shown, as data, so it can be read before trusting
    assert untrusted["grade"] == {"w": 3, "d": 3} and untrusted["ignored"].startswith("not in force: ignored until you trust this workspace")


def test_kit_create_refuses_overwrite(service):
    """kit_create refuses an existing kit without force and replaces it with force=True."""
    path = service.kit_create("mine", ["read_file"])
    original = path.read_text()
    with pytest.raises(KitError) as info:
        service.kit_create("mine", ["write_file"])
    assert "already exists" in str(info.value)
    assert "force" in str(info.value)
    assert path.read_text() == original
    service.kit_create("mine", ["write_file"], force=True)
    assert list(service.resolve_kit("mine").tools) == ["write_file"]


def test_kit_create_unknown_tool(service, workspace):
    """kit_create refuses an unknown tool naming the closest one, and writes nothing."""
    with pytest.raises(UnknownToolError) as info:
        service.kit_create("mine", ["read_file", "wirte_file"])
    assert "unknown tool 'wirte_file'" in str(info.value)
    assert "write_file" in str(info.value)
    assert not (workspace / ".lackpy" / "kits" / "mine.kit").exists()


@pytest.mark.parametrize("name", ["", "none", "../evil", "a/b", ".hidden", "with space", "-dash", None, "x.kit/.."])
def test_kit_create_bad_names(service, workspace, name):
    """kit_create refuses names that are not plain kit names and writes nothing."""
    with pytest.raises(KitError) as info:
        service.kit_create(name, ["read_file"])
    assert "is not valid" in str(info.value)
    assert not (workspace / ".lackpy").exists()
    assert not (workspace / "evil.kit").exists()


def test_kit_create_needs_tools(service):
    """kit_create with no tools raises KitError."""
    with pytest.raises(KitError, match="at least one tool"):
        service.kit_create("empty", [])


def test_kit_create_duplicate_tools(service, workspace):
    """kit_create refuses a tool listed twice."""
    with pytest.raises(KitError, match="duplicate"):
        service.kit_create("dup", ["read_file", "read_file"])
    assert not (workspace / ".lackpy" / "kits" / "dup.kit").exists()


def test_kit_with_unknown_tool_in_workspace_file(service, ws_kits):
    """kit_info of a workspace kit with an unknown tool raises KitFileError naming file and line."""
    (ws_kits / "typo.kit").write_text("read_file\nfind_file\n")
    with pytest.raises(KitFileError) as info:
        service.kit_info("typo")
    assert f"{ws_kits / 'typo.kit'}, line 2" in str(info.value)
    assert "find_files" in str(info.value)


def test_toolbox_list(service):
    """toolbox_list has the four built-ins, sorted, with their grades and signatures."""
    tools = service.toolbox_list()
    assert [t["name"] for t in tools] == ["edit_file", "fetch_url", "find_files", "grep", "list_dir", "list_processes", "poll_process", "read_file", "run_command", "search_tools", "skill_file", "start_process", "stop_process", "todo_read", "todo_set", "web_search", "write_file"]
    table = {t["name"]: t for t in tools}
    assert table["read_file"]["grade"] == {"w": 1, "d": 0}
    assert table["find_files"]["grade"] == {"w": 1, "d": 0}
    assert table["write_file"]["grade"] == {"w": 3, "d": 3}
    assert table["edit_file"]["grade"] == {"w": 3, "d": 3}
    assert table["write_file"]["signature"] == "write_file(path: str, content: str) -> str"
    assert all(t["provider"] == "builtin" and t["docs"] == f"docs/tools/{t['name']}.md" for t in tools)


def test_shipped_kits_and_their_grades(service):
    """readonly < filesystem < coding, web reads the network, all has every tool; shell and writes grade highest."""
    grades = {name: service.kit_info(name)["grade"] for name in ("readonly", "filesystem", "coding", "web", "all")}
    assert grades == {
        "readonly": {"w": 1, "d": 0},
        "filesystem": {"w": 3, "d": 3},
        "coding": {"w": 3, "d": 3},
        "web": {"w": 2, "d": 0},
        "all": {"w": 3, "d": 3},
    }
    coding = {t["name"]: t["grade"] for t in service.kit_info("coding")["tools"]}
    assert coding["run_command"] == {"w": 3, "d": 3} and coding["read_file"] == {"w": 1, "d": 0}
    assert set(service.kit_info("filesystem")["tools"][i]["name"] for i in range(6)) < set(coding)
    # "all" is every tool but skill_file, which serves a skill's runs only
    assert len(service.kit_info("all")["tools"]) == len(service.toolbox_list()) - 1 == 16
