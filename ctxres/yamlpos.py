"""Safe YAML loading that keeps the line:column of every key and value.

PyYAML composes the node graph (with the C parser when it is available); we then build plain
Python values from it ourselves, so we can record positions, report duplicate keys, and bound
alias expansion ("billion laughs") and nesting depth before they cost time or memory.
"""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import yaml

from ctxres.document import JsonPath, PositionMap
from ctxres.findings import Position
from ctxres.yamlguard import TAB_FIX, YamlGuardError, deep_block_offset, loader_for, tab_error_place, tab_message

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"


class YamlPosError(ValueError):
    """The text is not YAML we can read, with where and why."""

    def __init__(self, message: str, position: Position, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.fix = fix  # what to change, when the cause is known (a tab in the indentation)


@dataclass
class YamlParse:
    data: Any
    value_pos: PositionMap = field(default_factory=PositionMap)
    key_pos: PositionMap = field(default_factory=PositionMap)
    duplicates: list[tuple[JsonPath, Position]] = field(default_factory=list)
    timestamps: list[JsonPath] = field(default_factory=list)
    non_string_keys: list[tuple[JsonPath, Position]] = field(default_factory=list)


def _mark(node: yaml.Node, line_offset: int) -> Position:
    mark = node.start_mark
    return Position(mark.line + 1 + line_offset, mark.column + 1)


def _packed(node: yaml.Node, line_offset: int) -> int:
    """:func:`_mark` as :meth:`PositionMap.pack` stores it (no Position made)."""
    mark = node.start_mark
    return PositionMap.pack(mark.line + 1 + line_offset, mark.column + 1)


_CONSTRUCTOR: list[yaml.SafeLoader] = []


def _constructor() -> yaml.SafeLoader:
    """One ``SafeLoader`` for every parse: only its scalar constructors and ``flatten_mapping`` are
    used, which keep no state (making one per parse cost about as much as parsing a small piece)."""
    if not _CONSTRUCTOR:
        _CONSTRUCTOR.append(yaml.SafeLoader(""))
    return _CONSTRUCTOR[0]


class _Builder:
    def __init__(self, line_offset: int, max_nodes: int, max_depth: int, *, shared: bool = True) -> None:
        self.line_offset = line_offset
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        # False when the text has no anchor: then no node is reached twice (there is no alias to follow), and
        # the bookkeeping of aliases (expansion count, recursion) is skipped.
        self.shared = shared
        self.expanded = 0  # values built again because an alias points at them
        self.built: set[int] = set()
        self.stack: set[int] = set()
        self.constructor = _constructor()  # only used to turn scalars into values
        self.result = YamlParse(None)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag == _TAG + "str":
            return node.value
        if tag in (_TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null", _TAG + "timestamp"):
            return self.constructor.yaml_constructors[tag](self.constructor, node)
        if tag == _TAG + "binary":
            return base64.b64encode(self.constructor.construct_yaml_binary(node)).decode("ascii")
        return node.value  # unknown or custom tags: keep the text, never construct objects

    def build(self, node: yaml.Node, path: JsonPath, depth: int) -> Any:
        if self.shared:
            if id(node) in self.built:
                self.expanded += 1
                if self.expanded > self.max_nodes:
                    raise YamlPosError(
                        f"aliases expand the document by more than {self.max_nodes:,} values "
                        "(an alias bomb?); refusing to load it",
                        _mark(node, self.line_offset),
                    )
            else:
                self.built.add(id(node))
        if depth > self.max_depth:
            raise YamlPosError(
                f"the document is nested deeper than {self.max_depth} levels",
                _mark(node, self.line_offset),
            )
        self.result.value_pos.put_first(path, _packed(node, self.line_offset))
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node)
            if isinstance(value, (dt.date, dt.datetime)):
                self.result.timestamps.append(path)
                return value.isoformat()
            return value
        if self.shared:
            if id(node) in self.stack:
                raise YamlPosError("a recursive alias refers to itself", _mark(node, self.line_offset))
            self.stack.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
            assert isinstance(node, yaml.MappingNode)
            return self.mapping(node, path, depth)
        finally:
            if self.shared:
                self.stack.discard(id(node))

    def mapping(self, node: yaml.MappingNode, path: JsonPath, depth: int) -> dict[str, Any]:
        self.constructor.flatten_mapping(node)  # resolve "<<" merge keys
        out: dict[str, Any] = {}
        result, line_offset = self.result, self.line_offset
        plain = not self.shared and depth < self.max_depth  # a string value needs no more than a position
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key_value = key_node.value if key_node.tag == _STR else self.scalar(key_node)
                key = key_value if isinstance(key_value, str) else str(key_node.value)
                if not isinstance(key_value, str):
                    result.non_string_keys.append(((*path, key), _mark(key_node, line_offset)))
            else:
                raise YamlPosError("a mapping key is itself a list or a mapping", _mark(key_node, line_offset))
            child: JsonPath = (*path, key)
            if key in out:
                result.duplicates.append((child, _mark(key_node, line_offset)))
            result.key_pos.put(child, _packed(key_node, line_offset))
            result.value_pos.drop(child)
            if plain and value_node.tag == _STR and isinstance(value_node, yaml.ScalarNode):
                result.value_pos.put(child, _packed(value_node, line_offset))
                out[key] = value_node.value
            else:
                out[key] = self.build(value_node, child, depth + 1)
        return out


def _offset_position(text: str, offset: int, line_offset: int) -> Position:
    if offset < 0:
        return Position(1 + line_offset, 1)
    start = text.rfind("\n", 0, offset) + 1
    return Position(text.count("\n", 0, offset) + 1 + line_offset, offset - start + 1)


def _within(text: str, position: Position, line_offset: int) -> Position:
    """``position``, or the end of the last line when it lies past it (an error at the end of the
    stream is marked on the line after the last one, which no editor shows)."""
    lines = text.splitlines()
    if position.line - line_offset <= max(len(lines), 1):
        return position
    return Position(max(len(lines), 1) + line_offset, len(lines[-1]) + 1 if lines else 1)


def parse_yaml(text: str, *, line_offset: int = 0, max_nodes: int = 50_000, max_depth: int = 200) -> YamlParse:
    """Parse one YAML document; raise :class:`YamlPosError` on anything we cannot read."""
    try:
        node = yaml.compose(text, Loader=loader_for(text))  # libyaml crashes on very deep nesting
    except YamlGuardError as exc:
        raise YamlPosError(exc.message, _offset_position(text, exc.offset, line_offset)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        tab = tab_error_place(text, exc)
        if tab is not None:
            line, column = tab[0] + 1 + line_offset, tab[1] + 1
            raise YamlPosError(f"invalid YAML: {tab_message(line, column)}", Position(line, column), TAB_FIX) from None
        position = Position(mark.line + 1 + line_offset, mark.column + 1) if mark else Position()
        position = _within(text, position, line_offset)
        problem = exc.problem or "invalid YAML"
        context = ""
        if exc.context and exc.context_mark and exc.context_mark is not mark:
            context = f", {exc.context} that starts at line {exc.context_mark.line + 1 + line_offset}"
        elif exc.context:
            context = f", {exc.context}"
        raise YamlPosError(f"invalid YAML: {problem}{context}", position) from None
    except yaml.reader.ReaderError as exc:  # a NUL or control character: located at the character
        offset = exc.position if isinstance(exc.position, int) else -1
        char = exc.character
        if isinstance(char, int) and chr(char) in text:  # libyaml counts bytes, not characters: find it
            offset = text.index(chr(char))
        message = f"unacceptable character #x{char:04x}: {exc.reason}" if isinstance(char, int) else str(exc)
        raise YamlPosError(message.splitlines()[0], _offset_position(text, offset, line_offset)) from None
    except yaml.YAMLError as exc:
        raise YamlPosError(str(exc).splitlines()[0], Position(1 + line_offset, 1)) from None
    except RecursionError:  # located at the first deeply indented line, when there is one
        deep = _offset_position(text, deep_block_offset(text), line_offset)
        raise YamlPosError("the document is nested too deeply to read", deep) from None
    builder = _Builder(line_offset, max_nodes, max_depth, shared="&" in text)
    if node is None:
        return builder.result
    try:
        builder.result.data = builder.build(node, (), 0)
    except RecursionError:
        raise YamlPosError("the document is nested too deeply to read", _mark(node, line_offset)) from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        if isinstance(exc, YamlPosError):
            raise
        raise YamlPosError(f"cannot read a value: {exc}", _mark(node, line_offset)) from None
    return builder.result
