"""Remotes: the MCP servers of one service, connected through the SDK's client on one event-loop thread of their own.

A server starts on the first use of its tools (``enroll``, which the
service's toolbox asks for when a name it does not know is one of a
server's) and keeps one session for the service's life (servers hold state
per session). A tool call from a program, on whichever thread runs it, waits on
that loop within the tool's timeout and the run's remaining time. A server
that fails to start, times out or dies takes only its own tools down: the
failure is recorded with its reason (never a secret) and the next call
reconnects.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Coroutine

from lackpy.errors import AuthError, ConfigError, LackpyError, LimitExceeded, ToolError
from lackpy.kit.call import PROGRESS, RESULT_BUDGET, remaining
from lackpy.kit.spec import ToolSpec
from lackpy.remote import asks, oauth, sampling
from lackpy.remote import shapes, tasks
from lackpy.remote.enroll import qualified_names, remote_spec, result_value
from lackpy.remote.settings import VARIABLE, ServerSettings, expand
from lackpy.remote.skills import EXTENSION
from lackpy.run.execute import value_size
from lackpy.schema import to_jsonable
from lackpy.host.budget import clamp

#: How long closing waits for the servers to stop, in seconds.
CLOSE_S = 5.0
#: The most of a remote result a program receives outside a run, in bytes (as JSON counts them); in a run, its max_output_bytes.
RESULT_BYTES = 1024 * 1024
#: The shortest time between two progress notifications of a remote call passed on, in seconds; the longest message kept.
PROGRESS_EVERY_S = 0.05
PROGRESS_CHARS = 1000
#: The JSON-RPC error code the SDK's client gives a call whose connection closed.
CONNECTION_CLOSED = -32000


@dataclass
class Enrollment:
    """One event of the ledger: a tool joined (``enroll``) or left (``retire``) under its key."""

    op: str
    server: str
    tool: str
    key: str
    at: float = field(default_factory=time.time)


class _Link:
    """One server's client session, held open by a task on the remotes' loop until closed."""

    def __init__(
        self, settings: ServerSettings, workspace: Path, inflight: asks.InFlight, tier_named: sampling.TierNamed | None = None, authorizer: Any = None
    ) -> None:
        self.settings, self.workspace, self.inflight, self.tier_named = settings, workspace, inflight, tier_named
        self.authorizer = authorizer
        self.client: Any = None
        self.tools: list[Any] = []
        #: What the server says it is (``serverInfo``), the ``ttlMs`` of its tool listing (None: the revision has none),
        #: when lackpy listed them (monotonic seconds), and whether the server said since that its list changed.
        self.info: Any = None
        self.ttl_ms: int | None = None
        self.listed_at = 0.0
        self.stale = False
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done() and self.client is not None

    async def open(self) -> None:
        """Start the server (or connect to it) and list its tools; raises what went wrong."""
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._task = asyncio.create_task(self._hold(ready))
        await ready

    async def _hold(self, ready: asyncio.Future) -> None:
        from mcp import Client
        from mcp.client.extension import advertise

        try:
            hooks = {"list_roots_callback": self._roots, "elicitation_callback": self._elicit, **sampling.hooks(self.settings, self.tier_named, self.inflight)}
            # lackpy reads a server's skills (SEP-2640, lackpy.remote.fetch), so it says so; it never needs the server to.
            from lackpy.remote.task_extension import Tasks

            # Tasks on 2026-07-28 (SEP-2663): a call the server answers with a task is followed to its end (lackpy.remote.task_extension).
            extensions = [advertise(EXTENSION), Tasks(self._elicit, self._roots)]
            async with Client(self._target(), raise_exceptions=False, extensions=extensions, message_handler=self._notified, **hooks) as client:
                _complete_by_default(client.session)
                self.tools, self.ttl_ms = await _all_tools(client)
                self.info, self.listed_at = client.server_info, time.monotonic()
                self.client = client
                watching = asyncio.create_task(self._watch(client)) if client.session.protocol_version in _RESULT_TYPED else None
                ready.set_result(None)
                try:
                    await self._closing.wait()
                finally:
                    if watching is not None:
                        watching.cancel()
                        await asyncio.gather(watching, return_exceptions=True)
        except BaseException as exc:  # the session ends here: a failed start, a dead server, or closing
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ConnectionError("the connection was cancelled"))
        finally:
            self.client = None

    async def _watch(self, client: Any) -> None:
        """On 2026-07-28 a server says its tool list changed on a ``subscriptions/listen`` stream (SEP-2575): lackpy opens one."""
        try:
            async with client.listen(tools_list_changed=True) as stream:
                if not stream.honored.tools_list_changed:
                    return
                async for _ in stream:
                    self.stale = True
        except Exception:  # a server without the stream: its listing's ttlMs is what says when to list again
            return

    async def _notified(self, message: Any) -> None:
        """A server's notification (through 2025-11-25): ``tools/list_changed`` has the tools listed again before the next call."""
        from mcp.types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self.stale = True

    @property
    def due(self) -> bool:
        """Whether the tools should be listed again: the server said its list changed, or the listing's ``ttlMs`` ended
        (at most every ``RELIST_S``; ``lackpy.remote.shapes`` says why)."""
        if self.stale:
            return True
        return self.ttl_ms is not None and time.monotonic() - self.listed_at > max(self.ttl_ms / 1000, shapes.RELIST_S)

    async def relist(self) -> None:
        """List the server's tools again."""
        self.stale = False
        self.tools, self.ttl_ms = await _all_tools(self.client)
        self.listed_at = time.monotonic()

    async def _roots(self, context: Any) -> Any:
        """The client's ``roots``: the workspace, the one directory lackpy lets a server's tools work in.

        Declaring roots lets a server that needs them (a filesystem server)
        list its tools; naming only the workspace keeps it there.
        """
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(roots=[Root(uri=self.workspace.resolve().as_uri(), name=self.workspace.name or "workspace")])

    async def _elicit(self, context: Any, params: Any) -> Any:
        """The server's question, to the person who answers the approvals of the run that called (``lackpy.remote.asks``)."""
        return await asks.elicit(self.inflight, context, params)

    def _target(self) -> Any:
        settings = self.settings
        if settings.command:
            from mcp import StdioServerParameters

            return StdioServerParameters(
                command=settings.command, args=list(settings.args), env=settings.resolved_env() or None, cwd=settings.cwd or str(self.workspace)
            )
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        auth = oauth.auth_for(settings, self.authorizer) if settings.oauth is not None else None
        http = httpx2.AsyncClient(headers=settings.resolved_headers(), timeout=httpx2.Timeout(30.0, read=settings.timeout_s + 5), auth=auth)
        return streamable_http_client(settings.url, http_client=http)

    async def close(self) -> None:
        """End the session: politely when it is open (the SDK stops a stdio server), at once when it never started."""
        if self._task is None:
            return
        if self.client is None:
            self._task.cancel()
        elif self._closing is not None:
            self._closing.set()
        await asyncio.wait({self._task}, timeout=CLOSE_S)
        if not self._task.done():
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=CLOSE_S)


