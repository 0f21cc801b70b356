"""Inline suppression comments.

``# ctxres: ignore[C006]`` (YAML) or ``<!-- ctxres: ignore[R002] -->`` (Markdown) on the line of a
finding silences it; ``ctxres: ignore`` without codes silences every rule on that line;
``ctxres: ignore-file[C006]`` anywhere in the file silences the codes for the whole file.
JSON has no comments: use ``per-file-ignores`` in the configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"ctxres:\s*(ignore-file|ignore)(?:\[([A-Z0-9,\s]*)\])?")
ALL = "*"


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)
    whole_file: set[str] = field(default_factory=set)

    def covers(self, code: str, line: int) -> bool:
        for codes in (self.whole_file, self.by_line.get(line, set())):
            if ALL in codes or code in codes or any(code.startswith(c) for c in codes):
                return True
        return False


def _comment_part(line: str) -> str:
    """The comment text of a line: after `#` (YAML) or inside `<!-- -->` (Markdown)."""
    if "<!--" in line:
        return line[line.index("<!--") :]
    return line[line.index("#") :] if "#" in line else ""


def parse(text: str) -> Suppressions:
    found = Suppressions()
    if "ctxres:" not in text:
        return found
    for number, line in enumerate(text.splitlines(), start=1):
        comment = _comment_part(line)
        for match in _DIRECTIVE.finditer(comment):
            codes = {c.strip() for c in (match.group(2) or "").split(",") if c.strip()} or {ALL}
            if match.group(1) == "ignore-file":
                found.whole_file |= codes
            else:
                found.by_line.setdefault(number, set()).update(codes)
    return found
