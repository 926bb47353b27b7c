"""Learned result shapes: first-run success of programs written from the tools' descriptions, with learned shapes and without.

usage: python bench/shapes.py [--json]

The server is ``tests/remote/servers.py inventory`` over stdio: a shop's
items and orders, whose tools answer with structured content and declare no
output schema (as most MCP servers do). Each task is an everyday question
over those tools; its answer is computed by plain Python from the server's
own data (``ITEMS``, ``ORDERS``), and a run succeeds when its output equals it.

Two writers, each given only what lackpy describes (the prompt of a model
tier, ``lackpy.infer.prompt.system_prompt``, the same signatures
``run_program``'s description and ``lackpy tools`` show):

- the offline tier: ``LackpyService.generate`` with no model configured
  (the templates and rules tiers);
- a scripted model: a deterministic function that reads the signatures in
  that prompt and writes each task's program. Where a signature shows the
  result's shape, it uses the key the shape has for what it wants (the first
  of its words for that thing the shape lists); where the signature says
  ``Any``, it guesses as a model does: the first of those words (``name``,
  ``quantity``, ``items``...), a list's key after the tool's noun
  (``list_orders`` -> ``orders``), an item's id after the argument that
  names one (``get_item(sku)`` -> ``sku``). It never sees a result.

Without: a fresh cache, so every signature of the inventory says ``-> Any``.
Those runs' own tool calls are what lackpy learns from. With: a new service
(as the next ``lackpy run`` is a new process) that reads the shapes learned,
and the same writers write again from the new descriptions. Each program
runs once: first-run success.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.remote.servers import ITEMS, ORDERS  # noqa: E402  the server's data: the answers come from it

KIT = "inventory__find_items,inventory__get_item,inventory__list_orders,inventory__customer"

#: What a program wants from a result, as words a model would use for it, most usual first (the guess when no shape is shown).
WORDS = {
    "name": ["name", "title"],
    "stock": ["quantity", "stock", "qty", "in_stock", "count"],
    "price": ["price", "cost", "unit_price"],
    "tags": ["tags", "labels"],
    "supplier": ["supplier", "vendor"],
    "country": ["country", "country_code"],
    "customer": ["customer", "customer_name", "client"],
    "status": ["status", "state"],
    "lines": ["items", "lines", "line_items", "products"],
    "qty": ["quantity", "qty", "count"],
    "order_count": ["order_count", "orders", "total_orders"],
    "open_count": ["open_orders", "open", "open_count"],
}


# -- the scripted model: reads signatures, writes programs ---------------------------------


def signatures(prompt: str) -> dict[str, dict]:
    """``{tool: {"args": [names], "returns": parsed shape or None}}`` from the prompt's tool lines."""
    found = {}
    for line in prompt.splitlines():
        match = re.match(r"\s+(\w+)\((.*?)\) -> (.*)$", line)
        if match:
            returns = re.sub(r" \(shape learned from .*\)$", "", match.group(3))
            found[match.group(1)] = {"args": re.findall(r"(\w+):", match.group(2)), "returns": None if returns == "Any" else _parse(returns)}
    return found


def _parse(text: str) -> Any:
    """A signature's return text as data: ``{"k": T}`` a dict, ``list[T]`` a one-element list, anything else its name."""
    return _type(text.strip())[0]


def _type(text: str) -> tuple[Any, str]:
    options = []
    while True:
        if text.startswith("{"):
            value, text = _object(text[1:])
        elif text.startswith("list["):
            inner, text = _type(text[5:])
            value, text = [inner], text[1:]
        else:
            match = re.match(r"[\w.]+", text)
            value, text = (match.group(0), text[match.end():]) if match else ("Any", text)
        options.append(value)
        if not text.startswith(" | "):
            break
        text = text[3:]
    dicts = [o for o in options if isinstance(o, (dict, list))]
    return (dicts[0] if dicts else options[0]), text


def _object(text: str) -> tuple[dict, str]:
    fields: dict = {}
    while not text.startswith("}"):
        if text.startswith("..."):
            text = text[3:]
        else:
            key, end = json.JSONDecoder().raw_decode(text)
            text = text[end:].lstrip("?")[2:]  # ': '
            fields[key], text = _type(text)
        text = text[2:] if text.startswith(", ") else text
    return fields, text[1:]


