"""Two replicas of ``lackpy serve --http`` sharing one real redis-server: state follows a client from one to the other.

Each test starts its own redis-server and two ``lackpy serve`` subprocesses on
loopback ports, with a bearer token and a shared cluster key, and talks to
them with the official MCP client, sending each call to the replica it
chooses (as a balancer without affinity would).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import mcp_types
import pytest

from conftest import make_workspace
from mcp_support import PYTHON, start_http, stop
from test_service_async import running_commands

pytestmark = pytest.mark.cluster

TOKEN = "cluster-test-token"
KEY = "k" * 40
TODO = "todo_set,todo_read"
ERAS = ["legacy", "auto"]  # auto negotiates 2026-07-28 with lackpy's server


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


@pytest.fixture
def env(server_env) -> dict:
    return dict(server_env, LACKPY_TEST_TOKEN=TOKEN, LACKPY_CLUSTER_KEY=KEY)


class Replicas:
    """Two replicas, A and B, of one deployment in ``redis_url``; their processes, URLs and ids."""

    def __init__(self, ws: Path, env: dict, redis_url: str, *options: str) -> None:
        from lackpy.store import open_store

        self.store, self.redis_url = open_store(redis_url), redis_url
        common = ("--store", redis_url, "--cluster-key-env", "LACKPY_CLUSTER_KEY", "--token-env", "LACKPY_TEST_TOKEN",
                  "--allow-kits", "readonly,coding", *options)
        self.processes, self.urls = [], []
        for _ in range(2):
            process, port = start_http(ws, env, *common, stderr=subprocess.DEVNULL)
            self.processes.append(process)
            self.urls.append(f"http://127.0.0.1:{port}/mcp")
        deadline = time.monotonic() + 20
        while len(self.ids()) < 2:  # each registers as its lifespan starts
            assert time.monotonic() < deadline, "the replicas did not register"
            time.sleep(0.05)

    def ids(self) -> dict[str, str]:
        """Replica id by URL, as the registry holds them."""
        return {value["url"] + "/mcp": key.removeprefix("replica:") for key, value in self.store.scan("replica:").items()}

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                stop(process)
        self.store.close()


@pytest.fixture
def replicas(ws, env, redis_url):
    made = Replicas(ws, env, redis_url)
    yield made
    made.close()


def client(url: str, mode: str = "auto", answering=None):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30.0, read=120.0))
    return Client(streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=answering or accept)


async def accept(context, params):
    return mcp_types.ElicitResult(action="accept", content={"approve": True})


async def call(url: str, mode: str, name: str, **arguments) -> dict:
    async with client(url, mode) as opened:
        return await on(opened, name, **arguments)


async def on(opened, name: str, **arguments) -> dict:
    """One call on an open client: its structured result, with ``is_error`` and the text a model reads."""
    result = await opened.call_tool(name, arguments)
    return {"is_error": result.is_error, "text": result.content[0].text if result.content else "", **(result.structured_content or {})}


# -- sessions -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
def test_kept_values_and_the_checklist_follow_a_session_from_replica_to_replica(replicas, mode):
    a, b = replicas.urls

    async def main() -> list[dict]:
        async with client(a, mode) as on_a, client(b, mode) as on_b:  # open together: a handshake-era session closes with its connection
            first = await on(on_a, "run_program", program='x = 41\ntodo_set(["ship it"])\nx', kit=TODO, keep=True)
            session = first["session"]
            there = await on(on_b, "run_program", program='x = x + 1\n[x, todo_read()[0]["text"]]', kit=TODO, session=session, keep=True)
            back = await on(on_a, "run_program", program="x", session=session)
        return [first, there, back]

    first, on_b, back_on_a = asyncio.run(main())
    assert first["success"] and first["kept"] == ["x"]
    assert on_b["success"] and on_b["output"] == [42, "ship it"] and on_b["session"] == first["session"]
    assert back_on_a["success"] and back_on_a["output"] == 42  # A reads the version B wrote, not its own older copy


def test_a_background_process_is_reached_on_its_replica_and_its_loss_is_said_once(replicas):
    a, b = replicas.urls
    marker = "71.31337"

    async def main() -> list[dict]:
        started = await call(a, "auto", "run_program", program=f'x = 5\np = start_process("sleep {marker}")\np', kit="coding", keep=True)
        session = started["session"]
        polled = await call(b, "auto", "run_program", program="poll_process(p)['running']", kit="coding", session=session)
        os.kill(replicas.processes[0].pid, signal.SIGKILL)
        replicas.processes[0].wait()
        lost = await call(b, "auto", "run_program", program="x", kit="coding", session=session)
        again = await call(b, "auto", "run_program", program="[x, list_processes()]", kit="coding", session=session)
        return [started, polled, lost, again]

    started, polled, lost, again = asyncio.run(main())
    assert started["success"] and started["output"] == "p1"
    assert polled["success"] and polled["output"] is True  # the call landed on B and ran on A, where the process is
    assert lost["is_error"] and lost["error"]["kind"] == "lost" and "background processes were lost with replica" in lost["text"]
    assert again["success"] and again["output"] == [5, []]  # the kept values go on, without the processes
    for pid in running_commands(f"sleep {marker}"):  # A was killed: the process it started is no one's to stop now
        os.kill(pid, signal.SIGKILL)


# -- approvals: a waiting run is reached wherever its retry lands ------------------------------------

CANARY_FIRST = "run_command('echo ran >> canary.txt')\nwrite_file('new.txt', 'n')\n'done'"


async def asked(opened, program: str):
    return await opened.session.call_tool("run_program", {"program": program, "kit": "coding"}, allow_input_required=True)


async def answer(opened, program: str, question, action: str = "accept", state: str | None = None):
    [(key, _)] = question.input_requests.items()
    content = {"approve": True} if action == "accept" else None
    responses = {key: mcp_types.ElicitResult(action=action, content=content)}
    return await opened.session.call_tool(
        "run_program", {"program": program, "kit": "coding"}, input_responses=responses,
        request_state=state or question.request_state, allow_input_required=True,
    )


def test_a_retry_that_lands_on_the_other_replica_reaches_the_run_which_never_runs_again(replicas, ws):
    a, b = replicas.urls
    ids = replicas.ids()

    async def main():
        async with client(a) as on_a, client(b) as on_b:
            command = await asked(on_a, CANARY_FIRST)
            commit = await answer(on_b, CANARY_FIRST, command)  # to B: forwarded to A, where the run waits
            done = await answer(on_b, CANARY_FIRST, commit)
            return command, commit, done

    command, commit, done = asyncio.run(main())
    assert isinstance(command, mcp_types.InputRequiredResult) and command.request_state.startswith(ids[a] + ".")
    assert "run_command(command='echo ran >> canary.txt')" in command.input_requests["approve-1"].params.message
    assert isinstance(commit, mcp_types.InputRequiredResult) and "Apply these changes?" in commit.input_requests["approve-2"].params.message
    assert not done.is_error and done.structured_content["output"] == "done"
    assert (ws / "canary.txt").read_text() == "ran\n"  # what the run did before its questions happened once
    assert (ws / "new.txt").read_text() == "n"


def test_a_state_changed_in_one_byte_or_sent_as_another_replicas_is_refused(replicas, ws):
    a, b = replicas.urls
    ids = replicas.ids()

    async def main():
        async with client(a) as on_a, client(b) as on_b:
            question = await asked(on_a, CANARY_FIRST)
            state = question.request_state
            flipped = state[:-5] + ("A" if state[-5] != "A" else "B") + state[-4:]
            redirected = ids[b] + state[len(ids[a]):]
            refused = [await answer(on_b, CANARY_FIRST, question, state=forged) for forged in (flipped, redirected)]
            refused.append(await answer(on_a, CANARY_FIRST, question, state=redirected))
            declined = await answer(on_b, CANARY_FIRST, question, action="decline")
            return refused, declined

    refused, declined = asyncio.run(main())
    for result in refused:
        assert result.is_error and result.structured_content["error"]["kind"] == "param"
        assert "requestState was not issued by this server, or was changed" in result.content[0].text
    assert declined.structured_content["error_kind"] == "denied"  # the true state still reached the run: nothing forged answered it
    assert not (ws / "canary.txt").exists() and not (ws / "new.txt").exists()


def test_a_retry_whose_replica_was_killed_is_told_the_run_was_lost_and_nothing_was_committed(replicas, ws):
    a, b = replicas.urls
    program = "write_file('new.txt', 'n')\n'done'"

    async def main():
        async with client(a) as on_a:
            question = await on_a.session.call_tool("run_program", {"program": program, "kit": "coding"}, allow_input_required=True)
        os.kill(replicas.processes[0].pid, signal.SIGKILL)
        replicas.processes[0].wait()
        async with client(b) as on_b:
            [(key, _)] = question.input_requests.items()
            retried = await on_b.session.call_tool(
                "run_program", {"program": program, "kit": "coding"}, request_state=question.request_state,
                input_responses={key: mcp_types.ElicitResult(action="accept", content={"approve": True})}, allow_input_required=True,
            )
            still = await on_b.call_tool("validate", {"program": "1 + 1"})
        return question, retried, still

    question, retried, still = asyncio.run(main())
    assert "Apply these changes?" in question.input_requests["approve-1"].params.message
    assert retried.is_error and retried.structured_content["error"]["kind"] == "lost"
    text = retried.content[0].text
    assert text.startswith("lost error: this run was lost with replica ") and "nothing of it was committed; call the tool again" in text
    assert "Apply these changes?" in text  # the store kept what the run waited for
    assert not (ws / "new.txt").exists()
    assert not still.is_error and still.structured_content["valid"]


# -- the store down ---------------------------------------------------------------------------------


def test_with_the_store_down_a_call_that_needs_it_fails_saying_so_and_one_that_does_not_still_answers(replicas):
    import redis

    a, _ = replicas.urls

    async def main():
        kept = await call(a, "auto", "run_program", program="x = 1", keep=True)
        redis.Redis.from_url(replicas.redis_url).shutdown(nosave=True)
        needs = await call(a, "auto", "run_program", program="x", session=kept["session"])
        fresh = await call(a, "auto", "run_program", program="y = 2", keep=True)
        valid = await call(a, "auto", "validate", program="1 + 1")
        kits = await call(a, "auto", "kit_list")
        return needs, fresh, valid, kits

    needs, fresh, valid, kits = asyncio.run(main())
    assert needs["is_error"] and needs["error"]["kind"] == "store" and "did not answer" in needs["text"]
    assert not fresh["success"] and fresh["error_kind"] == "store" and "was not saved" in fresh["error"]
    assert not valid["is_error"] and valid["valid"]
    assert not kits["is_error"] and "readonly" in kits["allowed"]


# -- options ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("options, said", [
    (("--store", "redis://127.0.0.1:1/0"), "give --cluster-key-env VAR"),
    (("--store", "redis://127.0.0.1:1/0", "--cluster-key-env", "LACKPY_SHORT_KEY"), "holds 5 bytes; put a secret of at least 32 bytes"),
    (("--store", "redis://127.0.0.1:1/0", "--cluster-key-env", "LACKPY_CLUSTER_KEY", "--http", "0.0.0.0:8123"), "give --advertise http://HOST:8123"),
    (("--store", "redis://127.0.0.1:1/0", "--cluster-key-env", "LACKPY_CLUSTER_KEY", "--advertise", "ftp://x"), "--advertise 'ftp://x': give http://HOST:PORT"),
    (("--store", "mongodb://x"), "give memory, or redis://HOST:PORT/DB"),
])
def test_a_replica_started_wrongly_says_how_in_one_line(ws, env, options, said):
    given = ["--http", "127.0.0.1:8123"] if "--http" not in options else []
    done = subprocess.run([PYTHON, "-m", "lackpy", "serve", "-w", str(ws), *given, *options], env=dict(env, LACKPY_SHORT_KEY="short"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
