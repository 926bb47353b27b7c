"""Result shapes (lackpy.kit.shape), the key flow that reads them (lackpy.kit.keyflow) and the check before a run (lackpy.kit.resultkeys)."""

from __future__ import annotations

import ast

from lackpy.kit.keyflow import misses
from lackpy.kit.shape import MOST_DEPTH, MOST_KEYS, RENDER_CHARS, bounded, checked, count, from_schema, learn, merge, render

ITEM = {"sku": "A-1", "stock": 3, "price": 2.5, "tags": ["x"], "supplier": {"name": "Lumo"}}


def test_a_value_s_shape_keeps_keys_types_and_list_elements():
    shape = learn({"items": [ITEM, {**ITEM, "stock": 0}], "count": 2})
    assert render(shape) == '{"items": list[{"sku": str, "stock": int, "price": float, "tags": list[str], "supplier": {"name": str}}], "count": int}'


def test_merging_makes_a_key_some_results_lack_optional_and_joins_types():
    one = learn({"sku": "A-1", "stock": 3})
    other = learn({"sku": "B-2", "stock": None, "error": "gone"})
    merged = merge(one, other)
    assert merged["optional"] == ["error"]
    assert render(merged) == '{"sku": str, "stock": int | None, "error"?: str}'
    assert render(merge(learn([1, 2]), learn([1.5]))) == "list[float]"  # an int is a number


def test_list_elements_are_merged_into_one_shape():
    shape = learn([{"a": 1}, {"a": 2, "b": "x"}, {"b": "y"}])
    assert render(shape) == 'list[{"a"?: int, "b"?: str}]'


def test_a_hostile_value_is_bounded_and_its_odd_keys_are_dropped():
    deep: dict = {"leaf": 1}
    for _ in range(50):
        deep = {"down": deep}
    assert render(learn(deep)).count("{") == MOST_DEPTH
    wide = learn({f"k{n}": n for n in range(1000)})
    assert len(wide["keys"]) == MOST_KEYS and wide["open"]
    odd = learn({"ok": 1, "line\nbreak": 2, "bidi\u202e": 3, 'quote"d': 4, "x" * 200: 5, "fine key": 6, "{}": 7})
    assert list(odd["keys"]) == ["ok", "fine key"] and odd["open"]
    text = render(odd)
    assert text == '{"ok": int, "fine key": int, ...}'
    huge = learn([{f"key{n}": {"inner": [1]} for n in range(24)}])
    assert len(render(huge)) <= RENDER_CHARS and count(bounded(huge)) <= 200


def test_a_declared_schema_is_closed_unless_it_says_otherwise():
    schema = {"type": "object", "properties": {"sku": {"type": "string"}, "stock": {"type": "integer"}}, "required": ["sku"]}
    declared = from_schema(schema)
    assert render(declared) == '{"sku": str, "stock"?: int}' and not declared.get("open")
    assert from_schema({**schema, "additionalProperties": True})["open"]
    assert from_schema({"$ref": "#/defs/x"}) == {}


def test_a_shape_read_back_is_checked_part_by_part():
    good = learn({"a": [1], "b": {"c": "x"}})
    assert checked(good) == good
    assert checked({"types": ["object"], "keys": {"bad\nkey": {}}}) is None
    assert checked({"types": ["weird"]}) is None
    assert checked("not a shape") is None


def _misses(program: str, shapes: dict) -> list[tuple[str, str, tuple]]:
    return [(m.where, m.key, m.known) for m in misses(ast.parse(program), shapes)]


def test_keys_are_followed_through_names_loops_comprehensions_and_sorting():
    shapes = {"inventory": learn({"items": [ITEM], "count": 1})}
    program = (
        "result = inventory()\n"
        "for item in result['items']:\n"
        "    print(item['qty'])\n"
        "names = [i.get('title') for i in sorted(result['items'], key=lambda i: i['rank'])]\n"
        "first = result['items'][0]['supplier']['city']\n"
        "ok = [i['sku'] for i in result['items']] + [result['count'], result.get('total')]\n"
    )
    found = _misses(program, shapes)
    keys = ("sku", "stock", "price", "tags", "supplier")
    assert found == [
        ('inventory(...)["items"][i]', "qty", keys),
        ('inventory(...)["items"][i]', "title", keys),
        ('inventory(...)["items"][i]', "rank", keys),
        ('inventory(...)["items"][i]["supplier"]', "city", ("name",)),
        ("inventory(...)", "total", ("items", "count")),
    ]


def test_an_open_or_unknown_shape_blames_no_key():
    assert _misses("inventory()['anything']", {"inventory": {"types": ["object"], "keys": {"a": {}}, "open": True}}) == []
    assert _misses("inventory()['anything']", {"inventory": {"types": ["object"]}}) == []
    assert _misses("other()['anything']", {"inventory": learn({"a": 1})}) == []
