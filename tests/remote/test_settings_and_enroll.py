"""[mcp.servers] settings, and remote tools as lackpy tools: names, specs, keys, grades, result values."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp import types  # noqa: E402

from lackpy.errors import ConfigError, ToolError  # noqa: E402
from lackpy.remote.enroll import DESCRIPTION_CHARS, qualified_names, remote_spec, result_value, schema_text, tool_key  # noqa: E402
from lackpy.remote.settings import ServerSettings, parse_servers  # noqa: E402


def servers(**tables) -> list[ServerSettings]:
    return parse_servers({"servers": tables})


# -- settings -----------------------------------------------------------------------------


def test_a_stdio_and_an_http_server():
    stdio, http = servers(
        files={"command": "files-server", "args": ["--root", "."], "env": {"TOKEN": "${FILES_TOKEN}"}, "grade": [1, 0]},
        issues={"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${ISSUES_TOKEN}"}, "timeout_s": 5},
    )
    assert (stdio.transport, stdio.describe(), stdio.grade) == ("stdio", "files-server --root .", (1, 0))
    assert (http.transport, http.describe(), http.timeout_s) == ("http", "http://127.0.0.1:9/mcp", 5.0)


@pytest.mark.parametrize("table, message", [
    ({"a": {"command": "x", "url": "http://h"}}, "either command"),
    ({"a": {}}, "either command"),
    ({"a__b": {"command": "x"}}, "single '_'"),
    ({"1a": {"command": "x"}}, "starting with a letter"),
    ({"a": {"command": "x", "grade": [4, 0]}}, "grade: must be [w, d]"),
    ({"a": {"command": "x", "env": {"K": 1}}}, "table of strings"),
    ({"a": {"command": "x", "colour": "red"}}, "unknown key(s) colour"),
    ({"a": {"url": "ftp://h"}}, "url must start with http"),
    ({"a": {"command": "x", "timeout_s": 0}}, "timeout_s: must be a number of seconds"),
])
def test_a_wrong_table_names_its_key(table, message):
    with pytest.raises(ConfigError) as caught:
        parse_servers({"servers": table}, "cfg")
    assert message in str(caught.value) and "cfg [mcp.servers." in str(caught.value)


def test_secrets_come_from_the_environment_and_are_never_described(monkeypatch):
    (server,) = servers(s={"command": "x", "env": {"TOKEN": "${LACKPY_T_SECRET}"}, "headers": {"A": "Bearer ${LACKPY_T_SECRET}"}})
    monkeypatch.setenv("LACKPY_T_SECRET", "s3cr3t-value")
    assert server.resolved_env() == {"TOKEN": "s3cr3t-value"}
    assert server.resolved_headers() == {"A": "Bearer s3cr3t-value"}
    assert "s3cr3t" not in server.describe()
    monkeypatch.delenv("LACKPY_T_SECRET")
    with pytest.raises(ConfigError, match="LACKPY_T_SECRET is not set"):
        server.resolved_env()


# -- names and specs -------------------------------------------------------------------------


def test_names_are_qualified_mangled_and_never_alike():
    names = qualified_names("gh", ["list_issues", "get-issue", "get.issue", "2fa", "ok"])
    assert names["list_issues"] == "gh__list_issues" and names["ok"] == "gh__ok"
    assert names["2fa"] == "gh__t_2fa"
    assert names["get-issue"] != names["get.issue"]
    assert names["get-issue"].startswith("gh__get_issue_") and names["get-issue"].isidentifier()
    assert qualified_names("gh", ["get.issue", "get-issue"]) == {k: names[k] for k in ("get.issue", "get-issue")}  # the same every time


def tool(name="search", schema=None, output=None, annotations=None, description="Search things.\n\nMore detail.") -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema or {"type": "object"}, output_schema=output, annotations=annotations)


def test_a_spec_from_a_remote_schema():
    schema = {
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "default": 10},
            "query": {"type": "string", "description": "Words to find."},
            "node": {"$ref": "#/$defs/node"},
            "not an identifier": {"type": "string"},
        },
        "required": ["query"],
        "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
    }
    output = {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}, "required": ["result"]}
    (settings,) = servers(gh={"command": "x"})
    spec = remote_spec(settings, tool(schema=schema, output=output), "gh__search")
    assert spec.signature() == "gh__search(query: str, limit: int = 10, node: Any = None) -> list[str]"
    assert spec.description == "Search things."
    assert (spec.grade_w, spec.effects_ceiling) == (3, 3)  # undeclared: it may do anything
    assert spec.provider_config["wrapped"] is True and spec.provider_config["tool"] == "search"
    spec.check_arguments(("words",), {"node": {"child": {}}})
    with pytest.raises(Exception, match="expects a str"):
        spec.check_arguments((3,), {})


def test_a_long_description_is_cut_at_a_word_with_an_ellipsis_and_an_optional_number_shows_none():
    words = "alpha beta gamma delta epsilon " * 20  # 600 characters; 400 falls inside a word
    schema = {"type": "object", "properties": {"scale": {"type": "number", "description": "Zoom " + words}}}
    (settings,) = servers(gh={"command": "x"})
    spec = remote_spec(settings, tool(schema=schema, description=words + "\n\nSecond paragraph."), "gh__zoom")
    assert len(spec.description) <= DESCRIPTION_CHARS and spec.description.endswith("…")
    assert words.startswith(spec.description[:-1]) and words[len(spec.description) - 1] == " "  # ends where a word ends
    assert spec.args[0].description.endswith("…") and len(spec.args[0].description) <= DESCRIPTION_CHARS
    assert spec.signature() == "gh__zoom(scale: float | None = None) -> Any"
    assert remote_spec(settings, tool(description="x" * 900), "gh__x").description == "x" * (DESCRIPTION_CHARS - 1) + "…"  # one long word
    assert remote_spec(settings, tool(description="Short. " * 3), "gh__x").description == "Short. Short. Short."  # what fits is whole


def test_the_grade_comes_from_the_config_and_annotations_only_when_trusted():
    hints = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    (plain,) = servers(a={"command": "x"})
    (graded,) = servers(a={"command": "x", "grade": [2, 1], "tools": {"search": {"grade": [1, 0]}}})
    (trusting,) = servers(a={"command": "x", "trust_annotations": True})
    grade = lambda settings, name="search": (lambda s: (s.grade_w, s.effects_ceiling))(remote_spec(settings, tool(name, annotations=hints), "a__x"))  # noqa: E731
    assert grade(plain) == (3, 3)
    assert grade(graded) == (1, 0) and grade(graded, "other") == (2, 1)
    assert grade(trusting) == (1, 0)


def test_keys_are_stable_and_change_with_the_schema():
    first = tool_key("gh__search", {"type": "object", "properties": {"q": {"type": "string"}}}, None)
    assert first == tool_key("gh__search", {"properties": {"q": {"type": "string"}}, "type": "object"}, None)
    assert first != tool_key("gh__search", {"type": "object", "properties": {"q": {"type": "integer"}}}, None)
    assert first != tool_key("gh__find", {"type": "object", "properties": {"q": {"type": "string"}}}, None)


@pytest.mark.parametrize("schema, text", [
    ({"type": "string"}, "str"),
    ({"type": ["string", "null"]}, "str | None"),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "int | None"),
    ({"type": "array", "items": {"type": "number"}}, "list[float]"),
    ({"enum": ["a", "b"]}, 'Literal["a", "b"]'),
    ({"type": "object", "properties": {"id": {"type": "integer"}}}, '{"id": int}'),
    ({"$ref": "#/x"}, "Any"),
    ({}, "Any"),
    ({"anyOf": [{"type": k} for k in ("string", "number", "boolean", "object", "array", "null")]}, "Any"),  # {} written portably
    ({"anyOf": [{"type": k} for k in ("string", "number", "boolean", "object")]}, "str | float | bool | dict"),
])
def test_schema_text(schema, text):
    assert schema_text(schema) == text


# -- result values -----------------------------------------------------------------------


def spec_of(output=None):
    (settings,) = servers(s={"command": "x"})
    return remote_spec(settings, tool(output=output), "s__search")


WRAPPED = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}


@pytest.mark.parametrize("output, result, value", [
    (WRAPPED, types.CallToolResult(content=[], structured_content={"result": 7}), 7),
    (None, types.CallToolResult(content=[], structured_content={"a": 1}), {"a": 1}),
    (None, types.CallToolResult(content=[types.TextContent(type="text", text='{"words": 3}')]), {"words": 3}),
    (None, types.CallToolResult(content=[types.TextContent(type="text", text="plain words")]), "plain words"),
    (None, types.CallToolResult(content=[types.TextContent(type="text", text="12 apples")]), "12 apples"),
    (None, types.CallToolResult(content=[types.ImageContent(type="image", data="AAAA", mime_type="image/png")]), {"type": "image", "mime_type": "image/png", "data": "AAAA"}),
    (None, types.CallToolResult(content=[types.TextContent(type="text", text="a"), types.TextContent(type="text", text="b")]), ["a", "b"]),
])
def test_what_a_program_gets(output, result, value):
    assert result_value(spec_of(output), result) == value


def test_an_error_result_is_a_tool_error_with_the_servers_message():
    result = types.CallToolResult(content=[types.TextContent(type="text", text="no such\nrepository")], is_error=True)
    with pytest.raises(ToolError, match="^no such repository$"):
        result_value(spec_of(), result)


def test_list_tools_up_to():
    from lackpy.config import Config

    assert Config.from_dict({}).list_tools_up_to == 30
    assert Config.from_dict({"mcp": {"list_tools_up_to": 5}}).list_tools_up_to == 5
    with pytest.raises(ConfigError, match="list_tools_up_to must be a whole number"):
        Config.from_dict({"mcp": {"list_tools_up_to": 0}})
    with pytest.raises(ConfigError, match=r"\[mcp\] has unknown key\(s\) server"):
        Config.from_dict({"mcp": {"server": {}}})


def test_a_failure_reason_never_carries_a_secret(monkeypatch):
    from lackpy.remote.link import _reason

    monkeypatch.setenv("LACKPY_T_REASON_SECRET", "tok-998877")
    (server,) = servers(s={"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${LACKPY_T_REASON_SECRET}"}})
    assert _reason(ConnectionError("refused: header Authorization: Bearer tok-998877"), server) == "ConnectionError: refused: header Authorization: ***"
    assert _reason(ConnectionError("token tok-998877 rejected"), server) == "ConnectionError: token *** rejected"


def test_a_tool_may_have_its_own_timeout():
    (server,) = servers(s={"command": "x", "timeout_s": 30, "tools": {"slow": {"timeout_s": 2}}})
    assert server.timeout_for("slow") == 2.0 and server.timeout_for("other") == 30.0
    with pytest.raises(ConfigError, match=r"tools.slow.timeout_s: must be a number of seconds"):
        servers(s={"command": "x", "tools": {"slow": {"timeout_s": "soon"}}})


def test_a_tool_without_an_input_schema_or_with_every_argument_optional():
    (settings,) = servers(s={"command": "x"})
    bare = remote_spec(settings, tool(schema={}), "s__bare")
    assert bare.signature() == "s__bare() -> Any" and bare.args == []
    optional = remote_spec(settings, tool(schema={"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 3}}}), "s__opt")
    assert optional.signature() == "s__opt(a: str | None = None, b: int = 3) -> Any"
    optional.check_arguments((), {})
