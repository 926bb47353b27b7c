"""Learned result shapes: what a remote tool without an ``outputSchema`` returns, as lackpy has seen it.

Most MCP tools declare no output schema, so a model writing a program
against them would have to guess the keys of what they return. When such a
tool answers with structured content (or one text block that is a JSON
object or array, which a program gets as data too), lackpy records the
shape of the value (``lackpy.kit.shape``: keys, types, list elements;
bounded) and merges it with the shapes of the tool's earlier results. The
tool's signature then shows it, marked as learned and from how many
results (``-> {"sku": str, "stock": int} (shape learned from 3 results,
not declared)``), and the check before a run warns of a key the shape
lacks (``lackpy.kit.resultkeys``). A tool whose server declares a schema
is never learned: what the server declares wins.

**Where.** In the person's own cache (``$XDG_CACHE_HOME/lackpy/shapes``,
``lackpy.host.places.cache_dir``), never in a workspace, which may be
hostile: a workspace cannot plant a shape a model would trust. One file per
configured server, named by its name and a hash of how it is reached (the
command, arguments, the directory it runs in (the workspace, unless ``cwd``
says another) and the environment as the config writes it, or the URL and
header names: never a secret's value),
written whole and atomically with mode 0600 (``lackpy.host.private``), so
each ``lackpy run`` (a process of its own) starts from what the last ones
learned. Two processes learning at once may lose one's update: shapes are
hints, learned again on the next call.

**How long.** A shape belongs to the server's tool listing it was learned
under: the server's ``serverInfo`` name and version and a fingerprint of its
tools (names, input and output schemas). A listing that differs forgets the
server's shapes: another version, a tool added, removed or changed. lackpy
lists a server's tools when it connects, again after the server says its
list changed (``notifications/tools/list_changed``), and again before a call
once the listing's ``ttlMs`` has ended (2026-07-28, SEP-2549; at most once
every ``RELIST_S``; 2025-11-25 has no ``ttlMs``, so there a listing lasts
until one of the others). The same listing again renews the shapes. That is
deliberate: ``ttlMs`` says how long the listing may be used without asking
again, and 0 (the SDK's default) says to ask every time; dropping the
shapes whenever it ended would keep none from such a server past the call
that taught it, and the model would guess again. ``lackpy mcp shapes`` shows
each listing's ``ttl_ms`` and whether it has ended since.

**Bounds.** A server may be hostile: shapes are bounded (``lackpy.kit.shape``),
only fair keys are kept, the text shown is at most ``RENDER_CHARS``, one
server keeps at most ``MOST_TOOLS`` tools' shapes and ``MOST_FILE_BYTES`` of
file (the least recently seen go first), and what the server says of
itself (``serverInfo``) is kept printable and short.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

from lackpy.errors import ConfigError, LackpyError
from lackpy.host.places import cache_dir
from lackpy.host.private import private_path, read_private, remove_private, write_private
from lackpy.kit.shape import bounded, checked, learn as learn_shape, merge, render
from lackpy.kit.spec import ToolSpec
from lackpy.remote.settings import ServerSettings

#: The folder of ``cache_dir()`` the shapes are kept in.
FOLDER = "shapes"
#: The most tools of one server whose shapes are kept, and the largest file of one server's shapes.
MOST_TOOLS = 200
MOST_FILE_BYTES = 512 * 1024
#: The shortest time between two listings a ``ttlMs`` that ended asks for, in seconds.
RELIST_S = 1.0
#: From this many results on, a signature says "10+" (its text then stops changing with each call).
SHOWN_RESULTS = 10
_FORMAT = 1
_INFO_CHARS = 120


def identity(settings: ServerSettings, workspace: Path) -> str:
    """A hash of how ``settings`` reaches its server: another command, URL or environment is another server.

    A stdio server runs in its ``cwd``, else the workspace, and its command may
    name a file there (``python tools/server.py``): the directory it runs in is
    part of it, so one workspace's server cannot teach shapes for another's.
    """
    cwd = str(workspace / settings.cwd) if settings.cwd else str(workspace)  # an absolute cwd stays as it is
    how = {
        "transport": settings.transport, "command": settings.command, "args": list(settings.args), "cwd": cwd if settings.command else None,
        "env": sorted(settings.env.items()), "url": settings.url, "headers": sorted(settings.headers),
    }
    return hashlib.sha256(json.dumps(how, sort_keys=True, default=str).encode()).hexdigest()[:16]


def fingerprint(tools: list[Any]) -> str:
    """A hash of a tool listing: each tool's name with its input and output schemas, in name order."""
    rows = sorted(([t.name, t.input_schema, getattr(t, "output_schema", None)] for t in tools), key=lambda row: str(row[0]))
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _said(text: Any) -> str:
    """What a server says of itself, printable and short."""
    text = text if isinstance(text, str) else ""
    return "".join(c if c.isprintable() else "?" for c in text[:_INFO_CHARS])


