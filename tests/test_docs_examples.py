"""Every example in README.md and docs/*.md is checked for real: programs validate, configs load, JSON parses, commands exist.

A code block is checked by its language: a ``python`` block that calls a
kit's tools is a lackpy program and must validate against the ``all`` kit;
any other ``python`` block is Python that uses lackpy's API, which must
compile and name only what lackpy has. A ``toml`` block must parse, and a
lackpy config must load with every key known; ``json`` and ``yaml`` must
parse. Every ``lackpy ...`` command line (in ``bash`` and ``console`` blocks,
and the synopses of unlabelled blocks) must name a real command and only
options that command takes. A block preceded by ``<!-- example: not checked
(why) -->`` is left out; there are few, and each says why. No network, no
model: validation, parsing and click's command tree only.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from lackpy import LackpyService
from lackpy.cli import cli
from lackpy.config import Config

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.S | re.M)
SKIP = "<!-- example: not checked"
#: The keys and tables of .lackpy/config.toml (``lackpy.config.Config``): a TOML block with one of them is a lackpy config.
CONFIG_KEYS = {
    "default_kit", "checks", "mode", "sandbox", "session_worker", "max_concurrent_runs", "ceiling", "approve", "approval_timeout_s",
    "audit", "approvals", "limits", "tools", "guardrails", "kits", "skills", "serve", "inference", "mcp",
}


def blocks(language: str | None = None) -> list[tuple[str, str, str]]:
    """(page and line, language, text) of every fenced block not marked as not checked."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            if before.startswith(SKIP):
                continue
            where = f"{page.relative_to(REPO)}:{text.count(chr(10), 0, match.start()) + 1}"
            if language is None or match.group(1) == language:
                found.append((where, match.group(1), match.group(2)))
    return found


def ids(found: list[tuple[str, str, str]]) -> list[str]:
    return [where for where, _, _ in found]


PYTHON, TOML, JSON, YAML = (blocks(language) for language in ("python", "toml", "json", "yaml"))


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    svc = LackpyService(tmp_path_factory.mktemp("workspace"))
    yield svc
    svc.close()


def tool_names(service: LackpyService) -> set[str]:
    return {tool["name"] for tool in service.toolbox_list()}


