"""lackpy's OAuth client, its parts: the config, the private token files, the authorization response, who you are, the CLI's refusals.

The whole flow against real authorization servers is in
tests/mcp/test_mcp_conformance.py (every scored auth scenario of the MCP
conformance suite, and ``lackpy mcp login`` driven as a person would).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys

import pytest

from lackpy.errors import AuthError, ConfigError
from lackpy.host.private import read_private, write_private
from lackpy.remote import oauth
from lackpy.remote.settings import parse_servers


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "lackpy"


def server(**table):
    return parse_servers({"servers": {"forge": {"url": "https://forge.example/mcp", **table}}})[0]


@pytest.mark.parametrize(
    "table, said",
    [
        ({"oauth": {"client_id": "a", "client_secret": "plain"}}, 'client_secret: write it as "${VARIABLE}"'),
        ({"oauth": {"client_secret": "${S}"}}, "client_secret goes with the client_id it belongs to"),
        ({"oauth": {"grant": "password"}}, "grant: must be one of authorization_code, client_credentials"),
        ({"oauth": {"grant": "client_credentials", "client_id": "a", "client_secret": "${S}"}}, 'issuer = "https://..." (the only authorization server'),
        ({"oauth": {"redirect_port": 80}}, "redirect_port: must be a port from 1024 to 65535"),
        ({"oauth": {"client_metadata_url": "http://x/c.json"}}, "client_metadata_url: must be an https:// URL with a path"),
        ({"oauth": {"scope": "all"}}, "unknown key(s) scope"),
        ({"oauth": "yes"}, "must be true, false, or a table"),
        ({"oauth": True, "headers": {"Authorization": "Bearer ${T}"}}, "whose headers have no Authorization"),
    ],
)
def test_an_oauth_table_that_is_wrong_says_what_to_write(table, said):
    with pytest.raises(ConfigError) as caught:
        server(**table)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_oauth_on_a_stdio_server_is_refused():
    with pytest.raises(ConfigError, match="oauth is for a url"):
        parse_servers({"servers": {"local": {"command": "srv", "oauth": True}}})


def test_a_client_without_a_secret_is_public_and_one_with_a_secret_uses_basic(monkeypatch):
    assert server(oauth=True).oauth.method == "none"
    assert server(oauth={"client_id": "lackpy"}).oauth.method == "none"
    assert server(oauth={"client_id": "lackpy", "client_secret": "${S}"}).oauth.method == "client_secret_basic"
    monkeypatch.delenv("S", raising=False)
    with pytest.raises(ConfigError, match="the environment variable S is not set"):
        server(oauth={"client_id": "lackpy", "client_secret": "${S}"}).oauth.secret("forge")


def test_tokens_are_kept_in_a_0600_file_in_a_0700_folder_of_the_persons_own(home):
    settings = server(oauth=True)
    store = oauth.TokenFile(settings)
    from mcp.shared.auth import OAuthToken

    asyncio.run(store.set_tokens(OAuthToken(access_token="secret-access", token_type="Bearer", expires_in=3600, refresh_token="r")))
    path = home / "oauth" / oauth.file_name(settings)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    assert asyncio.run(store.get_tokens()).access_token == "secret-access"
    # Another URL under the same name is another file: a token never goes to a server it was not issued for.
    assert asyncio.run(oauth.TokenFile(server(oauth=True, url="https://elsewhere.example/mcp")).get_tokens()) is None
    store.clear_tokens()
    assert asyncio.run(store.get_tokens()) is None and path.exists()
    assert oauth.forget(settings) is True and not path.exists() and oauth.forget(settings) is False


def test_a_token_file_others_may_read_or_a_symlink_is_refused_and_nothing_is_read(home, tmp_path):
    write_private("oauth", "t.json", b"{}")
    (home / "oauth" / "t.json").chmod(0o644)
    with pytest.raises(ConfigError, match=r"may be read or written by others \(mode 644\); run chmod 600"):
        read_private("oauth", "t.json")
    canary = tmp_path / "canary.json"
    canary.write_text('{"tokens": "canary"}')
    canary.chmod(0o600)
    os.symlink(canary, home / "oauth" / "link.json")
    with pytest.raises(ConfigError, match="is a symlink"):
        read_private("oauth", "link.json")
    (home / "oauth").chmod(0o755)
    with pytest.raises(ConfigError, match="run chmod 700"):
        read_private("oauth", "t.json")


def test_the_authorization_response_gives_code_state_and_iss_and_a_refusal_is_one_line():
    got = oauth.returned("http://127.0.0.1:5/callback?code=abc&state=s1&iss=https%3A%2F%2Fas.example")
    assert (got.code, got.state, got.iss) == ("abc", "s1", "https://as.example")
    with pytest.raises(AuthError, match="the authorization server refused: The user said no"):
        oauth.returned("http://127.0.0.1:5/callback?error=access_denied&error_description=The+user+said%0Ano&state=s1")
    with pytest.raises(AuthError, match="has no code"):
        oauth.returned("http://127.0.0.1:5/callback?state=s1")


def test_who_you_are_is_read_from_a_jwt_token_and_an_opaque_one_says_only_logged_in(home):
    settings = server(oauth=True)
    claims = base64.urlsafe_b64encode(json.dumps({"sub": "u-1", "preferred_username": "ada"}).encode()).decode().rstrip("=")
    from mcp.shared.auth import OAuthToken

    assert oauth.identity(settings) is None
    asyncio.run(oauth.TokenFile(settings).set_tokens(OAuthToken(access_token=f"h.{claims}.sig", token_type="Bearer", scope="read")))
    assert oauth.identity(settings) == {"as": "ada", "scope": "read", "expires_at": None, "expired": False, "refreshable": False}
    asyncio.run(oauth.TokenFile(settings).set_tokens(OAuthToken(access_token="opaque", token_type="Bearer", expires_in=1)))
    assert oauth.identity(settings)["as"] is None


def test_without_an_authorizer_a_server_that_wants_a_person_says_to_log_in(home):
    provider = oauth.auth_for(server(oauth=True), None)
    with pytest.raises(AuthError, match="the MCP server forge wants you to log in; run lackpy mcp login forge"):
        asyncio.run(provider.context.redirect_handler("https://as.example/authorize?state=x"))


def test_the_cli_refuses_a_login_it_cannot_do_in_one_line(tmp_path, home):
    (tmp_path / ".lackpy").mkdir()
    (tmp_path / ".lackpy" / "config.toml").write_text('[mcp.servers.plain]\nurl = "http://127.0.0.1:9/mcp"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(home.parent))
    subprocess.run([sys.executable, "-m", "lackpy", "trust", str(tmp_path)], env=env, capture_output=True, timeout=60)
    for args, said in (
        (["mcp", "login", "plain"], "lackpy: error: the MCP server plain does not use OAuth; add oauth = true to [mcp.servers.plain] if it should"),
        (["mcp", "logout", "nope"], "lackpy: error: no MCP server named nope is configured; lackpy mcp list shows them"),
    ):
        out = subprocess.run([sys.executable, "-m", "lackpy", *args, "-w", str(tmp_path)], env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert out.returncode != 0 and out.stderr.splitlines()[-1].startswith(said) and "Traceback" not in out.stderr, out.stderr


def test_the_browser_authorizer_takes_the_answer_at_its_loopback_listener_and_refuses_an_address_with_control_characters(tmp_path):
    import socket
    import httpx
    from lackpy.remote.browser import in_browser

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    shown: list[str] = []
    authorize = in_browser(open_browser=False, paste=False, say=shown.append)
    url = f"https://as.example/authorize?state=s&redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback"

    async def person() -> str:
        waiting = asyncio.create_task(authorize(url))
        while not shown:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"http://127.0.0.1:{port}/elsewhere?code=x")).status_code == 404
            assert (await http.get(f"http://127.0.0.1:{port}/callback?code=c1&state=s")).status_code == 200
        return await waiting

    assert asyncio.run(person()) == f"http://127.0.0.1:{port}/callback?code=c1&state=s"
    assert url in shown[0]
    with pytest.raises(AuthError, match="not a plain http"):
        asyncio.run(in_browser(open_browser=False, paste=False, say=shown.append)("https://as.example/\x1b[2Jauthorize"))


def test_the_persons_own_lackpy_folder_may_be_a_link_but_its_secret_folder_may_not(tmp_path, monkeypatch):
    (tmp_path / "dotfiles" / "lackpy").mkdir(parents=True)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "lackpy").symlink_to(tmp_path / "dotfiles" / "lackpy")  # as dotfile managers do
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    write_private("oauth", "a.json", b"{}")
    assert read_private("oauth", "a.json") == b"{}"
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "dotfiles" / "lackpy" / "oauth" / "a.json").unlink()
    (tmp_path / "dotfiles" / "lackpy" / "oauth").rmdir()
    (tmp_path / "dotfiles" / "lackpy" / "oauth").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="is a symlink or not a directory"):
        write_private("oauth", "a.json", b"{}")
    assert list((tmp_path / "elsewhere").iterdir()) == []
