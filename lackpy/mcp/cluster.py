"""What the replicas of one ``lackpy serve`` deployment share: the state store, the registry of replicas, and a key.

One server process is one replica (``lackpy.store.replicas``). The key (at
least ``MIN_KEY_BYTES``, from ``--cluster-key-env``) never leaves the
replicas; two keys are derived from it, one per use:

- the ``requestState`` of a 2026-07-28 call that waits for input is sealed
  (``ReplicaCodec``, under the MCP SDK's own AES-GCM codec): it names the
  replica that holds the run, in clear so a balancer may route on it, and
  the name is sealed with the rest, so a client can neither forge a state
  nor send it to another replica;
- a request one replica forwards to another carries a hop mark
  (``hop``), so it is never forwarded again, and a client cannot make one.

With the default in-memory store the cluster is this process alone, under a
random key (``Cluster.local``): everything works as it did with one server.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from mcp.server.request_state import AESGCMRequestStateCodec, InvalidRequestState, RequestStateSecurity

from lackpy.mcp.bearer import caller_in
from lackpy.store import DEPLOYMENT, MemoryStore, Store
from lackpy.store.replicas import ID, Replicas

#: The fewest bytes of the key the replicas share.
MIN_KEY_BYTES = 32
#: How long a 2026-07-28 call's state is good for, in seconds: a run waits no longer for its client's answer.
STATE_TTL_S = 600.0


def _derived(key: bytes, use: str) -> bytes:
    """A key of its own for ``use``, so one secret serves two purposes without one's tokens passing as the other's."""
    return hmac.new(key, f"lackpy cluster key: {use}".encode(), hashlib.sha256).digest()


class ReplicaCodec:
    """The requestState codec (the MCP SDK's ``RequestStateCodec``): ``<replica>.<sealed>``, the replica sealed with the payload.

    Any replica holding the key unseals any state of the deployment; one
    whose replica name was changed, or that another key sealed, is refused.
    """

    def __init__(self, me: str, key: bytes) -> None:
        self.me = me
        self._sealer = AESGCMRequestStateCodec([key])

    def seal(self, payload: bytes) -> str:
        return f"{self.me}.{self._sealer.seal(self.me.encode() + b'|' + payload)}"

    def unseal(self, token: str) -> bytes:
        replica, sealed = _parts(token)
        raw = self._sealer.unseal(sealed)  # InvalidRequestState when altered or foreign
        named = replica.encode() + b"|"
        if not raw.startswith(named):
            raise InvalidRequestState("replica")
        return raw[len(named):]

    def replica(self, token: str) -> str | None:
        """The replica that sealed ``token``, verified; None when it is not a state this deployment sealed unchanged."""
        try:
            self.unseal(token)
        except InvalidRequestState:
            return None
        return _parts(token)[0]


def _parts(token: str) -> tuple[str, str]:
    replica, dot, sealed = token.partition(".") if isinstance(token, str) else ("", "", "")
    if not dot or not ID.fullmatch(replica):
        raise InvalidRequestState("malformed")
    return replica, sealed


def caller(ctx: Any) -> str | None:
    """Who is calling, as far as the server can tell: the issuer and subject of a checked access token
    (``lackpy.mcp.bearer``), else a digest of the request's Authorization header (None without one).

    A waiting run's state is bound to it (the SDK checks on every retry), so
    a client with another token cannot answer another's question.
    """
    checked = caller_in(ctx)
    if checked is not None:
        return checked.key
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    given = headers.get("authorization") if headers is not None else None
    return hashlib.sha256(given.encode()).hexdigest() if given else None


class Cluster:
    """This replica in its deployment: ``store``, ``replicas`` (``me`` among them), the state codec and the hop mark."""

    def __init__(self, store: Store, key: bytes, url: str | None = None) -> None:
        self.store = store
        self.replicas = Replicas(store, url)
        self.me = self.replicas.me
        self.codec = ReplicaCodec(self.me, _derived(key, "request state"))
        self._hop = _derived(key, "hop")

    @classmethod
    def local(cls, deployment: str = DEPLOYMENT) -> "Cluster":
        """This process alone: an in-memory store and a random key."""
        return cls(MemoryStore(deployment), secrets.token_bytes(MIN_KEY_BYTES))

    @property
    def shared(self) -> bool:
        """Whether other replicas share the store (so there is anyone to forward to)."""
        return self.store.shared

    def security(self) -> RequestStateSecurity:
        """The SDK's requestState policy: sealed by ``codec``, bound to the caller, for ``STATE_TTL_S``, in this deployment."""
        return RequestStateSecurity(codec=self.codec, ttl=STATE_TTL_S, bind_principal=caller, audience=f"lackpy:{self.store.deployment}")

    def hop(self, replica: str, body: bytes) -> str:
        """The mark of a request forwarded to ``replica`` with ``body``: good for that replica and body only."""
        return hmac.new(self._hop, replica.encode() + b"\n" + hashlib.sha256(body).digest(), hashlib.sha256).hexdigest()

    def forwarded(self, mark: str | None, body: bytes) -> bool:
        """Whether ``mark`` is a hop mark another replica made for a request of ``body`` to this one."""
        return isinstance(mark, str) and hmac.compare_digest(mark, self.hop(self.me, body))


__all__ = ["Cluster", "MIN_KEY_BYTES", "ReplicaCodec", "STATE_TTL_S", "caller"]
