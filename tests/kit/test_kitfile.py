"""``.kit`` files: frontmatter, tool lines, error messages and workspace-before-package lookup."""

from __future__ import annotations

from pathlib import Path

import pytest

from lackpy.errors import KitFileError, UnknownKitError
from lackpy.kit.kitfile import PACKAGE_KITS, find_kit, list_kit_files, parse_kit, read_kit
from lackpy.kit.resolve import resolve_kit

FULL = """\
---
name: mine
description: My own kit
docs: docs/kits/mine.md
owner: team-a
---
read_file
find_files
"""


def test_parse_with_frontmatter():
    """Frontmatter name, description and docs are read; unknown keys are kept in extra."""
    kit = parse_kit(FULL, Path("/k/mine.kit"))
    assert kit.name == "mine"
    assert kit.description == "My own kit"
    assert kit.docs == "docs/kits/mine.md"
    assert kit.extra == {"owner": "team-a"}
    assert kit.tools == ["read_file", "find_files"]
    assert kit.lines == {"read_file": 7, "find_files": 8}
    assert kit.path == Path("/k/mine.kit")


def test_comments_and_blank_lines_ignored():
    """Whole-line comments, blank lines and trailing comments do not produce tools."""
    text = "---\nname: c\n---\n\n# a comment\n   \nread_file   # trailing comment\n\t find_files\t\n# end\n"
    kit = parse_kit(text)
    assert kit.tools == ["read_file", "find_files"]
    assert kit.lines == {"read_file": 7, "find_files": 8}


def test_no_frontmatter():
    """A file without frontmatter is just tool lines; the name defaults to default_name."""
    kit = parse_kit("read_file\nwrite_file\n", default_name="plain")
    assert kit.name == "plain"
    assert kit.tools == ["read_file", "write_file"]
    assert kit.description == "" and kit.docs is None and kit.extra == {}
    assert kit.lines == {"read_file": 1, "write_file": 2}


def test_empty_frontmatter_and_empty_file():
    """An empty frontmatter block and an empty file both parse to no metadata."""
    assert parse_kit("---\n---\nread_file\n", default_name="x").tools == ["read_file"]
    empty = parse_kit("", default_name="e")
    assert (empty.name, empty.tools) == ("e", [])


def test_read_kit_uses_stem_as_default_name(tmp_path: Path):
    """read_kit names a kit without a frontmatter name after its file."""
    path = tmp_path / "quick.kit"
    path.write_text("read_file\n")
    kit = read_kit(path)
    assert kit.name == "quick" and kit.path == path and kit.tools == ["read_file"]


def kit_error(tmp_path: Path, text: str | bytes, name: str = "broken.kit") -> tuple[Path, str]:
    """Write ``text`` to a kit file, read it, and return the path and the KitFileError message."""
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(KitFileError) as info:
        read_kit(path)
    return path, str(info.value)


def test_malformed_yaml(tmp_path: Path):
    """Malformed YAML frontmatter raises KitFileError with a one-line message naming the file."""
    path, message = kit_error(tmp_path, "---\nname: x\ndescription: [unclosed\n---\nread_file\n")
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert "not valid YAML" in message
    assert "at line 3" in message


def test_frontmatter_list(tmp_path: Path):
    """Frontmatter that is a YAML list raises KitFileError naming the file."""
    path, message = kit_error(tmp_path, "---\n- a\n- b\n---\nread_file\n")
    assert message.startswith(f"{path}: ")
    assert "not a list" in message


def test_frontmatter_scalar(tmp_path: Path):
    """Frontmatter that is a bare string raises KitFileError."""
    _, message = kit_error(tmp_path, "---\njust text\n---\nread_file\n")
    assert "not a str" in message


def test_missing_closing_marker(tmp_path: Path):
    """Frontmatter without its closing '---' raises KitFileError naming the file."""
    path, message = kit_error(tmp_path, "---\nname: x\nread_file\n")
    assert message.startswith(f"{path}: ")
    assert "no closing '---'" in message


def test_tool_listed_twice(tmp_path: Path):
    """A tool listed twice raises KitFileError naming both line numbers."""
    path, message = kit_error(tmp_path, "---\nname: d\n---\nread_file\nfind_files\nread_file\n")
    assert message == f"{path}, line 6: tool 'read_file' is listed twice (first on line 4)"


@pytest.mark.parametrize("line", ["read-file", "read_file find_files", "read_file,find_files", "1tool", "a.b"])
def test_non_identifier_line(tmp_path: Path, line):
    """A tool line that is not an identifier raises KitFileError naming the line."""
    path, message = kit_error(tmp_path, f"read_file\n{line}\n")
    assert message.startswith(f"{path}, line 2: '{line}' is not a tool name")


def test_non_utf8(tmp_path: Path):
    """A kit file that is not UTF-8 raises KitFileError naming the file."""
    path, message = kit_error(tmp_path, b"---\nname: caf\xe9\n---\nread_file\n")
    assert message.startswith(f"{path}: ")
    assert "UTF-8" in message


@pytest.mark.parametrize("key", ["name", "description", "docs"])
def test_known_key_must_be_string(tmp_path: Path, key):
    """A known frontmatter key with a non-string value raises KitFileError."""
    _, message = kit_error(tmp_path, f"---\n{key}: [1, 2]\n---\nread_file\n")
    assert f"frontmatter '{key}' must be a string" in message


