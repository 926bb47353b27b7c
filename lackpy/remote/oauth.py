"""OAuth for the MCP servers lackpy connects to, on the MCP SDK's own client (``mcp.client.auth``).

A server with ``oauth`` in its config (``OAuthSettings``) gets an
``httpx2.Auth`` from ``auth_for``: the SDK's ``OAuthClientProvider`` does
what the MCP authorization spec says, on both revisions: on a 401 it
discovers the protected resource's metadata, then its authorization
server's (checking the ``issuer`` it names), uses a client ID metadata
document where the server takes one and lackpy has one
(``client_metadata_url``), else a client registered beforehand
(``client_id``), else registers itself; then PKCE authorization code with
``state`` and the response's ``iss`` checked, refresh, the scopes the server
asks for and more on a 403 ``insufficient_scope``, and a new registration
when the server's authorization server changed. ``grant =
"client_credentials"`` uses the SDK's client-credentials provider, with no
person, bound to the one ``issuer`` the config names.

Where the tokens live: ``TokenFile``, one file per server and URL under the
person's own lackpy folder (``lackpy.host.private``: mode 0600 in a 0700
folder, never in a workspace). They are held by the HTTP client of the
server's session on lackpy's MCP thread: a program sees only tool results,
a command's environment never has them, and lackpy logs no request header.

Who authorizes: an ``Authorizer`` is given the authorization URL and returns
the URL the authorization server sent the person back to (the loopback
redirect, with ``code``, ``state`` and ``iss``). ``lackpy mcp login NAME``
passes one that opens a browser (``lackpy.remote.browser``); a host using the
Python API may pass its own (``LackpyService(authorize=...)``). Without one,
a server that needs a person's authorization is not reached: its failure
says to run ``lackpy mcp login NAME``, and nothing waits for a person who
is not there.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from lackpy.errors import AuthError, ConfigError
from lackpy.host.private import FOLDERS, private_path, read_private, remove_private, write_private
from lackpy.remote.settings import ServerSettings

#: The folder of the person's lackpy folder that holds the token files (one of the folders commands may not read).
FOLDER = FOLDERS[0]
#: Given the authorization URL, the URL the authorization server sent the person back to.
Authorizer = Callable[[str], Awaitable[str]]
#: The claims of a JWT access token that say who it was issued to, in the order they are shown.
_WHO = ("preferred_username", "email", "name", "sub", "client_id")

# The SDK logs a failed flow with its traceback; lackpy reports it as one line (the server's failure) instead.
logging.getLogger("mcp.client.auth.oauth2").addFilter(lambda record: record.levelno < logging.ERROR)


def file_name(settings: ServerSettings) -> str:
    """The token file of a server: its name and a digest of its URL, so a token never goes to another URL."""
    digest = hashlib.sha256(str(settings.url).encode()).hexdigest()[:16]
    return f"{settings.name}-{digest}.json"


class TokenFile:
    """The SDK's ``TokenStorage`` for one server: its tokens and its client registration, in a private file."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings, self.name = settings, file_name(settings)

    def load(self) -> dict:
        data = read_private(FOLDER, self.name)
        if data is None:
            return {}
        try:
            record = json.loads(data)
        except ValueError:
            raise ConfigError(f"{private_path(FOLDER, self.name)} is not JSON; run lackpy mcp logout {self.settings.name} and log in again") from None
        return record if isinstance(record, dict) and record.get("url") == self.settings.url else {}

    def _save(self, **fields: Any) -> None:
        record = {**self.load(), "server": self.settings.name, "url": self.settings.url, **fields}
        write_private(FOLDER, self.name, json.dumps(record, indent=1).encode())

    def expires_at(self) -> float | None:
        return self.load().get("expires_at")

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.load().get("tokens")
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: Any) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires, saved_at=time.time())

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        oauth = self.settings.oauth
        if oauth is not None and oauth.client_id is not None and oauth.client_metadata_url is None:
            return OAuthClientInformationFull(
                client_id=oauth.client_id, client_secret=oauth.secret(self.settings.name), token_endpoint_auth_method=oauth.method,
                redirect_uris=[redirect_uri(self.settings)], issuer=oauth.issuer,
            )
        client = self.load().get("client")
        return OAuthClientInformationFull.model_validate(client) if client else None

    async def set_client_info(self, client_info: Any) -> None:
        self._save(client=client_info.model_dump(mode="json", exclude_none=True))

    def clear_tokens(self) -> None:
        """Drop the tokens, keeping the registration (a new login asks the person again)."""
        if self.load():
            self._save(tokens=None, expires_at=None)

    def forget(self) -> bool:
        """Remove the tokens and the registration; whether there were any."""
        return remove_private(FOLDER, self.name)


