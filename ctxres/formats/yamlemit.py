"""Writing YAML text for a value: the one emitter every edit and migration uses.

Strings are always double-quoted (JSON escapes are valid YAML), so a value never changes type when it
is read back (``"1.10"`` stays a string, ``"on"`` is not a boolean). Keys are written plain when that is
safe and quoted otherwise, or always quoted (``quote_keys``: the JSON-like style of a one-line value in
a manifest). Mappings and lists are written in flow style on one line (:func:`flow`) or as indented
blocks (:func:`render`).
"""

from __future__ import annotations

import json
import re

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
# What YAML refuses to read, or reads as a line break, even inside quotes, and JSON leaves as it is:
# written as \u escapes.
_UNPRINTABLE = re.compile(r"[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def quoted(text: str) -> str:
    """``text`` double-quoted: JSON's escapes, plus the characters YAML refuses to read."""
    return _UNPRINTABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", json.dumps(text, ensure_ascii=False))


def scalar(value: Any) -> str:
    """A YAML scalar for ``value``: strings double-quoted (JSON escapes are valid YAML)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return json.dumps(value)
    if isinstance(value, float):
        return _float(value)
    return quoted(str(value))


def _float(value: float) -> str:
    """A float as YAML 1.1 reads it back: ``.inf``, ``.nan``, and a mantissa with a point (``1.0e+16``:
    PyYAML reads ``1e+16`` as a string)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = json.dumps(value)
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text


def key_text(key: str) -> str:
    """A mapping key: plain when it reads back as the same string, else double-quoted."""
    return key if _PLAIN_SAFE.fullmatch(key) and key.lower() not in _RESERVED else quoted(key)


def _key(key: Any, quote_keys: bool) -> str:
    if not quote_keys:
        return key_text(str(key))
    # the key JSON would write: a string as it is, true/false/null and numbers spelled as JSON spells them
    return quoted(key if isinstance(key, str) else json.dumps(key))


def flow(value: Any, quote_keys: bool = False) -> str:
    """``value`` on one line: mappings ``{key: value, ...}``, lists ``[a, b]``, scalars by :func:`scalar`.

    With ``quote_keys`` every key is double-quoted, so a mapping reads exactly as JSON would write it."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k, quote_keys)}: {flow(v, quote_keys)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v, quote_keys) for v in value) + "]"
    return scalar(value)


def render(value: Any, indent: int, step: int = 2, flow_lists: bool = False) -> list[str]:
    """Block-style lines for a mapping or list value, each starting with ``indent`` spaces.

    A nested mapping is indented ``step`` more than its key; a non-empty list is a block of ``- item``
    lines, or one flow line after its key with ``flow_lists``; empty collections are ``{}`` and ``[]``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        for key, item in value.items():
            if item and (isinstance(item, dict) or (isinstance(item, list) and not flow_lists)):
                lines.append(f"{pad}{key_text(str(key))}:")
                lines += render(item, indent + step, step, flow_lists)
            else:
                lines.append(f"{pad}{key_text(str(key))}: {flow(item)}")
        return lines
    if isinstance(value, list):
        if not value:
            return [pad + "[]"]
        for item in value:
            if isinstance(item, dict) and item:
                inner = render(item, indent + 2, step, flow_lists)  # under the "- " of the item
                lines.append(pad + "- " + inner[0][indent + 2 :])
                lines += inner[1:]
            else:
                lines.append(f"{pad}- {flow(item)}")
        return lines
    return [pad + scalar(value)]
