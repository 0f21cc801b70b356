"""Whether a document's schema reads the keys of a mapping as text (P007 is reported only there).

A key that YAML reads as a number, boolean or date (``1:``, ``yes:``) is the same fact as its quoted
form; only a reader that looks the key up as text misses it. The readers of a state file look up the
keys its schema describes (``agent_summaries.<agent>``, ``score_history.<gate>``, the known keys of
a section); a project's own mappings (``phase_notes: {1: ...}``) are read by nobody but the project.
"""

from __future__ import annotations

from typing import Any

from ctxres.formats.document import Document, JsonPath
from ctxres.linters.rules.conformance import schema, targets

_BRANCHES = ("anyOf", "oneOf", "allOf")


def _resolve(node: Any, root: Any) -> Any:
    """``node`` with its local ``$ref`` (``#/$defs/Name``) followed."""
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
        target: Any = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        node, seen = target, seen + 1
    return node


def _children(node: Any, part: str | int, root: Any) -> list[Any]:
    """The subschemas that describe ``part`` of a value ``node`` describes (none: the schema says nothing)."""
    node = _resolve(node, root)
    if not isinstance(node, dict):
        return []
    found = [child for key in _BRANCHES for branch in node.get(key, []) for child in _children(branch, part, root)]
    if isinstance(part, int):
        items = node.get("items")
        return [*found, items] if isinstance(items, dict) else found
    properties = node.get("properties")
    if isinstance(properties, dict) and part in properties:
        return [*found, properties[part]]
    extra = node.get("additionalProperties")
    return [*found, extra] if isinstance(extra, dict) and extra else found


def _reads_keys(node: Any, root: Any) -> bool:
    """Whether a mapping ``node`` describes has keys a reader looks up: declared properties, or a schema
    for every value (``additionalProperties: {type: string}``)."""
    node = _resolve(node, root)
    if not isinstance(node, dict):
        return False
    if any(_reads_keys(branch, root) for key in _BRANCHES for branch in node.get(key, [])):
        return True
    extra = node.get("additionalProperties")
    return (
        bool(node.get("properties")) or bool(node.get("patternProperties")) or (isinstance(extra, dict) and bool(extra))
    )


def expects_string_key(doc: Document, key_path: JsonPath) -> bool:
    """Whether the schema of ``doc`` describes the mapping that holds the key at ``key_path``."""
    parent = key_path[:-1]
    for name, base, _value in targets(doc):
        if tuple(parent[: len(base)]) != tuple(base):
            continue
        root = schema(name)
        nodes = [root]
        for part in parent[len(base) :]:
            nodes = [child for node in nodes for child in _children(node, part, root)]
        if any(_reads_keys(node, root) for node in nodes):
            return True
    return False