def calls(tree: ast.AST) -> set[str]:
    return {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def parse(text: str, where: str = "<docs>") -> ast.Module:
    """The block's syntax tree; an example may ``await`` at the top, as in an async REPL."""
    return compile(text, where, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def is_program(text: str, tools: set[str]) -> bool:
    """A lackpy program calls a kit's tools by name and uses nothing of Python's API (no import, no await, no service)."""
    tree = parse(text)
    api = any(isinstance(node, (ast.Import, ast.ImportFrom, ast.Await, ast.AsyncFunctionDef, ast.FunctionDef)) for node in ast.walk(tree))
    return not api and "svc" not in text and bool(calls(tree) & tools)


def test_the_pages_have_examples_of_every_kind():
    """The checks below run on something: a page that lost its blocks, or a fence the pattern misses, fails here."""
    assert len(PYTHON) >= 6 and len(TOML) >= 10 and len(JSON) >= 3 and len(YAML) >= 1


@pytest.mark.parametrize(("where", "language", "text"), PYTHON, ids=ids(PYTHON))
def test_python_blocks_validate_or_name_only_what_lackpy_has(service, where, language, text):
    tools = tool_names(service)
    assert {"grep", "read_file", "find_files"} <= tools
    if is_program(text, tools):
        result = service.validate(text, kit="all")
        assert result.valid, f"{where}: {[(e.code, e.message) for e in result.errors]}"
        return
    tree = parse(text, where)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lackpy":
            module = __import__(node.module, fromlist=["_"])
            missing = [alias.name for alias in node.names if not hasattr(module, alias.name)]
            assert missing == [], f"{where}: {node.module} has no {missing}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "svc":
            assert hasattr(LackpyService, node.attr) or node.attr in service.__dict__, f"{where}: LackpyService has no {node.attr}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run_program" and node.args:
            program, kit = node.args[0], next((k.value for k in node.keywords if k.arg == "kit"), None)
            if isinstance(program, ast.Constant) and isinstance(kit, ast.Constant):  # a program written inline, with a shipped kit
                result = service.validate(program.value, kit=kit.value)
                assert result.valid, f"{where}: {program.value!r}: {[e.message for e in result.errors]}"


@pytest.mark.parametrize(("where", "language", "text"), TOML, ids=ids(TOML))
def test_toml_blocks_parse_and_configs_load_with_every_key_known(where, language, text):
    data = tomllib.loads(text)
    if not set(data) & CONFIG_KEYS:
        return
    config = Config.from_dict(data)
    assert config.extra == {}, f"{where}: keys lackpy does not know: {sorted(config.extra)}"


@pytest.mark.parametrize(("where", "language", "text"), JSON, ids=ids(JSON))
def test_json_blocks_parse(where, language, text):
    assert json.loads(text) is not None


@pytest.mark.parametrize(("where", "language", "text"), YAML, ids=ids(YAML))
def test_yaml_blocks_parse(where, language, text):
    assert isinstance(yaml.safe_load(text), dict)


def test_a_config_block_with_a_key_lackpy_does_not_know_fails_the_check():
    """The check above can fail: a misspelt key is left in ``extra``, where it is caught."""
    with pytest.raises(AssertionError, match="keys lackpy does not know"):
        test_toml_blocks_parse_and_configs_load_with_every_key_known("example", "toml", "default_kit = \"readonly\"\ntimeout = 3\n")


# --- command lines -----------------------------------------------------------------------------------------------------


def command_lines(language: str, text: str) -> list[list[str]]:
    """The ``lackpy`` invocations of a shell block, as their words after ``lackpy``.

    In a block with ``$`` prompts only the prompted lines are commands (the
    rest is output); lines continued with a backslash are joined; ``&&``,
    ``;`` and ``|`` separate commands, so ``.venv/bin/lackpy`` after an
    install is found too.
    """
    lines = text.replace("\\\n", " ").splitlines()
    if any(line.startswith("$ ") for line in lines):
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    found = []
    for line in lines:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split, lexer.commenters = True, "#"
        words: list[str] = []
        for word in [*lexer, ";"]:
            if word in (";", "&&", "|", "||", "&"):
                if words and Path(words[0]).name == "lackpy":
                    found.append(words[1:])
                words = []
            else:
                words.append(word)
    return found


def resolve(words: list[str]) -> tuple[click.Command, list[str]]:
    """The command the words name, and the words after its name."""
    command: click.Command = cli
    rest = list(words)
    while isinstance(command, click.Group) and rest and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    return command, rest


def options(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)} | {"--help", "-h"}


def check_invocation(words: list[str]) -> None:
    command, rest = resolve(words)
    assert not (isinstance(command, click.Group) and command.invoke_without_command is False), f"lackpy {' '.join(words)}: names no command"
    known = options(command)
    for word in rest:
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            assert word.split("=", 1)[0] in known, f"lackpy {' '.join(words)}: {command.name} has no option {word}"


SHELL = [block for block in blocks() if block[1] in ("bash", "console", "sh")]
INVOCATIONS = [(where, words) for where, language, text in SHELL for words in command_lines(language, text)]


def test_the_shell_blocks_hold_lackpy_commands():
    assert len(INVOCATIONS) >= 15


@pytest.mark.parametrize(("where", "words"), INVOCATIONS, ids=[f"{where} {' '.join(words)[:40]}" for where, words in INVOCATIONS])
def test_every_lackpy_command_line_names_a_real_command_and_its_options(where, words):
    check_invocation(words)


def test_a_misspelt_option_or_command_fails_the_check():
    with pytest.raises(AssertionError, match="has no option --kits"):
        check_invocation(["run", "--kits", "readonly", "x.py"])
    with pytest.raises(AssertionError, match="names no command"):
        check_invocation(["mcp", "lsit"])


# --- synopses: unlabelled blocks whose lines start with "lackpy" (the CLI block, lackpy doctor, lackpy mcp login) ---------


def synopses() -> list[tuple[str, str]]:
    """Each ``lackpy`` line of an unlabelled block, with its continuation lines (indented ones) joined to it."""
    found = []
    for where, language, text in blocks(""):
        for line in text.splitlines():
            if line.startswith("lackpy "):
                found.append((where, line))
            elif line.startswith(" ") and found and found[-1][0] == where and not line.strip().startswith("("):
                found[-1] = (where, found[-1][1] + " " + line.strip())
    return found


def synopsis_commands(line: str) -> list[click.Command]:
    """The commands a synopsis line names: ``lackpy kit list | info KIT | create NAME`` names the group and three."""
    words = re.findall(r"[\w-]+", line.split("#", 1)[0])[1:]
    group: click.Group = cli
    while words and isinstance(group.commands.get(words[0]), click.Group):
        group = group.commands[words.pop(0)]
    return [group, *(group.commands[word] for word in words if word in group.commands)]


SYNOPSES = synopses()


def test_the_cli_block_and_the_other_synopses_are_found():
    assert len(SYNOPSES) >= 25 and any("lackpy doctor" in line for _, line in SYNOPSES)


@pytest.mark.parametrize(("where", "line"), SYNOPSES, ids=[f"{where} {line[:40]}" for where, line in SYNOPSES])
def test_every_option_a_synopsis_shows_is_an_option_of_a_command_it_names(where, line):
    commands = synopsis_commands(line)
    assert len(commands) > 1 or commands[0] is not cli, f"{where}: {line!r} names no command"
    known = set().union(*(options(command) for command in commands))
    shown = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", line.split("#", 1)[0]))
    assert shown - known == set(), f"{where}: {line[:60]!r}: no such option {sorted(shown - known)}"


# --- the README's own promises -----------------------------------------------------------------------------------------


def readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def test_the_mcp_servers_entry_names_the_lackpy_the_quickstart_installs():
    """The quickstart installs into .venv, so a host must start .venv/bin/lackpy by its absolute path."""
    quickstart = re.findall(r"```bash\n(.*?)\n```", readme(), re.S)[0]
    assert "python3 -m venv .venv" in quickstart and ".venv/bin/lackpy" in quickstart
    for where, language, text in JSON:
        data = json.loads(text)
        if "mcpServers" in data:
            entry = data["mcpServers"]["lackpy"]
            assert entry["command"].startswith("/") and entry["command"].endswith("/.venv/bin/lackpy"), where
            assert entry["args"][0] == "serve" and resolve(entry["args"])[0] is cli.commands["serve"]
            check_invocation(entry["args"])


def test_relative_links_of_the_readme_and_the_pages_lead_to_files_that_exist():
    """Plain relative paths (docs/serving.md), so they work on a forge as well as in the site."""
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            assert path.exists(), f"{page.relative_to(REPO)} links to {target}, which does not exist"


def test_the_readme_is_read_in_ten_minutes():
    words = len(re.sub(r"```.*?```", "", readme(), flags=re.S).split())
    assert words <= 1800, f"the README has {words} words outside its code blocks"


def test_the_programs_of_the_readme_and_the_programs_page_are_checked_as_programs(service):
    """The TODO program of the README and the programs page is validated, not only compiled; a program that breaks the language fails."""
    tools = tool_names(service)
    programs = [where for where, _, text in PYTHON if is_program(text, tools)]
    assert any(where.startswith("README.md") for where in programs) and any(where.startswith("docs/programs.md") for where in programs)
    broken = 'hits = grep("TODO")\nwhile hits:\n    hits = []\nlen(hits)'
    assert is_program(broken, tools) and not service.validate(broken, kit="all").valid


def test_the_python_api_page_runs_as_written(workspace):
    """docs/python.md's first block, run as written on a small workspace (top-level await, as in ``python -m asyncio``)."""
    import asyncio

    text = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1).replace('"path/to/workspace"', repr(str(workspace)))
    tree = parse(block, "docs/python.md")
    for index, node in enumerate(tree.body):  # each shown value is kept, as a REPL would print it
        if isinstance(node, ast.Expr):
            tree.body[index] = ast.Expr(ast.Call(ast.Name("shown", ast.Load()), [node.value], []))
    ast.fix_missing_locations(tree)
    shown: list = []
    scope = {"shown": shown.append}
    running = eval(compile(tree, "docs/python.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT), scope)
    try:
        asyncio.run(running)
    finally:
        scope["svc"].close()
    count, validated, delegated, dry_run, notebook = shown[0], shown[1], shown[2], shown[3], shown[-1]
    assert count[:2] == (True, 2) and validated == "forbidden-node"
    assert delegated[2] == "rules" and delegated[0] == 3  # three TODO markers in the workspace's Python files
    assert dry_run.success and dry_run.dry_run and notebook == 2


def shown_runs(page: str) -> list[tuple[str, str]]:
    """(command, output) of each ``$ lackpy ...`` line of a page's console blocks whose output is a JSON document."""
    found = []
    for where, language, text in blocks("console"):
        if not where.startswith(page):
            continue
        for match in re.finditer(r"^\$ (lackpy [^\n]*)\n(\{\n.*?\n\})$", text, re.S | re.M):
            found.append((match.group(1), match.group(2)))
    return found


def test_the_skill_examples_print_what_the_page_shows(tmp_path):
    """docs/skills.md, in the workspace it describes (notes in src/pkg/a.py, docs/ and at the top), no model: the shown output, exactly."""
    import os
    import subprocess
    import sys

    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "pkg" / "a.py").write_text("x = 1  # TODO: fix\n# FIXME later\n")
    (root / "docs" / "notes.md").write_text("# XXX check the links\n")
    (root / "top.txt").write_text("HACK around the old API\n")
    runs = shown_runs("docs/skills.md")
    assert len(runs) >= 3
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "LACKPY_LOAD_PLUGINS": ""}
    for command, output in runs:
        done = subprocess.run([sys.executable, "-m", "lackpy", *shlex.split(command, comments=True)[1:]], cwd=root, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        assert json.loads(done.stdout) == json.loads(output), command


def test_the_site_builds_with_no_warning(tmp_path):
    """mkdocs build --strict: every page in the nav, every link and anchor resolved, the tool pages reached through docs/tools."""
    import os
    import subprocess
    import sys

    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed here: pip install '.[docs]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([str(mkdocs), "build", "--strict", "-d", str(tmp_path / "site")], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "tools" / "read_file" / "index.html").exists() and (tmp_path / "site" / "configuration" / "index.html").exists()
