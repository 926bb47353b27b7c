"""JSON Schema from Python types, and a fast check of values against it.

One derivation serves every contract of lackpy: a tool's parameters (from its
function's annotations, or from the type strings of a hand-written ToolSpec)
and the result types (from their dataclass fields). ``compile_check`` turns a
schema of the subset this module writes (``type``, ``enum``, ``anyOf``,
``items``, ``prefixItems``, ``properties``, ``required``,
``additionalProperties``) into a predicate that says what was expected.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import math
import reprlib
import types
import typing
from collections import abc
from typing import Any, Callable, Literal, Union

from lackpy.errors import SpecError

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
_ARRAYS = (list, abc.Sequence, abc.Iterable, abc.Collection, set, frozenset, abc.Set)
_OBJECTS = (dict, abc.Mapping, abc.MutableMapping)


def type_schema(annotation: Any, *, strict: bool = True) -> dict:
    """The JSON Schema of a Python annotation.

    ``strict`` refuses annotations with no JSON form (a class of your own)
    with a SpecError; otherwise they accept any value.
    """
    if annotation is Any or annotation is object or annotation is typing.Any:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = type_schema(args[0], strict=strict)
        notes = [a for a in args[1:] if isinstance(a, str)]
        return {**schema, "description": notes[0]} if notes else schema
    if origin is Literal:
        schema: dict = {"enum": list(args)}
        kinds = {_SIMPLE.get(type(a)) for a in args}
        if len(kinds) == 1 and None not in kinds:
            schema = {"type": kinds.pop(), **schema}
        return schema
    if origin is Union or origin is types.UnionType:
        return _union([type_schema(a, strict=strict) for a in args])
    if annotation in _ARRAYS or origin in _ARRAYS:
        schema = {"type": "array"}
        if args:
            schema["items"] = type_schema(args[0], strict=strict)
        if annotation in (set, frozenset, abc.Set) or origin in (set, frozenset, abc.Set):
            schema["uniqueItems"] = True
        return schema
    if annotation is tuple or origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": type_schema(args[0], strict=strict)}
        if args:
            items = [type_schema(a, strict=strict) for a in args]
            return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
        return {"type": "array"}
    if annotation in _OBJECTS or origin in _OBJECTS:
        schema = {"type": "object"}
        if len(args) == 2 and type_schema(args[1], strict=strict):
            schema["additionalProperties"] = type_schema(args[1], strict=strict)
        return schema
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in annotation]
        kinds = {_SIMPLE.get(type(v)) for v in values}
        return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 and None not in kinds else {"enum": values}
    if typing.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation, include_extras=True)
        required = set(annotation.__required_keys__)
        for name, hint in hints.items():  # the markers, which string annotations hide from __required_keys__
            marker = typing.get_origin(hint)
            if marker is typing.NotRequired:
                required.discard(name)
            elif marker is typing.Required:
                required.add(name)
        return {
            "type": "object",
            "properties": {name: type_schema(_unmarked(hint), strict=strict) for name, hint in hints.items()},
            "required": sorted(required),
        }
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return dataclass_schema(annotation)
    if hasattr(annotation, "__json_schema__"):
        return annotation.__json_schema__()
    if strict:
        raise SpecError(
            f"the annotation {annotation_text(annotation)} has no JSON form; use str, int, float, bool, "
            "None, list[...], dict[str, ...], tuple[...], Literal[...], an Enum, a TypedDict or a union of them"
        )
    return {}


def _unmarked(hint: Any) -> Any:
    """A TypedDict field's type without its Required/NotRequired marker."""
    if typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        return typing.get_args(hint)[0]
    return hint


def _union(members: list[dict]) -> dict:
    """``int | None`` is ``{"type": ["integer", "null"]}``; richer unions are ``anyOf``."""
    if any(not m for m in members):
        return {}
    if all(set(m) == {"type"} and isinstance(m["type"], str) for m in members):
        kinds = list(dict.fromkeys(m["type"] for m in members))
        return {"type": kinds[0] if len(kinds) == 1 else kinds}
    return {"anyOf": members}


# -- type strings ---------------------------------------------------------------

_NAMES: dict[str, Any] = {
    "str": str, "int": int, "float": float, "bool": bool, "None": None, "NoneType": None,
    "list": list, "dict": dict, "tuple": tuple, "set": set, "frozenset": frozenset,
    "Any": Any, "object": object, "Literal": Literal, "Optional": typing.Optional, "Union": Union,
    "List": list, "Dict": dict, "Tuple": tuple, "Set": set, "Sequence": abc.Sequence, "Mapping": abc.Mapping,
    "Iterable": abc.Iterable,
}


