"""A person at the terminal, against one of the conformance suite's OAuth servers: ``python login_driver.py SERVER_URL``.

The suite starts an MCP server behind OAuth (with its authorization server)
and runs this with the server's URL. This drives the real ``lackpy`` CLI as
a person would: ``lackpy mcp login suite --no-browser``, then opens the
address it prints, the way a browser does (the authorization server
redirects to lackpy's loopback listener, which this follows), then uses the
server with the stored token from a fresh process, logs out, and checks that
lackpy then refuses to reach the server and says how to log in. It prints
one JSON line of what it saw and exits 0 only when every step held.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx


def lackpy(*args: str, env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lackpy", *args], env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def log_in(workspace: Path, env: dict) -> tuple[int, str, str]:
    """``lackpy mcp login suite``, answered as a browser: the address it shows is opened, and its redirect followed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lackpy", "mcp", "login", "suite", "--no-browser", "-w", str(workspace)],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    said = []
    for line in process.stderr:
        said.append(line)
        if line.strip().startswith("http"):
            break
    url = said[-1].strip() if said else ""
    if url.startswith("http"):
        back = httpx.get(url, follow_redirects=False, timeout=30).headers.get("location", "")
        said.append(f"[browser sent to {back.split('?')[0]}: {httpx.get(back, timeout=30).status_code}]\n")
    out, err = process.communicate(timeout=120)
    return process.returncode, out, "".join(said) + err


def main(url: str) -> int:
    seen: dict = {}
    with tempfile.TemporaryDirectory(prefix="lackpy-login-") as tmp:
        workspace, config = Path(tmp) / "workspace", Path(tmp) / "config"
        (workspace / ".lackpy").mkdir(parents=True)
        port = free_port()
        (workspace / ".lackpy" / "config.toml").write_text(f"[mcp.servers.suite]\nurl = {json.dumps(url)}\ngrade = [1, 0]\noauth = {{ redirect_port = {port} }}\n")
        env = dict(os.environ, XDG_CONFIG_HOME=str(config), NO_COLOR="1")
        lackpy("trust", str(workspace), env=env)
        seen["login"] = log_in(workspace, env)
        files = list((config / "lackpy" / "oauth").glob("suite-*.json"))
        seen["token_files"] = [oct(stat.S_IMODE(f.stat().st_mode)) for f in files]
        seen["token_folder"] = oct(stat.S_IMODE((config / "lackpy" / "oauth").stat().st_mode)) if files else None
        token = json.loads(files[0].read_text())["tokens"]["access_token"] if files else "missing"
        listing = lackpy("mcp", "status", "--json", "-w", str(workspace), env=env)
        rows = json.loads(listing.stdout or "[]")
        seen["list"] = [{"state": row["state"], "login": row.get("login"), "tools": row["tools"]} for row in rows]
        tool = rows[0]["tools"][0] if rows and rows[0]["tools"] else "suite__missing"
        program = f"{tool}()\n"
        ran = subprocess.run([sys.executable, "-m", "lackpy", "run", "-w", str(workspace), "--kit", tool, "--json", "-"], input=program,
                             env=env, capture_output=True, text=True, timeout=120)
        result = json.loads(ran.stdout or "{}")
        seen["run"] = {"exit": ran.returncode, "success": result.get("success"), "error": result.get("error")}
        seen["token_leaked"] = [p.name for p in workspace.rglob("*") if p.is_file() and token in p.read_text(errors="replace")]
        seen["token_printed"] = token in listing.stdout + listing.stderr + ran.stdout + ran.stderr + seen["login"][1] + seen["login"][2]
        out = lackpy("mcp", "logout", "suite", "-w", str(workspace), env=env)
        seen["logout"] = (out.returncode, out.stdout.strip(), [f.name for f in files if f.exists()])
        after = subprocess.run([sys.executable, "-m", "lackpy", "run", "-w", str(workspace), "--kit", tool, "-"], input=program,
                               env=env, capture_output=True, text=True, timeout=120)
        seen["after_logout"] = (after.returncode, after.stderr.strip())
    print(json.dumps(seen))
    good = (
        seen["login"][0] == 0 and "logged in" in seen["login"][1]
        and seen["token_files"] == ["0o600"] and seen["token_folder"] == "0o700"
        and seen["list"] and seen["list"][0]["state"] == "connected" and seen["list"][0]["login"] is not None
        and seen["run"] == {"exit": 0, "success": True, "error": None}
        and not seen["token_leaked"] and not seen["token_printed"]
        and seen["logout"][0] == 0 and not seen["logout"][2]
        and seen["after_logout"][0] != 0 and "lackpy mcp login suite" in seen["after_logout"][1] and "Traceback" not in seen["after_logout"][1]
    )
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
