"""lackpy as the client under test of the MCP conformance suite: ``python conformance_client.py SERVER_URL``.

The suite starts a server for one of its client scenarios and runs this with
the server's URL. lackpy reaches it the way it reaches any server a workspace
names (``[mcp.servers.suite] url = ...``), and calls each of the server's
tools once, each in a program of its own, through ``LackpyService``: a
required argument gets a plain value of its type. A question the server asks
(elicitation) is accepted with nothing filled in, so the server receives only
what lackpy fills in by itself: the form's defaults (SEP-1034); a required
field without a default gets a plain value. Where a scenario says what its
client does, this does that: the calls the suite passes in
``MCP_CONFORMANCE_CONTEXT`` (``toolCalls``), or only listing the tools
(LIST_ONLY). Exit status 0 when every call ran.

In the ``auth/`` scenarios the server wants OAuth: the config says ``oauth``
(with the client the context names for pre-registration, and the client ID
metadata document URL the suite's authorization servers know), and the
person who authorizes (``LackpyService(authorize=...)``) is this script: it
opens the authorization URL without following the redirect and hands lackpy
the address the authorization server sent it to, as a browser would. The
tokens go to a folder of this run's own (XDG_CONFIG_HOME).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

PLAIN = {"number": 2, "integer": 2, "string": "x", "boolean": True, "array": [], "object": {}}
#: Scenarios whose client only lists the server's tools (their server answers nothing else).
LIST_ONLY = {"json-schema-ref-no-deref"}
#: The client ID metadata document the suite's authorization servers accept (SEP-991).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


def oauth_table(scenario: str, context: dict, url: str) -> str:
    """The server's ``oauth`` config: the pre-registered client the context names, else the metadata document URL.

    For client credentials the operator also names the issuer the secret belongs to; here it is looked up once, as an
    operator would, from the server's protected-resource metadata and its authorization server's metadata.
    """
    if scenario == "auth/client-credentials-basic":
        os.environ["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
        return (f'oauth = {{ grant = "client_credentials", client_id = {json.dumps(context["client_id"])}, '
                f'client_secret = "${{CONFORMANCE_CLIENT_SECRET}}", issuer = {json.dumps(issuer_of(url))} }}\n')
    if context.get("client_id"):
        os.environ["CONFORMANCE_CLIENT_SECRET"] = context.get("client_secret", "")
        secret = ', client_secret = "${CONFORMANCE_CLIENT_SECRET}"' if context.get("client_secret") else ""
        return f"oauth = {{ client_id = {json.dumps(context['client_id'])}{secret} }}\n"
    return f"oauth = {{ client_metadata_url = {json.dumps(CLIENT_METADATA_URL)} }}\n"


def issuer_of(url: str) -> str:
    import httpx
    from urllib.parse import urlsplit

    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    resource = httpx.get(origin + "/.well-known/oauth-protected-resource" + urlsplit(url).path, timeout=30).json()
    server = resource["authorization_servers"][0].rstrip("/")
    where = urlsplit(server)
    found = httpx.get("{0.scheme}://{0.netloc}/.well-known/oauth-authorization-server{0.path}".format(where), timeout=30).json()
    return found["issuer"]


async def follow(url: str) -> str:
    """The person's browser: open the authorization URL, and return where the authorization server sends it."""
    import httpx

    async with httpx.AsyncClient(follow_redirects=False, timeout=30) as http:
        response = await http.get(url)
    if "location" not in response.headers:
        raise RuntimeError(f"the authorization endpoint answered {response.status_code} without a redirect")
    return response.headers["location"]


def answer(form: dict) -> dict:
    """A form accepted as shown: a plain value for each required field without a default, nothing else (defaults: lackpy's)."""
    properties, required = form.get("properties", {}), form.get("required", [])
    return {name: PLAIN.get(spec.get("type"), "x") for name, spec in properties.items() if name in required and "default" not in spec}


def call(name: str, spec) -> str:
    """``name(arg=value, ...)`` with a plain value for each required argument of ``spec``."""
    values = []
    for arg in spec.args:
        if arg.required:
            kind = arg.json_schema().get("type")
            values.append(f"{arg.name}={PLAIN.get(kind if isinstance(kind, str) else 'string', 'x')!r}")
    return f"{name}({', '.join(values)})"


async def main(url: str) -> int:
    from lackpy import LackpyService
    from lackpy.approvals.decision import Decision

    async def approve(request):
        if request.gate == "elicit":
            return Decision(True, "callback", "accepted as shown", content=answer(request.form or {}))
        return True

    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")

    auth = scenario.startswith("auth/")
    with tempfile.TemporaryDirectory(prefix="lackpy-conformance-") as tmp:
        root = Path(tmp) / "workspace"
        (root / ".lackpy").mkdir(parents=True)
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        extra = oauth_table(scenario, context, url) if auth else ""
        (root / ".lackpy" / "config.toml").write_text(f"[mcp.servers.suite]\nurl = {json.dumps(url)}\ngrade = [1, 1]\n{extra}")
        async with LackpyService(root, trust=True, approve=approve, authorize=follow if auth else None) as service:
            tools = {spec.name: spec for spec in service.toolbox.list_tools() if spec.name.startswith("suite__")}
            if not tools:  # connected (a server that failed to connect is a notice) and nothing to call
                failed = [notice for notice in service.notices if "suite" in notice]
                print(json.dumps({"tools": 0, "notices": failed}))
                return 1 if failed else 0
            if scenario in LIST_ONLY:
                print(json.dumps({"tools": sorted(tools)}))
                return 0
            given = context.get("toolCalls") if isinstance(context, dict) else None
            if given:
                programs = [f"suite__{c['name']}(" + ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items()) + ")" for c in given]
            else:
                programs = [call(name, spec) for name, spec in sorted(tools.items())]
            failed = 0
            for program in programs:  # one run per call: a call that fails does not keep the others from the server
                result = await service.run_program(program, kit=sorted(tools))
                print(json.dumps({"program": program, "success": result.success, "error": result.error}))
                failed += not result.success
            return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
