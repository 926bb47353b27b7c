"""What another server returns reaches the program whole: images, audio, embedded resources and links keep their payload."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from .test_remote_servers import server_table, serving, workspace_with  # noqa: E402  (the same real stdio servers)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with serving(workspace_with(tmp_path_factory.mktemp("media") / "ws", server_table("media", "media", grade="[0, 0]"))) as svc:
        yield svc


def run(svc, program: str, **options):
    return asyncio.run(svc.run_program(program, kit="media__picture,media__everything,media__roots,media__list_roots", **options))


@pytest.mark.parametrize("mode", ["inprocess", "isolated"])
def test_every_kind_of_block_keeps_what_it_carries(service, mode):
    result = run(service, "media__everything()", mode=mode)
    assert result.success, result.error
    text, audio, memo, blob, link = result.output
    assert text == "here it is"
    assert audio == {"type": "audio", "mime_type": "audio/wav", "data": base64.b64encode(b"RIFFwave").decode()}
    assert memo == {"type": "resource", "uri": "memo://one", "mime_type": "text/plain", "text": "the memo text"}
    assert blob == {"type": "resource", "uri": "blob://two", "mime_type": "application/octet-stream", "blob": "AAE="}
    assert link == {"type": "resource_link", "uri": "file:///docs/readme.md", "name": "readme", "mime_type": "text/markdown", "description": "the readme"}


def test_an_image_comes_whole_within_the_budget(service):
    result = run(service, "media__picture(size=300)", mode="inprocess")
    assert result.success, result.error
    assert result.output["type"] == "image" and result.output["mime_type"] == "image/png"
    assert base64.b64decode(result.output["data"]) == bytes(range(256)) + bytes(range(44))
    assert "cut_bytes" not in result.output


def test_an_image_over_the_budget_is_cut_and_says_so(service):
    program = 'p = media__picture(size=300000)\n{"mime": p["mime_type"], "size": len(p["data"]), "cut": p["cut_bytes"]}'
    result = run(service, program, mode="inprocess", limits={"max_output_bytes": 64 * 1024})
    assert result.success, result.error
    full = len(base64.b64encode(bytes(300000)))
    assert result.output["mime"] == "image/png"
    assert result.output["size"] < 64 * 1024 and result.output["size"] + result.output["cut"] >= full - 200


def test_lackpy_declares_roots_to_the_servers_it_uses(service):
    result = run(service, "media__roots()", mode="inprocess")
    assert result.success, result.error
    assert result.output is True


def test_its_roots_are_the_workspace_alone_when_a_2026_server_asks(service):
    result = run(service, "media__list_roots()", mode="inprocess")
    assert result.success, result.error
    assert result.output == [["ws", Path(service.workspace).resolve().as_uri()]]
