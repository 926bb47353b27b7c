"""A write tool's answer never claims a write that did not happen: not for a write that changes nothing, nor when the
commit does not happen (a failed run, a conflict), nor for a file a later call put back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lackpy import LackpyService, run_program
from lackpy.run.claims import PUT_BACK

MODES = ["inprocess", "isolated"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("as it was\n")
    return root


def run(ws: Path, program: str, mode: str):
    """``program`` run through the Python API, every question answered yes."""
    async def main():
        with LackpyService(ws, trust=True) as svc:
            return await svc.run_program(program, kit="filesystem", mode=mode, approve=True)

    return asyncio.run(main())


@pytest.mark.parametrize("mode", MODES)
def test_a_write_of_the_same_content_is_no_change(ws: Path, mode: str):
    before = (ws / "keep.txt").stat().st_mtime_ns
    result = run(ws, "write_file('keep.txt', 'as it was\\n')", mode)
    assert result.success, result.error
    assert result.output == "keep.txt already has this content; nothing written"
    assert result.trace[0].result == repr(result.output)
    assert result.files_modified == [] and result.files_created == []
    assert (ws / "keep.txt").read_text() == "as it was\n" and (ws / "keep.txt").stat().st_mtime_ns == before


@pytest.mark.parametrize("mode", MODES)
def test_a_file_put_back_by_a_later_call_is_not_written_and_its_first_answer_is_taken_back(ws: Path, mode: str):
    result = run(ws, "a = write_file('keep.txt', 'changed')\nb = write_file('keep.txt', 'as it was\\n')\n[a, b]", mode)
    assert result.success, result.error
    assert result.output == [f"not written to keep.txt: {PUT_BACK}", "keep.txt already has this content; nothing written"]
    assert [entry.result for entry in result.trace] == [repr(answer) for answer in result.output]
    assert result.files_modified == [] and (ws / "keep.txt").read_text() == "as it was\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_failed_run_takes_back_what_its_writes_answered(ws: Path, mode: str):
    result = run(ws, "print(write_file('keep.txt', 'changed'))\nread_file('missing.txt')", mode)
    assert not result.success and result.error_kind == "tool"
    said = "not written to keep.txt: the program failed, and a failed run writes nothing"
    assert result.trace[0].result == repr(said) and result.printed == said + "\n"
    assert "wrote" not in json.dumps(result.to_dict())
    assert (ws / "keep.txt").read_text() == "as it was\n"


def test_a_write_over_a_file_changed_meanwhile_is_not_written_and_says_why(ws: Path):
    program = "a = read_file('keep.txt')\nwrite_file('keep.txt', a + 'more\\n')"
    with LackpyService(ws, trust=True) as svc:
        kit = svc.resolve_kit("filesystem")

        def changed_meanwhile(name: str, calls: int, moved: tuple[int, int]) -> None:
            if name == "read_file":
                (ws / "keep.txt").write_text("someone else's\n")

        result = run_program(program, kit, mode="inprocess", on_call=changed_meanwhile)
    assert result.error_kind == "conflict"
    assert result.output.startswith("not written to keep.txt: keep.txt changed on disk while the program ran; nothing was written")
    assert result.trace[1].result == repr(result.output)
    assert (ws / "keep.txt").read_text() == "someone else's\n"