class Scripted:
    """The scripted model for one prompt: picks keys from the shapes the signatures show, else guesses."""

    def __init__(self, prompt: str) -> None:
        self.tools = signatures(prompt)

    def shape(self, tool: str) -> Any:
        return self.tools.get(tool, {}).get("returns")

    def key(self, thing: str, shape: Any) -> str:
        """The key for ``thing`` in an object ``shape``: the first of its words the shape has; with no shape, the first word."""
        if isinstance(shape, dict):
            for word in WORDS[thing]:
                if word in shape:
                    return word
        return WORDS[thing][0]

    def rows(self, tool: str) -> tuple[str, Any]:
        """How a program gets the list a listing tool returns (``[KEY]`` or nothing), and the shape of one row."""
        shape = self.shape(tool)
        if isinstance(shape, list):
            return "", shape[0]
        if isinstance(shape, dict):
            lists = [key for key, value in shape.items() if isinstance(value, list)]
            if lists:
                return f"[{lists[0]!r}]", shape[lists[0]][0]
        return f"[{tool.rsplit('_', 1)[-1]!r}]", None  # find_items -> "items", list_orders -> "orders"

    def item(self) -> Any:
        return self.shape("inventory__get_item")


def _items(m: Scripted, category: str = "") -> tuple[str, Any]:
    rows, row = m.rows("inventory__find_items")
    return f"inventory__find_items(category={category!r}){rows}", row


def _orders(m: Scripted, status: str = "") -> tuple[str, Any]:
    rows, row = m.rows("inventory__list_orders")
    return f"inventory__list_orders(status={status!r}){rows}", row


def _lines(m: Scripted, order: Any) -> tuple[str, Any]:
    key = m.key("lines", order)
    line = order.get(key) if isinstance(order, dict) else None
    return key, line[0] if isinstance(line, list) and line else None


def _item_id(m: Scripted) -> str:
    args = m.tools.get("inventory__get_item", {}).get("args", [])
    return args[0] if args else "id"  # the argument that names an item is what a model calls its id


TASKS: list[tuple[str, Callable[[Scripted], str], Any]] = [
    ("how many items are in the lighting category",
     lambda m: f"len({_items(m, 'lighting')[0]})",
     sum(i["category"] == "lighting" for i in ITEMS)),
    ("names of the items that are out of stock, sorted",
     lambda m: (lambda src, row: f"sorted(i[{m.key('name', row)!r}] for i in {src} if i[{m.key('stock', row)!r}] == 0)")(*_items(m)),
     sorted(i["name"] for i in ITEMS if i["stock"] == 0)),
    ("how many electronics are in stock in all",
     lambda m: (lambda src, row: f"sum(i[{m.key('stock', row)!r}] for i in {src})")(*_items(m, "electronics")),
     sum(i["stock"] for i in ITEMS if i["category"] == "electronics")),
    ("which country is the supplier of item B-201 in",
     lambda m: (lambda shape: f"inventory__get_item('B-201')[{m.key('supplier', shape)!r}][{m.key('country', (shape or {}).get(m.key('supplier', shape)))!r}]")(m.item()),
     next(i["supplier"]["country"] for i in ITEMS if i["sku"] == "B-201")),
    ("what does item C-301 cost",
     lambda m: f"inventory__get_item('C-301')[{m.key('price', m.item())!r}]",
     next(i["price"] for i in ITEMS if i["sku"] == "C-301")),
    ("how many orders are open",
     lambda m: f"len({_orders(m, 'open')[0]})",
     sum(o["status"] == "open" for o in ORDERS)),
    ("how many of item A-100 were ordered in all",
     lambda m: (lambda src, row: (lambda lines, line: f"sum(l[{m.key('qty', line)!r}] for o in {src} for l in o[{lines!r}] if l[{_item_id(m)!r}] == 'A-100')")(*_lines(m, row)))(*_orders(m)),
     sum(l["qty"] for o in ORDERS for l in o["lines"] if l["sku"] == "A-100")),
    ("which customers have open orders, sorted",
     lambda m: (lambda src, row: f"sorted({{o[{m.key('customer', row)!r}] for o in {src} if o[{m.key('status', row)!r}] == 'open'}})")(*_orders(m)),
     sorted({o["customer"] for o in ORDERS if o["status"] == "open"})),
    ("how many orders has ben placed",
     lambda m: f"inventory__customer('ben')[{m.key('order_count', m.shape('inventory__customer'))!r}]",
     sum(o["customer"] == "ben" for o in ORDERS)),
    ("how many open orders does ana have",
     lambda m: f"inventory__customer('ana')[{m.key('open_count', m.shape('inventory__customer'))!r}]",
     sum(o["customer"] == "ana" and o["status"] == "open" for o in ORDERS)),
    ("names of the items tagged office, sorted",
     lambda m: (lambda src, row: f"sorted(i[{m.key('name', row)!r}] for i in {src} if 'office' in i[{m.key('tags', row)!r}])")(*_items(m)),
     sorted(i["name"] for i in ITEMS if "office" in i["tags"])),
    ("what is the furniture in stock worth",
     lambda m: (lambda src, row: f"round(sum(i[{m.key('price', row)!r}] * i[{m.key('stock', row)!r}] for i in {src}), 2)")(*_items(m, "furniture")),
     round(sum(i["price"] * i["stock"] for i in ITEMS if i["category"] == "furniture"), 2)),
]


