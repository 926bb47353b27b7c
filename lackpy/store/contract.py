"""The state store's contract (``Store``) and its one encoding: plain data as compact JSON, bounded."""

from __future__ import annotations

import abc
import collections
import json
import re
from typing import Any

from lackpy.errors import StoreError, UsageError

#: The most one value may take, as compact JSON.
MAX_VALUE_BYTES = 4 * 1024 * 1024
#: The most values a MemoryStore holds; past it, the one that expires first goes.
MOST_VALUES = 100_000
#: The deployment name when none is given: replicas that share a store and a name share state.
DEPLOYMENT = "default"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def encode(value: Any) -> bytes:
    """``value`` as compact JSON bytes; StoreError when it is not plain data or is over MAX_VALUE_BYTES."""
    try:
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the state store keeps plain data only (JSON): {exc}") from None
    if len(data) > MAX_VALUE_BYTES:
        raise StoreError(f"a value of {len(data)} bytes is over the {MAX_VALUE_BYTES} bytes the state store keeps for one value")
    return data


def decode(data: bytes | str | None) -> Any:
    """The value ``encode`` wrote (None for none); StoreError for bytes that are not JSON."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        raise StoreError("the state store holds a value that is not JSON; it was not written by lackpy (check the deployment name)") from None


class Store(abc.ABC):
    """The contract: plain values under string keys, each with a lifetime in seconds, in one deployment's namespace."""

    #: What the store is, for messages (never a password).
    shown = "the state store"
    #: Whether other processes (replicas) read and write the same values: a process-local store is not.
    shared = False

    def __init__(self, deployment: str = DEPLOYMENT) -> None:
        if not isinstance(deployment, str) or not _NAME.fullmatch(deployment):
            raise UsageError(f"deployment name {deployment!r}: use letters, digits, '.', '_' and '-' (at most 64), starting with a letter or digit")
        self.deployment = deployment
        self.prefix = f"lackpy:{deployment}:"
        #: How many operations failed, by operation (``get``, ``put``, ...): metrics read it.
        self.errors: collections.Counter[str] = collections.Counter()

    @abc.abstractmethod
    def get(self, key: str) -> Any:
        """The value under ``key``, or None when there is none (or it expired)."""

    @abc.abstractmethod
    def put(self, key: str, value: Any, ttl_s: float) -> None:
        """Keep ``value`` under ``key`` for ``ttl_s`` seconds, in place of any value there."""

    @abc.abstractmethod
    def add(self, key: str, value: Any, ttl_s: float) -> bool:
        """Keep ``value`` under ``key`` only if nothing is there; whether it was kept."""

    @abc.abstractmethod
    def swap(self, key: str, value: dict, ttl_s: float, expected: int) -> bool:
        """Keep ``value`` (a dict whose ``"v"`` is its version) only if the version there is ``expected``; whether it was kept.

        The version there is the ``"v"`` of the value under ``key``, 0 when
        there is none: so two writers that read the same version never both
        win, and the one that lost knows (a version number, not last writer wins).
        """

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Forget ``key`` (nothing when it is not there)."""

    @abc.abstractmethod
    def scan(self, prefix: str) -> dict[str, Any]:
        """Every value whose key starts with ``prefix``, by key (without the namespace); for small sets (replicas)."""

    def ping(self) -> None:
        """Return when the store answers; StoreError when it does not."""

    def close(self) -> None:
        """Let go of connections; the store is not used after."""


def version(value: Any) -> int:
    """The version ``swap`` compares: a dict's int ``"v"``, 0 for no value, -1 for a value that has none."""
    if value is None:
        return 0
    found = value.get("v") if isinstance(value, dict) else None
    return found if type(found) is int else -1


__all__ = ["DEPLOYMENT", "MAX_VALUE_BYTES", "MOST_VALUES", "Store", "decode", "encode", "version"]
