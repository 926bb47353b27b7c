"""serve: build the service, the kit policy and the server, and run it over stdio or HTTP."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from lackpy.errors import LackpyError, UsageError


def serve(
    workspace: str | Path | None = None,
    *,
    kit: str = "readonly",
    allow_kits: list[str] | None = None,
    trust: bool = False,
    http: str | None = None,
    token_env: str | None = None,
    expose_tools: bool = False,
    ceiling: str | None = None,
    approval: str | None = None,
    allow_skills: list[str] | None = None,
    drain_s: str | float | None = None,
    store: str | None = None,
    deployment: str | None = None,
    cluster_key_env: str | None = None,
    advertise: str | None = None,
    max_connections: int | str | None = None,
    max_connections_per_peer: int | str | None = None,
    oauth_issuer: str | None = None,
    oauth_resource: str | None = None,
    oauth_scopes: list[str] | None = None,
    oauth_runs_per_caller: int | str | None = None,
    oauth_introspect_env: str | None = None,
) -> None:
    """Serve lackpy over MCP until the client (stdio) or a signal (HTTP) ends it.

    ``allow_skills`` names the skills clients may see and use (None: every
    skill whose kit the server allows; ``lackpy.mcp.skills``). ``drain_s``
    bounds the graceful drain on SIGTERM (HTTP only; ``lackpy.mcp.drain``).
    ``store``, ``deployment`` (else the config's ``[serve]``),
    ``cluster_key_env`` and ``advertise`` make this server one replica of a
    deployment (``lackpy.mcp.cluster``, ``cluster_of``).
    ``max_connections`` and ``max_connections_per_peer`` cap the HTTP
    connections (None: from the descriptor limit; ``lackpy.mcp.front``).
    ``oauth_issuer`` (with ``oauth_resource`` and ``oauth_scopes``) takes the
    access tokens that issuer signs for this server instead of one shared
    token (``lackpy.mcp.bearer``).
    """
    from lackpy.mcp.http import bind, parse_address

    address = parse_address(http) if http is not None else None
    # Which options go together is said first, before any environment variable is read: over stdio an HTTP-only
    # option is the mistake, whatever its variable holds.
    drain_s, front = _http_options(address is not None, token_env=token_env, drain_s=drain_s, store=store, cluster_key_env=cluster_key_env,
                                   advertise=advertise, max_connections=max_connections, max_connections_per_peer=max_connections_per_peer,
                                   oauth_issuer=oauth_issuer, oauth_resource=oauth_resource, oauth_scope=oauth_scopes or None,
                                   oauth_runs_per_caller=oauth_runs_per_caller, oauth_introspect_env=oauth_introspect_env)
    oauth = _oauth_options(oauth_issuer, oauth_resource, oauth_scopes, token_env, oauth_runs_per_caller, oauth_introspect_env)
    token = _token(token_env) if token_env is not None else None
    if approval is not None:
        from lackpy.approvals.policy import Ask

        Ask.parse(approval, "--approval")  # a bad approval mode is said before the server starts
    sock = bind(*address) if address is not None else None  # a port in use is said before anything loads, or says it serves
    try:
        _serve_with(workspace, trust, address, sock, token, drain_s, front, oauth, kit=kit, allow_kits=allow_kits, expose_tools=expose_tools,
                    ceiling=ceiling, approval=approval, allow_skills=allow_skills, store=store, deployment=deployment,
                    cluster_key_env=cluster_key_env, advertise=advertise, oauth_issuer=oauth_issuer, oauth_resource=oauth_resource)
    finally:
        if sock is not None:
            sock.close()


def _serve_with(workspace: Any, trust: bool, address: tuple[str, int] | None, sock: Any, token: str | None, drain_s: float | None, front: Any,
                oauth: dict, **options: Any) -> None:
    """Load the service and serve it, over stdio (no ``address``) or HTTP on ``sock``, until the client or a signal ends it."""
    from lackpy.mcp.http import serve_http
    from lackpy.mcp.policy import KitPolicy
    from lackpy.mcp.server import build_server
    from lackpy.mcp.telemetry import Telemetry
    from lackpy.service import LackpyService

    store, deployment, cluster_key_env, advertise = options["store"], options["deployment"], options["cluster_key_env"], options["advertise"]
    oauth_issuer, oauth_resource = options["oauth_issuer"], options["oauth_resource"]
    service = LackpyService(workspace, trust=True if trust else None).load()
    for notice in service.notices:
        print(f"lackpy: {notice}", file=sys.stderr)
    telemetry = None
    try:
        settings = service.config.serve if address is not None else {}
        cluster = cluster_of(store or settings.get("store"), deployment or settings.get("deployment"), cluster_key_env, advertise, address)
        policy = KitPolicy.build(service, options["kit"], options["allow_kits"])
        issuer = _issuer(oauth_issuer, oauth_resource, oauth, address, policy) if oauth_issuer is not None else None
        telemetry = Telemetry.start(service, policy, http=address is not None, store=cluster.store)
        server = build_server(service, policy, one_client=address is None, expose_tools=options["expose_tools"], ceiling=options["ceiling"],
                              approval=options["approval"], allow_skills=options["allow_skills"], observer=telemetry.observer, cluster=cluster)
        server.quota.most = oauth.get("runs")
        if address is None:
            server.run("stdio")
            return
        _say_serving(address, telemetry.metrics is not None, policy, cluster)
        serve_http(server, *address, token, telemetry.metrics, drain_s, front, issuer, sock)
    finally:
        if telemetry is not None:
            telemetry.close()
        service.close()


def _say_serving(address: tuple[str, int], metrics: bool, policy: Any, cluster: Any) -> None:
    """The lines on stderr that say where the server listens, what it offers and, for a replica, its deployment."""
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    print(f"lackpy: serving MCP at http://{shown}:{port}/mcp{', metrics at /metrics' if metrics else ''} (kits: {', '.join(policy.allowed)})",
          file=sys.stderr)
    if cluster.shared:
        print(f"lackpy: replica {cluster.me} of deployment {cluster.store.deployment}, state in {cluster.store.shown}, "
              f"reached at {cluster.replicas.url}", file=sys.stderr)


def _http_options(http: bool, **given: Any) -> tuple[float | None, Any]:
    """The drain bound and the front's settings (None, None over stdio), said wrong before anything starts.

    Every option in ``given`` is about HTTP: over stdio any of them given is a
    UsageError, never ignored.
    """
    if not http:
        for name, value in given.items():
            if value is not None:
                option = "--" + name.replace("_", "-")
                if name == "token_env":
                    raise UsageError(f"{option} needs --http [HOST:]PORT: the token guards the HTTP transport; stdio has no token "
                                     "(the one client that starts lackpy has the server to itself)")
                raise UsageError(f"{option} goes with --http [HOST:]PORT; over stdio the one client that starts lackpy has the server to itself")
        return None, None
    from lackpy.mcp.drain import parse_drain_s
    from lackpy.mcp.front import FrontSettings

    drain_s = given["drain_s"]
    return (parse_drain_s(drain_s) if drain_s is not None else None,
            FrontSettings.build(given["max_connections"], given["max_connections_per_peer"]))  # bad values are said before the server starts


def _issuer(issuer: str, resource: str | None, oauth: dict, address: tuple[str, int], policy: Any) -> Any:
    """The authorization server whose access tokens this server takes, its metadata and keys read (``lackpy.mcp.bearer``)."""
    from lackpy.mcp.bearer import Issuer

    host, port = address
    resource = resource or f"http://{f'[{host}]' if ':' in host else host}:{port}/mcp"
    found = Issuer(issuer, resource, oauth["scopes"], policy.allowed, policy.default_kit)
    found.introspector = oauth["introspector"]
    found.discover()
    print(f"lackpy: taking access tokens from {found.issuer} for {found.resource}", file=sys.stderr)
    return found


def _oauth_options(issuer: str | None, resource: str | None, scopes: list[str] | None, token_env: str | None, runs: Any,
                   introspect_env: str | None) -> dict:
    """``--oauth-scope``'s scopes and kits, the runs per caller and the introspecting client, said wrong before anything
    starts; UsageError for options that go with --oauth-issuer without it, or beside --token-env."""
    from lackpy.mcp.bearer import parse_introspector, parse_runs, parse_scopes

    if issuer is None:
        given = next((name for name, value in (("--oauth-resource", resource), ("--oauth-scope", scopes), ("--oauth-runs-per-caller", runs),
                                               ("--oauth-introspect-env", introspect_env)) if value), None)
        if given:
            raise UsageError(f"{given} goes with --oauth-issuer URL, the authorization server whose tokens this server takes")
        return {}
    if token_env is not None:
        raise UsageError("give --oauth-issuer or --token-env, not both: a server takes either its issuer's access tokens or one shared token")
    return {"scopes": parse_scopes(scopes), "runs": parse_runs(runs), "introspector": parse_introspector(introspect_env)}


def cluster_of(store: str | None, deployment: str | None, key_env: str | None, advertise: str | None,
               address: tuple[str, int] | None) -> Any:
    """This server as a replica: its store (``memory`` by default), deployment, shared key and the URL the others reach it at.

    UsageError, before anything serves, for a store that cannot be shared
    without a key (the replicas could not check each other's states), a key
    under MIN_KEY_BYTES, or a wildcard address with no ``--advertise``.
    """
    from lackpy.mcp.cluster import MIN_KEY_BYTES, Cluster
    from lackpy.store import DEPLOYMENT, open_store

    opened = open_store(store, deployment or DEPLOYMENT)
    if not opened.shared:
        return Cluster(opened, _key(key_env, MIN_KEY_BYTES) if key_env is not None else os.urandom(MIN_KEY_BYTES))
    if key_env is None:
        opened.close()
        raise UsageError(f"--store {opened.shown.removeprefix('the ')} is shared by replicas: give --cluster-key-env VAR, an environment variable "
                         f"holding a secret of at least {MIN_KEY_BYTES} bytes that every replica of the deployment shares")
    key = _key(key_env, MIN_KEY_BYTES)
    host, port = address
    if advertise is None and host in WILDCARDS:
        opened.close()
        raise UsageError(f"--http {host}:{port} listens on every address: give --advertise http://HOST:{port}, the address the other replicas reach this one at")
    url = _url(advertise) if advertise is not None else f"http://{f'[{host}]' if ':' in host else host}:{port}"
    cluster = Cluster(opened, key, url)
    try:
        opened.ping()
    except LackpyError as exc:  # it may come back: calls that need it fail saying so meanwhile, and the replica registers then
        print(f"lackpy: {exc}", file=sys.stderr)
    return cluster


#: Addresses that listen on every interface: no other replica can reach this one at them.
WILDCARDS = ("0.0.0.0", "::", "")


def _key(name: str, least: int) -> bytes:
    key = os.environ.get(name, "").encode()
    if len(key) < least:
        raise UsageError(f"--cluster-key-env {name}: the environment variable {name} holds {len(key)} bytes; put a secret of at least {least} "
                         "bytes in it, the same for every replica (e.g. python -c \"import secrets; print(secrets.token_hex(32))\")")
    return key


def _url(advertise: str) -> str:
    """``--advertise``: http(s)://HOST:PORT with no path, as given; UsageError otherwise."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(advertise)
        port = parts.port
    except ValueError:
        port, parts = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or port is None or parts.path not in ("", "/") or parts.query:
        raise UsageError(f"--advertise {advertise!r}: give http://HOST:PORT, the address the other replicas reach this one at")
    return advertise.rstrip("/")


def _token(name: str) -> str:
    token = os.environ.get(name, "").strip()
    if not token:
        raise UsageError(f"--token-env {name}: the environment variable {name} is not set or empty; export the token in it first")
    return token


__all__ = ["cluster_of", "serve"]
