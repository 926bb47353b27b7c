"""The forms of questions an MCP server asks the person (elicitation): their fields, and whether an answer fills them.

MCP restricts an elicitation's ``requestedSchema`` to a flat object of
primitive fields: strings (with an ``enum`` of choices, or a ``format``),
numbers, integers and booleans, some ``required``. Every channel that asks
a person (the terminal, a Python callback, an MCP client) shows the fields
the same way, and every answer is checked here before the server sees it:
a form that is not filled in as asked is never sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

#: The most fields a form may have, and the most characters of one answer.
MOST_FIELDS = 32
MOST_CHARS = 10_000
_TYPES = {"string": str, "number": (int, float), "integer": int, "boolean": bool}
_TAKES = {"string": "a string", "number": "a number", "integer": "a whole number", "boolean": "true or false"}


@dataclass(frozen=True)
class Field:
    """One field of a form: its name, type, whether it is required, its choices, default and description."""

    name: str
    type: str
    required: bool
    choices: tuple[Any, ...] = ()
    default: Any = None
    description: str = ""

    @property
    def given(self) -> Any:
        """What the field takes when the person leaves it out: its default when that fits its type and choices, else None."""
        value = self.default
        if value is None or not _is(value, self.type) or (self.choices and value not in self.choices):
            return None
        return value

    def line(self) -> str:
        """The field as a person reads it: ``name (integer, required): description``, with the default a field left out takes."""
        kind = f"one of {', '.join(map(str, self.choices))}" if self.choices else self.type
        default = f", default {self.given}" if self.given is not None else ""
        extra = ", required" + default if self.required else (default or ", optional")
        return f"{self.name} ({kind}{extra})" + (f": {self.description}" if self.description else "")


def fields(form: Mapping[str, Any]) -> list[Field]:
    """The fields of ``form`` (a requested schema); ValueError when it is not a flat object of primitive fields."""
    properties = form.get("properties") if isinstance(form, Mapping) else None
    if not isinstance(properties, Mapping) or len(properties) > MOST_FIELDS:
        raise ValueError(f"the form is not an object of at most {MOST_FIELDS} fields")
    required = form.get("required") or []
    found = []
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if not isinstance(name, str) or kind not in _TYPES:
            raise ValueError(f"the form's field {str(name)[:40]!r} is not a string, number, integer or boolean")
        choices = _choices(spec)
        description = spec.get("description") or spec.get("title") or ""
        found.append(Field(name, kind, name in required, tuple(choices), spec.get("default"), " ".join(str(description).split())[:300]))
    return found


def problem(form: Mapping[str, Any], content: Any) -> str | None:
    """Why ``content`` does not fill in ``form`` as asked (a required field missing, a wrong type, a value not among the choices), else None."""
    try:
        wanted = {field.name: field for field in fields(form)}
    except ValueError as exc:
        return str(exc)
    if not isinstance(content, Mapping):
        return "the answer is not a set of fields"
    for name, value in content.items():
        field = wanted.get(name)
        if field is None:
            return f"the form has no field {str(name)[:40]!r}"
        if not _is(value, field.type) or (isinstance(value, str) and len(value) > MOST_CHARS):
            return f"the field {name!r} takes {_TAKES[field.type]}"
        if field.choices and value not in field.choices:
            return f"the field {name!r} takes one of {', '.join(map(str, field.choices))}"
    missing = [name for name, field in wanted.items() if field.required and name not in content]
    return f"the required field {missing[0]!r} was not filled in" if missing else None


def filled(form: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with each field the person left out that has a default of its own type (and among its choices) set to it.

    What a form shows as a field's default is what the person accepted by
    leaving it alone, so the server gets it (MCP elicitation, SEP-1034); a
    default that does not fit its field is left out, as the person did.
    """
    answer = dict(content)
    try:
        found = fields(form)
    except ValueError:
        return answer
    for field in found:
        if field.name not in answer and field.given is not None:
            answer[field.name] = field.given
    return answer


def parse(field: Field, text: str) -> Any:
    """A typed answer to ``field`` from what a person typed; ValueError saying what it takes."""
    text = text.strip()
    if field.type == "boolean":
        if text.lower() in ("y", "yes", "true"):
            return True
        if text.lower() in ("n", "no", "false"):
            return False
        raise ValueError("answer y or n")
    if field.type in ("integer", "number"):
        try:
            value = int(text) if field.type == "integer" else float(text)
        except ValueError:
            raise ValueError("answer a whole number" if field.type == "integer" else "answer a number") from None
        if field.choices and value not in field.choices:
            raise ValueError(f"answer one of {', '.join(map(str, field.choices))}")
        return value
    if field.choices and text not in field.choices:
        raise ValueError(f"answer one of {', '.join(map(str, field.choices))}")
    return text


def _choices(spec: Mapping[str, Any]) -> tuple[Any, ...]:
    """A field's choices: its ``enum``, or the ``const`` of each ``oneOf`` (titled choices)."""
    if isinstance(spec.get("enum"), list):
        return tuple(spec["enum"])
    if isinstance(spec.get("oneOf"), list):
        return tuple(choice.get("const") for choice in spec["oneOf"] if isinstance(choice, Mapping))
    return ()


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    return isinstance(value, _TYPES[kind])


__all__ = ["Field", "fields", "filled", "parse", "problem"]