def text_schema(text: str) -> dict:
    """The schema of a type written as text (``"int | None"``, ``"list[str]"``); unknown types accept anything."""
    try:
        return type_schema(_evaluate(ast.parse(text.strip() or "Any", mode="eval").body), strict=False)
    except (SyntaxError, TypeError, ValueError, KeyError):
        return {}


def _evaluate(node: ast.AST) -> Any:
    """A type expression built from known names only; nothing in the text is executed."""
    if isinstance(node, ast.Name):
        return _NAMES.get(node.id, object)
    if isinstance(node, ast.Attribute):
        return _NAMES.get(node.attr, object)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _evaluate(node.left), _evaluate(node.right)
        return Union[left, right]
    if isinstance(node, ast.Subscript):
        base = _evaluate(node.value)
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        values = tuple(Ellipsis if isinstance(e, ast.Constant) and e.value is Ellipsis else _evaluate(e) for e in inner)
        if base is object:
            return object
        return base[values if len(values) > 1 else values[0]]
    raise ValueError("not a type expression")


def annotation_text(annotation: Any) -> str:
    """How an annotation reads in a signature: ``str``, ``int | None``, ``list[dict]``."""
    if annotation is type(None) or annotation is None:
        return "None"
    if isinstance(annotation, str):
        return annotation
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Union or origin is types.UnionType:
        return " | ".join(annotation_text(a) for a in args)
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin is typing.Annotated:
        return annotation_text(args[0])
    if origin is not None and args:
        name = getattr(origin, "__name__", None) or repr(origin)
        return f"{name}[{', '.join('...' if a is Ellipsis else annotation_text(a) for a in args)}]"
    if isinstance(annotation, type):
        return annotation.__name__
    return repr(annotation).replace("typing.", "").replace("collections.abc.", "")


# -- results ------------------------------------------------------------------


def dataclass_schema(cls: type, title: str | None = None) -> dict:
    """The schema of a result dataclass's ``to_dict()``: every field of it, each required.

    Fields marked ``metadata={"json": False}`` are left out (as ``to_dict`` leaves them).
    """
    hints = typing.get_type_hints(cls)
    properties = {}
    for item in dataclasses.fields(cls):
        if item.metadata.get("json", True) is False:
            continue
        schema = item.metadata.get("schema") or type_schema(hints[item.name], strict=False)
        doc = item.metadata.get("doc")
        properties[item.name] = {**schema, "description": doc} if doc else schema
    schema = {"type": "object", "title": title or cls.__name__, "properties": properties, "required": list(properties)}
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    if doc:
        schema["description"] = " ".join(doc.split())
    return schema


# -- checking -------------------------------------------------------------------

Check = Callable[[Any], "str | None"]
"""A compiled schema: ``None`` when the value fits, else what was expected."""

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlist = _short.maxtuple = _short.maxdict = _short.maxset = 4
_short.maxlevel = 2


def shown(value: Any) -> str:
    """A short repr of a given value, with its type: ``'abc' (str)``."""
    return f"{_short.repr(value)} ({type(value).__name__})"


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (list, tuple, set, frozenset)),
    "object": lambda v: isinstance(v, dict),
}
_TYPE_WORDS = {"string": "a str", "integer": "an int", "number": "a number", "boolean": "a bool", "null": "None", "array": "a list", "object": "a dict"}


