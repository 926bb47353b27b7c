"""A remote MCP tool as a lackpy tool: its qualified name, its spec, its key, and the value of its result.

A tool ``search`` of server ``github`` joins the toolbox as ``github__search``;
a name that is not an identifier is mangled the same way every time
(``get-issue`` becomes ``get_issue``; when two names mangle alike, each gets
a short hash of its own name). The input schema becomes the arguments, so
lackpy's argument check runs before anything is sent. What a server says of
its tools (annotations, descriptions) are hints: the grade comes from the
config, never from the server, unless the user trusts its annotations;
so does its category (``category`` of the server or the tool; else none).
A dry run follows the grade too (``ToolSpec.dry_run`` left to it): a remote
tool graded read-only runs, any other is held back, since lackpy cannot
stage what a server does; a ``readOnlyHint`` counts only where the user lets
it lower the grade.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Iterable

from lackpy.errors import ToolError
from lackpy.kit.shape import from_schema
from lackpy.kit.spec import ArgSpec, ToolSpec
from lackpy.remote.settings import ServerSettings
from lackpy.remote.tasks import task_support

PROVIDER = "mcp"
#: The grade of a remote tool the config does not grade: it may do anything.
DEFAULT_GRADE = (3, 3)
#: The longest description a remote tool keeps (the first paragraph, cut at a word with an ellipsis).
DESCRIPTION_CHARS = 400
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def qualified_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """``{remote name: qualified name}`` for the tools of ``server``, identifiers all, none alike."""
    names = list(tools)
    plain = {name: _mangle(name) for name in names}
    counts: dict[str, int] = {}
    for mangled in plain.values():
        counts[mangled] = counts.get(mangled, 0) + 1
    out = {}
    for name, mangled in plain.items():
        if counts[mangled] > 1:
            mangled = f"{mangled}_{hashlib.sha256(name.encode()).hexdigest()[:6]}"
        out[name] = f"{server}__{mangled}"
    return out


def _mangle(name: str) -> str:
    mangled = _UNSAFE.sub("_", name).strip("_") or "tool"
    return f"t_{mangled}" if mangled[0].isdigit() else mangled


def tool_key(qualified: str, input_schema: Any, output_schema: Any) -> str:
    """The stable key of an enrolled tool: a hash of its qualified name and its canonical schemas."""
    canonical = json.dumps([qualified, input_schema, output_schema], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def remote_spec(settings: ServerSettings, tool: Any, qualified: str) -> ToolSpec:
    """The ToolSpec of remote ``tool`` (an ``mcp.types.Tool``) under ``qualified``."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
    args = []
    for name, prop in properties.items():
        if not isinstance(name, str) or not name.isidentifier():
            continue  # a program cannot pass it by name; the server must not need it
        prop = prop if isinstance(prop, dict) else {}
        args.append(
            ArgSpec(
                name=name,
                type=schema_text(prop),
                description=_first_line(prop.get("description")),
                required=name in required,
                default=None if name in required else prop.get("default"),
                schema=_checkable(prop),
            )
        )
    args.sort(key=lambda a: not a.required)  # required first, as Python wants
    output = tool.output_schema if isinstance(getattr(tool, "output_schema", None), dict) else None
    w, d = _grade(settings, tool)
    return ToolSpec(
        name=qualified,
        provider=PROVIDER,
        provider_config={
            "server": settings.name, "tool": tool.name, "key": tool_key(qualified, schema, output), "wrapped": _wraps(output), "tasks": task_support(tool),
            **_declared(output),
        },
        description=_first_line(tool.description) or f"{tool.name} from the MCP server {settings.name}",
        args=args,
        returns=schema_text(_unwrapped(output)) if output else "Any",
        grade_w=w,
        effects_ceiling=d,
        tags=["mcp", settings.name],
        category=settings.category_for(tool.name),
        approval="call" if _marked_destructive(tool) else None,
    )


def _declared(output: dict | None) -> dict:
    """``{"shape": ...}`` of a declared output schema (what a program gets: a wrapped result unwrapped), or nothing when none is declared.

    With it the check before a run errs on a key the server does not declare
    (``lackpy.kit.resultkeys``); without it lackpy may learn the shape from
    the tool's results (``lackpy.remote.shapes``).
    """
    if not output:
        return {}
    return {"shape": {"node": from_schema(_unwrapped(output)), "source": "declared"}}  # an empty node: declared, but nothing lackpy can check


def _marked_destructive(tool: Any) -> bool:
    """Whether the server marks the tool destructive: ``destructiveHint`` true, or not read-only and left at MCP's default (true).

    A hint that asks for more care is followed without trusting the server;
    one that asks for less never lowers what lackpy's own grade asks (an
    ungraded remote tool is graded as able to do anything, so it is asked
    about anyway). A tool with no hints at all is left to its grade.
    """
    hints = getattr(tool, "annotations", None)
    if hints is None or getattr(hints, "read_only_hint", None) is True:
        return False
    return getattr(hints, "destructive_hint", None) is not False


