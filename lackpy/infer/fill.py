"""Placeholders: ``{name}`` in intent patterns and program bodies, filled without code injection.

A template pairs a pattern (``count {word} in python files``) with a program
body that uses the same placeholders. The values come from a user's words, so
they are data and must never become program text: ``render`` works on Python
tokens and turns every value into exactly one string literal (its ``repr``),
whether the placeholder stood alone (``read_file({path})``) or inside a string
(``"**/*.{ext}"``). ``generalize`` is the inverse the ratchet uses to turn a
program that worked into a body.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import lru_cache
from typing import Mapping

from lackpy.errors import TemplateError
from lackpy.infer.understand.words import normalize_intent

#: ``{...}`` in a pattern; what is inside must be an identifier.
_BRACED = re.compile(r"\{([^{}]*)\}")
#: ``{name}`` inside a string value of a body.
_PLACEHOLDER = re.compile(r"\{([^\W\d]\w*)\}")
#: ``{name}``, ``{name!r}``, ``{name:>8}`` in the code of an f-string.
_FIELD = re.compile(r"\{\s*([^\W\d]\w*)\s*[}!:=]")
_PREFIX = re.compile(r"[A-Za-z]*")
_WHITESPACE = re.compile(r"\s+")

# Python 3.12 splits f-strings into several tokens; 3.11 has one STRING token.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
# Tokens that may sit between the parts of an implicit string concatenation.
_FILLER = frozenset({tokenize.NL, tokenize.COMMENT})


def placeholders(pattern: str) -> list[str]:
    """The names of the ``{name}`` placeholders in ``pattern``, in order.

    Raises TemplateError for a name that is not an identifier, a name used twice
    (a regex group cannot capture twice), or a stray brace.
    """
    names: list[str] = []
    for match in _BRACED.finditer(pattern):
        name = match[1]
        if not name.isidentifier():
            raise TemplateError(
                f"placeholder {{{name}}} in pattern {pattern!r} is not a name; "
                "use letters, digits and '_', e.g. {word}"
            )
        if name in names:
            raise TemplateError(f"placeholder {{{name}}} appears twice in pattern {pattern!r}; give each its own name")
        names.append(name)
    rest = _BRACED.sub("", pattern)
    if "{" in rest or "}" in rest:
        raise TemplateError(f"pattern {pattern!r} has an unmatched brace; write placeholders as {{name}}")
    return names


@lru_cache(maxsize=512)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """The regex that ``fullmatch``-es intents against ``pattern`` (see ``normalize_intent``).

    Literal text matches itself case-insensitively, any run of whitespace
    matches any other, and each placeholder captures one or more characters,
    as few as the rest of the pattern allows.
    """
    placeholders(pattern)  # validates
    parts = _BRACED.split(normalize_intent(pattern))
    regex = []
    for index, part in enumerate(parts):
        if index % 2:
            regex.append(f"(?P<{part}>.+?)")
        else:
            regex.append(r"\s+".join(re.escape(word) for word in _WHITESPACE.split(part)))
    return re.compile("".join(regex), re.IGNORECASE | re.DOTALL)


def captured(pattern: str, intent: str) -> dict[str, str] | None:
    """The values ``intent`` gives ``pattern``'s placeholders when it matches the pattern whole, else None (TemplateError for a bad pattern)."""
    found = pattern_regex(pattern).fullmatch(normalize_intent(intent))
    return found.groupdict() if found else None


def render(body: str, values: Mapping[str, str | int]) -> str:
    """``body`` with each placeholder named in ``values`` replaced by its value, as data.

    Outside strings, the tokens ``{`` NAME ``}`` become ``repr(value)`` (a
    string or an int literal); inside a plain string literal, ``{name}`` is
    replaced by ``str(value)`` in the literal's value and
    the literal is written again with ``repr``. Other braces are left alone.
    Raises TemplateError when ``body`` is not valid Python or puts a placeholder
    inside an f-string or a bytes literal.
    """
    for name, value in values.items():
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise TypeError(f"placeholder values must be str or int; {name!r} is {type(value).__name__}")
    out = []
    for piece in _plan(body, frozenset(values)):
        if isinstance(piece, str):
            out.append(piece)
        elif piece[0] == "bare":
            out.append(repr(values[piece[1]]))
        else:
            out.append(repr(_fill(piece[1], values)))
    return "".join(out)


def generalize(program: str, values: Mapping[str, str]) -> str:
    """The body that ``render``s back to ``program`` with ``values``: the inverse of render.

    Inside plain string literals, each occurrence of a value (longest first)
    becomes ``{name}``; a literal that is exactly a value becomes the bare
    placeholder. When two names share a value, the first name wins. Empty
    values and f-strings are left alone. Raises TemplateError when the program
    already contains ``{name}`` text for one of the names, since ``render``
    would then replace it too.
    """
    for name in values:
        if not isinstance(name, str) or not name.isidentifier():
            raise TemplateError(f"placeholder name {name!r} is not an identifier; use letters, digits and '_'")
    by_value: dict[str, str] = {}
    for name, value in values.items():
        if value:
            by_value.setdefault(value, name)
    scanned = _scan(program)
    _refuse_existing(scanned, values)
    if not by_value:
        return program
    occurrences = re.compile("|".join(re.escape(v) for v in sorted(by_value, key=len, reverse=True)))
    out, position = [], 0
    for start, end, kind, payload in scanned:
        if kind != "str":
            continue
        value, joined = payload
        if value in by_value and not joined:
            text = "{" + by_value[value] + "}"
        else:
            generalized = occurrences.sub(lambda m: "{" + by_value[m[0]] + "}", value)
            if generalized == value:
                continue
            text = repr(generalized)
        out += [program[position:start], text]
        position = end
    out.append(program[position:])
    return "".join(out)


