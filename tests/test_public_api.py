"""The public surface re-exported from lackpy/__init__.py."""

from __future__ import annotations

import subprocess
import sys

import lackpy

REQUIRED = {
    "LackpyService", "ToolSpec", "ArgSpec", "Toolbox", "resolve_kit", "ResolvedKit", "validate",
    "ValidationResult", "Grade", "compute_grade", "ExecutionResult", "LackpyError", "KitError",
    "UnknownKitError", "KitFileError", "UnknownToolError", "ToolError", "PathError", "hookimpl",
    "DelegateResult", "GenerationResult", "GenerationError", "InferenceError", "InferenceProvider",
}


def test_required_names_are_exported():
    """Every name the issue lists is in __all__ and importable from lackpy."""
    assert REQUIRED <= set(lackpy.__all__)
    for name in lackpy.__all__:
        assert getattr(lackpy, name) is not None


def test_all_is_sorted_and_listed_by_dir():
    """__all__ is sorted and dir(lackpy) shows it."""
    assert lackpy.__all__ == sorted(lackpy.__all__)
    assert set(lackpy.__all__) <= set(dir(lackpy))


def test_errors_share_one_base():
    """Every exported error class derives from LackpyError."""
    errors = [getattr(lackpy, n) for n in lackpy.__all__ if n.endswith("Error")]
    assert len(errors) >= 12
    assert all(issubclass(e, lackpy.LackpyError) for e in errors)


def test_import_is_lazy():
    """Importing lackpy loads neither RestrictedPython nor yaml nor pluggy."""
    code = "import sys, lackpy; print(sorted(m for m in ('RestrictedPython', 'yaml', 'pluggy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_attribute():
    """Unknown names raise AttributeError."""
    try:
        lackpy.NoSuchThing
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_the_custom_tools_page_example_runs_as_written(tmp_path, monkeypatch):
    """The custom tool block of docs/custom-tools.md, run in a workspace with a README.md."""
    import ast
    import asyncio
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "custom-tools.md").read_text()
    block = re.search(r"```python\n(.*?)```", page, re.S).group(1)
    (tmp_path / "README.md").write_text("# title\n\ntext\n")
    monkeypatch.chdir(tmp_path)
    body = "\n".join("    " + line for line in block.splitlines())
    scope: dict = {}
    exec(compile(ast.parse(f"async def example():\n{body}\n    return locals()"), "<README>", "exec"), scope)
    names = asyncio.run(scope["example"]())
    assert (names["result"].success, names["result"].output) == (True, 2)
    spec = names["count_lines"].lackpy_tool
    assert spec.signature() == "count_lines(path: str, blank: bool = True) -> int" and spec.grade_w == 1
    assert spec.to_openai()["function"]["parameters"]["required"] == ["path"]
