"""Toolbox: registration rules, lookup, provider resolution and the model-facing description."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from lackpy.errors import ArgumentError, ProviderError, ToolboxError, UnknownToolError
from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.kit.toolbox import LackpyWarning, Toolbox


class CountingProvider:
    """A provider that builds a fresh echo function per resolve and counts resolves."""

    def __init__(self, name: str = "echo") -> None:
        self.name = name
        self.calls = 0

    def resolve(self, spec):
        self.calls += 1

        def echo(*args):
            return (spec.name, args)

        return echo


class RaisingProvider:
    """A provider whose resolve fails with an ordinary exception."""

    name = "broken"

    def resolve(self, spec):
        raise RuntimeError("backend unavailable")


class NonCallableProvider:
    """A provider that returns something that cannot be called."""

    name = "junk"

    def resolve(self, spec):
        return 42


@pytest.fixture
def tb(tmp_path: Path) -> Toolbox:
    """An empty toolbox over a temporary directory with the counting provider registered."""
    box = Toolbox(str(tmp_path))
    box.register_provider(CountingProvider())
    return box


def test_register_and_get(tb):
    """A registered spec is returned by get and reported by ``in``."""
    spec = ToolSpec("alpha", "echo")
    tb.register_tool(spec)
    assert tb.get("alpha") is spec
    assert "alpha" in tb
    assert "beta" not in tb


def test_list_tools_sorted(tb):
    """list_tools returns the specs sorted by name, whatever the registration order."""
    for name in ("zeta", "alpha", "mid"):
        tb.register_tool(ToolSpec(name, "echo"))
    assert [s.name for s in tb.list_tools()] == ["alpha", "mid", "zeta"]


def test_unknown_tool_names_closest(toolbox):
    """get of a misspelled tool raises UnknownToolError naming the closest tool."""
    with pytest.raises(UnknownToolError) as info:
        toolbox.get("read_fil")
    message = str(info.value)
    assert "unknown tool 'read_fil'" in message
    assert "read_file" in message


def test_unknown_tool_without_near_miss(toolbox):
    """An unknown tool with no near miss raises without a suggestion."""
    with pytest.raises(UnknownToolError) as info:
        toolbox.get("zzzzzz")
    assert str(info.value) == "unknown tool 'zzzzzz'"


def test_unknown_tool_is_a_toolbox_error(tb):
    """UnknownToolError is caught as ToolboxError."""
    with pytest.raises(ToolboxError):
        tb.get("nothing")


@pytest.mark.parametrize("name", ["class", "for", "None", "not-ident", "1abc", "has space", ""])
def test_invalid_identifier_names_refused(tb, name):
    """Keywords and non-identifiers cannot be tool names."""
    with pytest.raises(ToolboxError) as info:
        tb.register_tool(ToolSpec(name, "echo"))
    assert "cannot name a tool in programs" in str(info.value)
    assert name not in tb


@pytest.mark.parametrize("name", ["_private", "__dunder__", "open", "eval", "exec", "getattr", "type"])
def test_reserved_names_refused(tb, name):
    """Leading-underscore names and the language's forbidden names cannot be tool names."""
    with pytest.raises(ToolboxError) as info:
        tb.register_tool(ToolSpec(name, "echo"))
    assert "cannot name a tool in programs" in str(info.value) and "not starting with a digit or '_'" in str(info.value)
    assert name not in tb


def test_register_tool_requires_toolspec(tb):
    """register_tool with something other than a ToolSpec raises ToolboxError."""
    with pytest.raises(ToolboxError) as info:
        tb.register_tool({"name": "x", "provider": "echo"})
    assert "dict" in str(info.value)


def test_reregister_identical_is_noop(tb):
    """Registering an equal spec again is silently accepted and keeps the cached impl."""
    tb.register_tool(ToolSpec("alpha", "echo", description="d"))
    first = tb.resolve("alpha")
    tb.register_tool(ToolSpec("alpha", "echo", description="d"))
    assert tb.resolve("alpha") is first
    assert len(tb.list_tools()) == 1


