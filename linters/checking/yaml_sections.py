"""Many versions of one YAML file, parsed section by section: a section unchanged since an earlier
version is not parsed again.

Consecutive versions of an ORCHESTRATION file differ in a few lines (a status, a score, the
resumption section), yet parsing each version whole costs the same as parsing the first. Here a
version written in plain block style is cut where its block structure says it may be cut: the
entries of a block mapping (``key:`` lines at the mapping's indentation) and the items of a block
sequence (``-`` lines at its indentation), recursively. A piece is parsed (by
:func:`ctxres.formats.yamlpos.parse_yaml`, so scalars mean what they mean to ``ctxres check``) only the
first time its text is seen; the version's data is assembled from the pieces.

A version with as many lines as the version parsed before it is not searched for its cuts again
when its changed lines cannot move one (blank, comment or deeper lines, or lines that start a
piece before and after): it is cut where the previous version was, and only the pieces holding a
changed line are read; pieces with no changed line are the previous version's very objects. A
piece that changed is cut further than :data:`LEAF_CHARS` asks (down to its entries or items,
when it can be), so that the next change to it reads only the lines that changed; a piece of one
line ``key: value`` whose value is a plain word or number, or a quoted string without escapes, is
read without the parser (:func:`_simple_entry`, what the parser reads there).

The result is the data of :func:`ctxres.formats.yamlpos.parse_yaml` on the whole text, or :data:`WHOLE`
when that cannot be guaranteed and the caller must parse the whole text itself: anything but plain
block structure at a cut (a ``---`` line, a quoted or complex key, a tab or a YAML line break other
than ``\\n``), a piece that does not parse on its own (an alias of an anchor in another piece, a
flow collection spanning lines...), an anchor or an alias anywhere (the document-wide alias limit),
nesting past :data:`MAX_DEPTH`, and many brackets (``yamlguard``'s document-wide nesting bound). A
document that is not valid YAML always takes that path, so its error is the whole parse's.

Pure: text in, data out; the parsed pieces are shared between versions and must not be modified.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from itertools import accumulate, compress, count
from operator import itemgetter, ne
from typing import Any, NamedTuple

import yaml

from ctxres.formats.yamlguard import C_SAFE_DEPTH
from ctxres.formats.yamlpos import YamlPosError, parse_yaml

# Depth past which a version is parsed whole (yamlpos refuses 200; real files nest about 8 deep).
MAX_DEPTH = 64
# Pieces of at most this many characters are parsed as they are, without cutting them further
# (unless they changed since the version before: see _FINE).
LEAF_CHARS = 400
# Added to a piece's kind (0 an entry, 1 an item): the piece is cut as far as it can be.
_FINE = 2


# A piece of one line `key: value` or `value` (an item, its dash blanked; see _simple_value): the
# value a quoted string of printable ASCII without escapes (no backslash, no quote of its kind), or a
# plain word of letters, digits and "_".
_VALUE_PATTERN = r'(?:"([ !#-\[\]-~]*)"|\x27([ -&(-~]*)\x27|([A-Za-z0-9_]+)) *\n?'
_SIMPLE_ENTRY = re.compile(r" *([A-Za-z_][A-Za-z0-9_.-]*): " + _VALUE_PATTERN)
_SIMPLE_ITEM = re.compile(" *" + _VALUE_PATTERN)
_STR_TAG, _INT_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"
_NOT_SIMPLE: Any = object()


@functools.lru_cache(maxsize=4096)
def _plain_tag(word: str) -> str:
    """The tag PyYAML's resolver gives the plain scalar ``word`` (words and numbers recur)."""
    resolver: Any = yaml.resolver.Resolver()
    return str(resolver.resolve(yaml.ScalarNode, word, (True, False)))


