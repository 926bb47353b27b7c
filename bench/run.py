"""Side-by-side benchmark: lackpy against plain CPython running the same programs.

usage: python bench/run.py [--repeat N] [--workloads DIR]

The floor for each workload is ``compile()`` + ``exec()`` of the same program
text with the same tool functions, in the same process. Every figure is a
median; ratios are taken within this one run, so they hold on any machine.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lackpy import ToolSpec, Toolbox, resolve_kit, run_program, validate  # noqa: E402
from lackpy.plugins import populate  # noqa: E402
from lackpy.run import compiler  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from commit import table as commit_table  # noqa: E402  (bench/commit.py: what a commit costs)

TOOLS = ["read_file", "find_files", "edit_file"]


def side_by_side(fns, repeat: int, number: int = 1, setup=None) -> list[float]:
    """Median seconds per call of each function, measured in alternation.

    Each repetition times every function once (``number`` calls each), so a
    burst of machine noise falls on all of them alike.
    """
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for index, fn in enumerate(fns):
            if setup:
                setup()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples[index].append((time.perf_counter() - start) / number)
    return [statistics.median(s) for s in samples]


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def workloads(directory: Path) -> list[tuple[str, str]]:
    return [(p.stem, p.read_text()) for p in sorted(directory.glob("*.py"))]


def noop() -> None:
    return None


def raw_round_trip(count: int) -> float:
    """Seconds per 40-byte ping-pong with a forked echo process over a socketpair (the floor)."""
    import socket

    host, child = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        host.close()
        while True:
            data = child.recv(64)
            if not data:
                os._exit(0)
            child.sendall(data)
    child.close()
    start = time.perf_counter()
    for _ in range(count):
        host.sendall(b"x" * 40)
        host.recv(64)
    elapsed = (time.perf_counter() - start) / count
    host.close()
    os.waitpid(pid, 0)
    return elapsed


def isolation_table(kit, ws: Path, programs_dir: Path, restore, repeat: int) -> None:
    """The isolated worker next to in-process runs and the plain CPython floor.

    Isolated runs are timed after a 10 ms pause (not timed), as runs arrive
    in practice: the fork server has a warmed-up spare worker ready. Runs
    fired back to back (no pause) are reported in their own row.
    """
    from lackpy.kit.context import ToolContext

    def pause() -> None:
        time.sleep(0.01)

    def iso(src):
        return lambda: run_program(src, kit, mode="isolated")

    def inproc(src):
        return lambda: run_program(src, kit, mode="inprocess")

    for src in ("1 + 1", "noop()"):
        assert run_program(src, kit, mode="isolated").success
    trivial_code = compile("1 + 1", "<floor>", "exec")
    (t_iso,) = side_by_side([iso("1 + 1")], repeat, setup=pause)
    (t_iso_b2b,) = side_by_side([iso("1 + 1")], repeat)
    t_in, t_floor = side_by_side([inproc("1 + 1"), lambda: exec(trivial_code, {})], repeat, 200)
    calls = "for i in range(1000):\n    noop()\n"
    t_iso_calls, t_iso_none = side_by_side([iso(calls), iso("1 + 1")], max(5, repeat // 3), setup=pause)
    per_call = (t_iso_calls - t_iso_none) / 1000
    pipe = raw_round_trip(5000)
    todo = (programs_dir / "02_count_todos.py").read_text()
    todo_code = compile(todo, "<floor>", "exec")
    floor_tools = dict(kit.callables)
    t02_iso, t02_in, t02_floor = side_by_side([iso(todo), inproc(todo), lambda: exec(todo_code, dict(floor_tools))], repeat, setup=pause)
    edit = (programs_dir / "07_edit.py").read_text()

    def direct_writes():
        run_program(edit, kit, mode="inprocess", context=ToolContext(ws, staging=False))

    t07_staged, t07_direct = side_by_side([inproc(edit), direct_writes], repeat, setup=restore)
    restore()
    print("\n| isolation | isolated | inprocess | floor | isolated vs floor |")
    print("|---|---|---|---|---|")
    print(f"| trivial program, per run | {fmt(t_iso)} | {fmt(t_in)} | {fmt(t_floor)} | +{fmt(t_iso - t_floor)} |")
    print(f"| trivial program, runs back to back | {fmt(t_iso_b2b)} | — | — | +{fmt(t_iso_b2b - t_floor)} |")
    print(f"| tool call round trip | {fmt(per_call)} | — | {fmt(pipe)} (raw socketpair round trip) | {per_call / pipe:.2f}x |")
    print(f"| 02_count_todos | {fmt(t02_iso)} | {fmt(t02_in)} | {fmt(t02_floor)} | {t02_iso / t02_floor:.2f}x |")
    print(f"| 07_edit: staged writes vs direct | {fmt(t07_staged)} | {fmt(t07_direct)} (direct) | — | staging +{fmt(t07_staged - t07_direct)} |")


def tools_table(toolbox, ws: Path, programs_dir: Path, repeat: int) -> None:
    """read_file and grep as tools (path policy, staging, tracing excluded) beside plain Python."""
    import re

    read_file = toolbox.bound("read_file")
    grep = toolbox.bound("grep")
    paths = sorted(str(p.relative_to(ws)) for p in ws.rglob("*.py"))
    pattern = re.compile("TODO")

    def plain_read():
        for path in paths:
            with open(ws / path, encoding="utf-8") as handle:
                handle.read()

    def tool_read():
        for path in paths:
            read_file(path)

    def plain_grep():
        hits = []
        for path in paths:
            with open(ws / path, encoding="utf-8") as handle:
                for number, line in enumerate(handle.read().splitlines(), start=1):
                    if pattern.search(line):
                        hits.append({"path": path, "line": number, "text": line})
        return hits

    todo_src = next(programs_dir.glob("02_*")).read_text()
    todo_kit = resolve_kit("readonly", toolbox)

    def plain_todos():  # program 02 as one would write it with pathlib: hidden directories skipped, as find_files does
        total = 0
        for path in ws.rglob("*.py"):
            if not any(part.startswith(".") for part in path.relative_to(ws).parts):
                total += path.read_text(encoding="utf-8").count("TODO")
        return total

    assert run_program(todo_src, todo_kit, mode="inprocess").output == plain_todos()
    assert len(grep("TODO", glob="**/*.py")) == len(plain_grep())
    t_tool, t_plain = side_by_side([tool_read, plain_read], repeat)
    g_tool, g_plain = side_by_side([lambda: grep("TODO", glob="**/*.py"), plain_grep], repeat)
    p_lackpy, p_plain = side_by_side([lambda: run_program(todo_src, todo_kit, mode="inprocess"), plain_todos], repeat)
    print("\n| tool | lackpy tool | plain Python | ratio |")
    print("|---|---|---|---|")
    print(f"| read_file, per call ({len(paths)} files) | {fmt(t_tool / len(paths))} | {fmt(t_plain / len(paths))} (open().read()) | {t_tool / t_plain:.2f}x |")
    print(f"| grep TODO over {len(paths)} files | {fmt(g_tool)} | {fmt(g_plain)} (glob, read, re.search) | {g_tool / g_plain:.2f}x |")
    print(f"| program 02 in-process (`run_program`, cached) | {fmt(p_lackpy)} | {fmt(p_plain)} (pathlib rglob, read_text, count) | {p_lackpy / p_plain:.2f}x |")


DELEGATE_INTENTS = [
    ("rules", "count TODOs in python files"),
    ("rules", "5 largest python files in src"),
    ("rules", "list the src directory"),
    ("templates", "count defs in pkg1"),
    ("skill", "todo report for src"),  # routed to the shipped todo-report skill: no kit named, the skills are read and matched
]


def delegate_table(ws: Path, repeat: int) -> None:
    """delegate served offline (rules, a saved template) beside running the same program directly.

    All calls share one event loop, as in a host; ``asyncio.run`` per call would
    add a new loop and thread pool (about 4 ms) to every figure.
    """
    import asyncio

    from lackpy import LackpyService
    from lackpy.infer.prompt import estimate_tokens, system_prompt

    svc = LackpyService(ws)
    loop = asyncio.new_event_loop()
    program_04 = 'files = find_files("src/{pkg}/*.py")\nlen([l for f in files for l in read_file(f).splitlines() if l.startswith("def ")])'
    svc.template_save("count-defs", "count defs in {pkg}", program_04, "readonly", force=True)

    print("\n| delegate (in-process) | provider | delegate, end to end | generate only | run_program of its program | delegate overhead |")
    print("|---|---|---|---|---|---|")
    for expected, intent in DELEGATE_INTENTS:
        kit = None if expected == "skill" else "readonly"
        result = loop.run_until_complete(svc.delegate(intent, kit=kit, mode="inprocess"))
        assert result.success and result.provider == expected, (intent, result.provider, result.error)
        program, same = result.program, {"skill": result.kit["skill"], "params": {"folder": "src"}} if kit is None else {"kit": kit}
        t_delegate, t_generate, t_run = side_by_side(
            [
                lambda: loop.run_until_complete(svc.delegate(intent, kit=kit, mode="inprocess")),
                lambda: loop.run_until_complete(svc.generate(intent, kit=kit)),
                lambda: loop.run_until_complete(svc.run_program(program, mode="inprocess", **same)),
            ],
            repeat,
        )
        print(f"| {intent} | {result.provider} | {fmt(t_delegate)} | {fmt(t_generate)} | {fmt(t_run)} | {fmt(t_delegate - t_run)} |")
    loop.close()
    (ws / ".lackpy" / "templates" / "count-defs.tmpl").unlink()

    print("\n| kit | tools | prompt (system message), estimated tokens |")
    print("|---|---|---|")
    for name in ["readonly", "filesystem", "web", "coding", "all"]:
        kit = svc.resolve_kit(name)
        print(f"| {name} | {len(kit.tools)} | {estimate_tokens(system_prompt('count TODOs in python files', kit))} |")


def service_table(ws: Path, repeat: int) -> None:
    """The service's own cost, through the public API as a host calls it: awaited on one running loop."""
    import asyncio

    from lackpy import LackpyService

    svc = LackpyService(ws)
    program = "1 + 1"
    code = compile(program, "<floor>", "exec")
    number = 2000

    async def awaited_runs() -> None:
        for _ in range(number):
            await svc.run_program(program, kit="readonly", mode="inprocess")

    loop = asyncio.new_event_loop()
    loop.run_until_complete(svc.run_program(program, kit="readonly", mode="inprocess"))
    svc.validate(program, kit="readonly")
    run_t, floor_t = side_by_side([lambda: loop.run_until_complete(awaited_runs()), lambda: [exec(code, {}) for _ in range(number)]], repeat)
    src = (REPO / "bench" / "workloads" / "programs").glob("02_*.py")
    text = next(src).read_text()
    svc.validate(text, kit="readonly")
    check_t, parse_t = side_by_side([lambda: svc.validate(text, kit="readonly"), lambda: ast.parse(text)], repeat, 200)
    loop.close()
    print("\n| service (public API) | lackpy | floor | ratio |")
    print("|---|---|---|---|")
    print(f"| `await svc.run_program(\"1 + 1\", kit=\"readonly\", mode=\"inprocess\")`, cached | {fmt(run_t / number)} | {fmt(floor_t / number)} (exec of compiled code) | +{fmt((run_t - floor_t) / number)} |")
    print(f"| `svc.validate(02_count_todos, kit=\"readonly\")`, cached | {fmt(check_t)} | {fmt(parse_t)} (`ast.parse`) | {check_t / parse_t:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--workloads", type=Path, default=REPO / "bench" / "workloads")
    args = parser.parse_args()
    programs_dir = args.workloads / "programs"
    if not programs_dir.is_dir():
        sys.exit(f"no workloads at {programs_dir}; pass --workloads DIR")

    tmp = Path(tempfile.mkdtemp(prefix="lackpy-bench-"))
    ws = tmp / "ws"
    subprocess.run([sys.executable, str(args.workloads / "make_workspace.py"), str(ws), "200"], check=True, capture_output=True)
    readme = (ws / "README.md").read_text()

    def restore() -> None:
        (ws / "README.md").write_text(readme)

    toolbox = Toolbox(str(ws))
    populate(toolbox)
    toolbox.register_tool(ToolSpec("noop", "python", {"module": "bench_noop", "function": "noop"}, args=[]))
    sys.modules["bench_noop"] = sys.modules[__name__]
    kit = resolve_kit(TOOLS + ["noop"], toolbox)
    floor_tools = {name: kit.callables[name] for name in kit.callables}
    names = kit.names

    print(f"# lackpy benchmark — Python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.repeat}\n")
    print("| program | ast.parse | validate | ratio | floor (compile+exec) | lackpy (validate+run) | ratio | lackpy cached run | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, src in workloads(programs_dir):
        setup = restore if "edit" in name else None
        result = run_program(src, kit, mode="inprocess")
        assert result.success, (name, result.error)
        parse, check = side_by_side([lambda: ast.parse(src), lambda: validate(src, names)], args.repeat, 200)

        def floor():
            exec(compile(src, "<floor>", "exec"), dict(floor_tools))

        def cold():
            compiler.cache_clear()
            run_program(src, kit, mode="inprocess")

        def warm():
            run_program(src, kit, mode="inprocess")

        t_floor, t_cold, t_warm = side_by_side([floor, cold, warm], args.repeat, setup=setup)
        print(
            f"| {name} | {fmt(parse)} | {fmt(check)} | {check / parse:.2f}x | {fmt(t_floor)} | {fmt(t_cold)} "
            f"| {t_cold / t_floor:.2f}x | {fmt(t_warm)} | {t_warm / t_floor:.2f}x |"
        )
    restore()

    print("\n| fixed costs | lackpy | floor | overhead |")
    print("|---|---|---|---|")
    trivial_code = compile("1 + 1", "<floor>", "exec")
    trivial, trivial_floor = side_by_side(
        [lambda: run_program("1 + 1", kit, mode="inprocess"), lambda: exec(trivial_code, {})], args.repeat, 2000
    )
    print(f"| cached trivial program `1 + 1` | {fmt(trivial)} | {fmt(trivial_floor)} (exec of compiled code) | {fmt(trivial - trivial_floor)} |")

    loop = "for i in range(10000):\n    noop()\n"
    loop_code = compile(loop, "<floor>", "exec")
    run_program(loop, kit, mode="inprocess")
    t_traced, t_plain = side_by_side([lambda: run_program(loop, kit, mode="inprocess"), lambda: exec(loop_code, {"noop": noop})], args.repeat)
    print(f"| 10,000 calls of a no-op tool | {fmt(t_traced)} | {fmt(t_plain)} | {fmt((t_traced - t_plain) / 10000)} per call |")

    from lackpy.approvals.approver import approve_all
    from lackpy.approvals.gatekeeper import Gatekeeper
    from lackpy.approvals.policy import BLOCK, ApprovalPolicy

    asked = Gatekeeper(ApprovalPolicy(calls={"noop": BLOCK}), approve_all)  # every call asked about, answered at once
    t_asked, t_plain = side_by_side(
        [lambda: run_program(loop, kit, mode="inprocess", gatekeeper=asked), lambda: exec(loop_code, {"noop": noop})], args.repeat
    )
    print(f"| 10,000 calls of a no-op tool, each approved (`approve=True`) | {fmt(t_asked)} | {fmt(t_plain)} | {fmt((t_asked - t_plain) / 10000)} per call |")

    exe = Path(sys.executable).parent / "lackpy"
    if exe.exists():
        env = {**os.environ, "LACKPY_LOAD_PLUGINS": ""}
        help_t, bare_t = side_by_side(
            [
                lambda: subprocess.run([str(exe), "--help"], capture_output=True, env=env),
                lambda: subprocess.run([sys.executable, "-c", "pass"], capture_output=True, env=env),
            ],
            21,
        )
        print(f"| `lackpy --help` | {fmt(help_t)} | {fmt(bare_t)} (`python -c pass`) | {fmt(help_t - bare_t)} |")

    service_table(ws, args.repeat)
    isolation_table(kit, ws, programs_dir, restore, args.repeat)
    tools_table(toolbox, ws, programs_dir, args.repeat)
    delegate_table(ws, args.repeat)
    commit_table(ws, programs_dir, max(5, args.repeat // 2))

    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
