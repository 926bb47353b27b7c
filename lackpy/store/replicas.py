"""The replicas of a deployment, as the state store knows them: who is alive and where to reach it.

Each ``lackpy serve`` process is a replica with a random id, made when it
starts (``Replicas.start``), so a replica that restarts is a new one: what the
old one held in memory (a run waiting for an approval, background processes)
is never mistaken for the new one's. It is registered under ``replica:{id}``
(its advertised URL, when it started) for ``TTL_S`` seconds and renews that
every ``RENEW_S``; a replica that stops cleanly deregisters, one that is
killed drops out when its registration expires. "Alive" means registered.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from lackpy.store.contract import Store

#: How long a replica's registration lasts unless renewed, in seconds.
TTL_S = 10.0
#: How often a replica renews its registration, in seconds.
RENEW_S = 3.0
#: What a replica id looks like: what ``new_id`` makes, so an id read from a client is checked before it is a key.
ID = re.compile(r"[0-9a-f]{16}")


def new_id() -> str:
    """A replica id: 16 hex digits, random."""
    return secrets.token_hex(8)


class Replicas:
    """This replica (``me``, reached at ``url``) and the registry of its deployment in ``store``."""

    def __init__(self, store: Store, url: str | None = None, me: str | None = None) -> None:
        self.store, self.url = store, url
        self.me = me or new_id()
        self.started = time.time()

    def register(self) -> None:
        """Register (or renew) this replica for TTL_S seconds; StoreError when the store does not answer."""
        self.store.put(_key(self.me), {"url": self.url, "started": self.started}, TTL_S)

    def deregister(self) -> None:
        """Leave the registry (a clean stop); a store that does not answer is left to expire the registration."""
        self.store.delete(_key(self.me))

    def where(self, replica: str) -> str | None:
        """The URL replica ``replica`` is reached at, None when it is not registered (it stopped, or never was)."""
        if replica == self.me:
            return self.url
        if not isinstance(replica, str) or not ID.fullmatch(replica):
            return None
        found: Any = self.store.get(_key(replica))
        url = found.get("url") if isinstance(found, dict) else None
        return url if isinstance(url, str) else None

    def alive(self, replica: str) -> bool:
        """Whether ``replica`` is registered now (this one always is)."""
        return replica == self.me or self.where(replica) is not None

    def forget(self, replica: str) -> None:
        """Drop another replica's registration, when it was found not listening: it is gone, so what it held is lost."""
        if replica != self.me and ID.fullmatch(replica or ""):
            self.store.delete(_key(replica))


def _key(replica: str) -> str:
    return f"replica:{replica}"


__all__ = ["ID", "RENEW_S", "Replicas", "TTL_S", "new_id"]
