"""Result shapes: what a tool's results look like, as small JSON-able data a model is shown and a check reads.

A shape is a node::

    {"types": ["object", "null"],        # the JSON types seen (or declared), sorted
     "keys": {"sku": {...}, ...},        # an object's keys, each with its own node
     "optional": ["tags"],               # keys some objects lacked
     "open": true,                       # the object may have keys not listed
     "items": {...}}                     # the shape of a list's elements, merged

A node comes from a declared JSON Schema (``from_schema``) or is learned
from values (``learn``, then ``merge`` over results). Learning is bounded,
because the values come from another server, which may be hostile or just
large: at most ``MOST_DEPTH`` levels, a list and its elements each one
(deeper, a node keeps its types only: ``dict``, ``list``),
``MOST_KEYS`` keys per object, ``MOST_NODES`` nodes in all and the first
``MOST_ELEMENTS`` elements of each list. Only keys a model can read as a
plain name are kept (``fair_key``: printable letters, digits and a few
signs, at most ``MOST_KEY_CHARS``); an object with other keys, or more,
becomes ``open``, so a check never calls a key it could not see missing.

``render`` shows a node as Python-like text for a signature
(``{"sku": str, "stock": int, "tags"?: list[str]}``), JSON-quoted keys and
at most ``RENDER_CHARS`` characters: nothing a server sends can put a line
break, a control character or an unbounded text into a prompt.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The JSON type names a node uses.
TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")
MOST_DEPTH = 6
MOST_KEYS = 24
MOST_NODES = 200
MOST_ELEMENTS = 50
MOST_KEY_CHARS = 64
RENDER_CHARS = 600
_FAIR_KEY = re.compile(r"[\w@$#.:/+-](?:[\w@$#.:/+ -]*[\w@$#.:/+-])?\Z")
_PYTHON = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
#: How a step into a value is written in a path: an element of a list (a key is its own name).
ELEMENT = "[]"


def fair_key(key: Any) -> bool:
    """Whether ``key`` may be shown to a model: a string of word characters and ``@$#.:/+-`` (inner spaces too), at most ``MOST_KEY_CHARS``."""
    return isinstance(key, str) and 0 < len(key) <= MOST_KEY_CHARS and key.isprintable() and bool(_FAIR_KEY.match(key))


def type_name(value: Any) -> str | None:
    """The JSON type name of a plain value (None for what is not JSON data)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


# -- learning ---------------------------------------------------------------------------


def learn(value: Any) -> dict:
    """The shape of one value, bounded."""
    return bounded(_learn(value, 0, [MOST_NODES]))


def _learn(value: Any, depth: int, left: list[int]) -> dict:
    left[0] -= 1
    kind = type_name(value)
    if kind is None:
        return {}
    node: dict = {"types": [kind]}
    if depth >= MOST_DEPTH or left[0] <= 0:
        return node
    if kind == "object":
        keys: dict[str, dict] = {}
        for looked, (key, item) in enumerate(value.items()):
            if len(keys) >= MOST_KEYS or left[0] <= 0 or looked >= 8 * MOST_KEYS:  # a million keys are not all looked at
                node["open"] = True
                break
            if not fair_key(key):
                node["open"] = True
                continue
            keys[key] = _learn(item, depth + 1, left)
        node["keys"] = keys
    elif kind == "array" and value:
        items: dict | None = None
        for element in list(value[:MOST_ELEMENTS]):
            learned = _learn(element, depth + 1, [left[0]])
            items = learned if items is None else merge(items, learned)
        left[0] -= count(items or {})
        node["items"] = items or {}
    return node


def merge(a: dict, b: dict) -> dict:
    """The shape of values of shape ``a`` or ``b``: types joined; a key one object lacked is optional; list elements merged.

    Not bounded by itself (``bounded`` is): merging is also how two bounded shapes join.
    """
    if not a:
        return dict(b)
    if not b:
        return dict(a)
    node: dict = {"types": sorted(set(a.get("types", ())) | set(b.get("types", ())), key=TYPES.index)}
    if "keys" in a and "keys" in b:
        keys = dict(a["keys"])
        for key, sub in b["keys"].items():
            keys[key] = merge(keys[key], sub) if key in keys else sub
        node["keys"] = keys
        lacking = set(a["keys"]) ^ set(b["keys"])
        node["optional"] = sorted(set(a.get("optional", ())) | set(b.get("optional", ())) | lacking)
    elif not ("object" in a.get("types", ()) and "object" in b.get("types", ())):
        # Only one side was an object: its keys stand. (Both objects, one cut at the depth: its keys are unknown, so the
        # merged keys are too, and none are kept.)
        one = a if "keys" in a else b if "keys" in b else None
        if one is not None:
            node["keys"], node["optional"] = one["keys"], list(one.get("optional", ()))
    if not node.get("optional"):
        node.pop("optional", None)
    if a.get("open") or b.get("open"):
        node["open"] = True
    if "items" in a or "items" in b:
        node["items"] = merge(a.get("items", {}), b.get("items", {}))
    return node


def count(node: dict) -> int:
    """How many nodes ``node`` holds, itself included."""
    return 1 + sum(count(sub) for sub in node.get("keys", {}).values()) + (count(node["items"]) if "items" in node else 0)


def bounded(node: dict) -> dict:
    """``node`` within ``MOST_DEPTH``, ``MOST_KEYS`` and ``MOST_NODES``; what is cut leaves its object ``open`` (or its list's element unknown)."""
    return _bounded(node, 0, [MOST_NODES])


def _bounded(node: dict, depth: int, left: list[int]) -> dict:
    left[0] -= 1
    out: dict = {"types": [t for t in node.get("types", ()) if t in TYPES]} if node.get("types") else {}
    if depth >= MOST_DEPTH:
        return out
    if "keys" in node:
        keys = {}
        for key, sub in node["keys"].items():
            if len(keys) >= MOST_KEYS or left[0] <= 0:
                out["open"] = True
                break
            keys[key] = _bounded(sub, depth + 1, left)
        out["keys"] = keys
        optional = [key for key in node.get("optional", ()) if key in keys]
        if optional:
            out["optional"] = optional
    if node.get("open"):
        out["open"] = True
    if "items" in node:
        out["items"] = _bounded(node["items"], depth + 1, left) if left[0] > 0 else {}
    return out


def checked(node: Any, depth: int = 0) -> dict | None:
    """``node`` rebuilt from data read back (a file), every part checked; None when it is not a shape."""
    if not isinstance(node, dict) or depth > MOST_DEPTH + 1:
        return None
    types = node.get("types", [])
    if not isinstance(types, list) or not all(t in TYPES for t in types):
        return None
    out: dict = {"types": sorted(set(types), key=TYPES.index)} if types else {}
    if "keys" in node:
        keys = node["keys"]
        if not isinstance(keys, dict) or not all(fair_key(k) for k in keys):
            return None
        subs = {key: checked(sub, depth + 1) for key, sub in keys.items()}
        if any(sub is None for sub in subs.values()):
            return None
        out["keys"] = subs
        optional = node.get("optional", [])
        if not isinstance(optional, list):
            return None
        if [k for k in optional if k in subs]:
            out["optional"] = [k for k in optional if k in subs]
    if node.get("open") is True:
        out["open"] = True
    if "items" in node:
        items = checked(node["items"], depth + 1)
        if items is None:
            return None
        out["items"] = items
    return bounded(out)


# -- declared -------------------------------------------------------------------------


def from_schema(schema: Any, depth: int = 0) -> dict:
    """The shape a JSON Schema declares: its types, an object's ``properties`` (``open`` when it allows others), a list's ``items``.

    An object that says nothing of other keys is taken as closed: its
    ``properties`` are what the server promises to return, so a program that
    reads another key reads what the server never said it sends. A schema
    lackpy cannot follow (``$ref``, deeper than ``MOST_DEPTH``) declares
    nothing it checks.
    """
    if not isinstance(schema, dict) or depth > MOST_DEPTH or "$ref" in schema:
        return {}
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list) and schema[union]:
            joined: dict = {}
            for option in schema[union]:
                sub = from_schema(option, depth)
                if not sub:
                    return {}  # one option unknown: the whole is unknown
                joined = merge(joined, sub)
            return joined
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    if not kinds and isinstance(schema.get("properties"), dict):
        kinds = ["object"]
    node: dict = {"types": sorted({k for k in kinds if k in TYPES}, key=TYPES.index)}
    if not node["types"]:
        return {}
    if "object" in kinds and isinstance(schema.get("properties"), dict):
        properties = schema["properties"]
        node["keys"] = {key: from_schema(sub, depth + 1) for key, sub in properties.items() if fair_key(key)}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        optional = [key for key in node["keys"] if key not in required]
        if optional:
            node["optional"] = optional
        if len(node["keys"]) < len(properties) or schema.get("additionalProperties", False) is not False or "patternProperties" in schema:
            node["open"] = True
    if "array" in kinds and isinstance(schema.get("items"), dict):
        node["items"] = from_schema(schema["items"], depth + 1)
    return bounded(node)


