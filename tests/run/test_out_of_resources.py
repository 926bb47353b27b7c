"""Running out of descriptors, processes or memory: a ``resources`` error that says what ran out, never a crash or a bare failure.

The limits are real: each case runs in a subprocess that lowers its own
``RLIMIT_NOFILE`` to the descriptors it has open, so the next channel or
pipe lackpy makes fails with EMFILE, as it does on a server whose
connections took every descriptor.
"""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap

import pytest

from lackpy.errors import ErrorKind, ResourceError, resource_error

#: Set this process's descriptor limit so that ``free`` descriptor numbers are left below it.
SQUEEZE = textwrap.dedent("""
    import os, resource

    def squeeze(free):
        taken = []
        while True:
            fd = os.dup(0)
            taken.append(fd)
            if len(taken) > free:
                break
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (taken[free], resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
""")


@pytest.mark.parametrize(("code", "said", "advice"), [
    (errno.EMFILE, "ran out of file descriptors (EMFILE: all ", "raise ulimit -n"),
    (errno.ENFILE, "the system ran out of file descriptors (ENFILE", "fs.file-max"),
    (errno.ENOMEM, "ran out of memory (ENOMEM)", "free memory"),
])
def test_each_errno_of_exhaustion_says_what_ran_out_and_what_to_do(code, said, advice):
    error = resource_error(OSError(code, "x"), "cannot start the isolated worker")
    assert isinstance(error, ResourceError) and error.kind == ErrorKind.RESOURCES
    message = str(error)
    assert message.startswith("cannot start the isolated worker: ") and said in message and advice in message
    assert "\n" not in message


def test_eagain_means_no_more_processes_only_where_a_process_starts():
    assert resource_error(BlockingIOError(errno.EAGAIN, "x")) is None  # a non-blocking call that would wait
    started = resource_error(BlockingIOError(errno.EAGAIN, "x"), processes=True)
    assert started is not None and "could not start a process (EAGAIN" in str(started) and "ulimit -u" in str(started)


def test_other_errors_are_not_resource_errors():
    assert resource_error(OSError(errno.ENOENT, "x")) is None
    assert resource_error(ValueError("x")) is None
    assert resource_error(OSError("no errno")) is None


@pytest.mark.parametrize("free", [3, 4, 5, 6])
def test_the_cli_says_the_descriptors_ran_out_in_one_line(tmp_path, free):
    """With a few descriptors left, whichever step runs out first (the workspace, the event loop, the worker) says so, kind resources."""
    (tmp_path / "a.py").write_text("x = 1\n")
    program = tmp_path / "program.py"
    program.write_text('find_files("*.py")\n')
    script = SQUEEZE + textwrap.dedent(f"""
        import sys
        import lackpy.cli, lackpy.service, lackpy.run.isolated, lackpy.run.runner, lackpy.tools.builtin
        squeeze({free})
        sys.argv = ["lackpy", "run", "-w", {str(tmp_path)!r}, *sys.argv[1:], {str(program)!r}]
        lackpy.cli.main()
    """)
    plain = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert plain.returncode != 0
    assert plain.stderr.startswith("lackpy: error: ") and plain.stderr.count("\n") == 1, plain.stderr
    assert "ran out of file descriptors (EMFILE" in plain.stderr and "ulimit -n" in plain.stderr
    document = subprocess.run([sys.executable, "-c", script, "--json"], capture_output=True, text=True, timeout=120)
    assert document.returncode != 0
    said = json.loads(document.stdout)
    assert (said.get("error_kind") or said.get("error", {}).get("kind")) == "resources", said


def test_a_served_run_fails_as_resources_and_the_run_before_it_keeps_its_result(tmp_path):
    """The worker held for the next run lets one run through; asking for the one after fails quietly; that run is refused, saying why."""
    pytest.importorskip("mcp")
    (tmp_path / "README.md").write_text("# demo\n")
    script = SQUEEZE + textwrap.dedent(f"""
        import asyncio, json
        from mcp import Client
        from lackpy import LackpyService
        from lackpy.mcp.policy import KitPolicy
        from lackpy.mcp.server import build_server

        async def main():
            service = LackpyService({str(tmp_path)!r}, trust=False)
            answers = []
            async with Client(build_server(service, KitPolicy.build(service))) as client:
                answers.append(await client.call_tool("run_program", {{"program": "6 * 7"}}))
                await asyncio.sleep(0.5)  # the next run's worker is held by now
                squeeze(0)
                for _ in range(2):
                    answers.append(await client.call_tool("run_program", {{"program": "6 * 7"}}))
            for answer in answers:
                print(json.dumps({{"is_error": answer.is_error, "text": answer.content[0].text, "document": answer.structured_content}}))

        asyncio.run(main())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, second, third = (json.loads(line) for line in out.stdout.splitlines())
    assert not first["is_error"] and first["document"]["output"] == 42
    assert not second["is_error"] and second["document"]["output"] == 42  # the held worker; the next cannot be asked for, quietly
    assert third["is_error"] and third["document"]["error_kind"] == "resources"
    assert third["text"].startswith("the program failed, resources error: cannot start the isolated worker: lackpy ran out of file descriptors")
