"""``RedisStore``: the state store in a Redis server the replicas of a deployment share (``lackpy[team]``).

Every operation is one Redis command with a bounded wait (``TIMEOUT_S``);
a server that does not answer in time, refuses the connection or answers
with an error is a ``StoreError`` naming the store (its host, port and
database; never a password), counted in ``errors``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from lackpy.errors import StoreError, UsageError
from lackpy.store.contract import DEPLOYMENT, Store, decode, encode

#: How long one Redis command may take, connecting included, in seconds.
TIMEOUT_S = 2.0
#: How many keys one SCAN step asks for.
SCAN_COUNT = 500


#: ``swap`` in one step on the server: the version of the value there (as ``contract.version`` reads it), then SET if it is the one expected.
_SWAP = """
local found = redis.call('GET', KEYS[1])
local v = 0
if found then
  local ok, doc = pcall(cjson.decode, found)
  if ok and type(doc) == 'table' and type(doc['v']) == 'number' and doc['v'] == math.floor(doc['v']) then v = doc['v'] else v = -1 end
end
if v ~= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
"""


class RedisStore(Store):
    """The state store in Redis: ``SET`` with ``PX`` (and ``NX`` for ``add``), ``GET``, ``DEL``, ``SCAN``, and a script for ``swap``."""

    shared = True

    def __init__(self, url: str, deployment: str = DEPLOYMENT, timeout_s: float = TIMEOUT_S) -> None:
        super().__init__(deployment)
        try:
            import redis
        except ImportError:
            raise UsageError("--store redis://...: the Redis client is not installed; pip install 'lackpy[team]'") from None
        parts = urlsplit(url)
        self.shown = f"the Redis state store at {parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
        try:
            self._redis = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s, health_check_interval=30)
        except ValueError as exc:
            raise UsageError(f"--store: {exc}; give redis://HOST:PORT/DB") from None
        self._failures = (redis.RedisError, OSError)
        self._swap = self._redis.register_script(_SWAP)

    def get(self, key: str) -> Any:
        return decode(self._do("get", self._redis.get, self.prefix + key))

    def put(self, key: str, value: Any, ttl_s: float) -> None:
        self._do("put", self._redis.set, self.prefix + key, encode(value), px=_ms(ttl_s))

    def add(self, key: str, value: Any, ttl_s: float) -> bool:
        return bool(self._do("add", self._redis.set, self.prefix + key, encode(value), px=_ms(ttl_s), nx=True))

    def swap(self, key: str, value: dict, ttl_s: float, expected: int) -> bool:
        data = encode(value)
        return bool(self._do("swap", self._swap, keys=[self.prefix + key], args=[data, int(expected), _ms(ttl_s)]))

    def delete(self, key: str) -> None:
        self._do("delete", self._redis.delete, self.prefix + key)

    def scan(self, prefix: str) -> dict[str, Any]:
        keys = list(self._do("scan", lambda: list(self._redis.scan_iter(match=_glob(self.prefix + prefix) + "*", count=SCAN_COUNT))))
        if not keys:
            return {}
        values = self._do("scan", self._redis.mget, keys)
        cut = len(self.prefix)
        return {key.decode()[cut:]: decode(value) for key, value in zip(keys, values) if value is not None}

    def ping(self) -> None:
        self._do("ping", self._redis.ping)

    def close(self) -> None:
        try:
            self._redis.close()
        except self._failures:
            pass

    def _do(self, operation: str, command: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except self._failures as exc:
            self.errors[operation] += 1
            raise StoreError(f"{self.shown} did not answer ({type(exc).__name__}: {_first_line(exc)}); nothing was kept or read, try again when it is back") from None


def _ms(ttl_s: float) -> int:
    if ttl_s <= 0:
        raise StoreError(f"a value must have a lifetime above 0 s, not {ttl_s!r}")
    return max(1, round(ttl_s * 1000))


def _glob(text: str) -> str:
    """``text`` with Redis's glob characters escaped, so a prefix matches only itself."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0][:200]


__all__ = ["RedisStore"]