def test_reregister_different_raises(tb):
    """A different spec with an existing name raises and leaves the original in place."""
    original = ToolSpec("alpha", "echo", description="one")
    tb.register_tool(original)
    with pytest.raises(ToolboxError) as info:
        tb.register_tool(ToolSpec("alpha", "echo", description="two"))
    assert "already registered" in str(info.value)
    assert "replace=True" in str(info.value)
    assert tb.get("alpha") is original


def test_reregister_with_replace(tb):
    """replace=True swaps the spec and drops the cached implementation."""
    tb.register_tool(ToolSpec("alpha", "echo", description="one"))
    first = tb.resolve("alpha")
    tb.register_tool(ToolSpec("alpha", "echo", description="two"), replace=True)
    assert tb.get("alpha").description == "two"
    assert tb.resolve("alpha") is not first


@pytest.mark.parametrize("name, kind", [("sorted", "builtin"), ("len", "builtin"), ("json", "stdlib module"), ("os", "stdlib module")])
def test_masking_name_warns_and_registers(tb, name, kind):
    """A tool named like a builtin or stdlib module warns with LackpyWarning and is still registered."""
    with pytest.warns(LackpyWarning, match=f"masks the Python {kind} '{name}'"):
        tb.register_tool(ToolSpec(name, "echo", args=[ArgSpec("n", "int")]))
    assert name in tb
    assert tb.bound(name)(1) == (name, (1,))


