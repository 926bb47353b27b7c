"""resolve_kit: every kit form, extra tools, alias rules, grades, callables and docs."""

from __future__ import annotations


import pytest

from lackpy.errors import KitError, KitFileError, UnknownKitError, UnknownToolError
from lackpy.kit.resolve import ResolvedKit, resolve_kit
from lackpy.lang.grade import Grade

FS_TOOLS = ["read_file", "list_dir", "find_files", "grep", "write_file", "edit_file"]


def test_named_filesystem(toolbox):
    """The filesystem kit has the four built-ins and grade (3, 3)."""
    kit = resolve_kit("filesystem", toolbox)
    assert isinstance(kit, ResolvedKit)
    assert list(kit.tools) == FS_TOOLS
    assert kit.grade == Grade(3, 3)
    assert kit.name == "filesystem"
    assert kit.source == "package"
    assert kit.description == "Read, search, write and edit files in the workspace"
    assert kit.names == frozenset(FS_TOOLS)


def test_named_readonly(toolbox):
    """The readonly kit reads, lists, finds and greps, with grade (1, 0)."""
    kit = resolve_kit("readonly", toolbox)
    assert list(kit.tools) == ["read_file", "list_dir", "find_files", "grep"]
    assert kit.grade == Grade(1, 0)
    assert kit.aliases() == {name: name for name in ["read_file", "list_dir", "find_files", "grep"]}


@pytest.mark.parametrize("kit", ["none", "", "  none  "])
def test_none_kit(toolbox, kit):
    """'none' (or an empty string) is a kit with no tools and Grade(0, 0)."""
    resolved = resolve_kit(kit, toolbox)
    assert resolved.tools == {} and resolved.callables == {}
    assert resolved.grade == Grade(0, 0)
    assert resolved.name == "none"
    assert resolved.description == "No tools"


def test_none_python_value_is_an_error(toolbox):
    """A kit of Python None raises KitError telling what to give."""
    with pytest.raises(KitError) as info:
        resolve_kit(None, toolbox)
    assert "'none'" in str(info.value)


def test_comma_string(toolbox):
    """'read_file,find_files' (spaces allowed) gives those tools in order."""
    kit = resolve_kit(" read_file , find_files ", toolbox)
    assert list(kit.tools) == ["read_file", "find_files"]
    assert kit.grade == Grade(1, 0)
    assert kit.name is None
    assert kit.description == "Tools: read_file, find_files"


def test_list_and_tuple(toolbox):
    """A list or tuple of names gives those tools."""
    assert list(resolve_kit(["write_file", "read_file"], toolbox).tools) == ["write_file", "read_file"]
    assert list(resolve_kit(("edit_file",), toolbox).tools) == ["edit_file"]
    assert resolve_kit(["edit_file"], toolbox).grade == Grade(3, 3)


def test_alias_dict(toolbox, workspace):
    """{'find': 'find_files'} exposes find_files under the name 'find', and it works."""
    kit = resolve_kit({"find": "find_files"}, toolbox)
    assert list(kit.tools) == ["find"]
    assert kit.tools["find"].name == "find_files"
    assert kit.aliases() == {"find": "find_files"}
    assert kit.names == frozenset({"find"})
    assert kit.callables["find"]("src/*.py") == ["src/app.py"]


def test_nested_alias_dict(toolbox):
    """{'r': {'tool': 'read_file'}} exposes read_file as 'r'."""
    kit = resolve_kit({"r": {"tool": "read_file"}}, toolbox)
    assert kit.tools["r"].name == "read_file"
    assert "Status: draft" in kit.callables["r"]("README.md")


@pytest.mark.parametrize("entry", [{"r": {"name": "read_file"}}, {"r": 3}, {"r": None}])
def test_alias_dict_entry_must_name_a_tool(toolbox, entry):
    """An alias dict entry without a tool name raises KitError."""
    with pytest.raises(KitError) as info:
        resolve_kit(entry, toolbox)
    assert "kit entry 'r' must name a tool" in str(info.value)


def test_extra_tools_merged_and_grade_recomputed(toolbox):
    """readonly + write_file gives five tools and grade (3, 3)."""
    kit = resolve_kit("readonly", toolbox, extra_tools=["write_file"])
    assert list(kit.tools) == ["read_file", "list_dir", "find_files", "grep", "write_file"]
    assert kit.grade == Grade(3, 3)


