"""Inline suppression comments.

``# ctxres: ignore[C006]`` (YAML) or ``<!-- ctxres: ignore[R002] -->`` (Markdown) on the line of a
finding silences it; ``ctxres: ignore`` without codes silences every rule on that line;
``ctxres: ignore-file[C006]`` anywhere in the file silences the codes for the whole file.
JSON has no comments: use ``per-file-ignores`` in the configuration.

A code in a comment is a rule code or a prefix of one (``C``, ``C00``), case-sensitive, or ``ALL``
(every rule, like no codes). Each directive keeps where it and each of its codes are written, so
that the engine can report a code that names no rule (I001) and one that silenced nothing (I002).
"""

from __future__ import annotations

import re

from ctxres.config import ALL
from ctxres.records import FrozenRecord, Record, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

_DIRECTIVE = re.compile(r"ctxres:\s*(ignore-file|ignore)\b(?:\[([^\]\n]*)\])?")
_CODE = re.compile(r"[^,\s]+")
EVERY_RULE = -1
"""The index that stands for a directive without codes (or with ``ALL``) in :meth:`Suppressions.covering`."""


class Code(FrozenRecord):
    """One code of a directive, as written, and its 1-based column."""

    __slots__ = ("col", "text")

    text: str
    col: int

    def __init__(self, text: str, col: int) -> None:
        init_field(self, "text", text)
        init_field(self, "col", col)


class Directive(FrozenRecord):
    """One ``ctxres: ignore`` or ``ctxres: ignore-file`` comment: where it starts, and its codes (none: every
    rule)."""

    __slots__ = ("codes", "col", "line", "whole_file")

    line: int
    col: int
    whole_file: bool
    codes: tuple[Code, ...]

    def __init__(self, line: int, col: int, whole_file: bool, codes: tuple[Code, ...] = ()) -> None:
        init_field(self, "line", line)
        init_field(self, "col", col)
        init_field(self, "whole_file", whole_file)
        init_field(self, "codes", codes)

    @property
    def every_rule(self) -> bool:
        return not self.codes or any(code.text == ALL for code in self.codes)

    def applies_to(self, line: int) -> bool:
        return self.whole_file or self.line == line


class Suppressions(Record):
    __slots__ = ("directives",)

    directives: list[Directive]

    def __init__(self, directives: list[Directive] | None = None) -> None:
        self.directives = [] if directives is None else directives

    def covering(self, code: str, line: int) -> list[tuple[int, int]]:
        """(directive index, code index or :data:`EVERY_RULE`) of every directive code that silences ``code``
        at ``line``. A code that is not a rule code or prefix (``c006``, ``C0006``) silences nothing."""
        hits = []
        for index, directive in enumerate(self.directives):
            if not directive.applies_to(line):
                continue
            if directive.every_rule:
                hits.append((index, EVERY_RULE))
                continue
            hits += [(index, i) for i, written in enumerate(directive.codes) if code.startswith(written.text)]
        return hits


def _comment_start(line: str, yaml: bool) -> int:
    """Where the comment of a line starts: ``<!--`` (Markdown, HTML) or, in YAML, ``#``; -1 when it has none."""
    starts = [i for i in (line.find("<!--"), line.find("#") if yaml else -1) if i >= 0]
    return min(starts, default=-1)


def parse(text: str, *, markdown: bool = False) -> Suppressions:
    """The directives of a file. In Markdown (``markdown``) a ``#`` starts a heading, not a comment: only
    HTML comments count there, and YAML comments in the front matter."""
    found = Suppressions()
    if "ctxres:" not in text:
        return found
    lines = text.splitlines()
    front_matter_end = _front_matter_end(lines) if markdown else len(lines)
    for number, line in enumerate(lines, start=1):
        start = _comment_start(line, yaml=number <= front_matter_end)
        if start < 0:
            continue
        for match in _DIRECTIVE.finditer(line, start):
            codes: tuple[Code, ...] = ()
            if match.group(2) is not None:
                base = match.start(2) + 1
                codes = tuple(Code(m.group(), base + m.start()) for m in _CODE.finditer(match.group(2)))
            found.directives.append(Directive(number, match.start() + 1, match.group(1) == "ignore-file", codes))
    return found


def _front_matter_end(lines: list[str]) -> int:
    """The line number of the closing ``---`` of a Markdown file's front matter; 0 when it has none."""
    if not lines or lines[0].strip() != "---":
        return 0
    return next((n for n, line in enumerate(lines[1:], start=2) if line.strip() in ("---", "...")), 0)
