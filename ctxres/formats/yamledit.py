"""Surgical YAML edits: change one value, add one key or one list item, replace one top-level
entry, and leave every other byte of the file (comments, quoting, indentation) as it was.

Round-tripping a whole file through a YAML library re-flows lines and re-quotes values; here we
locate the node with PyYAML (its marks give exact character offsets) and splice text.
"""

from __future__ import annotations

import re

import yaml

from ctxres.formats.document import JsonPath
from ctxres.formats.yamlemit import flow, key_text, render, scalar
from ctxres.formats.yamlguard import YamlGuardError, loader_for

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class EditError(ValueError):
    """The edit cannot be made safely; the message says why."""


def _compose(text: str) -> yaml.Node:
    try:
        node = yaml.compose(text, Loader=loader_for(text))  # libyaml crashes on very deep nesting
    except (YamlGuardError, RecursionError) as exc:
        raise EditError(f"the file cannot be read: {exc or 'it is nested too deeply'}") from None
    except yaml.YAMLError as exc:
        raise EditError(f"the file is not valid YAML: {exc}") from None
    if node is None:
        raise EditError("the file is empty")
    return node


def find(root: yaml.Node, path: JsonPath) -> tuple[yaml.Node | None, yaml.Node]:
    """(key node or None, value node) at ``path``."""
    key_node: yaml.Node | None = None
    node = root
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, yaml.SequenceNode) or not 0 <= part < len(node.value):
                raise EditError(f"no item {part} at {list(path)}")
            key_node, node = None, node.value[part]
            continue
        if not isinstance(node, yaml.MappingNode):
            raise EditError(f"{part!r} is not inside a mapping")
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == part:
                key_node, node = k, v
                break
        else:
            raise EditError(f"no key {part!r} at {list(path)}")
    return key_node, node


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end == -1 else end


def _break_at(text: str, index: int) -> str:
    """The line break of the line holding ``index`` (``\\r\\n`` or ``\\n``); on a last line without one,
    the file's first break. Added lines take it, so a CRLF file gets no bare LF."""
    end = text.find("\n", index)
    if end == -1:
        end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _insert_lines(text: str, insert_at: int, lines: list[str]) -> str:
    """``lines`` inserted as new lines after the line that ends at ``insert_at``, with that line's break."""
    newline = _break_at(text, insert_at)
    if newline == "\r\n" and text[insert_at - 1 : insert_at] == "\r":
        insert_at -= 1  # between the line's content and its CR LF
    block = "\n".join(lines)
    if newline == "\r\n":
        block = re.sub(r"\r?\n", "\r\n", block)
    return text[:insert_at] + newline + block + text[insert_at:]


def replace_value(text: str, path: JsonPath, new_scalar: str) -> str:
    """Replace the scalar at ``path`` by ``new_scalar`` (already YAML), keeping any comment after it."""
    _, node = find(_compose(text), path)
    if not isinstance(node, yaml.ScalarNode) or node.style in ("|", ">"):
        raise EditError(f"{'.'.join(map(str, path))} is not a one-line value")
    start, end = node.start_mark.index, node.end_mark.index
    if start == end:  # an empty value (`key:`) has no extent; write after the colon
        return (
            text[:start] + " " + new_scalar + text[end:]
            if text[start - 1 : start] == ":"
            else (text[:start] + new_scalar + text[end:])
        )
    return text[:start] + new_scalar + text[end:]


def _content_end(node: yaml.Node) -> int:
    """Index just past the last character of ``node``'s own content.

    A block collection's end mark is where the next token starts (after any comments), so it is
    found from its last scalar instead; scalars and flow collections end exactly.
    """
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        key, value = node.value[-1]
        value_end = _content_end(value)
        return max(value_end, int(key.end_mark.index))
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1])
    return int(node.end_mark.index)


def _last_line_of(text: str, node: yaml.Node) -> int:
    """Index of the end of the last line that holds ``node``'s content (later comments excluded)."""
    end = _content_end(node)
    return _line_end(text, max(end - 1, 0))


