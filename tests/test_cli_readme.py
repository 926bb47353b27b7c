"""The README names every command the CLI has, so a new user finds each one there; and CI runs the README's own test command."""

from __future__ import annotations

import re
from pathlib import Path

import click

from lackpy.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"


def commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every visible command as its words after ``lackpy`` (a group's own commands, not the group)."""
    found = []
    for name, command in group.commands.items():
        if command.hidden:
            continue
        if isinstance(command, click.Group) and command.commands:
            found += commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def cli_section() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## CLI\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None, "the CLI section has no command block"
    return block.group(1).splitlines()


def named(words: tuple[str, ...], lines: list[str]) -> bool:
    """``lackpy mcp status`` is named by a line ``lackpy mcp status ...`` or ``lackpy mcp list | status ...``."""
    *group, last = words
    head = " ".join(("lackpy", *group)) + " "
    return any(line.startswith(head) and (re.match(rf"{re.escape(last)}\b", line[len(head):]) or f"| {last}" in line) for line in lines)


def test_the_readme_cli_section_names_every_command():
    lines = cli_section()
    missing = [" ".join(words) for words in commands(cli) if not named(words, lines)]
    assert missing == []


def test_the_mcp_commands_are_there_with_their_options():
    lines = [line for line in cli_section() if line.startswith("lackpy mcp ")]
    text = "\n".join(lines)
    for option in ("--url", "--grade", "--env", "--json"):
        assert option in text
    for option in ("--url", "--grade", "--env"):  # what the README shows is what the command takes
        assert option in {opt for param in cli.commands["mcp"].commands["add"].params for opt in param.opts}


def test_ci_runs_the_readmes_test_command_and_then_the_slow_tests():
    """The README opens with two commands; the second, as written, is what .ci/run runs (then the tests it leaves out)."""
    blocks = re.findall(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)
    install_and_run, test = blocks[0], blocks[1]
    assert "lackpy delegate" in install_and_run and "pytest" in test
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci
    slow = ci.split(test, 1)[1]
    assert '-m slow' in slow and '-m "not slow"' in test


def test_the_cli_reference_page_lists_every_option_of_every_command():
    """docs/cli.md has a heading per command (groups included) and, under it, every option the command takes."""
    page = (README.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### (lackpy[^\n]*)\n(.*?)(?=^##|\Z)", page, re.S | re.M))
    missing = []
    for words, command in every_command(cli):
        name = " ".join(("lackpy", *words))
        if name not in sections:
            missing.append(name)
            continue
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                missing += [f"{name} {opt}" for opt in (*param.opts, *param.secondary_opts) if f"`{opt}`" not in sections[name]]
    assert missing == [], "docs/cli.md does not list these; add them under the command's heading"


def every_command(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every visible command and group, with its words after ``lackpy``."""
    found = []
    for name, command in group.commands.items():
        if not command.hidden:
            found.append(((*path, name), command))
            if isinstance(command, click.Group):
                found += every_command(command, (*path, name))
    return found


def test_the_cli_reference_page_shows_the_readmes_command_block():
    """docs/cli.md opens with the same command block as the README's CLI section, so neither falls behind."""
    page = (README.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(.*?)```", page, re.S)
    assert block is not None and block.group(1).splitlines() == cli_section()


def test_the_docs_home_page_opens_with_the_readmes_two_commands():
    first_two = lambda text: re.findall(r"```bash\n(.*?)\n```", text, re.S)[:2]  # noqa: E731
    assert first_two((README.parent / "docs" / "index.md").read_text(encoding="utf-8")) == first_two(README.read_text(encoding="utf-8"))


def test_ci_builds_the_docs_site_strictly_between_the_test_command_and_the_slow_tests():
    """Without -q: mkdocs -q hides the warnings --strict counts, and a broken link would pass."""
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    test = re.findall(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)[1]
    after_tests = ci.split(test, 1)[1]
    build = next(line for line in after_tests.splitlines() if "mkdocs build" in line)
    assert "--strict" in build and " -q -d" not in build and "'.[docs]'" in build
    assert after_tests.index("mkdocs build") < after_tests.index("-m slow")