#: The protocol revisions whose results carry ``resultType``.
_RESULT_TYPED = frozenset({"2026-07-28"})


def _complete_by_default(session: Any) -> None:
    """Take a result without ``resultType`` as complete, as 2026-07-28 says a client MUST (SEP-2322).

    The SDK's client checks every result against the revision's wire schema,
    which requires the field, before anything else reads it; so the raw
    result is given its default first, at the one place every request's
    answer passes (the session's dispatcher), and nothing else is changed.
    """
    dispatcher = getattr(session, "_dispatcher", None)
    send = getattr(dispatcher, "send_raw_request", None)
    if send is None:
        return

    async def completed(method: str, params: Any, opts: Any) -> Any:
        raw = await send(method, params, opts)
        if isinstance(raw, dict) and "resultType" not in raw and session.protocol_version in _RESULT_TYPED:
            raw = {**raw, "resultType": "complete"}
        return raw

    dispatcher.send_raw_request = completed


async def _all_tools(client: Any) -> tuple[list[Any], int | None]:
    """The server's tools, every page, and the shortest ``ttlMs`` of the pages (None on a revision without one)."""
    listing = await client.list_tools()
    tools, cursor, ttl = list(listing.tools), listing.next_cursor, _ttl_ms(client, listing)
    while cursor:
        listing = await client.list_tools(cursor=cursor)
        tools.extend(listing.tools)
        cursor = listing.next_cursor
        more = _ttl_ms(client, listing)
        ttl = more if ttl is None else ttl if more is None else min(ttl, more)
    return tools, ttl


