"""The ``[mcp.servers.NAME]`` tables of the config: which MCP servers lackpy connects to, and how.

A stdio server has ``command`` (and ``args``, ``env``, ``cwd``); an HTTP
server has ``url`` (and ``headers``). Secrets are never written in the
config: a value may name environment variables as ``${NAME}``, read when the
server is started. ``grade = [w, d]`` grades its tools (default the highest,
(3, 3)), ``[mcp.servers.NAME.tools.TOOL] grade`` one tool; ``timeout_s``
bounds each call (within the run's remaining time), and a tool's own
``timeout_s`` its calls; ``trust_annotations =
true`` lets the server's own read-only hint lower an undeclared grade.
``category = "communication"`` files its tools under a category for
``lackpy tools search`` (a tool's own ``category`` wins); without one they
have none (``""``), since a server's tools can be anything, and are still
found by the server's name, which is one of their tags. ``sampling = "TIER"``
lets that inference tier answer the server's ``sampling/createMessage``
(``lackpy.remote.sampling``); without it lackpy declares no sampling.
``oauth = true`` (or a table, ``OAuthSettings``) has an HTTP server's
tokens come from OAuth (``lackpy.remote.oauth``): ``lackpy mcp login NAME``
gets them once, and they are kept outside every workspace.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from lackpy.errors import ConfigError
from lackpy.kit.spec import category_problem
from lackpy.lang.grade import Grade

#: How long a call to a remote tool may take when the config says nothing, in seconds.
CALL_TIMEOUT_S = 60.0
#: How long a server may take to start and list its tools, in seconds.
START_TIMEOUT_S = 20.0
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_TIER = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
#: A reference to an environment variable in a config value: ``${NAME}``.
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


#: The grants lackpy's OAuth client uses: a person's authorization code, or a client's own credentials (unattended).
GRANTS = ("authorization_code", "client_credentials")
#: How a pre-registered client proves itself at the token endpoint.
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
#: The loopback port the authorization server sends a person's browser back to, when the config names none.
REDIRECT_PORT = 33418


@dataclass(frozen=True)
class OAuthSettings:
    """``oauth`` of an HTTP server: how lackpy gets its tokens.

    Everything is optional: by default lackpy finds the authorization server
    from the MCP server's 401, registers itself there (or uses
    ``client_metadata_url`` where the server takes client ID metadata
    documents) and asks a person once (``lackpy mcp login NAME``).
    ``client_id`` (and ``client_secret``, always as ``${VARIABLE}``) is a
    client registered beforehand; ``grant = "client_credentials"`` uses it with
    no person, for unattended use (``issuer`` then names the authorization
    server those credentials belong to, which is required: a secret is sent to
    no other). The scopes asked for are the ones the server names (its 401 or
    403, else its metadata), as the MCP authorization spec says.
    """

    client_id: str | None = None
    client_secret: str | None = None
    auth_method: str | None = None
    client_metadata_url: str | None = None
    grant: str = "authorization_code"
    issuer: str | None = None
    redirect_port: int = REDIRECT_PORT

    @property
    def method(self) -> str:
        """How the client proves itself at the token endpoint: ``auth_method``, else basic with a secret and none without."""
        return self.auth_method or ("client_secret_basic" if self.client_secret else "none")

    def secret(self, server: str) -> str | None:
        """``client_secret`` with its variable read from the environment (ConfigError when unset)."""
        return None if self.client_secret is None else expand(self.client_secret, f"[mcp.servers.{server}] oauth client_secret")


@dataclass(frozen=True)
class ServerSettings:
    """How to reach one MCP server and how to grade its tools."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    grade: tuple[int, int] | None = None
    tool_grades: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    tool_timeouts: Mapping[str, float] = field(default_factory=dict)
    timeout_s: float = CALL_TIMEOUT_S
    start_timeout_s: float = START_TIMEOUT_S
    trust_annotations: bool = False
    category: str = ""
    tool_categories: Mapping[str, str] = field(default_factory=dict)
    sampling: str | None = None
    """The inference tier that answers the server's sampling requests; None: lackpy declares no sampling."""
    oauth: OAuthSettings | None = None
    """How an HTTP server's tokens are got; None: the server takes ``headers`` only."""

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def timeout_for(self, tool: str) -> float:
        """How long one call of ``tool`` may take: its own ``timeout_s``, else the server's."""
        return self.tool_timeouts.get(tool, self.timeout_s)

    def category_for(self, tool: str) -> str:
        """The category of ``tool``: its own ``category``, else the server's (``""``: none)."""
        return self.tool_categories.get(tool, self.category)

    def row(self, state: str, reason: str | None = None) -> dict:
        """The server as ``lackpy mcp list`` shows one that is not connected: ``state`` and why, with no tools."""
        return {"name": self.name, "transport": self.transport, "where": self.describe(), "state": state, "reason": reason, "tools": []}

    def describe(self) -> str:
        """Where the server is, without any secret: the command and its arguments, or the URL."""
        if self.command:
            return " ".join([self.command, *self.args])
        return str(self.url)

    def resolved_env(self) -> dict[str, str]:
        """``env`` with ``${NAME}`` taken from lackpy's environment. Raises ConfigError for an unset variable."""
        return {key: expand(value, f"[mcp.servers.{self.name}] env {key}") for key, value in self.env.items()}

    def resolved_headers(self) -> dict[str, str]:
        """``headers`` with ``${NAME}`` taken from lackpy's environment. Raises ConfigError for an unset variable."""
        return {key: expand(value, f"[mcp.servers.{self.name}] headers {key}") for key, value in self.headers.items()}