def test_extra_tools_duplicates_ignored(toolbox):
    """Extra tools already in the kit are silently ignored."""
    kit = resolve_kit("readonly", toolbox, extra_tools=["read_file", "find_files", "read_file"])
    assert list(kit.tools) == ["read_file", "list_dir", "find_files", "grep"]
    assert kit.grade == Grade(1, 0)


def test_extra_tools_on_none(toolbox):
    """Extra tools on the 'none' kit give exactly those tools."""
    kit = resolve_kit("none", toolbox, extra_tools=["find_files"])
    assert list(kit.tools) == ["find_files"]
    assert kit.grade == Grade(1, 0)


def test_duplicate_alias_conflict(toolbox):
    """An extra tool whose name is already an alias for another tool raises KitError."""
    with pytest.raises(KitError) as info:
        resolve_kit({"find_files": "read_file"}, toolbox, extra_tools=["find_files"])
    assert "duplicate alias 'find_files'" in str(info.value)


def test_duplicate_in_list(toolbox):
    """A tool listed twice in a list kit raises KitError."""
    with pytest.raises(KitError) as info:
        resolve_kit(["read_file", "read_file"], toolbox)
    assert "duplicate tool 'read_file'" in str(info.value)


def test_extra_tool_must_be_string(toolbox):
    """A non-string extra tool raises KitError."""
    with pytest.raises(KitError):
        resolve_kit("none", toolbox, extra_tools=[3])


def test_unknown_tool_in_list(toolbox):
    """An unknown tool in a list raises UnknownToolError naming the closest tool."""
    with pytest.raises(UnknownToolError) as info:
        resolve_kit(["read_file", "find_file"], toolbox)
    assert info.value.kind == "toolbox"
    assert "unknown tool 'find_file'" in str(info.value)
    assert "find_files" in str(info.value)


def test_unknown_tool_in_alias_dict(toolbox):
    """An alias to an unknown tool raises UnknownToolError."""
    with pytest.raises(UnknownToolError):
        resolve_kit({"r": "reed_file"}, toolbox)


def test_unknown_tool_in_kit_file(toolbox, kits_dir):
    """An unknown tool in a .kit file raises KitFileError naming the file, the line and the closest tool."""
    path = kits_dir / "typo.kit"
    path.write_text("---\nname: typo\n---\nread_file\nwrte_file\n")
    with pytest.raises(KitFileError) as info:
        resolve_kit("typo", toolbox, kits_dir)
    assert info.value.kind == "kit"
    message = str(info.value)
    assert message.startswith(f"{path}, line 5: ")
    assert "unknown tool 'wrte_file'" in message
    assert "write_file" in message


def test_unknown_named_kit(toolbox, kits_dir):
    """A name that is no kit, no tool and no comma list raises UnknownKitError."""
    with pytest.raises(UnknownKitError) as info:
        resolve_kit("read_flie", toolbox, kits_dir)
    assert info.value.kind == "kit"


def test_one_tools_name_is_that_tool_alone_unless_a_kit_has_the_name(toolbox, kits_dir):
    """``--kit read_file`` is the kit of that one tool; a kit file of the same name wins."""
    assert sorted(resolve_kit("read_file", toolbox, kits_dir).tools) == ["read_file"]
    kits_dir.mkdir(parents=True, exist_ok=True)
    (kits_dir / "read_file.kit").write_text("read_file\nfind_files\n")
    assert sorted(resolve_kit("read_file", toolbox, kits_dir).tools) == ["find_files", "read_file"]


@pytest.mark.parametrize("alias", ["_x", "open", "1a", "eval", "a-b", "", "if", "lambda", "None"])
def test_bad_alias_names(toolbox, alias):
    """Alias names that programs could not use raise KitError."""
    with pytest.raises(KitError) as info:
        resolve_kit({alias: "read_file"}, toolbox)
    assert "cannot name a tool in programs" in str(info.value)


@pytest.mark.parametrize("kit", [["_x"], ["open"], "read_file,_x"])
def test_bad_names_in_lists(toolbox, kit):
    """Reserved names in a list or comma string raise KitError."""
    with pytest.raises(KitError):
        resolve_kit(kit, toolbox)


