"""The one frontmatter reader behind .kit and .tmpl files."""

from __future__ import annotations

import pytest

from lackpy.errors import ConfigError
from lackpy.kit.frontmatter import split_frontmatter


def test_metadata_body_and_first_body_line():
    meta, body, first = split_frontmatter("---\nname: t\n---\nx = 1\r\ny\n", "f", ConfigError)
    assert (meta, body, first) == ({"name": "t"}, "x = 1\r\ny\n", 4)


def test_no_frontmatter_and_empty_frontmatter():
    assert split_frontmatter("read_file\n", "f", ConfigError) == (None, "read_file\n", 1)
    assert split_frontmatter("---\n---\nbody", "f", ConfigError) == ({}, "body", 3)


@pytest.mark.parametrize(
    "text, message",
    [
        ("---\nname: t\n", "f: frontmatter has no closing '---' line; add one after the metadata"),
        ("---\nname: x\ndescription: [unclosed\n---\n", "f: frontmatter is not valid YAML at line 3; fix the lines between the '---' markers (hint)"),
        ("---\n- a\n---\n", "f: frontmatter must be 'key: value' lines, not a list"),
    ],
)
def test_errors_name_the_file_and_the_fix(text, message):
    with pytest.raises(ConfigError) as info:
        split_frontmatter(text, "f", ConfigError, yaml_hint=" (hint)")
    assert str(info.value) == message


def test_frontmatter_that_nests_too_deeply_is_one_error_not_a_crash():
    text = "---\nname: " + "[" * 20000 + "]" * 20000 + "\n---\nbody\n"
    with pytest.raises(ConfigError, match="nests too deeply"):
        split_frontmatter(text, "deep.kit", ConfigError)


def test_a_skill_whose_frontmatter_nests_too_deeply_is_left_out_with_why(tmp_path):
    from lackpy import LackpyService

    folder = tmp_path / ".lackpy" / "skills" / "deep"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deep\ndescription: " + "[" * 20000 + "]" * 20000 + "\n---\nbody\n")
    rows = {row["name"]: row for row in LackpyService(tmp_path).skills()}
    assert "nests too deeply" in rows["deep"]["ignored"] and rows["todo-report"]["ignored"] is None
