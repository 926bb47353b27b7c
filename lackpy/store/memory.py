"""``MemoryStore``: the state store in this process's memory, the default for one replica."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from lackpy.store.contract import DEPLOYMENT, MOST_VALUES, Store, decode, encode, version
from lackpy.errors import StoreError


class MemoryStore(Store):
    """The store in this process's memory: the default for one replica."""

    shown = "the in-memory state store"

    def __init__(self, deployment: str = DEPLOYMENT, most: int = MOST_VALUES, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(deployment)
        self.most, self.clock = most, clock
        self._values: dict[str, tuple[float, bytes]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            found = self._live(key)
        return None if found is None else decode(found)

    def put(self, key: str, value: Any, ttl_s: float) -> None:
        data = encode(value)
        with self._lock:
            self._keep(key, data, ttl_s)

    def add(self, key: str, value: Any, ttl_s: float) -> bool:
        data = encode(value)
        with self._lock:
            if self._live(key) is not None:
                return False
            self._keep(key, data, ttl_s)
            return True

    def swap(self, key: str, value: dict, ttl_s: float, expected: int) -> bool:
        data = encode(value)
        with self._lock:
            if version(decode(self._live(key))) != expected:
                return False
            self._keep(key, data, ttl_s)
            return True

    def delete(self, key: str) -> None:
        with self._lock:
            self._values.pop(key, None)

    def scan(self, prefix: str) -> dict[str, Any]:
        with self._lock:
            found = {key: data for key in list(self._values) if key.startswith(prefix) and (data := self._live(key)) is not None}
        return {key: decode(data) for key, data in found.items()}

    def __len__(self) -> int:
        with self._lock:
            return sum(1 for key in list(self._values) if self._live(key) is not None)

    def _live(self, key: str) -> bytes | None:
        found = self._values.get(key)
        if found is None:
            return None
        if found[0] <= self.clock():
            del self._values[key]
            return None
        return found[1]

    def _keep(self, key: str, data: bytes, ttl_s: float) -> None:
        if ttl_s <= 0:
            raise StoreError(f"a value must have a lifetime above 0 s, not {ttl_s!r}")
        self._values.pop(key, None)
        if len(self._values) >= self.most:
            now = self.clock()
            for old in [k for k, (until, _) in self._values.items() if until <= now]:
                del self._values[old]
            if len(self._values) >= self.most:  # still full: the value that would expire first goes
                del self._values[min(self._values, key=lambda k: self._values[k][0])]
        self._values[key] = (self.clock() + ttl_s, data)


__all__ = ["MemoryStore"]