def _simple_value(double: str | None, single: str | None, plain: str | None) -> Any:
    """The value :func:`ctxres.formats.yamlpos.parse_yaml` reads from a matched value of :data:`_VALUE_PATTERN`:
    a quoted string, a plain word that is a string, a plain decimal integer (no leading zero, as
    yamlpos reads it); :data:`_NOT_SIMPLE` for any other plain word (true, null, 1_000...)."""
    if plain is None:
        return double if double is not None else single
    tag = _plain_tag(plain)
    if tag == _STR_TAG:
        return plain
    if tag == _INT_TAG and plain.isdigit() and (plain[0] != "0" or len(plain) == 1):
        return int(plain)
    return _NOT_SIMPLE


def _simple_entry(text: str) -> tuple[str, Any] | None:
    """The ``(key, value)`` that :func:`ctxres.formats.yamlpos.parse_yaml` reads from ``text``, a piece of one
    line ``key: value`` (its line break, if any, last) whose value is simple (:func:`_simple_value`);
    None for anything else (the parser reads it)."""
    match = _SIMPLE_ENTRY.fullmatch(text)
    if match is None:
        return None
    key, double, single, plain = match.groups()
    value = _simple_value(double, single, plain)
    return None if value is _NOT_SIMPLE else (key, value)


def _simple_item(text: str) -> Any:
    """The value :func:`ctxres.formats.yamlpos.parse_yaml` reads from ``text``, an item of one line (its dash
    blanked) whose value is simple (:func:`_simple_value`); :data:`_NOT_SIMPLE` for anything else."""
    match = _SIMPLE_ITEM.fullmatch(text)
    return _NOT_SIMPLE if match is None else _simple_value(*match.groups())


class _Whole:
    def __repr__(self) -> str:
        return "WHOLE"


WHOLE: Any = _Whole()
"""Returned when the version must be parsed whole."""

# Tabs, and the line breaks YAML knows besides "\n": the cuts would not be where YAML sees lines.
_UNCUTTABLE = "\t\r\x85\u2028\u2029"
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*):(?= |\n|\Z)")
_ITEM = re.compile(r"-(?= |\n|\Z)")
_FIRST_CONTENT = re.compile(r"^( *)(?=[^ \n#])", re.M)
_BLANKS = re.compile(" *")
_AT: dict[int, re.Pattern[str]] = {}
# The patterns start with a newline: the regular expression engine skips to each one quickly.


def _anchor_or_alias(text: str) -> bool:
    """Whether ``text`` may hold an anchor (``&a``) or an alias (``*a``): one of them followed by a
    name, where a node may start (at a line start, after a blank, ``[``, ``{`` or ``,``)."""
    for mark in "&*":
        at = text.find(mark)
        while at >= 0:
            before, after = text[at - 1 : at] or "\n", text[at + 1 : at + 2]
            if (before.isspace() or before in "[{,") and after and not after.isspace() and after not in "]},":
                return True
            at = text.find(mark, at + 1)
    return False


def _lines_at(text: str, indent: int) -> list[int]:
    """The offsets of the lines of ``text`` whose content (not a blank, not a comment) starts at
    ``indent``; :class:`_Fail` when a line's content starts left of it (one scan finds both)."""
    pattern = _AT.get(indent)
    if pattern is None:
        # The lookahead takes the blanks once (atomic): a deeper line fails without backtracking.
        pattern = _AT[indent] = re.compile("\n(?=( {0,%d}))\\1(?=[^ \n#])" % indent)  # noqa: UP031
    starts = []
    first = _BLANKS.match(text).end()  # type: ignore[union-attr]  # always matches
    if first < len(text) and text[first] not in "\n#":
        if first < indent:
            raise _Fail
        if first == indent:
            starts.append(0)
    for match in pattern.finditer(text):
        if match.end() - match.start() != indent + 1:
            raise _Fail
        starts.append(match.start() + 1)
    return starts


class _Fail(Exception):
    """A piece cannot be read on its own: parse the whole version."""


class _Block(NamedTuple):
    """How a block mapping or sequence was cut: the lines (of its text) where its pieces start."""

    indent: int
    mapping: bool
    starts: tuple[int, ...]
    pieces: tuple[_Piece, ...]


