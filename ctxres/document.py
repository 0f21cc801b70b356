"""A loaded artifact: its data plus the line:column of every key and value in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxres.findings import Position

JsonPath = tuple[str | int, ...]


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


@dataclass
class Document:
    """The parsed content of one file (or of the front matter of a Markdown file).

    ``data`` holds JSON-compatible values only: YAML timestamps are turned into ISO-8601 strings
    and their paths kept in ``yaml_timestamps`` so a rule can say "quote this value".
    ``value_pos`` and ``key_pos`` map a path to where its value or its key starts.
    """

    path: str
    kind: str
    text: str
    data: Any
    value_pos: dict[JsonPath, Position] = field(default_factory=dict)
    key_pos: dict[JsonPath, Position] = field(default_factory=dict)
    yaml_timestamps: list[JsonPath] = field(default_factory=list)
    # For JSON Lines: the file line of each item of ``data``.
    line_numbers: list[int] = field(default_factory=list)
    # Where the file is on disk (``path`` is how it is shown); empty for text parsed in memory.
    fs_path: str = ""

    def locate(self, path: JsonPath, *, key: bool = False) -> Position:
        """Where ``path`` is in the file; the nearest known ancestor when it is absent."""
        probe = tuple(path)
        while True:
            if key and probe in self.key_pos:
                return self.key_pos[probe]
            if probe in self.value_pos:
                return self.value_pos[probe]
            if not key and probe in self.key_pos:
                return self.key_pos[probe]
            if not probe:
                return Position(1, 1)
            probe = probe[:-1]

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
