"""Many versions of one YAML file, parsed section by section: a section unchanged since an earlier
version is not parsed again.

Consecutive versions of an ORCHESTRATION file differ in a few lines (a status, a score, the
resumption section), yet parsing each version whole costs the same as parsing the first. Here a
version written in plain block style is cut where its block structure says it may be cut: the
entries of a block mapping (``key:`` lines at the mapping's indentation) and the items of a block
sequence (``-`` lines at its indentation), recursively. A piece is parsed (by
:func:`ctxres.yamlpos.parse_yaml`, so scalars mean what they mean to ``ctxres check``) only the
first time its text is seen; the version's data is assembled from the pieces.

The result is the data of :func:`ctxres.yamlpos.parse_yaml` on the whole text, or :data:`WHOLE`
when that cannot be guaranteed and the caller must parse the whole text itself: anything but plain
block structure at a cut (a ``---`` line, a quoted or complex key, a tab or a YAML line break other
than ``\\n``), a piece that does not parse on its own (an alias of an anchor in another piece, a
flow collection spanning lines...), an anchor or an alias anywhere (the document-wide alias limit),
nesting past :data:`MAX_DEPTH`, and many brackets (``yamlguard``'s document-wide nesting bound). A
document that is not valid YAML always takes that path, so its error is the whole parse's.

Pure: text in, data out; the parsed pieces are shared between versions and must not be modified.
"""

from __future__ import annotations

import re
from typing import Any

from ctxres.yamlguard import C_SAFE_DEPTH
from ctxres.yamlpos import YamlPosError, parse_yaml

# Depth past which a version is parsed whole (yamlpos refuses 200; real files nest about 8 deep).
MAX_DEPTH = 64
# Pieces of at most this many characters are parsed as they are, without cutting them further.
LEAF_CHARS = 400


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


class SectionParser:
    """Parses versions of one file, remembering each piece it parsed (by its text)."""

    def __init__(self) -> None:
        self._pieces: dict[tuple[str, int, int], Any] = {}
        self.pieces_parsed = 0

    def parse(self, text: str) -> Any:
        """The data of ``text`` (as :func:`ctxres.yamlpos.parse_yaml` builds it), or :data:`WHOLE`."""
        if (
            any(char in text for char in _UNCUTTABLE)
            or _anchor_or_alias(text)
            or text.count("[") + text.count("{") > C_SAFE_DEPTH
        ):
            return WHOLE
        first = _FIRST_CONTENT.search(text)
        if first is None or first.group(1) or not _KEY.match(text, first.end()):
            return WHOLE
        try:
            return self._mapping(text, 0, 0)
        except _Fail:
            return WHOLE

    def _leaf(self, text: str, depth: int) -> Any:
        """``text`` parsed as it is (a piece whose root is at nesting ``depth``)."""
        self.pieces_parsed += 1
        try:
            return parse_yaml(text, max_depth=MAX_DEPTH - depth).data
        except (YamlPosError, RecursionError):
            raise _Fail from None

    def _cached(self, kind: int, text: str, depth: int) -> Any:
        key = (text, kind, depth)
        try:
            value = self._pieces[key]
        except KeyError:
            try:
                value = self._entry(text, depth) if kind == 0 else self._item(text, depth)
            except _Fail:
                value = WHOLE
            self._pieces[key] = value
        if value is WHOLE:
            raise _Fail
        return value

    def _mapping(self, text: str, indent: int, depth: int) -> dict[str, Any]:
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
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(text)
            key, value = self._cached(0, text[start:end], depth)
            out[key] = value
        return out

    def _entry(self, text: str, depth: int) -> tuple[str, Any]:
        """One ``key: value`` piece of a mapping at nesting ``depth``: its key and value."""
        if len(text) > LEAF_CHARS:
            line_end = text.find("\n")
            head = text if line_end < 0 else text[:line_end]
            match = _KEY.search(head)
            assert match is not None
            inline = head[match.end() :].strip()
            if not inline or inline.startswith("#"):
                nested = text[line_end + 1 :]
                value = self._block(nested, depth + 1, len(head) - len(head.lstrip(" ")))
                if value is not WHOLE:
                    return match.group(1), value
        data = self._leaf(text, depth)
        if not isinstance(data, dict) or len(data) != 1:
            raise _Fail
        ((key, value),) = data.items()
        return key, value

    def _block(self, text: str, depth: int, parent_indent: int) -> Any:
        """The node below a ``key:`` line (at ``parent_indent``), or WHOLE to read the entry as one piece."""
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

    def _sequence(self, text: str, indent: int, depth: int) -> list[Any]:
        """A block sequence whose ``-`` are at ``indent``."""
        if depth >= MAX_DEPTH:
            raise _Fail
        starts: list[int] = []
        for start in _lines_at(text, indent):
            if not _ITEM.match(text, start + indent):
                raise _Fail
            starts.append(start)
        items = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(text)
            dash = start + indent
            items.append(self._cached(1, text[start:dash] + " " + text[dash + 1 : end], depth + 1))
        return items

    def _item(self, text: str, depth: int) -> Any:
        """One sequence item (its ``-`` replaced by a blank) at nesting ``depth``."""
        if len(text) > LEAF_CHARS:
            first = _FIRST_CONTENT.search(text)
            if first is not None:
                indent = len(first.group(1))
                at = first.end()
                if _ITEM.match(text, at):
                    return self._sequence(text, indent, depth)
                if _KEY.match(text, at):
                    return self._mapping(text, indent, depth)
        return self._leaf(text, depth)
