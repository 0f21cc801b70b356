"""Guards that keep hostile YAML from crashing or exhausting the process that reads it.

Two dangers are not handled by PyYAML itself:

- **Deep nesting.** libyaml's composer (``CSafeLoader``) recurses in C once per nesting level and
  has no limit: ``[[[[...`` 50,000 levels deep kills the interpreter with a segmentation fault (no
  exception, no output). :func:`loader_for` looks at the text first (a cheap upper bound of the
  nesting depth, computed with ``str.count`` and one regular expression): brackets nested more than
  :data:`C_SAFE_DEPTH` levels are refused outright; deep block indentation gets the pure Python
  ``SafeLoader``, which recurses in Python, so the document ends in a ``RecursionError`` that callers
  report, never in a crash. Ordinary documents keep the fast C loader.
- **Alias bombs** ("billion laughs"). PyYAML builds each anchored value once and shares it, so
  loading is cheap, but any later walk over the data (redaction, rendering, ``json.dumps``) visits
  every shared value as many times as aliases reach it: exponential time and memory.
  :func:`load` measures how many values the aliases add *before* building anything and refuses a
  document over the limit, as :mod:`ctxres.formats.yamlpos` does for the linters.

Standard library and PyYAML only, imported lazily: the hooks use this module.
"""

from __future__ import annotations

import re

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

