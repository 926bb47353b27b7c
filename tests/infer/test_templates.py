"""The templates tier: matching, serving, counting uses on disk, saving with generalize, listing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lackpy.errors import ConfigError
from lackpy.infer.base import Proposal, Request
from lackpy.infer.templates import (
    TEMPLATES_DIR,
    Template,
    TemplateTier,
    TemplateWarning,
    list_templates,
    load_templates,
    parse_template,
    save_template,
)
from lackpy.kit.resolve import resolve_kit
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import populate
from lackpy.run.runner import run_program

COUNT_WORD = """---
name: count-word
pattern: count {word} in python files
kit: readonly
success_count: 2
fail_count: 1
---
# how often a word occurs in the Python sources
sum(read_file(f).count({word}) for f in find_files("**/*.py"))
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace with three TODOs in Python files and one in the README."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "app.py").write_text("# TODO: one\nprint('app')  # TODO: two\n")
    (tmp_path / "src" / "pkg" / "util.py").write_text("x = 1  # TODO: three\n")
    (tmp_path / "README.md").write_text("# Demo\n\nTODO: docs\n")
    return tmp_path


@pytest.fixture
def toolbox(root: Path) -> Toolbox:
    box = Toolbox(str(root))
    populate(box)
    return box


def write(root: Path, name: str, text: str) -> Path:
    path = root / TEMPLATES_DIR / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def front(path: Path) -> dict:
    return yaml.safe_load(path.read_text().split("---\n")[1])


def test_match_captures_values_case_insensitively():
    template = Template("t", "count {word} in python files", "x")
    assert template.match("Count FIXME in Python files.") == {"word": "FIXME"}
    assert template.match("count FIXME in markdown files") is None


def test_match_with_a_malformed_pattern_is_a_config_error():
    with pytest.raises(ConfigError, match="template 't': .*unmatched brace"):
        Template("t", "count {word", "x").match("count x")


def test_propose_renders_the_first_matching_template_and_it_runs(root, toolbox):
    path = write(root, "count-word.tmpl", COUNT_WORD)
    write(root, "zz-catch-all.tmpl", "---\npattern: count {word} in {kind}\n---\n[{word}, {kind}]\n")
    kit = resolve_kit("readonly", toolbox)
    proposal = TemplateTier(workspace=root).propose(Request("count TODO in python files", kit, workspace=root))
    assert proposal.detail == "template count-word"
    assert proposal.source == path
    assert proposal.program.endswith("sum(read_file(f).count('TODO') for f in find_files(\"**/*.py\"))\n")
    assert run_program(proposal.program, kit, mode="inprocess").output == 3


def test_propose_none_without_a_match(root, toolbox):
    write(root, "count-word.tmpl", COUNT_WORD)
    kit = resolve_kit("readonly", toolbox)
    assert TemplateTier(workspace=root).propose(Request("write a haiku", kit, workspace=root)) is None
    assert TemplateTier(workspace=root).propose(Request("anything", kit, workspace=root / "elsewhere")) is None


@pytest.mark.parametrize(
    "saved_kit, request_kit, serves",
    [
        ("readonly", "filesystem", True),  # every tool of readonly is in filesystem
        ("filesystem", "readonly", False),  # readonly lacks write_file and edit_file
        ("[read_file, find_files]", ["read_file", "find_files"], True),
        ("[read_file, find_files]", ["read_file", "grep"], False),
        ("read_file,find_files", ["find_files", "read_file", "grep"], True),
        ("no-such-kit", ["read_file", "find_files"], True),  # unknown: validation decides
    ],
)
def test_propose_only_with_the_tools_the_template_was_saved_with(root, toolbox, saved_kit, request_kit, serves):
    write(root, "t.tmpl", COUNT_WORD.replace("kit: readonly", f"kit: {saved_kit}"))
    kit = resolve_kit(request_kit, toolbox)
    proposal = TemplateTier(workspace=root).propose(Request("count TODO in python files", kit, workspace=root))
    assert (proposal is not None) is serves


