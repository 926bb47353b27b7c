"""``lackpy serve --http --oauth-issuer URL``: lackpy as an OAuth protected resource (the MCP authorization spec, both revisions).

Beside the one shared token (``--token-env``), a team's identity provider
can say who calls: every request carries an access token the issuer signed
for this server, and lackpy checks it where the request comes in, before
anything of it is read:

* the token is a JWT (RFC 9068) signed with one of the issuer's keys (its
  ``jwks_uri``, found from its metadata at start; a key id lackpy does not
  know makes it read the keys again, at most once every REFRESH_S), by an
  asymmetric algorithm only (never ``none``, never a shared secret); or,
  with ``--oauth-introspect-env VAR`` (``CLIENT_ID:SECRET``, lackpy's own
  client at the issuer), an opaque token the issuer's introspection endpoint
  (RFC 7662) says is active, for this resource (its ``aud``), not expired;
  the answer is kept for the token until it expires, at most INTROSPECTED_S;
* ``iss`` is the issuer, ``aud`` names this server's resource URL
  (``--oauth-resource``, by default ``http://HOST:PORT/mcp``), ``exp`` has not
  passed (``nbf`` and ``iat`` are checked too, with LEEWAY_S of clock skew),
  and it names a subject (``sub`` or ``client_id``);
* with ``--oauth-scope SCOPE=KIT,KIT`` (repeatable), the token's scopes must
  include one of them, and the caller may use only the kits its scopes give
  (within ``--allow-kits``); ``--oauth-scope SCOPE`` alone gives every
  allowed kit. Without any, a valid token gives the server's whole policy.
  A challenge names one scope: the first that gives the default kit.

A request without a token, or with one that fails a check, gets 401 with
``WWW-Authenticate: Bearer`` naming this server's protected-resource metadata
(RFC 9728), which lackpy serves without a token at
``/.well-known/oauth-protected-resource/mcp`` (and at the root form); a token
without a scope this server maps gets 403 ``insufficient_scope`` naming the
scopes that would do. Each refusal says in one line what failed, never the
token.

Who called (``Caller``: the issuer, the subject, the client and the kits)
stays in the request's scope for what stands behind: sessions, waiting runs
and tasks are bound to the issuer and subject rather than to the token, so a
refreshed token keeps its caller's work; the audit records, the run log and
the metrics (``lackpy_caller_runs``) name the subject; and
``--oauth-runs-per-caller N`` bounds the runs one caller has under way on a
replica (``Quota``).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import quote, urlsplit

from lackpy.errors import ResourceError, UsageError
from lackpy.mcp.front import refuse

#: Where a request's checked caller is left in its ASGI scope.
CALLER = "lackpy.caller"
#: The signing algorithms lackpy accepts: asymmetric only.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
#: Clock skew allowed on exp, nbf and iat, in seconds.
LEEWAY_S = 30
#: The shortest time between two reads of the issuer's keys, in seconds.
REFRESH_S = 30.0
#: How long a read of the issuer's metadata or keys may take, in seconds.
FETCH_S = 10.0
#: How long an introspection's answer is kept for its token, at most, in seconds; and for how many tokens.
INTROSPECTED_S = 60.0
MOST_INTROSPECTED = 10_000
#: Where the protected-resource metadata is served (RFC 9728: the root form and the one for the /mcp path).
PRM_PATHS = ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")


@dataclass(frozen=True)
class Caller:
    """Who a checked token says called: its issuer, subject, client, scopes, and the kits they give (None: every allowed kit)."""

    issuer: str
    subject: str
    client_id: str | None
    scopes: tuple[str, ...]
    kits: tuple[str, ...] | None

    @property
    def who(self) -> str:
        """The caller as audit records and the run log name it: its subject (one server, one issuer), printable, bounded."""
        return "".join(ch if ch.isprintable() and not ch.isspace() else "?" for ch in self.subject[:200])

    @property
    def key(self) -> str:
        """The caller's digest, what its sessions, waiting runs and tasks are bound to."""
        return hashlib.sha256(f"{self.issuer}\n{self.subject}".encode()).hexdigest()