C_SAFE_DEPTH = 1_000
"""Nesting bound up to which the C loader is used (it crashes somewhere past 20,000 levels here)."""
MAX_EXPANSION = 50_000
"""Values that aliases may add to a document, as ``ctxres.formats.loading.DEFAULT_MAX_NODES``."""
_BLOCK_PREFIX = re.compile(r"^[ \t?:-]{%d,}" % (C_SAFE_DEPTH // 2), re.M)  # noqa: UP031 - a constant pattern
_DEEP_LINE = r"[ \t?:-]{%d}" % (C_SAFE_DEPTH // 2)  # noqa: UP031 - _BLOCK_PREFIX without its ^ (re's cache compiles it)
_FLOW = re.compile(r"[\[\]{}]")
_INDENTATION = re.compile(r"(?:[ \t]|[-?:](?=[ \t]))*")  # leading blanks and block indicators ("- ", ": ")
TAB_FIX = "indent with spaces: replace the tab by as many spaces as the lines around it use"


class YamlGuardError(ValueError):
    """The document is refused (too deeply nested, an alias bomb, or a tab in the indentation, which
    :func:`load` names with its line and column); the message says which and ``offset`` where in
    the text (-1 when the whole document is meant)."""

    def __init__(self, message: str, offset: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def flow_excess(text: str) -> int:
    """The offset of the first ``[``/``{`` nested more than ``C_SAFE_DEPTH`` deep, or -1. Brackets in
    strings count too (an upper bound; an ordinary document nests a few levels)."""
    if text.count("[") + text.count("{") <= C_SAFE_DEPTH:
        return -1
    depth = 0
    for match in _FLOW.finditer(text):
        depth = depth + 1 if match.group() in "[{" else max(depth - 1, 0)
        if depth > C_SAFE_DEPTH:
            return match.start()
    return -1


def deep_block_offset(text: str) -> int:
    """The offset of the first line whose indentation and block indicators could nest it more than
    ``C_SAFE_DEPTH / 2`` levels deep, or -1."""
    match = _BLOCK_PREFIX.search(text)
    return match.start() if match else -1


def has_deep_block(text: str) -> bool:
    """``_BLOCK_PREFIX.search(text) is not None``, quicker: a line start is the start of the text or a line break,
    and the regular expression engine finds a literal line break faster than it tries ``^`` at every position."""
    return re.match(_DEEP_LINE, text) is not None or re.search("\n" + _DEEP_LINE, text) is not None


def indentation_tab(text: str, line: int) -> int:
    """The column (0-based) of the first tab in the indentation of ``line`` (0-based) of ``text``, or
    -1. The indentation is the leading blanks with the block indicators among them (``-\t- x``)."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return -1
    match = _INDENTATION.match(lines[line])
    return match.group().find("\t") if match else -1


def tab_error_place(text: str, exc: Any) -> tuple[int, int] | None:
    """(line, column), 0-based, of the tab in the indentation that made PyYAML stop with ``exc`` (a
    ``MarkedYAMLError``), or None when the error is something else. libyaml says "found character
    that cannot start any token" or "found a tab character that violates indentation" (naming the
    block the line continues, which misleads), the Python loader "found character '\\t' ..."."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or ""
    if mark is None or not ("tab" in problem or "\\t" in problem or "cannot start any token" in problem):
        return None
    column = indentation_tab(text, mark.line)
    return (mark.line, column) if column >= 0 else None


def tab_message(line: int, column: int) -> str:
    """The problem a tab in the indentation causes, at 1-based ``line`` and ``column``."""
    return f"a tab character is used for indentation at line {line} column {column}; YAML allows spaces only"


def loader_for(text: str | bytes) -> Any:
    """The loader class for ``text``: ``CSafeLoader`` when it is safe (and available), the pure Python
    ``SafeLoader`` when many lines of block indentation or ``-``/``?``/``:`` indicators could nest deep
    enough to crash libyaml (the Python one stops with a ``RecursionError`` instead).
    :class:`YamlGuardError` when brackets nest more than ``C_SAFE_DEPTH`` levels: no loader reads
    that in bounded time (the Python scanner looks ahead over every bracket)."""
    import yaml

    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    offset = flow_excess(text)
    if offset >= 0:
        raise YamlGuardError(
            f"the document is nested more than {C_SAFE_DEPTH:,} levels deep ([ and {{ brackets); refusing to read it",
            offset,
        )
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None or has_deep_block(text):
        return yaml.SafeLoader
    return fast


def expansion(root: Any, limit: int = MAX_EXPANSION) -> int:
    """How many values the aliases of the composed node graph ``root`` add (nodes reached more than
    once, counted with their subtrees), stopping early past ``limit``. :class:`YamlGuardError` for a
    recursive alias. Iterative: depth costs no Python recursion."""
    import yaml

    sizes: dict[int, int] = {}  # id(node) -> size of its expanded tree
    distinct = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node, yaml))
            if sizes[key] - distinct > limit:
                return sizes[key] - distinct
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlGuardError("a recursive alias refers to itself")
        open_nodes.add(key)
        distinct += 1
        stack.append((node, True))
        stack += [(child, False) for child in _children(node, yaml) if id(child) not in sizes]
    return sizes[id(root)] - distinct


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load(text: str | bytes, limit: int = MAX_EXPANSION) -> Any:
    """The data of one YAML document, like ``yaml.safe_load``, but never crashing on deep nesting and
    refusing alias bombs. Raises ``yaml.YAMLError``, :class:`YamlGuardError` (alias bomb, recursive
    alias, too deep, a tab in the indentation) or ``UnicodeDecodeError``."""
    import yaml

    loader = loader_for(text)(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise YamlGuardError("the document is nested too deeply to read") from None
        except yaml.MarkedYAMLError as exc:  # a tab in the indentation is named as such, with its place
            decoded = text.decode("utf-8-sig", "replace") if isinstance(text, bytes) else text
            place = tab_error_place(decoded, exc)
            if place is None:
                raise
            raise YamlGuardError(tab_message(place[0] + 1, place[1] + 1)) from None
        if node is None:
            return None
        # A document without a ``*`` has no alias: nothing to expand (the walk costs a hook more than the parse).
        aliased = b"*" in text if isinstance(text, bytes) else "*" in text
        added = expansion(node, limit) if aliased else 0
        if added > limit:
            raise YamlGuardError(f"aliases expand the document by more than {limit:,} values (an alias bomb?)")
        try:
            return loader.construct_document(node)
        except RecursionError:
            raise YamlGuardError("the document is nested too deeply to read") from None
    finally:
        loader.dispose()