def body_placeholders(body: str) -> list[str]:
    """Every name that looks like a placeholder in ``body``, in order of first use.

    That is ``{name}`` inside a plain string literal, and ``{`` NAME ``}`` in
    code (which ``render`` would replace, so a one-variable set literal counts).
    """
    found: dict[str, None] = {}
    for _start, _end, kind, payload in _scan(body):
        if kind == "braced":
            found[payload] = None
        elif kind == "str":
            found.update(dict.fromkeys(_PLACEHOLDER.findall(payload[0])))
    return list(found)


# -- the token walk ----------------------------------------------------------


@lru_cache(maxsize=256)
def _scan(source: str) -> tuple[tuple[int, int, str, object], ...]:
    """The parts of ``source`` placeholders care about, as (start, end, kind, payload).

    Offsets index ``source``. Kinds: ``str`` (payload: the literal's value and
    whether it is implicitly concatenated with another literal), ``bytes``
    (the value), ``fstring`` (its source text) and ``braced`` (the NAME of a
    ``{`` NAME ``}`` token sequence).
    """
    try:
        ast.parse(source)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except SyntaxError as exc:
        raise TemplateError(f"the program is not valid Python (line {exc.lineno}: {exc.msg}); fix it first") from None
    except (ValueError, tokenize.TokenError) as exc:  # null bytes; what the tokenizer alone refuses
        raise TemplateError(f"the program is not valid Python ({exc}); fix it first") from None
    starts = [0]
    for line in io.StringIO(source):
        starts.append(starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return starts[position[0] - 1] + position[1]

    parts: list[tuple[int, int, str, object]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == _FSTRING_START:
            end, depth = index, 0
            while True:  # to the matching FSTRING_END, across nested f-strings
                depth += {_FSTRING_START: 1, _FSTRING_END: -1}.get(tokens[end].type, 0)
                if depth == 0:
                    break
                end += 1
            span = (offset(token.start), offset(tokens[end].end))
            parts.append((*span, "fstring", source[span[0]:span[1]]))
            index = end + 1
            continue
        if token.type == tokenize.STRING:
            span = (offset(token.start), offset(token.end))
            prefix = _PREFIX.match(token.string)[0].lower()
            if "f" in prefix:
                parts.append((*span, "fstring", token.string))
            elif "b" in prefix:
                parts.append((*span, "bytes", ast.literal_eval(token.string)))
            else:
                joined = _is_string(tokens, index, -1) or _is_string(tokens, index, 1)
                parts.append((*span, "str", (ast.literal_eval(token.string), joined)))
        elif (
            token.exact_type == tokenize.LBRACE
            and index + 2 < len(tokens)
            and tokens[index + 1].type == tokenize.NAME
            and tokens[index + 2].exact_type == tokenize.RBRACE
        ):
            parts.append((offset(token.start), offset(tokens[index + 2].end), "braced", tokens[index + 1].string))
            index += 2
        index += 1
    return tuple(parts)


def _is_string(tokens: list[tokenize.TokenInfo], index: int, step: int) -> bool:
    """Whether the nearest real token before (step -1) or after (+1) ``index`` is a string."""
    index += step
    while 0 <= index < len(tokens) and tokens[index].type in _FILLER:
        index += step
    return 0 <= index < len(tokens) and tokens[index].type in (tokenize.STRING, _FSTRING_START, _FSTRING_END)


@lru_cache(maxsize=256)
def _plan(body: str, names: frozenset[str]) -> tuple[str | tuple[str, str], ...]:
    """``body`` cut into source text and the spots ``render`` fills: ("bare", name) or ("string", value)."""
    pieces: list[str | tuple[str, str]] = []
    position = 0
    for start, end, kind, payload in _scan(body):
        if kind == "braced" and payload in names:
            piece: tuple[str, str] = ("bare", payload)
        elif kind == "str" and _mentions(payload[0], names):
            piece = ("string", payload[0])
        elif kind == "fstring" and (name := _field(payload, names)):
            raise TemplateError(
                f"placeholder {{{name}}} is inside the f-string {payload[:60]!r}; "
                "placeholders go in plain strings or stand alone, e.g. \"...\" + {name}"
            )
        elif kind == "bytes" and _mentions(payload.decode("latin-1"), names):
            raise TemplateError(f"a placeholder is inside the bytes literal {payload[:60]!r}; use a str literal")
        else:
            continue
        pieces += [body[position:start], piece]
        position = end
    pieces.append(body[position:])
    return tuple(pieces)


def _mentions(text: str, names: frozenset[str]) -> bool:
    return any(match[1] in names for match in _PLACEHOLDER.finditer(text))


def _field(fstring: str, names: frozenset[str]) -> str:
    """The first placeholder name an f-string uses as a replacement field, or ""."""
    for match in _FIELD.finditer(fstring):
        if match[1] in names:
            return match[1]
    return ""


def _fill(text: str, values: Mapping[str, str | int]) -> str:
    """Replace ``{name}`` in one pass, so a value that contains ``{other}`` stays as it is."""
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def _refuse_existing(scanned: tuple[tuple[int, int, str, object], ...], values: Mapping[str, str]) -> None:
    for _start, _end, kind, payload in scanned:
        if kind == "braced" and payload in values:
            raise TemplateError(f"the program already has {{{payload}}} in its code; rename the placeholder {payload!r}")
        if kind == "str":
            clash = next((m[1] for m in _PLACEHOLDER.finditer(payload[0]) if m[1] in values), None)
            if clash:
                raise TemplateError(f"the program already has the text {{{clash}}} in a string; rename the placeholder {clash!r}")


__all__ = ["body_placeholders", "captured", "generalize", "pattern_regex", "placeholders", "render"]