class Refused(Exception):
    """A token lackpy does not accept: ``status`` (401 or 403), the OAuth ``error`` and a one-line description."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status, self.error, self.description = status, error, description


def parse_scopes(given: list[str] | tuple[str, ...] | None) -> dict[str, tuple[str, ...] | None]:
    """``--oauth-scope SCOPE[=KIT,KIT]`` each: the scope and the kits it gives (None: every allowed kit). UsageError for a bad one."""
    scopes: dict[str, tuple[str, ...] | None] = {}
    for item in given or ():
        scope, sep, kits = item.partition("=")
        scope = scope.strip()
        names = tuple(name.strip() for name in kits.split(",") if name.strip())
        if not scope or any(ch.isspace() or ch in '"\\' for ch in scope) or (sep and not names):
            raise UsageError(f"--oauth-scope expects SCOPE or SCOPE=KIT,KIT (e.g. lackpy:read=readonly), got {item!r}")
        scopes[scope] = names if sep else None
    return scopes


class Issuer:
    """The authorization server lackpy serve accepts tokens from, its keys, and what this server's scopes give."""

    def __init__(
        self, issuer: str, resource: str, scopes: Mapping[str, tuple[str, ...] | None], allowed: tuple[str, ...], default_kit: str | None = None
    ) -> None:
        for name, value in (("--oauth-issuer", issuer), ("--oauth-resource", resource)):
            parts = urlsplit(value)
            if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment:
                raise UsageError(f"{name} expects an http(s) URL without query or fragment, got {value!r}")
        outside = sorted({kit for kits in scopes.values() if kits for kit in kits} - set(allowed))
        if outside:
            raise UsageError(f"--oauth-scope names kit(s) {', '.join(outside)} this server does not allow; add them to --allow-kits first")
        self.issuer, self.resource, self.scopes, self.allowed = issuer, resource, dict(scopes), allowed
        #: The scope a 401 or 403 asks for: the first that gives the default kit (the least a client needs; a client asks for
        #: exactly what a challenge names, so naming every scope would have it ask for more than it may have).
        self.entry = next((scope for scope, kits in self.scopes.items() if kits is None or default_kit in kits), next(iter(self.scopes), None))
        self.keys: dict[str, Any] = {}
        self.jwks_uri = ""
        #: lackpy's client at the issuer, for introspection (``CLIENT_ID:SECRET``), and the issuer's endpoint for it.
        self.introspector: tuple[str, str] | None = None
        self.introspection_endpoint = ""
        self._introspected: dict[str, tuple[Caller, float]] = {}
        self._read_at = 0.0
        self._lock = threading.Lock()

    # -- the issuer's metadata and keys ---------------------------------------------------

    def discover(self) -> "Issuer":
        """Read the issuer's metadata and keys (at start); UsageError in one line when they cannot be read or do not fit."""
        metadata = None
        base = self.issuer.rstrip("/")
        parts = urlsplit(self.issuer)
        origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
        for url in (f"{origin}/.well-known/oauth-authorization-server{path}", f"{base}/.well-known/openid-configuration"):
            try:
                metadata = _get_json(url)
                break
            except (OSError, ValueError):
                continue
        if not isinstance(metadata, dict):
            raise UsageError(f"--oauth-issuer {self.issuer}: its metadata cannot be read (RFC 8414 or OpenID discovery); is the issuer URL right?")
        if metadata.get("issuer") != self.issuer:
            raise UsageError(f"--oauth-issuer {self.issuer}: its metadata names the issuer {metadata.get('issuer')!r}; give exactly that URL")
        if self.introspector is not None:
            endpoint = metadata.get("introspection_endpoint")
            if not isinstance(endpoint, str) or urlsplit(endpoint).scheme not in ("https", "http"):
                raise UsageError(f"--oauth-introspect-env: the metadata of {self.issuer} names no introspection_endpoint")
            self.introspection_endpoint = endpoint
        jwks_uri = metadata.get("jwks_uri")
        if isinstance(jwks_uri, str) and urlsplit(jwks_uri).scheme in ("https", "http"):
            self.jwks_uri = jwks_uri
            if self._read_keys(force=True) or self.introspector is not None:
                return self
            raise UsageError(f"--oauth-issuer {self.issuer}: its keys at {jwks_uri} cannot be read or hold no signing key lackpy accepts")
        if self.introspector is None:
            raise UsageError(f"--oauth-issuer {self.issuer}: its metadata has no jwks_uri, so lackpy cannot check its tokens' signatures; "
                             "for opaque tokens give --oauth-introspect-env")
        return self

    def _read_keys(self, force: bool = False) -> bool:
        """Read the issuer's keys again (not more often than REFRESH_S unless ``force``); whether any usable key is known now."""
        from jwt import PyJWK
        from jwt.exceptions import PyJWKError

        if not self.jwks_uri:
            return False
        with self._lock:
            if not force and time.monotonic() - self._read_at < REFRESH_S:
                return bool(self.keys)
            self._read_at = time.monotonic()
            try:
                document = _get_json(self.jwks_uri)
            except (OSError, ValueError):
                return bool(self.keys)
            keys = {}
            for entry in document.get("keys", []) if isinstance(document, dict) else []:
                if not isinstance(entry, dict) or entry.get("use", "sig") != "sig" or entry.get("alg", "RS256") not in ALGORITHMS:
                    continue
                try:
                    keys[entry.get("kid", "")] = PyJWK(entry)
                except (PyJWKError, ValueError, TypeError):
                    continue
            if keys:
                self.keys = keys
            return bool(self.keys)

    # -- checking a token ----------------------------------------------------------------

    def challenge(self) -> str:
        """The ``WWW-Authenticate`` value of a 401: where this server's metadata is (by its resource URL), and the scopes it maps."""
        parts = urlsplit(self.resource)
        value = f'Bearer resource_metadata="{parts.scheme}://{parts.netloc}{PRM_PATHS[0]}"'
        return value + (f', scope="{self.entry}"' if self.entry else "")

    def metadata(self) -> dict:
        """This server's protected-resource metadata (RFC 9728)."""
        document = {"resource": self.resource, "authorization_servers": [self.issuer], "bearer_methods_supported": ["header"],
                    "resource_name": "lackpy serve"}
        if self.scopes:
            document["scopes_supported"] = list(self.scopes)
        return document

    async def check(self, token: str) -> Caller:
        """The caller a token names; Refused when lackpy does not accept it."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            if self.introspector is not None:
                return await self._introspected_caller(token)
            raise Refused(401, "invalid_token", "the access token is not a JWT this server can read") from None
        algorithm, kid = header.get("alg"), header.get("kid", "")
        if algorithm not in ALGORITHMS:  # never echoed: the header is the caller's
            raise Refused(401, "invalid_token", f"the access token is not signed with an algorithm this server accepts ({', '.join(ALGORITHMS)})")
        key = self.keys.get(kid)
        if key is None and await asyncio.to_thread(self._read_keys) and kid in self.keys:
            key = self.keys[kid]
        if key is None or (key.algorithm_name not in (None, algorithm)):
            raise Refused(401, "invalid_token", "the access token is not signed with a key of the issuer this server accepts")
        try:
            claims = jwt.decode(token, key.key, algorithms=[algorithm], audience=self.resource, issuer=self.issuer, leeway=LEEWAY_S,
                                options={"require": ["exp", "iss", "aud"]})
        except jwt.ExpiredSignatureError:
            raise Refused(401, "invalid_token", "the access token has expired; get a new one") from None
        except jwt.InvalidAudienceError:
            raise Refused(401, "invalid_token", f"the access token is not for this server: its aud does not name {self.resource}") from None
        except jwt.InvalidIssuerError:
            raise Refused(401, "invalid_token", f"the access token was not issued by {self.issuer}") from None
        except jwt.PyJWTError as exc:
            raise Refused(401, "invalid_token", f"the access token fails its checks ({type(exc).__name__})") from None
        return self._caller(claims)

    async def _introspected_caller(self, token: str) -> Caller:
        """The caller of an opaque token, as the issuer's introspection says (kept until it expires, at most INTROSPECTED_S)."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        kept = self._introspected.get(digest)
        if kept is not None and kept[1] > time.time():
            return kept[0]
        try:
            answer = await asyncio.to_thread(self._introspect, token)
        except (OSError, ValueError):
            raise Refused(401, "invalid_token", "the issuer's introspection endpoint did not answer; try again") from None
        if not isinstance(answer, dict) or answer.get("active") is not True:
            raise Refused(401, "invalid_token", "the issuer says the access token is not active")
        audience = answer.get("aud")
        if self.resource not in ([audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []):
            raise Refused(401, "invalid_token", f"the access token is not for this server: its aud does not name {self.resource}")
        if answer.get("iss", self.issuer) != self.issuer:
            raise Refused(401, "invalid_token", f"the access token was not issued by {self.issuer}")
        expires = answer.get("exp")
        if not isinstance(expires, (int, float)) or expires <= time.time():
            raise Refused(401, "invalid_token", "the access token has expired, or its issuer says not when it does")
        caller = self._caller(answer)
        if len(self._introspected) >= MOST_INTROSPECTED:
            self._introspected.clear()
        self._introspected[digest] = (caller, min(float(expires), time.time() + INTROSPECTED_S))
        return caller

    def _introspect(self, token: str) -> Any:
        from urllib.parse import urlencode
        from urllib.request import Request, urlopen

        client, secret = self.introspector
        basic = base64.b64encode(f"{quote(client, safe='')}:{quote(secret, safe='')}".encode()).decode()
        request = Request(self.introspection_endpoint, data=urlencode({"token": token, "token_type_hint": "access_token"}).encode(),
                          headers={"Authorization": f"Basic {basic}", "Accept": "application/json",
                                   "Content-Type": "application/x-www-form-urlencoded"})
        with urlopen(request, timeout=FETCH_S) as response:
            return json.loads(response.read(1 << 20))

    def _caller(self, claims: dict) -> Caller:
        subject, client = claims.get("sub"), claims.get("client_id")
        if not isinstance(subject, str) or not subject:
            subject = client if isinstance(client, str) and client else None
        if subject is None:
            raise Refused(401, "invalid_token", "the access token names no subject (sub or client_id)")
        raw = claims.get("scope", claims.get("scp", ""))
        scopes = tuple(raw.split() if isinstance(raw, str) else [s for s in raw if isinstance(s, str)] if isinstance(raw, list) else [])
        return Caller(self.issuer, subject, client if isinstance(client, str) else None, scopes, self._kits(scopes))

    def _kits(self, scopes: tuple[str, ...]) -> tuple[str, ...] | None:
        """The kits ``scopes`` give (None: every allowed kit); Refused (403) when none of them is one this server maps."""
        if not self.scopes:
            return None
        given = [self.scopes[scope] for scope in scopes if scope in self.scopes]
        if not given:
            raise Refused(403, "insufficient_scope", f"the access token has none of the scopes this server takes ({' '.join(self.scopes)})")
        if any(kits is None for kits in given):
            return None
        return tuple(kit for kit in self.allowed if any(kit in kits for kits in given))


class OAuthBearer:
    """ASGI middleware: the protected-resource metadata, and every other request's access token checked from its head alone."""

    def __init__(self, app: Any, issuer: Issuer) -> None:
        self.app, self.issuer = app, issuer

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.pop(CALLER, None)  # only this check sets it
        if scope["path"] in PRM_PATHS:
            if scope["method"] not in ("GET", "HEAD"):
                await refuse(send, 405, "the protected-resource metadata is read with GET", {"Allow": "GET"})
                return
            await refuse(send, 200, "", {"Cache-Control": "max-age=300"}, document=self.issuer.metadata())
            return
        token = _bearer(scope)
        try:
            if token is None:
                raise Refused(401, "", "send Authorization: Bearer <access token> from the authorization server in this server's metadata")
            scope[CALLER] = await self.issuer.check(token)
        except Refused as refused:
            await refuse(send, refused.status, "", {"WWW-Authenticate": self._header(refused)},
                         document={"error": refused.error or "unauthorized", "error_description": refused.description})
            return
        await self.app(scope, receive, send)

    def _header(self, refused: Refused) -> str:
        if refused.status == 403:
            return f'Bearer error="insufficient_scope", scope="{self.issuer.entry}", error_description="{refused.description}"'
        value = self.issuer.challenge()
        return value + (f', error="{refused.error}", error_description="{refused.description}"' if refused.error else "")


class Quota:
    """At most ``most`` runs under way at once per checked caller, on this replica (None: no bound; callers without a
    checked token are not counted here: the server's own limits bound them)."""

    def __init__(self, most: int | None = None) -> None:
        self.most = most
        self.under_way: dict[str, int] = {}

    async def around(self, ctx: Any, work: Any) -> Any:
        """``await work()`` counted against ``ctx``'s caller; ResourceError, before it starts, when the caller is at its bound."""
        caller = caller_in(ctx) if self.most is not None else None
        if caller is None:
            return await work()
        key = caller.key
        if self.under_way.get(key, 0) >= self.most:
            raise ResourceError(
                f"you have {self.most} run(s) under way on this server, its bound per caller (--oauth-runs-per-caller); "
                "wait for one to end, then call again"
            )
        self.under_way[key] = self.under_way.get(key, 0) + 1
        try:
            return await work()
        finally:
            self.under_way[key] -= 1
            if not self.under_way[key]:
                del self.under_way[key]


def parse_introspector(name: str | None) -> tuple[str, str] | None:
    """``--oauth-introspect-env VAR``: VAR holds ``CLIENT_ID:SECRET``, lackpy's client at the issuer; UsageError otherwise."""
    if name is None:
        return None
    import os

    client, sep, secret = os.environ.get(name, "").partition(":")
    if not sep or not client.strip() or not secret.strip():
        raise UsageError(f"--oauth-introspect-env {name}: put CLIENT_ID:SECRET in the environment variable {name}, "
                         "the client lackpy serve introspects tokens as at the issuer")
    return client.strip(), secret.strip()


def parse_runs(value: Any) -> int | None:
    """``--oauth-runs-per-caller``: a whole number from 1; UsageError otherwise."""
    if value is None:
        return None
    text = str(value).strip()
    if not text.isdigit() or not 0 < int(text) <= 100_000:
        raise UsageError(f"--oauth-runs-per-caller expects a whole number of runs from 1, got {value!r}")
    return int(text)


def caller_of(scope: Mapping[str, Any] | None) -> Caller | None:
    """The checked caller of a request's ASGI scope, if the server checks tokens."""
    found = scope.get(CALLER) if scope is not None else None
    return found if isinstance(found, Caller) else None


def caller_in(ctx: Any) -> Caller | None:
    """The checked caller of the request behind ``ctx``: a tool's ``Context`` or the SDK's request context."""
    try:
        context = ctx.request_context if hasattr(type(ctx), "request_context") else ctx
        request = getattr(context, "request", None)
    except ValueError:  # a Context outside a request (a call from inside the server)
        return None
    return caller_of(getattr(request, "scope", None))


def _bearer(scope: dict) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


def _get_json(url: str) -> Any:
    """The JSON document at ``url`` (the issuer's metadata or keys); OSError or ValueError when there is none."""
    from urllib.request import Request, urlopen

    with urlopen(Request(url, headers={"Accept": "application/json"}), timeout=FETCH_S) as response:
        return json.loads(response.read(1 << 20))


__all__ = ["ALGORITHMS", "CALLER", "Caller", "Issuer", "OAuthBearer", "PRM_PATHS", "Quota", "Refused", "caller_in", "caller_of", "parse_introspector", "parse_runs", "parse_scopes"]
