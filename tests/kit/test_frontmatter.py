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
