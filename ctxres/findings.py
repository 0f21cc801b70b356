"""What a check reports: a located finding with a rule code and a severity."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    """How serious a finding is. Errors fail a check; warnings fail it only under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class Finding:
    """One problem in one file, at one place.

    ``json_path`` is the location inside the document (``$.resumption.recovery_state``) when the
    finding is about a value; ``fix`` says what to change, in one sentence, when we know.
    """

    path: str
    code: str
    message: str
    severity: Severity
    position: Position = field(default_factory=Position)
    json_path: str = ""
    fix: str = ""
    end_position: Position | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.position.line, self.position.col, self.code, self.message)
