"""The ``lackpy`` command: a thin adapter over LackpyService.

Every command accepts ``--json`` and then prints exactly one JSON document:
a result's ``to_dict()``, or an ``ErrorReport`` (``lackpy schema`` prints
their JSON Schemas). Exit status: 0 success, 1 the program failed at run
time, 2 an invalid program or bad usage. Errors are one line on stderr (or a
JSON document), never a traceback. Only click (the list of run modes, and
the status line's module, which fits text to the terminal) is imported at start-up; the service is imported inside the commands that need it, and closed when the
command ends, however it ends (so background processes a program started
stop with it).
"""

from __future__ import annotations

import contextlib
import json
import sys
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Iterator

import click

from lackpy.cli_progress import fit as _fit  # stdlib only: what a workspace or a tool wrote never drives the terminal
from lackpy.run.modes import MODES  # a constant module: the one list of run modes

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: A run stopped by Ctrl-C (what it had done is printed), as a shell reports a command SIGINT ended.
EXIT_STOPPED = 130


def _emit_json(data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if not _encodable(text):
        text = json.dumps(data, indent=2)  # a lone surrogate: written as a JSON escape instead
    click.echo(text)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class LackpyGroup(click.Group):
    """Turns every lackpy error into one clear line (or an error document) and exit status 2."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--json" in args:  # known before any option is parsed, so parse errors are JSON too
            ctx.meta["lackpy.json"] = True
        bad = next((arg for arg in args if not _encodable(arg)), None)  # undecodable bytes arrive as lone surrogates
        if bad is not None:
            ctx.meta["lackpy.bad_argument"] = f"an argument is not valid UTF-8 text: {bad.encode('utf-8', 'backslashreplace').decode()[:60]}"
            args = [arg for arg in args if _encodable(arg)]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        from lackpy.errors import LackpyError, resource_error  # small module, no heavy imports

        try:
            try:
                if "lackpy.bad_argument" in ctx.meta:
                    raise click.UsageError(ctx.meta["lackpy.bad_argument"])
                return super().invoke(ctx)
            except OSError as exc:  # descriptors or memory ran out on the way: one line of kind resources
                out_of = resource_error(exc)
                if out_of is None:
                    raise
                raise out_of from None
        except LackpyError as exc:
            if ctx.meta.get("lackpy.json"):
                from lackpy.report import ErrorReport

                _emit_json(ErrorReport.of(exc, ctx.meta.get("lackpy.notices")).to_dict())
            else:
                click.echo(f"lackpy: error: {exc}", err=True)
            ctx.exit(EXIT_USAGE)
        except click.UsageError as exc:
            if not ctx.meta.get("lackpy.json"):
                raise
            from lackpy.report import ErrorReport

            _emit_json(ErrorReport.usage(exc.format_message()).to_dict())
            ctx.exit(EXIT_USAGE)


def _workspace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise click.UsageError("--workspace (or LACKPY_WORKSPACE) is empty; give a directory, or leave it out for the current one")
    return value


#: ``--workspace``/``-w`` (or LACKPY_WORKSPACE), for every command that works on a workspace.
workspace_option = click.option(
    "--workspace",
    "-w",
    type=click.Path(file_okay=False),
    envvar="LACKPY_WORKSPACE",
    default=None,
    callback=_workspace,
    help="Workspace directory (default: the current directory).",
)


def common(fn: Callable) -> Callable:
    """Add --json and --workspace to a command and pass a ready service builder."""

    def remember_json(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        if value:
            ctx.meta["lackpy.json"] = True
        return value

    @click.option("json_", "--json", is_flag=True, is_eager=True, callback=remember_json, help="Print one JSON document.")
    @workspace_option
    @wraps(fn)
    def wrapper(*args: Any, workspace: str | None, **kwargs: Any) -> Any:
        made: list = []

        def service(load: bool = True):
            """The service; ``load=False`` for a command that reads only the config (the notices of a load are not said)."""
            if not made:
                from lackpy.service import LackpyService
                from lackpy.trust_notice import as_shown

                made.append(LackpyService(workspace))
                click.get_current_context().meta["lackpy.notices"] = made[0].notices
                if load:
                    made[0].load()  # now, so what an untrusted workspace did not get is said first
                for notice in made[0].notices:
                    click.echo(f"lackpy: {as_shown(made[0].workspace, notice)}", err=True)
                click.get_current_context().meta["lackpy.printed"] = list(made[0].notices)
            return made[0]

        try:
            return fn(*args, service=service, **kwargs)
        finally:
            if made:
                from lackpy.trust_notice import as_shown

                printed = len(click.get_current_context().meta.get("lackpy.printed", ()))
                for notice in made[0].notices[printed:]:  # what became known while the command ran (a server that failed to start)
                    click.echo(f"lackpy: {as_shown(made[0].workspace, notice)}", err=True)
                made[0].close()

    return wrapper


def kit_options(fn: Callable) -> Callable:
    fn = click.option("--tools", "-t", "tools", multiple=True, help="Extra tools, comma separated (repeatable).")(fn)
    return click.option("--kit", "-k", default=None, help="Kit name or comma-separated tool names (default from config).")(fn)


#: ``--quiet``/``-q`` (or LACKPY_QUIET): no status line on the terminal while the command works (``lackpy.cli_progress``).
quiet_option = click.option(
    "--quiet", "-q", "quiet", is_flag=True, envvar="LACKPY_QUIET", help="Draw no status line on the terminal while it works (or set LACKPY_QUIET=1)."
)


def _status(json_: bool, quiet: bool) -> Any:
    """The command's status line on stderr (drawn only on a terminal, without --json or --quiet)."""
    from lackpy.cli_progress import StatusLine, wanted

    return StatusLine(sys.stderr, wanted(sys.stderr, json_, quiet))


def run_options(fn: Callable) -> Callable:
    """The options of every command that runs a program: params, trace, mode, dry run, limits."""
    options = [
        click.option("--param", "-p", "params", multiple=True, help="Program parameter key=value (value parsed as JSON if it can be)."),
        click.option("--trace", "show_trace", is_flag=True, help="Print the tool-call trace to stderr."),
        click.option("--mode", type=click.Choice(list(MODES)), default=None, help="Where the program runs (default from config: isolated)."),
        click.option("--dry-run", "dry_run", is_flag=True, help="Apply no writes and call no command or other tool whose effects cannot be staged; print the diff of what would change."),
        click.option("--timeout", "timeout_s", type=float, default=None, help="Wall-clock limit in seconds."),
        click.option("--limit", "limit_items", multiple=True, help="Any limit as name=value, e.g. max_tool_calls=100."),
        quiet_option,
        click.option("--yes", "-y", "yes", is_flag=True, help="Approve everything this command would ask about (commands, web requests, the writes)."),
        click.option(
            "--approval",
            default=None,
            metavar="MODE",
            help="Ask about every gate this way: block, auto, notify or none (default from config: commands and writes block).",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _split(values: tuple[str, ...]) -> list[str]:
    return [t.strip() for value in values for t in value.split(",") if t.strip()]


def _parse_params(values: tuple[str, ...]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise click.UsageError(f"--param expects key=value, got {_short(item)}")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        except RecursionError:
            raise click.UsageError(f"--param {_short(key)}: the value is nested too deeply; pass flatter data") from None
        params[key.strip()] = value
    return params


def _parse_limits(items: tuple[str, ...], timeout_s: float | None) -> dict[str, str] | None:
    limits: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise click.UsageError(f"--limit expects name=value, got {item!r}")
        limits[key.strip()] = raw.strip()
    if timeout_s is not None:
        limits["timeout_s"] = timeout_s
    return limits or None


def _short(text: str, most: int = 60) -> str:
    """``text`` quoted for a one-line message, cut when it is long."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"... ({len(text)} characters)"


def _read_program(source: str) -> str:
    if source == "-":
        data = sys.stdin.buffer.read()
        label = "standard input"
    else:
        try:
            with open(source, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise click.UsageError(f"cannot read program file {source}: {exc.strerror or exc}") from None
        label = source
    try:
        text = data.decode("utf-8-sig")  # a byte order mark, as some editors save, is not part of the program
    except UnicodeDecodeError:
        raise click.UsageError(f"program in {label} is not UTF-8 text; save it as UTF-8") from None
    if not text.strip():
        raise click.UsageError(f"program in {label} is empty; write at least one statement")
    return text


@click.group(cls=LackpyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lackpy", prog_name="lackpy")
def cli() -> None:
    """Validate and run tiny Python programs that compose a kit's tools."""


#: ``--skill NAME``: run with a skill's kit and its files (instead of a kit).
skill_option = click.option("--skill", "-s", "skill", default=None, metavar="NAME", help="Use this skill's kit and files (lackpy skill list); not with --kit or --tools.")


@cli.command()
@click.argument("program", metavar="FILE|-")
@kit_options
@skill_option
@run_options
@click.option("--ceiling", default=None, metavar="KIT|W,D", help="Refuse, before it runs, a program whose own grade is above this (a kit's grade, or w,d).")
@common
def run(program: str, kit: str | None, tools: tuple[str, ...], skill: str | None, service, **options: Any) -> None:
    """Validate and run the program in FILE (or - for standard input).

    What the program would do that needs a yes (a command, a web request, the
    writes it leaves) is asked on the terminal; --yes approves it all. With
    --skill NAME the program runs with that skill's kit, and skill_file reads
    the skill's own files.
    """
    text = _read_program(program)
    sys.exit(_run_program(service, lambda svc: text, kit=kit, extra_tools=_split(tools), skill=skill, **options))


def _run_program(
    service: Callable,
    program_of: Callable[[Any], str],
    *,
    params: tuple[str, ...],
    limit_items: tuple[str, ...],
    timeout_s: float | None,
    yes: bool,
    show_trace: bool,
    json_: bool,
    dry_run: bool,
    quiet: bool = False,
    **options: Any,
) -> int:
    """Run the program ``program_of(svc)`` (or, as ``(program, skill)``, with that skill) as ``lackpy run`` and ``lackpy skill run``
    do; print its result, return the exit status.

    ``options`` are run_program's (kit, extra_tools, skill, mode, ceiling, approval). Bad parameters are said before the
    workspace loads.
    """
    import asyncio

    parsed = _parse_params(params)
    limits = _parse_limits(limit_items, timeout_s)
    svc = service()
    text = program_of(svc)
    if isinstance(text, tuple):  # the program and the skill it came with, loaded once
        text, options["skill"] = text

    async def go() -> Any:
        with _stopped_by_ctrl_c(status) as stop:
            return await svc.run_program(
                text, params=parsed, limits=limits, dry_run=dry_run, on_event=status.on_event, approve=_approver(yes, status), stop=stop, **options
            )

    with _status(json_, quiet) as status:
        result = asyncio.run(go())
    return _report_run(result, json_=json_, show_trace=show_trace, dry_run=dry_run)


@contextlib.contextmanager
def _stopped_by_ctrl_c(status: Any = None) -> Iterator[Any]:
    """An event the first Ctrl-C sets, stopping the run so its result shows what it had done; a second interrupts as ever.

    ``status`` (the command's status line) is cleared before the first Ctrl-C is said.
    """
    import asyncio
    import signal

    stop, loop = asyncio.Event(), asyncio.get_running_loop()

    def first() -> None:
        stop.set()
        loop.remove_signal_handler(signal.SIGINT)
        if status is not None:
            status.clear()
        click.echo("lackpy: stopping the run (Ctrl-C again to quit at once)", err=True)

    try:
        loop.add_signal_handler(signal.SIGINT, first)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        yield stop
        return
    try:
        yield stop
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _warnings(notices: list[str]) -> None:
    """Say the program's own warnings (a key a learned result shape lacks); the service's notices are said once, by ``common``."""
    for notice in notices:
        if notice.startswith("warning: "):
            click.echo(f"lackpy: {notice}", err=True)


def _approver(yes: bool, status: Any = None) -> Any:
    """Who answers this command's approvals: --yes, the terminal, or nobody (a blocking gate then says to pass --yes)."""
    if yes:
        return True
    from lackpy.approvals.terminal import NO_TERMINAL, terminal

    if status is None:
        return terminal() or NO_TERMINAL
    return terminal(status.pause, status.resume) or NO_TERMINAL  # the status line steps aside while a person answers


def exit_status(result) -> int:
    """0 for success, 2 for a program that never ran (invalid, denied, bad parameters), 130 for one Ctrl-C stopped, 1 for a failed run."""
    if result.success:
        return EXIT_OK
    if result.error_kind == "cancelled":
        return EXIT_STOPPED
    execution = getattr(result, "execution", None) or result
    called = bool(getattr(execution, "trace", None))  # a refused commit comes after the program ran
    never_ran = result.error_kind == "validation" or (result.error_kind in ("param", "denied") and result.error_line is None and not called)
    return EXIT_USAGE if never_ran else EXIT_FAILED


def _report_run(result, *, json_: bool, show_trace: bool, dry_run: bool) -> int:
    """Print a run's (or a delegation's) result; return the exit status."""
    code = exit_status(result)
    if json_:
        _emit_json(result.to_dict())
        return code
    execution = getattr(result, "execution", result)
    if execution.printed:
        click.echo(execution.printed, nl=False)
    if show_trace:
        for entry in execution.trace:
            args = ", ".join(f"{k}={v}" for k, v in entry.args.items())
            status = f"-> {entry.result}" if entry.success else f"!! {entry.error}"
            click.echo(f"[{entry.step}] {entry.tool}({args}) {status} ({entry.duration_ms:.3f} ms)", err=True)
    for held in execution.held_back:
        args = ", ".join(f"{k}={v}" for k, v in held.arguments.items())
        answer = "refused" if held.answer == "refused" else "answered with its placeholder"
        click.echo(f"lackpy: dry run: held back [{held.step}] {held.tool}({args}): not called, {answer}", err=True)
    _warnings(execution.notices)
    if execution.success:
        _echo_value(execution.output)
        if dry_run:
            planned = [("create", execution.files_created), ("modify", execution.files_modified), ("delete", execution.files_deleted)]
            summary = "; ".join(f"would {verb} {', '.join(paths)}" for verb, paths in planned if paths) or "no changes"
            click.echo(f"lackpy: dry run: {summary}", err=True)
            click.echo(execution.diff or "", nl=False)
    else:
        click.echo(f"lackpy: error: {execution.error}", err=True)
        for diag in execution.diagnostics[1:]:
            click.echo(f"lackpy: error: {diag}", err=True)
        _report_partial(execution)
    return code


def _say_what_it_counts(result: Any, json_: bool) -> None:
    """Under a bare number the rules answered with, what it counts: the reading the rule took (its detail after the colon)."""
    output = result.output if result.success else None
    if json_ or result.provider != "rules" or isinstance(output, bool) or not isinstance(output, (int, float)):
        return
    reading = result.detail.partition(": ")[2]
    if reading:
        click.echo(_fit(f"lackpy: {output} = {reading}", 500), err=True)  # the reading may name the workspace's files


#: How much of each value of an unfinished run the terminal shows, in characters.
SHOWN_VALUE_CHARS = 160


def _report_partial(execution: Any) -> None:
    """What a run that stopped before its end had done: its calls, and the values it had assigned (the printed text came first)."""
    finished = any(entry.success for entry in execution.trace)
    if getattr(execution, "complete", True) or not (finished or execution.assigned or execution.assigned_cut):
        return
    from lackpy.schema import to_jsonable

    calls = len(execution.trace)
    failed = sum(1 for entry in execution.trace if not entry.success)
    done = f"{calls - failed} tool call{'s' if calls - failed != 1 else ''} finished" + (f", {failed} failed" if failed else "")
    click.echo(f"lackpy: partial result: the program did not finish; {done} (--trace shows them); nothing was written", err=True)
    for name, value in execution.assigned.items():
        click.echo(f"lackpy:   {name} = {_fit(json.dumps(to_jsonable(value), ensure_ascii=False), SHOWN_VALUE_CHARS)}", err=True)
    for name, summary in execution.assigned_cut.items():
        click.echo(f"lackpy:   {name} = {_fit(summary, SHOWN_VALUE_CHARS)} (not shown whole)", err=True)


def _echo_value(value: Any) -> None:
    from lackpy.schema import to_jsonable

    if value is None:
        return
    if isinstance(value, str):
        click.echo(value if _encodable(value) else value.encode("utf-8", "backslashreplace").decode("ascii", "replace"))
    else:
        _emit_json(to_jsonable(value))


def _printable(text: str) -> str:
    """``text`` (lines of it) without control characters: a SKILL.md's escape sequences are not the terminal's to interpret."""
    return "".join(ch for ch in text if ch.isprintable() or ch in "\n\t")


def _intent_options(fn: Callable) -> Callable:
    fn = click.option(
        "--ceiling",
        default=None,
        metavar="KIT",
        help="With no --kit: choose tools no more powerful than this kit's (default: readonly).",
    )(fn)
    return kit_options(fn)


@cli.command()
@click.argument("intent")
@_intent_options
@skill_option
@run_options
@click.option("--show-program", "show_program", is_flag=True, help="Print the program and the tier that wrote it to stderr.")
@click.option("--save-as", "save_as", metavar="NAME", help="Save the program as a template when it succeeds.")
@click.option("--pattern", default=None, help="With --save-as: the intent pattern, e.g. 'count {word} in {ext} files'.")
@common
def delegate(
    intent: str,
    kit: str | None,
    tools: tuple[str, ...],
    ceiling: str | None,
    skill: str | None,
    params: tuple[str, ...],
    show_trace: bool,
    mode: str | None,
    dry_run: bool,
    timeout_s: float | None,
    limit_items: tuple[str, ...],
    yes: bool,
    quiet: bool,
    approval: str | None,
    show_program: bool,
    save_as: str | None,
    pattern: str | None,
    json_: bool,
    service,
) -> None:
    """Write a program for INTENT, validate and run it.

    Templates and rules serve common intents offline; a model configured in
    .lackpy/config.toml writes the rest. With no --kit, tools are chosen from
    the intent (read-only unless --ceiling raises it). An intent a skill's
    intents match runs the skill's program; --skill NAME uses that skill (its
    kit, and its SKILL.md to guide a model).
    """
    import asyncio

    if pattern is not None and save_as is None:
        raise click.UsageError("--pattern goes with --save-as NAME")
    if save_as is not None and skill is not None:
        from lackpy.errors import UsageError

        raise UsageError(f"a program of skill '{skill}' needs the skill's files: save it in the skill's programs/ folder, not with --save-as")
    svc = service()
    parsed, limits = _parse_params(params), _parse_limits(limit_items, timeout_s)

    async def go() -> Any:
        with _stopped_by_ctrl_c(status) as stop:
            return await svc.delegate(
                intent, kit=kit, params=parsed, extra_tools=_split(tools), dry_run=dry_run, mode=mode, limits=limits, ceiling=ceiling,
                on_event=status.on_event, approve=_approver(yes, status), approval=approval, skill=skill, stop=stop,
            )

    with _status(json_, quiet) as status:
        result = asyncio.run(go())
    if show_program and not json_:
        click.echo(f"lackpy: program by {result.provider} ({result.detail or 'no detail'}):", err=True)
        click.echo(result.program, err=True)
    code = _report_run(result, json_=json_, show_trace=show_trace, dry_run=dry_run)
    _say_what_it_counts(result, json_)
    if save_as and result.success:
        path = svc.template_save(save_as, pattern or intent, result.program, kit or result.kit["tools"], intent=intent)
        if not json_:
            click.echo(f"lackpy: saved template '{save_as}' to {path}", err=True)
    elif save_as:
        click.echo(f"lackpy: not saved as '{save_as}': the program did not succeed", err=True)
    sys.exit(code)


@cli.command()
@click.argument("intent")
@_intent_options
@skill_option
@click.option("--param", "-p", "params", multiple=True, help="Program parameter key=value (value parsed as JSON if it can be).")
@quiet_option
@common
def generate(
    intent: str, kit: str | None, tools: tuple[str, ...], ceiling: str | None, skill: str | None, params: tuple[str, ...], quiet: bool, json_: bool,
    service,
) -> None:
    """Write and validate a program for INTENT, and print it without running it (--skill NAME: for that skill)."""
    import asyncio

    svc = service()
    parsed = _parse_params(params)
    with _status(json_, quiet) as status:
        result = asyncio.run(svc.generate(intent, kit=kit, params=parsed, extra_tools=_split(tools), ceiling=ceiling, on_event=status.on_event, skill=skill))
    if json_:
        _emit_json(result.to_dict())
    else:
        click.echo(result.program)
        click.echo(f"lackpy: by {result.provider} ({result.detail or 'no detail'}) for tools {', '.join(result.kit['tools'])}", err=True)


@cli.group(cls=LackpyGroup)
def template() -> None:
    """Save programs that worked as templates, served for matching intents with no model."""


@template.command(name="save")
@click.argument("program", metavar="FILE|-")
@click.option("--name", "-n", required=True, help="Template name (letters, digits, '-', '_', '.').")
@click.option("--pattern", required=True, help="Intent pattern; {name} placeholders capture words, e.g. 'count {word} in {ext} files'.")
@click.option("--kit", "-k", default=None, help="Kit the program is written for (default from config).")
@click.option("--force", is_flag=True, help="Overwrite a template of that name.")
@common
def template_save(program: str, name: str, pattern: str, kit: str | None, force: bool, json_: bool, service) -> None:
    """Validate the program in FILE (or -) and save it as a template."""
    path = service().template_save(name, pattern, _read_program(program), kit, force=force)
    if json_:
        _emit_json({"name": name, "path": str(path)})
    else:
        click.echo(f"saved template '{name}' to {path}")


@template.command(name="list")
@common
def template_list(json_: bool, service) -> None:
    """List the workspace's templates with their success and failure counts."""
    templates = service().template_list()
    if json_:
        _emit_json(templates)
        return
    if not templates:
        click.echo("no templates yet; save one with 'lackpy template save' or 'lackpy delegate --save-as NAME'")
    for item in templates:
        if item.get("error"):
            click.echo(f"{item['name']:<20} error: {item['error']}")
        else:
            click.echo(f"{item['name']:<20} {item['pattern']!r}  ok={item['success_count']} failed={item['fail_count']}")


@cli.command()
@common
def tiers(json_: bool, service) -> None:
    """List the configured inference tiers and whether each can serve now."""
    listing = service().tier_list()
    if json_:
        _emit_json(listing)
        return
    for item in listing:
        state = "ready" if item["available"] else f"unavailable: {item['reason']}"
        click.echo(f"{item['name']:<10} {state}  ({item['description']})")


@cli.command(name="validate")
@click.argument("program", metavar="FILE|-")
@kit_options
@click.option("--param", "-p", "params", multiple=True, help="Name of a parameter the program receives (key or key=value).")
@common
def validate_cmd(program: str, kit: str | None, tools: tuple[str, ...], params: tuple[str, ...], json_: bool, service) -> None:
    """Check the program in FILE (or -) against a kit without running it."""
    text = _read_program(program)
    names = [p.partition("=")[0].strip() for p in params]
    result = service().validate(text, kit=kit, params=names, extra_tools=_split(tools))
    if json_:
        _emit_json(result.to_dict())
    elif result.valid:
        _warnings(result.notices)
        click.echo("valid")
    else:
        for diag in result.errors:
            click.echo(f"{program}: {diag}", err=True)
    sys.exit(EXIT_OK if result.valid else EXIT_USAGE)


@cli.group(name="mcp", cls=LackpyGroup)
def mcp_group() -> None:
    """The MCP servers whose tools join lackpy's kits ([mcp.servers.NAME] in .lackpy/config.toml)."""
    # Named as hosts name it ("mcp add"), after the config's [mcp] table; the code is lackpy.remote (other servers),
    # beside lackpy.mcp (lackpy serve, lackpy itself as a server): the package names say which side of the protocol.


@mcp_group.command(name="list")
@common
def mcp_list(json_: bool, service) -> None:
    """List the configured MCP servers as lackpy last listed them, and their tools then; starts none (lackpy mcp status connects)."""
    _server_rows(service(load=False).remote_listing(), json_)


@mcp_group.command(name="status")
@common
def mcp_status(json_: bool, service) -> None:
    """Connect to each configured MCP server now: connected or why not, and its tools."""
    _server_rows(service().remote_status(), json_)


def _ago(seconds: float) -> str:
    """``3 s``, ``5 min``, ``2 h``, ``4 days``: how long ago, for a person."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{max(int(seconds), 0)} s"


def _server_rows(rows: list[dict], json_: bool) -> None:
    """The servers of ``lackpy mcp list`` and ``status``, as JSON or for a person."""
    import time

    if json_:
        return _emit_json(rows)
    if not rows:
        click.echo("no MCP servers configured; add [mcp.servers.NAME] with command = ... or url = ... to .lackpy/config.toml")
    for row in rows:
        state = row["state"] if not row["reason"] else f"{row['state']}: {row['reason']}"
        if row.get("listed_at") is not None:
            info = row.get("info") or {}
            said = " ".join(filter(None, (info.get("name"), info.get("version"))))
            state = f"listed {_ago(time.time() - row['listed_at'])} ago" + (f" ({said})" if said else "") + "; lackpy mcp status connects now"
        click.echo(f"{row['name']:<14} {row['transport']:<6} {state}")
        click.echo(f"{'':<14} {row['where']}")
        if row["tools"]:
            click.echo(f"{'':<14} {', '.join(row['tools'])}")
        for tool, why in row.get("left_out", {}).items():
            click.echo(f"{'':<14} {tool}: {why}")
        if "login" in row:
            click.echo(f"{'':<14} {_login_line(row['name'], row['login'])}")


def _login_line(name: str, login: dict | None) -> str:
    """Who an OAuth server knows you as, for a person."""
    if login is None:
        return f"not logged in: lackpy mcp login {name}"
    if login.get("problem"):
        return login["problem"]
    who = f"logged in as {login['as']}" if login["as"] else "logged in"
    if login.get("scope"):
        who += f" (scope: {login['scope']})"
    if login["expired"]:
        who += "; the token has expired" + (" and is refreshed on the next call" if login["refreshable"] else f": lackpy mcp login {name}")
    return who


@mcp_group.command(name="login")
@click.argument("name")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; show the address to open, and take the address it sends you to.")
@common
def mcp_login(name: str, no_browser: bool, json_: bool, service) -> None:
    """Log in to MCP server NAME (oauth in its config): authorize lackpy once in your browser; its tokens stay in your own files."""
    from lackpy.remote.browser import in_browser

    login = service().mcp_login(name, in_browser(open_browser=not no_browser))
    if json_:
        return _emit_json({"name": name, "login": login})
    click.echo(f"{name}: {_login_line(name, login)}" if login is not None else f"{name}: the server asked for no authorization; nothing to log in to")


@mcp_group.command(name="logout")
@click.argument("name")
@common
def mcp_logout(name: str, json_: bool, service) -> None:
    """Log out of MCP server NAME: forget its tokens and lackpy's registration there."""
    forgot = service().mcp_logout(name)
    if json_:
        return _emit_json({"name": name, "forgot": forgot})
    click.echo(f"{name}: logged out; its tokens are gone" if forgot else f"{name}: not logged in; nothing to forget")




@mcp_group.command(name="shapes")
@click.argument("name", required=False)
@click.option("--clear", is_flag=True, help="Forget the learned shapes (of server NAME only, when given).")
@common
def mcp_shapes(name: str | None, clear: bool, json_: bool, service) -> None:
    """Show the result shapes lackpy learned from MCP tools that declare none (of server NAME, when given)."""
    rows = service().mcp_shapes(name, clear)
    if json_:
        return _emit_json(rows)
    if not rows:
        click.echo("no MCP servers configured; add [mcp.servers.NAME] with command = ... or url = ... to .lackpy/config.toml")
    for row in rows:
        click.echo(_shapes_line(row, clear))
        for tool, known in row["tools"].items():
            click.echo(f"  {tool} -> {known['returns']}  (from {known['results']} result{'' if known['results'] == 1 else 's'})")
        if row["problem"]:
            click.echo(f"  {row['problem']}")


def _shapes_line(row: dict, cleared: bool) -> str:
    """One server's line of lackpy mcp shapes: how many shapes, of which version, and how long its listing lasts."""
    if cleared:
        return f"{row['server']}: learned shapes forgotten"
    if not row["tools"]:
        why = f" (forgotten: {row['forgot']['why']})" if row.get("forgot") else ""
        return f"{row['server']}: no learned shapes{why}"
    info = row["info"] or {}
    version = f" {info.get('name')} {info.get('version')}".rstrip() if info.get("name") or info.get("version") else ""
    ttl = "" if row["ttl_ms"] is None else f"; its tool listing's ttlMs {row['ttl_ms']}" + (" has ended: kept while it lists the same tools" if row["ttl_ended"] else "")
    return f"{row['server']}:{version} {len(row['tools'])} learned shape{'' if len(row['tools']) == 1 else 's'}{ttl}"


@mcp_group.command(name="add", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", default=None, help="A streamable HTTP server's URL, instead of a command.")
@click.option("--grade", default=None, metavar="W,D", help="Its tools' grade, e.g. 1,0 (default: 3,3, may do anything).")
@click.option("--env", "env", multiple=True, metavar="KEY=VALUE", help="Environment for a stdio server; write secrets as '${VARIABLE}'.")
@common
def mcp_add(name: str, command: tuple[str, ...], url: str | None, grade: str | None, env: tuple[str, ...], json_: bool, service) -> None:
    """Add an MCP server: lackpy mcp add NAME -- COMMAND ARGS...  (or --url URL)."""
    from lackpy.errors import UsageError

    table: dict[str, Any] = {}
    if url is not None:
        table["url"] = url
    if command:
        table["command"], table["args"] = command[0], list(command[1:])
    if env:
        pairs = [item.partition("=") for item in env]
        if any(not sep or not key for key, sep, _ in pairs):
            raise UsageError("--env takes KEY=VALUE, e.g. --env 'TOKEN=${MY_TOKEN}'")
        table["env"] = {key: value for key, _, value in pairs}
    if grade is not None:
        from lackpy.lang.grade import Grade

        parsed = Grade.parse(grade)
        if parsed is None:
            raise UsageError(f"--grade takes W,D, two whole numbers from 0 to 3, e.g. 1,0; got {grade!r}")
        table["grade"] = list(parsed)
    svc = service()
    path = svc.mcp_add(name, table)
    if json_:
        return _emit_json({"name": name, "config": str(path), "server": table, "trusted": svc.trusted})
    if not svc.trusted:
        return click.echo(f"added MCP server {name} to {path}; this workspace is not trusted, so it starts only after: lackpy trust {svc.workspace}")
    click.echo(f"added MCP server {name} to {path}; lackpy mcp status shows whether it starts")


@cli.group(cls=LackpyGroup)
def kit() -> None:
    """List, inspect and create kits."""


@kit.command(name="list")
@common
def kit_list(json_: bool, service) -> None:
    """List the kits of the workspace and the package."""
    kits = service().kit_list()
    if json_:
        return _emit_json(kits)
    for item in kits:
        note = f"  [error: {item['error']}]" if "error" in item else ""
        note += f"  [shadows the package's {item['name']}]" if item.get("shadows") else ""
        note += f"  [ignored: {item['ignored']}]" if item.get("ignored") else ""
        click.echo(f"{item['name']:<14} {item['source']:<9} {', '.join(item['tools'])}{note}")
        if item["description"]:
            click.echo(f"{'':<25}{item['description']}")


@kit.command(name="info")
@click.argument("name", metavar="KIT")
@click.option("--tools", "-t", "tools", multiple=True, help="Extra tools, comma separated.")
@common
def kit_info(name: str, tools: tuple[str, ...], json_: bool, service) -> None:
    """Show a kit's tools, their grades and the kit's grade (KIT may be a,b,c)."""
    info = service().kit_info(name, _split(tools))
    if json_:
        return _emit_json(info)
    say = lambda text: click.echo(_printable(text))  # noqa: E731 - a kit file is the workspace's: its text never drives the terminal
    say(f"kit {info['name'] or name}: {info['description']}")
    if info.get("ignored"):
        say(info["ignored"])
    if info.get("path"):
        say(f"file: {info['path']} ({info['source']})")
    say(f"grade: w={info['grade']['w']} d={info['grade']['d']}")
    for tool in info["tools"]:
        grade = f"w={tool['grade']['w']} d={tool['grade']['d']}" if tool["grade"] is not None else "w=? d=?"
        say(f"  {tool['signature']:<55} {grade}  {tool['description']}")
    if info["docs"]:
        say("docs: " + ", ".join(info["docs"]))
    for key, value in info["extra"].items():
        say(f"unknown frontmatter key (kept): {key} = {value!r}")


class ManyValues(click.Command):
    """Lets ``--tools a b c`` mean ``--tools a --tools b --tools c`` (names up to the next option), in order."""

    many = ("--tools", "-t")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        spread, taking = [], False
        for arg in args:
            if arg in self.many:
                taking = True
                continue
            if taking and not arg.startswith("-"):
                spread += [self.many[0], arg]
                continue
            taking = False
            spread.append(arg)
        return super().parse_args(ctx, spread)


@kit.command(name="create", cls=ManyValues)
@click.argument("name")
@click.option("--tools", "-t", "tools", multiple=True, required=True, help="Tools: --tools a,b or --tools a b (repeatable).")
@click.option("--description", "-d", default="", help="One line describing the kit.")
@click.option("--force", is_flag=True, help="Overwrite an existing kit of that name.")
@common
def kit_create(name: str, tools: tuple[str, ...], description: str, force: bool, json_: bool, service) -> None:
    """Create .lackpy/kits/NAME.kit in the workspace (NAME first, then the options)."""
    names = _split(tools)
    svc = service()
    path = svc.kit_create(name, names, description, force)
    if json_:
        return _emit_json({"created": str(path), "name": name, "tools": names})
    click.echo(f"created {path}")
    grade = svc.resolve_kit(names).grade
    if not svc.trusted and not grade.within(svc.read_only_grade):
        click.echo(f"lackpy: this workspace is not trusted, so kit '{name}' ({grade}) takes effect once you run: lackpy trust {svc.workspace}", err=True)


@cli.group(cls=LackpyGroup)
def skill() -> None:
    """List, inspect, create and run skills: SKILL.md folders with the programs that do a job."""


@skill.command(name="list")
@common
def skill_list(json_: bool, service) -> None:
    """List the skills (workspace, [skills] paths, your own, packages'), and why one does not run."""
    rows = service().skills()
    if json_:
        return _emit_json(rows)
    if not rows:
        click.echo("no skills yet; write one with: lackpy skill new NAME --description TEXT")
    import shutil

    width = max(30, shutil.get_terminal_size((100, 24)).columns - 56)
    for row in rows:
        source = f"mcp:{row['server']}" if row.get("server") else row["source"]
        if "description" not in row:  # a folder that is not a skill, or one a skill of that name came before
            click.echo(f"{row['name']:<20} {source:<9} left out: {_fit(row['ignored'], 240)}")
            continue
        kit = row["kit"] if isinstance(row["kit"], str) else ",".join(row["kit"])
        grade = f"w={row['grade']['w']} d={row['grade']['d']}"
        click.echo(f"{row['name']:<20} {source:<9} {_fit(kit, 16):<16} {grade:<8} {_fit(row['description'], width)}")
        if row.get("server"):  # what another server says is its own: shown as such
            click.echo(f"{'':<21}served as {_fit(row['uri'], 200)}; untrusted: it runs only by name, once you approve it")
            for note in [row.get("ceiling_needed")] + [f"a skill of this name is also served by {other}" for other in row.get("also_served_by", [])]:
                if note and not row["ignored"]:
                    click.echo(f"{'':<21}{_fit(note, 300)}")
        if row["ignored"]:
            click.echo(f"{'':<21}ignored: {_fit(row['ignored'], 400)}")
        elif not row.get("routes", True) and row["intents"]:
            click.echo(f"{'':<21}its intents route delegate once you trust this workspace (lackpy trust); --skill {row['name']} runs it now")
        for note in row.get("intents_shadowed", []):
            click.echo(f"{'':<21}intent {_fit(note, 200)}, which wins")


@skill.command(name="info")
@click.argument("name")
@common
def skill_info(name: str, json_: bool, service) -> None:
    """Show a skill: where it is, its kit and the tools' signatures, programs, intents, arguments, references and SKILL.md."""
    info = service().skill_info(name)
    if json_:
        return _emit_json(info)
    click.echo(f"skill {info['name']}: {_fit(info['description'], 1024)}")
    click.echo(f"source: {info['source']} ({_fit(info.get('origin') or info['path'], 400)})")
    kit = info["kit"] if isinstance(info["kit"], str) else ", ".join(info["kit"])
    declared = "declared" if info["grade_declared"] is not None else "read-only: it declares none"
    if info.get("server"):  # a served skill's grade is a request: held to read-only unless a run's ceiling raises it
        asked = info["grade_declared"] or info["grade"]
        declared = f"it asks for w={asked['w']} d={asked['d']}; held to read-only unless --ceiling raises it"
    click.echo(f"grade: w={info['grade']['w']} d={info['grade']['d']} ({declared}; no program run with it reaches further)")
    click.echo(f"kit: {kit}  (its grade: w={info['kit_grade']['w']} d={info['kit_grade']['d']})")
    for tool in info["tools"]:
        click.echo(f"  {tool['signature']:<55} w={tool['grade']['w']} d={tool['grade']['d']}  {tool['description']}")
    programs = [f"{name} (default)" if name == info["program"] else name for name in info["programs"]]
    click.echo("programs: " + (", ".join(programs) or "none"))
    if info["intents"]:
        click.echo("intents:" if not info.get("server") else "intents (a served skill's never route delegate):")
    for intent in info["intents"]:
        click.echo(f"  {_fit(intent['pattern'], 200)!r} -> {intent['program']}")
    if info["arguments"]:
        click.echo("arguments:")
    for argument in info["arguments"]:
        need = "required" if argument["required"] else "optional"
        click.echo(f"  {argument['name']} ({need}): {_fit(argument['description'], 200)}")
    if info["references"]:
        click.echo("references: " + ", ".join(_fit(ref, 100) for ref in info["references"]))
    click.echo("")
    if info.get("server"):  # what it says is the server's: marked where it begins and ends
        click.echo(f"--- SKILL.md from the MCP server {info['server']} (untrusted text, verified against its digest) ---")
    click.echo(_printable(info["body"]), nl=False)
    if info.get("server"):
        click.echo(f"--- end of the SKILL.md from the MCP server {info['server']} ---")




@skill.command(name="new")
@click.argument("name")
@click.option("--description", "-d", required=True, help="What the skill is for and when to use it (Agent Skills' description).")
@click.option("--tools", "-t", "tools", default=None, metavar="KIT|A,B", help="Its kit: a kit name or tools a,b (default: readonly).")
@click.option("--force", is_flag=True, help="Write the skill's files again if it exists.")
@common
def skill_new(name: str, description: str, tools: str | None, force: bool, json_: bool, service) -> None:
    """Create .lackpy/skills/NAME: a SKILL.md and programs/main.py to start from."""
    names = _split((tools,)) if tools is not None else []
    svc = service()
    path = svc.skill_create(name, description, (names[0] if len(names) == 1 else names) or None, force)
    ignored = next((row["ignored"] for row in svc.skills(remote=False) if row["name"] == name and row.get("source") == "workspace"), None)
    if json_:
        return _emit_json({"created": str(path), "name": name, "ignored": ignored})
    click.echo(f"created {path}")
    click.echo(f"next: write its steps in {path}/SKILL.md and {path}/programs/main.py, then: lackpy skill run {name}")
    if ignored:
        click.echo(f"lackpy: skill '{name}' does not run yet: {ignored}", err=True)


@skill.command(name="run")
@click.argument("name")
@click.argument("program", required=False)
@run_options
@click.option("--ceiling", default=None, metavar="KIT|W,D", help="Refuse, before it runs, a program whose own grade is above this (a kit's grade, or w,d).")
@common
def skill_run(name: str, program: str | None, service, **options: Any) -> None:
    """Run the skill's PROGRAM (programs/PROGRAM.py; default: the skill's program) with the skill's kit and files.

    A skill another MCP server serves (SERVER__name) is fetched and checked
    against its digests, held to read-only unless --ceiling raises it, and
    its program runs only once you approve it (--yes approves it).
    """

    def program_of(svc) -> tuple[str, Any]:
        found = svc.load_skill(name)
        return found.program_text(program), found

    sys.exit(_run_program(service, program_of, skill=name, **options))


@cli.group(cls=LackpyGroup)
def docs() -> None:
    """Find and read tool and kit documentation."""


@docs.command(name="index")
@kit_options
@common
def docs_index(kit: str | None, tools: tuple[str, ...], json_: bool, service) -> None:
    """Show which doc file documents each tool (of a kit, or of the toolbox)."""
    index = service().docs_index(kit, _split(tools) or None)
    if json_:
        return _emit_json(index)
    for name, path in index["tool_docs"].items():
        click.echo(f"{name:<20} {path}")
    for path in index["kit_docs"]:
        click.echo(f"{'(kit)':<20} {path}")


@docs.command(name="show")
@click.argument("target", metavar="TOOL|PATH")
@common
def docs_show(target: str, json_: bool, service) -> None:
    """Print a tool's doc, or a doc by the path 'lackpy docs index' lists (lackpy's own docs too)."""
    text = service().resolve_doc(target)
    if json_:
        return _emit_json({"path": target, "content": text})
    click.echo(text, nl=not text.endswith("\n"))


@cli.group(cls=LackpyGroup, invoke_without_command=True)
@click.option("--format", "format_", type=click.Choice(["openai", "anthropic", "mcp"]), default=None, help="Print the tools' schemas in this shape (JSON).")
@click.option("--risk", type=click.Choice(["safe", "sensitive", "critical"]), default=None, help="Only the tools on this rung of the trust ladder.")
@kit_options
@common
def tools(format_: str | None, risk: str | None, kit: str | None, tools: tuple[str, ...], json_: bool, service) -> None:
    """List every tool (or a kit's) with its grade and category, or print their schemas with --format.

    'lackpy tools search WORDS' finds tools by what they do instead.
    """
    ctx = click.get_current_context()
    if ctx.invoked_subcommand is not None:  # options before the subcommand would be lost: say where they go
        given = [p.opts[0] for p in ctx.command.params if ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(f"write {', '.join(given)} after '{ctx.invoked_subcommand}', e.g. lackpy tools {ctx.invoked_subcommand} WORDS {given[0]} ...")
        return
    svc = service()
    if format_:
        return _emit_json(svc.tool_schemas(format_, kit, _split(tools)))
    listing = svc.toolbox_list() if kit is None and not tools else svc.kit_info(kit or "none", _split(tools))["tools"]
    if risk is not None:
        from lackpy.lang.grade import Grade

        listing = [tool for tool in listing if Grade(tool["grade"]["w"], tool["grade"]["d"]).risk == risk]
    if json_:
        return _emit_json(listing)
    for tool in listing:
        asks = "asks" if tool["approval"] != "none" else "    "  # approved before each call unless configured otherwise
        click.echo(f"{tool['signature']:<55} w={tool['grade']['w']} d={tool['grade']['d']} {asks} {tool['category'] or '-':<21}  {tool['description']}")
    from lackpy.host.local_shell import status as command_status  # how run_command/start_process are confined and held here

    click.echo(command_status(svc.config.tools))


@tools.command(name="search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=5, show_default=True, help="How many tools at most.")
@kit_options
@common
def tools_search(query: tuple[str, ...], limit: int, kit: str | None, tools: tuple[str, ...], json_: bool, service) -> None:
    """Find tools by words, best first: lackpy tools search send a notification.

    Words match a tool's name, tags, category and description (plurals and
    endings aside: 'notification' finds a 'notify' tag); each line says the
    score and what matched. --kit searches a kit's tools under its names.
    """
    text = " ".join(query)
    svc = service()
    names = None if kit is None and not tools else {alias: spec.name for alias, spec in svc.resolve_kit(kit or "none", _split(tools)).tools.items()}
    found = svc.toolbox.search(text, limit=limit, tools=names)
    if json_:
        return _emit_json([match.to_dict() for match in found])
    if not found:
        click.echo(f"lackpy: no tool matches {text!r}; try other words, or 'lackpy tools' to list them all", err=True)
    for match in found:
        click.echo(f"{match.name:<24} {match.category or '-':<21} {match.score:>3}  {match.why()}")
        signature = match.spec.signature(match.name)
        click.echo(f"    {signature}: {match.spec.description}" if match.spec.description else f"    {signature}")


@cli.command(name="trust")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--list", "list_", is_flag=True, help="List the trusted workspaces.")
@click.option("--revoke", is_flag=True, help="Stop trusting DIRECTORY.")
@click.option("json_", "--json", is_flag=True, is_eager=True, help="Print one JSON document.")
@click.pass_context
def trust_cmd(ctx: click.Context, directory: str | None, list_: bool, revoke: bool, json_: bool) -> None:
    """Trust a workspace (default: the current directory) as its .lackpy/ is now.

    Until then, lackpy ignores what a workspace's .lackpy/ could use to raise
    privileges or run code: kits and templates above read-only, a default kit
    above it, custom checks, inference tiers, MCP servers, mode and sandbox.
    The record lives outside the workspace; changing one of those files needs
    trust again.
    """
    from lackpy import trust as trust_store
    from lackpy.trust_notice import forget
    from lackpy.errors import WorkspaceError

    ctx.meta["lackpy.json"] = json_
    if list_:
        records = [{"path": r.path, "trusted_at": r.trusted_at, "current": trust_store.is_trusted(Path(r.path)) if Path(r.path).is_dir() else False} for r in trust_store.trusted()]
        if json_:
            return _emit_json(records)
        for record in records:
            click.echo(f"{record['path']}{'' if record['current'] else '  (changed since: trust it again)'}")
        if not records:
            click.echo("no trusted workspaces")
        return
    root = Path(directory or ".").resolve()
    if not root.is_dir():
        raise WorkspaceError(f"workspace does not exist or is not a directory: {directory}")
    forget(root)  # trusted or revoked, the next notice about this workspace is said in full
    if revoke:
        found = trust_store.revoke(root)
        if json_:
            return _emit_json({"path": str(root), "revoked": found})
        click.echo(f"no longer trusting {root}" if found else f"{root} was not trusted")
        return
    from lackpy.service import LackpyService

    before = LackpyService(root, trust=False).load()
    enables, skills = before.notices, before.workspace_skills()
    record = trust_store.trust(root)
    if json_:
        return _emit_json({"path": record.path, "trusted": True, "enables": enables, "skills": skills})
    click.echo(f"trusting {record.path}")
    for notice in enables:
        click.echo(f"  this enables what was ignored: {notice.split(': ', 1)[1].rsplit('; if you trust it', 1)[0]}")
    for row in skills:  # a skill is code from the repository: say what each may do now
        if "description" in row:
            click.echo(f"  skill {row['name']} ({_fit(row['path'], 200)}) may run programs up to w={row['grade']['w']} d={row['grade']['d']}")
        elif row["name"]:
            click.echo(f"  skill {row['name']} ({_fit(row['path'], 200)}) is left out: {_fit(row['ignored'], 300)}")
    if skills:
        click.echo("  a skill added or changed later needs trust again; lackpy skill list shows them")


@cli.command()
@click.option("--rollback", is_flag=True, help="Put back what the interrupted commit had written, instead of completing it.")
@click.option("--discard", is_flag=True, help="Drop the commit journal and write nothing (a record lackpy cannot verify, or files you fixed yourself).")
@workspace_option
@click.option("json_", "--json", is_flag=True, is_eager=True, help="Print one JSON document.")
@click.pass_context
def doctor(ctx: click.Context, rollback: bool, discard: bool, workspace: str | None, json_: bool) -> None:
    """Find a commit an interrupted lackpy left unfinished in the workspace, and finish it.

    Every lackpy command finishes it on start when it can; doctor says what
    it found and did. It completes the commit (every new content was saved
    first) unless a file it names was changed by someone else since: then it
    stops and names the files, and --rollback puts back what the commit had
    written. A record this user's lackpy did not sign (a cloned repository
    can ship one) is never applied; --discard removes it. Exit status 0 when
    the workspace is consistent, 1 when something is left to decide.
    """
    from lackpy.errors import UsageError
    from lackpy.service import LackpyService

    ctx.meta["lackpy.json"] = json_
    if rollback and discard:
        raise UsageError("--rollback and --discard exclude each other; pick one")
    report = LackpyService(workspace).doctor("rollback" if rollback else "discard" if discard else "auto")
    unsettled = report.action in ("stopped", "busy")
    if json_:
        _emit_json(report.to_dict())
    elif unsettled:
        click.echo(f"lackpy: {report.error_kind or 'error'}: {report.message}", err=True)
    else:
        click.echo(f"{report.message} in {report.workspace}" if report.action == "none" else report.message)
    sys.exit(EXIT_FAILED if unsettled else EXIT_OK)


@cli.command()
@click.argument("name", type=click.Choice(["result", "delegate", "generate", "validate", "error"]))
@click.option("json_", "--json", is_flag=True, help="Accepted for symmetry; schemas are always JSON.")
def schema(name: str, json_: bool) -> None:
    """Print the JSON Schema of a --json document: a run's result, delegate, generate, validate or error."""
    from lackpy.report import result_schema

    _emit_json(result_schema(name))


@cli.command()
@click.option("json_", "--json", is_flag=True, help="Accepted for symmetry; the spec is always JSON.")
def spec(json_: bool) -> None:
    """Print the language grammar as JSON."""
    from lackpy.lang.grammar import language_spec
    from lackpy.run.limits import spec as limits_spec

    _emit_json({**language_spec(), "limits": limits_spec()})


@cli.command()
@workspace_option
@click.option("--kit", "-k", default="readonly", show_default=True, help="The kit a request gets when it names none (mcp:NAME: every tool of that MCP server).")
@click.option("--allow-kits", "allow_kits", default=None, metavar="A,B", help="Kits clients may ask for, mcp:NAME included (default: those within the read-only grade).")
@click.option("--allow-skills", "allow_skills", default=None, metavar="A,B", help="Skills clients may see and use (default: those whose kits the server allows).")
@click.option("--trust", is_flag=True, help="Trust the workspace's .lackpy/ for this server only.")
@click.option("--http", "http", default=None, metavar="[HOST:]PORT", help="Serve streamable HTTP at /mcp (host default 127.0.0.1) instead of stdio.")
@click.option("--oauth-issuer", default=None, metavar="URL", help="With --http: take access tokens (JWTs) this authorization server signs for this server, instead of --token-env.")
@click.option("--oauth-resource", default=None, metavar="URL", help="With --oauth-issuer: this server's resource URL, the tokens' audience (default http://HOST:PORT/mcp).")
@click.option("--oauth-introspect-env", default=None, metavar="VAR", help="With --oauth-issuer: take opaque tokens too, asking the issuer's introspection endpoint as the client CLIENT_ID:SECRET in $VAR.")
@click.option("--oauth-runs-per-caller", default=None, metavar="N", help="With --oauth-issuer: at most N runs under way at once per caller (per replica).")
@click.option("--oauth-scope", "oauth_scopes", multiple=True, metavar="SCOPE[=KIT,KIT]", help="With --oauth-issuer: a scope a caller needs, and the kits it gives (alone: every allowed kit).")
@click.option("--token-env", "token_env", default=None, metavar="NAME", help="With --http: require 'Authorization: Bearer <token>', the token read from $NAME.")
@click.option("--max-connections", "max_connections", default=None, metavar="N",
              help="With --http: hold at most N connections (default: from ulimit -n, e.g. 384 for 1024).")
@click.option("--max-connections-per-peer", "max_connections_per_peer", default=None, metavar="N",
              help="With --http: at most N of them from one client address (default: an eighth of the total, at least 8; "
                   "behind a proxy every client has its address, so raise it to the total).")
@click.option("--expose-tools", "expose_tools", is_flag=True, help="Also serve each tool of the --kit kit as its own MCP tool.")
@click.option("--drain-s", "drain_s", default=None, metavar="SECONDS", help="With --http: on SIGTERM, let runs under way finish for up to this long (default 30).")
@click.option("--ceiling", default=None, metavar="KIT|W,D", help="Refuse every program whose own grade is above this, before it runs.")
@click.option(
    "--approval",
    default=None,
    metavar="MODE",
    help="Ask about every gate this way: block, auto, notify or none (default: the config's; clients are asked by elicitation).",
)
@click.option("--store", default=None, metavar="memory|redis://HOST:PORT/DB",
              help="With --http: where sessions and waiting runs are kept; a Redis the replicas share (default: the config's [serve] store, else memory).")
@click.option("--deployment", default=None, metavar="NAME", help="With --store: the replicas that share state (default: the config's, else 'default').")
@click.option("--cluster-key-env", "cluster_key_env", default=None, metavar="VAR",
              help="With a shared --store: $VAR holds the secret (32+ bytes) the replicas share, to seal and check each other's states.")
@click.option("--advertise", default=None, metavar="URL", help="With a shared --store: how the other replicas reach this one (default: http://HOST:PORT of --http).")
def serve(
    workspace: str | None,
    kit: str,
    allow_kits: str | None,
    allow_skills: str | None,
    trust: bool,
    http: str | None,
    oauth_issuer: str | None,
    oauth_resource: str | None,
    oauth_scopes: tuple[str, ...],
    oauth_runs_per_caller: str | None,
    oauth_introspect_env: str | None,
    token_env: str | None,
    max_connections: str | None,
    max_connections_per_peer: str | None,
    expose_tools: bool,
    ceiling: str | None,
    approval: str | None,
    drain_s: str | None,
    store: str | None,
    deployment: str | None,
    cluster_key_env: str | None,
    advertise: str | None,
) -> None:
    """Serve this workspace's lackpy as an MCP server (stdio, or --http).

    What a program would do that needs a yes is asked of the client through
    elicitation; a client that cannot answer is refused unless --approval
    says to go on (auto, notify or none).
    """
    from lackpy.errors import UsageError

    try:
        import mcp  # noqa: F401
    except ImportError:
        from lackpy.mcp import INSTALL_HINT

        raise UsageError(INSTALL_HINT) from None
    from lackpy.mcp.serve import serve as run_server

    allowed = _split((allow_kits,)) if allow_kits is not None else None
    skills = _split((allow_skills,)) if allow_skills is not None else None
    run_server(
        workspace, kit=kit, allow_kits=allowed, trust=trust, http=http, token_env=token_env, expose_tools=expose_tools, ceiling=ceiling, approval=approval,
        allow_skills=skills, drain_s=drain_s, store=store, deployment=deployment, cluster_key_env=cluster_key_env, advertise=advertise,
        max_connections=max_connections, max_connections_per_peer=max_connections_per_peer,
        oauth_issuer=oauth_issuer, oauth_resource=oauth_resource, oauth_scopes=list(oauth_scopes),
        oauth_runs_per_caller=oauth_runs_per_caller, oauth_introspect_env=oauth_introspect_env,
    )


def main() -> None:
    """The command, stopped cleanly by SIGTERM and SIGHUP.

    The signal unwinds the command as an exception, so the service closes
    and its processes stop; then lackpy exits at once. It does not wait for
    a run thread still inside a tool: a thread that tool starts while the
    interpreter finalizes never runs, and waiting for it would hang lackpy
    (what such a tool started is stopped with lackpy, by its supervisor).
    """
    import os
    import signal

    stopped: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        stopped.append(signum)
        raise SystemExit(128 + signum)  # unwinds, so the service closes and its processes stop

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        cli(prog_name="lackpy")
    finally:
        if stopped:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + stopped[0])


if __name__ == "__main__":
    main()
