"""The tools lackpy ships, each declared once with ``shipped`` (``@tool`` with the builtin provider)."""

from functools import partial

from lackpy.kit.decorator import tool

#: How the shipped tools are declared: ``@tool`` resolved by the ``builtin`` provider.
shipped = partial(tool, provider="builtin")