class _Piece(NamedTuple):
    """A piece's value (``(key, value)`` for a mapping entry) and the block it was cut into (None:
    parsed as it is)."""

    value: Any
    block: _Block | None


_VALUE = itemgetter(0)  # a _Piece's value


class _Last(NamedTuple):
    """The last version cut: its lines, its cut, its data, how many brackets it holds, its text, and
    where each run of :data:`_RUN` lines starts in it (see :func:`lines_against`)."""

    lines: list[str]
    block: _Block
    data: dict[str, Any]
    brackets: int
    text: str
    runs: list[int]


# Lines compared at once (one comparison of their text) when a version is compared with the one before.
_RUN = 16


def run_starts(lines: list[str]) -> list[int]:
    """Where each run of :data:`_RUN` whole lines (a newline after each) of ``"\\n".join(lines)``
    starts, then where the rest starts."""
    return list(accumulate([len(line) + 1 for line in lines[:-1]], initial=0))[::_RUN]


def lines_against(
    text: str, old_text: str, old_lines: list[str], old_runs: list[int]
) -> tuple[list[str], list[int], list[int]] | None:
    """``text.split("\\n")``, the indices of its lines that differ from ``old_lines`` (``old_text``
    split, its runs at ``old_runs``: :func:`run_starts`) and its own runs, when it has as many lines;
    None otherwise. A run of lines that did not change is one comparison of its text, not one a line."""
    lines: list[str] = []
    changed: list[int] = []
    runs: list[int] = []
    position = 0
    for run in range(len(old_runs) - 1):
        runs.append(position)
        start, end = old_runs[run], old_runs[run + 1]
        first = run * _RUN
        if text.startswith(old_text[start:end], position):
            lines += old_lines[first : first + _RUN]
            position += end - start
            continue
        *mine, after = text[position:].split("\n", _RUN)
        if len(mine) < _RUN:
            return None  # fewer lines
        lines += mine
        changed += compress(count(first), map(ne, mine, old_lines[first : first + _RUN]))
        position = len(text) - len(after)
    runs.append(position)
    rest = text[position:].split("\n")
    first = len(lines)
    if first + len(rest) != len(old_lines):
        return None
    changed += compress(count(first), map(ne, rest, old_lines[first:]))
    lines += rest
    return lines, changed, runs


