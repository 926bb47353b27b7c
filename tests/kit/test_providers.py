"""The python provider (lazy imports) and third-party providers loaded from entry points."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

import lackpy.plugins
from lackpy.errors import ProviderError
from lackpy.kit.providers import PythonProvider
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.kit.toolbox import Toolbox
from lackpy.plugins import PluginWarning, build_plugin_manager, populate

# -- the python provider ------------------------------------------------------


@pytest.fixture
def tool_module(tmp_path: Path, monkeypatch):
    """A real module file on sys.path with a uniquely named module; removed from sys.modules afterwards."""
    name = f"lackpy_test_tools_{uuid.uuid4().hex}"
    directory = tmp_path / "modules"
    directory.mkdir()
    (directory / f"{name}.py").write_text(
        textwrap.dedent(
            """
            from lackpy import uses_context

            LOADED = True

            def count_lines(text):
                return len(text.splitlines())

            def shout(text):
                return text.upper()

            @uses_context
            def root_name(ctx):
                return ctx.workspace.name

            NOT_A_FUNCTION = 3
            """
        )
    )
    monkeypatch.syspath_prepend(str(directory))
    yield name
    sys.modules.pop(name, None)


@pytest.fixture
def py_toolbox(workspace: Path) -> Toolbox:
    """A toolbox with only the python provider registered."""
    tb = Toolbox(str(workspace))
    tb.register_provider(PythonProvider())
    return tb


def test_module_imported_only_on_first_resolve(py_toolbox, tool_module):
    """Registering a python tool does not import its module; the first resolve does."""
    py_toolbox.register_tool(
        ToolSpec(
            "count_lines",
            "python",
            provider_config={"module": tool_module, "function": "count_lines"},
            args=[ArgSpec("text", "str")],
        )
    )
    assert tool_module not in sys.modules
    fn = py_toolbox.resolve("count_lines")
    assert tool_module in sys.modules
    assert sys.modules[tool_module].LOADED is True
    assert fn("a\nb\nc\n") == 3


def test_function_defaults_to_tool_name(py_toolbox, tool_module):
    """Without 'function' in provider_config the tool's own name is looked up."""
    py_toolbox.register_tool(ToolSpec("shout", "python", provider_config={"module": tool_module}, args=[ArgSpec("text", "str")]))
    assert py_toolbox.bound("shout")("hey") == "HEY"


def test_python_tool_with_context(py_toolbox, tool_module, workspace):
    """A python tool marked uses_context receives the toolbox's ToolContext when bound."""
    py_toolbox.register_tool(
        ToolSpec("root_name", "python", provider_config={"module": tool_module, "function": "root_name"})
    )
    assert py_toolbox.bound("root_name")() == workspace.name


def test_python_tool_runs_in_a_program(service, tool_module):
    """A python-provider tool registered in the service's toolbox runs inside a program."""
    import asyncio

    service.toolbox.register_tool(
        ToolSpec(
            "count_lines",
            "python",
            provider_config={"module": tool_module, "function": "count_lines"},
            args=[ArgSpec("text", "str")],
        )
    )
    result = asyncio.run(service.run_program('count_lines(read_file("src/app.py"))', kit=["count_lines", "read_file"]))
    assert result.success, result.error
    assert result.output == 3


def test_missing_module(py_toolbox):
    """A module that cannot be imported gives a ProviderError naming the module and the cause."""
    missing = f"no_such_module_{uuid.uuid4().hex}"
    py_toolbox.register_tool(ToolSpec("gone", "python", provider_config={"module": missing, "function": "f"}))
    with pytest.raises(ProviderError) as info:
        py_toolbox.resolve("gone")
    assert info.value.kind == "toolbox"
    message = str(info.value)
    assert f"cannot import module '{missing}'" in message
    assert "ModuleNotFoundError" in message
    assert "'gone'" in message


def test_module_raising_at_import(py_toolbox, tmp_path, monkeypatch):
    """A module that raises while importing gives a ProviderError with the exception."""
    name = f"lackpy_test_broken_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    py_toolbox.register_tool(ToolSpec("fragile", "python", provider_config={"module": name}))
    with pytest.raises(ProviderError) as info:
        py_toolbox.resolve("fragile")
    assert "RuntimeError: boom at import" in str(info.value)


@pytest.mark.parametrize("function", ["nope", "NOT_A_FUNCTION"])
def test_missing_function(py_toolbox, tool_module, function):
    """A module without that callable gives a ProviderError naming module and function."""
    py_toolbox.register_tool(ToolSpec("thing", "python", provider_config={"module": tool_module, "function": function}))
    with pytest.raises(ProviderError) as info:
        py_toolbox.resolve("thing")
    assert str(info.value) == f"tool 'thing': module '{tool_module}' has no function '{function}'"


@pytest.mark.parametrize("config", [{}, {"function": "f"}, {"module": ""}, {"module": 3}])
def test_missing_module_key(py_toolbox, config):
    """provider_config without a usable 'module' gives a ProviderError saying so."""
    py_toolbox.register_tool(ToolSpec("thing", "python", provider_config=config))
    with pytest.raises(ProviderError) as info:
        py_toolbox.resolve("thing")
    assert "provider_config needs a 'module'" in str(info.value)
    assert "'thing'" in str(info.value)