def test_record_counts_on_disk_and_keeps_the_body_exactly(root):
    body = "# comment\r\nsum(read_file(f).count({word}) for f in find_files('**/*.py'))\r\n\r\n"
    path = write(root, "crlf.tmpl", "---\npattern: count {word}\nowner: ana\nsuccess_count: 2\n---\n" + body)
    provider = TemplateTier(workspace=root)
    proposal = Proposal("ignored", source=path)
    provider.record(proposal, True)
    provider.record(proposal, True)
    provider.record(proposal, False)
    meta = front(path)
    assert (meta["success_count"], meta["fail_count"], meta["owner"]) == (4, 1, "ana")
    assert path.read_bytes().decode().endswith("---\n" + body)
    assert [p.name for p in path.parent.iterdir()] == ["crlf.tmpl"]  # no temporary file left
    assert [(t["success_count"], t["fail_count"]) for t in list_templates(root)] == [(4, 1)]


def test_record_of_a_deleted_template_warns(root):
    path = write(root, "gone.tmpl", COUNT_WORD)
    path.unlink()
    with pytest.warns(TemplateWarning, match="could not count"):
        TemplateTier(workspace=root).record(Proposal("x", source=path), True)


def test_load_sorted_by_file_name_and_reloaded_when_a_file_changes(root):
    write(root, "b.tmpl", "---\npattern: second {x}\n---\n{x}\n")
    write(root, "a.tmpl", "---\npattern: first {x}\n---\n{x}\n")
    write(root, "notes.txt", "not a template")
    assert [t.name for t in load_templates(root)] == ["a", "b"]
    write(root, "a.tmpl", "---\npattern: changed pattern {x}\n---\n{x}\n")
    assert [t.pattern for t in load_templates(root)] == ["changed pattern {x}", "second {x}"]
    assert TemplateTier(workspace=root).understands() == ["changed pattern {x}", "second {x}"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("pattern: x\n", "starts with a '---' line"),
        ("---\npattern: x\n", "no closing '---'"),
        ("---\nname: t\npattern: a: b\n---\nx\n", "not valid YAML at line 3"),
        ("---\n- a list\n---\nx\n", "must be 'key: value' lines"),
        ("---\nname: t\n---\nx\n", "missing 'pattern' in frontmatter"),
        ("---\npattern: {word} count\n---\nx\n", "quote a pattern that starts with '{'"),
        ("---\npattern: {word}\n---\nx\n", "quote it when it starts with '{'"),
        ("---\npattern: count {word} {word}\n---\n{word}\n", "appears twice"),
        ("---\npattern: count it\nname: bad name\n---\nx\n", "name 'bad name'"),
        ("---\npattern: count it\nkit: 3\n---\nx\n", "'kit' must be a kit name or a list"),
        ("---\npattern: count it\nsuccess_count: -1\n---\nx\n", "'success_count' must be a whole number"),
        ("---\npattern: count it\n---\n\n", "the program after the closing '---' is empty"),
        ("---\npattern: count it\n---\nx = (\n", "not valid Python"),
        ("---\npattern: count {word}\n---\nf'{word}'\n", "inside the f-string"),
        ("---\npattern: count {word}\n---\n[{word}, {kind}]\n", "uses {kind}, which the pattern lacks"),
        ("---\npattern: count {word} in {kind}\n---\n[{word}]\n", "captures {kind}, which the program never uses"),
    ],
)
def test_malformed_templates_say_what_to_fix(text, message):
    with pytest.raises(ConfigError, match=message) as caught:
        parse_template(text, Path("t.tmpl"))
    assert str(caught.value).startswith("t.tmpl: ")


def test_a_malformed_file_is_skipped_with_a_warning_and_listed_with_its_error(root, toolbox):
    write(root, "a-broken.tmpl", "---\nname: broken\n---\nx\n")
    write(root, "count-word.tmpl", COUNT_WORD)
    with pytest.warns(TemplateWarning, match="a-broken.tmpl: missing 'pattern'"):
        assert [t.name for t in load_templates(root)] == ["count-word"]
    kit = resolve_kit("readonly", toolbox)
    assert TemplateTier(workspace=root).propose(Request("count TODO in python files", kit, workspace=root)) is not None
    rows = list_templates(root)
    assert rows[0]["name"] == "a-broken" and rows[0]["pattern"] is None
    assert "missing 'pattern' in frontmatter" in rows[0]["error"]
    assert rows[1] == {
        "name": "count-word", "pattern": "count {word} in python files", "kit": "readonly",
        "success_count": 2, "fail_count": 1, "path": str(root / TEMPLATES_DIR / "count-word.tmpl"), "error": None,
    }


