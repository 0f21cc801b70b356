"""What a check reports: a located finding with a rule code and a severity."""

from __future__ import annotations

from enum import Enum

from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").


class Severity(str, Enum):
    """How serious a finding is. Errors fail a check; warnings fail it only under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"


class Position(FrozenRecord):
    """A 1-based line and column in a file."""

    __slots__ = ("col", "line")

    line: int
    col: int

    def __init__(self, line: int = 1, col: int = 1) -> None:
        init_field(self, "line", line)
        init_field(self, "col", col)

    def __lt__(self, other: Position) -> bool:
        return (self.line, self.col) < (other.line, other.col)

    def __le__(self, other: Position) -> bool:
        return (self.line, self.col) <= (other.line, other.col)

    def __gt__(self, other: Position) -> bool:
        return (self.line, self.col) > (other.line, other.col)

    def __ge__(self, other: Position) -> bool:
        return (self.line, self.col) >= (other.line, other.col)


ORIGIN = Position()
"""Line 1, column 1: where a finding without a better place is shown."""


class Finding(FrozenRecord):
    """One problem in one file, at one place.

    ``json_path`` is the location inside the document (``$.resumption.recovery_state``) when the
    finding is about a value; ``fix`` says what to change, in one sentence, when we know. ``related``
    names the other files a finding across files is about (their real paths: a workflow's compaction
    event and the checkpoint file it points to), so that a check of named files reports a finding found
    in a file it only compared them with when it concerns one of them.
    """

    __slots__ = ("code", "end_position", "fix", "json_path", "message", "path", "position", "related", "severity")

    path: str
    code: str
    message: str
    severity: Severity
    position: Position
    json_path: str
    fix: str
    end_position: Position | None
    related: tuple[str, ...]

    def __init__(
        self,
        path: str,
        code: str,
        message: str,
        severity: Severity,
        position: Position = ORIGIN,
        json_path: str = "",
        fix: str = "",
        end_position: Position | None = None,
        related: tuple[str, ...] = (),
    ) -> None:
        init_field(self, "path", path)
        init_field(self, "code", code)
        init_field(self, "message", message)
        init_field(self, "severity", severity)
        init_field(self, "position", position)
        init_field(self, "json_path", json_path)
        init_field(self, "fix", fix)
        init_field(self, "end_position", end_position)
        init_field(self, "related", related)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.position.line, self.position.col, self.code, self.message)