def test_kit_of_wrong_type(toolbox):
    """A kit that is neither name, list nor dict raises KitError naming its type."""
    with pytest.raises(KitError) as info:
        resolve_kit(42, toolbox)
    assert "int" in str(info.value)


def test_list_of_non_strings(toolbox):
    """A list containing a non-string raises KitError."""
    with pytest.raises(KitError):
        resolve_kit(["read_file", 3], toolbox)


def test_callables_work_directly(toolbox, workspace):
    """ResolvedKit.callables are bound to the toolbox context and read real files."""
    kit = resolve_kit("filesystem", toolbox)
    assert kit.callables["read_file"]("src/pkg/util.py") == "def f():\n    return 1  # TODO: three\n"
    assert kit.callables["find_files"]("**/*.py") == ["src/app.py", "src/pkg/util.py"]
    assert "src/pkg/util.py" in toolbox.context.files_read
    kit.callables["write_file"]("out.txt", "x")
    assert (workspace / "out.txt").read_text() == "x"


def test_bind_uses_given_context(toolbox, workspace):
    """bind(context) records reads in that context, not the toolbox's."""
    kit = resolve_kit("readonly", toolbox)
    ctx = toolbox.context.fresh()
    kit.bind(ctx)["read_file"]("README.md")
    assert list(ctx.files_read) == ["README.md"]
    assert toolbox.context.files_read == {}


def test_docs_of_named_kit(toolbox):
    """ResolvedKit.docs lists each tool's docs path."""
    kit = resolve_kit("filesystem", toolbox)
    assert kit.docs == [f"docs/tools/{t}.md" for t in FS_TOOLS]


def test_docs_include_kit_frontmatter(toolbox, kits_dir):
    """A kit file's frontmatter docs come first, then the tool docs, and extra keys are kept."""
    (kits_dir / "mine.kit").write_text("---\ndocs: docs/kits/mine.md\nteam: infra\n---\nfind_files\n")
    kit = resolve_kit("mine", toolbox, kits_dir)
    assert kit.docs == ["docs/kits/mine.md", "docs/tools/find_files.md"]
    assert kit.extra == {"team": "infra"}
    assert kit.name == "mine"
    assert kit.source == "workspace"


def test_aliased_tool_docs_once(toolbox):
    """A tool exposed under two aliases lists its docs once."""
    kit = resolve_kit({"a": "read_file", "b": "read_file"}, toolbox)
    assert kit.docs == ["docs/tools/read_file.md"]
    assert kit.grade == Grade(1, 0)


def test_resolve_kit_with_string_kits_dir(toolbox, kits_dir):
    """kits_dir may be given as a string."""
    (kits_dir / "solo.kit").write_text("edit_file\n")
    assert list(resolve_kit("solo", toolbox, str(kits_dir)).tools) == ["edit_file"]


def test_named_kit_defaults_to_the_toolbox_workspace(workspace):
    """Without kits_dir, a kit in the toolbox workspace's .lackpy/kits is found."""
    from lackpy import Toolbox, resolve_kit
    from lackpy.plugins import populate

    kits = workspace / ".lackpy" / "kits"
    kits.mkdir(parents=True)
    (kits / "mine.kit").write_text("read_file\n")
    box = Toolbox(str(workspace))
    populate(box)
    assert list(resolve_kit("mine", box).tools) == ["read_file"]


@pytest.mark.parametrize("given", ["Read-File,GREP", ["READ_FILE", "grep"], "read-file,grep"])
def test_tool_lists_match_names_ignoring_case_and_dashes(toolbox, kits_dir, given):
    """``--tools Read-File,GREP`` is read_file and grep, under the names programs call them."""
    assert sorted(resolve_kit(given, toolbox, kits_dir).tools) == ["grep", "read_file"]
    assert sorted(resolve_kit("none", toolbox, kits_dir, extra_tools=["Find-Files"]).tools) == ["find_files"]


def test_an_unknown_tool_in_a_list_names_the_closest(toolbox, kits_dir):
    with pytest.raises(UnknownToolError, match=r"unknown tool 'read_fle' \(did you mean: read_file"):
        resolve_kit("read_fle,grep", toolbox, kits_dir)