def results_label(results: int) -> str:
    """How many results a shape was learned from, as a signature says it."""
    shown = f"{SHOWN_RESULTS}+" if results >= SHOWN_RESULTS else str(results)
    return f"{shown} result{'' if results == 1 else 's'}"


def learnable(result: Any, value: Any) -> bool:
    """Whether a remote result is data to learn a shape from: structured content, or one text block that was a JSON object or array."""
    if getattr(result, "structured_content", None) is not None:
        return True
    content = getattr(result, "content", None) or []
    return len(content) == 1 and getattr(content[0], "type", None) == "text" and isinstance(value, (dict, list))


class ShapeBook:
    """The learned shapes of the configured servers, read from the cache on first use and written back as they change."""

    def __init__(self, servers: dict[str, ServerSettings], workspace: Path, clock: Callable[[], float] = time.time) -> None:
        self.servers, self.workspace = servers, workspace
        self.clock = clock
        self._entries: dict[str, dict] = {}
        self._dirty: set[str] = set()
        self.problems: dict[str, str] = {}
        self._lock = threading.RLock()

    # -- the file ------------------------------------------------------------------------

    def _name(self, server: str) -> str:
        return f"{server}-{identity(self.servers[server], self.workspace)}.json"

    def _entry(self, server: str) -> dict:
        entry = self._entries.get(server)
        if entry is None:
            entry = self._entries[server] = self._read(server)
        return entry

    def _read(self, server: str) -> dict:
        empty = {"format": _FORMAT, "server": server, "info": None, "listing": None, "listed_at": None, "ttl_ms": None, "names": [], "tools": {}}
        try:
            data = read_private(FOLDER, self._name(server), cache_dir())
        except LackpyError as exc:
            self.problems[server] = str(exc)
            return empty
        if data is None:
            return empty
        try:
            stored = json.loads(data)
        except ValueError:
            return empty
        return _checked_entry(stored, empty) or empty

    def _write(self, server: str) -> None:
        entry = self._entries[server]
        tools = entry["tools"]
        for oldest in sorted(tools, key=lambda t: tools[t].get("seen_at", 0))[: max(len(tools) - MOST_TOOLS, 0)]:
            del tools[oldest]
        data = json.dumps(entry).encode()  # keys in the order the server sent them, which says something too
        while len(data) > MOST_FILE_BYTES and tools:
            del tools[min(tools, key=lambda t: tools[t].get("seen_at", 0))]
            data = json.dumps(entry).encode()
        try:
            write_private(FOLDER, self._name(server), data, cache_dir())
            self._dirty.discard(server)
            self.problems.pop(server, None)
        except (LackpyError, OSError) as exc:  # kept in memory; said in lackpy mcp shapes
            self.problems[server] = str(exc) if isinstance(exc, LackpyError) else f"{private_path(FOLDER, '', cache_dir())}: {exc.strerror}"

    def flush(self) -> None:
        """Write what changed since it was last written (counts of results, mostly)."""
        with self._lock:
            for server in list(self._dirty):
                self._write(server)

    # -- listings ------------------------------------------------------------------------

    def listed(self, server: str, info: Any, tools: list[Any], ttl_ms: int | None) -> str | None:
        """Server ``server`` listed ``tools`` (its ``serverInfo`` is ``info``): its shapes are kept when the listing is the one they
        were learned under, else forgotten; why they were forgotten, or None."""
        with self._lock:
            entry = self._entry(server)
            said = {"name": _said(getattr(info, "name", "")), "version": _said(getattr(info, "version", ""))}
            listing = fingerprint(tools)
            why = None
            if entry["tools"] and entry["info"] is not None and entry["info"] != said:
                why = f"the server's version changed ({entry['info']['version'] or '-'} to {said['version'] or '-'})"
            elif entry["tools"] and entry["listing"] not in (None, listing):
                why = "the server's tool list changed"
            if why is not None:
                entry["tools"] = {}
                entry["forgot"] = {"why": why, "at": self.clock()}
            changed = why is not None or entry["info"] != said or entry["listing"] != listing or not entry["names"]
            names = sorted({_said(t.name) for t in tools})[:MOST_TOOLS]
            entry.update(info=said, listing=listing, listed_at=self.clock(), ttl_ms=ttl_ms, names=names)
            if changed:
                self._write(server)
            else:
                self._dirty.add(server)
            return why

    # -- learning ------------------------------------------------------------------------

    def learn(self, spec: ToolSpec, value: Any) -> bool:
        """Merge the shape of ``value`` (a result of remote tool ``spec``) into what is known; whether its signature changes."""
        with self._lock:
            server = spec.provider_config["server"]
            entry = self._entry(server)
            old = entry["tools"].get(spec.name)
            node = learn_shape(value) if old is None else bounded(merge(old["node"], learn_shape(value)))
            results = 1 if old is None else old["results"] + 1
            entry["tools"][spec.name] = {"node": node, "results": results, "seen_at": self.clock()}
            if old is None or node != old["node"]:
                self._write(server)
                return True
            self._dirty.add(server)
            return results_label(results) != results_label(old["results"])

    def dress(self, spec: ToolSpec) -> ToolSpec:
        """``spec`` with its learned shape, when it has one and its server declares none: in ``returns`` and ``provider_config["shape"]``."""
        shape = spec.provider_config.get("shape")
        if isinstance(shape, dict) and shape.get("source") == "declared":
            return spec
        config = {key: value for key, value in spec.provider_config.items() if key != "shape"}
        with self._lock:
            known = self._entry(spec.provider_config["server"])["tools"].get(spec.name)
        if known is None:
            return dataclasses.replace(spec, returns="Any", provider_config=config) if shape else spec
        text = f"{render(known['node'])} (shape learned from {results_label(known['results'])}, not declared)"
        config["shape"] = {"node": known["node"], "source": "learned", "results": known["results"]}
        return dataclasses.replace(spec, returns=text, provider_config=config)

    # -- lackpy mcp shapes -----------------------------------------------------------------

    def known(self, server: str | None) -> None:
        """ConfigError, naming the configured servers, unless ``server`` is None or one of them."""
        if server is not None and server not in self.servers:
            names = ", ".join(self.servers) or "none (add [mcp.servers.NAME] to .lackpy/config.toml)"
            raise ConfigError(f"no MCP server named {server} is configured; the configured ones are: {names}")

    def rows(self, server: str | None = None) -> list[dict]:
        """Each server (or only ``server``): its listing and its tools' learned shapes, as ``lackpy mcp shapes`` shows them."""
        out = []
        with self._lock:
            for name in [server] if server is not None else list(self.servers):
                entry = self._entry(name)
                ended = entry["ttl_ms"] is not None and entry["listed_at"] is not None and self.clock() > entry["listed_at"] + entry["ttl_ms"] / 1000
                out.append({
                    "server": name, "file": private_path(FOLDER, self._name(name), cache_dir()), "info": entry["info"],
                    "listed_at": entry["listed_at"], "ttl_ms": entry["ttl_ms"], "ttl_ended": ended, "forgot": entry.get("forgot"),
                    "problem": self.problems.get(name),
                    "tools": {tool: {"returns": render(known["node"]), "results": known["results"], "shape": known["node"]}
                              for tool, known in sorted(entry["tools"].items())},
                })
        return out

    def clear(self, server: str | None = None) -> int:
        """Forget every learned shape (or only ``server``'s); how many tools' shapes were forgotten."""
        forgotten = 0
        with self._lock:
            for name in [server] if server is not None else list(self.servers):
                entry = self._entry(name)
                forgotten += len(entry["tools"])
                entry["tools"] = {}
                entry["forgot"] = {"why": "cleared", "at": self.clock()}
                self._dirty.discard(name)
                try:
                    remove_private(FOLDER, self._name(name), cache_dir())
                except (LackpyError, OSError) as exc:
                    self.problems[name] = str(exc)
        return forgotten


