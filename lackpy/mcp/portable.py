"""Tool schemas in the form every host reads: no ``type`` arrays, no schema that constrains nothing, no bare booleans.

A host maps a tool's ``inputSchema`` and ``outputSchema`` onto what its
model provider takes; some take a single-``type`` dialect (the OpenAPI
subset of Gemini's function declarations), where ``"type": ["string",
"null"]`` is rejected or its constraint dropped, and ``{}`` (any value)
says nothing a form or a provider can use. So each schema lackpy serves is
rewritten, keeping what it accepts:

- ``"type": [A, B]`` becomes ``"anyOf": [{"type": A, ...}, {"type": B, ...}]``,
  each branch holding the keywords that apply to its type (``items`` to
  ``array``, ``properties`` to ``object``, ...);
- a schema with no keyword that constrains a value (``{}``, or a
  ``description`` alone) becomes ``"anyOf"`` of the six JSON types, which
  accepts every JSON value as it did;
- a bare ``true`` where a schema is expected becomes that ``anyOf``, a bare
  ``false`` ``{"not": {}}`` (``additionalProperties: false`` and the other
  boolean-valued keywords stay as they are).
"""

from __future__ import annotations

from typing import Any

#: Every JSON value: one branch per JSON type (``number`` holds the integers).
ANY_VALUE = {"anyOf": [{"type": kind} for kind in ("string", "number", "boolean", "object", "array", "null")]}

#: Keywords whose value is one schema, a list of schemas, or a map of names to schemas.
ONE = ("items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties", "unevaluatedProperties",
       "additionalItems", "unevaluatedItems", "contentSchema")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions")
#: Keywords that take ``true`` or ``false`` as well as a schema.
BOOLEAN_VALUED = frozenset({"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"})

#: Keywords that constrain a value; a schema with none of them (and no ``if`` with ``then`` or ``else``) accepts any value.
CONSTRAINING = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
    "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems",
    "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
    "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "$recursiveRef",
})

#: The keywords that apply to values of one type only: they go to that type's branch.
FOR_TYPE = {
    "array": ("items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
              "additionalItems", "unevaluatedItems"),
    "object": ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "required",
               "dependentRequired", "dependentSchemas", "dependencies", "propertyNames", "minProperties", "maxProperties"),
    "string": ("minLength", "maxLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema"),
    "number": ("multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
}
FOR_TYPE["integer"] = FOR_TYPE["number"]


def portable(schema: Any, keyword: str | None = None) -> Any:
    """``schema`` (met under ``keyword``) rewritten so no type array, unconstrained schema or bare boolean is left in it."""
    if isinstance(schema, bool):
        if keyword is None or keyword in BOOLEAN_VALUED:
            return schema
        return dict(ANY_VALUE) if schema else {"not": {}}
    if not isinstance(schema, dict):
        return schema
    node = _children(schema)
    if isinstance(node.get("type"), list) and node["type"]:
        node = _split(node)
    if not constrains(node) and keyword != "not":
        node = {**node, **ANY_VALUE}
    return node


def constrains(node: dict) -> bool:
    """Whether a schema object constrains the values it accepts."""
    return any(key in CONSTRAINING for key in node) or ("if" in node and ("then" in node or "else" in node))


def _children(node: dict) -> dict:
    """``node`` with each of its subschemas made portable."""
    out = dict(node)
    for key in ONE:
        if key in out:
            value = out[key]
            out[key] = [portable(item, key) for item in value] if key == "items" and isinstance(value, list) else portable(value, key)
    for key in MANY:
        if isinstance(out.get(key), list):
            out[key] = [portable(item, key) for item in out[key]]
    for key in NAMED:
        if isinstance(out.get(key), dict):
            out[key] = {name: portable(item, key) for name, item in out[key].items()}
    return out


def _split(node: dict) -> dict:
    """A schema whose ``type`` is a list as an ``anyOf`` of one branch per type, each with the keywords of its type."""
    kinds = list(dict.fromkeys(node["type"]))
    moved = {key for kind in kinds for key in FOR_TYPE.get(kind, ())}
    rest = {key: value for key, value in node.items() if key != "type" and key not in moved}
    branches = [{"type": kind, **{key: node[key] for key in FOR_TYPE.get(kind, ()) if key in node}} for kind in kinds]
    if len(branches) == 1:
        return {**rest, **branches[0]}
    if "anyOf" in rest:  # the node's own anyOf holds too: both must
        return {**rest, "allOf": [*rest.get("allOf", []), {"anyOf": branches}]}
    return {**rest, "anyOf": branches}


__all__ = ["ANY_VALUE", "CONSTRAINING", "constrains", "portable"]
