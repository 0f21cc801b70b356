"""A loaded artifact: its data plus the line:column of every key and value in it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping

from ctxres.findings import Position
from ctxres.records import Record

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

JsonPath = tuple[str | int, ...]

_COLUMN_BITS = 32


class PositionMap(MutableMapping[JsonPath, Position]):
    """Path -> :class:`Position`, stored as one integer per path until it is read.

    A parsed file has a position for every key and value, and most are never read (only those of findings
    are): a ``Position`` is made when one is looked up, not for each of the thousands of nodes of a file.
    """

    __slots__ = ("_packed",)

    def __init__(self) -> None:
        self._packed: dict[JsonPath, int] = {}

    @staticmethod
    def pack(line: int, col: int) -> int:
        return (line << _COLUMN_BITS) | col

    def put(self, path: JsonPath, packed: int) -> None:
        self._packed[path] = packed

    def put_first(self, path: JsonPath, packed: int) -> None:
        """Like ``setdefault``: an earlier position of ``path`` stays."""
        self._packed.setdefault(path, packed)

    def drop(self, path: JsonPath) -> None:
        self._packed.pop(path, None)

    def __getitem__(self, path: JsonPath) -> Position:
        packed = self._packed[path]
        return Position(packed >> _COLUMN_BITS, packed & ((1 << _COLUMN_BITS) - 1))

    def __setitem__(self, path: JsonPath, position: Position) -> None:
        self._packed[path] = self.pack(position.line, position.col)

    def __delitem__(self, path: JsonPath) -> None:
        del self._packed[path]

    def __contains__(self, path: object) -> bool:
        return path in self._packed

    def found(self, path: JsonPath) -> Position | None:
        """The position at ``path``, or None when there is none."""
        packed = self._packed.get(path)
        return None if packed is None else Position(packed >> _COLUMN_BITS, packed & ((1 << _COLUMN_BITS) - 1))

    def __iter__(self) -> Iterator[JsonPath]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def __repr__(self) -> str:
        return f"PositionMap({dict(self.items())!r})"


class LazyPositions(MutableMapping[JsonPath, Position]):
    """Path -> :class:`Position`, each looked up when it is asked for (``find(path)``: the packed position or
    None), all of them computed (``everything()``) only when the map is iterated or changed.

    A parser hands this out instead of a :class:`PositionMap` when it can answer one path at a time (from the
    nodes it parsed): most positions of a file are never read, and only those of findings are.
    """

    __slots__ = ("_everything", "_find", "_settled")

    def __init__(self, find: Callable[[JsonPath], int | None], everything: Callable[[], PositionMap]) -> None:
        self._find: Callable[[JsonPath], int | None] | None = find
        self._everything: Callable[[], PositionMap] | None = everything
        self._settled: PositionMap | None = None

    @property
    def settled(self) -> bool:
        return self._settled is not None

    def settle(self) -> PositionMap:
        """Every position, computed now; the parser's nodes are no longer needed (nor held)."""
        if self._settled is None:
            assert self._everything is not None
            self._settled = self._everything()
            self._find = self._everything = None
        return self._settled

    def __getitem__(self, path: JsonPath) -> Position:
        if self._settled is not None:
            return self._settled[path]
        assert self._find is not None
        packed = self._find(tuple(path))
        if packed is None:
            raise KeyError(path)
        return Position(packed >> _COLUMN_BITS, packed & ((1 << _COLUMN_BITS) - 1))

    def __contains__(self, path: object) -> bool:
        if self._settled is not None:
            return path in self._settled
        assert self._find is not None
        return isinstance(path, tuple) and self._find(path) is not None

    def found(self, path: JsonPath) -> Position | None:
        """The position at ``path`` (a tuple), or None: ``self[path] if path in self else None``, looked up once."""
        if self._settled is not None:
            return self._settled.found(path)
        assert self._find is not None
        packed = self._find(path)
        return None if packed is None else Position(packed >> _COLUMN_BITS, packed & ((1 << _COLUMN_BITS) - 1))

    def __setitem__(self, path: JsonPath, position: Position) -> None:
        self.settle()[path] = position

    def __delitem__(self, path: JsonPath) -> None:
        del self.settle()[path]

    def __iter__(self) -> Iterator[JsonPath]:
        return iter(self.settle())

    def __len__(self) -> int:
        return len(self.settle())

    def __repr__(self) -> str:
        return f"LazyPositions({dict(self.items())!r})"


