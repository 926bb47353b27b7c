"""The ``python`` tool provider: a tool is a function in an importable module.

``provider_config = {"module": "my_tools", "function": "count_lines"}``. The
module is imported on the first resolve of a tool that names it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from lackpy.errors import ProviderError
from lackpy.hookspecs import hookimpl
from lackpy.kit.spec import ToolSpec


class PythonProvider:
    """Resolves tools with ``importlib.import_module(module)`` then ``getattr``."""

    name = "python"

    def resolve(self, spec: ToolSpec) -> Callable[..., Any]:
        config = spec.provider_config or {}
        module_name = config.get("module")
        function_name = config.get("function", spec.name)
        if not isinstance(module_name, str) or not module_name:
            raise ProviderError(f"tool '{spec.name}': provider_config needs a 'module' for the python provider")
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise ProviderError(
                f"tool '{spec.name}': cannot import module '{module_name}': {type(exc).__name__}: {exc}"
            ) from exc
        fn = getattr(module, function_name, None)
        if not callable(fn):
            raise ProviderError(f"tool '{spec.name}': module '{module_name}' has no function '{function_name}'")
        return fn


PROVIDER = PythonProvider()


@hookimpl
def register_tool_providers(register):
    register(PROVIDER)
