"""A remote tool's category: the config's (the tool's own, else its server's), else none; a bad one names its key."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp import types  # noqa: E402

from lackpy.errors import ConfigError  # noqa: E402
from lackpy.kit.search import rank  # noqa: E402
from lackpy.remote.enroll import remote_spec  # noqa: E402
from lackpy.remote.settings import parse_servers  # noqa: E402


def tool(name: str, description: str = "Post a message to a channel.") -> types.Tool:
    return types.Tool(name=name, description=description, input_schema={"type": "object"})


def test_a_tool_takes_its_own_category_else_its_servers_else_none():
    chat, bare = parse_servers(
        {
            "servers": {
                "chat": {"command": "chat-server", "category": "communication", "tools": {"upload": {"category": "media"}}},
                "bare": {"command": "bare-server"},
            }
        }
    )
    assert remote_spec(chat, tool("post"), "chat__post").category == "communication"
    assert remote_spec(chat, tool("upload"), "chat__upload").category == "media"
    spec = remote_spec(bare, tool("post"), "bare__post")
    assert spec.category == "" and spec.tags == ["mcp", "bare"]


def test_the_category_ranks_remote_tools_like_any_other():
    (chat,) = parse_servers({"servers": {"chat": {"command": "x", "category": "communication"}}})
    specs = {"chat__post": remote_spec(chat, tool("post"), "chat__post"), "chat__list": remote_spec(chat, tool("list", "List channels."), "chat__list")}
    found = rank("communication message", specs)
    assert [m.name for m in found] == ["chat__post", "chat__list"] and found[0].score == 3


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"command": "x", "category": "Chat"}, r"\[mcp.servers.a\] category: 'Chat' is not a category"),
        ({"command": "x", "category": 3}, r"\[mcp.servers.a\] category: must be a string"),
        ({"command": "x", "tools": {"t": {"category": "a b"}}}, r"tools.t.category: 'a b' is not a category"),
    ],
)
def test_a_malformed_category_names_its_key(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse_servers({"servers": {"a": entry}})
