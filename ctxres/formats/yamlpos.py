"""Safe YAML loading that keeps the line:column of every key and value.

PyYAML composes the node graph (with the C parser when it is available); we then build plain
Python values from it ourselves, so we can record positions, report duplicate keys, and bound
alias expansion ("billion laughs") and nesting depth before they cost time or memory.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import operator
import re
from collections.abc import Callable

import yaml

from ctxres.findings import Position
from ctxres.formats.document import JsonPath, LazyPositions, PositionMap
from ctxres.formats.yamlguard import (
    TAB_FIX,
    YamlGuardError,
    deep_block_offset,
    loader_for,
    tab_error_place,
    tab_message,
)
from ctxres.records import Record

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_BINARY = _TAG + "binary"
# Where an alias (``*name``) can start: at the start of a line, after a space or a flow indicator. Text without
# a match has no alias, so no node of it is reached twice (a ``*`` in prose may match: then it is only slower).
_ALIAS = re.compile(r"(?:^|[\s\[{,:])\*", re.MULTILINE)
_ALIAS_AFTER = "[{,:"  # besides a line break or a blank (str.isspace is the \s of a str pattern)


def may_hold_alias(text: str) -> bool:
    """``_ALIAS.search(text) is not None``, found by looking at the character before each ``*`` only (the
    regular expression tries every position of the text) (pure)."""
    at = text.find("*")
    while at != -1:
        if at == 0 or text[at - 1].isspace() or text[at - 1] in _ALIAS_AFTER:
            return True
        at = text.find("*", at + 1)
    return False


def may_hold_anchor(text: str) -> bool:
    """Whether some ``&`` of ``text`` is followed by a character that may start an anchor's name (pure).

    An anchor is ``&`` and at least one character of its name (libyaml and PyYAML's scanner refuse an empty
    one), never a blank or a line break: text without such an ``&`` defines no anchor, so it holds no alias
    (one to an undefined anchor is an error of the composer) and no node of it is reached twice, whatever
    :func:`may_hold_alias` says of its ``*`` (``Main & CI``, ``**bold**``)."""
    at = text.find("&")
    while at != -1:
        if at + 1 < len(text) and text[at + 1] not in _NOT_ANCHOR:
            return True
        at = text.find("&", at + 1)
    return False


_NOT_ANCHOR = " \t\r\n"


@functools.lru_cache(maxsize=1)
def _composer() -> Any:
    """``CSafeLoader`` with its per-node Python calls made cheap: ``resolve`` (the tag of a plain scalar, a pure
    function of its kind, text and implicitness) remembered for the values that recur (keys, enums, numbers),
    and the path resolvers' bookkeeping skipped (no ``add_path_resolver`` is in use: the calls do nothing).
    It composes the same nodes as ``CSafeLoader``."""
    base = yaml.CSafeLoader
    if base.yaml_path_resolvers:  # pragma: no cover - a path resolver was added to PyYAML's loaders
        return base
    uncached: Callable[..., Any] = base("").resolve

    @functools.lru_cache(maxsize=5120)
    def resolve(kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
        return str(uncached(kind, value, implicit))

    # Built-in callables that do nothing with their arguments (a Python function costs a frame per node).
    namespace = {
        # The parser's set-up only: the constructor's and resolver's state serve construct_document and the path
        # resolvers, which composing with the methods below never reads (two Python calls less per document).
        "__init__": yaml.cyaml.CParser.__init__,  # type: ignore[attr-defined]
        "resolve": staticmethod(resolve),
        "descend_resolver": staticmethod(operator.is_),  # (parent, index) -> ignored
        "ascend_resolver": staticmethod(tuple),  # () -> ignored
    }
    return type("_Composer", (base,), namespace)


def _compose(text: str, loader_class: Any) -> yaml.Node | None:
    """``yaml.compose(text, Loader=loader_class)``, without its wrapper's frame."""
    loader = loader_class(text)
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    finally:
        loader.dispose()