def _grade(settings: ServerSettings, tool: Any) -> tuple[int, int]:
    """The config's grade for ``tool``: its own, its server's, else the highest; a trusted read-only hint may lower only the default."""
    declared = settings.tool_grades.get(tool.name) or settings.grade
    if declared is not None:
        return declared
    hints = getattr(tool, "annotations", None)
    if settings.trust_annotations and hints is not None and getattr(hints, "read_only_hint", None) is True:
        return (3 if getattr(hints, "open_world_hint", None) is not False else 1, 0)
    return DEFAULT_GRADE


#: A union of these accepts every JSON value: ``Any`` (how a portable schema writes ``{}``).
_EVERY_TYPE = {"str", "float", "bool", "dict", "list[Any]", "None"}


def schema_text(schema: Any, depth: int = 0) -> str:
    """A Python annotation for a JSON Schema, as a signature shows it (``list[str]``, ``int | None``)."""
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"][:8]) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            shown = list(dict.fromkeys(schema_text(s, depth + 1) for s in schema[key]))
            return "Any" if _EVERY_TYPE <= set(shown) else " | ".join(shown)
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return " | ".join(dict.fromkeys(schema_text({**schema, "type": k}, depth + 1) for k in kinds))
    if kinds == "array":
        return f"list[{schema_text(schema.get('items'), depth + 1)}]"
    if kinds == "object":
        properties = schema.get("properties")
        if isinstance(properties, dict) and properties and len(properties) <= 8 and depth < 2:
            fields = ", ".join(f"{json.dumps(k)}: {schema_text(v, depth + 1)}" for k, v in properties.items())
            return "{" + fields + "}"
        return "dict"
    return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}.get(kinds, "Any")


def _checkable(schema: dict) -> dict:
    """The part of an argument's schema lackpy checks before sending: no references (the server checks the rest)."""
    if "$ref" in json.dumps(schema, default=str):
        return {key: schema[key] for key in ("type",) if key in schema}
    return schema


def _wraps(output: dict | None) -> bool:
    """Whether the server wraps a non-object return as ``{"result": ...}`` (what SDK-built servers declare)."""
    if not output:
        return False
    properties = output.get("properties")
    return isinstance(properties, dict) and list(properties) == ["result"] and output.get("required") == ["result"]


def _unwrapped(output: dict) -> dict:
    return output["properties"]["result"] if _wraps(output) else output


def _first_line(text: Any) -> str:
    """The first paragraph of a server's description on one line, at most ``DESCRIPTION_CHARS``.

    A longer one ends at the last whole word that fits, marked with an
    ellipsis, so a model never reads half a word as if it were the whole.
    """
    if not isinstance(text, str):
        return ""
    first = " ".join(text.strip().split("\n\n", 1)[0].split())
    if len(first) <= DESCRIPTION_CHARS:
        return first
    kept = first[: DESCRIPTION_CHARS]  # one more than fits with the ellipsis: a word that ends right there is whole
    space = kept.rfind(" ")
    kept = kept[:space] if space > DESCRIPTION_CHARS // 2 else kept[: DESCRIPTION_CHARS - 1]  # one long word: cut it
    return kept.rstrip(" ,;:") + "…"


def result_value(spec: ToolSpec, result: Any) -> Any:
    """What a program gets from a remote ``CallToolResult``; a result the server marks as an error raises ToolError."""
    if result.is_error:
        message = " ".join(_texts(result)) or "the server reported an error without a message"
        raise ToolError(" ".join(message.split())[:2000])
    structured = result.structured_content
    if structured is not None:
        if spec.provider_config.get("wrapped") and isinstance(structured, dict) and set(structured) == {"result"}:
            return structured["result"]
        return structured
    blocks = [_block(block) for block in result.content]
    return blocks[0] if len(blocks) == 1 else blocks


def _texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def _block(block: Any) -> Any:
    """A content block as plain data: text (parsed when it is JSON), or a dict that keeps everything the block carries.

    An image or audio block keeps its ``mime_type`` and base64 ``data``; an
    embedded resource its ``uri``, ``mime_type`` and ``text`` or base64
    ``blob``; a resource link its ``uri``, ``name``, ``mime_type`` and
    ``description``. What the run's output budget cannot hold is cut where
    it is joined (``lackpy.remote.link``), and the block says so.
    """
    kind = getattr(block, "type", None)
    if kind == "text":
        text = block.text
        if text[:1] in "[{" or text in ("true", "false", "null") or text[:1].isdigit() or text[:1] == "-":
            try:
                return json.loads(text)
            except ValueError:
                pass
        return text
    described: dict[str, Any] = {"type": kind}
    source = getattr(block, "resource", None) if kind == "resource" else block
    for name in ("uri", "name", "title", "mime_type", "description", "text", "data", "blob"):
        value = getattr(source, name, None)
        if value is not None:
            described[name] = str(value)
    return described


__all__ = ["DEFAULT_GRADE", "PROVIDER", "qualified_names", "remote_spec", "result_value", "schema_text", "tool_key"]