def expand(value: str, where: str) -> str:
    """``value`` with each ``${NAME}`` replaced by the environment variable NAME."""

    def variable(match: re.Match) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigError(f"{where}: the environment variable {name} is not set; export it before starting lackpy")
        return os.environ[name]

    return VARIABLE.sub(variable, value)


#: How many tools a prompt lists one by one when ``[mcp] list_tools_up_to`` says nothing.
LIST_UP_TO = 30


def list_up_to(table: Any, where: str = "config") -> int:
    """``[mcp] list_tools_up_to``: past this many tools, a prompt lists remote tools by server. Raises ConfigError."""
    value = table.get("list_tools_up_to", LIST_UP_TO) if isinstance(table, dict) else LIST_UP_TO
    if type(value) is not int or value < 1:
        raise ConfigError(f"{where}: [mcp] list_tools_up_to must be a whole number of tools, at least 1")
    return value


def parse_servers(table: Any, where: str = "config") -> list[ServerSettings]:
    """The servers of an ``[mcp]`` table. Raises ConfigError naming the key that is wrong."""
    if table is None:
        return []
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [mcp] must be a table with [mcp.servers.NAME] tables in it")
    unknown = sorted(set(table) - {"servers", "list_tools_up_to"})
    if unknown:
        raise ConfigError(f"{where}: [mcp] has unknown key(s) {', '.join(unknown)}; it holds list_tools_up_to and [mcp.servers.NAME] tables")
    servers = table.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{where}: [mcp.servers] must hold one table per server, e.g. [mcp.servers.github]")
    return [_server(name, entry, f"{where} [mcp.servers.{name}]") for name, entry in servers.items()]


def _server(name: str, entry: Any, where: str) -> ServerSettings:
    if not _NAME.match(name) or "__" in name:
        raise ConfigError(f"{where}: a server name is letters, digits and single '_', starting with a letter (it prefixes its tools: {name}__tool)")
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: must be a table with command = ... or url = ...")
    known = {"command", "args", "env", "cwd", "url", "headers", "grade", "tools", "timeout_s", "start_timeout_s", "trust_annotations", "category", "sampling", "oauth"}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise ConfigError(f"{where}: give either command = \"...\" (stdio) or url = \"http://...\" (streamable HTTP)")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where}: command must be a program name or path")
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: url must start with http:// or https://")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"{where}: args must be a list of strings")
    env, headers = (_strings(entry.get(key, {}), f"{where} {key}") for key in ("env", "headers"))
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: cwd must be a directory path")
    oauth = _oauth(entry.get("oauth", False), f"{where} oauth")
    if oauth is not None and (command is not None or any(key.lower() == "authorization" for key in headers)):
        raise ConfigError(f"{where}: oauth is for a url = \"https://...\" server whose headers have no Authorization; drop one of them")
    tools = entry.get("tools", {})
    if not isinstance(tools, dict) or not all(isinstance(t, dict) for t in tools.values()):
        raise ConfigError(f"{where}: tools must hold one table per tool, e.g. [mcp.servers.{name}.tools.search] grade = [1, 0]")
    return ServerSettings(
        name=name,
        command=command,
        args=tuple(args),
        env=env,
        cwd=cwd,
        url=url,
        headers=headers,
        grade=_grade(entry.get("grade"), f"{where} grade"),
        tool_grades={tool: _grade(t.get("grade"), f"{where} tools.{tool}.grade") for tool, t in tools.items() if "grade" in t},
        tool_timeouts={tool: _seconds(t["timeout_s"], f"{where} tools.{tool}.timeout_s") for tool, t in tools.items() if "timeout_s" in t},
        timeout_s=_seconds(entry.get("timeout_s", CALL_TIMEOUT_S), f"{where} timeout_s"),
        start_timeout_s=_seconds(entry.get("start_timeout_s", START_TIMEOUT_S), f"{where} start_timeout_s"),
        trust_annotations=_flag(entry.get("trust_annotations", False), f"{where} trust_annotations"),
        category=_category(entry.get("category", ""), f"{where} category"),
        tool_categories={tool: _category(t["category"], f"{where} tools.{tool}.category") for tool, t in tools.items() if "category" in t},
        sampling=_tier_name(entry.get("sampling"), f"{where} sampling"),
        oauth=oauth,
    )