class _ConstructorLoader(yaml.SafeLoader):
    """A loader that reads no text: its empty text is not searched for non-printable characters (the
    search would compile PyYAML's pattern of them, which ctxres.formats.yaml_startup defers)."""

    def check_printable(self, data: str) -> None:
        pass


@functools.lru_cache(maxsize=1)
def _constructor() -> yaml.SafeLoader:
    """The loader whose constructors turn scalars into values (and flatten merge keys): they keep no state of
    a document, so one serves every parse (a loader per parse is cyclic garbage, and costs its set-up)."""
    return _ConstructorLoader("")


def _loader(text: str) -> Any:
    loader = loader_for(text)  # libyaml crashes on very deep nesting: then the Python loader
    return _composer() if loader is getattr(yaml, "CSafeLoader", None) else loader


class YamlPosError(ValueError):
    """The text is not YAML we can read, with where and why."""

    def __init__(self, message: str, position: Position, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.fix = fix  # what to change, when the cause is known (a tab in the indentation)


class YamlParse(Record):
    __slots__ = ("data", "duplicates", "key_pos", "non_string_keys", "timestamps", "value_pos")

    data: Any
    value_pos: PositionMap | LazyPositions
    key_pos: PositionMap | LazyPositions
    duplicates: list[tuple[JsonPath, Position]]
    timestamps: list[JsonPath]
    non_string_keys: list[tuple[JsonPath, Position]]

    def __init__(
        self,
        data: Any,
        value_pos: PositionMap | LazyPositions | None = None,
        key_pos: PositionMap | LazyPositions | None = None,
        duplicates: list[tuple[JsonPath, Position]] | None = None,
        timestamps: list[JsonPath] | None = None,
        non_string_keys: list[tuple[JsonPath, Position]] | None = None,
    ) -> None:
        self.data = data
        self.value_pos = PositionMap() if value_pos is None else value_pos
        self.key_pos = PositionMap() if key_pos is None else key_pos
        self.duplicates = [] if duplicates is None else duplicates
        self.timestamps = [] if timestamps is None else timestamps
        self.non_string_keys = [] if non_string_keys is None else non_string_keys


def _mark(node: yaml.Node, line_offset: int) -> Position:
    mark = node.start_mark
    return Position(mark.line + 1 + line_offset, mark.column + 1)


def _packed(node: yaml.Node, line_offset: int) -> int:
    """:func:`_mark` as :meth:`PositionMap.pack` stores it (no Position made)."""
    mark = node.start_mark
    return PositionMap.pack(mark.line + 1 + line_offset, mark.column + 1)


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
        self.constructor = _constructor()
        self.value_pos = PositionMap()
        self.key_pos = PositionMap()
        self.result = YamlParse(None, self.value_pos, self.key_pos)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        return _scalar_value(self.constructor, node)

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
        self.value_pos.put_first(path, _packed(node, self.line_offset))
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
            self.key_pos.put(child, _packed(key_node, line_offset))
            self.value_pos.drop(child)
            if plain and value_node.tag == _STR and isinstance(value_node, yaml.ScalarNode):
                self.value_pos.put(child, _packed(value_node, line_offset))
                out[key] = value_node.value
            else:
                out[key] = self.build(value_node, child, depth + 1)
        return out


class _Unusual(Exception):
    """What the quick build leaves to :class:`_Builder`: a duplicate or binary key, nesting at the limit."""


class _QuickBuilder:
    """The data of a document without anchors in one pass over its nodes, positions left in the nodes.

    Builds what :class:`_Builder` builds (values, timestamps, non-string keys) when every path leads to
    one node: no alias, no duplicate key (a key's path then names one key node and one value node, so a
    position is found by walking the nodes, see :class:`_NodeIndex`). Anything else (a duplicate or
    binary key, nesting at the depth limit, a value that cannot be read) raises :class:`_Unusual` or the
    constructor's error, and :class:`_Builder` does the document again, exactly as before.
    """

    def __init__(self, line_offset: int, max_depth: int, result: YamlParse) -> None:
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.constructor = _constructor()
        self.result = result

    def value(self, node: yaml.Node, path: JsonPath, depth: int) -> Any:
        if depth >= self.max_depth:  # the scalars below it would be at the limit: _Builder says where
            raise _Unusual
        cls = node.__class__
        if cls is _MAPPING:
            return self.mapping(node, path, depth)  # type: ignore[arg-type]
        if cls is _SEQUENCE:
            return self.sequence(node, path, depth)  # type: ignore[arg-type]
        return self.scalar(node, path)  # type: ignore[arg-type]

    def sequence(self, node: yaml.SequenceNode, path: JsonPath, depth: int) -> list[Any]:
        items: list[Any] = []
        append = items.append
        for index, item in enumerate(node.value):
            if item.__class__ is not _SCALAR:
                append(self.value(item, (*path, index), depth + 1))
            elif item.tag == _STR:
                append(item.value)
            else:
                append(self.leaf(item, path, index, depth + 1))
        return items

    def leaf(self, node: yaml.ScalarNode, path: JsonPath, step: str | int, depth: int) -> Any:
        """A scalar that is not a string, at ``(*path, step)`` (the path made for a timestamp only)."""
        if depth >= self.max_depth:  # as value(): _Builder says where
            raise _Unusual
        value = _scalar_value(self.constructor, node)
        if isinstance(value, (dt.date, dt.datetime)):
            self.result.timestamps.append((*path, step))
            return value.isoformat()
        return value

    def scalar(self, node: yaml.ScalarNode, path: JsonPath) -> Any:
        value = _scalar_value(self.constructor, node)
        if isinstance(value, (dt.date, dt.datetime)):
            self.result.timestamps.append(path)
            return value.isoformat()
        return value

    def mapping(self, node: yaml.MappingNode, path: JsonPath, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        pairs = node.value
        for key_node, value_node in pairs:
            # A merge ("<<") or value ("=") key is flatten_mapping's to resolve: _Builder does it. Without one,
            # flatten_mapping changes nothing, so it is not called.
            key_tag = key_node.tag
            if key_node.__class__ is not _SCALAR:
                raise _Unusual
            if key_tag != _STR:
                if key_tag in _UNUSUAL_KEYS:
                    raise _Unusual
                if not isinstance(_scalar_value(self.constructor, key_node), str):
                    self.result.non_string_keys.append(((*path, key_node.value), _mark(key_node, self.line_offset)))
            if value_node.__class__ is not _SCALAR:
                key = key_node.value
                out[key] = self.value(value_node, (*path, key), depth + 1)
            elif value_node.tag == _STR:
                out[key_node.value] = value_node.value
            else:
                key = key_node.value
                out[key] = self.leaf(value_node, path, key, depth + 1)
        if len(out) != len(pairs):  # a duplicate key (whatever was built after it is dropped with the result)
            raise _Unusual
        return out


_SCALAR = yaml.ScalarNode
_SEQUENCE = yaml.SequenceNode
_MAPPING = yaml.MappingNode
_CONSTRUCTED = frozenset(_TAG + name for name in ("int", "float", "bool", "null", "timestamp"))
_INT = _TAG + "int"
_NULL = _TAG + "null"
_FLOAT = _TAG + "float"
_BOOL = _TAG + "bool"
_PLAIN_BOOLS = {"true": True, "false": False}  # as SafeConstructor.bool_values reads them (lowercase already)


def _scalar_value(constructor: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """The value of a scalar node, as both builders read it: str, int, float, bool, null and timestamps
    constructed, binary as base64 text, and the text of any other tag (objects are never constructed)."""
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _INT:
        text = node.value  # plain decimal digits, no leading 0 (octal in YAML 1.1): what int() reads alike
        if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
            return int(text)
    if tag == _NULL:
        return None
    if tag == _FLOAT:
        text = node.value  # digits with one point: what float() reads alike (no sign, "_", ".inf" or base 60)
        if text.isascii() and text.replace(".", "", 1).isdigit():
            return float(text)
    elif tag == _BOOL and node.value in _PLAIN_BOOLS:
        return _PLAIN_BOOLS[node.value]
    if tag in _CONSTRUCTED:
        return constructor.yaml_constructors[tag](constructor, node)
    if tag == _BINARY:
        return base64.b64encode(constructor.construct_yaml_binary(node)).decode("ascii")
    return node.value  # unknown or custom tags: keep the text, never construct objects


_UNUSUAL_KEYS = frozenset(_TAG + name for name in ("binary", "merge", "value"))


class _NodeIndex:
    """Where each path of a document built by :class:`_QuickBuilder` is: the node it leads to, found by walking
    from the root (the keys of a mapping indexed when it is first walked through)."""

    __slots__ = ("line_offset", "maps", "root")

    def __init__(self, root: yaml.Node, line_offset: int) -> None:
        self.root = root
        self.line_offset = line_offset
        self.maps: dict[int, dict[str, tuple[yaml.Node, yaml.Node]]] = {}

    def walk(self, path: JsonPath) -> tuple[yaml.Node | None, yaml.Node] | None:
        """(the key node or None, the value node) at ``path``; None when there is no such path."""
        key_node: yaml.Node | None = None
        node = self.root
        for part in path:
            if isinstance(part, str):
                if node.__class__ is not yaml.MappingNode:
                    return None
                keys = self.maps.get(id(node))
                if keys is None:
                    keys = self.maps[id(node)] = {k.value: (k, v) for k, v in node.value}
                pair = keys.get(part)
                if pair is None:
                    return None
                key_node, node = pair
            else:
                if node.__class__ is not yaml.SequenceNode or not 0 <= part < len(node.value):
                    return None
                key_node, node = None, node.value[part]
        return key_node, node

    def value_at(self, path: JsonPath) -> int | None:
        found = self.walk(path)
        return None if found is None else _packed(found[1], self.line_offset)

    def key_at(self, path: JsonPath) -> int | None:
        found = self.walk(path)
        return None if found is None or found[0] is None else _packed(found[0], self.line_offset)


def _quick(node: yaml.Node, line_offset: int, max_nodes: int, max_depth: int) -> YamlParse | None:
    """The parse of a document without anchors by :class:`_QuickBuilder`, its positions found on demand; None
    when :class:`_Builder` must do it."""
    result = YamlParse(None)
    try:
        result.data = _QuickBuilder(line_offset, max_depth, result).value(node, (), 0)
    except (_Unusual, yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None
    index = _NodeIndex(node, line_offset)

    def everything() -> tuple[PositionMap, PositionMap]:
        full = _Builder(line_offset, max_nodes, max_depth, shared=False)
        full.build(node, (), 0)
        return full.value_pos, full.key_pos

    result.value_pos = LazyPositions(index.value_at, lambda: everything()[0])
    result.key_pos = LazyPositions(index.key_at, lambda: everything()[1])
    return result


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
        node = _compose(text, _loader(text))
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
    shared = "&" in text
    if node is None:
        return YamlParse(None)
    if not (may_hold_alias(text) and may_hold_anchor(text)):
        quick = _quick(node, line_offset, max_nodes, max_depth)
        if quick is not None:
            return quick
    builder = _Builder(line_offset, max_nodes, max_depth, shared=shared)
    try:
        builder.result.data = builder.build(node, (), 0)
    except RecursionError:
        raise YamlPosError("the document is nested too deeply to read", _mark(node, line_offset)) from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        if isinstance(exc, YamlPosError):
            raise
        raise YamlPosError(f"cannot read a value: {exc}", _mark(node, line_offset)) from None
    return builder.result
