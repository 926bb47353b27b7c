"""One rule for the names a program binds: tool names, kit aliases, parameters and exposed tools' arguments all follow it."""

from __future__ import annotations

import asyncio

import pytest

from lackpy import LackpyService, ToolSpec
from lackpy.errors import KitError, ParamError, ToolboxError
from lackpy.kit.resolve import resolve_kit
from lackpy.lang.names import bindable

REFUSED = ["if", "lambda", "None", "_x", "1a", "a-b", "", "open", "eval", 3]


@pytest.mark.parametrize("name", REFUSED)
def test_no_channel_accepts_a_name_a_program_cannot_bind(tmp_path, name):
    assert not bindable(name)
    with LackpyService(tmp_path) as svc:
        with pytest.raises(KitError):
            resolve_kit({name: "read_file"}, svc.toolbox)
        with pytest.raises(ToolboxError):
            svc.toolbox.register_tool(ToolSpec(name=name, provider="python", description="x"))
        result = asyncio.run(svc.run_program("1", kit="read_file", params={name: 1}))
    assert not result.success and result.error_kind == "param" and "not a valid variable name" in result.error


@pytest.mark.parametrize("name", ["x", "files", "match", "case", "a1_b"])
def test_plain_identifiers_and_soft_keywords_are_bindable(name):
    assert bindable(name)
