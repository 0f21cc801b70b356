"""A JSON parser that records the position of every key and value.

The standard library's ``json`` gives no positions; this parser walks the text once, using
``json.decoder.scanstring`` for strings so escapes behave exactly as in ``json.loads``.
Duplicate keys are reported (the last value wins, as in ``json.loads``).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, MutableMapping
from json.decoder import scanstring  # type: ignore[attr-defined]

from ctxres.findings import Position
from ctxres.formats.document import JsonPath, LazyPositions, PositionMap
from ctxres.records import Record

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_WS = re.compile(r"[ \t\n\r]*")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
# ``json.decoder.scanstring`` messages (they end in "at", completed by json.loads with the place).
_STRING_ERRORS = {
    "Unterminated string starting at": "unterminated string starting at {place}: a closing '\"' is missing",
    "Invalid control character at": "invalid control character {char!r} in a string at {place}; "
    "write it as an escape (\\n, \\t, \\u0000)",
    "Invalid \\escape": "invalid escape in a string at {place}; write a backslash as \\\\",
    "Invalid \\uXXXX escape": "invalid \\uXXXX escape in a string at {place} (four hex digits are needed)",
}


class JsonPosError(ValueError):
    """A syntax error, with the position where the parser stopped."""

    def __init__(self, message: str, position: Position) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class JsonParse(Record):
    __slots__ = ("data", "duplicates", "key_pos", "value_pos")

    data: Any
    value_pos: MutableMapping[JsonPath, Position]
    key_pos: MutableMapping[JsonPath, Position]
    duplicates: list[tuple[JsonPath, Position]]

    def __init__(
        self,
        data: Any,
        value_pos: MutableMapping[JsonPath, Position] | None = None,
        key_pos: MutableMapping[JsonPath, Position] | None = None,
        duplicates: list[tuple[JsonPath, Position]] | None = None,
    ) -> None:
        self.data = data
        self.value_pos = {} if value_pos is None else value_pos
        self.key_pos = {} if key_pos is None else key_pos
        self.duplicates = [] if duplicates is None else duplicates


class _Parser:
    def __init__(self, text: str, line_offset: int, max_depth: int) -> None:
        self.text = text
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.result = JsonParse(None)

    def pos(self, index: int) -> Position:
        line = bisect_right(self.starts, index) - 1
        return Position(line + 1 + self.line_offset, index - self.starts[line] + 1)

    def fail(self, message: str, index: int, opened: int = -1) -> JsonPosError:
        """The error at ``index``. At the end of the text it is shown after the last character (not on
        a line past the end), says that the text ends there and, given ``opened`` (the index of the
        innermost ``{`` or ``[``), which bracket is left open: a truncated file reads as one."""
        end = len(self.text.rstrip())
        if index >= end and not message.startswith("unexpected end"):
            message = f"the JSON ends early: {message}"
            if opened >= 0:
                where = self.pos(opened)
                message += f" (the {self.text[opened]!r} at line {where.line} column {where.col} is never closed)"
        return JsonPosError(message, self.pos(min(index, end)))

    def string_error(self, exc: json.JSONDecodeError) -> JsonPosError:
        """``scanstring``'s error with its position kept: its message ends in "at", which
        ``json.loads`` completes with the place; here the place is the error's own line:column."""
        where = self.pos(exc.pos)
        place = f"line {where.line} column {where.col}"
        template = _STRING_ERRORS.get(exc.msg)
        if template is None:
            return JsonPosError(f"{exc.msg.removesuffix(' at')} at {place}", where)
        return JsonPosError(template.format(char=self.text[exc.pos : exc.pos + 1], place=place), where)

    def skip(self, index: int) -> int:
        match = _WS.match(self.text, index)
        assert match is not None
        return match.end()

    def value(self, index: int, path: JsonPath, depth: int) -> tuple[Any, int]:
        if depth > self.max_depth:
            raise self.fail(f"nested deeper than {self.max_depth} levels", index)
        text = self.text
        self.result.value_pos[path] = self.pos(index)
        char = text[index : index + 1]
        if char == "{":
            return self.object(index + 1, path, depth)
        if char == "[":
            return self.array(index + 1, path, depth)
        if char == '"':
            try:
                string, end = scanstring(text, index + 1, True)
                return string, end
            except json.JSONDecodeError as exc:
                raise self.string_error(exc) from None
        for word, literal in _LITERALS.items():
            if text.startswith(word, index):
                return literal, index + len(word)
        match = _NUMBER.match(text, index)
        if match and match.end() > index:
            literal_text = match.group(0)
            if match.group(1) or match.group(2):
                return float(literal_text), match.end()
            return int(literal_text), match.end()
        if not char:
            raise self.fail("unexpected end of file, expected a value", index)
        raise self.fail(f"expected a value, found {char!r}", index)

    def object(self, index: int, path: JsonPath, depth: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        opened = index - 1
        index = self.skip(index)
        if self.text.startswith("}", index):
            return out, index + 1
        while True:
            if not self.text.startswith('"', index):
                raise self.fail("expected a property name in double quotes", index, opened)
            key_index = index
            try:
                key, index = scanstring(self.text, index + 1, True)
            except json.JSONDecodeError as exc:
                raise self.string_error(exc) from None
            child: JsonPath = (*path, key)
            if key in out:
                self.result.duplicates.append((child, self.pos(key_index)))
            self.result.key_pos[child] = self.pos(key_index)
            index = self.skip(index)
            if not self.text.startswith(":", index):
                raise self.fail("expected ':' after a property name", index, opened)
            index = self.skip(index + 1)
            out[key], index = self.value(index, child, depth + 1)
            index = self.skip(index)
            if self.text.startswith(",", index):
                index = self.skip(index + 1)
                continue
            if self.text.startswith("}", index):
                return out, index + 1
            raise self.fail("expected ',' or '}' after a property value", index, opened)

    def array(self, index: int, path: JsonPath, depth: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        opened = index - 1
        index = self.skip(index)
        if self.text.startswith("]", index):
            return out, index + 1
        while True:
            item, index = self.value(index, (*path, len(out)), depth + 1)
            out.append(item)
            index = self.skip(index)
            if self.text.startswith(",", index):
                index = self.skip(index + 1)
                continue
            if self.text.startswith("]", index):
                return out, index + 1
            raise self.fail("expected ',' or ']' after an array item", index, opened)


def parse_json(text: str, *, line_offset: int = 0, max_depth: int = 200) -> JsonParse:
    """Parse one JSON document; raise :class:`JsonPosError` on a syntax error."""
    parser = _Parser(text, line_offset, max_depth)
    start = parser.skip(0)
    data, end = parser.value(start, (), 0)
    end = parser.skip(end)
    if end != len(text):
        raise parser.fail("unexpected text after the JSON value", end)
    parser.result.data = data
    return parser.result


class _Unusual(Exception):
    """What :func:`parse_json_quick` leaves to :func:`parse_json`."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Unusual("a duplicate key")
    return out


def _constant(name: str) -> Any:
    raise _Unusual(f"{name} is not JSON")  # json.loads reads NaN and Infinity; parse_json does not


def _deeper_than(data: Any, most: int) -> bool:
    """Whether a value of ``data`` lies deeper than ``most`` levels (the root value is level 0)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if depth + 1 > most:
                return True
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def parse_json_quick(text: str, *, max_depth: int = 200) -> JsonParse:
    """:func:`parse_json`, with the data read by the C parser (``json.loads``) and the positions found by
    :func:`parse_json` only when one is asked for. A text with a syntax error, a duplicate key, a NaN or an
    Infinity, or nesting past ``max_depth`` is read by :func:`parse_json` at once (its error, its duplicates)."""
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except (_Unusual, ValueError, RecursionError):
        return parse_json(text, max_depth=max_depth)
    if _deeper_than(data, max_depth):
        return parse_json(text, max_depth=max_depth)
    full: list[JsonParse] = []

    def parsed() -> JsonParse:
        if not full:
            full.append(parse_json(text, max_depth=max_depth))
        return full[0]

    def finder(keys: bool) -> Callable[[JsonPath], int | None]:
        def find(path: JsonPath) -> int | None:
            position = (parsed().key_pos if keys else parsed().value_pos).get(path)
            return None if position is None else PositionMap.pack(position.line, position.col)

        return find

    def everything(keys: bool) -> Callable[[], PositionMap]:
        def compute() -> PositionMap:
            out = PositionMap()
            for path, position in (parsed().key_pos if keys else parsed().value_pos).items():
                out[path] = position
            return out

        return compute

    return JsonParse(
        data, LazyPositions(finder(False), everything(False)), LazyPositions(finder(True), everything(True))
    )
