"""Writing a JSON document whose one long list is written an item at a time, byte for byte as ``json.dumps``
(``indent=2``, ``ensure_ascii=False``) writes it whole: the document is dumped with a placeholder where the
list goes, and the items are dumped one by one, indented to their depth, in its place."""

from __future__ import annotations

import json
from collections.abc import Iterable

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

PLACEHOLDER = "\x00items\x00"  # a string no report holds (a NUL is escaped as \u0000 in JSON)


def write(document: object, items: Iterable[object], out: TextIO) -> None:
    """Write ``document`` followed by a newline, its :data:`PLACEHOLDER` value replaced by the list ``items``."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    marker = json.dumps(PLACEHOLDER)
    before, found, after = text.partition(marker)
    assert found, "the document has no placeholder for its items"
    line = before.rsplit("\n", 1)[-1]
    indent = len(line) - len(line.lstrip(" "))
    pad = "\n" + " " * (indent + 2)
    out.write(before)
    separator = "[" + pad
    for item in items:
        out.write(separator)
        out.write(dumps(item).replace("\n", pad))
        separator = "," + pad
    out.write("[]" if separator.startswith("[") else "\n" + " " * indent + "]")
    out.write(after)
    out.write("\n")


_quote = json.encoder.encode_basestring  # a string as json.dumps(ensure_ascii=False) writes it (C when built)


def _scalar(value: object) -> str:
    if type(value) is str:
        return _quote(value)
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False)


def dumps(item: object) -> str:
    """``json.dumps(item, indent=2, ensure_ascii=False)``; a mapping of strings to scalars (a finding) is
    written a value at a time, by the C encoder that ``indent`` turns off for the whole."""
    if (
        type(item) is dict
        and item
        and all(
            type(key) is str and (value is None or type(value) in (str, int, float, bool))
            for key, value in item.items()
        )
    ):
        return "{\n" + ",\n".join([f"  {_quote(key)}: {_scalar(value)}" for key, value in item.items()]) + "\n}"
    return json.dumps(item, indent=2, ensure_ascii=False)
