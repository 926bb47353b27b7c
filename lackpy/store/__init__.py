"""The state store: what a later call of ``lackpy serve`` may need from an earlier one, kept where every replica can read it.

Two implementations of one small contract (``Store``):

- ``MemoryStore``: in this process, the default; nothing to install, and
  nothing shared, so one replica only.
- ``RedisStore`` (``lackpy.store.redis``): a Redis server the replicas of one
  deployment share (``lackpy serve --http --store redis://HOST:PORT/DB``).

Values are plain data (a JSON object: no pickle, nothing a reader could run),
at most ``MAX_VALUE_BYTES`` each as JSON, and every value expires: a store
never grows without bound. Keys are namespaced per deployment
(``lackpy:{deployment}:{key}``), so two deployments can share a Redis.

A store that cannot be reached raises ``StoreError`` (kind ``store``): a call
that needs it fails saying so; it never goes on as if nothing were kept.
"""

from __future__ import annotations

from lackpy.errors import UsageError
from lackpy.store.contract import DEPLOYMENT, MAX_VALUE_BYTES, Store, decode, encode
from lackpy.store.memory import MemoryStore


def open_store(url: str | None, deployment: str = DEPLOYMENT) -> Store:
    """The store ``url`` names: ``memory`` (or None) for this process's, ``redis://HOST:PORT/DB`` (or ``rediss://``) for a shared one.

    Raises UsageError for anything else, or when the Redis client is not installed.
    """
    if url is None or url == "memory":
        return MemoryStore(deployment)
    if isinstance(url, str) and url.startswith(("redis://", "rediss://", "unix://")):
        from lackpy.store.redis import RedisStore

        return RedisStore(url, deployment)
    raise UsageError(f"--store {url!r}: give memory, or redis://HOST:PORT/DB for a Redis the replicas share")


__all__ = ["DEPLOYMENT", "MAX_VALUE_BYTES", "MemoryStore", "Store", "decode", "encode", "open_store"]