# -- reading ---------------------------------------------------------------------------


def at(node: dict, path: tuple[str, ...]) -> dict:
    """The node at ``path`` (keys, and ``ELEMENT`` for a list's element) below ``node``; ``{}`` where nothing is known."""
    for step in path:
        if step == ELEMENT:
            node = node.get("items", {})
        else:
            node = node.get("keys", {}).get(step, {})
        if not node:
            return {}
    return node


def known_keys(node: dict) -> tuple[str, ...] | None:
    """The keys every value of ``node`` may have, when they are all known (an object node, not ``open``); else None."""
    if "keys" not in node or node.get("open"):
        return None
    return tuple(node["keys"])


# -- showing ------------------------------------------------------------------------------


def render(node: dict, most: int = RENDER_CHARS) -> str:
    """``node`` as a Python-like annotation, at most ``most`` characters (shallower until it fits)."""
    for depth in range(MOST_DEPTH, -1, -1):
        text = _render(node, depth)
        if len(text) <= most:
            return text
    return "Any"


def _render(node: dict, depth: int) -> str:
    types = [t for t in node.get("types", ()) if t in TYPES]
    if not types:
        return "Any"
    if "integer" in types and "number" in types:
        types.remove("integer")  # an int is a number: float says both
    shown = []
    for kind in types:
        if kind == "object":
            shown.append(_object(node, depth))
        elif kind == "array":
            items = node.get("items")
            shown.append(f"list[{_render(items, depth - 1)}]" if items and depth > 0 else "list")
        else:
            shown.append(_PYTHON[kind])
    return " | ".join(shown)


def _object(node: dict, depth: int) -> str:
    if "keys" not in node or depth <= 0:
        return "dict"
    optional = set(node.get("optional", ()))
    fields = [f"{json.dumps(key, ensure_ascii=False)}{'?' if key in optional else ''}: {_render(sub, depth - 1)}" for key, sub in node["keys"].items()]
    if node.get("open"):
        fields.append("...")
    return "{" + ", ".join(fields) + "}"


__all__ = [
    "ELEMENT", "MOST_DEPTH", "MOST_KEYS", "MOST_NODES", "RENDER_CHARS", "at", "bounded", "checked", "count", "fair_key", "from_schema",
    "known_keys", "learn", "merge", "render", "type_name",
]
