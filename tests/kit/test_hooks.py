"""Every hook specification is documented and exercised by the test suite."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from lackpy import hookspecs
from lackpy.plugins import build_plugin_manager

TESTS = Path(__file__).resolve().parent.parent


def hookspec_functions() -> dict:
    """The functions of lackpy.hookspecs carrying the hookspec marker."""
    return {
        name: fn
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if getattr(fn, "lackpy_spec", None) is not None
    }


HOOKS = sorted(hookspec_functions())


def test_hookspecs_found():
    """The hookspecs module declares the four registration hooks and the two guardrail hooks."""
    assert HOOKS == ["after_tool_call", "before_tool_call", "register_inference_providers", "register_skill_dirs", "register_tool_providers", "register_tools"]


def test_manager_knows_every_hookspec():
    """The plugin manager exposes exactly the hooks declared in lackpy.hookspecs."""
    manager = build_plugin_manager()
    names = {name for name in vars(manager.hook) if not name.startswith("_")}
    assert names == set(HOOKS)


@pytest.mark.parametrize("name", HOOKS)
def test_hookspec_has_docstring(name):
    """Each hookspec explains what an implementation should do."""
    doc = inspect.getdoc(hookspec_functions()[name])
    assert doc and doc.strip()
    assert ("register(" in doc) if name.startswith("register_") else ("Return" in doc or "return" in doc)


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_tests(name):
    """Each hook name appears in at least one test file other than this one."""
    me = Path(__file__).resolve()
    users = [p for p in TESTS.rglob("test_*.py") if p.resolve() != me and name in p.read_text(encoding="utf-8")]
    assert users, f"no test file uses the hook '{name}'"
