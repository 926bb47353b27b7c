"""Kits and the toolbox: tool metadata, providers, .kit files and kit resolution."""

from lackpy.kit.context import ToolContext, uses_context
from lackpy.kit.decorator import tool
from lackpy.kit.docs import resolve_doc
from lackpy.kit.kitfile import KitFile, parse_kit
from lackpy.kit.providers import PythonProvider
from lackpy.kit.resolve import ResolvedKit, resolve_kit
from lackpy.kit.search import ToolMatch
from lackpy.kit.spec import CATEGORIES, ArgSpec, ToolSpec
from lackpy.kit.toolbox import LackpyWarning, Toolbox, ToolProvider

__all__ = [
    "ArgSpec",
    "CATEGORIES",
    "KitFile",
    "LackpyWarning",
    "PythonProvider",
    "ResolvedKit",
    "ToolContext",
    "ToolMatch",
    "ToolProvider",
    "ToolSpec",
    "Toolbox",
    "parse_kit",
    "resolve_doc",
    "resolve_kit",
    "tool",
    "uses_context",
]