# -- the runs -------------------------------------------------------------------------------


async def one_pass(root: Path) -> dict:
    """Each task written by both writers from this service's descriptions and run once: who succeeded, and the prompt's signatures."""
    from lackpy import LackpyService
    from lackpy.errors import LackpyError
    from lackpy.infer.prompt import system_prompt

    out: dict = {"scripted": [], "offline": [], "warnings": 0}
    async with LackpyService(root, trust=True) as svc:
        kit = svc.resolve_kit(KIT)  # once: what this pass's calls teach is for the next pass (the next process)
        for intent, write, answer in TASKS:
            prompt = system_prompt(intent, kit)
            program = write(Scripted(prompt))
            result = await svc.run_program(program, kit=KIT)
            out["scripted"].append(result.success and result.output == answer)
            out["warnings"] += sum(1 for n in result.notices if n.startswith("warning:"))
            try:
                generated = await svc.generate(intent, kit=KIT)
                ran = await svc.run_program(generated.program, kit=KIT)
                out["offline"].append(ran.success and ran.output == answer)
            except LackpyError:
                out["offline"].append(False)  # no tier could write it
        out["signatures"] = [line.strip() for line in system_prompt("", svc.resolve_kit(KIT)).splitlines() if "inventory__" in line and "->" in line]
    return out


async def measure() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(base / "cache")  # the shapes: this run's own, never the person's
        os.environ["XDG_CONFIG_HOME"] = str(base / "config")
        root = base / "ws"
        (root / ".lackpy").mkdir(parents=True)
        server = REPO / "tests" / "remote" / "servers.py"
        (root / ".lackpy" / "config.toml").write_text(
            f'[mcp.servers.inventory]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([str(server), "inventory"])}\ngrade = [0, 0]\n'
        )
        without = await one_pass(root)
        with_shapes = await one_pass(root)
    return {"tasks": len(TASKS), "without": without, "with": with_shapes}


def table(figures: dict) -> str:
    n = figures["tasks"]
    rows = ["| writer | first-run success without learned shapes | with learned shapes |", "|---|---|---|"]
    for writer, label in (("scripted", "scripted model (reads the signatures)"), ("offline", "offline tier (templates, rules)")):
        before, after = sum(figures["without"][writer]), sum(figures["with"][writer])
        rows.append(f"| {label} | {before}/{n} ({100 * before // n} %) | {after}/{n} ({100 * after // n} %) |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()
    figures = asyncio.run(measure())
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores; {figures['tasks']} tasks over the inventory server\n")
    print(table(figures))
    print("\n| task | scripted, without | scripted, with |\n|---|---|---|")
    for (intent, _, _), before, after in zip(TASKS, figures["without"]["scripted"], figures["with"]["scripted"]):
        print(f"| {intent} | {'pass' if before else 'fail'} | {'pass' if after else 'fail'} |")
    print(f"\nwarnings before runs (keys a learned shape lacks): without {figures['without']['warnings']}, with {figures['with']['warnings']}")
    print("\nsignatures the second pass was written from:")
    for line in figures["with"]["signatures"]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