class SectionParser:
    """Parses versions of one file, remembering each piece it parsed (by its text), and how the last
    version was cut: the next version, when it has as many lines and differs only in lines that
    cannot move a cut, is cut the same way, and only the pieces whose lines changed are read."""

    def __init__(self) -> None:
        self._pieces: dict[tuple[str, int, int], Any] = {}
        self._blocks: dict[tuple[str, int, int], _Block | None] = {}
        self._last: _Last | None = None
        # The column of the content of each changed line, before and after (see :func:`_column`).
        self._columns: dict[int, tuple[int, int]] = {}
        self.pieces_parsed = 0
        self.cut_as_before = 0  # versions cut as the version before them was

    def parse(self, text: str) -> Any:
        """The data of ``text`` (as :func:`ctxres.formats.yamlpos.parse_yaml` builds it), or :data:`WHOLE`."""
        last = self._last
        against = None if last is None else lines_against(text, last.text, last.lines, last.runs)
        if last is not None and against is not None:
            old_lines = last.lines
            lines, changed, runs = against
            if not changed:
                return last.data
            # The last version passed the checks of the whole text: the changed lines decide (the
            # checks of the lines joined are those of each line: an anchor or an alias is read
            # within one line).
            now = "\n".join([lines[i] for i in changed])
            brackets = last.brackets + _brackets(now) - _brackets("\n".join([old_lines[i] for i in changed]))
            if brackets > C_SAFE_DEPTH or _uncuttable(now):
                return WHOLE
            self._columns = {i: (_column(old_lines[i]), _column(lines[i])) for i in changed}
            try:
                updated = self._update(last.block, old_lines, lines, changed, 0)
            except _Fail:
                return WHOLE  # a piece that does not parse: as the whole cut would find
            if updated is not None:
                data, block = updated
                self._last = _Last(lines, block, data, brackets, text, runs)
                self.cut_as_before += 1
                return data
        brackets = _brackets(text)
        if brackets > C_SAFE_DEPTH or _uncuttable(text):
            return WHOLE
        first = _FIRST_CONTENT.search(text)
        if first is None or first.group(1) or not _KEY.match(text, first.end()):
            return WHOLE
        try:
            data, block = self._mapping(text, 0, 0)
        except _Fail:
            return WHOLE
        lines = text.split("\n")
        self._last = _Last(lines, block, data, brackets, text, run_starts(lines))
        return data

    # Cutting a version as its predecessor was cut.

    def _update(
        self,
        old: _Block,
        old_lines: list[str],
        lines: list[str],
        changed: list[int],
        depth: int,
        span: tuple[int, int, dict[int, tuple[int, ...]]] | None = None,
    ) -> tuple[Any, _Block] | None:
        """The block of the lines ``span`` (first, end, and the dashes blanked on its items' first
        lines; by default the whole version) of ``lines``, a version of the text ``old`` was cut
        from with as many lines (these ``changed``), cut as ``old`` was; or None when a changed line
        may move a cut (then the text is cut anew). A changed line moves no cut when it is not
        before the block's first line of content and, before and after, it is blank, a comment or
        deeper than the block's pieces, or it starts a piece (a ``key:`` of a mapping, a ``-`` of a
        sequence at the block's indentation)."""
        first, stop, dashes = span if span is not None else (0, len(lines), {})
        indent, starts = old.indent, old.starts
        if changed[0] < first + starts[0]:
            return None
        cut = _KEY if old.mapping else _ITEM
        columns = self._columns
        for i in changed:
            if i in dashes:
                was, now = _line(old_lines, i, dashes), _line(lines, i, dashes)
                column_was, column_now = _column(was), _column(now)
            else:
                was, now = old_lines[i], lines[i]
                column_was, column_now = columns[i]
            if column_was > indent and column_now > indent:
                continue  # blank, a comment or deeper, before and after
            if column_was == indent == column_now and cut.match(was, indent) and cut.match(now, indent):
                continue  # starts a piece, before and after
            return None
        kind = 0 if old.mapping else 1
        depth_of_piece = depth if old.mapping else depth + 1
        pieces = list(old.pieces)
        groups: dict[int, list[int]] = {}  # piece -> its changed lines
        for i in changed:
            groups.setdefault(bisect_right(starts, i - first) - 1, []).append(i)
        for index, mine in groups.items():
            start = first + starts[index]
            end = first + starts[index + 1] if index + 1 < len(starts) else stop
            piece_dashes = dashes
            if not old.mapping:  # an item's text has a blank for its dash
                piece_dashes = {**dashes, start: (*dashes.get(start, ()), indent)}
            old_piece = pieces[index]
            piece = None
            if old_piece.block is not None:
                piece = self._update_piece(
                    kind, old_piece, old_lines, lines, mine, depth_of_piece, (start, end, piece_dashes)
                )
            if piece is None:  # read anew, and cut as far as it can be: its next change reads less
                piece_text = _text(lines, start, end, piece_dashes)
                fine = kind + _FINE
                piece = _Piece(
                    self._cached(fine, piece_text, depth_of_piece), self._blocks.get((piece_text, fine, depth_of_piece))
                )
            pieces[index] = piece
        values = map(_VALUE, pieces)
        data = dict(values) if old.mapping else list(values)  # dict(): the last of duplicate keys, as YAML
        return data, _Block(indent, old.mapping, starts, tuple(pieces))

    def _update_piece(
        self,
        kind: int,
        old: _Piece,
        old_lines: list[str],
        lines: list[str],
        changed: list[int],
        depth: int,
        span: tuple[int, int, dict[int, tuple[int, ...]]],
    ) -> _Piece | None:
        """A changed piece (the lines ``span``) cut as its previous version was (see :meth:`_update`), or None."""
        assert old.block is not None
        start, end, dashes = span
        if kind == 0:  # an entry: its first line (`key:`) must be the same, the rest is its block
            if changed[0] == start:
                return None
            updated = self._update(old.block, old_lines, lines, changed, depth + 1, (start + 1, end, dashes))
            if updated is None:
                return None
            data, block = updated
            return _Piece((old.value[0], data), block)
        updated = self._update(old.block, old_lines, lines, changed, depth, span)
        if updated is None:
            return None
        data, block = updated
        return _Piece(data, block)

    # Cutting a text anew.

    def _leaf(self, text: str, depth: int) -> Any:
        """``text`` parsed as it is (a piece whose root is at nesting ``depth``)."""
        self.pieces_parsed += 1
        try:
            return parse_yaml(text, max_depth=MAX_DEPTH - depth).data
        except (YamlPosError, RecursionError):
            raise _Fail from None

    def _cached(self, kind: int, text: str, depth: int) -> Any:
        """The value of a piece: an entry (``kind`` 0) or an item (1), cut as :data:`LEAF_CHARS`
        says; or cut as far as it can be (``kind`` 0 or 1 plus :data:`_FINE`)."""
        key = (text, kind, depth)
        try:
            value = self._pieces[key]
        except KeyError:
            block: _Block | None = None
            fine = kind >= _FINE
            try:
                if kind % _FINE == 0:
                    value, block = self._entry(text, depth, fine)
                else:
                    value, block = self._item(text, depth, fine)
            except _Fail:
                value = WHOLE
            self._pieces[key] = value
            self._blocks[key] = block
        if value is WHOLE:
            raise _Fail
        return value

    def _mapping(self, text: str, indent: int, depth: int) -> tuple[dict[str, Any], _Block]:
        """A block mapping whose keys are at ``indent`` (``text`` holds nothing left of it)."""
        if depth >= MAX_DEPTH:
            raise _Fail
        starts: list[int] = []
        for start in _lines_at(text, indent):
            at = start + indent
            if _KEY.match(text, at):
                starts.append(start)
            elif not (_ITEM.match(text, at) and starts):  # `key:` followed by `- item` lines at the same indentation
                raise _Fail
        out: dict[str, Any] = {}
        pieces = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(text)
            piece = text[start:end]
            key, value = entry = self._cached(0, piece, depth)
            out[key] = value
            pieces.append(_Piece(entry, self._blocks.get((piece, 0, depth))))
        return out, _Block(indent, True, _line_numbers(text, starts), tuple(pieces))

    def _entry(self, text: str, depth: int, fine: bool = False) -> tuple[tuple[str, Any], _Block | None]:
        """One ``key: value`` piece of a mapping at nesting ``depth``: its key and value (cut below
        :data:`LEAF_CHARS` too when ``fine``; then a cut that fails reads the piece whole)."""
        if fine or len(text) > LEAF_CHARS:
            line_end = text.find("\n")
            head = text if line_end < 0 else text[:line_end]
            match = _KEY.search(head)
            assert match is not None
            inline = head[match.end() :].strip()
            if not inline or inline.startswith("#"):
                nested = text[line_end + 1 :]
                try:
                    cut = self._block(nested, depth + 1, len(head) - len(head.lstrip(" ")))
                except _Fail:
                    if len(text) > LEAF_CHARS:
                        raise
                    cut = WHOLE
                if cut is not WHOLE:
                    value, block = cut
                    return (match.group(1), value), block
        if depth < MAX_DEPTH - 2:  # the parser's depth limit is far
            simple = _simple_entry(text)
            if simple is not None:
                return simple, None
        data = self._leaf(text, depth)
        if not isinstance(data, dict) or len(data) != 1:
            raise _Fail
        ((key, value),) = data.items()
        return (key, value), None

    def _block(self, text: str, depth: int, parent_indent: int) -> Any:
        """The node below a ``key:`` line (at ``parent_indent``) and its cut, or WHOLE to read the
        entry as one piece."""
        first = _FIRST_CONTENT.search(text)
        if first is None:
            return WHOLE
        indent = len(first.group(1))
        at = first.end()
        if indent < parent_indent:
            return WHOLE
        if _ITEM.match(text, at):
            return self._sequence(text, indent, depth)
        if indent > parent_indent and _KEY.match(text, at):
            return self._mapping(text, indent, depth)
        return WHOLE

    def _sequence(self, text: str, indent: int, depth: int) -> tuple[list[Any], _Block]:
        """A block sequence whose ``-`` are at ``indent``."""
        if depth >= MAX_DEPTH:
            raise _Fail
        starts: list[int] = []
        for start in _lines_at(text, indent):
            if not _ITEM.match(text, start + indent):
                raise _Fail
            starts.append(start)
        items = []
        pieces = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(text)
            dash = start + indent
            piece = text[start:dash] + " " + text[dash + 1 : end]
            value = self._cached(1, piece, depth + 1)
            items.append(value)
            pieces.append(_Piece(value, self._blocks.get((piece, 1, depth + 1))))
        return items, _Block(indent, False, _line_numbers(text, starts), tuple(pieces))

    def _item(self, text: str, depth: int, fine: bool = False) -> tuple[Any, _Block | None]:
        """One sequence item (its ``-`` replaced by a blank) at nesting ``depth`` (cut below
        :data:`LEAF_CHARS` too when ``fine``; then a cut that fails reads the item whole)."""
        if fine or len(text) > LEAF_CHARS:
            first = _FIRST_CONTENT.search(text)
            if first is not None:
                indent = len(first.group(1))
                at = first.end()
                try:
                    if _ITEM.match(text, at):
                        return self._sequence(text, indent, depth)
                    if _KEY.match(text, at):
                        return self._mapping(text, indent, depth)
                except _Fail:
                    if len(text) > LEAF_CHARS:
                        raise
        if depth < MAX_DEPTH - 2:  # the parser's depth limit is far
            simple = _simple_item(text)
            if simple is not _NOT_SIMPLE:
                return simple, None
        return self._leaf(text, depth), None