def redirect_uri(settings: ServerSettings) -> str:
    """Where the authorization server sends the person back: lackpy's loopback listener (RFC 8252)."""
    return f"http://127.0.0.1:{settings.oauth.redirect_port}/callback"


def auth_for(settings: ServerSettings, authorizer: Authorizer | None) -> Any:
    """The ``httpx2.Auth`` that gets and sends the server's tokens."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    oauth, storage = settings.oauth, TokenFile(settings)
    if oauth.grant == "client_credentials":
        from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

        return ClientCredentialsOAuthProvider(
            str(settings.url), storage, oauth.client_id, oauth.secret(settings.name), oauth.method, None, oauth.issuer
        )

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            self.context.token_expiry_time = storage.expires_at()  # a stored token's expiry is known, so it is refreshed in time

    answer: dict[str, Any] = {}

    async def redirect(url: str) -> None:
        if authorizer is None:
            raise AuthError(f"the MCP server {settings.name} wants you to log in; run lackpy mcp login {settings.name}")
        answer["result"] = returned(await authorizer(url))

    async def callback() -> Any:
        return answer.pop("result")

    metadata = OAuthClientMetadata(
        client_name="lackpy", redirect_uris=[redirect_uri(settings)], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method=oauth.method if oauth.client_id else "none",
    )
    return Provider(str(settings.url), metadata, storage, redirect, callback, client_metadata_url=oauth.client_metadata_url)


def returned(url: str) -> Any:
    """The authorization response in the URL the person was sent back to; AuthError for a refusal or nothing usable."""
    from mcp.shared.auth import AuthorizationCodeResult

    query = {key: values[0] for key, values in parse_qs(urlsplit(url.strip()).query).items()}
    if "error" in query:
        said = query.get("error_description") or query["error"]
        raise AuthError(f"the authorization server refused: {' '.join(said.split())[:300]}")
    if not query.get("code"):
        raise AuthError("the address the authorization server sent you back to has no code; log in again and paste the whole address")
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def identity(settings: ServerSettings) -> dict | None:
    """Who the server knows you as, from the stored token (a JWT's claims, read, not verified here); None when logged out."""
    try:
        record = TokenFile(settings).load()
    except ConfigError as exc:
        return {"as": None, "problem": str(exc)}
    tokens = record.get("tokens")
    if not tokens:
        return None
    claims = _claims(tokens.get("access_token", ""))
    who = next((str(claims[key]) for key in _WHO if claims.get(key)), None)
    expires = record.get("expires_at")
    return {
        "as": who,
        "scope": tokens.get("scope"),
        "expires_at": expires,
        "expired": expires is not None and expires < time.time(),
        "refreshable": bool(tokens.get("refresh_token")),
    }


def _claims(token: str) -> dict:
    parts = token.split(".")
    if len(parts) != 3:
        return {}
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return {}
    return claims if isinstance(claims, dict) else {}


def forget(settings: ServerSettings) -> bool:
    """Log out of a server: remove its tokens and registration; whether there were any."""
    return TokenFile(settings).forget()


__all__ = ["FOLDER", "Authorizer", "TokenFile", "auth_for", "file_name", "forget", "identity", "redirect_uri", "returned"]