def test_python_provider_is_registered_by_default(toolbox):
    """populate registers the python and builtin providers."""
    assert toolbox.providers() == ["builtin", "python"]


# -- entry-point plugins ---------------------------------------------------------

PLUGIN_SOURCE = textwrap.dedent(
    """
    import lackpy
    from lackpy import ArgSpec, ToolSpec


    class ShoutProvider:
        name = "shout"

        def resolve(self, spec):
            def shout(text):
                return text.upper()

            return shout


    @lackpy.hookimpl
    def register_tool_providers(register):
        register(ShoutProvider())


    @lackpy.hookimpl
    def register_tools(register):
        register(ToolSpec(name="shout", provider="shout", args=[ArgSpec("text", "str")], returns="str",
                          description="Upper-case a text"))
    """
)

CHILD = textwrap.dedent(
    """
    import asyncio, sys, warnings
    warnings.simplefilter("always")
    from lackpy import LackpyService, UnknownToolError
    svc = LackpyService(sys.argv[1])
    try:
        result = asyncio.run(svc.run_program('shout("hi")', kit=["shout"]))
    except UnknownToolError as exc:
        print("UnknownToolError:", exc)
    else:
        print(result.output if result.success else "FAILED: " + str(result.error))
    builtin = asyncio.run(svc.run_program('read_file("README.md")', kit="readonly"))
    print("builtin ok" if builtin.success and "Status: draft" in builtin.output else "builtin FAILED")
    """
)


def make_distribution(site: Path, dist: str, module: str, source: str) -> None:
    """Write an installed-distribution layout: NAME-1.0.dist-info with METADATA, entry_points.txt and the module."""
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[lackpy]\n{dist} = {module}\n")
    (site / f"{module}.py").write_text(source)


@pytest.fixture
def plugin_site(tmp_path: Path) -> Path:
    """A directory holding the installed 'myplug' distribution."""
    site = tmp_path / "site"
    make_distribution(site, "myplug", "myplug_mod", PLUGIN_SOURCE)
    return site


def run_child(site: Path, workspace: Path, load_plugins: str | None) -> subprocess.CompletedProcess:
    """Run CHILD in a fresh interpreter with ``site`` on PYTHONPATH and LACKPY_LOAD_PLUGINS as given."""
    env = dict(os.environ)
    env.pop("LACKPY_LOAD_PLUGINS", None)
    if load_plugins is not None:
        env["LACKPY_LOAD_PLUGINS"] = load_plugins
    env["PYTHONPATH"] = os.pathsep.join([str(site)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(workspace)],
        env=env,
        cwd=str(workspace),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_entry_point_plugin_provides_tool(plugin_site, workspace):
    """An installed distribution's 'lackpy' entry point adds a provider and a tool a program can call."""
    proc = run_child(plugin_site, workspace, load_plugins=None)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "HI"
    assert lines[1] == "builtin ok"


def test_entry_point_plugin_allowed_by_name(plugin_site, workspace):
    """LACKPY_LOAD_PLUGINS naming the plugin loads it."""
    proc = run_child(plugin_site, workspace, load_plugins="myplug")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "HI"


@pytest.mark.parametrize("value", ["", "otherplug"])
def test_entry_point_plugin_disabled(plugin_site, workspace, value):
    """LACKPY_LOAD_PLUGINS empty (or not naming the plugin) leaves the tool absent."""
    proc = run_child(plugin_site, workspace, load_plugins=value)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("UnknownToolError: unknown tool 'shout'")
    assert lines[1] == "builtin ok"


def test_broken_plugin_skipped_with_warning_in_child(plugin_site, workspace):
    """A plugin that raises at import is skipped with a PluginWarning; other plugins and built-ins still work."""
    make_distribution(plugin_site, "badplug", "badplug_mod", "raise ImportError('badplug is broken')\n")
    proc = run_child(plugin_site, workspace, load_plugins=None)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["HI", "builtin ok"]
    assert "PluginWarning" in proc.stderr
    assert "lackpy plugin 'badplug' was skipped: ImportError: badplug is broken" in proc.stderr


def test_broken_plugin_skipped_with_warning(tmp_path, workspace, monkeypatch):
    """In process: a failing entry point warns with PluginWarning and populate still registers the built-ins."""
    site = tmp_path / "site"
    module = f"badplug_{uuid.uuid4().hex}"
    make_distribution(site, "badplug", module, "raise RuntimeError('exploded')\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("LACKPY_LOAD_PLUGINS", "badplug")
    with pytest.warns(PluginWarning, match="lackpy plugin 'badplug' was skipped: RuntimeError: exploded"):
        manager = build_plugin_manager()
    assert manager.get_plugin("badplug") is None
    tb = Toolbox(str(workspace))
    populate(tb, manager)
    assert [s.name for s in tb.list_tools()] == ["edit_file", "fetch_url", "find_files", "grep", "list_dir", "list_processes", "poll_process", "read_file", "run_command", "search_tools", "skill_file", "start_process", "stop_process", "todo_read", "todo_set", "web_search", "write_file"]
    assert "Status: draft" in tb.bound("read_file")("README.md")
    assert module not in sys.modules


def test_default_plugins_registered():
    """The process-wide manager holds the two built-in plugin modules."""
    manager = lackpy.plugins.get_plugin_manager()
    for name in lackpy.plugins.DEFAULT_PLUGINS:
        assert manager.get_plugin(name) is sys.modules[name]