def test_plain_name_does_not_warn(tb):
    """An ordinary tool name registers without any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tb.register_tool(ToolSpec("count_lines", "echo"))
    assert "count_lines" in tb


def test_resolve_caches(tb):
    """resolve returns the same object twice and asks the provider only once."""
    tb.register_tool(ToolSpec("alpha", "echo", args=[ArgSpec("text", "str")]))
    provider = tb._providers["echo"]
    first = tb.resolve("alpha")
    second = tb.resolve("alpha")
    assert first is second
    assert provider.calls == 1
    assert first("x") == ("alpha", ("x",))


def test_resolve_checks_arguments_against_the_spec(tb):
    """The resolved tool refuses a call that does not fit its ArgSpecs with ArgumentError; a spec with no args takes none."""
    tb.register_tool(ToolSpec("alpha", "echo", args=[ArgSpec("text", "str")]))
    tb.register_tool(ToolSpec("beta", "echo"))
    with pytest.raises(ArgumentError) as info:
        tb.resolve("alpha")(3)
    assert str(info.value) == "alpha: argument 'text' expects a str, got 3 (int)"
    assert info.value.kind == "argument"
    assert tb.resolve("beta")() == ("beta", ())
    with pytest.raises(ArgumentError) as info:
        tb.resolve("beta")("x")
    assert str(info.value) == "beta: takes at most 0 positional arguments, got 1; call it as beta()"


def test_registering_does_not_resolve(tb):
    """Registering a tool does not call its provider."""
    tb.register_tool(ToolSpec("alpha", "echo"))
    assert tb._providers["echo"].calls == 0


def test_resolve_unknown_tool(tb):
    """resolve of an unregistered tool raises UnknownToolError."""
    with pytest.raises(UnknownToolError):
        tb.resolve("ghost")


def test_missing_provider_raises_naming_it(tb):
    """A spec whose provider is not registered raises ProviderError naming the provider and the tool."""
    tb.register_tool(ToolSpec("remote", "mcp"))
    with pytest.raises(ProviderError) as info:
        tb.resolve("remote")
    message = str(info.value)
    assert "'mcp'" in message
    assert "'remote'" in message
    assert "echo" in message  # the registered providers are listed


def test_provider_exception_becomes_provider_error(tb):
    """A provider whose resolve raises is reported as ProviderError with the cause."""
    tb.register_provider(RaisingProvider())
    tb.register_tool(ToolSpec("fragile", "broken"))
    with pytest.raises(ProviderError) as info:
        tb.resolve("fragile")
    message = str(info.value)
    assert "broken" in message and "fragile" in message
    assert "RuntimeError: backend unavailable" in message
    assert isinstance(info.value.__cause__, RuntimeError)


def test_provider_returning_non_callable(tb):
    """A provider that returns a non-callable raises ProviderError and nothing is cached."""
    tb.register_provider(NonCallableProvider())
    tb.register_tool(ToolSpec("odd", "junk"))
    with pytest.raises(ProviderError) as info:
        tb.resolve("odd")
    assert "non-callable" in str(info.value)
    with pytest.raises(ProviderError):
        tb.resolve("odd")


@pytest.mark.parametrize(
    "provider",
    [object(), type("NoName", (), {"resolve": lambda self, spec: None})(), type("NoResolve", (), {"name": "x"})(),
     type("EmptyName", (), {"name": "", "resolve": lambda self, spec: None})()],
    ids=["nothing", "no-name", "no-resolve", "empty-name"],
)
def test_register_provider_requires_name_and_resolve(tb, provider):
    """A provider without a name string or a resolve method raises ToolboxError."""
    with pytest.raises(ToolboxError) as info:
        tb.register_provider(provider)
    assert "'name'" in str(info.value) and "resolve" in str(info.value)


def test_register_provider_twice(tb):
    """The same provider object again is fine; a different one with that name needs replace=True."""
    existing = tb._providers["echo"]
    tb.register_provider(existing)
    with pytest.raises(ToolboxError) as info:
        tb.register_provider(CountingProvider())
    assert "already registered" in str(info.value)
    assert tb._providers["echo"] is existing


def test_replacing_provider_drops_its_cached_impls(tb):
    """replace=True on a provider makes its tools resolve again through the new provider."""
    tb.register_tool(ToolSpec("alpha", "echo"))
    tb.resolve("alpha")
    new = CountingProvider()
    tb.register_provider(new, replace=True)
    tb.resolve("alpha")
    assert new.calls == 1
    assert tb.providers() == ["echo"]


def test_bound_passes_context(tmp_path: Path):
    """bound gives uses_context tools the toolbox context, or the context passed in."""

    @uses_context
    def where(ctx, suffix):
        return ctx.root + suffix

    class Provider:
        name = "ctx"

        def resolve(self, spec):
            return where

    tb = Toolbox(str(tmp_path))
    tb.register_provider(Provider())
    tb.register_tool(ToolSpec("where", "ctx", args=[ArgSpec("suffix", "str")]))
    assert tb.bound("where")("!") == tb.context.root + "!"
    other = tmp_path / "other"
    other.mkdir()
    assert tb.bound("where", ToolContext(other))("?") == str(other.resolve()) + "?"


def test_bound_plain_function_unchanged(tb):
    """bound returns a non-context implementation as it is."""
    tb.register_tool(ToolSpec("alpha", "echo"))
    assert tb.bound("alpha") is tb.resolve("alpha")


def test_format_description_list(toolbox):
    """format_description of a list gives one 'signature: description' line per tool, in order."""
    text = toolbox.format_description(["read_file", "find_files"])
    assert text.splitlines() == [
        "read_file(path: str, offset: int | None = None, limit: int | None = None) -> str: Read a text file in the workspace and return its contents.",
        "find_files(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]: List workspace files matching a glob pattern such as '**/*.py'.",
    ]


def test_format_description_alias_dict(toolbox):
    """format_description of an alias dict renders each tool under its alias."""
    text = toolbox.format_description({"find": "find_files", "cat": "read_file"})
    assert text.splitlines() == [
        "find(pattern: str, kind: Literal['file', 'dir', 'any', 'text'] | None = None) -> list[str]: List workspace files matching a glob pattern such as '**/*.py'.",
        "cat(path: str, offset: int | None = None, limit: int | None = None) -> str: Read a text file in the workspace and return its contents.",
    ]


def test_format_description_default_all_and_no_description(tb):
    """Without arguments every tool is listed sorted; a tool without description has no colon suffix."""
    tb.register_tool(ToolSpec("beta", "echo", args=[ArgSpec("n", "int")], returns="int", description="B"))
    tb.register_tool(ToolSpec("alpha", "echo"))
    assert tb.format_description() == "alpha() -> Any\nbeta(n: int) -> int: B"


def test_format_description_unknown_tool(toolbox):
    """format_description of an unknown tool raises UnknownToolError."""
    with pytest.raises(UnknownToolError):
        toolbox.format_description(["read_fil"])


def test_kits_dir_is_in_workspace(tmp_path: Path):
    """The toolbox's kits_dir is .lackpy/kits under the resolved workspace."""
    tb = Toolbox(str(tmp_path))
    assert tb.kits_dir == tmp_path.resolve() / ".lackpy" / "kits"