def describe(schema: dict) -> str:
    """What a schema expects, in a few words: ``an int or None``, ``one of 'a', 'b'``."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(describe(s) for s in schema["anyOf"])
    kinds = schema.get("type")
    if kinds is None:
        return "any value"
    words = [_TYPE_WORDS.get(k, k) for k in ([kinds] if isinstance(kinds, str) else kinds)]
    if schema.get("items") and "array" in ([kinds] if isinstance(kinds, str) else kinds):
        words = [f"a list of {describe(schema['items'])}" if w == "a list" else w for w in words]
    if schema.get("properties"):
        required = set(schema.get("required", ()))
        keys = ", ".join(f"{k!r}" + ("" if k in required else " (optional)") for k in schema["properties"])
        words = [f"a dict with keys {keys}" if w == "a dict" else w for w in words]
    return " or ".join(words)


def compile_check(schema: dict) -> Check:
    """A predicate for ``schema``: returns None for a fitting value, else a description of what fits."""
    if not schema:
        return lambda value: None
    parts: list[Callable[[Any], bool]] = []
    kinds = schema.get("type")
    if kinds is not None:
        tests = [_TYPE_TESTS[k] for k in ([kinds] if isinstance(kinds, str) else kinds) if k in _TYPE_TESTS]
        if len(tests) == 1:
            parts.append(tests[0])
        elif tests:
            parts.append(lambda v, tests=tests: any(t(v) for t in tests))
    if "enum" in schema:
        allowed = list(schema["enum"])
        parts.append(lambda v: any((v == a and type(v) is type(a)) or (isinstance(v, enum.Enum) and v.value == a) for a in allowed))
    if "anyOf" in schema:
        options = [compile_check(s) for s in schema["anyOf"]]
        parts.append(lambda v: any(o(v) is None for o in options))
    if "items" in schema and schema["items"]:
        item = compile_check(schema["items"])
        parts.append(lambda v: not isinstance(v, (list, tuple, set, frozenset)) or all(item(x) is None for x in v))
    if "prefixItems" in schema:
        fixed = [compile_check(s) for s in schema["prefixItems"]]
        parts.append(lambda v: not isinstance(v, (list, tuple)) or (len(v) == len(fixed) and all(c(x) is None for c, x in zip(fixed, v))))
    if "properties" in schema or "required" in schema or isinstance(schema.get("additionalProperties"), (dict, bool)):
        parts.append(_object_test(schema))
    expected = describe(schema)

    def test(value: Any) -> str | None:
        if isinstance(value, enum.Enum):  # a member stands for its value
            value = value.value
        return None if all(p(value) for p in parts) else expected

    return test


def _object_test(schema: dict) -> Callable[[Any], bool]:
    fields = {name: compile_check(s) for name, s in schema.get("properties", {}).items()}
    required = list(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    extra_check = compile_check(extra) if isinstance(extra, dict) else None

    def test(value: Any) -> bool:
        if not isinstance(value, dict):
            return True  # the type test says so
        if any(name not in value for name in required):
            return False
        for key, item in value.items():
            check = fields.get(key)
            if check is not None:
                if check(item) is not None:
                    return False
            elif extra is False or (extra_check is not None and extra_check(item) is not None):
                return False
        return True

    return test




# -- serializing results ----------------------------------------------------------

_deep = reprlib.Repr()
_deep.maxlevel = 3
_deep.maxstring = _deep.maxother = 200

#: Results nested deeper than this are cut to a summary when serialized.
MAX_JSON_DEPTH = 100


def to_jsonable(value: Any, depth: int = 0) -> Any:
    """Plain JSON data for any value: tuples and sets become lists, others their repr.

    Never recurses without bound: past ``MAX_JSON_DEPTH`` levels a value is
    replaced by a short summary.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:  # the common case, before any isinstance
        return value
    if depth > MAX_JSON_DEPTH:
        return _deep.repr(value)
    if isinstance(value, (bool, int, str)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_dict(value, depth + 1)
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return value.to_dict()
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): to_jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v, depth + 1) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value, depth + 1)
    return _deep.repr(value)


def as_dict(result: Any, depth: int = 0) -> dict:
    """A result dataclass as JSON data: every field not marked ``json: False``, in order."""
    names = _JSON_FIELDS.get(type(result))
    if names is None:
        names = _JSON_FIELDS[type(result)] = tuple(
            item.name for item in dataclasses.fields(result) if item.metadata.get("json", True) is not False
        )
    return {name: to_jsonable(getattr(result, name), depth) for name in names}


#: The JSON fields of each dataclass ``as_dict`` has seen (a class's fields never change).
_JSON_FIELDS: dict[type, tuple[str, ...]] = {}


class Contract:
    """A result type: ``to_dict()`` and ``json_schema()`` come from the same dataclass fields."""

    def to_dict(self) -> dict:
        return as_dict(self)

    @classmethod
    def json_schema(cls) -> dict:
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", **dataclass_schema(cls)}


__all__ = [
    "Contract",
    "annotation_text",
    "as_dict",
    "compile_check",
    "dataclass_schema",
    "describe",
    "shown",
    "text_schema",
    "to_jsonable",
    "type_schema",
]