def last_listed(servers: list[ServerSettings], workspace: Path) -> dict[str, dict]:
    """What lackpy last listed of each of ``servers`` (of ``workspace``), read from the cache with no server started.

    ``{name: {"listed_at": seconds since the epoch or None, "info": its serverInfo or None, "names": its tools' names}}``.
    """
    book = ShapeBook({settings.name: settings for settings in servers}, workspace)
    out = {}
    for settings in servers:
        entry = book._entry(settings.name)
        out[settings.name] = {"listed_at": entry["listed_at"], "info": entry["info"], "names": list(entry["names"])}
    return out


def shape_rows(servers: list[ServerSettings], workspace: Path, server: str | None = None, clear: bool = False) -> list[dict]:
    """``ShapeBook.rows`` of ``servers`` (of ``workspace``) read from the cache with no server started (``clear``: forgotten first)."""
    book = ShapeBook({settings.name: settings for settings in servers}, workspace)
    book.known(server)
    if clear:
        book.clear(server)
    return book.rows(server)


def _checked_entry(stored: Any, empty: dict) -> dict | None:
    """A server's entry read back from its file, every part checked; None when it is not one."""
    if not isinstance(stored, dict) or stored.get("format") != _FORMAT or not isinstance(stored.get("tools"), dict):
        return None
    info = stored.get("info")
    info = {"name": _said(info.get("name")), "version": _said(info.get("version"))} if isinstance(info, dict) else None
    number = lambda value: value if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None  # noqa: E731
    tools = {}
    for tool, known in list(stored["tools"].items())[:MOST_TOOLS]:
        node = checked(known.get("node")) if isinstance(known, dict) and isinstance(tool, str) and tool.isidentifier() else None
        results = known.get("results") if isinstance(known, dict) else None
        if node is not None and isinstance(results, int) and results > 0:
            tools[tool] = {"node": node, "results": results, "seen_at": number(known.get("seen_at")) or 0}
    listing = stored.get("listing") if isinstance(stored.get("listing"), str) else None
    names = stored.get("names") if isinstance(stored.get("names"), list) else []
    names = sorted({_said(name) for name in names[:MOST_TOOLS] if isinstance(name, str) and name})
    return {**empty, "info": info, "listing": listing, "listed_at": number(stored.get("listed_at")), "ttl_ms": number(stored.get("ttl_ms")),
            "names": names, "tools": tools}


__all__ = ["FOLDER", "MOST_FILE_BYTES", "MOST_TOOLS", "RELIST_S", "ShapeBook", "fingerprint", "identity", "last_listed", "learnable",
           "results_label", "shape_rows"]