def _ttl_ms(client: Any, listing: Any) -> int | None:
    """The ``ttlMs`` of one page of a tool listing: 2026-07-28 requires it; an older revision has none (None)."""
    if client.session.protocol_version not in _RESULT_TYPED or "ttl_ms" not in getattr(listing, "model_fields_set", ()):
        return None
    ttl = getattr(listing, "ttl_ms", None)
    return ttl if isinstance(ttl, int) and ttl >= 0 else None


class Remotes:
    """The configured servers: their links, what each offers, and why one failed."""

    def __init__(
        self, servers: list[ServerSettings], workspace: Path, on_enroll: Callable[[list[ToolSpec]], None] | None = None,
        tier_named: sampling.TierNamed | None = None, authorizer: Any = None,
    ) -> None:
        """``on_enroll(specs)`` hears of the tools a reconnected server lists (changed ones included); ``tier_named`` finds the tier a server's ``sampling`` names.

        ``authorizer`` (``lackpy.remote.oauth.Authorizer``) asks a person to authorize a server whose tokens are missing or
        no longer refreshable; without one such a server fails, saying to run ``lackpy mcp login NAME``.
        """
        self.servers = {settings.name: settings for settings in servers}
        self.tier_named = tier_named
        self.authorizer = authorizer
        self._inflight = {name: asks.InFlight() for name in self.servers}
        self.on_enroll = on_enroll
        self.workspace = workspace
        self.ledger: list[Enrollment] = []
        self.failures: dict[str, str] = {}
        self._links: dict[str, _Link] = {}
        self._keys: dict[str, str] = {}  # qualified name -> key of the enrolled version
        #: The learned result shapes of the servers' tools (``lackpy.remote.shapes``), and each tool's spec as listed (before them).
        self.shapes = shapes.ShapeBook(self.servers, workspace)
        self._listed: dict[str, ToolSpec] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: The servers already started once (or tried): each is enrolled on its first use.
        self.tried: set[str] = set()
        self._enrolling = threading.Lock()

    # -- the loop -------------------------------------------------------------------

    def _submit(self, coroutine: Coroutine, timeout: float, asker: asks.Asker | None = None) -> Any:
        """Run ``coroutine`` on the remotes' loop; its result within ``timeout`` seconds (else TimeoutError, the work cancelled).

        With an ``asker``, the server's questions meanwhile are answered on this thread, and the time they took is added.
        """
        loop = self._started()
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        if asker is not None:
            return asker.wait(future, timeout)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=loop.run_forever, name="lackpy-mcp", daemon=True)
                self._thread.start()
                self._loop = loop
            return self._loop

    # -- enrolling -----------------------------------------------------------------

    def enroll(self, names: list[str] | None = None) -> list[ToolSpec]:
        """Connect the servers ``names`` (default: all) not tried yet, at once; the specs of their tools.

        A server is tried once (a call reconnects it later); one that fails is left out, with its reason in ``failures``.
        """
        with self._enrolling:
            wanted = [name for name in (self.servers if names is None else names) if name in self.servers and name not in self.tried]
            if not wanted:
                return []
            timeout = max(self.servers[name].start_timeout_s for name in wanted) + 2 * CLOSE_S + 1.0
            try:
                outcomes = self._submit(self._open_all(wanted), timeout)
            except TimeoutError:  # a server that would not even stop: none of these is trusted to serve
                outcomes = {name: TimeoutError(f"it did not start within {timeout:g} s") for name in wanted}
            self.tried.update(wanted)
            specs: list[ToolSpec] = []
            for name, outcome in outcomes.items():
                if isinstance(outcome, BaseException):
                    self.failures[name] = _reason(outcome, self.servers[name])
                else:
                    specs.extend(self._specs(name))
            return specs

    async def _open_all(self, names: list[str]) -> dict[str, Any]:
        results = await asyncio.gather(*(self._open(name) for name in names), return_exceptions=True)
        return dict(zip(names, results))

    async def _open(self, name: str, authorizer: Any = None, within: float | None = None) -> None:
        settings = self.servers[name]
        link = _Link(settings, self.workspace, self._inflight[name], self.tier_named, authorizer or self.authorizer)
        within = within or settings.start_timeout_s
        try:
            await asyncio.wait_for(link.open(), within)
        except asyncio.TimeoutError:
            await link.close()
            raise TimeoutError(f"it did not start and list its tools within {within:g} s") from None
        except BaseException:
            await link.close()
            raise
        self._links[name] = link
        self.failures.pop(name, None)

    def _specs(self, name: str) -> list[ToolSpec]:
        """The specs of server ``name``'s listed tools, each enrolled in the ledger when it is new or changed."""
        link, settings = self._links[name], self.servers[name]
        names = qualified_names(name, [tool.name for tool in link.tools])
        for gone in [tool for tool, event in self._enrolled_by(name).items() if tool not in names.values()]:
            self.ledger.append(Enrollment("retire", name, gone, self._keys.pop(gone)))
        specs = []
        for tool in link.tools:
            try:
                spec = remote_spec(settings, tool, names[tool.name])
            except (LackpyError, RecursionError, ValueError, TypeError) as exc:
                self.failures[f"{name}.{tool.name}"] = f"tool left out: its schema cannot be used ({type(exc).__name__})"
                continue
            why = tasks.unusable(spec.provider_config["tasks"], link.client.session.protocol_version)
            if why is not None:
                self.failures[f"{name}.{tool.name}"] = why
                continue
            key = spec.provider_config["key"]
            if self._keys.get(spec.name) != key:
                if spec.name in self._keys:
                    self.ledger.append(Enrollment("retire", name, spec.name, self._keys[spec.name]))
                self.ledger.append(Enrollment("enroll", name, spec.name, key))
                self._keys[spec.name] = key
            specs.append(spec)
        self.shapes.listed(name, link.info, link.tools, link.ttl_ms)
        self._listed = {tool: spec for tool, spec in self._listed.items() if spec.provider_config["server"] != name}
        self._listed.update((spec.name, spec) for spec in specs)
        return [self.shapes.dress(spec) for spec in specs]

    def _enrolled_by(self, server: str) -> dict[str, str]:
        return {tool: key for tool, key in self.live().items() if tool.startswith(f"{server}__")}

    def live(self) -> dict[str, str]:
        """The tools enrolled now, ``{qualified name: key}``, folded from the ledger."""
        current: dict[str, str] = {}
        for event in self.ledger:
            if event.op == "enroll":
                current[event.tool] = event.key
            elif current.get(event.tool) == event.key:
                del current[event.tool]
        return current

    # -- calling --------------------------------------------------------------------

    def call(self, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        """Call remote tool ``spec`` with ``arguments``; its value, or ToolError saying what failed."""
        server = spec.provider_config["server"]
        settings = self.servers[server]
        left = remaining()
        allowed = settings.timeout_for(spec.provider_config["tool"])
        timeout = min(allowed, left)
        try:
            if timeout <= 0:
                raise TimeoutError
            asker = asks.asker_of(spec)
            # A question may wait for a person past the tool's time: then Asker.wait keeps the time, not the SDK's read timeout.
            sdk_timeout = timeout if asker is None else asks.LONGEST_S
            call = self._call(server, spec.provider_config["tool"], arguments, sdk_timeout, _progress_of(spec))
            result = self._submit(self._asked(server, asker, call), timeout, asker)
        except TimeoutError:
            if left <= allowed:  # the run's time ran out, not the tool's
                raise LimitExceeded("timeout", None, f"the run's time ran out waiting for the MCP server {server}") from None
            raise ToolError(f"the MCP server {server} did not answer within the tool's timeout_s ({allowed:g} s)") from None
        except LackpyError:
            raise
        except Exception as exc:
            if not _link_lost(exc):  # one call refused (an error answer, a request lackpy's client refused): the server still serves
                raise ToolError(f"the MCP server {server} refused the call: {_reason(exc, settings)}") from None
            self.failures[server] = _reason(exc, settings)
            raise ToolError(f"the MCP server {server} failed: {self.failures[server]}; the next call reconnects") from None
        try:
            value = result_value(spec, result)
        except ToolError as exc:  # the server's own message: it may echo what it was given
            raise ToolError(_masked(str(exc), settings)) from None
        self._learn(spec, result, value)
        return _bounded(value)

    def _learn(self, spec: ToolSpec, result: Any, value: Any) -> None:
        """Learn the shape of a result of a tool whose server declares none; the toolbox hears of a signature that changes."""
        if "shape" in spec.provider_config and spec.provider_config["shape"].get("source") == "declared" or not shapes.learnable(result, value):
            return
        if self.shapes.learn(spec, value) and self.on_enroll is not None:
            listed = self._listed.get(spec.name)
            if listed is not None and self._keys.get(spec.name) == spec.provider_config["key"]:  # not a tool the server has since changed
                self.on_enroll([self.shapes.dress(listed)])

    async def _asked(self, server: str, asker: asks.Asker | None, call: Coroutine) -> Any:
        """``call``'s result, the server's questions meanwhile going to ``asker`` (see ``lackpy.remote.asks``)."""
        token = asks.ASKER.set(asker)
        with self._inflight[server].holding(asker):
            try:
                return await call
            finally:
                asks.ASKER.reset(token)

    async def _call(self, server: str, tool: str, arguments: dict[str, Any], timeout: float, progress: Any) -> Any:
        async def call(link: _Link) -> Any:
            if tasks.requires_task(link.tools, tool) and link.client.session.protocol_version in tasks.TASK_VERSIONS:
                # 2025-11-25: a plain call would be refused, so it runs as a task (lackpy.remote.tasks); on 2026-07-28 the
                # server answers a plain call with a task, which the Tasks extension follows
                return await tasks.call_as_task(link.client.session, tool, arguments, timeout, progress)
            # The SDK's own read timeout is a second later than ours, so a slow call always ends the same way (ours).
            return await link.client.call_tool(tool, arguments, read_timeout_seconds=timeout + 1.0, progress_callback=progress)

        return await self._on_link(server, call)

    async def _on_link(self, server: str, use: Callable[["_Link"], Coroutine]) -> Any:
        """``use(link)`` on server's session, reconnecting it first when it is gone; a session lost meanwhile is dropped."""
        link = self._links.get(server)
        if link is None or not link.alive or link.due:
            if link is None or not link.alive:
                await self._open(server)
                link = self._links[server]
            else:
                await link.relist()  # the server's list changed, or its listing's ttlMs ended
            specs = self._specs(server)  # a server may come back with other tools: the ledger and the toolbox follow
            if self.on_enroll is not None:
                self.on_enroll(specs)
        try:
            return await use(link)
        except Exception as exc:
            if _link_lost(exc) or not link.alive:  # the next call starts a new session
                self._links.pop(server, None)
                await link.close()
            raise

    def using(self, server: str, use: Callable[[Any], Coroutine], timeout: float) -> Any:
        """``use(client)`` (the SDK's ``Client`` of server ``server``, connected now if it is not) within ``timeout`` seconds.

        Raises TimeoutError when it takes longer (the work cancelled), and what
        ``use`` raised otherwise; a failure that lost the session is recorded
        as the server's, as a failed call's is.
        """
        if server not in self.servers:
            raise ToolError(f"no MCP server named {server} is configured; lackpy mcp list shows them")
        self.tried.add(server)
        try:
            return self._submit(self._on_link(server, lambda link: use(link.client)), timeout)
        except TimeoutError:
            raise
        except LackpyError:
            raise
        except Exception as exc:
            if _link_lost(exc):
                self.failures[server] = _reason(exc, self.servers[server])
            raise

    # -- logging in -------------------------------------------------------------------

    def login(self, server: str, authorizer: Any, within: float) -> dict | None:
        """Authorize lackpy at ``server`` anew through ``authorizer`` (a person), then connect; who the server knows you as.

        The tokens held so far are dropped first (the registration is kept), so
        the person is asked even when a token was still good. Returns None when
        the server asked for no authorization. Raises what failed, as one line.
        """
        settings = self._oauth_server(server)
        oauth.TokenFile(settings).clear_tokens()

        async def again() -> None:
            link = self._links.pop(server, None)
            if link is not None:
                await link.close()
            await self._open(server, authorizer, within)

        self.tried.add(server)
        try:
            self._submit(again(), within + 2 * CLOSE_S)
        except TimeoutError:
            raise AuthError(f"the login to {server} did not finish within {within:g} s; run lackpy mcp login {server} again") from None
        except LackpyError:
            raise
        except Exception as exc:
            self.failures[server] = _reason(exc, settings)
            raise AuthError(f"the login to {server} failed: {self.failures[server]}") from None
        if self.on_enroll is not None:
            self.on_enroll(self._specs(server))
        return oauth.identity(settings)

    def logout(self, server: str) -> bool:
        """Forget ``server``'s tokens and registration, and end its session; whether there was anything to forget."""
        settings = self._oauth_server(server)
        link = self._links.pop(server, None)
        if link is not None and self._loop is not None:
            self._submit(link.close(), 2 * CLOSE_S + 1)
        self.tried.discard(server)
        return oauth.forget(settings)

    def _oauth_server(self, server: str) -> ServerSettings:
        settings = self.servers.get(server)
        if settings is None:
            raise ConfigError(f"no MCP server named {server} is configured; lackpy mcp list shows them")
        if settings.oauth is None:
            raise ConfigError(f"the MCP server {server} does not use OAuth; add oauth = true to [mcp.servers.{server}] if it should")
        return settings

    def reason(self, exc: BaseException, server: str) -> str:
        """Why a request to ``server`` failed, in one line, without its secrets."""
        return _reason(exc, self.servers[server])

    # -- closing -------------------------------------------------------------------

    def shape_rows(self, server: str | None = None, clear: bool = False) -> list[dict]:
        """The learned shapes of every server (or ``server``), as ``lackpy mcp shapes`` shows them; with ``clear``, forgotten
        first (the toolbox's signatures too)."""
        self.shapes.known(server)
        if clear:
            self.shapes.clear(server)
            if self.on_enroll is not None:
                self.on_enroll([self.shapes.dress(spec) for spec in self._listed.values() if server is None or spec.provider_config["server"] == server])
        return self.shapes.rows(server)

    def close(self) -> None:
        """Close every session (stopping stdio servers) and the loop; what was learned is written."""
        self.shapes.flush()
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None:
            return
        links, self._links = list(self._links.values()), {}

        async def close_all() -> None:
            await asyncio.gather(*(link.close() for link in links), return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(close_all(), loop).result(CLOSE_S + 1)
        except Exception:
            pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(CLOSE_S)

    def status(self) -> list[dict]:
        """Each server: where it is (no secrets), connected or why not, its tools, the tools it lists that lackpy left out
        and why (``left_out``), and the ledger's events of its tools."""
        rows = []
        for name, settings in self.servers.items():
            link = self._links.get(name)
            state = "connected" if link is not None and link.alive else "failed" if name in self.failures else "not connected"
            rows.append(
                {
                    **settings.row(state, self.failures.get(name)),
                    "tools": sorted(qualified_names(name, [t.name for t in link.tools]).values()) if link is not None else [],
                    "left_out": {key.split(".", 1)[1]: why for key, why in self.failures.items() if key.startswith(f"{name}.")},
                    "joined_and_left": [{"op": e.op, "tool": e.tool, "key": e.key} for e in self.ledger if e.server == name],
                    **({"login": oauth.identity(settings)} if settings.oauth is not None else {}),
                }
            )
        return rows


#: The fields of a content block that carry its payload, cut first when a result is over budget.
_PAYLOADS = ("text", "data", "blob")


def _bounded(value: Any) -> Any:
    """``value`` within the run's output budget (RESULT_BYTES outside a run).

    Content blocks (images, audio, resources) keep their shape: each
    payload past its share of the budget is cut at its end, and the block
    says how many bytes were cut (``cut_bytes``). Anything else over budget
    becomes its JSON text cut in the middle with a notice.
    """
    budget = RESULT_BUDGET.get() or RESULT_BYTES
    if value_size(value, budget) <= budget:
        return value
    blocks = value if isinstance(value, list) else [value]
    if all(isinstance(block, dict) and block.get("type") for block in blocks):
        share = max(budget // len(blocks) - 512, 0)  # room for each block's other fields
        for block in blocks:
            for field in _PAYLOADS:
                if isinstance(block.get(field), str):
                    block[field], dropped = clamp(block[field], share, "head")
                    if dropped:
                        block["cut_bytes"] = block.get("cut_bytes", 0) + dropped
        if value_size(value, budget) <= budget:
            return value
    text = value if isinstance(value, str) else json.dumps(to_jsonable(value), ensure_ascii=False)
    cut, dropped = clamp(text, budget)
    return cut if dropped else text


def _progress_of(spec: ToolSpec) -> Any:
    """A progress callback passing the server's progress notifications on to the run's ``PROGRESS`` sink, or None.

    At most one every ``PROGRESS_EVERY_S`` passes (and the one that reaches
    its total): a server that floods notifications fills no queue of lackpy's
    or its client's; progress is news, and the newest is what counts.
    """
    sink = PROGRESS.get()
    if sink is None:
        return None
    last = [float("-inf")]

    async def progress(value: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S and (total is None or value < total):
            return
        last[0] = now
        sink({"event": "progress", "tool": spec.name, "progress": value, "total": total, "message": str(message)[:PROGRESS_CHARS] if message else message})

    return progress


def _link_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the session is gone (the server died or the connection closed), not one call refused."""
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        return exc.error.code == CONNECTION_CLOSED
    return True


def _reason(exc: BaseException, settings: ServerSettings) -> str:
    """Why a server failed, in one line, never carrying the values of its env or headers."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = _masked(" ".join(str(exc).split()) or type(exc).__name__, settings)
    return f"{type(exc).__name__}: {text}"[:500] if not isinstance(exc, (TimeoutError, LackpyError)) else text[:500]


def _masked(text: str, settings: ServerSettings) -> str:
    """``text`` with every secret of the server's env and headers as ``***``."""
    for secret in _secrets(settings):
        text = text.replace(secret, "***")
    return text


def _secrets(settings: ServerSettings) -> list[str]:
    """The values a server's env and headers take from the environment, and the whole values they make; longest first."""
    values = set()
    oauth_secret = [settings.oauth.client_secret] if settings.oauth is not None and settings.oauth.client_secret else []
    for template in [*settings.env.values(), *settings.headers.values(), *oauth_secret]:
        for name in VARIABLE.findall(template):
            values.add(os.environ.get(name, ""))
        try:
            values.add(expand(template, "secret"))
        except LackpyError:
            pass
    return sorted((v for v in values if len(v) >= 4 and v not in ("Bearer", "Basic")), key=len, reverse=True)


__all__ = ["Enrollment", "Remotes"]