def _line_numbers(text: str, starts: list[int]) -> tuple[int, ...]:
    """The line (0-based) of each offset of ``starts`` (ascending, each at a line start)."""
    numbers = []
    line = previous = 0
    for start in starts:
        line += text.count("\n", previous, start)
        numbers.append(line)
        previous = start
    return tuple(numbers)


def _line(lines: list[str], index: int, dashes: dict[int, tuple[int, ...]]) -> str:
    """Line ``index`` as the piece holding it reads it: the dashes of the items it starts blanked."""
    line = lines[index]
    for column in dashes.get(index, ()):
        line = line[:column] + " " + line[column + 1 :]
    return line


def _text(lines: list[str], start: int, end: int, dashes: dict[int, tuple[int, ...]]) -> str:
    """The text of the piece of lines ``start`` to ``end`` (with a line break when more follows)."""
    piece = lines[start:end]
    for index in dashes:
        if start <= index < end:
            piece[index - start] = _line(lines, index, dashes)
    return "\n".join(piece) + ("\n" if end < len(lines) else "")


def _brackets(text: str) -> int:
    return text.count("[") + text.count("{")


def _uncuttable(text: str) -> bool:
    """Whether ``text`` holds what no cut may hold (decided line by line as well as for the whole)."""
    return any(char in text for char in _UNCUTTABLE) or _anchor_or_alias(text)


_NO_CONTENT = 1 << 62  # the column of a blank or comment line: deeper than any block


def _column(line: str) -> int:
    """The column where the content of ``line`` starts, or :data:`_NO_CONTENT` for a blank or
    comment line. A line can be no cut of a block at ``indent`` when its column is past
    ``indent``; it starts a piece of the block when its column is ``indent`` and a ``key:`` (a
    ``-`` in a sequence) starts there."""
    content = line.lstrip(" ")
    if not content or content[0] == "#":
        return _NO_CONTENT
    return len(line) - len(content)