def set_key(text: str, mapping_path: JsonPath, key: str, value: Any) -> str:
    """Set ``key`` in the block mapping at ``mapping_path`` (replace a one-line value, or append a key)."""
    root = _compose(text)
    _, mapping = find(root, mapping_path)
    if not isinstance(mapping, yaml.MappingNode):
        raise EditError(f"{'.'.join(map(str, mapping_path))} is not a mapping")
    for k, v in mapping.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            if isinstance(value, (dict, list)) or not isinstance(v, yaml.ScalarNode):
                raise EditError(f"{key} holds a structure; only one-line values are replaced")
            return replace_value(text, (*mapping_path, key), scalar(value))
    if mapping.flow_style or not mapping.value:
        raise EditError(f"{'.'.join(map(str, mapping_path))} is a flow mapping; cannot add {key} in place")
    column = mapping.value[0][0].start_mark.column
    insert_at = _last_line_of(text, mapping.value[-1][1])
    if isinstance(value, (dict, list)) and value:
        lines = [f"{' ' * column}{key_text(key)}:", *render(value, column + 2)]
    else:
        lines = [f"{' ' * column}{key_text(key)}: {flow(value)}"]
    return _insert_lines(text, insert_at, lines)


def append_item(text: str, sequence_path: JsonPath, item: Any) -> str:
    """Append ``item`` to the sequence at ``sequence_path``; an empty flow list ``[]`` becomes a block list."""
    root = _compose(text)
    key_node, seq = find(root, sequence_path)
    if not isinstance(seq, yaml.SequenceNode):
        raise EditError(f"{'.'.join(map(str, sequence_path))} is not a list")
    if seq.flow_style:
        if seq.value:
            raise EditError(f"{'.'.join(map(str, sequence_path))} is a non-empty flow list; cannot append in place")
        if key_node is None:
            raise EditError("cannot turn a nested flow list into a block list")
        column = key_node.start_mark.column + 2
        start, end = seq.start_mark.index, seq.end_mark.index
        before = text[:start].rstrip(" ")
        return _insert_lines(before + text[end:], len(before), render([item], column))
    first = seq.value[0]
    dash = text.rfind("-", _line_start(text, first.start_mark.index), first.start_mark.index)
    column = dash - _line_start(text, first.start_mark.index)
    insert_at = _last_line_of(text, seq.value[-1])
    return _insert_lines(text, insert_at, render([item], column))


def top_level_span(text: str, key: str) -> tuple[int, int] | None:
    """Character span of a top-level entry ``key:`` through its last indented line (comments and
    blank lines that follow it at column 0 are left outside); None when absent."""
    match = re.search(rf"^{re.escape(key)}[ \t]*:", text, re.MULTILINE)
    if match is None:
        return None
    start = match.start()
    end = _line_end(text, start)
    position = end + 1
    while position < len(text):
        line_end = _line_end(text, position)
        line = text[position:line_end]
        if line.strip() and not line[0].isspace() and not line.startswith("#"):
            break  # the next top-level key, or a document marker
        if line.strip() and line[0].isspace() and not line.lstrip().startswith("#"):
            end = line_end  # indented content belongs to the entry
        elif line.strip() and line[0].isspace():
            end = line_end  # an indented comment inside the entry
        position = line_end + 1
    return start, end


def item_span(text: str, sequence_path: JsonPath, index: int) -> tuple[int, int, int]:
    """(start of the line of its dash, end of its last line, column of its dash) of item ``index`` of the
    block sequence at ``sequence_path``: the lines that hold it, comments after it left outside."""
    _, seq = find(_compose(text), sequence_path)
    if not isinstance(seq, yaml.SequenceNode) or seq.flow_style:
        raise EditError(f"{'.'.join(map(str, sequence_path))} is not a block list")
    if not 0 <= index < len(seq.value):
        raise EditError(f"no item {index} at {list(sequence_path)}")
    node = seq.value[index]
    line = _line_start(text, node.start_mark.index)
    dash = text.rfind("-", line, node.start_mark.index)
    if dash < 0 or text[line:dash].strip():
        raise EditError(f"item {index} at {list(sequence_path)} does not start its own line")
    return line, _last_line_of(text, node), dash - line


def replace_item(text: str, sequence_path: JsonPath, index: int, block: str) -> str:
    """Item ``index`` of the block sequence at ``sequence_path`` replaced by ``block`` (block YAML of a list of
    one item, at column 0, indented here to the item's column); every other byte kept."""
    start, end, column = item_span(text, sequence_path, index)
    lines = [" " * column + line if line else line for line in block.rstrip("\n").split("\n")]
    return text[:start] + "\n".join(lines) + text[end:]


def remove_item(text: str, sequence_path: JsonPath, index: int) -> str:
    """Item ``index`` of the block sequence at ``sequence_path`` removed with its lines (and the line end)."""
    start, end, _ = item_span(text, sequence_path, index)
    return text[:start] + text[end + 1 :] if end < len(text) else text[:start].rstrip("\n") + "\n"