_OAUTH_KEYS = ("client_id", "client_secret", "auth_method", "client_metadata_url", "grant", "issuer", "redirect_port")


def _oauth(value: Any, where: str) -> OAuthSettings | None:
    """``oauth``: true, false, or a table of ``OAuthSettings``'s fields."""
    if value is False:
        return None
    if value is True:
        return OAuthSettings()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be true, false, or a table such as {{ client_id = \"lackpy-cli\" }}")
    unknown = sorted(set(value) - set(_OAUTH_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_OAUTH_KEYS)}")
    texts = {key: value[key] for key in _OAUTH_KEYS if key in value and key != "redirect_port"}
    for key, text in texts.items():
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where} {key}: must be a non-empty string")
    settings = OAuthSettings(**texts, redirect_port=value.get("redirect_port", REDIRECT_PORT))
    _check_oauth(settings, where)
    return settings


def _check_oauth(settings: OAuthSettings, where: str) -> None:
    if type(settings.redirect_port) is not int or not 1024 <= settings.redirect_port <= 65535:
        raise ConfigError(f"{where} redirect_port: must be a port from 1024 to 65535 on 127.0.0.1")
    if settings.client_secret is not None and not VARIABLE.fullmatch(settings.client_secret):
        raise ConfigError(f'{where} client_secret: write it as "${{VARIABLE}}" and export VARIABLE; a secret is never written in the config')
    if settings.client_secret is not None and settings.client_id is None:
        raise ConfigError(f"{where}: client_secret goes with the client_id it belongs to")
    if settings.grant not in GRANTS:
        raise ConfigError(f"{where} grant: must be one of {', '.join(GRANTS)}")
    if settings.auth_method not in (None, *AUTH_METHODS):
        raise ConfigError(f"{where} auth_method: must be one of {', '.join(AUTH_METHODS)}")
    if settings.grant == "client_credentials" and (settings.client_secret is None or settings.method == "none" or settings.issuer is None):
        raise ConfigError(f'{where}: grant = "client_credentials" needs client_id, client_secret = "${{VARIABLE}}" and issuer = "https://..." (the only authorization server the secret goes to)')
    url = settings.client_metadata_url
    if url is not None and (not url.startswith("https://") or url.split("://", 1)[1].rstrip("/").count("/") < 1):
        raise ConfigError(f"{where} client_metadata_url: must be an https:// URL with a path, where your client ID metadata document is served")
    for key in ("issuer",):
        text = getattr(settings, key)
        if text is not None and not text.startswith(("https://", "http://")):
            raise ConfigError(f"{where} {key}: must be the authorization server's issuer URL")


def _strings(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"{where}: must be a table of strings; write secrets as \"${{VARIABLE}}\", never in the file")
    return dict(value)


def _grade(value: Any, where: str) -> tuple[int, int] | None:
    if value is None:
        return None
    grade = Grade.parse(value) if isinstance(value, list) else None  # the TOML list form only
    if grade is None:
        raise ConfigError(f"{where}: must be [w, d], two whole numbers from 0 to 3, e.g. [1, 0] for a read-only network tool")
    return grade.w, grade.d


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 86400:
        raise ConfigError(f"{where}: must be a number of seconds above 0")
    return float(value)


def _category(value: Any, where: str) -> str:
    problem = category_problem(value)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return value


def _tier_name(value: Any, where: str) -> str | None:
    """``sampling``: the name of an inference tier, as ``[inference.NAME]`` names it (whether it is configured is checked when the server starts)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _TIER.match(value):
        raise ConfigError(f'{where}: must name an inference tier, e.g. sampling = "ollama" for the tier of [inference.ollama]')
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: must be true or false")
    return value


def table_text(name: str, table: dict[str, Any]) -> str:
    """The TOML text of ``[mcp.servers.NAME]`` holding ``table`` (strings, lists of strings or ints, tables of strings)."""
    lines = [f"[mcp.servers.{name}]"]
    for key, value in table.items():
        if isinstance(value, dict):
            text = "{ " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in value.items()) + " }"
        else:
            text = json.dumps(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


__all__ = ["CALL_TIMEOUT_S", "LIST_UP_TO", "REDIRECT_PORT", "START_TIMEOUT_S", "VARIABLE", "OAuthSettings", "ServerSettings", "expand", "list_up_to", "parse_servers", "table_text"]