def _found(positions: MutableMapping[JsonPath, Position], path: JsonPath) -> Position | None:
    """``positions[path] if path in positions else None``, looked up once (a lazy map: one walk of its nodes)."""
    if isinstance(positions, (LazyPositions, PositionMap)):
        return positions.found(path)
    return positions.get(path)  # a dict (its values are positions, never None)


def whole(positions: MutableMapping[JsonPath, Position]) -> MutableMapping[JsonPath, Position]:
    """``positions`` computed whole (no parser nodes held behind it): for a document kept past its checks."""
    return positions.settle() if isinstance(positions, LazyPositions) else positions


def format_json_path(path: JsonPath) -> str:
    """Render ``("a", 0, "b-c")`` as ``$.a[0]['b-c']`` (JSONPath, as check-jsonschema prints it)."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("_", "").isalnum() and not part[:1].isdigit():
            out += f".{part}"
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out += f"['{escaped}']"
    return out


class Document(Record):
    """The parsed content of one file (or of the front matter of a Markdown file).

    ``data`` holds JSON-compatible values only: YAML timestamps are turned into ISO-8601 strings
    and their paths kept in ``yaml_timestamps`` so a rule can say "quote this value".
    ``value_pos`` and ``key_pos`` map a path to where its value or its key starts.
    """

    __slots__ = ("data", "fs_path", "key_pos", "kind", "line_numbers", "path", "text", "value_pos", "yaml_timestamps")

    path: str
    kind: str
    text: str
    data: Any
    value_pos: MutableMapping[JsonPath, Position]
    key_pos: MutableMapping[JsonPath, Position]
    yaml_timestamps: list[JsonPath]
    # For JSON Lines: the file line of each item of ``data``.
    line_numbers: list[int]
    # Where the file is on disk (``path`` is how it is shown); empty for text parsed in memory.
    fs_path: str

    def __init__(
        self,
        path: str,
        kind: str,
        text: str,
        data: Any,
        value_pos: MutableMapping[JsonPath, Position] | None = None,
        key_pos: MutableMapping[JsonPath, Position] | None = None,
        yaml_timestamps: list[JsonPath] | None = None,
        line_numbers: list[int] | None = None,
        fs_path: str = "",
    ) -> None:
        self.path = path
        self.kind = kind
        self.text = text
        self.data = data
        self.value_pos = {} if value_pos is None else value_pos
        self.key_pos = {} if key_pos is None else key_pos
        self.yaml_timestamps = [] if yaml_timestamps is None else yaml_timestamps
        self.line_numbers = [] if line_numbers is None else line_numbers
        self.fs_path = fs_path

    def locate(self, path: JsonPath, *, key: bool = False) -> Position:
        """Where ``path`` is in the file; the nearest known ancestor when it is absent."""
        probe = tuple(path)
        while True:
            if key and (found := _found(self.key_pos, probe)) is not None:
                return found
            if (found := _found(self.value_pos, probe)) is not None:
                return found
            if not key and (found := _found(self.key_pos, probe)) is not None:
                return found
            if not probe:
                return Position(1, 1)
            probe = probe[:-1]

    def settle(self) -> Document:
        """This document with every position computed, holding no parser nodes: what a check across files keeps."""
        self.value_pos = whole(self.value_pos)
        self.key_pos = whole(self.key_pos)
        return self

    def stub(self) -> Document:
        """Who the document is (path, kind, place on disk) without its text, data or positions: what a
        check across files keeps of a file it does not need to read again."""
        return Document(path=self.path, kind=self.kind, text="", data=None, fs_path=self.fs_path)

    def get(self, path: JsonPath, default: Any = None) -> Any:
        """The value at ``path``, or ``default`` when any step is missing."""
        node = self.data
        for part in path:
            if isinstance(part, int):
                if not isinstance(node, list) or not -len(node) <= part < len(node):
                    return default
            elif not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node
