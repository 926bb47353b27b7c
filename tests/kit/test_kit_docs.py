"""A kit's docs are files that belong to the kit: beside its file, or beneath docs/kits (or a docs folder a trusted config names).

Every test plants a canary in a real temporary workspace (or outside it) and
tries to get it back through a kit file's ``docs:``, through the service as
the CLI and the server use it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from lackpy.errors import ConfigError, DocsError, KitError, KitFileError
from lackpy.kit.docplace import PACKAGE_DOCS, Doc, kit_doc
from lackpy.service import LackpyService

CANARY = "CANARY-SECRET"


@pytest.fixture
def kits(workspace: Path) -> Path:
    """The workspace's .lackpy/kits, with a canary at the workspace's top (where a hostile docs: points)."""
    (workspace / "secrets.txt").write_text(f"{CANARY} token\n")
    path = workspace / ".lackpy" / "kits"
    path.mkdir(parents=True)
    return path


def kit(kits: Path, name: str, docs: str, tools: str = "read_file") -> None:
    (kits / f"{name}.kit").write_text(f"---\nname: {name}\ndocs: {docs}\n---\n{tools}\n")


def refused(service: LackpyService, path: str, match: str) -> str:
    """service.resolve_doc(path) raises a one-line DocsError matching ``match``, without the canary."""
    with pytest.raises(DocsError, match=match) as info:
        service.resolve_doc(path)
    message = str(info.value)
    assert CANARY not in message and "\n" not in message
    return message


# -- the docs that belong to a kit are served -----------------------------------------


def test_a_doc_beside_the_kit_and_beneath_its_folder(workspace, kits):
    """docs: team.md is the file beside team.kit, listed by its workspace path; team/usage.md beneath the kits folder."""
    kit(kits, "team", "team.md")
    kit(kits, "deep", "deep/usage.md")
    (kits / "team.md").write_text("# Team\n")
    (kits / "deep").mkdir()
    (kits / "deep" / "usage.md").write_text("# Deep\n")
    service = LackpyService(workspace)
    assert service.docs_index("team")["kit_docs"] == [".lackpy/kits/team.md"]
    assert service.resolve_doc(".lackpy/kits/team.md") == "# Team\n"
    assert service.docs_index("deep")["kit_docs"] == [".lackpy/kits/deep/usage.md"]
    assert service.resolve_doc(".lackpy/kits/deep/usage.md") == "# Deep\n"
    assert service.kit_info("team")["docs"] == [".lackpy/kits/team.md", "docs/tools/read_file.md"]


def test_a_doc_beneath_docs_kits_as_kit_files_have_always_named_it(workspace, kits):
    """docs: docs/kits/team.md is that workspace file, trusted or not (docs/kits is where kits' docs live)."""
    kit(kits, "team", "docs/kits/team.md")
    (workspace / "docs" / "kits").mkdir(parents=True)
    (workspace / "docs" / "kits" / "team.md").write_text("# Team docs\n")
    service = LackpyService(workspace)
    assert service.docs_index("team")["kit_docs"] == ["docs/kits/team.md"]
    assert service.resolve_doc("docs/kits/team.md") == "# Team docs\n"


def test_a_docs_folder_a_trusted_config_names(workspace, kits, trusted):
    """[kits] docs = ["handbook"] counts once the workspace is trusted; before, it is ignored and said so."""
    (workspace / ".lackpy" / "config.toml").write_text('[kits]\ndocs = ["handbook"]\n')
    kit(kits, "team", "handbook/team.md")
    (workspace / "handbook").mkdir()
    (workspace / "handbook" / "team.md").write_text("# Handbook\n")
    untrusted = LackpyService(workspace)
    assert untrusted.docs_index("team")["kit_docs"] == [".lackpy/kits/handbook/team.md"]  # beside the kit: no such file
    refused(untrusted, "handbook/team.md", "is not one lackpy lists here")
    refused(untrusted, ".lackpy/kits/handbook/team.md", r"does not exist; the kit file team.kit names it relative to its own folder")
    assert any("config 'kits'" in notice for notice in untrusted.notices)
    trusted(workspace)
    service = LackpyService(workspace)
    assert service.docs_index("team")["kit_docs"] == ["handbook/team.md"]
    assert service.resolve_doc("handbook/team.md") == "# Handbook\n"
    assert service.config.kit_docs == ["handbook"]  # docs/kits no longer counts: the config says which folders do


def test_package_docs_and_tool_docs_still_read(workspace, kits):
    """A tool's doc by its name and by its path, and lackpy's own guide, come from the package."""
    service = LackpyService(workspace)
    shipped = (PACKAGE_DOCS / "tools" / "read_file.md").read_text(encoding="utf-8")
    assert service.resolve_doc("read_file") == shipped
    assert service.resolve_doc("docs/tools/read_file.md") == shipped
    assert service.resolve_doc("docs/guide/answers.md") == (PACKAGE_DOCS / "guide" / "answers.md").read_text(encoding="utf-8")


# -- what a hostile kit file names is never served ---------------------------------------


def test_a_workspace_path_in_docs_is_a_file_beside_the_kit_not_the_workspace_file(workspace, kits):
    """The attack: docs: secrets.txt. It names .lackpy/kits/secrets.txt, which does not exist; secrets.txt is never read."""
    kit(kits, "x", "secrets.txt")
    service = LackpyService(workspace)
    assert service.docs_index("x")["kit_docs"] == [".lackpy/kits/secrets.txt"]
    refused(service, "secrets.txt", r"^doc 'secrets.txt' is not one lackpy lists here; give a tool name")
    refused(service, ".lackpy/kits/secrets.txt", r"does not exist; the kit file x.kit names it relative to its own folder; a kit's docs live")


@pytest.mark.parametrize("written", ["../../secrets.txt", "../kits/../../secrets.txt", "/etc/passwd", "..", ".", "sub/../../x.md", '"x\\nsecrets.txt"'])
def test_a_docs_path_that_leads_out_is_refused_when_the_kit_is_resolved(workspace, kits, written):
    """An absolute path, one with '..' or a control character makes the kit a KitFileError naming its file and where docs may live."""
    kit(kits, "x", written)
    with pytest.raises(KitFileError) as info:
        LackpyService(workspace).docs_index("x")
    message = str(info.value)
    assert message.startswith(str(kits / "x.kit")) and "a kit's docs live beside its file" in message
    assert "\n" not in message and CANARY not in message


@pytest.mark.parametrize(
    "plant",
    [
        lambda ws, kits, outside: (kits / "leak.md").symlink_to("../../secrets.txt"),
        lambda ws, kits, outside: (kits / "leak.md").symlink_to(outside),
        lambda ws, kits, outside: (kits / "leak.md").symlink_to(ws / "secrets.txt"),
        lambda ws, kits, outside: (kits / "up").symlink_to("../..", target_is_directory=True),
    ],
    ids=["climbing-link", "link-outside", "absolute-link-into-workspace", "folder-link-up"],
)
def test_a_link_out_of_the_kits_folder_is_refused(workspace, kits, outside, plant):
    """A doc beside the kit that is a link out of the kits folder (or passes through one) is refused, never followed."""
    plant(workspace, kits, outside)
    kit(kits, "x", "up/secrets.txt" if (kits / "up").is_symlink() else "leak.md")
    service = LackpyService(workspace)
    (path,) = service.docs_index("x")["kit_docs"]
    refused(service, path, r"a symlink leads outside where lackpy reads it; it is not read")


def test_a_kits_folder_that_is_a_link_serves_no_docs(workspace, kits):
    """.lackpy/kits linked to the workspace's top would make every file 'beside the kit': lackpy refuses the folder."""
    kits.rmdir()
    kits.symlink_to("..", target_is_directory=True)  # .lackpy/kits -> the workspace
    kit(workspace, "x", "secrets.txt")
    service = LackpyService(workspace)
    assert service.docs_index("x")["kit_docs"] == [".lackpy/kits/secrets.txt"]
    refused(service, ".lackpy/kits/secrets.txt", r"its folder .lackpy/kits is not a real folder beneath the workspace \(it is a symlink")


@pytest.mark.parametrize("link", ["docs/kits", "docs"])
def test_a_docs_folder_that_is_a_link_serves_nothing(workspace, kits, outside, link):
    """docs/kits (or docs) linked to the workspace's top or outside it is refused: no symlink on the way to a docs folder."""
    (workspace / link).parent.mkdir(parents=True, exist_ok=True)
    (workspace / link).symlink_to(".." if link == "docs/kits" else outside.parent, target_is_directory=True)  # docs/kits -> the top
    if link == "docs":
        (outside.parent / "kits").mkdir()
        (outside.parent / "kits" / "canary.txt").write_text(f"{CANARY}\n")
    kit(kits, "x", "docs/kits/secrets.txt" if link == "docs/kits" else "docs/kits/canary.txt")
    service = LackpyService(workspace)
    (path,) = service.docs_index("x")["kit_docs"]
    refused(service, path, r"its folder docs/kits is not a real folder beneath the workspace")


def test_a_fifo_beside_the_kit_is_refused_without_hanging(workspace, kits):
    """A FIFO named as a kit's doc is refused at once, never opened for a read that blocks."""
    os.mkfifo(kits / "pipe.md")
    kit(kits, "x", "pipe.md")
    service = LackpyService(workspace)
    outcome: list = []

    def attempt() -> None:
        try:
            outcome.append(service.resolve_doc(".lackpy/kits/pipe.md"))
        except Exception as exc:  # recorded and checked below
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():
        os.close(os.open(kits / "pipe.md", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("resolve_doc blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], DocsError) and "not a regular file (a FIFO)" in str(outcome[0])


def test_a_denied_file_in_a_docs_folder_is_not_read(workspace, kits, trusted):
    """[tools] deny judges the file a kit's doc opens, in docs/kits as beside the kit."""
    (workspace / ".lackpy" / "config.toml").write_text('[tools]\ndeny = ["private/"]\n')
    (workspace / "docs" / "kits" / "private").mkdir(parents=True)
    (workspace / "docs" / "kits" / "private" / "x.md").write_text(f"{CANARY}\n")
    kit(kits, "x", "docs/kits/private/x.md")
    refused(LackpyService(workspace), "docs/kits/private/x.md", "denied by the workspace policy")


# -- the docs of a kit that is ignored are neither listed nor read ---------------------------


def test_an_ignored_kit_lists_and_serves_no_docs(workspace, kits, trusted):
    """An untrusted workspace's kit above read-only is ignored: docs_index refuses it and its doc is not read; trusted, both work."""
    kit(kits, "y", "y.md", tools="write_file")
    (kits / "y.md").write_text("# y\n")
    service = LackpyService(workspace)
    with pytest.raises(KitError, match=r"kit 'y' comes from this workspace .* not trusted"):
        service.docs_index("y")
    refused(service, ".lackpy/kits/y.md", "is not one lackpy lists here")
    trusted(workspace)
    service = LackpyService(workspace)
    assert service.docs_index("y")["kit_docs"] == [".lackpy/kits/y.md"]
    assert service.resolve_doc(".lackpy/kits/y.md") == "# y\n"


def test_an_ignored_kit_that_shadows_a_shipped_one_lists_the_shipped_kits_docs(workspace, kits):
    """A workspace filesystem.kit (above read-only, untrusted) gives way to lackpy's: its docs: is never listed."""
    kit(kits, "filesystem", "fs.md", tools="read_file\nwrite_file")
    (kits / "fs.md").write_text("# fs\n")
    service = LackpyService(workspace)
    index = service.docs_index("filesystem")
    assert index["kit_docs"] == [] and "edit_file" in index["tool_docs"]
    refused(service, ".lackpy/kits/fs.md", "is not one lackpy lists here")


def test_only_the_given_kits_docs_are_read(workspace, kits):
    """resolve_doc(path, kits=[...]) (a server's allowed kits) reads no doc of another kit, nor a tool outside them."""
    kit(kits, "team", "team.md")
    (kits / "team.md").write_text("# Team\n")
    service = LackpyService(workspace)
    assert service.resolve_doc(".lackpy/kits/team.md", ["team"]) == "# Team\n"
    with pytest.raises(DocsError, match="is not one lackpy lists here"):
        service.resolve_doc(".lackpy/kits/team.md", ["web"])
    with pytest.raises(DocsError, match="is not one lackpy lists here"):
        service.resolve_doc("read_file", ["web"])
    assert "fetch_url" in service.resolve_doc("fetch_url", ["web"])


# -- the config's docs folders ------------------------------------------------------------


@pytest.mark.parametrize("value", ['["."]', '["../x"]', '["/etc"]', '[".lackpy"]', '[".lackpy/kits"]', '["a/../../b"]', '[""]', '"docs"', "[3]"])
def test_a_docs_folder_must_lie_beneath_the_workspace(workspace, trusted, value):
    """[kits] docs naming the workspace itself, .lackpy, '..' or an absolute path is a one-line ConfigError."""
    (workspace / ".lackpy").mkdir()
    (workspace / ".lackpy" / "config.toml").write_text(f"[kits]\ndocs = {value}\n")
    trusted(workspace)
    with pytest.raises(ConfigError, match=r"\[kits\] takes docs = \[\"docs/kits\", ...\]: folders beneath the workspace") as info:
        LackpyService(workspace).load()
    assert "\n" not in str(info.value)


def test_a_docs_folder_named_dot_in_an_untrusted_workspace_is_withheld(workspace, kits):
    """An untrusted config's [kits] is withheld, whatever it names: docs = ["."] does not make secrets.txt a doc."""
    (workspace / ".lackpy" / "config.toml").write_text('[kits]\ndocs = ["."]\n')
    kit(kits, "x", "secrets.txt")
    service = LackpyService(workspace)
    assert service.config.kit_docs == ["docs/kits"]
    refused(service, "secrets.txt", "is not one lackpy lists here")
    refused(service, ".lackpy/kits/secrets.txt", "does not exist")


# -- where a kit file's docs: is read, rule by rule ------------------------------------------


def test_kit_doc_places(tmp_path):
    """Beside the kit, beneath a docs folder, a shipped kit's (lackpy's docs) and a host's kits folder."""
    ws = tmp_path / "ws"
    kit_path = ws / ".lackpy" / "kits" / "team.kit"
    assert kit_doc("team.md", kit_path, "workspace", ws) == Doc(".lackpy/kits/team.md", "team.md", ".lackpy/kits")
    assert kit_doc("./a//b.md", kit_path, "workspace", ws) == Doc(".lackpy/kits/a/b.md", "a/b.md", ".lackpy/kits")
    assert kit_doc("docs/kits/team.md", kit_path, "workspace", ws) == Doc("docs/kits/team.md", "team.md", "docs/kits")
    assert kit_doc("docs/kits/team.md", kit_path, "workspace", ws, ()) == Doc(".lackpy/kits/docs/kits/team.md", "docs/kits/team.md", ".lackpy/kits")
    assert kit_doc("docs/kitsx/team.md", kit_path, "workspace", ws) == Doc(".lackpy/kits/docs/kitsx/team.md", "docs/kitsx/team.md", ".lackpy/kits")
    shipped = kit_doc("docs/kits/filesystem.md", Path("/pkg/kits/filesystem.kit"), "package", ws)
    assert shipped == Doc("docs/kits/filesystem.md", "kits/filesystem.md", root=os.path.realpath(PACKAGE_DOCS))
    with pytest.raises(KitFileError, match="a kit lackpy ships documents itself in lackpy's docs"):
        kit_doc("service.py", Path("/pkg/kits/filesystem.kit"), "package", ws)
    host = tmp_path / "host-kits"
    host.mkdir()
    assert kit_doc("team.md", host / "team.kit", "workspace", ws) == Doc(str(host / "team.md"), "team.md", root=str(host))