def test_unreadable_path_is_kit_file_error(tmp_path: Path):
    """read_kit of a directory raises KitFileError, not OSError."""
    with pytest.raises(KitFileError) as info:
        read_kit(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_package_kits_exist():
    """The package ships filesystem.kit and readonly.kit."""
    assert sorted(p.name for p in PACKAGE_KITS.glob("*.kit")) == ["all.kit", "coding.kit", "filesystem.kit", "readonly.kit", "web.kit"]


def test_workspace_kit_wins(toolbox, kits_dir):
    """A workspace .lackpy/kits/readonly.kit overrides the package kit of that name."""
    (kits_dir / "readonly.kit").write_text("---\nname: readonly\ndescription: only reading\n---\nread_file\n")
    assert find_kit("readonly", kits_dir) == ("workspace", kits_dir / "readonly.kit")
    resolved = resolve_kit("readonly", toolbox, kits_dir)
    assert list(resolved.tools) == ["read_file"]
    assert resolved.source == "workspace"
    assert resolved.description == "only reading"


def test_package_kit_found_without_workspace_kit(kits_dir):
    """Without a workspace kit of that name the package kit is found."""
    assert find_kit("filesystem", kits_dir) == ("package", PACKAGE_KITS / "filesystem.kit")
    assert find_kit("readonly", None) == ("package", PACKAGE_KITS / "readonly.kit")


def test_list_kit_files(kits_dir):
    """list_kit_files merges both sources with the workspace winning on a name clash."""
    (kits_dir / "readonly.kit").write_text("read_file\n")
    (kits_dir / "mine.kit").write_text("find_files\n")
    (kits_dir / "notes.txt").write_text("not a kit\n")
    found = list_kit_files(kits_dir)
    assert found == {
        "all": ("package", PACKAGE_KITS / "all.kit"),
        "coding": ("package", PACKAGE_KITS / "coding.kit"),
        "filesystem": ("package", PACKAGE_KITS / "filesystem.kit"),
        "mine": ("workspace", kits_dir / "mine.kit"),
        "readonly": ("workspace", kits_dir / "readonly.kit"),
        "web": ("package", PACKAGE_KITS / "web.kit"),
    }


def test_unknown_kit_names_closest_and_available(kits_dir):
    """An unknown kit raises UnknownKitError with the closest kits and the list of available kits."""
    (kits_dir / "mine.kit").write_text("read_file\n")
    with pytest.raises(UnknownKitError) as info:
        find_kit("redonly", kits_dir)
    message = str(info.value)
    assert "unknown kit 'redonly'" in message
    assert "(did you mean: readonly?)" in message
    assert "available kits: all, coding, filesystem, mine, readonly, web" in message


@pytest.mark.parametrize("name", ["../evil", "../../evil", "sub/evil", "/abs/evil", ".hidden"])
def test_kit_names_with_paths_are_not_looked_up(kits_dir, name):
    """A kit name containing path parts is unknown even when a file exists at that path."""
    (kits_dir.parent / "evil.kit").write_text("write_file\n")
    (kits_dir / "sub").mkdir(exist_ok=True)
    (kits_dir / "sub" / "evil.kit").write_text("write_file\n")
    (kits_dir / ".hidden.kit").write_text("write_file\n")
    with pytest.raises(UnknownKitError):
        find_kit(name, kits_dir)


@pytest.mark.parametrize("filename", [".hidden.kit", "my kit.kit"])
def test_every_listed_kit_can_be_found(kits_dir, filename):
    """Every name list_kit_files reports can be looked up again with find_kit."""
    (kits_dir / filename).write_text("read_file\n")
    for name, (source, path) in list_kit_files(kits_dir).items():
        assert find_kit(name, kits_dir) == (source, path)


# -- a workspace's kit files are read as lackpy reads its own files ---------------------


@pytest.fixture
def kits(tmp_path: Path) -> Path:
    directory = tmp_path / "ws" / ".lackpy" / "kits"
    directory.mkdir(parents=True)
    return directory


def test_a_kit_file_that_is_not_regular_is_a_kit_error(kits, tmp_path):
    import os

    os.mkfifo(kits / "pipe.kit")
    (kits / "stdin.kit").symlink_to("/dev/stdin")
    outside = tmp_path / "outside.kit"
    outside.write_text("read_file\nrun_command\n")
    (kits / "out.kit").symlink_to(outside)
    with open(kits / "huge.kit", "wb") as handle:
        handle.truncate(2 << 20)
    for name, says in [("pipe", "not a regular file (a FIFO)"), ("stdin", "a symlink leads outside"), ("out", "a symlink leads outside"), ("huge", "larger than 1048576 bytes")]:
        source, path = find_kit(name, kits)  # found (it is there), judged when read
        assert source == "workspace"
        with pytest.raises(KitFileError, match=f"{name}.kit: {says}".replace("(", r"\(").replace(")", r"\)")):
            read_kit(path)


def test_a_link_among_the_kit_files_is_followed(kits):
    (kits / "base.kit").write_text("read_file\ngrep\n")
    (kits / "alias.kit").symlink_to("base.kit")
    assert read_kit(find_kit("alias", kits)[1]).tools == ["read_file", "grep"]


def test_a_kit_file_is_parsed_again_only_when_its_stat_changes(kits):
    from lackpy.kit import kitfile

    (kits / "mine.kit").write_text("read_file\n")
    first = read_kit(kits / "mine.kit")
    key = next(k for k in kitfile._parsed if k[0] == kits / "mine.kit")
    assert read_kit(kits / "mine.kit") == first and list(k for k in kitfile._parsed if k[0] == kits / "mine.kit") == [key]
    (kits / "mine.kit").write_text("read_file\ngrep\n")
    assert read_kit(kits / "mine.kit").tools == ["read_file", "grep"]


def test_a_kits_directory_lists_a_bounded_number_of_entries(kits):
    from lackpy.host.ownfiles import MAX_ENTRIES

    for index in range(MAX_ENTRIES + 1):
        (kits / f"k{index}.kit").touch()
    with pytest.raises(KitFileError, match=f"more than {MAX_ENTRIES} entries"):
        list_kit_files(kits)
