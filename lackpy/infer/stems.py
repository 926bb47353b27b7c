"""A file named by its stem or its name alone: "the last function in mod100", "mod42's docstring", "the longest function in routes.py".

People name a module the way they import it, without its folder or its
extension. The parser cannot know which words are files; the workspace
can. When a question is not understood as said (or names a directory the
workspace does not have), each word that stands where a file would ("in X",
"of X", "from X", "X's") and is the stem of exactly one file of the
workspace is tried as that file's path, and the question is taken in that
form only if it is then understood. Two files of that stem are a question of
which one, answered by the person, never guessed. A file named with its
extension but no folder ("routes.py") that is not at the top of the
workspace is, in the same way, the one file of that name beneath it.

The walk skips hidden directories, follows no links and stops after
``MAX_DIRS_SEEN`` directories.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: How many directories the walk looks in before it stops.
MAX_DIRS_SEEN = 20_000
#: A word that stands where a file would: after in, of or from (with an optional "the"), or before a possessive.
_PLACED = re.compile(r"\b(?:in|of|from|inside) (?:the )?([A-Za-z_][\w-]*)(?![\w/.'\"`-])|\b([A-Za-z_][\w-]*)'s\b")


#: Words before "'s" or after "in" that are the sentence's own ("what's", "in the"), never a file's name.
_NOT_NAMES = frozenset("what that it there here who where how let he she this the a an all any each every".split())


def stems(question: str) -> list[str]:
    """The words of ``question`` that stand where a file would, in order, each once."""
    found = [a or b for a, b in _PLACED.findall(question)]
    return list(dict.fromkeys(word for word in found if word.lower() not in _NOT_NAMES))


def files_of_stem(root: Path, stem: str) -> list[str]:
    """The workspace paths (relative, sorted) of the files whose name is ``stem`` plus an extension; [] when ``stem`` is a directory's name."""
    return _found(root, lambda name: "." in name and name.split(".", 1)[0] == stem, stem)


def files_named(root: Path, name: str) -> list[str]:
    """The workspace paths (relative, sorted) of the files named exactly ``name`` ("routes.py" for shop/api/routes.py)."""
    return _found(root, lambda found: found == name, None)


def _found(root: Path, matches, directory: str | None) -> list[str]:
    """The files whose name ``matches``, walking hidden folders never; [] when a folder is named ``directory``."""
    found: list[str] = []
    for seen, (here, dirs, files) in enumerate(os.walk(root, followlinks=False)):
        if seen >= MAX_DIRS_SEEN:
            break
        if directory is not None and directory in dirs:
            return []  # a directory of that name: the question means it, as said
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.relpath(os.path.join(here, name), root).replace(os.sep, "/")
                  for name in files if matches(name) and not name.startswith(".")]
    return sorted(found)


#: "the config files", "any config file": a word before "file(s)" that may be the name of a folder at the top.
_FOLDER_FILES = re.compile(r"\b([a-z][\w-]*) (files?)\b")
#: "any of the scripts": a folder at the top said as a noun.
_THE_FOLDER = re.compile(r"\bthe ([a-z][\w-]*)\b")


def with_paths(question: str, root: Path) -> tuple[str, dict[str, list[str]]]:
    """``question`` with each stem of exactly one file put as its path, and "X files" as the files in the folder X at the top
    when there is one; and the stems several files share, with those files."""
    for word in _THE_FOLDER.findall(question):  # "any of the scripts": the files of the scripts folder, when there is one
        if word not in _NOT_NAMES and (Path(root) / word).is_dir():
            question = re.sub(rf"\bthe {re.escape(word)}\b(?! (?:folder|directory|dir)\b)", f"the files in {word}/", question)
    for word, noun in _FOLDER_FILES.findall(question):
        if word not in _NOT_NAMES and (Path(root) / word).is_dir():
            question = re.sub(rf"\b{re.escape(word)} {noun}\b", f"{noun} in {word}", question)
    several: dict[str, list[str]] = {}
    for stem in stems(question):
        paths = files_of_stem(root, stem)
        if len(paths) == 1:
            question = re.sub(rf"\b{re.escape(stem)}(?='s\b|\b)(?![\w.-])", paths[0], question)
        elif len(paths) > 1:
            several[stem] = paths
    return question, several


__all__ = ["MAX_DIRS_SEEN", "files_named", "files_of_stem", "stems", "with_paths"]
