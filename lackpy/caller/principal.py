"""Who a served run is for, as the server checked it: held for the run, so its audit records name the caller.

``lackpy serve`` with an issuer (``lackpy.mcp.bearer``) knows each caller
by the subject of its access token; it sets ``WHO`` for the call, and a run
thread gets it with the call's context (the scheduler runs each run in a
copy of it). Without an issuer the server cannot tell one caller from
another, and nothing is set.
"""

from __future__ import annotations

from contextvars import ContextVar

#: The checked subject of the call being served (its access token's ``sub``, printable), or None.
WHO: ContextVar[str | None] = ContextVar("lackpy_who", default=None)


def current() -> str | None:
    """Who the call being served is for, if the server checked it."""
    return WHO.get()


__all__ = ["WHO", "current"]