def test_save_generalizes_and_the_template_then_serves_other_intents(root, toolbox):
    program = 'sum(read_file(f).count("TODO") for f in find_files("**/*.py"))'
    path = save_template(root, "count-py", "count {word} in {ext} files", program, ["find_files", "read_file"],
                         values={"word": "TODO", "ext": "py"})
    assert path == root / TEMPLATES_DIR / "count-py.tmpl"
    assert path.read_text() == (
        "---\nname: count-py\npattern: count {word} in {ext} files\nkit:\n- find_files\n- read_file\n"
        "success_count: 0\nfail_count: 0\n---\n"
        "sum(read_file(f).count({word}) for f in find_files('**/*.{ext}'))\n"
    )
    kit = resolve_kit("readonly", toolbox)
    provider = TemplateTier(workspace=root)
    proposal = provider.propose(Request("count docs in md files", kit, workspace=root))
    assert run_program(proposal.program, kit, mode="inprocess").output == 1
    assert provider.needs("count TODO in py files") == ["find_files", "read_file"]
    assert provider.needs("write a haiku") is None


def test_save_refuses_to_overwrite_without_force(root):
    save_template(root, "t", "show {path}", "read_file({path})")
    with pytest.raises(ConfigError, match="already exists .* pass --force to replace it"):
        save_template(root, "t", "read {path}", "read_file({path})")
    save_template(root, "t", "read {path}", "read_file({path})", force=True)
    assert [t.pattern for t in load_templates(root)] == ["read {path}"]


@pytest.mark.parametrize(
    "args, values, message",
    [
        (("../up", "read {path}", "read_file({path})"), None, "start with a letter or digit"),
        (("t" * 5000, "read {path}", "read_file({path})"), None, "must be at most 100 characters"),
        (("t", "read {path", "read_file({path})"), None, "unmatched brace"),
        (("t", "read {path}", "read_file({file})"), None, "uses {file}, which the pattern lacks"),
        (("t", "read {path}", 'read_file("README.md")'), {"path": "README.txt"}, "never uses"),
        (("t", "read {path}", 'read_file("README.md")'), {"file": "README.md"}, "does not capture"),
        (("t", "read {path}", "read_file("), {"path": "README.md"}, "not valid Python"),
    ],
)
def test_save_refuses_bad_templates(root, args, values, message):
    with pytest.raises(ConfigError, match=message):
        save_template(root, *args, values=values)
    assert not (root / TEMPLATES_DIR / "t.tmpl").exists()


# -- template files are read as lackpy reads its own files ------------------------------


def test_a_template_lackpy_cannot_read_is_skipped_with_its_error(tmp_path):
    import os
    import warnings

    from lackpy.infer.templates import list_templates, load_templates

    directory = tmp_path / ".lackpy" / "templates"
    directory.mkdir(parents=True)
    os.mkfifo(directory / "pipe.tmpl")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.tmpl"
    outside.write_text("---\nname: out\npattern: leak\n---\n'x'\n")
    (directory / "out.tmpl").symlink_to(outside)
    (directory / "ok.tmpl").write_text("---\nname: ok\npattern: say hi\n---\n'hi'\n")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert [t.name for t in load_templates(tmp_path)] == ["ok"]
        errors = {row["name"]: row["error"] for row in list_templates(tmp_path)}
    assert errors["ok"] is None and "not a regular file (a FIFO)" in errors["pipe"] and "a symlink leads outside" in errors["out"]


def test_a_templates_directory_that_leads_out_is_refused(tmp_path):
    from lackpy.infer.templates import load_templates

    (tmp_path / "ws" / ".lackpy").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t.tmpl").write_text("---\nname: t\npattern: go\n---\n'x'\n")
    (tmp_path / "ws" / ".lackpy" / "templates").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match=r"\.lackpy/templates: a symlink leads out of the workspace"):
        load_templates(tmp_path / "ws")
